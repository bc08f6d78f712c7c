/* fuzz_resp.c -- libFuzzer target for the RESP request parser.
 *
 * Each input is written into a real client connection (a socketpair
 * client, testhelp.h) and goes through the server's own read handler,
 * processInputBuffer (inline and multibulk requests, big-argument reads,
 * protocol errors) and the commands it spells, then the connection is
 * closed. The first byte chooses how the input is cut into writes (all at
 * once, or pieces of 1..63 bytes, so requests straddle reads) and whether
 * the connection speaks RESP3.
 *
 * Besides crashes, leaks and undefined behaviour (ASan/UBSan), the target
 * checks what the server sent back: it must be a sequence of well-formed
 * RESP replies. A few commands that would stop or reconfigure the whole
 * process (SHUTDOWN, CONFIG, DEBUG) are removed from the command table;
 * everything else runs, on a document in a temporary directory
 * (TMPDIR=/dev/shm makes its commits cheap).
 *
 *   make fuzz [FUZZ_SECONDS=60]
 *   build/fuzz/fuzz_resp -dict=tests/fuzz/resp.dict build/fuzz/corpus tests/fuzz/corpus */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/testhelp.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long inputs;

static void removeCommand(const char *name) {
    sds n = sdsnew(name);
    /* The row is static data: unlink it from the dict without freeing it. */
    dictEntry *de = dictUnlink(server.commands, n);
    if (de) {
        de->val = NULL;
        sdsfree(de->key);
        de->key = NULL;
        zfree(de);
    }
    sdsfree(n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    testStartServer();
    removeCommand("shutdown");
    removeCommand("config");
    removeCommand("debug");
    return 0;
}

/* Everything the server sent must parse as complete RESP replies, except
 * possibly a last one cut short by a connection that is still open. */
static void checkReplies(const testConn *tc) {
    size_t off = 0, len = sdslen(tc->in);
    while (off < len) {
        long l = testReplyLength(tc->in + off, len - off);
        if (l < 0) {
            sds r = sdscatrepr(sdsempty(), tc->in + off, len - off > 200 ? 200 : len - off);
            fprintf(stderr, "fuzz_resp: malformed reply at offset %zu: %s\n", off, r);
            sdsfree(r);
            abort();
        }
        if (l == 0) {
            if (tc->closed) {
                fprintf(stderr, "fuzz_resp: connection closed in the middle of a reply\n");
                abort();
            }
            return;
        }
        off += (size_t)l;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    size_t piece = (mode & 0x3f) ? (size_t)(mode & 0x3f) : size;
    if (piece == 0) piece = 1;

    testConn *tc = testConnCreate();
    if (mode & 0x40) tc->c->resp = 3;
    for (size_t off = 0; off < size && !tc->closed; off += piece) {
        size_t n = size - off < piece ? size - off : piece;
        testConnWrite(tc, (const char *)data + off, n);
        testServerStep();
    }
    for (int i = 0; i < 4 && !tc->closed; i++) testServerStep();
    testConnWaitReplies(tc, 1 << 30, 0); /* drain what is there */
    checkReplies(tc);
    testConnFree(tc);
    server.shutdown_asap = 0;

    /* Keep the state (and so each commit) small. */
    if (++inputs % 256 == 0) {
        testConn *f = testConnCreate();
        sds r = testConnCall(f, "FLUSHALL\r\n", 10);
        sdsfree(r);
        testConnFree(f);
    }
    return 0;
}
