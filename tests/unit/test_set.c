/* test_set.c -- unit tests for the set type's API (t_set.h), which other
 * modules use (ZUNIONSTORE/ZINTERSTORE take sets): encodings and their
 * conversions by Redis 7.2's rules, membership, the iterator, removal, and
 * the state document round trip, including hostile documents.
 *
 * int test_set(void) returns the number of failed assertions. Randomised
 * parts use a fixed seed. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/t_set.h"
#include "testhelp.h"

static int tset_failures;

#define TSET_ASSERT(cond)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("test_set: %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);     \
            tset_failures++;                                                                   \
        }                                                                                      \
    } while (0)

static const char *enc(const robj *o) { return objectTypeGet(OBJ_SET)->encoding(o); }

static int add(robj *o, const char *m) { return setTypeAdd(o, m, strlen(m)); }

/* Every member once, through the iterator; returns how many. */
static unsigned long countMembers(const robj *o) {
    unsigned long n = 0;
    setTypeIterator *it = setTypeInitIterator(o);
    sds m;
    while ((m = setTypeNext(it)) != NULL) {
        TSET_ASSERT(setTypeIsMember(o, m, sdslen(m)));
        n++;
    }
    setTypeReleaseIterator(it);
    return n;
}

static void testEncodings(void) {
    robj *o = setTypeCreate("5", 1, 1);
    TSET_ASSERT(!strcmp(enc(o), "intset"));
    TSET_ASSERT(add(o, "5") && add(o, "-3") && add(o, "100") && !add(o, "5"));
    TSET_ASSERT(setTypeSize(o) == 3);
    /* an intset iterates in numeric order */
    const char *want[] = {"-3", "5", "100"};
    setTypeIterator *it = setTypeInitIterator(o);
    sds m;
    int i = 0;
    while ((m = setTypeNext(it)) != NULL && i < 3) TSET_ASSERT(!strcmp(m, want[i++]));
    setTypeReleaseIterator(it);
    TSET_ASSERT(i == 3);
    /* "01" is not an integer: a listpack, the intset's order kept */
    TSET_ASSERT(setTypeIsMember(o, "5", 1) && !setTypeIsMember(o, "05", 2));
    TSET_ASSERT(add(o, "01"));
    TSET_ASSERT(!strcmp(enc(o), "listpack"));
    TSET_ASSERT(setTypeIsMember(o, "01", 2) && setTypeIsMember(o, "100", 3));
    TSET_ASSERT(setTypeRemove(o, "5", 1) && !setTypeRemove(o, "5", 1));
    TSET_ASSERT(setTypeSize(o) == 3);
    /* past set-max-listpack-entries: a hashtable, never back */
    char buf[32];
    for (int j = 0; j < 200; j++) {
        snprintf(buf, sizeof(buf), "m:%d", j);
        add(o, buf);
    }
    TSET_ASSERT(!strcmp(enc(o), "hashtable"));
    TSET_ASSERT(setTypeSize(o) == 203 && countMembers(o) == 203);
    for (int j = 0; j < 200; j++) {
        snprintf(buf, sizeof(buf), "m:%d", j);
        TSET_ASSERT(setTypeRemove(o, buf, strlen(buf)));
    }
    TSET_ASSERT(!strcmp(enc(o), "hashtable") && setTypeSize(o) == 3);
    freeObject(o);

    /* a long member makes a hashtable at once */
    char big[100];
    memset(big, 'x', sizeof(big));
    o = setTypeCreate(big, sizeof(big), 1);
    TSET_ASSERT(!strcmp(enc(o), "listpack"));
    TSET_ASSERT(setTypeAdd(o, big, sizeof(big)));
    TSET_ASSERT(!strcmp(enc(o), "hashtable"));
    freeObject(o);

    /* too many integers: a hashtable */
    o = setTypeCreate("1", 1, 1);
    for (int j = 0; j < 513; j++) {
        snprintf(buf, sizeof(buf), "%d", j);
        add(o, buf);
    }
    TSET_ASSERT(!strcmp(enc(o), "hashtable") && setTypeSize(o) == 513 && countMembers(o) == 513);
    freeObject(o);
}

/* The intset widens from 16 to 32 to 64 bits and stays sorted. */
static void testIntsetWidths(void) {
    robj *o = setTypeCreate("1", 1, 1);
    const char *adds[] = {"1", "70000", "-5", "5000000000", "-9223372036854775808", "32767", "-32768",
                          "9223372036854775807", "0", NULL};
    for (int i = 0; adds[i]; i++) TSET_ASSERT(add(o, adds[i]));
    TSET_ASSERT(!strcmp(enc(o), "intset"));
    const char *want[] = {"-9223372036854775808", "-32768", "-5", "0", "1", "32767", "70000", "5000000000",
                          "9223372036854775807"};
    setTypeIterator *it = setTypeInitIterator(o);
    sds m;
    int i = 0;
    while ((m = setTypeNext(it)) != NULL) {
        TSET_ASSERT(i < 9 && !strcmp(m, want[i]));
        i++;
    }
    setTypeReleaseIterator(it);
    TSET_ASSERT(i == 9);
    for (i = 0; i < 9; i++) TSET_ASSERT(setTypeIsMember(o, want[i], strlen(want[i])));
    TSET_ASSERT(!setTypeIsMember(o, "70001", 5));
    TSET_ASSERT(setTypeRemove(o, "5000000000", 10) && !setTypeIsMember(o, "5000000000", 10));
    TSET_ASSERT(setTypeSize(o) == 8 && countMembers(o) == 8);
    freeObject(o);
}

/* Random operations against a plain model (an array of flags). */
static void testRandomModel(void) {
    srand(12345);
    enum { U = 700 };
    char present[U];
    memset(present, 0, sizeof(present));
    robj *o = setTypeCreate("0", 1, 1);
    char buf[32];
    for (int op = 0; op < 20000; op++) {
        int v = rand() % U;
        if (v % 7 == 0) snprintf(buf, sizeof(buf), "s%d", v);
        else snprintf(buf, sizeof(buf), "%d", v);
        if (rand() % 3) {
            TSET_ASSERT(setTypeAdd(o, buf, strlen(buf)) == !present[v]);
            present[v] = 1;
        } else {
            TSET_ASSERT(setTypeRemove(o, buf, strlen(buf)) == present[v]);
            present[v] = 0;
        }
        TSET_ASSERT(setTypeIsMember(o, buf, strlen(buf)) == present[v]);
    }
    unsigned long n = 0;
    for (int v = 0; v < U; v++) n += present[v];
    TSET_ASSERT(setTypeSize(o) == n && countMembers(o) == n);
    freeObject(o);
}

static void testDocument(void) {
    const objectType *ot = objectTypeByName("set");
    TSET_ASSERT(ot && ot->type == OBJ_SET);
    robj *o = setTypeCreate("a", 1, 2);
    add(o, "a");
    TSET_ASSERT(setTypeAdd(o, "b\0c\xff", 4));
    sds json = ot->catJSON(sdsempty(), o);
    cJSON *v = cJSON_Parse(json);
    sds err = NULL;
    void *back = ot->fromJSON(v, &err);
    TSET_ASSERT(back != NULL && err == NULL);
    if (back) {
        robj *b = createObject(OBJ_SET, back);
        TSET_ASSERT(setTypeSize(b) == 2 && setTypeIsMember(b, "b\0c\xff", 4) && setTypeIsMember(b, "a", 1));
        freeObject(b);
    }
    cJSON_Delete(v);
    sdsfree(json);
    freeObject(o);

    const char *bad[] = {"[]", "\"x\"", "[\"a\",\"a\"]", "[1]", "[null]", "{}", "[{\"base64\":\"@@\"}]", NULL};
    for (int i = 0; bad[i]; i++) {
        v = cJSON_Parse(bad[i]);
        err = NULL;
        void *s = ot->fromJSON(v, &err);
        TSET_ASSERT(s == NULL && err != NULL);
        sdsfree(err);
        cJSON_Delete(v);
    }
}

int test_set(void) {
    tset_failures = 0;
    testStartServer();
    testEncodings();
    testIntsetWidths();
    testRandomModel();
    testDocument();
    testStopServer();
    return tset_failures;
}
