/* persist.h -- the state document (docs/state-format.md): the in-memory
 * state encoded as one JSON document, and a document decoded, validated
 * and installed as the in-memory state.
 *
 * Encoding runs on the main thread at every commit and must cost little
 * more than a memcpy of the document: streams keep the JSON of their
 * entries cached per node (t_stream.c), and this module keeps the JSON of
 * every small key's value cached until the key changes (robj->mod_seq).
 *
 * Decoding never touches the live databases: the whole document is parsed
 * and validated into a persistState first; only a fully valid document is
 * installed (persistInstall), replacing what was there. */
#ifndef CASQ_PERSIST_H
#define CASQ_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "sds.h"

#define PERSIST_FORMAT 3        /* the format this casq writes (3: root + commit log) */
#define PERSIST_FORMAT_OLDEST 1 /* the oldest it reads (and migrates) */
#define PERSIST_SEGMENT_FORMAT 2 /* segments and manifests: unchanged by 3 */

/* Key values whose JSON is at most this big are cached between commits;
 * bigger ones are written through their type's docJSON (a stream's
 * entries cached per node, a list's or sorted set's per chunk, which may
 * be sealed in chunk segments). */
#define PERSIST_CACHE_MAX_VALUE (64 * 1024)

/* The broker record (design.md §5). */
typedef struct persistBroker {
    sds id;         /* node id of the broker (its run_id); NULL if none */
    sds address;    /* "host:port" the broker serves on; NULL if none */
    uint64_t epoch; /* raised by every take-over; 0 if no broker yet */
} persistBroker;

/* The document's top-level fields other than the databases. */
typedef struct persistHeader {
    uint64_t commit_seq;     /* increases by one with every commit */
    long long written_at_ms; /* wall clock of the commit (informational) */
    sds casq_version;        /* version of the casq that wrote it; NULL if absent */
    persistBroker broker;    /* who owns the document */
} persistHeader;

/* Frees the sds fields and zeroes h. */
void persistHeaderClear(persistHeader *h);

/* ------------------------------------------------------------------------
 * Encoding
 * --------------------------------------------------------------------- */

/* Cache of encoded key values between commits (opaque). */
typedef struct persistCache persistCache;

persistCache *persistCacheCreate(void);
/* Drops every cached value (after the databases were replaced). */
void persistCacheReset(persistCache *pc);
void persistCacheFree(persistCache *pc);
/* Keys / bytes currently cached (INFO). */
size_t persistCacheKeys(const persistCache *pc);
size_t persistCacheBytes(const persistCache *pc);

/* Appends the document's text up to its databases, as persistEncode
 * writes it for h: `{"format":...,"broker":{...}` (no comma after it). A
 * document that begins with the text of the header a node wrote last is
 * that node's version (commit.c: a document cut short). */
sds persistCatHeader(sds out, const persistHeader *h);

/* Encodes the whole document for the current databases into d (see
 * storeDoc in store.h: big streams' entries are borrowed from their nodes,
 * stamped with server.doc_pin) and seals it. pc may be NULL (no caching). */
struct storeDoc;
void persistEncode(struct storeDoc *d, const persistHeader *h, persistCache *pc);
/* Appends db's key record for key: the text key segments are made of.
 * Taken from pc (may be NULL) if it holds the record as it would be
 * written now, encoded otherwise; pc is not changed. */
struct redisDb;
struct robj;
sds persistCatKey(sds out, struct redisDb *db, sds key, struct robj *o, const persistCache *pc);
/* Brings every sealed stream entry and every sealed key back inline (streamUnsealAll) and
 * returns the number of keys. */
unsigned long long persistUnsealAll(void);
/* The same with every stream entry inline and no segments named: the
 * whole logical state in one document (--export-state). */
void persistEncodeInline(struct storeDoc *d, const persistHeader *h);

/* ------------------------------------------------------------------------
 * Borrowed texts
 *
 * A type that keeps (parts of) its value's JSON between commits -- a
 * stream node's entries, a big collection's chunks -- lets the document
 * being written borrow them instead of copying (storeDoc in store.h). The
 * store may still be reading a borrowed text on its own thread, so the
 * owner keeps a pin next to it and, before changing or freeing the text,
 * calls docTextUnpin / docTextFree: a pinned text is handed to the
 * document (which frees it once written) and the owner goes on with a
 * copy. At most one copy per text and commit.
 * --------------------------------------------------------------------- */

/* Appends text to d, borrowed, and pins it. */
void docTextRef(struct storeDoc *d, sds text, uint64_t *pin);
/* Whether the document being written borrowed text. */
int docTextPinned(uint64_t pin);
/* Before *text changes: if pinned, *text becomes a private copy. */
void docTextUnpin(sds *text, uint64_t *pin);
/* Frees text, or leaves it to the document that borrowed it. */
void docTextFree(sds text, uint64_t pin);

/* ------------------------------------------------------------------------
 * Decoding
 * --------------------------------------------------------------------- */

/* A decoded, validated document not yet installed (opaque). */
typedef struct persistState persistState;

/* Parses and validates data[0..len). On success returns the state and fills
 * *h (the caller clears it); on failure returns NULL and sets *err to a
 * message saying what is wrong and where (e.g. `databases[0].keys[3]
 * ("jobs"): stream: entry #5: ...`). */
persistState *persistDecode(const char *data, size_t len, persistHeader *h, sds *err);
/* What is wrong with a text persistDecode refused, for a reader that must
 * tell a document lost from somebody's (commit.c): no bytes or only
 * whitespace; JSON text that ends unexpectedly, as one cut short does
 * (persistDecode says "truncated"). */
int persistTextEmpty(const char *data, size_t len);
int persistTextCutShort(const char *data, size_t len);
/* Number of keys in a decoded state. */
unsigned long long persistStateKeys(const persistState *ps);
/* Replaces every database's contents with the decoded state and frees ps.
 * Clients blocked on keys stay blocked (they wait on key names) and are
 * re-checked against the new contents; WATCHes are invalidated. NULL
 * installs an empty state. */
void persistInstall(persistState *ps);
void persistStateFree(persistState *ps);

/* ------------------------------------------------------------------------
 * The commit log (docs/state-format.md "The commit log")
 * --------------------------------------------------------------------- */

/* The record of commit h->commit_seq: the changes since the commit of
 * change base_seq landed (keys changed since, the names removed meanwhile
 * -- persistLogTakeDeleted --, streams' deltas as of commit gen, marks of
 * commit ok_gen and before counting as persisted); *empty says whether
 * it holds no change at all. NULL if a change cannot be written as a
 * record: the commit must be a checkpoint. */
sds persistEncodeLogRecord(const persistHeader *h, uint64_t base_seq, uint64_t gen, uint64_t ok_gen,
                           persistCache *pc, int *empty);
/* Why a commit could not be a record (INFO commit_checkpoints_*). */
typedef enum persistLogRefusal {
    PERSIST_LOG_REFUSED_BARRIER, /* FLUSHDB, SWAPDB, FUNCTION ... */
    PERSIST_LOG_REFUSED_STREAM,  /* a stream change that is no delta */
    PERSIST_LOG_REFUSED_BIG,     /* a collection over 64 KB changed */
    PERSIST_LOG_REFUSALS
} persistLogRefusal;
long long persistLogRefusals(const persistCache *pc, persistLogRefusal why);
/* The names removed since the last commit started become the commit's to
 * write (db->log_deleted into db->log_deleted_flight). */
void persistLogTakeDeleted(void);
/* Forgets the names noted as removed: those the commit in flight wrote
 * (flight_too: it landed), or those noted since (a load). */
void persistLogForgetDeleted(int flight_too);
/* A checkpoint of commit gen holds every stream as it is now. */
void persistLogMarkStreams(uint64_t gen);

typedef struct persistLogStats {
    size_t skipped;    /* records the root holds already */
    size_t applied;    /* records replayed */
    size_t torn_bytes; /* bytes of a torn last record, ignored */
} persistLogStats;
/* Replays the log's records after h->commit_seq onto ps, advancing h.
 * C_ERR with *err naming the record if one is corrupt, missing, out of
 * order, of another broker, or does not apply; ps is then to be freed. */
int persistReplayLog(persistState *ps, persistHeader *h, const char *log, size_t len, persistLogStats *st,
                     sds *err);

#endif
