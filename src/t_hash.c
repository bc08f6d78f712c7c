/* t_hash.c -- the hash type: HSET, HSETNX, HGET, HMGET, HMSET, HGETALL,
 * HDEL, HEXISTS, HLEN, HKEYS, HVALS, HSTRLEN, HINCRBY, HINCRBYFLOAT,
 * HRANDFIELD, HSCAN.
 *
 * Semantics, replies and error strings are Redis 7.2's t_hash.c, and so
 * are the two representations and the rule between them:
 *
 *   - "listpack": a small hash is one packed buffer of field/value pairs
 *     in insertion order (an update keeps the field's place, HDEL closes
 *     the gap), searched linearly, exactly the order Redis's listpack
 *     keeps, and about as compact (below), so
 *     HGETALL, HKEYS, HVALS, HSCAN and HRANDFIELD with a count >= the size
 *     reply in Redis's order;
 *   - "hashtable": once the hash has more than hash-max-listpack-entries
 *     fields, or a field or value longer than hash-max-listpack-value
 *     bytes (checked on the arguments first, as hashTypeTryConversion
 *     does, so HSET with more pairs than the limit converts even if they
 *     repeat a field), it becomes a dict and never goes back -- until it
 *     is loaded again (restart), when, as Redis loading its RDB file, it
 *     is a listpack again if it fits.
 *
 * Every change goes through signalModifiedKey (design.md §4). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "chunkseg.h"
#include "jsonutil.h"
#include "persist.h"
#include "server.h"
#include "store.h"

/* ========================================================================
 * The value
 * ===================================================================== */

#define HASH_ENC_LISTPACK 0
#define HASH_ENC_HT 1

/* A big hash's document JSON is kept in chunks, one per
 * HASH_CHUNK_BUCKETS buckets of its table: a commit re-encodes only the
 * chunks whose pairs changed and lends the others to the document
 * (docTextRef), as streams do with their nodes. */
#define HASH_CHUNK_BUCKETS 64

/* A listpack never grows past this many bytes: a bigger one converts,
 * as Redis's lpSafeToAdd (LISTPACK_MAX_SAFETY_SIZE) makes it. */
#define HASH_LP_SAFETY_SIZE (1UL << 30)

typedef struct hashChunk {
    sds json;     /* "[f,v],[f,v]..." of the chunk's buckets; NULL: stale */
    uint64_t pin; /* docTextRef's pin */
    chunkRef ref; /* its chunk segment, if sealed (chunkseg.h) */
} hashChunk;

/* The hashtable encoding's parts. */
typedef struct hashTable {
    dict *d;                   /* sds field -> sds value */
    hashChunk *chunks;         /* JSON chunks, NULL until a commit encodes
                                * the hash through docJSON */
    unsigned long nchunks;     /* chunks allocated */
    unsigned long chunks_size; /* d->size the chunks were laid out for */
} hashTable;

/* A small hash is one packed buffer, as Redis's listpack: a 32-bit count
 * of the bytes used, then field, value, field, value ... each as its
 * length (a varint: 7 bits a byte, low bits first) and its bytes. A
 * 1-byte field with a 1-byte value takes 4 bytes, against Redis's 4 to 6;
 * the buffer is allocated to its exact size. The header stays 24 bytes. */
typedef struct hashValue {
    uint32_t enc;   /* HASH_ENC_* */
    uint32_t lplen; /* listpack: pairs */
    size_t bytes;   /* field and value bytes, for jsonBytes */
    union {
        unsigned char *lp; /* HASH_ENC_LISTPACK (NULL: empty) */
        hashTable *t;      /* HASH_ENC_HT */
    } u;
} hashValue;

/* A field or value: borrowed bytes, valid until the hash changes. */
typedef struct hashStr {
    const char *p;
    size_t len;
} hashStr;

static uint64_t hashSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

static int hashSdsCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

static void hashSdsFree(void *p) { sdsfree(p); }

static dictType hashDictType = {hashSdsHash, hashSdsCompare, hashSdsFree, hashSdsFree};

static hashValue *hashNew(void) { return zcalloc(sizeof(hashValue)); }

static unsigned long hashTypeLength(const hashValue *h) {
    return h->enc == HASH_ENC_LISTPACK ? h->lplen : dictSize(h->u.t->d);
}

/* ------------------------------------------------------------------------
 * The packed buffer
 * --------------------------------------------------------------------- */

#define LP_HDR 4 /* the used-bytes count */

static inline uint32_t lpUsed(const unsigned char *lp) {
    uint32_t used;
    if (!lp) return 0;
    memcpy(&used, lp, sizeof(used));
    return used;
}

static inline void lpSetUsed(unsigned char *lp, uint32_t used) { memcpy(lp, &used, sizeof(used)); }

/* Bytes of len's varint. */
static inline size_t lpVarintSize(size_t len) {
    size_t n = 1;
    while (len >= 0x80) {
        len >>= 7;
        n++;
    }
    return n;
}

static inline unsigned char *lpPutEntry(unsigned char *p, const char *s, size_t len) {
    size_t l = len;
    while (l >= 0x80) {
        *p++ = (unsigned char)(l | 0x80);
        l >>= 7;
    }
    *p++ = (unsigned char)l;
    if (len) memcpy(p, s, len);
    return p + len;
}

/* Reads the entry at p into *s; returns the next entry. */
static inline const unsigned char *lpGetEntry(const unsigned char *p, hashStr *s) {
    size_t len = 0;
    int shift = 0;
    while (*p & 0x80) {
        len |= (size_t)(*p++ & 0x7f) << shift;
        shift += 7;
    }
    len |= (size_t)*p++ << shift;
    s->p = (const char *)p;
    s->len = len;
    return p + len;
}

static inline size_t lpEntrySize(size_t len) { return lpVarintSize(len) + len; }

/* The offset of field's pair in the buffer, 0 if absent (no pair starts
 * at 0: the header is there). */
static size_t lpFind(const hashValue *h, const char *field, size_t len) {
    if (!h->u.lp) return 0;
    const unsigned char *p = h->u.lp + LP_HDR, *end = h->u.lp + lpUsed(h->u.lp);
    while (p < end) {
        const unsigned char *pair = p;
        hashStr f, v;
        p = lpGetEntry(p, &f);
        p = lpGetEntry(p, &v);
        if (f.len == len && memcmp(f.p, field, len) == 0) return (size_t)(pair - h->u.lp);
    }
    return 0;
}

/* Replaces the bytes [off, off+oldlen) of the buffer by newlen bytes
 * (left for the caller to write); returns where they go. */
static unsigned char *lpSplice(hashValue *h, size_t off, size_t oldlen, size_t newlen) {
    size_t used = h->u.lp ? lpUsed(h->u.lp) : LP_HDR;
    size_t nused = used - oldlen + newlen;
    if (newlen > oldlen) h->u.lp = zrealloc(h->u.lp, nused);
    if (!off) off = used; /* append */
    memmove(h->u.lp + off + newlen, h->u.lp + off + oldlen, used - off - oldlen);
    if (newlen < oldlen) h->u.lp = zrealloc(h->u.lp, nused);
    lpSetUsed(h->u.lp, (uint32_t)nused);
    return h->u.lp + off;
}

/* ------------------------------------------------------------------------
 * The hashtable and its JSON chunks
 * --------------------------------------------------------------------- */

/* Drops every chunk (a borrowed one goes to the document that borrowed
 * it). */
static void hashChunksFree(hashTable *t) {
    for (unsigned long i = 0; i < t->nchunks; i++) {
        chunkRefFreed(&t->chunks[i].ref);
        if (t->chunks[i].json) docTextFree(t->chunks[i].json, t->chunks[i].pin);
    }
    zfree(t->chunks);
    t->chunks = NULL;
    t->nchunks = t->chunks_size = 0;
}

/* field's pair changed (set, updated or deleted): its chunk is stale. A
 * table that was resized meanwhile invalidates every chunk. */
static void hashChunkTouch(hashTable *t, sds field) {
    if (!t->chunks) return;
    if (t->d->size != t->chunks_size) {
        hashChunksFree(t);
        return;
    }
    unsigned long b = (unsigned long)(hashSdsHash(field) & (t->d->size - 1));
    hashChunk *ch = &t->chunks[b / HASH_CHUNK_BUCKETS];
    chunkRefChanged(&ch->ref);
    if (ch->json) {
        docTextFree(ch->json, ch->pin);
        ch->json = NULL;
        ch->pin = 0;
    }
}

static hashTable *hashTableNew(void) {
    hashTable *t = zcalloc(sizeof(*t));
    t->d = dictCreate(&hashDictType);
    return t;
}

static void hashFree(hashValue *h) {
    if (h->enc == HASH_ENC_LISTPACK) {
        zfree(h->u.lp);
    } else {
        hashChunksFree(h->u.t);
        dictRelease(h->u.t->d);
        zfree(h->u.t);
    }
    zfree(h);
}

/* ------------------------------------------------------------------------
 * Access
 * --------------------------------------------------------------------- */

/* The value of field into *v; 0 if absent. */
static int hashGet(const hashValue *h, sds field, hashStr *v) {
    if (h->enc == HASH_ENC_LISTPACK) {
        size_t off = lpFind(h, field, sdslen(field));
        if (!off) return 0;
        hashStr f;
        lpGetEntry(lpGetEntry(h->u.lp + off, &f), v);
        return 1;
    }
    sds val = dictFetchValue(h->u.t->d, field);
    if (!val) return 0;
    v->p = val;
    v->len = sdslen(val);
    return 1;
}

/* 1 if field is in the hash (field is an sds: no copy for a hashtable). */
static int hashExists(const hashValue *h, sds field) {
    if (h->enc == HASH_ENC_LISTPACK) return lpFind(h, field, sdslen(field)) != 0;
    return dictFind(h->u.t->d, field) != NULL;
}

/* Iteration in the representation's order. */
typedef struct hashIter {
    const hashValue *h;
    const unsigned char *p, *end; /* listpack: next pair, end */
    dictIterator di;              /* hashtable */
    hashStr field, value;         /* current pair */
} hashIter;

static void hashIterInit(hashIter *it, const hashValue *h) {
    it->h = h;
    if (h->enc == HASH_ENC_HT) {
        dictInitIterator(&it->di, h->u.t->d);
    } else {
        it->p = h->u.lp ? h->u.lp + LP_HDR : NULL;
        it->end = h->u.lp ? h->u.lp + lpUsed(h->u.lp) : NULL;
    }
}

static int hashIterNext(hashIter *it) {
    if (it->h->enc == HASH_ENC_LISTPACK) {
        if (it->p >= it->end) return 0;
        it->p = lpGetEntry(it->p, &it->field);
        it->p = lpGetEntry(it->p, &it->value);
        return 1;
    }
    dictEntry *de = dictNext(&it->di);
    if (!de) return 0;
    it->field.p = de->key;
    it->field.len = sdslen(de->key);
    it->value.p = de->val;
    it->value.len = sdslen(de->val);
    return 1;
}

/* listpack -> hashtable, keeping the pairs. */
static void hashConvertToHT(hashValue *h) {
    if (h->enc == HASH_ENC_HT) return;
    hashTable *t = hashTableNew();
    hashIter it;
    hashIterInit(&it, h);
    while (hashIterNext(&it))
        dictAdd(t->d, sdsnewlen(it.field.p, it.field.len), sdsnewlen(it.value.p, it.value.len));
    zfree(h->u.lp);
    h->lplen = 0;
    h->u.t = t;
    h->enc = HASH_ENC_HT;
}

/* Redis's hashTypeTryConversion over argv[start..end] (field, value ...),
 * with its lpSafeToAdd check of the arguments' total size. */
static void hashTryConversion(hashValue *h, sds *argv, int start, int end) {
    if (h->enc != HASH_ENC_LISTPACK) return;
    size_t new_fields = (size_t)(end - start + 1) / 2;
    if (new_fields > (size_t)server.cfg.hash_max_listpack_entries) {
        hashConvertToHT(h);
        return;
    }
    size_t sum = 0;
    for (int i = start; i <= end; i++) {
        if (sdslen(argv[i]) > (size_t)server.cfg.hash_max_listpack_value) {
            hashConvertToHT(h);
            return;
        }
        sum += sdslen(argv[i]);
    }
    if (lpUsed(h->u.lp) + sum > HASH_LP_SAFETY_SIZE) hashConvertToHT(h);
}

/* Sets field to value (both copied). Returns 1 if the field existed
 * (updated), 0 if it was added. Converts as Redis's hashTypeSet. */
static int hashSet(hashValue *h, const char *field, size_t flen, const char *value, size_t vlen) {
    if (h->enc == HASH_ENC_LISTPACK &&
        (flen > (size_t)server.cfg.hash_max_listpack_value || vlen > (size_t)server.cfg.hash_max_listpack_value ||
         lpUsed(h->u.lp) + lpEntrySize(flen) + lpEntrySize(vlen) > HASH_LP_SAFETY_SIZE))
        hashConvertToHT(h);
    if (h->enc == HASH_ENC_LISTPACK) {
        size_t off = lpFind(h, field, flen);
        if (off) {
            hashStr f, v;
            const unsigned char *vp = lpGetEntry(h->u.lp + off, &f);
            lpGetEntry(vp, &v);
            h->bytes -= v.len;
            h->bytes += vlen;
            size_t voff = (size_t)(vp - h->u.lp);
            unsigned char *dst = lpSplice(h, voff, lpEntrySize(v.len), lpEntrySize(vlen));
            lpPutEntry(dst, value, vlen);
            return 1;
        }
        if (!h->u.lp) {
            h->u.lp = zmalloc(LP_HDR);
            lpSetUsed(h->u.lp, LP_HDR);
        }
        unsigned char *dst = lpSplice(h, 0, 0, lpEntrySize(flen) + lpEntrySize(vlen));
        lpPutEntry(lpPutEntry(dst, field, flen), value, vlen);
        h->lplen++;
        h->bytes += flen + vlen;
        if (h->lplen > (unsigned long)server.cfg.hash_max_listpack_entries) hashConvertToHT(h);
        return 0;
    }
    hashTable *t = h->u.t;
    sds key = sdsnewlen(field, flen);
    dictEntry *de = dictFind(t->d, key);
    if (de) {
        h->bytes -= sdslen(de->val);
        h->bytes += vlen;
        sdsfree(de->val);
        de->val = sdsnewlen(value, vlen);
        hashChunkTouch(t, key);
        sdsfree(key);
        return 1;
    }
    dictAdd(t->d, key, sdsnewlen(value, vlen));
    h->bytes += flen + vlen;
    hashChunkTouch(t, key);
    return 0;
}

/* Removes field; 1 if it existed. */
static int hashDelete(hashValue *h, sds field) {
    if (h->enc == HASH_ENC_LISTPACK) {
        size_t off = lpFind(h, field, sdslen(field));
        if (!off) return 0;
        hashStr f, v;
        const unsigned char *next = lpGetEntry(lpGetEntry(h->u.lp + off, &f), &v);
        h->bytes -= f.len + v.len;
        lpSplice(h, off, (size_t)(next - (h->u.lp + off)), 0);
        if (--h->lplen == 0) {
            zfree(h->u.lp);
            h->u.lp = NULL;
        }
        return 1;
    }
    hashTable *t = h->u.t;
    dictEntry *de = dictFind(t->d, field);
    if (!de) return 0;
    h->bytes -= sdslen(de->key) + sdslen(de->val);
    dictDelete(t->d, field);
    hashChunkTouch(t, field);
    return 1;
}

/* A random pair. The hash must not be empty. */
static void hashRandomPair(const hashValue *h, hashStr *field, hashStr *value) {
    if (h->enc == HASH_ENC_LISTPACK) {
        unsigned long i = (unsigned long)random() % h->lplen;
        hashIter it;
        hashIterInit(&it, h);
        do hashIterNext(&it);
        while (i--);
        *field = it.field;
        *value = it.value;
    } else {
        dictEntry *de = dictGetRandomKey(h->u.t->d);
        field->p = de->key;
        field->len = sdslen(de->key);
        value->p = de->val;
        value->len = sdslen(de->val);
    }
}

/* A copy of h in the same representation (COPY). */
static hashValue *hashDup(const hashValue *h) {
    hashValue *n = hashNew();
    n->enc = h->enc;
    n->bytes = h->bytes;
    if (h->enc == HASH_ENC_LISTPACK) {
        n->lplen = h->lplen;
        if (h->u.lp) {
            n->u.lp = zmalloc(lpUsed(h->u.lp));
            memcpy(n->u.lp, h->u.lp, lpUsed(h->u.lp));
        }
    } else {
        n->u.t = hashTableNew();
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, h->u.t->d);
        while ((de = dictNext(&it)) != NULL) dictAdd(n->u.t->d, sdsdup(de->key), sdsdup(de->val));
    }
    return n;
}

/* ========================================================================
 * The type (server.h, objectType)
 * ===================================================================== */

static void hashTypeFree(void *ptr) { hashFree(ptr); }

static void *hashTypeDup(const void *ptr) { return hashDup(ptr); }

static const char *hashTypeEncoding(const robj *o) {
    return ((const hashValue *)o->ptr)->enc == HASH_ENC_LISTPACK ? "listpack" : "hashtable";
}

/* Redis's rule: a listpack counts whole; a hashtable is estimated from
 * `samples` pairs (all if samples covers them). */
static size_t hashTypeComputeSize(const robj *o, long long samples) {
    const hashValue *h = o->ptr;
    size_t size = zmalloc_size((void *)h);
    if (h->enc == HASH_ENC_LISTPACK) {
        return size + zmalloc_size(h->u.lp);
    }
    const dict *ht = h->u.t->d;
    unsigned long n = dictSize(ht);
    size += zmalloc_size(h->u.t) + sizeof(dict) + sizeof(dictEntry *) * ht->size;
    if (n == 0) return size;
    size_t elesize = 0;
    long long sampled = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, (dict *)ht);
    while ((de = dictNext(&it)) != NULL && sampled < samples) {
        elesize += sizeof(dictEntry) + sdsAllocSize(de->key) + sdsAllocSize(de->val);
        sampled++;
    }
    return size + (size_t)((double)elesize / (double)sampled * (double)n);
}

static size_t hashTypeJSONBytes(const robj *o) {
    const hashValue *h = o->ptr;
    return h->bytes + h->bytes / 3 + 8 * hashTypeLength(h) + 2;
}

/* [["field","value"], ...] in the hash's order. */
static sds hashTypeCatJSON(sds out, robj *o) {
    const hashValue *h = o->ptr;
    out = sdsMakeRoomFor(out, h->bytes + 8 * hashTypeLength(h) + 2);
    out = sdscatlen(out, "[", 1);
    hashIter it;
    int first = 1;
    hashIterInit(&it, h);
    while (hashIterNext(&it)) {
        out = sdscatlen(out, first ? "[" : ",[", first ? 1 : 2);
        first = 0;
        out = jsonCatBytes(out, it.field.p, it.field.len);
        out = sdscatlen(out, ",", 1);
        out = jsonCatBytes(out, it.value.p, it.value.len);
        out = sdscatlen(out, "]", 1);
    }
    return sdscatlen(out, "]", 1);
}

/* The pairs of buckets [from, to) as "[f,v],[f,v]...". */
static sds hashChunkJSON(const hashTable *t, unsigned long from, unsigned long to) {
    sds out = sdsempty();
    for (unsigned long b = from; b < to; b++) {
        for (dictEntry *de = t->d->table[b]; de; de = de->next) {
            out = sdscatlen(out, sdslen(out) ? ",[" : "[", sdslen(out) ? 2 : 1);
            out = jsonCatBytes(out, de->key, sdslen(de->key));
            out = sdscatlen(out, ",", 1);
            out = jsonCatBytes(out, de->val, sdslen(de->val));
            out = sdscatlen(out, "]", 1);
        }
    }
    return out;
}

/* A big hash into the document: unchanged chunks are lent, stale ones
 * re-encoded first. A listpack is small: catJSON. */
static void hashTypeDocJSON(storeDoc *d, robj *o) {
    hashValue *h = o->ptr;
    if (h->enc != HASH_ENC_HT || h->u.t->d->size == 0) {
        d->own = hashTypeCatJSON(d->own, o);
        return;
    }
    hashTable *t = h->u.t;
    if (t->chunks && t->chunks_size != t->d->size) hashChunksFree(t);
    if (!t->chunks) {
        t->nchunks = (t->d->size + HASH_CHUNK_BUCKETS - 1) / HASH_CHUNK_BUCKETS;
        t->chunks = zcalloc(sizeof(hashChunk) * t->nchunks);
        t->chunks_size = t->d->size;
        for (unsigned long i = 0; i < t->nchunks; i++) chunkRefInit(&t->chunks[i].ref);
    }
    chunkDocWriter w;
    chunkDocBegin(&w, d);
    for (unsigned long i = 0; i < t->nchunks; i++) {
        hashChunk *ch = &t->chunks[i];
        if (chunkDocAddSealed(&w, &ch->ref, &ch->json, &ch->pin)) continue;
        if (!ch->json) {
            unsigned long from = i * HASH_CHUNK_BUCKETS;
            unsigned long to = from + HASH_CHUNK_BUCKETS;
            if (to > t->d->size) to = t->d->size;
            ch->json = hashChunkJSON(t, from, to);
            ch->pin = 0;
        }
        chunkDocText(&w, ch->json, &ch->pin);
    }
    chunkDocEnd(&w);
}

/* Every chunk of an up-to-date layout: a big hash changes where its
 * fields hash to, anywhere (chunkseg.h). */
static void hashTypeSealChunks(robj *o, chunkSealPlan *p) {
    hashValue *h = o->ptr;
    if (h->enc != HASH_ENC_HT) return;
    hashTable *t = h->u.t;
    if (!t->chunks || t->chunks_size != t->d->size) return;
    for (unsigned long i = 0; i < t->nchunks; i++) chunkSealOffer(p, &t->chunks[i].ref, t->chunks[i].json, 0);
}

static void *hashTypeFromJSON(const cJSON *v, sds *err) {
    if (!cJSON_IsArray(v)) {
        *err = sdsnew("expected an array of [field, value] pairs");
        return NULL;
    }
    int n = cJSON_GetArraySize(v);
    if (n == 0) {
        *err = sdsnew("a hash has at least one field");
        return NULL;
    }
    hashValue *h = hashNew();
    /* Loaded as Redis loads its RDB: a listpack if it fits. */
    if ((long long)n > server.cfg.hash_max_listpack_entries) hashConvertToHT(h);
    const cJSON *pair;
    int idx = 0;
    cJSON_ArrayForEach(pair, v) {
        sds field = NULL, value = NULL;
        if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2) {
            *err = sdscatprintf(sdsempty(), "pair #%d: expected [field, value]", idx);
            goto fail;
        }
        sds e = NULL;
        if (jsonGetBytes(cJSON_GetArrayItem(pair, 0), &field, "field", &e) != C_OK ||
            jsonGetBytes(cJSON_GetArrayItem(pair, 1), &value, "value", &e) != C_OK) {
            *err = sdscatprintf(sdsempty(), "pair #%d: %s", idx, e);
            sdsfree(e);
            sdsfree(field);
            goto fail;
        }
        if (hashExists(h, field)) {
            *err = sdscatprintf(sdsempty(), "pair #%d: the field appears twice", idx);
            sdsfree(field);
            sdsfree(value);
            goto fail;
        }
        hashSet(h, field, sdslen(field), value, sdslen(value));
        sdsfree(field);
        sdsfree(value);
        idx++;
    }
    return h;
fail:
    hashFree(h);
    return NULL;
}

const objectType hashObjectType = {
    .type = OBJ_HASH,
    .name = "hash",
    .free = hashTypeFree,
    .dup = hashTypeDup,
    .encoding = hashTypeEncoding,
    .computeSize = hashTypeComputeSize,
    .jsonBytes = hashTypeJSONBytes,
    .catJSON = hashTypeCatJSON,
    .docJSON = hashTypeDocJSON,
    .sealChunks = hashTypeSealChunks,
    .fromJSON = hashTypeFromJSON,
};

/* ========================================================================
 * Commands
 * ===================================================================== */

/* The hash at key for a write, created (and added) if missing; NULL with
 * WRONGTYPE replied if the key holds another type. */
static robj *hashTypeLookupWriteOrCreate(client *c, sds key) {
    robj *o = lookupKeyWrite(c, c->db, key);
    if (checkType(c, o, OBJ_HASH)) return NULL;
    if (!o) {
        o = createObject(OBJ_HASH, hashNew());
        dbAdd(c->db, key, o);
    }
    return o;
}

/* HSET key field value [field value ...] / HMSET */
static void hsetGenericCommand(client *c, int hmset) {
    if ((c->argc % 2) == 1) {
        addReplyErrorArity(c);
        return;
    }
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    hashValue *h = o->ptr;
    hashTryConversion(h, c->argv, 2, c->argc - 1);
    long long created = 0;
    for (int i = 2; i < c->argc; i += 2)
        created += !hashSet(h, c->argv[i], sdslen(c->argv[i]), c->argv[i + 1], sdslen(c->argv[i + 1]));
    signalModifiedKey(c, c->db, c->argv[1], o);
    if (hmset) addReplyOk(c);
    else addReplyLongLong(c, created);
}

void hsetCommand(client *c) { hsetGenericCommand(c, 0); }

void hmsetCommand(client *c) { hsetGenericCommand(c, 1); }

void hsetnxCommand(client *c) {
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    hashValue *h = o->ptr;
    if (hashExists(h, c->argv[2])) {
        addReplyLongLong(c, 0);
        return;
    }
    hashTryConversion(h, c->argv, 2, 3);
    hashSet(h, c->argv[2], sdslen(c->argv[2]), c->argv[3], sdslen(c->argv[3]));
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, 1);
}

void hgetCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o || checkType(c, o, OBJ_HASH)) return;
    hashStr v;
    if (hashGet(o->ptr, c->argv[2], &v)) addReplyBulk(c, v.p, v.len);
    else addReplyNull(c);
}

void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) {
        hashStr v;
        if (o && hashGet(o->ptr, c->argv[i], &v)) addReplyBulk(c, v.p, v.len);
        else addReplyNull(c);
    }
}

void hdelCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    hashValue *h = o->ptr;
    long long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        if (hashDelete(h, c->argv[j])) {
            deleted++;
            if (hashTypeLength(h) == 0) {
                dbDelete(c->db, c->argv[1]);
                keyremoved = 1;
                break;
            }
        }
    }
    if (deleted) signalModifiedKey(c, c->db, c->argv[1], keyremoved ? NULL : o);
    addReplyLongLong(c, deleted);
}

void hlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, (long long)hashTypeLength(o->ptr));
}

void hstrlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    hashStr v;
    addReplyLongLong(c, hashGet(o->ptr, c->argv[2], &v) ? (long long)v.len : 0);
}

void hexistsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, hashExists(o->ptr, c->argv[2]));
}

#define OBJ_HASH_KEY 1
#define OBJ_HASH_VALUE 2

static void genericHgetallCommand(client *c, int flags) {
    int both = (flags & OBJ_HASH_KEY) && (flags & OBJ_HASH_VALUE);
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (!o) {
        if (both) addReplyMapLen(c, 0);
        else addReplyArrayLen(c, 0);
        return;
    }
    if (checkType(c, o, OBJ_HASH)) return;
    const hashValue *h = o->ptr;
    long length = (long)hashTypeLength(h);
    if (both) addReplyMapLen(c, length);
    else addReplyArrayLen(c, length);
    hashIter it;
    hashIterInit(&it, h);
    while (hashIterNext(&it)) {
        if (flags & OBJ_HASH_KEY) addReplyBulk(c, it.field.p, it.field.len);
        if (flags & OBJ_HASH_VALUE) addReplyBulk(c, it.value.p, it.value.len);
    }
}

void hkeysCommand(client *c) { genericHgetallCommand(c, OBJ_HASH_KEY); }

void hvalsCommand(client *c) { genericHgetallCommand(c, OBJ_HASH_VALUE); }

void hgetallCommand(client *c) { genericHgetallCommand(c, OBJ_HASH_KEY | OBJ_HASH_VALUE); }

void hincrbyCommand(client *c) {
    long long value = 0, incr;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    hashValue *h = o->ptr;
    hashStr cur;
    if (hashGet(h, c->argv[2], &cur) && !string2ll(cur.p, cur.len, &value)) {
        addReplyError(c, "hash value is not an integer");
        return;
    }
    long long oldvalue = value;
    if ((incr < 0 && oldvalue < 0 && incr < (LLONG_MIN - oldvalue)) ||
        (incr > 0 && oldvalue > 0 && incr > (LLONG_MAX - oldvalue))) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), value);
    hashSet(h, c->argv[2], sdslen(c->argv[2]), buf, (size_t)len);
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, value);
}

void hincrbyfloatCommand(client *c) {
    long double value = 0, incr;
    if (getLongDoubleFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    if (isnan(incr) || isinf(incr)) {
        addReplyError(c, "value is NaN or Infinity");
        return;
    }
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    hashValue *h = o->ptr;
    hashStr cur;
    if (hashGet(h, c->argv[2], &cur) && !string2ld(cur.p, cur.len, &value)) {
        addReplyError(c, "hash value is not a float");
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, LD_STR_HUMAN);
    hashSet(h, c->argv[2], sdslen(c->argv[2]), buf, (size_t)len);
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyBulk(c, buf, (size_t)len);
}

/* ------------------------------------------------------------------------
 * HRANDFIELD key [count [WITHVALUES]]
 * --------------------------------------------------------------------- */

static void addPairReply(client *c, hashStr field, hashStr value, int withvalues) {
    if (withvalues && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyBulk(c, field.p, field.len);
    if (withvalues) addReplyBulk(c, value.p, value.len);
}

/* Redis's CASE 3 / CASE 4 threshold (HRANDFIELD_SUB_STRATEGY_MUL). */
#define HRANDFIELD_SUB_STRATEGY_MUL 3

static void hrandfieldWithCountCommand(client *c, long l, int withvalues) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], "*0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    const hashValue *h = o->ptr;
    unsigned long size = hashTypeLength(h), count;
    int uniq = 1;
    if (l >= 0) {
        count = (unsigned long)l;
    } else {
        count = (unsigned long)-l;
        uniq = 0;
    }
    if (count == 0) {
        addReplyArrayLen(c, 0);
        return;
    }
    hashStr field, value;

    /* CASE 1: negative count: count independent draws. */
    if (!uniq || count == 1) {
        addReplyArrayLen(c, (long)((withvalues && c->resp == 2) ? count * 2 : count));
        while (count--) {
            hashRandomPair(h, &field, &value);
            addPairReply(c, field, value, withvalues);
            if (c->flags & CLIENT_CLOSE_ASAP) break;
        }
        return;
    }

    unsigned long reply_size = count < size ? count : size;
    addReplyArrayLen(c, (long)((withvalues && c->resp == 2) ? reply_size * 2 : reply_size));

    /* CASE 2: the whole hash, in its order. */
    if (count >= size) {
        hashIter it;
        hashIterInit(&it, h);
        while (hashIterNext(&it)) addPairReply(c, it.field, it.value, withvalues);
        return;
    }

    /* CASE 3 and 4: count distinct pairs. Pick a random subset of the
     * indexes: remove from all of them when count is close to the size,
     * else draw until count distinct ones. */
    hashStr *fields = zmalloc(sizeof(hashStr) * size), *values = zmalloc(sizeof(hashStr) * size);
    unsigned long n = 0;
    hashIter it;
    hashIterInit(&it, h);
    while (hashIterNext(&it)) {
        fields[n] = it.field;
        values[n] = it.value;
        n++;
    }
    if (count * HRANDFIELD_SUB_STRATEGY_MUL > size) {
        /* Remove random elements until count remain. */
        unsigned long left = size;
        while (left > count) {
            unsigned long i = (unsigned long)random() % left;
            left--;
            fields[i] = fields[left];
            values[i] = values[left];
        }
    } else {
        /* Partial Fisher-Yates: the first count slots get distinct picks. */
        for (unsigned long i = 0; i < count; i++) {
            unsigned long j = i + (unsigned long)random() % (size - i);
            hashStr tf = fields[i], tv = values[i];
            fields[i] = fields[j];
            values[i] = values[j];
            fields[j] = tf;
            values[j] = tv;
        }
    }
    for (unsigned long i = 0; i < count; i++) addPairReply(c, fields[i], values[i], withvalues);
    zfree(fields);
    zfree(values);
}

void hrandfieldCommand(client *c) {
    long l;
    int withvalues = 0;
    if (c->argc >= 3) {
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
        if (c->argc > 4 || (c->argc == 4 && strcasecmp(c->argv[3], "withvalues"))) {
            addReplyErrorObject(c, shared_syntaxerr);
            return;
        } else if (c->argc == 4) {
            withvalues = 1;
            if (l < -LONG_MAX / 2 || l > LONG_MAX / 2) {
                addReplyError(c, "value is out of range");
                return;
            }
        }
        hrandfieldWithCountCommand(c, l, withvalues);
        return;
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o || checkType(c, o, OBJ_HASH)) return;
    hashStr field, value;
    hashRandomPair(o->ptr, &field, &value);
    addReplyBulk(c, field.p, field.len);
}

/* ------------------------------------------------------------------------
 * HSCAN key cursor [MATCH pattern] [COUNT count]
 * --------------------------------------------------------------------- */

typedef struct hscanData {
    const scanArgs *sa;
    hashStr *items;   /* field, value, ... (borrowed) */
    long count;       /* items used */
    long alloc;       /* items allocated */
    long sampled;     /* pairs visited */
} hscanData;

static void hscanPush(hscanData *d, hashStr field, hashStr value) {
    if (d->count + 2 > d->alloc) {
        d->alloc = d->alloc ? d->alloc * 2 : 32;
        d->items = zrealloc(d->items, sizeof(hashStr) * (size_t)d->alloc);
    }
    d->items[d->count++] = field;
    d->items[d->count++] = value;
}

static void hscanCallback(void *privdata, const dictEntry *de) {
    hscanData *d = privdata;
    d->sampled++;
    if (!scanMatches(d->sa, de->key, sdslen(de->key))) return;
    hashStr f = {de->key, sdslen(de->key)}, v = {de->val, sdslen(de->val)};
    hscanPush(d, f, v);
}

void hscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], "*2\r\n$1\r\n0\r\n*0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    scanArgs sa;
    if (scanParseArgsOrReply(c, 3, 0, &sa) != C_OK) return;
    const hashValue *h = o->ptr;
    hscanData d = {&sa, NULL, 0, 0, 0};
    if (h->enc == HASH_ENC_LISTPACK) {
        /* A listpack is returned whole, with cursor 0 (as Redis). */
        hashIter it;
        hashIterInit(&it, h);
        while (hashIterNext(&it))
            if (scanMatches(&sa, it.field.p, it.field.len)) hscanPush(&d, it.field, it.value);
        cursor = 0;
    } else {
        long maxiterations = sa.count > LONG_MAX / 10 ? LONG_MAX : sa.count * 10;
        do {
            cursor = dictScan(h->u.t->d, cursor, hscanCallback, &d);
        } while (cursor && maxiterations-- && d.sampled < sa.count);
    }
    addReplyArrayLen(c, 2);
    addReplyBulkSds(c, sdscatprintf(sdsempty(), "%lu", cursor));
    addReplyArrayLen(c, d.count);
    for (long j = 0; j < d.count; j++) addReplyBulk(c, d.items[j].p, d.items[j].len);
    zfree(d.items);
}

/* ========================================================================
 * Command table (Redis 7.2's arity, flags, key positions, categories)
 * ===================================================================== */

struct redisCommand hashCommandTable[] = {
    {"hset", hsetCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write hash fast", NULL},
    {"hsetnx", hsetnxCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write hash fast", NULL},
    {"hget", hgetCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read hash fast", NULL},
    {"hmset", hmsetCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write hash fast", NULL},
    {"hmget", hmgetCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read hash fast", NULL},
    {"hincrby", hincrbyCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write hash fast", NULL},
    {"hincrbyfloat", hincrbyfloatCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write hash fast", NULL},
    {"hdel", hdelCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "write hash fast", NULL},
    {"hlen", hlenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read hash fast", NULL},
    {"hstrlen", hstrlenCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read hash fast", NULL},
    {"hkeys", hkeysCommand, 2, CMD_READONLY, 1, 1, 1, "read hash slow", NULL},
    {"hvals", hvalsCommand, 2, CMD_READONLY, 1, 1, 1, "read hash slow", NULL},
    {"hgetall", hgetallCommand, 2, CMD_READONLY, 1, 1, 1, "read hash slow", NULL},
    {"hexists", hexistsCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read hash fast", NULL},
    {"hrandfield", hrandfieldCommand, -2, CMD_READONLY, 1, 1, 1, "read hash slow", NULL},
    {"hscan", hscanCommand, -3, CMD_READONLY, 1, 1, 1, "read hash slow", NULL},
    {0},
};
