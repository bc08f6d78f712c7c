/* store.h -- where the state document lives (design.md §6).
 *
 * One small asynchronous interface, several backends. A store keeps one
 * document and hands out an opaque *version token* with every load and
 * successful write (the file store: a generation number it keeps next to the
 * file; S3: the ETag). A write names the version it expects to replace and
 * succeeds only if the stored document is still that version: a
 * compare-and-set. Writing with expect_version == NULL means "create; fail if
 * a document exists".
 *
 * Every callback runs on the main thread, from the libevent loop, never
 * re-entrantly from inside the call that started the operation. At most one
 * load or write is in flight per store at a time (the commit module
 * guarantees it). */
#ifndef CASQ_STORE_H
#define CASQ_STORE_H

#include <stddef.h>
#include "sds.h"

struct event_base;

typedef enum storeStatus {
    STORE_OK = 0,        /* done */
    STORE_NOT_FOUND = 1, /* load: there is no document yet */
    STORE_CONFLICT = 2,  /* write: the stored version is not the expected one
                          * (another broker wrote it) */
    STORE_ERROR = 3,     /* transient or permanent failure. The store
                          * resolves an unknown outcome itself (by
                          * re-reading) when it can; if its deadline passes
                          * first, a write reported as STORE_ERROR may still
                          * have landed: the caller must treat the version as
                          * uncertain (its next CAS may CONFLICT with its own
                          * write, which leads to a reload -- safe, because
                          * nothing was acknowledged) */
} storeStatus;

/* data/len: the document (valid only during the callback); version: the
 * token to pass as expect_version next time; err: a message when status is
 * STORE_ERROR (NULL otherwise). */
typedef void storeLoadCallback(void *priv, storeStatus status, const char *data, size_t len,
                               const char *version, const char *err);
/* new_version: the token of the document just written (STORE_OK only). */
typedef void storeWriteCallback(void *priv, storeStatus status, const char *new_version, const char *err);

struct store;

/* ------------------------------------------------------------------------
 * A document to write, as byte ranges
 *
 * Most of a big document is text that exists already: every stream node
 * keeps its entries' JSON exactly as the document has it. Copying all of it
 * into one buffer at every commit would cost the event loop a pass over the
 * whole document (17 ms for a 50 MB one). Instead the commit hands a store
 * that can take it (write_doc) a list of ranges: the bytes encoded for this
 * document, and borrowed texts, which their owners leave unchanged until
 * the write is over -- a text that must change meanwhile is copied, and
 * the original handed to the document (storeDocKeep), which frees it with
 * itself. A store that needs one buffer flattens the document.
 * --------------------------------------------------------------------- */
typedef struct storeDocChunk {
    const char *ref; /* borrowed bytes, or NULL for bytes of `own` */
    size_t off;      /* own bytes: where they start in own */
    size_t len;      /* bytes */
} storeDocChunk;

typedef struct storeDoc {
    sds own;               /* the bytes encoded for this document; the
                            * encoder appends to it directly */
    size_t mark;           /* own bytes before this are in chunks already */
    storeDocChunk *chunks; /* the document, in order */
    size_t nchunks;        /* chunks used */
    size_t chunks_alloc;   /* chunks allocated */
    size_t len;            /* total bytes (final once sealed) */
    sds *kept;             /* texts handed over while the document is
                            * written, freed with it */
    size_t nkept;          /* kept used */
    size_t kept_alloc;     /* kept allocated */
} storeDoc;

/* An empty document whose own buffer has room for hint bytes. */
storeDoc *storeDocNew(size_t hint);
/* A sealed document of one buffer, which it takes over. */
storeDoc *storeDocFromSds(sds data);
/* Appends len borrowed bytes at p (see above for how long they must live). */
void storeDocRef(storeDoc *d, const char *p, size_t len);
/* Ends the encoding: the last own bytes become a chunk, len is final. */
void storeDocSeal(storeDoc *d);
/* The chunk's bytes (of a sealed document). */
static inline const char *storeDocChunkBytes(const storeDoc *d, size_t i) {
    return d->chunks[i].ref ? d->chunks[i].ref : d->own + d->chunks[i].off;
}
/* d takes s over and frees it with itself. */
void storeDocKeep(storeDoc *d, sds s);
/* The whole document in one new buffer. */
sds storeDocFlatten(const storeDoc *d);
void storeDocFree(storeDoc *d);

/* ------------------------------------------------------------------------
 * Segments (design.md §3, docs/state-format.md "Segments")
 *
 * Beside the document, a store keeps immutable *segments*: named objects,
 * each written once and never changed, which the document names. Their
 * names are made by the caller, never reused, and are plain [A-Za-z0-9._-]
 * strings of at most 128 bytes (the file store: a file in a directory next
 * to the document; S3: an object under a prefix next to it). Unlike
 * load/write, any number of segment operations may be in flight at once,
 * and they may run while a load or write is in flight; each reports once,
 * on the main thread, never from inside the call.
 * --------------------------------------------------------------------- */

/* seg_put: STORE_OK once the segment is durable (file: data and directory
 * fsynced; S3: the PUT answered 2xx). Create-only: if a segment of that
 * name exists already with other bytes, STORE_CONFLICT (with the same
 * bytes -- an earlier attempt of ours that landed -- STORE_OK).
 * seg_del: STORE_OK also if it did not exist. */
typedef void storeSegDoneCallback(void *priv, storeStatus status, const char *err);
/* seg_get: data/len valid only during the callback; STORE_NOT_FOUND if
 * there is no such segment. */
typedef void storeSegGetCallback(void *priv, storeStatus status, const char *data, size_t len, const char *err);
/* seg_list: every segment in the store, with its last modification time
 * (unix ms), in no particular order; arrays valid only during the call. */
typedef void storeSegListCallback(void *priv, storeStatus status, const char *const *names,
                                  const long long *mtimes_ms, size_t count, const char *err);

typedef struct storeType {
    const char *name; /* "file", "s3" */
    /* Parses the URL and settings, prepares (no I/O that can block for long).
     * Returns 0 or -1 with *err set. */
    int (*open)(struct store *st, const char *url, struct event_base *base, sds *err);
    void (*load)(struct store *st, storeLoadCallback *cb, void *priv);
    /* The store takes ownership of `data`. */
    void (*write)(struct store *st, sds data, const char *expect_version, storeWriteCallback *cb, void *priv);
    /* Optional, NULL if the backend needs one buffer: the same write from a
     * sealed document, which stays the caller's; the store does not touch
     * it once the callback runs (nor after close). */
    void (*write_doc)(struct store *st, const storeDoc *doc, const char *expect_version, storeWriteCallback *cb,
                      void *priv);
    /* Appends "field:value\r\n" lines for INFO persistence (no secrets). */
    sds (*info)(struct store *st, sds s);
    /* Frees everything. An operation still in flight is abandoned without
     * its callback: for a write that is the same as a crash at that point,
     * which the CAS protocol already tolerates. */
    void (*close)(struct store *st);
    /* Optional, NULL if the backend cannot offer it: a load that also
     * reserves the next write -- no other writer gets in between this load
     * and this store's next write (or until hold_ms passes). A node taking
     * over a busy document needs it: otherwise the broker's next commit
     * lands between its load and its CAS, every time. */
    void (*load_reserve)(struct store *st, long long hold_ms, storeLoadCallback *cb, void *priv);
    /* Optional, NULL if the backend cannot: the version of the stored
     * document without reading it (STORE_OK with the version, or "" if it
     * has none this store knows; STORE_NOT_FOUND; STORE_ERROR). Cheap: a
     * broker with nothing to commit asks every few hundred milliseconds
     * whether it is still the one that wrote the document. Never runs
     * while a load or write is in flight (the commit module guarantees
     * it). */
    void (*probe)(struct store *st, storeLoadCallback *cb, void *priv);
    /* Segments (see above). The store takes ownership of `data`. Each
     * operation retries transient failures itself until the store's
     * deadline (S3: commit-timeout-ms) and then reports STORE_ERROR. */
    void (*seg_put)(struct store *st, const char *name, sds data, storeSegDoneCallback *cb, void *priv);
    void (*seg_get)(struct store *st, const char *name, storeSegGetCallback *cb, void *priv);
    void (*seg_del)(struct store *st, const char *name, storeSegDoneCallback *cb, void *priv);
    void (*seg_list)(struct store *st, storeSegListCallback *cb, void *priv);
    /* The commit log (docs/state-format.md "The commit log"). Optional,
     * both NULL if the backend has none: then every commit writes the
     * root, as format 2 did.
     *
     * With a log, a version names the root *and* the log after it (the
     * file store: "<token>:<log bytes>"), and every write and probe
     * compares both; a root write (write/write_doc) also empties the log
     * once the root is durable: the root holds everything the log held.
     *
     * log_append: appends one record (a complete line, '\n' included; the
     * store takes ownership and does not parse it) after the log, as a
     * compare-and-set against expect_version, durable (fdatasync) before
     * STORE_OK; new_version names the root and the log with the record.
     * log_take: the log bytes read by the last successful load (under the
     * same lock as the root: one consistent version), handed over to the
     * caller; NULL if the log was empty or missing. They may begin with
     * records the root already holds and end with a torn record: the
     * commit module decides. */
    void (*log_append)(struct store *st, sds record, const char *expect_version, storeWriteCallback *cb,
                       void *priv);
    sds (*log_take)(struct store *st);
} storeType;

typedef struct store {
    const storeType *type;    /* backend */
    sds url;                  /* as configured, e.g. file:///var/lib/casq/queue.json */
    sds location;             /* human readable location for logs (path, or s3://bucket/key @ endpoint) */
    struct event_base *base;  /* loop the callbacks run on */
    void *state;              /* backend private */
} store;

/* Picks the backend from the URL's scheme ("file://", "s3://", or a plain
 * path meaning file), opens it. NULL with *err set on failure. */
store *storeOpen(const char *url, struct event_base *base, sds *err);
void storeClose(store *st);

extern const storeType fileStoreType;
extern const storeType s3StoreType;

#endif
