/* segment.h -- the life of segments (design.md §3, docs/state-format.md):
 * sealing streams' older entries into immutable segments off the reply
 * path, deleting the segments the root no longer names after a grace
 * period, sweeping orphans, and fetching the segments a root names before
 * it is decoded.
 *
 * t_stream.c owns the in-memory picture (which node is sealed in which
 * segment, the root's record of each); this module does the I/O through
 * the store's segment operations (store.h) and keeps the books. */
#ifndef CASQ_SEGMENT_H
#define CASQ_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "sds.h"

struct stream;

void segmentsInit(void);
void segmentsFree(void);

/* --- from commit.c --- */
/* Runs sealing, garbage deletion and the orphan sweep; broker: this node
 * is the broker and its state is loaded (nothing runs otherwise). */
void segmentsCron(int broker);
/* A commit encodes the state now: segments dropped so far are not in it. */
void segmentsCommitStarted(void);
/* ... it landed (ok) or failed and will be retried (!ok). */
/* The same around a commit that appends a log record (no root). */
void segmentsLogCommitStarted(void);
void segmentsLogCommitDone(void);
void segmentsCommitDone(int ok);
/* The state was replaced by a loaded one: forget every plan about the old
 * one (nothing is deleted because of it; the sweep finds what is left). */
void segmentsReset(void);
/* A loaded state was installed; a broker drops the segment texts fetched
 * for it, a follower keeps those it may need at its next reload. */
void segmentsLoaded(int broker);

/* commitInit, between its load and its first commit: a loaded document
 * that holds much inline (format 1, an export, a big backlog written by an
 * older casq) is sealed first, so that the first root written is small
 * (runs the loop until done). */
void segmentsSealBeforeStart(void);

/* Fetches the segments the root in data[0..len) names (those not fetched
 * already), then calls cb: missing says which object the store does not
 * have ("segment NAME" or "manifest NAME"), err a message for any failure
 * (both NULL: all there). */
typedef void segmentsFetchCallback(void *priv, const char *missing, const char *err);
void segmentsFetch(const char *data, size_t len, segmentsFetchCallback *cb, void *priv);
/* While a fetched root is decoded: a segment's bytes; 0 if not fetched. */
int segmentSourceGet(const char *name, const char **data, size_t *len);
/* Makes an object's text readable by segmentSourceGet, as a fetch does
 * (the unit tests hand a state's segments to the loader this way). */
void segmentSourceAdd(const char *name, const char *data, size_t len);

/* --- from t_stream.c --- */
void segmentStreamWantsSeal(struct stream *s); /* sets s->seal_queued */
void segmentStreamFreed(struct stream *s);     /* s->seal_queued was set */
void segmentRegister(const char *name, uint64_t bytes);   /* a segment record exists */
void segmentUnregister(const char *name, uint64_t bytes); /* ... no more */
void segmentDropped(const char *name);         /* the state stops naming it */
void segmentManifestLive(int delta);           /* manifests in memory: +1, -1 */

/* --- from keyseg.c (and the stream code) --- */
sds segmentNewName(void);                      /* a name never used */
int segmentNameValid(const char *p, size_t len); /* [A-Za-z0-9._-], <= 128, no leading . */
void segmentWriting(const char *name, int on); /* a put of it is in flight */
void segmentDeleteUnnamed(const char *name);   /* nothing names it: delete now */
/* A segment record's ,"count":…,"bytes":…,"crc32":…,"live_count":… */
sds segmentCatSizes(sds out, uint64_t count, uint64_t bytes, uint32_t crc, uint64_t live);

/* Sealable inline bytes at which a stream is sealed (segment.c judges it
 * from the settings and the rate of appends). */
uint64_t segmentSealThreshold(void);

/* INFO persistence fields. */
sds segmentsInfo(sds s);

#endif
