/* test_protocol.c -- unit tests of the RESP request parser (networking.c)
 * through real connections: bytes written into one end of a socketpair are
 * read by the server's own read handler, parsed, executed, and the replies
 * come back through its writer (testhelp.h).
 *
 * The `unittest-argv` test command records the argv the parser produced,
 * so the tests check arguments, not only replies: inline requests (quotes,
 * escapes, CRLF or bare LF), multibulk requests, pipelines, requests cut
 * into one-byte reads, empty requests (*-1, *0), every protocol error and
 * the closing of the connection that follows it, big bulk arguments, and
 * the limits (proto-max-bulk-len, inline size, unauthenticated lengths).
 *
 * int test_protocol(void) returns the number of failed assertions. */
#include <stdio.h>
#include <string.h>

#include "testhelp.h"

#define S(lit) lit, sizeof(lit) - 1

/* Sends req on a fresh connection and expects exactly `want` back. */
static void expectReplies(const char *req, size_t reqlen, const char *want, size_t wantlen, int nreplies) {
    testConn *tc = testConnCreate();
    testConnWrite(tc, req, reqlen);
    testConnWaitReplies(tc, nreplies, 10000);
    TH_CHECK_BYTES(tc->in, sdslen(tc->in), want, wantlen);
    TH_CHECK(!tc->closed);
    testConnFree(tc);
}

/* Sends req and expects `want` (the error) followed by the server closing
 * the connection; then checks that a new connection is served. */
static void expectProtocolError(const char *req, size_t reqlen, const char *want, size_t wantlen) {
    testConn *tc = testConnCreate();
    testConnWrite(tc, req, reqlen);
    TH_CHECK(testConnWaitClosed(tc, 10000));
    TH_CHECK_BYTES(tc->in, sdslen(tc->in), want, wantlen);
    TH_CHECK(tc->c == NULL);
    testConnFree(tc);
    if (server.cfg.requirepass) expectReplies(S("PING\r\n"), S("-NOAUTH Authentication required.\r\n"), 1);
    else expectReplies(S("PING\r\n"), S("+PONG\r\n"), 1);
}

/* The argv of the last unittest-argv equals the n strings given. */
static void checkArgv(int n, const char **want, const size_t *lens) {
    TH_CHECK(th_argc == n);
    if (th_argc != n) return;
    for (int i = 0; i < n; i++) TH_CHECK_BYTES(th_argv[i], sdslen(th_argv[i]), want[i], lens[i]);
}

/* ------------------------------------------------------------------------
 * Inline requests
 * --------------------------------------------------------------------- */

static void testInline(void) {
    expectReplies(S("PING\r\n"), S("+PONG\r\n"), 1);
    expectReplies(S("PING\n"), S("+PONG\r\n"), 1);
    expectReplies(S("ping hello\r\n"), S("$5\r\nhello\r\n"), 1);
    /* Blank lines are skipped, like Redis. */
    expectReplies(S("\r\n\n   \r\nPING\r\n"), S("+PONG\r\n"), 1);

    expectReplies(S("unittest-argv a  b\t'c d' \"e\\x41\\n\\\"\" ''\r\n"), S("+OK\r\n"), 1);
    const char *want[] = {"unittest-argv", "a", "b", "c d", "eA\n\"", ""};
    size_t lens[] = {13, 1, 1, 3, 4, 0};
    checkArgv(6, want, lens);

    /* Single quotes keep backslashes except \' */
    expectReplies(S("unittest-argv 'a\\nb\\'c'\r\n"), S("+OK\r\n"), 1);
    const char *want2[] = {"unittest-argv", "a\\nb'c"};
    size_t lens2[] = {13, 6};
    checkArgv(2, want2, lens2);

    expectProtocolError(S("ECHO \"abc\r\n"), S("-ERR Protocol error: unbalanced quotes in request\r\n"));
    expectProtocolError(S("ECHO \"a\"b\r\n"), S("-ERR Protocol error: unbalanced quotes in request\r\n"));
    expectProtocolError(S("ECHO 'a\r\n"), S("-ERR Protocol error: unbalanced quotes in request\r\n"));

    /* Unknown commands and arity errors are replies, not protocol errors. */
    expectReplies(S("NOSUCH a b\r\nPING\r\n"),
                  S("-ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' \r\n+PONG\r\n"), 2);
    expectReplies(S("ECHO\r\n"), S("-ERR wrong number of arguments for 'echo' command\r\n"), 1);
}

static void testInlineLimits(void) {
    /* Just under 64 KB works; a line over it without a newline is an
     * error as soon as the buffer passes the limit. */
    size_t n = 60000;
    sds req = sdscatlen(sdsnew("ECHO "), "", 0);
    for (size_t i = 0; i < n; i++) req = sdscatlen(req, "x", 1);
    req = sdscat(req, "\r\n");
    sds want = sdscatprintf(sdsempty(), "$%zu\r\n", n);
    for (size_t i = 0; i < n; i++) want = sdscatlen(want, "x", 1);
    want = sdscat(want, "\r\n");
    expectReplies(req, sdslen(req), want, sdslen(want), 1);
    sdsfree(req);
    sdsfree(want);

    sds big = sdsnew("ECHO ");
    for (int i = 0; i < 70 * 1024; i++) big = sdscatlen(big, "y", 1);
    expectProtocolError(big, sdslen(big), S("-ERR Protocol error: too big inline request\r\n"));
    sdsfree(big);
}

/* ------------------------------------------------------------------------
 * Multibulk requests
 * --------------------------------------------------------------------- */

static void testMultibulk(void) {
    expectReplies(S("*1\r\n$4\r\nPING\r\n"), S("+PONG\r\n"), 1);
    expectReplies(S("*3\r\n$13\r\nunittest-argv\r\n$0\r\n\r\n$5\r\na\0b\r\n\r\n"), S("+OK\r\n"), 1);
    const char *want[] = {"unittest-argv", "", "a\0b\r\n"};
    size_t lens[] = {13, 0, 5};
    checkArgv(3, want, lens);

    /* Leading zeros and a '+' are not valid lengths in Redis either: it
     * uses string2ll, which rejects them. */
    expectProtocolError(S("*1\r\n$04\r\nPING\r\n"), S("-ERR Protocol error: invalid bulk length\r\n"));
    expectProtocolError(S("*+1\r\n$4\r\nPING\r\n"), S("-ERR Protocol error: invalid multibulk length\r\n"));

    /* Empty requests are skipped without a reply. */
    expectReplies(S("*0\r\n*-1\r\n*-5\r\nPING\r\n"), S("+PONG\r\n"), 1);

    /* Mixed pipelines keep their order. */
    expectReplies(S("PING\r\n*2\r\n$4\r\nECHO\r\n$1\r\na\r\nECHO b\r\n*1\r\n$4\r\nPING\r\n"),
                  S("+PONG\r\n$1\r\na\r\n$1\r\nb\r\n+PONG\r\n"), 4);
}

static void testMultibulkErrors(void) {
    expectProtocolError(S("*abc\r\n"), S("-ERR Protocol error: invalid multibulk length\r\n"));
    expectProtocolError(S("*2147483648\r\n"), S("-ERR Protocol error: invalid multibulk length\r\n"));
    expectProtocolError(S("*99999999999999999999\r\n"), S("-ERR Protocol error: invalid multibulk length\r\n"));
    expectProtocolError(S("*1\r\n$-1\r\n"), S("-ERR Protocol error: invalid bulk length\r\n"));
    expectProtocolError(S("*1\r\n$abc\r\n"), S("-ERR Protocol error: invalid bulk length\r\n"));
    expectProtocolError(S("*1\r\n$\r\n"), S("-ERR Protocol error: invalid bulk length\r\n"));
    expectProtocolError(S("*1\r\n$536870913\r\n"), S("-ERR Protocol error: invalid bulk length\r\n"));
    expectProtocolError(S("*1\r\nPING\r\n"), S("-ERR Protocol error: expected '$', got 'P'\r\n"));
    expectProtocolError(S("*2\r\n$4\r\nECHO\r\n:5\r\n"), S("-ERR Protocol error: expected '$', got ':'\r\n"));
    /* Commands before the error run; nothing after it does. */
    expectProtocolError(S("PING\r\nECHO x\r\n*1\r\n$x\r\nPING\r\n"),
                        S("+PONG\r\n$1\r\nx\r\n-ERR Protocol error: invalid bulk length\r\n"));

    /* A count line that never ends is capped like an inline request. */
    sds junk = sdsnew("*1");
    for (int i = 0; i < 70 * 1024; i++) junk = sdscatlen(junk, "1", 1);
    expectProtocolError(junk, sdslen(junk), S("-ERR Protocol error: too big mbulk count string\r\n"));
    sdsfree(junk);
    junk = sdsnew("*1\r\n$1");
    for (int i = 0; i < 70 * 1024; i++) junk = sdscatlen(junk, "1", 1);
    expectProtocolError(junk, sdslen(junk), S("-ERR Protocol error: too big bulk count string\r\n"));
    sdsfree(junk);
}

static void testProtoMaxBulkLen(void) {
    long long saved = server.cfg.proto_max_bulk_len;
    server.cfg.proto_max_bulk_len = 1000;
    expectReplies(S("*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n"), S("$3\r\nabc\r\n"), 1);
    expectProtocolError(S("*2\r\n$4\r\nECHO\r\n$1001\r\n"), S("-ERR Protocol error: invalid bulk length\r\n"));
    server.cfg.proto_max_bulk_len = saved;
}

static void testUnauthenticatedLimits(void) {
    char *saved = server.cfg.requirepass;
    server.cfg.requirepass = "secret";
    /* Before AUTH, Redis refuses big requests at once. */
    expectProtocolError(S("*11\r\n"), S("-ERR Protocol error: unauthenticated multibulk length\r\n"));
    expectProtocolError(S("*2\r\n$4\r\nECHO\r\n$16385\r\n"),
                        S("-ERR Protocol error: unauthenticated bulk length\r\n"));
    expectReplies(S("*1\r\n$4\r\nPING\r\n"), S("-NOAUTH Authentication required.\r\n"), 1);
    /* After AUTH the limits are the normal ones. */
    expectReplies(S("AUTH secret\r\n*11\r\n$4\r\nPING\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n"
                    "$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n"),
                  S("+OK\r\n-ERR wrong number of arguments for 'ping' command\r\n"), 2);
    server.cfg.requirepass = saved;
}

/* ------------------------------------------------------------------------
 * Partial reads and big arguments
 * --------------------------------------------------------------------- */

static void testByteByByte(void) {
    static const char req[] = "*3\r\n$13\r\nunittest-argv\r\n$3\r\nfoo\r\n$0\r\n\r\nPING x\r\n*1\r\n$4\r\nPING\r\n";
    testConn *tc = testConnCreate();
    for (size_t i = 0; i < sizeof(req) - 1; i++) {
        testConnWrite(tc, req + i, 1);
        testServerStep();
    }
    testConnWaitReplies(tc, 3, 10000);
    TH_CHECK_STR(tc->in, sdslen(tc->in), "+OK\r\n$1\r\nx\r\n+PONG\r\n");
    const char *want[] = {"unittest-argv", "foo", ""};
    size_t lens[] = {13, 3, 0};
    checkArgv(3, want, lens);
    testConnFree(tc);

    /* No reply at all until the request is complete. */
    tc = testConnCreate();
    testConnWrite(tc, S("*2\r\n$4\r\nECHO\r\n$5\r\nhel"));
    for (int i = 0; i < 20; i++) testServerStep();
    TH_CHECK(testConnWaitReplies(tc, 1, 20) == 0);
    TH_CHECK(sdslen(tc->in) == 0);
    testConnWrite(tc, S("lo\r\n"));
    testConnWaitReplies(tc, 1, 10000);
    TH_CHECK_STR(tc->in, sdslen(tc->in), "$5\r\nhello\r\n");
    testConnFree(tc);
}

static void testBigBulk(void) {
    size_t sizes[] = {PROTO_MBULK_BIG_ARG - 1, PROTO_MBULK_BIG_ARG, PROTO_MBULK_BIG_ARG + 1, 1 << 20, 5 << 20};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        sds arg = sdsnewlen(NULL, n);
        for (size_t i = 0; i < n; i++) arg[i] = (char)(i * 131 + k);
        sds req = sdscatprintf(sdsempty(), "*2\r\n$13\r\nunittest-argv\r\n$%zu\r\n", n);
        req = sdscatlen(req, arg, n);
        req = sdscat(req, "\r\n");
        testConn *tc = testConnCreate();
        /* In odd-sized pieces, so reads end at arbitrary offsets. */
        for (size_t off = 0; off < sdslen(req); off += 7919) {
            size_t len = sdslen(req) - off < 7919 ? sdslen(req) - off : 7919;
            testConnWrite(tc, req + off, len);
            testServerStep();
        }
        testConnWaitReplies(tc, 1, 20000);
        TH_CHECK_STR(tc->in, sdslen(tc->in), "+OK\r\n");
        TH_CHECK(th_argc == 2);
        if (th_argc == 2) TH_CHECK_BYTES(th_argv[1], sdslen(th_argv[1]), arg, n);
        testConnFree(tc);
        sdsfree(arg);
        sdsfree(req);
    }
    /* A big ECHO comes back whole through the writer. */
    size_t n = 3 << 20;
    sds req = sdscatprintf(sdsempty(), "*2\r\n$4\r\nECHO\r\n$%zu\r\n", n);
    size_t hdr = sdslen(req);
    req = sdsMakeRoomFor(req, n + 2);
    memset(req + hdr, 'e', n);
    memcpy(req + hdr + n, "\r\n", 2);
    sdsIncrLen(req, n + 2);
    testConn *tc = testConnCreate();
    testConnWrite(tc, req, sdslen(req));
    testConnWaitReplies(tc, 1, 20000);
    sds want = sdscatprintf(sdsempty(), "$%zu\r\n", n);
    hdr = sdslen(want);
    want = sdsMakeRoomFor(want, n + 2);
    memset(want + hdr, 'e', n);
    memcpy(want + hdr + n, "\r\n", 2);
    sdsIncrLen(want, n + 2);
    TH_CHECK_BYTES(tc->in, sdslen(tc->in), want, sdslen(want));
    testConnFree(tc);
    sdsfree(req);
    sdsfree(want);
}

static void testPipeline(void) {
    /* 10,000 commands in one write, replies in order. */
    sds req = sdsempty(), want = sdsempty();
    for (int i = 0; i < 10000; i++) {
        char num[16];
        int l = snprintf(num, sizeof(num), "%d", i);
        if (i % 2) req = sdscatprintf(req, "ECHO %s\r\n", num);
        else req = sdscatprintf(req, "*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n", l, num);
        want = sdscatprintf(want, "$%d\r\n%s\r\n", l, num);
    }
    expectReplies(req, sdslen(req), want, sdslen(want), 10000);
    sdsfree(req);
    sdsfree(want);
}

static void testQuit(void) {
    /* QUIT replies +OK, closes, and nothing after it runs. */
    testConn *tc = testConnCreate();
    testConnWrite(tc, S("PING\r\nQUIT\r\nPING\r\n"));
    TH_CHECK(testConnWaitClosed(tc, 10000));
    TH_CHECK_STR(tc->in, sdslen(tc->in), "+PONG\r\n+OK\r\n");
    testConnFree(tc);
}

int test_protocol(void) {
    th_failures = 0;
    testStartServer();
    testInline();
    testInlineLimits();
    testMultibulk();
    testMultibulkErrors();
    testProtoMaxBulkLen();
    testUnauthenticatedLimits();
    testByteByByte();
    testBigBulk();
    testPipeline();
    testQuit();
    testStopServer();
    return th_failures;
}
