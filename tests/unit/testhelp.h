/* testhelp.h -- what casq's C unit tests and the fuzzer share: a server
 * started in-process (without main's listening sockets) and "test
 * connections": a real client created on one end of a socketpair, driven
 * through the real read path (libevent -> readQueryFromClient ->
 * processInputBuffer -> processCommand) and write path (beforeSleep ->
 * handleClientsWithPendingWrites), with the test holding the other end.
 *
 * testhelp.c compiles src/server.c itself (with main renamed), so the unit
 * test binary links every server object except build/.../server.o. */
#ifndef CASQ_TESTHELP_H
#define CASQ_TESTHELP_H

#include <stddef.h>

#include "../../src/server.h"

/* Assertion counting shared by the suites written against this header. */
extern int th_failures;
#define TH_CHECK(cond)                                                                           \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            printf("    %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);              \
            th_failures++;                                                                       \
        }                                                                                        \
    } while (0)
/* Compares byte strings and prints both escaped when they differ. */
#define TH_CHECK_BYTES(got, gotlen, want, wantlen) \
    thCheckBytes(__FILE__, __LINE__, (got), (gotlen), (want), (wantlen))
#define TH_CHECK_STR(got, gotlen, want) TH_CHECK_BYTES((got), (gotlen), (want), sizeof(want) - 1)
void thCheckBytes(const char *file, int line, const char *got, size_t gotlen, const char *want, size_t wantlen);

/* Server set-up: the defaults of initServerConfig(), initServer() (event
 * loop, lists, databases, command table with docs) and the commit layer on
 * a document in a fresh temporary directory ($TMPDIR/casq-unit.*); the
 * working directory is left as it was. testStopServer() flushes the commit
 * layer and removes the directory. Both are idempotent. */
void testStartServer(void);
void testStopServer(void);

/* One iteration of the server's loop without sleeping: beforeSleep(), then
 * the libevent callbacks that are ready. */
void testServerStep(void);

/* A connection to the in-process server. */
typedef struct testConn {
    int peer;     /* our end of the socketpair */
    client *c;    /* the server's client; NULL once the server freed it */
    uint64_t id;  /* its CLIENT ID */
    sds in;       /* bytes received from the server, not yet consumed */
    int closed;   /* the server closed the connection (EOF seen) */
} testConn;

testConn *testConnCreate(void);
/* Closes our end and lets the server notice; frees the testConn. */
void testConnFree(testConn *tc);
/* Writes bytes to the server (all of them, running the loop while the
 * socket is full) without waiting for replies. */
void testConnWrite(testConn *tc, const char *buf, size_t len);
/* Runs the loop until `n` complete RESP replies are in tc->in, or the
 * server closed the connection, or `timeout_ms` passed. Returns the number
 * of complete replies buffered. */
int testConnWaitReplies(testConn *tc, int n, int timeout_ms);
/* Runs the loop until the server closed the connection (or the timeout). */
int testConnWaitClosed(testConn *tc, int timeout_ms);
/* Length of the first complete RESP2/RESP3 reply in buf, 0 if incomplete,
 * -1 if buf does not start with a valid reply. */
long testReplyLength(const char *buf, size_t len);
/* Removes and returns the first complete reply from tc->in (NULL if none). */
sds testConnPopReply(testConn *tc);
/* Sends `req`, waits for one reply and returns it (NULL on timeout/close). */
sds testConnCall(testConn *tc, const char *req, size_t len);

/* The arguments the last `unittest-argv` command received: a test command
 * (registered by testStartServer, not part of casq) that records its argv
 * and replies +OK. */
extern sds *th_argv;
extern int th_argc;

#endif
