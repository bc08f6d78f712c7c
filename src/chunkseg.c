/* chunkseg.c -- chunk segments: see chunkseg.h.
 *
 * Sealing (broker only, one chunk segment at a time, off the reply path):
 *
 *   cron / a landed commit ──> sealNext asks each big list, sorted set,
 *            hash or set (noted by persist.c) for its chunks that may be
 *            sealed and takes the quiet ones, up to CHUNKSEG_PLAN_MAX; their
 *            cached JSON is copied into the segment's text and each chunk
 *            points at the segment, which is "writing": the root still
 *            holds the chunks inline
 *   put OK ──> the segment is durable: the next root names its chunks by
 *            reference; a chunk that changed meanwhile left it already
 *            (its part is gone from birth)
 *   put failed / no longer the broker ──> the chunks are inline again
 *
 * A chunk that changes or is freed leaves its segment (chunkRefChanged,
 * chunkRefFreed). The cron unseals a segment whose live chunks are few
 * (worthUnsealing): they are quiet, the next plan seals them with others;
 * and merges the smallest segments by copy once there are more than
 * CHUNKSEG_SMALL_MAX small ones (mergeNext).
 *
 * Segments are not per database: a reference names a segment and a part,
 * whatever key holds the chunk (RENAME, MOVE and SWAPDB move values, not
 * chunks). */
#include "chunkseg.h"

#include <stdlib.h>
#include <string.h>


#include "adlist.h"
#include "commit.h"
#include "dict.h"
#include "jsonutil.h"
#include "persist.h"
#include "segment.h"
#include "server.h"
#include "store.h"
#include "t_stream.h"

#define CHUNKSEG_PLAN_EVERY_MS 50   /* plans tried at most this often */
#define CHUNKSEG_IDLE_MS 1000       /* no commit for this long: seal any quiet chunk */
#define CHUNKSEG_PLAN_MAX (2 << 20) /* text of one segment, at most */
#define CHUNKSEG_SMALL_MAX 8        /* small segments tolerated */
#define CHUNKSEG_ADAPT_MS 1000      /* the quiet time is judged this often */
#define CHUNKSEG_QUIET_MAX_MS 30000 /* ... and never raised past this */

/* One chunk segment. */
typedef struct chunkSegment {
    uint32_t id;     /* chunkRef.seg of its chunks */
    sds name;        /* its name in the store */
    uint64_t count;  /* chunks written in it */
    uint64_t bytes;  /* its size */
    uint32_t crc;    /* its CRC-32 */
    uint64_t live;   /* of its chunks, those still sealed in it */
    chunkRef **refs; /* refs[part]: the chunk sealed there, NULL once gone */
    sds gone;        /* the gone parts, as JSON numbers separated by commas:
                      * the root's "gone" list, ready to copy */
    uint64_t ngone;  /* how many */
    int durable;     /* written: the root may name it */
    long long landed_ms; /* when it became durable */
    /* --- a small segment keeps its chunks' text, to be merged by copy --- */
    sds body;        /* "[items]" of each chunk, one after the other, or NULL */
    uint32_t *offs;  /* chunk i is body[offs[i] .. offs[i + 1]) */
    /* --- a merge being written: where its chunks come from --- */
    struct chunkMove *moves; /* moves[k]: chunk k's source, or NULL */
} chunkSegment;

/* Chunk k of a merge: part `part` of segment `seg`, held by `ref` when the
 * merge was planned (compared, never followed, until it is checked to be
 * still there). */
typedef struct chunkMove {
    uint32_t seg, part;
    chunkRef *ref;
} chunkMove;

typedef struct chunksegState {
    dict *byid;             /* id -> chunkSegment* (durable and writing) */
    list *segs;             /* the durable ones, in the order they landed */
    uint32_t next_id;       /* ids given so far (0 is "inline") */
    chunkSegment *writing;  /* the segment being written, or NULL */
    uint64_t writing_epoch; /* epoch when it was planned */
    uint64_t epoch;         /* moves when the state is replaced */
    dict *big;              /* candidates: "<db id><key>" of values written
                             * through docJSON (persist.c) */
    int inline_all;         /* the export: every chunk inline */
    long long next_plan_ms; /* no plan before */
    long long last_commit_ms; /* when the last commit landed */
    long long quiet_ms;     /* a chunk unchanged this long may be sealed;
                             * 0: key-seal-quiet */
    long long next_adapt_ms; /* quiet_ms is judged again then */
    long long recent_sealed; /* chunks sealed since it was judged */
    long long recent_churned; /* ... chunks gone soon after their seal */
    /* --- statistics (INFO) --- */
    long long sealed;       /* segments written and named */
    long long chunks_sealed; /* chunks attached to them */
    long long bytes_sealed; /* their bytes */
    long long unsealed;     /* segments unsealed (rewritten through the root) */
    long long merged;       /* segments merged by copy into bigger ones */
    long long seal_errors;  /* seals that failed */
} chunksegState;

static dictType chunksegByIdType = {dictPtrHash, dictPtrCompare, NULL, NULL};

static chunksegState *C(void) { return server.chunkseg; }

void chunksegInit(void) {
    chunksegState *cs = zcalloc(sizeof(*cs));
    cs->byid = dictCreate(&chunksegByIdType);
    cs->segs = listCreate();
    cs->big = dictCreate(&sdsKeyDictType);
    server.chunkseg = cs;
}

static void segFree(chunkSegment *g) {
    sdsfree(g->name);
    sdsfree(g->gone);
    sdsfree(g->body);
    zfree(g->offs);
    zfree(g->moves);
    zfree(g->refs);
    zfree(g);
}

/* After the store was closed: no callback will come. The values may
 * outlive the module (their chunks then find no segment). */
void chunksegFree(void) {
    chunksegState *cs = C();
    if (!cs) return;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, cs->byid);
    while ((de = dictNext(&it))) {
        chunkSegment *g = de->val;
        for (uint64_t i = 0; i < g->count; i++)
            if (g->refs[i]) g->refs[i]->seg = 0;
        segFree(g);
    }
    dictRelease(cs->byid);
    listRelease(cs->segs);
    dictRelease(cs->big);
    zfree(cs);
    server.chunkseg = NULL;
}

static chunkSegment *segById(uint32_t id) {
    chunksegState *cs = C();
    return cs ? dictFetchValue(cs->byid, (void *)(uintptr_t)id) : NULL;
}

static chunkSegment *segNew(const char *name, uint64_t count) {
    chunksegState *cs = C();
    chunkSegment *g = zcalloc(sizeof(*g));
    g->id = ++cs->next_id;
    if (g->id == 0) g->id = ++cs->next_id; /* 0 means inline */
    g->name = sdsnew(name);
    g->count = count;
    g->refs = zcalloc(sizeof(chunkRef *) * (count ? count : 1));
    g->gone = sdsempty();
    dictAdd(cs->byid, (void *)(uintptr_t)g->id, g);
    return g;
}

/* A durable segment: named by the root from the next commit on. */
static void segLanded(chunkSegment *g, uint64_t bytes, uint32_t crc) {
    g->bytes = bytes;
    g->crc = crc;
    g->durable = 1;
    g->landed_ms = server.mstime_cache;
    listAddNodeTail(C()->segs, g);
    segmentRegister(g->name, g->bytes);
}

/* The state stops naming g: segment.c deletes it once a root without it
 * has landed and the grace period passed. Its live chunks, if any, are
 * inline again. */
static void segDrop(chunkSegment *g) {
    chunksegState *cs = C();
    for (uint64_t i = 0; i < g->count; i++)
        if (g->refs[i]) g->refs[i]->seg = 0;
    dictDelete(cs->byid, (void *)(uintptr_t)g->id);
    if (g->durable) {
        listNode *ln = listSearchKey(cs->segs, g);
        if (ln) listDelNode(cs->segs, ln);
        segmentUnregister(g->name, g->bytes);
        segmentDropped(g->name);
    }
    segFree(g);
}

/* The bytes of g's live chunks (its size in proportion). */
static uint64_t liveBytes(const chunkSegment *g) { return g->bytes * g->live / g->count; }

static int byLiveBytes(const void *a, const void *b) {
    uint64_t x = liveBytes(*(chunkSegment *const *)a), y = liveBytes(*(chunkSegment *const *)b);
    return x < y ? -1 : x > y;
}

static long long quietMs(const chunksegState *cs) {
    return cs->quiet_ms > server.cfg.key_seal_quiet_ms ? cs->quiet_ms : server.cfg.key_seal_quiet_ms;
}

/* Part `part` of g is no longer sealed there. */
static void segPartLeaves(chunkSegment *g, uint32_t part) {
    g->refs[part] = NULL;
    if (g->ngone++) g->gone = sdscatlen(g->gone, ",", 1);
    g->gone = jsonCatU64(g->gone, part);
    g->live--;
    /* A segment being written is finished by its callback. */
    if (g->live == 0 && g->durable) segDrop(g);
}

/* Part `part` of g changed or was freed. */
static void segGone(chunkSegment *g, uint32_t part) {
    chunksegState *cs = C();
    /* Gone within ten quiet times of its seal: sealing it was a waste. */
    if (g->durable && server.mstime_cache - g->landed_ms < 10 * quietMs(cs) + 1000) cs->recent_churned++;
    segPartLeaves(g, part);
}

/* ========================================================================
 * The types' chunks
 * ===================================================================== */

void chunkRefInit(chunkRef *r) {
    r->seg = 0;
    r->part = 0;
    r->changed_ms = server.mstime_cache;
}

static void refLeave(chunkRef *r) {
    chunkSegment *g = segById(r->seg);
    r->seg = 0;
    if (g && r->part < g->count && g->refs[r->part] == r) segGone(g, r->part);
}

void chunkRefChanged(chunkRef *r) {
    r->changed_ms = server.mstime_cache;
    if (r->seg) refLeave(r);
}

void chunkRefFreed(chunkRef *r) {
    if (r->seg) refLeave(r);
}

/* ========================================================================
 * The document
 * ===================================================================== */

void chunkDocBegin(chunkDocWriter *w, struct storeDoc *d) {
    memset(w, 0, sizeof(*w));
    w->d = d;
    d->own = sdscatlen(d->own, "[", 1);
}

/* Whether the chunk is written by reference (its JSON is not needed). */
static int chunkDocSealed(const chunkRef *r) {
    if (!r->seg || !C() || C()->inline_all) return 0;
    chunkSegment *g = segById(r->seg);
    return g && g->durable;
}

static void docFlushRef(chunkDocWriter *w) {
    if (!w->seg) return;
    chunkSegment *g = segById(w->seg);
    storeDoc *d = w->d;
    if (w->items++) d->own = sdscatlen(d->own, ",", 1);
    d->own = sdscatlen(d->own, "{\"segment\":", 11);
    d->own = jsonCatString(d->own, g->name, sdslen(g->name));
    d->own = sdscatlen(d->own, ",\"from\":", 8);
    d->own = jsonCatU64(d->own, w->from);
    d->own = sdscatlen(d->own, ",\"to\":", 6);
    d->own = jsonCatU64(d->own, w->to);
    d->own = sdscatlen(d->own, "}", 1);
    w->seg = 0;
}

static void chunkDocRef(chunkDocWriter *w, const chunkRef *r) {
    if (w->seg == r->seg && r->part == w->to + 1) {
        w->to = r->part;
        return;
    }
    docFlushRef(w);
    w->seg = r->seg;
    w->from = w->to = r->part;
}

int chunkDocAddSealed(chunkDocWriter *w, const chunkRef *r, sds *json, uint64_t *pin) {
    if (!chunkDocSealed(r)) return 0;
    if (json && *json) {
        docTextFree(*json, *pin);
        *json = NULL;
        *pin = 0;
    }
    chunkDocRef(w, r);
    return 1;
}

void chunkDocText(chunkDocWriter *w, sds json, uint64_t *pin) {
    docFlushRef(w);
    if (!sdslen(json)) return;
    if (w->items++) w->d->own = sdscatlen(w->d->own, ",", 1);
    docTextRef(w->d, json, pin);
}

void chunkDocEnd(chunkDocWriter *w) {
    docFlushRef(w);
    w->d->own = sdscatlen(w->d->own, "]", 1);
}

sds chunksegCatRecords(sds out) {
    out = sdscatlen(out, "[", 1);
    int first = 1;
    for (listNode *ln = listFirst(C()->segs); ln; ln = ln->next) {
        chunkSegment *g = ln->value;
        out = sdscatlen(out, first ? "\n{\"name\":" : ",\n{\"name\":", first ? 9 : 10);
        first = 0;
        out = jsonCatString(out, g->name, sdslen(g->name));
        out = segmentCatSizes(out, g->count, g->bytes, g->crc, g->live);
        out = sdscatlen(out, ",\"gone\":[", 9);
        out = sdscatlen(out, g->gone, sdslen(g->gone));
        out = sdscatlen(out, "]}", 2);
    }
    return sdscatlen(out, "\n]", 2);
}

int chunksegAny(void) { return C() && listLength(C()->segs) && !C()->inline_all; }

void chunksegSetInlineAll(int on) {
    if (C()) C()->inline_all = on;
}

void *chunksegInstall(const char *name, uint64_t count, uint64_t bytes, uint32_t crc) {
    if (!C()) return NULL;
    chunkSegment *g = segNew(name, count);
    segLanded(g, bytes, crc);
    return g;
}

void chunksegLoadedPart(void *h, uint32_t part, chunkRef *ref) {
    chunkSegment *g = h;
    if (!g || part >= g->count || g->refs[part]) return;
    g->refs[part] = ref;
    ref->seg = g->id;
    ref->part = part;
    g->live++;
}

void chunksegLoadedDone(void *h) {
    chunkSegment *g = h;
    if (!g) return;
    for (uint64_t i = 0; i < g->count; i++) {
        if (g->refs[i]) continue;
        if (g->ngone++) g->gone = sdscatlen(g->gone, ",", 1);
        g->gone = jsonCatU64(g->gone, i);
    }
    if (!g->live) segDrop(g);
}

void chunksegUnsealAll(void) {
    chunksegState *cs = C();
    if (!cs) return;
    while (listLength(cs->segs)) segDrop(listFirst(cs->segs)->value);
    cs->epoch++;
}

void chunksegNoteBig(redisDb *db, sds key) {
    chunksegState *cs = C();
    if (!cs) return;
    unsigned char id = (unsigned char)db->id;
    sds k = sdscatlen(sdsnewlen(&id, 1), key, sdslen(key));
    if (!dictAdd(cs->big, k, NULL)) sdsfree(k);
}

/* ========================================================================
 * Loading: the parts of the value being built
 * ===================================================================== */

static chunkLoadPart *load_parts; /* persist.c's, while a value is built */
static size_t load_nparts, load_next;

void chunkLoadBegin(chunkLoadPart *parts, size_t n) {
    load_parts = parts;
    load_nparts = n;
    load_next = 0;
}

void chunkLoadEnd(void) {
    load_parts = NULL;
    load_nparts = load_next = 0;
}

/* The items are built in order: the next part is the only candidate. */
chunkLoadPart *chunkLoadPartAt(size_t index) {
    while (load_next < load_nparts && load_parts[load_next].start < index) load_next++;
    if (load_next < load_nparts && load_parts[load_next].start == index) return &load_parts[load_next];
    return NULL;
}

void chunkLoadAttach(chunkLoadPart *p, chunkRef *ref) { p->ref = ref; }

void chunkLoadDetachAll(void) {
    for (size_t i = 0; i < load_nparts; i++) load_parts[i].ref = NULL;
}

/* ========================================================================
 * Sealing
 * ===================================================================== */

struct chunkSealPlan {
    int unseal;       /* chunksegUnsealValue: every chunk offered leaves */
    long long quiet;  /* chunks changed after this time are not quiet */
    chunkRef **refs;  /* the chunks taken */
    size_t n, alloc;  /* how many, room */
    sds body;         /* their "[items]", one after the other */
    uint32_t *offs;   /* chunk i is body[offs[i] .. offs[i + 1]) (n + 1) */
};

/* Appends a chunk's text to a plan's body; its ref (NULL for a merge,
 * whose chunks are not taken yet) to refs. */
static void planAdd(chunkSealPlan *p, chunkRef *r, const char *text, size_t len, int bracket) {
    if (p->n + 1 >= p->alloc) {
        p->alloc = p->alloc ? p->alloc * 2 : 64;
        p->refs = zrealloc(p->refs, sizeof(chunkRef *) * p->alloc);
        p->offs = zrealloc(p->offs, sizeof(uint32_t) * (p->alloc + 1));
    }
    if (!p->body) p->body = sdsempty();
    p->offs[p->n] = (uint32_t)sdslen(p->body);
    p->refs[p->n++] = r;
    if (bracket) p->body = sdscatlen(p->body, "[", 1);
    p->body = sdscatlen(p->body, text, len);
    if (bracket) p->body = sdscatlen(p->body, "]", 1);
    p->offs[p->n] = (uint32_t)sdslen(p->body);
}

static void planFree(chunkSealPlan *p) {
    sdsfree(p->body);
    zfree(p->offs);
    zfree(p->refs);
}

void chunkSealOffer(chunkSealPlan *p, chunkRef *r, sds json, int edge) {
    if (p->unseal) {
        if (r->seg) refLeave(r);
        return;
    }
    if (edge || r->seg || r->changed_ms > p->quiet || !json || !sdslen(json)) return;
    if (p->body && sdslen(p->body) >= CHUNKSEG_PLAN_MAX) return;
    planAdd(p, r, json, sdslen(json), 1);
}

void chunksegUnsealValue(robj *o) {
    const objectType *ot = objectTypeGet(o->type);
    if (!C() || !ot->sealChunks) return;
    chunkSealPlan p = {.unseal = 1};
    ot->sealChunks(o, &p);
}

/* Offers the chunks of every noted big value; the notes of keys that are
 * no longer big, sealable values are dropped. */
static void planGather(chunksegState *cs, chunkSealPlan *p) {
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, cs->big);
    while ((de = dictNext(&it)) && (!p->body || sdslen(p->body) < CHUNKSEG_PLAN_MAX)) {
        sds k = de->key;
        int dbid = (unsigned char)k[0];
        robj *o = NULL;
        if (dbid < server.cfg.databases) {
            sds key = sdsnewlen(k + 1, sdslen(k) - 1);
            o = dictFetchValue(server.db[dbid].keys, key);
            sdsfree(key);
        }
        const objectType *ot = o ? objectTypeGet(o->type) : NULL;
        /* A value in a key segment is not in the root at all. */
        if (!o || !ot->sealChunks || o->seg || ot->jsonBytes(o) <= PERSIST_CACHE_MAX_VALUE) {
            dictDelete(cs->big, k);
            continue;
        }
        ot->sealChunks(o, p);
    }
}

static void sealDone(void *priv, storeStatus status, const char *err);

/* The chunks of a segment that will not land are inline again (a merge
 * took none yet: they stay where they are). */
static void segAbandon(chunkSegment *g) {
    dictDelete(C()->byid, (void *)(uintptr_t)g->id);
    for (uint64_t i = 0; i < g->count; i++)
        if (g->refs[i]) g->refs[i]->seg = 0;
    segFree(g);
}

/* The segment's text: {"format", "segment", "chunks": [one per line],
 * "count"}. */
static sds segText(const chunkSegment *g, const chunkSealPlan *p) {
    sds text = sdscatlen(sdsempty(), "{\"format\":2,\"segment\":", 22);
    text = jsonCatString(text, g->name, sdslen(g->name));
    text = sdscatlen(text, ",\"chunks\":[", 11);
    text = sdsMakeRoomFor(text, sdslen(p->body) + 3 * p->n + 32);
    for (size_t i = 0; i < p->n; i++) {
        text = sdscatlen(text, i ? ",\n" : "\n", i ? 2 : 1);
        text = sdscatlen(text, p->body + p->offs[i], p->offs[i + 1] - p->offs[i]);
    }
    text = sdscatlen(text, "\n],\"count\":", 11);
    text = jsonCatU64(text, p->n);
    return sdscatlen(text, "}\n", 2);
}

/* Hands g's text to the store; a small segment keeps its chunks' text
 * (the plan's body) for a merge by copy. */
static void segWrite(chunksegState *cs, chunkSegment *g, chunkSealPlan *p) {
    sds text = segText(g, p);
    g->bytes = sdslen(text);
    g->crc = streamSegmentCRC(text, sdslen(text));
    if (g->bytes < CHUNKSEG_PLAN_MAX / 4) {
        g->body = p->body;
        g->offs = p->offs;
        p->body = NULL;
        p->offs = NULL;
    }
    planFree(p);
    cs->writing = g;
    cs->writing_epoch = cs->epoch;
    segmentWriting(g->name, 1);
    server.store->type->seg_put(server.store, g->name, text, sealDone, (void *)(uintptr_t)g->id);
}

/* Plans the next seal and hands it to the store; 1 if one started. */
static int sealNext(chunksegState *cs, long long now) {
    if (cs->writing || now < cs->next_plan_ms || !dictSize(cs->big)) return 0;
    if (!server.store || !server.store->type->seg_put) return 0;
    cs->next_plan_ms = now + CHUNKSEG_PLAN_EVERY_MS;
    chunkSealPlan p = {.quiet = now - quietMs(cs)};
    planGather(cs, &p);
    /* Worth a segment with segment-seal-bytes of quiet chunks, or any once
     * no commit ran for CHUNKSEG_IDLE_MS. */
    int idle = now - cs->last_commit_ms >= CHUNKSEG_IDLE_MS;
    if (!p.n || (!idle && sdslen(p.body) < (size_t)server.cfg.segment_seal_bytes)) {
        planFree(&p);
        return 0;
    }
    sds name = segmentNewName();
    chunkSegment *g = segNew(name, p.n);
    sdsfree(name);
    for (size_t i = 0; i < p.n; i++) {
        g->refs[i] = p.refs[i];
        p.refs[i]->seg = g->id;
        p.refs[i]->part = (uint32_t)i;
    }
    g->live = p.n;
    segWrite(cs, g, &p);
    return 1;
}

/* ------------------------------------------------------------------------
 * Merging small segments by copy
 *
 * The live chunks of the smallest segments that kept their text are
 * copied into a new one; once it is durable, each chunk still sealed where
 * it was moves to it (the root names it from the next commit), and the
 * old segments, left with nothing live, are dropped. Nothing goes back
 * inline, so the roots meanwhile stay small.
 * --------------------------------------------------------------------- */

/* Plans and writes a merge of `from` (n segments, each with a body). */
static void mergeStart(chunksegState *cs, chunkSegment **from, size_t n) {
    chunkSealPlan p = {0};
    size_t alloc = 0, nmoves = 0;
    chunkMove *moves = NULL;
    for (size_t s = 0; s < n; s++) {
        chunkSegment *old = from[s];
        for (uint64_t i = 0; i < old->count; i++) {
            if (!old->refs[i]) continue;
            planAdd(&p, NULL, old->body + old->offs[i], old->offs[i + 1] - old->offs[i], 0);
            if (nmoves == alloc) {
                alloc = alloc ? alloc * 2 : 64;
                moves = zrealloc(moves, sizeof(*moves) * alloc);
            }
            moves[nmoves++] = (chunkMove){old->id, (uint32_t)i, old->refs[i]};
        }
    }
    sds name = segmentNewName();
    chunkSegment *g = segNew(name, p.n);
    sdsfree(name);
    g->moves = moves;
    cs->merged++;
    segWrite(cs, g, &p);
}

/* The merge landed: the chunks still where it copied them from move. */
static void mergeLanded(chunkSegment *g) {
    for (uint64_t k = 0; k < g->count; k++) {
        chunkMove *m = &g->moves[k];
        chunkSegment *old = segById(m->seg);
        if (old && m->part < old->count && old->refs[m->part] == m->ref) {
            chunkRef *r = m->ref;
            segPartLeaves(old, m->part); /* may drop old: r is still live */
            r->seg = g->id;
            r->part = (uint32_t)k;
            g->refs[k] = r;
            g->live++;
        } else {
            if (g->ngone++) g->gone = sdscatlen(g->gone, ",", 1);
            g->gone = jsonCatU64(g->gone, k);
        }
    }
    zfree(g->moves);
    g->moves = NULL;
}

/* More than CHUNKSEG_SMALL_MAX small segments with their text: the
 * smallest are merged, CHUNKSEG_PLAN_MAX together at most. 1 if a merge
 * started. */
static int mergeNext(chunksegState *cs) {
    if (cs->writing || !server.store || !server.store->type->seg_put) return 0;
    chunkSegment *small[CHUNKSEG_SMALL_MAX * 4];
    size_t n = 0, all = 0;
    for (listNode *ln = listFirst(cs->segs); ln; ln = ln->next) {
        chunkSegment *g = ln->value;
        if (!g->body || liveBytes(g) >= CHUNKSEG_PLAN_MAX / 4) continue;
        all++;
        if (n < sizeof(small) / sizeof(small[0])) small[n++] = g;
    }
    if (all <= CHUNKSEG_SMALL_MAX) return 0;
    qsort(small, n, sizeof(small[0]), byLiveBytes);
    uint64_t total = 0;
    size_t take = 0;
    while (take < n && (take < 2 || total + liveBytes(small[take]) <= CHUNKSEG_PLAN_MAX))
        total += liveBytes(small[take++]);
    mergeStart(cs, small, take);
    return 1;
}

static int sealAllowed(chunksegState *cs) {
    return cs->writing_epoch == cs->epoch && !server.loading && commitGetRole() == COMMIT_ROLE_BROKER;
}

static void sealDone(void *priv, storeStatus status, const char *err) {
    chunksegState *cs = C();
    uint32_t id = (uint32_t)(uintptr_t)priv;
    chunkSegment *g = segById(id);
    if (!cs || !g) return; /* shut down meanwhile */
    segmentWriting(g->name, 0);
    cs->writing = NULL;
    if (status != STORE_OK) {
        cs->seal_errors++;
        serverLog(LL_WARNING, "Chunk segment %s of %llu bytes not written: %s; its chunks stay in the root", g->name,
                  (unsigned long long)g->bytes, err ? err : "storage error");
        if (status == STORE_ERROR) segmentDeleteUnnamed(g->name); /* it may have landed */
        segAbandon(g);
        return;
    }
    int merge = g->moves != NULL;
    if (sealAllowed(cs) && merge) mergeLanded(g);
    if (!sealAllowed(cs) || !g->live) {
        segmentDeleteUnnamed(g->name);
        segAbandon(g);
        return;
    }
    segLanded(g, g->bytes, g->crc);
    if (!merge) {
        cs->recent_sealed += (long long)g->live;
        cs->sealed++;
    }
    cs->chunks_sealed += (long long)g->live;
    cs->bytes_sealed += (long long)g->bytes;
    /* Nothing a client changed: a commit nobody waits for, writing the
     * smaller root. */
    server.change_seq++;
    server.dirty++;
}

static void unseal(chunksegState *cs, chunkSegment *g) {
    cs->unsealed++;
    segDrop(g);
    server.change_seq++;
    server.dirty++;
}

/* Whether g's live chunks are worth writing again (inline for a commit or
 * two, then in a new segment) to stop naming its dead ones: once those
 * two writes weigh less than 64 commits' worth of its gone list in the
 * root (about 6 bytes a gone chunk), or once fewer than an eighth of its
 * chunks live (its dead bytes would cost storage forever). Not at half: a
 * queue consumed from its head empties its segments in order, and each
 * one's live half would be written again just before it is popped. A
 * segment with nothing gone is never rewritten (the same bytes again). */
static int worthUnsealing(const chunkSegment *g) {
    return g->ngone && (2 * liveBytes(g) < 64 * 6 * g->ngone || g->live * 8 < g->count);
}

/* Unseals what is not worth naming any more (worthUnsealing), and, once
 * more than CHUNKSEG_SMALL_MAX segments without their text (loaded ones:
 * the others are merged by copy, mergeNext) hold less than a quarter of
 * CHUNKSEG_PLAN_MAX, the smallest of them, up to CHUNKSEG_PLAN_MAX
 * together: they are sealed again as one (a queue with turnover would
 * otherwise leave a record per seal in every root). */
static void unsealSparse(chunksegState *cs) {
    chunkSegment *small[CHUNKSEG_SMALL_MAX * 4];
    size_t nsmall = 0, nsmall_all = 0;
    for (listNode *ln = listFirst(cs->segs), *next; ln; ln = next) {
        next = ln->next;
        chunkSegment *g = ln->value;
        if (worthUnsealing(g)) {
            unseal(cs, g);
        } else if (!g->body && liveBytes(g) < CHUNKSEG_PLAN_MAX / 4) {
            nsmall_all++;
            if (nsmall < sizeof(small) / sizeof(small[0])) small[nsmall++] = g;
        }
    }
    if (nsmall_all <= CHUNKSEG_SMALL_MAX) return;
    qsort(small, nsmall, sizeof(small[0]), byLiveBytes);
    uint64_t total = 0;
    for (size_t i = 0; i < nsmall && (i < 2 || total + liveBytes(small[i]) <= CHUNKSEG_PLAN_MAX); i++) {
        total += liveBytes(small[i]);
        unseal(cs, small[i]);
    }
}

/* Doubles the quiet time while a quarter or more of the chunks sealed
 * lately were gone soon after, halves it back toward key-seal-quiet while
 * almost none were (or none was gone at all: with nothing sealed there is
 * no other evidence): a queue's middle stays sealed at once, a sorted set
 * updated all over is left inline instead of being sealed and unsealed at
 * every commit. */
static void adaptQuiet(chunksegState *cs, long long now) {
    if (now < cs->next_adapt_ms) return;
    cs->next_adapt_ms = now + CHUNKSEG_ADAPT_MS;
    long long q = quietMs(cs);
    if (cs->recent_sealed >= 16 && cs->recent_churned * 4 >= cs->recent_sealed) {
        q = q * 2 < CHUNKSEG_QUIET_MAX_MS ? q * 2 : CHUNKSEG_QUIET_MAX_MS;
    } else if (cs->recent_churned * 16 <= cs->recent_sealed) {
        q /= 2;
    }
    cs->quiet_ms = q > server.cfg.key_seal_quiet_ms ? q : 0;
    cs->recent_sealed = cs->recent_churned = 0;
}

void chunksegCron(int broker) {
    chunksegState *cs = C();
    if (!cs || !broker || server.loading) return;
    long long now = mstime();
    adaptQuiet(cs, now);
    unsealSparse(cs);
    if (!mergeNext(cs)) sealNext(cs, now);
}

void chunksegCommitDone(int ok) {
    chunksegState *cs = C();
    if (!cs || !ok || server.loading || commitGetRole() != COMMIT_ROLE_BROKER) return;
    long long now = mstime();
    cs->last_commit_ms = now;
    sealNext(cs, now);
}

/* ========================================================================
 * INFO
 * ===================================================================== */

sds chunksegInfo(sds s) {
    chunksegState *cs = C();
    if (!cs) return s;
    unsigned long long live = 0, gone = 0;
    for (listNode *ln = listFirst(cs->segs); ln; ln = ln->next) {
        chunkSegment *g = ln->value;
        live += g->live;
        gone += g->ngone;
    }
    return sdscatprintf(s,
                        "chunk_segments:%lu\r\n"
                        "chunk_segments_chunks:%llu\r\n"
                        "chunk_segments_gone:%llu\r\n"
                        "chunk_segments_sealed:%lld\r\n"
                        "chunk_segments_chunks_sealed:%lld\r\n"
                        "chunk_segments_bytes_sealed:%lld\r\n"
                        "chunk_segments_unsealed:%lld\r\n"
                        "chunk_segments_merged:%lld\r\n"
                        "chunk_segments_seal_errors:%lld\r\n"
                        "chunk_segments_seal_in_progress:%d\r\n"
                        "chunk_segments_candidates:%lu\r\n"
                        "chunk_segments_quiet_ms:%lld\r\n",
                        listLength(cs->segs), live, gone, cs->sealed, cs->chunks_sealed, cs->bytes_sealed,
                        cs->unsealed, cs->merged, cs->seal_errors, cs->writing != NULL, dictSize(cs->big), quietMs(cs));
}
