/* t_hash.c -- the hash type: HSET, HSETNX, HGET, HMGET, HMSET, HGETALL,
 * HDEL, HEXISTS, HLEN, HKEYS, HVALS, HSTRLEN, HINCRBY, HINCRBYFLOAT,
 * HRANDFIELD, HSCAN.
 *
 * Semantics, replies and error strings are Redis 7.2's t_hash.c, and so
 * are the two representations and the rule between them:
 *
 *   - "listpack": a small hash is an array of field/value pairs in
 *     insertion order (an update keeps the field's place, HDEL closes the
 *     gap), searched linearly, exactly the order Redis's listpack keeps, so
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

typedef struct hashChunk {
    sds json;     /* "[f,v],[f,v]..." of the chunk's buckets; NULL: stale */
    uint64_t pin; /* docTextRef's pin */
} hashChunk;

typedef struct hashValue {
    int enc;               /* HASH_ENC_* */
    unsigned long lplen;   /* listpack: pairs used */
    unsigned long lpalloc; /* listpack: pairs allocated */
    sds *lp;               /* listpack: field, value, field, value ... */
    dict *ht;              /* hashtable: sds field -> sds value */
    size_t bytes;          /* field and value bytes, for jsonBytes */
    hashChunk *chunks;     /* hashtable: JSON chunks, NULL until a commit
                            * encodes the hash through docJSON */
    unsigned long nchunks; /* chunks allocated */
    unsigned long chunks_size; /* ht->size the chunks were laid out for */
} hashValue;

static uint64_t hashSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

static int hashSdsCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

static void hashSdsFree(void *p) { sdsfree(p); }

static dictType hashDictType = {hashSdsHash, hashSdsCompare, hashSdsFree, hashSdsFree};

static hashValue *hashNew(void) { return zcalloc(sizeof(hashValue)); }

static unsigned long hashTypeLength(const hashValue *h) { return h->enc == HASH_ENC_LISTPACK ? h->lplen : dictSize(h->ht); }

/* Drops every chunk (a borrowed one goes to the document that borrowed
 * it). */
static void hashChunksFree(hashValue *h) {
    for (unsigned long i = 0; i < h->nchunks; i++)
        if (h->chunks[i].json) docTextFree(h->chunks[i].json, h->chunks[i].pin);
    zfree(h->chunks);
    h->chunks = NULL;
    h->nchunks = h->chunks_size = 0;
}

/* field's pair changed (set, updated or deleted): its chunk is stale. A
 * table that was resized meanwhile invalidates every chunk. */
static void hashChunkTouch(hashValue *h, sds field) {
    if (!h->chunks) return;
    if (h->ht->size != h->chunks_size) {
        hashChunksFree(h);
        return;
    }
    unsigned long b = (unsigned long)(hashSdsHash(field) & (h->ht->size - 1));
    hashChunk *ch = &h->chunks[b / HASH_CHUNK_BUCKETS];
    if (ch->json) {
        docTextFree(ch->json, ch->pin);
        ch->json = NULL;
        ch->pin = 0;
    }
}

static void hashFree(hashValue *h) {
    hashChunksFree(h);
    if (h->enc == HASH_ENC_LISTPACK) {
        for (unsigned long i = 0; i < 2 * h->lplen; i++) sdsfree(h->lp[i]);
        zfree(h->lp);
    } else {
        dictRelease(h->ht);
    }
    zfree(h);
}

/* Index of field's pair in the listpack, -1 if absent. */
static long lpFind(const hashValue *h, const char *field, size_t len) {
    for (unsigned long i = 0; i < h->lplen; i++) {
        sds f = h->lp[2 * i];
        if (sdslen(f) == len && memcmp(f, field, len) == 0) return (long)i;
    }
    return -1;
}

/* The value of field, NULL if absent. */
static sds hashGet(const hashValue *h, sds field) {
    if (h->enc == HASH_ENC_LISTPACK) {
        long i = lpFind(h, field, sdslen(field));
        return i < 0 ? NULL : h->lp[2 * i + 1];
    }
    return dictFetchValue(h->ht, field);
}

/* listpack -> hashtable, keeping the pairs. */
static void hashConvertToHT(hashValue *h) {
    if (h->enc == HASH_ENC_HT) return;
    dict *d = dictCreate(&hashDictType);
    for (unsigned long i = 0; i < h->lplen; i++) dictAdd(d, h->lp[2 * i], h->lp[2 * i + 1]);
    zfree(h->lp);
    h->lp = NULL;
    h->lplen = h->lpalloc = 0;
    h->ht = d;
    h->enc = HASH_ENC_HT;
}

/* Redis's hashTypeTryConversion over argv[start..end] (field, value ...). */
static void hashTryConversion(hashValue *h, sds *argv, int start, int end) {
    if (h->enc != HASH_ENC_LISTPACK) return;
    size_t new_fields = (size_t)(end - start + 1) / 2;
    if (new_fields > (size_t)server.cfg.hash_max_listpack_entries) {
        hashConvertToHT(h);
        return;
    }
    for (int i = start; i <= end; i++) {
        if (sdslen(argv[i]) > (size_t)server.cfg.hash_max_listpack_value) {
            hashConvertToHT(h);
            return;
        }
    }
}

/* Sets field to value (both taken over). Returns 1 if the field existed
 * (updated), 0 if it was added. Converts as Redis's hashTypeSet. */
static int hashSet(hashValue *h, sds field, sds value) {
    if (h->enc == HASH_ENC_LISTPACK && (sdslen(field) > (size_t)server.cfg.hash_max_listpack_value ||
                                        sdslen(value) > (size_t)server.cfg.hash_max_listpack_value))
        hashConvertToHT(h);
    if (h->enc == HASH_ENC_LISTPACK) {
        long i = lpFind(h, field, sdslen(field));
        if (i >= 0) {
            h->bytes -= sdslen(h->lp[2 * i + 1]);
            h->bytes += sdslen(value);
            sdsfree(h->lp[2 * i + 1]);
            h->lp[2 * i + 1] = value;
            sdsfree(field);
            return 1;
        }
        if (h->lplen == h->lpalloc) {
            h->lpalloc = h->lpalloc ? h->lpalloc * 2 : 4;
            h->lp = zrealloc(h->lp, sizeof(sds) * 2 * h->lpalloc);
        }
        h->lp[2 * h->lplen] = field;
        h->lp[2 * h->lplen + 1] = value;
        h->lplen++;
        h->bytes += sdslen(field) + sdslen(value);
        if (h->lplen > (unsigned long)server.cfg.hash_max_listpack_entries) hashConvertToHT(h);
        return 0;
    }
    dictEntry *de = dictFind(h->ht, field);
    if (de) {
        h->bytes -= sdslen(de->val);
        h->bytes += sdslen(value);
        sdsfree(de->val);
        de->val = value;
        hashChunkTouch(h, field);
        sdsfree(field);
        return 1;
    }
    dictAdd(h->ht, field, value);
    h->bytes += sdslen(field) + sdslen(value);
    hashChunkTouch(h, field);
    return 0;
}

/* Removes field; 1 if it existed. */
static int hashDelete(hashValue *h, sds field) {
    if (h->enc == HASH_ENC_LISTPACK) {
        long i = lpFind(h, field, sdslen(field));
        if (i < 0) return 0;
        h->bytes -= sdslen(h->lp[2 * i]) + sdslen(h->lp[2 * i + 1]);
        sdsfree(h->lp[2 * i]);
        sdsfree(h->lp[2 * i + 1]);
        memmove(h->lp + 2 * i, h->lp + 2 * i + 2, sizeof(sds) * 2 * (h->lplen - (unsigned long)i - 1));
        h->lplen--;
        return 1;
    }
    dictEntry *de = dictFind(h->ht, field);
    if (!de) return 0;
    h->bytes -= sdslen(de->key) + sdslen(de->val);
    dictDelete(h->ht, field);
    hashChunkTouch(h, field);
    return 1;
}

/* Iteration in the representation's order. */
typedef struct hashIter {
    const hashValue *h;
    unsigned long i;  /* listpack: next pair */
    dictIterator di;  /* hashtable */
    sds field, value; /* current pair */
} hashIter;

static void hashIterInit(hashIter *it, const hashValue *h) {
    it->h = h;
    it->i = 0;
    if (h->enc == HASH_ENC_HT) dictInitIterator(&it->di, h->ht);
}

static int hashIterNext(hashIter *it) {
    if (it->h->enc == HASH_ENC_LISTPACK) {
        if (it->i >= it->h->lplen) return 0;
        it->field = it->h->lp[2 * it->i];
        it->value = it->h->lp[2 * it->i + 1];
        it->i++;
        return 1;
    }
    dictEntry *de = dictNext(&it->di);
    if (!de) return 0;
    it->field = de->key;
    it->value = de->val;
    return 1;
}

/* A random pair. The hash must not be empty. */
static void hashRandomPair(const hashValue *h, sds *field, sds *value) {
    if (h->enc == HASH_ENC_LISTPACK) {
        unsigned long i = (unsigned long)random() % h->lplen;
        *field = h->lp[2 * i];
        *value = h->lp[2 * i + 1];
    } else {
        dictEntry *de = dictGetRandomKey(h->ht);
        *field = de->key;
        *value = de->val;
    }
}

/* A copy of h in the same representation (COPY). */
static hashValue *hashDup(const hashValue *h) {
    hashValue *n = hashNew();
    n->enc = h->enc;
    n->bytes = h->bytes;
    if (h->enc == HASH_ENC_LISTPACK) {
        n->lplen = n->lpalloc = h->lplen;
        n->lp = h->lplen ? zmalloc(sizeof(sds) * 2 * h->lplen) : NULL;
        for (unsigned long i = 0; i < 2 * h->lplen; i++) n->lp[i] = sdsdup(h->lp[i]);
    } else {
        n->ht = dictCreate(&hashDictType);
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, h->ht);
        while ((de = dictNext(&it)) != NULL) dictAdd(n->ht, sdsdup(de->key), sdsdup(de->val));
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
        if (h->lp) size += zmalloc_size(h->lp);
        for (unsigned long i = 0; i < 2 * h->lplen; i++) size += sdsAllocSize(h->lp[i]);
        return size;
    }
    unsigned long n = dictSize(h->ht);
    size += sizeof(dict) + sizeof(dictEntry *) * h->ht->size;
    if (n == 0) return size;
    size_t elesize = 0;
    long long sampled = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, h->ht);
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
        out = jsonCatBytes(out, it.field, sdslen(it.field));
        out = sdscatlen(out, ",", 1);
        out = jsonCatBytes(out, it.value, sdslen(it.value));
        out = sdscatlen(out, "]", 1);
    }
    return sdscatlen(out, "]", 1);
}

/* The pairs of buckets [from, to) as "[f,v],[f,v]...". */
static sds hashChunkJSON(const hashValue *h, unsigned long from, unsigned long to) {
    sds out = sdsempty();
    for (unsigned long b = from; b < to; b++) {
        for (dictEntry *de = h->ht->table[b]; de; de = de->next) {
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
    if (h->enc != HASH_ENC_HT || h->ht->size == 0) {
        d->own = hashTypeCatJSON(d->own, o);
        return;
    }
    if (h->chunks && h->chunks_size != h->ht->size) hashChunksFree(h);
    if (!h->chunks) {
        h->nchunks = (h->ht->size + HASH_CHUNK_BUCKETS - 1) / HASH_CHUNK_BUCKETS;
        h->chunks = zcalloc(sizeof(hashChunk) * h->nchunks);
        h->chunks_size = h->ht->size;
    }
    d->own = sdscatlen(d->own, "[", 1);
    int first = 1;
    for (unsigned long i = 0; i < h->nchunks; i++) {
        hashChunk *ch = &h->chunks[i];
        if (!ch->json) {
            unsigned long from = i * HASH_CHUNK_BUCKETS;
            unsigned long to = from + HASH_CHUNK_BUCKETS;
            if (to > h->ht->size) to = h->ht->size;
            ch->json = hashChunkJSON(h, from, to);
            ch->pin = 0;
        }
        if (sdslen(ch->json) == 0) continue;
        if (!first) d->own = sdscatlen(d->own, ",", 1);
        first = 0;
        docTextRef(d, ch->json, &ch->pin);
    }
    d->own = sdscatlen(d->own, "]", 1);
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
        if (hashGet(h, field)) {
            *err = sdscatprintf(sdsempty(), "pair #%d: the field appears twice", idx);
            sdsfree(field);
            sdsfree(value);
            goto fail;
        }
        hashSet(h, field, value);
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
        created += !hashSet(h, sdsdup(c->argv[i]), sdsdup(c->argv[i + 1]));
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
    if (hashGet(h, c->argv[2])) {
        addReplyLongLong(c, 0);
        return;
    }
    hashTryConversion(h, c->argv, 2, 3);
    hashSet(h, sdsdup(c->argv[2]), sdsdup(c->argv[3]));
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, 1);
}

void hgetCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o || checkType(c, o, OBJ_HASH)) return;
    sds v = hashGet(o->ptr, c->argv[2]);
    if (v) addReplyBulk(c, v, sdslen(v));
    else addReplyNull(c);
}

void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) {
        sds v = o ? hashGet(o->ptr, c->argv[i]) : NULL;
        if (v) addReplyBulk(c, v, sdslen(v));
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
    sds v = hashGet(o->ptr, c->argv[2]);
    addReplyLongLong(c, v ? (long long)sdslen(v) : 0);
}

void hexistsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, hashGet(o->ptr, c->argv[2]) ? 1 : 0);
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
        if (flags & OBJ_HASH_KEY) addReplyBulk(c, it.field, sdslen(it.field));
        if (flags & OBJ_HASH_VALUE) addReplyBulk(c, it.value, sdslen(it.value));
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
    sds cur = hashGet(h, c->argv[2]);
    if (cur && !string2ll(cur, sdslen(cur), &value)) {
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
    hashSet(h, sdsdup(c->argv[2]), sdsfromlonglong(value));
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
    sds cur = hashGet(h, c->argv[2]);
    if (cur && !string2ld(cur, sdslen(cur), &value)) {
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
    hashSet(h, sdsdup(c->argv[2]), sdsnewlen(buf, (size_t)len));
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyBulk(c, buf, (size_t)len);
}

/* ------------------------------------------------------------------------
 * HRANDFIELD key [count [WITHVALUES]]
 * --------------------------------------------------------------------- */

static void addPairReply(client *c, sds field, sds value, int withvalues) {
    if (withvalues && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyBulk(c, field, sdslen(field));
    if (withvalues) addReplyBulk(c, value, sdslen(value));
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
    sds field, value;

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
    sds *fields = zmalloc(sizeof(sds) * size), *values = zmalloc(sizeof(sds) * size);
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
            sds tf = fields[i], tv = values[i];
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
    sds field, value;
    hashRandomPair(o->ptr, &field, &value);
    addReplyBulk(c, field, sdslen(field));
}

/* ------------------------------------------------------------------------
 * HSCAN key cursor [MATCH pattern] [COUNT count]
 * --------------------------------------------------------------------- */

typedef struct hscanData {
    const scanArgs *sa;
    sds *items;       /* field, value, ... (borrowed) */
    long count;       /* items used */
    long alloc;       /* items allocated */
    long sampled;     /* pairs visited */
} hscanData;

static void hscanPush(hscanData *d, sds field, sds value) {
    if (d->count + 2 > d->alloc) {
        d->alloc = d->alloc ? d->alloc * 2 : 32;
        d->items = zrealloc(d->items, sizeof(sds) * (size_t)d->alloc);
    }
    d->items[d->count++] = field;
    d->items[d->count++] = value;
}

static void hscanCallback(void *privdata, const dictEntry *de) {
    hscanData *d = privdata;
    d->sampled++;
    if (!scanMatches(d->sa, de->key, sdslen(de->key))) return;
    hscanPush(d, de->key, de->val);
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
            if (scanMatches(&sa, it.field, sdslen(it.field))) hscanPush(&d, it.field, it.value);
        cursor = 0;
    } else {
        long maxiterations = sa.count > LONG_MAX / 10 ? LONG_MAX : sa.count * 10;
        do {
            cursor = dictScan(h->ht, cursor, hscanCallback, &d);
        } while (cursor && maxiterations-- && d.sampled < sa.count);
    }
    addReplyArrayLen(c, 2);
    addReplyBulkSds(c, sdscatprintf(sdsempty(), "%lu", cursor));
    addReplyArrayLen(c, d.count);
    for (long j = 0; j < d.count; j++) addReplyBulk(c, d.items[j], sdslen(d.items[j]));
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
