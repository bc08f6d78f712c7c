/* store_test.c -- the S3 store (src/store_s3.c) against a real S3 server.
 *
 * Runs the store in isolation: no casq server, just s3StoreType, a libevent
 * loop and the `server` struct the store reads its settings from. It talks to
 * Ceph RGW directly and through tests/s3/faultproxy.py, and checks outcomes,
 * never timings: a write reported OK is stored, a conflict or error leaves
 * the document as it was, no write is applied twice, the store recovers once
 * a fault stops, and callbacks never run inside load()/write().
 *
 * Environment (tests/s3/run.sh sets it up):
 *   S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, S3_BUCKET
 *   FAULTPROXY   http://host:port of faultproxy.py in front of S3_ENDPOINT
 *                (the proxy tests are skipped without it)
 *   S3_TEST_VERBOSE=1 shows the store's log lines
 *
 * Build (from the repository root):
 *   cc -std=c11 -Wall -Wextra -Werror -g -Isrc -o tests/s3/store_test \
 *      tests/s3/store_test.c src/store_s3.c src/sds.c src/zmalloc.c \
 *      $(pkg-config --cflags --libs libcurl libevent)
 *
 * Prints one line per check and ends with "N passed, N failed"; exits 1 if
 * anything failed. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <curl/curl.h>
#include <event2/event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server.h"
#include "store.h"

/* ------------------------------------------------------------------------
 * The bits of the server the store uses
 * --------------------------------------------------------------------- */
redisServer server;
static int verbose;

void serverLog(int level, const char *fmt, ...) {
    if (!verbose && level < LL_WARNING) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "    [log] ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

void serverAssertFail(const char *estr, const char *file, int line) {
    fprintf(stderr, "ASSERTION FAILED %s:%d: %s\n", file, line, estr);
    abort();
}

/* ------------------------------------------------------------------------
 * Test bookkeeping
 * --------------------------------------------------------------------- */
static int passed, failed;

static void check(int ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(int ok, const char *name, const char *fmt, ...) {
    if (ok) {
        passed++;
        printf("ok - %s\n", name);
    } else {
        failed++;
        printf("FAIL - %s", name);
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            printf(": ");
            vprintf(fmt, ap);
            va_end(ap);
        }
        printf("\n");
    }
    fflush(stdout);
}

static const char *statusName(storeStatus s) {
    switch (s) {
    case STORE_OK: return "OK";
    case STORE_NOT_FOUND: return "NOT_FOUND";
    case STORE_CONFLICT: return "CONFLICT";
    case STORE_ERROR: return "ERROR";
    }
    return "?";
}

/* ------------------------------------------------------------------------
 * Driving the store synchronously
 * --------------------------------------------------------------------- */
static struct event_base *base;
static const char *endpoint, *proxy, *bucket;
static int in_store_call; /* set while load()/write() runs: callbacks must not */
static int reentrant_calls;

typedef struct result {
    int done;          /* the callback ran */
    storeStatus status;
    sds data;          /* load: the document */
    sds version;       /* load/write: the token */
    sds err;           /* error text */
} result;

static void resultFree(result *r) {
    sdsfree(r->data);
    sdsfree(r->version);
    sdsfree(r->err);
    memset(r, 0, sizeof(*r));
}

static void loadDone(void *priv, storeStatus status, const char *data, size_t len, const char *version,
                     const char *err) {
    result *r = priv;
    if (in_store_call) reentrant_calls++;
    r->done = 1;
    r->status = status;
    r->data = data ? sdsnewlen(data, len) : NULL;
    r->version = version ? sdsnew(version) : NULL;
    r->err = err ? sdsnew(err) : NULL;
}

static void writeDone(void *priv, storeStatus status, const char *new_version, const char *err) {
    result *r = priv;
    if (in_store_call) reentrant_calls++;
    r->done = 1;
    r->status = status;
    r->version = new_version ? sdsnew(new_version) : NULL;
    r->err = err ? sdsnew(err) : NULL;
}

static void runUntil(int *done1, int *done2) {
    while (!*done1 || (done2 && !*done2)) event_base_loop(base, EVLOOP_ONCE);
}

/* Opens an S3 store on `ep` for s3://bucket/key with the given timeouts.
 * The store reads the timeouts from server.cfg at every operation (they are
 * runtime settings), so they stay set until the next openStore(). */
static store *openStore(const char *ep, const char *key, long long commit_timeout_ms, long long request_timeout_ms) {
    server.cfg.s3_endpoint = (char *)ep;
    server.cfg.s3_region = "us-east-1";
    server.cfg.s3_path_style = 1;
    server.cfg.commit_timeout_ms = commit_timeout_ms;
    server.cfg.s3_request_timeout_ms = request_timeout_ms;
    store *st = zcalloc(sizeof(*st));
    st->type = &s3StoreType;
    st->url = sdscatprintf(sdsempty(), "s3://%s/%s", bucket, key);
    st->base = base;
    sds err = NULL;
    if (s3StoreType.open(st, st->url, base, &err) != 0) {
        fprintf(stderr, "open %s failed: %s\n", st->url, err ? err : "?");
        exit(2);
    }
    return st;
}

static void closeStore(store *st) {
    st->type->close(st);
    sdsfree(st->url);
    sdsfree(st->location);
    zfree(st);
}

static result doLoad(store *st) {
    result r = {0};
    in_store_call = 1;
    st->type->load(st, loadDone, &r);
    in_store_call = 0;
    runUntil(&r.done, NULL);
    return r;
}

static result doWrite(store *st, const char *data, size_t len, const char *expect) {
    result r = {0};
    in_store_call = 1;
    st->type->write(st, sdsnewlen(data, len), expect, writeDone, &r);
    in_store_call = 0;
    runUntil(&r.done, NULL);
    return r;
}

static result doWriteStr(store *st, const char *data, const char *expect) {
    return doWrite(st, data, strlen(data), expect);
}

/* A unique object key per test, so runs and tests never interfere. */
static sds uniqueKey(const char *name) {
    static int n;
    return sdscatprintf(sdsempty(), "store-test/%d-%ld-%d/%s.json", (int)getpid(), (long)time(NULL), ++n, name);
}

/* What is really stored (read directly from S3, bypassing the proxy). */
static result storedState(const char *key) {
    serverConfig saved = server.cfg;
    store *st = openStore(endpoint, key, 10000, 5000);
    result r = doLoad(st);
    closeStore(st);
    server.cfg = saved;
    return r;
}

static int storedEquals(const char *key, const char *data, size_t len) {
    result r = storedState(key);
    int eq = r.status == STORE_OK && r.data && sdslen(r.data) == len && memcmp(r.data, data, len) == 0;
    resultFree(&r);
    return eq;
}

/* ------------------------------------------------------------------------
 * The fault proxy's control API (blocking libcurl: fine in a test)
 * --------------------------------------------------------------------- */
static size_t collect(char *p, size_t size, size_t n, void *ud) {
    sds *s = ud;
    *s = sdscatlen(*s, p, size * n);
    return size * n;
}

static sds proxyControl(const char *json) {
    sds url = sdscatprintf(sdsempty(), "%s/__fault__", proxy);
    sds out = sdsempty();
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 5L);
    if (json) curl_easy_setopt(e, CURLOPT_POSTFIELDS, json);
    CURLcode rc = curl_easy_perform(e);
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(e);
    sdsfree(url);
    if (rc != CURLE_OK || status != 200) {
        fprintf(stderr, "fault proxy control failed (%s, HTTP %ld): %s\n", curl_easy_strerror(rc), status, out);
        exit(2);
    }
    return out;
}

static void proxySet(const char *json) { sdsfree(proxyControl(json)); }

/* A counter from GET /__fault__ (0 if absent). */
static long proxyCounter(const char *name) {
    sds js = proxyControl(NULL);
    sds pat = sdscatprintf(sdsempty(), "\"%s\": ", name);
    const char *c = strstr(js, "\"counters\"");
    const char *p = c ? strstr(c, pat) : NULL;
    long v = p ? strtol(p + sdslen(pat), NULL, 10) : 0;
    sdsfree(pat);
    sdsfree(js);
    return v;
}

/* Waits until the proxy has forwarded `n` PUTs in total (a stalled PUT may
 * still be on its way upstream after the store reported). */
static void proxyWaitForwarded(long n) {
    for (int i = 0; i < 100 && proxyCounter("puts_forwarded") < n; i++) usleep(50000);
}

static long long infoField(store *st, const char *field) {
    sds info = st->type->info(st, sdsempty());
    sds pat = sdscatprintf(sdsempty(), "%s:", field);
    const char *p = strstr(info, pat);
    long long v = p ? strtoll(p + sdslen(pat), NULL, 10) : -1;
    sdsfree(pat);
    sdsfree(info);
    return v;
}

static sds infoValue(store *st, const char *field) {
    sds info = st->type->info(st, sdsempty());
    sds pat = sdscatprintf(sdsempty(), "%s:", field);
    const char *p = strstr(info, pat);
    sds v = sdsempty();
    if (p) {
        p += sdslen(pat);
        v = sdscatlen(v, p, strcspn(p, "\r\n"));
    }
    sdsfree(pat);
    sdsfree(info);
    return v;
}

/* ------------------------------------------------------------------------
 * Direct tests
 * --------------------------------------------------------------------- */
static void testBasics(void) {
    sds key = uniqueKey("basics");
    store *st = openStore(endpoint, key, 10000, 5000);

    result r = doLoad(st);
    check(r.status == STORE_NOT_FOUND, "load of a missing object is NOT_FOUND", "got %s (%s)",
          statusName(r.status), r.err ? r.err : "");
    resultFree(&r);

    result c = doWriteStr(st, "{\"v\":1}", NULL);
    check(c.status == STORE_OK && c.version, "create", "got %s (%s)", statusName(c.status), c.err ? c.err : "");
    r = doLoad(st);
    check(r.status == STORE_OK && r.data && strcmp(r.data, "{\"v\":1}") == 0 && r.version && c.version &&
              strcmp(r.version, c.version) == 0,
          "load after create returns the data and the version create returned", "got %s data=%s version=%s/%s",
          statusName(r.status), r.data ? r.data : "-", r.version ? r.version : "-", c.version ? c.version : "-");
    resultFree(&r);

    result c2 = doWriteStr(st, "{\"v\":\"other\"}", NULL);
    check(c2.status == STORE_CONFLICT, "create again is CONFLICT", "got %s (%s)", statusName(c2.status),
          c2.err ? c2.err : "");
    check(storedEquals(key, "{\"v\":1}", 7), "a conflicting create leaves the document unchanged", NULL);
    resultFree(&c2);

    result w = doWriteStr(st, "{\"v\":2}", c.version);
    check(w.status == STORE_OK && w.version, "CAS write with the right version", "got %s (%s)",
          statusName(w.status), w.err ? w.err : "");
    check(storedEquals(key, "{\"v\":2}", 7), "the CAS write is stored", NULL);
    r = doLoad(st);
    check(r.status == STORE_OK && w.version && r.version && strcmp(r.version, w.version) == 0,
          "the version a write returns is the stored version", "write=%s load=%s", w.version ? w.version : "-",
          r.version ? r.version : "-");
    resultFree(&r);

    result stale = doWriteStr(st, "{\"v\":\"stale\"}", c.version);
    check(stale.status == STORE_CONFLICT, "CAS write with a stale version is CONFLICT", "got %s (%s)",
          statusName(stale.status), stale.err ? stale.err : "");
    check(storedEquals(key, "{\"v\":2}", 7), "a stale write leaves the document unchanged", NULL);
    resultFree(&stale);

    /* A second write in a row on the same store (the ETag form is learnt). */
    result w3 = doWriteStr(st, "{\"v\":3}", w.version);
    check(w3.status == STORE_OK, "a second CAS write in a row", "got %s (%s)", statusName(w3.status),
          w3.err ? w3.err : "");
    resultFree(&w3);

    result gone = doWriteStr(st, "{\"v\":\"x\"}", "\"0123456789abcdef0123456789abcdef\"");
    check(gone.status == STORE_CONFLICT, "CAS write with a version that never existed is CONFLICT", "got %s",
          statusName(gone.status));
    resultFree(&gone);

    sds info = st->type->info(st, sdsempty());
    check(strstr(info, "store_backend:s3\r\n") && strstr(info, "store_s3_puts:") &&
              strstr(info, "store_s3_put_latency_p99_ms:"),
          "INFO has the backend, counts and latencies", "%s", info);
    check(!strstr(info, getenv("AWS_SECRET_ACCESS_KEY")) && !strstr(info, getenv("AWS_ACCESS_KEY_ID")),
          "INFO shows no credentials", NULL);
    sdsfree(info);

    resultFree(&c);
    resultFree(&w);
    closeStore(st);

    /* A store on a missing (never created) object, with a version: 412 ->
     * the object is missing -> conflict. */
    sds key2 = uniqueKey("missing");
    st = openStore(endpoint, key2, 10000, 5000);
    result m = doWriteStr(st, "{}", "\"d41d8cd98f00b204e9800998ecf8427e\"");
    check(m.status == STORE_CONFLICT, "CAS write on a missing object is CONFLICT", "got %s (%s)",
          statusName(m.status), m.err ? m.err : "");
    resultFree(&m);
    r = storedState(key2);
    check(r.status == STORE_NOT_FOUND, "... and creates nothing", "got %s", statusName(r.status));
    resultFree(&r);
    closeStore(st);
    sdsfree(key);
    sdsfree(key2);
}

static void testBinaryAndLarge(void) {
    sds key = uniqueKey("binary");
    store *st = openStore(endpoint, key, 10000, 5000);
    char bin[256];
    for (int i = 0; i < 256; i++) bin[i] = (char)i;
    result w = doWrite(st, bin, sizeof(bin), NULL);
    check(w.status == STORE_OK, "create with binary data (NUL bytes)", "got %s", statusName(w.status));
    result r = doLoad(st);
    check(r.status == STORE_OK && r.data && sdslen(r.data) == sizeof(bin) && memcmp(r.data, bin, sizeof(bin)) == 0,
          "binary data comes back byte for byte", NULL);
    resultFree(&r);

    size_t big = 4 * 1024 * 1024 + 17;
    char *data = zmalloc(big);
    for (size_t i = 0; i < big; i++) data[i] = (char)('a' + (i * 7919) % 26);
    result w2 = doWrite(st, data, big, w.version);
    check(w2.status == STORE_OK, "CAS write of a 4 MB document", "got %s (%s)", statusName(w2.status),
          w2.err ? w2.err : "");
    r = doLoad(st);
    check(r.status == STORE_OK && r.data && sdslen(r.data) == big && memcmp(r.data, data, big) == 0,
          "the 4 MB document comes back intact", NULL);
    resultFree(&r);
    zfree(data);
    resultFree(&w);
    resultFree(&w2);
    closeStore(st);
    sdsfree(key);
}

/* Two stores (two brokers) write the same version at once: exactly one wins
 * and the document is the winner's. */
static void raceRounds(const char *ep, const char *name, int rounds, const char *proxy_fault) {
    sds key = uniqueKey(name);
    store *a = openStore(ep, key, 10000, 5000);
    store *b = openStore(ep, key, 10000, 5000);
    /* Both writers first make one CAS write each (so both have learnt the
     * server's If-Match form), then race. */
    result c = doWriteStr(a, "{\"round\":0}", NULL);
    result wa = c.status == STORE_OK ? doWriteStr(a, "{\"round\":\"a\"}", c.version) : c;
    result wb = wa.status == STORE_OK ? doWriteStr(b, "{\"round\":\"b\"}", wa.version) : wa;
    sds version = wb.status == STORE_OK && wb.version ? sdsdup(wb.version) : NULL;
    if (!version) printf("    race setup failed\n");
    if (c.status == STORE_OK) {
        if (wa.status == STORE_OK) resultFree(&wb);
        resultFree(&wa);
    }
    resultFree(&c);
    int bad = 0, ok_a = 0, ok_b = 0;
    long applied_before = proxy_fault ? proxyCounter("puts_applied") : 0;
    for (int i = 1; i <= rounds && version; i++) {
        if (proxy_fault) proxySet(proxy_fault);
        sds da = sdscatprintf(sdsempty(), "{\"round\":%d,\"writer\":\"a\"}", i);
        sds db = sdscatprintf(sdsempty(), "{\"round\":%d,\"writer\":\"b\"}", i);
        result ra = {0}, rb = {0};
        in_store_call = 1;
        a->type->write(a, sdsdup(da), version, writeDone, &ra);
        b->type->write(b, sdsdup(db), version, writeDone, &rb);
        in_store_call = 0;
        runUntil(&ra.done, &rb.done);
        int wins = (ra.status == STORE_OK) + (rb.status == STORE_OK);
        int losers_conflict = (ra.status == STORE_OK || ra.status == STORE_CONFLICT) &&
                              (rb.status == STORE_OK || rb.status == STORE_CONFLICT);
        sds winner = ra.status == STORE_OK ? da : db;
        if (wins != 1 || !losers_conflict || !storedEquals(key, winner, sdslen(winner))) {
            bad++;
            printf("    round %d: a=%s (%s) b=%s (%s)\n", i, statusName(ra.status), ra.err ? ra.err : "",
                   statusName(rb.status), rb.err ? rb.err : "");
        }
        ok_a += ra.status == STORE_OK;
        ok_b += rb.status == STORE_OK;
        sdsfree(version);
        version = ra.status == STORE_OK ? sdsdup(ra.version) : rb.status == STORE_OK ? sdsdup(rb.version) : NULL;
        resultFree(&ra);
        resultFree(&rb);
        sdsfree(da);
        sdsfree(db);
    }
    sds n = sdscatprintf(sdsempty(), "%s: %d racing rounds, exactly one winner each, stored = winner's", name, rounds);
    check(bad == 0 && version, n, "%d bad rounds (a won %d, b won %d)", bad, ok_a, ok_b);
    sdsfree(n);
    if (proxy_fault) {
        long applied = proxyCounter("puts_applied") - applied_before;
        check(applied == rounds, "... and exactly one PUT applied per round", "%ld applied for %d rounds", applied,
              rounds);
    }
    printf("    (a won %d, b won %d)\n", ok_a, ok_b);
    sdsfree(version);
    closeStore(a);
    closeStore(b);
    sdsfree(key);
}

/* Many sequential commits: all succeed, the last one is stored. Reports the
 * latency percentiles (not asserted). */
static void sequentialCommits(const char *ep, const char *name, int n) {
    sds key = uniqueKey(name);
    store *st = openStore(ep, key, 30000, 5000);
    result c = doWriteStr(st, "{\"seq\":0}", NULL);
    sds version = c.version ? sdsdup(c.version) : NULL;
    resultFree(&c);
    int bad = 0;
    sds last = sdsempty();
    for (int i = 1; i <= n && version; i++) {
        sdsclear(last);
        last = sdscatprintf(last, "{\"seq\":%d,\"pad\":\"%0200d\"}", i, i);
        result w = doWrite(st, last, sdslen(last), version);
        if (w.status != STORE_OK) {
            bad++;
            printf("    commit %d: %s (%s)\n", i, statusName(w.status), w.err ? w.err : "");
        }
        sdsfree(version);
        version = w.status == STORE_OK ? sdsdup(w.version) : NULL;
        resultFree(&w);
    }
    sds t = sdscatprintf(sdsempty(), "%s: %d sequential CAS commits all OK, last one stored", name, n);
    check(bad == 0 && version && storedEquals(key, last, sdslen(last)), t, "%d failed", bad);
    sdsfree(t);
    sds p50 = infoValue(st, "store_s3_put_latency_p50_ms"), p99 = infoValue(st, "store_s3_put_latency_p99_ms");
    printf("    PUT latency p50 %s ms, p99 %s ms; retries %lld\n", p50, p99, infoField(st, "store_s3_retries"));
    sdsfree(p50);
    sdsfree(p99);
    sdsfree(version);
    sdsfree(last);
    closeStore(st);
    sdsfree(key);
}

/* ------------------------------------------------------------------------
 * Through the fault proxy
 * --------------------------------------------------------------------- */

/* Creates a document through the proxy (no faults) and replaces it once,
 * so that the store has learnt which If-Match form the server accepts and
 * the faults hit real CAS writes. Returns the version; the proxy's counters
 * are reset. */
static sds setupDoc(store *st, const char *data) {
    proxySet("{\"reset\": true}");
    result c = doWriteStr(st, "{\"setup\":true}", NULL);
    result w = {0};
    if (c.status == STORE_OK) w = doWriteStr(st, data, c.version);
    sds v = w.status == STORE_OK && w.version ? sdsdup(w.version) : NULL;
    if (!v)
        printf("    setup failed: create %s (%s), write %s (%s)\n", statusName(c.status), c.err ? c.err : "",
               statusName(w.status), w.err ? w.err : "");
    resultFree(&c);
    resultFree(&w);
    proxySet("{\"reset\": true}");
    return v;
}

/* One fault on one CAS write: the write must be reported OK, be stored, and
 * be applied exactly once. */
static void faultedWrite(const char *name, const char *fault, int create) {
    sds key = uniqueKey(name);
    store *st = openStore(proxy, key, 15000, 2000);
    sds v = NULL;
    if (!create) {
        v = setupDoc(st, "{\"before\":true}");
        if (!v) {
            check(0, name, "setup failed");
            closeStore(st);
            sdsfree(key);
            return;
        }
    }
    if (create) proxySet("{\"reset\": true}");
    proxySet(fault);
    const char *doc = "{\"after\":true,\"fault\":\"injected\"}";
    result w = doWriteStr(st, doc, v);
    /* Let anything the proxy still holds reach the server before counting. */
    proxyWaitForwarded(proxyCounter("puts") - proxyCounter("injected_fail_puts") - proxyCounter("injected_reset_puts") -
                       proxyCounter("injected_rate_limit"));
    long applied = proxyCounter("puts_applied");
    result r = storedState(key);
    int stored = r.status == STORE_OK && r.data && strcmp(r.data, doc) == 0;
    sds t = sdscatprintf(sdsempty(), "%s: reported OK, stored, applied once", name);
    check(w.status == STORE_OK && stored && applied == 1 && w.version && r.version &&
              strcmp(w.version, r.version) == 0,
          t, "status %s (%s), stored=%d, applied=%ld, version %s vs %s", statusName(w.status), w.err ? w.err : "",
          stored, applied, w.version ? w.version : "-", r.version ? r.version : "-");
    sdsfree(t);
    resultFree(&r);

    /* Recovery: once the fault is gone, the next commit goes straight through. */
    proxySet("{\"reset\": true}");
    if (w.status == STORE_OK) {
        result w2 = doWriteStr(st, "{\"after\":2}", w.version);
        t = sdscatprintf(sdsempty(), "%s: the next write succeeds", name);
        check(w2.status == STORE_OK && storedEquals(key, "{\"after\":2}", 11), t, "got %s (%s)",
              statusName(w2.status), w2.err ? w2.err : "");
        sdsfree(t);
        resultFree(&w2);
    }
    resultFree(&w);
    sdsfree(v);
    closeStore(st);
    sdsfree(key);
}

static void testProxyFaults(void) {
    faultedWrite("put delay 100 ms", "{\"put_delay_ms\": 100}", 0);
    faultedWrite("two PUTs answered 503 SlowDown", "{\"fail_puts\": 2, \"fail_status\": 503}", 0);
    faultedWrite("two PUTs answered 500", "{\"fail_puts\": 2, \"fail_status\": 500}", 0);
    faultedWrite("connection reset before forwarding", "{\"reset_puts\": 1}", 0);
    faultedWrite("response dropped after the PUT applied", "{\"drop_puts\": 1}", 0);
    faultedWrite("response dropped twice after the PUT applied", "{\"drop_puts\": 2}", 0);
    faultedWrite("500 after the PUT applied", "{\"error_after_apply\": 1}", 0);
    faultedWrite("create: response dropped after applied", "{\"drop_puts\": 1}", 1);
    faultedWrite("create: response dropped twice", "{\"drop_puts\": 2}", 1);
    faultedWrite("create: 503 then reset", "{\"fail_puts\": 1, \"reset_puts\": 1}", 1);
    faultedWrite("PUT 503 and the re-reads fail for a while", "{\"fail_puts\": 1, \"fail_gets\": 3}", 0);
    faultedWrite("PUT stalled past the request timeout", "{\"stall_puts\": 1, \"stall_ms\": 3000}", 0);

    /* A 3 MB document (sent with Expect: 100-continue) whose response is
     * lost: resolved by re-reading and comparing 3 MB. */
    {
        sds key = uniqueKey("big-dropped");
        store *st = openStore(proxy, key, 15000, 5000);
        sds v = setupDoc(st, "{\"small\":true}");
        size_t big = 3 * 1024 * 1024 + 5;
        char *data = zmalloc(big);
        for (size_t i = 0; i < big; i++) data[i] = (char)('A' + (i * 31) % 26);
        proxySet("{\"drop_puts\": 2}");
        result w = doWrite(st, data, big, v);
        long applied = proxyCounter("puts_applied");
        check(w.status == STORE_OK && applied == 1 && storedEquals(key, data, big),
              "3 MB write through the proxy, response dropped: OK, stored, applied once", "got %s (%s), applied %ld",
              statusName(w.status), w.err ? w.err : "", applied);
        proxySet("{\"reset\": true}");
        resultFree(&w);
        zfree(data);
        sdsfree(v);
        closeStore(st);
        sdsfree(key);
    }

    /* GCS-like rate limit: one write per second per object; the excess gets
     * 503 SlowDown. Every commit still succeeds, each applied once. */
    {
        sds key = uniqueKey("rate-limit");
        store *st = openStore(proxy, key, 15000, 2000);
        sds v = setupDoc(st, "{\"n\":0}");
        proxySet("{\"max_writes_per_sec\": 1}");
        int bad = 0;
        sds doc = sdsempty();
        for (int i = 1; i <= 4 && v; i++) {
            sdsclear(doc);
            doc = sdscatprintf(doc, "{\"n\":%d}", i);
            result w = doWrite(st, doc, sdslen(doc), v);
            bad += w.status != STORE_OK;
            sdsfree(v);
            v = w.status == STORE_OK ? sdsdup(w.version) : NULL;
            resultFree(&w);
        }
        long applied = proxyCounter("puts_applied"), limited = proxyCounter("injected_rate_limit");
        check(bad == 0 && applied == 4 && storedEquals(key, doc, sdslen(doc)),
              "rate limit 1 write/s: 4 commits OK, each applied once, last one stored", "%d failed, %ld applied", bad,
              applied);
        printf("    (%ld PUTs answered 503 SlowDown by the rate limit)\n", limited);
        proxySet("{\"reset\": true}");
        sdsfree(doc);
        sdsfree(v);
        closeStore(st);
        sdsfree(key);
    }

    /* Unknown outcome resolved through the counters in INFO. */
    {
        sds key = uniqueKey("info-unknown");
        store *st = openStore(proxy, key, 15000, 2000);
        sds v = setupDoc(st, "{\"x\":0}");
        proxySet("{\"error_after_apply\": 1}");
        result w = doWriteStr(st, "{\"x\":1}", v);
        check(w.status == STORE_OK && infoField(st, "store_s3_unknown_outcomes") == 1 &&
                  infoField(st, "store_s3_unknown_resolved_applied") == 1,
              "INFO counts the unknown outcome and its resolution", "got %s", statusName(w.status));
        resultFree(&w);
        sdsfree(v);
        closeStore(st);
        sdsfree(key);
    }

    /* A fault that does not stop before the deadline: STORE_ERROR, nothing
     * stored; then recovery. */
    {
        sds key = uniqueKey("persistent-503");
        store *st = openStore(proxy, key, 1500, 1000);
        sds v = setupDoc(st, "{\"before\":true}");
        proxySet("{\"fail_puts\": 100000, \"fail_status\": 503}");
        result w = doWriteStr(st, "{\"after\":true}", v);
        check(w.status == STORE_ERROR && w.err && w.err[0], "PUTs failing past the deadline: STORE_ERROR with a message",
              "got %s", statusName(w.status));
        if (w.err) printf("    error: %s\n", w.err);
        check(storedEquals(key, "{\"before\":true}", 15), "... and the document is unchanged", NULL);
        check(proxyCounter("puts_applied") == 0, "... and nothing was applied", NULL);
        proxySet("{\"reset\": true}");
        result w2 = doWriteStr(st, "{\"after\":true}", v);
        check(w2.status == STORE_OK && storedEquals(key, "{\"after\":true}", 14),
              "... and once the fault stops the same write succeeds", "got %s (%s)", statusName(w2.status),
              w2.err ? w2.err : "");
        resultFree(&w);
        resultFree(&w2);
        sdsfree(v);
        closeStore(st);
        sdsfree(key);
    }

    /* The PUT landed but its response was lost, and the object cannot be
     * re-read before the deadline: an error that says the outcome is
     * unknown (never OK), and the next CAS on the old version conflicts. */
    {
        sds key = uniqueKey("unknown-unresolved");
        store *st = openStore(proxy, key, 1500, 1000);
        sds v = setupDoc(st, "{\"before\":true}");
        proxySet("{\"error_after_apply\": 1, \"fail_gets\": 100000}");
        result w = doWriteStr(st, "{\"after\":true}", v);
        check(w.status == STORE_ERROR && w.err && strstr(w.err, "not confirmed"),
              "unknown outcome unresolved by the deadline: STORE_ERROR saying so", "got %s (%s)",
              statusName(w.status), w.err ? w.err : "");
        if (w.err) printf("    error: %s\n", w.err);
        proxySet("{\"reset\": true}");
        check(storedEquals(key, "{\"after\":true}", 14), "... (the PUT had in fact landed)", NULL);
        result w2 = doWriteStr(st, "{\"after\":2}", v);
        check(w2.status == STORE_CONFLICT, "... so the next write on the old version is CONFLICT", "got %s (%s)",
              statusName(w2.status), w2.err ? w2.err : "");
        resultFree(&w);
        resultFree(&w2);
        sdsfree(v);
        closeStore(st);
        sdsfree(key);
    }

    /* Loads retry too. */
    {
        sds key = uniqueKey("load-retry");
        store *st = openStore(proxy, key, 15000, 2000);
        sds v = setupDoc(st, "{\"loaded\":true}");
        proxySet("{\"fail_gets\": 3}");
        result r = doLoad(st);
        check(r.status == STORE_OK && r.data && strcmp(r.data, "{\"loaded\":true}") == 0,
              "load retries through 503s and returns the document", "got %s (%s)", statusName(r.status),
              r.err ? r.err : "");
        resultFree(&r);
        proxySet("{\"fail_gets\": 100000}");
        store *st2 = openStore(proxy, key, 800, 500);
        r = doLoad(st2);
        check(r.status == STORE_ERROR && r.err, "load failing past the deadline is STORE_ERROR", "got %s",
              statusName(r.status));
        resultFree(&r);
        proxySet("{\"reset\": true}");
        closeStore(st2);
        sdsfree(v);
        closeStore(st);
        sdsfree(key);
    }

    /* Races with a fault on the winner's response. */
    raceRounds(proxy, "race-with-500-after-apply", 10, "{\"error_after_apply\": 1}");
    raceRounds(proxy, "race-with-dropped-response", 10, "{\"drop_puts\": 1}");
    proxySet("{\"reset\": true}");

    /* Realistic object-store latency. */
    proxySet("{\"put_delay_ms\": 100}");
    sequentialCommits(proxy, "commits-via-proxy-100ms", 20);
    proxySet("{\"reset\": true}");
}

/* Closing a store while a write is in flight: no callback, no leak. */
static void testCloseInFlight(void) {
    sds key = uniqueKey("close-in-flight");
    store *st = openStore(endpoint, key, 10000, 5000);
    result r = {0};
    st->type->write(st, sdsnew("{}"), NULL, writeDone, &r);
    event_base_loop(base, EVLOOP_NONBLOCK);
    closeStore(st);
    check(!r.done, "close with a write in flight calls no callback", NULL);
    sdsfree(key);
}

/* A bad URL or missing credentials fail at open. */
static void testOpenErrors(void) {
    store st = {0};
    sds err = NULL;
    server.cfg.s3_endpoint = (char *)endpoint;
    check(s3StoreType.open(&st, "s3://bucket-only", base, &err) == -1 && err, "open rejects s3://bucket without key",
          NULL);
    sdsfree(err);
    err = NULL;
    check(s3StoreType.open(&st, "file:///tmp/x", base, &err) == -1 && err, "open rejects a non-s3 URL", NULL);
    sdsfree(err);
    err = NULL;
    server.cfg.s3_endpoint = "ftp://example";
    check(s3StoreType.open(&st, "s3://b/k", base, &err) == -1 && err, "open rejects a non-http endpoint", NULL);
    sdsfree(err);
}

/* Object URLs: virtual-hosted by default, path-style on request or for IP
 * endpoints, the AWS endpoint derived from the region, keys percent-encoded.
 * (No I/O: open() only prepares.) */
static void checkUrl(const char *ep, const char *region, int path_style, const char *url, const char *want) {
    server.cfg.s3_endpoint = (char *)ep;
    server.cfg.s3_region = (char *)region;
    server.cfg.s3_path_style = path_style;
    store st = {.type = &s3StoreType};
    sds err = NULL;
    int rc = s3StoreType.open(&st, url, base, &err);
    sds got = rc == 0 ? infoValue(&st, "store_s3_object_url") : sdsempty();
    sds name = sdscatprintf(sdsempty(), "object URL for %s on %s%s", url, ep ? ep : "(default endpoint)",
                            path_style ? " (path style)" : "");
    check(rc == 0 && strcmp(got, want) == 0, name, "got '%s' (%s), want '%s'", got, err ? err : "", want);
    if (rc == 0) s3StoreType.close(&st);
    sdsfree(st.location);
    sdsfree(name);
    sdsfree(got);
    sdsfree(err);
}

static void testUrls(void) {
    /* The default endpoint comes from the environment when it is set. */
    unsetenv("AWS_ENDPOINT_URL_S3");
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    checkUrl(NULL, "eu-west-1", 0, "s3://my-bucket/queue.json", "https://my-bucket.s3.eu-west-1.amazonaws.com/queue.json");
    checkUrl(NULL, NULL, 0, "s3://b/q.json", "https://b.s3.us-east-1.amazonaws.com/q.json");
    checkUrl("https://minio.example.com:9000/", "us-east-1", 1, "s3://b/dir/a b+c~.json",
             "https://minio.example.com:9000/b/dir/a%20b%2Bc~.json");
    checkUrl("https://r2.example.com", "auto", 0, "s3://b/k", "https://b.r2.example.com/k");
    checkUrl("http://127.0.0.1:9000", "us-east-1", 0, "s3://b/k", "http://127.0.0.1:9000/b/k");
    checkUrl("http://localhost:9000", "us-east-1", 0, "s3://b/k", "http://localhost:9000/b/k");
}

int main(void) {
    verbose = getenv("S3_TEST_VERBOSE") != NULL;
    endpoint = getenv("S3_ENDPOINT");
    bucket = getenv("S3_BUCKET");
    proxy = getenv("FAULTPROXY");
    if (!endpoint || !bucket || !getenv("AWS_ACCESS_KEY_ID") || !getenv("AWS_SECRET_ACCESS_KEY")) {
        fprintf(stderr, "set S3_ENDPOINT, S3_BUCKET, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY "
                        "(eval \"$(tests/s3/rgw.sh start DIR)\")\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    base = event_base_new();

    testOpenErrors();
    testUrls();
    testBasics();
    testBinaryAndLarge();
    raceRounds(endpoint, "race", 20, NULL);
    sequentialCommits(endpoint, "commits-direct", 100);
    testCloseInFlight();
    if (proxy)
        testProxyFaults();
    else
        printf("# FAULTPROXY not set: proxy tests skipped\n");
    check(reentrant_calls == 0, "no callback ever ran inside load()/write()", "%d did", reentrant_calls);

    event_base_free(base);
    curl_global_cleanup();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
