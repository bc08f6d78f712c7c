/* test_store_file.c -- unit tests for the file store's commit log
 * (src/store_file.c, "The commit log"): versions "<token>:<log bytes>",
 * log_append as a compare-and-set on both parts, log_take after a load,
 * root writes emptying the log, probe, and the conflicts another store or
 * an outside writer cause.
 *
 * Drives the real store through a libevent loop of its own, in a fresh
 * temporary directory per test. int test_store_file(void) returns the
 * number of failed assertions. */
#include <dirent.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/server.h"
#include "../../src/store.h"

static int tf_failures;

#define TF_ASSERT(cond)                                                                              \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            printf("test_store_file: %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);     \
            tf_failures++;                                                                           \
        }                                                                                            \
    } while (0)

/* ========================================================================
 * Harness: one operation at a time, run to its callback
 * ===================================================================== */

static struct event_base *tf_base;

typedef struct tfResult {
    int done;
    storeStatus status;
    char version[128]; /* "" if none */
    sds data;          /* load: the document */
} tfResult;

static void tfLoadCb(void *priv, storeStatus status, const char *data, size_t len, const char *version,
                     const char *err) {
    (void)err;
    tfResult *r = priv;
    r->done = 1;
    r->status = status;
    snprintf(r->version, sizeof(r->version), "%s", version ? version : "");
    r->data = data ? sdsnewlen(data, len) : NULL;
}

static void tfWriteCb(void *priv, storeStatus status, const char *new_version, const char *err) {
    (void)err;
    tfResult *r = priv;
    r->done = 1;
    r->status = status;
    snprintf(r->version, sizeof(r->version), "%s", new_version ? new_version : "");
}

static void tfWait(tfResult *r) {
    while (!r->done) event_base_loop(tf_base, EVLOOP_ONCE);
}

static tfResult tfLoad(store *st) {
    tfResult r = {0};
    st->type->load(st, tfLoadCb, &r);
    tfWait(&r);
    return r;
}

static tfResult tfProbe(store *st) {
    tfResult r = {0};
    st->type->probe(st, tfLoadCb, &r);
    tfWait(&r);
    return r;
}

static tfResult tfWrite(store *st, const char *doc, const char *expect) {
    tfResult r = {0};
    st->type->write(st, sdsnew(doc), expect, tfWriteCb, &r);
    tfWait(&r);
    return r;
}

static tfResult tfAppend(store *st, const char *record, const char *expect) {
    tfResult r = {0};
    st->type->log_append(st, sdsnew(record), expect, tfWriteCb, &r);
    tfWait(&r);
    return r;
}

/* The file's bytes (NULL if it does not exist). */
static sds tfReadFile(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sds s = sdsempty();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) s = sdscatlen(s, buf, n);
    fclose(f);
    return s;
}

static int tfFileIs(const char *path, const char *want) {
    sds got = tfReadFile(path);
    int same = got && sdslen(got) == strlen(want) && !memcmp(got, want, sdslen(got));
    sdsfree(got);
    return same;
}

/* Whether version ends with ":<n>". */
static int tfLogPart(const char *version, unsigned long long n) {
    char want[32];
    snprintf(want, sizeof(want), ":%llu", n);
    size_t vl = strlen(version), wl = strlen(want);
    return vl == 32 + wl && !strcmp(version + 32, want);
}

/* The token part of a version is the same in both. */
static int tfSameToken(const char *a, const char *b) {
    return strlen(a) >= 32 && strlen(b) >= 32 && !strncmp(a, b, 32);
}

/* A fresh directory and the URL and paths of a document in it. */
typedef struct tfDir {
    char dir[64];
    char url[128];
    char log[128];
} tfDir;

static void tfDirNew(tfDir *d) {
    const char *tmp = getenv("TMPDIR");
    snprintf(d->dir, sizeof(d->dir), "%s/casq-unit-flog.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(d->dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(d->url, sizeof(d->url), "file://%s/queue.json", d->dir);
    snprintf(d->log, sizeof(d->log), "%s/queue.json.log", d->dir);
}

/* Removes the directory and what the store left in it (one level of
 * subdirectories: queue.json.segments). */
static void tfRemoveTree(const char *path) {
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *de;
        while ((de = readdir(dir))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
            char child[512];
            snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
            struct stat sb;
            if (lstat(child, &sb) == 0 && S_ISDIR(sb.st_mode)) tfRemoveTree(child);
            else unlink(child);
        }
        closedir(dir);
    }
    rmdir(path);
}

static store *tfOpen(const tfDir *d) {
    sds err = NULL;
    store *st = storeOpen(d->url, tf_base, &err);
    if (!st) {
        printf("test_store_file: cannot open %s: %s\n", d->url, err ? err : "?");
        sdsfree(err);
        exit(2);
    }
    return st;
}

/* ========================================================================
 * The tests
 * ===================================================================== */

#define REC1 "{\"seq\":1,\"ops\":[\"a\"]}\n"
#define REC2 "{\"seq\":2,\"ops\":[\"bb\",\"c\"]}\n"

/* The whole round: create, append, stale append, load and take, checkpoint,
 * append from before the checkpoint, probe. */
static void testLogRoundTrip(void) {
    tfDir d;
    tfDirNew(&d);
    store *st = tfOpen(&d);
    TF_ASSERT(st->type->log_append && st->type->log_take);

    tfResult w0 = tfWrite(st, "{\"root\":0}", NULL);
    TF_ASSERT(w0.status == STORE_OK && tfLogPart(w0.version, 0));

    tfResult a1 = tfAppend(st, REC1, w0.version);
    TF_ASSERT(a1.status == STORE_OK && tfSameToken(a1.version, w0.version) && tfLogPart(a1.version, strlen(REC1)));
    tfResult a2 = tfAppend(st, REC2, a1.version);
    TF_ASSERT(a2.status == STORE_OK && tfSameToken(a2.version, w0.version) &&
              tfLogPart(a2.version, strlen(REC1) + strlen(REC2)));
    TF_ASSERT(tfFileIs(d.log, REC1 REC2));

    /* Stale: the version before the second record. */
    tfResult stale = tfAppend(st, "{\"seq\":9}\n", a1.version);
    TF_ASSERT(stale.status == STORE_CONFLICT && !stale.version[0]);
    TF_ASSERT(tfFileIs(d.log, REC1 REC2));
    /* Odd versions are conflicts, never a crash nor a write. */
    TF_ASSERT(tfAppend(st, "{\"seq\":9}\n", "not-a-version").status == STORE_CONFLICT);
    char odd[160];
    snprintf(odd, sizeof(odd), "%.32s:%s", a2.version, "12x");
    TF_ASSERT(tfAppend(st, "{\"seq\":9}\n", odd).status == STORE_CONFLICT);
    snprintf(odd, sizeof(odd), "%.32s", a2.version); /* a bare token: an empty log */
    TF_ASSERT(tfAppend(st, "{\"seq\":9}\n", odd).status == STORE_CONFLICT);
    TF_ASSERT(tfAppend(st, "{\"seq\":9}\n", NULL).status == STORE_CONFLICT);
    TF_ASSERT(tfFileIs(d.log, REC1 REC2));

    tfResult l = tfLoad(st);
    TF_ASSERT(l.status == STORE_OK && l.data && !strcmp(l.data, "{\"root\":0}"));
    TF_ASSERT(!strcmp(l.version, a2.version));
    sds log = st->type->log_take(st);
    TF_ASSERT(log && sdslen(log) == strlen(REC1 REC2) && !memcmp(log, REC1 REC2, sdslen(log)));
    sdsfree(log);
    TF_ASSERT(st->type->log_take(st) == NULL); /* handed over once */
    sdsfree(l.data);

    tfResult p = tfProbe(st);
    TF_ASSERT(p.status == STORE_OK && !strcmp(p.version, a2.version));

    /* A checkpoint: the root holds everything, the log is emptied. */
    tfResult w1 = tfWrite(st, "{\"root\":1}", a2.version);
    TF_ASSERT(w1.status == STORE_OK && tfLogPart(w1.version, 0) && !tfSameToken(w1.version, w0.version));
    TF_ASSERT(tfFileIs(d.log, ""));
    tfResult late = tfAppend(st, REC1, a2.version);
    TF_ASSERT(late.status == STORE_CONFLICT && tfFileIs(d.log, ""));
    p = tfProbe(st);
    TF_ASSERT(p.status == STORE_OK && !strcmp(p.version, w1.version));

    /* A load of an empty log: nothing to take, the version ":0". */
    l = tfLoad(st);
    TF_ASSERT(l.status == STORE_OK && !strcmp(l.version, w1.version) && st->type->log_take(st) == NULL);
    sdsfree(l.data);

    /* A root write with the wrong log size is refused too. */
    tfResult a3 = tfAppend(st, REC1, w1.version);
    TF_ASSERT(a3.status == STORE_OK && tfLogPart(a3.version, strlen(REC1)));
    TF_ASSERT(tfWrite(st, "{\"root\":\"stale\"}", w1.version).status == STORE_CONFLICT);
    TF_ASSERT(tfFileIs(d.log, REC1));

    sds info = st->type->info(st, sdsempty());
    TF_ASSERT(strstr(info, "store_file_log_appends:3\r\n") != NULL);
    char want[64];
    snprintf(want, sizeof(want), "store_file_log_bytes:%zu\r\n", strlen(REC1));
    TF_ASSERT(strstr(info, want) != NULL);
    sdsfree(info);

    storeClose(st);
    tfRemoveTree(d.dir);
}

/* A create-only root write empties a log that is there already. */
static void testCreateEmptiesLog(void) {
    tfDir d;
    tfDirNew(&d);
    FILE *f = fopen(d.log, "wb");
    fputs(REC1, f);
    fclose(f);
    store *st = tfOpen(&d);
    tfResult w0 = tfWrite(st, "{\"root\":0}", NULL);
    TF_ASSERT(w0.status == STORE_OK && tfLogPart(w0.version, 0) && tfFileIs(d.log, ""));
    storeClose(st);
    tfRemoveTree(d.dir);
}

/* Another store (another process) writes the root: our append conflicts;
 * and it sees our records as one version with the root. */
static void testTwoStores(void) {
    tfDir d;
    tfDirNew(&d);
    store *a = tfOpen(&d), *b = tfOpen(&d);
    tfResult w0 = tfWrite(a, "{\"root\":0}", NULL);
    tfResult a1 = tfAppend(a, REC1, w0.version);
    TF_ASSERT(a1.status == STORE_OK);

    tfResult lb = tfLoad(b);
    TF_ASSERT(lb.status == STORE_OK && !strcmp(lb.version, a1.version));
    sds log = b->type->log_take(b);
    TF_ASSERT(log && !strcmp(log, REC1));
    sdsfree(log);
    sdsfree(lb.data);

    /* b appends after a's record: a's version is stale now (same root). */
    tfResult b1 = tfAppend(b, REC2, lb.version);
    TF_ASSERT(b1.status == STORE_OK && tfSameToken(b1.version, a1.version));
    TF_ASSERT(tfAppend(a, REC2, a1.version).status == STORE_CONFLICT);
    TF_ASSERT(tfFileIs(d.log, REC1 REC2));

    /* b writes the root: a's version names the old root. */
    tfResult bw = tfWrite(b, "{\"root\":\"b\"}", b1.version);
    TF_ASSERT(bw.status == STORE_OK && tfLogPart(bw.version, 0));
    TF_ASSERT(tfAppend(a, REC2, b1.version).status == STORE_CONFLICT);
    TF_ASSERT(tfFileIs(d.log, ""));
    tfResult pa = tfProbe(a);
    TF_ASSERT(pa.status == STORE_OK && !strcmp(pa.version, bw.version));

    /* a reloads and carries on from b's version, through its kept
     * descriptor of the log. */
    tfResult la = tfLoad(a);
    TF_ASSERT(la.status == STORE_OK && !strcmp(la.version, bw.version) && a->type->log_take(a) == NULL);
    sdsfree(la.data);
    tfResult a2 = tfAppend(a, REC1, la.version);
    TF_ASSERT(a2.status == STORE_OK && tfLogPart(a2.version, strlen(REC1)) && tfFileIs(d.log, REC1));

    storeClose(a);
    storeClose(b);
    tfRemoveTree(d.dir);
}

/* Bytes appended, or the log replaced, behind the store's back. */
static void testOutsideWriter(void) {
    tfDir d;
    tfDirNew(&d);
    store *st = tfOpen(&d);
    tfResult w0 = tfWrite(st, "{\"root\":0}", NULL);
    tfResult a1 = tfAppend(st, REC1, w0.version);
    TF_ASSERT(a1.status == STORE_OK);

    FILE *f = fopen(d.log, "ab");
    fputs("junk\n", f);
    fclose(f);
    TF_ASSERT(tfAppend(st, REC2, a1.version).status == STORE_CONFLICT);
    TF_ASSERT(tfFileIs(d.log, REC1 "junk\n")); /* their bytes are not cut */
    TF_ASSERT(tfWrite(st, "{\"root\":1}", a1.version).status == STORE_CONFLICT);
    tfResult p = tfProbe(st);
    TF_ASSERT(p.status == STORE_OK && tfLogPart(p.version, strlen(REC1 "junk\n")));

    /* Replaced by another file of the same length: the store appends to
     * the file at the path, not to the one it had open. */
    tfResult l = tfLoad(st);
    sdsfree(l.data);
    sdsfree(st->type->log_take(st));
    char tmp[160];
    snprintf(tmp, sizeof(tmp), "%s.new", d.log);
    f = fopen(tmp, "wb");
    fputs(REC1 "knuj\n", f);
    fclose(f);
    TF_ASSERT(rename(tmp, d.log) == 0);
    tfResult a2 = tfAppend(st, REC2, l.version);
    TF_ASSERT(a2.status == STORE_OK && tfFileIs(d.log, REC1 "knuj\n" REC2));

    storeClose(st);
    tfRemoveTree(d.dir);
}

/* Without a log, nothing changes but the ":0". */
static void testNoLog(void) {
    tfDir d;
    tfDirNew(&d);
    store *st = tfOpen(&d);
    tfResult l = tfLoad(st);
    TF_ASSERT(l.status == STORE_NOT_FOUND && st->type->log_take(st) == NULL);
    tfResult w0 = tfWrite(st, "{\"root\":0}", NULL);
    tfResult w1 = tfWrite(st, "{\"root\":1}", w0.version);
    TF_ASSERT(w1.status == STORE_OK && tfLogPart(w1.version, 0));
    struct stat sb;
    TF_ASSERT(stat(d.log, &sb) == -1); /* root writes create no log */
    l = tfLoad(st);
    TF_ASSERT(l.status == STORE_OK && !strcmp(l.version, w1.version) && st->type->log_take(st) == NULL);
    sdsfree(l.data);
    storeClose(st);
    tfRemoveTree(d.dir);
}

int test_store_file(void) {
    tf_failures = 0;
    tf_base = event_base_new();
    testLogRoundTrip();
    testCreateEmptiesLog();
    testTwoStores();
    testOutsideWriter();
    testNoLog();
    event_base_free(tf_base);
    tf_base = NULL;
    return tf_failures;
}
