/* t_stream.h -- the stream type: entries, consumer groups, pending entries.
 *
 * Semantics are Redis 7.2's (t_stream.c there); the representation is
 * casq's own:
 *  - entries are packed in nodes of up to stream-node-max-entries entries
 *    (split by Redis's own rule, see streamAppendItem), nodes indexed by
 *    their master ID in an idtree (B+tree);
 *  - every node caches its entries' JSON for the state document, so a
 *    commit re-encodes only the nodes that changed;
 *  - pending entries lists are idtrees keyed by entry ID; a consumer's PEL
 *    shares its NACKs with the group's PEL, as in Redis. */
#ifndef CASQ_T_STREAM_H
#define CASQ_T_STREAM_H

#include <cjson/cJSON.h>
#include <limits.h>

#include "idtree.h"
#include "server.h"

/* ------------------------------------------------------------------------
 * Types
 * --------------------------------------------------------------------- */

/* A run of consecutive entries, the counterpart of one Redis listpack,
 * stored as the state document's JSON text plus a binary index (see
 * "Node encoding" in t_stream.c). `deleted` remembers entries removed
 * since the node was created, because Redis's rule for starting a new
 * node counts them. */
/* A run of a node's entries held by one segment: the entries after the
 * node's previous piece (from its first entry for the first piece), up
 * to these counts. A node has at most one piece per segment. */
typedef struct streamNodePiece {
    struct streamSegment *seg; /* the segment holding it */
    uint32_t slot;          /* its slot in seg->nodes */
    uint32_t count;         /* the node's entries up to its end */
    uint32_t idx;           /* ... their bytes of idx */
    size_t json;            /* ... their bytes of json (no comma after) */
} streamNodePiece;

typedef struct streamNode {
    streamID master_id;     /* first entry ever appended: the idtree key */
    streamID last_id;       /* last entry ever appended, deleted or not
                             * (Redis's MINID trim looks at it) */
    sds json;               /* the live entries' JSON, comma separated,
                             * exactly as in the document */
    uint64_t json_pin;      /* server.doc_pin of the document that borrowed
                             * json (see nodeUnpinText in t_stream.c) */
    unsigned char *idx;     /* one record per live entry: ID, field count,
                             * length of its JSON */
    uint32_t idx_used;      /* bytes of idx in use */
    uint32_t idx_alloc;     /* bytes allocated for idx */
    uint32_t count;         /* live entries */
    uint32_t deleted;       /* entries removed since the node was created */
    uint32_t lp_fixed;      /* emulated Redis listpack size, fixed part:
                             * header, master fields and terminator */
    uint32_t lp_entries;    /* emulated listpack bytes of every entry ever
                             * appended (Redis never shrinks a listpack) */
    unsigned char *master_fields; /* field names of the first entry, for
                                   * listpack's same-fields compression:
                                   * varint n, then n x (varint len, bytes) */
    struct streamNodePiece *pieces; /* where its sealed entries are: its
                                     * first entries, in pieces held by
                                     * segments, in order (the last one's
                                     * counts are the sealed entries');
                                     * NULL if every entry is written inline
                                     * in the root. Entries appended after
                                     * them (the tail's new ones) are inline:
                                     * the root writes only the node's
                                     * unsealed suffix, and the next seal
                                     * makes it one more piece */
    uint32_t npieces;       /* pieces in pieces */
    uint64_t gen;           /* changes with every removal of entries (a
                             * seal planned on an older gen is void);
                             * appends leave the existing entries as they
                             * are, and gen with them */
    long long mod_ms;       /* unix ms of the last removal of entries */
} streamNode;

/* A segment (design.md §3, docs/state-format.md): an immutable object in
 * the store holding a run of a stream's entries, named by the root. Its
 * entries are also in memory, in the nodes that point at it; a node whose
 * entries change leaves its segment (its entries go back inline) and the
 * root's record of the segment stops covering them. A segment no node
 * points at any more is dropped and, after a grace period, deleted
 * (segment.c). */
typedef struct streamSegment {
    sds name;              /* its name in the store */
    struct stream *owner;  /* the stream it belongs to */
    streamID first_id;     /* first entry written into it */
    streamID last_id;      /* last entry written into it */
    uint64_t count;        /* entries written into it */
    uint64_t bytes;        /* size of the segment object */
    uint32_t crc;          /* CRC-32 (zlib) of the segment object */
    streamNode **nodes;    /* the nodes of its pieces in ID order, NULL
                            * where a piece left or where its entries were
                            * already dead */
    uint32_t nnodes;       /* slots in nodes */
    uint32_t nlive;        /* slots not NULL */
    uint64_t live;         /* entries still in it */
    uint64_t live_bytes;   /* their JSON bytes */
    uint32_t head_dead;    /* leading slots that are NULL */
    long long died_ms;     /* when entries of it last changed or died (0: not
                            * since loaded); a move to another segment is not */
    sds json;              /* the root's record of it; NULL: to be made */
    struct streamManifest *man; /* the manifest holding its record, NULL:
                                 * the root holds it */
    int overridden;        /* man's copy of the record is out of date
                            * (its live ranges changed): the root writes
                            * the current one, which takes precedence */
} streamSegment;

/* A segment (or manifest) consumed from its head for this long without a
 * node (segment) leaving it is rewritten once mostly dead (see
 * segmentMostlyDead in t_stream.c, manifestConsumed in t_stream_manifest.c). */
#define SEG_HEAD_QUIET_MS 30000

/* A manifest (docs/state-format.md "Manifests"): an immutable object in
 * the store holding the records of a stream's older segments, so that the
 * root names a few manifests instead of every segment. Written once like
 * a segment; a record that changes afterwards is written again in the
 * root (the segment is "overridden"), a segment that is dropped is listed
 * in the root's record of the manifest as dead; a manifest mostly out of
 * date is rewritten, a few small ones merged. */
typedef struct streamManifest {
    sds name;              /* its name in the store */
    uint64_t bytes;        /* size of the manifest object */
    uint32_t crc;          /* CRC-32 (zlib) of the manifest object */
    uint32_t count;        /* records written into it */
    uint32_t nlive;        /* segments whose record it holds (g->man) */
    uint32_t nover;        /* ... of which overridden */
    sds *dead;             /* names of its segments no longer named */
    uint32_t ndead;        /* names in dead */
    uint32_t dead_alloc;   /* slots allocated in dead */
    long long changed_ms;  /* when a segment of it was last dropped or changed
                            * (entries deleted: overridden); 0: never */
    sds json;              /* the root's record of it; NULL: to be made */
} streamManifest;

typedef struct streamCG streamCG;
typedef struct streamConsumer streamConsumer;
typedef struct streamPrio streamPrio; /* t_stream_prio.c */
/* The idempotency window of XADD IDMP/IDMPAUTO (t_stream_idmp.c). */
typedef struct streamIdmp streamIdmp;

/* What the persisted state holds of a stream (t_stream_log.c). */
typedef struct streamLogMark {
    uint64_t gen;           /* the commit that wrote it (0: none) */
    streamID last_entry;    /* its last entry then (0-0: none) */
    uint64_t length;        /* its length then */
    uint64_t added;         /* its entries_added then */
    streamID max_deleted;   /* its max_deleted_entry_id then */
    uint64_t holes;         /* its holes then */
} streamLogMark;

typedef struct stream {
    idtree nodes;                  /* master ID -> streamNode*, in order */
    idtree inline_nodes;           /* the same for the nodes not sealed (the
                                    * root's entries): a commit walks only
                                    * these, not a backlog's every node */
    streamSegment **segs;          /* its segments, oldest first */
    uint32_t nsegs;                /* segments in segs */
    uint32_t segs_alloc;           /* slots allocated in segs */
    streamManifest **mans;         /* its manifests, oldest first */
    uint32_t nmans;                /* manifests in mans */
    uint32_t mans_alloc;           /* slots allocated in mans */
    uint64_t inline_bytes;         /* JSON bytes of the entries of nodes
                                    * not sealed (written in the root) */
    int seal_queued;               /* segment.c knows it: STREAM_SEAL_QUEUED
                                    * (on its list) | STREAM_SEAL_JOB(lane)
                                    * (a seal of it is being written) */
    uint64_t length;               /* live entries */
    streamID last_id;              /* last generated ID (XADD / XSETID) */
    streamID first_id;             /* first live entry, 0-0 when empty:
                                    * XINFO recorded-first-entry-id */
    streamID max_deleted_entry_id; /* greatest ID removed by XDEL */
    uint64_t entries_added;        /* entries ever added */
    streamCG **cgroups;            /* groups sorted by name (Redis's rax order) */
    size_t num_cgroups;            /* groups in cgroups */
    size_t cgroups_alloc;          /* slots allocated in cgroups */
    uint64_t cg_created;           /* creation counter: groups are written to
                                    * the document in creation order */
    streamIdmp *idmp;              /* XADD IDMP's window and XCFGSET's
                                    * settings; NULL until first used */
    uint64_t holes;                /* entries removed other than from the
                                    * head (XDEL, XDELEX, ACKED trims) */
    streamID *log_dels;            /* their IDs, from hole number
                                    * log_dels_base on, while the commit log
                                    * may still have to say them */
    uint64_t log_dels_base;        /* holes before log_dels[0] */
    uint32_t log_dels_n;           /* IDs in log_dels */
    uint32_t log_dels_alloc;       /* slots allocated */
    streamLogMark log_mark;        /* what the persisted state holds of it */
    streamLogMark log_flight;      /* ... once the commit in flight lands */
} stream;

/* Consumer group. */
struct streamCG {
    sds name;                      /* group name (binary safe) */
    streamID last_id;              /* last delivered ID */
    long long entries_read;        /* logical read counter of last_id, or
                                    * SCG_INVALID_ENTRIES_READ if unknown */
    idtree pel;                    /* entry ID -> streamNACK*: delivered,
                                    * not acknowledged */
    streamConsumer **consumers;    /* consumers sorted by name */
    size_t num_consumers;          /* consumers in the array */
    size_t consumers_alloc;        /* slots allocated */
    uint64_t created;              /* creation rank within the stream */
    streamPrio *prio;              /* priority delivery (t_stream_prio.c),
                                    * NULL: a plain Redis group */
    /* Dead-lettering (casq, XDEADLETTER): an entry about to be delivered
     * more than dlq_max times, or rejected with XNACK FATAL, is moved to
     * the stream dlq_key instead. */
    sds dlq_key;                   /* NULL: no policy */
    uint64_t dlq_max;              /* deliveries allowed */
    uint64_t dlq_count;            /* entries dead-lettered so far */
    /* The NACK zone (Redis 8.8 XNACK): pending entries released by their
     * consumer have no owner and are claimed before the others, first
     * released first. */
    size_t nack_zone_len;          /* unowned pending entries */
    uint64_t nack_seq_next;        /* last position given out in the zone */
    long long pel_time_lb;         /* no pending entry outside the zone was
                                    * delivered before this (unix ms): exact
                                    * after XREADGROUP CLAIM walked the PEL,
                                    * lowered by every delivery time set
                                    * below it (streamPelNoteTime), left as
                                    * it is by removals. While now - it is
                                    * under min-idle-time nothing is idle
                                    * enough, and CLAIM does not walk (Redis
                                    * 8.4 keeps a PEL by time for that). 0:
                                    * nothing known, walk */
};

/* A consumer of a group. */
struct streamConsumer {
    sds name;                      /* consumer name (binary safe) */
    long long seen_time;           /* last attempted interaction (unix ms):
                                    * XREADGROUP, XCLAIM, XAUTOCLAIM */
    long long active_time;         /* last successful read or claim, -1 never */
    idtree pel;                    /* entry ID -> streamNACK*, the same NACK
                                    * objects as in the group PEL */
    sds json_name;                 /* the name as a JSON byte string, made on
                                    * first use (state document), or NULL */
};

/* A pending (delivered, unacknowledged) entry. */
typedef struct streamNACK {
    long long delivery_time;       /* last delivery, unix ms: the job's
                                    * heartbeat (design.md §5) */
    uint64_t delivery_count;       /* deliveries so far */
    streamConsumer *consumer;      /* owner, NULL: released by XNACK, in
                                    * the group's NACK zone */
    uint64_t nack_seq;             /* position in the NACK zone (FIFO),
                                    * meaningful only without an owner */
} streamNACK;

/* A pending entry of cg got delivery time t (set, or joined the PEL with
 * it): keeps cg->pel_time_lb a lower bound. */
static inline void streamPelNoteTime(streamCG *cg, long long t) {
    if (t < cg->pel_time_lb) cg->pel_time_lb = t;
}

/* Sets a pending entry's delivery time. */
static inline void streamNACKSetDeliveryTime(streamCG *cg, streamNACK *nack, long long t) {
    nack->delivery_time = t;
    streamPelNoteTime(cg, t);
}

/* One more delivery. The count stops at LLONG_MAX: replies show it as a
 * long long and the loader accepts no more (RETRYCOUNT may set LLONG_MAX). */
static inline void streamNACKCountDelivery(streamNACK *nack) {
    if (nack->delivery_count < (uint64_t)LLONG_MAX) nack->delivery_count++;
}

#define SCG_INVALID_ENTRIES_READ (-1)

/* Iterator over a range of entries; see streamIteratorStart(). */
typedef struct streamIterator {
    stream *s;                     /* stream iterated */
    streamID start;                /* first ID of the range (inclusive) */
    streamID end;                  /* last ID of the range (inclusive) */
    int rev;                       /* iterating from end to start */
    idtreeIter ni;                 /* position in the node index */
    streamNode *node;              /* node being scanned, NULL before the first */
    uint32_t pos;                  /* forward: offset of the next index record;
                                    * reverse: end of the next record */
    size_t jpos;                   /* forward: text offset of the next entry;
                                    * reverse: of the entry just returned */
    const char *fp;                /* next field or value in the entry's JSON */
    sds field_buf;                 /* decoded field, when not plain text */
    sds value_buf;                 /* decoded value, when not plain text */
} streamIterator;

/* ------------------------------------------------------------------------
 * API used by other modules
 * --------------------------------------------------------------------- */

extern struct redisCommand streamCommandTable[];

stream *streamNew(void);
void freeStream(stream *s);
unsigned long streamLength(const robj *o);
/* Bytes used by the stream, approximately (MEMORY USAGE, INFO). */
size_t streamMemoryUsage(const stream *s);
/* Redis's MEMORY USAGE estimate for a stream: nodes sampled (samples 0 =
 * all), groups and consumers counted in full. Excludes the robj. */
size_t streamObjectComputeSize(const stream *s, long long samples);
/* A deep, independent copy (COPY), consumer groups and PELs included. */
stream *streamDup(const stream *s);

/* The STREAM object of docs/state-format.md, appended to out. Unchanged
 * nodes contribute their cached JSON (memcpy); must run on the main
 * thread since it refreshes those caches. */
sds streamCatJSON(sds out, const stream *s);
/* The same JSON into a document being built for a write, borrowing the
 * nodes' texts instead of copying them (see storeDoc in store.h). */
struct storeDoc;
void streamDocJSON(struct storeDoc *d, const stream *s);
/* Bytes of the entries' JSON: a cheap upper bound of a stream's document
 * size, less its groups. */
size_t streamEntriesJSONBytes(const stream *s);
/* Builds a stream from its document object, validating everything; on
 * error returns NULL and sets *err. Never crashes on hostile input. */
stream *streamFromJSON(const cJSON *obj, sds *err);

/* Low-level entry operations (XADD / XDEL / XTRIM without the commands;
 * used by tests and loaders). streamAppendItem returns C_ERR with errno
 * EDOM if the ID is not above the last ID, ERANGE if the entry is too
 * large; seq_given 0 means "<ms>-*" (the sequence is chosen). */
int streamAppendItem(stream *s, sds *argv, int64_t numfields, streamID *added_id, const streamID *use_id,
                     int seq_given);
int streamDeleteItem(stream *s, const streamID *id);
int64_t streamTrimByLength(stream *s, long long maxlen, int approx);
int64_t streamTrimByID(stream *s, streamID minid, int approx);

/* COMMAND GETKEYS for XREAD / XREADGROUP (movable keys): stores the
 * argument positions of the keys in keys_out (at most max) and returns
 * their number, or -1 if the arguments are malformed. */
int streamGetKeys(struct redisCommand *cmd, sds *argv, int argc, int *keys_out, int max);

/* ------------------------------------------------------------------------
 * Segments (segment.c drives them; the nodes are t_stream.c's)
 * --------------------------------------------------------------------- */

/* stream.seal_queued bits. */
#define STREAM_SEAL_QUEUED 1
#define STREAM_SEAL_JOB(lane) (2 << (lane))
/* What a seal writes (segment.c's lanes): a stream's inline entries, or
 * the nodes of segments worth rewriting (mostly dead, or small ones to
 * merge). The two never pick the same node. */
#define STREAM_SEAL_NEW 0
#define STREAM_SEAL_REWRITE 1

/* A run of nodes chosen to be written into a new segment: each node's
 * entries as they were when planned (appends may follow: the segment
 * holds the first counts[i] of them). */
typedef struct streamSealPlan {
    streamID *masters;     /* each node's master ID (its idtree key) */
    uint64_t *gens;        /* ... and gen when planned */
    uint32_t *starts;      /* ... its entries sealed then, after which the
                            * piece starts (new entries); 0: the piece
                            * replaces those (a rewrite, or a node not
                            * sealed yet) */
    uint32_t *counts;      /* ... its entries up to the piece's end */
    uint32_t *idxs;        /* ... their bytes of idx */
    size_t *jsons;         /* ... their bytes of json */
    uint32_t nnodes;       /* nodes in the plan */
    uint64_t count;        /* entries in their pieces */
    streamID first_id;     /* first of them */
    streamID last_id;      /* last of them */
    uint32_t merged;       /* segments the plan empties (compaction) */
    int later;             /* more to do (the other lane's work, or
                            * nodes being consumed that will be sealable
                            * once quiet): ask again */
} streamSealPlan;

/* Plans the next segment of s in a lane: STREAM_SEAL_NEW, sealable
 * inline entries (each node's as one more piece of it, the tail's too;
 * not a node being consumed right now) when there are at least
 * seal_bytes of them; STREAM_SEAL_REWRITE, the sealed entries of the
 * nodes with a piece in a segment worth rewriting: mostly dead, or (with
 * merge) the small ones -- under max_bytes / fanout -- once they add up
 * to that; each such node's pieces become one. Up to max_bytes. Returns the segment's bytes
 * (text made in *text, entries in order) or 0 if there is nothing to do;
 * plan->later says whether s has (or will soon have) work in either lane. */
size_t streamPlanSeal(stream *s, int lane, const char *name, size_t seal_bytes, size_t max_bytes, int fanout,
                      int merge, long long now_ms, streamSealPlan *plan, sds *text);
void streamSealPlanFree(streamSealPlan *plan);

/* A manifest to write: the records it holds and the manifests it
 * replaces. */
typedef struct streamManifestPlan {
    sds *names;            /* the segments whose records it holds */
    sds *records;          /* ... those records, as written */
    uint32_t count;        /* records */
    sds *replaced;         /* names of the manifests it replaces */
    uint32_t nreplaced;    /* ... how many */
} streamManifestPlan;

/* Plans the next manifest of s: when the root holds more than root_max
 * records of segments, the oldest of them (keeping root_max / 2 in the
 * root); otherwise a manifest mostly out of date (dead or overridden
 * records), rewritten with fanout - 1 others of its size, or fanout small
 * manifests of one size tier merged. Returns the manifest's bytes (text in
 * *text) or 0 if there is nothing to do. */
size_t streamPlanManifest(stream *s, const char *name, uint32_t root_max, int fanout, long long now_ms,
                          streamManifestPlan *plan, sds *text);
void streamManifestPlanFree(streamManifestPlan *plan);
/* The manifest of the plan is durable: the planned segments still named
 * take their records from it. Returns how many (0: the caller deletes
 * it). */
uint32_t streamAttachManifest(stream *s, const streamManifestPlan *plan, const char *name, uint64_t bytes,
                              uint32_t crc);
/* The segment of the plan is durable: the planned nodes that did not
 * change meanwhile now point at it. Returns the number of nodes sealed (0:
 * nothing uses the segment, which the caller deletes). */
uint32_t streamAttachSegment(stream *s, const streamSealPlan *plan, const char *name, uint64_t bytes, uint32_t crc);
/* t_stream_manifest.c, from t_stream.c: */
/* g is dropped (before it is freed): its manifest lists it as dead, or
 * goes if g was its last segment. */
void streamManifestSegmentDropped(stream *s, streamSegment *g);
/* g's record changed: the root writes it over its manifest's copy. */
void streamManifestSegmentChanged(streamSegment *g);
/* The stream goes: its manifests are garbage. */
void streamManifestsFree(stream *s);
/* ,"manifests":[...] (nothing without manifests). */
sds streamCatManifestsJSON(sds out, stream *s);
/* Manifests without a segment any more (after a load) are dropped. */
void streamManifestsSettle(stream *s);

/* The records of segments a stream loads: the root's "segments" and
 * those of the manifests it names (an override in the root replaces the
 * manifest's record; dead records are left out). */
typedef struct streamLoadRecords {
    const cJSON **recs;          /* each record */
    streamManifest **owners;     /* ... the manifest holding it, or NULL */
    unsigned char *overridden;   /* ... taken from the root over its
                                  * manifest's copy */
    size_t n;                    /* records */
    cJSON **docs;                /* the parsed manifests (owned), in the
                                  * order of s->mans */
    size_t ndocs;                /* ... how many */
} streamLoadRecords;
/* Reads the root's "manifests" (may be NULL) and the manifests they name
 * (added to s), and lists every record to load. */
int streamLoadRecordsMake(stream *s, const cJSON *manifests, const cJSON *segments, streamLoadRecords *out,
                          sds *err);
void streamLoadRecordsFree(streamLoadRecords *r);

/* t_stream.c, for t_stream_manifest.c: */
/* The root's record of g (cached in g->json). */
sds streamSegmentRecord(streamSegment *g);
/* g is being consumed from its head (t_stream.c says when). */
int streamSegmentConsumed(const streamSegment *g, long long now_ms);

/* Every node leaves its segment: all entries inline again, the segments
 * dropped (a document written again from memory). */
void streamUnsealAll(stream *s);
/* Export: every entry inline, no segments (--export-state). */
void streamSetInlineAll(int on);
/* JSON bytes of the entries appended since start (not counting loads). */
uint64_t streamBytesAppended(void);
/* CRC-32 of a segment object. */
uint32_t streamSegmentCRC(const char *data, size_t len);

/* ------------------------------------------------------------------------
 * Blocking (blocked.c)
 * --------------------------------------------------------------------- */

/* Blocks c on numkeys stream keys until timeout_ms (absolute unix ms, 0 =
 * forever). XREAD passes the IDs the client waits beyond (ids[i] for
 * keys[i]); XREADGROUP passes the group name and NULL ids. When a key
 * becomes ready the command is executed again (CLIENT_REEXECUTING). */
void blockForStreams(client *c, sds *keys, const streamID *ids, int numkeys, long long timeout_ms, sds group);

/* blocked.c asks whether a waiter could be served right now: for XREAD
 * (group NULL) whether the stream has an entry > *id; for XREADGROUP
 * whether the group has entries to deliver, or the key or group is gone
 * (the command then replies with an error). */
int streamWaiterCanBeServed(redisDb *db, sds key, const streamID *id, sds group);

/* ------------------------------------------------------------------------
 * Shared between t_stream.c and t_stream_group.c
 * --------------------------------------------------------------------- */

int streamIncrID(streamID *id);
int streamDecrID(streamID *id);
static inline int streamIDEqZero(const streamID *id) { return !(id->ms || id->seq); }

void streamIteratorStart(streamIterator *si, stream *s, const streamID *start, const streamID *end, int rev);
int streamIteratorGetID(streamIterator *si, streamID *id, int64_t *numfields);
/* Where an entry lies in its node, as a scan saw it (streamIteratorGetRawBatch)
 * at a time given by streamLayoutEpoch(): valid while the node has not
 * lost entries since (streamReplyWithEntry checks). */
typedef struct streamEntryPos {
    uint32_t rec;                  /* offset of its index record, or
                                    * STREAM_POS_UNKNOWN */
    uint32_t text;                 /* offset of its JSON text */
    uint64_t epoch;                /* streamLayoutEpoch() when seen, or before */
} streamEntryPos;
#define STREAM_POS_UNKNOWN UINT32_MAX
uint64_t streamLayoutEpoch(void);
/* An entry's JSON in place (forward walks only): its fields from fields
 * up to end (its closing ']'); at: its offsets (rec STREAM_POS_UNKNOWN if
 * they do not fit), epoch not set. */
typedef struct streamRawEntry {
    streamID id;
    int64_t numfields;
    const char *fields;
    const char *end;
    streamEntryPos at;
} streamRawEntry;
size_t streamIteratorGetRawBatch(streamIterator *si, streamRawEntry *out, size_t max);
/* A forward walk resumed after the entry a previous one ended with. */
typedef struct streamEntryHint streamEntryHint;
void streamIteratorStartAfter(streamIterator *si, stream *s, const streamID *start, const streamEntryHint *hint);
void streamIteratorSaveHint(const streamIterator *si, const streamID *last, streamEntryHint *hint);
void streamIteratorGetField(streamIterator *si, const unsigned char **field, size_t *flen,
                            const unsigned char **value, size_t *vlen);
void streamIteratorStop(streamIterator *si);
int streamEntryExists(stream *s, const streamID *id);
/* The first live entry; returns 0 if the stream is empty. */
int streamFirstValidID(stream *s, streamID *id);
/* The last live entry; returns 0 if the stream is empty. */
int streamLastValidID(stream *s, streamID *id);

void addReplyStreamID(client *c, const streamID *id);

#define STREAM_RWR_NOACK (1 << 0)      /* do not create PEL entries */
#define STREAM_RWR_RAWENTRIES (1 << 1) /* no array header: just the entries */
#define STREAM_RWR_HISTORY (1 << 2)    /* serve the consumer's own PEL */
#define STREAM_RWR_CLAIM_META (1 << 3) /* XREADGROUP CLAIM: each new entry gets
                                        * its delivery metadata, 0 and 0 */
size_t streamReplyWithRange(client *c, stream *s, const streamID *start, const streamID *end, size_t count, int rev,
                            streamCG *group, streamConsumer *consumer, int flags);
/* A remembered position for streamReplyWithEntry (no reference held). */
struct streamEntryHint {
    const void *node;              /* the node of the last entry found */
    uint64_t gen;                  /* its gen then */
    uint64_t freed;                /* nodes freed then (node still alive?) */
    uint32_t pos;                  /* the index record after that entry */
    size_t jpos;                   /* ... and its text offset */
    streamID id;                   /* that entry's ID */
};
int streamReplyWithEntry(client *c, stream *s, const streamID *id, streamEntryHint *hint, const streamEntryPos *at,
                         int meta);
void streamReplyWithCGLag(client *c, stream *s, streamCG *cg);
void streamReplyWithCGEntriesRead(client *c, stream *s, streamCG *cg);
/* XREAD/XREADGROUP ... MAXSIZE: whether the running read's reply reached
 * its byte budget (never, outside such a read). */
int streamReplyBudgetExhausted(client *c);
long long streamEstimateDistanceFromFirstEverEntry(stream *s, const streamID *id);
int streamRangeHasTombstones(stream *s, const streamID *start, const streamID *end);

/* ID parsing with Redis's error replies (c may be NULL: no reply). */
int streamGenericParseIDOrReply(client *c, sds o, streamID *id, uint64_t missing_seq, int strict, int *seq_given);
int streamParseIDOrReply(client *c, sds o, streamID *id, uint64_t missing_seq);
int streamParseStrictIDOrReply(client *c, sds o, streamID *id, uint64_t missing_seq, int *seq_given);
int streamParseIntervalIDOrReply(client *c, sds o, streamID *id, int *exclude, uint64_t missing_seq);

/* Groups, consumers and NACKs (t_stream_group.c). */
streamCG *streamCreateCG(stream *s, const char *name, size_t namelen, const streamID *id, long long entries_read);
streamCG *streamLookupCG(stream *s, sds groupname);
void streamFreeCG(streamCG *cg);
streamConsumer *streamLookupConsumer(streamCG *cg, sds name);
streamConsumer *streamCreateConsumer(streamCG *cg, sds name);
void streamDelConsumer(streamCG *cg, streamConsumer *consumer);
streamNACK *streamCreateNACK(streamConsumer *consumer);
void streamFreeNACK(streamNACK *na);
void streamNACKDetach(streamCG *cg, streamNACK *nack, const streamID *id);
sds streamCatGroupsJSON(sds out, const stream *s);
int streamGroupsFromJSON(stream *s, const cJSON *groups, sds *err);

/* Priority delivery (t_stream_prio.c, docs/priority.md). */
typedef struct streamPrioSpec {
    int mode;                      /* 0 OFF, 1 FAIR, 2 STRICT */
    uint32_t weights[2];           /* FAIR WEIGHTS high normal */
    int has_weights;
    long long max_wait;            /* STRICT MAXWAIT ms */
    int has_max_wait;
    sds field;                     /* FIELD name, NULL: unchanged/default */
} streamPrioSpec;
int streamPrioParseOrReply(client *c, int *j, streamPrioSpec *spec);
void streamPrioApply(stream *s, streamCG *cg, const streamPrioSpec *spec);
void streamPrioSetID(stream *s, streamCG *cg, const streamID *id);
void streamPrioFree(streamPrio *p);
streamPrio *streamPrioDup(const streamPrio *p);
int streamPrioHasUndelivered(stream *s, streamCG *cg);
/* flags: STREAM_RWR_NOACK, STREAM_RWR_RAWENTRIES, STREAM_RWR_CLAIM_META. */
size_t streamPrioDeliver(client *c, stream *s, streamCG *cg, streamConsumer *consumer, size_t count, int flags);
long long streamPrioLag(stream *s, streamCG *cg);
/* Whether the entry is one the priority group has not delivered yet. */
int streamPrioIsUndelivered(stream *s, streamCG *cg, const streamID *id);
int streamPrioInfoFieldCount(const streamCG *cg);
void streamPrioReplyInfo(client *c, stream *s, streamCG *cg);
sds streamPrioCatJSON(sds out, const streamCG *cg);
int streamPrioFromJSON(stream *s, streamCG *cg, const cJSON *obj, sds *err);
size_t streamPrioMemoryUsage(const streamCG *cg);
/* Groups' references to entries (Redis 8.2's KEEPREF/DELREF/ACKED,
 * t_stream_group.c). Referenced: pending in some group, or not yet
 * delivered to some group (above its last delivered ID). */
int streamEntryIsReferenced(stream *s, const streamID *id);
/* Removes the entry's pending entries from every group; returns how many. */
int streamDelEntryRefs(stream *s, const streamID *id);
/* Acknowledges id in group (drops its NACK); returns 1 if it was pending. */
int streamAckID(streamCG *group, const streamID *id);
/* Dead-lettering (casq, t_stream_group.c). */
#define STREAM_DLQ_MAX_DELIVERIES "max-deliveries"
#define STREAM_DLQ_XNACK_FATAL "xnack-fatal"
/* Whether delivering the pending entry again would pass the group's limit. */
static inline int streamDeadLetterDue(const streamCG *cg, const streamNACK *nack) {
    return cg->dlq_key && nack->delivery_count >= cg->dlq_max;
}
int streamDeadLetter(client *c, sds key, stream *s, streamCG *cg, const streamID *id, streamNACK *nack,
                     const char *reason);
int streamDeadLetterReplyInfo(client *c, streamCG *cg);
/* XREADGROUP ... CLAIM (Redis 8.4, t_stream_group.c). */
int streamGroupPrepareClaim(client *c, sds key, stream *s, streamCG *cg, long long minidle);
size_t streamReplyClaimIdlePending(client *c, sds key, stream *s, streamCG *cg, streamConsumer *consumer,
                                   long long minidle, size_t count);

/* The idempotency window (t_stream_idmp.c). */
sds streamIdmpAutoIID(sds *argv, int64_t numfields);
int streamIdmpLookup(stream *s, sds pid, sds iid, streamID *id);
void streamIdmpRecord(stream *s, sds pid, sds iid, const streamID *id);
streamIdmp *streamIdmpDup(const streamIdmp *src);
void streamIdmpFree(streamIdmp *w);
size_t streamIdmpMemoryUsage(const streamIdmp *w);
int streamIdmpReplyInfo(client *c, stream *s);
sds streamIdmpCatJSON(sds out, const stream *s);
int streamIdmpFromJSON(stream *s, const cJSON *v, sds *err);

/* Commands */
void xaddCommand(client *c);
void xdelexCommand(client *c);
void xackdelCommand(client *c);
void xcfgsetCommand(client *c);
void xnackCommand(client *c);
void xdeadletterCommand(client *c);
void xrangeCommand(client *c);
void xrevrangeCommand(client *c);
void xlenCommand(client *c);
void xreadCommand(client *c);
void xdelCommand(client *c);
void xtrimCommand(client *c);
void xsetidCommand(client *c);
void xinfoCommand(client *c);
void xgroupCommand(client *c);
void xackCommand(client *c);
void xclaimCommand(client *c);
void xautoclaimCommand(client *c);
void xpendingCommand(client *c);

/* "length":…,"last_id":…,"first_id":…,"max_deleted_id":…,"entries_added":…
 * as the document writes them. */
sds streamCatCounters(sds out, const stream *s);

/* ------------------------------------------------------------------------
 * A stream's changes as commit log records (t_stream_log.c)
 * --------------------------------------------------------------------- */
typedef enum streamLogKind {
    STREAM_LOG_DELTA,      /* the delta was appended */
    STREAM_LOG_WHOLE,      /* write the whole key record (a new stream) */
    STREAM_LOG_CHECKPOINT, /* not an append: the commit must be a root */
} streamLogKind;
/* What commit gen writes of a changed stream, the marks of commit ok_gen
 * and before counting as persisted: a delta, its whole record (its flight
 * mark is then set), or nothing -- a root. */
streamLogKind streamLogPlan(stream *s, uint64_t gen, uint64_t ok_gen);
/* Appends the delta streamLogPlan allowed to *out; STREAM_LOG_CHECKPOINT
 * (with *out holding part of it) if it turns out not to be one. */
streamLogKind streamCatLogDelta(sds *out, stream *s, uint64_t gen);
/* The stream as of now is what commit gen writes (a checkpoint, or its
 * whole record). */
void streamLogMarkFlight(stream *s, uint64_t gen);
/* An entry removed other than from the head (t_stream.c). */
void streamLogNoteHole(stream *s, const streamID *id);
/* The persisted state holds nothing of this stream under its key. */
void streamLogForget(stream *s);
/* Replays a delta onto s; on error s is half changed (the caller drops
 * it) and *err says why. */
int streamApplyLogDelta(stream *s, const cJSON *delta, sds *err);

#endif
