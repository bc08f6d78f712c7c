/* store_s3.c -- the state document in an S3-compatible object store.
 *
 * The document is one object, s3://bucket/key. A load is a GET; the object's
 * ETag is the version token. A write is a conditional PUT: `If-Match: <etag>`
 * replaces the version we know, `If-None-Match: *` creates the document. The
 * object store evaluates the condition atomically, which makes the PUT a
 * compare-and-set between any number of casq nodes (design.md §5, §6).
 *
 * All HTTP goes through one libcurl multi handle driven by the server's
 * libevent loop (curl_multi_socket_action on libevent events): nothing blocks
 * the loop and there is no thread. The multi handle keeps its connections, so
 * successive commits reuse one keep-alive (TLS) connection. Requests are
 * signed with libcurl's own SigV4 (CURLOPT_AWS_SIGV4).
 *
 * The hard part is that a PUT can fail *after* the object store applied it
 * (a 5xx, a timeout, a connection reset while waiting for the reply). Such an
 * outcome is unknown, and reporting it as an error would be wrong if it
 * landed, while reporting success would be wrong if it did not. So the store
 * resolves it itself before reporting, by re-reading the object:
 *
 *   - its body is byte-equal to what we PUT        -> it landed: STORE_OK
 *   - its ETag is still the version we expected    -> it did not: PUT again
 *   - anything else                                -> someone else wrote:
 *                                                     STORE_CONFLICT
 *
 * A 412 is re-read too, for a mundane reason: Ceph RGW 16.2 only honours
 * If-Match with the ETag *without* quotes and answers 412 to the quoted form
 * the server itself returned (AWS S3 and MinIO accept the quoted form). When
 * a 412 comes back while the object still has the expected ETag, the store
 * switches to the other form, remembers it, and retries.
 *
 * Every other failure is retried with exponential backoff and jitter until
 * the operation's deadline (commit-timeout-ms) and then reported as
 * STORE_ERROR, with a message that says what is known.
 *
 * The payload is sent as `x-amz-content-sha256: UNSIGNED-PAYLOAD`: the
 * headers are signed, the body is protected by TLS (as the AWS SDKs do over
 * HTTPS), and hashing a multi-megabyte document on the event loop at every
 * commit would cost more than it buys. See docs/s3.md. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "store.h"

#include <curl/curl.h>
#include <errno.h>
#include <event2/event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

#define S3_UNUSED(x) ((void)(x))

/* ------------------------------------------------------------------------
 * Tunables
 * --------------------------------------------------------------------- */
#define S3_DEFAULT_REGION "us-east-1"
#define S3_DEFAULT_REQUEST_TIMEOUT_MS 10000 /* when s3-request-timeout-ms is 0 */
#define S3_DEFAULT_DEADLINE_MS 30000        /* when commit-timeout-ms is 0 */
#define S3_MIN_REQUEST_TIMEOUT_MS 1000      /* even close to the deadline */
#define S3_BACKOFF_BASE_MS 50               /* first retry delay (before jitter) */
#define S3_BACKOFF_MAX_MS 2000              /* cap of the exponential backoff */
#define S3_LATENCY_SAMPLES 256              /* ring of recent request latencies */

/* ------------------------------------------------------------------------
 * Types
 * --------------------------------------------------------------------- */
typedef enum s3OpKind {
    S3_OP_NONE = 0, /* idle */
    S3_OP_LOAD,     /* load(): GET */
    S3_OP_WRITE,    /* write(): conditional PUT, plus GETs to resolve doubts */
} s3OpKind;

typedef enum s3Method { S3_GET, S3_PUT } s3Method;

/* Why a write re-reads the object. */
typedef enum s3Verify {
    S3_VERIFY_NONE = 0,
    S3_VERIFY_PRECONDITION, /* 412: real conflict, or the wrong ETag form? */
    S3_VERIFY_BUSY,         /* 409 ConditionalRequestConflict: a concurrent
                             * conditional write was in progress */
    S3_VERIFY_UNKNOWN,      /* 5xx / timeout / reset: did the PUT land? */
    S3_VERIFY_NO_ETAG,      /* 2xx without an ETag header: fetch it */
} s3Verify;

/* One operation (load or write) from the caller's point of view. It may take
 * several HTTP requests. */
typedef struct s3Op {
    s3OpKind kind;                /* what is running, S3_OP_NONE when idle */
    storeLoadCallback *load_cb;   /* load: where the result goes */
    storeWriteCallback *write_cb; /* write: where the result goes */
    void *priv;                   /* the caller's argument for the callback */
    sds data;                     /* write: the document to store (owned) */
    sds expect;                   /* write: version to replace, NULL = create */
    long long deadline_ms;        /* monotonic ms: give up retrying after it */
    int failures;                 /* failed requests so far (drives backoff) */
    int uncertain;                /* a PUT of this op had an unknown outcome:
                                   * the object may hold our data */
    int form_switched;            /* this op already tried the other ETag form */
    s3Verify verify;              /* why the current GET of a write re-reads */
    s3Method next;                /* request to send when retry_ev fires */
    sds last_err;                 /* why the last request failed */
    /* The result, handed to the callback from done_ev. */
    int finished;                 /* the result below is set */
    storeStatus status;           /* outcome */
    sds result_data;              /* load: the document */
    sds result_version;           /* the version token (ETag) */
    sds result_err;               /* STORE_ERROR: the message */
} s3Op;

/* The HTTP request in flight (at most one per store). */
typedef struct s3Request {
    CURL *easy;                   /* libcurl handle, NULL when idle */
    struct curl_slist *headers;   /* request headers we add */
    s3Method method;              /* GET or PUT */
    sds body;                     /* response body */
    sds etag;                     /* response ETag header, NULL if none */
    long long started_us;         /* monotonic, for the latency samples */
    char errbuf[CURL_ERROR_SIZE]; /* libcurl's transport error text */
} s3Request;

/* A finished HTTP request, detached from libcurl so that its handler may
 * start the next request. */
typedef struct s3Response {
    s3Method method;              /* what was sent */
    CURLcode rc;                  /* transport result */
    long status;                  /* HTTP status, 0 if none */
    sds body;                     /* response body */
    sds etag;                     /* ETag header, NULL if none */
    char errbuf[CURL_ERROR_SIZE]; /* libcurl's transport error text */
} s3Response;

/* A socket libcurl asked us to watch. */
typedef struct s3Socket {
    struct s3Store *s;  /* owner */
    curl_socket_t fd;   /* the socket */
    struct event *ev;   /* its libevent event (NULL until first watched) */
} s3Socket;

/* Recent latencies, in microseconds. */
typedef struct s3LatencyRing {
    long long us[S3_LATENCY_SAMPLES]; /* samples, circular */
    int next;                         /* slot for the next sample */
    int count;                        /* samples held (<= S3_LATENCY_SAMPLES) */
} s3LatencyRing;

typedef struct s3Store {
    store *st;                    /* the generic store we back */
    struct event_base *base;      /* the server's loop */
    CURLM *multi;                 /* libcurl multi handle (connection cache) */
    struct event *timer_ev;       /* libcurl's timeout */
    struct event *retry_ev;       /* backoff before the next request */
    struct event *done_ev;        /* delivers the result to the caller */
    /* --- settings, read at open --- */
    sds endpoint;                 /* e.g. https://s3.us-east-1.amazonaws.com */
    sds bucket;                   /* bucket name */
    sds key;                      /* object key */
    sds object_url;               /* full URL of the object */
    sds region;                   /* SigV4 region */
    sds sigv4;                    /* "aws:amz:<region>:s3" */
    sds access_key;               /* credentials (never logged, never in INFO) */
    sds secret_key;
    sds session_token;            /* NULL when not using temporary credentials */
    sds ca_file;                  /* CA bundle, NULL = system default */
    int insecure;                 /* skip TLS verification */
    int path_style;               /* endpoint/bucket/key rather than bucket.endpoint/key */
    long long request_timeout_ms; /* per HTTP request (s3-request-timeout) */
    long long op_timeout_ms;      /* deadline of one load/write (commit-timeout) */
    /* --- learnt --- */
    int etag_unquoted;            /* send If-Match without quotes (Ceph RGW) */
    /* --- in flight --- */
    s3Op op;                      /* the current operation */
    s3Request req;                /* the current HTTP request */
    uint64_t rng;                 /* xorshift state for the jitter */
    /* --- statistics (INFO) --- */
    long long puts;               /* PUT requests sent */
    long long gets;               /* GET requests sent */
    long long retries;            /* requests repeated after a failure */
    long long conflicts;          /* writes reported as STORE_CONFLICT */
    long long errors;             /* operations reported as STORE_ERROR */
    long long unknown_outcomes;   /* PUTs whose outcome was unknown */
    long long unknown_applied;    /* ... resolved: it had landed */
    long long unknown_not_applied;/* ... resolved: it had not (PUT again) */
    s3LatencyRing put_lat;        /* PUT latencies */
    s3LatencyRing get_lat;        /* GET latencies */
    sds last_error;               /* most recent failure, "" if none */
} s3Store;

static void s3StartRequest(s3Store *s, s3Method method);
static void s3CheckMultiInfo(s3Store *s);

/* ------------------------------------------------------------------------
 * Small helpers
 * --------------------------------------------------------------------- */
static long long s3MonoUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static long long s3MonoMs(void) { return s3MonoUs() / 1000; }

static uint64_t s3Random(s3Store *s) {
    uint64_t x = s->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s->rng = x;
    return x;
}

/* The core of an ETag: without a weak "W/" prefix and without quotes. */
static void s3EtagCore(const char *etag, const char **p, size_t *len) {
    size_t l = strlen(etag);
    if (l >= 2 && etag[0] == 'W' && etag[1] == '/') etag += 2, l -= 2;
    if (l >= 2 && etag[0] == '"' && etag[l - 1] == '"') etag++, l -= 2;
    *p = etag;
    *len = l;
}

static int s3EtagEqual(const char *a, const char *b) {
    const char *pa, *pb;
    size_t la, lb;
    s3EtagCore(a, &pa, &la);
    s3EtagCore(b, &pb, &lb);
    return la == lb && memcmp(pa, pb, la) == 0;
}

/* The If-Match header value in the form this endpoint accepts. */
static sds s3IfMatchHeader(s3Store *s, const char *etag) {
    const char *p;
    size_t l;
    s3EtagCore(etag, &p, &l);
    sds h = sdsnew("If-Match: ");
    if (s->etag_unquoted) return sdscatlen(h, p, l);
    h = sdscatlen(h, "\"", 1);
    h = sdscatlen(h, p, l);
    return sdscatlen(h, "\"", 1);
}

/* Percent-encodes an object key as S3's SigV4 canonical URI wants it: every
 * byte but the unreserved ones and '/' becomes %XX. */
static sds s3EncodeKey(sds out, const char *key) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '_' || c == '.' || c == '~' || c == '/') {
            out = sdscatlen(out, (char *)&c, 1);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            out = sdscatlen(out, esc, 3);
        }
    }
    return out;
}

/* "<Code>SlowDown</Code>" -> "SlowDown", or "" if the body has none. */
static sds s3ErrorCode(const char *body) {
    const char *b = body ? strstr(body, "<Code>") : NULL;
    if (!b) return sdsempty();
    b += 6;
    const char *e = strstr(b, "</Code>");
    if (!e || e - b > 128) return sdsempty();
    return sdsnewlen(b, (size_t)(e - b));
}

static int s3IsIpLiteralOrLocalhost(const char *host, size_t len) {
    if (len == 9 && strncasecmp(host, "localhost", 9) == 0) return 1;
    if (len && host[0] == '[') return 1; /* IPv6 literal */
    for (size_t i = 0; i < len; i++)
        if (!((host[i] >= '0' && host[i] <= '9') || host[i] == '.')) return 0;
    return len > 0;
}

static void s3SetLastError(s3Store *s, const char *msg) {
    sdsclear(s->last_error);
    /* INFO values are single lines. */
    for (const char *p = msg; *p; p++) s->last_error = sdscatlen(s->last_error, (*p == '\r' || *p == '\n') ? " " : p, 1);
}

static void s3LatencyAdd(s3LatencyRing *r, long long us) {
    r->us[r->next] = us;
    r->next = (r->next + 1) % S3_LATENCY_SAMPLES;
    if (r->count < S3_LATENCY_SAMPLES) r->count++;
}

static int s3CompareLL(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of the ring, in milliseconds (0 when empty). */
static double s3LatencyPercentile(const s3LatencyRing *r, double pct) {
    if (r->count == 0) return 0;
    long long sorted[S3_LATENCY_SAMPLES];
    memcpy(sorted, r->us, sizeof(long long) * (size_t)r->count);
    qsort(sorted, (size_t)r->count, sizeof(long long), s3CompareLL);
    int rank = (int)((pct / 100.0) * r->count + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > r->count) rank = r->count;
    return sorted[rank - 1] / 1000.0;
}

/* ------------------------------------------------------------------------
 * libcurl <-> libevent glue
 * --------------------------------------------------------------------- */

/* libevent says a socket is ready: let libcurl work on it. */
static void s3SocketEvent(evutil_socket_t fd, short what, void *arg) {
    s3Store *s = ((s3Socket *)arg)->s; /* the s3Socket may be freed below */
    int action = ((what & EV_READ) ? CURL_CSELECT_IN : 0) | ((what & EV_WRITE) ? CURL_CSELECT_OUT : 0);
    int running;
    curl_multi_socket_action(s->multi, fd, action, &running);
    s3CheckMultiInfo(s);
}

/* libevent says libcurl's timeout expired. */
static void s3TimerEvent(evutil_socket_t fd, short what, void *arg) {
    S3_UNUSED(fd);
    S3_UNUSED(what);
    s3Store *s = arg;
    int running;
    curl_multi_socket_action(s->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    s3CheckMultiInfo(s);
}

/* CURLMOPT_SOCKETFUNCTION: watch `fd` for what libcurl wants. */
static int s3SocketCallback(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
    S3_UNUSED(easy);
    s3Store *s = userp;
    s3Socket *sk = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (sk) {
            if (sk->ev) event_free(sk->ev);
            zfree(sk);
            curl_multi_assign(s->multi, fd, NULL);
        }
        return 0;
    }
    if (!sk) {
        sk = zcalloc(sizeof(*sk));
        sk->s = s;
        sk->fd = fd;
        curl_multi_assign(s->multi, fd, sk);
    }
    if (sk->ev) event_free(sk->ev);
    short kind = EV_PERSIST | ((what & CURL_POLL_IN) ? EV_READ : 0) | ((what & CURL_POLL_OUT) ? EV_WRITE : 0);
    sk->ev = event_new(s->base, fd, kind, s3SocketEvent, sk);
    event_add(sk->ev, NULL);
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: libcurl wants to be called back after timeout_ms
 * (-1: never). Calling libcurl from here is not allowed, hence the event. */
static int s3TimerCallback(CURLM *multi, long timeout_ms, void *userp) {
    S3_UNUSED(multi);
    s3Store *s = userp;
    if (timeout_ms < 0) {
        evtimer_del(s->timer_ev);
        return 0;
    }
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    evtimer_add(s->timer_ev, &tv);
    return 0;
}

static size_t s3WriteBody(char *ptr, size_t size, size_t nmemb, void *userdata) {
    s3Store *s = userdata;
    s->req.body = sdscatlen(s->req.body, ptr, size * nmemb);
    return size * nmemb;
}

static size_t s3WriteHeader(char *ptr, size_t size, size_t nmemb, void *userdata) {
    s3Store *s = userdata;
    size_t len = size * nmemb;
    /* A new status line (e.g. after "100 Continue"): forget earlier headers. */
    if (len >= 5 && memcmp(ptr, "HTTP/", 5) == 0) {
        if (s->req.etag) sdsfree(s->req.etag);
        s->req.etag = NULL;
        return len;
    }
    if (len > 5 && strncasecmp(ptr, "etag:", 5) == 0) {
        const char *v = ptr + 5, *e = ptr + len;
        while (v < e && (*v == ' ' || *v == '\t')) v++;
        while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t')) e--;
        if (s->req.etag) sdsfree(s->req.etag);
        s->req.etag = sdsnewlen(v, (size_t)(e - v));
    }
    return len;
}

/* ------------------------------------------------------------------------
 * Finishing an operation
 * --------------------------------------------------------------------- */

/* Records the result and schedules its delivery: callbacks always run from
 * the loop, with nothing of ours on the stack (the caller may start the next
 * operation, or close the store, from inside its callback). */
static void s3Finish(s3Store *s, storeStatus status, const char *version, sds data, const char *err) {
    s3Op *op = &s->op;
    op->finished = 1;
    op->status = status;
    op->result_version = version ? sdsnew(version) : NULL;
    op->result_data = data;
    op->result_err = err ? sdsnew(err) : NULL;
    if (status == STORE_CONFLICT) s->conflicts++;
    if (status == STORE_ERROR) {
        s->errors++;
        s3SetLastError(s, err);
        serverLog(LL_WARNING, "S3 store %s: %s", s->st->location, err);
    }
    event_active(s->done_ev, EV_TIMEOUT, 1);
}

static void s3ResetOp(s3Op *op) {
    sdsfree(op->data);
    sdsfree(op->expect);
    sdsfree(op->last_err);
    sdsfree(op->result_data);
    sdsfree(op->result_version);
    sdsfree(op->result_err);
    memset(op, 0, sizeof(*op));
}

static void s3DeliverResult(evutil_socket_t fd, short what, void *arg) {
    S3_UNUSED(fd);
    S3_UNUSED(what);
    s3Store *s = arg;
    /* Take everything out of the store first: the callback may reuse it. */
    s3Op op = s->op;
    memset(&s->op, 0, sizeof(s->op));
    if (op.kind == S3_OP_LOAD) {
        const char *data = op.result_data ? op.result_data : "";
        size_t len = op.result_data ? sdslen(op.result_data) : 0;
        op.load_cb(op.priv, op.status, op.status == STORE_OK ? data : NULL, op.status == STORE_OK ? len : 0,
                   op.result_version, op.result_err);
    } else if (op.kind == S3_OP_WRITE) {
        op.write_cb(op.priv, op.status, op.status == STORE_OK ? op.result_version : NULL, op.result_err);
    }
    s3ResetOp(&op);
}

/* Waits (with exponential backoff and jitter) and sends `next`; or, when
 * the deadline would pass, reports STORE_ERROR. */
static void s3RetryLater(s3Store *s, s3Method next) {
    s3Op *op = &s->op;
    op->failures++;
    long long cap = S3_BACKOFF_BASE_MS << (op->failures < 7 ? op->failures - 1 : 6);
    if (cap > S3_BACKOFF_MAX_MS) cap = S3_BACKOFF_MAX_MS;
    long long delay = cap / 2 + (long long)(s3Random(s) % (uint64_t)(cap / 2 + 1));
    if (s3MonoMs() + delay >= op->deadline_ms) {
        sds msg;
        if (op->kind == S3_OP_WRITE && op->uncertain)
            msg = sdscatprintf(sdsempty(),
                               "write not confirmed within %lld ms: a PUT timed out or failed and the "
                               "object could not be re-read to learn whether it landed (%s)",
                               s->op_timeout_ms, op->last_err);
        else if (op->kind == S3_OP_WRITE)
            msg = sdscatprintf(sdsempty(), "write failed after %d attempts in %lld ms, the document is unchanged (%s)",
                               op->failures, s->op_timeout_ms, op->last_err);
        else
            msg = sdscatprintf(sdsempty(), "load failed after %d attempts in %lld ms (%s)", op->failures,
                               s->op_timeout_ms, op->last_err);
        s3Finish(s, STORE_ERROR, NULL, NULL, msg);
        sdsfree(msg);
        return;
    }
    s->retries++;
    op->next = next;
    serverLog(LL_VERBOSE, "S3 store %s: %s; retrying in %lld ms", s->st->location, op->last_err, delay);
    struct timeval tv = {delay / 1000, (delay % 1000) * 1000};
    evtimer_add(s->retry_ev, &tv);
}

static void s3RetryEvent(evutil_socket_t fd, short what, void *arg) {
    S3_UNUSED(fd);
    S3_UNUSED(what);
    s3Store *s = arg;
    s3StartRequest(s, s->op.next);
}

/* Remembers why a request failed, for the final message and INFO. */
static void s3NoteFailure(s3Store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s3NoteFailure(s3Store *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds msg = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    sdsfree(s->op.last_err);
    s->op.last_err = msg;
    s3SetLastError(s, msg);
}

/* ------------------------------------------------------------------------
 * Requests
 * --------------------------------------------------------------------- */
static void s3FreeRequest(s3Store *s) {
    s3Request *r = &s->req;
    if (r->easy) {
        curl_multi_remove_handle(s->multi, r->easy);
        curl_easy_cleanup(r->easy);
    }
    curl_slist_free_all(r->headers);
    sdsfree(r->body);
    sdsfree(r->etag);
    memset(r, 0, sizeof(*r));
}

static void s3StartRequest(s3Store *s, s3Method method) {
    s3Op *op = &s->op;
    s3Request *r = &s->req;
    serverAssert(r->easy == NULL);
    r->method = method;
    r->body = sdsempty();
    r->etag = NULL;
    r->errbuf[0] = '\0';
    r->easy = curl_easy_init();
    if (!r->easy) {
        s3NoteFailure(s, "curl_easy_init failed");
        s3FreeRequest(s);
        s3RetryLater(s, method);
        return;
    }
    CURL *e = r->easy;

    /* Close to the deadline, don't let one request overshoot it by much. */
    long long timeout = s->request_timeout_ms;
    long long remaining = op->deadline_ms - s3MonoMs();
    if (remaining < S3_MIN_REQUEST_TIMEOUT_MS) remaining = S3_MIN_REQUEST_TIMEOUT_MS;
    if (timeout > remaining) timeout = remaining;

    curl_easy_setopt(e, CURLOPT_URL, s->object_url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)timeout);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_AWS_SIGV4, s->sigv4);
    curl_easy_setopt(e, CURLOPT_USERNAME, s->access_key);
    curl_easy_setopt(e, CURLOPT_PASSWORD, s->secret_key);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, s3WriteBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, s3WriteHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (s->ca_file) curl_easy_setopt(e, CURLOPT_CAINFO, s->ca_file);
    if (s->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }

    /* S3 requires x-amz-content-sha256 and libcurl 7.88 does not send it;
     * given the header, libcurl signs with its value as the payload hash.
     * The body is left unsigned (TLS protects it; see the top comment). */
    r->headers = curl_slist_append(r->headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (s->session_token) {
        sds h = sdscatsds(sdsnew("x-amz-security-token: "), s->session_token);
        r->headers = curl_slist_append(r->headers, h);
        sdsfree(h);
    }
    if (method == S3_PUT) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, op->data);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)sdslen(op->data));
        r->headers = curl_slist_append(r->headers, "Content-Type: application/json");
        /* Not "Expect:" to skip the 100-continue round trip of bodies over
         * 1 MB: libcurl 7.88 signs the removed header, breaking SigV4. */
        if (op->expect) {
            sds h = s3IfMatchHeader(s, op->expect);
            r->headers = curl_slist_append(r->headers, h);
            sdsfree(h);
        } else {
            r->headers = curl_slist_append(r->headers, "If-None-Match: *");
        }
        s->puts++;
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        s->gets++;
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    r->started_us = s3MonoUs();
    /* This only arms libcurl's timer (at 0 ms): the transfer starts from the
     * loop, so nothing here can call back into the caller. */
    CURLMcode mc = curl_multi_add_handle(s->multi, e);
    if (mc != CURLM_OK) {
        curl_easy_cleanup(e);
        r->easy = NULL;
        s3NoteFailure(s, "curl_multi_add_handle: %s", curl_multi_strerror(mc));
        s3FreeRequest(s);
        s3RetryLater(s, method);
    }
}

/* ------------------------------------------------------------------------
 * Responses
 * --------------------------------------------------------------------- */

/* A transport failure that certainly happened before the request could
 * reach the server (so a PUT cannot have been applied). */
static int s3NotSent(CURLcode rc) {
    return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_COULDNT_CONNECT ||
           rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_PEER_FAILED_VERIFICATION ||
           rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT;
}

static int s3IsSuccess(const s3Response *r) { return r->rc == CURLE_OK && r->status >= 200 && r->status < 300; }

static int s3IsStatus(const s3Response *r, long status) { return r->rc == CURLE_OK && r->status == status; }

/* 404 for the key itself (not NoSuchBucket, which is a configuration error
 * that may be fixed while we retry). */
static int s3IsNoSuchKey(const s3Response *r) {
    if (!s3IsStatus(r, 404)) return 0;
    sds code = s3ErrorCode(r->body);
    int missing_key = sdslen(code) == 0 || strcmp(code, "NoSuchKey") == 0;
    sdsfree(code);
    return missing_key;
}

/* Describes a failed request in s->op.last_err. */
static void s3NoteHttpFailure(s3Store *s, const s3Response *r, const char *what) {
    const char *method = r->method == S3_PUT ? "PUT" : "GET";
    if (r->rc != CURLE_OK) {
        s3NoteFailure(s, "%s%s: %s", method, what, r->errbuf[0] ? r->errbuf : curl_easy_strerror(r->rc));
        return;
    }
    sds code = s3ErrorCode(r->body);
    s3NoteFailure(s, "%s%s: HTTP %ld%s%s", method, what, r->status, sdslen(code) ? " " : "", code);
    sdsfree(code);
}

/* load()'s GET came back. */
static void s3LoadResponse(s3Store *s, s3Response *r) {
    if (s3IsStatus(r, 200)) {
        if (!r->etag) {
            s3Finish(s, STORE_ERROR, NULL, NULL, "GET returned no ETag header: the endpoint is not S3-compatible");
            return;
        }
        sds data = r->body;
        r->body = NULL;
        s3Finish(s, STORE_OK, r->etag, data, NULL);
        return;
    }
    if (s3IsNoSuchKey(r)) {
        s3Finish(s, STORE_NOT_FOUND, NULL, NULL, NULL);
        return;
    }
    s3NoteHttpFailure(s, r, "");
    s3RetryLater(s, S3_GET);
}

/* write()'s conditional PUT came back. */
static void s3PutResponse(s3Store *s, s3Response *r) {
    s3Op *op = &s->op;
    if (s3IsSuccess(r)) {
        if (!r->etag) {
            op->verify = S3_VERIFY_NO_ETAG;
            s3StartRequest(s, S3_GET);
            return;
        }
        /* If an earlier attempt had an unknown outcome, it cannot have
         * landed too: both named the same expected version, and only one
         * compare-and-set can succeed. */
        if (op->uncertain)
            serverLog(LL_NOTICE, "S3 store %s: write confirmed after an earlier unknown outcome", s->st->location);
        s3Finish(s, STORE_OK, r->etag, NULL, NULL);
        return;
    }
    if (s3IsStatus(r, 412)) {
        op->verify = S3_VERIFY_PRECONDITION;
        s3StartRequest(s, S3_GET);
        return;
    }
    if (s3IsStatus(r, 409)) {
        s3NoteHttpFailure(s, r, " (concurrent conditional write)");
        op->verify = S3_VERIFY_BUSY;
        s3StartRequest(s, S3_GET);
        return;
    }
    if ((r->rc != CURLE_OK && !s3NotSent(r->rc)) || (r->rc == CURLE_OK && r->status >= 500)) {
        s3NoteHttpFailure(s, r, ", outcome unknown");
        s->unknown_outcomes++;
        op->uncertain = 1;
        op->verify = S3_VERIFY_UNKNOWN;
        serverLog(LL_VERBOSE, "S3 store %s: %s; re-reading the object to find out", s->st->location, op->last_err);
        s3StartRequest(s, S3_GET);
        return;
    }
    /* Rejected before it could apply (4xx, could not connect): PUT again. */
    s3NoteHttpFailure(s, r, "");
    s3RetryLater(s, S3_PUT);
}

/* Counts a resolved unknown outcome, for INFO and the log. */
static void s3UnknownResolved(s3Store *s, int applied) {
    s3Op *op = &s->op;
    if (!op->uncertain) return;
    /* Worth an operator's attention only when it had landed: "not landed"
     * is routine under throttling (503 SlowDown). */
    serverLog(applied ? LL_NOTICE : LL_VERBOSE, "S3 store %s: the PUT with an unknown outcome (%s) %s",
              s->st->location, op->last_err, applied ? "had landed" : "had not landed; writing again");
    if (applied) {
        s->unknown_applied++;
        return;
    }
    /* Known again: the document is unchanged (a PUT that is somehow still
     * on its way could only land on the version we expect, and would then
     * be recognised as ours by the next re-read). */
    s->unknown_not_applied++;
    op->uncertain = 0;
    op->last_err = sdscat(op->last_err, "; re-read: it had not applied");
}

/* A write re-read the object (after 412, 409, an unknown outcome, or a 2xx
 * without ETag) and decides what happened. */
static void s3VerifyResponse(s3Store *s, s3Response *r) {
    s3Op *op = &s->op;
    if (s3IsStatus(r, 200) && r->etag) {
        /* The object holds exactly what we PUT: it is our write. This holds
         * after a 412 too: libcurl transparently re-sends a request once
         * when a reused connection dies before any reply, so a PUT that
         * landed can come back as 412 to its own silent retry. (Another
         * writer producing the very same bytes would leave the document in
         * the state we wanted anyway.) */
        int ours = sdslen(r->body) == sdslen(op->data) && memcmp(r->body, op->data, sdslen(op->data)) == 0;
        if (ours) {
            if (op->uncertain)
                s3UnknownResolved(s, 1);
            else if (op->verify == S3_VERIFY_PRECONDITION)
                serverLog(LL_NOTICE, "S3 store %s: 412, but the object holds our data: our own write",
                          s->st->location);
            s3Finish(s, STORE_OK, r->etag, NULL, NULL);
            return;
        }
        if (op->expect && op->verify != S3_VERIFY_NO_ETAG && s3EtagEqual(r->etag, op->expect)) {
            /* Still the version we expected: our PUT did not apply. */
            if (op->verify == S3_VERIFY_PRECONDITION) {
                if (op->form_switched) {
                    s3Finish(s, STORE_ERROR, NULL, NULL,
                             "the server answers 412 to If-Match with the object's current ETag, "
                             "both quoted and unquoted");
                    return;
                }
                op->form_switched = 1;
                s->etag_unquoted = !s->etag_unquoted;
                serverLog(LL_NOTICE, "S3 store %s: this endpoint wants If-Match ETags %s", s->st->location,
                          s->etag_unquoted ? "without quotes" : "with quotes");
                s3StartRequest(s, S3_PUT);
                return;
            }
            s3UnknownResolved(s, 0);
            s3RetryLater(s, S3_PUT);
            return;
        }
        s3Finish(s, STORE_CONFLICT, NULL, NULL, NULL);
        return;
    }
    if (s3IsNoSuchKey(r)) {
        if (op->expect || op->verify == S3_VERIFY_NO_ETAG) {
            /* The version we meant to replace (or just wrote) is gone:
             * someone else deleted the document. */
            s3Finish(s, STORE_CONFLICT, NULL, NULL, NULL);
            return;
        }
        /* Creating, and there is still nothing: our PUT did not apply. */
        s3UnknownResolved(s, 0);
        s3NoteFailure(s, "PUT (create) did not apply");
        s3RetryLater(s, S3_PUT);
        return;
    }
    /* Could not re-read: again, while the deadline allows. */
    if (s3IsStatus(r, 200))
        s3NoteFailure(s, "GET (re-reading after PUT) returned no ETag header");
    else
        s3NoteHttpFailure(s, r, " (re-reading after PUT)");
    s3RetryLater(s, S3_GET);
}

/* Drains libcurl's completion messages. */
static void s3CheckMultiInfo(s3Store *s) {
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(s->multi, &left))) {
        if (msg->msg != CURLMSG_DONE || msg->easy_handle != s->req.easy) continue;
        s3Request *q = &s->req;
        s3Response r = {.method = q->method, .rc = msg->data.result, .body = q->body, .etag = q->etag};
        curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &r.status);
        memcpy(r.errbuf, q->errbuf, sizeof(r.errbuf));
        s3LatencyAdd(q->method == S3_PUT ? &s->put_lat : &s->get_lat, s3MonoUs() - q->started_us);
        /* Detach (the connection stays cached in the multi handle): the
         * handler may start the next request. */
        q->body = NULL;
        q->etag = NULL;
        s3FreeRequest(s);
        if (s->op.kind == S3_OP_LOAD)
            s3LoadResponse(s, &r);
        else if (r.method == S3_PUT)
            s3PutResponse(s, &r);
        else
            s3VerifyResponse(s, &r);
        sdsfree(r.body);
        sdsfree(r.etag);
    }
}

/* ------------------------------------------------------------------------
 * storeType methods
 * --------------------------------------------------------------------- */

/* Parses "s3://bucket/key". */
static int s3ParseUrl(s3Store *s, const char *url, sds *err) {
    if (strncmp(url, "s3://", 5) != 0) {
        *err = sdscatprintf(sdsempty(), "S3 store URL must look like s3://bucket/key, got '%s'", url);
        return -1;
    }
    const char *b = url + 5, *slash = strchr(b, '/');
    if (!slash || slash == b || slash[1] == '\0') {
        *err = sdscatprintf(sdsempty(), "S3 store URL must look like s3://bucket/key, got '%s'", url);
        return -1;
    }
    for (const char *p = b; p < slash; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_' ||
              (*p >= 'A' && *p <= 'Z'))) {
            *err = sdscatprintf(sdsempty(), "invalid S3 bucket name in '%s'", url);
            return -1;
        }
    }
    s->bucket = sdsnewlen(b, (size_t)(slash - b));
    s->key = sdsnew(slash + 1);
    return 0;
}

static sds s3ConfigOrEnv(const char *cfg, const char *env) {
    if (cfg && cfg[0]) return sdsnew(cfg);
    const char *v = env ? getenv(env) : NULL;
    if (v && v[0]) return sdsnew(v);
    return NULL;
}

/* Builds the object URL, path-style or virtual-hosted. */
static int s3BuildObjectUrl(s3Store *s, sds *err) {
    const char *sep = strstr(s->endpoint, "://");
    if (!sep || (strncasecmp(s->endpoint, "http://", 7) != 0 && strncasecmp(s->endpoint, "https://", 8) != 0)) {
        *err = sdscatprintf(sdsempty(), "s3-endpoint must start with http:// or https://, got '%s'", s->endpoint);
        return -1;
    }
    const char *host = sep + 3;
    size_t hostlen = strcspn(host, "/");
    const char *colon = memchr(host, ':', hostlen);
    size_t namelen = (host[0] != '[' && colon) ? (size_t)(colon - host) : hostlen;
    if (hostlen == 0) {
        *err = sdscatprintf(sdsempty(), "s3-endpoint has no host: '%s'", s->endpoint);
        return -1;
    }
    /* An IP address or localhost has no DNS for bucket subdomains. */
    if (s3IsIpLiteralOrLocalhost(host, namelen)) s->path_style = 1;
    sds u;
    if (s->path_style) {
        u = sdscatprintf(sdsempty(), "%s/%s/", s->endpoint, s->bucket);
    } else {
        u = sdscatlen(sdsempty(), s->endpoint, (size_t)(host - s->endpoint));
        u = sdscatprintf(u, "%s.", s->bucket);
        u = sdscat(u, host);
        u = sdscat(u, "/");
    }
    s->object_url = s3EncodeKey(u, s->key);
    return 0;
}

static void s3FreeStore(s3Store *s) {
    if (!s) return;
    s3FreeRequest(s);
    if (s->multi) curl_multi_cleanup(s->multi); /* closes the sockets: REMOVE callbacks */
    if (s->timer_ev) event_free(s->timer_ev);
    if (s->retry_ev) event_free(s->retry_ev);
    if (s->done_ev) event_free(s->done_ev);
    s3ResetOp(&s->op);
    sdsfree(s->endpoint);
    sdsfree(s->bucket);
    sdsfree(s->key);
    sdsfree(s->object_url);
    sdsfree(s->region);
    sdsfree(s->sigv4);
    if (s->access_key) explicit_bzero(s->access_key, sdslen(s->access_key));
    if (s->secret_key) explicit_bzero(s->secret_key, sdslen(s->secret_key));
    if (s->session_token) explicit_bzero(s->session_token, sdslen(s->session_token));
    sdsfree(s->access_key);
    sdsfree(s->secret_key);
    sdsfree(s->session_token);
    sdsfree(s->ca_file);
    sdsfree(s->last_error);
    zfree(s);
    curl_global_cleanup();
}

static int s3Open(store *st, const char *url, struct event_base *base, sds *err) {
    serverConfig *cfg = &server.cfg;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        *err = sdsnew("curl_global_init failed");
        return -1;
    }
    s3Store *s = zcalloc(sizeof(*s));
    s->st = st;
    s->base = base;
    s->last_error = sdsempty();
    if (s3ParseUrl(s, url, err) == -1) goto fail;

    /* As the AWS SDKs: the setting, then AWS_REGION, AWS_DEFAULT_REGION. */
    s->region = s3ConfigOrEnv(cfg->s3_region, "AWS_REGION");
    if (!s->region) s->region = s3ConfigOrEnv(NULL, "AWS_DEFAULT_REGION");
    if (!s->region) s->region = sdsnew(S3_DEFAULT_REGION);
    /* Like the AWS SDKs and CLI: without a configured endpoint,
     * AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL, name a non-AWS one (MinIO,
     * Ceph RGW, R2), so one flag and the environment are enough. */
    s->endpoint = s3ConfigOrEnv(cfg->s3_endpoint, "AWS_ENDPOINT_URL_S3");
    if (!s->endpoint) s->endpoint = s3ConfigOrEnv(NULL, "AWS_ENDPOINT_URL");
    if (!s->endpoint) s->endpoint = sdscatprintf(sdsempty(), "https://s3.%s.amazonaws.com", s->region);
    while (sdslen(s->endpoint) && s->endpoint[sdslen(s->endpoint) - 1] == '/') sdssetlen(s->endpoint, sdslen(s->endpoint) - 1);
    s->path_style = cfg->s3_path_style;
    if (s3BuildObjectUrl(s, err) == -1) goto fail;
    s->sigv4 = sdscatprintf(sdsempty(), "aws:amz:%s:s3", s->region);

    s->access_key = s3ConfigOrEnv(cfg->s3_access_key, "AWS_ACCESS_KEY_ID");
    s->secret_key = s3ConfigOrEnv(cfg->s3_secret_key, "AWS_SECRET_ACCESS_KEY");
    s->session_token = s3ConfigOrEnv(cfg->s3_session_token, "AWS_SESSION_TOKEN");
    if (!s->access_key || !s->secret_key) {
        *err = sdsnew("S3 store needs credentials: set s3-access-key and s3-secret-key, or "
                      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment");
        goto fail;
    }
    s->ca_file = s3ConfigOrEnv(cfg->s3_ca_file, NULL);
    s->insecure = cfg->s3_insecure;

    s->multi = curl_multi_init();
    s->timer_ev = evtimer_new(base, s3TimerEvent, s);
    s->retry_ev = evtimer_new(base, s3RetryEvent, s);
    s->done_ev = event_new(base, -1, 0, s3DeliverResult, s);
    if (!s->multi || !s->timer_ev || !s->retry_ev || !s->done_ev) {
        *err = sdsnew("S3 store: out of resources initialising libcurl/libevent");
        goto fail;
    }
    curl_multi_setopt(s->multi, CURLMOPT_SOCKETFUNCTION, s3SocketCallback);
    curl_multi_setopt(s->multi, CURLMOPT_SOCKETDATA, s);
    curl_multi_setopt(s->multi, CURLMOPT_TIMERFUNCTION, s3TimerCallback);
    curl_multi_setopt(s->multi, CURLMOPT_TIMERDATA, s);
    s->rng = (uint64_t)s3MonoUs() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)s;
    if (s->rng == 0) s->rng = 0x9e3779b97f4a7c15ULL;

    st->state = s;
    if (!st->location)
        st->location = sdscatprintf(sdsempty(), "s3://%s/%s @ %s", s->bucket, s->key, s->endpoint);
    return 0;

fail:
    s3FreeStore(s);
    return -1;
}

static void s3BeginOp(s3Store *s, s3OpKind kind) {
    serverAssert(s->op.kind == S3_OP_NONE && s->req.easy == NULL);
    /* The timeouts can be changed at run time (CONFIG SET): read them for
     * every operation. */
    long long req_ms = server.cfg.s3_request_timeout_ms, op_ms = server.cfg.commit_timeout_ms;
    s->request_timeout_ms = req_ms > 0 ? req_ms : S3_DEFAULT_REQUEST_TIMEOUT_MS;
    s->op_timeout_ms = op_ms > 0 ? op_ms : S3_DEFAULT_DEADLINE_MS;
    s->op.kind = kind;
    s->op.deadline_ms = s3MonoMs() + s->op_timeout_ms;
    s->op.last_err = sdsempty();
}

static void s3Load(store *st, storeLoadCallback *cb, void *priv) {
    s3Store *s = st->state;
    s3BeginOp(s, S3_OP_LOAD);
    s->op.load_cb = cb;
    s->op.priv = priv;
    s3StartRequest(s, S3_GET);
}

static void s3Write(store *st, sds data, const char *expect_version, storeWriteCallback *cb, void *priv) {
    s3Store *s = st->state;
    s3BeginOp(s, S3_OP_WRITE);
    s->op.write_cb = cb;
    s->op.priv = priv;
    s->op.data = data;
    s->op.expect = expect_version ? sdsnew(expect_version) : NULL;
    s3StartRequest(s, S3_PUT);
}

static sds s3Info(store *st, sds out) {
    s3Store *s = st->state;
    out = sdscatprintf(out,
                       "store_backend:s3\r\n"
                       "store_s3_endpoint:%s\r\n"
                       "store_s3_bucket:%s\r\n"
                       "store_s3_key:%s\r\n"
                       "store_s3_region:%s\r\n"
                       "store_s3_addressing:%s\r\n"
                       "store_s3_object_url:%s\r\n"
                       "store_s3_if_match_form:%s\r\n"
                       "store_s3_puts:%lld\r\n"
                       "store_s3_gets:%lld\r\n"
                       "store_s3_put_latency_p50_ms:%.2f\r\n"
                       "store_s3_put_latency_p99_ms:%.2f\r\n"
                       "store_s3_get_latency_p50_ms:%.2f\r\n"
                       "store_s3_get_latency_p99_ms:%.2f\r\n"
                       "store_s3_retries:%lld\r\n"
                       "store_s3_conflicts:%lld\r\n"
                       "store_s3_errors:%lld\r\n"
                       "store_s3_unknown_outcomes:%lld\r\n"
                       "store_s3_unknown_resolved_applied:%lld\r\n"
                       "store_s3_unknown_resolved_not_applied:%lld\r\n"
                       "store_s3_last_error:%s\r\n",
                       s->endpoint, s->bucket, s->key, s->region, s->path_style ? "path" : "virtual-host",
                       s->object_url,
                       s->etag_unquoted ? "unquoted" : "quoted", s->puts, s->gets,
                       s3LatencyPercentile(&s->put_lat, 50), s3LatencyPercentile(&s->put_lat, 99),
                       s3LatencyPercentile(&s->get_lat, 50), s3LatencyPercentile(&s->get_lat, 99), s->retries,
                       s->conflicts, s->errors, s->unknown_outcomes, s->unknown_applied, s->unknown_not_applied,
                       s->last_error);
    return out;
}

/* Stops whatever is in flight and frees everything. An HTTP request still
 * running is aborted and the pending callback is not called: the caller is
 * going away. Aborting a PUT is safe (S3 never applies a truncated body; a
 * complete one may still land, exactly as if we had crashed). */
static void s3Close(store *st) {
    s3Store *s = st->state;
    if (!s) return;
    if (s->op.kind == S3_OP_WRITE && !s->op.finished)
        serverLog(LL_WARNING, "S3 store %s: closed with a write in flight; its outcome is not known",
                  s->st->location);
    s3FreeStore(s);
    st->state = NULL;
}

const storeType s3StoreType = {
    .name = "s3",
    .open = s3Open,
    .load = s3Load,
    .write = s3Write,
    .info = s3Info,
    .close = s3Close,
};
