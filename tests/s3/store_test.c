/* store_test.c -- the S3 store (src/store_s3.c) against a real S3 server.
 *
 * Runs the store in isolation: no casq server, just s3StoreType, a libevent
 * loop and the `server` struct the store reads its settings from. It talks to
 * Ceph RGW directly and through tests/s3/faultproxy.py, and checks outcomes,
 * never timings: a write reported OK is stored, a conflict or error leaves
 * the document as it was, no write is applied twice, the store recovers once
 * a fault stops, and callbacks never run inside load()/write(). The same for
 * segments: create-only puts (CONFLICT on other bytes, OK on the same),
 * get/delete/list, many at once beside a document write, faults on each.
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

/* ------------------------------------------------------------------------
 * Segments
 * --------------------------------------------------------------------- */
typedef struct segResult {
    int done;
    storeStatus status;
    sds data;      /* get: the segment */
    sds err;
    sds *names;    /* list */
    long long *mtimes;
    size_t count;
} segResult;

static void segResultFree(segResult *r) {
    sdsfree(r->data);
    sdsfree(r->err);
    for (size_t i = 0; i < r->count; i++) sdsfree(r->names[i]);
    zfree(r->names);
    zfree(r->mtimes);
    memset(r, 0, sizeof(*r));
}

static void segDone(void *priv, storeStatus status, const char *err) {
    segResult *r = priv;
    if (in_store_call) reentrant_calls++;
    r->done = 1;
    r->status = status;
    r->err = err ? sdsnew(err) : NULL;
}

static void segGetDone(void *priv, storeStatus status, const char *data, size_t len, const char *err) {
    segResult *r = priv;
    if (in_store_call) reentrant_calls++;
    r->done = 1;
    r->status = status;
    r->data = data ? sdsnewlen(data, len) : NULL;
    r->err = err ? sdsnew(err) : NULL;
}

static void segListDone(void *priv, storeStatus status, const char *const *names, const long long *mtimes,
                        size_t count, const char *err) {
    segResult *r = priv;
    if (in_store_call) reentrant_calls++;
    r->done = 1;
    r->status = status;
    r->err = err ? sdsnew(err) : NULL;
    r->count = count;
    r->names = zmalloc(sizeof(sds) * (count ? count : 1));
    r->mtimes = zmalloc(sizeof(long long) * (count ? count : 1));
    for (size_t i = 0; i < count; i++) {
        r->names[i] = sdsnew(names[i]);
        r->mtimes[i] = mtimes[i];
    }
}

static segResult doSegPut(store *st, const char *name, const char *data, size_t len) {
    segResult r = {0};
    in_store_call = 1;
    st->type->seg_put(st, name, sdsnewlen(data, len), segDone, &r);
    in_store_call = 0;
    runUntil(&r.done, NULL);
    return r;
}

static segResult doSegPutStr(store *st, const char *name, const char *data) {
    return doSegPut(st, name, data, strlen(data));
}

static segResult doSegGet(store *st, const char *name) {
    segResult r = {0};
    in_store_call = 1;
    st->type->seg_get(st, name, segGetDone, &r);
    in_store_call = 0;
    runUntil(&r.done, NULL);
    return r;
}

static segResult doSegDel(store *st, const char *name) {
    segResult r = {0};
    in_store_call = 1;
    st->type->seg_del(st, name, segDone, &r);
    in_store_call = 0;
    runUntil(&r.done, NULL);
    return r;
}

static segResult doSegList(store *st) {
    segResult r = {0};
    in_store_call = 1;
    st->type->seg_list(st, segListDone, &r);
    in_store_call = 0;
    runUntil(&r.done, NULL);
    return r;
}

static int segGetEquals(store *st, const char *name, const char *data, size_t len) {
    segResult g = doSegGet(st, name);
    int eq = g.status == STORE_OK && g.data && sdslen(g.data) == len && memcmp(g.data, data, len) == 0;
    segResultFree(&g);
    return eq;
}

/* Index of name in a list result, or -1. */
static long segListFind(const segResult *r, const char *name) {
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->names[i], name) == 0) return (long)i;
    return -1;
}

static void runUntilAll(segResult *rs, int n, int *also) {
    for (;;) {
        int all = also ? *also : 1;
        for (int i = 0; i < n && all; i++) all = rs[i].done;
        if (all) return;
        event_base_loop(base, EVLOOP_ONCE);
    }
}

static long long nowMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void testSegmentsBasics(void) {
    sds key = uniqueKey("segments");
    store *st = openStore(endpoint, key, 10000, 5000);
    long long t0 = nowMs();

    segResult l = doSegList(st);
    check(l.status == STORE_OK && l.count == 0, "segments: list of a store without segments is empty",
          "got %s, %zu names (%s)", statusName(l.status), l.count, l.err ? l.err : "");
    segResultFree(&l);

    segResult p = doSegPutStr(st, "seg-1", "first segment");
    check(p.status == STORE_OK, "segments: put", "got %s (%s)", statusName(p.status), p.err ? p.err : "");
    segResultFree(&p);
    check(segGetEquals(st, "seg-1", "first segment", 13), "segments: get returns the bytes put", NULL);

    /* Where it lives: the object <key>.segments/<name>, readable as such. */
    sds objkey = sdscatprintf(sdsdup(key), ".segments/%s", "seg-1");
    result r = storedState(objkey);
    check(r.status == STORE_OK && r.data && strcmp(r.data, "first segment") == 0,
          "segments: a segment is the object <key>.segments/<name>", "got %s", statusName(r.status));
    resultFree(&r);
    sdsfree(objkey);

    p = doSegPutStr(st, "seg-1", "other bytes");
    check(p.status == STORE_CONFLICT, "segments: put of an existing name with other bytes is CONFLICT",
          "got %s (%s)", statusName(p.status), p.err ? p.err : "");
    segResultFree(&p);
    check(segGetEquals(st, "seg-1", "first segment", 13), "... and leaves the segment unchanged", NULL);
    p = doSegPutStr(st, "seg-1", "first segment");
    check(p.status == STORE_OK, "segments: put of an existing name with the same bytes is OK", "got %s (%s)",
          statusName(p.status), p.err ? p.err : "");
    segResultFree(&p);

    char bin[256];
    for (int i = 0; i < 256; i++) bin[i] = (char)(255 - i);
    p = doSegPut(st, "bin.seg_2", bin, sizeof(bin));
    check(p.status == STORE_OK && segGetEquals(st, "bin.seg_2", bin, sizeof(bin)),
          "segments: binary bytes (NULs) come back byte for byte", "got %s", statusName(p.status));
    segResultFree(&p);
    p = doSegPut(st, "empty", "", 0);
    check(p.status == STORE_OK && segGetEquals(st, "empty", "", 0), "segments: an empty segment", "got %s",
          statusName(p.status));
    segResultFree(&p);
    size_t big = 2 * 1024 * 1024 + 3;
    char *data = zmalloc(big);
    for (size_t i = 0; i < big; i++) data[i] = (char)(i * 131 + 7);
    p = doSegPut(st, "big", data, big);
    check(p.status == STORE_OK && segGetEquals(st, "big", data, big), "segments: a 2 MB segment round trip",
          "got %s (%s)", statusName(p.status), p.err ? p.err : "");
    segResultFree(&p);
    p = doSegPut(st, "big", data, big);
    check(p.status == STORE_OK, "segments: 2 MB put again with the same bytes is OK", "got %s",
          statusName(p.status));
    segResultFree(&p);
    data[big / 2] ^= 1;
    p = doSegPut(st, "big", data, big);
    check(p.status == STORE_CONFLICT, "segments: 2 MB put again with one bit changed is CONFLICT", "got %s",
          statusName(p.status));
    segResultFree(&p);
    zfree(data);

    segResult g = doSegGet(st, "no-such-segment");
    check(g.status == STORE_NOT_FOUND && !g.data, "segments: get of a missing segment is NOT_FOUND", "got %s (%s)",
          statusName(g.status), g.err ? g.err : "");
    segResultFree(&g);

    long long t1 = nowMs();
    l = doSegList(st);
    long i1 = segListFind(&l, "seg-1"), i2 = segListFind(&l, "bin.seg_2");
    check(l.status == STORE_OK && l.count == 4 && i1 >= 0 && i2 >= 0 && segListFind(&l, "empty") >= 0 &&
              segListFind(&l, "big") >= 0,
          "segments: list names every segment, without the prefix", "got %s, %zu names", statusName(l.status),
          l.count);
    /* RGW runs on this machine: its clock is ours, give or take a little. */
    int times_ok = l.count > 0;
    for (size_t i = 0; i < l.count; i++)
        if (l.mtimes[i] < t0 - 60000 || l.mtimes[i] > t1 + 60000) times_ok = 0;
    check(times_ok, "segments: list gives each segment's modification time in unix ms", "first %lld, now %lld",
          l.count ? l.mtimes[0] : 0, t1);
    segResultFree(&l);

    segResult d = doSegDel(st, "seg-1");
    check(d.status == STORE_OK, "segments: delete", "got %s (%s)", statusName(d.status), d.err ? d.err : "");
    segResultFree(&d);
    g = doSegGet(st, "seg-1");
    check(g.status == STORE_NOT_FOUND, "... and the segment is gone", "got %s", statusName(g.status));
    segResultFree(&g);
    d = doSegDel(st, "seg-1");
    check(d.status == STORE_OK, "segments: delete of a missing segment is OK", "got %s (%s)", statusName(d.status),
          d.err ? d.err : "");
    segResultFree(&d);
    p = doSegPutStr(st, "seg-1", "reborn");
    check(p.status == STORE_OK, "segments: a deleted name can be created again", "got %s", statusName(p.status));
    segResultFree(&p);
    const char *names[] = {"seg-1", "bin.seg_2", "empty", "big"};
    for (int i = 0; i < 4; i++) {
        d = doSegDel(st, names[i]);
        segResultFree(&d);
    }
    l = doSegList(st);
    check(l.status == STORE_OK && l.count == 0, "segments: list after deleting them all is empty", "%zu names",
          l.count);
    segResultFree(&l);

    /* The segments are not the document. */
    r = doLoad(st);
    check(r.status == STORE_NOT_FOUND, "segments: putting segments creates no document", "got %s",
          statusName(r.status));
    resultFree(&r);

    p = doSegPutStr(st, "../escape", "x");
    check(p.status == STORE_ERROR && p.err, "segments: an invalid name is an error, no I/O", "got %s",
          statusName(p.status));
    segResultFree(&p);

    check(infoField(st, "store_s3_segment_puts") >= 8 && infoField(st, "store_s3_segment_gets") >= 8 &&
              infoField(st, "store_s3_segment_deletes") == 6 && infoField(st, "store_s3_segment_lists") == 3 &&
              infoField(st, "store_s3_segment_conflicts") == 2 && infoField(st, "store_s3_segment_errors") == 1,
          "segments: INFO counts segment requests, conflicts, errors", "puts %lld gets %lld deletes %lld lists %lld",
          infoField(st, "store_s3_segment_puts"), infoField(st, "store_s3_segment_gets"),
          infoField(st, "store_s3_segment_deletes"), infoField(st, "store_s3_segment_lists"));
    closeStore(st);
    sdsfree(key);
}

/* A document key that XML must escape (& < > ' ") and that SigV4's query
 * encoding must get right (space, +, =): the list's prefix is built from
 * it, and the keys that come back are entity-encoded. */
static void testSegmentsOddKey(void) {
    sds key = uniqueKey("odd & <key> 'q\" +a=b");
    store *st = openStore(endpoint, key, 10000, 5000);
    segResult p = doSegPutStr(st, "s.1", "one");
    segResult p2 = doSegPutStr(st, "s-2", "two");
    segResult l = doSegList(st);
    check(p.status == STORE_OK && p2.status == STORE_OK && l.status == STORE_OK && l.count == 2 &&
              segListFind(&l, "s.1") >= 0 && segListFind(&l, "s-2") >= 0,
          "segments: list under a document key with & < > ' \" space + =", "put %s, list %s, %zu names (%s)",
          statusName(p.status), statusName(l.status), l.count, l.err ? l.err : (p.err ? p.err : ""));
    check(segGetEquals(st, "s-2", "two", 3), "... and get", NULL);
    segResultFree(&p);
    segResultFree(&p2);
    segResultFree(&l);
    closeStore(st);
    sdsfree(key);
}

/* 20 segment puts and a document write, all at once: every one succeeds,
 * at most 16 segment requests are in flight, the rest wait their turn. */
static void concurrentSegments(const char *ep, const char *name, const char *fault, long want_applied) {
    sds key = uniqueKey(name);
    store *st = openStore(ep, key, 15000, 2000);
    result c = doWriteStr(st, "{\"doc\":0}", NULL);
    if (fault) {
        proxySet("{\"reset\": true}");
        proxySet(fault);
    }
    enum { N = 20 };
    segResult rs[N];
    memset(rs, 0, sizeof(rs));
    sds datas[N];
    result w = {0};
    in_store_call = 1;
    st->type->write(st, sdsnew("{\"doc\":1}"), c.version, writeDone, &w);
    for (int i = 0; i < N; i++) {
        char n[32];
        snprintf(n, sizeof(n), "c%02d", i);
        datas[i] = sdscatprintf(sdsempty(), "segment %d of %s", i, key);
        st->type->seg_put(st, n, sdsdup(datas[i]), segDone, &rs[i]);
    }
    in_store_call = 0;
    long long inflight = infoField(st, "store_s3_segment_requests_in_flight"),
              queued = infoField(st, "store_s3_segment_requests_queued");
    runUntilAll(rs, N, &w.done);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        char n[32];
        snprintf(n, sizeof(n), "c%02d", i);
        if (rs[i].status != STORE_OK || !segGetEquals(st, n, datas[i], sdslen(datas[i]))) {
            bad++;
            printf("    %s: %s (%s)\n", n, statusName(rs[i].status), rs[i].err ? rs[i].err : "");
        }
    }
    sds t = sdscatprintf(sdsempty(), "%s: 20 segment puts during a document write: all OK and stored", name);
    check(c.status == STORE_OK && bad == 0, t, "%d bad", bad);
    sdsfree(t);
    t = sdscatprintf(sdsempty(), "%s: ... and the document write OK and stored", name);
    check(w.status == STORE_OK && storedEquals(key, "{\"doc\":1}", 9), t, "got %s (%s)", statusName(w.status),
          w.err ? w.err : "");
    sdsfree(t);
    t = sdscatprintf(sdsempty(), "%s: ... at most 16 segment requests in flight, the rest queued", name);
    check(inflight == 16 && queued == 4 && infoField(st, "store_s3_segment_requests_in_flight") == 0 &&
              infoField(st, "store_s3_segment_requests_queued") == 0,
          t, "in flight %lld, queued %lld", inflight, queued);
    sdsfree(t);
    if (fault) {
        proxyWaitForwarded(proxyCounter("puts") - proxyCounter("injected_fail_puts") -
                           proxyCounter("injected_reset_puts"));
        long applied = proxyCounter("puts_applied");
        t = sdscatprintf(sdsempty(), "%s: ... each PUT applied exactly once", name);
        check(applied == want_applied, t, "%ld applied, want %ld", applied, want_applied);
        sdsfree(t);
        proxySet("{\"reset\": true}");
    }
    for (int i = 0; i < N; i++) {
        segResultFree(&rs[i]);
        sdsfree(datas[i]);
    }
    resultFree(&c);
    resultFree(&w);
    closeStore(st);
    sdsfree(key);
}

/* More segments than one ListObjectsV2 page (1000 keys): the list follows
 * the continuation tokens; puts and deletes queue behind the 16 slots. */
static void testSegmentsManyListed(void) {
    enum { N = 1010 };
    sds key = uniqueKey("segments-many");
    store *st = openStore(endpoint, key, 60000, 10000);
    segResult *rs = zcalloc(sizeof(segResult) * N);
    in_store_call = 1;
    for (int i = 0; i < N; i++) {
        char n[32];
        snprintf(n, sizeof(n), "m%04d", i);
        st->type->seg_put(st, n, sdscatprintf(sdsempty(), "%d", i), segDone, &rs[i]);
    }
    in_store_call = 0;
    runUntilAll(rs, N, NULL);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += rs[i].status != STORE_OK, segResultFree(&rs[i]);
    check(bad == 0, "segments: 1010 puts at once, all OK", "%d failed", bad);
    long long lists_before = infoField(st, "store_s3_segment_lists");
    segResult l = doSegList(st);
    int missing = 0;
    for (int i = 0; i < N && l.status == STORE_OK; i++) {
        char n[32];
        snprintf(n, sizeof(n), "m%04d", i);
        missing += segListFind(&l, n) < 0;
    }
    long long pages = infoField(st, "store_s3_segment_lists") - lists_before;
    check(l.status == STORE_OK && l.count == N && missing == 0 && pages >= 2,
          "segments: list of 1010 follows the continuation token, every name once", "got %s, %zu names, %d missing, "
          "%lld pages (%s)", statusName(l.status), l.count, missing, pages, l.err ? l.err : "");
    segResultFree(&l);

    /* The same list through the proxy, its second page failing twice. */
    if (proxy) {
        store *sp = openStore(proxy, key, 15000, 5000);
        proxySet("{\"reset\": true}");
        proxySet("{\"pass_gets\": 1, \"fail_gets\": 2}");
        l = doSegList(sp);
        long failed_gets = proxyCounter("injected_fail_gets");
        check(l.status == STORE_OK && l.count == N && failed_gets == 2,
              "segments: list whose second page fails twice (503) is retried, every name once",
              "got %s, %zu names, %ld faults (%s)", statusName(l.status), l.count, failed_gets, l.err ? l.err : "");
        segResultFree(&l);
        proxySet("{\"reset\": true}");
        closeStore(sp);
    }

    in_store_call = 1;
    for (int i = 0; i < N; i++) {
        char n[32];
        snprintf(n, sizeof(n), "m%04d", i);
        st->type->seg_del(st, n, segDone, &rs[i]);
    }
    in_store_call = 0;
    runUntilAll(rs, N, NULL);
    bad = 0;
    for (int i = 0; i < N; i++) bad += rs[i].status != STORE_OK, segResultFree(&rs[i]);
    l = doSegList(st);
    check(bad == 0 && l.status == STORE_OK && l.count == 0, "segments: 1010 deletes at once, then the list is empty",
          "%d failed, %zu left", bad, l.count);
    segResultFree(&l);
    zfree(rs);
    closeStore(st);
    sdsfree(key);
}

static int closing_callbacks;
static store *closing_store;

/* A segment callback that closes the store (the caller going away). */
static void segDoneThenClose(void *priv, storeStatus status, const char *data, size_t len, const char *err) {
    segGetDone(priv, status, data, len, err);
    closing_callbacks++;
    if (closing_store) {
        closeStore(closing_store);
        closing_store = NULL;
    }
}

static void onTimer(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    *(int *)arg = 1;
}

/* Runs the loop for ms milliseconds. */
static void runFor(long ms) {
    int fired = 0;
    struct event *t = evtimer_new(base, onTimer, &fired);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    evtimer_add(t, &tv);
    while (!fired) event_base_loop(base, EVLOOP_ONCE);
    event_free(t);
}

/* close() abandons segment ops in flight: no callback, no leak (valgrind).
 * Through the proxy, which holds every PUT and GET for a while, so that the
 * requests are really on the wire when the store closes. */
static void testSegmentsClose(void) {
    sds key = uniqueKey("segments-close");
    store *st = openStore(proxy, key, 10000, 5000);
    proxySet("{\"reset\": true}");
    proxySet("{\"put_delay_ms\": 1500, \"get_delay_ms\": 1500}");
    segResult rs[40];
    memset(rs, 0, sizeof(rs));
    result w = {0};
    st->type->write(st, sdsnew("{}"), NULL, writeDone, &w);
    for (int i = 0; i < 20; i++) {
        char n[32];
        snprintf(n, sizeof(n), "x%d", i);
        st->type->seg_put(st, n, sdsnew("data"), segDone, &rs[i]);
        st->type->seg_get(st, n, segGetDone, &rs[20 + i]);
    }
    segResult l = {0};
    st->type->seg_list(st, segListDone, &l);
    runFor(300);
    long long inflight = infoField(st, "store_s3_segment_requests_in_flight");
    closeStore(st);
    int called = w.done + l.done;
    for (int i = 0; i < 40; i++) called += rs[i].done;
    check(called == 0 && inflight == 16, "segments: close with 16 segment requests in flight calls no callback",
          "%d did, %lld were in flight", called, inflight);
    /* Whatever the loop still had for the store is gone with it. */
    runFor(50);
    for (int i = 0; i < 40; i++) segResultFree(&rs[i]);
    segResultFree(&l);
    resultFree(&w);
    /* The proxy still holds the PUTs: let them through before the counters
     * are reset, or they would count in the next test. */
    proxyWaitForwarded(proxyCounter("puts"));
    proxySet("{\"reset\": true}");
    sdsfree(key);
}

/* A segment callback may close the store while other segment ops run:
 * they are abandoned, and nothing touches the freed store (valgrind). */
static void testSegmentsCloseInCallback(void) {
    sds key = uniqueKey("segments-close-cb");
    store *st = openStore(endpoint, key, 10000, 5000);
    closing_store = st;
    closing_callbacks = 0;
    segResult gs[5];
    memset(gs, 0, sizeof(gs));
    for (int i = 0; i < 5; i++) st->type->seg_get(st, "missing", segDoneThenClose, &gs[i]);
    while (closing_store) event_base_loop(base, EVLOOP_ONCE);
    runFor(200);
    check(closing_callbacks == 1, "segments: a callback may close the store; the other ops are abandoned",
          "%d callbacks", closing_callbacks);
    for (int i = 0; i < 5; i++) segResultFree(&gs[i]);
    sdsfree(key);
}

/* One fault on one segment operation through the proxy. */
static void testSegmentFaults(void) {
    const struct {
        const char *name, *fault;
    } putFaults[] = {
        {"segment PUT answered 503 twice", "{\"fail_puts\": 2, \"fail_status\": 503}"},
        {"segment PUT answered 500", "{\"fail_puts\": 1, \"fail_status\": 500}"},
        {"segment PUT reset before forwarding", "{\"reset_puts\": 1}"},
        {"segment PUT applied, response dropped", "{\"drop_puts\": 1}"},
        {"segment PUT applied, response dropped twice", "{\"drop_puts\": 2}"},
        {"segment PUT applied, then 500", "{\"error_after_apply\": 1}"},
        {"segment PUT stalled past the request timeout", "{\"stall_puts\": 1, \"stall_ms\": 2500}"},
        {"segment PUT applied then 500, the re-read after 412 fails twice", "{\"error_after_apply\": 1, \"fail_gets\": 2}"},
    };
    for (size_t i = 0; i < sizeof(putFaults) / sizeof(putFaults[0]); i++) {
        sds key = uniqueKey("segfault");
        store *st = openStore(proxy, key, 15000, 2000);
        proxySet("{\"reset\": true}");
        proxySet(putFaults[i].fault);
        sds data = sdscatprintf(sdsempty(), "bytes of %s", putFaults[i].name);
        segResult p = doSegPut(st, "s1", data, sdslen(data));
        proxyWaitForwarded(proxyCounter("puts") - proxyCounter("injected_fail_puts") -
                           proxyCounter("injected_reset_puts"));
        long applied = proxyCounter("puts_applied");
        proxySet("{\"reset\": true}");
        sds t = sdscatprintf(sdsempty(), "%s: OK, stored, applied once", putFaults[i].name);
        check(p.status == STORE_OK && applied == 1 && segGetEquals(st, "s1", data, sdslen(data)), t,
              "got %s (%s), applied %ld", statusName(p.status), p.err ? p.err : "", applied);
        sdsfree(t);
        segResultFree(&p);
        sdsfree(data);
        closeStore(st);
        sdsfree(key);
    }

    /* A name taken by other bytes stays a conflict even when the reply of
     * our PUT (a 412) is lost and the PUT is repeated. */
    {
        sds key = uniqueKey("segfault-conflict");
        store *st = openStore(proxy, key, 15000, 2000);
        segResult p = doSegPutStr(st, "s1", "theirs");
        proxySet("{\"reset\": true}");
        proxySet("{\"drop_puts\": 1, \"fail_puts\": 0}");
        segResult q = doSegPutStr(st, "s1", "ours");
        check(p.status == STORE_OK && q.status == STORE_CONFLICT && segGetEquals(st, "s1", "theirs", 6),
              "segment PUT on a taken name, response dropped: CONFLICT, unchanged", "got %s (%s)",
              statusName(q.status), q.err ? q.err : "");
        proxySet("{\"reset\": true}");
        segResultFree(&p);
        segResultFree(&q);
        closeStore(st);
        sdsfree(key);
    }

    /* GET, DELETE, LIST retry through 503s; a drop after a DELETE applied
     * is still OK (deleting again finds nothing, which is success). */
    {
        sds key = uniqueKey("segfault-other");
        store *st = openStore(proxy, key, 15000, 2000);
        segResult p = doSegPutStr(st, "s1", "one");
        segResult p2 = doSegPutStr(st, "s2", "two");
        proxySet("{\"reset\": true}");
        proxySet("{\"fail_gets\": 3}");
        segResult g = doSegGet(st, "s1");
        check(g.status == STORE_OK && g.data && strcmp(g.data, "one") == 0, "segment GET retried through 503s",
              "got %s (%s)", statusName(g.status), g.err ? g.err : "");
        segResultFree(&g);
        proxySet("{\"reset\": true}");
        proxySet("{\"fail_gets\": 2}");
        g = doSegGet(st, "nope");
        check(g.status == STORE_NOT_FOUND, "segment GET of a missing one through 503s: NOT_FOUND", "got %s",
              statusName(g.status));
        segResultFree(&g);
        proxySet("{\"reset\": true}");
        proxySet("{\"fail_gets\": 2}");
        segResult l = doSegList(st);
        check(l.status == STORE_OK && l.count == 2 && segListFind(&l, "s1") >= 0 && segListFind(&l, "s2") >= 0,
              "segment LIST retried through 503s", "got %s, %zu names (%s)", statusName(l.status), l.count,
              l.err ? l.err : "");
        segResultFree(&l);
        proxySet("{\"reset\": true}");
        proxySet("{\"fail_deletes\": 2}");
        segResult d = doSegDel(st, "s1");
        long injected = proxyCounter("injected_fail_deletes");
        segResult g2 = doSegGet(st, "s1");
        check(d.status == STORE_OK && injected == 2 && g2.status == STORE_NOT_FOUND,
              "segment DELETE retried through 503s: OK and gone", "got %s (%s), %ld faults", statusName(d.status),
              d.err ? d.err : "", injected);
        segResultFree(&d);
        segResultFree(&g2);
        proxySet("{\"reset\": true}");
        proxySet("{\"drop_deletes\": 1}");
        d = doSegDel(st, "s2");
        g2 = doSegGet(st, "s2");
        check(d.status == STORE_OK && g2.status == STORE_NOT_FOUND,
              "segment DELETE applied, response dropped: OK and gone", "got %s (%s)", statusName(d.status),
              d.err ? d.err : "");
        segResultFree(&d);
        segResultFree(&g2);
        proxySet("{\"reset\": true}");
        segResultFree(&p);
        segResultFree(&p2);
        closeStore(st);
        sdsfree(key);
    }

    /* Faults that outlast the deadline: STORE_ERROR with a message, for
     * each kind; then recovery. */
    {
        sds key = uniqueKey("segfault-deadline");
        store *st = openStore(proxy, key, 1200, 800);
        proxySet("{\"reset\": true}");
        proxySet("{\"fail_puts\": 100000, \"fail_gets\": 100000, \"fail_deletes\": 100000}");
        segResult p = doSegPutStr(st, "s1", "x");
        segResult g = doSegGet(st, "s1");
        segResult d = doSegDel(st, "s1");
        segResult l = doSegList(st);
        check(p.status == STORE_ERROR && p.err && g.status == STORE_ERROR && g.err && d.status == STORE_ERROR &&
                  d.err && l.status == STORE_ERROR && l.err,
              "segment put/get/delete/list failing past the deadline: STORE_ERROR with a message",
              "put %s get %s del %s list %s", statusName(p.status), statusName(g.status), statusName(d.status),
              statusName(l.status));
        if (p.err) printf("    put: %s\n    list: %s\n", p.err, l.err ? l.err : "");
        check(infoField(st, "store_s3_segment_errors") == 4 && infoField(st, "store_s3_segment_retries") > 0,
              "... counted in INFO", NULL);
        segResultFree(&p);
        segResultFree(&g);
        segResultFree(&d);
        segResultFree(&l);
        proxySet("{\"reset\": true}");
        p = doSegPutStr(st, "s1", "x");
        check(p.status == STORE_OK && segGetEquals(st, "s1", "x", 1), "... and once the fault stops, the put works",
              "got %s (%s)", statusName(p.status), p.err ? p.err : "");
        segResultFree(&p);
        /* The PUT landed but no reply gets through before the deadline:
         * an error saying the segment may exist, never OK. */
        proxySet("{\"error_after_apply\": 100000}");
        p = doSegPutStr(st, "s2", "y");
        check(p.status == STORE_ERROR && p.err && strstr(p.err, "not confirmed"),
              "segment PUT applied but never confirmed: STORE_ERROR saying so", "got %s (%s)", statusName(p.status),
              p.err ? p.err : "");
        proxySet("{\"reset\": true}");
        segResultFree(&p);
        p = doSegPutStr(st, "s2", "y");
        check(p.status == STORE_OK, "... and the same put afterwards is OK (it had landed)", "got %s",
              statusName(p.status));
        segResultFree(&p);
        closeStore(st);
        sdsfree(key);
    }

    /* Concurrency and faults together. 21 PUTs applied: 20 segments and
     * the document. */
    concurrentSegments(proxy, "segments-concurrent-faults",
                       "{\"drop_puts\": 3, \"fail_puts\": 3, \"fail_status\": 500, \"put_delay_ms\": 20}", 21);
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
    testSegmentsBasics();
    testSegmentsOddKey();
    concurrentSegments(endpoint, "segments-concurrent", NULL, 0);
    testSegmentsManyListed();
    testSegmentsCloseInCallback();
    if (proxy) {
        testProxyFaults();
        testSegmentsClose();
        testSegmentFaults();
    } else {
        printf("# FAULTPROXY not set: proxy tests skipped\n");
    }
    check(reentrant_calls == 0, "no callback ever ran inside load()/write() or a segment call", "%d did",
          reentrant_calls);

    event_base_free(base);
    curl_global_cleanup();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
