/* keyseg.h -- key segments (design.md §3, docs/state-format.md "Key
 * segments"): the quiet keys of a database sealed into immutable segments,
 * so that a commit writes the keys that changed, not the whole keyspace.
 *
 * A key's value lives in the root (inline) or in exactly one key segment
 * (robj->seg). A segment is written once, off the reply path, with the keys
 * that did not change for key-seal-quiet ms; a key that changes, expires or
 * is deleted afterwards leaves its segment: its name goes to the segment's
 * "gone" list in the root and its value (if any) back inline. Segments
 * whose live share fell below half, whose gone lists weigh too much in the
 * root, or four of a size class, are rewritten from memory. Streams are
 * never sealed here: their entries have segments of their own
 * (t_stream.c) and their groups change at every read.
 *
 * The segments' I/O books (garbage, grace, orphans) are segment.c's. */
#ifndef CASQ_KEYSEG_H
#define CASQ_KEYSEG_H

#include <stdint.h>

#include "sds.h"

struct redisDb;
struct robj;

/* One key segment. */
typedef struct keySegment {
    uint32_t id;    /* robj->seg of the keys whose value it holds */
    sds name;       /* its name in the store */
    uint64_t count; /* keys written in it */
    uint64_t bytes; /* its size */
    uint32_t crc;   /* its CRC-32 */
    uint64_t live;  /* of its keys, those whose value still comes from it */
    sds gone;       /* the others' names, as JSON strings separated by
                     * commas: the root's "gone" list, ready to copy */
    uint64_t ngone; /* how many */
    sds names;      /* the live keys when it was written or loaded, each a
                     * varint length and the bytes: a rewrite finds its
                     * live keys without walking the keyspace */
    int rewriting;  /* a seal in flight is rewriting its live keys */
} keySegment;

void keysegInit(void);
void keysegFree(void);

/* ------------------------------------------------------------------------
 * The keyspace changes (db.c, expire.c). key is the db's own sds where the
 * key is in the db.
 * --------------------------------------------------------------------- */
void keysegDbInit(struct redisDb *db);
void keysegDbFree(struct redisDb *db);
/* A key was added: its value is inline. */
void keysegKeyAdded(struct redisDb *db, sds key, struct robj *o);
/* A key is about to leave the db (deleted, expired, renamed, moved). */
void keysegKeyRemoved(struct redisDb *db, sds key, struct robj *o);
/* A key's value or TTL changed: a sealed key goes back inline. */
void keysegKeyChanged(struct redisDb *db, sds key, struct robj *o);
/* Every key of db is about to be removed (FLUSHDB, a load). */
void keysegDbEmptied(struct redisDb *db);
/* SWAPDB swapped the contents of two dbs (their segments go with them). */
void keysegDbsSwapped(struct redisDb *db1, struct redisDb *db2);

/* ------------------------------------------------------------------------
 * The document (persist.c)
 * --------------------------------------------------------------------- */
/* Appends db's segment records (a JSON array) to out. */
sds keysegCatRecords(sds out, struct redisDb *db);
/* A loaded segment record: returns the id its keys get. Takes gone and
 * names. */
uint32_t keysegInstall(struct redisDb *db, const char *name, uint64_t count, uint64_t bytes, uint32_t crc,
                       sds gone, uint64_t ngone, sds names);
/* A loaded key whose value came from segment id (after dbAdd). */
void keysegKeyLoaded(struct redisDb *db, sds key, struct robj *o, uint32_t id);
/* Every sealed key back inline, every key segment dropped (a document
 * rewritten whole from memory). */
void keysegUnsealAll(void);
/* Appends a key name to a segment's names / a gone list. */
sds keysegNamesAdd(sds names, const char *key, size_t len);

/* ------------------------------------------------------------------------
 * Sealing (segment.c)
 * --------------------------------------------------------------------- */
void keysegCron(int broker);
void keysegSealBeforeStart(void);
void keysegCommitDone(int ok);
sds keysegInfo(sds s);

#endif
