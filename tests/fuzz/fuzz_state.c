/* fuzz_state.c -- libFuzzer target for the state-document loader
 * (persist.c and every type's fromJSON, docs/state-format.md).
 *
 * Each input is decoded as a root document. Most are refused -- with a
 * message, never a crash, a leak or undefined behaviour (ASan/UBSan). One
 * that is accepted is installed as the server's state, written again as one
 * document with every key inline (what --export-state writes), and that
 * must be accepted in turn, with as many keys: casq never writes a
 * document it would refuse (issue 14, fault 7). Segments named by an input
 * are never found (nothing is fetched), so a root naming one is refused,
 * as a store missing it would make it. An input may go on after a line
 * `#casq-log` with a commit log (docs/state-format.md "The commit log"),
 * replayed onto the root as a load does.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 *   build/fuzz/fuzz_state -dict=tests/fuzz/state.dict build/fuzz/corpus-state tests/fuzz/corpus-state */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/testhelp.h"
#include "../../src/persist.h"
#include "../../src/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Pins of the documents encoded here: far above the commit module's, so a
 * text borrowed by one of them is never taken for the other's. */
static uint64_t pins = (uint64_t)1 << 60;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    testStartServer();
    return 0;
}

/* The installed state as a document with every key inline. */
static sds encodeState(const persistHeader *h) {
    storeDoc *doc = storeDocNew(4096);
    server.doc_pin = ++pins;
    server.doc_pinned = doc;
    persistEncodeInline(doc, h);
    sds flat = storeDocFlatten(doc);
    storeDocFree(doc);
    server.doc_pin = ++pins; /* nothing borrowed any more */
    server.doc_pinned = NULL;
    return flat;
}

#define LOG_MARK "\n#casq-log\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    persistHeader h;
    sds err = NULL;
    const char *log = memmem(data, size, LOG_MARK, strlen(LOG_MARK));
    size_t root_len = log ? (size_t)(log - (const char *)data) : size;
    persistState *ps = persistDecode((const char *)data, root_len, &h, &err);
    if (ps && log) {
        log += strlen(LOG_MARK);
        persistLogStats st;
        if (persistReplayLog(ps, &h, log, size - (size_t)(log - (const char *)data), &st, &err) != C_OK) {
            persistStateFree(ps);
            persistHeaderClear(&h);
            ps = NULL;
        }
    }
    if (!ps) {
        if (!err) {
            fprintf(stderr, "fuzz_state: a refused document without a message\n");
            abort();
        }
        sdsfree(err);
        return 0;
    }
    persistInstall(ps);
    unsigned long long keys = (unsigned long long)dbTotalServerKeyCount();
    sds again = encodeState(&h);

    persistHeader h2;
    sds err2 = NULL;
    persistState *ps2 = persistDecode(again, sdslen(again), &h2, &err2);
    if (!ps2) {
        fprintf(stderr, "fuzz_state: casq refuses the document it wrote: %s\n", err2);
        abort();
    }
    if (persistStateKeys(ps2) != keys) {
        fprintf(stderr, "fuzz_state: %llu keys loaded, %llu written back\n", keys, persistStateKeys(ps2));
        abort();
    }
    persistStateFree(ps2);
    persistHeaderClear(&h2);
    persistHeaderClear(&h);
    sdsfree(again);
    persistInstall(NULL); /* empty again for the next input */
    return 0;
}
