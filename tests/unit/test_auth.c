/* test_auth.c -- the default user's password check (issue 14, fault 12).
 *
 * As Redis, AUTH compares SHA-256 digests in constant time: a wrong guess
 * takes as long whether it shares no byte or all but the last with the
 * password. A plain memcmp() returns at the first differing byte, so with a
 * 1 MB password a guess right up to its last byte took far longer than one
 * wrong from the first (measured here: the best of many runs of each).
 *
 * int test_auth(void) returns the number of failed assertions. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "testhelp.h"

static long long nowNs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The fastest of `runs` checks of guess: noise only ever adds time. */
static long long bestNs(const char *guess, size_t len, int runs) {
    long long best = -1;
    for (int i = 0; i < runs; i++) {
        long long t0 = nowNs();
        int ok = authPasswordMatches(guess, len);
        long long t = nowNs() - t0;
        TH_CHECK(!ok);
        if (best < 0 || t < best) best = t;
    }
    return best;
}

static void testMatches(void) {
    char *saved = server.cfg.requirepass;
    server.cfg.requirepass = NULL;
    TH_CHECK(authPasswordMatches("anything", 8)); /* nopass */
    server.cfg.requirepass = zstrdup("s3cret");
    TH_CHECK(authPasswordMatches("s3cret", 6));
    TH_CHECK(!authPasswordMatches("s3cre", 5));
    TH_CHECK(!authPasswordMatches("s3cret!", 7));
    TH_CHECK(!authPasswordMatches("s3cret\0", 7)); /* binary-safe: the NUL counts */
    TH_CHECK(!authPasswordMatches("S3CRET", 6));
    TH_CHECK(!authPasswordMatches("", 0));
    zfree(server.cfg.requirepass);
    server.cfg.requirepass = saved;
}

static void testConstantTime(void) {
    char *saved = server.cfg.requirepass;
    size_t n = 1 << 20;
    char *pw = zmalloc(n + 1);
    memset(pw, 'p', n);
    pw[n] = '\0';
    server.cfg.requirepass = pw;
    char *near = zmalloc(n), *far = zmalloc(n);
    memcpy(near, pw, n);
    near[n - 1] = 'q'; /* wrong in the last byte only */
    memset(far, 'q', n); /* wrong from the first byte */
    long long t_near = bestNs(near, n, 30), t_far = bestNs(far, n, 30);
    double ratio = (double)t_near / (double)(t_far ? t_far : 1);
    if (ratio > 1.5 || ratio < 1 / 1.5)
        fprintf(stderr, "auth: right-but-last %lld ns vs wrong-from-first %lld ns\n", t_near, t_far);
    TH_CHECK(ratio < 1.5 && ratio > 1 / 1.5);
    zfree(near);
    zfree(far);
    zfree(pw);
    server.cfg.requirepass = saved;
}

int test_auth(void) {
    th_failures = 0;
    testMatches();
    testConstantTime();
    return th_failures;
}
