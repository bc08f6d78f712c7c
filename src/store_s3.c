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
 * commit would cost more than it buys. See docs/s3.md.
 *
 * Beside the document live immutable segments, objects under
 * "<key>.segments/" (see "Segments" below): many of their operations may be
 * in flight at once, beside the one load or write, on the same multi
 * handle. */

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

typedef enum s3Method { S3_GET, S3_PUT, S3_DELETE } s3Method;

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

/* The document's HTTP request in flight (at most one per store; segment
 * requests have their own, in s3SegOp). */
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
    sds bucket_url;               /* URL of the bucket, ending in '/': keys
                                   * (encoded) and list queries follow it */
    sds seg_prefix;               /* "<key>.segments/": where segments live */
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
    /* --- segments (see "Segments" below) --- */
    struct s3SegOp *seg_ops;      /* every segment op not yet delivered */
    struct s3SegOp *seg_queue;    /* ops waiting for a request slot, FIFO */
    struct s3SegOp *seg_queue_tail;
    int seg_in_flight;            /* segment requests in the multi handle */
    long long seg_puts;           /* segment PUT requests sent */
    long long seg_gets;           /* segment GET requests sent */
    long long seg_deletes;        /* segment DELETE requests sent */
    long long seg_lists;          /* ListObjectsV2 requests (pages) sent */
    long long probes;             /* HEAD requests of the document (probe) */
    long long seg_retries;        /* segment requests repeated after a failure */
    long long seg_conflicts;      /* segment puts reported STORE_CONFLICT */
    long long seg_errors;         /* segment ops reported STORE_ERROR */
    long long seg_unknown;        /* segment PUTs whose outcome was unknown */
} s3Store;

static void s3StartRequest(s3Store *s, s3Method method);
static void s3CheckMultiInfo(s3Store *s);
static void s3SegRequestDone(s3Store *s, CURL *easy, CURLcode rc);
static void s3SegFreeAll(s3Store *s);

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

/* What every request of the store sets: the URL, timeouts (a request never
 * runs much past its operation's deadline), signing, TLS settings, where
 * the body goes, and the headers S3 wants. Returns the header list, with
 * S3's headers appended to `headers`. */
static struct curl_slist *s3SetupEasy(s3Store *s, CURL *e, const char *url, long long deadline_ms,
                                      long long request_timeout_ms, char *errbuf, curl_write_callback body_cb,
                                      void *body_arg, struct curl_slist *headers) {
    long long timeout = request_timeout_ms;
    long long remaining = deadline_ms - s3MonoMs();
    if (remaining < S3_MIN_REQUEST_TIMEOUT_MS) remaining = S3_MIN_REQUEST_TIMEOUT_MS;
    if (timeout > remaining) timeout = remaining;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)timeout);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_AWS_SIGV4, s->sigv4);
    curl_easy_setopt(e, CURLOPT_USERNAME, s->access_key);
    curl_easy_setopt(e, CURLOPT_PASSWORD, s->secret_key);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, body_arg);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (s->ca_file) curl_easy_setopt(e, CURLOPT_CAINFO, s->ca_file);
    if (s->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    /* S3 requires x-amz-content-sha256 and libcurl 7.88 does not send it;
     * given the header, libcurl signs with its value as the payload hash.
     * The body is left unsigned (TLS protects it; see the top comment). */
    headers = curl_slist_append(headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (s->session_token) {
        sds h = sdscatsds(sdsnew("x-amz-security-token: "), s->session_token);
        headers = curl_slist_append(headers, h);
        sdsfree(h);
    }
    return headers;
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

    r->headers = s3SetupEasy(s, e, s->object_url, op->deadline_ms, s->request_timeout_ms, r->errbuf, s3WriteBody, s,
                             r->headers);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, s3WriteHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, s);
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

/* ------------------------------------------------------------------------
 * Segments
 *
 * A segment is an immutable object beside the document, under the prefix
 * "<key>.segments/" in the same bucket (queue.json ->
 * queue.json.segments/<name>). Unlike load/write, any number of segment
 * operations may be in flight at once, and while a load or write is: each
 * is an s3SegOp with its own easy handle, request state, retry state and
 * deadline, on the store's one multi handle (so they share its connection
 * cache and its libevent glue). s3CheckMultiInfo hands their completions
 * here by CURLOPT_PRIVATE; the document's request keeps its own path.
 *
 * At most S3_SEG_MAX_IN_FLIGHT segment requests run at once; the others
 * wait in a FIFO for a slot, so a burst of thousands of puts neither opens
 * thousands of connections nor starves the document's commit.
 *
 *   seg_put   PUT with If-None-Match: * (create-only). A 412 means a
 *             segment of that name exists: GET it, and the same bytes mean
 *             an earlier attempt of ours landed (STORE_OK), other bytes are
 *             STORE_CONFLICT. An unknown outcome (5xx, timeout, reset) is
 *             simply PUT again: the condition makes a repeat harmless, and
 *             if the first one had landed the repeat gets 412 and the GET
 *             above resolves it. Ceph RGW 16 answers If-None-Match: * on an
 *             existing object with 412 PreconditionFailed, like AWS.
 *   seg_get   GET; 404 NoSuchKey is STORE_NOT_FOUND.
 *   seg_del   DELETE; 204, 200 and 404 are all STORE_OK (S3 answers 204 for
 *             a key that does not exist).
 *   seg_list  ListObjectsV2 on the prefix, page after page (continuation
 *             tokens), keys and LastModified parsed from the XML.
 *
 * Every failure that may be transient is retried with the document's
 * backoff and jitter until the operation's deadline (commit-timeout-ms),
 * then reported as STORE_ERROR. Results are delivered from the op's own
 * event, never from inside the call that started it.
 * --------------------------------------------------------------------- */
#define S3_SEG_MAX_IN_FLIGHT 16 /* segment requests in flight per store */
#define S3_SEG_NAME_MAX 128     /* longest segment name (store.h) */

/* S3_SEG_PROBE is no segment operation: the document's version (a HEAD of
 * it, store.h's probe), which wants the same independence from the
 * document's load/write machine. */
typedef enum s3SegKind { S3_SEG_PUT, S3_SEG_GET, S3_SEG_DEL, S3_SEG_LIST, S3_SEG_PROBE } s3SegKind;

typedef enum s3SegState {
    S3_SEG_QUEUED,  /* waiting for a request slot */
    S3_SEG_SENDING, /* its request is in the multi handle */
    S3_SEG_BACKOFF, /* waiting (ev as a timer) before the next attempt */
    S3_SEG_DONE,    /* result set, ev activated to deliver it */
} s3SegState;

typedef struct s3SegOp {
    s3Store *s;                       /* owner */
    s3SegKind kind;                   /* what the caller asked for */
    s3SegState state;                 /* where it is */
    sds name;                         /* segment name ("" for a list) */
    sds url;                          /* the segment's object URL (not list) */
    sds data;                         /* put: the bytes to store (owned) */
    storeSegDoneCallback *done_cb;    /* put, del */
    storeSegGetCallback *get_cb;      /* get */
    storeSegListCallback *list_cb;    /* list */
    storeLoadCallback *probe_cb;      /* probe */
    void *priv;                       /* the caller's argument */
    long long deadline_ms;            /* monotonic ms: give up after it */
    long long timeout_ms;             /* the op's deadline budget, for messages */
    long long request_timeout_ms;     /* one HTTP request */
    int failures;                     /* failed attempts (drives backoff) */
    int verifying;                    /* put: the next request is the GET
                                       * comparing bytes after a 412 */
    int uncertain;                    /* put: an attempt's outcome was unknown */
    sds last_err;                     /* why the last attempt failed */
    struct event *ev;                 /* backoff timer, then result delivery */
    /* The request in flight (easy == NULL when none). */
    CURL *easy;
    struct curl_slist *headers;
    s3Method method;
    sds body;                         /* response body */
    sds etag;                         /* probe: the response's ETag */
    char errbuf[CURL_ERROR_SIZE];
    /* list: the page to fetch next and what the pages gave so far */
    sds token;                        /* continuation token, NULL: first page */
    sds *names;                       /* segment names (prefix removed) */
    long long *mtimes;                /* their LastModified, unix ms */
    size_t count;                     /* names/mtimes used */
    size_t alloc;                     /* names/mtimes allocated */
    /* The result. */
    storeStatus status;
    sds result_data;                  /* get: the segment */
    sds result_err;                   /* STORE_ERROR: the message */
    struct s3SegOp *prev, *next;      /* s->seg_ops */
    struct s3SegOp *qnext;            /* s->seg_queue */
} s3SegOp;

static void s3SegSend(s3SegOp *op);

static const char *s3MethodName(s3Method m) { return m == S3_PUT ? "PUT" : m == S3_DELETE ? "DELETE" : "GET"; }

static const char *s3SegKindName(s3SegKind k) {
    switch (k) {
    case S3_SEG_PUT: return "put";
    case S3_SEG_GET: return "get";
    case S3_SEG_DEL: return "delete";
    case S3_SEG_LIST: return "list";
    case S3_SEG_PROBE: return "probe";
    }
    return "?";
}

/* Names are made by the caller from [A-Za-z0-9._-] (store.h); anything else
 * would address some other object, so it is refused rather than encoded. */
static int s3SegNameValid(const char *name) {
    size_t len = strlen(name);
    if (len == 0 || len > S3_SEG_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '_' || *p == '-'))
            return 0;
    return 1;
}

/* Percent-encodes a query string value as SigV4's canonical query string
 * wants it: everything but the unreserved characters, '/' included. */
static sds s3EncodeQuery(sds out, const char *v) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == '~') {
            out = sdscatlen(out, (char *)&c, 1);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            out = sdscatlen(out, esc, 3);
        }
    }
    return out;
}

/* ------------------------------------------------------------------------
 * Segments: the XML of ListObjectsV2
 *
 * The answer is small and regular (ListBucketResult > Contents > Key,
 * LastModified; IsTruncated; NextContinuationToken), so a scanner for
 * <Tag>text</Tag> within a range is enough. Text is entity-encoded: keys
 * and tokens are decoded before use.
 * --------------------------------------------------------------------- */

/* Finds <tag>text</tag> in [p, end): the text in [*vs, *ve), and returns
 * the position after the closing tag; NULL if there is none. */
static const char *s3XmlElement(const char *p, const char *end, const char *tag, const char **vs,
                                const char **ve) {
    char open[64], close[64];
    int ol = snprintf(open, sizeof(open), "<%s>", tag), cl = snprintf(close, sizeof(close), "</%s>", tag);
    if (p >= end) return NULL;
    const char *o = memmem(p, (size_t)(end - p), open, (size_t)ol);
    if (!o) return NULL;
    const char *text = o + ol;
    const char *c = memmem(text, (size_t)(end - text), close, (size_t)cl);
    if (!c) return NULL;
    *vs = text;
    *ve = c;
    return c + cl;
}

static sds s3Utf8Append(sds out, unsigned long cp) {
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6)), b[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12)), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | (cp >> 18)), b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (unsigned char)(0x80 | (cp & 0x3F)), n = 4;
    }
    return sdscatlen(out, b, n);
}

/* XML text -> bytes: the five predefined entities and character references.
 * NULL if the text is not well-formed (an unknown or unterminated entity). */
static sds s3XmlUnescape(const char *p, const char *end) {
    static const struct { const char *name; char c; } ents[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    sds out = sdsempty();
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        if (!amp) return sdscatlen(out, p, (size_t)(end - p));
        out = sdscatlen(out, p, (size_t)(amp - p));
        const char *semi = memchr(amp, ';', (size_t)(end - amp));
        if (!semi || semi - amp > 12) goto bad;
        const char *ent = amp + 1;
        size_t elen = (size_t)(semi - ent);
        if (elen >= 2 && ent[0] == '#') {
            int hex = ent[1] == 'x' || ent[1] == 'X';
            const char *d = ent + 1 + hex;
            if (d == semi) goto bad;
            unsigned long cp = 0;
            for (; d < semi; d++) {
                int v;
                if (*d >= '0' && *d <= '9') v = *d - '0';
                else if (hex && *d >= 'a' && *d <= 'f') v = *d - 'a' + 10;
                else if (hex && *d >= 'A' && *d <= 'F') v = *d - 'A' + 10;
                else goto bad;
                cp = cp * (hex ? 16 : 10) + (unsigned long)v;
                if (cp > 0x10FFFF) goto bad;
            }
            if (cp == 0) goto bad;
            out = s3Utf8Append(out, cp);
        } else {
            size_t i;
            for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
                if (strlen(ents[i].name) == elen && memcmp(ents[i].name, ent, elen) == 0) break;
            if (i == sizeof(ents) / sizeof(ents[0])) goto bad;
            out = sdscatlen(out, &ents[i].c, 1);
        }
        p = semi + 1;
    }
    return out;
bad:
    sdsfree(out);
    return NULL;
}

/* "2026-12-01T21:41:59.162Z" (ISO 8601, UTC or with an offset) -> unix ms.
 * Returns 0, or -1 if it is not such a time. */
static int s3ParseIsoTime(const char *p, const char *end, long long *ms) {
    char buf[64];
    size_t len = (size_t)(end - p);
    if (len >= sizeof(buf)) return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    struct tm tm = {0};
    int n = 0;
    if (sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &n) != 6 || n == 0)
        return -1;
    const char *q = buf + n;
    long long frac_ms = 0;
    if (*q == '.') {
        int digits = 0;
        for (q++; *q >= '0' && *q <= '9'; q++, digits++)
            if (digits < 3) frac_ms = frac_ms * 10 + (*q - '0');
        if (digits == 0) return -1;
        for (; digits < 3; digits++) frac_ms *= 10;
    }
    long long offset_s = 0;
    if (*q == 'Z') {
        q++;
    } else if (*q == '+' || *q == '-') {
        int hh, mm, k = 0;
        if (sscanf(q + 1, "%2d:%2d%n", &hh, &mm, &k) != 2 || k != 5) return -1;
        offset_s = (hh * 3600LL + mm * 60LL) * (*q == '-' ? -1 : 1);
        q += 1 + k;
    }
    if (*q != '\0') return -1;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1) return -1;
    *ms = ((long long)t - offset_s) * 1000 + frac_ms;
    return 0;
}

static void s3SegListAdd(s3SegOp *op, sds name, long long mtime_ms) {
    if (op->count == op->alloc) {
        op->alloc = op->alloc ? op->alloc * 2 : 64;
        op->names = zrealloc(op->names, op->alloc * sizeof(sds));
        op->mtimes = zrealloc(op->mtimes, op->alloc * sizeof(long long));
    }
    op->names[op->count] = name;
    op->mtimes[op->count] = mtime_ms;
    op->count++;
}

/* Adds one page's segments to op; sets *next_token (NULL on the last
 * page). Returns 0, or -1 with *why set when the page makes no sense. */
static int s3SegParseListPage(s3SegOp *op, const char *xml, size_t len, sds *next_token, const char **why) {
    const char *end = xml + len, *vs, *ve;
    const char *prefix = op->s->seg_prefix;
    size_t plen = sdslen(op->s->seg_prefix);
    *next_token = NULL;
    if (!memmem(xml, len, "<ListBucketResult", 17)) {
        *why = "not a ListBucketResult";
        return -1;
    }
    const char *p = xml;
    const char *cs, *ce;
    while ((p = s3XmlElement(p, end, "Contents", &cs, &ce))) {
        const char *ks, *ke, *ts, *te;
        long long mtime;
        if (!s3XmlElement(cs, ce, "Key", &ks, &ke) || !s3XmlElement(cs, ce, "LastModified", &ts, &te)) {
            *why = "a <Contents> without <Key> or <LastModified>";
            return -1;
        }
        if (s3ParseIsoTime(ts, te, &mtime) == -1) {
            *why = "a <LastModified> that is not an ISO 8601 time";
            return -1;
        }
        sds key = s3XmlUnescape(ks, ke);
        if (!key) {
            *why = "a <Key> with a malformed XML entity";
            return -1;
        }
        /* Only plain names directly under the prefix are segments: other
         * keys there are none of ours, and no caller could name them. */
        if (sdslen(key) > plen && memcmp(key, prefix, plen) == 0 && s3SegNameValid(key + plen)) {
            sds name = sdsnewlen(key + plen, sdslen(key) - plen);
            s3SegListAdd(op, name, mtime);
        } else {
            serverLog(LL_VERBOSE, "S3 store %s: listing segments: ignoring key '%s'", op->s->st->location, key);
        }
        sdsfree(key);
    }
    if (s3XmlElement(xml, end, "IsTruncated", &vs, &ve) && ve - vs == 4 && memcmp(vs, "true", 4) == 0) {
        if (!s3XmlElement(xml, end, "NextContinuationToken", &vs, &ve) || ve == vs ||
            !(*next_token = s3XmlUnescape(vs, ve))) {
            *why = "IsTruncated without a usable NextContinuationToken";
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Segments: life cycle of an op
 * --------------------------------------------------------------------- */

/* Frees the op's request: removed from the multi handle (the connection
 * stays cached there), its slot given back. */
static void s3SegFreeRequest(s3SegOp *op) {
    if (op->easy) {
        curl_multi_remove_handle(op->s->multi, op->easy);
        curl_easy_cleanup(op->easy);
        op->easy = NULL;
        op->s->seg_in_flight--;
    }
    curl_slist_free_all(op->headers);
    op->headers = NULL;
    sdsfree(op->body);
    op->body = NULL;
}

/* Frees an op that is in no list (and no queue) any more. */
static void s3SegFree(s3SegOp *op) {
    s3SegFreeRequest(op);
    if (op->ev) event_free(op->ev);
    sdsfree(op->name);
    sdsfree(op->url);
    sdsfree(op->data);
    sdsfree(op->last_err);
    sdsfree(op->token);
    for (size_t i = 0; i < op->count; i++) sdsfree(op->names[i]);
    zfree(op->names);
    zfree(op->mtimes);
    sdsfree(op->result_data);
    sdsfree(op->result_err);
    sdsfree(op->etag);
    zfree(op);
}

static void s3SegUnlink(s3SegOp *op) {
    s3Store *s = op->s;
    if (op->prev)
        op->prev->next = op->next;
    else
        s->seg_ops = op->next;
    if (op->next) op->next->prev = op->prev;
    op->prev = op->next = NULL;
}

/* close(): every op still in flight is abandoned without its callback. A
 * put that was sent may still land, as if we had crashed: its name is
 * never reused and nothing names it, so it is only garbage to collect. */
static void s3SegFreeAll(s3Store *s) {
    int abandoned = 0;
    while (s->seg_ops) {
        s3SegOp *op = s->seg_ops;
        s3SegUnlink(op);
        if (op->state != S3_SEG_DONE) abandoned++;
        s3SegFree(op);
    }
    s->seg_queue = s->seg_queue_tail = NULL;
    if (abandoned)
        serverLog(LL_VERBOSE, "S3 store %s: closed with %d segment operations in flight",
                  s->st && s->st->location ? s->st->location : "", abandoned);
}

/* Delivers the result (from the op's event: nothing of ours is on the
 * stack, so the callback may start other operations or close the store). */
static void s3SegDeliver(s3SegOp *op) {
    s3SegUnlink(op);
    const char *err = op->status == STORE_ERROR ? op->result_err : NULL;
    switch (op->kind) {
    case S3_SEG_PUT:
    case S3_SEG_DEL: op->done_cb(op->priv, op->status, err); break;
    case S3_SEG_GET:
        if (op->status == STORE_OK)
            op->get_cb(op->priv, op->status, op->result_data, sdslen(op->result_data), NULL);
        else
            op->get_cb(op->priv, op->status, NULL, 0, err);
        break;
    case S3_SEG_LIST:
        if (op->status == STORE_OK)
            op->list_cb(op->priv, op->status, (const char *const *)op->names, op->mtimes, op->count, NULL);
        else
            op->list_cb(op->priv, op->status, NULL, NULL, 0, err);
        break;
    case S3_SEG_PROBE:
        op->probe_cb(op->priv, op->status, NULL, 0, op->status == STORE_OK ? op->result_data : NULL, err);
        break;
    }
    /* The store may be gone now: op is all we touch. */
    s3SegFree(op);
}

/* The op's event: a backoff ended (send again) or a result is ready. */
static void s3SegEvent(evutil_socket_t fd, short what, void *arg) {
    S3_UNUSED(fd);
    S3_UNUSED(what);
    s3SegOp *op = arg;
    if (op->state == S3_SEG_DONE)
        s3SegDeliver(op);
    else
        s3SegSend(op);
}

/* Records the result and schedules its delivery. */
static void s3SegFinish(s3SegOp *op, storeStatus status, sds data, const char *err) {
    s3Store *s = op->s;
    op->state = S3_SEG_DONE;
    op->status = status;
    op->result_data = data;
    op->result_err = err ? sdsnew(err) : NULL;
    if (status == STORE_CONFLICT) s->seg_conflicts++;
    if (status == STORE_ERROR) {
        s->seg_errors++;
        s3SetLastError(s, err);
        serverLog(LL_WARNING, "S3 store %s: %s", s->st->location, err);
    }
    event_active(op->ev, EV_TIMEOUT, 1);
}

/* Remembers why an attempt failed, for the final message and INFO. */
static void s3SegNoteFailure(s3SegOp *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s3SegNoteFailure(s3SegOp *op, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds msg = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    sdsfree(op->last_err);
    op->last_err = msg;
    s3SetLastError(op->s, msg);
}

static void s3SegNoteHttpFailure(s3SegOp *op, const s3Response *r, const char *what) {
    const char *method = s3MethodName(r->method);
    if (r->rc != CURLE_OK) {
        s3SegNoteFailure(op, "%s%s: %s", method, what, r->errbuf[0] ? r->errbuf : curl_easy_strerror(r->rc));
        return;
    }
    sds code = s3ErrorCode(r->body);
    s3SegNoteFailure(op, "%s%s: HTTP %ld%s%s", method, what, r->status, sdslen(code) ? " " : "", code);
    sdsfree(code);
}

/* Waits (the document's backoff and jitter) and tries again; or, when the
 * deadline would pass, reports STORE_ERROR. */
static void s3SegRetryLater(s3SegOp *op) {
    s3Store *s = op->s;
    op->failures++;
    long long cap = S3_BACKOFF_BASE_MS << (op->failures < 7 ? op->failures - 1 : 6);
    if (cap > S3_BACKOFF_MAX_MS) cap = S3_BACKOFF_MAX_MS;
    long long delay = cap / 2 + (long long)(s3Random(s) % (uint64_t)(cap / 2 + 1));
    if (s3MonoMs() + delay >= op->deadline_ms) {
        sds msg;
        if (op->kind == S3_SEG_PUT && op->uncertain)
            msg = sdscatprintf(sdsempty(),
                               "segment put %s not confirmed within %lld ms: a PUT had an unknown outcome, so "
                               "the segment may exist (%s)",
                               op->name, op->timeout_ms, op->last_err);
        else if (op->kind == S3_SEG_LIST)
            msg = sdscatprintf(sdsempty(), "segment list failed after %d attempts in %lld ms (%s)", op->failures,
                               op->timeout_ms, op->last_err);
        else
            msg = sdscatprintf(sdsempty(), "segment %s %s failed after %d attempts in %lld ms (%s)",
                               s3SegKindName(op->kind), op->name, op->failures, op->timeout_ms, op->last_err);
        s3SegFinish(op, STORE_ERROR, NULL, msg);
        sdsfree(msg);
        return;
    }
    s->seg_retries++;
    op->state = S3_SEG_BACKOFF;
    serverLog(LL_VERBOSE, "S3 store %s: segment %s %s: %s; retrying in %lld ms", s->st->location,
              s3SegKindName(op->kind), op->name, op->last_err, delay);
    struct timeval tv = {delay / 1000, (delay % 1000) * 1000};
    evtimer_add(op->ev, &tv);
}

static size_t s3SegWriteBody(char *ptr, size_t size, size_t nmemb, void *userdata) {
    s3SegOp *op = userdata;
    op->body = sdscatlen(op->body, ptr, size * nmemb);
    return size * nmemb;
}

/* The URL of the op's next request. */
static sds s3SegRequestUrl(s3SegOp *op) {
    if (op->kind != S3_SEG_LIST) return sdsdup(op->url);
    /* SigV4 signs the query string in canonical form: parameters sorted by
     * name, names and values percent-encoded ('/' too). libcurl 7.88 signs
     * the query as given, so it is built canonical. */
    sds u = sdscat(sdsdup(op->s->bucket_url), "?");
    if (op->token) {
        u = sdscat(u, "continuation-token=");
        u = s3EncodeQuery(u, op->token);
        u = sdscat(u, "&");
    }
    u = sdscat(u, "list-type=2&prefix=");
    return s3EncodeQuery(u, op->s->seg_prefix);
}

/* Starts the op's next request (a slot is free). */
/* probe: keeps the ETag header (the last response's, after a 100). */
static size_t s3SegWriteHeader(char *ptr, size_t size, size_t nmemb, void *userdata) {
    s3SegOp *op = userdata;
    size_t len = size * nmemb;
    if (len >= 5 && memcmp(ptr, "HTTP/", 5) == 0) {
        sdsfree(op->etag);
        op->etag = NULL;
    } else if (len > 5 && strncasecmp(ptr, "etag:", 5) == 0) {
        const char *v = ptr + 5, *e = ptr + len;
        while (v < e && (*v == ' ' || *v == '\t')) v++;
        while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t')) e--;
        sdsfree(op->etag);
        op->etag = sdsnewlen(v, (size_t)(e - v));
    }
    return len;
}

static void s3SegStartRequest(s3SegOp *op) {
    s3Store *s = op->s;
    serverAssert(op->easy == NULL);
    op->state = S3_SEG_SENDING;
    op->method = op->kind == S3_SEG_PUT && !op->verifying ? S3_PUT : op->kind == S3_SEG_DEL ? S3_DELETE : S3_GET;
    op->body = sdsempty();
    op->errbuf[0] = '\0';
    CURL *e = curl_easy_init();
    if (!e) {
        s3SegNoteFailure(op, "curl_easy_init failed");
        s3SegFreeRequest(op);
        s3SegRetryLater(op);
        return;
    }

    sds url = s3SegRequestUrl(op);
    op->headers = s3SetupEasy(s, e, url, op->deadline_ms, op->request_timeout_ms, op->errbuf, s3SegWriteBody, op,
                              op->headers);
    sdsfree(url); /* libcurl copied it */
    curl_easy_setopt(e, CURLOPT_PRIVATE, op);
    if (op->method == S3_PUT) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, op->data);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)sdslen(op->data));
        op->headers = curl_slist_append(op->headers, "Content-Type: application/octet-stream");
        op->headers = curl_slist_append(op->headers, "If-None-Match: *");
        s->seg_puts++;
    } else if (op->method == S3_DELETE) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
        s->seg_deletes++;
    } else if (op->kind == S3_SEG_PROBE) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L); /* HEAD */
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, s3SegWriteHeader);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, op);
        s->probes++;
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        if (op->kind == S3_SEG_LIST)
            s->seg_lists++;
        else
            s->seg_gets++;
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, op->headers);
    /* Only arms libcurl's timer: the transfer starts from the loop. */
    CURLMcode mc = curl_multi_add_handle(s->multi, e);
    if (mc != CURLM_OK) {
        curl_easy_cleanup(e);
        s3SegNoteFailure(op, "curl_multi_add_handle: %s", curl_multi_strerror(mc));
        s3SegFreeRequest(op);
        s3SegRetryLater(op);
        return;
    }
    op->easy = e;
    s->seg_in_flight++;
}

/* Sends the op's next request now, or queues it until a slot is free. */
static void s3SegSend(s3SegOp *op) {
    s3Store *s = op->s;
    if (s->seg_in_flight >= S3_SEG_MAX_IN_FLIGHT) {
        op->state = S3_SEG_QUEUED;
        op->qnext = NULL;
        if (s->seg_queue_tail)
            s->seg_queue_tail->qnext = op;
        else
            s->seg_queue = op;
        s->seg_queue_tail = op;
        return;
    }
    s3SegStartRequest(op);
}

static int s3SegQueued(s3Store *s) {
    int n = 0;
    for (s3SegOp *op = s->seg_queue; op; op = op->qnext) n++;
    return n;
}

/* Gives free slots to queued ops, oldest first. */
static void s3SegPump(s3Store *s) {
    while (s->seg_queue && s->seg_in_flight < S3_SEG_MAX_IN_FLIGHT) {
        s3SegOp *op = s->seg_queue;
        s->seg_queue = op->qnext;
        if (!s->seg_queue) s->seg_queue_tail = NULL;
        op->qnext = NULL;
        s3SegStartRequest(op);
    }
}

/* ------------------------------------------------------------------------
 * Segments: responses
 * --------------------------------------------------------------------- */

/* seg_put's PUT came back. */
static void s3SegPutResponse(s3SegOp *op, s3Response *r) {
    if (s3IsSuccess(r)) {
        s3SegFinish(op, STORE_OK, NULL, NULL);
        return;
    }
    if (s3IsStatus(r, 412)) {
        /* A segment of this name exists: ours (an earlier attempt, or
         * libcurl's silent re-send on a dead reused connection, landed), or
         * someone else's. Its bytes tell. */
        op->verifying = 1;
        s3SegSend(op);
        return;
    }
    if (s3IsStatus(r, 409)) {
        /* ConditionalRequestConflict: another conditional write on the key
         * was in progress. Nothing applied; try again after a backoff. */
        s3SegNoteHttpFailure(op, r, " (concurrent conditional write)");
        s3SegRetryLater(op);
        return;
    }
    if ((r->rc != CURLE_OK && !s3NotSent(r->rc)) || (r->rc == CURLE_OK && r->status >= 500)) {
        /* Unknown outcome: PUT again. The condition makes that safe, and a
         * 412 then sends us to the comparison above. */
        s3SegNoteHttpFailure(op, r, ", outcome unknown");
        if (!op->uncertain) op->s->seg_unknown++;
        op->uncertain = 1;
        s3SegRetryLater(op);
        return;
    }
    s3SegNoteHttpFailure(op, r, "");
    s3SegRetryLater(op);
}

/* seg_put read the existing segment after a 412. */
static void s3SegVerifyResponse(s3SegOp *op, s3Response *r) {
    if (s3IsStatus(r, 200)) {
        int same = sdslen(r->body) == sdslen(op->data) && memcmp(r->body, op->data, sdslen(op->data)) == 0;
        if (same && (op->uncertain || op->failures))
            serverLog(LL_VERBOSE, "S3 store %s: segment %s: 412, and it holds our bytes: an earlier attempt landed",
                      op->s->st->location, op->name);
        s3SegFinish(op, same ? STORE_OK : STORE_CONFLICT, NULL, NULL);
        return;
    }
    if (s3IsNoSuchKey(r)) {
        /* 412, yet nothing there: it was deleted in between. Create again. */
        op->verifying = 0;
        s3SegNoteFailure(op, "PUT: 412, but the segment did not exist when re-read");
        s3SegRetryLater(op);
        return;
    }
    s3SegNoteHttpFailure(op, r, " (reading the existing segment after 412)");
    s3SegRetryLater(op);
}

static void s3SegGetResponse(s3SegOp *op, s3Response *r) {
    if (s3IsStatus(r, 200)) {
        sds data = r->body;
        r->body = NULL;
        s3SegFinish(op, STORE_OK, data, NULL);
        return;
    }
    if (s3IsNoSuchKey(r)) {
        s3SegFinish(op, STORE_NOT_FOUND, NULL, NULL);
        return;
    }
    s3SegNoteHttpFailure(op, r, "");
    s3SegRetryLater(op);
}

/* probe: HEAD of the document. A HEAD has no body, so 404 alone says it
 * is not there. */
static void s3SegProbeResponse(s3SegOp *op, s3Response *r) {
    if (s3IsStatus(r, 200) && op->etag) {
        sds v = op->etag;
        op->etag = NULL;
        s3SegFinish(op, STORE_OK, v, NULL);
        return;
    }
    if (s3IsStatus(r, 404)) {
        s3SegFinish(op, STORE_NOT_FOUND, NULL, NULL);
        return;
    }
    s3SegNoteHttpFailure(op, r, s3IsStatus(r, 200) ? " (no ETag)" : "");
    s3SegRetryLater(op);
}

static void s3SegDelResponse(s3SegOp *op, s3Response *r) {
    /* Deleting what is not there is success: the result is the same. */
    if (s3IsSuccess(r) || s3IsNoSuchKey(r)) {
        s3SegFinish(op, STORE_OK, NULL, NULL);
        return;
    }
    s3SegNoteHttpFailure(op, r, "");
    s3SegRetryLater(op);
}

static void s3SegListResponse(s3SegOp *op, s3Response *r) {
    if (!s3IsStatus(r, 200)) {
        s3SegNoteHttpFailure(op, r, " (list)");
        s3SegRetryLater(op);
        return;
    }
    sds next = NULL;
    const char *why = NULL;
    size_t before = op->count;
    if (s3SegParseListPage(op, r->body, sdslen(r->body), &next, &why) == -1) {
        /* Perhaps a truncated or mangled answer: drop this page's names
         * and fetch it again. */
        while (op->count > before) sdsfree(op->names[--op->count]);
        s3SegNoteFailure(op, "GET (list): unexpected answer: %s", why);
        s3SegRetryLater(op);
        return;
    }
    if (next && op->token && strcmp(next, op->token) == 0) {
        /* The same token again would loop forever. */
        sdsfree(next);
        while (op->count > before) sdsfree(op->names[--op->count]);
        s3SegNoteFailure(op, "GET (list): the server returned the same continuation token twice");
        s3SegRetryLater(op);
        return;
    }
    sdsfree(op->token);
    op->token = next;
    if (!next) {
        s3SegFinish(op, STORE_OK, NULL, NULL);
        return;
    }
    /* The next page is progress, not a failure: a fresh backoff. */
    op->failures = 0;
    s3SegSend(op);
}

/* s3CheckMultiInfo: a segment request finished. */
static void s3SegRequestDone(s3Store *s, CURL *easy, CURLcode rc) {
    s3SegOp *op = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&op);
    if (!op || op->easy != easy) return; /* not ours (cannot happen) */
    s3Response r = {.method = op->method, .rc = rc, .body = op->body};
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r.status);
    memcpy(r.errbuf, op->errbuf, sizeof(r.errbuf));
    op->body = NULL;
    s3SegFreeRequest(op);
    /* The slot is free: the oldest waiting op gets it before this one may
     * want another. */
    s3SegPump(s);
    switch (op->kind) {
    case S3_SEG_PUT:
        if (r.method == S3_PUT)
            s3SegPutResponse(op, &r);
        else
            s3SegVerifyResponse(op, &r);
        break;
    case S3_SEG_GET: s3SegGetResponse(op, &r); break;
    case S3_SEG_DEL: s3SegDelResponse(op, &r); break;
    case S3_SEG_LIST: s3SegListResponse(op, &r); break;
    case S3_SEG_PROBE: s3SegProbeResponse(op, &r); break;
    }
    sdsfree(r.body);
}

/* Drains libcurl's completion messages. */
static void s3CheckMultiInfo(s3Store *s) {
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(s->multi, &left))) {
        if (msg->msg != CURLMSG_DONE) continue;
        if (msg->easy_handle != s->req.easy) {
            /* Not the document's request: a segment request (its s3SegOp
             * is the handle's CURLOPT_PRIVATE). */
            s3SegRequestDone(s, msg->easy_handle, msg->data.result);
            continue;
        }
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
    s->bucket_url = sdsdup(u);
    s->object_url = s3EncodeKey(u, s->key);
    s->seg_prefix = sdscat(sdsdup(s->key), ".segments/");
    return 0;
}

static void s3FreeStore(s3Store *s) {
    if (!s) return;
    s3FreeRequest(s);
    s3SegFreeAll(s); /* before the multi handle: their easy handles are in it */
    if (s->multi) curl_multi_cleanup(s->multi); /* closes the sockets: REMOVE callbacks */
    if (s->timer_ev) event_free(s->timer_ev);
    if (s->retry_ev) event_free(s->retry_ev);
    if (s->done_ev) event_free(s->done_ev);
    s3ResetOp(&s->op);
    sdsfree(s->endpoint);
    sdsfree(s->bucket);
    sdsfree(s->key);
    sdsfree(s->object_url);
    sdsfree(s->bucket_url);
    sdsfree(s->seg_prefix);
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

/* A new segment op, in the store's list, with its deadline. */
static s3SegOp *s3SegNew(s3Store *s, s3SegKind kind, const char *name, void *priv) {
    s3SegOp *op = zcalloc(sizeof(*op));
    op->s = s;
    op->kind = kind;
    op->priv = priv;
    op->name = sdsnew(name ? name : "");
    op->last_err = sdsempty();
    /* Runtime settings (CONFIG SET), read per op like the document's. */
    long long req_ms = server.cfg.s3_request_timeout_ms, op_ms = server.cfg.commit_timeout_ms;
    op->request_timeout_ms = req_ms > 0 ? req_ms : S3_DEFAULT_REQUEST_TIMEOUT_MS;
    op->timeout_ms = op_ms > 0 ? op_ms : S3_DEFAULT_DEADLINE_MS;
    op->deadline_ms = s3MonoMs() + op->timeout_ms;
    op->ev = evtimer_new(s->base, s3SegEvent, op);
    serverAssert(op->ev != NULL);
    if (kind == S3_SEG_PROBE) op->url = sdsdup(s->object_url);
    else if (kind != S3_SEG_LIST) op->url = s3EncodeKey(s3EncodeKey(sdsdup(s->bucket_url), s->seg_prefix), op->name);
    op->next = s->seg_ops;
    if (s->seg_ops) s->seg_ops->prev = op;
    s->seg_ops = op;
    return op;
}

/* Sends the op's first request; a bad name is reported (from the loop, like
 * every result) without any I/O. */
static void s3SegBegin(s3SegOp *op) {
    if (op->kind != S3_SEG_LIST && op->kind != S3_SEG_PROBE && !s3SegNameValid(op->name)) {
        sds msg = sdscatprintf(sdsempty(), "segment %s: invalid segment name '%s'", s3SegKindName(op->kind),
                               op->name);
        s3SegFinish(op, STORE_ERROR, NULL, msg);
        sdsfree(msg);
        return;
    }
    s3SegSend(op);
}

static void s3SegPut(store *st, const char *name, sds data, storeSegDoneCallback *cb, void *priv) {
    s3SegOp *op = s3SegNew(st->state, S3_SEG_PUT, name, priv);
    op->done_cb = cb;
    op->data = data;
    s3SegBegin(op);
}

static void s3SegGet(store *st, const char *name, storeSegGetCallback *cb, void *priv) {
    s3SegOp *op = s3SegNew(st->state, S3_SEG_GET, name, priv);
    op->get_cb = cb;
    s3SegBegin(op);
}

static void s3SegDel(store *st, const char *name, storeSegDoneCallback *cb, void *priv) {
    s3SegOp *op = s3SegNew(st->state, S3_SEG_DEL, name, priv);
    op->done_cb = cb;
    s3SegBegin(op);
}

static void s3Probe(store *st, storeLoadCallback *cb, void *priv) {
    s3SegOp *op = s3SegNew(st->state, S3_SEG_PROBE, NULL, priv);
    op->probe_cb = cb;
    s3SegBegin(op);
}

static void s3SegList(store *st, storeSegListCallback *cb, void *priv) {
    s3SegOp *op = s3SegNew(st->state, S3_SEG_LIST, NULL, priv);
    op->list_cb = cb;
    s3SegBegin(op);
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
    out = sdscatprintf(out,
                       "store_s3_segment_prefix:%s\r\n"
                       "store_s3_segment_puts:%lld\r\n"
                       "store_s3_segment_gets:%lld\r\n"
                       "store_s3_segment_deletes:%lld\r\n"
                       "store_s3_segment_lists:%lld\r\n"
                       "store_s3_segment_retries:%lld\r\n"
                       "store_s3_segment_conflicts:%lld\r\n"
                       "store_s3_segment_errors:%lld\r\n"
                       "store_s3_segment_unknown_outcomes:%lld\r\n"
                       "store_s3_segment_requests_in_flight:%d\r\n"
                       "store_s3_segment_requests_queued:%d\r\n"
                       "store_s3_probes:%lld\r\n",
                       s->seg_prefix, s->seg_puts, s->seg_gets, s->seg_deletes, s->seg_lists, s->seg_retries,
                       s->seg_conflicts, s->seg_errors, s->seg_unknown, s->seg_in_flight, s3SegQueued(s), s->probes);
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
    .seg_put = s3SegPut,
    .seg_get = s3SegGet,
    .seg_del = s3SegDel,
    .seg_list = s3SegList,
    .probe = s3Probe,
};
