/* test_dict.c -- unit tests of the hash table (dict.c): add/find/delete,
 * iteration with deletion, random keys, binary-safe and case-insensitive
 * key types, and the property SCAN relies on: every element present for
 * the whole scan is returned at least once, even when the table grows or
 * shrinks between calls.
 *
 * int test_dict(void) returns the number of failed assertions. */
#include <stdio.h>
#include <string.h>

#include "testhelp.h"

static sds keyOf(int i) { return sdscatprintf(sdsempty(), "key:%d", i); }

static void testBasics(void) {
    dict *d = dictCreate(&sdsKeyDictType);
    TH_CHECK(dictSize(d) == 0 && dictGetRandomKey(d) == NULL);
    for (int i = 0; i < 10000; i++) TH_CHECK(dictAdd(d, keyOf(i), (void *)(long)i) != NULL);
    TH_CHECK(dictSize(d) == 10000);
    sds dup = keyOf(5);
    TH_CHECK(dictAdd(d, dup, NULL) == NULL); /* exists: caller keeps the key */
    TH_CHECK(dictFetchValue(d, dup) == (void *)5L);
    sdsfree(dup);
    int bad = 0;
    for (int i = 0; i < 10000; i++) {
        sds k = keyOf(i);
        dictEntry *de = dictFind(d, k);
        if (!de || de->val != (void *)(long)i) bad++;
        sdsfree(k);
    }
    TH_CHECK(bad == 0);
    for (int i = 0; i < 10000; i += 2) {
        sds k = keyOf(i);
        TH_CHECK(dictDelete(d, k) == 1);
        TH_CHECK(dictDelete(d, k) == 0);
        sdsfree(k);
    }
    TH_CHECK(dictSize(d) == 5000);
    /* Random keys are live keys. */
    for (int i = 0; i < 1000; i++) {
        dictEntry *de = dictGetRandomKey(d);
        TH_CHECK(de != NULL && ((long)de->val % 2) == 1);
        if (!de) break;
    }
    /* Unlink hands the entry to the caller. */
    sds k = keyOf(1);
    dictEntry *de = dictUnlink(d, k);
    TH_CHECK(de && de->val == (void *)1L && dictFind(d, k) == NULL);
    if (de) dictFreeUnlinkedEntry(d, de);
    sdsfree(k);

    /* Binary keys: NUL bytes are part of the key. */
    TH_CHECK(dictAdd(d, sdsnewlen("a\0b", 3), (void *)1L) != NULL);
    TH_CHECK(dictAdd(d, sdsnewlen("a\0c", 3), (void *)2L) != NULL);
    sds probe = sdsnewlen("a\0c", 3);
    TH_CHECK(dictFetchValue(d, probe) == (void *)2L);
    sdsfree(probe);
    dictEmpty(d);
    TH_CHECK(dictSize(d) == 0);
    dictRelease(d);

    dict *c = dictCreate(&sdsCaseDictType);
    dictAdd(c, sdsnew("XAdd"), (void *)1L);
    sds lower = sdsnew("xadd"), upper = sdsnew("XADD");
    TH_CHECK(dictFetchValue(c, lower) == (void *)1L && dictFetchValue(c, upper) == (void *)1L);
    sdsfree(lower);
    sdsfree(upper);
    dictRelease(c);
}

static void testIteratorDelete(void) {
    dict *d = dictCreate(&sdsKeyDictType);
    for (int i = 0; i < 1000; i++) dictAdd(d, keyOf(i), (void *)(long)i);
    dictIterator it;
    dictEntry *de;
    int seen = 0;
    dictInitIterator(&it, d);
    while ((de = dictNext(&it)) != NULL) {
        seen++;
        if ((long)de->val % 3 == 0) dictDelete(d, de->key);
    }
    TH_CHECK(seen == 1000);
    TH_CHECK(dictSize(d) == 1000 - 334);
    dictRelease(d);
}

typedef struct scanState {
    unsigned char *seen; /* per key index: times returned */
    int n;
} scanState;

static void scanCallback(void *privdata, const dictEntry *de) {
    scanState *st = privdata;
    long i = (long)de->val;
    if (i >= 0 && i < st->n && st->seen[i] < 255) st->seen[i]++;
}

/* Scans d, calling `between(step)` after each dictScan call; returns 1 if
 * every index in [0, stable) was seen at least once. */
static int scanCovers(dict *d, int n, int stable, void (*between)(dict *, int)) {
    scanState st = {zcalloc((size_t)n), n};
    unsigned long cursor = 0;
    int step = 0;
    do {
        cursor = dictScan(d, cursor, scanCallback, &st);
        if (between) between(d, step++);
        TH_CHECK(step < 10000000);
    } while (cursor != 0 && step < 10000000);
    int ok = 1;
    for (int i = 0; i < stable; i++)
        if (!st.seen[i]) ok = 0;
    zfree(st.seen);
    return ok;
}

static void growWhileScanning(dict *d, int step) {
    if (step == 3) /* add 20,000 keys: several doublings */
        for (int i = 100000; i < 120000; i++) dictAdd(d, keyOf(i), (void *)(long)-1);
}

static void shrinkWhileScanning(dict *d, int step) {
    if (step == 3) /* remove all but the first 100 */
        for (int i = 100; i < 20000; i++) {
            sds k = keyOf(i);
            dictDelete(d, k);
            sdsfree(k);
        }
}

static int churn_round;
static void churnWhileScanning(dict *d, int step) {
    /* Alternately grow and shrink the table, keeping keys 0..499. */
    if (step % 5) return;
    churn_round++;
    if (churn_round % 2)
        for (int i = 1000; i < 5000; i++) dictAdd(d, keyOf(i), (void *)(long)i);
    else
        for (int i = 1000; i < 5000; i++) {
            sds k = keyOf(i);
            dictDelete(d, k);
            sdsfree(k);
        }
}

static void testScan(void) {
    dict *d = dictCreate(&sdsKeyDictType);
    TH_CHECK(dictScan(d, 0, scanCallback, &(scanState){NULL, 0}) == 0); /* empty */
    for (int i = 0; i < 1000; i++) dictAdd(d, keyOf(i), (void *)(long)i);
    TH_CHECK(scanCovers(d, 1000, 1000, NULL));
    TH_CHECK(scanCovers(d, 1000, 1000, growWhileScanning));
    dictRelease(d);

    d = dictCreate(&sdsKeyDictType);
    for (int i = 0; i < 20000; i++) dictAdd(d, keyOf(i), (void *)(long)i);
    TH_CHECK(scanCovers(d, 20000, 100, shrinkWhileScanning));
    TH_CHECK(dictSize(d) == 100);
    dictRelease(d);

    d = dictCreate(&sdsKeyDictType);
    for (int i = 0; i < 500; i++) dictAdd(d, keyOf(i), (void *)(long)i);
    churn_round = 0;
    TH_CHECK(scanCovers(d, 5000, 500, churnWhileScanning));
    dictRelease(d);
}

int test_dict(void) {
    th_failures = 0;
    testBasics();
    testIteratorDelete();
    testScan();
    return th_failures;
}
