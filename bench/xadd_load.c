/* xadd_load.c -- acknowledged XADD throughput and latency at N concurrent
 * clients.
 *
 * A benchmark driver, not a test. C connections each run a closed loop:
 * send one `XADD <key> * p <payload>`, wait for the reply, send the next.
 * With casq every reply waits for the group commit that made the entry
 * durable, so the rate this measures is the rate of *acknowledged* (durable)
 * XADDs, and the latency is what one producer sees per job.
 *
 * All connections share one thread and one libevent loop (hiredis async),
 * which is what lets a small driver keep 1000+ connections busy without
 * 1000 threads. The run has three phases: connect every client (and wait
 * until all are connected), a warm-up (-w seconds, not measured), then the
 * measured window (-d seconds). Replies that arrive in the window are
 * counted; their latency (send to reply, CLOCK_MONOTONIC) is kept and sorted
 * at the end. At the end of the window the loop stops; replies still in
 * flight are not counted.
 *
 * It prints one line of key=value pairs (easy to parse from a shell script):
 *
 *     clients=1000 secs=10.00 acked=45012 errors=0 xadd_per_sec=4501 \
 *     p50_ms=205.1 p99_ms=412.3 max_ms=430.2
 *
 * Exit status: 0 when at least one XADD was acknowledged and none failed,
 * 1 otherwise (connection failures, error replies). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

#include <event2/event.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <hiredis/adapters/libevent.h>

/* ========================================================================
 * Settings and state
 * ===================================================================== */

typedef struct loadConfig {
    const char *host;     /* server address */
    int port;             /* server port */
    int clients;          /* concurrent connections */
    double duration_s;    /* measured window */
    double warmup_s;      /* unmeasured warm-up before the window */
    const char *key;      /* stream key */
    int value_size;       /* bytes of the `p` field */
    long long maxlen;     /* > 0: XADD ... MAXLEN ~ maxlen (bounds the document) */
    double connect_s;     /* give up if not all connected within this */
} loadConfig;

static loadConfig cfg = {
    .host = "127.0.0.1",
    .port = 6379,
    .clients = 10,
    .duration_s = 10,
    .warmup_s = 2,
    .key = "bench:s3",
    .value_size = 32,
    .maxlen = 0,
    .connect_s = 30,
};

typedef enum phase { PHASE_CONNECT, PHASE_WARMUP, PHASE_MEASURE, PHASE_DONE } phase;

/* One connection and its request in flight. */
typedef struct loadClient {
    redisAsyncContext *ac; /* NULL once disconnected */
    int connected;         /* the connect callback said OK */
    long long sent_us;     /* when the XADD in flight was sent */
} loadClient;

/* Latency samples of the measured window, in microseconds. */
typedef struct sampleVec {
    long long *v;   /* samples */
    size_t len;     /* used */
    size_t cap;     /* allocated */
} sampleVec;

static struct event_base *base;
static loadClient *clients;
static phase cur_phase = PHASE_CONNECT;
static int n_connected;
static int n_failed;          /* connections that failed or were lost */
static long long acked;       /* replies with an ID in the window */
static long long errors;      /* error replies in the window (and before) */
static sampleVec lat;
static char *payload;
static char maxlen_arg[32];
static long long window_start_us, window_end_us;
static const char *first_error;  /* kept for the report */
static char first_error_buf[256];

static long long monoUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sampleAdd(sampleVec *s, long long us) {
    if (s->len == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 65536;
        s->v = realloc(s->v, s->cap * sizeof(*s->v));
        if (!s->v) {
            perror("realloc");
            exit(1);
        }
    }
    s->v[s->len++] = us;
}

static int compareLL(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile, in ms. */
static double percentileMs(const sampleVec *s, double pct) {
    if (s->len == 0) return 0;
    size_t rank = (size_t)(pct / 100.0 * (double)s->len + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > s->len) rank = s->len;
    return s->v[rank - 1] / 1000.0;
}

static void noteError(const char *msg) {
    if (first_error) return;
    snprintf(first_error_buf, sizeof(first_error_buf), "%s", msg);
    first_error = first_error_buf;
}

/* ========================================================================
 * The closed loop
 * ===================================================================== */

static void sendXadd(loadClient *c);

static void xaddReply(redisAsyncContext *ac, void *r, void *priv) {
    (void)ac;
    loadClient *c = priv;
    redisReply *reply = r;
    if (!reply) return; /* disconnected: the disconnect callback counts it */
    long long now = monoUs();
    if (reply->type == REDIS_REPLY_ERROR) {
        errors++;
        noteError(reply->str);
    } else if (cur_phase == PHASE_MEASURE && now <= window_end_us) {
        acked++;
        sampleAdd(&lat, now - c->sent_us);
    }
    if (cur_phase == PHASE_WARMUP || cur_phase == PHASE_MEASURE) sendXadd(c);
}

static void sendXadd(loadClient *c) {
    if (!c->ac) return;
    c->sent_us = monoUs();
    int rc;
    if (cfg.maxlen > 0)
        rc = redisAsyncCommand(c->ac, xaddReply, c, "XADD %s MAXLEN ~ %s * p %s", cfg.key, maxlen_arg, payload);
    else
        rc = redisAsyncCommand(c->ac, xaddReply, c, "XADD %s * p %s", cfg.key, payload);
    if (rc != REDIS_OK) noteError("redisAsyncCommand failed");
}

/* ========================================================================
 * Connections and phases
 * ===================================================================== */

static void startLoad(void);

static void onConnect(const redisAsyncContext *ac, int status) {
    loadClient *c = ac->data;
    if (status != REDIS_OK) {
        noteError(ac->errstr);
        n_failed++;
        c->ac = NULL; /* hiredis frees the context */
        return;
    }
    c->connected = 1;
    n_connected++;
    if (n_connected == cfg.clients) startLoad();
}

static void onDisconnect(const redisAsyncContext *ac, int status) {
    loadClient *c = ac->data;
    c->ac = NULL;
    if (status != REDIS_OK && cur_phase != PHASE_DONE) {
        noteError(ac->errstr);
        n_failed++;
    }
}

static void endWindow(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what, (void)arg;
    cur_phase = PHASE_DONE;
    event_base_loopbreak(base);
}

static void beginWindow(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what, (void)arg;
    cur_phase = PHASE_MEASURE;
    window_start_us = monoUs();
    window_end_us = window_start_us + (long long)(cfg.duration_s * 1e6);
    struct timeval tv = {(long)cfg.duration_s, (long)((cfg.duration_s - (long)cfg.duration_s) * 1e6)};
    event_base_once(base, -1, EV_TIMEOUT, endWindow, NULL, &tv);
}

static void startLoad(void) {
    cur_phase = PHASE_WARMUP;
    for (int i = 0; i < cfg.clients; i++) sendXadd(&clients[i]);
    struct timeval tv = {(long)cfg.warmup_s, (long)((cfg.warmup_s - (long)cfg.warmup_s) * 1e6)};
    event_base_once(base, -1, EV_TIMEOUT, beginWindow, NULL, &tv);
}

static void connectTimeout(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what, (void)arg;
    if (cur_phase != PHASE_CONNECT) return;
    fprintf(stderr, "xadd_load: only %d of %d clients connected within %.0f s (%s)\n", n_connected, cfg.clients,
            cfg.connect_s, first_error ? first_error : "no error reported");
    cur_phase = PHASE_DONE;
    event_base_loopbreak(base);
}

/* ========================================================================
 * main
 * ===================================================================== */

static void usage(void) {
    fprintf(stderr,
            "usage: xadd_load [-h host] [-p port] [-c clients] [-d seconds] [-w warmup-seconds]\n"
            "                 [-k key] [-s value-size] [-m maxlen]\n");
    exit(1);
}

static void raiseFdLimit(int need) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    if (rl.rlim_cur >= (rlim_t)need) return;
    rl.rlim_cur = rl.rlim_max < (rlim_t)need ? rl.rlim_max : (rlim_t)need;
    setrlimit(RLIMIT_NOFILE, &rl);
}

int main(int argc, char **argv) {
    int opt;
    while ((opt = getopt(argc, argv, "h:p:c:d:w:k:s:m:")) != -1) {
        switch (opt) {
        case 'h': cfg.host = optarg; break;
        case 'p': cfg.port = atoi(optarg); break;
        case 'c': cfg.clients = atoi(optarg); break;
        case 'd': cfg.duration_s = atof(optarg); break;
        case 'w': cfg.warmup_s = atof(optarg); break;
        case 'k': cfg.key = optarg; break;
        case 's': cfg.value_size = atoi(optarg); break;
        case 'm': cfg.maxlen = atoll(optarg); break;
        default: usage();
        }
    }
    if (cfg.clients < 1 || cfg.duration_s <= 0 || cfg.warmup_s < 0 || cfg.value_size < 1) usage();
    raiseFdLimit(cfg.clients + 64);
    snprintf(maxlen_arg, sizeof(maxlen_arg), "%lld", cfg.maxlen);
    payload = malloc((size_t)cfg.value_size + 1);
    memset(payload, 'x', (size_t)cfg.value_size);
    payload[cfg.value_size] = '\0';

    base = event_base_new();
    clients = calloc((size_t)cfg.clients, sizeof(*clients));
    for (int i = 0; i < cfg.clients; i++) {
        redisAsyncContext *ac = redisAsyncConnect(cfg.host, cfg.port);
        if (!ac || ac->err) {
            fprintf(stderr, "xadd_load: connect %d: %s\n", i, ac ? ac->errstr : "out of memory");
            return 1;
        }
        ac->data = &clients[i];
        clients[i].ac = ac;
        redisLibeventAttach(ac, base);
        redisAsyncSetConnectCallback(ac, onConnect);
        redisAsyncSetDisconnectCallback(ac, onDisconnect);
    }
    struct timeval ct = {(long)cfg.connect_s, 0};
    event_base_once(base, -1, EV_TIMEOUT, connectTimeout, NULL, &ct);
    event_base_dispatch(base);

    int complete = window_start_us != 0;
    double secs = complete ? cfg.duration_s : 0;
    qsort(lat.v, lat.len, sizeof(*lat.v), compareLL);
    printf("clients=%d secs=%.2f acked=%lld errors=%lld lost_connections=%d xadd_per_sec=%.0f "
           "p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n",
           cfg.clients, secs, acked, errors, n_failed, secs > 0 ? (double)acked / secs : 0.0,
           percentileMs(&lat, 50), percentileMs(&lat, 99), lat.len ? lat.v[lat.len - 1] / 1000.0 : 0.0);
    if (first_error) fprintf(stderr, "xadd_load: first error: %s\n", first_error);
    fflush(stdout);
    /* Disconnecting 1000 contexts cleanly is pointless for a benchmark that
     * exits now; the kernel closes the sockets. */
    return (complete && acked > 0 && errors == 0 && n_failed == 0) ? 0 : 1;
}
