/* segment.c -- the life of segments: see segment.h.
 *
 * Sealing (broker only, one segment at a time, off the reply path):
 *
 *   cron ──> a stream on the queue has enough sealable inline entries (or
 *            segments worth rewriting): streamPlanSeal picks the nodes and
 *            makes the segment's text; store->seg_put writes it (create
 *            only, durable)
 *   put OK > streamAttachSegment: the planned nodes that did not change
 *            meanwhile now point at it; change_seq moves so that the next
 *            commit writes a root naming it instead of their entries
 *
 * No reply waits for any of it: a client's change is durable through the
 * root as always; sealing only moves entries out of later roots. A root
 * names a segment only after its put succeeded, because the attach happens
 * in the put's callback.
 *
 * Garbage: a segment the state stops naming (all its nodes left, the
 * stream was deleted, a rewrite moved its nodes) is dropped; the next
 * commit's root no longer names it; once that commit has landed, the
 * segment is deleted after the grace period (max(segment-gc-grace,
 * 2 x broker-timeout + the last load time)), so that a node that loaded an
 * older root in the meantime has fetched it. A reader that still finds a
 * segment missing reads the root again (commit.c). Segments that no root
 * ever named (a crash between a segment's put and the commit naming it, a
 * seal that lost its stream) are orphans: the broker lists the store at
 * start-up and every grace period, and deletes what no state in memory
 * names and nobody is writing, if older than the grace period; an
 * unnamed one kept for being younger is looked at again once it is not
 * (otherwise the sweep runs at most once a minute).
 *
 * None of this survives a reload: when the state is replaced, the books
 * are reset and only the sweep deletes what the new state does not name. */
#include "segment.h"

#include <cjson/cJSON.h>
#include <event2/event.h>
#include <string.h>
#include <zlib.h>

#include "adlist.h"
#include "commit.h"
#include "jsonutil.h"
#include "chunkseg.h"
#include "keyseg.h"
#include "dict.h"
#include "server.h"
#include "store.h"
#include "t_stream.h"

#define SEG_SEAL_TRIES_PER_CRON 16 /* streams looked at per cron tick */
#define SEG_DELETES_IN_FLIGHT 8    /* concurrent deletions */
#define SEG_FETCHES_IN_FLIGHT 8    /* concurrent reads while loading */
#define SEG_SWEEP_FIRST_MS 1000    /* the first sweep after becoming broker */
#define SEG_SWEEP_MIN_INTERVAL_MS 60000

/* A segment the state no longer names. It sits in one of three lists by
 * how far that is known (so that a commit touches only the garbage it
 * made, not all of it -- a busy stream drops hundreds of segments a
 * second, and they wait out the grace period):
 *   garbage_new     dropped from the state; no commit omitting it yet
 *   garbage_flight  the commit in flight omits it
 *   garbage         a landed root omits it: deleted once due (due order) */
typedef struct segGarbage {
    sds name;            /* the segment */
    long long due_ms;    /* committed: delete from then on */
    int deleting;        /* a seg_del is in flight */
} segGarbage;

typedef struct segNamed {
    unsigned long refs;  /* records naming it (old and new states) */
    uint64_t bytes;      /* its size */
} segNamed;

/* Two seals may be in flight, one per lane, so that merging big segments
 * never holds back the sealing of new entries (meanwhile they would ride
 * in every root). The lanes' plans never share a node. */
#define SEAL_LANES 2

typedef struct sealJob {
    int lane;            /* STREAM_SEAL_NEW or STREAM_SEAL_REWRITE */
    stream *s;           /* the stream, NULL once it was freed */
    streamSealPlan plan; /* the nodes written */
    int manifest;        /* a manifest (the rewrite lane's), not a segment */
    streamManifestPlan mplan; /* ... the records written */
    sds name;            /* the segment */
    uint64_t bytes;      /* its size */
    uint32_t crc;        /* its CRC-32 */
    int rewrite;         /* it empties other segments */
} sealJob;

/* A manifest named by a root being fetched: its segments are the second
 * round (those its root record does not list as dead). */
typedef struct fetchManifest {
    sds name;            /* the manifest */
    dict *dead;          /* names of its dead segments (set) */
} fetchManifest;

static void fetchManifestFree(void *p) {
    fetchManifest *f = p;
    sdsfree(f->name);
    dictRelease(f->dead);
    zfree(f);
}

typedef struct segmentState {
    /* --- sealing --- */
    list *queue;                /* stream* with STREAM_SEAL_QUEUED set */
    sealJob *jobs[SEAL_LANES];  /* the seals in flight, by lane */
    dict *writing;              /* names being written (set) */
    unsigned long long next_name; /* names made by this process */
    int before_start;           /* segmentsSealBeforeStart is running */
    /* --- the books --- */
    dict *named;                /* name -> segNamed: named by a state in memory */
    uint64_t named_bytes;       /* their sizes, summed */
    list *garbage;              /* segGarbage*: committed, by due time */
    list *garbage_flight;       /* segGarbage*: omitted by the commit in flight */
    list *garbage_new;          /* segGarbage*: dropped since */
    unsigned long deleting;     /* seg_del in flight */
    /* --- the orphan sweep --- */
    int was_broker;             /* segmentsCron saw us as broker last time */
    long long next_sweep_ms;    /* when the next sweep runs */
    int sweeping;               /* a seg_list is in flight */
    /* --- fetching for a load --- */
    dict *cache;                /* name -> segCached: segment texts fetched */
    list *fetch_todo;           /* names still to get (sds) */
    list *fetch_manifests;      /* fetchManifest*: manifests whose segments
                                 * are fetched once they are here */
    unsigned long fetch_inflight; /* gets in flight */
    sds fetch_missing;          /* first object found missing: "segment NAME"
                                 * or "manifest NAME" */
    sds fetch_err;              /* first failure */
    segmentsFetchCallback *fetch_cb; /* where the result goes */
    void *fetch_priv;           /* ... and its argument */
    /* --- the rate of appends, for the seal threshold --- */
    uint64_t appended_seen;     /* streamBytesAppended() at the last commit */
    double batch_ewma;          /* bytes appended per commit (commits that
                                 * appended any), moving average */
    /* --- statistics (INFO) --- */
    long long sealed;           /* segments written and named */
    long long rewritten;        /* ... of which rewrote others */
    long long manifests_written; /* manifests written and named */
    unsigned long manifests_live; /* manifests named by a state in memory */
    long long bytes_sealed;     /* their bytes */
    long long seal_errors;      /* seals that failed */
    long long deleted;          /* garbage deleted */
    long long delete_errors;    /* deletions that failed */
    long long orphans_swept;    /* orphans deleted */
    long long fetched;          /* segments read for loads */
    long long fetched_bytes;    /* ... their bytes */
} segmentState;

static uint64_t segSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }
static int segSdsCompare(const void *a, const void *b) {
    return sdslen((const sds)a) == sdslen((const sds)b) && !memcmp(a, b, sdslen((const sds)a));
}
static void segSdsFree(void *p) { sdsfree(p); }
static void segZfree(void *p) { zfree(p); }

/* A fetched segment's text. A follower keeps the texts the state names
 * for its next load (a take-over, or another broker to follow), which
 * reads most of them again: packed with zlib in between -- a queue's JSON
 * entries pack several times over, and that load is rare -- and unpacked
 * when a load reads them. */
typedef struct segCached {
    sds text;   /* the text, NULL while packed */
    sds packed; /* zlib of it, NULL while unpacked */
    size_t len; /* the text's length */
} segCached;

static void segCachedFree(void *p) {
    segCached *c = p;
    sdsfree(c->text);
    sdsfree(c->packed);
    zfree(c);
}

static segCached *segCachedNew(const char *data, size_t len) {
    segCached *c = zcalloc(sizeof(*c));
    c->text = sdsnewlen(data, len);
    c->len = len;
    return c;
}

/* Bytes it holds now. */
static size_t segCachedBytes(const segCached *c) { return c->text ? sdslen(c->text) : sdslen(c->packed); }

/* Packs the text, unless that gains nothing (or zlib fails: kept as is). */
static void segCachedPack(segCached *c) {
    if (!c->text || c->len < 256) return;
    uLongf n = compressBound((uLong)c->len);
    sds packed = sdsnewlen(NULL, n);
    if (compress2((Bytef *)packed, &n, (const Bytef *)c->text, (uLong)c->len, Z_BEST_SPEED) != Z_OK ||
        n >= c->len) {
        sdsfree(packed);
        return;
    }
    sdssetlen(packed, n);
    c->packed = sdsRemoveFreeSpace(packed);
    sdsfree(c->text);
    c->text = NULL;
}

/* The text, unpacked if needed; NULL if it cannot be (then it is fetched
 * again). */
static sds segCachedText(segCached *c) {
    if (c->text) return c->text;
    sds text = sdsnewlen(NULL, c->len);
    uLongf n = (uLongf)c->len;
    if (uncompress((Bytef *)text, &n, (const Bytef *)c->packed, (uLong)sdslen(c->packed)) != Z_OK || n != c->len) {
        sdsfree(text);
        return NULL;
    }
    sdsfree(c->packed);
    c->packed = NULL;
    c->text = text;
    return text;
}

static dictType segSetType = {segSdsHash, segSdsCompare, segSdsFree, NULL};
static dictType segNamedType = {segSdsHash, segSdsCompare, segSdsFree, segZfree};
static dictType segCacheType = {segSdsHash, segSdsCompare, segSdsFree, segCachedFree};

static segmentState *S(void) { return server.segments; }

static int sealNext(segmentState *ss);

static void garbageFree(void *p) {
    segGarbage *g = p;
    sdsfree(g->name);
    zfree(g);
}

void segmentsInit(void) {
    segmentState *ss = zcalloc(sizeof(*ss));
    ss->queue = listCreate();
    ss->writing = dictCreate(&segSetType);
    ss->named = dictCreate(&segNamedType);
    ss->garbage = listCreate();
    ss->garbage->free = garbageFree;
    ss->garbage_flight = listCreate();
    ss->garbage_flight->free = garbageFree;
    ss->garbage_new = listCreate();
    ss->garbage_new->free = garbageFree;
    ss->cache = dictCreate(&segCacheType);
    ss->fetch_todo = listCreate();
    ss->fetch_todo->free = segSdsFree;
    ss->fetch_manifests = listCreate();
    ss->fetch_manifests->free = fetchManifestFree;
    server.segments = ss;
}

static void sealJobFree(sealJob *j) {
    streamSealPlanFree(&j->plan);
    streamManifestPlanFree(&j->mplan);
    sdsfree(j->name);
    zfree(j);
}

/* After the store was closed (no callback will come). */
void segmentsFree(void) {
    segmentState *ss = S();
    if (!ss) return;
    listRelease(ss->queue);
    for (int l = 0; l < SEAL_LANES; l++)
        if (ss->jobs[l]) sealJobFree(ss->jobs[l]);
    dictRelease(ss->writing);
    dictRelease(ss->named);
    listRelease(ss->garbage);
    listRelease(ss->garbage_flight);
    listRelease(ss->garbage_new);
    dictRelease(ss->cache);
    listRelease(ss->fetch_todo);
    listRelease(ss->fetch_manifests);
    sdsfree(ss->fetch_missing);
    sdsfree(ss->fetch_err);
    zfree(ss);
    server.segments = NULL;
}

static long long graceMs(void) {
    long long g = 2 * server.cfg.broker_timeout_ms + commitLastLoadMs();
    return server.cfg.segment_gc_grace_ms > g ? server.cfg.segment_gc_grace_ms : g;
}

/* ========================================================================
 * The books (t_stream.c tells)
 * ===================================================================== */

void segmentRegister(const char *name, uint64_t bytes) {
    segmentState *ss = S();
    if (!ss) return; /* after shutdown freed the books, or before they exist */
    sds key = sdsnew(name);
    segNamed *n = dictFetchValue(ss->named, key);
    if (n) {
        sdsfree(key);
        n->refs++;
        return;
    }
    n = zcalloc(sizeof(*n));
    n->refs = 1;
    n->bytes = bytes;
    dictAdd(ss->named, key, n);
    ss->named_bytes += bytes;
}

void segmentUnregister(const char *name, uint64_t bytes) {
    (void)bytes;
    segmentState *ss = S();
    if (!ss) return; /* after shutdown freed the books, or before they exist */
    sds key = sdsnew(name);
    segNamed *n = dictFetchValue(ss->named, key);
    if (n && --n->refs == 0) {
        ss->named_bytes -= n->bytes;
        dictDelete(ss->named, key);
    }
    sdsfree(key);
}

void segmentManifestLive(int delta) {
    if (S()) S()->manifests_live += (unsigned long)(long)delta;
}

void segmentDropped(const char *name) {
    if (!S()) return;
    segGarbage *g = zcalloc(sizeof(*g));
    g->name = sdsnew(name);
    listAddNodeTail(S()->garbage_new, g);
}

void segmentStreamWantsSeal(stream *s) {
    if (!S() || (s->seal_queued & STREAM_SEAL_QUEUED)) return;
    s->seal_queued |= STREAM_SEAL_QUEUED;
    listAddNodeTail(S()->queue, s);
}

void segmentStreamFreed(stream *s) {
    segmentState *ss = S();
    if (!ss) return; /* after shutdown freed the books, or before they exist */
    listNode *ln = listSearchKey(ss->queue, s);
    if (ln) listDelNode(ss->queue, ln);
    for (int l = 0; l < SEAL_LANES; l++)
        if (ss->jobs[l] && ss->jobs[l]->s == s) ss->jobs[l]->s = NULL;
}

/* ========================================================================
 * Commits
 * ===================================================================== */

static void sealFollowAppends(segmentState *ss);

void segmentsCommitStarted(void) {
    sealFollowAppends(S());
    listJoin(S()->garbage_flight, S()->garbage_new);
}

/* A commit that appends a log record names no segment and drops none
 * (only a root does): sealing goes on as after any commit, the garbage
 * waits for the next root. */
void segmentsLogCommitStarted(void) { sealFollowAppends(S()); }

/* A commit landed (ok) or failed: seal right away, not at the next cron
 * tick -- under load a tick's worth of appends would otherwise ride in
 * every root meanwhile. */
static void sealAfterCommit(segmentState *ss, int ok) {
    if (ok && listLength(ss->queue) && !server.loading && commitGetRole() == COMMIT_ROLE_BROKER &&
        server.store->type->seg_put)
        sealNext(ss);
    keysegCommitDone(ok);
    chunksegCommitDone(ok);
}

void segmentsLogCommitDone(void) { sealAfterCommit(S(), 1); }

void segmentsCommitDone(int ok) {
    segmentState *ss = S();
    sealAfterCommit(ss, ok);
    if (!ok) {
        /* Still named by the stored root: back with the newest, in order. */
        listJoin(ss->garbage_flight, ss->garbage_new);
        listJoin(ss->garbage_new, ss->garbage_flight);
        return;
    }
    long long due = mstime() + graceMs();
    for (listNode *ln = listFirst(ss->garbage_flight); ln; ln = ln->next) ((segGarbage *)ln->value)->due_ms = due;
    listJoin(ss->garbage, ss->garbage_flight);
}

void segmentsReset(void) {
    segmentState *ss = S();
    /* Entries with a deletion in flight stay until it reports: the
     * segment is gone for good anyway (the old state dropped it and a
     * root omitting it landed). */
    for (listNode *ln = listFirst(ss->garbage), *next; ln; ln = next) {
        next = ln->next;
        segGarbage *g = ln->value;
        if (!g->deleting) listDelNode(ss->garbage, ln);
    }
    listEmpty(ss->garbage_flight);
    listEmpty(ss->garbage_new);
    ss->next_sweep_ms = 0;
    ss->was_broker = 0;
}

void segmentsLoaded(int broker) {
    segmentState *ss = S();
    if (broker) {
        dictEmpty(ss->cache);
        return;
    }
    /* A follower keeps what the state names, packed: its next reload reads
     * the same segments again. */
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, ss->cache);
    while ((de = dictNext(&it))) {
        if (!dictFind(ss->named, de->key)) dictDelete(ss->cache, de->key);
        else segCachedPack(de->val);
    }
}

/* ========================================================================
 * Sealing
 * ===================================================================== */

static sds newSegmentName(segmentState *ss) {
    /* The run id is random per process and the counter never repeats in
     * one: a name is never reused. */
    return sdscatprintf(sdsempty(), "%.16s-%llu.json", server.runid, ++ss->next_name);
}

sds segmentNewName(void) { return newSegmentName(S()); }

int segmentNameValid(const char *p, size_t len) {
    if (len == 0 || len > 128) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.'))
            return 0;
    }
    return p[0] != '.';
}

void segmentWriting(const char *name, int on) {
    segmentState *ss = S();
    if (!ss) return;
    sds key = sdsnew(name);
    if (on) dictAdd(ss->writing, key, NULL);
    else {
        dictDelete(ss->writing, key);
        sdsfree(key);
    }
}

static void unnamedDeleteDone(void *priv, storeStatus status, const char *err);

/* A segment nothing names and nothing will: deleted now. */
static void deleteUnnamed(const char *name) {
    server.store->type->seg_del(server.store, name, unnamedDeleteDone, sdsnew(name));
    S()->deleting++;
}

sds segmentCatSizes(sds out, uint64_t count, uint64_t bytes, uint32_t crc, uint64_t live) {
    out = sdscatlen(out, ",\"count\":", 9);
    out = jsonCatU64(out, count);
    out = sdscatlen(out, ",\"bytes\":", 9);
    out = jsonCatU64(out, bytes);
    out = sdscatlen(out, ",\"crc32\":", 9);
    out = jsonCatU64(out, crc);
    out = sdscatlen(out, ",\"live_count\":", 14);
    return jsonCatU64(out, live);
}

void segmentDeleteUnnamed(const char *name) {
    if (S()) deleteUnnamed(name);
}

static void sealDone(void *priv, storeStatus status, const char *err) {
    segmentState *ss = S();
    sealJob *j = priv;
    ss->jobs[j->lane] = NULL;
    dictDelete(ss->writing, j->name);
    stream *s = j->s;
    if (status != STORE_OK) {
        ss->seal_errors++;
        serverLog(LL_WARNING, "%s %s of %llu bytes not written: %s; its %s stay in the root",
                  j->manifest ? "Manifest" : "Segment", j->name, (unsigned long long)j->bytes,
                  err ? err : "storage error", j->manifest ? "records" : "entries");
        if (status == STORE_ERROR) deleteUnnamed(j->name); /* it may have landed */
    } else if (!s || (server.loading && !ss->before_start)) {
        deleteUnnamed(j->name);
    } else {
        uint32_t sealed = j->manifest ? streamAttachManifest(s, &j->mplan, j->name, j->bytes, j->crc)
                                      : streamAttachSegment(s, &j->plan, j->name, j->bytes, j->crc);
        if (!sealed) {
            deleteUnnamed(j->name);
        } else {
            if (j->manifest) {
                ss->manifests_written++;
            } else {
                ss->sealed++;
                if (j->rewrite) ss->rewritten++;
                ss->bytes_sealed += (long long)j->bytes;
            }
            /* Nothing a client changed: a commit without anyone waiting,
             * which writes the smaller root. */
            server.change_seq++;
            server.dirty++;
        }
    }
    /* More may be sealable already (more arrived, or a rewrite is due). */
    if (s) {
        s->seal_queued &= ~STREAM_SEAL_JOB(j->lane);
        segmentStreamWantsSeal(s);
    }
    sealJobFree(j);
}

/* The inline tail follows what changes: a stream is sealed once it holds
 * about segment-seal-commits commits' worth of appends inline, within
 * segment-seal-min-bytes .. segment-seal-bytes. A root then carries a few
 * batches of entries whatever the load: at one client a few kilobytes,
 * under a heavy load up to segment-seal-bytes. */
#define SEAL_EWMA_WEIGHT 0.125

static void sealFollowAppends(segmentState *ss) {
    uint64_t now = streamBytesAppended();
    uint64_t delta = now - ss->appended_seen;
    ss->appended_seen = now;
    if (!delta) return; /* a commit of sealing or of other changes */
    if (delta > (uint64_t)server.cfg.segment_seal_bytes) delta = (uint64_t)server.cfg.segment_seal_bytes;
    ss->batch_ewma = ss->batch_ewma ? ss->batch_ewma + SEAL_EWMA_WEIGHT * ((double)delta - ss->batch_ewma)
                                    : (double)delta;
}

uint64_t segmentSealThreshold(void) {
    uint64_t max = (uint64_t)server.cfg.segment_seal_bytes;
    uint64_t min = (uint64_t)server.cfg.segment_seal_min_bytes;
    if (min > max) min = max;
    if (!server.cfg.segment_seal_commits || !S()) return max;
    double want = S()->batch_ewma * (double)server.cfg.segment_seal_commits;
    if (want <= (double)min) return min;
    if (want >= (double)max) return max;
    return (uint64_t)want;
}

static int sealsInFlight(segmentState *ss) {
    int n = 0;
    for (int l = 0; l < SEAL_LANES; l++) n += ss->jobs[l] != NULL;
    return n;
}

/* Plans and starts the next seal of a lane; 1 if one started. A stream
 * stays queued while it has work for a lane (plan.later). */
static int sealNextInLane(segmentState *ss, int lane) {
    unsigned long tries = listLength(ss->queue);
    if (tries > SEG_SEAL_TRIES_PER_CRON) tries = SEG_SEAL_TRIES_PER_CRON;
    while (tries-- && listLength(ss->queue)) {
        listNode *ln = listFirst(ss->queue);
        stream *s = ln->value;
        listDelNode(ss->queue, ln);
        s->seal_queued &= ~STREAM_SEAL_QUEUED;
        sealJob *j = zcalloc(sizeof(*j));
        j->lane = lane;
        j->name = newSegmentName(ss);
        sds text = NULL;
        size_t bytes = 0;
        /* The rewrite lane writes manifests first: they are small, and
         * keep the root's records few. */
        if (lane == STREAM_SEAL_REWRITE)
            bytes = streamPlanManifest(s, j->name, (uint32_t)server.cfg.segment_root_records,
                                       (int)server.cfg.segment_merge_fanout, server.mstime_cache, &j->mplan, &text);
        j->manifest = bytes > 0;
        if (!bytes)
            bytes = streamPlanSeal(s, lane, j->name, (size_t)segmentSealThreshold(),
                                   (size_t)server.cfg.segment_max_bytes, (int)server.cfg.segment_merge_fanout,
                                   server.cfg.segment_merge == SEGMENT_MERGE_YES, server.mstime_cache, &j->plan,
                                   &text);
        else
            j->plan.later = 1; /* the segments' own work comes next */
        if (j->plan.later) segmentStreamWantsSeal(s); /* asked again later, or by the other lane */
        if (!bytes) {
            sealJobFree(j);
            continue;
        }
        j->s = s; /* its bit in seal_queued: segmentStreamFreed finds the job */
        s->seal_queued |= STREAM_SEAL_JOB(lane);
        j->bytes = bytes;
        j->crc = streamSegmentCRC(text, sdslen(text));
        j->rewrite = j->plan.merged > 0;
        dictAdd(ss->writing, sdsdup(j->name), NULL);
        ss->jobs[lane] = j;
        server.store->type->seg_put(server.store, j->name, text, sealDone, j);
        return 1;
    }
    return 0;
}

/* Starts a seal in each idle lane that has work; 1 if any started. */
static int sealNext(segmentState *ss) {
    int started = 0;
    for (int lane = 0; lane < SEAL_LANES; lane++)
        if (!ss->jobs[lane]) started |= sealNextInLane(ss, lane);
    return started;
}

void segmentsSealBeforeStart(void) {
    segmentState *ss = S();
    if (!ss || !server.store->type->seg_put || !listLength(ss->queue)) return;
    long long start = mstime(), sealed = ss->sealed;
    ss->before_start = 1;
    for (;;) {
        long long errors = ss->seal_errors;
        if (!sealsInFlight(ss) && !sealNext(ss)) break; /* nothing (more) to seal now */
        while (sealsInFlight(ss)) event_base_loop(server.el, EVLOOP_ONCE);
        /* The store refuses (a full disk): the rest stays inline, the
         * start goes on -- retrying here would never end. */
        if (ss->seal_errors > errors) break;
    }
    ss->before_start = 0;
    if (ss->sealed > sealed)
        serverLog(LL_NOTICE, "Segments: sealed %lld before the first commit in %lld ms (the root stays small)",
                  ss->sealed - sealed, mstime() - start);
}

/* ========================================================================
 * Garbage and orphans
 * ===================================================================== */

static void deleteDue(segmentState *ss);

static void deleteCounted(segmentState *ss, storeStatus status, const char *err, const char *name,
                          const char *then) {
    ss->deleting--;
    if (status == STORE_OK) {
        ss->deleted++;
    } else {
        ss->delete_errors++;
        serverLog(LL_WARNING, "Cannot delete segment %s (%s); %s", name, err ? err : "error", then);
    }
}

/* A garbage segment's deletion: its entry leaves the list (or stays, to
 * be tried again). It is near the list's head: deletions start there. */
static void deleteDone(void *priv, storeStatus status, const char *err) {
    segmentState *ss = S();
    sds name = priv;
    for (listNode *ln = listFirst(ss->garbage); ln; ln = ln->next) {
        segGarbage *g = ln->value;
        if (!g->deleting || sdslen(g->name) != sdslen(name) || memcmp(g->name, name, sdslen(name))) continue;
        g->deleting = 0;
        if (status == STORE_OK) listDelNode(ss->garbage, ln);
        break;
    }
    deleteCounted(ss, status, err, name, "trying again later");
    sdsfree(name);
    /* The next one at once: a cron tick's worth at a time is far slower
     * than a trimmed stream drops segments under load (the disk fills). A
     * failure waits for the cron instead of retrying in a tight loop. */
    if (status == STORE_OK && ss->was_broker && !server.loading) deleteDue(ss);
}

/* An unnamed segment's deletion (an orphan, a seal that sealed nothing):
 * in no list -- searching the garbage, thousands of entries waiting out
 * the grace period under load, found nothing at a cost. A failure leaves
 * it to the orphan sweep. */
static void unnamedDeleteDone(void *priv, storeStatus status, const char *err) {
    deleteCounted(S(), status, err, priv, "the orphan sweep will");
    sdsfree(priv);
}

static void deleteDue(segmentState *ss) {
    long long now = mstime();
    for (listNode *ln = listFirst(ss->garbage), *next; ln && ss->deleting < SEG_DELETES_IN_FLIGHT; ln = next) {
        next = ln->next;
        segGarbage *g = ln->value;
        if (g->deleting) continue;
        /* Due times follow the list's order (a grace period that shrank
         * meanwhile only delays what comes after). */
        if (g->due_ms > now) break;
        /* Named again (a reload brought it back)? Then it is not garbage. */
        if (dictFind(ss->named, g->name)) {
            listDelNode(ss->garbage, ln);
            continue;
        }
        g->deleting = 1;
        ss->deleting++;
        server.store->type->seg_del(server.store, g->name, deleteDone, sdsdup(g->name));
    }
}

/* The names of all garbage, as a set: the sweep asks about every file. */
static dict *garbageNames(segmentState *ss) {
    dict *d = dictCreate(&segSetType);
    list *lists[3] = {ss->garbage, ss->garbage_flight, ss->garbage_new};
    for (int i = 0; i < 3; i++)
        for (listNode *ln = listFirst(lists[i]); ln; ln = ln->next) {
            sds name = sdsdup(((segGarbage *)ln->value)->name);
            if (!dictAdd(d, name, NULL)) sdsfree(name);
        }
    return d;
}

static void sweepListed(void *priv, storeStatus status, const char *const *names, const long long *mtimes,
                        size_t count, const char *err) {
    (void)priv;
    segmentState *ss = S();
    ss->sweeping = 0;
    if (status != STORE_OK) {
        serverLog(LL_WARNING, "Cannot list the segments for the orphan sweep: %s", err ? err : "error");
        return;
    }
    /* Only a broker with its state loaded may judge what is an orphan. */
    if (server.loading || commitGetRole() != COMMIT_ROLE_BROKER) return;
    long long now = mstime(), old = now - graceMs();
    unsigned long swept = 0;
    dict *garbage = garbageNames(ss);
    for (size_t i = 0; i < count; i++) {
        sds key = sdsnew(names[i]);
        int named = dictFind(ss->named, key) || dictFind(ss->writing, key) || dictFind(garbage, key);
        sdsfree(key);
        if (named) continue;
        if (mtimes[i] > old) {
            /* Too young to judge: looked at again once it is old enough. */
            long long due = mtimes[i] + graceMs() + SEG_SWEEP_FIRST_MS;
            if (due < ss->next_sweep_ms) ss->next_sweep_ms = due > now ? due : now;
            continue;
        }
        deleteUnnamed(names[i]);
        ss->orphans_swept++;
        swept++;
    }
    dictRelease(garbage);
    if (swept) serverLog(LL_NOTICE, "Segments: deleting %lu orphans (no root names them)", swept);
}

void segmentsCron(int broker) {
    segmentState *ss = S();
    if (!ss || !server.store || !server.store->type->seg_put) return;
    keysegCron(broker);
    chunksegCron(broker);
    if (!broker) {
        ss->was_broker = 0;
        return;
    }
    long long now = mstime();
    if (!ss->was_broker) {
        ss->was_broker = 1;
        ss->next_sweep_ms = now + SEG_SWEEP_FIRST_MS;
    }
    /* A broker seals from memory and never reloads without a conflict:
     * the texts fetched when it loaded are of no more use. */
    if (dictSize(ss->cache)) dictEmpty(ss->cache);
    sealNext(ss);
    deleteDue(ss);
    if (!ss->sweeping && now >= ss->next_sweep_ms) {
        long long every = graceMs();
        if (every < SEG_SWEEP_MIN_INTERVAL_MS) every = SEG_SWEEP_MIN_INTERVAL_MS;
        ss->next_sweep_ms = now + every;
        ss->sweeping = 1;
        server.store->type->seg_list(server.store, sweepListed, NULL);
    }
}

/* ========================================================================
 * Fetching the segments of a root
 * ===================================================================== */

/* Adds the names in a list of segment records to todo. */
static int addSegmentNames(const cJSON *segs, list *todo, sds *err) {
    const cJSON *seg;
    cJSON_ArrayForEach(seg, segs) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(seg, "name");
        if (!cJSON_IsString(name)) continue; /* the decoder reports it */
        if (strchr(name->valuestring, '/') || name->valuestring[0] == '.' || !name->valuestring[0]) {
            *err = sdscatprintf(sdsempty(), "invalid segment name \"%s\"", name->valuestring);
            return C_ERR;
        }
        listAddNodeTail(todo, sdsnew(name->valuestring));
    }
    return C_OK;
}

/* Adds the names of a stream's manifests to todo, and each to
 * manifests (with its dead segments) for the second round. */
static int addManifestNames(const cJSON *mans, list *todo, list *manifests, sds *err) {
    if (addSegmentNames(mans, todo, err) != C_OK) return C_ERR;
    const cJSON *m, *d;
    cJSON_ArrayForEach(m, mans) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
        if (!cJSON_IsString(name)) continue; /* the decoder reports it */
        fetchManifest *f = zcalloc(sizeof(*f));
        f->name = sdsnew(name->valuestring);
        f->dead = dictCreate(&segSetType);
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(m, "dead"))
            if (cJSON_IsString(d)) dictAdd(f->dead, sdsnew(d->valuestring), NULL);
        listAddNodeTail(manifests, f);
    }
    return C_OK;
}

/* The second round: the segments of the manifests fetched (not the dead
 * ones: they may be deleted already). A manifest that is not there or
 * does not parse adds nothing: the decoder says what is wrong. */
static int manifestSegmentNames(segmentState *ss, sds *err) {
    int ret = C_OK;
    while (listLength(ss->fetch_manifests) && ret == C_OK) {
        listNode *ln = listFirst(ss->fetch_manifests);
        fetchManifest *f = ln->value;
        segCached *c = dictFetchValue(ss->cache, f->name);
        sds text = c ? segCachedText(c) : NULL;
        cJSON *doc = text ? cJSON_ParseWithLength(text, sdslen(text)) : NULL;
        const cJSON *rec;
        cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(doc, "segments")) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec, "name");
            if (!cJSON_IsString(name)) continue;
            sds key = sdsnew(name->valuestring);
            int dead = dictFind(f->dead, key) != NULL;
            sdsfree(key);
            if (dead) continue;
            if (!segmentNameValid(name->valuestring, strlen(name->valuestring))) {
                *err = sdscatprintf(sdsempty(), "invalid segment name \"%s\" in manifest %s", name->valuestring,
                                    f->name);
                ret = C_ERR;
                break;
            }
            listAddNodeTail(ss->fetch_todo, sdsnew(name->valuestring));
        }
        cJSON_Delete(doc);
        listDelNode(ss->fetch_manifests, ln);
    }
    return ret;
}

/* Adds the names of the segments the root names to todo: the chunk
 * segments, each db's key segments and each stream's (and its manifests,
 * whose own segments are a second round). */
static int rootSegmentNames(const char *data, size_t len, list *todo, list *manifests, sds *err) {
    cJSON *root = cJSON_ParseWithLength(data, len);
    if (!root) return C_OK; /* the decoder says what is wrong with it */
    const cJSON *dbs = cJSON_GetObjectItemCaseSensitive(root, "databases"), *db, *key;
    int ret = C_OK;
    if ((ret = addSegmentNames(cJSON_GetObjectItemCaseSensitive(root, "chunk_segments"), todo, err)) != C_OK) {
        cJSON_Delete(root);
        return ret;
    }
    cJSON_ArrayForEach(db, dbs) {
        if ((ret = addSegmentNames(cJSON_GetObjectItemCaseSensitive(db, "segments"), todo, err)) != C_OK) break;
        cJSON_ArrayForEach(key, cJSON_GetObjectItemCaseSensitive(db, "keys")) {
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(key, "stream");
            if ((ret = addSegmentNames(cJSON_GetObjectItemCaseSensitive(st, "segments"), todo, err)) != C_OK) break;
            if ((ret = addManifestNames(cJSON_GetObjectItemCaseSensitive(st, "manifests"), todo, manifests, err)) !=
                C_OK)
                break;
        }
        if (ret != C_OK) break;
    }
    cJSON_Delete(root);
    return ret;
}

static void fetchNext(segmentState *ss);

static void fetchFinish(segmentState *ss) {
    segmentsFetchCallback *cb = ss->fetch_cb;
    void *priv = ss->fetch_priv;
    sds missing = ss->fetch_missing, err = ss->fetch_err;
    ss->fetch_cb = NULL;
    ss->fetch_missing = ss->fetch_err = NULL;
    listEmpty(ss->fetch_todo);
    listEmpty(ss->fetch_manifests);
    cb(priv, missing, err);
    sdsfree(missing);
    sdsfree(err);
}

/* What a fetched object is, for messages: the first round fetches the
 * root's manifests beside its segments. */
static const char *fetchKind(segmentState *ss, const char *name) {
    for (listNode *ln = listFirst(ss->fetch_manifests); ln; ln = ln->next)
        if (!strcmp(((fetchManifest *)ln->value)->name, name)) return "manifest";
    return "segment";
}

static void fetchGot(void *priv, storeStatus status, const char *data, size_t len, const char *err) {
    segmentState *ss = S();
    sds name = priv;
    ss->fetch_inflight--;
    if (status == STORE_OK) {
        ss->fetched++;
        ss->fetched_bytes += (long long)len;
        segmentSourceAdd(name, data, len);
    } else if (status == STORE_NOT_FOUND) {
        if (!ss->fetch_missing) ss->fetch_missing = sdscatprintf(sdsempty(), "%s %s", fetchKind(ss, name), name);
    } else if (!ss->fetch_err) {
        ss->fetch_err = sdscatprintf(sdsempty(), "cannot read %s %s: %s", fetchKind(ss, name), name,
                                     err ? err : "storage error");
    }
    sdsfree(name);
    fetchNext(ss);
}

static void fetchNext(segmentState *ss) {
    while (listLength(ss->fetch_todo) && ss->fetch_inflight < SEG_FETCHES_IN_FLIGHT && !ss->fetch_missing &&
           !ss->fetch_err) {
        listNode *ln = listFirst(ss->fetch_todo);
        sds name = ln->value;
        ln->value = NULL;
        listDelNode(ss->fetch_todo, ln);
        dictEntry *cached = dictFind(ss->cache, name);
        if (cached && segCachedText(cached->val)) {
            sdsfree(name);
            continue;
        }
        if (cached) dictDelete(ss->cache, name); /* cannot be unpacked: fetched again */
        ss->fetch_inflight++;
        server.store->type->seg_get(server.store, name, fetchGot, name);
    }
    if (ss->fetch_inflight || !ss->fetch_cb) return;
    if (!listLength(ss->fetch_todo) && !ss->fetch_missing && !ss->fetch_err && listLength(ss->fetch_manifests)) {
        sds err = NULL;
        if (manifestSegmentNames(ss, &err) != C_OK) ss->fetch_err = err;
        fetchNext(ss); /* the second round */
        return;
    }
    if (!listLength(ss->fetch_todo) || ss->fetch_missing || ss->fetch_err) fetchFinish(ss);
}

static void fetchStartTimer(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    fetchNext(S());
}

void segmentsFetch(const char *data, size_t len, segmentsFetchCallback *cb, void *priv) {
    segmentState *ss = S();
    ss->fetch_cb = cb;
    ss->fetch_priv = priv;
    sds err = NULL;
    if (rootSegmentNames(data, len, ss->fetch_todo, ss->fetch_manifests, &err) != C_OK) {
        ss->fetch_err = err;
    } else if (listLength(ss->fetch_todo) && !server.store->type->seg_get) {
        ss->fetch_err = sdscatprintf(sdsempty(), "the document names segments but the %s store cannot read them",
                                     server.store->type->name);
    }
    /* Never call back from inside the call. */
    event_base_once(server.el, -1, EV_TIMEOUT, fetchStartTimer, NULL, NULL);
}

void segmentSourceAdd(const char *name, const char *data, size_t len) {
    segmentState *ss = S();
    if (!ss) return;
    sds key = sdsnew(name);
    if (dictFind(ss->cache, key)) sdsfree(key);
    else dictAdd(ss->cache, key, segCachedNew(data, len));
}

int segmentSourceGet(const char *name, const char **data, size_t *len) {
    if (!S()) return 0;
    sds key = sdsnew(name);
    segCached *c = dictFetchValue(S()->cache, key);
    sdsfree(key);
    sds text = c ? segCachedText(c) : NULL;
    if (!text) return 0;
    *data = text;
    *len = sdslen(text);
    return 1;
}

/* ========================================================================
 * INFO
 * ===================================================================== */

/* What the texts kept for the next load take (packed or not). */
static unsigned long long cachedBytes(segmentState *ss) {
    unsigned long long n = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, ss->cache);
    while ((de = dictNext(&it))) n += segCachedBytes(de->val);
    return n;
}

sds segmentsInfo(sds s) {
    segmentState *ss = S();
    if (!ss) return s;
    unsigned long pending = listLength(ss->garbage) + listLength(ss->garbage_flight) + listLength(ss->garbage_new);
    return sdscatprintf(s,
                        "segments:%lu\r\n"
                        "segments_bytes:%llu\r\n"
                        "segments_sealed:%lld\r\n"
                        "segments_rewritten:%lld\r\n"
                        "segments_manifests:%lu\r\n"
                        "segments_manifests_written:%lld\r\n"
                        "segments_bytes_sealed:%lld\r\n"
                        "segments_seal_errors:%lld\r\n"
                        "segments_seal_in_progress:%d\r\n"
                        "segments_garbage:%lu\r\n"
                        "segments_deleted:%lld\r\n"
                        "segments_delete_errors:%lld\r\n"
                        "segments_orphans_swept:%lld\r\n"
                        "segments_fetched:%lld\r\n"
                        "segments_fetched_bytes:%lld\r\n"
                        "segments_cached:%lu\r\n"
                        "segments_cached_bytes:%llu\r\n"
                        "segment_seal_threshold:%llu\r\n"
                        "segment_gc_grace_ms:%lld\r\n",
                        dictSize(ss->named), (unsigned long long)ss->named_bytes, ss->sealed, ss->rewritten,
                        ss->manifests_live, ss->manifests_written,
                        ss->bytes_sealed, ss->seal_errors, sealsInFlight(ss), pending, ss->deleted, ss->delete_errors,
                        ss->orphans_swept, ss->fetched, ss->fetched_bytes, dictSize(ss->cache), cachedBytes(ss),
                        (unsigned long long)segmentSealThreshold(), graceMs());
}
