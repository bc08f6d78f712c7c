/* t_set.c -- the set type: SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD
 * SPOP SRANDMEMBER SMOVE SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE
 * SDIFF SDIFFSTORE SSCAN, and the sets' part of the state document.
 *
 * Replies, errors and edge cases follow Redis 7.2's t_set.c.
 *
 * ------------------------------------------------------------------------
 * Encodings
 * ------------------------------------------------------------------------
 * OBJECT ENCODING reports what Redis 7.2 would have for the same commands,
 * and casq keeps the members the way that encoding orders them, so the
 * replies that list a small set (SMEMBERS, SRANDMEMBER with a count not
 * smaller than the set, SINTER/SUNION/SDIFF of intsets ...) are Redis's
 * byte for byte:
 *
 *   intset     every member is an integer (Redis's strict string2ll) and
 *              there are at most set-max-intset-entries: a sorted array of
 *              int64_t, as Redis's intset;
 *   listpack   at most set-max-listpack-entries members, none longer than
 *              set-max-listpack-value bytes: an array of sds in insertion
 *              order (Redis's listpack appends; deleting keeps the order);
 *   hashtable  otherwise: a dict of sds (hash order: not Redis's).
 *
 * The conversions are Redis's: a set only ever moves to a bigger encoding
 * while it lives (intset -> listpack -> hashtable, or straight to
 * hashtable), and the results of SINTERSTORE/SUNIONSTORE/SDIFFSTORE/SPOP's
 * rebuilt sets get the encoding Redis gives them. Loading the state
 * document builds each set as Redis's RDB loading does (from its members),
 * so a set that grew into a hashtable and shrank again is compact after a
 * restart, as after Redis's DEBUG RELOAD.
 * --------------------------------------------------------------------- */
#include "t_set.h"
#include "persist.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"

#define SET_ENC_INTSET 0
#define SET_ENC_LISTPACK 1
#define SET_ENC_HT 2

typedef struct set {
    int enc;             /* SET_ENC_* */
    unsigned long len;   /* members in ints/elems (not HT) */
    unsigned long cap;   /* allocated slots */
    union {
        int64_t *ints;   /* SET_ENC_INTSET: sorted */
        sds *elems;      /* SET_ENC_LISTPACK: insertion order */
        dict *ht;        /* SET_ENC_HT: sds keys, no values */
    } u;
    size_t bytes;        /* sum of the members' lengths (JSON estimate) */
} set;

struct setTypeIterator {
    const set *s;
    unsigned long i;     /* next index (intset, listpack) */
    dictIterator di;     /* hashtable */
    sds scratch;         /* an intset member as text */
};

/* ========================================================================
 * Limits (config.c: set-max-intset-entries, set-max-listpack-*)
 * ===================================================================== */

static size_t intsetMaxEntries(void) {
    long long m = server.cfg.set_max_intset_entries;
    if (m >= (1LL << 30)) m = 1LL << 30; /* as Redis: intset internals */
    return (size_t)m;
}

static size_t listpackMaxEntries(void) { return (size_t)server.cfg.set_max_listpack_entries; }
static size_t listpackMaxValue(void) { return (size_t)server.cfg.set_max_listpack_value; }

/* Redis's isSdsRepresentableAsLongLong: the canonical decimal of an int64. */
static inline int memberIsInt(const char *m, size_t len, long long *v) {
    long long tmp;
    return string2ll(m, len, v ? v : &tmp);
}

static int digits10(long long v) {
    char buf[LONG_STR_SIZE];
    return ll2string(buf, sizeof(buf), v);
}

/* ========================================================================
 * The set
 * ===================================================================== */

static set *setNew(int enc) {
    set *s = zcalloc(sizeof(*s));
    s->enc = enc;
    if (enc == SET_ENC_HT) s->u.ht = dictCreate(&sdsKeyDictType);
    return s;
}

static void setFree(set *s) {
    if (!s) return;
    if (s->enc == SET_ENC_HT) {
        dictRelease(s->u.ht);
    } else if (s->enc == SET_ENC_LISTPACK) {
        for (unsigned long i = 0; i < s->len; i++) sdsfree(s->u.elems[i]);
        zfree(s->u.elems);
    } else {
        zfree(s->u.ints);
    }
    zfree(s);
}

static unsigned long setSize(const set *s) { return s->enc == SET_ENC_HT ? dictSize(s->u.ht) : s->len; }

static void setGrow(set *s, size_t elem_size, unsigned long need) {
    if (need <= s->cap) return;
    unsigned long cap = s->cap ? s->cap : 4;
    while (cap < need) cap *= 2;
    if (s->enc == SET_ENC_INTSET) s->u.ints = zrealloc(s->u.ints, elem_size * cap);
    else s->u.elems = zrealloc(s->u.elems, elem_size * cap);
    s->cap = cap;
}

/* Index of v in the intset, or -(insertion point)-1. */
static long intsetSearch(const set *s, int64_t v) {
    long lo = 0, hi = (long)s->len - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        int64_t x = s->u.ints[mid];
        if (x == v) return mid;
        if (x < v) lo = mid + 1;
        else hi = mid - 1;
    }
    return -lo - 1;
}

static long listpackSearch(const set *s, const char *m, size_t len) {
    for (unsigned long i = 0; i < s->len; i++) {
        sds e = s->u.elems[i];
        if (sdslen(e) == len && memcmp(e, m, len) == 0) return (long)i;
    }
    return -1;
}

/* Converts an intset or listpack to a hashtable (presized as Redis does:
 * our dict sizes itself). */
static void setConvertToHT(set *s) {
    if (s->enc == SET_ENC_HT) return;
    dict *d = dictCreate(&sdsKeyDictType);
    if (s->enc == SET_ENC_INTSET) {
        for (unsigned long i = 0; i < s->len; i++) dictAdd(d, sdsfromlonglong(s->u.ints[i]), NULL);
        zfree(s->u.ints);
    } else {
        for (unsigned long i = 0; i < s->len; i++) dictAdd(d, s->u.elems[i], NULL);
        zfree(s->u.elems);
    }
    s->enc = SET_ENC_HT;
    s->u.ht = d;
    s->len = s->cap = 0;
}

/* An intset becomes a listpack, in the intset's (sorted) order. */
static void setConvertIntsetToListpack(set *s) {
    int64_t *ints = s->u.ints;
    unsigned long n = s->len;
    s->enc = SET_ENC_LISTPACK;
    s->u.elems = NULL;
    s->cap = 0;
    setGrow(s, sizeof(sds), n + 1);
    for (unsigned long i = 0; i < n; i++) s->u.elems[i] = sdsfromlonglong(ints[i]);
    zfree(ints);
}

/* A listpack whose members are all integers, small enough, becomes an
 * intset (Redis's maybeConvertToIntset, used by SINTERSTORE). */
static void setMaybeConvertToIntset(set *s) {
    if (s->enc != SET_ENC_LISTPACK || s->len > intsetMaxEntries()) return;
    for (unsigned long i = 0; i < s->len; i++)
        if (!memberIsInt(s->u.elems[i], sdslen(s->u.elems[i]), NULL)) return;
    int64_t *ints = zmalloc(sizeof(int64_t) * (s->len ? s->len : 1));
    unsigned long n = 0;
    for (unsigned long i = 0; i < s->len; i++) {
        long long v;
        memberIsInt(s->u.elems[i], sdslen(s->u.elems[i]), &v);
        sdsfree(s->u.elems[i]);
        /* insertion sort into place: the members are distinct */
        unsigned long j = n;
        while (j > 0 && ints[j - 1] > v) {
            ints[j] = ints[j - 1];
            j--;
        }
        ints[j] = v;
        n++;
    }
    zfree(s->u.elems);
    s->enc = SET_ENC_INTSET;
    s->u.ints = ints;
    s->cap = s->len ? s->len : 1;
}

/* Redis 7.2's setTypeAddAux. */
static int setAdd(set *s, const char *m, size_t len) {
    long long v;
    if (s->enc == SET_ENC_HT) {
        sds key = sdsnewlen(m, len);
        if (!dictAdd(s->u.ht, key, NULL)) {
            sdsfree(key);
            return 0;
        }
        s->bytes += len;
        return 1;
    }
    if (s->enc == SET_ENC_INTSET) {
        if (memberIsInt(m, len, &v)) {
            long pos = intsetSearch(s, v);
            if (pos >= 0) return 0;
            pos = -pos - 1;
            setGrow(s, sizeof(int64_t), s->len + 1);
            memmove(s->u.ints + pos + 1, s->u.ints + pos, sizeof(int64_t) * (s->len - (unsigned long)pos));
            s->u.ints[pos] = v;
            s->len++;
            s->bytes += len;
            if (s->len > intsetMaxEntries()) setConvertToHT(s);
            return 1;
        }
        /* Not an integer: a listpack if it would stay within the limits. */
        size_t maxelelen = 0;
        if (s->len) {
            int a = digits10(s->u.ints[0]), b = digits10(s->u.ints[s->len - 1]);
            maxelelen = (size_t)(a > b ? a : b);
        }
        if (s->len < listpackMaxEntries() && len <= listpackMaxValue() && maxelelen <= listpackMaxValue()) {
            setConvertIntsetToListpack(s);
        } else {
            setConvertToHT(s);
            dictAdd(s->u.ht, sdsnewlen(m, len), NULL);
            s->bytes += len;
            return 1;
        }
    }
    /* listpack */
    if (listpackSearch(s, m, len) >= 0) return 0;
    if (s->len < listpackMaxEntries() && len <= listpackMaxValue()) {
        setGrow(s, sizeof(sds), s->len + 1);
        s->u.elems[s->len++] = sdsnewlen(m, len);
    } else {
        setConvertToHT(s);
        dictAdd(s->u.ht, sdsnewlen(m, len), NULL);
    }
    s->bytes += len;
    return 1;
}

static int setRemove(set *s, const char *m, size_t len) {
    if (s->enc == SET_ENC_HT) {
        sds key = sdsnewlen(m, len);
        int found = dictDelete(s->u.ht, key);
        sdsfree(key);
        if (found) s->bytes -= len;
        return found;
    }
    if (s->enc == SET_ENC_INTSET) {
        long long v;
        if (!memberIsInt(m, len, &v)) return 0;
        long pos = intsetSearch(s, v);
        if (pos < 0) return 0;
        memmove(s->u.ints + pos, s->u.ints + pos + 1, sizeof(int64_t) * (s->len - (unsigned long)pos - 1));
        s->len--;
        s->bytes -= len;
        return 1;
    }
    long pos = listpackSearch(s, m, len);
    if (pos < 0) return 0;
    sdsfree(s->u.elems[pos]);
    memmove(s->u.elems + pos, s->u.elems + pos + 1, sizeof(sds) * (s->len - (unsigned long)pos - 1));
    s->len--;
    s->bytes -= len;
    return 1;
}

static int setIsMember(const set *s, const char *m, size_t len) {
    if (s->enc == SET_ENC_HT) {
        sds key = sdsnewlen(m, len);
        int found = dictFind(s->u.ht, key) != NULL;
        sdsfree(key);
        return found;
    }
    if (s->enc == SET_ENC_INTSET) {
        long long v;
        return memberIsInt(m, len, &v) && intsetSearch(s, v) >= 0;
    }
    return listpackSearch(s, m, len) >= 0;
}

/* Redis's setTypeCreate: the encoding a new set with about size_hint
 * members, the first one `first`, starts in. */
static set *setCreate(const char *first, size_t firstlen, size_t size_hint) {
    if (memberIsInt(first, firstlen, NULL) && size_hint <= intsetMaxEntries()) return setNew(SET_ENC_INTSET);
    if (size_hint <= listpackMaxEntries()) return setNew(SET_ENC_LISTPACK);
    return setNew(SET_ENC_HT);
}

/* Redis's setTypeMaybeConvert: a command about to add size_hint members
 * converts to a hashtable at once when they cannot fit. */
static void setMaybeConvert(set *s, size_t size_hint) {
    if ((s->enc == SET_ENC_LISTPACK && size_hint > listpackMaxEntries()) ||
        (s->enc == SET_ENC_INTSET && size_hint > intsetMaxEntries()))
        setConvertToHT(s);
}

static set *setDup(const set *src) {
    set *s = setNew(src->enc);
    s->bytes = src->bytes;
    if (src->enc == SET_ENC_HT) {
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, src->u.ht);
        while ((de = dictNext(&it)) != NULL) dictAdd(s->u.ht, sdsdup(de->key), NULL);
    } else if (src->enc == SET_ENC_INTSET) {
        s->cap = src->len ? src->len : 1;
        s->u.ints = zmalloc(sizeof(int64_t) * s->cap);
        memcpy(s->u.ints, src->u.ints, sizeof(int64_t) * src->len);
        s->len = src->len;
    } else {
        s->cap = src->len ? src->len : 1;
        s->u.elems = zmalloc(sizeof(sds) * s->cap);
        for (unsigned long i = 0; i < src->len; i++) s->u.elems[i] = sdsdup(src->u.elems[i]);
        s->len = src->len;
    }
    return s;
}

/* ------------------------------------------------------------------------
 * Iteration and random members
 * --------------------------------------------------------------------- */

static void setIterInit(setTypeIterator *it, const set *s) {
    it->s = s;
    it->i = 0;
    it->scratch = NULL;
    if (s->enc == SET_ENC_HT) dictInitIterator(&it->di, s->u.ht);
}

static sds setIterNext(setTypeIterator *it) {
    const set *s = it->s;
    if (s->enc == SET_ENC_HT) {
        dictEntry *de = dictNext(&it->di);
        return de ? de->key : NULL;
    }
    if (it->i >= s->len) return NULL;
    if (s->enc == SET_ENC_LISTPACK) return s->u.elems[it->i++];
    char buf[LONG_STR_SIZE];
    int n = ll2string(buf, sizeof(buf), s->u.ints[it->i++]);
    if (!it->scratch) it->scratch = sdsnewlen(buf, (size_t)n);
    else it->scratch = sdscpylen(it->scratch, buf, (size_t)n);
    return it->scratch;
}

static void setIterDone(setTypeIterator *it) { sdsfree(it->scratch); }

/* A random member, copied. */
static sds setRandomMember(const set *s) {
    if (s->enc == SET_ENC_HT) return sdsdup(dictGetRandomKey(s->u.ht)->key);
    unsigned long i = (unsigned long)random() % s->len;
    if (s->enc == SET_ENC_LISTPACK) return sdsdup(s->u.elems[i]);
    return sdsfromlonglong(s->u.ints[i]);
}

/* Removes and returns a random member (copied). */
static sds setPopRandom(set *s) {
    sds m = setRandomMember(s);
    setRemove(s, m, sdslen(m));
    return m;
}

/* ========================================================================
 * The API of t_set.h
 * ===================================================================== */

unsigned long setTypeSize(const robj *o) { return setSize(o->ptr); }

int setTypeIsMember(const robj *o, const char *m, size_t len) { return setIsMember(o->ptr, m, len); }

setTypeIterator *setTypeInitIterator(const robj *o) {
    setTypeIterator *it = zmalloc(sizeof(*it));
    setIterInit(it, o->ptr);
    return it;
}

sds setTypeNext(setTypeIterator *it) { return setIterNext(it); }

void setTypeReleaseIterator(setTypeIterator *it) {
    if (!it) return;
    setIterDone(it);
    zfree(it);
}

robj *setTypeCreate(const char *first, size_t firstlen, size_t size_hint) {
    return createObject(OBJ_SET, setCreate(first, firstlen, size_hint));
}

int setTypeAdd(robj *o, const char *m, size_t len) { return setAdd(o->ptr, m, len); }

int setTypeRemove(robj *o, const char *m, size_t len) { return setRemove(o->ptr, m, len); }

/* ========================================================================
 * Replies
 * ===================================================================== */

/* Every member of s, in its order, as a RESP3 set (array in RESP2). */
static void addReplySetMembers(client *c, const set *s) {
    addReplySetLen(c, (long)setSize(s));
    if (s->enc == SET_ENC_INTSET) {
        for (unsigned long i = 0; i < s->len; i++) addReplyBulkLongLong(c, s->u.ints[i]);
        return;
    }
    setTypeIterator it;
    setIterInit(&it, s);
    sds m;
    while ((m = setIterNext(&it)) != NULL) addReplyBulk(c, m, sdslen(m));
    setIterDone(&it);
}

/* Stores `s` at dstkey (replacing whatever is there, its TTL too), or
 * deletes dstkey when s is empty; replies the size. Takes s over. */
static void setStoreResult(client *c, sds dstkey, set *s) {
    unsigned long n = setSize(s);
    if (n > 0) {
        dbDelete(c->db, dstkey);
        robj *o = createObject(OBJ_SET, s);
        dbAdd(c->db, dstkey, o);
        signalModifiedKey(c, c->db, dstkey, o);
        addReplyLongLong(c, (long long)n);
    } else {
        setFree(s);
        addReplyLongLong(c, 0);
        if (dbDelete(c->db, dstkey)) signalModifiedKey(c, c->db, dstkey, NULL);
    }
}

/* ========================================================================
 * Commands
 * ===================================================================== */

/* SADD key member [member ...] */
void saddCommand(client *c) {
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o) {
        o = createObject(OBJ_SET, setCreate(c->argv[2], sdslen(c->argv[2]), (size_t)(c->argc - 2)));
        dbAdd(c->db, c->argv[1], o);
    } else {
        setMaybeConvert(o->ptr, (size_t)(c->argc - 2));
    }
    long long added = 0;
    for (int j = 2; j < c->argc; j++) added += setAdd(o->ptr, c->argv[j], sdslen(c->argv[j]));
    if (added) signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, added);
}

/* SREM key member [member ...] */
void sremCommand(client *c) {
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o) {
        addReplyLongLong(c, 0);
        return;
    }
    long long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        if (setRemove(o->ptr, c->argv[j], sdslen(c->argv[j]))) {
            deleted++;
            if (setSize(o->ptr) == 0) {
                dbDelete(c->db, c->argv[1]);
                keyremoved = 1;
                break;
            }
        }
    }
    if (deleted) signalModifiedKey(c, c->db, c->argv[1], keyremoved ? NULL : o);
    addReplyLongLong(c, deleted);
}

/* SMOVE source destination member */
void smoveCommand(client *c) {
    robj *src = lookupKeyWrite(c, c->db, c->argv[1]);
    robj *dst = lookupKeyWrite(c, c->db, c->argv[2]);
    sds ele = c->argv[3];
    if (!src) {
        addReplyLongLong(c, 0);
        return;
    }
    if (checkType(c, src, OBJ_SET) || checkType(c, dst, OBJ_SET)) return;
    if (src == dst) {
        addReplyLongLong(c, setIsMember(src->ptr, ele, sdslen(ele)));
        return;
    }
    if (!setRemove(src->ptr, ele, sdslen(ele))) {
        addReplyLongLong(c, 0);
        return;
    }
    int srcgone = 0;
    if (setSize(src->ptr) == 0) {
        dbDelete(c->db, c->argv[1]);
        srcgone = 1;
    }
    if (!dst) {
        dst = createObject(OBJ_SET, setCreate(ele, sdslen(ele), 1));
        dbAdd(c->db, c->argv[2], dst);
    }
    setAdd(dst->ptr, ele, sdslen(ele));
    signalModifiedKey(c, c->db, c->argv[1], srcgone ? NULL : src);
    signalModifiedKey(c, c->db, c->argv[2], dst);
    addReplyLongLong(c, 1);
}

/* SISMEMBER key member */
void sismemberCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    addReplyLongLong(c, o ? setIsMember(o->ptr, c->argv[2], sdslen(c->argv[2])) : 0);
}

/* SMISMEMBER key member [member ...] */
void smismemberCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++)
        addReplyLongLong(c, o ? setIsMember(o->ptr, c->argv[j], sdslen(c->argv[j])) : 0);
}

/* SCARD key */
void scardCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    addReplyLongLong(c, o ? (long long)setSize(o->ptr) : 0);
}

/* SMEMBERS key */
void smembersCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o) {
        addReplySetLen(c, 0);
        return;
    }
    addReplySetMembers(c, o->ptr);
}

/* ------------------------------------------------------------------------
 * SPOP, SRANDMEMBER
 * --------------------------------------------------------------------- */

/* How many times bigger the set must be than what remains for SPOP to
 * rebuild it from the remaining members (Redis's constant). */
#define SPOP_MOVE_STRATEGY_MUL 5

static void spopWithCountCommand(client *c) {
    long l;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &l, NULL) != C_OK) return;
    unsigned long count = (unsigned long)l;
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o || count == 0) {
        addReplySetLen(c, 0);
        return;
    }
    set *s = o->ptr;
    unsigned long size = setSize(s);

    /* CASE 1: the whole set. */
    if (count >= size) {
        addReplySetMembers(c, s);
        dbDelete(c->db, c->argv[1]);
        signalModifiedKey(c, c->db, c->argv[1], NULL);
        return;
    }

    unsigned long remaining = size - count;
    addReplySetLen(c, (long)count);
    if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
        /* CASE 2: few members: pop them one by one. */
        while (count--) {
            sds m = setPopRandom(s);
            addReplyBulkSds(c, m);
        }
    } else {
        /* CASE 3: most of the set: pick the members that stay into a new
         * set (which gets the encoding its members call for, as Redis's
         * does), and reply what is left of the old one. */
        set *ns = NULL;
        while (remaining--) {
            sds m = setPopRandom(s);
            if (!ns) ns = setNew(s->enc == SET_ENC_INTSET ? SET_ENC_INTSET : SET_ENC_LISTPACK);
            setAdd(ns, m, sdslen(m));
            sdsfree(m);
        }
        setTypeIterator it;
        setIterInit(&it, s);
        sds m;
        while ((m = setIterNext(&it)) != NULL) addReplyBulk(c, m, sdslen(m));
        setIterDone(&it);
        setFree(s);
        o->ptr = ns;
    }
    signalModifiedKey(c, c->db, c->argv[1], o);
}

/* SPOP key [count] */
void spopCommand(client *c) {
    if (c->argc == 3) {
        spopWithCountCommand(c);
        return;
    } else if (c->argc > 3) {
        addReplyErrorObject(c, shared_syntaxerr);
        return;
    }
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o) {
        addReplyNull(c);
        return;
    }
    addReplyBulkSds(c, setPopRandom(o->ptr));
    int gone = 0;
    if (setSize(o->ptr) == 0) {
        dbDelete(c->db, c->argv[1]);
        gone = 1;
    }
    signalModifiedKey(c, c->db, c->argv[1], gone ? NULL : o);
}

/* How many times bigger the set must be than the count for SRANDMEMBER to
 * pick members one by one (Redis's constant). */
#define SRANDMEMBER_SUB_STRATEGY_MUL 3

static void srandmemberWithCountCommand(client *c) {
    long l;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
    int uniq = l >= 0;
    unsigned long count = l >= 0 ? (unsigned long)l : (unsigned long)-l;
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o || count == 0) {
        addReplyEmptyArray(c);
        return;
    }
    set *s = o->ptr;
    unsigned long size = setSize(s);

    /* CASE 1: repetitions allowed: count random picks. */
    if (!uniq || count == 1) {
        addReplyArrayLen(c, (long)count);
        while (count--) addReplyBulkSds(c, setRandomMember(s));
        return;
    }
    /* CASE 2: the whole set, in its order. */
    if (count >= size) {
        addReplyArrayLen(c, (long)size);
        if (s->enc == SET_ENC_INTSET) {
            for (unsigned long i = 0; i < s->len; i++) addReplyBulkLongLong(c, s->u.ints[i]);
            return;
        }
        setTypeIterator it;
        setIterInit(&it, s);
        sds m;
        while ((m = setIterNext(&it)) != NULL) addReplyBulk(c, m, sdslen(m));
        setIterDone(&it);
        return;
    }
    /* CASE 3/4: distinct random members. A dict of picks: when count is
     * close to the size, copy all and remove random ones, else add random
     * ones until there are count. */
    dict *d = dictCreate(&sdsKeyDictType);
    if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
        setTypeIterator it;
        setIterInit(&it, s);
        sds m;
        while ((m = setIterNext(&it)) != NULL) dictAdd(d, sdsdup(m), NULL);
        setIterDone(&it);
        while (dictSize(d) > count) {
            dictEntry *de = dictGetRandomKey(d);
            sds key = sdsdup(de->key);
            dictDelete(d, key);
            sdsfree(key);
        }
    } else {
        while (dictSize(d) < count) {
            sds m = setRandomMember(s);
            if (!dictAdd(d, m, NULL)) sdsfree(m);
        }
    }
    addReplyArrayLen(c, (long)count);
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, d);
    while ((de = dictNext(&it)) != NULL) addReplyBulk(c, de->key, sdslen(de->key));
    dictRelease(d);
}

/* SRANDMEMBER key [count] */
void srandmemberCommand(client *c) {
    if (c->argc == 3) {
        srandmemberWithCountCommand(c);
        return;
    } else if (c->argc > 3) {
        addReplyErrorObject(c, shared_syntaxerr);
        return;
    }
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o) {
        addReplyNull(c);
        return;
    }
    addReplyBulkSds(c, setRandomMember(o->ptr));
}

/* ------------------------------------------------------------------------
 * SINTER, SINTERCARD, SINTERSTORE
 * --------------------------------------------------------------------- */

static int compareSetsByCardinality(const void *a, const void *b) {
    unsigned long x = setSize((*(robj *const *)a)->ptr), y = setSize((*(robj *const *)b)->ptr);
    return x < y ? -1 : x > y ? 1 : 0;
}

static int compareSetsByRevCardinality(const void *a, const void *b) {
    unsigned long x = (*(robj *const *)a) ? setSize((*(robj *const *)a)->ptr) : 0;
    unsigned long y = (*(robj *const *)b) ? setSize((*(robj *const *)b)->ptr) : 0;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Redis 7.2's sinterGenericCommand. */
static void sinterGenericCommand(client *c, sds *setkeys, long setnum, sds dstkey, int cardinality_only,
                                 unsigned long limit) {
    robj **sets = zmalloc(sizeof(robj *) * (size_t)setnum);
    int empty = 0;
    for (long j = 0; j < setnum; j++) {
        robj *o = lookupKeyRead(c, c->db, setkeys[j]);
        if (!o) {
            empty++;
            sets[j] = NULL;
            continue;
        }
        if (checkType(c, o, OBJ_SET)) {
            zfree(sets);
            return;
        }
        sets[j] = o;
    }
    if (empty) {
        zfree(sets);
        if (dstkey) {
            if (dbDelete(c->db, dstkey)) signalModifiedKey(c, c->db, dstkey, NULL);
            addReplyLongLong(c, 0);
        } else if (cardinality_only) {
            addReplyLongLong(c, 0);
        } else {
            addReplySetLen(c, 0);
        }
        return;
    }
    qsort(sets, (size_t)setnum, sizeof(robj *), compareSetsByCardinality);

    set *first = sets[0]->ptr;
    set *dst = NULL;
    void *replylen = NULL;
    if (dstkey) dst = setNew(first->enc == SET_ENC_INTSET ? SET_ENC_INTSET : SET_ENC_LISTPACK);
    else if (!cardinality_only) replylen = addReplyDeferredLen(c);

    unsigned long cardinality = 0;
    setTypeIterator it;
    setIterInit(&it, first);
    sds m;
    while ((m = setIterNext(&it)) != NULL) {
        long j;
        for (j = 1; j < setnum; j++) {
            if (sets[j] == sets[0]) continue;
            if (!setIsMember(sets[j]->ptr, m, sdslen(m))) break;
        }
        if (j != setnum) continue;
        if (cardinality_only) {
            cardinality++;
            if (limit && cardinality >= limit) break;
        } else if (!dstkey) {
            addReplyBulk(c, m, sdslen(m));
            cardinality++;
        } else {
            setAdd(dst, m, sdslen(m));
        }
    }
    setIterDone(&it);

    if (cardinality_only) {
        addReplyLongLong(c, (long long)cardinality);
    } else if (dstkey) {
        setMaybeConvertToIntset(dst);
        setStoreResult(c, dstkey, dst);
    } else {
        setDeferredSetLen(c, replylen, (long)cardinality);
    }
    zfree(sets);
}

/* SINTER key [key ...] */
void sinterCommand(client *c) { sinterGenericCommand(c, c->argv + 1, c->argc - 1, NULL, 0, 0); }

/* SINTERCARD numkeys key [key ...] [LIMIT limit] */
void sintercardCommand(client *c) {
    long numkeys = 0, limit = 0;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 1, LONG_MAX, &numkeys, "numkeys should be greater than 0") !=
        C_OK)
        return;
    if (numkeys > c->argc - 2) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    for (long j = 2 + numkeys; j < c->argc; j++) {
        int moreargs = c->argc - 1 - (int)j;
        if (!strcasecmp(c->argv[j], "LIMIT") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &limit, "LIMIT can't be negative") != C_OK) return;
        } else {
            addReplyErrorObject(c, shared_syntaxerr);
            return;
        }
    }
    sinterGenericCommand(c, c->argv + 2, numkeys, NULL, 1, (unsigned long)limit);
}

/* SINTERSTORE destination key [key ...] */
void sinterstoreCommand(client *c) { sinterGenericCommand(c, c->argv + 2, c->argc - 2, c->argv[1], 0, 0); }

/* ------------------------------------------------------------------------
 * SUNION, SDIFF and their STORE forms
 * --------------------------------------------------------------------- */

#define SET_OP_UNION 0
#define SET_OP_DIFF 1

/* Redis 7.2's sunionDiffGenericCommand. */
static void sunionDiffGenericCommand(client *c, sds *setkeys, int setnum, sds dstkey, int op) {
    robj **sets = zmalloc(sizeof(robj *) * (size_t)setnum);
    int dst_enc = SET_ENC_INTSET, sameset = 0;
    for (int j = 0; j < setnum; j++) {
        robj *o = lookupKeyRead(c, c->db, setkeys[j]);
        if (!o) {
            sets[j] = NULL;
            continue;
        }
        if (checkType(c, o, OBJ_SET)) {
            zfree(sets);
            return;
        }
        /* Without a destination, a result built from a listpack or a
         * hashtable is a hashtable (Redis: faster lookups). */
        if (!dstkey && dst_enc == SET_ENC_INTSET && ((set *)o->ptr)->enc != SET_ENC_INTSET) dst_enc = SET_ENC_HT;
        sets[j] = o;
        if (j > 0 && sets[0] == sets[j]) sameset = 1;
    }

    int diff_algo = 1;
    if (op == SET_OP_DIFF && sets[0] && !sameset) {
        long long algo_one_work = 0, algo_two_work = 0;
        for (int j = 0; j < setnum; j++) {
            if (!sets[j]) continue;
            algo_one_work += (long long)setSize(sets[0]->ptr);
            algo_two_work += (long long)setSize(sets[j]->ptr);
        }
        algo_one_work /= 2;
        diff_algo = algo_one_work <= algo_two_work ? 1 : 2;
        if (diff_algo == 1 && setnum > 1)
            qsort(sets + 1, (size_t)(setnum - 1), sizeof(robj *), compareSetsByRevCardinality);
    }

    set *dst = setNew(dst_enc);
    long long cardinality = 0;
    setTypeIterator it;
    sds m;
    if (op == SET_OP_UNION) {
        for (int j = 0; j < setnum; j++) {
            if (!sets[j]) continue;
            setIterInit(&it, sets[j]->ptr);
            while ((m = setIterNext(&it)) != NULL) cardinality += setAdd(dst, m, sdslen(m));
            setIterDone(&it);
        }
    } else if (op == SET_OP_DIFF && sameset) {
        /* A set minus itself: empty. */
    } else if (op == SET_OP_DIFF && sets[0] && diff_algo == 1) {
        setIterInit(&it, sets[0]->ptr);
        while ((m = setIterNext(&it)) != NULL) {
            int j;
            for (j = 1; j < setnum; j++) {
                if (!sets[j]) continue;
                if (sets[j] == sets[0]) break;
                if (setIsMember(sets[j]->ptr, m, sdslen(m))) break;
            }
            if (j == setnum) cardinality += setAdd(dst, m, sdslen(m));
        }
        setIterDone(&it);
    } else if (op == SET_OP_DIFF && sets[0] && diff_algo == 2) {
        for (int j = 0; j < setnum; j++) {
            if (!sets[j]) continue;
            setIterInit(&it, sets[j]->ptr);
            while ((m = setIterNext(&it)) != NULL) {
                if (j == 0) cardinality += setAdd(dst, m, sdslen(m));
                else cardinality -= setRemove(dst, m, sdslen(m));
            }
            setIterDone(&it);
            if (cardinality == 0) break;
        }
    }
    zfree(sets);

    if (!dstkey) {
        addReplySetMembers(c, dst);
        setFree(dst);
    } else {
        setStoreResult(c, dstkey, dst);
    }
}

void sunionCommand(client *c) { sunionDiffGenericCommand(c, c->argv + 1, c->argc - 1, NULL, SET_OP_UNION); }

void sunionstoreCommand(client *c) {
    sunionDiffGenericCommand(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_UNION);
}

void sdiffCommand(client *c) { sunionDiffGenericCommand(c, c->argv + 1, c->argc - 1, NULL, SET_OP_DIFF); }

void sdiffstoreCommand(client *c) { sunionDiffGenericCommand(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_DIFF); }

/* ------------------------------------------------------------------------
 * SSCAN key cursor [MATCH pattern] [COUNT count]
 * --------------------------------------------------------------------- */

typedef struct sscanData {
    const scanArgs *sa;
    sds *keys;
    long count, alloc;
} sscanData;

static void sscanCallback(void *privdata, const dictEntry *de) {
    sscanData *sd = privdata;
    sds key = de->key;
    if (!scanMatches(sd->sa, key, sdslen(key))) return;
    if (sd->count == sd->alloc) {
        sd->alloc = sd->alloc ? sd->alloc * 2 : 16;
        sd->keys = zrealloc(sd->keys, sizeof(sds) * (size_t)sd->alloc);
    }
    sd->keys[sd->count++] = key;
}

void sscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_SET)) return;
    if (!o) {
        addReply(c, "*2\r\n$1\r\n0\r\n*0\r\n", 15);
        return;
    }
    scanArgs sa;
    if (scanParseArgsOrReply(c, 3, 0, &sa) != C_OK) return;
    set *s = o->ptr;
    if (s->enc != SET_ENC_HT) {
        /* Small encodings: everything in one call, cursor 0 (as Redis). */
        addReplyArrayLen(c, 2);
        addReplyBulk(c, "0", 1);
        void *len = addReplyDeferredLen(c);
        long n = 0;
        setTypeIterator it;
        setIterInit(&it, s);
        sds m;
        while ((m = setIterNext(&it)) != NULL) {
            if (!scanMatches(&sa, m, sdslen(m))) continue;
            addReplyBulk(c, m, sdslen(m));
            n++;
        }
        setIterDone(&it);
        setDeferredArrayLen(c, len, n);
        return;
    }
    sscanData sd = {&sa, NULL, 0, 0};
    long maxiterations = sa.count > LONG_MAX / 10 ? LONG_MAX : sa.count * 10;
    do {
        cursor = dictScan(s->u.ht, cursor, sscanCallback, &sd);
    } while (cursor && maxiterations-- && sd.count < sa.count);
    addReplyArrayLen(c, 2);
    addReplyBulkSds(c, sdscatprintf(sdsempty(), "%lu", cursor));
    addReplyArrayLen(c, sd.count);
    for (long j = 0; j < sd.count; j++) addReplyBulk(c, sd.keys[j], sdslen(sd.keys[j]));
    zfree(sd.keys);
}

/* ========================================================================
 * The state document: a set is the array of its members (byte strings),
 * in the set's order.
 * ===================================================================== */

static sds setCatJSON(sds out, const set *s) {
    out = sdsMakeRoomFor(out, s->bytes + setSize(s) * 3 + 2);
    out = sdscatlen(out, "[", 1);
    int first = 1;
    if (s->enc == SET_ENC_INTSET) {
        for (unsigned long i = 0; i < s->len; i++) {
            if (!first) out = sdscatlen(out, ",", 1);
            out = sdsMakeRoomFor(out, 26);
            char *p = out + sdslen(out);
            *p++ = '"';
            p += ll2string(p, LONG_STR_SIZE, s->u.ints[i]);
            *p++ = '"';
            sdsIncrLen(out, (size_t)(p - (out + sdslen(out))));
            first = 0;
        }
    } else {
        setTypeIterator it;
        setIterInit(&it, s);
        sds m;
        while ((m = setIterNext(&it)) != NULL) {
            if (!first) out = sdscatlen(out, ",", 1);
            out = jsonCatBytes(out, m, sdslen(m));
            first = 0;
        }
        setIterDone(&it);
    }
    return sdscatlen(out, "]", 1);
}

static set *setFromJSON(const cJSON *v, sds *err) {
    if (!cJSON_IsArray(v)) {
        *err = sdsnew("set: expected an array of members");
        return NULL;
    }
    int n = cJSON_GetArraySize(v);
    if (n == 0) {
        *err = sdsnew("set: a set has at least one member");
        return NULL;
    }
    set *s = NULL;
    size_t index = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, v) {
        sds m = NULL, msg = NULL;
        if (jsonGetBytes(item, &m, "set member", &msg) != C_OK) {
            *err = sdscatprintf(sdsempty(), "member #%zu: %s", index, msg);
            sdsfree(msg);
            setFree(s);
            return NULL;
        }
        if (!s) s = setCreate(m, sdslen(m), (size_t)n);
        if (!setAdd(s, m, sdslen(m))) {
            *err = sdscatprintf(sdsempty(), "member #%zu: duplicate member", index);
            sdsfree(m);
            setFree(s);
            return NULL;
        }
        sdsfree(m);
        index++;
    }
    return s;
}

/* ========================================================================
 * The set type (server.h, objectType)
 * ===================================================================== */

static void setTypeFree(void *ptr) { setFree(ptr); }

static void *setTypeDup(const void *ptr) { return setDup(ptr); }

static const char *setTypeEncoding(const robj *o) {
    switch (((const set *)o->ptr)->enc) {
    case SET_ENC_INTSET: return "intset";
    case SET_ENC_LISTPACK: return "listpack";
    default: return "hashtable";
    }
}

/* MEMORY USAGE: the structures' allocation sizes; a hashtable is sampled
 * as Redis samples (the average of the first `samples` members). */
static size_t setTypeComputeSize(const robj *o, long long samples) {
    const set *s = o->ptr;
    size_t total = zmalloc_size((void *)s);
    if (s->enc == SET_ENC_INTSET) return total + (s->cap ? zmalloc_size(s->u.ints) : 0);
    if (s->enc == SET_ENC_LISTPACK) {
        if (s->cap) total += zmalloc_size(s->u.elems);
        for (unsigned long i = 0; i < s->len; i++) total += sdsAllocSize(s->u.elems[i]);
        return total;
    }
    dict *d = s->u.ht;
    total += sizeof(dict) + sizeof(dictEntry *) * d->size;
    if (!dictSize(d)) return total;
    size_t elesize = 0;
    long long sampled = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, d);
    while ((de = dictNext(&it)) != NULL && sampled < samples) {
        elesize += sizeof(dictEntry) + sdsAllocSize(de->key);
        sampled++;
    }
    if (sampled) total += (size_t)((double)elesize / (double)sampled * (double)dictSize(d));
    return total;
}

static size_t setTypeJSONBytes(const robj *o) {
    const set *s = o->ptr;
    return s->bytes + setSize(s) * 3 + 2;
}

static sds setTypeCatJSON(sds out, robj *o) { return setCatJSON(out, o->ptr); }

static void *setTypeFromJSON(const cJSON *v, sds *err) { return setFromJSON(v, err); }

const objectType setObjectType = {
    .type = OBJ_SET,
    .name = "set",
    .free = setTypeFree,
    .dup = setTypeDup,
    .encoding = setTypeEncoding,
    .computeSize = setTypeComputeSize,
    .jsonBytes = setTypeJSONBytes,
    .catJSON = setTypeCatJSON,
    .docJSON = NULL,
    .fromJSON = setTypeFromJSON,
};

/* ========================================================================
 * Command table (arity, flags and key positions as Redis 7.2)
 * ===================================================================== */

struct redisCommand setCommandTable[] = {
    {"sadd", saddCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write set fast", NULL},
    {"srem", sremCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "write set fast", NULL},
    {"smove", smoveCommand, 4, CMD_WRITE | CMD_FAST, 1, 2, 1, "write set fast", NULL},
    {"sismember", sismemberCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read set fast", NULL},
    {"smismember", smismemberCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read set fast", NULL},
    {"scard", scardCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read set fast", NULL},
    {"spop", spopCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write set fast", NULL},
    {"srandmember", srandmemberCommand, -2, CMD_READONLY, 1, 1, 1, "read set slow", NULL},
    {"sinter", sinterCommand, -2, CMD_READONLY, 1, -1, 1, "read set slow", NULL},
    {"sintercard", sintercardCommand, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0, 0, "read set slow", NULL},
    {"sinterstore", sinterstoreCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "write set slow", NULL},
    {"sunion", sunionCommand, -2, CMD_READONLY, 1, -1, 1, "read set slow", NULL},
    {"sunionstore", sunionstoreCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "write set slow", NULL},
    {"sdiff", sdiffCommand, -2, CMD_READONLY, 1, -1, 1, "read set slow", NULL},
    {"sdiffstore", sdiffstoreCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "write set slow", NULL},
    {"smembers", smembersCommand, 2, CMD_READONLY, 1, 1, 1, "read set slow", NULL},
    {"sscan", sscanCommand, -3, CMD_READONLY, 1, 1, 1, "read set slow", NULL},
    {0},
};
