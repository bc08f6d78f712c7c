/* test_stream.c -- unit tests for the stream data structures: the idtree
 * (B+tree keyed by stream IDs), the JSON helpers, stream entries (append,
 * iterate, delete, trim, Redis's node split rule) and the stream's state
 * document round trip, including hostile documents.
 *
 * int test_stream(void) returns the number of failed assertions and
 * prints one line per failure. Randomised parts use a fixed seed. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/idtree.h"
#include "../../src/jsonutil.h"
#include "../../src/segment.h"
#include "../../src/server.h"
#include "../../src/t_stream.h"

static int ts_failures;

#define TS_ASSERT(cond)                                                                              \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            printf("test_stream: %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);         \
            ts_failures++;                                                                           \
        }                                                                                            \
    } while (0)

static uint64_t ts_rng = 0x9E3779B97F4A7C15ULL;

static uint64_t tsRand(void) {
    ts_rng ^= ts_rng << 13;
    ts_rng ^= ts_rng >> 7;
    ts_rng ^= ts_rng << 17;
    return ts_rng;
}


/* ========================================================================
 * idtree
 * ===================================================================== */

static void testIdtreeRandom(void) {
    idtree t;
    idtreeInit(&t);
    enum { N = 20000 };
    streamID *ref = malloc(sizeof(streamID) * N); /* sorted live keys */
    size_t nref = 0;
    for (int op = 0; op < 60000; op++) {
        streamID id = {tsRand() % 50, tsRand() % 300};
        size_t lo = 0, hi = nref;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (streamCompareID(&ref[mid], &id) < 0) lo = mid + 1;
            else hi = mid;
        }
        int present = lo < nref && streamCompareID(&ref[lo], &id) == 0;
        if (tsRand() % 3 != 0 && nref < N) {
            void *existing = NULL;
            int ins = idtreeInsert(&t, &id, (void *)(uintptr_t)(id.ms * 1000 + id.seq + 1), &existing);
            TS_ASSERT(ins == !present);
            if (present) TS_ASSERT(existing == (void *)(uintptr_t)(id.ms * 1000 + id.seq + 1));
            if (!present) {
                memmove(ref + lo + 1, ref + lo, sizeof(streamID) * (nref - lo));
                ref[lo] = id;
                nref++;
            }
        } else {
            void *old = NULL;
            int rem = idtreeRemove(&t, &id, &old);
            TS_ASSERT(rem == present);
            if (present) {
                TS_ASSERT(old == (void *)(uintptr_t)(id.ms * 1000 + id.seq + 1));
                memmove(ref + lo, ref + lo + 1, sizeof(streamID) * (nref - lo - 1));
                nref--;
            }
        }
        if (op % 5000 == 0) {
            const char *err = idtreeCheck(&t);
            if (err) printf("test_stream: idtree check: %s\n", err);
            TS_ASSERT(err == NULL);
        }
    }
    TS_ASSERT(idtreeSize(&t) == nref);
    TS_ASSERT(idtreeCheck(&t) == NULL);

    /* In-order iteration both ways. */
    idtreeIter it;
    size_t i = 0;
    for (idtreeSeek(&it, &t, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it), i++)
        if (i < nref) TS_ASSERT(streamCompareID(idtreeIterKey(&it), &ref[i]) == 0);
    TS_ASSERT(i == nref);
    i = nref;
    for (idtreeSeek(&it, &t, IDTREE_SEEK_LAST, NULL); idtreeIterValid(&it); idtreeIterPrev(&it)) {
        i--;
        TS_ASSERT(streamCompareID(idtreeIterKey(&it), &ref[i]) == 0);
    }
    TS_ASSERT(i == 0);

    /* Seeks against a linear reference. */
    for (int k = 0; k < 2000; k++) {
        streamID id = {tsRand() % 52, tsRand() % 302};
        size_t ge = 0;
        while (ge < nref && streamCompareID(&ref[ge], &id) < 0) ge++;
        size_t gt = ge;
        while (gt < nref && streamCompareID(&ref[gt], &id) <= 0) gt++;
        idtreeSeek(&it, &t, IDTREE_SEEK_GE, &id);
        TS_ASSERT(ge == nref ? !idtreeIterValid(&it) : streamCompareID(idtreeIterKey(&it), &ref[ge]) == 0);
        idtreeSeek(&it, &t, IDTREE_SEEK_GT, &id);
        TS_ASSERT(gt == nref ? !idtreeIterValid(&it) : streamCompareID(idtreeIterKey(&it), &ref[gt]) == 0);
        idtreeSeek(&it, &t, IDTREE_SEEK_LT, &id);
        TS_ASSERT(ge == 0 ? !idtreeIterValid(&it) : streamCompareID(idtreeIterKey(&it), &ref[ge - 1]) == 0);
        idtreeSeek(&it, &t, IDTREE_SEEK_LE, &id);
        TS_ASSERT(gt == 0 ? !idtreeIterValid(&it) : streamCompareID(idtreeIterKey(&it), &ref[gt - 1]) == 0);
        void *v = idtreeFind(&t, &id);
        TS_ASSERT((v != NULL) == (ge < gt));
    }

    /* Drain completely. */
    for (size_t k = 0; k < nref; k++) TS_ASSERT(idtreeRemove(&t, &ref[k], NULL) == 1);
    TS_ASSERT(idtreeSize(&t) == 0 && t.root == NULL && idtreeNodeCount(&t) == 0);
    idtreeClear(&t, NULL);
    free(ref);
}

static void testIdtreeAppendShape(void) {
    /* Sequential appends fill nodes completely; removing from the head
     * frees them. */
    idtree t;
    idtreeInit(&t);
    for (uint64_t i = 1; i <= 64 * 64 * 3; i++) {
        streamID id = {i, 0};
        idtreeInsert(&t, &id, (void *)(uintptr_t)i, NULL);
    }
    TS_ASSERT(idtreeCheck(&t) == NULL);
    TS_ASSERT(idtreeNodeCount(&t) <= 64 * 3 + 3 + 1 + 1);
    for (uint64_t i = 1; i <= 64 * 64 * 3 - 10; i++) {
        streamID id = {i, 0};
        TS_ASSERT(idtreeRemove(&t, &id, NULL));
    }
    TS_ASSERT(idtreeCheck(&t) == NULL);
    TS_ASSERT(idtreeSize(&t) == 10);
    TS_ASSERT(idtreeNodeCount(&t) == 1);
    idtreeClear(&t, NULL);

    /* A small tree is small. */
    idtreeInit(&t);
    streamID one = {1, 1};
    idtreeInsert(&t, &one, (void *)1, NULL);
    TS_ASSERT(idtreeMemoryUsage(&t) <= 160);
    idtreeClear(&t, NULL);
}

/* ========================================================================
 * JSON helpers
 * ===================================================================== */

static void testJsonUtil(void) {
    TS_ASSERT(jsonIsPlainText((const unsigned char *)"hello", 5));
    TS_ASSERT(jsonIsPlainText((const unsigned char *)"\xc3\xa9t\xc3\xa9", 5));       /* été */
    TS_ASSERT(jsonIsPlainText((const unsigned char *)"\xf0\x9f\x98\x80", 4));        /* emoji */
    TS_ASSERT(!jsonIsPlainText((const unsigned char *)"a\0b", 3));                   /* NUL */
    TS_ASSERT(!jsonIsPlainText((const unsigned char *)"\xc3", 1));                   /* truncated */
    TS_ASSERT(!jsonIsPlainText((const unsigned char *)"\xc0\xaf", 2));               /* overlong */
    TS_ASSERT(!jsonIsPlainText((const unsigned char *)"\xed\xa0\x80", 3));           /* surrogate */
    TS_ASSERT(!jsonIsPlainText((const unsigned char *)"\xf4\x90\x80\x80", 4));       /* > U+10FFFF */
    TS_ASSERT(!jsonIsPlainText((const unsigned char *)"\xff", 1));

    sds s = jsonCatString(sdsempty(), "a\"b\\c\n\x01", 7);
    TS_ASSERT(strcmp(s, "\"a\\\"b\\\\c\\n\\u0001\"") == 0);
    sdsfree(s);

    /* base64 round trips of every length. */
    for (int len = 0; len < 70; len++) {
        unsigned char buf[70];
        for (int i = 0; i < len; i++) buf[i] = (unsigned char)tsRand();
        sds e = base64Encode(sdsempty(), buf, (size_t)len);
        TS_ASSERT(sdslen(e) == (size_t)(len + 2) / 3 * 4);
        sds d = base64Decode(e, sdslen(e));
        TS_ASSERT(d && sdslen(d) == (size_t)len && memcmp(d, buf, (size_t)len) == 0);
        sdsfree(e);
        sdsfree(d);
    }
    TS_ASSERT(base64Decode("abc", 3) == NULL);
    TS_ASSERT(base64Decode("a=bc", 4) == NULL);
    TS_ASSERT(base64Decode("ab=c", 4) == NULL);
    TS_ASSERT(base64Decode("ab!c", 4) == NULL);
    TS_ASSERT(base64Decode("AB==", 4) == NULL); /* stray bits */

    /* Byte strings survive JSON and cJSON, text stays text. */
    const char *samples[] = {"plain", "", "tab\there", "nul\0inside", "\xff\xfe binary", "\xe2\x82\xac euro"};
    size_t lens[] = {5, 0, 8, 10, 9, 7};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        sds j = jsonCatBytes(sdsempty(), samples[k], lens[k]);
        cJSON *item = cJSON_Parse(j);
        TS_ASSERT(item != NULL);
        sds back = NULL, err = NULL;
        TS_ASSERT(jsonGetBytes(item, &back, "x", &err) == C_OK);
        TS_ASSERT(back && sdslen(back) == lens[k] && memcmp(back, samples[k], lens[k]) == 0);
        int is_text = j[0] == '"';
        TS_ASSERT(is_text == jsonIsPlainText((const unsigned char *)samples[k], lens[k]));
        sdsfree(back);
        sdsfree(err);
        sdsfree(j);
        cJSON_Delete(item);
    }

    /* Counters above 2^53 are strings. */
    sds u = jsonCatU64(sdsempty(), 18446744073709551615ULL);
    TS_ASSERT(strcmp(u, "\"18446744073709551615\"") == 0);
    cJSON *ui = cJSON_Parse(u);
    uint64_t v = 0;
    sds err = NULL;
    TS_ASSERT(jsonGetU64(ui, &v, "x", &err) == C_OK && v == 18446744073709551615ULL);
    cJSON_Delete(ui);
    sdsfree(u);
    cJSON *bad = cJSON_Parse("1.5");
    TS_ASSERT(jsonGetU64(bad, &v, "x", &err) == C_ERR);
    sdsfree(err);
    cJSON_Delete(bad);

    streamID id;
    TS_ASSERT(streamIDFromString("1-2", 3, &id) && id.ms == 1 && id.seq == 2);
    TS_ASSERT(!streamIDFromString("1", 1, &id));
    TS_ASSERT(!streamIDFromString("01-2", 4, &id));
    TS_ASSERT(!streamIDFromString("1--2", 4, &id));
    TS_ASSERT(!streamIDFromString("18446744073709551616-0", 22, &id));
}

/* ========================================================================
 * Streams
 * ===================================================================== */

typedef struct tsEntry {
    streamID id;
    int nf;
    sds fv[6];
} tsEntry;

static sds tsRandomString(void) {
    int kind = (int)(tsRand() % 5);
    char buf[64];
    size_t len = (size_t)(tsRand() % 20);
    for (size_t i = 0; i < len; i++) {
        if (kind == 0) buf[i] = (char)(tsRand() & 0xFF); /* binary, NULs included */
        else buf[i] = (char)('a' + tsRand() % 26);
    }
    if (kind == 1) return sdsfromlonglong((long long)(tsRand() % 100000) - 500);
    return sdsnewlen(buf, len);
}

static void tsFreeEntry(tsEntry *e) {
    for (int i = 0; i < e->nf * 2; i++) sdsfree(e->fv[i]);
}

/* Compares a range read through the iterator with the reference. */
static void tsCheckRange(stream *s, tsEntry *ref, size_t nref, const streamID *start, const streamID *end, int rev) {
    streamIterator si;
    streamIteratorStart(&si, s, start, end, rev);
    size_t i = rev ? nref : 0;
    streamID id;
    int64_t nf;
    int ok = 1;
    while (streamIteratorGetID(&si, &id, &nf)) {
        /* Next reference entry within the range. */
        for (;;) {
            if (rev ? i == 0 : i == nref) {
                ok = 0;
                break;
            }
            tsEntry *e = &ref[rev ? i - 1 : i];
            int in = (!start || streamCompareID(&e->id, start) >= 0) && (!end || streamCompareID(&e->id, end) <= 0);
            if (in) break;
            rev ? i-- : i++;
        }
        if (!ok) break;
        tsEntry *e = &ref[rev ? --i : i++];
        if (streamCompareID(&id, &e->id) != 0 || nf != e->nf) {
            ok = 0;
            break;
        }
        for (int k = 0; k < nf; k++) {
            const unsigned char *f, *v;
            size_t fl, vl;
            streamIteratorGetField(&si, &f, &fl, &v, &vl);
            if (fl != sdslen(e->fv[2 * k]) || memcmp(f, e->fv[2 * k], fl) || vl != sdslen(e->fv[2 * k + 1]) ||
                memcmp(v, e->fv[2 * k + 1], vl))
                ok = 0;
        }
    }
    /* Nothing in range may be left over. */
    while (ok && (rev ? i > 0 : i < nref)) {
        tsEntry *e = &ref[rev ? --i : i++];
        int in = (!start || streamCompareID(&e->id, start) >= 0) && (!end || streamCompareID(&e->id, end) <= 0);
        if (in) ok = 0;
    }
    streamIteratorStop(&si);
    TS_ASSERT(ok);
}

static sds tsStreamJSON(stream *s) { return streamCatJSON(sdsempty(), s); }

/* JSON round trip: the reloaded stream writes the same document. */
static void tsCheckRoundTrip(stream *s) {
    sds j1 = tsStreamJSON(s);
    cJSON *doc = cJSON_Parse(j1);
    TS_ASSERT(doc != NULL);
    sds err = NULL;
    stream *s2 = streamFromJSON(doc, &err);
    if (!s2) printf("test_stream: reload failed: %s\n", err ? err : "?");
    TS_ASSERT(s2 != NULL);
    if (s2) {
        sds j2 = tsStreamJSON(s2);
        TS_ASSERT(strcmp(j1, j2) == 0);
        sdsfree(j2);
        freeStream(s2);
    }
    sdsfree(err);
    cJSON_Delete(doc);
    sdsfree(j1);
}

static void testStreamEntries(void) {
    stream *s = streamNew();
    enum { N = 3000 };
    tsEntry *ref = calloc(N, sizeof(tsEntry));
    size_t nref = 0;
    streamID last = {0, 0};
    sds samef[3] = {sdsnew("f1"), sdsnew("f2"), sdsnew("f3")};
    for (int i = 0; i < N; i++) {
        tsEntry *e = &ref[nref];
        e->nf = 1 + (int)(tsRand() % 3);
        int same = tsRand() % 2;
        for (int k = 0; k < e->nf; k++) {
            e->fv[2 * k] = same ? sdsdup(samef[k]) : tsRandomString();
            e->fv[2 * k + 1] = tsRandomString();
        }
        streamID id = last;
        if (tsRand() % 4 == 0) {
            id.ms += 1 + tsRand() % 1000;
            id.seq = tsRand() % 3;
        } else {
            id.seq += 1 + tsRand() % 2;
        }
        streamID added;
        TS_ASSERT(streamAppendItem(s, e->fv, e->nf, &added, &id, 1) == C_OK);
        TS_ASSERT(streamCompareID(&added, &id) == 0);
        e->id = id;
        last = id;
        nref++;
        /* Appending at or below the top fails. */
        if (i % 500 == 0) TS_ASSERT(streamAppendItem(s, e->fv, e->nf, NULL, &id, 1) == C_ERR);
        if (i % 700 == 0) tsCheckRoundTrip(s); /* refresh caches mid-way */
    }
    TS_ASSERT(s->length == nref);
    TS_ASSERT(idtreeCheck(&s->nodes) == NULL);
    tsCheckRange(s, ref, nref, NULL, NULL, 0);
    tsCheckRange(s, ref, nref, NULL, NULL, 1);
    for (int k = 0; k < 50; k++) {
        streamID a = ref[tsRand() % nref].id, b = ref[tsRand() % nref].id;
        if (tsRand() % 2) a.seq++;
        if (streamCompareID(&a, &b) > 0) {
            streamID t = a;
            a = b;
            b = t;
        }
        tsCheckRange(s, ref, nref, &a, &b, (int)(tsRand() % 2));
    }
    tsCheckRoundTrip(s);

    /* Random deletes. */
    for (int k = 0; k < 400 && nref; k++) {
        size_t pos = tsRand() % nref;
        TS_ASSERT(streamDeleteItem(s, &ref[pos].id) == 1);
        TS_ASSERT(streamDeleteItem(s, &ref[pos].id) == 0);
        TS_ASSERT(!streamEntryExists(s, &ref[pos].id));
        tsFreeEntry(&ref[pos]);
        memmove(ref + pos, ref + pos + 1, sizeof(tsEntry) * (nref - pos - 1));
        nref--;
    }
    TS_ASSERT(s->length == nref);
    for (int k = 0; k < 30; k++) {
        size_t p = tsRand() % nref;
        TS_ASSERT(streamEntryExists(s, &ref[p].id));
    }
    tsCheckRange(s, ref, nref, NULL, NULL, 0);
    tsCheckRange(s, ref, nref, NULL, NULL, 1);
    /* first_id is kept by XDEL/XTRIM; after raw deletes fix it for the
     * round trip. */
    s->first_id = ref[0].id;
    tsCheckRoundTrip(s);

    /* Exact trims: by length, then by ID. */
    int64_t removed = streamTrimByLength(s, (long long)nref - 123, 0);
    TS_ASSERT(removed == 123);
    for (size_t k = 0; k < 123; k++) tsFreeEntry(&ref[k]);
    memmove(ref, ref + 123, sizeof(tsEntry) * (nref - 123));
    nref -= 123;
    TS_ASSERT(s->length == nref && streamCompareID(&s->first_id, &ref[0].id) == 0);
    streamID minid = ref[200].id;
    removed = streamTrimByID(s, minid, 0);
    TS_ASSERT(removed == 200);
    for (size_t k = 0; k < 200; k++) tsFreeEntry(&ref[k]);
    memmove(ref, ref + 200, sizeof(tsEntry) * (nref - 200));
    nref -= 200;
    TS_ASSERT(streamCompareID(&s->first_id, &ref[0].id) == 0);
    tsCheckRange(s, ref, nref, NULL, NULL, 0);
    tsCheckRoundTrip(s);

    TS_ASSERT(streamTrimByLength(s, 0, 0) == (int64_t)nref);
    TS_ASSERT(s->length == 0 && streamIDEqZero(&s->first_id) && idtreeSize(&s->nodes) == 0);
    for (size_t k = 0; k < nref; k++) tsFreeEntry(&ref[k]);
    tsCheckRoundTrip(s);
    for (int k = 0; k < 3; k++) sdsfree(samef[k]);
    free(ref);
    freeStream(s);
}

/* Redis's node split rule and what "~" removes, checked against numbers
 * observed on redis-server with default settings (100 entries / 4096
 * bytes per node). */
static void testStreamNodesLikeRedis(void) {
    stream *s = streamNew();
    sds fv[2] = {sdsnew("f"), NULL};
    for (int i = 1; i <= 1000; i++) {
        fv[1] = sdscatprintf(sdsempty(), "%016d", i);
        streamID id = {(uint64_t)i, 0};
        streamAppendItem(s, fv, 1, NULL, &id, 1);
        sdsfree(fv[1]);
    }
    TS_ASSERT(idtreeSize(&s->nodes) == 10); /* XINFO radix-tree-keys */
    TS_ASSERT(streamTrimByLength(s, 550, 1) == 400);
    TS_ASSERT(s->length == 600);
    TS_ASSERT(streamTrimByLength(s, 550, 0) == 50);
    streamID minid = {700, 0};
    /* Nodes 451..500 and 501..600 end below 700-0; 601..700 does not. */
    TS_ASSERT(streamTrimByID(s, minid, 1) == 150);
    TS_ASSERT(s->length == 400);
    freeStream(s);

    /* Large values: the byte limit starts new nodes. */
    s = streamNew();
    for (int i = 1; i <= 20; i++) {
        fv[1] = sdsnewlen(NULL, 1000);
        memset(fv[1], 'x', 1000);
        streamID id = {(uint64_t)i, 0};
        streamAppendItem(s, fv, 1, NULL, &id, 1);
        sdsfree(fv[1]);
    }
    /* 4 entries of ~1000 bytes per 4096-byte listpack (as redis-server). */
    TS_ASSERT(idtreeSize(&s->nodes) == 5);
    freeStream(s);
    sdsfree(fv[0]);
}

static void testStreamGroupsRoundTrip(void) {
    stream *s = streamNew();
    sds fv[2] = {sdsnew("job"), sdsnew("x")};
    for (int i = 1; i <= 50; i++) {
        streamID id = {(uint64_t)i, 0};
        streamAppendItem(s, fv, 1, NULL, &id, 1);
    }
    streamID zero = {0, 0}, ten = {10, 0};
    streamCG *g1 = streamCreateCG(s, "zeta", 4, &zero, SCG_INVALID_ENTRIES_READ);
    streamCG *g2 = streamCreateCG(s, "alpha\0bin", 9, &ten, 10);
    TS_ASSERT(g1 && g2);
    TS_ASSERT(streamCreateCG(s, "zeta", 4, &zero, 0) == NULL);
    TS_ASSERT(s->num_cgroups == 2 && s->cgroups[0] == g2); /* name order */
    sds n1 = sdsnew("worker-1"), n2 = sdsnewlen("w\xff", 2);
    streamConsumer *c1 = streamCreateConsumer(g1, n1), *c2 = streamCreateConsumer(g1, n2);
    TS_ASSERT(c1 && c2 && streamCreateConsumer(g1, n1) == NULL);
    for (int i = 1; i <= 20; i++) {
        streamID id = {(uint64_t)i, 0};
        streamConsumer *owner = i % 3 ? c1 : c2;
        streamNACK *nack = streamCreateNACK(owner);
        nack->delivery_time = 1700000000000LL + i;
        nack->delivery_count = (uint64_t)i;
        idtreeInsert(&g1->pel, &id, nack, NULL);
        idtreeInsert(&owner->pel, &id, nack, NULL);
    }
    g1->last_id.ms = 20;
    tsCheckRoundTrip(s);

    /* Deleting a consumer drops its pending entries from the group. */
    size_t before = idtreeSize(&g1->pel), owned = idtreeSize(&c2->pel);
    streamDelConsumer(g1, c2);
    TS_ASSERT(idtreeSize(&g1->pel) == before - owned);
    tsCheckRoundTrip(s);
    sdsfree(n1);
    sdsfree(n2);
    sdsfree(fv[0]);
    sdsfree(fv[1]);
    freeStream(s);
}

/* COPY's deep copy: same document, same node layout, shared NACKs between
 * group and consumer PELs in the copy, nothing shared with the source. */
static void testStreamDup(void) {
    stream *s = streamNew();
    sds fv[2] = {sdsnew("job"), sdsnew("payload")};
    for (int i = 1; i <= 350; i++) {
        streamID id = {(uint64_t)i, 0};
        streamAppendItem(s, fv, 1, NULL, &id, 1);
    }
    streamID del = {5, 0};
    streamDeleteItem(s, &del);
    streamID zero = {0, 0};
    streamCG *g = streamCreateCG(s, "grp", 3, &zero, 0);
    sds name = sdsnew("alice");
    streamConsumer *c = streamCreateConsumer(g, name);
    c->active_time = 1700000000123LL;
    for (int i = 1; i <= 10; i++) {
        streamID id = {(uint64_t)i, 0};
        streamNACK *nack = streamCreateNACK(c);
        nack->delivery_time = 1700000000000LL + i;
        nack->delivery_count = (uint64_t)i;
        idtreeInsert(&g->pel, &id, nack, NULL);
        idtreeInsert(&c->pel, &id, nack, NULL);
    }

    stream *d = streamDup(s);
    sds js = tsStreamJSON(s), jd = tsStreamJSON(d);
    TS_ASSERT(sdslen(js) == sdslen(jd) && memcmp(js, jd, sdslen(js)) == 0);
    TS_ASSERT(idtreeSize(&d->nodes) == idtreeSize(&s->nodes));
    TS_ASSERT(d->num_cgroups == 1 && d->cgroups[0] != g);
    streamCG *dg = d->cgroups[0];
    streamConsumer *dc = dg->consumers[0];
    TS_ASSERT(dc != c && dc->active_time == c->active_time && dc->seen_time == c->seen_time);
    streamID one = {1, 0};
    streamNACK *dn = idtreeFind(&dg->pel, &one);
    TS_ASSERT(dn && dn != idtreeFind(&g->pel, &one) && dn == idtreeFind(&dc->pel, &one) && dn->consumer == dc);
    /* The copy is no bigger than the source (it has no growth slack, as
     * Redis's lpDup), and sampling every node or a few gives close figures. */
    TS_ASSERT(streamObjectComputeSize(d, LLONG_MAX) <= streamObjectComputeSize(s, LLONG_MAX));
    TS_ASSERT(streamObjectComputeSize(d, LLONG_MAX) > streamObjectComputeSize(s, LLONG_MAX) / 2);
    size_t all = streamObjectComputeSize(s, LLONG_MAX), few = streamObjectComputeSize(s, 1);
    TS_ASSERT(few > all / 2 && few < all * 2);

    /* Changing the copy leaves the source as it was. */
    streamDelConsumer(dg, dc);
    streamTrimByLength(d, 10, 0);
    sds js2 = tsStreamJSON(s);
    TS_ASSERT(sdslen(js) == sdslen(js2) && memcmp(js, js2, sdslen(js)) == 0);
    freeStream(d);
    sds js3 = tsStreamJSON(s);
    TS_ASSERT(sdslen(js) == sdslen(js3) && memcmp(js, js3, sdslen(js)) == 0);
    sdsfree(js);
    sdsfree(jd);
    sdsfree(js2);
    sdsfree(js3);
    sdsfree(name);
    sdsfree(fv[0]);
    sdsfree(fv[1]);
    freeStream(s);
}

/* Documents that must be refused (with a message, without crashing). */
static void testStreamHostileJSON(void) {
    const char *bad[] = {
        "[]",
        "{}",
        "{\"length\":0,\"last_id\":\"0-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":0,"
        "\"entries\":{},\"groups\":[]}",
        /* length mismatch */
        "{\"length\":2,\"last_id\":\"5-0\",\"first_id\":\"1-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":2,"
        "\"entries\":[[\"1-0\",\"f\",\"v\"]],\"groups\":[]}",
        /* decreasing IDs */
        "{\"length\":2,\"last_id\":\"5-0\",\"first_id\":\"2-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":2,"
        "\"entries\":[[\"2-0\",\"f\",\"v\"],[\"1-0\",\"f\",\"v\"]],\"groups\":[]}",
        /* entry above last_id */
        "{\"length\":1,\"last_id\":\"1-0\",\"first_id\":\"2-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[[\"2-0\",\"f\",\"v\"]],\"groups\":[]}",
        /* 0-0 entry */
        "{\"length\":1,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[[\"0-0\",\"f\",\"v\"]],\"groups\":[]}",
        /* field without value */
        "{\"length\":1,\"last_id\":\"1-0\",\"first_id\":\"1-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[[\"1-0\",\"f\"]],\"groups\":[]}",
        /* bad base64 */
        "{\"length\":1,\"last_id\":\"1-0\",\"first_id\":\"1-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[[\"1-0\",{\"base64\":\"@@@@\"},\"v\"]],\"groups\":[]}",
        /* first_id wrong */
        "{\"length\":1,\"last_id\":\"1-0\",\"first_id\":\"0-5\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[[\"1-0\",\"f\",\"v\"]],\"groups\":[]}",
        /* entries_added < length */
        "{\"length\":1,\"last_id\":\"1-0\",\"first_id\":\"1-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":0,"
        "\"entries\":[[\"1-0\",\"f\",\"v\"]],\"groups\":[]}",
        /* malformed IDs and numbers */
        "{\"length\":-1,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":0,"
        "\"entries\":[],\"groups\":[]}",
        "{\"length\":0,\"last_id\":\"1\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":0,"
        "\"entries\":[],\"groups\":[]}",
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"2-0\",\"entries_added\":0,"
        "\"entries\":[],\"groups\":[]}",
        /* pending consumer unknown */
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[],\"groups\":[{\"name\":\"g\",\"last_delivered_id\":\"1-0\",\"entries_read\":1,"
        "\"consumers\":[],\"pending\":[[\"1-0\",\"ghost\",1,1]]}]}",
        /* duplicate group, duplicate consumer, unordered PEL */
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[],\"groups\":[{\"name\":\"g\",\"last_delivered_id\":\"1-0\",\"entries_read\":null,"
        "\"consumers\":[],\"pending\":[]},{\"name\":\"g\",\"last_delivered_id\":\"1-0\",\"entries_read\":null,"
        "\"consumers\":[],\"pending\":[]}]}",
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[],\"groups\":[{\"name\":\"g\",\"last_delivered_id\":\"1-0\",\"entries_read\":null,"
        "\"consumers\":[{\"name\":\"a\",\"seen_time_ms\":1,\"active_time_ms\":-1},{\"name\":\"a\",\"seen_time_ms\":1,"
        "\"active_time_ms\":-1}],\"pending\":[]}]}",
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[],\"groups\":[{\"name\":\"g\",\"last_delivered_id\":\"1-0\",\"entries_read\":null,"
        "\"consumers\":[{\"name\":\"a\",\"seen_time_ms\":1,\"active_time_ms\":-1}],"
        "\"pending\":[[\"2-0\",\"a\",1,1],[\"1-0\",\"a\",1,1]]}]}",
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[],\"groups\":[{\"name\":7}]}",
        "{\"length\":0,\"last_id\":\"1-0\",\"first_id\":\"0-0\",\"max_deleted_id\":\"0-0\",\"entries_added\":1,"
        "\"entries\":[],\"groups\":[{\"name\":\"g\",\"last_delivered_id\":\"1-0\",\"entries_read\":-3,"
        "\"consumers\":[],\"pending\":[]}]}",
        NULL,
    };
    for (int i = 0; bad[i]; i++) {
        cJSON *doc = cJSON_Parse(bad[i]);
        TS_ASSERT(doc != NULL);
        sds err = NULL;
        stream *s = streamFromJSON(doc, &err);
        if (s) printf("test_stream: hostile document #%d was accepted\n", i);
        TS_ASSERT(s == NULL && err != NULL && sdslen(err) > 0);
        sdsfree(err);
        cJSON_Delete(doc);
    }

    /* And a valid one with binary names loads. */
    const char *good =
        "{\"length\":1,\"last_id\":\"9-9\",\"first_id\":\"1-0\",\"max_deleted_id\":\"0-5\",\"entries_added\":\"7\","
        "\"entries\":[[\"1-0\",{\"base64\":\"AAE=\"},\"v\"]],\"groups\":[{\"name\":{\"base64\":\"/w==\"},"
        "\"last_delivered_id\":\"1-0\",\"entries_read\":null,\"consumers\":[{\"name\":\"a\",\"seen_time_ms\":5,"
        "\"active_time_ms\":-1}],\"pending\":[[\"1-0\",\"a\",3,\"2\"]]}]}";
    cJSON *doc = cJSON_Parse(good);
    sds err = NULL;
    stream *s = streamFromJSON(doc, &err);
    TS_ASSERT(s != NULL);
    if (s) {
        TS_ASSERT(s->entries_added == 7 && s->last_id.ms == 9 && s->max_deleted_entry_id.seq == 5);
        TS_ASSERT(s->num_cgroups == 1 && sdslen(s->cgroups[0]->name) == 1);
        TS_ASSERT(idtreeSize(&s->cgroups[0]->pel) == 1);
        freeStream(s);
    }
    sdsfree(err);
    cJSON_Delete(doc);
}

/* Nodes hold the document's JSON text: after appends and deletions
 * anywhere in a node (first, middle, last entry) the document still
 * reloads to the same stream, and a node's text is exactly its entries. */
static void testStreamNodeText(void) {
    stream *s = streamNew();
    sds fv[4] = {sdsnew("f"), sdsnew("v"), sdsnew("g"), sdsnewlen("\0\xff\"q\\\n", 6)};
    for (int i = 1; i <= 250; i++) {
        streamID id = {(uint64_t)i, 0};
        streamAppendItem(s, fv, i % 3 ? 1 : 2, NULL, &id, 1);
        if (i % 37 == 0) tsCheckRoundTrip(s);
    }
    streamNode *first = NULL;
    idtreeFirst(&s->nodes, NULL, (void **)&first);
    const char *expect = "[\"1-0\",\"f\",\"v\"],[\"2-0\"";
    TS_ASSERT(strncmp(first->json, expect, strlen(expect)) == 0);
    uint64_t dels[] = {1, 50, 100, 2, 99, 101, 250, 249, 150};
    for (size_t k = 0; k < sizeof(dels) / sizeof(dels[0]); k++) {
        streamID del = {dels[k], 0};
        TS_ASSERT(streamDeleteItem(s, &del) == 1);
        if (streamCompareID(&del, &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = del;
        streamID firstid = {0, 0};
        idtreeIter it;
        idtreeSeek(&it, &s->nodes, IDTREE_SEEK_FIRST, NULL);
        if (idtreeIterValid(&it)) {
            streamNode *n = idtreeIterVal(&it);
            sds copy = sdsnewlen(n->json, strcspn(n->json + 2, "\"") + 2);
            streamIDFromString(copy + 2, sdslen(copy) - 2, &firstid);
            sdsfree(copy);
        }
        s->first_id = firstid;
        tsCheckRoundTrip(s);
    }
    /* Values with escapes and NULs read back byte for byte. */
    streamIterator si;
    streamID id3 = {3, 0};
    streamIteratorStart(&si, s, &id3, &id3, 0);
    streamID got;
    int64_t nf;
    TS_ASSERT(streamIteratorGetID(&si, &got, &nf) && nf == 2);
    const unsigned char *f, *v;
    size_t fl, vl;
    streamIteratorGetField(&si, &f, &fl, &v, &vl);
    streamIteratorGetField(&si, &f, &fl, &v, &vl);
    TS_ASSERT(fl == 1 && f[0] == 'g' && vl == 6 && memcmp(v, "\0\xff\"q\\\n", 6) == 0);
    streamIteratorStop(&si);
    for (int k = 0; k < 4; k++) sdsfree(fv[k]);
    freeStream(s);
}

/* ------------------------------------------------------------------------
 * Sealing: the two lanes
 * --------------------------------------------------------------------- */

static void tsAppendN(stream *s, int n, uint64_t *next) {
    sds fv[2] = {sdsnew("f"), sdsnew("v")};
    for (int i = 0; i < n; i++) {
        streamID id = {(*next)++, 0};
        TS_ASSERT(streamAppendItem(s, fv, 1, NULL, &id, 1) == C_OK);
    }
    sdsfree(fv[0]);
    sdsfree(fv[1]);
}

/* Entries the root holds or names: its inline entries and its segments'
 * live counts (what a load finds; it refuses a document where that is
 * not the length). */
static uint64_t tsRootCovers(stream *s) {
    sds j = tsStreamJSON(s);
    cJSON *doc = cJSON_Parse(j);
    TS_ASSERT(doc != NULL);
    uint64_t n = (uint64_t)cJSON_GetArraySize(cJSON_GetObjectItem(doc, "entries"));
    const cJSON *rec;
    cJSON_ArrayForEach(rec, cJSON_GetObjectItem(doc, "segments")) n +=
        (uint64_t)cJSON_GetObjectItem(rec, "live_count")->valuedouble;
    cJSON_Delete(doc);
    sdsfree(j);
    return n;
}

/* Plans a seal in a lane (segments of at most 4,000 bytes, those under
 * 2,000 merged once they add up to that -- the test attaches each as 1,000
 * bytes); 0 if there is nothing to do. */
static size_t tsPlan(stream *s, int lane, const char *name, streamSealPlan *plan) {
    sds text = NULL;
    size_t bytes = streamPlanSeal(s, lane, name, 1, 4000, 2, 1, 1000000000000LL, plan, &text);
    sdsfree(text);
    return bytes;
}

/* Seals of the two lanes landing in either order while the tail node is
 * sealed piece by piece: a rewrite (the small segments merged) planned
 * while the tail had two pieces, and a seal of the tail's new entries as
 * a third piece landing before or after it. No entry may be in no
 * segment and not in the root either (lost at the next load: stop 20
 * found such a loss with whole-node seals), and none written twice. */
static void tsSealLanes(int rewrite_first) {
    stream *s = streamNew();
    uint64_t next = 1;
    streamSealPlan a, b, c, d;
    tsAppendN(s, 120, &next); /* a full node, and a tail of 20 */
    TS_ASSERT(tsPlan(s, STREAM_SEAL_NEW, "a", &a) > 0 && a.nnodes == 2);
    TS_ASSERT(streamAttachSegment(s, &a, "a", 1000, 1) == 2);
    tsAppendN(s, 30, &next);
    TS_ASSERT(tsPlan(s, STREAM_SEAL_NEW, "b", &b) > 0 && b.nnodes == 1 && b.count == 30); /* only the new 30 */
    TS_ASSERT(streamAttachSegment(s, &b, "b", 1000, 2) == 1);
    streamNode *tail = NULL;
    idtreeLast(&s->nodes, NULL, (void **)&tail);
    TS_ASSERT(tail->npieces == 2 && tail->pieces[1].count == 50);
    tsAppendN(s, 10, &next);
    TS_ASSERT(tsPlan(s, STREAM_SEAL_REWRITE, "c", &c) > 0 && c.nnodes == 2 && c.count == 150); /* sealed ones only */
    tsAppendN(s, 40, &next);
    TS_ASSERT(tsPlan(s, STREAM_SEAL_NEW, "d", &d) > 0 && d.nnodes == 1 && d.count == 50);
    if (rewrite_first) {
        TS_ASSERT(streamAttachSegment(s, &c, "c", 1000, 4) == 2);
        TS_ASSERT(streamAttachSegment(s, &d, "d", 1000, 3) == 1);
    } else {
        TS_ASSERT(streamAttachSegment(s, &d, "d", 1000, 3) == 1);
        TS_ASSERT(streamAttachSegment(s, &c, "c", 1000, 4) == 2);
    }
    /* The tail: its first 50 entries moved into c, the next 50 in d. */
    TS_ASSERT(tail->npieces == 2 && tail->pieces[1].count == 100 && tail->pieces[0].count == 50);
    TS_ASSERT(s->nsegs == 2); /* a and b emptied, dropped */
    TS_ASSERT(s->length == 200 && s->inline_bytes == 0);
    TS_ASSERT(tsRootCovers(s) == s->length);
    /* A removal takes the node out of every segment holding a piece. */
    streamID id = {150, 0};
    TS_ASSERT(streamDeleteItem(s, &id) == 1);
    TS_ASSERT(tail->npieces == 0 && s->nsegs == 1 && tsRootCovers(s) == s->length);
    streamSealPlanFree(&a);
    streamSealPlanFree(&b);
    streamSealPlanFree(&c);
    streamSealPlanFree(&d);
    freeStream(s);
}

static void testStreamSealLanes(void) {
    tsSealLanes(1);
    tsSealLanes(0);
}

/* ------------------------------------------------------------------------
 * Sealing at random: both lanes and manifests, against a model
 *
 * What the broker does, in random order: appends, deletions (mostly from
 * the head, as workers do), trimming (exact and ~), seals planned in
 * either lane and landing later in any order, manifests, time passing --
 * and, between any two steps, what a commit writes must load back to
 * exactly the model's entries (a follower taking over loads that root).
 * Sometimes the stream is replaced by what it loads, and work goes on
 * from there (nodes then come back one per piece), with the plans in
 * flight dropped, as a take-over drops them.
 * --------------------------------------------------------------------- */

typedef struct tsSealSim {
    stream *s;                /* the stream under test */
    uint64_t *ids;            /* the model: live entry IDs (ms; seq 0), ascending */
    size_t nids, ids_alloc;   /* ... how many, and room for */
    uint64_t next_id;         /* the next ID to append */
    long long now;            /* the clock (server.mstime_cache) */
    int pending[2];           /* a plan in flight, per lane */
    int manifest;             /* the rewrite lane's plan is a manifest's */
    streamSealPlan plan[2];   /* a segment's plan, per lane */
    streamManifestPlan mplan; /* the manifest's plan */
    sds text[2];              /* the planned object's text, per lane */
    char name[2][32];         /* ... and its name */
    unsigned loads;           /* roots loaded and checked */
    unsigned attached;        /* plans that landed with something */
    size_t seal_bytes;        /* the run's segment-seal-bytes */
    size_t max_bytes;         /* ... segment-max-bytes */
    int merge;                /* ... segment-merge */
    uint32_t root_records;    /* ... segment-root-records */
} tsSealSim;

/* The value of entry ms: its length and bytes follow from the ID. */
static sds tsSimValue(uint64_t ms) {
    size_t len = 1 + (size_t)((ms * 2654435761u) % 70);
    sds v = sdsnewlen(NULL, len);
    for (size_t i = 0; i < len; i++) v[i] = (char)('a' + (ms + i) % 26);
    return v;
}

static void tsSimAppend(tsSealSim *sim, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t ms = sim->next_id++;
        sds fv[4] = {sdsnew("job"), tsSimValue(ms), sdsnew("p"), sdsnew("1")};
        streamID id = {ms, 0};
        TS_ASSERT(streamAppendItem(sim->s, fv, ms % 5 ? 1 : 2, NULL, &id, 1) == C_OK);
        for (int k = 0; k < 4; k++) sdsfree(fv[k]);
        if (sim->nids == sim->ids_alloc) {
            sim->ids_alloc = sim->ids_alloc ? sim->ids_alloc * 2 : 256;
            sim->ids = realloc(sim->ids, sim->ids_alloc * sizeof(*sim->ids));
        }
        sim->ids[sim->nids++] = ms;
    }
}

/* The model forgets n entries from index at; the stream's first ID
 * follows (XDEL and XTRIM set it as the commands do). */
static void tsSimForget(tsSealSim *sim, size_t at, size_t n) {
    memmove(sim->ids + at, sim->ids + at + n, (sim->nids - at - n) * sizeof(*sim->ids));
    sim->nids -= n;
    streamID first = {sim->nids ? sim->ids[0] : 0, 0};
    sim->s->first_id = first;
}

static void tsSimDelete(tsSealSim *sim, size_t at) {
    streamID id = {sim->ids[at], 0};
    TS_ASSERT(streamDeleteItem(sim->s, &id) == 1);
    tsSimForget(sim, at, 1);
}

/* The stream holds exactly the model's entries, values included. */
static int tsSimMatches(tsSealSim *sim, stream *s) {
    streamIterator si;
    streamIteratorStart(&si, s, NULL, NULL, 0);
    streamID id;
    int64_t nf;
    size_t i = 0;
    int ok = s->length == sim->nids;
    while (ok && streamIteratorGetID(&si, &id, &nf)) {
        if (i >= sim->nids || id.ms != sim->ids[i] || id.seq != 0 || nf != (sim->ids[i] % 5 ? 1 : 2)) {
            ok = 0;
            break;
        }
        const unsigned char *f, *v;
        size_t fl, vl;
        streamIteratorGetField(&si, &f, &fl, &v, &vl);
        sds want = tsSimValue(id.ms);
        ok = vl == sdslen(want) && !memcmp(v, want, vl);
        sdsfree(want);
        while (--nf > 0) streamIteratorGetField(&si, &f, &fl, &v, &vl);
        i++;
    }
    streamIteratorStop(&si);
    return ok && i == sim->nids;
}

/* What a commit would write now, loaded as a follower loads it. Returns
 * the loaded stream (NULL if it failed or differs from the model). */
static stream *tsSimLoadRoot(tsSealSim *sim) {
    sds j = tsStreamJSON(sim->s);
    cJSON *doc = cJSON_Parse(j);
    TS_ASSERT(doc != NULL);
    sds err = NULL;
    stream *s2 = doc ? streamFromJSON(doc, &err) : NULL;
    if (!s2) printf("test_stream: sealing at random: the root does not load: %s\n", err ? err : "?");
    TS_ASSERT(s2 != NULL);
    if (s2 && !tsSimMatches(sim, s2)) {
        printf("test_stream: sealing at random: the loaded root differs from the model (length %llu, model %zu)\n",
               (unsigned long long)s2->length, sim->nids);
        TS_ASSERT(0);
        freeStream(s2);
        s2 = NULL;
    }
    sim->loads++;
    sdsfree(err);
    cJSON_Delete(doc);
    sdsfree(j);
    return s2;
}

static void tsSimDropPlan(tsSealSim *sim, int lane) {
    if (!sim->pending[lane]) return;
    if (lane == STREAM_SEAL_REWRITE && sim->manifest) streamManifestPlanFree(&sim->mplan);
    else streamSealPlanFree(&sim->plan[lane]);
    sdsfree(sim->text[lane]);
    sim->text[lane] = NULL;
    sim->pending[lane] = 0;
}

static void tsSimPlan(tsSealSim *sim, int lane) {
    static unsigned names = 0; /* never reused, as segment names are (the loader's texts are by name) */
    if (sim->pending[lane]) return;
    snprintf(sim->name[lane], sizeof(sim->name[lane]), "sim-%u.json", ++names);
    size_t bytes = 0;
    sim->manifest = 0;
    if (lane == STREAM_SEAL_REWRITE) {
        bytes = streamPlanManifest(sim->s, sim->name[lane], sim->root_records, 3, sim->now, &sim->mplan,
                                   &sim->text[lane]);
        sim->manifest = bytes > 0;
    }
    if (!bytes)
        bytes = streamPlanSeal(sim->s, lane, sim->name[lane], sim->seal_bytes, sim->max_bytes, 3, sim->merge, sim->now,
                               &sim->plan[lane], &sim->text[lane]);
    sim->pending[lane] = 1;
    if (!bytes) tsSimDropPlan(sim, lane); /* nothing to do: its plan is freed as a landed one is */
}

/* The plan's object is durable: it lands (the store keeps it for loads). */
static void tsSimLand(tsSealSim *sim, int lane) {
    if (!sim->pending[lane]) return;
    sds t = sim->text[lane];
    uint32_t crc = streamSegmentCRC(t, sdslen(t));
    uint32_t n = lane == STREAM_SEAL_REWRITE && sim->manifest
                     ? streamAttachManifest(sim->s, &sim->mplan, sim->name[lane], sdslen(t), crc)
                     : streamAttachSegment(sim->s, &sim->plan[lane], sim->name[lane], sdslen(t), crc);
    if (n) {
        segmentSourceAdd(sim->name[lane], t, sdslen(t));
        sim->attached++;
    }
    tsSimDropPlan(sim, lane);
}

static void tsSealRandomRun(uint64_t seed, int steps) {
    ts_rng = seed;
    tsSealSim sim = {0};
    sim.s = streamNew();
    sim.next_id = 1;
    sim.now = 1000000;
    static const size_t seal[] = {150, 400, 1500}, max[] = {1200, 3000, 20000};
    sim.seal_bytes = seal[tsRand() % 3];
    sim.max_bytes = max[tsRand() % 3];
    sim.merge = (int)(tsRand() % 2);
    sim.root_records = 2 + (uint32_t)(tsRand() % 6);
    for (int step = 0; step < steps; step++) {
        sim.now += (long long)(tsRand() % 300);
        server.mstime_cache = sim.now;
        unsigned r = (unsigned)(tsRand() % 100);
        if (r < 28) {
            tsSimAppend(&sim, 1 + (int)(tsRand() % 15));
        } else if (r < 50 && sim.nids) {
            /* Workers take from the head; now and then from anywhere. */
            size_t span = tsRand() % 4 ? 8 : sim.nids;
            int k = 1 + (int)(tsRand() % 16);
            while (k-- && sim.nids) tsSimDelete(&sim, (size_t)(tsRand() % (span < sim.nids ? span : sim.nids)));
        } else if (r < 53 && sim.nids > 200) {
            /* XTRIM MAXLEN, exact or ~ (whole nodes): from the head. */
            long long keep = (long long)sim.nids - (long long)(tsRand() % (sim.nids / 8 + 1));
            int64_t gone = streamTrimByLength(sim.s, keep, (int)(tsRand() % 2));
            TS_ASSERT(gone >= 0 && (size_t)gone <= sim.nids);
            tsSimForget(&sim, 0, (size_t)gone);
        } else if (r < 62) {
            tsSimPlan(&sim, STREAM_SEAL_NEW);
        } else if (r < 72) {
            tsSimPlan(&sim, STREAM_SEAL_REWRITE);
        } else if (r < 94) {
            tsSimLand(&sim, (int)(tsRand() % 2));
        } else if (r < 97) {
            sim.now += 31000; /* segments consumed from their head go quiet */
        } else {
            /* A take-over: the new broker goes on from the root it loaded. */
            stream *s2 = tsSimLoadRoot(&sim);
            if (!s2) break;
            tsSimDropPlan(&sim, STREAM_SEAL_NEW);
            tsSimDropPlan(&sim, STREAM_SEAL_REWRITE);
            freeStream(sim.s);
            sim.s = s2;
            continue;
        }
        /* Any step may be followed by a commit. */
        if (step % 7 == 0) {
            stream *s2 = tsSimLoadRoot(&sim);
            if (!s2) break;
            freeStream(s2);
        }
        if (!tsSimMatches(&sim, sim.s)) {
            printf("test_stream: sealing at random (seed %llu, step %d): the stream differs from the model\n",
                   (unsigned long long)seed, step);
            TS_ASSERT(0);
            break;
        }
    }
    TS_ASSERT(sim.attached > 0 && sim.loads > 0);
    tsSimDropPlan(&sim, STREAM_SEAL_NEW);
    tsSimDropPlan(&sim, STREAM_SEAL_REWRITE);
    freeStream(sim.s);
    free(sim.ids);
}

static void testStreamSealRandom(void) {
    int own = server.segments == NULL;
    if (own) segmentsInit();
    long long saved_entries = server.cfg.stream_node_max_entries;
    server.cfg.stream_node_max_entries = 24;
    const char *env = getenv("CASQ_SEAL_RUNS");
    int runs = env ? atoi(env) : 8;
    int failures = ts_failures;
    for (int i = 0; i < runs && ts_failures == failures; i++) {
        uint64_t seed = 0x51EA1ULL * (uint64_t)(i + 1) + 7;
        tsSealRandomRun(seed, 1500);
        if (ts_failures != failures) printf("test_stream: sealing at random failed with seed %llu\n",
                                            (unsigned long long)seed);
    }
    server.cfg.stream_node_max_entries = saved_entries;
    if (own) segmentsFree();
}

/* A manifest consumed from its head (a trimmed stream, workers deleting
 * the jobs they did) is not rewritten while its head moves -- it is about
 * to go whole -- but is once the head has been quiet for a while. */
static void testStreamManifestConsumed(void) {
    int own = server.segments == NULL;
    if (own) segmentsInit();
    long long saved_entries = server.cfg.stream_node_max_entries;
    server.cfg.stream_node_max_entries = 10;
    tsSealSim sim = {0};
    sim.s = streamNew();
    sim.next_id = 1;
    sim.now = 1000000;
    server.mstime_cache = sim.now;
    sim.seal_bytes = 100;
    sim.max_bytes = 1000000;
    sim.root_records = 8;
    /* Twelve segments of one node each, then records out of the root. */
    for (int i = 0; i < 12; i++) {
        tsSimAppend(&sim, 10);
        tsSimPlan(&sim, STREAM_SEAL_NEW);
        tsSimLand(&sim, STREAM_SEAL_NEW);
    }
    streamManifestPlan plan;
    sds text;
    TS_ASSERT(streamPlanManifest(sim.s, "m1.json", 8, 8, sim.now, &plan, &text) > 0 && plan.nreplaced == 0);
    TS_ASSERT(streamAttachManifest(sim.s, &plan, "m1.json", sdslen(text), streamSegmentCRC(text, sdslen(text))) ==
              plan.count);
    uint32_t count = plan.count;
    segmentSourceAdd("m1.json", text, sdslen(text));
    streamManifestPlanFree(&plan);
    sdsfree(text);
    TS_ASSERT(sim.s->nmans == 1 && count >= 4);
    /* The head goes, segment by segment, until the manifest is mostly
     * dead: not rewritten while that goes on. */
    while (sim.nids && sim.s->nmans == 1 && sim.s->mans[0]->ndead * 2 < count) tsSimDelete(&sim, 0);
    TS_ASSERT(sim.s->nmans == 1 && sim.s->mans[0]->ndead * 2 >= count);
    TS_ASSERT(streamPlanManifest(sim.s, "m2.json", 8, 8, sim.now, &plan, &text) == 0);
    /* Quiet for longer than SEG_HEAD_QUIET_MS: rewritten now. */
    sim.now += SEG_HEAD_QUIET_MS + 1;
    server.mstime_cache = sim.now;
    TS_ASSERT(streamPlanManifest(sim.s, "m3.json", 8, 8, sim.now, &plan, &text) > 0 && plan.nreplaced == 1);
    streamManifestPlanFree(&plan);
    sdsfree(text);
    stream *s2 = tsSimLoadRoot(&sim);
    if (s2) freeStream(s2);
    freeStream(sim.s);
    free(sim.ids);
    server.cfg.stream_node_max_entries = saved_entries;
    if (own) segmentsFree();
}

int test_stream(void) {
    ts_failures = 0;
    long long saved_entries = server.cfg.stream_node_max_entries;
    long long saved_bytes = server.cfg.stream_node_max_bytes;
    server.cfg.stream_node_max_entries = 100;
    server.cfg.stream_node_max_bytes = 4096;

    testIdtreeRandom();
    testIdtreeAppendShape();
    testJsonUtil();
    testStreamEntries();
    testStreamNodesLikeRedis();
    testStreamGroupsRoundTrip();
    testStreamDup();
    testStreamHostileJSON();
    testStreamNodeText();
    testStreamSealLanes();
    testStreamSealRandom();
    testStreamManifestConsumed();

    server.cfg.stream_node_max_entries = saved_entries;
    server.cfg.stream_node_max_bytes = saved_bytes;
    return ts_failures;
}
