/* expire.c -- key expiry: TTL bookkeeping, lazy and active expiry, and the
 * EXPIRE/TTL/PERSIST family of commands.
 *
 * As in Redis 7.2, a key's expiry time lives in db->expires (absolute unix
 * ms, the key's sds borrowed from db->keys). A key whose time has passed
 * is deleted when a command touches it (lazy expiry, expireIfNeeded) or
 * when the cron samples it (activeExpireCycle). Either deletion is a state
 * change like any other: it is signalled, committed, and replies that show
 * the key gone wait for that commit. */
#include "keyseg.h"
#include "server.h"

#include <limits.h>
#include <stdint.h>
#include <strings.h>

/* ========================================================================
 * TTL bookkeeping
 * ===================================================================== */

long long getExpire(redisDb *db, sds key) {
    if (dictSize(db->expires) == 0) return -1;
    dictEntry *de = dictFind(db->expires, key);
    if (!de) return -1;
    return (long long)(intptr_t)de->val;
}

/* Sets key's expiry time (absolute unix ms). The key must exist. The
 * caller signals the change. */
void setExpire(redisDb *db, sds key, long long when_ms) {
    dictEntry *kde = dictFind(db->keys, key);
    serverAssert(kde != NULL);
    keysegKeyChanged(db, kde->key, kde->val);
    dictEntry *de = dictFind(db->expires, key);
    if (de) de->val = (void *)(intptr_t)when_ms;
    else dictAdd(db->expires, kde->key, (void *)(intptr_t)when_ms);
}

/* Returns 1 if key had a TTL (now removed). The caller signals. */
int removeExpire(redisDb *db, sds key) {
    if (dictSize(db->expires) == 0) return 0;
    if (!dictDelete(db->expires, key)) return 0;
    keysegKeyChanged(db, key, dictFetchValue(db->keys, key));
    return 1;
}

/* Whether key is logically expired at the running command's time (one
 * time per command, and one for a whole EXEC, as Redis 7.2). */
int keyIsExpired(redisDb *db, sds key) {
    long long when = getExpire(db, key);
    if (when < 0) return 0;
    return commandTimeSnapshot() > when;
}

/* Deletes an expired key and signals it. key may be the db's own sds. */
static void deleteExpiredKey(redisDb *db, sds key) {
    sds k = sdsdup(key);
    dbDelete(db, k);
    server.stat_expiredkeys++;
    signalModifiedKey(NULL, db, k, NULL);
    sdsfree(k);
}

/* Lazy expiry: deletes key if it is expired. Returns 1 if it was. */
int expireIfNeeded(redisDb *db, sds key) {
    if (!keyIsExpired(db, key)) return 0;
    deleteExpiredKey(db, key);
    return 1;
}

/* ========================================================================
 * Active expiry
 * ===================================================================== */

/* Redis's tuning for the slow (cron) cycle. */
#define ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP 20   /* keys sampled per round */
#define ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC 25  /* % of the cron period */
#define ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE 10 /* % expired to stop at */
#define ACTIVE_EXPIRE_CYCLE_MAX_BUCKETS (ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP * 20)

typedef struct expireSample {
    sds *keys;         /* the db's own key sds (valid until deleted) */
    long long *whens;  /* their expiry times */
    long count;        /* sampled */
    long alloc;        /* slots */
} expireSample;

static void expireSampleCallback(void *privdata, const dictEntry *de) {
    expireSample *s = privdata;
    if (s->count == s->alloc) {
        s->alloc = s->alloc ? s->alloc * 2 : ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP * 2;
        s->keys = zrealloc(s->keys, sizeof(sds) * (size_t)s->alloc);
        s->whens = zrealloc(s->whens, sizeof(long long) * (size_t)s->alloc);
    }
    s->keys[s->count] = de->key;
    s->whens[s->count] = (long long)(intptr_t)de->val;
    s->count++;
}

/* Rounds of sampling keys with a TTL in db, continuing its scan where the
 * last cycle left it, deleting the expired ones; goes on while more than
 * ACCEPTABLE_STALE % of a sample was expired and time is left. */
static void activeExpireDb(redisDb *db, long long deadline_us) {
    expireSample s = {NULL, NULL, 0, 0};
    long long now = commandTimeSnapshot();
    long long ttl_sum = 0, ttl_samples = 0; /* the sum saturates: TTLs go up to LLONG_MAX */
    int rounds = 0;

    while (dictSize(db->expires)) {
        s.count = 0;
        long buckets = 0;
        do {
            db->expires_cursor = dictScan(db->expires, db->expires_cursor, expireSampleCallback, &s);
        } while (db->expires_cursor && s.count < ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP &&
                 ++buckets < ACTIVE_EXPIRE_CYCLE_MAX_BUCKETS);

        long expired = 0;
        for (long j = 0; j < s.count; j++) {
            if (now > s.whens[j]) {
                deleteExpiredKey(db, s.keys[j]);
                expired++;
            } else {
                long long ttl = s.whens[j] - now;
                ttl_sum = ttl_sum > LLONG_MAX - ttl ? LLONG_MAX : ttl_sum + ttl;
                ttl_samples++;
            }
        }
        if (s.count == 0 || expired * 100 / s.count <= ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE) break;
        if ((++rounds & 15) == 0 && ustime() > deadline_us) break;
    }
    zfree(s.keys);
    zfree(s.whens);

    /* Running average for INFO keyspace, as Redis keeps it. */
    if (dictSize(db->expires) == 0) {
        db->avg_ttl = 0;
    } else if (ttl_samples) {
        long long avg = ttl_sum / ttl_samples;
        db->avg_ttl = db->avg_ttl == 0 ? avg : (db->avg_ttl / 50) * 49 + avg / 50;
    }
}

/* Called from serverCron (cfg.hz times a second) when active expiry is on:
 * spends at most 25% of a cron period, shared between the databases that
 * have keys with a TTL (time a db does not use passes on to the next). */
void activeExpireCycle(void) {
    int hz = server.cfg.hz > 0 ? server.cfg.hz : CONFIG_DEFAULT_HZ;
    long long start = ustime();
    long long deadline = start + (long long)ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC * 1000000 / hz / 100;
    int pending = 0;

    for (int j = 0; j < server.cfg.databases; j++)
        if (dictSize(server.db[j].expires)) pending++;
    for (int j = 0; j < server.cfg.databases && pending; j++) {
        redisDb *db = &server.db[j];
        if (dictSize(db->expires) == 0) {
            db->avg_ttl = 0;
            continue;
        }
        long long now = ustime();
        if (now >= deadline) break;
        activeExpireDb(db, now + (deadline - now) / pending);
        pending--;
    }
}

/* ========================================================================
 * Commands
 * ===================================================================== */

#define EXPIRE_NX (1 << 0)
#define EXPIRE_XX (1 << 1)
#define EXPIRE_GT (1 << 2)
#define EXPIRE_LT (1 << 3)

/* NX | XX | GT | LT after the time argument. */
static int parseExpireFlagsOrReply(client *c, int *flags) {
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j];
        if (!strcasecmp(opt, "nx")) *flags |= EXPIRE_NX;
        else if (!strcasecmp(opt, "xx")) *flags |= EXPIRE_XX;
        else if (!strcasecmp(opt, "gt")) *flags |= EXPIRE_GT;
        else if (!strcasecmp(opt, "lt")) *flags |= EXPIRE_LT;
        else {
            addReplyErrorFormat(c, "-ERR Unsupported option %s", opt);
            return C_ERR;
        }
    }
    if ((*flags & EXPIRE_NX) && (*flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT))) {
        addReplyError(c, "-ERR NX and XX, GT or LT options at the same time are not compatible");
        return C_ERR;
    }
    if ((*flags & EXPIRE_GT) && (*flags & EXPIRE_LT)) {
        addReplyError(c, "-ERR GT and LT options at the same time are not compatible");
        return C_ERR;
    }
    return C_OK;
}

static void addReplyErrorExpireTime(client *c) {
    const char *name = c->cmd ? (c->cmd->fullname ? c->cmd->fullname : c->cmd->name) : c->argv[0];
    addReplyErrorFormat(c, "-ERR invalid expire time in '%s' command", name);
}

/* Whether the NX/XX/GT/LT condition lets the new time `when` replace the
 * current one (-1: no TTL, which GT and LT treat as infinite). */
static int expireConditionHolds(int flags, long long current, long long when) {
    if ((flags & EXPIRE_NX) && current != -1) return 0;
    if ((flags & EXPIRE_XX) && current == -1) return 0;
    if ((flags & EXPIRE_GT) && (current == -1 || when <= current)) return 0;
    if ((flags & EXPIRE_LT) && current != -1 && when >= current) return 0;
    return 1;
}

/* EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: `basetime` is 0 for the *AT
 * forms (the argument is absolute), the command time otherwise. A time in
 * the past deletes the key. */
static void expireGenericCommand(client *c, long long basetime, int unit_seconds) {
    sds key = c->argv[1];
    long long when;
    int flags = 0;

    if (parseExpireFlagsOrReply(c, &flags) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &when, NULL) != C_OK) return;
    /* Negative times are allowed; overflows are not. */
    if (unit_seconds) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
            addReplyErrorExpireTime(c);
            return;
        }
        when *= 1000;
    }
    if (when > LLONG_MAX - basetime) {
        addReplyErrorExpireTime(c);
        return;
    }
    when += basetime;

    robj *o = lookupKeyWrite(c, c->db, key);
    if (!o) {
        addReplyLongLong(c, 0);
        return;
    }
    if (flags && !expireConditionHolds(flags, getExpire(c->db, key), when)) {
        addReplyLongLong(c, 0);
        return;
    }
    if (when <= commandTimeSnapshot()) {
        dbDelete(c->db, key);
        signalModifiedKey(c, c->db, key, NULL);
    } else {
        setExpire(c->db, key, when);
        signalModifiedKey(c, c->db, key, o);
    }
    addReplyLongLong(c, 1);
}

void expireCommand(client *c) { expireGenericCommand(c, commandTimeSnapshot(), 1); }

void pexpireCommand(client *c) { expireGenericCommand(c, commandTimeSnapshot(), 0); }

void expireatCommand(client *c) { expireGenericCommand(c, 0, 1); }

void pexpireatCommand(client *c) { expireGenericCommand(c, 0, 0); }

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 if the key does not exist, -1 if
 * it has no TTL; seconds are rounded to the nearest. */
static void ttlGenericCommand(client *c, int output_ms, int output_abs) {
    if (!lookupKeyReadNoTouch(c, c->db, c->argv[1])) { /* as Redis: no access-time refresh */
        addReplyLongLong(c, -2);
        return;
    }
    long long expire = getExpire(c->db, c->argv[1]);
    if (expire == -1) {
        addReplyLongLong(c, -1);
        return;
    }
    long long ttl = output_abs ? expire : expire - commandTimeSnapshot();
    if (ttl < 0) ttl = 0;
    addReplyLongLong(c, output_ms ? ttl : (ttl + 500) / 1000);
}

void ttlCommand(client *c) { ttlGenericCommand(c, 0, 0); }

void pttlCommand(client *c) { ttlGenericCommand(c, 1, 0); }

void expiretimeCommand(client *c) { ttlGenericCommand(c, 0, 1); }

void pexpiretimeCommand(client *c) { ttlGenericCommand(c, 1, 1); }

void persistCommand(client *c) {
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (!o || !removeExpire(c->db, c->argv[1])) {
        addReplyLongLong(c, 0);
        return;
    }
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, 1);
}
