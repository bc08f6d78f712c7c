/* db.c -- the keyspace: databases, lookups, change tracking, and the
 * generic key commands (DEL, EXISTS, TYPE, KEYS, SCAN, RENAME, SELECT,
 * SWAPDB, FLUSHDB ...).
 *
 * Semantics follow Redis 7.2's db.c. What casq adds is change tracking for
 * the group commit (design.md §4): every change goes through
 * signalModifiedKey() or signalStateChanged(), which advance
 * server.change_seq and stamp what changed; every read goes through
 * lookupKeyRead()/lookupKeyWrite() or observeDb(), which record the newest
 * change the reply depends on in c->observe_seq. A reply is released once
 * both are durable. */
#include "keyseg.h"
#include "server.h"
#include "t_stream.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ========================================================================
 * Dictionary types
 * ===================================================================== */

static uint64_t dbSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

static int dbSdsKeyCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

static void dbSdsDestructor(void *p) { sdsfree(p); }

static void dbObjectDestructor(void *p) { freeObject(p); }

/* db->keys: owns both the key and the object. */
static dictType dbKeysDictType = {dbSdsHash, dbSdsKeyCompare, dbSdsDestructor, dbObjectDestructor};

/* db->expires: the key sds belongs to db->keys, the value is the time. */
static dictType dbExpiresDictType = {dbSdsHash, dbSdsKeyCompare, NULL, NULL};

/* ========================================================================
 * Databases
 * ===================================================================== */

/* Allocates server.db: cfg.databases empty databases. */
void initDbs(void) {
    server.db = zcalloc(sizeof(redisDb) * (size_t)server.cfg.databases);
    for (int j = 0; j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        db->id = j;
        db->keys = dictCreate(&dbKeysDictType);
        db->expires = dictCreate(&dbExpiresDictType);
        /* Both map an owned sds key to a value their module manages. */
        db->blocking_keys = dictCreate(&sdsKeyDictType);
        db->watched_keys = dictCreate(&sdsKeyDictType);
        db->log_deleted = dictCreate(&sdsKeyDictType);
        db->log_deleted_flight = dictCreate(&sdsKeyDictType);
        keysegDbInit(db);
    }
}

/* Frees every database (at exit, so leak checkers stay quiet). Clients
 * must be gone already: blocked and watching clients reference the dbs. */
void freeDbs(void) {
    if (!server.db) return;
    for (int j = 0; j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        keysegDbFree(db);
        dictRelease(db->expires);
        dictRelease(db->keys);
        if (db->blocking_keys) dictRelease(db->blocking_keys);
        if (db->watched_keys) dictRelease(db->watched_keys);
        dictRelease(db->log_deleted);
        dictRelease(db->log_deleted_flight);
    }
    zfree(server.db);
    server.db = NULL;
}

int selectDb(client *c, int id) {
    if (id < 0 || id >= server.cfg.databases) return C_ERR;
    c->db = &server.db[id];
    return C_OK;
}

long long dbTotalServerKeyCount(void) {
    long long total = 0;
    for (int j = 0; j < server.cfg.databases; j++) total += (long long)dictSize(server.db[j].keys);
    return total;
}

/* ========================================================================
 * Objects
 * ===================================================================== */

robj *createObject(int type, void *ptr) {
    robj *o = zmalloc(sizeof(*o));
    o->type = type;
    o->seg = 0; /* inline until sealed (keyseg.c) */
    o->ptr = ptr;
    o->mod_seq = 0;
    o->lru = LRU_CLOCK();
    return o;
}

robj *createStreamObject(void) { return createObject(OBJ_STREAM, streamNew()); }

int checkType(client *c, robj *o, int type) {
    if (!o || o->type == type) return 0;
    addReplyErrorObject(c, shared_wrongtypeerr);
    return 1;
}

/* ========================================================================
 * Access times (OBJECT IDLETIME), Redis's LRU clock: one store of the
 * cached command time per key lookup, no extra memory (robj padding).
 * ===================================================================== */

unsigned int LRU_CLOCK(void) {
    return (unsigned int)((server.mstime_cache / LRU_CLOCK_RESOLUTION) & LRU_CLOCK_MAX);
}

unsigned long long estimateObjectIdleTime(robj *o) {
    unsigned long long lruclock = LRU_CLOCK();
    if (lruclock >= o->lru) return (lruclock - o->lru) * LRU_CLOCK_RESOLUTION;
    return (lruclock + (LRU_CLOCK_MAX - o->lru)) * LRU_CLOCK_RESOLUTION;
}

void freeObject(robj *o) {
    if (!o) return;
    const objectType *ot = objectTypeGet(o->type);
    if (ot) ot->free(o->ptr);
    zfree(o);
}

const char *typeName(robj *o) {
    if (!o) return "none";
    const objectType *ot = objectTypeGet(o->type);
    return ot ? ot->name : "unknown";
}

/* ========================================================================
 * Change tracking (design.md §4)
 * ===================================================================== */

void observeSeq(client *c, uint64_t seq) {
    if (c && seq > c->observe_seq) c->observe_seq = seq;
}

void observeDb(client *c, redisDb *db) { observeSeq(c, db->mod_seq); }

void signalModifiedKey(client *c, redisDb *db, sds key, robj *o) {
    keysegKeyChanged(db, key, o);
    signalKeyStateChanged(c, db, o);
    if (!o) db->del_seq = server.change_seq;
    touchWatchedKey(db, key);
}

/* A change to o that Redis makes without signalling the key as modified
 * (consumer-group state, XSETID): a transaction WATCHing the key is not
 * aborted by it, but it is state like any other and goes into the next
 * commit. */
void signalKeyStateChanged(client *c, redisDb *db, robj *o) {
    server.change_seq++;
    server.dirty++;
    db->mod_seq = server.change_seq;
    if (o) o->mod_seq = server.change_seq;
    /* The command's reply shows the change: it waits for it. call() would
     * see change_seq move anyway; this keeps nested callers honest. */
    observeSeq(c, server.change_seq);
}

/* A db-wide change: anything may have appeared or disappeared, so both a
 * read of a missing key and a whole-db read depend on it. db may be NULL
 * for a change outside the keyspace. */
void signalStateChanged(redisDb *db) {
    server.change_seq++;
    server.dirty++;
    server.log_barrier_seq = server.change_seq;
    if (db) {
        db->mod_seq = server.change_seq;
        db->del_seq = server.change_seq;
    }
}

/* Stamps every object of db with the current change: after SWAPDB a key's
 * presence in this db is new state even though its object did not change,
 * so a read of it must wait for the swap to be durable. */
static void stampAllObjects(redisDb *db) {
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, db->keys);
    while ((de = dictNext(&it)) != NULL) ((robj *)de->val)->mod_seq = server.change_seq;
}

/* ========================================================================
 * Lookups
 * ===================================================================== */

#define LOOKUP_NONE 0
#define LOOKUP_WRITE (1 << 0)   /* for a write: no hit/miss stats (as Redis) */
#define LOOKUP_NOTOUCH (1 << 1) /* leave the access time alone (OBJECT) */

/* Finds key in db, expiring it first if its time has come (that deletion
 * is itself a change), and records what the reply will depend on: the
 * object's last change if found, the db's last removal if not. */
void touchCommand(client *c);

static robj *lookupKey(client *c, redisDb *db, sds key, int flags) {
    robj *val = dictFetchValue(db->keys, key);
    if (val && expireIfNeeded(db, key)) val = NULL;
    int stats = !(flags & LOOKUP_WRITE);
    if (val) {
        if (stats) server.stat_keyspace_hits++;
        observeSeq(c, val->mod_seq);
        /* A CLIENT NO-TOUCH client does not refresh it, except by TOUCH. */
        if (!(flags & LOOKUP_NOTOUCH) &&
            !(c && (c->flags & CLIENT_NO_TOUCH) && c->cmd && c->cmd->proc != touchCommand))
            val->lru = LRU_CLOCK();
    } else {
        if (stats) server.stat_keyspace_misses++;
        observeSeq(c, db->del_seq);
    }
    return val;
}

robj *lookupKeyRead(client *c, redisDb *db, sds key) { return lookupKey(c, db, key, LOOKUP_NONE); }

robj *lookupKeyWrite(client *c, redisDb *db, sds key) { return lookupKey(c, db, key, LOOKUP_WRITE); }

robj *lookupKeyReadNoTouch(client *c, redisDb *db, sds key) { return lookupKey(c, db, key, LOOKUP_NOTOUCH); }

/* `reply` is what to answer when the key is missing: a raw protocol string
 * ("-ERR no such key\r\n" counts as an error reply), or NULL for the null
 * reply of the client's protocol. */
static void addReplyMissing(client *c, const char *reply) {
    if (!reply) addReplyNull(c);
    else if (reply[0] == '-') addReplyErrorObject(c, reply);
    else addReplyStr(c, reply);
}

robj *lookupKeyReadOrReply(client *c, sds key, const char *reply) {
    robj *o = lookupKeyRead(c, c->db, key);
    if (!o) addReplyMissing(c, reply);
    return o;
}

robj *lookupKeyWriteOrReply(client *c, sds key, const char *reply) {
    robj *o = lookupKeyWrite(c, c->db, key);
    if (!o) addReplyMissing(c, reply);
    return o;
}

/* ========================================================================
 * Adding and deleting keys
 * ===================================================================== */

/* Adds a key that must not exist; the db takes the object, the key is
 * copied. Clients blocked on the key are re-checked. The caller signals
 * the change. */
void dbAdd(redisDb *db, sds key, robj *val) {
    sds copy = sdsdup(key);
    dictEntry *de = dictAdd(db->keys, copy, val);
    serverAssert(de != NULL);
    keysegKeyAdded(db, copy, val);
    /* New under this name (created, renamed, moved, copied): the log holds
     * nothing of it here yet (t_stream_log.c). */
    if (val->type == OBJ_STREAM) streamLogForget(val->ptr);
    signalKeyAsReady(db, key);
}

/* Removes key (and its TTL) from db and returns its object, which the
 * caller now owns. XREADGROUP clients blocked on the key learn it is gone.
 * NULL if the key does not exist. */
static robj *dbDetach(redisDb *db, sds key) {
    dictEntry *de = dictFind(db->keys, key);
    if (!de) return NULL;
    /* Signal first: the waiters' module may still look at the key. */
    signalDeletedKeyAsReady(db, key);
    robj *val = de->val;
    keysegKeyRemoved(db, de->key, val);
    if (server.log_tracking && !dictFind(db->log_deleted, key)) dictAdd(db->log_deleted, sdsdup(key), NULL);
    if (dictSize(db->expires)) dictDelete(db->expires, key);
    de = dictUnlink(db->keys, key);
    de->val = NULL;
    dictFreeUnlinkedEntry(db->keys, de);
    return val;
}

/* Deletes key, its object and its TTL. Returns 1 if it existed. The caller
 * signals the change. */
int dbDelete(redisDb *db, sds key) {
    robj *val = dbDetach(db, key);
    if (!val) return 0;
    freeObject(val);
    return 1;
}

/* ========================================================================
 * Emptying and swapping databases
 * ===================================================================== */

/* XREADGROUP clients blocked on keys of `emptied` whose key disappears (it
 * does not exist in `replaced_with`, or that is NULL: a flush) must be
 * woken to get their error. */
static void scanDatabaseForDeletedKeys(redisDb *emptied, redisDb *replaced_with) {
    if (!emptied->blocking_keys || dictSize(emptied->blocking_keys) == 0) return;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, emptied->blocking_keys);
    while ((de = dictNext(&it)) != NULL) {
        sds key = de->key;
        robj *was = dictFetchValue(emptied->keys, key);
        robj *now = replaced_with ? dictFetchValue(replaced_with->keys, key) : NULL;
        int was_type = was ? was->type : -1, now_type = now ? now->type : -1;
        if ((was && !now) || was_type != now_type) signalDeletedKeyAsReady(emptied, key);
    }
}

/* After SWAPDB, clients blocked on a key that now exists in their db may
 * be servable. */
static void scanDatabaseForReadyKeys(redisDb *db) {
    if (!db->blocking_keys || dictSize(db->blocking_keys) == 0) return;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, db->blocking_keys);
    while ((de = dictNext(&it)) != NULL)
        if (dictFind(db->keys, de->key)) signalKeyAsReady(db, de->key);
}

/* Removes every key of database dbnum, or of all of them if dbnum is -1,
 * invalidating WATCHes and waking XREADGROUP clients as FLUSHDB/FLUSHALL
 * do. Each emptied db counts as changed. `callback`, if given, is called
 * with each keys dict before it is emptied. Returns the number of keys
 * removed, -1 if dbnum is out of range. */
long long emptyData(int dbnum, void (*callback)(dict *)) {
    if (dbnum < -1 || dbnum >= server.cfg.databases) {
        errno = EINVAL;
        return -1;
    }
    int start = dbnum == -1 ? 0 : dbnum;
    int end = dbnum == -1 ? server.cfg.databases - 1 : dbnum;
    long long removed = 0;

    /* While the keys are still there (Redis's signalFlushedDb). */
    for (int j = start; j <= end; j++) {
        scanDatabaseForDeletedKeys(&server.db[j], NULL);
        touchAllWatchedKeysInDb(&server.db[j], NULL);
    }
    for (int j = start; j <= end; j++) {
        redisDb *db = &server.db[j];
        removed += (long long)dictSize(db->keys);
        if (callback) callback(db->keys);
        keysegDbEmptied(db);
        dictEmpty(db->expires); /* first: it borrows the keys' sds */
        dictEmpty(db->keys);
        db->avg_ttl = 0;
        db->expires_cursor = 0;
        signalStateChanged(db);
    }
    return removed;
}

/* Swaps the contents of two databases; clients stay where they are, with
 * their WATCHes and blocked reads re-evaluated against the new contents. */
static int dbSwapDatabases(int id1, int id2) {
    if (id1 < 0 || id1 >= server.cfg.databases || id2 < 0 || id2 >= server.cfg.databases) return C_ERR;
    if (id1 == id2) return C_OK;
    redisDb *db1 = &server.db[id1], *db2 = &server.db[id2];

    /* WATCHers of either db see their keys change. */
    touchAllWatchedKeysInDb(db1, db2);
    touchAllWatchedKeysInDb(db2, db1);
    /* XREADGROUP waiters on keys that vanish get their error. */
    scanDatabaseForDeletedKeys(db1, db2);
    scanDatabaseForDeletedKeys(db2, db1);

    /* Swap the data only: blocking_keys and watched_keys stay, since the
     * clients stay in the db they selected. */
    dict *keys = db1->keys, *expires = db1->expires;
    long long avg_ttl = db1->avg_ttl;
    unsigned long cursor = db1->expires_cursor;
    db1->keys = db2->keys;
    db1->expires = db2->expires;
    db1->avg_ttl = db2->avg_ttl;
    db1->expires_cursor = db2->expires_cursor;
    db2->keys = keys;
    db2->expires = expires;
    db2->avg_ttl = avg_ttl;
    db2->expires_cursor = cursor;
    keysegDbsSwapped(db1, db2);

    /* One change per db, so no two objects share a mod_seq. */
    signalStateChanged(db1);
    stampAllObjects(db1);
    signalStateChanged(db2);
    stampAllObjects(db2);

    /* XREAD/XREADGROUP waiters on keys that now exist may be served. */
    scanDatabaseForReadyKeys(db1);
    scanDatabaseForReadyKeys(db2);
    return C_OK;
}

/* ========================================================================
 * Generic key commands
 * ===================================================================== */

/* DEL key [key ...] / UNLINK key [key ...] (casq frees synchronously:
 * a stream's memory is released in one go either way). */
static void delGenericCommand(client *c) {
    long long numdel = 0;
    for (int j = 1; j < c->argc; j++) {
        /* The lookup expires the key if due and records a missing key's
         * dependency on the db's last removal. */
        if (!lookupKeyWrite(c, c->db, c->argv[j])) continue;
        dbDelete(c->db, c->argv[j]);
        signalModifiedKey(c, c->db, c->argv[j], NULL);
        numdel++;
    }
    addReplyLongLong(c, numdel);
}

void delCommand(client *c) { delGenericCommand(c); }

void unlinkCommand(client *c) { delGenericCommand(c); }

/* EXISTS key [key ...]: a key named twice counts twice. */
void existsCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyReadNoTouch(c, c->db, c->argv[j])) count++; /* no LRU touch, as Redis */
    addReplyLongLong(c, count);
}

/* TOUCH key [key ...]: casq keeps no access times; counts existing keys. */
void touchCommand(client *c) {
    long long touched = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyRead(c, c->db, c->argv[j])) touched++;
    addReplyLongLong(c, touched);
}

void typeCommand(client *c) {
    robj *o = lookupKeyReadNoTouch(c, c->db, c->argv[1]); /* no LRU touch, as Redis */
    addReplyStatus(c, typeName(o));
}

void selectCommand(client *c) {
    long id;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], INT_MIN, INT_MAX, &id, NULL) != C_OK) return;
    if (selectDb(c, (int)id) == C_ERR) {
        addReplyError(c, "-ERR DB index is out of range");
        return;
    }
    addReplyOk(c);
}

void dbsizeCommand(client *c) {
    observeDb(c, c->db);
    addReplyLongLong(c, (long long)dictSize(c->db->keys));
}

/* KEYS pattern: logically expired keys are left out (not deleted). */
void keysCommand(client *c) {
    sds pattern = c->argv[1];
    int plen = (int)sdslen(pattern);
    int allkeys = plen == 1 && pattern[0] == '*';
    long numkeys = 0;
    void *replylen = addReplyDeferredLen(c);
    dictIterator it;
    dictEntry *de;

    observeDb(c, c->db);
    dictInitIterator(&it, c->db->keys);
    while ((de = dictNext(&it)) != NULL) {
        sds key = de->key;
        if (!allkeys && !stringmatchlen(pattern, plen, key, (int)sdslen(key), 0)) continue;
        if (keyIsExpired(c->db, key)) continue;
        addReplyBulk(c, key, sdslen(key));
        numkeys++;
    }
    setDeferredArrayLen(c, replylen, numkeys);
}

/* RANDOMKEY: expired keys met on the way are deleted and another is
 * drawn. */
void randomkeyCommand(client *c) {
    redisDb *db = c->db;
    for (;;) {
        dictEntry *de = dictGetRandomKey(db->keys);
        if (!de) break;
        sds key = sdsdup(de->key);
        if (expireIfNeeded(db, key)) {
            sdsfree(key);
            continue;
        }
        observeDb(c, db);
        addReplyBulkSds(c, key);
        return;
    }
    observeDb(c, db);
    addReplyNull(c);
}

/* ------------------------------------------------------------------------
 * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
 * --------------------------------------------------------------------- */

/* Parses a SCAN cursor the way Redis does (strtoul: the whole unsigned
 * long range, so any cursor a previous call returned is accepted). */
int parseScanCursorOrReply(client *c, sds o, unsigned long *cursor) {
    char *eptr;
    errno = 0;
    *cursor = strtoul(o, &eptr, 10);
    if (isspace((unsigned char)o[0]) || eptr[0] != '\0' || errno == ERANGE ||
        (size_t)(eptr - o) != sdslen(o)) {
        addReplyError(c, "-ERR invalid cursor");
        return C_ERR;
    }
    return C_OK;
}

int scanParseArgsOrReply(client *c, int first, int allow_type, scanArgs *sa) {
    sa->count = 10;
    sa->pattern = NULL;
    sa->type = NULL;
    for (int i = first; i < c->argc; i += 2) {
        int more = c->argc - i - 1; /* arguments after this one */
        if (!strcasecmp(c->argv[i], "count") && more >= 1) {
            if (getLongFromObjectOrReply(c, c->argv[i + 1], &sa->count, NULL) != C_OK) return C_ERR;
            if (sa->count < 1) {
                addReplyErrorObject(c, shared_syntaxerr);
                return C_ERR;
            }
        } else if (!strcasecmp(c->argv[i], "match") && more >= 1) {
            sds pat = c->argv[i + 1];
            /* "*" matches everything: same as no pattern. */
            sa->pattern = (sdslen(pat) == 1 && pat[0] == '*') ? NULL : pat;
        } else if (allow_type && !strcasecmp(c->argv[i], "type") && more >= 1) {
            /* Redis 7.2 accepts any name here; an unknown type simply
             * matches no key (the error is planned for Redis 8). */
            sa->type = c->argv[i + 1];
        } else {
            addReplyErrorObject(c, shared_syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

int scanMatches(const scanArgs *sa, const char *s, size_t len) {
    return !sa->pattern || stringmatchlen(sa->pattern, (int)sdslen(sa->pattern), s, (int)len, 0);
}

typedef struct scanData {
    sds pattern;   /* MATCH pattern, NULL if matching everything */
    sds *keys;     /* collected key copies */
    long count;    /* keys collected */
    long alloc;    /* slots in keys */
} scanData;

static void scanCallback(void *privdata, const dictEntry *de) {
    scanData *sd = privdata;
    sds key = de->key;
    if (sd->pattern &&
        !stringmatchlen(sd->pattern, (int)sdslen(sd->pattern), key, (int)sdslen(key), 0))
        return;
    if (sd->count == sd->alloc) {
        sd->alloc = sd->alloc ? sd->alloc * 2 : 16;
        sd->keys = zrealloc(sd->keys, sizeof(sds) * (size_t)sd->alloc);
    }
    sd->keys[sd->count++] = sdsdup(key);
}

void scanCommand(client *c) {
    unsigned long cursor;
    scanArgs sa;
    scanData sd = {NULL, NULL, 0, 0};

    if (parseScanCursorOrReply(c, c->argv[1], &cursor) == C_ERR) return;
    /* Step 1: options. */
    if (scanParseArgsOrReply(c, 2, 1, &sa) != C_OK) return;
    long count = sa.count;
    sds typename = sa.type;
    sd.pattern = sa.pattern;

    /* Step 2: walk the table, visiting at most count*10 buckets, until
     * count keys are collected. */
    long maxiterations = count > LONG_MAX / 10 ? LONG_MAX : count * 10;
    do {
        cursor = dictScan(c->db->keys, cursor, scanCallback, &sd);
    } while (cursor && maxiterations-- && sd.count < count);

    /* Step 3: filter by type, and drop (and delete) expired keys. */
    long kept = 0;
    for (long j = 0; j < sd.count; j++) {
        sds key = sd.keys[j];
        int filter = 0;
        if (typename) {
            robj *o = lookupKeyReadNoTouch(c, c->db, key);
            if (strcasecmp(typename, typeName(o)) != 0) filter = 1;
        }
        if (!filter && expireIfNeeded(c->db, key)) filter = 1;
        if (filter) sdsfree(key);
        else sd.keys[kept++] = key;
    }
    observeDb(c, c->db);

    /* Step 4: reply. */
    addReplyArrayLen(c, 2);
    addReplyBulkSds(c, sdscatprintf(sdsempty(), "%lu", cursor));
    addReplyArrayLen(c, kept);
    for (long j = 0; j < kept; j++) addReplyBulkSds(c, sd.keys[j]);
    zfree(sd.keys);
}

/* ------------------------------------------------------------------------
 * RENAME / RENAMENX
 * --------------------------------------------------------------------- */

/* Moves the object (with its TTL) from src to dst: the stream, its groups
 * and its pending entries travel intact. */
static void renameGenericCommand(client *c, int nx) {
    sds src = c->argv[1], dst = c->argv[2];
    int samekey = sdslen(src) == sdslen(dst) && memcmp(src, dst, sdslen(src)) == 0;

    robj *o = lookupKeyWriteOrReply(c, src, "-ERR no such key\r\n");
    if (!o) return;
    if (samekey) {
        if (nx) addReplyLongLong(c, 0);
        else addReplyOk(c);
        return;
    }

    long long expire = getExpire(c->db, src);
    if (lookupKeyWrite(c, c->db, dst)) {
        if (nx) {
            addReplyLongLong(c, 0);
            return;
        }
        /* Overwrite: the old destination goes first. */
        dbDelete(c->db, dst);
    }
    o = dbDetach(c->db, src);
    dbAdd(c->db, dst, o);
    if (expire != -1) setExpire(c->db, dst, expire);
    signalModifiedKey(c, c->db, src, NULL);
    signalModifiedKey(c, c->db, dst, o);
    if (nx) addReplyLongLong(c, 1);
    else addReplyOk(c);
}

void renameCommand(client *c) { renameGenericCommand(c, 0); }

void renamenxCommand(client *c) { renameGenericCommand(c, 1); }

/* ------------------------------------------------------------------------
 * MOVE key db
 * --------------------------------------------------------------------- */

/* Redis's moveCommand: the object (with its TTL) leaves this database for
 * db, unless db holds the key already. */
void moveCommand(client *c) {
    long dbid;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], INT_MIN, INT_MAX, &dbid, NULL) != C_OK) return;
    if (dbid < 0 || dbid >= server.cfg.databases) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    redisDb *src = c->db, *dst = &server.db[dbid];
    if (src == dst) {
        addReplyError(c, "source and destination objects are the same");
        return;
    }
    sds key = c->argv[1];
    robj *o = lookupKeyWrite(c, src, key);
    if (!o || lookupKeyWrite(c, dst, key)) {
        addReplyLongLong(c, 0);
        return;
    }
    long long expire = getExpire(src, key);
    o = dbDetach(src, key);
    dbAdd(dst, key, o);
    if (expire != -1) setExpire(dst, key, expire);
    signalModifiedKey(c, src, key, NULL);
    signalModifiedKey(c, dst, key, o);
    addReplyLongLong(c, 1);
}

/* ------------------------------------------------------------------------
 * COPY source destination [DB destination-db] [REPLACE]
 * --------------------------------------------------------------------- */

/* The destination gets a deep copy (the type's dup; for a stream: entries,
 * metadata, groups, consumers, PELs), independent of the source, with the source's TTL. The
 * new key is a change like any other: it goes into the next commit and
 * the reply waits for it. */
void copyCommand(client *c) {
    redisDb *src = c->db, *dst = c->db;
    int replace = 0;

    for (int j = 3; j < c->argc; j++) {
        int additional = c->argc - j - 1;
        if (!strcasecmp(c->argv[j], "replace")) {
            replace = 1;
        } else if (!strcasecmp(c->argv[j], "db") && additional >= 1) {
            long dbid;
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 1], INT_MIN, INT_MAX, &dbid, NULL) != C_OK) return;
            if (dbid < 0 || dbid >= server.cfg.databases) {
                addReplyError(c, "DB index is out of range");
                return;
            }
            dst = &server.db[dbid];
            j++;
        } else {
            addReplyErrorObject(c, shared_syntaxerr);
            return;
        }
    }

    sds key = c->argv[1], newkey = c->argv[2];
    if (src == dst && sdslen(key) == sdslen(newkey) && memcmp(key, newkey, sdslen(key)) == 0) {
        addReplyError(c, "source and destination objects are the same");
        return;
    }
    robj *o = lookupKeyRead(c, src, key);
    if (!o) {
        addReplyLongLong(c, 0);
        return;
    }
    long long expire = getExpire(src, key);
    int delete = 0;
    if (lookupKeyWrite(c, dst, newkey)) {
        if (!replace) {
            addReplyLongLong(c, 0);
            return;
        }
        delete = 1;
    }
    robj *newobj = createObject(o->type, objectTypeGet(o->type)->dup(o->ptr));
    if (delete) dbDelete(dst, newkey);
    dbAdd(dst, newkey, newobj);
    if (expire != -1) setExpire(dst, newkey, expire);
    signalModifiedKey(c, dst, newkey, newobj);
    addReplyLongLong(c, 1);
}

/* ------------------------------------------------------------------------
 * SWAPDB / FLUSHDB / FLUSHALL
 * --------------------------------------------------------------------- */

void swapdbCommand(client *c) {
    long id1, id2;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], INT_MIN, INT_MAX, &id1, "-ERR invalid first DB index") != C_OK)
        return;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], INT_MIN, INT_MAX, &id2, "-ERR invalid second DB index") !=
        C_OK)
        return;
    if (dbSwapDatabases((int)id1, (int)id2) == C_ERR) {
        addReplyError(c, "-ERR DB index is out of range");
        return;
    }
    addReplyOk(c);
}

/* FLUSHDB/FLUSHALL [ASYNC|SYNC]: casq always flushes synchronously; the
 * option is validated as Redis does. */
static int checkFlushOptionsOrReply(client *c) {
    if (c->argc == 1) return C_OK;
    if (c->argc == 2 && (!strcasecmp(c->argv[1], "sync") || !strcasecmp(c->argv[1], "async"))) return C_OK;
    addReplyErrorObject(c, shared_syntaxerr);
    return C_ERR;
}

void flushdbCommand(client *c) {
    if (checkFlushOptionsOrReply(c) == C_ERR) return;
    emptyData(c->db->id, NULL);
    addReplyOk(c);
}

void flushallCommand(client *c) {
    if (checkFlushOptionsOrReply(c) == C_ERR) return;
    emptyData(-1, NULL);
    addReplyOk(c);
}

/* ========================================================================
 * Command table (Redis 7.2's arity, flags, key positions and categories)
 * ===================================================================== */

struct redisCommand dbCommandTable[] = {
    {"del", delCommand, -2, CMD_WRITE, 1, -1, 1, "keyspace write slow", NULL},
    {"unlink", unlinkCommand, -2, CMD_WRITE | CMD_FAST, 1, -1, 1, "keyspace write fast", NULL},
    {"exists", existsCommand, -2, CMD_READONLY | CMD_FAST, 1, -1, 1, "keyspace read fast", NULL},
    {"type", typeCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "keyspace read fast", NULL},
    {"keys", keysCommand, 2, CMD_READONLY, 0, 0, 0, "keyspace read slow dangerous", NULL},
    {"scan", scanCommand, -2, CMD_READONLY, 0, 0, 0, "keyspace read slow", NULL},
    {"randomkey", randomkeyCommand, 1, CMD_READONLY, 0, 0, 0, "keyspace read slow", NULL},
    {"rename", renameCommand, 3, CMD_WRITE, 1, 2, 1, "keyspace write slow", NULL},
    {"copy", copyCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "keyspace write slow", NULL},
    {"move", moveCommand, 3, CMD_WRITE | CMD_FAST, 1, 1, 1, "keyspace write fast", NULL},
    {"renamenx", renamenxCommand, 3, CMD_WRITE | CMD_FAST, 1, 2, 1, "keyspace write fast", NULL},
    {"expire", expireCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "keyspace write fast", NULL},
    {"pexpire", pexpireCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "keyspace write fast", NULL},
    {"expireat", expireatCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "keyspace write fast", NULL},
    {"pexpireat", pexpireatCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "keyspace write fast", NULL},
    {"ttl", ttlCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "keyspace read fast", NULL},
    {"pttl", pttlCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "keyspace read fast", NULL},
    {"expiretime", expiretimeCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "keyspace read fast", NULL},
    {"pexpiretime", pexpiretimeCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "keyspace read fast", NULL},
    {"persist", persistCommand, 2, CMD_WRITE | CMD_FAST, 1, 1, 1, "keyspace write fast", NULL},
    {"touch", touchCommand, -2, CMD_READONLY | CMD_FAST, 1, -1, 1, "keyspace read fast", NULL},
    {"select", selectCommand, 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "fast connection", NULL},
    {"swapdb", swapdbCommand, 3, CMD_WRITE | CMD_FAST, 0, 0, 0, "keyspace write fast dangerous", NULL},
    {"dbsize", dbsizeCommand, 1, CMD_READONLY | CMD_FAST, 0, 0, 0, "keyspace read fast", NULL},
    {"flushdb", flushdbCommand, -1, CMD_WRITE, 0, 0, 0, "keyspace write slow dangerous", NULL},
    {"flushall", flushallCommand, -1, CMD_WRITE, 0, 0, 0, "keyspace write slow dangerous", NULL},
    {0},
};
