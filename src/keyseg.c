/* keyseg.c -- key segments: see keyseg.h.
 *
 * Sealing (broker only, one key segment at a time, off the reply path):
 *
 *   cron / a landed commit ──> keysegPlan picks, in one db, the segments
 *            worth rewriting and notes the quiet inline keys
 *   slices ──> keysegBuildSlice encodes their values from memory into the
 *            segment's text, about a millisecond at a time between
 *            clients' commands (a key that changed since the plan is
 *            skipped); the store then writes it (create only, durable)
 *   put OK ──> keysegAttach: every planned key that did not change
 *            meanwhile (same object, same mod_seq, same source) now comes
 *            from the new segment; a key that did change is "gone" from it
 *            at once; rewritten segments left with no live key are dropped;
 *            change_seq moves so that the next commit writes the smaller
 *            root
 *
 * A root names a segment only after its put succeeded, since records are
 * made in the put's callback; no client waits for any of it.
 *
 * Quiet: a key is sealable once its mod_seq is older than the change_seq
 * the server had key-seal-quiet ms ago (samples of change_seq taken by the
 * cron), so that a key written and soon rewritten -- a job's hash while a
 * worker runs it -- stays inline instead of being sealed and left again. */
#include "keyseg.h"

#include <math.h>
#include <string.h>

#include <event2/event.h>

#include "adlist.h"
#include "commit.h"
#include "dict.h"
#include "jsonutil.h"
#include "persist.h"
#include "segment.h"
#include "server.h"
#include "store.h"
#include "t_stream.h"

#define KEYSEG_RING 64             /* change_seq samples kept */
#define KEYSEG_SAMPLE_MS 25        /* ... at most one per this */
#define KEYSEG_PLAN_EVERY_MS 50    /* plans tried at most this often */
#define KEYSEG_IDLE_MS 1000        /* no commit for this long: seal any quiet key */
#define KEYSEG_MAX_FANOUT 64       /* segment-merge-fanout's bound */

typedef struct keySealKey {
    sds key;          /* the key (a copy) */
    robj *o;          /* its object when planned: compared, never followed */
    uint64_t mod_seq; /* ... and its mod_seq */
    uint32_t from;    /* the segment it came from, 0 if inline */
} keySealKey;

typedef struct keySealJob {
    int dbid;            /* the database */
    uint64_t epoch;      /* keysegState.epoch when planned */
    sds name;            /* the segment */
    uint64_t bytes;      /* its size */
    uint32_t crc;        /* its CRC-32 */
    keySealKey *keys;    /* the keys written, in the segment's order */
    size_t n, alloc;     /* how many, room */
    uint32_t *from;      /* segments rewritten */
    size_t nfrom;        /* how many */
    /* --- building the text, a slice at a time (keysegBuildSlice) --- */
    sds text;            /* the segment so far; NULL once handed to the store */
    size_t from_i;       /* the rewritten segment being copied */
    size_t from_pos;     /* ... offset in its names */
    keySealKey *cand;    /* quiet inline keys when planned */
    size_t ncand;        /* how many */
    size_t cand_i;       /* the next one */
} keySealJob;

typedef struct keysegState {
    dict *byid;                    /* id -> keySegment* */
    uint32_t next_id;              /* ids given so far (0 is "inline") */
    keySealJob *job;               /* the seal being built or written, or NULL */
    struct event *build_ev;        /* runs the next slice of a build */
    uint64_t epoch;                /* moves when a db is emptied or swapped:
                                    * a seal planned before is not attached */
    long long sample_ms[KEYSEG_RING]; /* when change_seq was sampled */
    uint64_t sample_seq[KEYSEG_RING]; /* ... and its value */
    unsigned sample_pos;           /* next slot */
    long long next_plan_ms;        /* no plan before */
    int next_db;                   /* round-robin over the dbs */
    /* --- statistics (INFO) --- */
    int before_start;              /* keysegSealBeforeStart is running */
    long long last_commit_ms;      /* when the last commit landed */
    long long sealed;              /* key segments written and named */
    long long rewritten;           /* ... of which rewrote others */
    long long keys_sealed;         /* keys attached to them */
    long long bytes_sealed;        /* their bytes */
    long long seal_errors;         /* seals that failed */
} keysegState;

static dictType keysegByIdType = {dictPtrHash, dictPtrCompare, NULL, NULL};

static uint64_t inlineHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }
static int inlineCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}
/* db->inline_keys: the key sds belongs to db->keys, the object too. */
static dictType inlineKeysType = {inlineHash, inlineCompare, NULL, NULL};

static keysegState *K(void) { return server.keyseg; }

void keysegInit(void) {
    keysegState *ks = zcalloc(sizeof(*ks));
    ks->byid = dictCreate(&keysegByIdType);
    server.keyseg = ks;
}

static void sealJobFree(keySealJob *j) {
    for (size_t i = 0; i < j->n; i++) sdsfree(j->keys[i].key);
    for (size_t i = 0; i < j->ncand; i++) sdsfree(j->cand[i].key);
    zfree(j->keys);
    zfree(j->cand);
    zfree(j->from);
    sdsfree(j->name);
    sdsfree(j->text);
    zfree(j);
}

/* After the store was closed and the dbs freed. */
void keysegFree(void) {
    keysegState *ks = K();
    if (!ks) return;
    if (ks->job) sealJobFree(ks->job); /* the store is closed: no callback will come */
    if (ks->build_ev) event_free(ks->build_ev);
    dictRelease(ks->byid);
    zfree(ks);
    server.keyseg = NULL;
}

static keySegment *segById(uint32_t id) {
    keysegState *ks = K();
    return ks ? dictFetchValue(ks->byid, (void *)(uintptr_t)id) : NULL;
}

/* Each name is its length as a varint (7 bits a byte, low bits first: one
 * byte for a name shorter than 128) and its bytes. */
sds keysegNamesAdd(sds names, const char *key, size_t len) {
    unsigned char v[10];
    size_t n = 0;
    for (size_t l = len; ; l >>= 7) {
        v[n++] = (unsigned char)((l & 0x7f) | (l >= 0x80 ? 0x80 : 0));
        if (l < 0x80) break;
    }
    names = sdscatlen(names, v, n);
    return sdscatlen(names, key, len);
}

/* The name at names[*pos] into *out; 0 at the end (or a damaged list). */
static int namesNext(const sds names, size_t *pos, sds *out) {
    size_t len = 0, end = sdslen(names);
    for (int shift = 0; ; shift += 7) {
        if (*pos >= end || shift > 56) return 0;
        unsigned char c = (unsigned char)names[(*pos)++];
        len |= (size_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) break;
    }
    if (len > end - *pos) return 0;
    *out = sdscpylen(*out, names + *pos, len);
    *pos += len;
    return 1;
}

/* ========================================================================
 * Records
 * ===================================================================== */

static keySegment *segNew(redisDb *db, const char *name, uint64_t count, uint64_t bytes, uint32_t crc) {
    keysegState *ks = K();
    keySegment *g = zcalloc(sizeof(*g));
    g->id = ++ks->next_id;
    if (g->id == 0) g->id = ++ks->next_id; /* 0 means inline */
    g->name = sdsnew(name);
    g->count = count;
    g->bytes = bytes;
    g->crc = crc;
    g->gone = sdsempty();
    g->names = sdsempty();
    dictAdd(ks->byid, (void *)(uintptr_t)g->id, g);
    listAddNodeTail(db->keysegs, g);
    segmentRegister(g->name, g->bytes);
    return g;
}

static void segFree(keySegment *g) {
    sdsfree(g->name);
    sdsfree(g->gone);
    sdsfree(g->names);
    zfree(g);
}

/* The state stops naming g: segment.c deletes it once a root without it
 * has landed and the grace period passed. */
static void segDrop(redisDb *db, keySegment *g) {
    listNode *ln = listSearchKey(db->keysegs, g);
    if (ln) listDelNode(db->keysegs, ln);
    dictDelete(K()->byid, (void *)(uintptr_t)g->id);
    segmentUnregister(g->name, g->bytes);
    segmentDropped(g->name);
    segFree(g);
}

/* key no longer comes from g (o->seg is the caller's). */
static void segGone(redisDb *db, keySegment *g, const char *key, size_t len) {
    if (g->ngone) g->gone = sdscatlen(g->gone, ",", 1);
    g->gone = jsonCatBytes(g->gone, key, len);
    g->ngone++;
    if (--g->live == 0 && !g->rewriting) segDrop(db, g);
}

/* ========================================================================
 * The keyspace changes
 * ===================================================================== */

void keysegDbInit(redisDb *db) {
    db->inline_keys = dictCreate(&inlineKeysType);
    db->keysegs = listCreate();
}

void keysegDbFree(redisDb *db) {
    for (listNode *ln = listFirst(db->keysegs); ln; ln = ln->next) {
        keySegment *g = ln->value;
        if (K()) dictDelete(K()->byid, (void *)(uintptr_t)g->id);
        segFree(g);
    }
    listRelease(db->keysegs);
    dictRelease(db->inline_keys);
}

void keysegKeyAdded(redisDb *db, sds key, robj *o) {
    o->seg = 0;
    dictAdd(db->inline_keys, key, o);
}

void keysegKeyRemoved(redisDb *db, sds key, robj *o) {
    if (!o->seg) {
        dictDelete(db->inline_keys, key);
        return;
    }
    keySegment *g = segById(o->seg);
    o->seg = 0;
    serverAssert(g != NULL);
    segGone(db, g, key, sdslen(key));
}

void keysegKeyChanged(redisDb *db, sds key, robj *o) {
    if (!o || !o->seg) return;
    dictEntry *de = dictFind(db->keys, key);
    serverAssert(de && de->val == o);
    keySegment *g = segById(o->seg);
    serverAssert(g != NULL);
    o->seg = 0;
    dictAdd(db->inline_keys, de->key, o);
    segGone(db, g, key, sdslen(key));
}

void keysegDbEmptied(redisDb *db) {
    if (K()) K()->epoch++;
    while (listLength(db->keysegs)) {
        keySegment *g = listFirst(db->keysegs)->value;
        g->rewriting = 0;
        segDrop(db, g);
    }
    dictEmpty(db->inline_keys);
}

void keysegDbsSwapped(redisDb *db1, redisDb *db2) {
    if (K()) K()->epoch++;
    dict *d = db1->inline_keys;
    db1->inline_keys = db2->inline_keys;
    db2->inline_keys = d;
    list *l = db1->keysegs;
    db1->keysegs = db2->keysegs;
    db2->keysegs = l;
}

/* ========================================================================
 * The document
 * ===================================================================== */

sds keysegCatRecords(sds out, redisDb *db) {
    out = sdscatlen(out, "[", 1);
    int first = 1;
    for (listNode *ln = listFirst(db->keysegs); ln; ln = ln->next) {
        keySegment *g = ln->value;
        out = sdscatlen(out, first ? "\n{\"name\":" : ",\n{\"name\":", first ? 9 : 10);
        first = 0;
        out = jsonCatString(out, g->name, sdslen(g->name));
        out = segmentCatSizes(out, g->count, g->bytes, g->crc, g->live);
        out = sdscatlen(out, ",\"gone\":[", 9);
        out = sdscatlen(out, g->gone, sdslen(g->gone));
        out = sdscatlen(out, "]}", 2);
    }
    return sdscatlen(out, "]", 1);
}

uint32_t keysegInstall(redisDb *db, const char *name, uint64_t count, uint64_t bytes, uint32_t crc, sds gone,
                       uint64_t ngone, sds names) {
    keySegment *g = segNew(db, name, count, bytes, crc);
    sdsfree(g->gone);
    sdsfree(g->names);
    g->gone = gone;
    g->ngone = ngone;
    g->names = sdsRemoveFreeSpace(names);
    return g->id;
}

void keysegKeyLoaded(redisDb *db, sds key, robj *o, uint32_t id) {
    keySegment *g = segById(id);
    serverAssert(g != NULL);
    dictDelete(db->inline_keys, key);
    o->seg = id;
    g->live++;
}

void keysegUnsealAll(void) {
    for (int j = 0; server.db && j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        if (!listLength(db->keysegs)) continue;
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, db->keys);
        while ((de = dictNext(&it))) {
            robj *o = de->val;
            if (!o->seg) continue;
            o->seg = 0;
            dictAdd(db->inline_keys, de->key, o);
        }
        while (listLength(db->keysegs)) {
            keySegment *g = listFirst(db->keysegs)->value;
            g->rewriting = 0;
            segDrop(db, g);
        }
    }
    if (K()) K()->epoch++;
}

/* ========================================================================
 * Sealing
 * ===================================================================== */

/* The change_seq that was current key-seal-quiet ms ago: objects not
 * changed since are quiet. 0 if the samples do not reach back that far. */
static uint64_t quietSeq(keysegState *ks, long long now) {
    long long limit = now - server.cfg.key_seal_quiet_ms;
    uint64_t best = 0;
    long long best_ms = LLONG_MIN;
    for (unsigned i = 0; i < KEYSEG_RING; i++) {
        if (!ks->sample_ms[i] || ks->sample_ms[i] > limit || ks->sample_ms[i] < best_ms) continue;
        best_ms = ks->sample_ms[i];
        best = ks->sample_seq[i];
    }
    return best;
}

static void sample(keysegState *ks, long long now) {
    unsigned last = (ks->sample_pos + KEYSEG_RING - 1) % KEYSEG_RING;
    /* Spaced so that the ring reaches back twice key-seal-quiet. */
    long long every = server.cfg.key_seal_quiet_ms / (KEYSEG_RING / 2);
    if (every < KEYSEG_SAMPLE_MS) every = KEYSEG_SAMPLE_MS;
    if (ks->sample_ms[last] && now - ks->sample_ms[last] < every) return;
    ks->sample_ms[ks->sample_pos] = now;
    ks->sample_seq[ks->sample_pos] = server.change_seq;
    ks->sample_pos = (ks->sample_pos + 1) % KEYSEG_RING;
}

/* The JSON bytes (upper bound) o would add to a key segment, 0 if it may
 * not be sealed now: a stream, changed within key-seal-quiet, bigger than
 * a segment, or a big list or sorted set (its quiet chunks are sealed in
 * chunk segments instead: a queue paused for a moment is not rewritten
 * whole). */
static size_t sealableBytes(robj *o, uint64_t quiet) {
    if (o->type == OBJ_STREAM || o->mod_seq > quiet) return 0;
    const objectType *ot = objectTypeGet(o->type);
    size_t bytes = ot->jsonBytes(o);
    if (ot->sealChunks && bytes > PERSIST_CACHE_MAX_VALUE) return 0;
    return bytes <= (size_t)server.cfg.segment_max_bytes ? bytes : 0;
}

/* Size class of a segment: seal-bytes x 4^k. */
static int sizeClass(uint64_t bytes) {
    uint64_t c = (uint64_t)server.cfg.segment_seal_bytes;
    int k = 0;
    while (bytes >= c * (uint64_t)server.cfg.segment_merge_fanout && k < 30) {
        c *= (uint64_t)server.cfg.segment_merge_fanout;
        k++;
    }
    return k;
}

/* Appends key (object o, from segment `from`, 0 inline) to an array of
 * planned keys, growing it. */
static void keyListAdd(keySealKey **arr, size_t *n, size_t *alloc, sds key, robj *o, uint32_t from) {
    if (*n == *alloc) {
        *alloc = *alloc ? *alloc * 2 : 64;
        *arr = zrealloc(*arr, sizeof(**arr) * *alloc);
    }
    keySealKey *k = &(*arr)[(*n)++];
    k->key = sdsdup(key);
    k->o = o;
    k->mod_seq = o->mod_seq;
    k->from = from;
}

static void jobAdd(keySealJob *j, sds key, robj *o, uint32_t from) {
    keyListAdd(&j->keys, &j->n, &j->alloc, key, o, from);
}

/* How many bytes of gone lists the root may carry before the segment
 * with the most of them per byte is rewritten. Carrying G bytes costs G
 * per commit; clearing them costs rewriting segments: with updates spread
 * over a sealed keyspace of K bytes, the sum of both is least for G about
 * sqrt(name bytes per commit x K). Estimated with 1 KB of names per
 * commit (50 changes of 20-byte keys), and never below
 * segment-seal-bytes. */
static size_t goneBudget(uint64_t sealed_bytes) {
    double g = sqrt(1024.0 * (double)sealed_bytes);
    return g > (double)server.cfg.segment_seal_bytes ? (size_t)g : (size_t)server.cfg.segment_seal_bytes;
}

/* Picks the segments of db to rewrite into `from`: one whose live share is
 * below half, or the one whose gone list is the largest share of its size
 * while the gone lists weigh more than goneBudget in the root, or the
 * segment-merge-fanout smallest of a size class, merged into one of the
 * next (at most segment-max-bytes). */
static size_t pickRewrites(redisDb *db, keySegment **from) {
    size_t gone_bytes = 0;
    uint64_t sealed_bytes = 0;
    keySegment *worst = NULL;
    int counts[32] = {0};
    for (listNode *ln = listFirst(db->keysegs); ln; ln = ln->next) {
        keySegment *g = ln->value;
        if (g->rewriting) return 0; /* one plan at a time per segment */
        if (g->live * 2 < g->count) {
            from[0] = g;
            return 1;
        }
        gone_bytes += sdslen(g->gone);
        sealed_bytes += g->bytes;
        if (!worst || (double)sdslen(g->gone) / (double)g->bytes > (double)sdslen(worst->gone) / (double)worst->bytes)
            worst = g;
        counts[sizeClass(g->bytes)]++;
    }
    if (worst && gone_bytes > goneBudget(sealed_bytes)) {
        from[0] = worst;
        return 1;
    }
    for (int k = 0; k < 31; k++) {
        if (counts[k] < server.cfg.segment_merge_fanout) continue;
        uint64_t next = (uint64_t)server.cfg.segment_seal_bytes;
        for (int i = 0; i <= k; i++) next *= (uint64_t)server.cfg.segment_merge_fanout;
        if (next > (uint64_t)server.cfg.segment_max_bytes) continue;
        size_t n = 0;
        uint64_t total = 0;
        for (listNode *ln = listFirst(db->keysegs); ln && n < (size_t)server.cfg.segment_merge_fanout; ln = ln->next) {
            keySegment *g = ln->value;
            if (sizeClass(g->bytes) != k) continue;
            from[n++] = g;
            total += g->bytes;
        }
        if (total <= (uint64_t)server.cfg.segment_max_bytes) return n;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Planning and building
 *
 * A plan is cheap: it picks the segments to rewrite and takes note of the
 * quiet inline keys (names, objects, mod_seqs). Encoding their values --
 * megabytes for a big segment -- runs in slices of KEYSEG_SLICE_US between
 * clients' commands; a key that changed since the plan is skipped.
 * --------------------------------------------------------------------- */

#define KEYSEG_SLICE_US 1000 /* encoding per slice */

/* Plans a seal of db; NULL if there is nothing worth writing. */
static keySealJob *keysegPlan(keysegState *ks, redisDb *db, uint64_t quiet) {
    keySegment *from[KEYSEG_MAX_FANOUT];
    size_t nfrom = pickRewrites(db, from);
    size_t max = (size_t)server.cfg.segment_max_bytes, room = max, quiet_bytes = 0;
    for (size_t i = 0; i < nfrom; i++) {
        size_t live = (size_t)(from[i]->bytes * from[i]->live / from[i]->count);
        room = live < room ? room - live : 0;
    }
    keySealJob *j = zcalloc(sizeof(*j));
    size_t alloc = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, db->inline_keys);
    while ((de = dictNext(&it)) && quiet_bytes < room) {
        size_t bytes = sealableBytes(de->val, quiet);
        if (!bytes) continue;
        quiet_bytes += bytes;
        keyListAdd(&j->cand, &j->ncand, &alloc, de->key, de->val, 0);
    }
    /* Worth a segment only with segment-seal-bytes of quiet values -- or
     * any, once no commit ran for KEYSEG_IDLE_MS: an idle server's root
     * shrinks to what cannot be sealed, and the roots' JSON cache
     * (persist.c) lets go of the keys. */
    int idle = mstime() - ks->last_commit_ms >= KEYSEG_IDLE_MS;
    if (!nfrom && (quiet_bytes == 0 || (!idle && quiet_bytes < (size_t)server.cfg.segment_seal_bytes))) {
        sealJobFree(j);
        return NULL;
    }
    j->dbid = db->id;
    j->epoch = ks->epoch;
    j->name = segmentNewName();
    if (nfrom) {
        j->from = zmalloc(sizeof(uint32_t) * nfrom);
        for (size_t i = 0; i < nfrom; i++) {
            from[i]->rewriting = 1;
            j->from[j->nfrom++] = from[i]->id;
        }
    }
    j->text = sdscatlen(sdsempty(), "{\"format\":2,\"segment\":", 22);
    j->text = jsonCatString(j->text, j->name, sdslen(j->name));
    j->text = sdscatlen(j->text, ",\"keys\":[", 9);
    return j;
}

/* Encodes key (o from segment `from`, 0 inline) into the job. */
static void buildKey(keySealJob *j, redisDb *db, dictEntry *de, uint32_t from) {
    j->text = sdscatlen(j->text, j->n ? ",\n" : "\n", j->n ? 2 : 1);
    j->text = persistCatKey(j->text, db, de->key, de->val, commitEncodeCache());
    jobAdd(j, de->key, de->val, from);
}

/* The next live key of the rewritten segments into the job; 0 when done. */
static int buildNextRewritten(keySealJob *j, redisDb *db, sds *scratch) {
    while (j->from_i < j->nfrom) {
        keySegment *g = segById(j->from[j->from_i]);
        if (!g || !namesNext(g->names, &j->from_pos, scratch)) {
            j->from_i++;
            j->from_pos = 0;
            continue;
        }
        dictEntry *de = dictFind(db->keys, *scratch);
        if (!de || ((robj *)de->val)->seg != g->id) continue; /* gone from it */
        buildKey(j, db, de, g->id);
        return 1;
    }
    return 0;
}

/* The next quiet inline key noted by the plan; 0 when done. */
static int buildNextQuiet(keySealJob *j, redisDb *db) {
    while (j->cand_i < j->ncand && sdslen(j->text) < (size_t)server.cfg.segment_max_bytes) {
        keySealKey *k = &j->cand[j->cand_i++];
        dictEntry *de = dictFind(db->keys, k->key);
        robj *o = de ? de->val : NULL;
        if (!o || o != k->o || o->mod_seq != k->mod_seq || o->seg) continue; /* changed since */
        buildKey(j, db, de, 0);
        return 1;
    }
    return 0;
}

static void sealDone(void *priv, storeStatus status, const char *err);
static void buildSchedule(keysegState *ks);

/* Whether j may go on and be attached: the state it was planned on is
 * still this broker's (or the start-up seal is running). */
static int sealAllowed(keysegState *ks, keySealJob *j) {
    if (j->epoch != ks->epoch) return 0;
    if (ks->before_start) return 1;
    return !server.loading && commitGetRole() == COMMIT_ROLE_BROKER;
}

/* The db whose list holds g (SWAPDB may have moved it since the plan). */
static redisDb *segDb(keySegment *g) {
    for (int j = 0; j < server.cfg.databases; j++)
        if (listSearchKey(server.db[j].keysegs, g)) return &server.db[j];
    return NULL;
}

/* The segments a job was rewriting are free again; those left with no
 * live key are dropped. */
static void releaseRewrites(keySealJob *j) {
    for (size_t i = 0; i < j->nfrom; i++) {
        keySegment *g = segById(j->from[i]);
        if (!g) continue;
        g->rewriting = 0;
        redisDb *db = g->live ? NULL : segDb(g);
        if (db) segDrop(db, g);
    }
}

/* Gives up the job (the state changed under it). */
static void buildAbort(keysegState *ks, keySealJob *j) {
    ks->job = NULL;
    releaseRewrites(j);
    sealJobFree(j);
}

/* One slice of the build; the segment goes to the store once complete. */
static void keysegBuildSlice(keysegState *ks) {
    keySealJob *j = ks->job;
    if (!j || !j->text) return;
    if (!sealAllowed(ks, j)) {
        buildAbort(ks, j);
        return;
    }
    redisDb *db = &server.db[j->dbid];
    long long start = ustime();
    sds scratch = sdsempty();
    int more = 1;
    while (more && ustime() - start < KEYSEG_SLICE_US) {
        for (int i = 0; i < 16 && more; i++) more = buildNextRewritten(j, db, &scratch) || buildNextQuiet(j, db);
    }
    sdsfree(scratch);
    if (more) {
        buildSchedule(ks);
        return;
    }
    if (!j->n) { /* everything changed meanwhile, or rewrites of nothing */
        buildAbort(ks, j);
        return;
    }
    j->text = sdscatlen(j->text, "\n],\"count\":", 11);
    j->text = jsonCatU64(j->text, j->n);
    j->text = sdscatlen(j->text, "}\n", 2);
    j->bytes = sdslen(j->text);
    j->crc = streamSegmentCRC(j->text, sdslen(j->text));
    sds text = j->text;
    j->text = NULL;
    segmentWriting(j->name, 1);
    server.store->type->seg_put(server.store, j->name, text, sealDone, j);
}

static void buildTimer(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    if (K()) keysegBuildSlice(K());
}

/* The next slice as soon as the loop has served what is waiting. */
static void buildSchedule(keysegState *ks) {
    if (!ks->build_ev) ks->build_ev = evtimer_new(server.el, buildTimer, NULL);
    struct timeval now = {0, 0};
    evtimer_add(ks->build_ev, &now);
}

/* Plans the next seal and starts building it; 1 if one started. */
static int sealNext(keysegState *ks, long long now) {
    if (ks->job || now < ks->next_plan_ms || !server.store || !server.store->type->seg_put) return 0;
    ks->next_plan_ms = now + KEYSEG_PLAN_EVERY_MS;
    /* Before the first commit every loaded key is quiet. */
    uint64_t quiet = ks->before_start ? server.change_seq : quietSeq(ks, now);
    for (int tries = 0; tries < server.cfg.databases; tries++) {
        redisDb *db = &server.db[ks->next_db];
        ks->next_db = (ks->next_db + 1) % server.cfg.databases;
        if (!dictSize(db->keys)) continue;
        keySealJob *j = keysegPlan(ks, db, quiet);
        if (!j) continue;
        ks->job = j;
        keysegBuildSlice(ks);
        return 1;
    }
    return 0;
}

/* The put landed: the planned keys that did not change now come from it. */
static void keysegAttach(keysegState *ks, keySealJob *j) {
    redisDb *db = &server.db[j->dbid];
    keySegment *g = segNew(db, j->name, j->n, j->bytes, j->crc);
    g->rewriting = 1; /* not dropped while it fills */
    for (size_t i = 0; i < j->n; i++) {
        keySealKey *k = &j->keys[i];
        dictEntry *de = dictFind(db->keys, k->key);
        robj *o = de ? de->val : NULL;
        if (!o || o != k->o || o->mod_seq != k->mod_seq || o->seg != k->from) {
            /* Changed, deleted or moved meanwhile: the root has it. */
            if (g->ngone) g->gone = sdscatlen(g->gone, ",", 1);
            g->gone = jsonCatBytes(g->gone, k->key, sdslen(k->key));
            g->ngone++;
            continue;
        }
        if (k->from) {
            keySegment *old = segById(k->from);
            serverAssert(old != NULL);
            segGone(db, old, k->key, sdslen(k->key));
        } else {
            dictDelete(db->inline_keys, k->key);
        }
        o->seg = g->id;
        g->live++;
        g->names = keysegNamesAdd(g->names, k->key, sdslen(k->key));
    }
    for (size_t i = 0; i < j->nfrom; i++) {
        keySegment *old = segById(j->from[i]);
        if (!old) continue;
        old->rewriting = 0;
        if (!old->live) segDrop(db, old);
    }
    g->rewriting = 0;
    g->names = sdsRemoveFreeSpace(g->names); /* kept as long as the segment */
    ks->keys_sealed += (long long)g->live;
    if (!g->live) {
        segDrop(db, g); /* nothing of it is needed: garbage at once */
    } else {
        ks->sealed++;
        if (j->nfrom) ks->rewritten++;
        ks->bytes_sealed += (long long)j->bytes;
    }
    /* Nothing a client changed: a commit nobody waits for, writing the
     * smaller root. */
    server.change_seq++;
    server.dirty++;
}

static void sealDone(void *priv, storeStatus status, const char *err) {
    keysegState *ks = K();
    keySealJob *j = priv;
    segmentWriting(j->name, 0);
    if (!ks) { /* shut down meanwhile */
        sealJobFree(j);
        return;
    }
    ks->job = NULL;
    int current = sealAllowed(ks, j);
    if (status != STORE_OK) {
        ks->seal_errors++;
        serverLog(LL_WARNING, "Key segment %s of %llu bytes not written: %s; its keys stay in the root", j->name,
                  (unsigned long long)j->bytes, err ? err : "storage error");
        if (status == STORE_ERROR) segmentDeleteUnnamed(j->name); /* it may have landed */
    } else if (!current) {
        segmentDeleteUnnamed(j->name);
    } else {
        keysegAttach(ks, j);
    }
    if (!current || status != STORE_OK) releaseRewrites(j);
    sealJobFree(j);
}

void keysegCron(int broker) {
    keysegState *ks = K();
    if (!ks) return;
    long long now = mstime();
    sample(ks, now);
    if (broker && !server.loading) sealNext(ks, now);
}

void keysegCommitDone(int ok) {
    keysegState *ks = K();
    if (!ks || !ok || server.loading || commitGetRole() != COMMIT_ROLE_BROKER) return;
    long long now = mstime();
    ks->last_commit_ms = now;
    sample(ks, now);
    sealNext(ks, now);
}

/* ========================================================================
 * INFO
 * ===================================================================== */

sds keysegInfo(sds s) {
    keysegState *ks = K();
    if (!ks) return s;
    unsigned long long inl = 0, sealed_keys = 0, gone = 0;
    for (int j = 0; server.db && j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        inl += dictSize(db->inline_keys);
        for (listNode *ln = listFirst(db->keysegs); ln; ln = ln->next) {
            keySegment *g = ln->value;
            sealed_keys += g->live;
            gone += g->ngone;
        }
    }
    return sdscatprintf(s,
                        "key_segments:%lu\r\n"
                        "key_segments_keys:%llu\r\n"
                        "key_segments_gone:%llu\r\n"
                        "keys_inline:%llu\r\n"
                        "key_segments_sealed:%lld\r\n"
                        "key_segments_rewritten:%lld\r\n"
                        "key_segments_keys_sealed:%lld\r\n"
                        "key_segments_bytes_sealed:%lld\r\n"
                        "key_segments_seal_errors:%lld\r\n"
                        "key_segments_seal_in_progress:%d\r\n",
                        dictSize(ks->byid), sealed_keys, gone, inl, ks->sealed, ks->rewritten, ks->keys_sealed,
                        ks->bytes_sealed, ks->seal_errors, ks->job != NULL);
}

/* ========================================================================
 * Before the first commit
 * ===================================================================== */

/* commitInit, between its load and its first commit: a loaded document
 * that holds many keys inline (written by a casq before key segments, an
 * export) is sealed first, so that the first root written is small. Runs
 * the loop until done. */
void keysegSealBeforeStart(void) {
    keysegState *ks = K();
    if (!ks || !server.store || !server.store->type->seg_put) return;
    long long start = mstime(), sealed = ks->sealed;
    ks->before_start = 1;
    for (;;) {
        long long errors = ks->seal_errors;
        ks->next_plan_ms = 0;
        if (!ks->job && !sealNext(ks, mstime())) break;
        while (ks->job && ks->job->text) keysegBuildSlice(ks);
        while (ks->job) event_base_loop(server.el, EVLOOP_ONCE);
        if (ks->seal_errors > errors) break; /* the store refuses: the rest stays inline */
    }
    ks->before_start = 0;
    if (ks->sealed > sealed)
        serverLog(LL_NOTICE, "Key segments: sealed %lld before the first commit in %lld ms (the root stays small)",
                  ks->sealed - sealed, mstime() - start);
}
