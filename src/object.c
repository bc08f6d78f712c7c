/* object.c -- the table of value types, and OBJECT and MEMORY:
 * introspection of keys and memory.
 *
 * OBJECT ENCODING names Redis's encoding for the value as Redis would
 * have it (each type's `encoding` method applies Redis's size rules), and
 * OBJECT REFCOUNT is 1 (casq never shares a value). OBJECT IDLETIME is
 * the time since the key was last looked up (robj.lru, Redis's 24-bit
 * LRU clock in seconds, refreshed by db.c's lookups unless the client is in
 * CLIENT NO-TOUCH mode). casq has no maxmemory and no eviction: its
 * maxmemory-policy is in effect Redis's default, noeviction, so OBJECT FREQ
 * gives Redis's error for a non-LFU policy.
 *
 * MEMORY USAGE reports Redis's estimate computed on casq's own structures
 * (each type's computeSize, allocation sizes from the allocator). MEMORY MALLOC-STATS and MEMORY PURGE answer what Redis
 * answers when built with libc malloc, which is what casq uses. MEMORY
 * STATS and MEMORY DOCTOR are left out: most of their fields (allocator
 * fragmentation and resident figures, replication backlog, AOF buffers,
 * per-db overheads) have no truthful value in casq, so they get the
 * ordinary unknown-subcommand error. */
#include "server.h"
#include "t_stream.h"

#include <limits.h>
#include <malloc.h>
#include <string.h>
#include <strings.h>

/* ========================================================================
 * The types (server.h, objectType)
 * ===================================================================== */

extern const objectType streamObjectType;
extern const objectType stringObjectType;
extern const objectType hashObjectType;
extern const objectType listObjectType;
extern const objectType zsetObjectType;
extern const objectType setObjectType;

/* Every type casq holds. A new type module adds its row here. */
static const objectType *const objectTypes[] = {
    &streamObjectType,
    &stringObjectType,
    &hashObjectType,
    &listObjectType,
    &zsetObjectType,
    &setObjectType,
    NULL,
};

const objectType *objectTypeGet(int type) {
    for (int i = 0; objectTypes[i]; i++)
        if (objectTypes[i]->type == type) return objectTypes[i];
    return NULL;
}

const objectType *objectTypeByName(const char *name) {
    for (int i = 0; objectTypes[i]; i++)
        if (!strcmp(objectTypes[i]->name, name)) return objectTypes[i];
    return NULL;
}

/* ========================================================================
 * OBJECT
 * ===================================================================== */

/* The key, without refreshing its access time; nil when missing. */
static robj *objectCommandLookupOrReply(client *c) {
    robj *o = lookupKeyReadNoTouch(c, c->db, c->argv[2]);
    if (!o) addReplyNull(c);
    return o;
}

static void objectEncodingCommand(client *c) {
    robj *o = objectCommandLookupOrReply(c);
    if (!o) return;
    addReplyBulkCString(c, objectTypeGet(o->type)->encoding(o));
}

static void objectRefcountCommand(client *c) {
    robj *o = objectCommandLookupOrReply(c);
    if (!o) return;
    addReplyLongLong(c, 1);
}

static void objectIdletimeCommand(client *c) {
    robj *o = objectCommandLookupOrReply(c);
    if (!o) return;
    addReplyLongLong(c, (long long)(estimateObjectIdleTime(o) / 1000));
}

static void objectFreqCommand(client *c) {
    robj *o = objectCommandLookupOrReply(c);
    if (!o) return;
    addReplyError(c, "An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when "
                     "switching between policies at runtime LRU and LFU data will take some time to adjust.");
}

static void objectHelpCommand(client *c) {
    const char *help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        NULL};
    addReplyHelp(c, help);
}

/* ========================================================================
 * MEMORY
 * ===================================================================== */

#define OBJ_COMPUTE_SIZE_DEF_SAMPLES 5 /* as Redis */

/* MEMORY USAGE key [SAMPLES count]: the key's name, its dict entry, the
 * object and the stream. Like Redis it reads the keyspace directly: no
 * expiry, no access time, no hit/miss statistics. */
static void memoryUsageCommand(client *c) {
    long long samples = OBJ_COMPUTE_SIZE_DEF_SAMPLES;
    for (int j = 3; j < c->argc; j++) {
        if (!strcasecmp(c->argv[j], "samples") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &samples, NULL) != C_OK) return;
            if (samples < 0) {
                addReplyErrorObject(c, shared_syntaxerr);
                return;
            }
            if (samples == 0) samples = LLONG_MAX;
            j++;
        } else {
            addReplyErrorObject(c, shared_syntaxerr);
            return;
        }
    }
    dictEntry *de = dictFind(c->db->keys, c->argv[2]);
    if (!de) {
        /* The reply depends on the key's absence. */
        observeSeq(c, c->db->del_seq);
        addReplyNull(c);
        return;
    }
    robj *o = de->val;
    observeSeq(c, o->mod_seq);
    size_t usage = zmalloc_size(o) + objectTypeGet(o->type)->computeSize(o, samples);
    usage += sdsAllocSize(de->key) + sizeof(dictEntry);
    addReplyLongLong(c, (long long)usage);
}

/* casq allocates with libc malloc: Redis built without jemalloc says
 * exactly this. */
static void memoryMallocStatsCommand(client *c) {
    addReplyBulkCString(c, "Stats not supported for the current allocator");
}

/* Redis without jemalloc has nothing to purge and replies OK; glibc can
 * give free heap memory back to the system, so casq does that. */
static void memoryPurgeCommand(client *c) {
    malloc_trim(0);
    addReplyOk(c);
}

static void memoryHelpCommand(client *c) {
    /* Redis's lines for the subcommands casq implements (DOCTOR and STATS
     * are not implemented, see the top of this file). */
    const char *help[] = {
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        NULL};
    addReplyHelp(c, help);
}

/* ========================================================================
 * Command tables (Redis 7.2's arity, flags, key positions, categories)
 * ===================================================================== */

static struct redisCommand objectSubcommands[] = {
    {"encoding", objectEncodingCommand, 3, CMD_READONLY, 2, 2, 1, "keyspace", NULL},
    {"freq", objectFreqCommand, 3, CMD_READONLY, 2, 2, 1, "keyspace", NULL},
    {"help", objectHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "keyspace slow", NULL},
    {"idletime", objectIdletimeCommand, 3, CMD_READONLY, 2, 2, 1, "keyspace", NULL},
    {"refcount", objectRefcountCommand, 3, CMD_READONLY, 2, 2, 1, "keyspace", NULL},
    {0},
};

static struct redisCommand memorySubcommands[] = {
    {"help", memoryHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow", NULL},
    {"malloc-stats", memoryMallocStatsCommand, 2, 0, 0, 0, 0, "slow", NULL},
    {"purge", memoryPurgeCommand, 2, 0, 0, 0, 0, "slow", NULL},
    {"usage", memoryUsageCommand, -3, CMD_READONLY, 2, 2, 1, "", NULL},
    {0},
};

struct redisCommand objectCommandTable[] = {
    {"object", NULL, -2, 0, 0, 0, 0, "slow", objectSubcommands},
    {"memory", NULL, -2, 0, 0, 0, 0, "slow", memorySubcommands},
    {0},
};
