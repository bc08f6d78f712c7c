/* test_sds.c -- unit tests of the binary-safe strings (sds.c) and of the
 * number conversions the protocol parser relies on (string2ll & co.), with
 * Redis's semantics: string2ll rejects leading zeros, '+', spaces and
 * overflow, exactly what makes "$04" an invalid bulk length.
 *
 * int test_sds(void) returns the number of failed assertions. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "testhelp.h"

static void testBasics(void) {
    sds s = sdsnewlen("a\0b", 3);
    TH_CHECK(sdslen(s) == 3 && s[3] == '\0' && memcmp(s, "a\0b", 3) == 0);
    s = sdscatlen(s, "\0c", 2);
    TH_CHECK_BYTES(s, sdslen(s), "a\0b\0c", 5);
    s = sdscat(s, "xyz");
    TH_CHECK(sdslen(s) == 8 && s[8] == '\0');
    sds d = sdsdup(s);
    TH_CHECK(sdscmp(s, d) == 0);
    d = sdscat(d, "!");
    TH_CHECK(sdscmp(s, d) < 0 && sdscmp(d, s) > 0);
    sdsfree(d);
    s = sdscpylen(s, "hello", 5);
    TH_CHECK_STR(s, sdslen(s), "hello");
    sdstoupper(s);
    TH_CHECK_STR(s, sdslen(s), "HELLO");
    sdstolower(s);
    TH_CHECK_STR(s, sdslen(s), "hello");
    sdsclear(s);
    TH_CHECK(sdslen(s) == 0 && s[0] == '\0');
    sdsfree(s);
    sdsfree(NULL); /* like free(NULL) */

    s = sdscatprintf(sdsempty(), "%d-%s-%lld", 42, "x", LLONG_MIN);
    TH_CHECK_STR(s, sdslen(s), "42-x--9223372036854775808");
    sdsfree(s);
    s = sdsfromlonglong(LLONG_MAX);
    TH_CHECK_STR(s, sdslen(s), "9223372036854775807");
    s = sdscatlonglong(s, -7);
    TH_CHECK_STR(s, sdslen(s), "9223372036854775807-7");
    sdsfree(s);
}

static void testRoom(void) {
    sds s = sdsnew("ab");
    s = sdsMakeRoomFor(s, 1000);
    TH_CHECK(sdsavail(s) >= 1000 && sdslen(s) == 2);
    memcpy(s + 2, "cdef", 4);
    sdsIncrLen(s, 4);
    TH_CHECK_STR(s, sdslen(s), "abcdef");
    TH_CHECK(s[6] == '\0');
    s = sdsRemoveFreeSpace(s);
    TH_CHECK(sdsavail(s) == 0);
    TH_CHECK_STR(s, sdslen(s), "abcdef");
    TH_CHECK(sdsAllocSize(s) >= sdslen(s));
    /* Growth is amortised: appending a byte at a time stays linear. */
    sds g = sdsempty();
    size_t reallocs = 0;
    for (int i = 0; i < 100000; i++) {
        size_t before = sdsalloc(g);
        g = sdscatlen(g, "x", 1);
        if (sdsalloc(g) != before) reallocs++;
    }
    TH_CHECK(sdslen(g) == 100000);
    TH_CHECK(reallocs < 100);
    sdsfree(g);
    sdsfree(s);
}

static void testRangeTrim(void) {
    struct {
        const char *in;
        long start, end;
        const char *out;
    } cases[] = {
        {"hello world", 0, -1, "hello world"}, {"hello world", 1, -1, "ello world"},
        {"hello world", -5, -1, "world"},      {"hello world", 0, 4, "hello"},
        {"hello world", 4, 2, ""},             {"hello world", 20, 30, ""},
        {"hello world", 6, 100, "world"},      {"hello world", -100, 1, "he"},
        {"", 0, -1, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sds s = sdsnew(cases[i].in);
        sdsrange(s, cases[i].start, cases[i].end);
        TH_CHECK_BYTES(s, sdslen(s), cases[i].out, strlen(cases[i].out));
        TH_CHECK(s[sdslen(s)] == '\0');
        sdsfree(s);
    }
    sds t = sdstrim(sdsnew("  \r\nxx  yy\n "), " \r\n");
    TH_CHECK_STR(t, sdslen(t), "xx  yy");
    sdsfree(t);
    t = sdstrim(sdsnew("aaaa"), "a");
    TH_CHECK(sdslen(t) == 0);
    sdsfree(t);
}

static void testRepr(void) {
    sds r = sdscatrepr(sdsempty(), "a\"\\\n\r\t\x01\xff b", 10);
    TH_CHECK_STR(r, sdslen(r), "\"a\\\"\\\\\\n\\r\\t\\x01\\xff b\"");
    sdsfree(r);
}

static void checkSplit(const char *line, int want_argc, const char **want, const size_t *lens) {
    int argc = -1;
    sds *argv = sdssplitargs(line, &argc);
    if (want_argc < 0) {
        TH_CHECK(argv == NULL);
        if (argv) sdsfreesplitres(argv, argc);
        return;
    }
    TH_CHECK(argv != NULL && argc == want_argc);
    if (argv && argc == want_argc)
        for (int i = 0; i < argc; i++) TH_CHECK_BYTES(argv[i], sdslen(argv[i]), want[i], lens[i]);
    if (argv) sdsfreesplitres(argv, argc);
}

static void testSplitArgs(void) {
    const char *w1[] = {"set", "a b", "c"};
    size_t l1[] = {3, 3, 1};
    checkSplit("  set \"a b\"   c  ", 3, w1, l1);
    const char *w2[] = {"\x41\x00z\n\r\t\b\a\\\"", "q'q", "x\\y"};
    size_t l2[] = {10, 3, 3};
    checkSplit("\"\\x41\\x00z\\n\\r\\t\\b\\a\\\\\\\"\" 'q\\'q' 'x\\y'", 3, w2, l2);
    const char *w3[] = {""};
    size_t l3[] = {0};
    checkSplit("\"\"", 1, w3, l3);
    checkSplit("", 0, NULL, NULL);
    checkSplit("   \t ", 0, NULL, NULL);
    /* \x with non-hex digits is taken literally. */
    const char *w4[] = {"xg1"};
    size_t l4[] = {3};
    checkSplit("\"\\xg1\"", 1, w4, l4);
    checkSplit("\"abc", -1, NULL, NULL);
    checkSplit("'abc", -1, NULL, NULL);
    checkSplit("\"a\"b", -1, NULL, NULL); /* a closing quote must end the token */
    checkSplit("'a'b", -1, NULL, NULL);
}

static void testNumbers(void) {
    struct {
        const char *s;
        int ok;
        long long v;
    } cases[] = {
        {"0", 1, 0},
        {"1", 1, 1},
        {"-1", 1, -1},
        {"9223372036854775807", 1, LLONG_MAX},
        {"-9223372036854775808", 1, LLONG_MIN},
        {"9223372036854775808", 0, 0},
        {"-9223372036854775809", 0, 0},
        {"99999999999999999999", 0, 0},
        {"01", 0, 0},
        {"-0", 0, 0},
        {"+1", 0, 0},
        {" 1", 0, 0},
        {"1 ", 0, 0},
        {"", 0, 0},
        {"-", 0, 0},
        {"1a", 0, 0},
        {"12345678901", 1, 12345678901LL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        long long v = 42;
        int ok = string2ll(cases[i].s, strlen(cases[i].s), &v);
        if (ok != cases[i].ok || (ok && v != cases[i].v)) {
            printf("    string2ll(\"%s\") = %d, %lld\n", cases[i].s, ok, v);
            th_failures++;
        }
    }
    long long v;
    TH_CHECK(string2ll("123", 2, &v) && v == 12); /* length, not NUL, ends it */
    unsigned long long u;
    TH_CHECK(string2ull("18446744073709551615", 20, &u) && u == ULLONG_MAX);
    TH_CHECK(!string2ull("18446744073709551616", 20, &u));
    TH_CHECK(!string2ull("-1", 2, &u));

    char buf[32];
    TH_CHECK(ll2string(buf, sizeof(buf), LLONG_MIN) == 20 && !strcmp(buf, "-9223372036854775808"));
    TH_CHECK(ll2string(buf, sizeof(buf), 0) == 1 && !strcmp(buf, "0"));
    TH_CHECK(ull2string(buf, sizeof(buf), ULLONG_MAX) == 20 && !strcmp(buf, "18446744073709551615"));
    /* Round trip of many values. */
    for (long long x = -100000; x <= 100000; x += 7) {
        int n = ll2string(buf, sizeof(buf), x * 1000003);
        long long back;
        if (!string2ll(buf, (size_t)n, &back) || back != x * 1000003) {
            th_failures++;
            break;
        }
    }
}

int test_sds(void) {
    th_failures = 0;
    testBasics();
    testRoom();
    testRangeTrim();
    testRepr();
    testSplitArgs();
    testNumbers();
    return th_failures;
}
