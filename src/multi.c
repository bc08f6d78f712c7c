/* multi.c -- transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
 *
 * Redis 7.2 semantics. While a client is in MULTI, processCommand()
 * (server.c) queues its commands here (queueMultiCommand) and answers
 * +QUEUED, or flags the transaction (flagTransaction) when a command could
 * not be queued, which makes EXEC fail with EXECABORT. EXEC runs the queue
 * through call(), so the replies and the changes of every queued command
 * accumulate into EXEC's one reply, released once all of it is durable.
 *
 * WATCH is optimistic locking: every change to a key goes through
 * signalModifiedKey() -> touchWatchedKey(), which marks the clients
 * watching it CLIENT_DIRTY_CAS; their EXEC then replies with a null
 * array. */
#include "server.h"

#include <string.h>

/* One key a client WATCHes. The same struct sits in the client's list
 * (c->watched_keys) and in the db's per-key list (db->watched_keys). */
typedef struct watchedKey {
    sds key;           /* the key (owned copy) */
    redisDb *db;       /* its database */
    client *client;    /* who watches it */
    listNode *db_node; /* this struct's node in db->watched_keys[key] */
    int expired;       /* the key was logically expired when WATCHed: its
                        * deletion by expiry is not a change */
} watchedKey;

/* ========================================================================
 * The command queue
 * ===================================================================== */

void initClientMultiState(client *c) {
    c->mstate.commands = NULL;
    c->mstate.count = 0;
    c->mstate.alloc = 0;
}

void freeClientMultiState(client *c) {
    for (int j = 0; j < c->mstate.count; j++) {
        multiCmd *mc = &c->mstate.commands[j];
        for (int i = 0; i < mc->argc; i++) sdsfree(mc->argv[i]);
        zfree(mc->argv);
    }
    zfree(c->mstate.commands);
    initClientMultiState(c);
}

/* Moves the client's current command (c->argv, c->cmd) to the queue. The
 * argument strings change owner; c->argc is left 0 so the caller does not
 * free them. The caller replies +QUEUED. */
int multiStateHasFlag(client *c, uint64_t flag) {
    for (int j = 0; j < c->mstate.count; j++)
        if (c->mstate.commands[j].cmd->flags & flag) return 1;
    return 0;
}

void queueMultiCommand(client *c) {
    /* Once EXEC is bound to fail there is no point keeping anything. */
    if (c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) return;
    if (c->mstate.count == c->mstate.alloc) {
        c->mstate.alloc = c->mstate.alloc ? c->mstate.alloc * 2 : 2;
        c->mstate.commands = zrealloc(c->mstate.commands, sizeof(multiCmd) * (size_t)c->mstate.alloc);
    }
    multiCmd *mc = &c->mstate.commands[c->mstate.count++];
    mc->cmd = c->cmd;
    mc->argc = c->argc;
    mc->argv = zmalloc(sizeof(sds) * (size_t)c->argc);
    memcpy(mc->argv, c->argv, sizeof(sds) * (size_t)c->argc);
    c->argc = 0;
}

/* Leaves MULTI: drops the queue and the WATCHes. */
void discardTransaction(client *c) {
    freeClientMultiState(c);
    c->flags &= ~(uint64_t)(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    unwatchAllKeys(c);
}

/* A command failed to queue (unknown, wrong arity, refused...): EXEC will
 * answer EXECABORT. */
void flagTransaction(client *c) {
    if (c->flags & CLIENT_MULTI) c->flags |= CLIENT_DIRTY_EXEC;
}

/* ========================================================================
 * WATCH bookkeeping
 * ===================================================================== */

static void watchForKey(client *c, sds key) {
    listNode *ln;
    for (ln = listFirst(c->watched_keys); ln; ln = ln->next) {
        watchedKey *wk = ln->value;
        if (wk->db == c->db && sdslen(wk->key) == sdslen(key) && memcmp(wk->key, key, sdslen(key)) == 0)
            return; /* already watched */
    }
    list *watchers = dictFetchValue(c->db->watched_keys, key);
    if (!watchers) {
        watchers = listCreate();
        dictAdd(c->db->watched_keys, sdsdup(key), watchers);
    }
    watchedKey *wk = zmalloc(sizeof(*wk));
    wk->key = sdsdup(key);
    wk->db = c->db;
    wk->client = c;
    wk->expired = keyIsExpired(c->db, key);
    wk->db_node = listAddNodeTail(watchers, wk);
    listAddNodeTail(c->watched_keys, wk);
}

/* Removes every WATCH of c (its list itself stays, empty). */
void unwatchAllKeys(client *c) {
    if (!c->watched_keys) return;
    while (listLength(c->watched_keys)) {
        listNode *ln = listFirst(c->watched_keys);
        watchedKey *wk = ln->value;
        list *watchers = dictFetchValue(wk->db->watched_keys, wk->key);
        serverAssert(watchers != NULL);
        listDelNode(watchers, wk->db_node);
        if (listLength(watchers) == 0) {
            listRelease(watchers);
            dictDelete(wk->db->watched_keys, wk->key);
        }
        listDelNode(c->watched_keys, ln);
        sdsfree(wk->key);
        zfree(wk);
    }
}

/* Marks c's transaction as failed by a WATCHed key and drops its WATCHes:
 * nothing can save the transaction any more. */
static void dirtyWatchingClient(client *c) {
    c->flags |= CLIENT_DIRTY_CAS;
    unwatchAllKeys(c);
}

/* key in db changed (signalModifiedKey): every client watching it will
 * have its EXEC fail. A key that was already expired when WATCHed and is
 * now deleted (by expiry) did not logically change. */
void touchWatchedKey(redisDb *db, sds key) {
    if (!db->watched_keys || dictSize(db->watched_keys) == 0) return;
    list *watchers = dictFetchValue(db->watched_keys, key);
    if (!watchers) return;
    listNode *ln = listFirst(watchers), *next;
    for (; ln; ln = next) {
        /* dirtyWatchingClient removes this node, and frees the list along
         * with its last node: take the next one first. */
        next = ln->next;
        watchedKey *wk = ln->value;
        if (wk->expired) {
            if (!dictFind(db->keys, key)) {
                /* Deleted keys are not flagged as expired. */
                wk->expired = 0;
                continue;
            }
        }
        dirtyWatchingClient(wk->client);
    }
}

/* The contents of `emptied` are replaced by those of `replaced_with` (NULL
 * for a flush): the watchers of every key that existed in either see a
 * change, except where an expired key stays logically absent. */
void touchAllWatchedKeysInDb(redisDb *emptied, redisDb *replaced_with) {
    if (!emptied->watched_keys || dictSize(emptied->watched_keys) == 0) return;

    /* Dirtying a client removes its WATCHes, which can delete entries of
     * the dict being walked: walk a copy of the key names. */
    unsigned long n = 0, size = dictSize(emptied->watched_keys);
    sds *keys = zmalloc(sizeof(sds) * size);
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, emptied->watched_keys);
    while ((de = dictNext(&it)) != NULL) keys[n++] = sdsdup(de->key);

    for (unsigned long i = 0; i < n; i++) {
        sds key = keys[i];
        int exists_in_emptied = dictFind(emptied->keys, key) != NULL;
        int exists_in_replacement = replaced_with && dictFind(replaced_with->keys, key) != NULL;
        if (!exists_in_emptied && !exists_in_replacement) continue;
        list *watchers = dictFetchValue(emptied->watched_keys, key);
        listNode *ln = watchers ? listFirst(watchers) : NULL, *next;
        for (; ln; ln = next) {
            next = ln->next;
            watchedKey *wk = ln->value;
            if (wk->expired) {
                if (!exists_in_replacement) {
                    /* The expired key is now gone: no logical change. */
                    wk->expired = 0;
                    continue;
                } else if (keyIsExpired(replaced_with, key)) {
                    /* Replaced by a key that is expired too. */
                    continue;
                }
            } else if (!exists_in_emptied && keyIsExpired(replaced_with, key)) {
                /* A missing key replaced by an expired one: still missing. */
                wk->expired = 1;
                continue;
            }
            dirtyWatchingClient(wk->client);
        }
    }
    for (unsigned long i = 0; i < n; i++) sdsfree(keys[i]);
    zfree(keys);
}

/* Whether a key c WATCHes has expired since (a key already expired when
 * WATCHed does not count). */
int isWatchedKeyExpired(client *c) {
    if (!c->watched_keys) return 0;
    for (listNode *ln = listFirst(c->watched_keys); ln; ln = ln->next) {
        watchedKey *wk = ln->value;
        if (wk->expired) continue;
        if (keyIsExpired(wk->db, wk->key)) return 1;
    }
    return 0;
}

/* EXEC's outcome depends on the WATCHed keys' state: record it, so the
 * reply waits for whatever change of them it reflects. */
static void observeWatchedKeys(client *c) {
    for (listNode *ln = listFirst(c->watched_keys); ln; ln = ln->next) {
        watchedKey *wk = ln->value;
        robj *o = dictFetchValue(wk->db->keys, wk->key);
        observeSeq(c, o ? o->mod_seq : wk->db->del_seq);
    }
}

/* ========================================================================
 * Commands
 * ===================================================================== */

void multiCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "-ERR MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    addReplyOk(c);
}

void discardCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "-ERR DISCARD without MULTI");
        return;
    }
    discardTransaction(c);
    addReplyOk(c);
}

void execCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "-ERR EXEC without MULTI");
        return;
    }
    if (isWatchedKeyExpired(c)) c->flags |= CLIENT_DIRTY_CAS;

    if (c->flags & CLIENT_DIRTY_EXEC) {
        addReplyErrorObject(c, "-EXECABORT Transaction discarded because of previous errors.\r\n");
        discardTransaction(c);
        return;
    }
    if (c->flags & CLIENT_DIRTY_CAS) {
        /* A watched key changed: the null reply reveals that change, so it
         * waits for everything done so far to be durable. */
        observeSeq(c, server.change_seq);
        addReplyNullArray(c);
        discardTransaction(c);
        return;
    }

    observeWatchedKeys(c);
    unwatchAllKeys(c); /* as soon as possible: our own writes must not
                        * dirty us */

    sds *orig_argv = c->argv;
    int orig_argc = c->argc, orig_argv_len = c->argv_len;
    struct redisCommand *orig_cmd = c->cmd;

    server.in_exec = 1;
    addReplyArrayLen(c, c->mstate.count);
    for (int j = 0; j < c->mstate.count; j++) {
        multiCmd *mc = &c->mstate.commands[j];
        c->argc = mc->argc;
        c->argv = mc->argv;
        c->argv_len = mc->argc;
        c->cmd = mc->cmd;
        call(c);
        serverAssert(!(c->flags & CLIENT_BLOCKED));
        /* A command may rewrite its arguments. */
        mc->argc = c->argc;
        mc->argv = c->argv;
        mc->cmd = c->cmd;
    }
    server.in_exec = 0;

    c->argv = orig_argv;
    c->argc = orig_argc;
    c->argv_len = orig_argv_len;
    c->cmd = orig_cmd;
    discardTransaction(c);
}

/* processCommand refused EXEC itself (arity, NOAUTH...): Redis answers
 * with an EXECABORT naming the reason, and the transaction, if any, is
 * discarded. `error` is the refusal's message, with or without a leading
 * '-' and trailing CRLF. */
void execCommandAbort(client *c, const char *error) {
    discardTransaction(c);
    if (error[0] == '-') error++;
    size_t len = strlen(error);
    while (len && (error[len - 1] == '\r' || error[len - 1] == '\n')) len--;
    addReplyErrorFormat(c, "-EXECABORT Transaction discarded because of: %.*s", (int)len, error);
}

void watchCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "-ERR WATCH inside MULTI is not allowed");
        return;
    }
    /* No point in watching if the client is already dirty. */
    if (!(c->flags & CLIENT_DIRTY_CAS))
        for (int j = 1; j < c->argc; j++) watchForKey(c, c->argv[j]);
    addReplyOk(c);
}

void unwatchCommand(client *c) {
    unwatchAllKeys(c);
    c->flags &= ~(uint64_t)CLIENT_DIRTY_CAS;
    addReplyOk(c);
}

/* ========================================================================
 * Command table (Redis 7.2's arity, flags and categories)
 * ===================================================================== */

struct redisCommand multiCommandTable[] = {
    {"multi", multiCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0,
     "fast transaction", NULL},
    {"exec", execCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG, 0, 0, 0,
     "slow transaction", NULL},
    {"discard", discardCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0,
     "fast transaction", NULL},
    {"watch", watchCommand, -2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 1, -1, 1,
     "fast transaction", NULL},
    {"unwatch", unwatchCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0,
     "fast transaction", NULL},
    {0},
};
