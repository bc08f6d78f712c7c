/* store_file_test.c -- the file store (src/store_file.c) in isolation.
 *
 * Two stores on one document in one process stand for two casq processes
 * (flock() locks belong to open files, so they exclude each other exactly
 * as two processes would). Checks outcomes only, never timings:
 *
 *   - create-only CAS, CAS from a stale version, CAS between two stores;
 *   - no ABA: a document put back by hand with identical bytes, a document
 *     rewritten in place, a deleted document are all conflicts, and a
 *     version token is never handed out twice;
 *   - a reserving load keeps other writers out until our write;
 *   - a reservation that is not used expires;
 *   - a stale .tmp is cleaned up, a deleted lock file is re-created;
 *   - the replaced version is recycled as the next commit's file, padded
 *     to a stable size with whitespace, but never while a reader has it
 *     open (that reader keeps the bytes it opened);
 *   - a document of own and borrowed byte ranges (write_doc) is written in order;
 *   - every file ends with a check that holds; a commit over the spare skips
 *     the directory fsync, and a load after a crash finds the newest
 *     complete version whatever the names say (a lost rename, a torn
 *     write), but keeps a backup put back and, after a clean close, an
 *     edited document;
 *   - a collected segment's file is kept and the next segment written into
 *     it (never listed, deleted at a clean close), but not while a reader
 *     has it open (that reader keeps the bytes it opened);
 *   - callbacks never run inside load()/write().
 *
 * Build and run (tests/durability/run.sh does it):
 *   cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -Isrc -o /tmp/store_file_test \
 *      tests/durability/store_file_test.c src/store_file.c src/store.c src/bio.c src/sds.c src/zmalloc.c \
 *      src/setcpuaffinity.c \
 *      $(pkg-config --cflags --libs libevent) -lz -lpthread
 * Prints one line per check; exits 1 if anything failed. */
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "server.h"
#include "store.h"

/* ------------------------------------------------------------------------
 * The bits of the server the store uses
 * --------------------------------------------------------------------- */
redisServer server;
const storeType s3StoreType = {.name = "s3"}; /* not linked in this test */

void serverLog(int level, const char *fmt, ...) {
    if (level < LL_WARNING) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "    [log] ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

void serverAssertFail(const char *estr, const char *file, int line) {
    fprintf(stderr, "ASSERTION FAILED %s:%d: %s\n", file, line, estr);
    abort();
}

void serverPanic(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    abort();
}

/* ------------------------------------------------------------------------
 * Bookkeeping
 * --------------------------------------------------------------------- */
static int passed, failed;

static void check(int ok, const char *name) {
    if (ok) passed++;
    else failed++;
    printf("%s - store_file: %s\n", ok ? "ok" : "FAIL", name);
    fflush(stdout);
}

static struct event_base *base;
static int in_call; /* set while inside load()/write() */

/* One operation's outcome. */
typedef struct result {
    int done;
    int reentrant; /* the callback ran inside the call that started it */
    storeStatus status;
    char version[128];
    sds data;
    char err[512];
} result;


static void loadCb(void *priv, storeStatus status, const char *data, size_t len, const char *version,
                   const char *err) {
    result *r = priv;
    r->done = 1;
    r->reentrant = in_call;
    r->status = status;
    snprintf(r->version, sizeof(r->version), "%s", version ? version : "");
    r->data = data ? sdsnewlen(data, len) : NULL;
    snprintf(r->err, sizeof(r->err), "%s", err ? err : "");
}

static void writeCb(void *priv, storeStatus status, const char *new_version, const char *err) {
    result *r = priv;
    r->done = 1;
    r->reentrant = in_call;
    r->status = status;
    snprintf(r->version, sizeof(r->version), "%s", new_version ? new_version : "");
    snprintf(r->err, sizeof(r->err), "%s", err ? err : "");
}

static void waitFor(result *r) {
    while (!r->done) event_base_loop(base, EVLOOP_ONCE);
}

static result doLoad(store *st) {
    result r = {0};
    in_call = 1;
    st->type->load(st, loadCb, &r);
    in_call = 0;
    waitFor(&r);
    return r;
}

static void startWrite(store *st, const char *data, const char *expect, result *r) {
    memset(r, 0, sizeof(*r));
    in_call = 1;
    st->type->write(st, sdsnew(data), expect, writeCb, r);
    in_call = 0;
}

static result doWrite(store *st, const char *data, const char *expect) {
    result r;
    startWrite(st, data, expect, &r);
    waitFor(&r);
    return r;
}

static sds readFile(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sds s = sdsempty();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) s = sdscatlen(s, buf, n);
    fclose(f);
    return s;
}

static void writeFile(const char *path, const char *data) {
    FILE *f = fopen(path, "wb");
    fputs(data, f);
    fclose(f);
}

/* The check at the end of a file the store wrote (see store_file.c):
 * '\r', 176 bits as spaces and tabs, '\n'. Returns 1 if it is there and
 * holds for the file's first *len bytes. */
#define CHECK_LEN 178
static int checkHolds(const char *s, size_t n, unsigned long long *seq, size_t *len) {
    if (n < CHECK_LEN) return 0;
    const char *p = s + n - CHECK_LEN;
    if (p[0] != '\r' || p[CHECK_LEN - 1] != '\n') return 0;
    unsigned long long f[5] = {0};
    const int bits[5] = {8, 64, 40, 32, 32};
    int b = 1;
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < bits[k]; i++, b++) {
            if (p[b] != ' ' && p[b] != '\t') return 0;
            f[k] = f[k] << 1 | (p[b] == '\t');
        }
    if (f[0] != 0xC5 || f[2] > n - CHECK_LEN) return 0;
    unsigned char tail[17];
    for (int i = 0; i < 8; i++) tail[i] = (unsigned char)(f[1] >> (8 * i));
    for (int i = 0; i < 5; i++) tail[8 + i] = (unsigned char)(f[2] >> (8 * i));
    for (int i = 0; i < 4; i++) tail[13 + i] = (unsigned char)(f[3] >> (8 * i));
    uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)s, (uInt)f[2]);
    if ((uint32_t)crc32(crc, tail, sizeof(tail)) != (uint32_t)f[4]) return 0;
    if (seq) *seq = f[1];
    if (len) *len = (size_t)f[2];
    return 1;
}

/* The document is data, followed by the padding a recycled file may carry
 * (spaces) and the check, and nothing else -- or, written by hand, data
 * alone. */
static int fileEquals(const char *path, const char *data) {
    sds s = readFile(path);
    size_t len = strlen(data), doclen = 0;
    if (s && sdslen(s) == len && !memcmp(s, data, len)) {
        sdsfree(s);
        return 1;
    }
    int eq = s && checkHolds(s, sdslen(s), NULL, &doclen) && doclen == len && !memcmp(s, data, len);
    for (size_t i = len; eq && i + CHECK_LEN < sdslen(s); i++) eq = s[i] == ' ';
    sdsfree(s);
    return eq;
}

/* Changes one byte in the middle of the document at path, in place,
 * leaving its check as it was (a torn write, or an edit). */
static void tamper(const char *path) {
    int fd = open(path, O_RDWR);
    char c;
    if (pread(fd, &c, 1, 3) == 1) {
        c = c == 'x' ? 'y' : 'x';
        if (pwrite(fd, &c, 1, 3) != 1) perror("tamper");
    }
    close(fd);
}

static void swapFiles(const char *a, const char *b, const char *via) {
    if (rename(a, via) || rename(b, a) || rename(via, b)) perror("swap");
}

static long long infoField(store *st, const char *field) {
    sds info = st->type->info(st, sdsempty());
    const char *p = strstr(info, field);
    long long v = p ? atoll(p + strlen(field) + 1) : -1;
    sdsfree(info);
    return v;
}

/* Reads what fd has from the start. */
static sds readFd(int fd) {
    sds s = sdsempty();
    char buf[4096];
    ssize_t n;
    off_t off = 0;
    while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
        s = sdscatlen(s, buf, (size_t)n);
        off += n;
    }
    return s;
}

static void segDoneCb(void *priv, storeStatus status, const char *err) {
    result *r = priv;
    r->done = 1;
    r->reentrant = in_call;
    r->status = status;
    snprintf(r->err, sizeof(r->err), "%s", err ? err : "");
}

static void segGetCb(void *priv, storeStatus status, const char *data, size_t len, const char *err) {
    result *r = priv;
    segDoneCb(priv, status, err);
    r->data = data ? sdsnewlen(data, len) : NULL;
}

static void segListCb(void *priv, storeStatus status, const char *const *names, const long long *mtimes,
                      size_t count, const char *err) {
    (void)mtimes;
    result *r = priv;
    segDoneCb(priv, status, err);
    r->data = sdsempty();
    for (size_t i = 0; i < count; i++) r->data = sdscatprintf(r->data, "%s ", names[i]);
}

static result segPut(store *st, const char *name, const char *data) {
    result r = {0};
    in_call = 1;
    st->type->seg_put(st, name, sdsnew(data), segDoneCb, &r);
    in_call = 0;
    waitFor(&r);
    return r;
}

static result segDel(store *st, const char *name) {
    result r = {0};
    st->type->seg_del(st, name, segDoneCb, &r);
    waitFor(&r);
    return r;
}

/* The segment's bytes, NULL if there is none. */
static sds segGet(store *st, const char *name) {
    result r = {0};
    st->type->seg_get(st, name, segGetCb, &r);
    waitFor(&r);
    return r.status == STORE_OK ? r.data : NULL;
}

static sds segList(store *st) {
    result r = {0};
    st->type->seg_list(st, segListCb, &r);
    waitFor(&r);
    return r.data;
}

/* How many entries directory d holds (. and .. aside). */
static int dirCount(const char *d) {
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *de;
    while (dp && (de = readdir(dp)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    if (dp) closedir(dp);
    return n;
}

/* Collected segments' files are written again: never under a reader. */
static void testSegmentFilesKept(const char *path) {
    sds err = NULL;
    store *st = storeOpen(path, base, &err);
    check(st != NULL, "segments: open");
    if (!st) return;
    char segdir[600];
    snprintf(segdir, sizeof(segdir), "%s.segments", path);
    result r = segPut(st, "segA", "{\"A\":\"a much longer segment than the next one\"}");
    check(r.status == STORE_OK && !r.reentrant, "segments: put, asynchronously");
    r = segDel(st, "segA");
    sds a = segGet(st, "segA");
    sds list = segList(st);
    check(r.status == STORE_OK && !a && !strcmp(list, "") && dirCount(segdir) == 1 &&
              infoField(st, "store_file_segment_files_kept") == 1,
          "segments: a deleted segment is gone by name, its file kept and not listed");
    sdsfree(list);
    r = segPut(st, "segB", "{\"B\":1}");
    sds b = segGet(st, "segB");
    check(r.status == STORE_OK && b && !strcmp(b, "{\"B\":1}") && dirCount(segdir) == 1 &&
              infoField(st, "store_file_segment_files_reused") == 1,
          "segments: the next segment is written into the kept file, cut to its length");
    sdsfree(b);

    /* A reader slower than the grace period has segB open: its file is
     * kept at the deletion, but not written again. */
    char bpath[700];
    snprintf(bpath, sizeof(bpath), "%s/segB", segdir);
    int reader = open(bpath, O_RDONLY);
    segDel(st, "segB");
    r = segPut(st, "segC", "{\"C\":2}");
    sds held = readFd(reader);
    sds c = segGet(st, "segC");
    check(r.status == STORE_OK && c && !strcmp(c, "{\"C\":2}") && !strcmp(held, "{\"B\":1}") &&
              dirCount(segdir) == 1 && infoField(st, "store_file_segment_files_reused") == 1,
          "segments: a kept file someone has open is deleted, not reused (the reader keeps its bytes)");
    sdsfree(held);
    sdsfree(c);
    close(reader);

    /* A previous life's kept file is listed (the sweep deletes it);
     * ours are deleted at a clean close. */
    char stale[700];
    snprintf(stale, sizeof(stale), "%s/.free.0123456789abcdef.7", segdir);
    writeFile(stale, "old");
    segDel(st, "segC");
    list = segList(st);
    check(strstr(list, ".free.0123456789abcdef.7") && !strstr(list, "segC") && dirCount(segdir) == 2,
          "segments: another store's kept file is listed, ours is not");
    sdsfree(list);
    segDel(st, ".free.0123456789abcdef.7");
    storeClose(st);
    check(dirCount(segdir) == 0, "segments: a clean close deletes the kept files");
    rmdir(segdir);
}

int main(void) {
    char dir[] = "/tmp/casq-storefile-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[512], tmp[600], lockp[600], url[600];
    snprintf(path, sizeof(path), "%s/queue.json", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    snprintf(lockp, sizeof(lockp), "%s.lock", path);
    snprintf(url, sizeof(url), "file://%s", path);
    base = event_base_new();

    sds err = NULL;
    store *a = storeOpen(url, base, &err);
    store *b = storeOpen(path, base, &err); /* plain path form */
    check(a && b, "open by file:// URL and by plain path");
    if (!a || !b) return 1;
    check(!strcmp(a->location, path), "location is the absolute path");
    store *bad = storeOpen("s4://bucket/key", base, &err);
    check(!bad && err && strstr(err, "unsupported store URL"), "an unknown scheme is refused, not taken as a file");
    sdsfree(err);
    err = NULL;
    bad = storeOpen("/nonexistent-dir-casq/queue.json", base, &err);
    check(!bad && err && strstr(err, "nonexistent-dir-casq"), "a missing directory is reported at open");
    sdsfree(err);

    /* Create. */
    result r = doLoad(a);
    check(r.status == STORE_NOT_FOUND && !r.reentrant, "load of a missing document: NOT_FOUND, asynchronously");
    result w1 = doWrite(a, "{\"v\":1}", NULL);
    check(w1.status == STORE_OK && w1.version[0] && !w1.reentrant, "create-only write");
    check(fileEquals(path, "{\"v\":1}"), "the document holds exactly the bytes written");
    result w = doWrite(b, "{\"v\":\"b\"}", NULL);
    check(w.status == STORE_CONFLICT && fileEquals(path, "{\"v\":1}"), "a second create is a conflict");

    /* CAS. */
    result w2 = doWrite(a, "{\"v\":2}", w1.version);
    check(w2.status == STORE_OK && strcmp(w2.version, w1.version), "CAS from the current version, new token");
    w = doWrite(a, "{\"v\":\"stale\"}", w1.version);
    check(w.status == STORE_CONFLICT && fileEquals(path, "{\"v\":2}"), "CAS from a stale version is a conflict");
    r = doLoad(b);
    check(r.status == STORE_OK && !strcmp(r.version, w2.version) && !strcmp(r.data, "{\"v\":2}"),
          "another store loads the same bytes and version");
    sdsfree(r.data);
    result w3 = doWrite(b, "{\"v\":3}", w2.version);
    check(w3.status == STORE_OK, "the other store writes");
    w = doWrite(a, "{\"v\":\"a\"}", w2.version);
    check(w.status == STORE_CONFLICT && fileEquals(path, "{\"v\":3}"), "the first store now conflicts");

    /* No ABA: put the same bytes back by hand (a new file renamed over). */
    char copy[700];
    snprintf(copy, sizeof(copy), "%s/copy", dir);
    writeFile(copy, "{\"v\":3}");
    rename(copy, path);
    w = doWrite(b, "{\"v\":4}", w3.version);
    check(w.status == STORE_CONFLICT && fileEquals(path, "{\"v\":3}"),
          "a document replaced by hand, even with identical bytes, is a conflict");
    r = doLoad(b);
    check(r.status == STORE_OK && strcmp(r.version, w3.version), "loading it mints a new version");
    sdsfree(r.data);
    result w4 = doWrite(b, "{\"v\":4}", r.version);
    check(w4.status == STORE_OK, "CAS from the minted version");

    /* Rewritten in place (same inode, different size). */
    writeFile(path, "{\"v\":44444}");
    w = doWrite(b, "{\"v\":5}", w4.version);
    check(w.status == STORE_CONFLICT && fileEquals(path, "{\"v\":44444}"), "a document edited in place is a conflict");
    r = doLoad(b);
    sdsfree(r.data);

    /* Deleted. */
    unlink(path);
    w = doWrite(b, "{\"v\":6}", r.version);
    check(w.status == STORE_CONFLICT && access(path, F_OK) != 0, "a deleted document is a conflict, not re-created");
    r = doLoad(b);
    check(r.status == STORE_NOT_FOUND, "and loads as NOT_FOUND");
    result w6 = doWrite(b, "{\"v\":6}", NULL);
    check(w6.status == STORE_OK, "create again");

    /* Stale .tmp, deleted lock file. */
    writeFile(tmp, "junk");
    r = doLoad(a);
    check(r.status == STORE_OK && access(tmp, F_OK) != 0, "a load removes a stale .tmp");
    sdsfree(r.data);
    unlink(lockp);
    result w7 = doWrite(a, "{\"v\":7}", r.version);
    check(w7.status == STORE_CONFLICT, "without its record the version is unknown: conflict, never a blind write");
    r = doLoad(a);
    check(r.status == STORE_OK && access(lockp, F_OK) == 0, "the lock file and record are re-created by a load");
    sdsfree(r.data);
    w7 = doWrite(a, "{\"v\":7}", r.version);
    check(w7.status == STORE_OK, "CAS works again");

    /* A reserving load keeps the other writer out until our write. */
    result ra = {0};
    a->type->load_reserve(a, 60000, loadCb, &ra);
    waitFor(&ra);
    sdsfree(ra.data);
    result wb;
    startWrite(b, "{\"v\":\"b-late\"}", w7.version, &wb); /* b still has the right version now */
    result wa = doWrite(a, "{\"v\":8}", ra.version);
    waitFor(&wb);
    /* The other writer's conflict names the version it found: ours. (The
     * order in which the loop delivers the two callbacks says nothing.) */
    char ours[9];
    snprintf(ours, sizeof(ours), "%.8s", wa.version);
    check(wa.status == STORE_OK && wb.status == STORE_CONFLICT && strstr(wb.err, ours),
          "after a reserving load, our write goes first and the other writer conflicts");
    check(fileEquals(path, "{\"v\":8}"), "the document is ours");

    /* An unused reservation expires. */
    ra = (result){0};
    a->type->load_reserve(a, 50, loadCb, &ra);
    waitFor(&ra);
    sdsfree(ra.data);
    wb = doWrite(b, "{\"v\":9}", wa.version);
    check(wb.status == STORE_OK && fileEquals(path, "{\"v\":9}"), "an unused reservation expires");

    /* Recycling: the replaced version becomes the next commit's file. */
    r = doLoad(a);
    check(r.status == STORE_OK, "load before the recycling checks");
    sdsfree(r.data);
    long long inplace0 = infoField(a, "store_file_writes_in_place");
    result v1 = doWrite(a, "{\"v\":\"one\"}", r.version);
    result v2 = doWrite(a, "{\"v\":\"two\"}", v1.version);
    check(v1.status == STORE_OK && v2.status == STORE_OK && access(tmp, F_OK) == 0,
          "after a commit the replaced version stays as the spare .tmp");
    result v3 = doWrite(a, "{\"v\":\"three\"}", v2.version);
    /* v1 wrote a new file (a load drops the spare); v2 and v3 recycled. */
    check(v3.status == STORE_OK && infoField(a, "store_file_writes_in_place") == inplace0 + 2,
          "the next commits overwrite the spare in place");
    check(fileEquals(path, "{\"v\":\"three\"}"), "a recycled document: the bytes, then only whitespace padding");
    struct stat s3a, s3b;
    stat(path, &s3a);
    result v4 = doWrite(a, "{\"v\":\"four\"}", v3.version);
    result v5 = doWrite(a, "{\"v\":\"fiv\"}", v4.version);
    stat(path, &s3b);
    check(v5.status == STORE_OK && s3a.st_size == s3b.st_size && fileEquals(path, "{\"v\":\"fiv\"}"),
          "a document that fits keeps the file's size (no metadata for the fdatasync)");
    r = doLoad(b);
    check(r.status == STORE_OK && !strcmp(r.version, v5.version) && !strncmp(r.data, "{\"v\":\"fiv\"}", 11),
          "a padded document loads with its version");
    sdsfree(r.data);
    r = doLoad(a);
    sdsfree(r.data);
    /* A reader opens the document; after the next commit its file is the
     * spare, which the commit after must not overwrite under the reader. */
    long long inplace1 = infoField(a, "store_file_writes_in_place");
    int reader = open(path, O_RDONLY);
    sds before = readFd(reader);
    result v6 = doWrite(a, "{\"v\":\"six\"}", r.version);
    result v7 = doWrite(a, "{\"v\":\"seven\"}", v6.version);
    sds after = readFd(reader);
    check(v7.status == STORE_OK && !strcmp(before, after) && fileEquals(path, "{\"v\":\"seven\"}"),
          "a reader that has the replaced version open keeps its bytes");
    check(infoField(a, "store_file_writes_in_place") == inplace1, "... because that commit wrote a new file");
    result v8 = doWrite(a, "{\"v\":\"eight\"}", v7.version);
    sdsfree(after);
    after = readFd(reader);
    check(v8.status == STORE_OK && !strcmp(before, after) && infoField(a, "store_file_writes_in_place") == inplace1 + 1,
          "the next commit recycles the version that nobody holds; the reader still has its bytes");
    sdsfree(before);
    sdsfree(after);
    close(reader);
    result v9 = doWrite(a, "{\"v\":\"nine\"}", v8.version);
    check(v9.status == STORE_OK && infoField(a, "store_file_writes_in_place") == inplace1 + 2 &&
              fileEquals(path, "{\"v\":\"nine\"}"),
          "and so does the one after");

    /* Documents of random sizes, growing and shrinking, through both
     * recycled files: every version on disk is exactly its bytes plus
     * whitespace padding (no byte of an older, longer version survives),
     * and loads back. */
    srand(12345);
    const char *ver = v9.version;
    char verbuf[128];
    int random_ok = 1;
    for (int i = 0; i < 60 && random_ok; i++) {
        size_t n = (size_t)(rand() % 3 == 0 ? rand() % 20000 : rand() % 300) + 8;
        sds doc = sdsnew("{\"pad\":\"");
        for (size_t k = 0; k < n; k++) doc = sdscatlen(doc, &"abcdefghij"[(i + k) % 10], 1);
        doc = sdscat(doc, "\"}");
        result w = doWrite(a, doc, ver);
        random_ok = w.status == STORE_OK && fileEquals(path, doc);
        snprintf(verbuf, sizeof(verbuf), "%s", w.version);
        ver = verbuf;
        if (random_ok && i % 10 == 9) {
            result l = doLoad(b);
            random_ok = l.status == STORE_OK && l.data && !strncmp(l.data, doc, sdslen(doc));
            sdsfree(l.data);
            r = doLoad(a); /* the writer reloads too (and drops its spare) */
            sdsfree(r.data);
            snprintf(verbuf, sizeof(verbuf), "%s", r.version);
        }
        sdsfree(doc);
    }
    check(random_ok, "60 documents of random sizes: each on disk is its bytes plus padding only, and loads back");

    /* Someone writes into the spare behind our back (same size): the next
     * commit must not trust what it knew of that file's padding. */
    {
        /* Commit short documents until the spare is a padded file this
         * store wrote (the next commit keeps its size): its padding is
         * then trusted. */
        result s2 = doWrite(a, "{\"spare\":1}", ver);
        struct stat st;
        for (int i = 0; i < 6 && (stat(tmp, &st) != 0 || st.st_size < CHECK_LEN + 64); i++) {
            char v[128];
            snprintf(v, sizeof(v), "%s", s2.version);
            s2 = doWrite(a, "{\"spare\":2}", v);
        }
        int tampered = 0;
        if (stat(tmp, &st) == 0 && st.st_size >= CHECK_LEN + 64) {
            /* In the padding, before the check (which is always written). */
            int fd = open(tmp, O_WRONLY);
            tampered = fd != -1 && pwrite(fd, "XXXXXXXX", 8, st.st_size - CHECK_LEN - 20) == 8;
            if (fd != -1) close(fd);
        }
        result s3 = doWrite(a, "{\"spare\":3}", s2.version);
        check(tampered && s3.status == STORE_OK && fileEquals(path, "{\"spare\":3}"),
              "a spare changed behind the store's back is rewritten whole");
        snprintf(verbuf, sizeof(verbuf), "%s", s3.version);
    }

    /* A document of byte ranges: own bytes and borrowed texts, written in
     * order (write_doc); the caller keeps the document. */
    {
        static const char borrowed1[] = "\"borrowed one\",";
        sds borrowed2 = sdsnew("\"borrowed two\"");
        storeDoc *d = storeDocNew(16);
        d->own = sdscat(d->own, "{\"parts\":[");
        storeDocRef(d, borrowed1, strlen(borrowed1));
        d->own = sdscat(d->own, "\"own\",");
        storeDocRef(d, borrowed2, sdslen(borrowed2));
        d->own = sdscat(d->own, "]}");
        storeDocSeal(d);
        sds flat = storeDocFlatten(d);
        result w;
        memset(&w, 0, sizeof(w));
        in_call = 1;
        a->type->write_doc(a, d, ver, writeCb, &w);
        in_call = 0;
        waitFor(&w);
        check(w.status == STORE_OK && d->nchunks == 5 && d->len == sdslen(flat) &&
                  !strcmp(flat, "{\"parts\":[\"borrowed one\",\"own\",\"borrowed two\"]}") && fileEquals(path, flat),
              "a document of own and borrowed byte ranges is written in order");
        snprintf(verbuf, sizeof(verbuf), "%s", w.version);
        sdsfree(flat);
        sdsfree(borrowed2);
        storeDocFree(d);
    }

    /* One flush per commit, and what a load makes of a crash after one
     * (store_file.c, "One flush per commit"). A store that is not closed
     * stands for a process that died: its record stays dirty. */
    {
        char via[700], rejected[700];
        snprintf(via, sizeof(via), "%s.via", path);
        snprintf(rejected, sizeof(rejected), "%s.rejected", path);
        storeClose(a);
        storeClose(b);
        unlink(path);
        unlink(tmp);
        unlink(lockp);
        store *c = storeOpen(path, base, &err);
        result l = doLoad(c);
        result c1 = doWrite(c, "{\"n\":1}", NULL);
        result c2 = doWrite(c, "{\"n\":2}", c1.version);
        result c3 = doWrite(c, "{\"n\":3}", c2.version);
        check(l.status == STORE_NOT_FOUND && c3.status == STORE_OK && infoField(c, "store_file_writes_one_flush") == 1,
              "a commit that recycles the spare skips the directory fsync; creating a file does not");
        sds rec = readFile(lockp);
        check(rec && strstr(rec, "state=dirty"), "the record says dirty while such commits may happen");
        sdsfree(rec);

        /* The rename of the last commit did not reach the disk. */
        swapFiles(path, tmp, via);
        store *d = storeOpen(path, base, &err);
        l = doLoad(d);
        check(l.status == STORE_OK && l.data && !strcmp(l.data, "{\"n\":3}") && fileEquals(path, "{\"n\":3}"),
              "a lost rename: the newer complete version in .tmp is loaded and put at the path");
        sdsfree(l.data);
        result d4 = doWrite(d, "{\"n\":4}", l.version);
        result d5 = doWrite(d, "{\"n\":5}", d4.version);
        sds backup = readFile(path);

        /* A write over the spare cut short, its check already written. */
        result d6 = doWrite(d, "{\"n\":6}", d5.version);
        tamper(path);
        store *e = storeOpen(path, base, &err);
        l = doLoad(e);
        check(d6.status == STORE_OK && l.status == STORE_OK && l.data && !strcmp(l.data, "{\"n\":5}") &&
                  access(rejected, F_OK) == 0,
              "a torn document: the complete version it was written over is loaded, the torn one kept aside");
        sdsfree(l.data);

        /* ... cut short before its check was written: the old check no
         * longer holds, and .tmp is the newer version. */
        result e7 = doWrite(e, "{\"n\":7}", l.version);
        result e8 = doWrite(e, "{\"n\":8}", e7.version);
        swapFiles(path, tmp, via);
        tamper(path);
        store *f = storeOpen(path, base, &err);
        l = doLoad(f);
        check(e8.status == STORE_OK && l.status == STORE_OK && l.data && !strcmp(l.data, "{\"n\":8}"),
              "a torn spare under the document's name: the newer complete .tmp is loaded");
        sdsfree(l.data);

        /* A backup put back while the record is dirty: the .tmp does not
         * follow it, so the backup is the document. */
        result f9 = doWrite(f, "{\"n\":9}", l.version);
        result f10 = doWrite(f, "{\"n\":10}", f9.version);
        FILE *bf = fopen(path, "wb");
        fwrite(backup, 1, sdslen(backup), bf);
        fclose(bf);
        store *g = storeOpen(path, base, &err);
        l = doLoad(g);
        check(f10.status == STORE_OK && l.status == STORE_OK && l.data && !strcmp(l.data, "{\"n\":5}") &&
                  access(tmp, F_OK) != 0,
              "a backup put back: loaded, the newer unrelated .tmp removed");
        sdsfree(l.data);

        /* A document written by something else (no check) while the
         * record is dirty: loaded as it is; the spare is kept. */
        result g20 = doWrite(g, "{\"n\":20}", l.version);
        result g21 = doWrite(g, "{\"n\":21}", g20.version);
        writeFile(path, "{\"hand\":1}");
        store *x = storeOpen(path, base, &err);
        l = doLoad(x);
        check(g21.status == STORE_OK && l.status == STORE_OK && l.data && !strcmp(l.data, "{\"hand\":1}") &&
                  access(tmp, F_OK) == 0,
              "a document without a check is loaded as it is, even when the record is dirty; the .tmp is kept");
        sdsfree(l.data);

        /* A clean close: the next load trusts the names, so a document
         * edited by hand (its check no longer holding) is loaded as is. */
        result g11 = doWrite(x, "{\"n\":11}", l.version);
        result g12 = doWrite(x, "{\"n\":12}", g11.version);
        storeClose(x);
        rec = readFile(lockp);
        check(g12.status == STORE_OK && rec && strstr(rec, "state=clean"), "a clean close marks the record clean");
        sdsfree(rec);
        tamper(path);
        store *h = storeOpen(path, base, &err);
        l = doLoad(h);
        check(l.status == STORE_OK && l.data && !strncmp(l.data, "{\"nx:12}", 8),
              "after a clean close, an edited document is loaded as it is");
        sdsfree(l.data);
        result h13 = doWrite(h, "{\"n\":13}", l.version);
        rec = readFile(lockp);
        check(h13.status == STORE_OK && rec && strstr(rec, "state=dirty") && fileEquals(path, "{\"n\":13}"),
              "the first write after a clean close makes the record dirty again");
        sdsfree(rec);

        /* Edited in place under a running store, its check left at the
         * end: no crash came since this store's first load, so that is an
         * edit, not a torn write -- loaded as it is, never rolled back to
         * the spare (which would lose the last write); the spare stays. */
        result h14 = doWrite(h, "{\"n\":14}", h13.version);
        unlink(rejected);
        tamper(path);
        l = doLoad(h);
        check(h14.status == STORE_OK && l.status == STORE_OK && l.data && !strncmp(l.data, "{\"nx:14}", 8) &&
                  access(tmp, F_OK) == 0 && access(rejected, F_OK) != 0,
              "a later load of a running store takes a document edited in place as it is; the spare is kept");
        sdsfree(l.data);
        sdsfree(backup);
        storeClose(c);
        storeClose(d);
        storeClose(e);
        storeClose(f);
        storeClose(g);
        storeClose(h);
        unlink(rejected);
        a = storeOpen(path, base, &err);
        b = storeOpen(path, base, &err);
    }

    /* Tokens never repeat: every write's token is new. */
    int dup = 0;
    const char *wt[] = {w1.version, w2.version, w3.version, w4.version, w6.version, w7.version, wa.version,
                        wb.version};
    for (size_t i = 0; i < sizeof(wt) / sizeof(*wt); i++)
        for (size_t j = i + 1; j < sizeof(wt) / sizeof(*wt); j++)
            if (!strcmp(wt[i], wt[j])) dup = 1;
    check(!dup, "every write has a token never seen before");

    storeClose(a);
    storeClose(b);
    testSegmentFilesKept(path);
    event_base_free(base);
    unlink(path);
    unlink(lockp);
    unlink(tmp);
    rmdir(dir);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
