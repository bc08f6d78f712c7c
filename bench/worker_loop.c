/* worker_loop.c -- end-to-end job throughput of a stream work queue.
 *
 * A benchmark driver, not a test. It plays the workload casq exists for:
 * P pusher connections XADD jobs to one stream while W worker connections
 * consume them through one consumer group with
 *
 *     XREADGROUP GROUP <g> <worker> COUNT <c> BLOCK 100 STREAMS <key> >
 *
 * and acknowledge every job they got (with -m the pushers keep the stream
 * short with XADD MAXLEN ~ <m>, as a queue that must not grow forever does:
 * XACK does not delete entries). A worker sends the acks of a batch
 * (one XACK per job, or one XACK naming the whole batch with -a multi)
 * pipelined together with its next XREADGROUP, so a batch costs one round
 * trip, as a well written worker library would do it.
 *
 * The run is bounded twice: by a job count (-n) and by a deadline (-t); it
 * ends when every job has been acknowledged or the deadline passed. It
 * prints one line of key=value pairs (easy to parse from a shell script):
 *
 *     jobs=100000 acked=100000 secs=1.234 jobs_per_sec=81037 \
 *     lat_p50_us=850 lat_p99_us=4100 timeout=0 errors=0
 *
 * Latency is per job: from the moment its pusher sent the XADD to the moment
 * a worker received it from XREADGROUP (the pusher puts its send time,
 * CLOCK_MONOTONIC microseconds, in the job's `t` field).
 *
 * Every connection has its own thread and its own synchronous hiredis
 * context, which keeps the driver simple and lets the kernel, not an event
 * loop in the driver, interleave them. Exit status: 0 when every job was
 * acknowledged, 2 on timeout, 1 on errors. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

/* ========================================================================
 * Settings and shared state
 * ===================================================================== */

typedef struct benchConfig {
    const char *host;     /* server address */
    int port;             /* server port */
    long long jobs;       /* jobs to push (and acknowledge) in all */
    int pushers;          /* pusher connections */
    int workers;          /* worker connections */
    int push_pipeline;    /* XADDs a pusher keeps in flight */
    int count;            /* XREADGROUP COUNT */
    int ack_multi;        /* 1: one XACK per batch naming every ID */
    int value_size;       /* bytes of the `p` (payload) field */
    long long maxlen;     /* pushers trim with MAXLEN ~ maxlen; 0: never */
    double timeout_s;     /* deadline for the whole run */
    const char *key;      /* stream key */
    const char *group;    /* consumer group */
} benchConfig;

static benchConfig cfg = {
    .host = "127.0.0.1",
    .port = 6379,
    .jobs = 100000,
    .pushers = 2,
    .workers = 4,
    .push_pipeline = 16,
    .count = 10,
    .ack_multi = 0,
    .value_size = 16,
    .maxlen = 0,
    .timeout_s = 60,
    .key = "bench:jobs",
    .group = "bench",
};

static atomic_llong acked_total;     /* jobs acknowledged (XACK replied 1) */
static atomic_llong pushed_total;    /* XADDs that replied with an ID */
static atomic_llong error_total;     /* error replies and I/O errors */
static atomic_int stop_flag;         /* set at the deadline or on errors */
static atomic_llong last_ack_us;     /* monotonic time of the last ack */
static long long start_us;           /* monotonic time the run started */
static long long deadline_us;        /* start_us + timeout */

static long long monotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static redisContext *connectOrDie(void) {
    struct timeval tv = {.tv_sec = 10, .tv_usec = 0};
    redisContext *ctx = redisConnectWithTimeout(cfg.host, cfg.port, tv);
    if (ctx == NULL || ctx->err) {
        fprintf(stderr, "worker_loop: cannot connect to %s:%d: %s\n", cfg.host, cfg.port,
                ctx ? ctx->errstr : "out of memory");
        exit(1);
    }
    /* A reply held longer than this means the server is stuck: give up
     * rather than hang the benchmark script. */
    redisSetTimeout(ctx, tv);
    return ctx;
}

static void noteError(const char *who, redisContext *ctx, const redisReply *r) {
    atomic_fetch_add(&error_total, 1);
    atomic_store(&stop_flag, 1);
    if (r && r->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "worker_loop: %s: error reply: %s\n", who, r->str);
    else
        fprintf(stderr, "worker_loop: %s: %s\n", who, ctx->err ? ctx->errstr : "unexpected reply");
}

/* ========================================================================
 * Pushers
 * ===================================================================== */

typedef struct pusherArgs {
    int id;          /* pusher number */
    long long quota; /* jobs this pusher adds */
} pusherArgs;

static void *pusherMain(void *arg) {
    pusherArgs *pa = arg;
    redisContext *ctx = connectOrDie();
    char *payload = malloc((size_t)cfg.value_size + 1);
    memset(payload, 'x', (size_t)cfg.value_size);
    payload[cfg.value_size] = '\0';

    long long sent = 0;
    while (sent < pa->quota && !atomic_load(&stop_flag)) {
        if (monotonicUs() > deadline_us) break;
        int batch = cfg.push_pipeline;
        if (pa->quota - sent < batch) batch = (int)(pa->quota - sent);
        for (int i = 0; i < batch; i++) {
            char ts[32];
            snprintf(ts, sizeof(ts), "%lld", monotonicUs());
            if (cfg.maxlen)
                redisAppendCommand(ctx, "XADD %s MAXLEN ~ %lld * t %s p %s", cfg.key, cfg.maxlen, ts, payload);
            else
                redisAppendCommand(ctx, "XADD %s * t %s p %s", cfg.key, ts, payload);
        }
        for (int i = 0; i < batch; i++) {
            redisReply *r = NULL;
            if (redisGetReply(ctx, (void **)&r) != REDIS_OK || r->type != REDIS_REPLY_STRING) {
                noteError("XADD", ctx, r);
                if (r) freeReplyObject(r);
                goto done;
            }
            freeReplyObject(r);
        }
        sent += batch;
        atomic_fetch_add(&pushed_total, batch);
    }
done:
    free(payload);
    redisFree(ctx);
    return NULL;
}

/* ========================================================================
 * Workers
 * ===================================================================== */

typedef struct workerArgs {
    int id;              /* worker number: consumer name "w<id>" */
    long long *lat;      /* delivery latencies seen, microseconds */
    size_t nlat;         /* latencies stored */
    size_t lat_alloc;    /* slots allocated in lat */
} workerArgs;

static void recordLatency(workerArgs *wa, long long us) {
    if (wa->nlat == wa->lat_alloc) {
        wa->lat_alloc = wa->lat_alloc ? wa->lat_alloc * 2 : 4096;
        wa->lat = realloc(wa->lat, wa->lat_alloc * sizeof(*wa->lat));
    }
    wa->lat[wa->nlat++] = us;
}

/* Collects the IDs of an XREADGROUP reply (nil, or [[key, [[id, [f, v, ...]],
 * ...]]] in RESP2) into ids[]; returns how many, or -1 if malformed. */
static int collectBatch(workerArgs *wa, const redisReply *r, char ids[][48], int max, long long now) {
    if (r->type == REDIS_REPLY_NIL) return 0;
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 1) return -1;
    const redisReply *kv = r->element[0];
    if (kv->type != REDIS_REPLY_ARRAY || kv->elements != 2) return -1;
    const redisReply *entries = kv->element[1];
    if (entries->type != REDIS_REPLY_ARRAY) return -1;
    int n = 0;
    for (size_t i = 0; i < entries->elements && n < max; i++) {
        const redisReply *e = entries->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING) return -1;
        snprintf(ids[n++], 48, "%s", e->element[0]->str);
        const redisReply *fv = e->element[1];
        if (fv->type != REDIS_REPLY_ARRAY) continue; /* deleted entry: nil fields */
        for (size_t j = 0; j + 1 < fv->elements; j += 2)
            if (fv->element[j]->len == 1 && fv->element[j]->str[0] == 't')
                recordLatency(wa, now - strtoll(fv->element[j + 1]->str, NULL, 10));
    }
    return n;
}

/* Reads the replies of the acks sent with the previous round trip. */
static int readAckReplies(redisContext *ctx, int nacks_cmds) {
    for (int i = 0; i < nacks_cmds; i++) {
        redisReply *r = NULL;
        if (redisGetReply(ctx, (void **)&r) != REDIS_OK || r->type != REDIS_REPLY_INTEGER) {
            noteError("XACK", ctx, r);
            if (r) freeReplyObject(r);
            return -1;
        }
        atomic_fetch_add(&acked_total, r->integer);
        freeReplyObject(r);
    }
    if (nacks_cmds) atomic_store(&last_ack_us, monotonicUs());
    return 0;
}

static void *workerMain(void *arg) {
    workerArgs *wa = arg;
    redisContext *ctx = connectOrDie();
    char consumer[32];
    snprintf(consumer, sizeof(consumer), "w%d", wa->id);
    char(*ids)[48] = malloc(sizeof(*ids) * (size_t)cfg.count);
    const char **argv = malloc(sizeof(char *) * (size_t)(cfg.count + 3));
    int nids = 0;

    for (;;) {
        /* The acks of the last batch, then the next read, in one write. */
        int ack_cmds = 0;
        if (nids) {
            if (cfg.ack_multi) {
                argv[0] = "XACK";
                argv[1] = cfg.key;
                argv[2] = cfg.group;
                for (int i = 0; i < nids; i++) argv[3 + i] = ids[i];
                redisAppendCommandArgv(ctx, nids + 3, argv, NULL);
                ack_cmds = 1;
            } else {
                for (int i = 0; i < nids; i++) redisAppendCommand(ctx, "XACK %s %s %s", cfg.key, cfg.group, ids[i]);
                ack_cmds = nids;
            }
        }
        int done = atomic_load(&acked_total) + nids >= cfg.jobs || atomic_load(&stop_flag) ||
                   monotonicUs() > deadline_us;
        if (!done)
            redisAppendCommand(ctx, "XREADGROUP GROUP %s %s COUNT %d BLOCK 100 STREAMS %s >", cfg.group, consumer,
                               cfg.count, cfg.key);
        if (readAckReplies(ctx, ack_cmds) == -1) break;
        nids = 0;
        if (done) break;

        redisReply *r = NULL;
        if (redisGetReply(ctx, (void **)&r) != REDIS_OK) {
            noteError("XREADGROUP", ctx, r);
            break;
        }
        nids = collectBatch(wa, r, ids, cfg.count, monotonicUs());
        if (nids < 0) {
            noteError("XREADGROUP", ctx, r);
            freeReplyObject(r);
            break;
        }
        freeReplyObject(r);
    }
    free(argv);
    free(ids);
    redisFree(ctx);
    return NULL;
}

/* ========================================================================
 * Setup, report, main
 * ===================================================================== */

static void runSetup(void) {
    redisContext *ctx = connectOrDie();
    redisReply *r = redisCommand(ctx, "DEL %s", cfg.key);
    if (r == NULL || r->type == REDIS_REPLY_ERROR) noteError("DEL", ctx, r);
    if (r) freeReplyObject(r);
    r = redisCommand(ctx, "XGROUP CREATE %s %s $ MKSTREAM", cfg.key, cfg.group);
    if (r == NULL || r->type == REDIS_REPLY_ERROR) noteError("XGROUP CREATE", ctx, r);
    if (r) freeReplyObject(r);
    redisFree(ctx);
    if (atomic_load(&error_total)) exit(1);
}

static int cmpLL(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static long long percentile(const long long *v, size_t n, double p) {
    if (n == 0) return -1;
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i];
}

static void usage(void) {
    fprintf(stderr,
            "usage: worker_loop [-h host] [-p port] [-n jobs] [-P pushers] [-W workers]\n"
            "                   [-d push-pipeline] [-c count] [-a each|multi] [-s value-size]\n"
            "                   [-m maxlen] [-t timeout-seconds] [-k key] [-g group]\n");
    exit(1);
}

int main(int argc, char **argv) {
    int opt;
    while ((opt = getopt(argc, argv, "h:p:n:P:W:d:c:a:s:m:t:k:g:")) != -1) {
        switch (opt) {
        case 'h': cfg.host = optarg; break;
        case 'p': cfg.port = atoi(optarg); break;
        case 'n': cfg.jobs = atoll(optarg); break;
        case 'P': cfg.pushers = atoi(optarg); break;
        case 'W': cfg.workers = atoi(optarg); break;
        case 'd': cfg.push_pipeline = atoi(optarg); break;
        case 'c': cfg.count = atoi(optarg); break;
        case 'a': cfg.ack_multi = strcmp(optarg, "multi") == 0; break;
        case 's': cfg.value_size = atoi(optarg); break;
        case 'm': cfg.maxlen = atoll(optarg); break;
        case 't': cfg.timeout_s = atof(optarg); break;
        case 'k': cfg.key = optarg; break;
        case 'g': cfg.group = optarg; break;
        default: usage();
        }
    }
    if (cfg.jobs <= 0 || cfg.pushers <= 0 || cfg.workers <= 0 || cfg.push_pipeline <= 0 || cfg.count <= 0 ||
        cfg.value_size < 0 || cfg.maxlen < 0 || cfg.timeout_s <= 0)
        usage();

    runSetup();
    pthread_t *pt = calloc((size_t)cfg.pushers, sizeof(*pt));
    pthread_t *wt = calloc((size_t)cfg.workers, sizeof(*wt));
    pusherArgs *pa = calloc((size_t)cfg.pushers, sizeof(*pa));
    workerArgs *wa = calloc((size_t)cfg.workers, sizeof(*wa));

    start_us = monotonicUs();
    deadline_us = start_us + (long long)(cfg.timeout_s * 1e6);
    atomic_store(&last_ack_us, start_us);
    for (int i = 0; i < cfg.workers; i++) {
        wa[i].id = i;
        pthread_create(&wt[i], NULL, workerMain, &wa[i]);
    }
    for (int i = 0; i < cfg.pushers; i++) {
        pa[i].id = i;
        pa[i].quota = cfg.jobs / cfg.pushers + (i < cfg.jobs % cfg.pushers);
        pthread_create(&pt[i], NULL, pusherMain, &pa[i]);
    }
    for (int i = 0; i < cfg.pushers; i++) pthread_join(pt[i], NULL);
    for (int i = 0; i < cfg.workers; i++) pthread_join(wt[i], NULL);

    /* Merge the workers' latencies. */
    size_t n = 0;
    for (int i = 0; i < cfg.workers; i++) n += wa[i].nlat;
    long long *all = malloc((n ? n : 1) * sizeof(*all));
    n = 0;
    for (int i = 0; i < cfg.workers; i++) {
        memcpy(all + n, wa[i].lat, wa[i].nlat * sizeof(*all));
        n += wa[i].nlat;
        free(wa[i].lat);
    }
    qsort(all, n, sizeof(*all), cmpLL);

    long long acked = atomic_load(&acked_total);
    int timed_out = acked < cfg.jobs && !atomic_load(&error_total);
    double secs = (double)(atomic_load(&last_ack_us) - start_us) / 1e6;
    printf("jobs=%lld pushed=%lld acked=%lld secs=%.3f jobs_per_sec=%.0f lat_p50_us=%lld lat_p99_us=%lld "
           "timeout=%d errors=%lld\n",
           cfg.jobs, atomic_load(&pushed_total), acked, secs, secs > 0 ? (double)acked / secs : 0.0,
           percentile(all, n, 0.50), percentile(all, n, 0.99), timed_out, atomic_load(&error_total));
    free(all);
    free(pt);
    free(wt);
    free(pa);
    free(wa);
    if (atomic_load(&error_total)) return 1;
    return timed_out ? 2 : 0;
}
