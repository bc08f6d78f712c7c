/* store_file.c -- the state document in a local file (design.md §6).
 *
 * The embedded default store: `queue.json` in the data directory. Every
 * operation runs on one worker thread (blocking file I/O and fsync never
 * touch the event loop); its completion is handed to the loop through a
 * pipe, and the callback runs on the main thread.
 *
 * ------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------
 *   queue.json        the document: the bytes the commit module gave,
 *                     maybe followed by spaces (padding, see below), and
 *                     a check (see below): JSON text whatever follows it
 *                     is whitespace, so jq and any JSON parser read it
 *   queue.json.tmp    the next version while it is being written; between
 *                     commits, the version before the current one, kept
 *                     as the file the next commit overwrites (see below)
 *                     (kept beside a document this store did not write
 *                     -- emptied, cut short, restored -- until the next
 *                     write: it may be the last complete version left)
 *   queue.json.lock   the lock, and the *version record*:
 *                       casq-file-store 2 token=<32 hex> ino=<n> size=<n> mtime=<s>.<ns> state=dirty|clean
 *                     (format 1, from earlier versions, has no state:
 *                     clean)
 *   queue.json.rejected  a document that failed its check after a crash,
 *                     kept for the operator (see "One flush per commit")
 *   queue.json.log    the commit log: records appended after the document
 *                     (the root), emptied by the next root write (see "The
 *                     commit log")
 *
 * ------------------------------------------------------------------------
 * Compare-and-set between processes
 * ------------------------------------------------------------------------
 * Every load and write holds an exclusive flock() on queue.json.lock from
 * its check to its last step, so two casq processes on one host (or two
 * stores in one process) never interleave. flock() and not fcntl() locks:
 * fcntl locks belong to the process and vanish when *any* descriptor of the
 * file is closed. A lock on a lock file that someone unlinked excludes
 * nobody, so after locking we check that the descriptor is still the file
 * at the path, and start again if not.
 *
 * The version token is a random 128-bit value minted for every write (and
 * for a document the store finds without a matching record). Random tokens
 * are never reused, so there is no ABA: a broker that read version T can
 * only ever match T itself, never a later document that happens to look
 * like it (a counter would come back after a restore; an inode number is
 * recycled by the file system; a content hash repeats for equal bytes).
 *
 * The record also names the identity of the document file it describes:
 * inode, size and modification time. The current version of the document
 * is the record's token *only if that identity matches the file at the
 * path*; otherwise the version is unknown, every CAS against it fails, and
 * the next load mints a fresh token. This catches whatever bypassed the
 * protocol: an operator restoring a backup with mv/cp, an editor, and the
 * crash cases below.
 *
 * ------------------------------------------------------------------------
 * A write, and what a crash between its steps leaves
 * ------------------------------------------------------------------------
 *   1. lock; read record; stat queue.json; compare with expect_version
 *   2. write queue.json.tmp, fdatasync it            (data durable first)
 *   3. pwrite the new record: new token + the tmp file's identity
 *   4. exchange queue.json.tmp and queue.json        (the atomic switch;
 *      a plain rename when there is no document yet, or the file system
 *      cannot exchange)
 *   5. fsync the directory                           (the switch durable;
 *      skipped when both names were durable already, see "One flush per
 *      commit")
 *   6. ftruncate queue.json.log to 0                 (see "The commit log")
 *   7. unlock; report OK -- only now may the commit be acknowledged
 *
 * Recycling the replaced version: a new file for every commit costs the
 * file system a block allocation in the commit (a journal entry the
 * fdatasync of step 2 waits for) and the freeing of the old file's blocks.
 * Exchanging the names instead of renaming over the document keeps the
 * replaced version as queue.json.tmp, and the next commit overwrites its
 * blocks in place; and as long as the new version fits, the file keeps its
 * size (the document is followed by spaces up to it -- JSON allows
 * trailing whitespace), so the fdatasync has no metadata to commit at
 * all. Measured on ext4 this takes a commit from ~300 to ~150-190 us for
 * 4-130 KB, and from 1.35 to 0.65 ms for 1 MB. The spare is never
 * overwritten while anyone else has it open -- a reader that opened
 * queue.json (cp, jq, a backup) before the last commit still has it, and
 * a write lease, which the kernel grants only to the sole opener, tells
 * us so. Then the spare is dropped and the commit writes a new file.
 *
 * ------------------------------------------------------------------------
 * The check
 * ------------------------------------------------------------------------
 * Every file this store writes ends with 178 bytes of JSON whitespace: a
 * CR, 176 bits written as spaces (0) and tabs (1), a LF. The bits, most
 * significant first: 8 magic (0xC5), 64 seq, 40 len, 32 prev, 32 crc --
 * the version's number in a chain (1 = the first this store wrote over a
 * document without a check), the document's length (the spaces up to the
 * check are padding), the crc of the version it replaced, and the CRC-32
 * of the document's bytes followed by seq (8 bytes), len (5) and prev (4),
 * little-endian. A check that holds says: this file is one complete
 * version, and which version it follows.
 *
 * ------------------------------------------------------------------------
 * One flush per commit
 * ------------------------------------------------------------------------
 * Step 5 costs a second device flush per commit (on this project's test
 * machines the directory fsync takes as long as the data's fdatasync, and
 * as much CPU). A commit that overwrote the spare in place and exchanged
 * the names skips it: both names were durable before, each names one of
 * the two files, and the data written is durable -- only *which* name
 * points at which file may lag on disk. So after a power loss the newest
 * complete version can be under either name, and the other file can be
 * the spare a later write had begun to overwrite (torn). The first load
 * of a process (fileRecover; later ones have seen no crash since) therefore
 * reads both and puts at the path:
 *   - queue.json.tmp, if its check holds and it follows queue.json's
 *     version (seq + 1, prev = queue.json's crc): the rename was lost;
 *   - queue.json.tmp, if queue.json's check does not hold and either of
 *     the two follows the other: queue.json is the spare a crash cut
 *     short (its new check written or not); it is kept as .rejected;
 *   - queue.json otherwise (a .tmp that does not follow it is an older
 *     spare, or the document was put back from a backup).
 * This reading of the names is only needed, and only done, when writes
 * may have skipped the fsync: the record says "dirty". The first write
 * after a record that is not dirty writes "dirty" and fsyncs the lock
 * file before anything else can skip a fsync, and a clean close (the
 * writer of the current version, at shutdown) fsyncs the directory and
 * then writes "clean" -- so after a clean shutdown a document edited by
 * hand is loaded as it is, even if its check no longer holds. A torn
 * write that happens to leave valid JSON is thus never taken for the
 * document: its check does not hold.
 *
 * Process crash (the kernel releases the lock; the page cache survives):
 *   before 3: old document, old record: nothing happened (a stale .tmp is
 *             removed by the next load).
 *   3..4:     old document, record names the tmp file: identity mismatch, so
 *             the version is unknown. Whoever holds the old token gets a
 *             conflict and reloads the old document -- which is intact and
 *             holds everything ever acknowledged. Erring towards a spurious
 *             conflict is safe; a spurious match would not be.
 *   4..7:     new document, matching record: the write happened; it was
 *             never acknowledged (the writer died before step 7), which is
 *             allowed -- an unacknowledged change may or may not survive
 *             (a log not yet emptied holds records the new root holds).
 * Power loss (no process survives, so nobody holds a token afterwards): the
 * record is not fsynced at every write (that would double the cost of a
 * commit for nothing): any combination of old/new document and old/new
 * record may come back. A matching pair is a consistent version; a
 * mismatched pair is an unknown version and gets a fresh token at the
 * next load. The newest complete version is found as "One flush per
 * commit" says: its data was fdatasync'ed before the switch.
 *
 * Failures: an error before step 4 leaves the document as it was (the
 * record is restored if step 3 already ran), reported as STORE_ERROR. If
 * the fsync of step 5 fails, the new document is in place but maybe not
 * durable: that is reported as STORE_ERROR (not acknowledged), and the
 * store remembers the write as *unconfirmed*, so that the commit module's
 * retry -- which still names the previous version -- is accepted as a CAS
 * from that version instead of a conflict with itself.
 *
 * Taking over a busy document: a broker under load commits every few
 * hundred microseconds, so a new node that loads, parses and then writes
 * would find a newer version every time. load_reserve() keeps the lock
 * from the load to this store's next write (bounded by a deadline, after
 * which the worker lets it go): the take-over write cannot be overtaken,
 * and the old broker's pending commit waits, then fails its CAS.
 *
 * ------------------------------------------------------------------------
 * The commit log
 * ------------------------------------------------------------------------
 * A commit may append a record to queue.json.log instead of writing the
 * whole root: opaque lines from the commit module, which the store never
 * parses. A version names the root *and* the log after it:
 *     <token>:<n>      the record's token, and the log's length in bytes
 *                      (0: empty or missing)
 * and every CAS compares both: the root as above, and the log's size must
 * be n -- a longer log has records someone appended after that version (the
 * same root, another store), a shorter one was cut behind our back. A
 * version without ":<n>" names an empty log; one that is not of this form
 * matches nothing. A load reads the log under the same lock as the root
 * (one consistent version) and keeps its bytes for log_take().
 *
 * An append, under the lock as every job:
 *   1. the root checked as a write's step 1 checks it (never accepting the
 *      retry of an unconfirmed write: a conflict and a reload are safe)
 *   2. open the log (the descriptor is kept between appends, and opened
 *      again if the path no longer names its file); its size must be n
 *   3. the first time through a descriptor, fsync the directory: a record
 *      relies on the log's name being durable
 *   4. pwrite the record at n, fdatasync
 *   5. unlock; report OK with <token>:<n + record bytes>
 * A crash before 4 leaves the log as it was. During 4 it may leave part of
 * the record at the end -- a torn last record, never acknowledged since
 * the fdatasync had not returned; the loader ignores a torn last record.
 * After the fdatasync the record is durable. An I/O error cuts the log
 * back to n (best effort) and reports STORE_ERROR.
 *
 * A root write (a checkpoint) empties the log once the root is durable
 * (step 6), without a fsync: a crash that undoes the truncation brings back
 * records the new root holds already, and the loader skips every record
 * whose seq is not above the root's commit_seq. Its version is
 * <new token>:0. A create-only write (no expected version) empties a log
 * that is there too: the new root holds everything.
 *
 * Limits: local file systems only (flock over NFS is not reliable); an
 * external tool that rewrites the document in place keeping its inode and
 * size within the file system's timestamp granularity (a few ms) would go
 * unnoticed -- editors and cp/mv-style restores are caught. The log is
 * known by its size alone: an outside edit that keeps its length would go
 * unnoticed too (appending to it or cutting it is caught). */
#include "store.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "bio.h"
#include "setcpuaffinity.h"
#include "server.h"

#define FILE_TOKEN_HEX 32 /* 128 bits */
/* A version: "<token>:<log bytes>" (see "The commit log"). */
#define FILE_VERSION_MAX (FILE_TOKEN_HEX + 1 + 20 + 1)
#define FILE_RECORD_MAX 256
#define FILE_ERR_MAX 512

/* The check at the end of every document file this store writes (see
 * "The check" above): '\r', FILE_CHECK_BITS bits as spaces (0) and tabs
 * (1), '\n'. The bits: magic (8), seq (64), len (40), prev (32), crc (32). */
#define FILE_CHECK_MAGIC 0xC5
#define FILE_CHECK_BITS 176
#define FILE_CHECK_LEN (FILE_CHECK_BITS + 2)

/* ========================================================================
 * Types
 * ===================================================================== */

typedef enum fileJobKind {
    FILE_JOB_NONE = 0,
    FILE_JOB_LOAD,
    FILE_JOB_WRITE,
    FILE_JOB_PROBE,
    FILE_JOB_APPEND,
    FILE_JOB_EXIT,
} fileJobKind;

/* What identifies one version of the document file on disk. */
typedef struct fileIdentity {
    unsigned long long ino;  /* inode number */
    unsigned long long size; /* bytes */
    long long mtime_sec;     /* modification time */
    long mtime_nsec;
} fileIdentity;

/* The version record kept in the lock file. */
typedef struct fileRecord {
    char token[FILE_TOKEN_HEX + 1]; /* version token, hex */
    fileIdentity id;                /* the document file it describes */
    int dirty;                      /* "state=dirty": the names of the two
                                     * files may lag their contents on disk
                                     * (0: clean, or a record of format 1) */
} fileRecord;

/* What a document file's check says (see "The check" above). */
typedef struct fileCheck {
    uint64_t seq;  /* versions written since the chain began (1 = first) */
    uint64_t len;  /* the document's bytes at the start of the file */
    uint32_t prev; /* the crc of the version this one replaced (0: none) */
    uint32_t crc;  /* CRC-32 of the document's bytes, then of seq, len, prev */
} fileCheck;

typedef enum fileCheckState {
    FILE_CHECK_NONE = 0, /* no check at the end: not written by this store */
    FILE_CHECK_GOOD,     /* the check holds: a complete version */
    FILE_CHECK_BAD,      /* a check that does not hold: torn, or edited */
} fileCheckState;

/* What one of the store's two files holds (see fileWriteDocument). */
typedef struct fileLayout {
    unsigned long long ino; /* the file (0: unused) */
    size_t len;             /* document bytes at its start */
    off_t size;             /* its size: spaces from len, the check last */
    struct timespec mtime;  /* its modification time then: if it changed,
                             * someone else wrote it, and nothing is known */
} fileLayout;

typedef struct fileStore {
    store *st;               /* the generic store (location, base) */
    sds path;                /* absolute path of the document */
    sds tmp_path;            /* path + ".tmp" */
    const char *name;        /* the document's name in its directory */
    const char *tmp_name;    /* ... and the temporary file's */
    sds lock_path;           /* path + ".lock" */
    sds log_path;            /* path + ".log": the commit log */
    sds dir_path;            /* the directory holding them all */
    int dirfd;               /* the directory, kept open to fsync it */
    int lockfd;              /* the lock file; worker only; -1 if closed */
    /* --- the worker and its mailbox --- */
    pthread_t thread;        /* the worker */
    int thread_started;      /* thread is joinable */
    pthread_mutex_t mu;      /* guards job/job_done and the hand-off */
    pthread_cond_t cv;       /* signals a new job to the worker */
    int notify[2];           /* worker -> loop: a job finished */
    struct event *notify_ev; /* read side of notify on the loop */
    fileJobKind job;         /* the job in progress, FILE_JOB_NONE if idle */
    int job_done;            /* the worker finished it; results are set */
    /* --- job input (set by the main thread before handing over) --- */
    const storeDoc *doc;           /* write: the document */
    storeDoc *owned_doc;           /* write: the same, if the store owns it
                                    * (write() of one buffer), else NULL */
    char expect[FILE_TOKEN_HEX + 1]; /* write, append: the expected version's token */
    unsigned long long expect_log; /* ... and its log bytes */
    int expect_ok;                 /* ... the expected version was well formed
                                    * (else it matches nothing) */
    int has_expect;                /* write: 0 = create only */
    sds record;                    /* append: the record (owned) */
    storeLoadCallback *load_cb;    /* load: callback */
    storeWriteCallback *write_cb;  /* write: callback */
    void *priv;                    /* callback argument */
    long long reserve_ms;          /* load: keep the lock this long for our
                                    * next write (0 = release at once) */
    /* --- job output (set by the worker) --- */
    storeStatus status;              /* outcome */
    char version[FILE_VERSION_MAX];  /* version read/written ("<token>:<n>") */
    unsigned long long log_size;     /* the log bytes that version names */
    char *buf;                       /* load: document bytes (zmalloc) */
    size_t buflen;                   /* load: their length */
    sds log_read;                    /* load: the log's bytes (NULL if empty) */
    char err[FILE_ERR_MAX];          /* message when status is STORE_ERROR or a conflict */
    long long op_us;                 /* how long the job took */
    int minted;                      /* load: a fresh token was minted */
    int recycled;                    /* write: overwrote the spare in place */
    /* --- worker private --- */
    int held;                                    /* the lock is kept after a reserving load */
    int spare_ok;                                /* tmp_path is a superseded version, safe
                                                  * to overwrite in place (see the top) */
    fileLayout layouts[2];                       /* the document's file and the spare */
    int next_layout;                             /* the slot a new file takes */
    int replaced_fd;                             /* the document a write replaced, closed after
                                                  * the write is reported (-1 if none) */
    struct timespec held_until;                  /* ... until then (CLOCK_MONOTONIC) */
    int unconfirmed;                             /* last write renamed but its fsync failed */
    int unconfirmed_had_prev;                    /* ... it replaced an existing version */
    char unconfirmed_prev[FILE_TOKEN_HEX + 1];   /* ... that version */
    char unconfirmed_new[FILE_TOKEN_HEX + 1];    /* ... and the token it wrote */
    fileCheck cur;                               /* the check of the version loaded or written
                                                  * last (zero: none, a new chain begins) */
    char written[FILE_TOKEN_HEX + 1];            /* the token this store wrote last ("" if none):
                                                  * only that writer may mark the record clean */
    int synced_dir;                              /* the last write fsynced the directory */
    char note[2 * FILE_ERR_MAX];                 /* load: what recovery did, logged on the loop */
    fileIdentity spare_noted;                    /* the spare a note named last (named once) */
    int recovered;                               /* a load ran fileRecover: the names are
                                                  * not looked into again (see there) */
    int logfd;                                   /* the log, open for appends (-1 if not) */
    int log_named;                               /* ... its name is durable (the directory
                                                  * was fsynced since it was opened) */
    /* --- segments (see "Segments" below) --- */
    sds seg_path;            /* path + ".segments": the segments' directory */
    bioPool *seg_pool;       /* threads running segment operations */
    pthread_mutex_t seg_mu;  /* one mkdir of the directory at a time */
    /* --- collected segments' files kept for reuse (see "Recycled files") --- */
    pthread_mutex_t free_mu; /* guards the four below (segment threads) */
    char **free_names;       /* hidden names of the files kept, newest last */
    int free_count;          /* how many */
    int free_reserved;       /* renames into the list in progress */
    unsigned long long free_seq; /* the next kept file's number */
    int free_off;            /* leases are refused here: nothing is kept */
    char free_prefix[48];    /* ".free.<this store's random id>.": ours */
    long long seg_reused;    /* segments written into a kept file (main thread) */
    long long seg_kept;      /* collected segments whose file was kept (main thread) */
    long long seg_puts;      /* segments written */
    long long seg_gets;      /* segments read */
    long long seg_dels;      /* segments deleted */
    long long seg_errors;    /* segment operations that failed */
    long long seg_bytes_written; /* segment bytes written */
    /* --- statistics (main thread) --- */
    long long writes;        /* successful writes */
    long long write_errors;  /* writes that failed */
    long long conflicts;     /* writes refused by the version check */
    long long loads;         /* loads */
    long long tokens_minted; /* versions found without a matching record */
    long long bytes_written; /* document bytes written */
    long long writes_recycled; /* writes that overwrote the spare in place */
    long long writes_one_flush; /* ... of which needed no directory fsync */
    long long last_write_us; /* duration of the last write */
    sds last_error;          /* last error message, "" if none */
    /* --- the commit log (main thread) --- */
    sds log_kept;            /* the log bytes of the last load, until taken */
    unsigned long long log_bytes; /* the log's size in the last version seen */
    long long log_appends;   /* records appended */
} fileStore;

/* ========================================================================
 * Helpers (worker thread)
 * ===================================================================== */

static long long monoUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void fileSetErr(fileStore *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fileSetErr(fileStore *fs, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fs->err, sizeof(fs->err), fmt, ap);
    va_end(ap);
}

static void identityFromStat(fileIdentity *id, const struct stat *sb) {
    id->ino = (unsigned long long)sb->st_ino;
    id->size = (unsigned long long)sb->st_size;
    id->mtime_sec = (long long)sb->st_mtim.tv_sec;
    id->mtime_nsec = (long)sb->st_mtim.tv_nsec;
}

static int identityEqual(const fileIdentity *a, const fileIdentity *b) {
    return a->ino == b->ino && a->size == b->size && a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* 128 random bits as hex. getrandom() draws from the kernel CSPRNG; a
 * collision between two tokens is as likely as guessing a random UUID. */
static void newToken(char out[FILE_TOKEN_HEX + 1]) {
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[FILE_TOKEN_HEX / 2];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n > 0) got += (size_t)n;
        else if (n == -1 && errno != EINTR) break;
    }
    if (got < sizeof(raw)) {
        /* No getrandom (very old kernel): fall back to /dev/urandom. */
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd == -1 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw))
            serverPanic("cannot obtain random bytes for a version token");
        close(fd);
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[FILE_TOKEN_HEX] = '\0';
}

/* ------------------------------------------------------------------------
 * The lock and the version record
 * --------------------------------------------------------------------- */

/* Takes the exclusive lock, making sure it is the lock file at the path. */
static int fileLock(fileStore *fs) {
    if (fs->held) return 0; /* kept since a reserving load */
    for (int attempt = 0; attempt < 16; attempt++) {
        if (fs->lockfd == -1) {
            fs->lockfd = open(fs->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            if (fs->lockfd == -1) {
                fileSetErr(fs, "cannot open lock file %s: %s", fs->lock_path, strerror(errno));
                return -1;
            }
        }
        while (flock(fs->lockfd, LOCK_EX) == -1) {
            if (errno == EINTR) continue;
            fileSetErr(fs, "cannot lock %s: %s", fs->lock_path, strerror(errno));
            return -1;
        }
        struct stat held, atpath;
        if (fstat(fs->lockfd, &held) == 0 && stat(fs->lock_path, &atpath) == 0 && held.st_ino == atpath.st_ino &&
            held.st_dev == atpath.st_dev)
            return 0;
        /* Removed or replaced while we waited: start over with the file
         * that is at the path now. */
        flock(fs->lockfd, LOCK_UN);
        close(fs->lockfd);
        fs->lockfd = -1;
    }
    fileSetErr(fs, "lock file %s keeps being replaced", fs->lock_path);
    return -1;
}

static void fileUnlock(fileStore *fs) {
    if (fs->lockfd != -1) flock(fs->lockfd, LOCK_UN);
    fs->held = 0;
}

/* Keeps the lock after a reserving load, for the next job of this store
 * (the worker lets it go if none comes in time). */
static void fileHold(fileStore *fs) {
    clock_gettime(CLOCK_MONOTONIC, &fs->held_until);
    fs->held_until.tv_sec += (time_t)(fs->reserve_ms / 1000);
    fs->held_until.tv_nsec += (long)(fs->reserve_ms % 1000) * 1000000L;
    if (fs->held_until.tv_nsec >= 1000000000L) {
        fs->held_until.tv_sec++;
        fs->held_until.tv_nsec -= 1000000000L;
    }
    fs->held = 1;
}

/* Formats rec into buf; every field has a fixed width so the record is
 * always the same length and is rewritten in place. */
static int formatRecord(char *buf, size_t len, const fileRecord *rec) {
    return snprintf(buf, len,
                    "casq-file-store 2 token=%s ino=%020llu size=%020llu mtime=%020lld.%09ld state=%s\n"
                    "# lock and version record of the casq state document; do not edit\n",
                    rec->token, rec->id.ino, rec->id.size, rec->id.mtime_sec, rec->id.mtime_nsec,
                    rec->dirty ? "dirty" : "clean");
}

/* Reads the record. Returns 1 if valid, 0 if absent or malformed (the
 * version is then unknown), -1 on an I/O error. raw/rawlen receive the
 * bytes as they were (to restore them if a write fails half-way). */
static int fileReadRecord(fileStore *fs, fileRecord *rec, char *raw, size_t *rawlen) {
    char buf[FILE_RECORD_MAX];
    ssize_t n = pread(fs->lockfd, buf, sizeof(buf) - 1, 0);
    if (n == -1) {
        fileSetErr(fs, "cannot read %s: %s", fs->lock_path, strerror(errno));
        return -1;
    }
    if (raw) {
        memcpy(raw, buf, (size_t)n);
        *rawlen = (size_t)n;
    }
    buf[n] = '\0';
    char token[FILE_TOKEN_HEX + 2], state[8] = "";
    int consumed = 0, format = 0;
    if (sscanf(buf, "casq-file-store %d token=%33[0-9a-f] ino=%llu size=%llu mtime=%lld.%ld%n", &format, token,
               &rec->id.ino, &rec->id.size, &rec->id.mtime_sec, &rec->id.mtime_nsec, &consumed) != 6 ||
        strlen(token) != FILE_TOKEN_HEX)
        return 0;
    const char *rest = buf + consumed;
    if (format == 2) {
        /* Format 2 adds the state (format 1 was written by casq versions
         * that fsynced the directory at every write: always clean). */
        consumed = 0;
        if (sscanf(rest, " state=%7[a-z]\n%n", state, &consumed) != 1 || consumed == 0 ||
            (strcmp(state, "dirty") && strcmp(state, "clean")))
            return 0;
    } else if (format != 1 || rest[0] != '\n') {
        return 0;
    }
    rec->dirty = !strcmp(state, "dirty");
    memcpy(rec->token, token, FILE_TOKEN_HEX + 1);
    return 1;
}

static int fileWriteRaw(fileStore *fs, const char *buf, size_t len) {
    ssize_t n = pwrite(fs->lockfd, buf, len, 0);
    if (n != (ssize_t)len) {
        if (n >= 0) errno = ENOSPC;
        return -1;
    }
    struct stat sb;
    if (fstat(fs->lockfd, &sb) == 0 && (size_t)sb.st_size > len && ftruncate(fs->lockfd, (off_t)len) == -1) return -1;
    return 0;
}

static int fileWriteRecord(fileStore *fs, const fileRecord *rec) {
    char buf[FILE_RECORD_MAX];
    int len = formatRecord(buf, sizeof(buf), rec);
    if (fileWriteRaw(fs, buf, (size_t)len) == -1) {
        fileSetErr(fs, "cannot write %s: %s", fs->lock_path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Versions and the log file (see "The commit log")
 * --------------------------------------------------------------------- */

/* The version handed out: the root's token and the log bytes after it. */
static void fileSetVersion(fileStore *fs, const char *token, unsigned long long log_size) {
    snprintf(fs->version, sizeof(fs->version), "%.*s:%llu", FILE_TOKEN_HEX, token, log_size);
    fs->log_size = log_size;
}

/* Splits an expected version into its token and log size. A bare token
 * (no ":<n>") names an empty log; anything else that is not a version this
 * store hands out -- wrong length, not hex, a size that is not a plain
 * decimal number -- returns 0: it matches no version, so every CAS against
 * it is a conflict, never a guess. */
static int fileParseVersion(const char *v, char token[FILE_TOKEN_HEX + 1], unsigned long long *log_size) {
    token[0] = '\0';
    *log_size = 0;
    size_t tlen = strcspn(v, ":");
    if (tlen != FILE_TOKEN_HEX || strspn(v, "0123456789abcdef") < tlen) return 0;
    memcpy(token, v, FILE_TOKEN_HEX);
    token[FILE_TOKEN_HEX] = '\0';
    if (v[tlen] == '\0') return 1;
    const char *n = v + tlen + 1;
    size_t digits = strspn(n, "0123456789");
    if (digits == 0 || digits > 19 || n[digits] != '\0') return 0; /* 19: no overflow */
    *log_size = strtoull(n, NULL, 10);
    return 1;
}

/* The log's size now (0 if there is none). -1 on error, fs->err set. */
static int fileLogSize(fileStore *fs, unsigned long long *size) {
    struct stat sb;
    *size = 0;
    if (stat(fs->log_path, &sb) == 0) {
        *size = (unsigned long long)sb.st_size;
        return 0;
    }
    if (errno == ENOENT) return 0;
    fileSetErr(fs, "cannot stat %s: %s", fs->log_path, strerror(errno));
    return -1;
}

/* Makes fs->logfd the log file at the path: the descriptor kept from an
 * earlier append if the path still names its file, or else a new one (the
 * file was removed or replaced behind our back: appending to the old one
 * would write records nobody reads). create: the file is created if there
 * is none. *held: the open file's status. Returns 1 if open, 0 if there is
 * no log (create == 0), -1 on error with fs->err set. */
static int fileLogOpen(fileStore *fs, int create, struct stat *held) {
    struct stat atpath;
    int there = stat(fs->log_path, &atpath) == 0;
    if (!there && errno != ENOENT) {
        fileSetErr(fs, "cannot stat %s: %s", fs->log_path, strerror(errno));
        return -1;
    }
    if (there && fs->logfd != -1 && fstat(fs->logfd, held) == 0 && held->st_ino == atpath.st_ino &&
        held->st_dev == atpath.st_dev)
        return 1;
    if (fs->logfd != -1) {
        close(fs->logfd);
        fs->logfd = -1;
    }
    if (!there && !create) return 0;
    fs->logfd = open(fs->log_path, O_WRONLY | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (fs->logfd == -1) {
        if (errno == ENOENT && !create) return 0; /* removed meanwhile */
        fileSetErr(fs, "cannot open %s: %s", fs->log_path, strerror(errno));
        return -1;
    }
    if (fstat(fs->logfd, held) == -1) {
        fileSetErr(fs, "cannot stat %s: %s", fs->log_path, strerror(errno));
        return -1;
    }
    /* Whether its name reached the disk is not known -- whoever created it
     * may have died before the directory fsync: the first append through
     * this descriptor makes sure. */
    fs->log_named = 0;
    return 1;
}

/* After a root write, once the root is durable: the log emptied, as the
 * root holds everything it held. Not fsynced: a crash that undoes the
 * truncation brings back records the new root already holds, and the
 * loader skips every record whose seq is not above the root's commit_seq;
 * the next append's fdatasync makes the new size durable anyway. *left:
 * the bytes the log has now (0, or all of them if it could not be cut).
 * Returns -1 if even that is not known (fs->err set). */
static int fileLogEmpty(fileStore *fs, unsigned long long *left) {
    *left = 0;
    struct stat sb;
    int r = fileLogOpen(fs, 0, &sb);
    if (r == 0) return 0;
    if (r == 1) {
        if (sb.st_size == 0 || ftruncate(fs->logfd, 0) == 0) return 0;
        *left = (unsigned long long)sb.st_size; /* still consistent: all of it older than the root */
        return 0;
    }
    if (!fs->err[0]) fileSetErr(fs, "cannot empty %s: %s", fs->log_path, strerror(errno));
    return -1;
}

/* ------------------------------------------------------------------------
 * The check (see the top)
 * --------------------------------------------------------------------- */

static void checkPutBits(char *out, int *bit, uint64_t v, int nbits) {
    for (int i = nbits - 1; i >= 0; i--) out[(*bit)++] = (v >> i) & 1 ? '\t' : ' ';
}

static uint64_t checkGetBits(const char *in, int *bit, int nbits) {
    uint64_t v = 0;
    for (int i = 0; i < nbits; i++) v = v << 1 | (uint64_t)(in[(*bit)++] == '\t');
    return v;
}

/* A version's crc: its document's bytes (crc so far), then seq, len, prev. */
static uint32_t checkFinish(uLong crc, const fileCheck *c) {
    unsigned char tail[17];
    for (int i = 0; i < 8; i++) tail[i] = (unsigned char)(c->seq >> (8 * i));
    for (int i = 0; i < 5; i++) tail[8 + i] = (unsigned char)(c->len >> (8 * i));
    for (int i = 0; i < 4; i++) tail[13 + i] = (unsigned char)(c->prev >> (8 * i));
    return (uint32_t)crc32_z(crc, tail, sizeof(tail));
}

/* The check of doc written over the version whose check is prev. */
static void checkForDoc(fileCheck *c, const storeDoc *doc, const fileCheck *prev) {
    uLong crc = crc32_z(0L, Z_NULL, 0);
    for (size_t k = 0; k < doc->nchunks; k++)
        crc = crc32_z(crc, (const Bytef *)storeDocChunkBytes(doc, k), doc->chunks[k].len);
    c->seq = prev->seq + 1;
    c->len = doc->len;
    c->prev = prev->crc;
    c->crc = checkFinish(crc, c);
}

static void checkEncode(char out[FILE_CHECK_LEN], const fileCheck *c) {
    int bit = 1;
    out[0] = '\r';
    checkPutBits(out, &bit, FILE_CHECK_MAGIC, 8);
    checkPutBits(out, &bit, c->seq, 64);
    checkPutBits(out, &bit, c->len, 40);
    checkPutBits(out, &bit, c->prev, 32);
    checkPutBits(out, &bit, c->crc, 32);
    out[FILE_CHECK_LEN - 1] = '\n';
}

/* Reads the check at the end of a file's n bytes, and whether it holds. */
static fileCheckState checkDecode(const char *buf, size_t n, fileCheck *c) {
    memset(c, 0, sizeof(*c));
    if (n < FILE_CHECK_LEN) return FILE_CHECK_NONE;
    const char *p = buf + n - FILE_CHECK_LEN;
    if (p[0] != '\r' || p[FILE_CHECK_LEN - 1] != '\n') return FILE_CHECK_NONE;
    for (int i = 1; i <= FILE_CHECK_BITS; i++)
        if (p[i] != ' ' && p[i] != '\t') return FILE_CHECK_NONE;
    int bit = 1;
    if (checkGetBits(p, &bit, 8) != FILE_CHECK_MAGIC) return FILE_CHECK_NONE;
    c->seq = checkGetBits(p, &bit, 64);
    c->len = checkGetBits(p, &bit, 40);
    c->prev = (uint32_t)checkGetBits(p, &bit, 32);
    c->crc = (uint32_t)checkGetBits(p, &bit, 32);
    if (c->len > n - FILE_CHECK_LEN) return FILE_CHECK_BAD;
    for (size_t i = c->len; i < n - FILE_CHECK_LEN; i++)
        if (buf[i] != ' ') return FILE_CHECK_BAD;
    uLong crc = crc32_z(crc32_z(0L, Z_NULL, 0), (const Bytef *)buf, c->len);
    return checkFinish(crc, c) == c->crc ? FILE_CHECK_GOOD : FILE_CHECK_BAD;
}

/* Whether the version checked by b was written over the one checked by a. */
static int checkFollows(const fileCheck *b, const fileCheck *a) {
    return b->seq == a->seq + 1 && b->prev == a->crc;
}

/* ========================================================================
 * The jobs (worker thread)
 * ===================================================================== */

/* Reads the whole file behind fd into a zmalloc'd buffer. */
static int readWhole(int fd, size_t hint, char **out, size_t *outlen) {
    size_t cap = hint + 1, len = 0;
    char *buf = zmalloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            cap = cap * 2;
            buf = zrealloc(buf, cap);
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n == -1) {
            if (errno == EINTR) continue;
            zfree(buf);
            return -1;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 0;
}

/* Reads the file at path: 1 if read, 0 if it does not exist, -1 on error. */
static int fileReadPath(const char *path, char **out, size_t *outlen) {
    *out = NULL;
    *outlen = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) return errno == ENOENT ? 0 : -1;
    struct stat sb;
    int ok = fstat(fd, &sb) == 0 && readWhole(fd, (size_t)sb.st_size, out, outlen) == 0;
    int saved = errno;
    close(fd);
    errno = saved;
    return ok ? 1 : -1;
}

/* Reads the whole log into fs->log_read (NULL if missing or empty);
 * *size: its bytes. -1 on error, fs->err set. */
static int fileLogRead(fileStore *fs, unsigned long long *size) {
    char *buf;
    size_t len;
    *size = 0;
    int r = fileReadPath(fs->log_path, &buf, &len);
    if (r == -1) {
        fileSetErr(fs, "cannot read %s: %s", fs->log_path, strerror(errno));
        return -1;
    }
    if (r == 1 && len) fs->log_read = sdsnewlen(buf, len);
    zfree(buf);
    *size = (unsigned long long)len;
    return 0;
}

/* The spare, complete (tc: its check), is kept beside a document that is
 * not a complete version this store wrote: if that one cannot be read
 * (emptied, cut short, garbage), the spare may be all that is left of the
 * queue, so it is named -- once per spare, not at every reload. */
static void fileNoteKeptSpare(fileStore *fs, const fileCheck *tc) {
    struct stat sb;
    if (stat(fs->tmp_path, &sb) == -1) return;
    fileIdentity id;
    identityFromStat(&id, &sb);
    if (identityEqual(&id, &fs->spare_noted)) return;
    fs->spare_noted = id;
    size_t used = strlen(fs->note);
    snprintf(fs->note + used, sizeof(fs->note) - used,
             "%skept %s, a complete version this store wrote (seq %llu), until the next write: %s is not one "
             "(jq, a restore, an editor, a truncation wrote it); if it cannot be loaded, the kept file is the last "
             "complete version left, though it may lack the last commits' changes",
             used ? "; " : "", fs->tmp_path, (unsigned long long)tc->seq, fs->path);
}

/* After a load read the document: the spare that recovery did not need
 * (fileRecover) is removed -- unless the document is not a complete
 * version this store wrote (doc_good: its check holds) and the spare is
 * one: then it stays until the next write replaces it. */
static void fileSettleSpare(fileStore *fs, int doc_good) {
    if (!doc_good) {
        char *t = NULL;
        size_t tn = 0;
        fileCheck tc;
        int complete = fileReadPath(fs->tmp_path, &t, &tn) == 1 && checkDecode(t, tn, &tc) == FILE_CHECK_GOOD;
        zfree(t);
        if (complete) {
            fileNoteKeptSpare(fs, &tc);
            return;
        }
    }
    unlink(fs->tmp_path);
}

/* Before the first load of this process: if the record says dirty
 * (writes may have skipped the directory fsync), the newest complete
 * version can be queue.json.tmp -- the rename that made it the document
 * did not reach the disk, or the document is the spare a crash cut short
 * while it was rewritten. Puts that version at the path (see "One flush
 * per commit"). Only the names on disk can lag, after the machine went
 * down: a process that is running has seen no such crash since it
 * started, so its later loads find the names as they are -- and a
 * document edited in place keeping its check is then somebody's edit,
 * never a torn write to roll back from (which would lose the last
 * commit). Otherwise the .tmp file is a spare some writer kept, or was
 * left by a writer that died: *drop_spare says nothing here needs it
 * (fileSettleSpare decides, once the document is read). */
static int fileRecover(fileStore *fs, int *drop_spare) {
    *drop_spare = 0;
    fileRecord rec;
    int r = fileReadRecord(fs, &rec, NULL, NULL);
    if (r == -1) return -1;
    char *t = NULL, *j = NULL;
    size_t tn = 0, jn = 0;
    int use_tmp = 0, keep_tmp = 0, torn = 0;
    fileCheck tc, jc;
    int tr = 0, jr = 0;
    if (r == 1 && rec.dirty && !fs->recovered) {
        /* The document is read (and its check computed) only when a
         * complete .tmp makes the question arise. */
        tr = fileReadPath(fs->tmp_path, &t, &tn);
        if (tr == 1 && checkDecode(t, tn, &tc) == FILE_CHECK_GOOD) jr = fileReadPath(fs->path, &j, &jn);
        if (tr == -1 || jr == -1) {
            /* Nothing is removed on a guess. */
            fileSetErr(fs, "cannot read %s: %s", tr == -1 ? fs->tmp_path : fs->path, strerror(errno));
            zfree(t);
            zfree(j);
            return -1;
        }
    }
    if (jr == 1) {
        fileCheckState js = checkDecode(j, jn, &jc);
        if (js == FILE_CHECK_GOOD) {
            use_tmp = checkFollows(&tc, &jc); /* else an older spare */
        } else if (js == FILE_CHECK_BAD) {
            /* Cut short while being written over the version before tmp's,
             * or as tmp's successor: tmp is the newest complete one. */
            use_tmp = torn = checkFollows(&tc, &jc) || checkFollows(&jc, &tc);
            keep_tmp = !use_tmp; /* unrelated: left for the operator */
        }
        /* else written by something else (jq, a restore): loaded as it
         * is; fileSettleSpare keeps the .tmp until this store's first
         * write. */
    }
    zfree(t);
    zfree(j);
    if (!use_tmp) {
        *drop_spare = !keep_tmp;
        return 0;
    }
    /* One atomic step puts the complete version at the path: a crash in
     * what follows never leaves the path empty. The torn file is then kept
     * aside (best effort). */
    sds rejected = sdscatprintf(sdsempty(), "%s.rejected", fs->path);
    int ok = renameat2(fs->dirfd, fs->tmp_name, fs->dirfd, fs->name, RENAME_EXCHANGE) == 0 ||
             rename(fs->tmp_path, fs->path) == 0;
    if (ok && torn) rename(fs->tmp_path, rejected);
    if (!ok || fsync(fs->dirfd) == -1) {
        fileSetErr(fs, "cannot put %s, the newest complete version, at %s: %s", fs->tmp_path, fs->path,
                   strerror(errno));
        sdsfree(rejected);
        return -1;
    }
    if (torn)
        snprintf(fs->note, sizeof(fs->note),
                 "%s did not match its check (a write cut short by a crash, or an edit after one): loaded the "
                 "last complete version, from %s; the rejected file is kept as %s",
                 fs->path, fs->tmp_path, rejected);
    else
        snprintf(fs->note, sizeof(fs->note),
                 "%s held a newer complete version than %s (a crash came before the rename reached the disk): "
                 "loaded it",
                 fs->tmp_path, fs->path);
    sdsfree(rejected);
    return 0;
}

static void fileDoLoad(fileStore *fs) {
    fs->buf = NULL;
    fs->buflen = 0;
    fs->log_read = NULL;
    fs->minted = 0;
    fs->version[0] = '\0';
    if (fileLock(fs) == -1) {
        fs->status = STORE_ERROR;
        return;
    }
    fs->note[0] = '\0';
    fs->spare_ok = 0;
    int drop_spare;
    if (fileRecover(fs, &drop_spare) == -1) {
        fs->status = STORE_ERROR;
        fileUnlock(fs);
        return;
    }
    fs->recovered = 1;

    int fd = open(fs->path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        if (errno == ENOENT) {
            fs->status = STORE_NOT_FOUND;
            if (drop_spare) unlink(fs->tmp_path);
            /* A log without its root is no state, but it may be somebody's
             * acknowledged changes: the caller is told (log_take). */
            unsigned long long log_size;
            if (fileLogRead(fs, &log_size) == -1) fs->status = STORE_ERROR;
        } else {
            fs->status = STORE_ERROR;
            fileSetErr(fs, "cannot open %s: %s", fs->path, strerror(errno));
        }
        if (fs->status == STORE_NOT_FOUND && fs->reserve_ms > 0) fileHold(fs);
        else fileUnlock(fs);
        return;
    }
    /* Writers that follow the protocol are locked out; anyone else who
     * rewrites the file while we read it makes us read again. */
    struct stat before, after;
    for (int attempt = 0;; attempt++) {
        if (fstat(fd, &before) == -1 || lseek(fd, 0, SEEK_SET) == -1 ||
            readWhole(fd, (size_t)before.st_size, &fs->buf, &fs->buflen) == -1 || fstat(fd, &after) == -1) {
            fs->status = STORE_ERROR;
            fileSetErr(fs, "cannot read %s: %s", fs->path, strerror(errno));
            goto done;
        }
        fileIdentity a, b;
        identityFromStat(&a, &before);
        identityFromStat(&b, &after);
        if (identityEqual(&a, &b) && b.size == fs->buflen) break;
        zfree(fs->buf);
        fs->buf = NULL;
        if (attempt == 4) {
            fs->status = STORE_ERROR;
            fileSetErr(fs, "%s keeps changing while being read (is something else writing it?)", fs->path);
            goto done;
        }
    }

    fileRecord rec;
    fileIdentity cur;
    identityFromStat(&cur, &after);
    int r = fileReadRecord(fs, &rec, NULL, NULL);
    if (r == -1) {
        fs->status = STORE_ERROR;
        goto done;
    }
    if (!(r == 1 && identityEqual(&rec.id, &cur))) {
        /* First load of this document (or it was changed behind our
         * back): it gets a version of its own. */
        newToken(rec.token);
        rec.id = cur;
        if (r != 1) rec.dirty = 0; /* keeps what it read (see fileDoWrite) */
        if (fileWriteRecord(fs, &rec) == -1) {
            fs->status = STORE_ERROR;
            goto done;
        }
        fs->minted = 1;
    }
    /* The log, under the same lock: the root and the log after it are one
     * version. */
    unsigned long long log_size;
    if (fileLogRead(fs, &log_size) == -1) {
        fs->status = STORE_ERROR;
        goto done;
    }
    fileSetVersion(fs, rec.token, log_size);
    /* The check: where the next version's chain continues, and the
     * document without its padding. */
    int good = checkDecode(fs->buf, fs->buflen, &fs->cur) == FILE_CHECK_GOOD;
    if (good) {
        fs->buflen = fs->cur.len;
    } else {
        if (fs->cur.seq && !fs->note[0])
            snprintf(fs->note, sizeof(fs->note), "%s does not match its check (edited?): loaded as it is",
                     fs->path);
        memset(&fs->cur, 0, sizeof(fs->cur));
    }
    if (drop_spare) fileSettleSpare(fs, good);
    fs->status = STORE_OK;

done:
    if (fs->status != STORE_OK && fs->buf) {
        zfree(fs->buf);
        fs->buf = NULL;
    }
    if (fs->status != STORE_OK) {
        sdsfree(fs->log_read);
        fs->log_read = NULL;
    }
    close(fd);
    if (fs->status == STORE_OK && fs->reserve_ms > 0) fileHold(fs);
    else fileUnlock(fs);
}

/* The version of the document, as a load would find it, without reading
 * it: the record's token and the log's size if the record describes the
 * file at the path, else "" (someone wrote it behind the protocol's back:
 * a version nobody holds). */
static void fileDoProbe(fileStore *fs) {
    fs->version[0] = '\0';
    if (fileLock(fs) == -1) {
        fs->status = STORE_ERROR;
        return;
    }
    fileRecord rec;
    int r = fileReadRecord(fs, &rec, NULL, NULL);
    struct stat sb;
    if (r == -1) {
        fs->status = STORE_ERROR;
    } else if (stat(fs->path, &sb) == -1) {
        fs->status = errno == ENOENT ? STORE_NOT_FOUND : STORE_ERROR;
        if (fs->status == STORE_ERROR) fileSetErr(fs, "cannot stat %s: %s", fs->path, strerror(errno));
    } else {
        fileIdentity cur;
        unsigned long long log_size;
        identityFromStat(&cur, &sb);
        fs->status = STORE_OK;
        if (r == 1 && identityEqual(&rec.id, &cur)) {
            if (fileLogSize(fs, &log_size) == 0) fileSetVersion(fs, rec.token, log_size);
            else fs->status = STORE_ERROR;
        }
    }
    fileUnlock(fs);
}

/* Opens the file the next version is written to: the spare, if it may be
 * overwritten in place (see the top), or else a new file. A write lease is
 * granted only when no one else has the file open; it is released at once,
 * as all we wanted was the answer. *sb gets the file's status. */
static int fileOpenTmp(fileStore *fs, struct stat *sb) {
    if (fs->spare_ok) {
        fs->spare_ok = 0;
        int fd = open(fs->tmp_path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd != -1) {
            if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
                fcntl(fd, F_SETLEASE, F_UNLCK);
                if (fstat(fd, sb) == 0 && S_ISREG(sb->st_mode)) {
                    fs->recycled = 1;
                    return fd;
                }
            }
            close(fd);
        }
    }
    unlink(fs->tmp_path);
    int fd = open(fs->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd == -1) {
        fileSetErr(fs, "cannot create %s: %s", fs->tmp_path, strerror(errno));
        return -1;
    }
    if (fstat(fd, sb) == -1) {
        fileSetErr(fs, "cannot stat %s: %s", fs->tmp_path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* The size of the file holding a document of len bytes and its check,
 * when the file is the spare and has size `have` now: the same size if
 * they fit (the fdatasync then commits no metadata) and the padding is
 * not more than three times the document, or else room to grow into. A
 * root swings between sizes as a stream's tail fills and is sealed:
 * writing spaces over the old document costs less than a size change,
 * which makes the fdatasync commit metadata too. */
static off_t filePaddedSize(size_t len, off_t have) {
    off_t l = (off_t)len + FILE_CHECK_LEN;
    if (l <= have && have <= 4 * l + 65536) return have;
    off_t want = l + l / 4 + 4096;
    return (want + 4095) & ~(off_t)4095;
}

/* Writes iov[0..cnt) at off, resuming after short writes. */
static int pwritevAll(int fd, struct iovec *iov, int cnt, off_t off) {
    while (cnt > 0) {
        ssize_t n = pwritev(fd, iov, cnt > IOV_MAX ? IOV_MAX : cnt, off);
        if (n == -1) {
            if (errno == EINTR) continue;
            return -1;
        }
        off += n;
        while (cnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* What a file this store wrote holds: the document's bytes up to len,
 * then spaces, then the check as the last FILE_CHECK_LEN of its size. */
static fileLayout *fileLayoutFor(fileStore *fs, unsigned long long ino) {
    for (int i = 0; i < 2; i++)
        if (fs->layouts[i].ino == ino) return &fs->layouts[i];
    return NULL;
}

/* The layout of the file sb describes, if this store wrote it last. */
static const fileLayout *fileKnownLayout(fileStore *fs, const struct stat *sb) {
    const fileLayout *l = fileLayoutFor(fs, (unsigned long long)sb->st_ino);
    if (!l || l->size != sb->st_size || l->mtime.tv_sec != sb->st_mtim.tv_sec ||
        l->mtime.tv_nsec != sb->st_mtim.tv_nsec)
        return NULL;
    return l;
}

/* Writes the document at the start of fd, a file of size `have` now, to
 * make it size bytes: the document, spaces, the check. Of the padding,
 * only what may not be spaces already is written: a file this store
 * padded before (its layout is known) needs spaces only over the part of
 * its old document that the new one does not cover. */
static int fileWriteDocument(fileStore *fs, int fd, const struct stat *sb, const storeDoc *doc, off_t size,
                             const fileCheck *check) {
    static char spaces[4096];
    if (spaces[0] != ' ') memset(spaces, ' ', sizeof(spaces));
    const fileLayout *old = fileKnownLayout(fs, sb);
    off_t from = (off_t)doc->len, end = size - FILE_CHECK_LEN, to = end;
    if (old && old->size == size) to = (off_t)old->len < end ? (off_t)old->len : end;
    if (to < from) to = from;
    size_t nspaces = (size_t)(to - from);
    size_t cnt = doc->nchunks + (nspaces + sizeof(spaces) - 1) / sizeof(spaces) + 1; /* + the check */
    struct iovec stackiov[64];
    struct iovec *iov = cnt <= 64 ? stackiov : zmalloc(sizeof(*iov) * cnt);
    int i = 0;
    for (size_t k = 0; k < doc->nchunks; k++)
        iov[i++] = (struct iovec){(void *)storeDocChunkBytes(doc, k), doc->chunks[k].len};
    while (nspaces) {
        size_t n = nspaces < sizeof(spaces) ? nspaces : sizeof(spaces);
        iov[i++] = (struct iovec){spaces, n};
        nspaces -= n;
    }
    /* The check follows in the same write when nothing lies between. */
    char tail[FILE_CHECK_LEN];
    checkEncode(tail, check);
    struct iovec tiov = {tail, sizeof(tail)};
    int joined = to == end;
    if (joined) iov[i++] = tiov;
    int ret = pwritevAll(fd, iov, i, 0);
    if (iov != stackiov) zfree(iov);
    if (ret == -1) return -1;
    return joined ? 0 : pwritevAll(fd, &tiov, 1, end);
}

/* Remembers what fd's file holds now (see fileWriteDocument). */
static void fileNoteLayout(fileStore *fs, const struct stat *sb, size_t len) {
    fileLayout *l = fileLayoutFor(fs, (unsigned long long)sb->st_ino);
    if (!l) {
        l = &fs->layouts[fs->next_layout];
        fs->next_layout ^= 1;
    }
    l->ino = (unsigned long long)sb->st_ino;
    l->len = len;
    l->size = sb->st_size;
    l->mtime = sb->st_mtim;
}

/* Whether the document's current root is the one the writer expects (its
 * token; the log is compared apart). retry_ok: a root write, which may be
 * the retry of our own unconfirmed write; an append never is -- after a
 * write reported as failed the caller's version is uncertain, and a
 * conflict (then a reload) is the safe answer. */
static int fileVersionMatches(fileStore *fs, int exists, const char *current, int retry_ok) {
    if (!fs->has_expect) {
        if (!exists) return 1;
        /* Our own create whose fsync failed. */
        return fs->unconfirmed && !fs->unconfirmed_had_prev && current && !strcmp(current, fs->unconfirmed_new);
    }
    if (!exists || !current || !fs->expect_ok) return 0;
    if (!strcmp(current, fs->expect)) return 1;
    /* Our own write from `expect` whose fsync failed: the retry is a CAS
     * from the same version. */
    return retry_ok && fs->unconfirmed && fs->unconfirmed_had_prev && !strcmp(fs->unconfirmed_prev, fs->expect) &&
           !strcmp(current, fs->unconfirmed_new);
}

/* What step 1 of a write (or an append) found. */
typedef struct fileFound {
    fileRecord rec;            /* the record (if r == 1) */
    int r;                     /* fileReadRecord's answer */
    char raw[FILE_RECORD_MAX]; /* the record's bytes as they were */
    size_t rawlen;             /* ... their length */
    int exists;                /* the document exists */
} fileFound;

/* Step 1 of a write, and of an append: the record and the document's
 * identity read, and the root compared with the expected one. Returns 0 if
 * it matches; -1 with fs->status STORE_CONFLICT, or left as it was
 * (STORE_ERROR), and fs->err set. */
static int fileCheckRoot(fileStore *fs, int retry_ok, fileFound *f) {
    f->rawlen = 0;
    f->r = fileReadRecord(fs, &f->rec, f->raw, &f->rawlen);
    if (f->r == -1) return -1;
    struct stat sb;
    f->exists = 1;
    if (stat(fs->path, &sb) == -1) {
        if (errno != ENOENT) {
            fileSetErr(fs, "cannot stat %s: %s", fs->path, strerror(errno));
            return -1;
        }
        f->exists = 0;
    }
    const char *current = NULL;
    if (f->exists && f->r == 1) {
        fileIdentity cur;
        identityFromStat(&cur, &sb);
        if (identityEqual(&cur, &f->rec.id)) current = f->rec.token;
    }
    if (fileVersionMatches(fs, f->exists, current, retry_ok)) return 0;
    fs->status = STORE_CONFLICT;
    if (!fs->has_expect)
        fileSetErr(fs, "%s already exists", fs->path);
    else if (!fs->expect_ok)
        fileSetErr(fs, "the version expected for %s is not one this store hands out", fs->path);
    else if (!f->exists)
        fileSetErr(fs, "%s no longer exists", fs->path);
    else if (!current)
        fileSetErr(fs, "%s was replaced by something that is not this store", fs->path);
    else
        fileSetErr(fs, "%s was written by another process (version %.8s..., expected %.8s...)", fs->path, current,
                   fs->expect);
    return -1;
}

/* The other half of the version check: the log has exactly the bytes the
 * expected version names -- more means someone appended after it (another
 * store, with the same root), fewer that the log was cut behind our back.
 * Returns 0 if so, else -1 with STORE_CONFLICT and fs->err set. */
static int fileCheckLog(fileStore *fs, unsigned long long size) {
    if (size == fs->expect_log) return 0;
    fs->status = STORE_CONFLICT;
    fileSetErr(fs, "%s has %llu bytes, the expected version names %llu (another process appended to it, or it "
               "was changed behind this store's back)", fs->log_path, size, fs->expect_log);
    return -1;
}

static void fileDoWrite(fileStore *fs) {
    fs->version[0] = '\0';
    fs->recycled = 0;
    if (fileLock(fs) == -1) {
        fs->status = STORE_ERROR;
        return;
    }
    fs->status = STORE_ERROR;

    /* 1. The version check: the root, then the log after it (a create
     * names no log: whatever one there is, the new root replaces). */
    fileFound f;
    if (fileCheckRoot(fs, 1, &f) == -1) goto unlock;
    unsigned long long log_size;
    if (fs->has_expect && (fileLogSize(fs, &log_size) == -1 || fileCheckLog(fs, log_size) == -1)) goto unlock;

    /* 2. The new version, durable under its temporary name. */
    struct stat tsb;
    int fd = fileOpenTmp(fs, &tsb);
    if (fd == -1) goto unlock;
    size_t len = fs->doc->len;
    off_t have = tsb.st_size;
    off_t size = fs->recycled ? filePaddedSize(len, have) : (off_t)len + FILE_CHECK_LEN;
    fileCheck check;
    checkForDoc(&check, fs->doc, &fs->cur);
    if (fileWriteDocument(fs, fd, &tsb, fs->doc, size, &check) == -1 || (have > size && ftruncate(fd, size) == -1) ||
        fdatasync(fd) == -1 || fstat(fd, &tsb) == -1) {
        fileSetErr(fs, "cannot write %s: %s", fs->tmp_path, strerror(errno));
        close(fd);
        unlink(fs->tmp_path);
        goto unlock;
    }
    fileNoteLayout(fs, &tsb, len);
    if (close(fd) == -1) {
        fileSetErr(fs, "cannot write %s: %s", fs->tmp_path, strerror(errno));
        unlink(fs->tmp_path);
        goto unlock;
    }

    /* 3. The record names the new version before it is switched in. */
    fileRecord nrec;
    newToken(nrec.token);
    identityFromStat(&nrec.id, &tsb);
    nrec.dirty = 1;
    /* A record that says dirty must be durable before any write skips the
     * directory fsync (see "One flush per commit"): the first write after
     * a clean one makes it so. */
    int was_dirty = f.r == 1 && f.rec.dirty;
    if (fileWriteRecord(fs, &nrec) == -1 || (!was_dirty && fsync(fs->lockfd) == -1)) {
        if (!fs->err[0]) fileSetErr(fs, "cannot write %s: %s", fs->lock_path, strerror(errno));
        if (f.rawlen) fileWriteRaw(fs, f.raw, f.rawlen);
        unlink(fs->tmp_path);
        goto unlock;
    }

    /* 4. The switch. The replaced version lives on as the spare; if it
     * cannot, it is kept open until the write has been reported: the last
     * close frees its blocks, work that need not delay the
     * acknowledgement. */
    int kept = f.exists && renameat2(fs->dirfd, fs->tmp_name, fs->dirfd, fs->name, RENAME_EXCHANGE) == 0;
    if (!kept) {
        if (f.exists) fs->replaced_fd = open(fs->path, O_RDONLY | O_CLOEXEC);
        if (rename(fs->tmp_path, fs->path) == -1) {
            fileSetErr(fs, "cannot rename %s to %s: %s", fs->tmp_path, fs->path, strerror(errno));
            if (f.rawlen) fileWriteRaw(fs, f.raw, f.rawlen);
            unlink(fs->tmp_path);
            goto unlock;
        }
    }
    fs->unconfirmed = 0;
    fs->cur = check;
    memcpy(fs->written, nrec.token, sizeof(fs->written));

    /* 5. The switch made durable -- unless both names were durable already
     * and only swapped: then the data's fdatasync was enough (see "One
     * flush per commit"). */
    fs->synced_dir = !(fs->recycled && kept && was_dirty); /* a first dirty record: its name too */
    if (fs->synced_dir && fsync(fs->dirfd) == -1) {
        fileSetErr(fs, "%s was replaced but fsync of %s failed: %s", fs->path, fs->dir_path, strerror(errno));
        fs->unconfirmed = 1;
        fs->unconfirmed_had_prev = fs->has_expect;
        memcpy(fs->unconfirmed_prev, fs->expect, sizeof(fs->unconfirmed_prev));
        memcpy(fs->unconfirmed_new, nrec.token, sizeof(fs->unconfirmed_new));
        goto unlock;
    }
    /* Only now is the spare's version superseded for good. */
    fs->spare_ok = kept;

    /* 6. The log emptied: the root is durable and holds all of it (see
     * fileLogEmpty for why without a fsync). Should that fail, the
     * version names what is left: records the root holds already. */
    unsigned long long left;
    if (fileLogEmpty(fs, &left) == -1) goto unlock;
    fileSetVersion(fs, nrec.token, left);
    fs->status = STORE_OK;

unlock:
    fileUnlock(fs);
}

/* Writes len bytes at off, resuming after short writes. */
static int pwriteAll(int fd, const char *p, size_t len, off_t off) {
    while (len) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n == -1) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) {
            errno = ENOSPC;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

/* One record after the log, as a CAS (see "The commit log"): the root as
 * a write checks it, then the log's size; the record at exactly the
 * offset the expected version names, durable before the OK. */
static void fileDoAppend(fileStore *fs) {
    fs->version[0] = '\0';
    if (fileLock(fs) == -1) {
        fs->status = STORE_ERROR;
        return;
    }
    fs->status = STORE_ERROR;
    fileFound f;
    struct stat sb;
    if (fileCheckRoot(fs, 0, &f) == -1 || fileLogOpen(fs, 1, &sb) == -1) goto unlock;
    /* Longer: someone appended after the expected version; its bytes are
     * theirs, never cut. */
    if (fileCheckLog(fs, (unsigned long long)sb.st_size) == -1) goto unlock;
    /* A record relies on the log's name: it must be on disk before the
     * first record through this descriptor is acknowledged. */
    if (!fs->log_named) {
        if (fsync(fs->dirfd) == -1) {
            fileSetErr(fs, "cannot fsync %s (making %s durable): %s", fs->dir_path, fs->log_path, strerror(errno));
            goto unlock;
        }
        fs->log_named = 1;
    }
    off_t at = (off_t)fs->expect_log;
    size_t len = sdslen(fs->record);
    if (pwriteAll(fs->logfd, fs->record, len, at) == -1 || fdatasync(fs->logfd) == -1) {
        int saved = errno;
        /* Never acknowledged: cut back to the version the caller holds
         * (best effort -- if that fails too, its next CAS is a conflict
         * and the reload finds the record, or a torn one, at the end). */
        int cut = ftruncate(fs->logfd, at);
        fileSetErr(fs, "cannot append to %s: %s%s", fs->log_path, strerror(saved),
                   cut == -1 ? " (and cannot cut it back)" : "");
        goto unlock;
    }
    fileSetVersion(fs, f.rec.token, fs->expect_log + len);
    fs->status = STORE_OK;

unlock:
    fileUnlock(fs);
}

static void *fileWorkerMain(void *arg) {
    fileStore *fs = arg;
    pthread_mutex_lock(&fs->mu);
    for (;;) {
        while (fs->job == FILE_JOB_NONE || fs->job_done) {
            if (!fs->held) {
                pthread_cond_wait(&fs->cv, &fs->mu);
            } else if (pthread_cond_timedwait(&fs->cv, &fs->mu, &fs->held_until) == ETIMEDOUT) {
                /* The reserved write did not come: let others in. */
                fileUnlock(fs);
            }
        }
        fileJobKind kind = fs->job;
        if (kind == FILE_JOB_EXIT) break;
        pthread_mutex_unlock(&fs->mu);

        long long start = monoUs();
        fs->err[0] = '\0';
        if (kind == FILE_JOB_LOAD) fileDoLoad(fs);
        else if (kind == FILE_JOB_PROBE) fileDoProbe(fs);
        else if (kind == FILE_JOB_APPEND) fileDoAppend(fs);
        else fileDoWrite(fs);
        fs->op_us = monoUs() - start;

        pthread_mutex_lock(&fs->mu);
        fs->job_done = 1;
        pthread_mutex_unlock(&fs->mu);
        /* Woken after unlocking, so the loop does not wait for the mutex.
         * A full pipe already holds a wake-up: the loop drains it. */
        ssize_t n;
        do {
            n = write(fs->notify[1], "x", 1);
        } while (n == -1 && errno == EINTR);
        if (fs->replaced_fd != -1) {
            close(fs->replaced_fd);
            fs->replaced_fd = -1;
        }
        pthread_mutex_lock(&fs->mu);
    }
    pthread_mutex_unlock(&fs->mu);
    return NULL;
}

/* ========================================================================
 * Completion on the main thread
 * ===================================================================== */

static void fileJobFinished(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    fileStore *fs = arg;
    char drain[64];
    while (read(fd, drain, sizeof(drain)) > 0) {
    }

    pthread_mutex_lock(&fs->mu);
    if (fs->job == FILE_JOB_NONE || !fs->job_done) {
        pthread_mutex_unlock(&fs->mu);
        return;
    }
    fileJobKind kind = fs->job;
    fs->job = FILE_JOB_NONE;
    fs->job_done = 0;
    pthread_mutex_unlock(&fs->mu);

    storeStatus status = fs->status;
    /* A conflict carries its explanation too (for logs). */
    const char *err = status != STORE_OK && fs->err[0] ? fs->err : NULL;
    if (fs->err[0] && status != STORE_OK) {
        sdsfree(fs->last_error);
        fs->last_error = sdsnew(fs->err);
    }
    if (status == STORE_OK && fs->version[0]) fs->log_bytes = fs->log_size;
    if (kind == FILE_JOB_PROBE) {
        storeLoadCallback *cb = fs->load_cb;
        fs->load_cb = NULL;
        cb(fs->priv, status, NULL, 0, status == STORE_OK ? fs->version : NULL, err);
    } else if (kind == FILE_JOB_APPEND) {
        /* Bytes written count the log's too: what a commit costs the
         * device, root or record (bench/bench_backlog.sh). */
        if (status == STORE_OK) {
            fs->log_appends++;
            fs->bytes_written += (long long)sdslen(fs->record);
        } else if (status == STORE_CONFLICT) fs->conflicts++;
        else fs->write_errors++;
        sdsfree(fs->record);
        fs->record = NULL;
        storeWriteCallback *cb = fs->write_cb;
        fs->write_cb = NULL;
        cb(fs->priv, status, status == STORE_OK ? fs->version : NULL, err);
    } else if (kind == FILE_JOB_LOAD) {
        fs->loads++;
        if (fs->note[0]) serverLog(LL_WARNING, "File store: %s", fs->note);
        if (fs->minted) fs->tokens_minted++;
        fs->log_kept = fs->log_read; /* NULL unless the load read some */
        fs->log_read = NULL;
        char *buf = fs->buf;
        size_t len = fs->buflen;
        fs->buf = NULL;
        storeLoadCallback *cb = fs->load_cb;
        fs->load_cb = NULL;
        cb(fs->priv, status, buf, len, status == STORE_OK ? fs->version : NULL, err);
        zfree(buf);
    } else {
        if (status == STORE_OK) {
            fs->writes++;
            fs->bytes_written += (long long)fs->doc->len;
            if (fs->recycled) fs->writes_recycled++;
            if (!fs->synced_dir) fs->writes_one_flush++;
            fs->last_write_us = fs->op_us;
        } else if (status == STORE_CONFLICT) {
            fs->conflicts++;
        } else {
            fs->write_errors++;
        }
        storeDocFree(fs->owned_doc);
        fs->owned_doc = NULL;
        fs->doc = NULL;
        storeWriteCallback *cb = fs->write_cb;
        fs->write_cb = NULL;
        cb(fs->priv, status, status == STORE_OK ? fs->version : NULL, err);
    }
}

static void fileStartJob(fileStore *fs, fileJobKind kind) {
    pthread_mutex_lock(&fs->mu);
    serverAssert(fs->job == FILE_JOB_NONE);
    fs->job = kind;
    fs->job_done = 0;
    pthread_mutex_unlock(&fs->mu);
    /* Signalled after unlocking, so the worker does not wake up only to
     * wait for the mutex. */
    pthread_cond_signal(&fs->cv);
}

/* ========================================================================
 * Segments
 *
 * Each segment is a file in <document>.segments/, written once: into a
 * hidden temporary file, fdatasync'ed, then renamed to its name with
 * RENAME_NOREPLACE (an existing segment is never replaced), and the
 * directory fsync'ed -- only then is it durable, and only then may a
 * document name it. A crash leaves at worst a hidden temporary file, which
 * seg_list reports like any segment so that the broker's sweep removes it.
 * The operations run on their own threads (FILE_SEG_THREADS), so that
 * sealing and loading segments never queue behind a commit, nor a commit
 * behind them.
 * ===================================================================== */

#define FILE_SEG_THREADS 2

typedef enum fileSegOp { FILE_SEG_PUT, FILE_SEG_GET, FILE_SEG_DEL, FILE_SEG_LIST } fileSegOp;

typedef struct fileSegJob {
    fileStore *fs;             /* the store */
    fileSegOp op;              /* what to do */
    sds name;                  /* the segment (not for LIST) */
    sds data;                  /* PUT: the bytes; GET: what was read */
    int recycled;              /* PUT: written into a kept file; DEL: file kept */
    storeSegDoneCallback *done_cb; /* PUT, DEL */
    storeSegGetCallback *get_cb;   /* GET */
    storeSegListCallback *list_cb; /* LIST */
    void *priv;                /* the callbacks' argument */
    storeStatus status;        /* outcome */
    char err[FILE_ERR_MAX];    /* message when not OK */
    char **names;              /* LIST: what was found */
    long long *mtimes;         /* LIST: their modification times */
    size_t count;              /* LIST: how many */
} fileSegJob;

static void fileSegJobFree(fileSegJob *j) {
    sdsfree(j->name);
    sdsfree(j->data);
    for (size_t i = 0; i < j->count; i++) zfree(j->names[i]);
    zfree(j->names);
    zfree(j->mtimes);
    zfree(j);
}

static void fileSegJobDrop(void *arg) { fileSegJobFree(arg); }

static void fileSegFail(fileSegJob *j, const char *what) {
    j->status = STORE_ERROR;
    snprintf(j->err, sizeof(j->err), "segment %s: %s %s/%s: %s", j->name ? j->name : "", what, j->fs->seg_path,
             j->name ? j->name : "", strerror(errno));
}

/* A new descriptor of the directory (the caller closes it), creating the
 * directory (durably) if create is set; -1 with errno set if it cannot
 * (ENOENT: it does not exist). Opened for every operation: a directory
 * removed or replaced behind our back must not swallow the segments
 * written after, as a descriptor kept open would. */
static int fileSegDir(fileStore *fs, int create) {
    int fd = open(fs->seg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd != -1 || errno != ENOENT || !create) return fd;
    pthread_mutex_lock(&fs->seg_mu);
    if (mkdir(fs->seg_path, 0755) == 0 || errno == EEXIST) {
        /* The new directory's name must be durable before anything in it
         * can be. */
        if (fsync(fs->dirfd) == 0) fd = open(fs->seg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    int saved = errno;
    pthread_mutex_unlock(&fs->seg_mu);
    errno = saved;
    return fd;
}

static int writeAll(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n == -1) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads segment `name` into *out (NULL and 0 if it does not exist). */
static int fileSegRead(int dirfd, const char *name, sds *out) {
    *out = NULL;
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd == -1) return errno == ENOENT ? 0 : -1;
    struct stat sb;
    char *buf;
    size_t len;
    int rc = fstat(fd, &sb) == -1 ? -1 : readWhole(fd, (size_t)sb.st_size, &buf, &len);
    int saved = errno;
    close(fd);
    errno = saved;
    if (rc == -1) return -1;
    *out = sdsnewlen(buf, len);
    zfree(buf);
    return 0;
}

/* ------------------------------------------------------------------------
 * Recycled files
 *
 * A stream trimmed under load drops segments as fast as it seals new
 * ones, so the file store would unlink a file for every one it creates.
 * Creating a file costs an inode, and on ext4 without a journal every
 * inode freed in the last minute (longer while its block is dirty) is
 * skipped, one by one, by each allocation that follows
 * (recently_deleted()): a long run paid more for each new segment the
 * more it had collected. So a collected segment's file is kept under a
 * hidden name of ours (renamed: the segment's name is gone at once, as
 * with an unlink) and the next segment is written into it.
 *
 * A node that read an older root may still be reading that segment:
 * the grace period is meant to outlast it, but a slow one must not see
 * the bytes change under it. A kept file is taken only if a write lease
 * can be placed on it, which the kernel refuses while any other
 * descriptor (of any process) has the file open; such a file is deleted
 * instead, and its reader keeps the bytes it opened. Kept files are
 * never listed as segments; a crash leaves them to the orphan sweep
 * (their prefix names this store only), a clean close deletes them.
 * Files above FILE_SEG_FREE_MAX_BYTES are not kept: the list would hold
 * that much disk.
 * --------------------------------------------------------------------- */

#define FILE_SEG_FREE_MAX 256                /* kept files at most */
#define FILE_SEG_FREE_MAX_BYTES (256 * 1024) /* the largest file kept */

/* Keeps segment file `name` for reuse; 0 if it was not kept (the caller
 * deletes it). */
static int fileSegKeep(fileStore *fs, int dirfd, const char *name) {
    struct stat sb;
    if (name[0] == '.' || fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode) ||
        sb.st_size > FILE_SEG_FREE_MAX_BYTES)
        return 0;
    pthread_mutex_lock(&fs->free_mu);
    int room = !fs->free_off && fs->free_count + fs->free_reserved < FILE_SEG_FREE_MAX;
    unsigned long long seq = fs->free_seq++;
    if (room) fs->free_reserved++;
    pthread_mutex_unlock(&fs->free_mu);
    if (!room) return 0;
    char kept[96];
    snprintf(kept, sizeof(kept), "%s%llu", fs->free_prefix, seq);
    int ok = renameat2(dirfd, name, dirfd, kept, RENAME_NOREPLACE) == 0;
    pthread_mutex_lock(&fs->free_mu);
    fs->free_reserved--;
    if (ok) fs->free_names[fs->free_count++] = zstrdup(kept);
    pthread_mutex_unlock(&fs->free_mu);
    return ok;
}

/* A kept file opened for writing, its name in `name`; -1 if there is
 * none that nobody else has open. */
static int fileSegClaim(fileStore *fs, int dirfd, char *name, size_t size) {
    for (;;) {
        pthread_mutex_lock(&fs->free_mu);
        char *kept = fs->free_count ? fs->free_names[--fs->free_count] : NULL;
        pthread_mutex_unlock(&fs->free_mu);
        if (!kept) return -1;
        snprintf(name, size, "%s", kept);
        zfree(kept);
        int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd == -1) continue; /* gone (removed by hand): the next one */
        if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
            fcntl(fd, F_SETLEASE, F_UNLCK);
            return fd;
        }
        int refused = errno != EAGAIN && errno != EBUSY;
        close(fd);
        unlinkat(dirfd, name, 0); /* a reader has it: it keeps its bytes */
        if (refused) {
            /* Leases do not work here (a file system without them, or
             * leases disabled): without one, nothing is kept. */
            pthread_mutex_lock(&fs->free_mu);
            fs->free_off = 1;
            pthread_mutex_unlock(&fs->free_mu);
        }
    }
}

/* Deletes the kept files (at a clean close, the segment threads stopped). */
static void fileSegFreeKept(fileStore *fs) {
    int dirfd = fs->free_count ? open(fs->seg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    for (int i = 0; i < fs->free_count; i++) {
        if (dirfd != -1) unlinkat(dirfd, fs->free_names[i], 0);
        zfree(fs->free_names[i]);
    }
    fs->free_count = 0;
    if (dirfd != -1) close(dirfd);
}

static void fileSegPutIn(fileSegJob *j, int dirfd);

static void fileSegDoPut(fileSegJob *j) {
    int dirfd = fileSegDir(j->fs, 1);
    if (dirfd == -1) return fileSegFail(j, "cannot create the directory for");
    fileSegPutIn(j, dirfd);
    close(dirfd);
}

static void fileSegPutIn(fileSegJob *j, int dirfd) {
    char tmp[160];
    int fd = fileSegClaim(j->fs, dirfd, tmp, sizeof(tmp));
    j->recycled = fd != -1;
    if (fd == -1) {
        snprintf(tmp, sizeof(tmp), ".%s.tmp", j->name);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd == -1 && errno == EEXIST && unlinkat(dirfd, tmp, 0) == 0) /* left by an attempt that failed */
            fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd == -1) return fileSegFail(j, "cannot create");
    /* A kept file is overwritten from the start and cut to the new
     * length (the fdatasync then commits the size too). */
    if (writeAll(fd, j->data, sdslen(j->data)) == -1 || ftruncate(fd, (off_t)sdslen(j->data)) == -1 ||
        fdatasync(fd) == -1) {
        fileSegFail(j, "cannot write");
        close(fd);
        unlinkat(dirfd, tmp, 0);
        return;
    }
    close(fd);
    if (renameat2(dirfd, tmp, dirfd, j->name, RENAME_NOREPLACE) == -1) {
        int saved = errno;
        unlinkat(dirfd, tmp, 0);
        errno = saved;
        if (errno != EEXIST) return fileSegFail(j, "cannot rename into place");
        /* Written before: by us (a retry), or a name clash. */
        sds have;
        if (fileSegRead(dirfd, j->name, &have) == -1) return fileSegFail(j, "cannot read back");
        int same = have && sdslen(have) == sdslen(j->data) && !memcmp(have, j->data, sdslen(have));
        sdsfree(have);
        if (!same) {
            j->status = STORE_CONFLICT;
            snprintf(j->err, sizeof(j->err), "segment %s/%s exists with other contents", j->fs->seg_path, j->name);
            return;
        }
    }
    if (fsync(dirfd) == -1) return fileSegFail(j, "cannot fsync the directory of");
    j->status = STORE_OK;
}

static void fileSegDoGet(fileSegJob *j) {
    int dirfd = fileSegDir(j->fs, 0);
    if (dirfd == -1) {
        if (errno != ENOENT) return fileSegFail(j, "cannot open the directory of");
        j->status = STORE_NOT_FOUND;
        return;
    }
    int rc = fileSegRead(dirfd, j->name, &j->data);
    close(dirfd);
    if (rc == -1) return fileSegFail(j, "cannot read");
    j->status = j->data ? STORE_OK : STORE_NOT_FOUND;
}

static void fileSegDoDel(fileSegJob *j) {
    int dirfd = fileSegDir(j->fs, 0);
    if (dirfd == -1) {
        if (errno != ENOENT) return fileSegFail(j, "cannot open the directory of");
        j->status = STORE_OK;
        return;
    }
    j->recycled = fileSegKeep(j->fs, dirfd, j->name);
    int rc = j->recycled ? 0 : unlinkat(dirfd, j->name, 0);
    int saved = errno;
    close(dirfd);
    errno = saved;
    if (rc == -1 && errno != ENOENT) return fileSegFail(j, "cannot delete");
    j->status = STORE_OK;
}

static void fileSegDoList(fileSegJob *j) {
    j->status = STORE_OK;
    int dirfd = fileSegDir(j->fs, 0);
    if (dirfd == -1) {
        if (errno != ENOENT) fileSegFail(j, "cannot open the directory");
        return;
    }
    int fd = dup(dirfd);
    DIR *d = fd == -1 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd != -1) close(fd);
        close(dirfd);
        return fileSegFail(j, "cannot list the directory");
    }
    size_t alloc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        /* Our kept files are no segments, nor orphans: another process's
         * (or a previous life's) are, and the sweep deletes them. */
        if (!strncmp(de->d_name, j->fs->free_prefix, strlen(j->fs->free_prefix))) continue;
        struct stat sb;
        if (fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode)) continue;
        if (j->count == alloc) {
            alloc = alloc ? alloc * 2 : 64;
            j->names = zrealloc(j->names, alloc * sizeof(char *));
            j->mtimes = zrealloc(j->mtimes, alloc * sizeof(long long));
        }
        j->names[j->count] = zstrdup(de->d_name);
        j->mtimes[j->count] = (long long)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
        j->count++;
    }
    closedir(d);
    close(dirfd);
}

static void fileSegWork(void *arg) {
    fileSegJob *j = arg;
    switch (j->op) {
    case FILE_SEG_PUT: fileSegDoPut(j); break;
    case FILE_SEG_GET: fileSegDoGet(j); break;
    case FILE_SEG_DEL: fileSegDoDel(j); break;
    case FILE_SEG_LIST: fileSegDoList(j); break;
    }
}

static void fileSegDone(void *arg) {
    fileSegJob *j = arg;
    fileStore *fs = j->fs;
    const char *err = j->status == STORE_OK || j->status == STORE_NOT_FOUND ? NULL : j->err;
    if (err) {
        fs->seg_errors++;
        sdsfree(fs->last_error);
        fs->last_error = sdsnew(err);
    }
    switch (j->op) {
    case FILE_SEG_PUT:
        if (j->status == STORE_OK) {
            fs->seg_puts++;
            fs->seg_bytes_written += (long long)sdslen(j->data);
        }
        if (j->recycled) fs->seg_reused++;
        j->done_cb(j->priv, j->status, err);
        break;
    case FILE_SEG_GET:
        if (j->status == STORE_OK) fs->seg_gets++;
        j->get_cb(j->priv, j->status, j->data, j->data ? sdslen(j->data) : 0, err);
        break;
    case FILE_SEG_DEL:
        if (j->status == STORE_OK) fs->seg_dels++;
        if (j->recycled) fs->seg_kept++;
        j->done_cb(j->priv, j->status, err);
        break;
    case FILE_SEG_LIST:
        j->list_cb(j->priv, j->status, (const char *const *)j->names, j->mtimes, j->count, err);
        break;
    }
    fileSegJobFree(j);
}

static fileSegJob *fileSegJobNew(store *st, fileSegOp op, const char *name, void *priv) {
    fileSegJob *j = zcalloc(sizeof(*j));
    j->fs = st->state;
    j->op = op;
    j->name = name ? sdsnew(name) : NULL;
    j->priv = priv;
    return j;
}

static void fileSegPut(store *st, const char *name, sds data, storeSegDoneCallback *cb, void *priv) {
    fileSegJob *j = fileSegJobNew(st, FILE_SEG_PUT, name, priv);
    j->data = data;
    j->done_cb = cb;
    bioSubmit(j->fs->seg_pool, fileSegWork, fileSegDone, j);
}

static void fileSegGet(store *st, const char *name, storeSegGetCallback *cb, void *priv) {
    fileSegJob *j = fileSegJobNew(st, FILE_SEG_GET, name, priv);
    j->get_cb = cb;
    bioSubmit(j->fs->seg_pool, fileSegWork, fileSegDone, j);
}

static void fileSegDel(store *st, const char *name, storeSegDoneCallback *cb, void *priv) {
    fileSegJob *j = fileSegJobNew(st, FILE_SEG_DEL, name, priv);
    j->done_cb = cb;
    bioSubmit(j->fs->seg_pool, fileSegWork, fileSegDone, j);
}

static void fileSegList(store *st, storeSegListCallback *cb, void *priv) {
    fileSegJob *j = fileSegJobNew(st, FILE_SEG_LIST, NULL, priv);
    j->list_cb = cb;
    bioSubmit(j->fs->seg_pool, fileSegWork, fileSegDone, j);
}

/* ========================================================================
 * The storeType interface
 * ===================================================================== */

/* At a clean close, by the writer of the current version: the names made
 * durable, then the record says clean -- the next load need not look
 * past the document (see "One flush per commit"). Main thread, after the
 * worker stopped. */
static void fileMarkClean(fileStore *fs) {
    if (!fs->written[0] || fs->lockfd == -1 || fileLock(fs) == -1) return;
    fileRecord rec;
    if (fileReadRecord(fs, &rec, NULL, NULL) == 1 && rec.dirty && !strcmp(rec.token, fs->written) &&
        fsync(fs->dirfd) == 0) {
        rec.dirty = 0;
        if (fileWriteRecord(fs, &rec) == 0) fsync(fs->lockfd);
    }
    fileUnlock(fs);
}

static void fileFree(fileStore *fs) {
    if (fs->thread_started) {
        pthread_mutex_lock(&fs->mu);
        /* Let a job in progress finish; its callback is not called. */
        while (fs->job != FILE_JOB_NONE && !fs->job_done) {
            pthread_mutex_unlock(&fs->mu);
            usleep(1000);
            pthread_mutex_lock(&fs->mu);
        }
        fs->job = FILE_JOB_EXIT;
        fs->job_done = 0;
        pthread_cond_signal(&fs->cv);
        pthread_mutex_unlock(&fs->mu);
        pthread_join(fs->thread, NULL);
        pthread_mutex_destroy(&fs->mu);
        pthread_cond_destroy(&fs->cv);
        fileMarkClean(fs);
    }
    bioFree(fs->seg_pool, fileSegJobDrop);
    fileSegFreeKept(fs);
    zfree(fs->free_names);
    pthread_mutex_destroy(&fs->free_mu);
    pthread_mutex_destroy(&fs->seg_mu);
    sdsfree(fs->seg_path);
    if (fs->notify_ev) event_free(fs->notify_ev);
    if (fs->notify[0] != -1) close(fs->notify[0]);
    if (fs->notify[1] != -1) close(fs->notify[1]);
    if (fs->lockfd != -1) close(fs->lockfd);
    if (fs->logfd != -1) close(fs->logfd);
    if (fs->dirfd != -1) close(fs->dirfd);
    if (fs->replaced_fd != -1) close(fs->replaced_fd);
    storeDocFree(fs->owned_doc);
    zfree(fs->buf);
    sdsfree(fs->record);
    sdsfree(fs->log_read);
    sdsfree(fs->log_kept);
    sdsfree(fs->path);
    sdsfree(fs->tmp_path);
    sdsfree(fs->lock_path);
    sdsfree(fs->log_path);
    sdsfree(fs->dir_path);
    sdsfree(fs->last_error);
    zfree(fs);
}

/* "file:///abs", "file://rel", "/abs" or "rel" -> absolute path, with the
 * directory resolved (it must exist). */
static sds fileResolvePath(const char *url, sds *err) {
    const char *p = url;
    if (!strncasecmp(p, "file://", 7)) p += 7;
    size_t len = strlen(p);
    if (len == 0 || p[len - 1] == '/') {
        *err = sdscatprintf(sdsempty(), "store '%s' does not name a file", url);
        return NULL;
    }
    const char *slash = strrchr(p, '/');
    sds dir = slash ? sdsnewlen(p, slash == p ? 1 : (size_t)(slash - p)) : sdsnew(".");
    const char *base = slash ? slash + 1 : p;
    if (!strcmp(base, ".") || !strcmp(base, "..")) {
        sdsfree(dir);
        *err = sdscatprintf(sdsempty(), "store '%s' does not name a file", url);
        return NULL;
    }
    char *real = realpath(dir, NULL);
    if (!real) {
        *err = sdscatprintf(sdsempty(), "directory %s of the state document: %s", dir, strerror(errno));
        sdsfree(dir);
        return NULL;
    }
    sdsfree(dir);
    sds path = sdsnew(real);
    free(real);
    if (sdslen(path) == 0 || path[sdslen(path) - 1] != '/') path = sdscat(path, "/");
    return sdscat(path, base);
}

static int fileOpen(store *st, const char *url, struct event_base *base, sds *err) {
    sds path = fileResolvePath(url, err);
    if (!path) return -1;
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        *err = sdscatprintf(sdsempty(), "%s is not a regular file", path);
        sdsfree(path);
        return -1;
    }

    fileStore *fs = zcalloc(sizeof(*fs));
    fs->st = st;
    fs->path = path;
    fs->tmp_path = sdscatprintf(sdsempty(), "%s.tmp", path);
    fs->name = strrchr(fs->path, '/') + 1;
    fs->tmp_name = strrchr(fs->tmp_path, '/') + 1;
    fs->lock_path = sdscatprintf(sdsempty(), "%s.lock", path);
    fs->log_path = sdscatprintf(sdsempty(), "%s.log", path);
    const char *slash = strrchr(path, '/');
    fs->dir_path = sdsnewlen(path, slash == path ? 1 : (size_t)(slash - path));
    fs->dirfd = fs->lockfd = fs->replaced_fd = fs->logfd = -1;
    fs->seg_path = sdscatprintf(sdsempty(), "%s.segments", path);
    pthread_mutex_init(&fs->seg_mu, NULL);
    pthread_mutex_init(&fs->free_mu, NULL);
    fs->free_names = zmalloc(sizeof(*fs->free_names) * FILE_SEG_FREE_MAX);
    char id[FILE_TOKEN_HEX + 1];
    newToken(id);
    snprintf(fs->free_prefix, sizeof(fs->free_prefix), ".free.%.16s.", id);
    fs->notify[0] = fs->notify[1] = -1;
    fs->last_error = sdsempty();

    /* The lease probe of fileOpenTmp() holds a lease for an instant; should
     * someone open the file in that instant, the kernel tells the holder
     * with SIGIO, whose default action would end the server. */
    signal(SIGIO, SIG_IGN);
    fs->dirfd = open(fs->dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fs->dirfd == -1) {
        *err = sdscatprintf(sdsempty(), "cannot open directory %s: %s", fs->dir_path, strerror(errno));
        goto fail;
    }
    /* Created now so that a read-only directory is reported at start-up,
     * not at the first commit. */
    fs->lockfd = open(fs->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fs->lockfd == -1) {
        *err = sdscatprintf(sdsempty(), "cannot open lock file %s: %s", fs->lock_path, strerror(errno));
        goto fail;
    }
    if (pipe2(fs->notify, O_CLOEXEC | O_NONBLOCK) == -1) {
        *err = sdscatprintf(sdsempty(), "pipe: %s", strerror(errno));
        goto fail;
    }
    fs->notify_ev = event_new(base, fs->notify[0], EV_READ | EV_PERSIST, fileJobFinished, fs);
    if (!fs->notify_ev || event_add(fs->notify_ev, NULL) == -1) {
        *err = sdsnew("cannot register the file store's completion event");
        goto fail;
    }
    pthread_mutex_init(&fs->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&fs->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&fs->thread, NULL, fileWorkerMain, fs) != 0) {
        *err = sdsnew("cannot start the file store's worker thread");
        pthread_mutex_destroy(&fs->mu);
        pthread_cond_destroy(&fs->cv);
        goto fail;
    }
    fs->thread_started = 1;
    pthread_setname_np(fs->thread, "file_commit");
    setBioCpuAffinity(fs->thread, "the file store's worker thread");
    fs->seg_pool = bioCreate(base, FILE_SEG_THREADS, "file_segment");
    if (!fs->seg_pool) {
        *err = sdsnew("cannot start the file store's segment threads");
        goto fail;
    }
    for (int i = 0; i < bioThreadCount(fs->seg_pool); i++)
        setBioCpuAffinity(bioThread(fs->seg_pool, i), "a segment thread of the file store");
    st->state = fs;
    if (!st->location) st->location = sdsdup(fs->path);
    return 0;

fail:
    fileFree(fs);
    return -1;
}

/* A new load's log replaces the bytes an earlier one left untaken. */
static void fileDropLog(fileStore *fs) {
    sdsfree(fs->log_kept);
    fs->log_kept = NULL;
}

static void fileLoad(store *st, storeLoadCallback *cb, void *priv) {
    fileStore *fs = st->state;
    fileDropLog(fs);
    fs->load_cb = cb;
    fs->priv = priv;
    fs->reserve_ms = 0;
    fileStartJob(fs, FILE_JOB_LOAD);
}

/* The lock stays taken from this load to our next write: a process taking
 * over a busy document would otherwise always find that the broker wrote
 * in between. */
static void fileLoadReserve(store *st, long long hold_ms, storeLoadCallback *cb, void *priv) {
    fileStore *fs = st->state;
    fileDropLog(fs);
    fs->load_cb = cb;
    fs->priv = priv;
    fs->reserve_ms = hold_ms > 0 ? hold_ms : 1;
    fileStartJob(fs, FILE_JOB_LOAD);
}

/* The job's expected version (NULL: none, which matches only where a
 * create may write). */
static void fileSetExpect(fileStore *fs, const char *expect_version) {
    fs->expect[0] = '\0';
    fs->expect_log = 0;
    fs->expect_ok = expect_version && fileParseVersion(expect_version, fs->expect, &fs->expect_log);
}

static void fileWriteDoc(store *st, const storeDoc *doc, const char *expect_version, storeWriteCallback *cb,
                         void *priv) {
    fileStore *fs = st->state;
    fs->doc = doc;
    fs->has_expect = expect_version != NULL;
    fileSetExpect(fs, expect_version);
    fs->write_cb = cb;
    fs->priv = priv;
    fileStartJob(fs, FILE_JOB_WRITE);
}

static void fileWrite(store *st, sds data, const char *expect_version, storeWriteCallback *cb, void *priv) {
    fileStore *fs = st->state;
    fs->owned_doc = storeDocFromSds(data);
    fileWriteDoc(st, fs->owned_doc, expect_version, cb, priv);
}

static void fileLogAppend(store *st, sds record, const char *expect_version, storeWriteCallback *cb, void *priv) {
    fileStore *fs = st->state;
    fs->record = record;
    /* An append always names the version it follows: without one it
     * matches nothing. */
    fs->has_expect = 1;
    fileSetExpect(fs, expect_version);
    fs->write_cb = cb;
    fs->priv = priv;
    fileStartJob(fs, FILE_JOB_APPEND);
}

static sds fileLogTake(store *st) {
    fileStore *fs = st->state;
    sds log = fs->log_kept;
    fs->log_kept = NULL;
    return log;
}

static void fileProbe(store *st, storeLoadCallback *cb, void *priv) {
    fileStore *fs = st->state;
    fs->load_cb = cb;
    fs->priv = priv;
    fileStartJob(fs, FILE_JOB_PROBE);
}

static sds fileInfo(store *st, sds s) {
    fileStore *fs = st->state;
    return sdscatprintf(s,
                        "store_backend:file\r\n"
                        "store_file_path:%s\r\n"
                        "store_file_lock:%s\r\n"
                        "store_file_writes:%lld\r\n"
                        "store_file_write_errors:%lld\r\n"
                        "store_file_conflicts:%lld\r\n"
                        "store_file_loads:%lld\r\n"
                        "store_file_versions_minted:%lld\r\n"
                        "store_file_bytes_written:%lld\r\n"
                        "store_file_writes_in_place:%lld\r\n"
                        "store_file_writes_one_flush:%lld\r\n"
                        "store_file_last_write_ms:%.3f\r\n"
                        "store_file_last_error:%s\r\n"
                        "store_file_segments_dir:%s\r\n"
                        "store_file_segment_puts:%lld\r\n"
                        "store_file_segment_gets:%lld\r\n"
                        "store_file_segment_deletes:%lld\r\n"
                        "store_file_segment_errors:%lld\r\n"
                        "store_file_segment_bytes_written:%lld\r\n"
                        "store_file_segment_files_kept:%lld\r\n"
                        "store_file_segment_files_reused:%lld\r\n"
                        "store_file_log_bytes:%llu\r\n"
                        "store_file_log_appends:%lld\r\n",
                        fs->path, fs->lock_path, fs->writes, fs->write_errors, fs->conflicts, fs->loads,
                        fs->tokens_minted, fs->bytes_written, fs->writes_recycled, fs->writes_one_flush, (double)fs->last_write_us / 1000.0,
                        fs->last_error, fs->seg_path, fs->seg_puts, fs->seg_gets, fs->seg_dels, fs->seg_errors,
                        fs->seg_bytes_written, fs->seg_kept, fs->seg_reused, fs->log_bytes, fs->log_appends);
}

static void fileClose(store *st) {
    fileStore *fs = st->state;
    if (!fs) return;
    fileFree(fs);
    st->state = NULL;
}

const storeType fileStoreType = {
    .name = "file",
    .open = fileOpen,
    .load = fileLoad,
    .write = fileWrite,
    .write_doc = fileWriteDoc,
    .info = fileInfo,
    .close = fileClose,
    .load_reserve = fileLoadReserve,
    .probe = fileProbe,
    .seg_put = fileSegPut,
    .seg_get = fileSegGet,
    .seg_del = fileSegDel,
    .seg_list = fileSegList,
    .log_append = fileLogAppend,
    .log_take = fileLogTake,
};
