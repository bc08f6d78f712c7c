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
 *              16, 32 or 64-bit integers, as Redis's intset;
 *   listpack   at most set-max-listpack-entries members, none longer than
 *              set-max-listpack-value bytes: one packed buffer of the
 *              members in insertion order, each as its length (a varint)
 *              and its bytes, as compact as Redis's listpack (which
 *              appends; deleting keeps the order);
 *   hashtable  otherwise: a dict of sds (hash order: not Redis's), with
 *              its document JSON kept in chunks (below).
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
#include "store.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chunkseg.h"
#include "jsonutil.h"

#define SET_ENC_INTSET 0
#define SET_ENC_LISTPACK 1
#define SET_ENC_HT 2

/* A hashtable set's JSON is kept in chunks between commits (docJSON): each
 * member belongs to chunk (its hash's high bits) & (nchunks - 1), which
 * lists it (a vector of the dict's own key pointers; the dict entry's value
 * is the member's index there, so removal is O(1)). A change marks its
 * chunk dirty, and a commit re-encodes the dirty chunks only, from their
 * vectors, and lends the others' texts as they are (persist.h, borrowed
 * texts). */
#define SET_CHUNK_MEMBERS 128     /* members per chunk aimed at */
#define SET_CHUNKS_MAX 65536
typedef struct setChunk {
    sds json;            /* its members' JSON, comma-separated; NULL: none yet */
    uint64_t pin;        /* docTextRef's pin */
    int dirty;           /* members changed since json was built */
    unsigned int n, cap; /* members listed, slots */
    sds *members;        /* borrowed: the dict's keys */
    chunkRef ref;        /* its chunk segment, if sealed (chunkseg.h) */
} setChunk;

/* 40 bytes: a small set costs little more than its members. */
typedef struct set {
    uint8_t enc;         /* SET_ENC_* */
    uint8_t iw;          /* SET_ENC_INTSET: 2, 4 or 8 bytes per integer */
    uint32_t len;        /* members in ints/lp (not HT) */
    uint32_t cap;        /* SET_ENC_LISTPACK: bytes of lp */
    uint32_t nchunks;    /* SET_ENC_HT: chunks */
    union {
        unsigned char *ints; /* SET_ENC_INTSET: sorted integers of iw bytes
                              * each, exactly len of them (Redis's intset) */
        unsigned char *lp;   /* SET_ENC_LISTPACK: the members in insertion
                              * order, each a varint length and its bytes */
        dict *ht;        /* SET_ENC_HT: sds keys; the value is the key's
                          * index in its chunk's members */
    } u;
    size_t bytes;        /* sum of the members' lengths (JSON estimate) */
    setChunk *chunks;    /* SET_ENC_HT: nchunks chunks */
} set;

/* A listpack never grows past this many bytes: it converts, as Redis's
 * lpSafeToAdd (LISTPACK_MAX_SAFETY_SIZE) makes it. */
#define SET_LP_SAFETY_SIZE (1UL << 30)

struct setTypeIterator {
    const set *s;
    unsigned long i;     /* next index (intset), byte offset (listpack) */
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

/* ------------------------------------------------------------------------
 * The intset: as Redis's, the narrowest of 16, 32 or 64 bits that holds
 * every member, allocated to the exact size.
 * --------------------------------------------------------------------- */

static inline int intWidth(int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) return 8;
    if (v < INT16_MIN || v > INT16_MAX) return 4;
    return 2;
}

static inline int64_t isGetRaw(const unsigned char *p, int w, unsigned long i) {
    if (w == 2) {
        int16_t x;
        memcpy(&x, p + i * 2, 2);
        return x;
    }
    if (w == 4) {
        int32_t x;
        memcpy(&x, p + i * 4, 4);
        return x;
    }
    int64_t x;
    memcpy(&x, p + i * 8, 8);
    return x;
}

static inline void isSetRaw(unsigned char *p, int w, unsigned long i, int64_t v) {
    if (w == 2) {
        int16_t x = (int16_t)v;
        memcpy(p + i * 2, &x, 2);
    } else if (w == 4) {
        int32_t x = (int32_t)v;
        memcpy(p + i * 4, &x, 4);
    } else {
        memcpy(p + i * 8, &v, 8);
    }
}

#define isGet(s, i) isGetRaw((s)->u.ints, (s)->iw, (i))

/* Inserts v at pos (the members stay sorted), widening if v needs it. */
static void isInsertAt(struct set *s, unsigned long pos, int64_t v);
/* Removes the member at pos. */
static void isDeleteAt(struct set *s, unsigned long pos);

/* ========================================================================
 * The set
 * ===================================================================== */

/* ------------------------------------------------------------------------
 * Hashtable members and their JSON chunks
 * --------------------------------------------------------------------- */

static inline setChunk *chunkOf(set *s, const char *m, size_t len) {
    return &s->chunks[(dictGenHashFunction(m, len) >> 40) & (s->nchunks - 1)];
}

/* Lists the dict entry's key in its chunk. */
static void chunkPush(set *s, dictEntry *de) {
    setChunk *ch = chunkOf(s, de->key, sdslen(de->key));
    if (ch->n == ch->cap) {
        ch->cap = ch->cap ? ch->cap * 2 : 4;
        ch->members = zrealloc(ch->members, sizeof(sds) * ch->cap);
    }
    de->val = (void *)(uintptr_t)ch->n;
    ch->members[ch->n++] = de->key;
    ch->dirty = 1;
    chunkRefChanged(&ch->ref);
}

/* n chunks listing every member of the dict. */
static void htChunksInit(set *s, unsigned long n) {
    s->nchunks = n;
    s->chunks = zcalloc(sizeof(setChunk) * n);
    for (unsigned long i = 0; i < n; i++) {
        s->chunks[i].dirty = 1;
        chunkRefInit(&s->chunks[i].ref);
    }
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, s->u.ht);
    while ((de = dictNext(&it)) != NULL) chunkPush(s, de);
}

static void htChunksFree(set *s) {
    for (unsigned long i = 0; i < s->nchunks; i++) {
        chunkRefFreed(&s->chunks[i].ref);
        if (s->chunks[i].json) docTextFree(s->chunks[i].json, s->chunks[i].pin);
        zfree(s->chunks[i].members);
    }
    zfree(s->chunks);
    s->chunks = NULL;
    s->nchunks = 0;
}

/* More chunks as the set grows, so a commit re-encodes about
 * SET_CHUNK_MEMBERS members per changed member. */
static void htChunksMaybeGrow(set *s) {
    unsigned long size = dictSize(s->u.ht);
    if (size <= s->nchunks * SET_CHUNK_MEMBERS * 2 || s->nchunks >= SET_CHUNKS_MAX) return;
    unsigned long n = s->nchunks;
    while (n < SET_CHUNKS_MAX && size > n * SET_CHUNK_MEMBERS) n *= 2;
    htChunksFree(s);
    htChunksInit(s, n);
}

/* Adds an sds the dict takes over; 0 (and frees it) if already there. */
static int htAddSds(set *s, sds key) {
    dictEntry *de = dictAdd(s->u.ht, key, NULL);
    if (!de) {
        sdsfree(key);
        return 0;
    }
    chunkPush(s, de);
    htChunksMaybeGrow(s);
    return 1;
}

/* Removes m[0..len); 1 if it was a member. */
static int htRemove(set *s, const char *m, size_t len) {
    sds key = sdsnewlen(m, len);
    dictEntry *de = dictFind(s->u.ht, key);
    if (!de) {
        sdsfree(key);
        return 0;
    }
    setChunk *ch = chunkOf(s, m, len);
    unsigned int pos = (unsigned int)(uintptr_t)de->val;
    sds last = ch->members[--ch->n];
    if (pos != ch->n) {
        ch->members[pos] = last;
        dictFind(s->u.ht, last)->val = (void *)(uintptr_t)pos;
    }
    ch->dirty = 1;
    chunkRefChanged(&ch->ref);
    dictDelete(s->u.ht, key);
    sdsfree(key);
    return 1;
}

static set *setNew(int enc) {
    set *s = zcalloc(sizeof(*s));
    s->enc = enc;
    s->iw = 2;
    if (enc == SET_ENC_HT) {
        s->u.ht = dictCreate(&sdsKeyDictType);
        htChunksInit(s, 1);
    }
    return s;
}

static void setFree(set *s) {
    if (!s) return;
    if (s->enc == SET_ENC_HT) {
        htChunksFree(s);
        dictRelease(s->u.ht);
    } else if (s->enc == SET_ENC_LISTPACK) {
        zfree(s->u.lp);
    } else {
        zfree(s->u.ints);
    }
    zfree(s);
}

static unsigned long setSize(const set *s) { return s->enc == SET_ENC_HT ? dictSize(s->u.ht) : s->len; }

static void isInsertAt(set *s, unsigned long pos, int64_t v) {
    int w = intWidth(v);
    if (w > s->iw) {
        unsigned char *n = zmalloc((size_t)w * (s->len + 1));
        for (unsigned long i = 0; i < s->len; i++) isSetRaw(n, w, i < pos ? i : i + 1, isGet(s, i));
        zfree(s->u.ints);
        s->u.ints = n;
        s->iw = w;
    } else {
        s->u.ints = zrealloc(s->u.ints, (size_t)s->iw * (s->len + 1));
        memmove(s->u.ints + (pos + 1) * s->iw, s->u.ints + pos * s->iw, (size_t)s->iw * (s->len - pos));
    }
    isSetRaw(s->u.ints, s->iw, pos, v);
    s->len++;
}

static void isDeleteAt(set *s, unsigned long pos) {
    memmove(s->u.ints + pos * s->iw, s->u.ints + (pos + 1) * s->iw, (size_t)s->iw * (s->len - pos - 1));
    s->len--;
    if (s->len) {
        s->u.ints = zrealloc(s->u.ints, (size_t)s->iw * s->len);
    } else {
        zfree(s->u.ints);
        s->u.ints = NULL;
    }
}

/* --- the listpack: varint length (7 bits a byte, low first), bytes --- */

static inline size_t lpEntrySize(size_t len) {
    size_t n = 1;
    for (size_t l = len; l >= 0x80; l >>= 7) n++;
    return n + len;
}

/* The member at offset off (*m, *len); returns the next offset. */
static inline size_t lpEntryAt(const set *s, size_t off, const char **m, size_t *len) {
    const unsigned char *p = s->u.lp + off;
    size_t l = 0;
    int shift = 0;
    while (*p & 0x80) {
        l |= (size_t)(*p++ & 0x7f) << shift;
        shift += 7;
    }
    l |= (size_t)*p++ << shift;
    *m = (const char *)p;
    *len = l;
    return (size_t)(p - s->u.lp) + l;
}

/* Appends m[0..len). */
static void lpAppend(set *s, const char *m, size_t len) {
    size_t esize = lpEntrySize(len);
    s->u.lp = zrealloc(s->u.lp, s->cap + esize);
    unsigned char *p = s->u.lp + s->cap;
    size_t l = len;
    while (l >= 0x80) {
        *p++ = (unsigned char)(l | 0x80);
        l >>= 7;
    }
    *p++ = (unsigned char)l;
    if (len) memcpy(p, m, len);
    s->cap += (uint32_t)esize;
    s->len++;
}

/* Removes the member at offset off. */
static void lpDeleteAt(set *s, size_t off) {
    const char *m;
    size_t len;
    size_t next = lpEntryAt(s, off, &m, &len);
    memmove(s->u.lp + off, s->u.lp + next, s->cap - next);
    s->cap -= (uint32_t)(next - off);
    s->len--;
    if (s->cap) {
        s->u.lp = zrealloc(s->u.lp, s->cap);
    } else {
        zfree(s->u.lp);
        s->u.lp = NULL;
    }
}

/* 1 if m[0..len) may join the listpack: within Redis's limits. */
static inline int lpRoomFor(const set *s, size_t len) {
    return s->len < listpackMaxEntries() && len <= listpackMaxValue() &&
           s->cap + lpEntrySize(len) <= SET_LP_SAFETY_SIZE;
}

/* Index of v in the intset, or -(insertion point)-1. */
static long intsetSearch(const set *s, int64_t v) {
    long lo = 0, hi = (long)s->len - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        int64_t x = isGet(s, mid);
        if (x == v) return mid;
        if (x < v) lo = mid + 1;
        else hi = mid - 1;
    }
    return -lo - 1;
}

/* The offset of m in the listpack, or -1. */
static long listpackSearch(const set *s, const char *m, size_t len) {
    size_t off = 0;
    while (off < s->cap) {
        const char *e;
        size_t elen;
        size_t next = lpEntryAt(s, off, &e, &elen);
        if (elen == len && memcmp(e, m, len) == 0) return (long)off;
        off = next;
    }
    return -1;
}

/* Converts an intset or listpack to a hashtable (presized as Redis does:
 * our dict sizes itself). */
static void setConvertToHT(set *s) {
    if (s->enc == SET_ENC_HT) return;
    set old = *s;
    s->enc = SET_ENC_HT;
    s->u.ht = dictCreate(&sdsKeyDictType);
    s->len = s->cap = 0;
    htChunksInit(s, 1);
    if (old.enc == SET_ENC_INTSET) {
        for (unsigned long i = 0; i < old.len; i++) htAddSds(s, sdsfromlonglong(isGetRaw(old.u.ints, old.iw, i)));
        zfree(old.u.ints);
    } else {
        size_t off = 0;
        while (off < old.cap) {
            const char *m;
            size_t len;
            off = lpEntryAt(&old, off, &m, &len);
            htAddSds(s, sdsnewlen(m, len));
        }
        zfree(old.u.lp);
    }
}

/* An intset becomes a listpack, in the intset's (sorted) order. */
static void setConvertIntsetToListpack(set *s) {
    unsigned char *ints = s->u.ints;
    unsigned long n = s->len;
    s->enc = SET_ENC_LISTPACK;
    s->u.lp = NULL;
    s->cap = s->len = 0;
    for (unsigned long i = 0; i < n; i++) {
        char buf[LONG_STR_SIZE];
        int l = ll2string(buf, sizeof(buf), isGetRaw(ints, s->iw, i));
        lpAppend(s, buf, (size_t)l);
    }
    zfree(ints);
}

static int compareInt64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void setIterInit(setTypeIterator *it, const set *s);
static sds setIterNext(setTypeIterator *it);
static void setIterDone(setTypeIterator *it);

/* A listpack or hashtable whose members are all integers, few enough,
 * becomes an intset (Redis's maybeConvertToIntset, used by SINTERSTORE). */
static void setMaybeConvertToIntset(set *s) {
    if (s->enc == SET_ENC_INTSET) return;
    unsigned long n = setSize(s);
    if (n > intsetMaxEntries()) return;
    int64_t *ints = zmalloc(sizeof(int64_t) * (n ? n : 1));
    unsigned long got = 0;
    setTypeIterator it;
    setIterInit(&it, s);
    sds m;
    while ((m = setIterNext(&it)) != NULL) {
        long long v;
        if (!memberIsInt(m, sdslen(m), &v)) break;
        ints[got++] = v;
    }
    setIterDone(&it);
    if (got != n) {
        zfree(ints);
        return;
    }
    qsort(ints, n, sizeof(int64_t), compareInt64);
    if (s->enc == SET_ENC_HT) {
        htChunksFree(s);
        dictRelease(s->u.ht);
    } else {
        zfree(s->u.lp);
    }
    int w = 2;
    for (unsigned long i = 0; i < n; i++)
        if (intWidth(ints[i]) > w) w = intWidth(ints[i]);
    s->enc = SET_ENC_INTSET;
    s->iw = w;
    s->u.ints = n ? zmalloc((size_t)w * n) : NULL;
    for (unsigned long i = 0; i < n; i++) isSetRaw(s->u.ints, w, i, ints[i]);
    zfree(ints);
    s->len = (uint32_t)n;
    s->cap = 0;
}

/* Redis 7.2's setTypeAddAux. */
static int setAdd(set *s, const char *m, size_t len) {
    long long v;
    if (s->enc == SET_ENC_HT) {
        if (!htAddSds(s, sdsnewlen(m, len))) return 0;
        s->bytes += len;
        return 1;
    }
    if (s->enc == SET_ENC_INTSET) {
        if (memberIsInt(m, len, &v)) {
            long pos = intsetSearch(s, v);
            if (pos >= 0) return 0;
            pos = -pos - 1;
            isInsertAt(s, (unsigned long)pos, v);
            s->bytes += len;
            if (s->len > intsetMaxEntries()) setConvertToHT(s);
            return 1;
        }
        /* Not an integer: a listpack if it would stay within the limits. */
        size_t maxelelen = 0;
        if (s->len) {
            int a = digits10(isGet(s, 0)), b = digits10(isGet(s, s->len - 1));
            maxelelen = (size_t)(a > b ? a : b);
        }
        if (s->len < listpackMaxEntries() && len <= listpackMaxValue() && maxelelen <= listpackMaxValue() &&
            (size_t)s->len * 21 + lpEntrySize(len) <= SET_LP_SAFETY_SIZE) {
            setConvertIntsetToListpack(s);
        } else {
            setConvertToHT(s);
            htAddSds(s, sdsnewlen(m, len));
            s->bytes += len;
            return 1;
        }
    }
    /* listpack */
    if (listpackSearch(s, m, len) >= 0) return 0;
    if (lpRoomFor(s, len)) {
        lpAppend(s, m, len);
    } else {
        setConvertToHT(s);
        htAddSds(s, sdsnewlen(m, len));
    }
    s->bytes += len;
    return 1;
}

static int setRemove(set *s, const char *m, size_t len) {
    if (s->enc == SET_ENC_HT) {
        int found = htRemove(s, m, len);
        if (found) s->bytes -= len;
        return found;
    }
    if (s->enc == SET_ENC_INTSET) {
        long long v;
        if (!memberIsInt(m, len, &v)) return 0;
        long pos = intsetSearch(s, v);
        if (pos < 0) return 0;
        isDeleteAt(s, (unsigned long)pos);
        s->bytes -= len;
        return 1;
    }
    long pos = listpackSearch(s, m, len);
    if (pos < 0) return 0;
    lpDeleteAt(s, (size_t)pos);
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
        while ((de = dictNext(&it)) != NULL) htAddSds(s, sdsdup(de->key));
    } else if (src->enc == SET_ENC_INTSET) {
        s->iw = src->iw;
        s->len = src->len;
        s->u.ints = src->len ? zmalloc((size_t)src->iw * src->len) : NULL;
        if (src->len) memcpy(s->u.ints, src->u.ints, (size_t)src->iw * src->len);
    } else {
        s->len = src->len;
        s->cap = src->cap;
        s->u.lp = src->cap ? zmalloc(src->cap) : NULL;
        if (src->cap) memcpy(s->u.lp, src->u.lp, src->cap);
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
    if (s->enc == SET_ENC_LISTPACK) {
        if (it->i >= s->cap) return NULL;
        const char *m;
        size_t len;
        it->i = lpEntryAt(s, it->i, &m, &len);
        if (!it->scratch) it->scratch = sdsnewlen(m, len);
        else it->scratch = sdscpylen(it->scratch, m, len);
        return it->scratch;
    }
    if (it->i >= s->len) return NULL;
    char buf[LONG_STR_SIZE];
    int n = ll2string(buf, sizeof(buf), isGet(s, it->i));
    it->i++;
    if (!it->scratch) it->scratch = sdsnewlen(buf, (size_t)n);
    else it->scratch = sdscpylen(it->scratch, buf, (size_t)n);
    return it->scratch;
}

static void setIterDone(setTypeIterator *it) { sdsfree(it->scratch); }

/* A random member, copied. */
static sds setRandomMember(const set *s) {
    if (s->enc == SET_ENC_HT) {
        /* Uniform, as Redis's dictGetFairRandomKey means to be: the r-th
         * member counting through the chunks' member lists. */
        unsigned long r = (((unsigned long)random() << 31) ^ (unsigned long)random()) % dictSize(s->u.ht);
        for (unsigned long c = 0; c < s->nchunks; c++) {
            if (r < s->chunks[c].n) return sdsdup(s->chunks[c].members[r]);
            r -= s->chunks[c].n;
        }
        serverPanic("set chunks do not list every member");
    }
    unsigned long i = (unsigned long)random() % s->len;
    if (s->enc == SET_ENC_LISTPACK) {
        const char *m;
        size_t len, off = 0;
        do off = lpEntryAt(s, off, &m, &len);
        while (i--);
        return sdsnewlen(m, len);
    }
    return sdsfromlonglong(isGet(s, i));
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
        for (unsigned long i = 0; i < s->len; i++) addReplyBulkLongLong(c, isGet(s, i));
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
    signalModifiedKey(c, c->db, c->argv[1], srcgone ? NULL : src);
    /* The destination changed only if the member was not there (a WATCH
     * of it is not touched otherwise, as in Redis). */
    if (setAdd(dst->ptr, ele, sdslen(ele))) signalModifiedKey(c, c->db, c->argv[2], dst);
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
            for (unsigned long i = 0; i < s->len; i++) addReplyBulkLongLong(c, isGet(s, i));
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
            p += ll2string(p, LONG_STR_SIZE, isGet(s, i));
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

/* The same into a document being written: a hashtable re-encodes its
 * dirty chunks (one pass over its members) and lends every chunk's text,
 * or names it in its chunk segment; the small encodings are copied
 * (persist.c caches small values anyway). */
static void setDocJSON(storeDoc *d, set *s) {
    if (s->enc != SET_ENC_HT) {
        d->own = setCatJSON(d->own, s);
        return;
    }
    chunkDocWriter w;
    chunkDocBegin(&w, d);
    for (unsigned long i = 0; i < s->nchunks; i++) {
        setChunk *ch = &s->chunks[i];
        if (chunkDocAddSealed(&w, &ch->ref, &ch->json, &ch->pin)) continue;
        if (ch->dirty || !ch->json) {
            sds b = sdsempty();
            for (unsigned int j = 0; j < ch->n; j++) {
                if (j) b = sdscatlen(b, ",", 1);
                b = jsonCatBytes(b, ch->members[j], sdslen(ch->members[j]));
            }
            if (ch->json) docTextFree(ch->json, ch->pin);
            ch->json = b;
            ch->pin = 0;
            ch->dirty = 0;
        }
        chunkDocText(&w, ch->json, &ch->pin);
    }
    chunkDocEnd(&w);
}

/* Every chunk whose text is up to date: members land in chunks by their
 * hash, anywhere (chunkseg.h). */
static void setTypeSealChunks(robj *o, chunkSealPlan *p) {
    set *s = o->ptr;
    if (s->enc != SET_ENC_HT) return;
    for (unsigned long i = 0; i < s->nchunks; i++)
        if (!s->chunks[i].dirty) chunkSealOffer(p, &s->chunks[i].ref, s->chunks[i].json, 0);
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
    if (s->enc == SET_ENC_INTSET) return total + (s->u.ints ? zmalloc_size(s->u.ints) : 0);
    if (s->enc == SET_ENC_LISTPACK) return total + zmalloc_size(s->u.lp);
    dict *d = s->u.ht;
    total += sizeof(dict) + sizeof(dictEntry *) * d->size;
    /* casq's own: the JSON chunks kept for the commits */
    total += zmalloc_size(s->chunks);
    for (unsigned long i = 0; i < s->nchunks; i++) {
        if (s->chunks[i].json) total += sdsAllocSize(s->chunks[i].json);
        if (s->chunks[i].members) total += zmalloc_size(s->chunks[i].members);
    }
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

static void setTypeDocJSON(storeDoc *d, robj *o) { setDocJSON(d, o->ptr); }

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
    .docJSON = setTypeDocJSON,
    .sealChunks = setTypeSealChunks,
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
