/* blocked.c -- clients blocked in XREAD / XREADGROUP, and in the blocking
 * pops of lists and sorted sets (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP,
 * BZPOPMIN, BZPOPMAX, BZMPOP).
 *
 * A blocking read that finds nothing calls blockForStreams() and returns
 * without a reply; the core stops reading that client's input. When a key
 * it waits on becomes ready (XADD, a group destroyed, the key deleted...)
 * the command runs again (CLIENT_REEXECUTING) and either replies or blocks
 * again, keeping its original deadline -- Redis 7.2's model, so a woken
 * XREADGROUP sees exactly what a fresh one would (-NOGROUP when its key or
 * group is gone).
 *
 * Unlike Redis, a ready key does not re-run every client blocked on it:
 * waiters are queued per key by what they wait for -- one FIFO of XREAD
 * clients, and one FIFO per consumer group of XREADGROUP ">" clients -- and
 * a client is only re-run when it can be served now. An XADD with a
 * thousand consumers of one group blocked on the stream wakes one of them
 * (the one that blocked first), not a thousand. Clients are served in the
 * order they blocked within each queue, which is the order that matters:
 * group readers compete for the same entries; plain readers do not change
 * anything. (Redis re-runs the others too, which refreshes their
 * consumer's seen-time; here the seen-time of a waiter that cannot be
 * served is left as it was when it last ran.)
 *
 * Blocking pops wait in one more FIFO per key, with the type they pop
 * (OBJ_LIST or OBJ_ZSET). When the key is signalled ready and holds a value
 * of that type, the waiters of that type are re-run in the order they
 * blocked, as Redis 7.2 does (one pass over the waiters present when the
 * key was served; each re-run sees what the previous ones left, a waiter
 * re-run on an empty key blocks again at the back). A key holding another
 * type leaves them waiting: BLPOP next to XREAD on the same key name is
 * served only by a list, XREAD only by a stream.
 *
 * Timeouts are libevent timers on server.el. */
#include <event2/event.h>
#include <stdio.h>
#include <string.h>

#include "server.h"
#include "t_stream.h"

/* db->blocking_keys value: who waits for one key. */
typedef struct blockedKey {
    list *readers;         /* XREAD waiters (bwait*), in blocking order */
    dict *groups;          /* group name -> list of XREADGROUP waiters
                            * (bwait*), in blocking order */
    list *pops;            /* blocking pops of lists and zsets (bwait*),
                            * in blocking order */
    unsigned long waiters; /* readers, pops and all group waiters */
} blockedKey;

/* c->bstate.keys value: one key one client waits on. */
typedef struct bwait {
    client *c;      /* the blocked client */
    redisDb *db;    /* database of the key */
    sds key;        /* the key */
    streamID id;    /* XREAD: servable once the stream has an entry > id */
    sds group;      /* XREADGROUP: the group, NULL for XREAD */
    int btype;      /* blocking pop: OBJ_LIST / OBJ_ZSET; -1 streams */
    list *queue;    /* the FIFO holding this waiter */
    listNode *node; /* this waiter in queue */
} bwait;

/* server.ready_keys item. */
typedef struct readyKey {
    redisDb *db; /* database of the key */
    sds key;     /* the key that got data or changed */
} readyKey;

/* ========================================================================
 * Blocking and unblocking
 * ===================================================================== */

static void blockTimeoutHandler(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    updateCachedTime();
    unblockClientOnTimeout(arg);
}

static void armTimer(client *c) {
    if (!c->bstate.timeout) return;
    long long delay = c->bstate.timeout - mstime();
    if (delay < 0) delay = 0;
    struct timeval tv = {(time_t)(delay / 1000), (suseconds_t)((delay % 1000) * 1000)};
    c->bstate.timer = evtimer_new(server.el, blockTimeoutHandler, c);
    evtimer_add(c->bstate.timer, &tv);
}

static blockedKey *getBlockedKey(redisDb *db, sds key, int create) {
    if (!db->blocking_keys) {
        if (!create) return NULL;
        db->blocking_keys = dictCreate(&sdsKeyDictType);
    }
    blockedKey *bk = dictFetchValue(db->blocking_keys, key);
    if (bk || !create) return bk;
    bk = zmalloc(sizeof(*bk));
    bk->readers = listCreate();
    bk->groups = dictCreate(&sdsKeyDictType);
    bk->pops = listCreate();
    bk->waiters = 0;
    dictAdd(db->blocking_keys, sdsdup(key), bk);
    server.stat_total_blocking_keys++;
    return bk;
}

void blockForStreams(client *c, sds *keys, const streamID *ids, int numkeys, long long timeout_ms, sds group) {
    /* Running again after a wake-up keeps the original deadline. */
    if (!(c->flags & CLIENT_REEXECUTING)) {
        c->bstate.timeout = timeout_ms;
        c->bstate.blocked_at_us = ustime();
    }
    c->bstate.block_seq = server.change_seq;
    if (!c->bstate.keys) c->bstate.keys = dictCreate(&sdsKeyDictType);
    for (int j = 0; j < numkeys; j++) {
        bwait *dup = dictFetchValue(c->bstate.keys, keys[j]);
        if (dup) {
            /* The same key twice (XREAD): the smaller ID decides. */
            if (ids && streamCompareID(&ids[j], &dup->id) < 0) dup->id = ids[j];
            continue;
        }
        blockedKey *bk = getBlockedKey(c->db, keys[j], 1);
        bwait *w = zcalloc(sizeof(*w));
        w->c = c;
        w->db = c->db;
        w->key = sdsdup(keys[j]);
        w->btype = -1;
        if (ids) w->id = ids[j];
        if (group) {
            w->group = sdsdup(group);
            list *q = dictFetchValue(bk->groups, group);
            if (!q) {
                q = listCreate();
                dictAdd(bk->groups, sdsdup(group), q);
            }
            w->queue = q;
        } else {
            w->queue = bk->readers;
        }
        w->node = listAddNodeTail(w->queue, w);
        bk->waiters++;
        dictAdd(c->bstate.keys, sdsdup(keys[j]), w);
    }
    c->flags |= CLIENT_BLOCKED;
    server.blocked_clients++;
    armTimer(c);
}

void blockForKeys(client *c, sds *keys, int numkeys, long long timeout_ms) {
    /* Without IDs: any signal on a key that exists serves the client. */
    streamID zero = {0, 0};
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)(numkeys ? numkeys : 1));
    for (int j = 0; j < numkeys; j++) ids[j] = zero;
    blockForStreams(c, keys, ids, numkeys, timeout_ms, NULL);
    zfree(ids);
}

/* A blocking pop (list or zset, btype) waiting on keys. */
void blockForKeysOfType(client *c, sds *keys, int numkeys, long long timeout_ms, int btype) {
    if (!(c->flags & CLIENT_REEXECUTING)) {
        c->bstate.timeout = timeout_ms;
        c->bstate.blocked_at_us = ustime();
    }
    c->bstate.block_seq = server.change_seq;
    if (!c->bstate.keys) c->bstate.keys = dictCreate(&sdsKeyDictType);
    for (int j = 0; j < numkeys; j++) {
        if (dictFind(c->bstate.keys, keys[j])) continue; /* BLPOP k k */
        blockedKey *bk = getBlockedKey(c->db, keys[j], 1);
        bwait *w = zcalloc(sizeof(*w));
        w->c = c;
        w->db = c->db;
        w->key = sdsdup(keys[j]);
        w->btype = btype;
        w->queue = bk->pops;
        w->node = listAddNodeTail(w->queue, w);
        bk->waiters++;
        dictAdd(c->bstate.keys, sdsdup(keys[j]), w);
    }
    c->flags |= CLIENT_BLOCKED;
    server.blocked_clients++;
    armTimer(c);
}

static void removeWaiter(bwait *w) {
    blockedKey *bk = getBlockedKey(w->db, w->key, 0);
    listDelNode(w->queue, w->node);
    if (bk) {
        if (w->group && listLength(w->queue) == 0) {
            listRelease(w->queue);
            dictDelete(bk->groups, w->group);
        }
        if (--bk->waiters == 0) {
            listRelease(bk->readers);
            listRelease(bk->pops);
            dictRelease(bk->groups);
            zfree(bk);
            dictDelete(w->db->blocking_keys, w->key);
            server.stat_total_blocking_keys--;
        }
    }
    sdsfree(w->key);
    if (w->group) sdsfree(w->group);
    zfree(w);
}

/* Removes the client from every queue and stops its timer. Its command
 * (c->argv) is left alone: the caller re-runs it or resets the client. */
void unblockClient(client *c) {
    if (!(c->flags & CLIENT_BLOCKED)) return;
    if (c->bstate.keys) {
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, c->bstate.keys);
        while ((de = dictNext(&it)) != NULL) removeWaiter(de->val);
        dictRelease(c->bstate.keys);
        c->bstate.keys = NULL;
    }
    if (c->bstate.timer) {
        event_free(c->bstate.timer);
        c->bstate.timer = NULL;
    }
    c->flags &= ~CLIENT_BLOCKED;
    c->bstate.timeout_reply = BLOCK_REPLY_NULL;
    server.blocked_clients--;
}

/* A reply produced outside call(): queue it behind what the command
 * changed before blocking, then let the client go on with its input. */
static void finishUnblockedClient(client *c) {
    uint64_t need = c->bstate.block_seq;
    if (c->cmd) c->cmd->calls++;
    server.stat_numcommands++;
    unblockClient(c);
    clientCommitReply(c, need);
    afterCommand(c);
}

void replyToBlockedClientTimedOut(client *c) {
    switch (c->bstate.timeout_reply) {
    case BLOCK_REPLY_WAIT: addReplyLongLong(c, 0); break;
    case BLOCK_REPLY_WAITAOF:
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, 1);
        addReplyLongLong(c, 0);
        break;
    default: addReplyNullArray(c); break;
    }
}

void unblockClientOnTimeout(client *c) {
    if (!(c->flags & CLIENT_BLOCKED)) return;
    replyToBlockedClientTimedOut(c);
    finishUnblockedClient(c);
}

void unblockClientOnError(client *c, const char *err) {
    if (!(c->flags & CLIENT_BLOCKED)) return;
    if (err) addReplyError(c, err);
    finishUnblockedClient(c);
}

void disconnectAllBlockedClients(void) {
    listNode *ln;
    for (ln = listFirst(server.clients); ln; ln = ln->next) {
        client *c = ln->value;
        if (!(c->flags & CLIENT_BLOCKED)) continue;
        unblockClientOnError(c, "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
                                "replica?)");
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
}

/* ========================================================================
 * Ready keys
 * ===================================================================== */

static void queueReadyKey(redisDb *db, sds key) {
    sds dk = sdscatprintf(sdsempty(), "%d:", db->id);
    dk = sdscatlen(dk, key, sdslen(key));
    if (dictFind(server.ready_keys_dict, dk)) {
        sdsfree(dk);
        return;
    }
    dictAdd(server.ready_keys_dict, dk, NULL);
    readyKey *rk = zmalloc(sizeof(*rk));
    rk->db = db;
    rk->key = sdsdup(key);
    listAddNodeTail(server.ready_keys, rk);
}

void signalKeyAsReady(redisDb *db, sds key) {
    if (!getBlockedKey(db, key, 0)) return;
    queueReadyKey(db, key);
}

/* The key was deleted (DEL, FLUSH*, SWAPDB, RENAME, expiry): XREADGROUP
 * waiters must learn it (-NOGROUP); XREAD waiters keep waiting. */
void signalDeletedKeyAsReady(redisDb *db, sds key) {
    blockedKey *bk = getBlockedKey(db, key, 0);
    if (!bk || dictSize(bk->groups) == 0) return;
    queueReadyKey(db, key);
}

/* Runs the client's command again now that it can be served. */
static void reexecBlockedClient(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) {
        unblockClient(c); /* going away: do not consume entries for it */
        return;
    }
    unblockClient(c);
    c->flags |= CLIENT_REEXECUTING;
    call(c);
    if (!(c->flags & CLIENT_BLOCKED)) afterCommand(c);
}

/* The key's value as a waiter sees it: no lazy expiry, no observation
 * (the command does both when it runs again). */
static robj *peekKey(redisDb *db, sds key) {
    robj *o = dictFetchValue(db->keys, key);
    if (o) {
        long long when = getExpire(db, key);
        if (when != -1 && when <= commandTimeSnapshot()) o = NULL;
    }
    return o;
}

/* Blocking pops: one pass, in blocking order, over the waiters whose type
 * the key now holds. */
static void serveBlockingPops(redisDb *db, sds key) {
    blockedKey *bk = getBlockedKey(db, key, 0);
    if (!bk || !listLength(bk->pops)) return;
    robj *o = peekKey(db, key);
    if (!o) return;
    size_t n = 0, cap = listLength(bk->pops);
    client **ready = zmalloc(sizeof(client *) * cap);
    for (listNode *ln = listFirst(bk->pops); ln; ln = ln->next) {
        bwait *w = ln->value;
        if (w->btype == o->type) ready[n++] = w->c;
    }
    for (size_t i = 0; i < n; i++) {
        client *c = ready[i];
        o = peekKey(db, key);
        if (!o) break;
        if (!(c->flags & CLIENT_BLOCKED) || !c->bstate.keys || c->db != db) continue;
        bwait *w = dictFetchValue(c->bstate.keys, key);
        if (!w || w->btype != o->type || w->db != db) continue;
        reexecBlockedClient(c);
    }
    zfree(ready);
}

static void serveClientsBlockedOnKey(redisDb *db, sds key) {
    serveBlockingPops(db, key);
    blockedKey *bk = getBlockedKey(db, key, 0);
    if (!bk) return;

    /* Plain readers change nothing, so who can be served is known up
     * front. */
    if (listLength(bk->readers)) {
        size_t n = 0, cap = listLength(bk->readers);
        client **ready = zmalloc(sizeof(client *) * cap);
        for (listNode *ln = listFirst(bk->readers); ln; ln = ln->next) {
            bwait *w = ln->value;
            if (streamWaiterCanBeServed(db, key, &w->id, NULL)) ready[n++] = w->c;
        }
        for (size_t i = 0; i < n; i++) {
            client *c = ready[i];
            if ((c->flags & CLIENT_BLOCKED) && c->bstate.keys && dictFind(c->bstate.keys, key))
                reexecBlockedClient(c);
        }
        zfree(ready);
    }

    /* Group readers compete: serve each group's FIFO while the group has
     * something to deliver (or is gone: then they all get the error). */
    bk = getBlockedKey(db, key, 0);
    if (!bk || dictSize(bk->groups) == 0) return;
    size_t ng = 0;
    sds *names = zmalloc(sizeof(sds) * dictSize(bk->groups));
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, bk->groups);
    while ((de = dictNext(&it)) != NULL) names[ng++] = sdsdup(de->key);
    for (size_t g = 0; g < ng; g++) {
        bk = getBlockedKey(db, key, 0);
        list *q = bk ? dictFetchValue(bk->groups, names[g]) : NULL;
        long limit = q ? (long)listLength(q) : 0;
        while (limit-- > 0) {
            bk = getBlockedKey(db, key, 0);
            q = bk ? dictFetchValue(bk->groups, names[g]) : NULL;
            if (!q || !listLength(q)) break;
            if (!streamWaiterCanBeServed(db, key, NULL, names[g])) break;
            bwait *w = listFirst(q)->value;
            reexecBlockedClient(w->c);
        }
    }
    for (size_t g = 0; g < ng; g++) sdsfree(names[g]);
    zfree(names);
}

void handleClientsBlockedOnKeys(void) {
    static int in_handling = 0;
    if (in_handling) return;
    in_handling = 1;
    while (listLength(server.ready_keys)) {
        /* Keys signalled while serving go to a fresh list, handled next. */
        list *l = server.ready_keys;
        server.ready_keys = listCreate();
        while (listLength(l)) {
            listNode *ln = listFirst(l);
            readyKey *rk = ln->value;
            sds dk = sdscatprintf(sdsempty(), "%d:", rk->db->id);
            dk = sdscatlen(dk, rk->key, sdslen(rk->key));
            dictDelete(server.ready_keys_dict, dk);
            sdsfree(dk);
            serveClientsBlockedOnKey(rk->db, rk->key);
            sdsfree(rk->key);
            zfree(rk);
            listDelNode(l, ln);
        }
        listRelease(l);
    }
    in_handling = 0;
}
