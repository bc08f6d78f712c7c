/* commit_io.c -- the device work of one durable write, casq's against
 * Redis's, without either server: what the disk under a directory costs.
 *
 *   build/bench/commit_io DIR [ITERATIONS]
 *
 * Patterns, each ITERATIONS times (default 3000), in DIR:
 *   redis-append   append 150 bytes to a file and fdatasync it (Redis's
 *                  appendonly with appendfsync always)
 *   casq-commit    the file store's commit (src/store_file.c): overwrite
 *                  the spare (6,600 bytes at the start, the 178-byte check
 *                  at the end of its 8 KB), fdatasync, write the lock-file
 *                  record, exchange the names (RENAME_EXCHANGE)
 *   casq-no-swap   the same without the record and the exchange (what the
 *                  names cost: on ext4 without a journal, a renamed file's
 *                  next fsync writes its directory too)
 * and prints the mean microseconds per write. A benchmark, not a test. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DOC_BYTES 6600
#define CHECK_BYTES 178
#define FILE_BYTES 8192

static double nowUs(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void die(const char *what) {
    fprintf(stderr, "commit_io: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int openIn(int dirfd, const char *name) {
    int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd == -1) die(name);
    return fd;
}

static void writeAt(int fd, const char *buf, size_t len, off_t off) {
    if (pwrite(fd, buf, len, off) != (ssize_t)len) die("pwrite");
}

static void sync1(int fd) {
    if (fdatasync(fd) == -1) die("fdatasync");
}

/* Two files of FILE_BYTES, durable, as the store has them at steady state. */
static void makeSpares(int dirfd, int fds[2], const char *buf) {
    fds[0] = openIn(dirfd, "queue.json");
    fds[1] = openIn(dirfd, "queue.json.tmp");
    for (int i = 0; i < 2; i++) {
        writeAt(fds[i], buf, FILE_BYTES, 0);
        if (fsync(fds[i]) == -1) die("fsync");
    }
    if (fsync(dirfd) == -1) die("fsync of the directory");
}

static double redisAppend(int dirfd, const char *buf, int n) {
    int fd = openIn(dirfd, "appendonly.aof");
    off_t off = 0;
    double t0 = nowUs();
    for (int i = 0; i < n; i++) {
        writeAt(fd, buf, 150, off);
        off += 150;
        sync1(fd);
    }
    double us = (nowUs() - t0) / n;
    close(fd);
    return us;
}

static double casqCommit(int dirfd, const char *buf, int n, int swap) {
    int fds[2];
    makeSpares(dirfd, fds, buf);
    int lock = openIn(dirfd, "queue.json.lock");
    double t0 = nowUs();
    for (int i = 0; i < n; i++) {
        int fd = fds[i & 1]; /* the spare: what the last exchange left at .tmp */
        writeAt(fd, buf, DOC_BYTES, 0);
        writeAt(fd, buf, CHECK_BYTES, FILE_BYTES - CHECK_BYTES);
        sync1(fd);
        if (!swap) continue;
        writeAt(lock, buf, 223, 0);
        if (renameat2(dirfd, "queue.json.tmp", dirfd, "queue.json", RENAME_EXCHANGE) == -1) die("renameat2");
    }
    double us = (nowUs() - t0) / n;
    close(fds[0]);
    close(fds[1]);
    close(lock);
    return us;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: commit_io DIR [ITERATIONS]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 3000;
    if (n < 1) n = 1;
    int dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd == -1) die(argv[1]);
    static char buf[FILE_BYTES];
    memset(buf, ' ', sizeof(buf));
    printf("redis-append %.1f us\n", redisAppend(dirfd, buf, n));
    printf("casq-commit  %.1f us\n", casqCommit(dirfd, buf, n, 1));
    printf("casq-no-swap %.1f us\n", casqCommit(dirfd, buf, n, 0));
    static const char *names[] = {"appendonly.aof", "queue.json", "queue.json.tmp", "queue.json.lock"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) unlinkat(dirfd, names[i], 0);
    close(dirfd);
    return 0;
}
