/* commit.c -- the brokered group commit (design.md §4, §5).
 *
 * Commands run against the in-memory state and bump server.change_seq; their
 * replies are held until server.durable_seq reaches the change they show
 * (networking.c). This module moves durable_seq forward:
 *
 *   beforeSleep ──> changes pending and no commit in flight?
 *                     snapshot seq = change_seq, encode the document,
 *                     store->write(doc, version)        (CAS, asynchronous)
 *                   changes made meanwhile wait for the next commit
 *   write OK ─────> durable_seq = seq, release the held replies
 *   CONFLICT ─────> another broker owns the document: fail the held replies,
 *                   drop the in-memory state, reload it (server.loading)
 *   ERROR ────────> retry with backoff, replies stay held; replies waiting
 *                   longer than commit-timeout get an error
 *
 * With one commit in flight at a time, every change made while it is in
 * flight rides on the next one: the commit rate follows storage latency,
 * not the request rate, and a busy server writes big batches. Right after
 * a commit lands, the next one may wait a moment for the clients it just
 * acknowledged to come back ("Gathering the next batch" below).
 *
 * The broker (design.md §5): each process start is a new node with a new id
 * (the run_id). At start-up it loads the document and commits it back with a
 * broker record naming itself and epoch+1 -- which is how a node takes over.
 * A broker that was taken over from learns it at its next commit (CAS
 * conflict), reloads, and is then a follower: changes made on a follower are
 * refused with an error and discarded (forwarding to the broker belongs to
 * the broker module). A reload that finds no document, or one emptied or
 * cut short, finds this broker's own document lost: it writes it again from
 * memory (keepStateOfLostDocument).
 *
 * Nothing is acknowledged that is not in storage: replies are released only
 * by a successful write that contains what they show, and every failure
 * path turns them into errors ("not acknowledged"). A change whose reply
 * failed by commit-timeout stays in memory and may still be committed
 * later, which an error reply allows. */
#include "commit.h"
#include "chunkseg.h"
#include "keyseg.h"

#include <errno.h>
#include <event2/event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "persist.h"
#include "segment.h"
#include "server.h"
#include "store.h"

#define COMMIT_LATENCY_SAMPLES 1024 /* recent commits kept for percentiles */
#define COMMIT_BACKOFF_MIN_MS 10
#define COMMIT_BACKOFF_MAX_MS 1000
#define COMMIT_AGE_GRANULARITY_MS 10 /* resolution of change ages */
#define COMMIT_START_ATTEMPTS 5      /* take-over attempts at start-up */
#define COMMIT_FOLLOWER_RELOAD_MS 1000 /* min interval of follower reloads */
#define COMMIT_ERROR_LOG_MS 10000    /* repeat "still failing" logs this often */
#define COMMIT_GATHER_MIN_CLIENTS 4  /* gather only after releasing this many */
#define COMMIT_GATHER_MAX_US 2000    /* longest gathering window */
#define COMMIT_GATHER_MISSES 3       /* windows that expire in a row ... */
#define COMMIT_GATHER_PAUSE 64       /* ... pause gathering for this many commits */

#define COMMIT_ERR_CONFLICT                                                                                       \
    "-TRYAGAIN commit conflict: another casq broker took over the state document; the change was not "          \
    "acknowledged\r\n"
#define COMMIT_ERR_SHUTDOWN "-TRYAGAIN casq is shutting down; the change was not acknowledged\r\n"

typedef enum commitOutcome {
    COMMIT_NONE = 0,  /* no commit yet */
    COMMIT_OK,        /* last commit succeeded */
    COMMIT_CONFLICT,  /* last commit lost the CAS */
    COMMIT_FAILED,    /* last commit failed (storage error) */
} commitOutcome;

/* "Changes up to seq existed at time ms": samples taken while changes are
 * pending, to tell how long the oldest held reply has waited. */
typedef struct changeAge {
    uint64_t seq;
    long long ms;
} changeAge;

typedef struct commitState {
    /* --- the document --- */
    sds version;              /* token of the document we last read or wrote,
                               * NULL if there is none (create-only CAS) */
    persistHeader doc;        /* its header: commit_seq, broker record */
    size_t doc_bytes;         /* its size */
    persistCache *cache;      /* encoded key values kept between commits */
    /* --- this node --- */
    sds node_id;              /* our broker id (the run_id) */
    sds node_address;         /* where we serve, for the broker record */
    int is_broker;            /* the document names us (or will, once the
                               * pending take-over lands) */
    int takeover_pending;     /* next commit writes our broker record with
                               * epoch+1, even without changes */
    int starting;             /* inside commitInit: results go back to it */
    /* --- a follower's take-over (commitTakeOver, for broker.c) --- */
    int takeover_wanted;      /* the reload in progress decides a take-over */
    sds takeover_expect_id;   /* ... if the record still names this broker */
    uint64_t takeover_expect_epoch; /* ... at this epoch */
    /* --- the commit in flight --- */
    int in_flight;            /* a write is outstanding */
    uint64_t flight_seq;      /* change_seq it contains */
    uint64_t flight_base;     /* durable_seq when it started */
    long long flight_start_us;/* when it started */
    size_t flight_bytes;      /* document size */
    storeDoc *flight_doc;     /* the document being written, until its
                               * write is over (NULL: none) */
    uint64_t doc_pins;        /* documents encoded: the next one's
                               * server.doc_pin */
    size_t own_bytes;         /* the last document's own (not borrowed)
                               * bytes: the next one's buffer size */
    persistHeader flight_hdr; /* header written (becomes doc on success) */
    /* --- debug delay (commit-debug-delay) --- */
    struct event *delay_ev;   /* commit-debug-delay: starts the write */
    int delay_pending;        /* delay_ev is armed for the commit in flight */
    /* --- retries --- */
    struct event *retry_ev;   /* wakes the loop when the backoff is over */
    int backing_off;          /* no commit until retry_ev fires */
    long long backoff_ms;     /* current backoff */
    long long consecutive_errors; /* failed commits since the last success */
    long long last_error_log_ms;  /* rate limit of the "still failing" log */
    /* --- reloading --- */
    int reloading;            /* a load is outstanding (server.loading) */
    struct event *reload_ev;  /* delayed reload (follower, load retry) */
    int reload_scheduled;     /* reload_ev is armed */
    long long reload_start_us;/* when the reload started */
    long long last_reload_ms; /* when the last reload started */
    int reload_quiet;         /* a follower's routine reload: log it verbosely */
    sds reload_problem;       /* why the last reload failed (NULL: it did
                               * not); -LOADING says it while retrying */
    int load_done;            /* commitInit: the load callback ran */
    sds load_error;           /* commitInit: why the load failed */
    /* --- gathering (see commitShouldWait) --- */
    long long gather_until_us;   /* wait for returning clients until then; 0 = no */
    unsigned long gather_target; /* clients that waited when the last commit landed */
    int gather_fd;               /* timerfd ending the window (µs precision) */
    struct event *gather_ev;     /* its event */
    int gather_misses;           /* windows in a row that expired unfilled */
    int gather_paused;           /* commits left without gathering */
    int gather_waited;           /* the pending commit has waited */
    long long gathered_commits;  /* commits that waited (INFO) */
    /* --- commit-timeout --- */
    changeAge *ages;          /* samples, oldest first */
    size_t nages, ages_alloc; /* used / allocated */
    uint64_t failed_upto;     /* replies up to this change already failed */
    /* --- statistics --- */
    long long commits;           /* successful commits */
    long long conflicts;         /* CAS conflicts */
    long long errors;            /* failed commit attempts */
    long long reloads;           /* reloads after a conflict or as follower */
    long long timed_out_replies; /* replies failed by commit-timeout */
    long long discarded_changes; /* changes dropped (conflict, follower) */
    uint64_t changes_committed;  /* sum of batch sizes */
    uint64_t max_batch;          /* largest batch */
    long long latency_us[COMMIT_LATENCY_SAMPLES]; /* recent commit latencies */
    int lat_next;                /* next slot in latency_us */
    int lat_count;               /* slots filled */
    long long max_latency_us;    /* worst ever */
    long long last_commit_ms;    /* unix ms of the last success */
    long long last_commit_us;    /* latency of the last success */
    long long last_encode_us;    /* main-thread time encoding the last document */
    commitOutcome last_outcome;  /* what the last commit did */
    sds last_error;              /* last failure message, "" if none */
    long long load_ms;           /* duration of the last load */
    /* --- loading a root's segments (segment.c) --- */
    sds seg_root;                /* the root read, while its segments are
                                  * fetched */
    sds seg_version;             /* ... its version */
    int seg_rereads;             /* roots read again because one named a
                                  * segment that was missing */
    long long reserve_ms;        /* the load reserved the next write for
                                  * this long (0: a plain load) */
    /* --- root sizes (INFO) --- */
    uint64_t root_bytes_sum;     /* document bytes of every commit */
    long long vanished;          /* times the document vanished under us and
                                  * was written again from memory */
    /* --- confirming that we are still the broker (store probe) --- */
    long long confirmed_ms;      /* when the store last confirmed that the
                                  * document is the version we hold (a
                                  * commit, a load or a probe) */
    int probing;                 /* a probe is in flight (no commit starts) */
    long long probe_start_ms;    /* when it started */
    long long probes;            /* probes done (INFO) */
    long long deposed;           /* probes that found another writer */
    /* --- the commit log (docs/state-format.md "The commit log") --- */
    int log_on;                  /* commits append to the store's log */
    int flight_is_log;           /* the commit in flight is a log record
                                  * (0: a root, a checkpoint) */
    sds flight_log;              /* its record, until handed to the store */
    uint64_t log_gen;            /* commits started (attempts) */
    uint64_t log_ok_gen;         /* the attempt that landed last */
    uint64_t log_base;           /* change_seq the last landed commit holds */
    int log_need_root;           /* the next commit writes the root (after a
                                  * load: the stored log may end torn) */
    long long log_records;       /* records since the root */
    long long log_bytes;         /* their bytes */
    long long root_ms;           /* when the last root landed */
    int root_stale;              /* changes only a root shows (segments
                                  * sealed) were made since it */
    sds root_head;               /* the text the last root read or written
                                  * begins with (documentLost) */
    sds load_log;                /* the log read with the root, while its
                                  * segments are fetched */
    persistLogStats replay;      /* what the last load replayed */
    long long log_commits;       /* commits that were log records (INFO) */
    long long checkpoints;       /* commits that wrote the root (INFO) */
    uint64_t log_bytes_sum;      /* bytes of every log record written */
} commitState;

static void commitStart(commitState *cs);
static void commitReload(commitState *cs);
static void takeoverAfterLoad(commitState *cs);
static int isOurBroker(commitState *cs, const persistHeader *h);

/* Where this node stands. A node that stepped down (a CAS conflict, a
 * probe that found another version) and could not read the document
 * since still holds a broker record naming itself: that says nothing
 * about who the broker is now, and a follower of itself would forward to
 * itself. It is loading until a load tells. */
static commitRole roleOf(commitState *cs) {
    if (cs->starting || cs->reloading) return COMMIT_ROLE_LOADING;
    if (cs->is_broker) return COMMIT_ROLE_BROKER;
    return isOurBroker(cs, &cs->doc) ? COMMIT_ROLE_LOADING : COMMIT_ROLE_FOLLOWER;
}

static const char *roleName(commitRole role) {
    return role == COMMIT_ROLE_BROKER ? "broker" : role == COMMIT_ROLE_FOLLOWER ? "follower" : "loading";
}

/* ========================================================================
 * Helpers
 * ===================================================================== */

static void setLastError(commitState *cs, const char *msg) {
    sdsfree(cs->last_error);
    cs->last_error = sdsnew(msg ? msg : "unknown error");
    /* Errors end up in one-line replies and INFO fields. */
    for (size_t i = 0; i < sdslen(cs->last_error); i++)
        if (cs->last_error[i] == '\r' || cs->last_error[i] == '\n') cs->last_error[i] = ' ';
}

static void addTimer(struct event *ev, long long ms) {
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
    evtimer_add(ev, &tv);
}

/* "host:port" where this node serves clients, for the broker record. */
static sds nodeAddress(void) {
    /* broker-announce-address: what other nodes must dial (NAT, a
     * container's published port, a DNS name) wins. */
    if (server.cfg.broker_announce_address) return sdsnew(server.cfg.broker_announce_address);
    if (server.cfg.port == 0) return sdsnew(server.cfg.unixsocket ? server.cfg.unixsocket : "");
    int argc = 0;
    sds *addrs = sdssplitargs(server.cfg.bind ? server.cfg.bind : "127.0.0.1", &argc);
    const char *host = argc ? addrs[0] : "127.0.0.1";
    if (host[0] == '-') host++;
    /* A wildcard bind is no address to dial: the host's name is (other
     * hosts usually resolve it; on this host it resolves to a local
     * address, which the wildcard covers). */
    char hostname[256];
    if (!strcmp(host, "0.0.0.0") || !strcmp(host, "*") || !strcmp(host, "::") || !strcmp(host, "::*")) {
        if (gethostname(hostname, sizeof(hostname)) == 0) {
            hostname[sizeof(hostname) - 1] = '\0';
            host = hostname;
        } else {
            host = "127.0.0.1";
        }
    }
    sds out = strchr(host, ':') ? sdscatprintf(sdsempty(), "[%s]:%d", host, server.cfg.port)
                                : sdscatprintf(sdsempty(), "%s:%d", host, server.cfg.port);
    sdsfreesplitres(addrs, argc);
    return out;
}

static int isOurBroker(commitState *cs, const persistHeader *h) {
    return h->broker.id && !strcmp(h->broker.id, cs->node_id);
}

/* ========================================================================
 * Change ages and commit-timeout
 * ===================================================================== */

/* Records that the changes up to change_seq exist now. Sampled at most
 * every COMMIT_AGE_GRANULARITY_MS: changes between samples are counted as
 * younger than they are, so a reply is never failed early. */
static void noteChangeAge(commitState *cs) {
    uint64_t last = cs->nages ? cs->ages[cs->nages - 1].seq : server.durable_seq;
    if (server.change_seq <= last || server.change_seq <= server.durable_seq) return;
    long long now = mstime();
    if (cs->nages && now - cs->ages[cs->nages - 1].ms < COMMIT_AGE_GRANULARITY_MS) return;
    if (cs->nages == cs->ages_alloc) {
        cs->ages_alloc = cs->ages_alloc ? cs->ages_alloc * 2 : 64;
        cs->ages = zrealloc(cs->ages, sizeof(changeAge) * cs->ages_alloc);
    }
    cs->ages[cs->nages].seq = server.change_seq;
    cs->ages[cs->nages].ms = now;
    cs->nages++;
}

/* Drops the samples of changes that are durable or already failed. */
static void pruneChangeAges(commitState *cs) {
    uint64_t done = server.durable_seq > cs->failed_upto ? server.durable_seq : cs->failed_upto;
    size_t i = 0;
    while (i < cs->nages && cs->ages[i].seq <= done) i++;
    if (i == 0) return;
    memmove(cs->ages, cs->ages + i, sizeof(changeAge) * (cs->nages - i));
    cs->nages -= i;
}

/* Replies that have waited longer than commit-timeout get an error. The
 * changes stay in memory: the next successful commit still writes them. */
static void expireHeldReplies(commitState *cs) {
    if (server.change_seq <= server.durable_seq || cs->nages == 0) return;
    long long cutoff = mstime() - server.cfg.commit_timeout_ms;
    uint64_t upto = 0;
    for (size_t i = 0; i < cs->nages && cs->ages[i].ms <= cutoff; i++) upto = cs->ages[i].seq;
    if (upto <= server.durable_seq || upto <= cs->failed_upto) return;

    sds why;
    if (cs->consecutive_errors) why = sdscatprintf(sdsempty(), "last error: %s", cs->last_error);
    else if (cs->in_flight)
        why = sdscatprintf(sdsempty(), "the commit has been in flight for %lld ms",
                           (ustime() - cs->flight_start_us) / 1000);
    else why = sdsnew("no commit could be started");
    sds msg = sdscatprintf(sdsempty(),
                           "-TRYAGAIN commit timeout: the change could not be made durable within commit-timeout "
                           "(%lld ms; %s); it was not acknowledged and may still be committed later\r\n",
                           server.cfg.commit_timeout_ms, why);
    long long n = failHeldRepliesUpTo(upto, msg);
    cs->failed_upto = upto;
    cs->timed_out_replies += n;
    if (n)
        serverLog(LL_WARNING, "%lld replies waited longer than commit-timeout (%lld ms) and got an error (%s)", n,
                  server.cfg.commit_timeout_ms, why);
    sdsfree(why);
    sdsfree(msg);
    pruneChangeAges(cs);
}

/* ========================================================================
 * Loading and reloading
 * ===================================================================== */

/* Makes a decoded document the in-memory state: what it holds is durable
 * by definition, so durable_seq catches up with change_seq. */
/* Installs `ps` (NULL: empty) as the state at store version `version`.
 * Nothing shown before may be released as if it were in this document:
 * replies still waiting on older in-memory changes fail first. */
static void adoptState(commitState *cs, persistState *ps, const char *version) {
    if (server.change_seq > server.durable_seq) failHeldReplies(COMMIT_ERR_CONFLICT);
    persistInstall(ps);
    segmentsReset();
    /* Every stream is new to this state (no marks), nothing is noted as
     * removed, and the next commit writes a root: the log is its own
     * again from there. */
    persistLogForgetDeleted(0);
    persistLogForgetDeleted(1);
    cs->log_base = server.change_seq;
    cs->log_need_root = 1;
    cs->confirmed_ms = mstime();
    persistCacheReset(cs->cache);
    server.durable_seq = server.change_seq;
    cs->nages = 0;
    cs->failed_upto = server.durable_seq;
    sdsfree(cs->version);
    cs->version = version ? sdsnew(version) : NULL;
    persistHeaderClear(&cs->doc);
}

static void adoptDocument(commitState *cs, persistState *ps, persistHeader *h, const char *version, size_t len) {
    adoptState(cs, ps, version);
    unsigned long long keys = (unsigned long long)dbTotalServerKeyCount();
    cs->doc = *h;
    memset(h, 0, sizeof(*h));
    cs->doc_bytes = len;
    cs->log_records = (long long)cs->replay.applied;
    cs->load_ms = (ustime() - cs->reload_start_us) / 1000;
    cs->is_broker = isOurBroker(cs, &cs->doc);
    /* A document without a broker (new, or written by hand) is taken. */
    if (!cs->doc.broker.id) {
        cs->is_broker = 1;
        cs->takeover_pending = 1;
    }
    serverLog(cs->reload_quiet ? LL_VERBOSE : LL_NOTICE,
              "State document: %s (%llu keys, %zu bytes, %zu commit log records replayed, loaded in %lld ms)",
              server.store->location, keys, len, cs->replay.applied, cs->load_ms);
    if (cs->replay.torn_bytes)
        serverLog(LL_WARNING,
                  "The commit log of %s ends with %zu bytes of a record cut short (a crash while it was being "
                  "written; it was never acknowledged): ignored, and dropped by the next commit",
                  server.store->location, cs->replay.torn_bytes);
}

/* The document does not exist: an empty state, created by the next commit
 * with a create-only CAS. */
static void adoptMissingDocument(commitState *cs) {
    adoptState(cs, NULL, NULL);
    cs->doc_bytes = 0;
    cs->is_broker = 1;
    cs->takeover_pending = 1;
    cs->load_ms = (ustime() - cs->reload_start_us) / 1000;
    serverLog(LL_NOTICE, "State document: %s does not exist yet; starting with an empty state (the first commit "
                         "creates it)",
              server.store->location);
}

/* Whether this node holds a document it read or wrote at run time: one
 * whose loss it can tell (at start-up there is nothing to compare with). */
static int hadDocument(commitState *cs) {
    return !cs->starting && cs->doc.commit_seq > 0;
}

/* The document this node had read or written is lost: gone (deleted by a
 * person, a script, an S3 lifecycle rule), or replaced in place by bytes
 * that hold nothing of anyone else's (documentLost). What it held is in
 * memory, and "no document" must never become the truth: the broker that
 * wrote it writes it again from memory -- with a new epoch, as a CAS over
 * what is there now (version; NULL: nothing is, create-only), and every
 * entry inline, since its segments may be gone with it (they are sealed
 * again afterwards). A follower keeps its state and waits for the broker
 * to do so. `how` says what happened ("has VANISHED"). Returns NULL, or
 * why the load is not over. */
static sds keepStateOfLostDocument(commitState *cs, const char *version, const char *how) {
    if (!isOurBroker(cs, &cs->doc)) {
        return sdscatprintf(sdsempty(), "the document %s (its last commit_seq was %llu); keeping this "
                                        "node's state and waiting for the broker to write it again",
                            how, (unsigned long long)cs->doc.commit_seq);
    }
    serverLog(LL_WARNING,
              "The state document %s %s under this broker (last commit_seq %llu, epoch %llu): writing it "
              "again from memory (%llu keys), every entry inline, epoch %llu",
              server.store->location, how, (unsigned long long)cs->doc.commit_seq,
              (unsigned long long)cs->doc.broker.epoch, persistUnsealAll(),
              (unsigned long long)cs->doc.broker.epoch + 1);
    sdsfree(cs->version);
    cs->version = version ? sdsnew(version) : NULL;
    cs->is_broker = 1;
    cs->takeover_pending = 1;
    cs->vanished++;
    cs->load_ms = (ustime() - cs->reload_start_us) / 1000;
    return NULL;
}

/* A document that does not decode, read at run time: is it the one this
 * node read or wrote last, lost? Yes if it is empty (truncated to 0 bytes,
 * `> queue.json`, logrotate's copytruncate: nothing in it is anyone's), or
 * if it is JSON text cut short that begins with the very header of that
 * version (commit_seq and written_at_ms name one version of one broker:
 * what is left is a piece of it). Anything else may be somebody's -- a
 * newer casq's format, an edit gone wrong, a copy still being written --
 * and is never written over: the node keeps answering -LOADING and reading
 * it again. Returns how it was lost, or NULL. */
static const char *documentLost(commitState *cs, const char *data, size_t len) {
    if (!hadDocument(cs)) return NULL;
    if (persistTextEmpty(data, len)) return "was EMPTIED";
    sds head = cs->root_head;
    int ours = head && len > sdslen(head) && !memcmp(data, head, sdslen(head));
    return ours && persistTextCutShort(data, len) ? "was CUT SHORT" : NULL;
}

static void reloadLater(commitState *cs, long long ms) {
    if (cs->reload_scheduled) return;
    cs->reload_scheduled = 1;
    addTimer(cs->reload_ev, ms);
}

static void commitLoadFinish(commitState *cs, storeStatus status, const char *data, size_t len,
                             const char *version, const char *err, sds seg_problem);

/* Starts a load (reserving the next write for reserve_ms if > 0 and the
 * store can). */
static void commitStartLoad(commitState *cs, long long reserve_ms);

/* The root's segments are there (or not). */
static void commitSegmentsFetched(void *priv, const char *missing, const char *err) {
    commitState *cs = priv;
    sds root = cs->seg_root, version = cs->seg_version;
    cs->seg_root = cs->seg_version = NULL;
    if (missing && cs->seg_rereads < 1) {
        /* Deleted after a newer root stopped naming it? Read the root
         * again before giving up. */
        cs->seg_rereads++;
        serverLog(LL_NOTICE, "The %s named by %s is missing; reading the root again", missing,
                  server.store->location);
        sdsfree(root);
        sdsfree(version);
        commitStartLoad(cs, cs->reserve_ms);
        return;
    }
    sds problem = NULL;
    if (missing)
        problem = sdscatprintf(sdsempty(), "%s, named by the document, is missing from the store (%s)", missing,
                               server.store->location);
    else if (err)
        problem = sdsnew(err);
    commitLoadFinish(cs, STORE_OK, root, sdslen(root), version, NULL, problem);
    sdsfree(root);
    sdsfree(version);
}

static void commitLoadDone(void *priv, storeStatus status, const char *data, size_t len, const char *version,
                           const char *err) {
    commitState *cs = priv;
    sdsfree(cs->load_log);
    cs->load_log = (status == STORE_OK || status == STORE_NOT_FOUND) && server.store->type->log_take
                       ? server.store->type->log_take(server.store)
                       : NULL;
    /* "segments" (a db's key segments, a stream's) or "chunk_segments". */
    if (status == STORE_OK && memmem(data, len, "segments\"", 9)) {
        cs->seg_root = sdsnewlen(data, len);
        cs->seg_version = sdsnew(version);
        segmentsFetch(cs->seg_root, len, commitSegmentsFetched, cs);
        return;
    }
    commitLoadFinish(cs, status, data, len, version, err, NULL);
}

static void commitLoadFinish(commitState *cs, storeStatus status, const char *data, size_t len,
                             const char *version, const char *err, sds seg_problem) {
    sds problem = seg_problem;
    cs->seg_rereads = 0;
    memset(&cs->replay, 0, sizeof(cs->replay));
    if (problem) {
        /* nothing is installed */
    } else if (status == STORE_OK) {
        persistHeader h;
        persistState *ps = persistDecode(data, len, &h, &problem);
        const char *how;
        int our_root = 0;
        if (ps) {
            sds head = persistCatHeader(sdsempty(), &h);
            our_root = cs->root_head && !strcmp(head, cs->root_head);
            sdsfree(cs->root_head);
            cs->root_head = head;
        }
        if (ps && cs->load_log &&
            persistReplayLog(ps, &h, cs->load_log, sdslen(cs->load_log), &cs->replay, &problem) != C_OK) {
            persistStateFree(ps);
            persistHeaderClear(&h);
            ps = NULL;
            sds msg = sdscatprintf(sdsempty(), "%s (nothing was loaded; the log is beside the document)", problem);
            sdsfree(problem);
            problem = msg;
        }
        if (ps && our_root && hadDocument(cs) && isOurBroker(cs, &cs->doc) && h.commit_seq < cs->doc.commit_seq) {
            /* The root this broker wrote last, but short of the records
             * it appended since (rm or truncate of the log): what they held
             * is in memory only. */
            persistStateFree(ps);
            persistHeaderClear(&h);
            problem = keepStateOfLostDocument(cs, version, "lost its commit log");
        } else if (ps) {
            adoptDocument(cs, ps, &h, version, len);
            persistHeaderClear(&h);
        } else if ((how = documentLost(cs, data, len))) {
            sdsfree(problem);
            problem = keepStateOfLostDocument(cs, version, how);
        }
    } else if (status == STORE_NOT_FOUND && hadDocument(cs)) {
        problem = keepStateOfLostDocument(cs, NULL, "has VANISHED");
    } else if (status == STORE_NOT_FOUND && cs->load_log && !persistTextEmpty(cs->load_log, sdslen(cs->load_log))) {
        /* Its records are changes after a root that is gone: starting
         * empty would drop them, and the first commit the log with them. */
        problem = sdscatprintf(sdsempty(),
                               "it does not exist, but its commit log holds %zu bytes of records (changes made "
                               "after a root that is missing): put the document back, or remove the log to start "
                               "with an empty state",
                               sdslen(cs->load_log));
    } else if (status == STORE_NOT_FOUND) {
        adoptMissingDocument(cs);
    } else {
        problem = sdscatprintf(sdsempty(), "cannot read it: %s", err ? err : "unknown error");
    }

    sdsfree(cs->load_log);
    cs->load_log = NULL;
    if (!problem && status != STORE_ERROR) segmentsLoaded(cs->is_broker);
    if (cs->starting) {
        cs->load_done = 1;
        cs->load_error = problem;
        cs->reloading = 0;
        return;
    }
    sdsfree(cs->reload_problem);
    cs->reload_problem = problem;
    if (problem) {
        /* At run time there is no good state to fall back to: keep
         * answering -LOADING and try again. A broker that stepped down
         * still holds all it acknowledged: say how to get it back. */
        int ours = isOurBroker(cs, &cs->doc) && !cs->is_broker;
        serverLog(LL_WARNING, "Can't reload the state document %s: %s; retrying in 1 s%s", server.store->location,
                  problem,
                  ours ? "; this node holds every change it acknowledged: remove the document to have them written "
                         "again, or put a readable one in its place"
                       : "");
        cs->takeover_wanted = 0; /* broker.c tries again at its next check */
        cs->reloading = 0;
        reloadLater(cs, 1000);
        return;
    }
    cs->reloading = 0;
    server.loading = 0;
    if (cs->takeover_wanted) takeoverAfterLoad(cs);
    if (cs->reload_quiet) {
        cs->reload_quiet = 0;
        if (!cs->is_broker) return; /* still a follower: nothing new to say */
    }
    if (cs->is_broker) {
        serverLog(LL_NOTICE, "Broker: this node is %s the broker (epoch %llu)",
                  cs->takeover_pending ? "taking over as" : "still", (unsigned long long)cs->doc.broker.epoch);
    } else {
        serverLog(LL_NOTICE, "Broker: this node is a follower; the broker is %s at %s (epoch %llu)",
                  cs->doc.broker.id, cs->doc.broker.address ? cs->doc.broker.address : "?",
                  (unsigned long long)cs->doc.broker.epoch);
    }
}

/* Starts reading the document again; commands get -LOADING meanwhile. */
static void commitReload(commitState *cs) {
    if (cs->reloading) return;
    if (cs->reload_scheduled) {
        evtimer_del(cs->reload_ev);
        cs->reload_scheduled = 0;
    }
    cs->reloading = 1;
    cs->reloads++;
    cs->reload_start_us = ustime();
    cs->last_reload_ms = mstime();
    server.loading = 1;
    commitStartLoad(cs, 0);
}

static void commitStartLoad(commitState *cs, long long reserve_ms) {
    cs->reserve_ms = reserve_ms;
    if (reserve_ms > 0 && server.store->type->load_reserve)
        server.store->type->load_reserve(server.store, reserve_ms, commitLoadDone, cs);
    else
        server.store->type->load(server.store, commitLoadDone, cs);
}

static void reloadTimerFired(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    commitState *cs = arg;
    cs->reload_scheduled = 0;
    commitReload(cs);
}

static sds followerErrorString(commitState *cs) {
    return sdscatprintf(sdsempty(),
                        "-TRYAGAIN this casq node is not the broker: the state document names broker %s at %s "
                        "(epoch %llu); the change was not acknowledged\r\n",
                        cs->doc.broker.id ? cs->doc.broker.id : "?",
                        cs->doc.broker.address ? cs->doc.broker.address : "?",
                        (unsigned long long)cs->doc.broker.epoch);
}

sds commitLoadingError(void) {
    commitState *cs = server.commit;
    if (!cs || !cs->reload_problem) return NULL;
    return sdscatprintf(sdsempty(),
                        "-LOADING casq is loading the state document, which cannot be read: %s; retrying every "
                        "second\r\n",
                        cs->reload_problem);
}

sds commitFollowerError(void) {
    commitState *cs = server.commit;
    if (!cs || cs->is_broker || cs->reloading || cs->starting) return NULL;
    return followerErrorString(cs);
}

/* A follower's in-memory state must stay the document's: a change made
 * here anyway (e.g. an expiry) is refused and undone by reloading. */
static void followerDiscardChanges(commitState *cs) {
    sds msg = followerErrorString(cs);
    failHeldReplies(msg);
    sdsfree(msg);
    uint64_t from = cs->failed_upto > server.durable_seq ? cs->failed_upto : server.durable_seq;
    if (server.change_seq > from) cs->discarded_changes += (long long)(server.change_seq - from);
    cs->failed_upto = server.change_seq;
    pruneChangeAges(cs);
    long long now = mstime();
    if (now - cs->last_error_log_ms >= COMMIT_ERROR_LOG_MS) {
        serverLog(LL_NOTICE, "Refusing changes: this node is a follower; the broker is %s at %s (epoch %llu)",
                  cs->doc.broker.id ? cs->doc.broker.id : "?", cs->doc.broker.address ? cs->doc.broker.address : "?",
                  (unsigned long long)cs->doc.broker.epoch);
        cs->last_error_log_ms = now;
    }
    if (cs->reload_scheduled) return;
    /* Reloading undoes the change (rate-limited: a burst of refused writes
     * costs one reload). */
    cs->reload_quiet = 1;
    long long since = now - cs->last_reload_ms;
    if (since >= COMMIT_FOLLOWER_RELOAD_MS) commitReload(cs);
    else reloadLater(cs, COMMIT_FOLLOWER_RELOAD_MS - since);
}

/* ========================================================================
 * Committing
 * ===================================================================== */

/* The document of the commit in flight is no longer read by the store:
 * the texts it borrowed may change in place again, and those it kept are
 * freed with it. */
static void commitReleaseDoc(commitState *cs) {
    if (!cs->flight_doc) return;
    server.doc_pin = 0;
    server.doc_pinned = NULL;
    storeDocFree(cs->flight_doc);
    cs->flight_doc = NULL;
}

static void recordLatency(commitState *cs, long long us) {
    cs->latency_us[cs->lat_next] = us;
    cs->lat_next = (cs->lat_next + 1) % COMMIT_LATENCY_SAMPLES;
    if (cs->lat_count < COMMIT_LATENCY_SAMPLES) cs->lat_count++;
    if (us > cs->max_latency_us) cs->max_latency_us = us;
    cs->last_commit_us = us;
}

/* ------------------------------------------------------------------------
 * Gathering the next batch
 *
 * Clients in a closed loop (send, wait for the acknowledgement, send again)
 * all wait for the same commit. When it lands they get their replies
 * together and their next requests come back over the next hundred
 * microseconds or so. Committing at the first of them would make a batch
 * of one, with the other N-1 waiting for the one after: batches alternate
 * between 1 and N-1 and throughput halves. So when a commit lands while N
 * clients wait (those it releases, and those that arrived while it was in
 * flight), the next commit waits until N clients wait again -- or until a
 * short window passes (the last commit's latency, at most 2 ms or a quarter
 * of that latency on a slow store), so a
 * client that does not come back costs little. If windows keep expiring
 * unfilled, the workload is not like that, and gathering pauses.
 * --------------------------------------------------------------------- */

static void gatherTimerFired(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    (void)arg;
    uint64_t expirations;
    if (read(fd, &expirations, sizeof(expirations)) == -1) {
        /* nothing to do: the loop woke up, which is all we wanted */
    }
}

static void gatherArm(commitState *cs, long long us) {
    if (cs->gather_fd == -1) return;
    struct itimerspec its = {{0, 0}, {(time_t)(us / 1000000), (long)(us % 1000000) * 1000}};
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1000;
    timerfd_settime(cs->gather_fd, 0, &its, NULL);
}

/* released: clients whose replies the commit released; waiting: clients
 * that waited for a commit when it landed (the released ones, and those
 * that arrived while it was in flight and still wait). */
static void gatherAfterCommit(commitState *cs, unsigned long released, unsigned long waiting) {
    cs->gather_until_us = 0;
    cs->gather_waited = 0;
    if (cs->gather_fd == -1 || released < COMMIT_GATHER_MIN_CLIENTS) return;
    if (cs->gather_paused > 0) {
        cs->gather_paused--;
        return;
    }
    /* A slow store (S3: 100-200 ms per PUT) releases clients whose next
     * requests trickle back over tens of ms: let the window grow with the
     * commit latency (a quarter of it), never below the local-disk cap. */
    long long cap = cs->last_commit_us / 4;
    if (cap < COMMIT_GATHER_MAX_US) cap = COMMIT_GATHER_MAX_US;
    long long window = cs->last_commit_us;
    if (window > cap) window = cap;
    if (window < 1) return;
    cs->gather_target = waiting;
    cs->gather_until_us = ustime() + window;
}

/* Whether the next commit should wait for more clients (see above). */
static int commitShouldWait(commitState *cs) {
    if (!cs->gather_until_us) return 0;
    long long now = ustime();
    if (listLength(server.clients_waiting_commit) >= cs->gather_target) {
        cs->gather_misses = 0;
    } else if (now < cs->gather_until_us) {
        /* The window's end does not move: arm its timer once. */
        if (!cs->gather_waited) {
            cs->gathered_commits++;
            gatherArm(cs, cs->gather_until_us - now);
        }
        cs->gather_waited = 1;
        return 1;
    } else if (++cs->gather_misses >= COMMIT_GATHER_MISSES) {
        cs->gather_misses = 0;
        cs->gather_paused = COMMIT_GATHER_PAUSE;
    }
    cs->gather_until_us = 0;
    cs->gather_waited = 0;
    return 0;
}

/* The attempt being made holds every change up to flight_seq: the next
 * record starts after it, and its streams' flight marks are theirs. */
static void logAttemptHolds(commitState *cs) {
    cs->log_ok_gen = cs->log_gen;
    cs->log_base = cs->flight_seq;
    persistLogForgetDeleted(1);
}

/* What the log keeps track of once a commit landed. */
static void logCommitLanded(commitState *cs) {
    logAttemptHolds(cs);
    if (cs->flight_is_log) {
        cs->log_commits++;
        cs->log_records++;
        cs->log_bytes += (long long)cs->flight_bytes;
        cs->log_bytes_sum += cs->flight_bytes;
        segmentsLogCommitDone();
        return;
    }
    cs->checkpoints++;
    cs->root_bytes_sum += cs->flight_bytes;
    cs->log_records = cs->log_bytes = 0;
    cs->log_need_root = 0;
    cs->root_stale = 0;
    cs->root_ms = mstime();
    sdsfree(cs->root_head);
    cs->root_head = persistCatHeader(sdsempty(), &cs->flight_hdr);
    segmentsCommitDone(1);
}

static void commitSucceeded(commitState *cs, const char *new_version) {
    uint64_t batch = cs->flight_seq - cs->flight_base;
    cs->commits++;
    cs->confirmed_ms = mstime();
    logCommitLanded(cs);
    cs->changes_committed += batch;
    if (batch > cs->max_batch) cs->max_batch = batch;
    recordLatency(cs, ustime() - cs->flight_start_us);
    cs->last_commit_ms = mstime();
    cs->last_outcome = COMMIT_OK;
    sdsfree(cs->version);
    cs->version = sdsnew(new_version);
    int took_over = cs->takeover_pending;
    sds prev_broker = cs->doc.broker.id ? sdsdup(cs->doc.broker.id) : NULL;
    persistHeaderClear(&cs->doc);
    cs->doc = cs->flight_hdr;
    memset(&cs->flight_hdr, 0, sizeof(cs->flight_hdr));
    if (!cs->flight_is_log) cs->doc_bytes = cs->flight_bytes;
    cs->takeover_pending = 0;
    if (took_over) {
        if (prev_broker && !strcmp(prev_broker, cs->node_id))
            serverLog(LL_NOTICE, "Broker: this node (%s) wrote the state document again, epoch %llu", cs->node_id,
                      (unsigned long long)cs->doc.broker.epoch);
        else if (prev_broker)
            serverLog(LL_NOTICE, "Broker: this node (%s) took over the state document from %s, epoch %llu",
                      cs->node_id, prev_broker, (unsigned long long)cs->doc.broker.epoch);
        else
            serverLog(LL_NOTICE, "Broker: this node (%s) is the broker of the state document, epoch %llu",
                      cs->node_id, (unsigned long long)cs->doc.broker.epoch);
    }
    sdsfree(prev_broker);
    if (cs->consecutive_errors) {
        serverLog(LL_WARNING, "Commits succeed again after %lld failed attempts", cs->consecutive_errors);
        cs->consecutive_errors = 0;
    }
    cs->backoff_ms = 0;
    if (cs->flight_seq > server.durable_seq) server.durable_seq = cs->flight_seq;
    pruneChangeAges(cs);
    unsigned long waiting = listLength(server.clients_waiting_commit);
    releaseHeldReplies();
    unsigned long released = waiting - listLength(server.clients_waiting_commit);
    /* Send the acknowledgements now, not after the next commit has been
     * encoded: the sooner clients have them, the sooner their next
     * requests arrive (and join the next batch). */
    handleClientsWithPendingWrites();
    gatherAfterCommit(cs, released, waiting);
}

static void commitConflicted(commitState *cs, const char *err) {
    cs->conflicts++;
    cs->last_outcome = COMMIT_CONFLICT;
    setLastError(cs, err ? err : "the document was written by another broker");
    persistHeaderClear(&cs->flight_hdr);
    cs->takeover_pending = 0;
    cs->is_broker = 0;
    if (cs->starting) return; /* commitInit loads again and retries */
    uint64_t lost = server.change_seq - server.durable_seq;
    cs->discarded_changes += (long long)lost;
    serverLog(LL_WARNING,
              "Commit conflict on %s (%s): another casq broker took over; failing %lu waiting clients, "
              "discarding %llu unacknowledged changes and reloading the document",
              server.store->location, cs->last_error, listLength(server.clients_waiting_commit),
              (unsigned long long)lost);
    failHeldReplies(COMMIT_ERR_CONFLICT);
    cs->failed_upto = server.change_seq;
    pruneChangeAges(cs);
    commitReload(cs);
}

static void commitFailed(commitState *cs, const char *err) {
    cs->errors++;
    cs->consecutive_errors++;
    cs->last_outcome = COMMIT_FAILED;
    setLastError(cs, err);
    persistHeaderClear(&cs->flight_hdr);
    if (!cs->flight_is_log) segmentsCommitDone(0);
    /* After a failed append the retry writes the root: it replaces the
     * spare in place and then empties the log, where a bigger log would
     * need room a full disk may not have; and the log's tail is the
     * store's best effort to cut back. */
    if (cs->flight_is_log) cs->log_need_root = 1;
    if (cs->starting) return; /* commitInit gives up */
    cs->backoff_ms = cs->backoff_ms ? cs->backoff_ms * 2 : COMMIT_BACKOFF_MIN_MS;
    if (cs->backoff_ms > COMMIT_BACKOFF_MAX_MS) cs->backoff_ms = COMMIT_BACKOFF_MAX_MS;
    /* Jitter: half fixed, half random, so brokers do not retry in step. */
    long long delay = cs->backoff_ms / 2 + random() % (cs->backoff_ms / 2 + 1);
    long long now = mstime();
    if (cs->consecutive_errors == 1 || now - cs->last_error_log_ms >= COMMIT_ERROR_LOG_MS) {
        serverLog(LL_WARNING, "Commit to %s failed (%s); %lld attempts so far, retrying in %lld ms; %lu clients wait",
                  server.store->location, cs->last_error, cs->consecutive_errors, delay,
                  listLength(server.clients_waiting_commit));
        cs->last_error_log_ms = now;
    }
    cs->backing_off = 1;
    addTimer(cs->retry_ev, delay);
}

static void commitFinish(commitState *cs, storeStatus status, const char *version, const char *err) {
    commitReleaseDoc(cs);
    sdsfree(cs->flight_log);
    cs->flight_log = NULL;
    cs->in_flight = 0;
    switch (status) {
    case STORE_OK: commitSucceeded(cs, version); break;
    case STORE_CONFLICT: commitConflicted(cs, err); break;
    default: commitFailed(cs, err ? err : "storage error"); break;
    }
}

static void commitWriteDone(void *priv, storeStatus status, const char *new_version, const char *err) {
    commitFinish(priv, status, new_version, err);
}

/* Hands the encoded document (or log record) of the commit in flight to
 * the store. */
static void commitWrite(commitState *cs) {
    if (cs->flight_is_log) {
        sds rec = cs->flight_log;
        cs->flight_log = NULL;
        server.store->type->log_append(server.store, rec, cs->version, commitWriteDone, cs);
        return;
    }
    storeDoc *doc = cs->flight_doc;
    if (server.store->type->write_doc) {
        server.store->type->write_doc(server.store, doc, cs->version, commitWriteDone, cs);
    } else {
        sds flat = storeDocFlatten(doc);
        commitReleaseDoc(cs);
        server.store->type->write(server.store, flat, cs->version, commitWriteDone, cs);
    }
}

/* commit-debug-delay: the store is slow from the start, the document
 * waiting (and its borrowed texts with it) before it is written. */
static void delayTimerFired(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    commitState *cs = arg;
    cs->delay_pending = 0;
    commitWrite(cs);
}

void commitDebugDelayChanged(void) {
    commitState *cs = server.commit;
    if (!cs || !cs->delay_pending) return;
    long long left = server.cfg.commit_debug_delay_ms - (ustime() - cs->flight_start_us) / 1000;
    if (left <= 0) {
        evtimer_del(cs->delay_ev);
        cs->delay_pending = 0;
        commitWrite(cs);
        return;
    }
    addTimer(cs->delay_ev, left);
}

/* A big document is a fresh allocation at every commit, and faulting it in
 * 4 KB at a time costs more than copying into it (a 50 MB document: ~12k
 * page faults, ~30 ms of the event loop). Transparent huge pages, asked
 * for before the first touch, cut that to a few dozen. Advisory: if the
 * kernel says no, nothing changes. */
static void adviseHugePages(sds buf) {
    const uintptr_t huge = 2 * 1024 * 1024;
    size_t len = sdsalloc(buf);
    if (len < 4 * huge) return;
    uintptr_t start = ((uintptr_t)buf + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)buf + len) & ~(huge - 1);
    if (end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/* The commit is encoded: in flight from now, written at once or after
 * commit-debug-delay. */
static void commitLaunch(commitState *cs) {
    cs->last_encode_us = ustime() - cs->flight_start_us;
    cs->in_flight = 1;
    if (server.cfg.commit_debug_delay_ms > 0) {
        cs->delay_pending = 1;
        addTimer(cs->delay_ev, server.cfg.commit_debug_delay_ms);
        return;
    }
    commitWrite(cs);
}

/* Whether the next commit must write the root (a checkpoint) rather than
 * a log record: no log, a take-over (the root carries the broker record,
 * and its CAS fences the old broker), the first commit after a load, and
 * every commit-log-checkpoint-records / -bytes / -ms. */
static int commitWantsRoot(commitState *cs) {
    if (!cs->log_on || cs->takeover_pending || cs->log_need_root) return 1;
    if (cs->log_records >= server.cfg.commit_log_checkpoint_records) return 1;
    if (cs->log_bytes >= server.cfg.commit_log_checkpoint_bytes) return 1;
    return mstime() - cs->root_ms >= server.cfg.commit_log_checkpoint_ms;
}

/* Nothing for a record to say: the changes were sealing's (entries and
 * keys moved into segments), which only a root names -- the next one
 * will. Durable as they are. */
static void commitNothingToLog(commitState *cs) {
    persistHeaderClear(&cs->flight_hdr);
    logAttemptHolds(cs);
    cs->root_stale = 1;
    if (cs->flight_seq > server.durable_seq) server.durable_seq = cs->flight_seq;
    releaseHeldReplies();
}

typedef enum logStart {
    LOG_NEEDS_ROOT, /* a change only a root can say */
    LOG_NOTHING,    /* no change to write: done */
    LOG_STARTED,    /* the record is in flight_log */
} logStart;

/* The commit as a log record: the changes since the last commit landed. */
static logStart commitStartLog(commitState *cs) {
    persistLogTakeDeleted();
    int empty;
    sds rec =
        persistEncodeLogRecord(&cs->flight_hdr, cs->log_base, cs->log_gen, cs->log_ok_gen, cs->cache, &empty);
    if (!rec) return LOG_NEEDS_ROOT;
    if (empty) {
        sdsfree(rec);
        commitNothingToLog(cs);
        return LOG_NOTHING;
    }
    segmentsLogCommitStarted();
    cs->flight_is_log = 1;
    cs->flight_log = rec;
    cs->flight_bytes = sdslen(rec);
    return LOG_STARTED;
}

/* Encodes the state as of now and starts the CAS write. */
static void commitStart(commitState *cs) {
    persistHeader *h = &cs->flight_hdr;
    persistHeaderClear(h);
    h->commit_seq = cs->doc.commit_seq + 1;
    h->written_at_ms = mstime();
    h->broker.id = sdsdup(cs->node_id);
    h->broker.address = sdsdup(cs->node_address);
    h->broker.epoch = cs->doc.broker.epoch + (cs->takeover_pending ? 1 : 0);

    cs->flight_start_us = ustime();
    cs->flight_seq = server.change_seq;
    cs->flight_base = server.durable_seq;
    cs->log_gen++;
    cs->flight_is_log = 0;
    logStart logged = commitWantsRoot(cs) ? LOG_NEEDS_ROOT : commitStartLog(cs);
    if (logged == LOG_NOTHING) return;
    if (logged == LOG_STARTED) {
        commitLaunch(cs);
        return;
    }
    /* A checkpoint holds every change: the names removed so far are its
     * too (and stay noted should it fail), every stream as it is now. */
    if (cs->log_on) {
        persistLogTakeDeleted();
        persistLogMarkStreams(cs->log_gen);
    }
    /* Big streams' entries are borrowed from their nodes (storeDoc in
     * store.h): the own buffer holds the rest. */
    storeDoc *doc = storeDocNew(cs->own_bytes + cs->own_bytes / 8 + 4096);
    adviseHugePages(doc->own);
    server.doc_pin = ++cs->doc_pins;
    server.doc_pinned = doc;
    cs->flight_doc = doc;
    segmentsCommitStarted();
    persistEncode(doc, h, cs->cache);
    cs->own_bytes = sdslen(doc->own);
    cs->flight_bytes = doc->len;
    commitLaunch(cs);
}

static void retryTimerFired(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    commitState *cs = arg;
    cs->backing_off = 0; /* beforeSleep, right after this, commits */
}

/* ========================================================================
 * The module interface (commit.h)
 * ===================================================================== */

void commitBeforeSleep(void) {
    commitState *cs = server.commit;
    if (!cs || cs->starting) return;
    noteChangeAge(cs);
    if (cs->in_flight || cs->reloading || cs->backing_off || cs->probing) return;
    if (server.change_seq <= server.durable_seq && !cs->takeover_pending) return;
    if (!cs->is_broker) {
        /* Not while the document cannot be read since stepping down: the
         * changes it holds are the ones it may have to write again. */
        if (server.change_seq > server.durable_seq && roleOf(cs) == COMMIT_ROLE_FOLLOWER) followerDiscardChanges(cs);
        return;
    }
    if (cs->reload_scheduled) return;
    if (!cs->takeover_pending && commitShouldWait(cs)) return;
    commitStart(cs);
}

/* ========================================================================
 * Is this node still the broker? (an idle broker asks the store)
 *
 * A broker learns that another node took the document over at its next
 * commit (a CAS conflict). An idle broker has no next commit: without
 * asking, it would go on serving reads from a state nobody writes any
 * more, and followers would go on relaying to it. So a broker that has
 * not committed for a while asks the store for the document's version
 * (store->probe: the lock-file record, a HEAD on S3) every
 * broker-timeout/4; another version means another writer: it steps down
 * and reloads. And it refuses to serve anything from a state the store has
 * not confirmed within broker-timeout (a broker that was stopped, or whose
 * store does not answer): commitStateUnconfirmed.
 * ===================================================================== */

static long long probeIntervalMs(void) {
    long long ms = server.cfg.broker_timeout_ms / 4;
    return ms < 20 ? 20 : ms;
}

/* Versions as the stores give them; S3 ETags with or without quotes. */
static int sameVersion(const char *a, const char *b) {
    if (!a || !b) return 0;
    size_t la = strlen(a), lb = strlen(b);
    if (la >= 2 && a[0] == '"' && a[la - 1] == '"') a++, la -= 2;
    if (lb >= 2 && b[0] == '"' && b[lb - 1] == '"') b++, lb -= 2;
    return la == lb && !memcmp(a, b, la);
}

static void commitProbeDone(void *priv, storeStatus status, const char *data, size_t len, const char *version,
                            const char *err) {
    (void)data;
    (void)len;
    commitState *cs = priv;
    cs->probing = 0;
    cs->probes++;
    if (!cs->is_broker || cs->reloading || cs->in_flight || cs->starting) return;
    if (status == STORE_OK && sameVersion(version, cs->version)) {
        cs->confirmed_ms = cs->probe_start_ms;
        return;
    }
    if (status == STORE_ERROR) {
        setLastError(cs, err ? err : "probe failed");
        return; /* asked again at the next cron; reads stop once too old */
    }
    /* Another version (or none): someone else wrote the document. */
    cs->deposed++;
    serverLog(LL_WARNING,
              "Broker: the state document %s is %s (this node wrote version %s): another node took over; "
              "stepping down and reloading",
              server.store->location, status == STORE_NOT_FOUND ? "gone" : "not the version this node wrote",
              cs->version ? cs->version : "none");
    /* The reload tells: a document gone or emptied under us is written
     * again (keepStateOfLostDocument), another broker's is followed. */
    cs->is_broker = 0;
    commitReload(cs);
}

static void commitProbeMaybe(commitState *cs) {
    if (!cs->is_broker || cs->in_flight || cs->reloading || cs->probing || cs->takeover_pending ||
        cs->backing_off || !server.store->type->probe || !cs->version)
        return;
    long long now = mstime();
    if (now - cs->confirmed_ms < probeIntervalMs()) return;
    /* Pending changes commit instead: a commit confirms as well. */
    if (server.change_seq > server.durable_seq) return;
    cs->probing = 1;
    cs->probe_start_ms = now;
    server.store->type->probe(server.store, commitProbeDone, cs);
}

void commitKickProbe(void) {
    if (server.commit && !server.commit->starting) commitProbeMaybe(server.commit);
}

int commitStateUnconfirmed(long long at_ms) {
    commitState *cs = server.commit;
    if (!cs || cs->starting || !cs->is_broker || !cs->confirmed_ms || !server.store->type->probe) return 0;
    return at_ms - cs->confirmed_ms > server.cfg.broker_timeout_ms;
}

/* An idle broker with records since its root writes the root: a restart
 * then replays nothing, and the segments sealed since get named (so that
 * what they replaced can be collected). */
#define COMMIT_LOG_IDLE_MS 1000

/* The stored root is behind the state: records after it, or segments it
 * does not name yet. */
static int rootBehind(commitState *cs) { return cs->log_on && (cs->log_records > 0 || cs->root_stale); }

static void commitCheckpointIfIdle(commitState *cs) {
    if (!cs->is_broker || !rootBehind(cs) || cs->in_flight || cs->reloading || cs->backing_off || cs->probing ||
        cs->starting || cs->reload_scheduled)
        return;
    if (server.change_seq > server.durable_seq || mstime() - cs->last_commit_ms < COMMIT_LOG_IDLE_MS) return;
    cs->log_need_root = 1;
    commitStart(cs);
}

void commitCron(void) {
    commitState *cs = server.commit;
    if (!cs || cs->starting) return;
    noteChangeAge(cs);
    expireHeldReplies(cs);
    commitCheckpointIfIdle(cs);
    commitProbeMaybe(cs);
    segmentsCron(cs->is_broker && !cs->reloading && !server.loading && !cs->takeover_pending);
}

/* Runs the loop until *flag becomes true. */
static void runLoopUntil(int *flag) {
    while (!*flag) event_base_loop(server.el, EVLOOP_ONCE);
}

static int commitInitLoad(commitState *cs, sds *err) {
    cs->load_done = 0;
    cs->load_error = NULL;
    cs->reloading = 1;
    cs->reload_start_us = ustime();
    /* The take-over write must follow this load without another writer
     * in between: reserve it if the store can. */
    commitStartLoad(cs, server.cfg.commit_timeout_ms);
    runLoopUntil(&cs->load_done);
    if (cs->load_error) {
        *err = sdscatprintf(sdsempty(), "Can't load the state document %s: %s", server.store->location,
                            cs->load_error);
        sdsfree(cs->load_error);
        cs->load_error = NULL;
        return C_ERR;
    }
    return C_OK;
}

static int commitWaitFlight(commitState *cs) {
    int done = 0;
    while (!done) {
        event_base_loop(server.el, EVLOOP_ONCE);
        done = !cs->in_flight;
    }
    return cs->last_outcome;
}

static commitState *commitStateCreate(void) {
    commitState *cs = zcalloc(sizeof(*cs));
    cs->cache = persistCacheCreate();
    segmentsInit();
    keysegInit();
    chunksegInit();
    cs->node_id = sdsnew(server.runid);
    cs->node_address = nodeAddress();
    cs->last_error = sdsempty();
    cs->delay_ev = evtimer_new(server.el, delayTimerFired, cs);
    cs->retry_ev = evtimer_new(server.el, retryTimerFired, cs);
    cs->reload_ev = evtimer_new(server.el, reloadTimerFired, cs);
    /* libevent's own timers have millisecond resolution with epoll: too
     * coarse for a window of a few hundred microseconds. */
    cs->gather_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (cs->gather_fd != -1) {
        cs->gather_ev = event_new(server.el, cs->gather_fd, EV_READ | EV_PERSIST, gatherTimerFired, cs);
        event_add(cs->gather_ev, NULL);
    }
    return cs;
}

static void commitStateFree(commitState *cs) {
    commitReleaseDoc(cs); /* the store is closed: nobody reads it any more */
    event_free(cs->delay_ev);
    event_free(cs->retry_ev);
    event_free(cs->reload_ev);
    if (cs->gather_ev) event_free(cs->gather_ev);
    if (cs->gather_fd != -1) close(cs->gather_fd);
    persistCacheFree(cs->cache);
    persistHeaderClear(&cs->doc);
    persistHeaderClear(&cs->flight_hdr);
    sdsfree(cs->version);
    sdsfree(cs->node_id);
    sdsfree(cs->node_address);
    sdsfree(cs->takeover_expect_id);
    sdsfree(cs->load_error);
    sdsfree(cs->reload_problem);
    sdsfree(cs->last_error);
    sdsfree(cs->seg_root);
    sdsfree(cs->seg_version);
    sdsfree(cs->flight_log);
    sdsfree(cs->root_head);
    sdsfree(cs->load_log);
    zfree(cs->ages);
    zfree(cs);
    segmentsFree(); /* after the store: no callback can come */
    keysegFree();
    chunksegFree();
}

/* commitInit failed: nothing of the module stays behind. */
static int commitInitFailed(void) {
    if (server.store) storeClose(server.store);
    server.store = NULL;
    if (server.commit) commitStateFree(server.commit);
    server.commit = NULL;
    return C_ERR;
}

/* The configured store's URL (default: queue.json in the data directory). */
static sds commitStoreUrl(sds *err) {
    sds url;
    if (server.cfg.store && server.cfg.store[0]) {
        url = sdsnew(server.cfg.store);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd))) {
            *err = sdscatprintf(sdsempty(), "Can't determine the data directory: %s", strerror(errno));
            return NULL;
        }
        url = sdscatprintf(sdsempty(), "file://%s%squeue.json", cwd, cwd[strlen(cwd) - 1] == '/' ? "" : "/");
    }
    return url;
}

/* Opens the configured store and the module's state, starting (loading):
 * what commitInit and commitExportState begin with. */
static commitState *commitOpen(sds *err) {
    sds url = commitStoreUrl(err);
    if (!url) return NULL;
    sds oerr = NULL;
    server.store = storeOpen(url, server.el, &oerr);
    if (!server.store) {
        *err = sdscatprintf(sdsempty(), "Can't open the state store %s: %s", url, oerr ? oerr : "unknown error");
        sdsfree(oerr);
        sdsfree(url);
        return NULL;
    }
    sdsfree(url);
    commitState *cs = commitStateCreate();
    server.commit = cs;
    cs->log_on = server.cfg.commit_log && server.store->type->log_append && server.store->type->log_take;
    server.log_tracking = cs->log_on;
    cs->starting = 1;
    server.loading = 1;
    return cs;
}

int commitInit(sds *err) {
    if (!server.runid[0]) serverPanic("commitInit: run_id not initialised");
    commitState *cs = commitOpen(err);
    if (!cs) return C_ERR;

    /* Load, then take over with a CAS write of our broker record. Another
     * node writing in between makes the CAS fail: load again. */
    int attempt;
    for (attempt = 0; attempt < COMMIT_START_ATTEMPTS; attempt++) {
        if (commitInitLoad(cs, err) != C_OK) return commitInitFailed();
        segmentsSealBeforeStart();
        keysegSealBeforeStart();
        cs->is_broker = 1;
        cs->takeover_pending = 1;
        commitStart(cs);
        int outcome = commitWaitFlight(cs);
        if (outcome == COMMIT_OK) break;
        if (outcome == COMMIT_FAILED) {
            *err = sdscatprintf(sdsempty(), "Can't write the state document %s: %s", server.store->location,
                                cs->last_error);
            return commitInitFailed();
        }
        serverLog(LL_WARNING, "Another node wrote %s while this one was starting (%s); loading it again",
                  server.store->location, cs->last_error);
    }
    if (attempt == COMMIT_START_ATTEMPTS) {
        *err = sdscatprintf(sdsempty(), "Can't take over the state document %s: %d attempts lost the CAS to other "
                                        "nodes",
                            server.store->location, COMMIT_START_ATTEMPTS);
        return commitInitFailed();
    }
    cs->starting = 0;
    server.loading = 0;
    return C_OK;
}

/* --export-state: loads the document and its segments (writing nothing)
 * and writes the whole logical state to path ("-": stdout) as one
 * document with every entry inline -- a document casq itself loads. */
int commitExportState(const char *path, sds *err) {
    commitState *cs = commitOpen(err);
    if (!cs) return C_ERR;
    cs->load_done = 0;
    cs->reloading = 1;
    cs->reload_start_us = ustime();
    commitStartLoad(cs, 0);
    runLoopUntil(&cs->load_done);
    int ret = C_ERR;
    if (cs->load_error) {
        *err = sdscatprintf(sdsempty(), "Can't load the state document %s: %s", server.store->location,
                            cs->load_error);
    } else if (!cs->version) {
        *err = sdscatprintf(sdsempty(), "There is no state document at %s", server.store->location);
    } else {
        storeDoc *doc = storeDocNew(cs->doc_bytes + 4096);
        server.doc_pin = ++cs->doc_pins;
        server.doc_pinned = doc;
        persistEncodeInline(doc, &cs->doc);
        sds flat = storeDocFlatten(doc);
        storeDocFree(doc);
        server.doc_pin = ++cs->doc_pins; /* nothing borrowed any more */
        server.doc_pinned = NULL;
        FILE *fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
        if (!fp) {
            *err = sdscatprintf(sdsempty(), "Can't open %s: %s", path, strerror(errno));
        } else {
            int bad = fwrite(flat, 1, sdslen(flat), fp) != sdslen(flat) || fputc('\n', fp) == EOF;
            bad |= fp == stdout ? fflush(fp) != 0 : fclose(fp) != 0;
            if (bad) *err = sdscatprintf(sdsempty(), "Can't write %s: %s", path, strerror(errno));
            else ret = C_OK;
        }
        sdsfree(flat);
    }
    storeClose(server.store);
    server.store = NULL;
    commitStateFree(cs);
    server.commit = NULL;
    server.loading = 0;
    return ret;
}

int commitFlushAndClose(void) {
    commitState *cs = server.commit;
    if (!cs) return C_OK;
    long long deadline = mstime() + server.cfg.commit_timeout_ms;
    while (mstime() < deadline) {
        if (cs->in_flight || cs->reloading || cs->backing_off) {
            event_base_loop(server.el, EVLOOP_ONCE);
            continue;
        }
        if (cs->is_broker && (server.change_seq > server.durable_seq || cs->takeover_pending)) {
            commitStart(cs);
            continue;
        }
        /* A root of everything, so the next start replays nothing. */
        if (cs->is_broker && rootBehind(cs) && cs->last_outcome == COMMIT_OK) {
            cs->log_need_root = 1;
            commitStart(cs);
            continue;
        }
        break;
    }
    if (cs->in_flight)
        serverLog(LL_WARNING, "Shutdown: a commit to %s is still in flight after commit-timeout; waiting for it",
                  server.store->location);
    int ok = server.durable_seq >= server.change_seq || !cs->is_broker;
    if (server.durable_seq >= server.change_seq)
        serverLog(LL_NOTICE, "Shutdown: every change is durable in %s (commit_seq %llu)", server.store->location,
                  (unsigned long long)cs->doc.commit_seq);
    /* Acknowledge what became durable, refuse the rest, and tell them. */
    releaseHeldReplies();
    failHeldReplies(COMMIT_ERR_SHUTDOWN);
    handleClientsWithPendingWrites();
    storeClose(server.store); /* waits for a write in flight */
    server.store = NULL;
    commitStateFree(cs);
    server.commit = NULL;
    return ok ? C_OK : C_ERR;
}

/* ========================================================================
 * INFO
 * ===================================================================== */

static int compareLL(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static double latencyPercentileMs(commitState *cs, double pct) {
    if (!cs->lat_count) return 0;
    long long sorted[COMMIT_LATENCY_SAMPLES];
    memcpy(sorted, cs->latency_us, sizeof(long long) * (size_t)cs->lat_count);
    qsort(sorted, (size_t)cs->lat_count, sizeof(long long), compareLL);
    size_t idx = (size_t)((pct / 100.0) * (cs->lat_count - 1) + 0.5);
    return (double)sorted[idx] / 1000.0;
}

static const char *outcomeName(commitOutcome o) {
    switch (o) {
    case COMMIT_OK: return "ok";
    case COMMIT_CONFLICT: return "conflict";
    case COMMIT_FAILED: return "err";
    default: return "none";
    }
}

sds commitInfoString(sds s) {
    commitState *cs = server.commit;
    if (!cs) return s;
    int failing = cs->last_outcome == COMMIT_FAILED;
    /* The fields Redis clients and tools look at, with casq's truth: the
     * "save" is the last commit; there is no AOF and no fork. */
    s = sdscatprintf(s,
                     "rdb_changes_since_last_save:%llu\r\n"
                     "rdb_bgsave_in_progress:0\r\n"
                     "rdb_last_save_time:%lld\r\n"
                     "rdb_last_bgsave_status:%s\r\n"
                     "rdb_last_bgsave_time_sec:-1\r\n"
                     "rdb_current_bgsave_time_sec:-1\r\n"
                     "rdb_saves:%lld\r\n"
                     "aof_enabled:0\r\n"
                     "aof_rewrite_in_progress:0\r\n"
                     "aof_rewrite_scheduled:0\r\n"
                     "aof_last_rewrite_time_sec:-1\r\n"
                     "aof_current_rewrite_time_sec:-1\r\n"
                     "aof_last_bgrewrite_status:ok\r\n"
                     "aof_rewrites:0\r\n"
                     "aof_last_write_status:ok\r\n"
                     "module_fork_in_progress:0\r\n"
                     "module_fork_last_cow_size:0\r\n",
                     (unsigned long long)(server.change_seq - server.durable_seq),
                     (cs->last_commit_ms ? cs->last_commit_ms : server.start_time_ms) / 1000,
                     failing ? "err" : "ok", cs->commits);
    s = sdscatprintf(s, "store:%s\r\nstore_location:%s\r\n", server.store->type->name, server.store->location);
    if (server.store->type->info) s = server.store->type->info(server.store, s);
    double avg_batch = cs->commits ? (double)cs->changes_committed / (double)cs->commits : 0;
    /* Means per commit of that kind: a root per checkpoint, a record per
     * log commit. */
    s = sdscatprintf(s, "root_bytes_last:%zu\r\nroot_bytes_mean:%llu\r\n", cs->doc_bytes,
                     cs->checkpoints ? (unsigned long long)(cs->root_bytes_sum / (uint64_t)cs->checkpoints) : 0ULL);
    s = sdscatprintf(s,
                     "commit_log:%s\r\n"
                     "commit_log_commits:%lld\r\n"
                     "commit_log_bytes_mean:%llu\r\n"
                     "commit_checkpoints:%lld\r\n"
                     "commit_checkpoints_for_barrier:%lld\r\n"
                     "commit_checkpoints_for_stream:%lld\r\n"
                     "commit_checkpoints_for_big_value:%lld\r\n"
                     "commit_log_records_since_root:%lld\r\n"
                     "commit_log_bytes_since_root:%lld\r\n"
                     "commit_log_replayed:%zu\r\n"
                     "commit_log_torn_bytes:%zu\r\n",
                     cs->log_on ? "on" : "off", cs->log_commits,
                     cs->log_commits ? (unsigned long long)(cs->log_bytes_sum / (uint64_t)cs->log_commits) : 0ULL,
                     cs->checkpoints, persistLogRefusals(cs->cache, PERSIST_LOG_REFUSED_BARRIER),
                     persistLogRefusals(cs->cache, PERSIST_LOG_REFUSED_STREAM),
                     persistLogRefusals(cs->cache, PERSIST_LOG_REFUSED_BIG),
                     cs->log_records, cs->log_bytes, cs->replay.applied, cs->replay.torn_bytes);
    s = segmentsInfo(s);
    s = keysegInfo(s);
    s = chunksegInfo(s);
    s = sdscatprintf(s,
                     "document_bytes:%zu\r\n"
                     "document_commit_seq:%llu\r\n"
                     "document_cached_keys:%zu\r\n"
                     "document_cached_bytes:%zu\r\n"
                     "commits:%lld\r\n"
                     "commit_in_flight:%d\r\n"
                     "commit_avg_batch:%.2f\r\n"
                     "commit_max_batch:%llu\r\n"
                     "commit_gathered:%lld\r\n"
                     "commit_latency_p50_ms:%.3f\r\n"
                     "commit_latency_p99_ms:%.3f\r\n"
                     "commit_latency_max_ms:%.3f\r\n"
                     "commit_last_latency_ms:%.3f\r\n"
                     "commit_last_encode_ms:%.3f\r\n"
                     "commit_conflicts:%lld\r\n"
                     "commit_errors:%lld\r\n"
                     "commit_consecutive_errors:%lld\r\n"
                     "commit_last_status:%s\r\n"
                     "commit_last_error:%s\r\n"
                     "commit_timeout_ms:%lld\r\n"
                     "commit_timed_out_replies:%lld\r\n"
                     "commit_discarded_changes:%lld\r\n"
                     "commit_waiting_clients:%lu\r\n"
                     "change_seq:%llu\r\n"
                     "durable_seq:%llu\r\n"
                     "reloads:%lld\r\n"
                     "document_vanished:%lld\r\n"
                     "broker_probes:%lld\r\n"
                     "broker_deposed:%lld\r\n"
                     "broker_confirmed_ms_ago:%lld\r\n"
                     "last_load_ms:%lld\r\n"
                     "broker_role:%s\r\n"
                     "broker_id:%s\r\n"
                     "broker_address:%s\r\n"
                     "broker_epoch:%llu\r\n"
                     "node_id:%s\r\n",
                     cs->doc_bytes, (unsigned long long)cs->doc.commit_seq, persistCacheKeys(cs->cache),
                     persistCacheBytes(cs->cache), cs->commits, cs->in_flight, avg_batch,
                     (unsigned long long)cs->max_batch, cs->gathered_commits, latencyPercentileMs(cs, 50), latencyPercentileMs(cs, 99),
                     (double)cs->max_latency_us / 1000.0, (double)cs->last_commit_us / 1000.0,
                     (double)cs->last_encode_us / 1000.0, cs->conflicts,
                     cs->errors, cs->consecutive_errors, outcomeName(cs->last_outcome), cs->last_error,
                     server.cfg.commit_timeout_ms, cs->timed_out_replies, cs->discarded_changes,
                     listLength(server.clients_waiting_commit), (unsigned long long)server.change_seq,
                     (unsigned long long)server.durable_seq, cs->reloads, cs->vanished, cs->probes, cs->deposed,
                     cs->confirmed_ms ? mstime() - cs->confirmed_ms : -1, cs->load_ms,
                     roleName(roleOf(cs)),
                     cs->doc.broker.id ? cs->doc.broker.id : "", cs->doc.broker.address ? cs->doc.broker.address : "",
                     (unsigned long long)cs->doc.broker.epoch, cs->node_id);
    return s;
}

long long commitLastLoadMs(void) { return server.commit ? server.commit->load_ms : 0; }

persistCache *commitEncodeCache(void) { return server.commit ? server.commit->cache : NULL; }

uint64_t commitCoveredSeq(void) {
    commitState *cs = server.commit;
    if (cs && cs->in_flight && cs->flight_seq > server.durable_seq) return cs->flight_seq;
    return server.durable_seq;
}

/* ========================================================================
 * The broker module's view and the follower's take-over (commit.h; the
 * policy -- when to take over, where to forward -- is broker.c's)
 * ===================================================================== */

commitRole commitGetRole(void) {
    commitState *cs = server.commit;
    return cs ? roleOf(cs) : COMMIT_ROLE_NONE;
}

void commitGetBroker(const char **id, const char **address, uint64_t *epoch) {
    commitState *cs = server.commit;
    *id = cs ? cs->doc.broker.id : NULL;
    *address = cs ? cs->doc.broker.address : NULL;
    *epoch = cs ? cs->doc.broker.epoch : 0;
}

const char *commitNodeId(void) { return server.commit ? server.commit->node_id : server.runid; }

const char *commitNodeAddress(void) { return server.commit ? server.commit->node_address : ""; }

int commitTakeOver(const char *expect_id, uint64_t expect_epoch) {
    commitState *cs = server.commit;
    if (!cs || cs->starting || cs->is_broker || cs->reloading || cs->in_flight) return C_ERR;
    if (cs->reload_scheduled) {
        evtimer_del(cs->reload_ev);
        cs->reload_scheduled = 0;
    }
    sdsfree(cs->takeover_expect_id);
    cs->takeover_expect_id = expect_id ? sdsnew(expect_id) : NULL;
    cs->takeover_expect_epoch = expect_epoch;
    cs->takeover_wanted = 1;
    cs->reloading = 1;
    cs->reloads++;
    cs->reload_start_us = ustime();
    cs->last_reload_ms = mstime();
    cs->reload_quiet = 1;
    server.loading = 1;
    /* As at start-up: the take-over write must follow this load without
     * another writer in between (the broker may only be slow, not dead). */
    commitStartLoad(cs, server.cfg.commit_timeout_ms);
    return C_OK;
}

/* The take-over load landed (commitLoadDone): take over if the document
 * still names the broker that stopped answering. Otherwise somebody else
 * did something first (another follower took over, or the broker wrote a
 * new epoch): follow the document as it is. */
static void takeoverAfterLoad(commitState *cs) {
    cs->takeover_wanted = 0;
    const persistBroker *b = &cs->doc.broker;
    int same = b->id && cs->takeover_expect_id && !strcmp(b->id, cs->takeover_expect_id) &&
               b->epoch == cs->takeover_expect_epoch;
    if (same && !cs->is_broker) {
        cs->is_broker = 1;
        cs->takeover_pending = 1; /* commitBeforeSleep writes epoch+1 */
        return;
    }
    if (cs->is_broker) return; /* a document without a broker: adopted */
    /* A reserving load keeps the store for our next write, which will not
     * come: a plain load lets the broker in again at once (and logs whom
     * this node follows now). */
    if (server.store->type->load_reserve) {
        commitReload(cs);
        return;
    }
    serverLog(LL_NOTICE, "Broker: not taking over: the state document now names broker %s at %s (epoch %llu)",
              b->id ? b->id : "?", b->address ? b->address : "?", (unsigned long long)b->epoch);
}

void commitFollowerReload(void) {
    commitState *cs = server.commit;
    if (!cs || cs->starting || cs->is_broker || cs->reloading || cs->reload_scheduled || cs->in_flight) return;
    cs->reload_quiet = 1;
    long long since = mstime() - cs->last_reload_ms;
    if (since >= COMMIT_FOLLOWER_RELOAD_MS) commitReload(cs);
    else reloadLater(cs, COMMIT_FOLLOWER_RELOAD_MS - since);
}

/* LASTSAVE: unix time (seconds) of the last successful commit, or of the
 * start when nothing was committed yet (the state then is the document
 * as loaded, durable already) -- what INFO's rdb_last_save_time says. */
long long commitLastSaveTime(void) {
    commitState *cs = server.commit;
    long long ms = cs && cs->last_commit_ms ? cs->last_commit_ms : server.start_time_ms;
    return ms / 1000;
}
