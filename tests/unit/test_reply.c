/* test_reply.c -- unit tests of reply encoding (networking.c): what each
 * addReply* function puts on the wire in RESP2 and in RESP3, checked byte
 * for byte against Redis's encodings, through a real connection's writer.
 * Also: deferred lengths, error prefixes and sanitising, replies held
 * behind a change that is not durable yet, and the order of replies.
 *
 * int test_reply(void) returns the number of failed assertions. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testhelp.h"

#define S(lit) lit, sizeof(lit) - 1

typedef void replyFn(client *c);

/* Runs fn on a connection speaking `resp`, queues what it produced as one
 * reply block and returns the bytes that arrive (nreplies replies). */
static sds encode(int resp, replyFn *fn, int nreplies) {
    testConn *tc = testConnCreate();
    tc->c->resp = resp;
    fn(tc->c);
    clientCommitReply(tc->c, 0);
    testConnWaitReplies(tc, nreplies, 10000);
    sds out = sdsdup(tc->in);
    testConnFree(tc);
    return out;
}

#define EXPECT(fn, n, want2, want3)                                   \
    do {                                                              \
        sds got_ = encode(2, fn, n);                                  \
        TH_CHECK_STR(got_, sdslen(got_), want2);                      \
        sdsfree(got_);                                                \
        got_ = encode(3, fn, n);                                      \
        TH_CHECK_STR(got_, sdslen(got_), want3);                      \
        sdsfree(got_);                                                \
    } while (0)

static void nulls(client *c) {
    addReplyNull(c);
    addReplyNullArray(c);
    addReplyBulkCString(c, NULL);
}

static void maps(client *c) {
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "a");
    addReplyLongLong(c, 1);
    addReplyBulkCString(c, "b");
    addReplyEmptyArray(c);
}

static void sets(client *c) {
    addReplySetLen(c, 2);
    addReplyBulkCString(c, "x");
    addReplyBulkCString(c, "y");
}

static void doubles(client *c) {
    addReplyDouble(c, 3.5);
    addReplyDouble(c, -0.25);
    addReplyDouble(c, 0);
    addReplyDouble(c, INFINITY);
    addReplyDouble(c, -INFINITY);
}

static void bools(client *c) {
    addReplyBool(c, 1);
    addReplyBool(c, 0);
}

static void verbatim(client *c) { addReplyVerbatim(c, "hello", 5, "txt"); }

static void pushes(client *c) {
    addReplyPushLen(c, 1);
    addReplyBulkCString(c, "p");
}

static void integers(client *c) {
    addReplyLongLong(c, 0);
    addReplyLongLong(c, -1);
    addReplyLongLong(c, LLONG_MAX);
    addReplyLongLong(c, LLONG_MIN);
    addReplyBulkLongLong(c, -12345);
}

static void strings(client *c) {
    addReplyStatus(c, "OK");
    addReplyBulk(c, "a\0\r\nb", 5);
    addReplyBulkCString(c, "");
    addReplyArrayLen(c, 0);
}

static void errors(client *c) {
    addReplyError(c, "plain");
    addReplyError(c, "-NOGROUP no such group");
    addReplyErrorFormat(c, "line1\r\nline2 %d", 7);
    addReplyErrorObject(c, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    addReplyErrorSyntax(c);
    addReplyErrorNotInteger(c);
}

static void deferred(client *c) {
    void *outer = addReplyDeferredLen(c);
    void *m = addReplyDeferredLen(c);
    addReplyBulkCString(c, "k");
    addReplyLongLong(c, 1);
    setDeferredMapLen(c, m, 1);
    void *s = addReplyDeferredLen(c);
    addReplyBulkCString(c, "m");
    setDeferredSetLen(c, s, 1);
    setDeferredArrayLen(c, outer, 2);
}

static void testEncodings(void) {
    EXPECT(nulls, 3, "$-1\r\n*-1\r\n$-1\r\n", "_\r\n_\r\n_\r\n");
    EXPECT(maps, 1, "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n*0\r\n", "%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n*0\r\n");
    EXPECT(sets, 1, "*2\r\n$1\r\nx\r\n$1\r\ny\r\n", "~2\r\n$1\r\nx\r\n$1\r\ny\r\n");
    /* Values whose text is the same in Redis 7.0 (%.17g) and 7.2 (shortest
     * round trip). */
    EXPECT(doubles, 5, "$3\r\n3.5\r\n$5\r\n-0.25\r\n$1\r\n0\r\n$3\r\ninf\r\n$4\r\n-inf\r\n",
           ",3.5\r\n,-0.25\r\n,0\r\n,inf\r\n,-inf\r\n");
    EXPECT(bools, 2, ":1\r\n:0\r\n", "#t\r\n#f\r\n");
    EXPECT(verbatim, 1, "$5\r\nhello\r\n", "=9\r\ntxt:hello\r\n");
    EXPECT(pushes, 1, "*1\r\n$1\r\np\r\n", ">1\r\n$1\r\np\r\n");
    EXPECT(integers, 5, ":0\r\n:-1\r\n:9223372036854775807\r\n:-9223372036854775808\r\n$6\r\n-12345\r\n",
           ":0\r\n:-1\r\n:9223372036854775807\r\n:-9223372036854775808\r\n$6\r\n-12345\r\n");
    EXPECT(strings, 4, "+OK\r\n$5\r\na\0\r\nb\r\n$0\r\n\r\n*0\r\n", "+OK\r\n$5\r\na\0\r\nb\r\n$0\r\n\r\n*0\r\n");
    EXPECT(errors, 6,
           "-ERR plain\r\n-NOGROUP no such group\r\n-ERR line1  line2 7\r\n"
           "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n-ERR syntax error\r\n"
           "-ERR value is not an integer or out of range\r\n",
           "-ERR plain\r\n-NOGROUP no such group\r\n-ERR line1  line2 7\r\n"
           "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n-ERR syntax error\r\n"
           "-ERR value is not an integer or out of range\r\n");
    EXPECT(deferred, 1, "*2\r\n*2\r\n$1\r\nk\r\n:1\r\n*1\r\n$1\r\nm\r\n", "*2\r\n%1\r\n$1\r\nk\r\n:1\r\n~1\r\n$1\r\nm\r\n");
}

/* Through the parser: HELLO switches the encoding of later replies. */
static void testHelloSwitches(void) {
    testConn *tc = testConnCreate();
    sds r = testConnCall(tc, S("HELLO 3\r\n"));
    TH_CHECK(r && r[0] == '%');
    sdsfree(r);
    r = testConnCall(tc, S("XINFO STREAM nokey\r\n"));
    TH_CHECK(r && !strcmp(r, "-ERR no such key\r\n"));
    sdsfree(r);
    r = testConnCall(tc, S("HELLO 2\r\n"));
    TH_CHECK(r && r[0] == '*');
    sdsfree(r);
    r = testConnCall(tc, S("HELLO 4\r\n"));
    TH_CHECK(r && !strcmp(r, "-NOPROTO unsupported protocol version\r\n"));
    sdsfree(r);
    testConnFree(tc);
}

/* A reply that depends on a change that is not durable is held; replies
 * queued after it on the same connection wait behind it, in order. Another
 * connection's independent reply is not held. */
static void testHeldReplies(void) {
    testConn *a = testConnCreate(), *b = testConnCreate();
    uint64_t need = server.change_seq + 1000000;
    addReplyStatus(a->c, "FIRST");
    clientCommitReply(a->c, need);
    addReplyStatus(a->c, "SECOND");
    clientCommitReply(a->c, 0);
    addReplyStatus(b->c, "OTHER");
    clientCommitReply(b->c, 0);
    testConnWaitReplies(b, 1, 10000);
    TH_CHECK_STR(b->in, sdslen(b->in), "+OTHER\r\n");
    for (int i = 0; i < 20; i++) testServerStep();
    testConnWaitReplies(a, 1, 20);
    TH_CHECK(sdslen(a->in) == 0);
    /* Pretend the change was made and its commit landed. */
    server.change_seq = need;
    server.durable_seq = need;
    releaseHeldReplies();
    testConnWaitReplies(a, 2, 10000);
    TH_CHECK_STR(a->in, sdslen(a->in), "+FIRST\r\n+SECOND\r\n");
    testConnFree(a);
    testConnFree(b);
}

int test_reply(void) {
    th_failures = 0;
    testStartServer();
    testEncodings();
    testHelloSwitches();
    testHeldReplies();
    testStopServer();
    return th_failures;
}
