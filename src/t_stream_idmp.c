/* t_stream_idmp.c -- idempotent producers (Redis 8.6): XADD ... IDMP
 * producer-id idempotent-id | IDMPAUTO producer-id, and XCFGSET.
 *
 * Every stream may keep an *idempotency window*: per producer id, the
 * idempotent ids it used recently and the entry ID each one produced. An
 * XADD whose (producer, idempotent id) is in the window adds nothing and
 * replies the ID it produced the first time. The window keeps at most
 * IDMP-MAXSIZE ids per producer (the oldest go first) for at most
 * IDMP-DURATION seconds; XCFGSET sets both, and a change clears the
 * window (as Redis does: the ids recorded under the old rules are
 * dropped, the lifetime counters stay).
 *
 * What casq adds: the window is part of the stream in the state document
 * (docs/state-format.md, "idmp"), committed together with the entry it
 * records, so a producer retrying after a crash, a restart or a broker
 * take-over gets the original ID back: either the first try's commit
 * landed and the window has it, or it did not and nothing was added. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"
#include "t_stream.h"

#define IDMP_DURATION_MIN 1
#define IDMP_DURATION_MAX 86400 /* seconds */
#define IDMP_MAXSIZE_MIN 1
#define IDMP_MAXSIZE_MAX 10000 /* ids per producer */

/* One recorded idempotent id. */
typedef struct streamIdmpEntry {
    uint64_t hash;      /* of iid: most mismatches are skipped on it */
    sds iid;            /* the idempotent id (binary safe) */
    streamID id;        /* the entry ID the first XADD produced */
    long long added_ms; /* when (unix ms): expires after the duration */
} streamIdmpEntry;

/* A producer's ids, oldest first, in a ring. */
typedef struct streamIdmpProducer {
    sds pid;
    uint64_t hash;
    streamIdmpEntry *ring;
    uint32_t cap, head, count;
} streamIdmpProducer;

struct streamIdmp {
    long long duration;              /* seconds */
    long long maxsize;               /* ids per producer */
    streamIdmpProducer **producers;  /* in order of first use */
    size_t nproducers, alloc;
    uint64_t iids_added;             /* lifetime: ids recorded */
    uint64_t iids_duplicates;        /* lifetime: XADDs answered from the window */
};

/* ========================================================================
 * Hashing (deterministic: IDMPAUTO ids must be the same on every node and
 * after every restart, so no per-process seed)
 * ===================================================================== */

static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t fnv64(uint64_t h, const void *p, size_t len) {
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t bytesHash(const char *p, size_t len) { return mix64(fnv64(0xcbf29ce484222325ULL, p, len) ^ len); }

/* IDMPAUTO's idempotent id: 16 bytes computed from the field-value pairs,
 * independent of their order (each pair is hashed alone, the hashes are
 * summed), so a retry that lists the same pairs differently is still
 * recognised. */
sds streamIdmpAutoIID(sds *argv, int64_t numfields) {
    uint64_t a = 0, b = 0;
    for (int64_t i = 0; i < numfields; i++) {
        sds f = argv[i * 2], v = argv[i * 2 + 1];
        uint64_t lens[2] = {sdslen(f), sdslen(v)};
        uint64_t h = fnv64(0xcbf29ce484222325ULL, lens, sizeof(lens));
        h = fnv64(h, f, sdslen(f));
        h = fnv64(h, v, sdslen(v));
        a += mix64(h);
        b += mix64(h ^ 0x9e3779b97f4a7c15ULL);
    }
    a = mix64(a ^ (uint64_t)numfields);
    unsigned char out[16];
    for (int i = 0; i < 8; i++) {
        out[i] = (unsigned char)(a >> (56 - 8 * i));
        out[8 + i] = (unsigned char)(b >> (56 - 8 * i));
    }
    return sdsnewlen(out, sizeof(out));
}

/* ========================================================================
 * The window
 * ===================================================================== */

static void producerFree(streamIdmpProducer *p) {
    for (uint32_t k = 0; k < p->count; k++) sdsfree(p->ring[(p->head + k) % p->cap].iid);
    zfree(p->ring);
    sdsfree(p->pid);
    zfree(p);
}

static void idmpClearProducers(streamIdmp *w) {
    for (size_t i = 0; i < w->nproducers; i++) producerFree(w->producers[i]);
    w->nproducers = 0;
}

void streamIdmpFree(streamIdmp *w) {
    if (!w) return;
    idmpClearProducers(w);
    zfree(w->producers);
    zfree(w);
}

static streamIdmp *idmpNew(void) {
    streamIdmp *w = zcalloc(sizeof(*w));
    w->duration = server.cfg.stream_idmp_duration;
    w->maxsize = server.cfg.stream_idmp_maxsize;
    return w;
}

/* The stream's window, made on first use with the server's defaults. */
static streamIdmp *idmpGet(stream *s) {
    if (!s->idmp) s->idmp = idmpNew();
    return s->idmp;
}

static streamIdmpEntry *producerAt(streamIdmpProducer *p, uint32_t k) { return &p->ring[(p->head + k) % p->cap]; }

static void producerPopOldest(streamIdmpProducer *p) {
    sdsfree(p->ring[p->head].iid);
    p->head = (p->head + 1) % p->cap;
    p->count--;
}

static void producerPush(streamIdmpProducer *p, streamIdmpEntry *e, long long maxsize) {
    while (p->count && p->count >= (uint64_t)maxsize) producerPopOldest(p);
    if (p->count == p->cap) {
        /* Grow, keeping the oldest first. */
        uint32_t ncap = p->cap ? p->cap * 2 : 4;
        if (ncap > (uint32_t)maxsize) ncap = (uint32_t)maxsize;
        if (ncap < p->count + 1) ncap = p->count + 1;
        streamIdmpEntry *ring = zmalloc(sizeof(*ring) * ncap);
        for (uint32_t k = 0; k < p->count; k++) ring[k] = *producerAt(p, k);
        zfree(p->ring);
        p->ring = ring;
        p->cap = ncap;
        p->head = 0;
    }
    p->ring[(p->head + p->count) % p->cap] = *e;
    p->count++;
}

static streamIdmpProducer *idmpFindProducer(streamIdmp *w, const char *pid, size_t len, uint64_t h, size_t *pos) {
    for (size_t i = 0; i < w->nproducers; i++) {
        streamIdmpProducer *p = w->producers[i];
        if (p->hash == h && sdslen(p->pid) == len && !memcmp(p->pid, pid, len)) {
            if (pos) *pos = i;
            return p;
        }
    }
    return NULL;
}

static streamIdmpProducer *idmpAddProducer(streamIdmp *w, const char *pid, size_t len) {
    streamIdmpProducer *p = zcalloc(sizeof(*p));
    p->pid = sdsnewlen(pid, len);
    p->hash = bytesHash(pid, len);
    if (w->nproducers == w->alloc) {
        w->alloc = w->alloc ? w->alloc * 2 : 4;
        w->producers = zrealloc(w->producers, sizeof(*w->producers) * w->alloc);
    }
    w->producers[w->nproducers++] = p;
    return p;
}

/* Drops the ids older than the window's duration; a producer left with
 * none is forgotten (XINFO pids-tracked counts the others). */
static void idmpExpire(streamIdmp *w, long long now) {
    long long horizon = now - w->duration * 1000;
    size_t j = 0;
    for (size_t i = 0; i < w->nproducers; i++) {
        streamIdmpProducer *p = w->producers[i];
        while (p->count && p->ring[p->head].added_ms <= horizon) producerPopOldest(p);
        if (p->count == 0) producerFree(p);
        else w->producers[j++] = p;
    }
    w->nproducers = j;
}

/* Looks (pid, iid) up in s's window. Found: stores the entry ID it
 * produced in *id, counts a duplicate and returns 1. */
int streamIdmpLookup(stream *s, sds pid, sds iid, streamID *id) {
    if (!s->idmp) return 0;
    streamIdmp *w = s->idmp;
    idmpExpire(w, commandTimeSnapshot());
    streamIdmpProducer *p = idmpFindProducer(w, pid, sdslen(pid), bytesHash(pid, sdslen(pid)), NULL);
    if (!p) return 0;
    uint64_t h = bytesHash(iid, sdslen(iid));
    size_t len = sdslen(iid);
    for (uint32_t k = 0; k < p->count; k++) {
        streamIdmpEntry *e = producerAt(p, k);
        if (e->hash == h && sdslen(e->iid) == len && !memcmp(e->iid, iid, len)) {
            *id = e->id;
            w->iids_duplicates++;
            return 1;
        }
    }
    return 0;
}

/* Records that (pid, iid) produced entry id, now. */
void streamIdmpRecord(stream *s, sds pid, sds iid, const streamID *id) {
    streamIdmp *w = idmpGet(s);
    streamIdmpProducer *p = idmpFindProducer(w, pid, sdslen(pid), bytesHash(pid, sdslen(pid)), NULL);
    if (!p) p = idmpAddProducer(w, pid, sdslen(pid));
    streamIdmpEntry e = {.hash = bytesHash(iid, sdslen(iid)), .iid = sdsdup(iid), .id = *id,
                         .added_ms = commandTimeSnapshot()};
    producerPush(p, &e, w->maxsize);
    w->iids_added++;
}

streamIdmp *streamIdmpDup(const streamIdmp *src) {
    if (!src) return NULL;
    streamIdmp *w = zcalloc(sizeof(*w));
    w->duration = src->duration;
    w->maxsize = src->maxsize;
    w->iids_added = src->iids_added;
    w->iids_duplicates = src->iids_duplicates;
    for (size_t i = 0; i < src->nproducers; i++) {
        streamIdmpProducer *sp = src->producers[i];
        streamIdmpProducer *p = idmpAddProducer(w, sp->pid, sdslen(sp->pid));
        for (uint32_t k = 0; k < sp->count; k++) {
            streamIdmpEntry e = *producerAt(sp, k);
            e.iid = sdsdup(e.iid);
            producerPush(p, &e, w->maxsize);
        }
    }
    return w;
}

size_t streamIdmpMemoryUsage(const streamIdmp *w) {
    if (!w) return 0;
    size_t n = sizeof(*w) + sizeof(void *) * w->alloc;
    for (size_t i = 0; i < w->nproducers; i++) {
        streamIdmpProducer *p = w->producers[i];
        n += sizeof(*p) + sdsAllocSize(p->pid) + sizeof(streamIdmpEntry) * p->cap;
        for (uint32_t k = 0; k < p->count; k++) n += sdsAllocSize(producerAt(p, k)->iid);
    }
    return n;
}

/* XINFO STREAM's six IDMP fields (Redis 8.6), as map pairs, for a stream
 * whose window was used (XADD IDMP/IDMPAUTO or XCFGSET); returns how many
 * pairs it replied (0 or 6). A stream that never used it replies exactly
 * what Redis 7.2 does (casq reports 7.2 as its version, README). */
int streamIdmpReplyInfo(client *c, stream *s) {
    streamIdmp *w = s->idmp;
    if (!w) return 0;
    /* Count what has not expired, without dropping anything: XINFO is a
     * read and changes no state. */
    long long horizon = commandTimeSnapshot() - w->duration * 1000;
    uint64_t iids = 0, pids = 0;
    for (size_t i = 0; i < w->nproducers; i++) {
        streamIdmpProducer *p = w->producers[i];
        uint64_t live = 0;
        for (uint32_t k = 0; k < p->count; k++)
            if (producerAt(p, k)->added_ms > horizon) live++;
        iids += live;
        pids += live != 0;
    }
    addReplyBulkCString(c, "idmp-duration");
    addReplyLongLong(c, w->duration);
    addReplyBulkCString(c, "idmp-maxsize");
    addReplyLongLong(c, w->maxsize);
    addReplyBulkCString(c, "pids-tracked");
    addReplyLongLong(c, (long long)pids);
    addReplyBulkCString(c, "iids-tracked");
    addReplyLongLong(c, (long long)iids);
    addReplyBulkCString(c, "iids-added");
    addReplyLongLong(c, (long long)w->iids_added);
    addReplyBulkCString(c, "iids-duplicates");
    addReplyLongLong(c, (long long)w->iids_duplicates);
    return 6;
}

/* ========================================================================
 * XCFGSET key [IDMP-DURATION duration] [IDMP-MAXSIZE maxsize]
 * ===================================================================== */

void xcfgsetCommand(client *c) {
    long long duration = -1, maxsize = -1;
    if (c->argc == 2) {
        addReplyError(c, "At least one parameter must be specified: IDMP-DURATION or IDMP-MAXSIZE");
        return;
    }
    for (int j = 2; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        if (!strcasecmp(c->argv[j], "IDMP-DURATION") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &duration, NULL) != C_OK) return;
            if (duration < IDMP_DURATION_MIN || duration > IDMP_DURATION_MAX) {
                addReplyErrorFormat(c, "IDMP-DURATION must be between %d and %d seconds", IDMP_DURATION_MIN,
                                    IDMP_DURATION_MAX);
                return;
            }
        } else if (!strcasecmp(c->argv[j], "IDMP-MAXSIZE") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &maxsize, NULL) != C_OK) return;
            if (maxsize < IDMP_MAXSIZE_MIN || maxsize > IDMP_MAXSIZE_MAX) {
                addReplyErrorFormat(c, "IDMP-MAXSIZE must be between %d and %d entries", IDMP_MAXSIZE_MIN,
                                    IDMP_MAXSIZE_MAX);
                return;
            }
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], "-ERR no such key\r\n");
    if (!o || checkType(c, o, OBJ_STREAM)) return;
    stream *s = o->ptr;
    streamIdmp *w = idmpGet(s);
    int changed = 0;
    if (duration != -1 && duration != w->duration) {
        w->duration = duration;
        changed = 1;
    }
    if (maxsize != -1 && maxsize != w->maxsize) {
        w->maxsize = maxsize;
        changed = 1;
    }
    /* New rules: the ids recorded under the old ones are dropped. */
    if (changed) idmpClearProducers(w);
    signalKeyStateChanged(c, c->db, o);
    addReplyOk(c);
}

/* ========================================================================
 * The state document: the stream's "idmp" object
 * ===================================================================== */

sds streamIdmpCatJSON(sds out, const stream *s) {
    streamIdmp *w = s->idmp;
    if (!w) return out;
    out = sdscatlen(out, ",\"idmp\":{\"duration\":", 20);
    out = jsonCatI64(out, w->duration);
    out = sdscatlen(out, ",\"maxsize\":", 11);
    out = jsonCatI64(out, w->maxsize);
    out = sdscatlen(out, ",\"iids_added\":", 14);
    out = jsonCatU64(out, w->iids_added);
    out = sdscatlen(out, ",\"iids_duplicates\":", 19);
    out = jsonCatU64(out, w->iids_duplicates);
    out = sdscatlen(out, ",\"producers\":[", 14);
    for (size_t i = 0; i < w->nproducers; i++) {
        streamIdmpProducer *p = w->producers[i];
        if (i) out = sdscatlen(out, ",", 1);
        out = sdscatlen(out, "{\"pid\":", 7);
        out = jsonCatBytes(out, p->pid, sdslen(p->pid));
        out = sdscatlen(out, ",\"iids\":[", 9);
        for (uint32_t k = 0; k < p->count; k++) {
            streamIdmpEntry *e = producerAt(p, k);
            if (k) out = sdscatlen(out, ",", 1);
            out = sdscatlen(out, "[", 1);
            out = jsonCatBytes(out, e->iid, sdslen(e->iid));
            out = sdscatlen(out, ",", 1);
            out = jsonCatStreamID(out, &e->id);
            out = sdscatlen(out, ",", 1);
            out = jsonCatI64(out, e->added_ms);
            out = sdscatlen(out, "]", 1);
        }
        out = sdscatlen(out, "]}", 2);
    }
    return sdscatlen(out, "]}", 2);
}

static int idmpLoadFail(sds *err, sds msg) {
    *err = sdscatprintf(sdsempty(), "idmp: %s", msg);
    sdsfree(msg);
    return C_ERR;
}

/* Loads the "idmp" object into s (which has its last_id already). */
int streamIdmpFromJSON(stream *s, const cJSON *v, sds *err) {
    sds msg = NULL;
    if (!cJSON_IsObject(v)) return idmpLoadFail(err, sdsnew("expected an object"));
    static const char *const fields[] = {"duration", "maxsize", "iids_added", "iids_duplicates", "producers", NULL};
    if (jsonCheckFields(v, fields, "idmp", &msg) != C_OK) return idmpLoadFail(err, msg);
    int64_t duration, maxsize;
    uint64_t added, dups;
    if (jsonGetI64(cJSON_GetObjectItemCaseSensitive(v, "duration"), &duration, "duration", &msg) != C_OK ||
        jsonGetI64(cJSON_GetObjectItemCaseSensitive(v, "maxsize"), &maxsize, "maxsize", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(v, "iids_added"), &added, "iids_added", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(v, "iids_duplicates"), &dups, "iids_duplicates", &msg) != C_OK)
        return idmpLoadFail(err, msg);
    if (duration < IDMP_DURATION_MIN || duration > IDMP_DURATION_MAX)
        return idmpLoadFail(err, sdsnew("duration must be between 1 and 86400"));
    if (maxsize < IDMP_MAXSIZE_MIN || maxsize > IDMP_MAXSIZE_MAX)
        return idmpLoadFail(err, sdsnew("maxsize must be between 1 and 10000"));
    const cJSON *producers = cJSON_GetObjectItemCaseSensitive(v, "producers");
    if (!cJSON_IsArray(producers)) return idmpLoadFail(err, sdsnew("producers: expected an array"));

    streamIdmp *w = zcalloc(sizeof(*w));
    w->duration = duration;
    w->maxsize = maxsize;
    w->iids_added = added;
    w->iids_duplicates = dups;
    s->idmp = w; /* freed with s on failure */

    const cJSON *pv;
    cJSON_ArrayForEach(pv, producers) {
        static const char *const pfields[] = {"pid", "iids", NULL};
        if (!cJSON_IsObject(pv)) return idmpLoadFail(err, sdsnew("producers: expected objects"));
        if (jsonCheckFields(pv, pfields, "producer", &msg) != C_OK) return idmpLoadFail(err, msg);
        sds pid;
        if (jsonGetBytes(cJSON_GetObjectItemCaseSensitive(pv, "pid"), &pid, "pid", &msg) != C_OK)
            return idmpLoadFail(err, msg);
        if (!sdslen(pid) || idmpFindProducer(w, pid, sdslen(pid), bytesHash(pid, sdslen(pid)), NULL)) {
            sdsfree(pid);
            return idmpLoadFail(err, sdsnew("pid: empty or listed twice"));
        }
        streamIdmpProducer *p = idmpAddProducer(w, pid, sdslen(pid));
        sdsfree(pid);
        const cJSON *iids = cJSON_GetObjectItemCaseSensitive(pv, "iids");
        if (!cJSON_IsArray(iids) || cJSON_GetArraySize(iids) == 0 || cJSON_GetArraySize(iids) > maxsize)
            return idmpLoadFail(err, sdsnew("iids: expected an array of 1 to maxsize [iid, id, added_ms]"));
        const cJSON *ev;
        cJSON_ArrayForEach(ev, iids) {
            if (!cJSON_IsArray(ev) || cJSON_GetArraySize(ev) != 3)
                return idmpLoadFail(err, sdsnew("iids: expected [iid, id, added_ms]"));
            streamIdmpEntry e;
            int64_t added_ms;
            if (jsonGetStreamID(cJSON_GetArrayItem(ev, 1), &e.id, "iid entry ID", &msg) != C_OK ||
                jsonGetI64(cJSON_GetArrayItem(ev, 2), &added_ms, "iid added_ms", &msg) != C_OK)
                return idmpLoadFail(err, msg);
            if (streamCompareID(&e.id, &s->last_id) > 0)
                return idmpLoadFail(err, sdsnew("iid entry ID greater than the stream's last_id"));
            if (jsonGetBytes(cJSON_GetArrayItem(ev, 0), &e.iid, "iid", &msg) != C_OK) return idmpLoadFail(err, msg);
            e.hash = bytesHash(e.iid, sdslen(e.iid));
            e.added_ms = added_ms;
            producerPush(p, &e, maxsize);
        }
    }
    return C_OK;
}
