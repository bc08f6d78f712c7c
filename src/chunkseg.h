/* chunkseg.h -- chunk segments (design.md §3, docs/state-format.md "Chunk
 * segments"): the quiet chunks of big lists, sorted sets, hashes and sets
 * sealed into immutable segments, so that a commit writes the chunks that
 * changed, not the whole collection.
 *
 * These types keep their elements in chunks, each caching its JSON for the
 * documents. In a big value (one written through docJSON), a chunk that
 * did not change for a while -- the middle of a queue, whose ends are
 * pushed and popped -- is copied into a chunk segment, written once off
 * the reply path; once that write is durable the root names the chunk by
 * reference ({"segment", "from", "to"}) instead of holding its elements. A
 * chunk that changes, or is freed, leaves its segment (its part goes to
 * the segment's "gone" list in the root) and is inline again. A segment
 * left with few live chunks is unsealed: they go back inline and are
 * sealed again, with others, into a new one.
 *
 * "A while" is key-seal-quiet ms, raised while sealed chunks keep changing
 * soon after they were sealed (random updates all over a big sorted set):
 * sealing them would only write them again and again.
 *
 * Loading expands the references; lists and sorted sets align the loaded
 * chunks to them, so that a restarted or take-over broker keeps them
 * sealed (a hash's or set's chunks follow its per-process hash seed: they
 * are sealed anew).
 *
 * The segments' I/O books (garbage, grace, orphans, fetch) are segment.c's. */
#ifndef CASQ_CHUNKSEG_H
#define CASQ_CHUNKSEG_H

#include <stddef.h>
#include <stdint.h>

#include "sds.h"

struct storeDoc;
struct cJSON;
struct redisDb;
struct robj;

/* Embedded in every chunk of a type that can seal them. */
typedef struct chunkRef {
    uint32_t seg;  /* the chunk segment holding the chunk's JSON (written
                    * or being written), 0 while inline */
    uint32_t part; /* ... the chunk's index in it */
    long long changed_ms; /* when the chunk last changed */
} chunkRef;

void chunksegInit(void);
void chunksegFree(void);

/* ------------------------------------------------------------------------
 * The types' chunks (t_list.c, t_zset.c)
 * --------------------------------------------------------------------- */
/* A new chunk. */
void chunkRefInit(chunkRef *r);
/* The chunk's elements changed: it is inline again. */
void chunkRefChanged(chunkRef *r);
/* The chunk is freed. */
void chunkRefFreed(chunkRef *r);

/* A value's JSON into a document: "[", then each chunk either by
 * reference (consecutive parts of one segment merged into one) or as its
 * lent JSON, then "]". */
typedef struct chunkDocWriter {
    struct storeDoc *d; /* the document */
    int items;          /* something was written: the next needs a comma */
    uint32_t seg;       /* a reference being extended, 0 if none */
    uint32_t from, to;  /* ... its parts */
} chunkDocWriter;
void chunkDocBegin(chunkDocWriter *w, struct storeDoc *d);
/* Writes the chunk by reference if it is sealed (1), after letting its
 * cached JSON go (the segment holds it; NULL json: the chunk keeps it);
 * 0: the caller writes its JSON. */
int chunkDocAddSealed(chunkDocWriter *w, const chunkRef *r, sds *json, uint64_t *pin);
void chunkDocText(chunkDocWriter *w, sds json, uint64_t *pin);
void chunkDocEnd(chunkDocWriter *w);

/* Offered by a type's sealChunks (server.h) for each of its chunks whose
 * JSON is up to date; edge: at either end of a list or sorted set (where
 * a queue is pushed and popped: never sealed). */
typedef struct chunkSealPlan chunkSealPlan;
void chunkSealOffer(chunkSealPlan *p, chunkRef *r, sds json, int edge);
/* persist.c: o is written whole (its JSON is small now): its chunks leave
 * their segments, whose records would otherwise name chunks nobody
 * references. */
void chunksegUnsealValue(struct robj *o);

/* Loading (persist.c decodes, the types align): the sealed parts a value's
 * items came from, while its fromJSON runs. */
typedef struct chunkLoadPart {
    size_t start;    /* index of its first item in the expanded value */
    size_t count;    /* its items */
    long seg;        /* index of its segment in the decoded document */
    uint32_t part;   /* its index there */
    chunkRef *ref;   /* the chunk that holds exactly its items, if any */
} chunkLoadPart;
/* The part whose first item is item `index` of the value being loaded;
 * NULL if none starts there. */
chunkLoadPart *chunkLoadPartAt(size_t index);
/* The chunk ref now holds exactly the items of p. */
void chunkLoadAttach(chunkLoadPart *p, chunkRef *ref);
/* The value is not built as its parts were written: none is attached. */
void chunkLoadDetachAll(void);
/* persist.c: the parts of the value about to be built (n of them). */
void chunkLoadBegin(chunkLoadPart *parts, size_t n);
void chunkLoadEnd(void);

/* ------------------------------------------------------------------------
 * The document (persist.c)
 * --------------------------------------------------------------------- */
/* Appends the root's "chunk_segments" records (a JSON array). */
sds chunksegCatRecords(sds out);
/* Whether there is any (the field is omitted otherwise). */
int chunksegAny(void);
/* A loaded record; returns a handle for chunksegLoadedPart. */
void *chunksegInstall(const char *name, uint64_t count, uint64_t bytes, uint32_t crc);
/* A loaded chunk holds part `part` of the installed segment h. */
void chunksegLoadedPart(void *h, uint32_t part, chunkRef *ref);
/* The installed segment h is complete: its other parts are gone. */
void chunksegLoadedDone(void *h);
/* Every sealed chunk back inline (a document rewritten whole). */
void chunksegUnsealAll(void);
/* Encoding with every chunk inline (the export). */
void chunksegSetInlineAll(int on);
/* persist.c: key (db) holds a value written through docJSON: a candidate
 * for sealing. */
void chunksegNoteBig(struct redisDb *db, sds key);

/* ------------------------------------------------------------------------
 * Sealing (segment.c)
 * --------------------------------------------------------------------- */
void chunksegCron(int broker);
void chunksegCommitDone(int ok);
sds chunksegInfo(sds s);

#endif
