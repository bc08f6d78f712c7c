/* persist.c -- the state document: encoding the databases as JSON at every
 * commit, and decoding + validating a document at load (persist.h,
 * docs/state-format.md).
 *
 * A document is checked completely before anything is installed: the top
 * level, every database, every key, every stream (streamFromJSON validates
 * entries, groups, consumers and PELs). The first problem found is
 * reported with the path to it, e.g.
 *
 *   databases[0].keys[3] ("jobs").stream: entry #5: IDs must be increasing
 *
 * Format 1 readers are strict: unknown fields are refused rather than
 * dropped, so that a document written by a newer casq (which would bump
 * "format" for anything an older reader cannot ignore) or edited by hand
 * never loses data silently. */
#include "persist.h"
#include "store.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "jsonutil.h"
#include "chunkseg.h"
#include "keyseg.h"
#include "segment.h"
#include "server.h"
#include "t_stream.h"


/* ========================================================================
 * Header
 * ===================================================================== */

void persistHeaderClear(persistHeader *h) {
    sdsfree(h->casq_version);
    sdsfree(h->broker.id);
    sdsfree(h->broker.address);
    memset(h, 0, sizeof(*h));
}

/* ========================================================================
 * The per-key cache
 * ===================================================================== */

typedef struct persistCacheEntry {
    uint64_t mod_seq; /* the object's mod_seq when json was made */
    uint64_t gen;     /* the encode that last used it */
    sds key;          /* the key it was written under (RENAME keeps the object) */
    long long when;   /* the expiry it was written with (-1: none) */
    sds json;         /* the whole key record: {"key":…,"type":…,…} */
} persistCacheEntry;

struct persistCache {
    dict *entries; /* robj* -> persistCacheEntry* */
    uint64_t gen;  /* encodes so far */
    size_t bytes;  /* JSON bytes held */
    long long log_refusals[PERSIST_LOG_REFUSALS]; /* commits that could
                    * not be log records, by why (INFO) */
};

static void cacheEntryFree(void *val) {
    persistCacheEntry *e = val;
    sdsfree(e->key);
    sdsfree(e->json);
    zfree(e);
}

/* Keyed by the object's address. An address can be reused by a new object
 * after the old one is freed, but never with the old mod_seq: every change
 * stamps a fresh change_seq (loading too, and it resets the cache), and
 * mod_seq 0 -- an object nobody stamped -- is never cached. */
static dictType persistCacheDictType = {dictPtrHash, dictPtrCompare, NULL, cacheEntryFree};

persistCache *persistCacheCreate(void) {
    persistCache *pc = zcalloc(sizeof(*pc));
    pc->entries = dictCreate(&persistCacheDictType);
    return pc;
}

void persistCacheReset(persistCache *pc) {
    if (!pc) return;
    dictEmpty(pc->entries);
    pc->bytes = 0;
}

void persistCacheFree(persistCache *pc) {
    if (!pc) return;
    dictRelease(pc->entries);
    zfree(pc);
}

size_t persistCacheKeys(const persistCache *pc) { return pc ? dictSize(pc->entries) : 0; }

size_t persistCacheBytes(const persistCache *pc) { return pc ? pc->bytes : 0; }

static void cacheDelete(persistCache *pc, robj *o) {
    persistCacheEntry *e = dictFetchValue(pc->entries, o);
    if (!e) return;
    pc->bytes -= sdslen(e->json);
    dictDelete(pc->entries, o);
}

/* Drops the entries of objects that were not in this encode (deleted,
 * replaced or sealed keys). They would never match again -- an object at a
 * reused address has a new mod_seq -- but hold memory. */
static void cacheSweep(persistCache *pc) {
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, pc->entries);
    while ((de = dictNext(&it)) != NULL) {
        persistCacheEntry *e = de->val;
        if (e->gen == pc->gen) continue;
        pc->bytes -= sdslen(e->json);
        dictDelete(pc->entries, de->key);
    }
}

/* ========================================================================
 * Borrowed texts (persist.h)
 * ===================================================================== */

void docTextRef(storeDoc *d, sds text, uint64_t *pin) {
    storeDocRef(d, text, sdslen(text));
    *pin = server.doc_pin;
}

int docTextPinned(uint64_t pin) { return pin && pin == server.doc_pin; }

void docTextUnpin(sds *text, uint64_t *pin) {
    if (!docTextPinned(*pin)) return;
    sds borrowed = *text;
    *text = sdsnewlen(borrowed, sdslen(borrowed));
    storeDocKeep(server.doc_pinned, borrowed);
    *pin = 0;
}

void docTextFree(sds text, uint64_t pin) {
    if (docTextPinned(pin)) storeDocKeep(server.doc_pinned, text);
    else sdsfree(text);
}

/* ========================================================================
 * Encoding
 * ===================================================================== */

/* The value's JSON into d, borrowing what the type can lend. */
static void encodeValueDirect(storeDoc *d, const objectType *ot, robj *o) {
    if (ot->docJSON) ot->docJSON(d, o);
    else d->own = ot->catJSON(d->own, o);
}

/* A key record up to its value: {"key":…,"type":…[,"expires_at_ms":…],"<type>":
 * (when: the key's expiry, -1 for none). Every inline key's record is
 * written at every commit, most from the cache below: no printf. */
static sds catKeyHead(sds out, sds key, const char *tname, long long when) {
    size_t tlen = strlen(tname);
    out = sdscatlen(out, "{\"key\":", 7);
    out = jsonCatBytes(out, key, sdslen(key));
    out = sdscatlen(out, ",\"type\":\"", 9);
    out = sdscatlen(out, tname, tlen);
    out = sdscatlen(out, "\"", 1);
    if (when != -1) {
        out = sdscatlen(out, ",\"expires_at_ms\":", 17);
        out = jsonCatI64(out, when);
    }
    out = sdscatlen(out, ",\"", 2);
    out = sdscatlen(out, tname, tlen);
    return sdscatlen(out, "\":", 2);
}

/* The cached record of o, if it is still what o, its key name and its
 * expiry would be written as. */
static persistCacheEntry *cacheLookup(const persistCache *pc, robj *o, sds key, long long when) {
    persistCacheEntry *e = dictFetchValue(pc->entries, o);
    if (!e || e->mod_seq != o->mod_seq || e->when != when || sdslen(e->key) != sdslen(key) ||
        memcmp(e->key, key, sdslen(key)) != 0)
        return NULL;
    return e;
}

/* Keeps the record just written at d->own + start as o's. */
static void cacheStore(persistCache *pc, robj *o, sds key, long long when, const char *rec, size_t len) {
    persistCacheEntry *e = dictFetchValue(pc->entries, o);
    if (!e) {
        e = zcalloc(sizeof(*e));
        dictAdd(pc->entries, o, e);
    } else {
        pc->bytes -= sdslen(e->json);
        sdsfree(e->json);
        sdsfree(e->key);
    }
    e->json = sdsnewlen(rec, len);
    e->key = sdsdup(key);
    e->when = when;
    e->mod_seq = o->mod_seq;
    e->gen = pc->gen;
    pc->bytes += len;
}

/* The whole record, the value encoded now. */
static sds catKeyRecord(sds out, sds key, const objectType *ot, robj *o, long long when) {
    out = catKeyHead(out, key, ot->name, when);
    out = ot->catJSON(out, o);
    return sdscatlen(out, "}", 1);
}

/* The record written whole, not cached. */
static void encodeKeyDirect(storeDoc *d, sds key, const objectType *ot, robj *o, long long when) {
    d->own = catKeyHead(d->own, key, ot->name, when);
    encodeValueDirect(d, ot, o);
    d->own = sdscatlen(d->own, "}", 1);
}

/* Appends the record of key (value o) to the document: from the cache when
 * neither the value, nor the key's name, nor its expiry changed since it
 * was cached; a big value as its type writes it (a stream's entries
 * borrowed from its nodes, not copied), and a big list or sorted set
 * noted, since its quiet chunks may be sealed. */
static void encodeKey(storeDoc *d, redisDb *db, sds key, robj *o, persistCache *pc, size_t *used) {
    const objectType *ot = objectTypeGet(o->type);
    long long when = getExpire(db, key);
    if (!pc || o->mod_seq == 0) {
        encodeKeyDirect(d, key, ot, o, when);
        return;
    }
    /* Asked first: a value can change its JSON without a new mod_seq (a
     * stream whose entries were sealed into a segment), and it then says
     * it is not to be cached. */
    if (ot->jsonBytes(o) > PERSIST_CACHE_MAX_VALUE) {
        cacheDelete(pc, o);
        encodeKeyDirect(d, key, ot, o, when);
        if (ot->sealChunks) chunksegNoteBig(db, key);
        return;
    }
    persistCacheEntry *e = cacheLookup(pc, o, key, when);
    if (e) {
        e->gen = pc->gen;
        (*used)++;
        d->own = sdscatlen(d->own, e->json, sdslen(e->json));
        return;
    }
    size_t start = sdslen(d->own);
    d->own = catKeyRecord(d->own, key, ot, o, when);
    size_t len = sdslen(d->own) - start;
    chunksegUnsealValue(o); /* written whole: no chunk of it is referenced */
    if (len > PERSIST_CACHE_MAX_VALUE) {
        cacheDelete(pc, o);
        return;
    }
    cacheStore(pc, o, key, when, d->own + start, len);
    (*used)++;
}

sds persistCatKey(sds out, redisDb *db, sds key, robj *o, const persistCache *pc) {
    long long when = getExpire(db, key);
    /* A key sealed for being quiet was inline until now: its record was
     * written by the last commits. */
    const persistCacheEntry *e = pc && o->mod_seq ? cacheLookup(pc, o, key, when) : NULL;
    if (e) return sdscatlen(out, e->json, sdslen(e->json));
    return catKeyRecord(out, key, objectTypeGet(o->type), o, when);
}

sds persistCatHeader(sds out, const persistHeader *h) {
    out = sdscatlen(out, "{\"format\":", 10);
    out = jsonCatI64(out, PERSIST_FORMAT);
    out = sdscatlen(out, ",\"casq_version\":", 16);
    out = jsonCatString(out, CASQ_VERSION, strlen(CASQ_VERSION));
    out = sdscatlen(out, ",\"commit_seq\":", 14);
    out = jsonCatU64(out, h->commit_seq);
    out = sdscatlen(out, ",\"written_at_ms\":", 17);
    out = jsonCatI64(out, h->written_at_ms);
    out = sdscatlen(out, ",\"broker\":", 10);
    if (h->broker.id) {
        out = sdscatlen(out, "{\"id\":", 6);
        out = jsonCatBytes(out, h->broker.id, sdslen(h->broker.id));
        out = sdscatlen(out, ",\"address\":", 11);
        if (h->broker.address) out = jsonCatBytes(out, h->broker.address, sdslen(h->broker.address));
        else out = sdscatlen(out, "\"\"", 2);
        out = sdscatlen(out, ",\"epoch\":", 9);
        out = jsonCatU64(out, h->broker.epoch);
        out = sdscatlen(out, "}", 1);
    } else {
        out = sdscatlen(out, "null", 4);
    }
    return out;
}

/* Encodes with every key inline and no key segment named (--export-state). */
static int encode_inline_all;

/* One key per line: `jq` does not care, people using grep or diff do. */
void persistEncode(storeDoc *d, const persistHeader *h, persistCache *pc) {
    size_t used = 0;
    if (pc) pc->gen++;
    d->own = sdscatlen(persistCatHeader(d->own, h), ",\"databases\":[", 14);
    int firstdb = 1;
    for (int j = 0; j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        if (dictSize(db->keys) == 0) continue;
        d->own = sdscatlen(d->own, firstdb ? "\n{\"id\":" : ",\n{\"id\":", firstdb ? 7 : 8);
        d->own = jsonCatI64(d->own, j);
        d->own = sdscatlen(d->own, ",\"keys\":[", 9);
        firstdb = 0;
        int firstkey = 1;
        /* The keys sealed in key segments are named by their segments'
         * records, not written again (keyseg.h). */
        int segs = listLength(db->keysegs) && !encode_inline_all;
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, segs ? db->inline_keys : db->keys);
        while ((de = dictNext(&it)) != NULL) {
            d->own = sdscatlen(d->own, firstkey ? "\n" : ",\n", firstkey ? 1 : 2);
            firstkey = 0;
            encodeKey(d, db, de->key, de->val, pc, &used);
        }
        d->own = sdscatlen(d->own, "\n]", 2);
        if (segs) {
            d->own = sdscatlen(d->own, ",\"segments\":", 12);
            d->own = keysegCatRecords(d->own, db);
        }
        d->own = sdscatlen(d->own, "}", 1);
    }
    d->own = sdscatlen(d->own, firstdb ? "]" : "\n]", firstdb ? 1 : 2);
    if (chunksegAny()) {
        d->own = sdscatlen(d->own, ",\"chunk_segments\":", 18);
        d->own = chunksegCatRecords(d->own);
    }
    if (functionsCount()) {
        d->own = sdscatlen(d->own, ",\"functions\":", 13);
        d->own = functionsCatRecords(d->own);
    }
    d->own = sdscatlen(d->own, "}\n", 2);
    storeDocSeal(d);
    /* Entries of freed objects never match again (a new object at the same
     * address has a new mod_seq): swept when they are as many as the used
     * ones, not at every encode -- a SET replaces its key's object. */
    if (pc && dictSize(pc->entries) > 2 * used + 64) cacheSweep(pc);
}

/* ========================================================================
 * Decoding
 * ===================================================================== */

typedef struct persistKey {
    int dbid;       /* database index */
    sds key;        /* key name */
    int type;       /* OBJ_* of the value */
    void *value;    /* the value, as its type module represents it */
    long long when; /* expiry, unix ms */
    int has_ttl;    /* when is set */
    long seg;       /* index in persistState.segs of the key segment its
                     * value came from, -1 if inline */
    int replayed;   /* its value is a commit log record's: not its key
                     * segment's any more (persistInstall) */
    int deleted;    /* removed by a commit log record */
} persistKey;

/* A key segment record of the root, checked against its segment. */
typedef struct persistKeySeg {
    int dbid;       /* the database naming it */
    sds name;       /* the segment */
    uint64_t count; /* keys written in it */
    uint64_t bytes; /* its size */
    uint32_t crc;   /* its CRC-32 */
    sds gone;       /* the root's gone list, re-encoded (keyseg.h) */
    uint64_t ngone; /* its length */
    sds names;      /* the live keys (keyseg.h) */
} persistKeySeg;

/* A chunk segment record of the root, checked against its segment. */
typedef struct persistChunkSeg {
    sds name;               /* the segment */
    uint64_t count;         /* chunks written in it */
    uint64_t bytes;         /* its size */
    uint32_t crc;           /* its CRC-32 */
    cJSON *doc;             /* the segment, parsed */
    const cJSON **chunks;   /* chunks[part]: its items (a JSON array) */
    unsigned char *state;   /* per part: PART_LIVE, PART_GONE, PART_USED */
} persistChunkSeg;

#define PART_LIVE 0 /* not referenced yet */
#define PART_GONE 1 /* in the record's gone list */
#define PART_USED 2 /* referenced by a value */

/* A loaded chunk that holds exactly a sealed part (chunkseg.h). */
typedef struct persistChunkTok {
    size_t seg;    /* index in persistState.csegs */
    uint32_t part; /* the part */
    chunkRef *ref; /* the chunk's; NULL once its value was replaced */
    size_t key;    /* index in persistState.keys of the value */
} persistChunkTok;

struct persistState {
    persistKey *keys;     /* every key of every database */
    size_t count;         /* keys used */
    size_t alloc;         /* keys allocated */
    persistKeySeg *segs;  /* every key segment named */
    size_t nsegs;         /* used */
    size_t segs_alloc;    /* allocated */
    persistChunkSeg *csegs; /* every chunk segment named */
    size_t ncsegs;        /* how many */
    persistChunkTok *toks; /* loaded chunks aligned to their parts */
    size_t ntoks, toks_alloc; /* used, allocated */
    void *functions;       /* the FUNCTION libraries, compiled (functions.c) */
};

static int failf(sds *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(sds *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    *err = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    return C_ERR;
}

/* `where` + a quoted, escaped, shortened key name, for messages. */
static sds describeKey(const char *where, size_t index, const sds key) {
    sds d = sdscatprintf(sdsempty(), "%s.keys[%zu]", where, index);
    if (!key) return d;
    d = sdscat(d, " (");
    d = sdscatrepr(d, key, sdslen(key) > 64 ? 64 : sdslen(key));
    if (sdslen(key) > 64) d = sdscat(d, "...");
    return sdscat(d, ")");
}

/* Prefixes a reader's message with where it happened. */
static int failAt(sds *err, const char *where, sds msg) {
    *err = sdscatprintf(sdsempty(), "%s: %s", where, msg);
    sdsfree(msg);
    return C_ERR;
}

/* Line and column (1-based) of byte offset off. */
static void lineAndColumn(const char *data, size_t off, size_t *line, size_t *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (data[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Offset of a \u0000 escape inside a JSON string, or -1. cJSON keeps
 * strings NUL-terminated, so such a string would silently lose its tail;
 * format 1 never writes one (bytes with NUL are base64). An escape is a
 * backslash preceded by an even number of backslashes. */
static long long findEscapedNul(const char *data, size_t len) {
    const char *p = data, *end = data + len;
    while ((p = memmem(p, (size_t)(end - p), "\\u0000", 6)) != NULL) {
        size_t run = 0;
        while (p - run > data && p[-(long)run - 1] == '\\') run++;
        if (run % 2 == 0) return (long long)(p - data);
        p += 6;
    }
    return -1;
}

static int isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether data, which cJSON refused, is a prefix of some valid JSON text:
 * scanning it structurally (strings with their escapes, brackets) finds no
 * mismatch before the input ends inside an open string or container. Then
 * the document was cut short -- a truncated write, a full disk -- which
 * deserves its own message. *bad is set to the first mismatch, if any. */
static int looksTruncated(const char *data, size_t len, size_t *bad) {
    char stack[CJSON_NESTING_LIMIT + 1];
    size_t depth = 0;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = 0;
            continue;
        }
        if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            if (depth == sizeof(stack)) return 0;
            stack[depth++] = c;
        } else if (c == '}' || c == ']') {
            if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) {
                *bad = i;
                return 0;
            }
            depth--;
        }
    }
    return in_string || depth > 0;
}

int persistTextEmpty(const char *data, size_t len) {
    size_t i = 0;
    while (i < len && isJsonSpace(data[i])) i++;
    return i == len;
}

int persistTextCutShort(const char *data, size_t len) {
    size_t bad = (size_t)-1;
    return looksTruncated(data, len, &bad);
}

/* Parses data as one JSON value (nothing but whitespace around it). */
static cJSON *parseJson(const char *data, size_t len, sds *err) {
    size_t i = 0;
    while (i < len && isJsonSpace(data[i])) i++;
    if (len == 0) {
        failf(err, "the document is empty (0 bytes)");
        return NULL;
    }
    if (i == len) {
        failf(err, "the document is empty (%zu bytes of whitespace)", len);
        return NULL;
    }
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        failf(err, "byte %zu is a NUL byte: not JSON text", (size_t)(nul - data));
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!root) {
        size_t off = end && end >= data && end <= data + len ? (size_t)(end - data) : len;
        size_t bad = (size_t)-1;
        if (looksTruncated(data, len, &bad)) {
            failf(err, "the document is truncated: the JSON ends unexpectedly after %zu bytes", len);
        } else {
            if (bad != (size_t)-1 && bad < off) off = bad;
            size_t line, col;
            lineAndColumn(data, off, &line, &col);
            failf(err, "invalid JSON at byte %zu (line %zu, column %zu)", off, line, col);
        }
        return NULL;
    }
    size_t off = (size_t)(end - data);
    while (off < len && isJsonSpace(data[off])) off++;
    if (off != len) {
        cJSON_Delete(root);
        size_t line, col;
        lineAndColumn(data, off, &line, &col);
        failf(err, "unexpected data after the JSON document at byte %zu (line %zu, column %zu)", off, line, col);
        return NULL;
    }
    long long esc = findEscapedNul(data, len);
    if (esc >= 0) {
        cJSON_Delete(root);
        failf(err, "byte %lld: a \\u0000 escape in a string (format %d writes strings holding NUL bytes as "
                   "{\"base64\": ...})",
              esc, PERSIST_FORMAT);
        return NULL;
    }
    return root;
}

static void stateAdd(persistState *ps, int dbid, sds key, int type, void *value, long long when, int has_ttl) {
    if (ps->count == ps->alloc) {
        ps->alloc = ps->alloc ? ps->alloc * 2 : 64;
        ps->keys = zrealloc(ps->keys, sizeof(persistKey) * ps->alloc);
    }
    persistKey *k = &ps->keys[ps->count++];
    k->dbid = dbid;
    k->key = key;
    k->type = type;
    k->value = value;
    k->when = when;
    k->has_ttl = has_ttl;
    k->seg = -1;
    k->replayed = 0;
    k->deleted = 0;
}

static int decodeHeader(const cJSON *root, persistHeader *h, int *format_out, sds *err) {
    static const char *const fields[] = {"format", "casq_version", "commit_seq", "written_at_ms", "broker",
                                         "databases", "chunk_segments", "functions", NULL};
    sds msg = NULL;
    /* The format first: a newer document must be refused as such, not for
     * whatever else in it this version does not understand. */
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!fmt) return failf(err, "no \"format\" field: this is not a casq state document");
    uint64_t format;
    if (jsonGetU64(fmt, &format, "format", &msg) != C_OK) return failAt(err, "top level", msg);
    if (format < PERSIST_FORMAT_OLDEST || format > PERSIST_FORMAT)
        return failf(err, "unsupported format %llu (this casq %s reads formats %d to %d)",
                     (unsigned long long)format, CASQ_VERSION, PERSIST_FORMAT_OLDEST, PERSIST_FORMAT);
    *format_out = (int)format;
    if (jsonCheckFields(root, fields, "top level", err) != C_OK) return C_ERR;

    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "casq_version");
    if (item) {
        if (!cJSON_IsString(item)) return failf(err, "casq_version: expected a string");
        h->casq_version = sdsnew(item->valuestring);
    }
    item = cJSON_GetObjectItemCaseSensitive(root, "commit_seq");
    if (item && jsonGetU64(item, &h->commit_seq, "commit_seq", &msg) != C_OK) return failAt(err, "top level", msg);
    item = cJSON_GetObjectItemCaseSensitive(root, "written_at_ms");
    int64_t written = 0;
    if (item && jsonGetI64(item, &written, "written_at_ms", &msg) != C_OK) return failAt(err, "top level", msg);
    h->written_at_ms = written;

    const cJSON *broker = cJSON_GetObjectItemCaseSensitive(root, "broker");
    if (broker && !cJSON_IsNull(broker)) {
        static const char *const bfields[] = {"id", "address", "epoch", NULL};
        if (!cJSON_IsObject(broker)) return failf(err, "broker: expected an object or null");
        if (jsonCheckFields(broker, bfields, "broker", err) != C_OK) return C_ERR;
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(broker, "id");
        const cJSON *addr = cJSON_GetObjectItemCaseSensitive(broker, "address");
        /* Plain text only: casq writes them back as JSON strings, and a
         * value it would have to write otherwise ({"base64": ...}) would
         * make it refuse its own next document. */
        if (!cJSON_IsString(id) || !id->valuestring[0] ||
            !jsonIsPlainText((const unsigned char *)id->valuestring, strlen(id->valuestring)))
            return failf(err, "broker.id: expected a non-empty string of plain text");
        if (!cJSON_IsString(addr) ||
            !jsonIsPlainText((const unsigned char *)addr->valuestring, strlen(addr->valuestring)))
            return failf(err, "broker.address: expected a string of plain text");
        if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(broker, "epoch"), &h->broker.epoch, "epoch", &msg) != C_OK)
            return failAt(err, "broker", msg);
        h->broker.id = sdsnew(id->valuestring);
        h->broker.address = sdsnew(addr->valuestring);
    }
    return C_OK;
}

/* The fields a key or chunk segment record shares: {"name", "count",
 * "bytes", "crc32", "live_count", "gone"} (gone is the caller's). */
static int segRecordFields(const cJSON *rec, const char *where, sds *name_out, uint64_t *count, uint64_t *bytes,
                           uint32_t *crc_out, uint64_t *live, sds *err) {
    static const char *const fields[] = {"name", "count", "bytes", "crc32", "live_count", "gone", NULL};
    sds msg = NULL;
    if (!cJSON_IsObject(rec)) return failf(err, "%s: expected an object", where);
    if (jsonCheckFields(rec, fields, where, err) != C_OK) return C_ERR;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec, "name");
    if (!cJSON_IsString(name) || !segmentNameValid(name->valuestring, strlen(name->valuestring)))
        return failf(err, "%s: \"name\" must be a segment name ([A-Za-z0-9._-], at most 128)", where);
    *name_out = sdsnew(name->valuestring);
    uint64_t crc;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "count"), count, "count", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "bytes"), bytes, "bytes", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "crc32"), &crc, "crc32", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "live_count"), live, "live_count", &msg) != C_OK)
        return failAt(err, where, msg);
    if (crc > UINT32_MAX || *count == 0 || *count > UINT32_MAX) return failf(err, "%s: bad crc32 or count", where);
    *crc_out = (uint32_t)crc;
    return C_OK;
}

/* ------------------------------------------------------------------------
 * Chunk segments (chunkseg.h)
 * --------------------------------------------------------------------- */

/* Whether a list's or sorted set's items name sealed chunks. */
static int hasChunkRefs(const cJSON *value) {
    if (!cJSON_IsArray(value)) return 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, value) {
        if (cJSON_IsObject(item) && cJSON_GetObjectItemCaseSensitive(item, "segment")) return 1;
    }
    return 0;
}

static persistChunkSeg *chunkSegByName(persistState *ps, const char *name, size_t *idx) {
    for (size_t i = 0; i < ps->ncsegs; i++) {
        if (strcmp(ps->csegs[i].name, name)) continue;
        *idx = i;
        return &ps->csegs[i];
    }
    return NULL;
}

/* The reference {"segment", "from", "to"}: its parts' items appended to
 * out (their boundaries to parts), each part marked used. */
static int expandChunkRef(persistState *ps, const cJSON *ref, cJSON *out, size_t *index, chunkLoadPart **parts,
                          size_t *nparts, size_t *alloc, sds *err) {
    static const char *const fields[] = {"segment", "from", "to", NULL};
    sds msg = NULL;
    if (jsonCheckFields(ref, fields, "a chunk reference", err) != C_OK) return C_ERR;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(ref, "segment");
    uint64_t from, to;
    if (!cJSON_IsString(name)) return failf(err, "a chunk reference: \"segment\" must be a string");
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(ref, "from"), &from, "from", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(ref, "to"), &to, "to", &msg) != C_OK)
        return failAt(err, "a chunk reference", msg);
    size_t segidx;
    persistChunkSeg *cs = chunkSegByName(ps, name->valuestring, &segidx);
    if (!cs) return failf(err, "chunk segment %.128s is not in the root's chunk_segments", name->valuestring);
    if (from > to || to >= cs->count)
        return failf(err, "chunks %llu to %llu of %s: the segment holds %llu", (unsigned long long)from,
                     (unsigned long long)to, cs->name, (unsigned long long)cs->count);
    for (uint64_t part = from; part <= to; part++) {
        if (cs->state[part] != PART_LIVE)
            return failf(err, "chunk %llu of %s is %s", (unsigned long long)part, cs->name,
                         cs->state[part] == PART_GONE ? "listed as gone" : "referenced twice");
        cs->state[part] = PART_USED;
        if (*nparts == *alloc) {
            *alloc = *alloc ? *alloc * 2 : 16;
            *parts = zrealloc(*parts, sizeof(**parts) * *alloc);
        }
        chunkLoadPart *p = &(*parts)[(*nparts)++];
        p->start = *index;
        p->count = (size_t)cJSON_GetArraySize(cs->chunks[part]);
        p->seg = (long)segidx;
        p->part = (uint32_t)part;
        p->ref = NULL;
        const cJSON *item;
        cJSON_ArrayForEach(item, cs->chunks[part]) {
            cJSON_AddItemToArray(out, cJSON_Duplicate(item, 1));
            (*index)++;
        }
    }
    return C_OK;
}

/* The value with its references replaced by the chunks' items. */
static int expandChunkRefs(persistState *ps, const cJSON *value, cJSON **out, chunkLoadPart **parts, size_t *nparts,
                           sds *err) {
    size_t index = 0, alloc = 0;
    *out = cJSON_CreateArray();
    const cJSON *item;
    cJSON_ArrayForEach(item, value) {
        if (cJSON_IsObject(item) && cJSON_GetObjectItemCaseSensitive(item, "segment")) {
            if (expandChunkRef(ps, item, *out, &index, parts, nparts, &alloc, err) != C_OK) {
                cJSON_Delete(*out);
                *out = NULL;
                return C_ERR;
            }
            continue;
        }
        cJSON_AddItemToArray(*out, cJSON_Duplicate(item, 1));
        index++;
    }
    return C_OK;
}

/* The parts the built value's chunks hold exactly, for persistInstall. */
static void keepChunkToks(persistState *ps, const chunkLoadPart *parts, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!parts[i].ref) continue;
        if (ps->ntoks == ps->toks_alloc) {
            ps->toks_alloc = ps->toks_alloc ? ps->toks_alloc * 2 : 64;
            ps->toks = zrealloc(ps->toks, sizeof(*ps->toks) * ps->toks_alloc);
        }
        persistChunkTok *t = &ps->toks[ps->ntoks++];
        t->seg = (size_t)parts[i].seg;
        t->part = parts[i].part;
        t->ref = parts[i].ref;
        t->key = ps->count; /* the key about to be added */
    }
}

/* The segment's text checked against its record and parsed. */
static int chunkSegText(persistChunkSeg *cs, const char *where, sds *err) {
    const char *data;
    size_t len;
    if (!segmentSourceGet(cs->name, &data, &len))
        return failf(err, "%s: segment %s is missing from the store", where, cs->name);
    if (len != cs->bytes || streamSegmentCRC(data, len) != cs->crc)
        return failf(err, "%s: segment %s is corrupt: %zu bytes with CRC-32 %u, the root records %llu bytes with "
                     "CRC-32 %u", where, cs->name, len, streamSegmentCRC(data, len),
                     (unsigned long long)cs->bytes, cs->crc);
    cs->doc = cJSON_ParseWithLength(data, len);
    static const char *const fields[] = {"format", "segment", "chunks", "count", NULL};
    if (!cJSON_IsObject(cs->doc)) return failf(err, "%s: the segment is not a JSON object", where);
    if (jsonCheckFields(cs->doc, fields, where, err) != C_OK) return C_ERR;
    const cJSON *segname = cJSON_GetObjectItemCaseSensitive(cs->doc, "segment");
    const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(cs->doc, "chunks");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(cs->doc, "count");
    if (!cJSON_IsString(segname) || strcmp(segname->valuestring, cs->name) || !cJSON_IsArray(chunks) ||
        !cJSON_IsNumber(count) || (uint64_t)cJSON_GetArraySize(chunks) != cs->count ||
        count->valuedouble != (double)cs->count)
        return failf(err, "%s: the segment's name, chunks or count do not match the root's record", where);
    cs->chunks = zcalloc(sizeof(cJSON *) * cs->count);
    size_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, chunks) {
        if (!cJSON_IsArray(c) || !c->child)
            return failf(err, "%s.chunks[%zu]: expected a non-empty array of items", where, i);
        cs->chunks[i++] = c;
    }
    return C_OK;
}

/* One record of the root's "chunk_segments". */
static int decodeChunkSegment(persistChunkSeg *cs, const cJSON *rec, size_t index, sds *err) {
    char where[64];
    snprintf(where, sizeof(where), "chunk_segments[%zu]", index);
    sds msg = NULL;
    uint64_t live;
    if (segRecordFields(rec, where, &cs->name, &cs->count, &cs->bytes, &cs->crc, &live, err) != C_OK) return C_ERR;
    const cJSON *gone = cJSON_GetObjectItemCaseSensitive(rec, "gone");
    if (!cJSON_IsArray(gone)) return failf(err, "%s: \"gone\" must be an array", where);
    if (chunkSegText(cs, where, err) != C_OK) return C_ERR;
    cs->state = zcalloc(cs->count);
    uint64_t ngone = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, gone) {
        uint64_t part;
        if (jsonGetU64(item, &part, "gone", &msg) != C_OK) return failAt(err, where, msg);
        if (part >= cs->count || cs->state[part] == PART_GONE)
            return failf(err, "%s (%s): \"gone\" lists chunk %llu twice or out of range", where, cs->name,
                         (unsigned long long)part);
        cs->state[part] = PART_GONE;
        ngone++;
    }
    if (live != cs->count - ngone || live == 0)
        return failf(err, "%s (%s): live_count is %llu, the segment holds %llu chunks of which %llu are gone", where,
                     cs->name, (unsigned long long)live, (unsigned long long)cs->count, (unsigned long long)ngone);
    return C_OK;
}

static int decodeChunkSegments(persistState *ps, const cJSON *root, int format, sds *err) {
    const cJSON *recs = cJSON_GetObjectItemCaseSensitive(root, "chunk_segments");
    if (!recs) return C_OK;
    if (format < 2 || !cJSON_IsArray(recs)) return failf(err, "chunk_segments: expected an array (format 2)");
    int n = cJSON_GetArraySize(recs);
    ps->csegs = zcalloc(sizeof(*ps->csegs) * (size_t)(n ? n : 1));
    const cJSON *rec;
    cJSON_ArrayForEach(rec, recs) {
        persistChunkSeg *cs = &ps->csegs[ps->ncsegs];
        size_t dup;
        if (decodeChunkSegment(cs, rec, ps->ncsegs++, err) != C_OK) return C_ERR;
        if (chunkSegByName(ps, cs->name, &dup) != cs)
            return failf(err, "chunk_segments: segment %s is listed twice", cs->name);
    }
    return C_OK;
}

static int decodeKey(persistState *ps, const cJSON *k, int dbid, dict *seen, const char *where, size_t index,
                     int format, sds *err) {
    sds msg = NULL, key = NULL, desc = describeKey(where, index, NULL);
    int ret = C_ERR;
    if (!cJSON_IsObject(k)) {
        failf(err, "%s: expected an object", desc);
        goto done;
    }
    if (jsonGetBytes(cJSON_GetObjectItemCaseSensitive(k, "key"), &key, "key", &msg) != C_OK) {
        failAt(err, desc, msg);
        goto done;
    }
    sdsfree(desc);
    desc = describeKey(where, index, key);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(k, "type");
    if (!cJSON_IsString(type)) {
        failf(err, "%s: type: expected a string", desc);
        goto done;
    }
    /* Format 1 holds streams only; format 2 every type casq knows. */
    const objectType *ot = objectTypeByName(type->valuestring);
    if (!ot || (format == 1 && ot->type != OBJ_STREAM)) {
        failf(err, "%s: type \"%.32s\" is not supported in format %d", desc, type->valuestring, format);
        goto done;
    }
    /* The value's field is named after its type: "stream", "hash" ... */
    const char *const fields[] = {"key", "type", "expires_at_ms", ot->name, NULL};
    if (jsonCheckFields(k, fields, desc, err) != C_OK) goto done;
    int64_t when = 0;
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(k, "expires_at_ms");
    if (exp && jsonGetI64(exp, &when, "expires_at_ms", &msg) != C_OK) {
        failAt(err, desc, msg);
        goto done;
    }
    /* EXPIRE and friends delete a key whose time is in the past, so a
     * stored expiry is never negative (and -1 would read as "no TTL"). */
    if (exp && when < 0) {
        failf(err, "%s: expires_at_ms is negative", desc);
        goto done;
    }
    if (dictFind(seen, key)) {
        failf(err, "%s: the key appears twice in database %d", desc, dbid);
        goto done;
    }
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(k, ot->name);
    if (!value) {
        failf(err, "%s: no \"%s\" field", desc, ot->name);
        goto done;
    }
    cJSON *expanded = NULL;
    chunkLoadPart *parts = NULL;
    size_t nparts = 0;
    if (ot->sealChunks && hasChunkRefs(value)) {
        if (expandChunkRefs(ps, value, &expanded, &parts, &nparts, &msg) != C_OK) {
            desc = sdscatprintf(desc, ".%s", ot->name);
            failAt(err, desc, msg);
            goto done;
        }
        value = expanded;
    }
    chunkLoadBegin(parts, nparts);
    void *v = ot->fromJSON(value, &msg);
    chunkLoadEnd();
    cJSON_Delete(expanded);
    if (v) keepChunkToks(ps, parts, nparts);
    zfree(parts);
    if (!v) {
        desc = sdscatprintf(desc, ".%s", ot->name);
        failAt(err, desc, msg);
        goto done;
    }
    dictAdd(seen, sdsdup(key), NULL);
    stateAdd(ps, dbid, key, ot->type, v, when, exp != NULL);
    key = NULL;
    ret = C_OK;
done:
    sdsfree(key);
    sdsfree(desc);
    return ret;
}

/* ------------------------------------------------------------------------
 * Key segments (keyseg.h)
 * --------------------------------------------------------------------- */

/* The fields of the record; the segment's text checked against them. */
static int keySegRecord(const cJSON *rec, const char *where, persistKeySeg *ks, const char **data, size_t *len,
                        uint64_t *live, sds *err) {
    if (segRecordFields(rec, where, &ks->name, &ks->count, &ks->bytes, &ks->crc, live, err) != C_OK) return C_ERR;
    if (!segmentSourceGet(ks->name, data, len))
        return failf(err, "%s: segment %s is missing from the store", where, ks->name);
    if (*len != ks->bytes || streamSegmentCRC(*data, *len) != ks->crc)
        return failf(err, "%s: segment %s is corrupt: %zu bytes with CRC-32 %u, the root records %llu bytes with "
                     "CRC-32 %u", where, ks->name, *len, streamSegmentCRC(*data, *len),
                     (unsigned long long)ks->bytes, ks->crc);
    return C_OK;
}

/* The gone list into a set (each name once) and the record's re-encoding. */
static int keySegGone(const cJSON *rec, const char *where, persistKeySeg *ks, dict *gone, sds *err) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(rec, "gone");
    if (!cJSON_IsArray(list)) return failf(err, "%s: \"gone\" must be an array", where);
    const cJSON *item;
    cJSON_ArrayForEach(item, list) {
        sds key = NULL, msg = NULL;
        if (jsonGetBytes(item, &key, "gone", &msg) != C_OK) return failAt(err, where, msg);
        if (!dictAdd(gone, key, NULL)) {
            sdsfree(key);
            return failf(err, "%s: a key is listed twice in \"gone\"", where);
        }
        if (ks->ngone++) ks->gone = sdscatlen(ks->gone, ",", 1);
        ks->gone = jsonCatBytes(ks->gone, key, sdslen(key));
    }
    return C_OK;
}

static int decodeKey(persistState *ps, const cJSON *k, int dbid, dict *seen, const char *where, size_t index,
                     int format, sds *err);

/* The live keys of one key segment into ps; gone ones are checked to be
 * in it and skipped. */
static int decodeKeySegment(persistState *ps, const cJSON *rec, int dbid, dict *seen, const char *dbwhere,
                            size_t index, sds *err) {
    sds where = sdscatprintf(sdsempty(), "%s.segments[%zu]", dbwhere, index);
    if (ps->nsegs == ps->segs_alloc) {
        ps->segs_alloc = ps->segs_alloc ? ps->segs_alloc * 2 : 8;
        ps->segs = zrealloc(ps->segs, sizeof(*ps->segs) * ps->segs_alloc);
    }
    long segidx = (long)ps->nsegs;
    persistKeySeg *ks = &ps->segs[ps->nsegs++];
    memset(ks, 0, sizeof(*ks));
    ks->dbid = dbid;
    ks->gone = sdsempty();
    ks->names = sdsempty();
    dict *gone = dictCreate(&sdsKeyDictType);
    cJSON *doc = NULL;
    const char *data;
    size_t len;
    uint64_t live, found_gone = 0, n = 0;
    int ret = C_ERR;
    if (keySegRecord(rec, where, ks, &data, &len, &live, err) != C_OK) goto done;
    where = sdscatprintf(where, " (%s)", ks->name);
    if (keySegGone(rec, where, ks, gone, err) != C_OK) goto done;
    doc = cJSON_ParseWithLength(data, len);
    static const char *const fields[] = {"format", "segment", "keys", "count", NULL};
    if (!cJSON_IsObject(doc)) {
        failf(err, "%s: the segment is not a JSON object", where);
        goto done;
    }
    if (jsonCheckFields(doc, fields, where, err) != C_OK) goto done;
    const cJSON *segname = cJSON_GetObjectItemCaseSensitive(doc, "segment");
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(doc, "keys");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(doc, "count");
    if (!cJSON_IsString(segname) || strcmp(segname->valuestring, ks->name) || !cJSON_IsArray(keys) ||
        !cJSON_IsNumber(count) || (uint64_t)cJSON_GetArraySize(keys) != ks->count ||
        count->valuedouble != (double)ks->count) {
        failf(err, "%s: the segment's name, keys or count do not match the root's record", where);
        goto done;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, keys) {
        sds key = NULL, msg = NULL;
        if (!cJSON_IsObject(item) ||
            jsonGetBytes(cJSON_GetObjectItemCaseSensitive(item, "key"), &key, "key", &msg) != C_OK) {
            sdsfree(msg);
            failf(err, "%s.keys[%llu]: expected a key record", where, (unsigned long long)n);
            goto done;
        }
        dictEntry *de = dictFind(gone, key);
        if (de) {
            sdsfree(key);
            if (de->val) {
                failf(err, "%s.keys[%llu]: the key appears twice in the segment", where, (unsigned long long)n);
                goto done;
            }
            de->val = (void *)1;
            found_gone++;
            n++;
            continue;
        }
        if (decodeKey(ps, item, dbid, seen, where, n, 2, err) != C_OK) {
            sdsfree(key);
            goto done;
        }
        persistKey *pk = &ps->keys[ps->count - 1];
        if (pk->type == OBJ_STREAM) {
            sdsfree(key);
            failf(err, "%s.keys[%llu]: a stream cannot be in a key segment", where, (unsigned long long)n);
            goto done;
        }
        pk->seg = segidx;
        ks->names = keysegNamesAdd(ks->names, key, sdslen(key));
        sdsfree(key);
        n++;
    }
    if (found_gone != ks->ngone) {
        failf(err, "%s: \"gone\" names a key the segment does not hold", where);
        goto done;
    }
    if (live != ks->count - ks->ngone || live == 0) {
        failf(err, "%s: live_count is %llu, the segment holds %llu keys of which %llu are gone", where,
              (unsigned long long)live, (unsigned long long)ks->count, (unsigned long long)ks->ngone);
        goto done;
    }
    ret = C_OK;
done:
    cJSON_Delete(doc);
    dictRelease(gone);
    sdsfree(where);
    return ret;
}

static int decodeDatabase(persistState *ps, const cJSON *d, size_t index, int *dbseen, int format, sds *err) {
    static const char *const fields[] = {"id", "keys", "segments", NULL};
    sds msg = NULL;
    char where[64];
    snprintf(where, sizeof(where), "databases[%zu]", index);
    if (!cJSON_IsObject(d)) return failf(err, "%s: expected an object", where);
    if (jsonCheckFields(d, fields, where, err) != C_OK) return C_ERR;
    uint64_t id;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(d, "id"), &id, "id", &msg) != C_OK) return failAt(err, where, msg);
    if (id >= (uint64_t)server.cfg.databases)
        return failf(err, "%s: database %llu does not exist on this server (databases is %d)", where,
                     (unsigned long long)id, server.cfg.databases);
    if (dbseen[id]) return failf(err, "%s: database %llu is listed twice", where, (unsigned long long)id);
    dbseen[id] = 1;
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(d, "keys");
    if (!cJSON_IsArray(keys)) return failf(err, "%s: keys: expected an array", where);

    dict *seen = dictCreate(&sdsKeyDictType);
    size_t k = 0;
    const cJSON *item;
    int ret = C_OK;
    cJSON_ArrayForEach(item, keys) {
        if (decodeKey(ps, item, (int)id, seen, where, k++, format, err) != C_OK) {
            ret = C_ERR;
            break;
        }
    }
    const cJSON *segs = cJSON_GetObjectItemCaseSensitive(d, "segments");
    if (ret == C_OK && segs) {
        if (format < 2 || !cJSON_IsArray(segs)) {
            failf(err, "%s: segments: expected an array (format 2)", where);
            ret = C_ERR;
        }
        k = 0;
        for (item = ret == C_OK ? segs->child : NULL; item; item = item->next) {
            if (decodeKeySegment(ps, item, (int)id, seen, where, k++, err) != C_OK) {
                ret = C_ERR;
                break;
            }
        }
    }
    dictRelease(seen);
    return ret;
}

/* "functions": [{"library": name, "code": code}, ...], compiled into a set
 * of libraries that persistInstall puts in place. The code is what counts
 * (its shebang names the library; "library" is there for people reading
 * the document); one that does not load refuses the document. */
static int decodeFunctions(persistState *ps, const cJSON *root, sds *err) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "functions");
    if (!list) return C_OK;
    if (!cJSON_IsArray(list)) return failf(err, "functions: expected an array");
    static const char *const fields[] = {"library", "code", NULL};
    size_t n = (size_t)cJSON_GetArraySize(list), i = 0;
    sds *codes = zcalloc(sizeof(sds) * (n ? n : 1));
    const cJSON *rec;
    int rc = C_OK;
    cJSON_ArrayForEach(rec, list) {
        sds where = sdscatprintf(sdsempty(), "functions[%zu]", i), name = NULL, msg = NULL;
        if (!cJSON_IsObject(rec)) rc = failf(err, "%s: expected an object", where);
        else if (jsonCheckFields(rec, fields, where, err) != C_OK) rc = C_ERR;
        else if (jsonGetBytes(cJSON_GetObjectItemCaseSensitive(rec, "library"), &name, "library", &msg) != C_OK ||
                 jsonGetBytes(cJSON_GetObjectItemCaseSensitive(rec, "code"), &codes[i], "code", &msg) != C_OK)
            rc = failAt(err, where, msg);
        sdsfree(name);
        sdsfree(where);
        if (rc != C_OK) break;
        i++;
    }
    if (rc == C_OK) {
        ps->functions = functionsDecode(codes, n, err);
        if (!ps->functions && n) rc = C_ERR;
    }
    for (size_t j = 0; j < n; j++) sdsfree(codes[j]);
    zfree(codes);
    return rc;
}

persistState *persistDecode(const char *data, size_t len, persistHeader *h, sds *err) {
    memset(h, 0, sizeof(*h));
    cJSON *root = parseJson(data, len, err);
    if (!root) return NULL;
    persistState *ps = zcalloc(sizeof(*ps));
    int *dbseen = zcalloc(sizeof(int) * (size_t)server.cfg.databases);
    int ok = 0;
    if (!cJSON_IsObject(root)) {
        failf(err, "the top level must be a JSON object");
        goto done;
    }
    int format = 0;
    if (decodeHeader(root, h, &format, err) != C_OK) goto done;
    if (decodeChunkSegments(ps, root, format, err) != C_OK) goto done;
    const cJSON *dbs = cJSON_GetObjectItemCaseSensitive(root, "databases");
    if (!cJSON_IsArray(dbs)) {
        failf(err, "databases: expected an array");
        goto done;
    }
    size_t index = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, dbs) {
        if (decodeDatabase(ps, d, index++, dbseen, format, err) != C_OK) goto done;
    }
    if (decodeFunctions(ps, root, err) != C_OK) goto done;
    ok = 1;
done:
    zfree(dbseen);
    cJSON_Delete(root);
    if (!ok) {
        persistHeaderClear(h);
        persistStateFree(ps);
        return NULL;
    }
    return ps;
}

unsigned long long persistStateKeys(const persistState *ps) { return ps ? ps->count : 0; }

void persistStateFree(persistState *ps) {
    if (!ps) return;
    for (size_t i = 0; i < ps->count; i++) {
        sdsfree(ps->keys[i].key);
        if (ps->keys[i].value) objectTypeGet(ps->keys[i].type)->free(ps->keys[i].value);
    }
    zfree(ps->keys);
    for (size_t i = 0; i < ps->nsegs; i++) {
        sdsfree(ps->segs[i].name);
        sdsfree(ps->segs[i].gone);
        sdsfree(ps->segs[i].names);
    }
    zfree(ps->segs);
    for (size_t i = 0; i < ps->ncsegs; i++) {
        sdsfree(ps->csegs[i].name);
        cJSON_Delete(ps->csegs[i].doc);
        zfree(ps->csegs[i].chunks);
        zfree(ps->csegs[i].state);
    }
    zfree(ps->csegs);
    zfree(ps->toks);
    functionsDecodedFree(ps->functions);
    zfree(ps);
}

void persistInstall(persistState *ps) {
    /* Empties every db the way FLUSHALL does: WATCHes are touched and
     * XREADGROUP waiters re-checked -- against the new contents, since
     * they are only served later, from beforeSleep. */
    chunksegUnsealAll();
    emptyData(-1, NULL);
    functionsInstall(ps ? ps->functions : NULL);
    if (!ps) return;
    ps->functions = NULL;
    uint32_t *ids = zmalloc(sizeof(uint32_t) * (ps->nsegs ? ps->nsegs : 1));
    for (size_t i = 0; i < ps->nsegs; i++) {
        persistKeySeg *s = &ps->segs[i];
        ids[i] = keysegInstall(&server.db[s->dbid], s->name, s->count, s->bytes, s->crc, s->gone, s->ngone,
                               s->names);
        s->gone = s->names = NULL;
    }
    for (size_t i = 0; i < ps->count; i++) {
        persistKey *k = &ps->keys[i];
        redisDb *db = &server.db[k->dbid];
        if (k->deleted && k->seg < 0) continue;
        robj *o = createObject(k->type, k->value);
        k->value = NULL;
        /* Stamped with the load (a change emptyData just made): an object
         * is never left at mod_seq 0, which an object someone forgot to
         * stamp would also have -- the encode cache tells them apart. */
        o->mod_seq = server.change_seq;
        dbAdd(db, k->key, o);
        if (k->has_ttl) setExpire(db, k->key, k->when);
        if (k->seg >= 0) keysegKeyLoaded(db, k->key, o, ids[k->seg]);
    }
    zfree(ids);
    /* A key the commit log changed or removed is no longer its key
     * segment's: as if a command had done it -- once every key is in place,
     * since a segment left without keys goes. */
    for (size_t i = 0; i < ps->count; i++) {
        persistKey *k = &ps->keys[i];
        if (k->seg < 0 || !(k->replayed || k->deleted)) continue;
        redisDb *db = &server.db[k->dbid];
        robj *o = dictFetchValue(db->keys, k->key);
        keysegKeyChanged(db, k->key, o);
        if (k->deleted) dbDelete(db, k->key);
    }
    /* The chunks aligned to their parts stay sealed; the other parts --
     * of values written whole since (in a key segment, below
     * PERSIST_CACHE_MAX_VALUE), of hashes and sets (their chunks follow a
     * per-process hash seed) -- are gone. */
    void **handles = zmalloc(sizeof(void *) * (ps->ncsegs ? ps->ncsegs : 1));
    for (size_t i = 0; i < ps->ncsegs; i++) {
        persistChunkSeg *cs = &ps->csegs[i];
        handles[i] = chunksegInstall(cs->name, cs->count, cs->bytes, cs->crc);
    }
    for (size_t i = 0; i < ps->ntoks; i++)
        if (ps->toks[i].ref) chunksegLoadedPart(handles[ps->toks[i].seg], ps->toks[i].part, ps->toks[i].ref);
    for (size_t i = 0; i < ps->ncsegs; i++) chunksegLoadedDone(handles[i]);
    zfree(handles);
    persistStateFree(ps);
}

void persistEncodeInline(storeDoc *d, const persistHeader *h) {
    streamSetInlineAll(1);
    chunksegSetInlineAll(1);
    encode_inline_all = 1;
    persistEncode(d, h, NULL);
    encode_inline_all = 0;
    chunksegSetInlineAll(0);
    streamSetInlineAll(0);
}

unsigned long long persistUnsealAll(void) {
    unsigned long long keys = 0;
    keysegUnsealAll();
    chunksegUnsealAll();
    for (int j = 0; server.db && j < server.cfg.databases; j++) {
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, server.db[j].keys);
        while ((de = dictNext(&it))) {
            robj *o = de->val;
            if (o->type == OBJ_STREAM) streamUnsealAll(o->ptr);
            keys++;
        }
    }
    return keys;
}

/* ========================================================================
 * The commit log (docs/state-format.md "The commit log")
 *
 * A commit that is not a checkpoint appends one record: the changes since
 * the last commit that landed, one line of JSON ending in its own CRC-32.
 * A load replays the records after the root's commit_seq onto the decoded
 * root before anything is installed, so a record that does not apply
 * refuses the load as a bad root does.
 * ===================================================================== */

#define LOG_CRC_FIELD ",\"crc32\":\""
#define LOG_CRC_FIELD_LEN 10
#define LOG_CRC_TAIL_LEN (LOG_CRC_FIELD_LEN + 8 + 2) /* ,"crc32":"xxxxxxxx"} */

long long persistLogRefusals(const persistCache *pc, persistLogRefusal why) { return pc->log_refusals[why]; }

/* A record says the commit cannot be one: why, for INFO. */
static int logRefuse(persistCache *pc, persistLogRefusal why) {
    if (pc) pc->log_refusals[why]++;
    return 0;
}

static sds catChangeHead(sds out, int *first, int dbid, const char *what) {
    out = sdscatlen(out, *first ? "{\"db\":" : ",{\"db\":", *first ? 6 : 7);
    *first = 0;
    out = jsonCatI64(out, dbid);
    return sdscat(out, what);
}

void persistLogTakeDeleted(void) {
    for (int j = 0; j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        if (!dictSize(db->log_deleted)) continue;
        if (!dictSize(db->log_deleted_flight)) {
            /* The usual case (the last commit landed): hand them over. */
            dict *d = db->log_deleted_flight;
            db->log_deleted_flight = db->log_deleted;
            db->log_deleted = d;
            continue;
        }
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, db->log_deleted);
        while ((de = dictNext(&it)))
            if (!dictFind(db->log_deleted_flight, de->key)) dictAdd(db->log_deleted_flight, sdsdup(de->key), NULL);
        dictEmpty(db->log_deleted);
    }
}

void persistLogForgetDeleted(int flight_too) {
    for (int j = 0; server.db && j < server.cfg.databases; j++) {
        if (flight_too) dictEmpty(server.db[j].log_deleted_flight);
        else dictEmpty(server.db[j].log_deleted);
    }
}

void persistLogMarkStreams(uint64_t gen) {
    for (int j = 0; j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, listLength(db->keysegs) ? db->inline_keys : db->keys);
        while ((de = dictNext(&it))) {
            robj *o = de->val;
            if (o->type == OBJ_STREAM) streamLogMarkFlight(o->ptr, gen);
        }
    }
}

/* The changes of one database; 0 if one of them needs a checkpoint (the
 * record being written is then dropped whole). Records written don't go
 * into the encode cache: between checkpoints it would keep the records of
 * every object replaced since (SET makes a new one each time), which only
 * a root's encode sweeps. */
static int catDbChanges(sds *out, int *first, redisDb *db, uint64_t base_seq, uint64_t gen, uint64_t ok_gen,
                        persistCache *pc) {
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, db->log_deleted_flight);
    while ((de = dictNext(&it))) {
        /* Removed and made again (SET replaces the object): its record
         * below says it all. */
        robj *now = dictFetchValue(db->keys, de->key);
        if (now && now->mod_seq > base_seq) continue;
        *out = catChangeHead(*out, first, db->id, ",\"del\":");
        *out = jsonCatBytes(*out, de->key, sdslen(de->key));
        *out = sdscatlen(*out, "}", 1);
    }
    dictInitIterator(&it, listLength(db->keysegs) ? db->inline_keys : db->keys);
    while ((de = dictNext(&it))) {
        robj *o = de->val;
        if (o->mod_seq <= base_seq) continue;
        const objectType *ot = objectTypeGet(o->type);
        if (o->type == OBJ_STREAM) {
            streamLogKind kind = streamLogPlan(o->ptr, gen, ok_gen);
            if (kind == STREAM_LOG_DELTA) {
                *out = catChangeHead(*out, first, db->id, ",\"key\":");
                *out = jsonCatBytes(*out, de->key, sdslen(de->key));
                *out = sdscatlen(*out, ",\"stream_delta\":", 16);
                kind = streamCatLogDelta(out, o->ptr, gen);
                if (kind == STREAM_LOG_DELTA) {
                    *out = sdscatlen(*out, "}", 1);
                    continue;
                }
            }
            if (kind == STREAM_LOG_CHECKPOINT) return logRefuse(pc, PERSIST_LOG_REFUSED_STREAM);
            /* STREAM_LOG_WHOLE: its whole record, below. */
        } else {
            size_t bytes = ot->jsonBytes(o);
            /* Big collections are written in chunks the root can name
             * (chunkseg.h), their quiet chunks sealed: a root's job. Up to
             * commit-log-max-value a record holds the whole value (a copy
             * of its chunks' JSON), and its chunks may still be sealed for
             * the next root. */
            if (bytes > (size_t)server.cfg.commit_log_max_value_bytes) return logRefuse(pc, PERSIST_LOG_REFUSED_BIG);
            if (bytes > PERSIST_CACHE_MAX_VALUE && ot->sealChunks) chunksegNoteBig(db, de->key);
        }
        *out = catChangeHead(*out, first, db->id, ",\"set\":");
        *out = persistCatKey(*out, db, de->key, o, pc);
        *out = sdscatlen(*out, "}", 1);
    }
    return 1;
}

sds persistEncodeLogRecord(const persistHeader *h, uint64_t base_seq, uint64_t gen, uint64_t ok_gen,
                           persistCache *pc, int *empty) {
    if (server.log_barrier_seq > base_seq) {
        logRefuse(pc, PERSIST_LOG_REFUSED_BARRIER);
        return NULL;
    }
    sds out = sdsnewlen("{\"seq\":", 7);
    out = jsonCatU64(out, h->commit_seq);
    out = sdscatlen(out, ",\"broker\":", 10);
    out = jsonCatBytes(out, h->broker.id, sdslen(h->broker.id));
    out = sdscatlen(out, ",\"epoch\":", 9);
    out = jsonCatU64(out, h->broker.epoch);
    out = sdscatlen(out, ",\"written_at_ms\":", 17);
    out = jsonCatI64(out, h->written_at_ms);
    out = sdscatlen(out, ",\"changes\":[", 12);
    int first = 1;
    for (int j = 0; j < server.cfg.databases; j++) {
        if (!catDbChanges(&out, &first, &server.db[j], base_seq, gen, ok_gen, pc)) {
            sdsfree(out);
            return NULL;
        }
    }
    out = sdscatlen(out, "]", 1);
    *empty = first;
    uint32_t crc = (uint32_t)crc32_z(0L, (const unsigned char *)out, sdslen(out));
    return sdscatprintf(out, LOG_CRC_FIELD "%08x\"}\n", crc);
}

/* ------------------------------------------------------------------------
 * Replaying the log
 * --------------------------------------------------------------------- */

typedef struct logReplay {
    persistState *ps;
    persistHeader *h;
    dict *index;        /* "<db>:<key>" -> index in ps->keys + 1 */
    const char *where;  /* "record seq N" for messages */
} logReplay;

static sds replayIndexKey(int dbid, const char *key, size_t len) {
    sds k = sdscatprintf(sdsempty(), "%d:", dbid);
    return sdscatlen(k, key, len);
}

static void replayIndexBuild(logReplay *r) {
    if (r->index) return;
    r->index = dictCreate(&sdsKeyDictType);
    for (size_t i = 0; i < r->ps->count; i++) {
        persistKey *k = &r->ps->keys[i];
        dictAdd(r->index, replayIndexKey(k->dbid, k->key, sdslen(k->key)), (void *)(uintptr_t)(i + 1));
    }
}

static persistKey *replayFind(logReplay *r, int dbid, sds key) {
    sds k = replayIndexKey(dbid, key, sdslen(key));
    void *v = dictFetchValue(r->index, k);
    sdsfree(k);
    return v ? &r->ps->keys[(uintptr_t)v - 1] : NULL;
}

/* The value of key idx goes: so do the chunks it had taken. */
static void replayDropValue(persistState *ps, size_t idx) {
    persistKey *k = &ps->keys[idx];
    for (size_t i = 0; i < ps->ntoks; i++)
        if (ps->toks[i].key == idx) ps->toks[i].ref = NULL;
    if (k->value) objectTypeGet(k->type)->free(k->value);
    k->value = NULL;
}

static int replaySet(logReplay *r, const cJSON *rec, int dbid, size_t index, sds *err) {
    dict *seen = dictCreate(&sdsKeyDictType);
    int ret = decodeKey(r->ps, rec, dbid, seen, r->where, index, PERSIST_FORMAT, err);
    dictRelease(seen);
    if (ret != C_OK) return C_ERR;
    persistState *ps = r->ps;
    persistKey *added = &ps->keys[ps->count - 1];
    persistKey *k = replayFind(r, dbid, added->key);
    if (!k) {
        dictAdd(r->index, replayIndexKey(dbid, added->key, sdslen(added->key)), (void *)(uintptr_t)ps->count);
        return C_OK;
    }
    /* The key exists: its new value takes the old one's place. */
    size_t idx = (size_t)(k - ps->keys);
    replayDropValue(ps, idx);
    for (size_t i = 0; i < ps->ntoks; i++)
        if (ps->toks[i].key == ps->count - 1) ps->toks[i].key = idx;
    k->type = added->type;
    k->value = added->value;
    k->when = added->when;
    k->has_ttl = added->has_ttl;
    k->replayed = 1;
    k->deleted = 0;
    sdsfree(added->key);
    ps->count--;
    return C_OK;
}

static int replayChange(logReplay *r, const cJSON *c, size_t index, sds *err) {
    sds msg = NULL, key = NULL;
    int ret = C_ERR;
    uint64_t dbid;
    if (!cJSON_IsObject(c)) return failf(err, "%s: changes[%zu]: expected an object", r->where, index);
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(c, "db"), &dbid, "db", &msg) != C_OK) {
        failf(err, "%s: changes[%zu]: %s", r->where, index, msg);
        goto done;
    }
    if (dbid >= (uint64_t)server.cfg.databases) {
        failf(err, "%s: changes[%zu]: database %llu does not exist on this server", r->where, index,
              (unsigned long long)dbid);
        goto done;
    }
    static const char *const set_fields[] = {"db", "set", NULL};
    static const char *const del_fields[] = {"db", "del", NULL};
    static const char *const delta_fields[] = {"db", "key", "stream_delta", NULL};
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(c, "set");
    const cJSON *del = cJSON_GetObjectItemCaseSensitive(c, "del");
    const cJSON *delta = cJSON_GetObjectItemCaseSensitive(c, "stream_delta");
    const char *const *fields = set ? set_fields : del ? del_fields : delta ? delta_fields : NULL;
    if (!fields) {
        failf(err, "%s: changes[%zu]: expected \"set\", \"del\" or \"stream_delta\"", r->where, index);
        goto done;
    }
    if (jsonCheckFields(c, fields, r->where, err) != C_OK) goto done;
    if (set) {
        ret = replaySet(r, set, (int)dbid, index, err);
        goto done;
    }
    if (jsonGetBytes(del ? del : cJSON_GetObjectItemCaseSensitive(c, "key"), &key, "key", &msg) != C_OK) {
        failf(err, "%s: changes[%zu]: %s", r->where, index, msg);
        goto done;
    }
    persistKey *k = replayFind(r, (int)dbid, key);
    if (del) {
        /* A key made and removed between two commits was never logged. */
        if (k && !k->deleted) {
            /* One its key segment holds is installed and removed again
             * (persistInstall), so the segment learns it is gone. */
            if (k->seg < 0) replayDropValue(r->ps, (size_t)(k - r->ps->keys));
            k->deleted = 1;
        }
        ret = C_OK;
        goto done;
    }
    if (!k || k->deleted || k->type != OBJ_STREAM) {
        sds desc = describeKey(r->where, index, key);
        failf(err, "%s: a stream delta for a key that is %s", desc,
              !k || k->deleted ? "not in the state" : "not a stream");
        sdsfree(desc);
        goto done;
    }
    if (streamApplyLogDelta(k->value, delta, &msg) != C_OK) {
        sds desc = describeKey(r->where, index, key);
        failf(err, "%s: stream_delta: %s", desc, msg);
        sdsfree(desc);
        goto done;
    }
    ret = C_OK;
done:
    sdsfree(msg);
    sdsfree(key);
    return ret;
}

/* One record's checksum and JSON; NULL with *err set if it is not whole. */
static cJSON *logRecordParse(const char *p, size_t len, sds *err) {
    if (len < LOG_CRC_TAIL_LEN + 2 || memcmp(p + len - LOG_CRC_TAIL_LEN, LOG_CRC_FIELD, LOG_CRC_FIELD_LEN) != 0 ||
        p[len - 2] != '"' || p[len - 1] != '}') {
        *err = sdsnew("it does not end with its checksum");
        return NULL;
    }
    char hex[9];
    memcpy(hex, p + len - 10, 8);
    hex[8] = '\0';
    char *end;
    unsigned long want = strtoul(hex, &end, 16);
    uint32_t got = (uint32_t)crc32_z(0L, (const unsigned char *)p, len - LOG_CRC_TAIL_LEN);
    if (*end || want != got) {
        *err = sdscatprintf(sdsempty(), "its checksum does not match (crc32 %s written, %08x computed)", hex, got);
        return NULL;
    }
    cJSON *rec = cJSON_ParseWithLength(p, len);
    if (!rec || !cJSON_IsObject(rec)) {
        cJSON_Delete(rec);
        *err = sdsnew("it is not a JSON object");
        return NULL;
    }
    return rec;
}

/* Applies one whole record (seq already checked). */
static int logRecordApply(logReplay *r, const cJSON *rec, sds *err) {
    static const char *const fields[] = {"seq", "broker", "epoch", "written_at_ms", "changes", "crc32", NULL};
    if (jsonCheckFields(rec, fields, r->where, err) != C_OK) return C_ERR;
    const cJSON *broker = cJSON_GetObjectItemCaseSensitive(rec, "broker");
    uint64_t epoch;
    int64_t written;
    sds msg = NULL;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "epoch"), &epoch, "epoch", &msg) != C_OK ||
        jsonGetI64(cJSON_GetObjectItemCaseSensitive(rec, "written_at_ms"), &written, "written_at_ms", &msg) !=
            C_OK) {
        failAt(err, r->where, msg);
        return C_ERR;
    }
    /* Every take-over writes a root: the records after a root are its
     * broker's, of its epoch. */
    if (!cJSON_IsString(broker) || !r->h->broker.id || strcmp(broker->valuestring, r->h->broker.id) != 0 ||
        epoch != r->h->broker.epoch)
        return failf(err, "%s: written by broker %s epoch %llu, but the root names broker %s epoch %llu", r->where,
                     cJSON_IsString(broker) ? broker->valuestring : "?", (unsigned long long)epoch,
                     r->h->broker.id ? r->h->broker.id : "(none)", (unsigned long long)r->h->broker.epoch);
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(rec, "changes");
    if (!cJSON_IsArray(changes)) return failf(err, "%s: changes: expected an array", r->where);
    replayIndexBuild(r);
    size_t index = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, changes) {
        if (replayChange(r, c, index++, err) != C_OK) return C_ERR;
    }
    r->h->written_at_ms = written;
    return C_OK;
}

int persistReplayLog(persistState *ps, persistHeader *h, const char *log, size_t len, persistLogStats *st,
                     sds *err) {
    memset(st, 0, sizeof(*st));
    logReplay r = {ps, h, NULL, NULL};
    int ret = C_OK;
    size_t off = 0, line = 0;
    while (off < len && ret == C_OK) {
        const char *p = log + off;
        const char *nl = memchr(p, '\n', len - off);
        size_t rlen = nl ? (size_t)(nl - p) : len - off;
        size_t next = off + rlen + (nl ? 1 : 0);
        int last = next >= len;
        line++;
        char where[96];
        snprintf(where, sizeof(where), "the commit log: record %zu (byte %zu)", line, off);
        sds why = NULL;
        cJSON *rec = nl ? logRecordParse(p, rlen, &why) : NULL;
        if (!rec) {
            /* Only the last record can have been cut short by a crash, and
             * it was never acknowledged: its fdatasync had not returned. */
            if (last) {
                st->torn_bytes = len - off;
                sdsfree(why);
                break;
            }
            failf(err, "%s: %s; the records after it cannot be applied without it", where, why);
            sdsfree(why);
            ret = C_ERR;
            break;
        }
        uint64_t seq = 0;
        sds msg = NULL;
        if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "seq"), &seq, "seq", &msg) != C_OK) {
            failAt(err, where, msg);
            ret = C_ERR;
        } else if (seq <= h->commit_seq && !st->applied) {
            st->skipped++; /* the root holds it already */
        } else if (seq != h->commit_seq + 1) {
            failf(err, "%s is seq %llu, but seq %llu comes next: %s", where, (unsigned long long)seq,
                  (unsigned long long)h->commit_seq + 1,
                  seq > h->commit_seq ? "the records between are missing" : "it is out of order");
            ret = C_ERR;
        } else {
            snprintf(where, sizeof(where), "the commit log: record seq %llu (byte %zu)", (unsigned long long)seq,
                     off);
            r.where = where;
            ret = logRecordApply(&r, rec, err);
            if (ret == C_OK) {
                h->commit_seq = seq;
                st->applied++;
            }
        }
        cJSON_Delete(rec);
        off = next;
    }
    if (r.index) dictRelease(r.index);
    return ret;
}
