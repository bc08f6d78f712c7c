/* durable_bench.c -- steady-state job loop driver for bench/durable_bench.sh.
 *
 * A benchmark driver, not a test. It runs the workload a durable job queue
 * lives in, for a fixed time:
 *
 *   P pushers   XADD <key> * t <send time> p <payload>, one at a time, each
 *               waiting for its acknowledgement (a durable XADD);
 *   W workers   XREADGROUP GROUP <g> <worker> COUNT <c> BLOCK 100 STREAMS
 *               <key> >, then XACK and XDEL of the batch (pipelined, one
 *               round trip), so a finished job leaves the stream.
 *
 * Pushers pause while the live queue (pushed, not yet deleted) is at the
 * limit (-l, default 10000), so the stream -- and casq's document -- stays
 * bounded however the two sides compare: the run measures a steady state,
 * not a stream that grows for as long as it runs. -f N queues N jobs
 * before the run starts (pipelined, not measured), so the workers start
 * with a backlog: the queue, and the document, then hold about N jobs
 * throughout.
 *
 * Prints one line of key=value pairs:
 *
 *     secs=10.0 jobs_per_sec=12345 pushed=... done=... live_max=...
 *     job_p50_ms=... job_p99_ms=... errors=0
 *
 * job latency: from the XADD being sent to the XDEL of that job being
 * acknowledged (the whole life of a job); "n/a" when no job pushed during
 * the run was worked (workers busy with a -b backlog the whole time). Each connection has its own
 * thread and a synchronous hiredis context. Exit status 1 on errors. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

typedef struct benchConfig {
    const char *host; /* server address */
    int port;         /* server port */
    int pushers;      /* pusher connections */
    int workers;      /* worker connections */
    int count;        /* XREADGROUP COUNT */
    long long live;   /* live queue limit */
    double secs;      /* measured run time */
    int value_size;   /* payload bytes */
    const char *key;  /* stream */
    const char *group;/* consumer group */
    long long prefill;/* jobs queued before the run (not measured) */
    long long backlog;/* -b: the stream already holds this many jobs (its
                       * group reads from 0): kept, not deleted */
} benchConfig;

static benchConfig cfg = {"127.0.0.1", 6379, 4, 4, 10, 10000, 10, 100, "durable:jobs", "workers", 0, 0};

static atomic_llong pushed, done, errors, live_max;
static atomic_int stop_flag;
static long long start_us, end_us;

/* Job latencies (µs), each thread appends to its own array. */
typedef struct latencies {
    long long *v;
    size_t n, cap;
} latencies;

static long long nowUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void latAdd(latencies *l, long long us) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4096;
        l->v = realloc(l->v, l->cap * sizeof(long long));
    }
    l->v[l->n++] = us;
}

static redisContext *connectOrDie(void) {
    struct timeval tv = {30, 0};
    redisContext *c = redisConnectWithTimeout(cfg.host, cfg.port, tv);
    if (!c || c->err) {
        fprintf(stderr, "durable_bench: cannot connect: %s\n", c ? c->errstr : "oom");
        exit(1);
    }
    redisSetTimeout(c, tv);
    return c;
}

static void fail(const char *who, redisContext *c, redisReply *r) {
    atomic_fetch_add(&errors, 1);
    atomic_store(&stop_flag, 1);
    fprintf(stderr, "durable_bench: %s: %s\n", who,
            r && r->type == REDIS_REPLY_ERROR ? r->str : (c->err ? c->errstr : "unexpected reply"));
}

static void *pusherMain(void *arg) {
    (void)arg;
    redisContext *c = connectOrDie();
    char *payload = malloc((size_t)cfg.value_size + 1);
    memset(payload, 'x', (size_t)cfg.value_size);
    payload[cfg.value_size] = '\0';
    while (!atomic_load(&stop_flag) && nowUs() < end_us) {
        long long live = atomic_load(&pushed) - atomic_load(&done);
        if (live >= cfg.live) {
            usleep(200);
            continue;
        }
        char ts[32];
        snprintf(ts, sizeof(ts), "%lld", nowUs());
        redisReply *r = redisCommand(c, "XADD %s * t %s p %s", cfg.key, ts, payload);
        if (!r || r->type != REDIS_REPLY_STRING) {
            fail("XADD", c, r);
            if (r) freeReplyObject(r);
            break;
        }
        freeReplyObject(r);
        long long l = atomic_fetch_add(&pushed, 1) + 1 - atomic_load(&done);
        long long m = atomic_load(&live_max);
        while (l > m && !atomic_compare_exchange_weak(&live_max, &m, l)) {
        }
    }
    free(payload);
    redisFree(c);
    return NULL;
}

typedef struct workerArgs {
    int id;
    latencies lat;
} workerArgs;

static void *workerMain(void *arg) {
    workerArgs *wa = arg;
    redisContext *c = connectOrDie();
    char name[32];
    snprintf(name, sizeof(name), "w%d", wa->id);
    while (!atomic_load(&stop_flag) && nowUs() < end_us) {
        redisReply *r = redisCommand(c, "XREADGROUP GROUP %s %s COUNT %d BLOCK 100 STREAMS %s >", cfg.group, name,
                                     cfg.count, cfg.key);
        if (!r) {
            fail("XREADGROUP", c, r);
            break;
        }
        if (r->type == REDIS_REPLY_NIL || (r->type == REDIS_REPLY_ARRAY && r->elements == 0)) {
            freeReplyObject(r);
            continue;
        }
        /* RESP2: [[key, [[id, [f, v, ...]], ...]]] */
        if (r->type != REDIS_REPLY_ARRAY || r->element[0]->type != REDIS_REPLY_ARRAY) {
            fail("XREADGROUP", c, r);
            freeReplyObject(r);
            break;
        }
        redisReply *entries = r->element[0]->element[1];
        size_t n = entries->elements;
        const char **argv = malloc(sizeof(char *) * (n + 3));
        size_t *argl = malloc(sizeof(size_t) * (n + 3));
        long long *sent = malloc(sizeof(long long) * n);
        for (size_t i = 0; i < n; i++) {
            redisReply *e = entries->element[i];
            argv[3 + i] = e->element[0]->str;
            argl[3 + i] = e->element[0]->len;
            sent[i] = 0;
            redisReply *fv = e->element[1];
            for (size_t k = 0; k + 1 < fv->elements; k += 2)
                if (!strcmp(fv->element[k]->str, "t")) sent[i] = atoll(fv->element[k + 1]->str);
        }
        argv[0] = "XACK";
        argl[0] = 4;
        argv[1] = cfg.key;
        argl[1] = strlen(cfg.key);
        argv[2] = cfg.group;
        argl[2] = strlen(cfg.group);
        redisAppendCommandArgv(c, (int)(n + 3), argv, argl);
        argv[1] = "XDEL";
        argl[1] = 4;
        argv[2] = cfg.key;
        argl[2] = strlen(cfg.key);
        redisAppendCommandArgv(c, (int)(n + 2), argv + 1, argl + 1);
        redisReply *ack = NULL, *del = NULL;
        int ok = redisGetReply(c, (void **)&ack) == REDIS_OK && redisGetReply(c, (void **)&del) == REDIS_OK &&
                 ack->type == REDIS_REPLY_INTEGER && del->type == REDIS_REPLY_INTEGER;
        if (!ok) {
            fail("XACK/XDEL", c, del && del->type == REDIS_REPLY_ERROR ? del : ack);
        } else {
            long long t = nowUs();
            atomic_fetch_add(&done, (long long)n);
            if (t < end_us)
                for (size_t i = 0; i < n; i++)
                    if (sent[i]) latAdd(&wa->lat, t - sent[i]);
        }
        if (ack) freeReplyObject(ack);
        if (del) freeReplyObject(del);
        free(argv);
        free(argl);
        free(sent);
        freeReplyObject(r);
        if (!ok) break;
    }
    redisFree(c);
    return NULL;
}

static int cmpLL(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int opt;
    while ((opt = getopt(argc, argv, "h:p:P:W:c:l:d:s:k:f:b:")) != -1) {
        switch (opt) {
        case 'h': cfg.host = optarg; break;
        case 'p': cfg.port = atoi(optarg); break;
        case 'P': cfg.pushers = atoi(optarg); break;
        case 'W': cfg.workers = atoi(optarg); break;
        case 'c': cfg.count = atoi(optarg); break;
        case 'l': cfg.live = atoll(optarg); break;
        case 'd': cfg.secs = atof(optarg); break;
        case 's': cfg.value_size = atoi(optarg); break;
        case 'k': cfg.key = optarg; break;
        case 'f': cfg.prefill = atoll(optarg); break;
        case 'b': cfg.backlog = atoll(optarg); break;
        default:
            fprintf(stderr, "usage: durable_bench [-h host] [-p port] [-P pushers] [-W workers] [-c count]\n"
                            "                     [-l live-limit] [-d seconds] [-s value-size] [-k key] [-f prefill]\n"
                            "                     [-b backlog: the stream holds it already, read from 0]\n");
            return 1;
        }
    }
    redisContext *c = connectOrDie();
    redisReply *r;
    if (!cfg.backlog) {
        r = redisCommand(c, "DEL %s", cfg.key);
        freeReplyObject(r);
    }
    r = redisCommand(c, "XGROUP CREATE %s %s %s MKSTREAM", cfg.key, cfg.group, cfg.backlog ? "0" : "$");
    if (!r || r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "durable_bench: XGROUP CREATE: %s\n", r ? r->str : c->errstr);
        return 1;
    }
    freeReplyObject(r);
    /* The backlog: pipelined, 1000 at a time, sent-time 0 (no latency). */
    char *payload = malloc((size_t)cfg.value_size + 1);
    memset(payload, 'x', (size_t)cfg.value_size);
    payload[cfg.value_size] = '\0';
    for (long long left = cfg.prefill; left > 0;) {
        int batch = left > 1000 ? 1000 : (int)left;
        for (int i = 0; i < batch; i++) redisAppendCommand(c, "XADD %s * t 0 p %s", cfg.key, payload);
        for (int i = 0; i < batch; i++) {
            if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type != REDIS_REPLY_STRING) {
                fprintf(stderr, "durable_bench: prefill failed\n");
                return 1;
            }
            freeReplyObject(r);
        }
        left -= batch;
    }
    free(payload);
    atomic_store(&pushed, cfg.prefill + cfg.backlog);
    if (cfg.prefill + cfg.backlog > cfg.live) cfg.live = cfg.prefill + cfg.backlog;

    start_us = nowUs();
    end_us = start_us + (long long)(cfg.secs * 1e6);
    pthread_t *th = calloc((size_t)(cfg.pushers + cfg.workers), sizeof(pthread_t));
    workerArgs *wa = calloc((size_t)cfg.workers, sizeof(workerArgs));
    for (int i = 0; i < cfg.pushers; i++) pthread_create(&th[i], NULL, pusherMain, NULL);
    for (int i = 0; i < cfg.workers; i++) {
        wa[i].id = i;
        pthread_create(&th[cfg.pushers + i], NULL, workerMain, &wa[i]);
    }
    for (int i = 0; i < cfg.pushers + cfg.workers; i++) pthread_join(th[i], NULL);
    double secs = (double)(nowUs() - start_us) / 1e6;

    latencies all = {0};
    for (int i = 0; i < cfg.workers; i++) {
        for (size_t k = 0; k < wa[i].lat.n; k++) latAdd(&all, wa[i].lat.v[k]);
        free(wa[i].lat.v);
    }
    qsort(all.v, all.n, sizeof(long long), cmpLL);
    /* No job pushed during the run was worked (the workers spent it in a
     * backlog): no latency to show, which "0.00" would misstate. */
    char p50[32] = "n/a", p99[32] = "n/a";
    if (all.n) {
        snprintf(p50, sizeof(p50), "%.2f", all.v[all.n / 2] / 1000.0);
        snprintf(p99, sizeof(p99), "%.2f", all.v[(size_t)(all.n * 0.99)] / 1000.0);
    }
    printf("secs=%.2f jobs_per_sec=%.0f pushed=%lld done=%lld live_max=%lld job_p50_ms=%s job_p99_ms=%s "
           "errors=%lld\n",
           secs, (double)atomic_load(&done) / secs, atomic_load(&pushed), atomic_load(&done),
           atomic_load(&live_max), p50, p99, atomic_load(&errors));
    free(all.v);
    free(th);
    free(wa);
    redisFree(c);
    return atomic_load(&errors) ? 1 : 0;
}
