/* t_stream_group.c -- consumer groups: XGROUP XACK XCLAIM XAUTOCLAIM
 * XPENDING, the group/consumer/NACK structures, and the groups' part of
 * the state document.
 *
 * Groups and consumers are kept in arrays sorted by name, in the byte
 * order of Redis's rax (memcmp, shorter prefix first), because that order
 * is visible in XINFO and XPENDING replies. Each pending entry is one
 * streamNACK referenced from both the group PEL and its owner's PEL;
 * an entry released by XNACK has no owner and is in the group's NACK
 * zone instead (Redis 8.8). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"
#include "t_stream.h"

/* ========================================================================
 * Name-sorted arrays
 * ===================================================================== */

/* Both streamCG and streamConsumer start with their name. */
typedef struct streamNamed {
    sds name;
} streamNamed;

static int nameCompare(const char *a, size_t alen, const char *b, size_t blen) {
    size_t min = alen < blen ? alen : blen;
    int c = memcmp(a, b, min);
    if (c) return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Index of name in items, or where it would be inserted (*found = 0). */
static size_t namedSearch(void **items, size_t n, const char *name, size_t len, int *found) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        streamNamed *it = items[mid];
        int c = nameCompare(it->name, sdslen(it->name), name, len);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    *found = 0;
    return lo;
}

static void namedInsertAt(void ***items, size_t *n, size_t *alloc, size_t pos, void *item) {
    if (*n == *alloc) {
        *alloc = *alloc ? *alloc * 2 : 4;
        *items = zrealloc(*items, sizeof(void *) * *alloc);
    }
    memmove(*items + pos + 1, *items + pos, sizeof(void *) * (*n - pos));
    (*items)[pos] = item;
    (*n)++;
}

static void namedRemoveAt(void **items, size_t *n, size_t pos) {
    memmove(items + pos, items + pos + 1, sizeof(void *) * (*n - pos - 1));
    (*n)--;
}

/* ========================================================================
 * NACKs, consumers, groups
 * ===================================================================== */

streamNACK *streamCreateNACK(streamConsumer *consumer) {
    streamNACK *nack = zmalloc(sizeof(*nack));
    nack->delivery_time = commandTimeSnapshot();
    nack->delivery_count = 1;
    nack->consumer = consumer;
    nack->nack_seq = 0;
    return nack;
}

void streamFreeNACK(streamNACK *na) { zfree(na); }

static void freeNACKVoid(void *p) { streamFreeNACK(p); }

static void streamFreeConsumer(streamConsumer *sc) {
    idtreeClear(&sc->pel, NULL); /* the NACKs belong to the group PEL */
    sdsfree(sc->name);
    if (sc->json_name) sdsfree(sc->json_name);
    zfree(sc);
}

streamCG *streamCreateCG(stream *s, const char *name, size_t namelen, const streamID *id, long long entries_read) {
    int found;
    size_t pos = namedSearch((void **)s->cgroups, s->num_cgroups, name, namelen, &found);
    if (found) return NULL;
    streamCG *cg = zcalloc(sizeof(*cg));
    cg->name = sdsnewlen(name, namelen);
    cg->last_id = *id;
    cg->entries_read = entries_read;
    idtreeInit(&cg->pel);
    cg->created = s->cg_created++;
    namedInsertAt((void ***)&s->cgroups, &s->num_cgroups, &s->cgroups_alloc, pos, cg);
    return cg;
}

void streamFreeCG(streamCG *cg) {
    streamPrioFree(cg->prio);
    idtreeClear(&cg->pel, freeNACKVoid);
    for (size_t i = 0; i < cg->num_consumers; i++) streamFreeConsumer(cg->consumers[i]);
    zfree(cg->consumers);
    if (cg->dlq_key) sdsfree(cg->dlq_key);
    sdsfree(cg->name);
    zfree(cg);
}

streamCG *streamLookupCG(stream *s, sds groupname) {
    int found;
    size_t pos = namedSearch((void **)s->cgroups, s->num_cgroups, groupname, sdslen(groupname), &found);
    return found ? s->cgroups[pos] : NULL;
}

/* Removes the group from the stream and frees it. */
static void streamDestroyCG(stream *s, streamCG *cg) {
    int found;
    size_t pos = namedSearch((void **)s->cgroups, s->num_cgroups, cg->name, sdslen(cg->name), &found);
    if (found) namedRemoveAt((void **)s->cgroups, &s->num_cgroups, pos);
    streamFreeCG(cg);
}

streamConsumer *streamLookupConsumer(streamCG *cg, sds name) {
    int found;
    size_t pos = namedSearch((void **)cg->consumers, cg->num_consumers, name, sdslen(name), &found);
    return found ? cg->consumers[pos] : NULL;
}

/* Creates the consumer; returns NULL if it exists. */
streamConsumer *streamCreateConsumer(streamCG *cg, sds name) {
    int found;
    size_t pos = namedSearch((void **)cg->consumers, cg->num_consumers, name, sdslen(name), &found);
    if (found) return NULL;
    streamConsumer *consumer = zmalloc(sizeof(*consumer));
    consumer->name = sdsdup(name);
    consumer->seen_time = commandTimeSnapshot();
    consumer->active_time = -1;
    consumer->json_name = NULL;
    idtreeInit(&consumer->pel);
    namedInsertAt((void ***)&cg->consumers, &cg->num_consumers, &cg->consumers_alloc, pos, consumer);
    return consumer;
}

/* Deletes the consumer and its pending entries. */
void streamDelConsumer(streamCG *cg, streamConsumer *consumer) {
    idtreeIter it;
    for (idtreeSeek(&it, &consumer->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNACK *nack = idtreeIterVal(&it);
        idtreeRemove(&cg->pel, idtreeIterKey(&it), NULL);
        streamFreeNACK(nack);
    }
    int found;
    size_t pos = namedSearch((void **)cg->consumers, cg->num_consumers, consumer->name, sdslen(consumer->name), &found);
    if (found) namedRemoveAt((void **)cg->consumers, &cg->num_consumers, pos);
    streamFreeConsumer(consumer);
}

/* Takes a pending entry away from its owner's PEL, or out of the group's
 * NACK zone if it has no owner; the caller gives it a new owner (or
 * frees it) next. */
void streamNACKDetach(streamCG *cg, streamNACK *nack, const streamID *id) {
    if (nack->consumer) idtreeRemove(&nack->consumer->pel, id, NULL);
    else if (nack->nack_seq) cg->nack_zone_len--; /* (not so if just made by FORCE) */
    nack->consumer = NULL;
    nack->nack_seq = 0;
}

/* Drops a pending entry from the group PEL and its owner's PEL. */
static void streamDropNACK(streamCG *group, const streamID *id, streamNACK *nack) {
    idtreeRemove(&group->pel, id, NULL);
    streamNACKDetach(group, nack, id);
    streamFreeNACK(nack);
}

/* Gives a pending entry to another consumer. */
static void streamMoveNACK(streamCG *cg, streamNACK *nack, const streamID *id, streamConsumer *to) {
    if (nack->consumer == to) return;
    streamNACKDetach(cg, nack, id);
    idtreeInsert(&to->pel, id, nack, NULL);
    nack->consumer = to;
}

/* XNACK: the entry loses its owner, its delivery time becomes 0 (idle
 * for any min-idle-time) and it goes to the end of the group's NACK zone,
 * even if it was already there. A NACK not yet in the group PEL (FORCE)
 * has no owner and is not in the zone yet. */
static void streamReleaseNACK(streamCG *cg, streamNACK *nack, const streamID *id) {
    if (nack->consumer) idtreeRemove(&nack->consumer->pel, id, NULL);
    else if (nack->nack_seq) cg->nack_zone_len--;
    nack->consumer = NULL;
    streamNACKSetDeliveryTime(cg, nack, 0);
    nack->nack_seq = ++cg->nack_seq_next;
    cg->nack_zone_len++;
}

/* ========================================================================
 * Groups' references to entries (Redis 8.2: KEEPREF / DELREF / ACKED)
 * ===================================================================== */

/* Whether some group still needs the entry: it is pending there, or the
 * group has not been served up to it yet. */
int streamEntryIsReferenced(stream *s, const streamID *id) {
    for (size_t g = 0; g < s->num_cgroups; g++) {
        streamCG *cg = s->cgroups[g];
        if (streamCompareID(id, &cg->last_id) > 0) return 1;
        /* A priority group may not have served entries below its last ID. */
        if (cg->prio && streamPrioIsUndelivered(s, cg, id)) return 1;
        if (idtreeFind(&cg->pel, id)) return 1;
    }
    return 0;
}

int streamDelEntryRefs(stream *s, const streamID *id) {
    int dropped = 0;
    for (size_t g = 0; g < s->num_cgroups; g++) {
        streamCG *cg = s->cgroups[g];
        streamNACK *nack = idtreeFind(&cg->pel, id);
        if (nack) {
            streamDropNACK(cg, id, nack);
            dropped++;
        }
    }
    return dropped;
}

int streamAckID(streamCG *group, const streamID *id) {
    streamNACK *nack = idtreeFind(&group->pel, id);
    if (!nack) return 0;
    streamDropNACK(group, id, nack);
    return 1;
}

/* ========================================================================
 * XREADGROUP ... CLAIM min-idle-time (Redis 8.4)
 * ===================================================================== */

/* Before XREADGROUP ... CLAIM replies: drops the pending entries idle for
 * at least minidle ms whose stream entry is gone, dead-letters those past
 * the group's delivery limit (casq), and says whether any idle one is
 * left to claim. Done first so that the reply never names a stream with
 * nothing to deliver. */
int streamGroupPrepareClaim(client *c, sds key, stream *s, streamCG *cg, long long minidle) {
    long long now = commandTimeSnapshot();
    /* Nothing outside the NACK zone can be idle enough and the zone is
     * empty: nothing to look at (see pel_time_lb). */
    if (!cg->nack_zone_len && now - cg->pel_time_lb < minidle) return 0;
    int claimable = 0, whole = 1;
    long long oldest = LLONG_MAX; /* a walk of it all makes the bound exact */
    idtreeIter it;
    idtreeSeek(&it, &cg->pel, IDTREE_SEEK_FIRST, NULL);
    while (idtreeIterValid(&it)) {
        streamID id = *idtreeIterKey(&it);
        streamNACK *nack = idtreeIterVal(&it);
        if ((nack->consumer || !nack->nack_seq) && nack->delivery_time < oldest) oldest = nack->delivery_time;
        if (now - nack->delivery_time < minidle) {
            idtreeIterNext(&it);
            continue;
        }
        if (!streamEntryExists(s, &id)) {
            streamDropNACK(cg, &id, nack);
        } else if (!(streamDeadLetterDue(cg, nack) &&
                     streamDeadLetter(c, key, s, cg, &id, nack, STREAM_DLQ_MAX_DELIVERIES))) {
            claimable = 1;
            if (!cg->dlq_key) { /* nothing else to do on the way */
                whole = 0;
                break;
            }
            idtreeIterNext(&it);
            continue;
        }
        idtreeSeek(&it, &cg->pel, IDTREE_SEEK_GT, &id);
    }
    if (whole) cg->pel_time_lb = oldest;
    return claimable;
}

/* One entry as XREADGROUP CLAIM replies it: [id, [field, value ...],
 * ms idle before this delivery, delivery count]. Returns 0 if the entry
 * no longer exists (nothing replied). */
static int streamReplyEntryWithMeta(client *c, stream *s, const streamID *id, long long idle, uint64_t count) {
    streamIterator si;
    streamID got;
    int64_t numfields;
    streamIteratorStart(&si, s, id, id, 0);
    if (!streamIteratorGetID(&si, &got, &numfields)) {
        streamIteratorStop(&si);
        return 0;
    }
    addReplyArrayLen(c, 4);
    addReplyStreamID(c, &got);
    addReplyArrayLen(c, (long)numfields * 2);
    while (numfields--) {
        const unsigned char *f, *v;
        size_t fl, vl;
        streamIteratorGetField(&si, &f, &fl, &v, &vl);
        addReplyBulk(c, (const char *)f, fl);
        addReplyBulk(c, (const char *)v, vl);
    }
    streamIteratorStop(&si);
    addReplyLongLong(c, idle);
    addReplyLongLong(c, (long long)count);
    return 1;
}

/* Claims one idle pending entry for XREADGROUP CLAIM (owner, delivery
 * time and count as XCLAIM would set them) and replies it with its
 * delivery metadata (idle time and deliveries before this one). Returns 0 if it was dropped instead: its stream
 * entry is gone, or it went to the dead letters. */
static int streamClaimForRead(client *c, sds key, stream *s, streamCG *cg, streamConsumer *consumer,
                              const streamID *id, streamNACK *nack, long long now) {
    if (!streamEntryExists(s, id) ||
        (streamDeadLetterDue(cg, nack) && streamDeadLetter(c, key, s, cg, id, nack, STREAM_DLQ_MAX_DELIVERIES))) {
        if (idtreeFind(&cg->pel, id)) streamDropNACK(cg, id, nack);
        return 0;
    }
    /* The reply has the deliveries before this one (redis.io: "number of
     * times this entry was previously delivered"; Redis's own tests: an
     * entry read once is claimed with 1, XPENDING then shows 2). */
    long long idle = now - nack->delivery_time;
    uint64_t before = nack->delivery_count;
    streamNACKSetDeliveryTime(cg, nack, now);
    streamNACKCountDelivery(nack);
    streamMoveNACK(cg, nack, id, consumer);
    consumer->active_time = now;
    streamReplyEntryWithMeta(c, s, id, idle < 0 ? 0 : idle, before);
    return 1;
}

/* A pending entry of the NACK zone and its place there. */
typedef struct zoneEntry {
    streamID id;
    uint64_t seq;
} zoneEntry;

static int zoneEntryBySeq(const void *a, const void *b) {
    uint64_t x = ((const zoneEntry *)a)->seq, y = ((const zoneEntry *)b)->seq;
    return x < y ? -1 : x > y;
}

/* The group's NACK zone, first released first (*n entries, zfree it).
 * One walk of the PEL: the zone is only there after an XNACK. */
static zoneEntry *streamNackZone(streamCG *cg, size_t *n) {
    zoneEntry *zone = zmalloc(sizeof(*zone) * cg->nack_zone_len);
    size_t k = 0;
    idtreeIter it;
    for (idtreeSeek(&it, &cg->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it) && k < cg->nack_zone_len;
         idtreeIterNext(&it)) {
        streamNACK *nack = idtreeIterVal(&it);
        if (nack->consumer || !nack->nack_seq) continue;
        zone[k].id = *idtreeIterKey(&it);
        zone[k].seq = nack->nack_seq;
        k++;
    }
    qsort(zone, k, sizeof(*zone), zoneEntryBySeq);
    *n = k;
    return zone;
}

/* An idle pending entry as the claim phase orders them after the NACK
 * zone: longest idle first, i.e. oldest delivery time first, and equal
 * delivery times in ID order (Redis 8.4 walks its PEL indexed by the
 * pair delivery time, ID). */
typedef struct idleEntry {
    long long dtime;
    streamID id;
} idleEntry;

static int idleEntryCompare(const idleEntry *a, const idleEntry *b) {
    if (a->dtime != b->dtime) return a->dtime < b->dtime ? -1 : 1;
    return streamCompareID(&a->id, &b->id);
}

static int idleEntryQsort(const void *a, const void *b) {
    return idleEntryCompare(a, b);
}

static int streamIDQsort(const void *a, const void *b) {
    return streamCompareID(a, b);
}

/* Max-heap on idleEntryCompare: the root is the youngest entry kept. */
static void idleHeapSiftDown(idleEntry *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, top = i;
        if (l < n && idleEntryCompare(&h[l], &h[top]) > 0) top = l;
        if (r < n && idleEntryCompare(&h[r], &h[top]) > 0) top = r;
        if (top == i) return;
        idleEntry t = h[i];
        h[i] = h[top];
        h[top] = t;
        i = top;
    }
}

static void idleHeapPush(idleEntry *h, size_t n, idleEntry e) {
    size_t i = n;
    h[i] = e;
    while (i && idleEntryCompare(&h[(i - 1) / 2], &h[i]) < 0) {
        idleEntry t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

/* The `limit` (0: all) longest idle pending entries of the group, idle
 * for at least minidle ms, longest idle first (*n entries, zfree it).
 * Entries of the NACK zone and the IDs in done (sorted: what this read
 * already claimed) are left out. One walk of the PEL keeping the limit
 * oldest in a heap, O(N log limit): the whole PEL is never sorted, only
 * what is returned. */
static idleEntry *streamOldestIdle(streamCG *cg, long long minidle, long long now, size_t limit,
                                   const streamID *done, size_t ndone, size_t *n) {
    size_t cap = limit ? limit : 16, k = 0;
    idleEntry *sel = zmalloc(sizeof(*sel) * cap);
    long long oldest = LLONG_MAX; /* the walk sees them all: the bound becomes exact */
    idtreeIter it;
    for (idtreeSeek(&it, &cg->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNACK *nack = idtreeIterVal(&it);
        if (!nack->consumer && nack->nack_seq) continue; /* the zone: served before */
        if (nack->delivery_time < oldest) oldest = nack->delivery_time;
        if (now - nack->delivery_time < minidle) continue;
        idleEntry e = {nack->delivery_time, *idtreeIterKey(&it)};
        if (ndone && bsearch(&e.id, done, ndone, sizeof(*done), streamIDQsort)) continue;
        if (!limit) {
            if (k == cap) sel = zrealloc(sel, sizeof(*sel) * (cap *= 2));
            sel[k++] = e;
        } else if (k < limit) {
            idleHeapPush(sel, k++, e);
        } else if (idleEntryCompare(&e, &sel[0]) < 0) {
            sel[0] = e;
            idleHeapSiftDown(sel, k, 0);
        }
    }
    cg->pel_time_lb = oldest;
    qsort(sel, k, sizeof(*sel), idleEntryQsort);
    *n = k;
    return sel;
}

/* Claims the pending entry id for the read if it is still there and idle
 * enough, and notes it in done. Returns 1 if it was replied. */
static int streamClaimIdleForRead(client *c, sds key, stream *s, streamCG *cg, streamConsumer *consumer,
                                  const streamID *id, long long minidle, long long now, streamID *done,
                                  size_t *ndone) {
    streamNACK *nack = idtreeFind(&cg->pel, id);
    if (!nack || now - nack->delivery_time < minidle) return 0;
    if (!streamClaimForRead(c, key, s, cg, consumer, id, nack, now)) return 0;
    done[(*ndone)++] = *id;
    return 1;
}

/* The claim phase of XREADGROUP CLAIM: the group's pending entries idle
 * for at least minidle ms, up to count (0: all), are delivered to
 * consumer as XCLAIM would (owner, delivery time, count) and replied
 * with their delivery metadata (raw entries, no array header). The NACK
 * zone comes first, in the order its entries were released (Redis 8.8:
 * released entries are delivered before other idle ones), then the
 * other idle entries, longest idle first (redis.io xreadgroup, "Ordering
 * guarantees"; equal idle times in ID order). Pending entries whose
 * stream entry is gone are dropped, as XAUTOCLAIM does; the entries
 * replied are then the count longest idle of those left. Returns the
 * number of entries replied. */
size_t streamReplyClaimIdlePending(client *c, sds key, stream *s, streamCG *cg, streamConsumer *consumer,
                                   long long minidle, size_t count) {
    long long now = commandTimeSnapshot();
    size_t n = 0, ndone = 0;
    size_t done_cap = count ? count : idtreeSize(&cg->pel);
    streamID *done = zmalloc(sizeof(*done) * (done_cap ? done_cap : 1));

    if (cg->nack_zone_len) {
        size_t zlen;
        zoneEntry *zone = streamNackZone(cg, &zlen);
        for (size_t k = 0; k < zlen && (!count || n < count); k++) {
            if (!streamClaimIdleForRead(c, key, s, cg, consumer, &zone[k].id, minidle, now, done, &ndone)) continue;
            n++;
            if (streamReplyBudgetExhausted(c)) { /* MAXSIZE */
                zfree(zone);
                goto done;
            }
        }
        zfree(zone);
    }

    /* Select the oldest, claim them; if some were dropped on the way
     * (entry gone, dead-lettered), select again for the places left --
     * unless nothing outside the zone can be idle enough: no walk then
     * (see pel_time_lb). */
    while ((!count || n < count) && now - cg->pel_time_lb >= minidle) {
        size_t want = count ? count - n : 0, ncand, dropped = 0;
        qsort(done, ndone, sizeof(*done), streamIDQsort);
        idleEntry *cand = streamOldestIdle(cg, minidle, now, want, done, ndone, &ncand);
        for (size_t k = 0; k < ncand; k++) {
            if (!streamClaimIdleForRead(c, key, s, cg, consumer, &cand[k].id, minidle, now, done, &ndone)) {
                dropped++;
                continue;
            }
            n++;
            if (streamReplyBudgetExhausted(c)) { /* MAXSIZE */
                zfree(cand);
                goto done;
            }
        }
        zfree(cand);
        if (!count || !dropped || ncand < want) break; /* every idle entry was a candidate */
    }
done:
    zfree(done);
    return n;
}

/* ========================================================================
 * XNACK (Redis 8.8)
 * ===================================================================== */

#define XNACK_SILENT 0 /* the delivery did not count: delivery count - 1 */
#define XNACK_FAIL 1   /* it counted: delivery count unchanged */
#define XNACK_FATAL 2  /* never retry: delivery count at its maximum */

/* XNACK key group SILENT|FAIL|FATAL IDS numids id [id ...] [RETRYCOUNT count]
 *       [FORCE]
 *
 * Releases pending entries back to the group without acknowledging them
 * (redis.io xnack): each loses its owner (XPENDING shows the consumer ""
 * and an idle time of -1), its delivery time becomes 0, so any min-idle-
 * time claims it, and it goes to the end of the group's NACK zone, which
 * XREADGROUP ... CLAIM serves before other idle entries. The mode
 * adjusts the delivery count (RETRYCOUNT sets it instead). FORCE also
 * creates unowned pending entries, in the zone, for IDs of existing
 * stream entries that are not pending in the group, with a delivery
 * count of 0 (RETRYCOUNT if given, the maximum for FATAL). Replies the
 * number of entries released (and created); other IDs are skipped. */
void xnackCommand(client *c) {
    int mode;
    if (!strcasecmp(c->argv[3], "SILENT")) mode = XNACK_SILENT;
    else if (!strcasecmp(c->argv[3], "FAIL")) mode = XNACK_FAIL;
    else if (!strcasecmp(c->argv[3], "FATAL")) mode = XNACK_FATAL;
    else {
        addReplyErrorSyntax(c);
        return;
    }
    long numids = 0;
    int ids_pos = 0;
    long long retrycount = -1;
    int force = 0;
    for (int i = 4; i < c->argc; i++) {
        int moreargs = c->argc - 1 - i;
        if (!strcasecmp(c->argv[i], "IDS") && moreargs && !ids_pos) {
            if (getRangeLongFromObjectOrReply(c, c->argv[i + 1], 1, LONG_MAX, &numids,
                                              "Number of IDs must be a positive integer") != C_OK)
                return;
            if (numids > c->argc - (i + 2)) {
                addReplyError(c, "The `numids` parameter must match the number of arguments");
                return;
            }
            ids_pos = i + 2;
            i += 1 + (int)numids;
        } else if (!strcasecmp(c->argv[i], "RETRYCOUNT") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++i], &retrycount, NULL) != C_OK) return;
            if (retrycount < 0) {
                addReplyError(c, "Invalid RETRYCOUNT option argument for XNACK");
                return;
            }
        } else if (!strcasecmp(c->argv[i], "FORCE")) {
            force = 1;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    if (!ids_pos) {
        addReplyErrorSyntax(c);
        return;
    }
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)numids);
    for (long k = 0; k < numids; k++) {
        if (streamParseStrictIDOrReply(c, c->argv[ids_pos + k], &ids[k], 0, NULL) != C_OK) {
            zfree(ids);
            return;
        }
    }
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) goto cleanup;
    streamCG *group = o ? streamLookupCG(o->ptr, c->argv[2]) : NULL;
    if (!group) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", c->argv[1], c->argv[2]);
        goto cleanup;
    }
    stream *s = o->ptr;
    long long released = 0;
    for (long k = 0; k < numids; k++) {
        streamNACK *nack = idtreeFind(&group->pel, &ids[k]);
        if (!nack) {
            if (!force || !streamEntryExists(s, &ids[k])) continue;
            nack = streamCreateNACK(NULL);
            nack->delivery_count = retrycount >= 0 ? (uint64_t)retrycount : mode == XNACK_FATAL ? LLONG_MAX : 0;
            idtreeInsert(&group->pel, &ids[k], nack, NULL);
            streamPelNoteTime(group, nack->delivery_time);
        } else if (retrycount >= 0) {
            nack->delivery_count = (uint64_t)retrycount;
        } else if (mode == XNACK_SILENT && nack->delivery_count) {
            nack->delivery_count--;
        } else if (mode == XNACK_FATAL) {
            nack->delivery_count = LLONG_MAX;
        }
        released++;
        /* casq: a rejected entry goes to the group's dead letters at once
         * (naming the consumer that rejected it). */
        if (mode == XNACK_FATAL && group->dlq_key &&
            streamDeadLetter(c, c->argv[1], s, group, &ids[k], nack, STREAM_DLQ_XNACK_FATAL))
            continue;
        streamReleaseNACK(group, nack, &ids[k]);
    }
    if (released) signalKeyStateChanged(c, c->db, o);
    addReplyLongLong(c, released);
cleanup:
    zfree(ids);
}

/* ========================================================================
 * Dead-lettering (casq): XDEADLETTER and the move itself
 * ===================================================================== */

/* Moves a pending entry of group cg (of the stream s at key) to the
 * group's dead-letter stream: a new entry there (auto ID) holding why,
 * then the original fields, and the entry leaves the group's PEL. The
 * original stays in s (other groups may still need it). Both changes are
 * made by the running command, so they land in the same commit. Returns
 * 0, changing nothing, if the dead-letter key holds another type or the
 * source itself, or its stream is out of IDs: the entry then stays
 * pending (dead-lettering never loses a job). */
int streamDeadLetter(client *c, sds key, stream *s, streamCG *cg, const streamID *id, streamNACK *nack,
                     const char *reason) {
    robj *d = lookupKeyWrite(c, c->db, cg->dlq_key);
    if (d && (d->type != OBJ_STREAM || d->ptr == s)) return 0;
    stream *ds = d ? d->ptr : NULL;
    if (ds && ds->last_id.ms == UINT64_MAX && ds->last_id.seq == UINT64_MAX) return 0;

    streamIterator si;
    streamID got;
    int64_t numfields;
    streamIteratorStart(&si, s, id, id, 0);
    if (!streamIteratorGetID(&si, &got, &numfields)) {
        streamIteratorStop(&si);
        return 0;
    }
    int meta = 6;
    sds *argv = zmalloc(sizeof(sds) * (size_t)(meta + numfields) * 2);
    char buf[64];
    int n = 0;
    argv[n++] = sdsnew("dlq-source");
    argv[n++] = sdsdup(key);
    argv[n++] = sdsnew("dlq-id");
    snprintf(buf, sizeof(buf), "%llu-%llu", (unsigned long long)id->ms, (unsigned long long)id->seq);
    argv[n++] = sdsnew(buf);
    argv[n++] = sdsnew("dlq-group");
    argv[n++] = sdsdup(cg->name);
    argv[n++] = sdsnew("dlq-consumer");
    argv[n++] = nack->consumer ? sdsdup(nack->consumer->name) : sdsempty();
    argv[n++] = sdsnew("dlq-deliveries");
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)nack->delivery_count);
    argv[n++] = sdsnew(buf);
    argv[n++] = sdsnew("dlq-reason");
    argv[n++] = sdsnew(reason);
    while (numfields--) {
        const unsigned char *f, *v;
        size_t fl, vl;
        streamIteratorGetField(&si, &f, &fl, &v, &vl);
        argv[n++] = sdsnewlen(f, fl);
        argv[n++] = sdsnewlen(v, vl);
    }
    streamIteratorStop(&si);

    int created = 0;
    if (!d) {
        d = createStreamObject();
        dbAdd(c->db, cg->dlq_key, d);
        ds = d->ptr;
        created = 1;
    }
    streamID added;
    int ok = streamAppendItem(ds, argv, n / 2, &added, NULL, 1) == C_OK;
    for (int k = 0; k < n; k++) sdsfree(argv[k]);
    zfree(argv);
    if (!ok) {
        if (created) dbDelete(c->db, cg->dlq_key);
        return 0;
    }
    signalModifiedKey(c, c->db, cg->dlq_key, d);
    signalKeyAsReady(c->db, cg->dlq_key);
    streamDropNACK(cg, id, nack);
    cg->dlq_count++;
    return 1;
}

/* XINFO GROUPS / STREAM FULL: the group's policy, for a group that has
 * one (a group without replies as in Redis). Returns the pairs replied. */
int streamDeadLetterReplyInfo(client *c, streamCG *cg) {
    if (!cg->dlq_key) return 0;
    addReplyBulkCString(c, "dead-letter-key");
    addReplyBulk(c, cg->dlq_key, sdslen(cg->dlq_key));
    addReplyBulkCString(c, "dead-letter-max-deliveries");
    addReplyLongLong(c, (long long)cg->dlq_max);
    addReplyBulkCString(c, "dead-lettered");
    addReplyLongLong(c, (long long)cg->dlq_count);
    return 3;
}

/* XDEADLETTER key group dlq-key max-deliveries
 * XDEADLETTER key group OFF
 *
 * casq's opt-in dead-lettering policy of a consumer group: an entry that
 * would be delivered (XCLAIM, XAUTOCLAIM, XREADGROUP ... CLAIM) more than
 * max-deliveries times, or that a consumer rejects with XNACK FATAL, is
 * moved to the stream dlq-key in the same commit (see streamDeadLetter).
 * OFF removes the policy (the count of dead-lettered entries stays). */
void xdeadletterCommand(client *c) {
    int off = c->argc == 4 && !strcasecmp(c->argv[3], "OFF");
    if (c->argc != 5 && !off) {
        addReplyErrorSyntax(c);
        return;
    }
    long long max = 0;
    if (!off) {
        if (getLongLongFromObjectOrReply(c, c->argv[4], &max, NULL) != C_OK) return;
        if (max < 1) {
            addReplyError(c, "max-deliveries must be a positive integer");
            return;
        }
        if (!strcmp(c->argv[3], c->argv[1]) && sdslen(c->argv[3]) == sdslen(c->argv[1])) {
            addReplyError(c, "the dead-letter stream must be another key");
            return;
        }
    }
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *cg = o ? streamLookupCG(o->ptr, c->argv[2]) : NULL;
    if (!cg) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", c->argv[1], c->argv[2]);
        return;
    }
    if (!off) {
        robj *d = lookupKeyWrite(c, c->db, c->argv[3]);
        if (checkType(c, d, OBJ_STREAM)) return;
    }
    if (cg->dlq_key) sdsfree(cg->dlq_key);
    cg->dlq_key = off ? NULL : sdsdup(c->argv[3]);
    cg->dlq_max = off ? 0 : (uint64_t)max;
    signalKeyStateChanged(c, c->db, o);
    addReplyOk(c);
}

/* ========================================================================
 * XGROUP
 * ===================================================================== */

/* XGROUP CREATE key group (id|$) [MKSTREAM] [ENTRIESREAD n]
 *              [PRIORITY OFF | FAIR [WEIGHTS h n] | STRICT [MAXWAIT ms]
 *               [FIELD name]]
 * XGROUP SETID key group (id|$) [ENTRIESREAD n]
 * XGROUP PRIORITY key group OFF | FAIR [WEIGHTS h n] | STRICT [MAXWAIT ms]
 *                 [FIELD name]             (casq: docs/priority.md)
 * XGROUP DESTROY key group
 * XGROUP CREATECONSUMER key group consumer
 * XGROUP DELCONSUMER key group consumer
 * XGROUP HELP */
void xgroupCommand(client *c) {
    stream *s = NULL;
    robj *o = NULL;
    sds grpname = NULL;
    streamCG *cg = NULL;
    char *opt = c->argv[1];
    int mkstream = 0;
    long long entries_read = SCG_INVALID_ENTRIES_READ;
    streamPrioSpec prio;
    int has_prio = 0;

    if (c->argc >= 4) {
        int i = 5;
        int create_subcmd = !strcasecmp(opt, "CREATE");
        int setid_subcmd = !strcasecmp(opt, "SETID");
        if (!strcasecmp(opt, "PRIORITY")) {
            /* XGROUP PRIORITY key group <spec>: the spec is everything. */
            i = 4;
            if (c->argc < 5) {
                addReplySubcommandSyntaxError(c);
                return;
            }
            if (streamPrioParseOrReply(c, &i, &prio) != C_OK) return;
            if (i != c->argc) {
                addReplyErrorSyntax(c);
                return;
            }
            has_prio = 1;
        }
        while (i < c->argc) {
            if (create_subcmd && !has_prio && !strcasecmp(c->argv[i], "PRIORITY")) {
                i++;
                if (streamPrioParseOrReply(c, &i, &prio) != C_OK) return;
                has_prio = 1;
            } else if (create_subcmd && !strcasecmp(c->argv[i], "MKSTREAM")) {
                mkstream = 1;
                i++;
            } else if ((create_subcmd || setid_subcmd) && !strcasecmp(c->argv[i], "ENTRIESREAD") && i + 1 < c->argc) {
                if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &entries_read, NULL) != C_OK) return;
                if (entries_read < 0 && entries_read != SCG_INVALID_ENTRIES_READ) {
                    addReplyError(c, "value for ENTRIESREAD must be positive or -1");
                    return;
                }
                i += 2;
            } else {
                addReplySubcommandSyntaxError(c);
                return;
            }
        }
        o = lookupKeyWrite(c, c->db, c->argv[2]);
        if (checkType(c, o, OBJ_STREAM)) return;
        if (o) s = o->ptr;
        grpname = c->argv[3];
    }

    if (c->argc >= 4 && !mkstream) {
        if (s == NULL) {
            addReplyError(c,
                          "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to "
                          "use the MKSTREAM option to create an empty stream automatically.");
            return;
        }
        if ((cg = streamLookupCG(s, grpname)) == NULL &&
            (!strcasecmp(opt, "SETID") || !strcasecmp(opt, "CREATECONSUMER") || !strcasecmp(opt, "DELCONSUMER") ||
             !strcasecmp(opt, "PRIORITY"))) {
            addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", grpname, c->argv[2]);
            return;
        }
    }

    if (c->argc == 2 && !strcasecmp(opt, "HELP")) {
        const char *help[] = {
            "CREATE <key> <groupname> <id|$> [option]",
            "    Create a new consumer group. Options are:",
            "    * MKSTREAM",
            "      Create the empty stream if it does not exist.",
            "    * ENTRIESREAD entries_read",
            "      Set the group's entries_read counter (internal use).",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "    Create a new consumer in the specified group.",
            "DELCONSUMER <key> <groupname> <consumer>",
            "    Remove the specified consumer.",
            "DESTROY <key> <groupname>",
            "    Remove the specified group.",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "    Set the current group ID and entries_read counter.",
            NULL,
        };
        addReplyHelp(c, help);
    } else if (!strcasecmp(opt, "CREATE") && c->argc >= 5 && (c->argc <= 8 || has_prio)) {
        streamID id;
        if (!strcmp(c->argv[4], "$")) {
            if (s) {
                id = s->last_id;
            } else {
                id.ms = 0;
                id.seq = 0;
            }
        } else if (streamParseStrictIDOrReply(c, c->argv[4], &id, 0, NULL) != C_OK) {
            return;
        }
        int created_key = 0;
        if (s == NULL) {
            o = createStreamObject();
            dbAdd(c->db, c->argv[2], o);
            s = o->ptr;
            created_key = 1;
        }
        streamCG *created = streamCreateCG(s, grpname, sdslen(grpname), &id, entries_read);
        if (created) {
            if (has_prio) streamPrioApply(s, created, &prio);
            addReplyOk(c);
            /* As in Redis, only a key made by MKSTREAM is "modified". */
            if (created_key) signalModifiedKey(c, c->db, c->argv[2], o);
            else signalKeyStateChanged(c, c->db, o);
        } else {
            addReplyError(c, "-BUSYGROUP Consumer Group name already exists");
            if (created_key) signalModifiedKey(c, c->db, c->argv[2], o);
        }
        if (created_key) signalKeyAsReady(c->db, c->argv[2]);
    } else if (!strcasecmp(opt, "SETID") && (c->argc == 5 || c->argc == 7)) {
        streamID id;
        if (!strcmp(c->argv[4], "$")) {
            id = s->last_id;
        } else if (streamParseIDOrReply(c, c->argv[4], &id, 0) != C_OK) {
            return;
        }
        cg->last_id = id;
        cg->entries_read = entries_read;
        /* A priority group: every class restarts after id. */
        if (cg->prio) streamPrioSetID(s, cg, &id);
        signalKeyStateChanged(c, c->db, o);
        addReplyOk(c);
        if (cg->prio) signalKeyAsReady(c->db, c->argv[2]);
    } else if (!strcasecmp(opt, "PRIORITY") && has_prio) {
        streamPrioApply(s, cg, &prio);
        signalKeyStateChanged(c, c->db, o);
        addReplyOk(c);
        /* A restarted schedule may have entries for blocked readers. */
        signalKeyAsReady(c->db, c->argv[2]);
    } else if (!strcasecmp(opt, "DESTROY") && c->argc == 4) {
        if (cg) {
            streamDestroyCG(s, cg);
            signalKeyStateChanged(c, c->db, o);
            addReplyLongLong(c, 1);
            /* Wake XREADGROUP clients blocked on it: they get -NOGROUP. */
            signalKeyAsReady(c->db, c->argv[2]);
        } else {
            addReplyLongLong(c, 0);
        }
    } else if (!strcasecmp(opt, "CREATECONSUMER") && c->argc == 5) {
        streamConsumer *created = streamCreateConsumer(cg, c->argv[4]);
        if (created) signalKeyStateChanged(c, c->db, o);
        addReplyLongLong(c, created ? 1 : 0);
    } else if (!strcasecmp(opt, "DELCONSUMER") && c->argc == 5) {
        long long pending = 0;
        streamConsumer *consumer = streamLookupConsumer(cg, c->argv[4]);
        if (consumer) {
            pending = (long long)idtreeSize(&consumer->pel);
            streamDelConsumer(cg, consumer);
            signalKeyStateChanged(c, c->db, o);
        }
        addReplyLongLong(c, pending);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}

/* ========================================================================
 * XACK
 * ===================================================================== */

/* XACK key group id [id ...] */
void xackCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *group = o ? streamLookupCG(o->ptr, c->argv[2]) : NULL;
    if (o == NULL || group == NULL) {
        addReplyLongLong(c, 0);
        return;
    }

    /* All IDs must parse before anything is acknowledged. */
    streamID static_ids[8];
    streamID *ids = static_ids;
    int id_count = c->argc - 3;
    if (id_count > 8) ids = zmalloc(sizeof(streamID) * (size_t)id_count);
    for (int j = 3; j < c->argc; j++)
        if (streamParseStrictIDOrReply(c, c->argv[j], &ids[j - 3], 0, NULL) != C_OK) goto cleanup;

    int acknowledged = 0;
    for (int j = 0; j < id_count; j++) {
        streamNACK *nack = idtreeFind(&group->pel, &ids[j]);
        if (nack) {
            streamDropNACK(group, &ids[j], nack);
            acknowledged++;
        }
    }
    if (acknowledged) signalKeyStateChanged(c, c->db, o);
    addReplyLongLong(c, acknowledged);
cleanup:
    if (ids != static_ids) zfree(ids);
}

/* ========================================================================
 * XPENDING
 * ===================================================================== */

/* XPENDING key group [[IDLE min-idle] start end count [consumer]] */
void xpendingCommand(client *c) {
    int justinfo = c->argc == 3;
    sds key = c->argv[1];
    sds groupname = c->argv[2];
    sds consumername = NULL;
    streamID startid, endid;
    long long count = 0;
    long long minidle = 0;
    int startex = 0, endex = 0;

    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        addReplyErrorSyntax(c);
        return;
    }
    if (c->argc >= 6) {
        int startidx = 3;
        if (!strcasecmp(c->argv[3], "IDLE")) {
            if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, NULL) == C_ERR) return;
            if (c->argc < 8) {
                addReplyErrorSyntax(c);
                return;
            }
            startidx += 2;
        }
        if (getLongLongFromObjectOrReply(c, c->argv[startidx + 2], &count, NULL) == C_ERR) return;
        if (count < 0) count = 0;
        if (streamParseIntervalIDOrReply(c, c->argv[startidx], &startid, &startex, 0) != C_OK) return;
        if (startex && streamIncrID(&startid) != C_OK) {
            addReplyError(c, "invalid start ID for the interval");
            return;
        }
        if (streamParseIntervalIDOrReply(c, c->argv[startidx + 1], &endid, &endex, UINT64_MAX) != C_OK) return;
        if (endex && streamDecrID(&endid) != C_OK) {
            addReplyError(c, "invalid end ID for the interval");
            return;
        }
        if (startidx + 3 < c->argc) consumername = c->argv[startidx + 3];
    }

    robj *o = lookupKeyRead(c, c->db, key);
    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *group = o ? streamLookupCG(o->ptr, groupname) : NULL;
    if (group == NULL) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", key, groupname);
        return;
    }

    if (justinfo) {
        addReplyArrayLen(c, 4);
        addReplyLongLong(c, (long long)idtreeSize(&group->pel));
        if (idtreeSize(&group->pel) == 0) {
            addReplyNull(c);
            addReplyNull(c);
            addReplyNullArray(c);
            return;
        }
        streamID first, last;
        idtreeFirst(&group->pel, &first, NULL);
        idtreeLast(&group->pel, &last, NULL);
        addReplyStreamID(c, &first);
        addReplyStreamID(c, &last);
        void *lenp = addReplyDeferredLen(c);
        long n = 0;
        for (size_t k = 0; k < group->num_consumers; k++) {
            streamConsumer *consumer = group->consumers[k];
            if (idtreeSize(&consumer->pel) == 0) continue;
            addReplyArrayLen(c, 2);
            addReplyBulk(c, consumer->name, sdslen(consumer->name));
            addReplyBulkLongLong(c, (long long)idtreeSize(&consumer->pel));
            n++;
        }
        setDeferredArrayLen(c, lenp, n);
        return;
    }

    streamConsumer *consumer = NULL;
    if (consumername) {
        consumer = streamLookupConsumer(group, consumername);
        if (consumer == NULL) {
            addReplyEmptyArray(c);
            return;
        }
    }
    idtree *pel = consumer ? &consumer->pel : &group->pel;
    long long now = commandTimeSnapshot();
    void *lenp = addReplyDeferredLen(c);
    long n = 0;
    idtreeIter it;
    for (idtreeSeek(&it, pel, IDTREE_SEEK_GE, &startid);
         count && idtreeIterValid(&it) && streamCompareID(idtreeIterKey(&it), &endid) <= 0; idtreeIterNext(&it)) {
        streamNACK *nack = idtreeIterVal(&it);
        if (minidle) {
            long long this_idle = now - nack->delivery_time;
            if (this_idle < minidle) continue;
        }
        n++;
        count--;
        addReplyArrayLen(c, 4);
        addReplyStreamID(c, idtreeIterKey(&it));
        if (nack->consumer) {
            addReplyBulk(c, nack->consumer->name, sdslen(nack->consumer->name));
            long long elapsed = now - nack->delivery_time;
            if (elapsed < 0) elapsed = 0;
            addReplyLongLong(c, elapsed);
        } else {
            /* Released by XNACK: no owner, and -1 as its idle time, as in
             * redis.io's XNACK example. */
            addReplyBulk(c, "", 0);
            addReplyLongLong(c, -1);
        }
        addReplyLongLong(c, (long long)nack->delivery_count);
    }
    setDeferredArrayLen(c, lenp, n);
}

/* ========================================================================
 * XCLAIM
 * ===================================================================== */

/* XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms]
 *        [TIME unix-ms] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]
 *
 * Takes over pending entries idle for at least min-idle-time. Claiming
 * one's own entries with JUSTID is the job heartbeat (design.md §5): it
 * refreshes the delivery time without counting a delivery. */
void xclaimCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *group = o ? streamLookupCG(o->ptr, c->argv[2]) : NULL;
    long long minidle;
    long long retrycount = -1;
    long long deliverytime = -1;
    int force = 0, justid = 0;

    if (o == NULL || group == NULL) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", c->argv[1], c->argv[2]);
        return;
    }
    if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, "Invalid min-idle-time argument for XCLAIM") != C_OK)
        return;
    if (minidle < 0) minidle = 0;

    /* IDs first (all or nothing); the first argument that is not an ID
     * starts the options. */
    int j;
    streamID static_ids[8];
    streamID *ids = static_ids;
    int id_count = c->argc - 5;
    if (id_count > 8) ids = zmalloc(sizeof(streamID) * (size_t)id_count);
    for (j = 5; j < c->argc; j++)
        if (streamParseStrictIDOrReply(NULL, c->argv[j], &ids[j - 5], 0, NULL) != C_OK) break;
    int last_id_arg = j - 1;

    long long now = commandTimeSnapshot();
    streamID last_id = {0, 0};
    for (; j < c->argc; j++) {
        int moreargs = (c->argc - 1) - j;
        char *opt = c->argv[j];
        if (!strcasecmp(opt, "FORCE")) {
            force = 1;
        } else if (!strcasecmp(opt, "JUSTID")) {
            justid = 1;
        } else if (!strcasecmp(opt, "IDLE") && moreargs) {
            j++;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &deliverytime,
                                             "Invalid IDLE option argument for XCLAIM") != C_OK)
                goto cleanup;
            /* now - idle; an idle time that puts the delivery in the
             * future or before the epoch ends up as now below, as in
             * Redis (which computes it with a signed overflow). */
            deliverytime = (deliverytime < 0 || deliverytime > now) ? now : now - deliverytime;
        } else if (!strcasecmp(opt, "TIME") && moreargs) {
            j++;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &deliverytime,
                                             "Invalid TIME option argument for XCLAIM") != C_OK)
                goto cleanup;
        } else if (!strcasecmp(opt, "RETRYCOUNT") && moreargs) {
            j++;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &retrycount,
                                             "Invalid RETRYCOUNT option argument for XCLAIM") != C_OK)
                goto cleanup;
        } else if (!strcasecmp(opt, "LASTID") && moreargs) {
            j++;
            if (streamParseStrictIDOrReply(c, c->argv[j], &last_id, 0, NULL) != C_OK) goto cleanup;
        } else {
            addReplyErrorFormat(c, "Unrecognized XCLAIM option '%s'", opt);
            goto cleanup;
        }
    }

    if (streamCompareID(&last_id, &group->last_id) > 0) group->last_id = last_id;

    /* A delivery time in the future or negative becomes "now": a client
     * computing it from a slightly different clock is not an error. */
    if (deliverytime != -1) {
        if (deliverytime < 0 || deliverytime > now) deliverytime = now;
    } else {
        deliverytime = now;
    }

    stream *s = o->ptr;
    streamConsumer *consumer = streamLookupConsumer(group, c->argv[3]);
    if (consumer == NULL) consumer = streamCreateConsumer(group, c->argv[3]);
    consumer->seen_time = commandTimeSnapshot();

    void *arraylenptr = addReplyDeferredLen(c);
    long arraylen = 0;
    for (int k = 5; k <= last_id_arg; k++) {
        streamID id = ids[k - 5];
        streamNACK *nack = idtreeFind(&group->pel, &id);

        /* Only existing entries can be claimed; a pending entry whose
         * entry was deleted is dropped. */
        if (!streamEntryExists(s, &id)) {
            if (nack) streamDropNACK(group, &id, nack);
            continue;
        }
        int created = 0;
        if (force && nack == NULL) {
            nack = streamCreateNACK(NULL);
            idtreeInsert(&group->pel, &id, nack, NULL);
            created = 1;
        }
        if (nack == NULL) continue;
        /* A NACK just made by FORCE ignores min-idle. */
        if (!created && minidle) {
            long long this_idle = now - nack->delivery_time;
            if (this_idle < minidle) continue;
        }
        /* casq: past the group's delivery limit it goes to the dead letters. */
        if (!created && streamDeadLetterDue(group, nack) &&
            streamDeadLetter(c, c->argv[1], s, group, &id, nack, STREAM_DLQ_MAX_DELIVERIES))
            continue;
        streamNACKSetDeliveryTime(group, nack, deliverytime);
        if (retrycount >= 0) nack->delivery_count = (uint64_t)retrycount;
        else if (!justid) streamNACKCountDelivery(nack);
        streamMoveNACK(group, nack, &id, consumer);
        if (justid) addReplyStreamID(c, &id);
        else streamReplyWithRange(c, s, &id, &id, 1, 0, NULL, NULL, STREAM_RWR_RAWENTRIES);
        arraylen++;
        consumer->active_time = commandTimeSnapshot();
    }
    setDeferredArrayLen(c, arraylenptr, arraylen);
    signalKeyStateChanged(c, c->db, o);
cleanup:
    if (ids != static_ids) zfree(ids);
}

/* ========================================================================
 * XAUTOCLAIM
 * ===================================================================== */

/* XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
 *
 * Scans the group PEL from start and claims up to count entries idle for
 * at least min-idle-time (looking at no more than 10 x count entries).
 * Replies [next-cursor, claimed, deleted-ids]: pending entries whose
 * stream entry no longer exists are dropped and reported. */
void xautoclaimCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    long long minidle;
    long count = 100;
    const long attempts_factor = 10;
    streamID startid;
    int startex;
    int justid = 0;

    if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, "Invalid min-idle-time argument for XAUTOCLAIM") !=
        C_OK)
        return;
    if (minidle < 0) minidle = 0;
    if (streamParseIntervalIDOrReply(c, c->argv[5], &startid, &startex, 0) != C_OK) return;
    if (startex && streamIncrID(&startid) != C_OK) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    for (int j = 6; j < c->argc; j++) {
        int moreargs = (c->argc - 1) - j;
        char *opt = c->argv[j];
        if (!strcasecmp(opt, "COUNT") && moreargs) {
            long max_count = LONG_MAX / (long)(sizeof(streamID) > (size_t)attempts_factor ? sizeof(streamID)
                                                                                            : (size_t)attempts_factor);
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 1], 1, max_count, &count, "-ERR COUNT must be > 0") !=
                C_OK)
                return;
            j++;
        } else if (!strcasecmp(opt, "JUSTID")) {
            justid = 1;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }

    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *group = o ? streamLookupCG(o->ptr, c->argv[2]) : NULL;
    if (o == NULL || group == NULL) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", c->argv[1], c->argv[2]);
        return;
    }
    stream *s = o->ptr;

    streamConsumer *consumer = streamLookupConsumer(group, c->argv[3]);
    if (consumer == NULL) consumer = streamCreateConsumer(group, c->argv[3]);
    consumer->seen_time = commandTimeSnapshot();

    /* First claim, remembering what to send; then reply (the cursor comes
     * first in the reply but is known only at the end). */
    long long attempts = (long long)count * attempts_factor;
    long long now = commandTimeSnapshot();
    streamID *claimed = NULL, *deleted = NULL;
    size_t nclaimed = 0, ndeleted = 0, aclaimed = 0, adeleted = 0;
    idtreeIter it;
    idtreeSeek(&it, &group->pel, IDTREE_SEEK_GE, &startid);
    while (attempts-- && count && idtreeIterValid(&it)) {
        streamID id = *idtreeIterKey(&it);
        streamNACK *nack = idtreeIterVal(&it);
        if (!streamEntryExists(s, &id)) {
            streamDropNACK(group, &id, nack);
            if (ndeleted == adeleted) {
                adeleted = adeleted ? adeleted * 2 : 8;
                deleted = zrealloc(deleted, sizeof(streamID) * adeleted);
            }
            deleted[ndeleted++] = id;
            count--;
            idtreeSeek(&it, &group->pel, IDTREE_SEEK_GT, &id);
            continue;
        }
        if (minidle && now - nack->delivery_time < minidle) {
            idtreeIterNext(&it);
            continue;
        }
        /* casq: past the group's delivery limit it goes to the dead letters. */
        if (streamDeadLetterDue(group, nack) &&
            streamDeadLetter(c, c->argv[1], s, group, &id, nack, STREAM_DLQ_MAX_DELIVERIES)) {
            idtreeSeek(&it, &group->pel, IDTREE_SEEK_GT, &id);
            continue;
        }
        streamNACKSetDeliveryTime(group, nack, now);
        if (!justid) streamNACKCountDelivery(nack);
        streamMoveNACK(group, nack, &id, consumer); /* consumer PELs only: `it` stays valid */
        if (nclaimed == aclaimed) {
            aclaimed = aclaimed ? aclaimed * 2 : 8;
            claimed = zrealloc(claimed, sizeof(streamID) * aclaimed);
        }
        claimed[nclaimed++] = id;
        count--;
        consumer->active_time = commandTimeSnapshot();
        idtreeIterNext(&it);
    }
    streamID endid = {0, 0};
    if (idtreeIterValid(&it)) endid = *idtreeIterKey(&it);

    addReplyArrayLen(c, 3);
    addReplyStreamID(c, &endid);
    addReplyArrayLen(c, (long)nclaimed);
    for (size_t k = 0; k < nclaimed; k++) {
        if (justid) addReplyStreamID(c, &claimed[k]);
        else streamReplyWithRange(c, s, &claimed[k], &claimed[k], 1, 0, NULL, NULL, STREAM_RWR_RAWENTRIES);
    }
    addReplyArrayLen(c, (long)ndeleted);
    for (size_t k = 0; k < ndeleted; k++) addReplyStreamID(c, &deleted[k]);
    zfree(claimed);
    zfree(deleted);
    signalKeyStateChanged(c, c->db, o);
}

/* ========================================================================
 * The state document
 * ===================================================================== */

static int groupCreationCompare(const void *a, const void *b) {
    const streamCG *ga = *(const streamCG *const *)a, *gb = *(const streamCG *const *)b;
    return ga->created < gb->created ? -1 : ga->created > gb->created;
}

static sds consumerJSONName(streamConsumer *sc) {
    if (!sc->json_name) sc->json_name = jsonCatBytes(sdsempty(), sc->name, sdslen(sc->name));
    return sc->json_name;
}

/* The group's NACK zone, `,"nacked":[id, ...]` in the order its entries
 * were released, if it has any (docs/state-format.md). */
static sds streamCatNackZoneJSON(sds out, streamCG *cg) {
    if (!cg->nack_zone_len) return out;
    size_t n;
    zoneEntry *zone = streamNackZone(cg, &n);
    out = sdscatlen(out, ",\"nacked\":[", 11);
    for (size_t k = 0; k < n; k++) {
        if (k) out = sdscatlen(out, ",", 1);
        out = jsonCatStreamID(out, &zone[k].id);
    }
    zfree(zone);
    return sdscatlen(out, "]", 1);
}

/* The group's dead-letter policy, `,"dead_letter":{...}`, if it has one or
 * ever dead-lettered an entry (docs/state-format.md). */
static sds streamCatDeadLetterJSON(sds out, const streamCG *cg) {
    if (!cg->dlq_key && !cg->dlq_count) return out;
    out = sdscatlen(out, ",\"dead_letter\":{\"key\":", 22);
    if (cg->dlq_key) out = jsonCatBytes(out, cg->dlq_key, sdslen(cg->dlq_key));
    else out = sdscatlen(out, "null", 4);
    out = sdscatlen(out, ",\"max_deliveries\":", 18);
    out = jsonCatU64(out, cg->dlq_max);
    out = sdscatlen(out, ",\"count\":", 9);
    out = jsonCatU64(out, cg->dlq_count);
    return sdscatlen(out, "}", 1);
}

static int streamDeadLetterFromJSON(streamCG *cg, const cJSON *v, sds *err) {
    static const char *const fields[] = {"key", "max_deliveries", "count", NULL};
    if (!cJSON_IsObject(v)) {
        *err = sdsnew("dead_letter: expected an object");
        return C_ERR;
    }
    if (jsonCheckFields(v, fields, "dead_letter", err) != C_OK) return C_ERR;
    uint64_t max, count;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(v, "max_deliveries"), &max, "max_deliveries", err) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(v, "count"), &count, "count", err) != C_OK)
        return C_ERR;
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(v, "key");
    if (!cJSON_IsNull(key)) {
        if (jsonGetBytes(key, &cg->dlq_key, "dead_letter key", err) != C_OK) return C_ERR;
        if (max < 1) {
            *err = sdsnew("dead_letter: max_deliveries must be >= 1");
            return C_ERR;
        }
    }
    cg->dlq_max = cg->dlq_key ? max : 0;
    cg->dlq_count = count;
    return C_OK;
}

/* Appends the groups array (the value of "groups"), groups in creation
 * order. Groups change all the time, so they are encoded afresh, but
 * cheaply: the output is sized up front, names are encoded once per
 * consumer, and numbers are written in place. */
sds streamCatGroupsJSON(sds out, const stream *s) {
    streamCG *stackv[16];
    streamCG **order = s->num_cgroups <= 16 ? stackv : zmalloc(sizeof(streamCG *) * s->num_cgroups);
    if (s->num_cgroups) {
        memcpy(order, s->cgroups, sizeof(streamCG *) * s->num_cgroups);
        qsort(order, s->num_cgroups, sizeof(streamCG *), groupCreationCompare);
    }
    out = sdscatlen(out, "[", 1);
    for (size_t g = 0; g < s->num_cgroups; g++) {
        streamCG *cg = order[g];
        /* Room for everything but names of unusual length. */
        size_t need = 128 + sdslen(cg->name) * 6;
        for (size_t k = 0; k < cg->num_consumers; k++)
            need += 64 + sdslen(consumerJSONName(cg->consumers[k]));
        out = sdsMakeRoomFor(out, need);

        if (g) out = sdscatlen(out, ",", 1);
        out = sdscatlen(out, "{\"name\":", 8);
        out = jsonCatBytes(out, cg->name, sdslen(cg->name));
        out = sdscatlen(out, ",\"last_delivered_id\":", 21);
        out = jsonCatStreamID(out, &cg->last_id);
        out = sdscatlen(out, ",\"entries_read\":", 16);
        if (cg->entries_read == SCG_INVALID_ENTRIES_READ) out = sdscatlen(out, "null", 4);
        else out = jsonCatI64(out, cg->entries_read);
        if (cg->prio) {
            out = sdscatlen(out, ",\"priority\":", 12);
            out = streamPrioCatJSON(out, cg);
        }
        out = streamCatDeadLetterJSON(out, cg);
        out = sdscatlen(out, ",\"consumers\":[", 14);
        for (size_t k = 0; k < cg->num_consumers; k++) {
            streamConsumer *sc = cg->consumers[k];
            sds jn = consumerJSONName(sc);
            size_t jl = sdslen(jn);
            out = sdsMakeRoomFor(out, jl + 80);
            char *p = out + sdslen(out), *start = p;
            if (k) *p++ = ',';
            memcpy(p, "{\"name\":", 8);
            p += 8;
            memcpy(p, jn, jl);
            p += jl;
            memcpy(p, ",\"seen_time_ms\":", 16);
            p = jsonPutI64(p + 16, sc->seen_time);
            memcpy(p, ",\"active_time_ms\":", 18);
            p = jsonPutI64(p + 18, sc->active_time);
            *p++ = '}';
            sdsIncrLen(out, (size_t)(p - start));
        }
        out = sdscatlen(out, "],\"pending\":[", 13);
        idtreeIter it;
        int first = 1;
        for (idtreeSeek(&it, &cg->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
            streamNACK *nack = idtreeIterVal(&it);
            const char *jn = nack->consumer ? consumerJSONName(nack->consumer) : "null"; /* XNACK: no owner */
            size_t jl = nack->consumer ? sdslen(nack->consumer->json_name) : 4;
            out = sdsMakeRoomFor(out, jl + 120);
            char *p = out + sdslen(out), *start = p;
            if (!first) *p++ = ',';
            first = 0;
            *p++ = '[';
            p = jsonPutStreamID(p, idtreeIterKey(&it));
            *p++ = ',';
            memcpy(p, jn, jl);
            p += jl;
            *p++ = ',';
            p = jsonPutI64(p, nack->delivery_time);
            *p++ = ',';
            p = jsonPutU64(p, nack->delivery_count);
            *p++ = ']';
            sdsIncrLen(out, (size_t)(p - start));
        }
        out = sdscatlen(out, "]", 1);
        out = streamCatNackZoneJSON(out, cg);
        out = sdscatlen(out, "}", 1);
    }
    if (order != stackv) zfree(order);
    return sdscatlen(out, "]", 1);
}

static int groupLoadError(sds *err, const char *group_desc, sds msg) {
    *err = sdscatprintf(sdsempty(), "consumer group %s: %s", group_desc, msg);
    sdsfree(msg);
    return C_ERR;
}

/* The group's NACK zone: `nacked` lists, in the order they were released,
 * exactly the pending entries that have no consumer (absent: none). */
static int streamNackZoneFromJSON(streamCG *cg, const cJSON *nacked, const char *desc, sds *err) {
    sds msg = NULL;
    if (!nacked) {
        if (cg->nack_zone_len)
            return groupLoadError(err, desc, sdsnew("pending entries without consumer but no `nacked`"));
        return C_OK;
    }
    if (!cJSON_IsArray(nacked) || cJSON_GetArraySize(nacked) == 0)
        return groupLoadError(err, desc, sdsnew("nacked: expected a non-empty array"));
    const cJSON *e;
    size_t n = 0;
    cJSON_ArrayForEach(e, nacked) {
        streamID id;
        if (jsonGetStreamID(e, &id, "nacked ID", &msg) != C_OK) return groupLoadError(err, desc, msg);
        streamNACK *nack = idtreeFind(&cg->pel, &id);
        if (!nack || nack->consumer)
            return groupLoadError(err, desc, sdsnew("nacked: every ID must be pending without consumer"));
        if (nack->nack_seq) return groupLoadError(err, desc, sdsnew("nacked: duplicate ID"));
        nack->nack_seq = ++cg->nack_seq_next;
        n++;
    }
    if (n != cg->nack_zone_len)
        return groupLoadError(err, desc, sdsnew("nacked: every pending entry without consumer must be listed"));
    return C_OK;
}

/* Loads one group object into s. */
static int streamGroupFromJSON(stream *s, const cJSON *g, size_t index, sds *err) {
    char desc[32];
    snprintf(desc, sizeof(desc), "#%zu", index);
    sds msg = NULL;
    if (!cJSON_IsObject(g)) return groupLoadError(err, desc, sdsnew("expected an object"));
    static const char *const fields[] = {"name",     "last_delivered_id", "entries_read", "consumers", "pending",
                                         "priority", "dead_letter",       "nacked",       NULL};
    if (jsonCheckFields(g, fields, "group", &msg) != C_OK) return groupLoadError(err, desc, msg);

    sds name = NULL;
    streamID last_id;
    if (jsonGetBytes(cJSON_GetObjectItemCaseSensitive(g, "name"), &name, "name", &msg) != C_OK)
        return groupLoadError(err, desc, msg);
    if (jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(g, "last_delivered_id"), &last_id, "last_delivered_id",
                        &msg) != C_OK) {
        sdsfree(name);
        return groupLoadError(err, desc, msg);
    }
    long long entries_read = SCG_INVALID_ENTRIES_READ;
    const cJSON *er = cJSON_GetObjectItemCaseSensitive(g, "entries_read");
    if (!cJSON_IsNull(er)) {
        int64_t v;
        if (jsonGetI64(er, &v, "entries_read", &msg) != C_OK) {
            sdsfree(name);
            return groupLoadError(err, desc, msg);
        }
        if (v < 0) {
            sdsfree(name);
            return groupLoadError(err, desc, sdsnew("entries_read: must be null or >= 0"));
        }
        entries_read = v;
    }
    streamCG *cg = streamCreateCG(s, name, sdslen(name), &last_id, entries_read);
    sdsfree(name);
    if (!cg) return groupLoadError(err, desc, sdsnew("duplicate group name"));
    const cJSON *prio = cJSON_GetObjectItemCaseSensitive(g, "priority");
    if (prio && !cJSON_IsNull(prio) && streamPrioFromJSON(s, cg, prio, &msg) != C_OK)
        return groupLoadError(err, desc, msg);
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(g, "dead_letter");
    if (dl && streamDeadLetterFromJSON(cg, dl, &msg) != C_OK) return groupLoadError(err, desc, msg);

    const cJSON *consumers = cJSON_GetObjectItemCaseSensitive(g, "consumers");
    if (!cJSON_IsArray(consumers)) return groupLoadError(err, desc, sdsnew("consumers: expected an array"));
    const cJSON *sc;
    cJSON_ArrayForEach(sc, consumers) {
        if (!cJSON_IsObject(sc)) return groupLoadError(err, desc, sdsnew("consumers: expected objects"));
        static const char *const cfields[] = {"name", "seen_time_ms", "active_time_ms", NULL};
        if (jsonCheckFields(sc, cfields, "consumer", &msg) != C_OK) return groupLoadError(err, desc, msg);
        sds cname;
        int64_t seen, active;
        if (jsonGetBytes(cJSON_GetObjectItemCaseSensitive(sc, "name"), &cname, "consumer name", &msg) != C_OK)
            return groupLoadError(err, desc, msg);
        if (jsonGetI64(cJSON_GetObjectItemCaseSensitive(sc, "seen_time_ms"), &seen, "seen_time_ms", &msg) != C_OK ||
            jsonGetI64(cJSON_GetObjectItemCaseSensitive(sc, "active_time_ms"), &active, "active_time_ms", &msg) !=
                C_OK) {
            sdsfree(cname);
            return groupLoadError(err, desc, msg);
        }
        /* Commands store the command time (>= 0); active_time is -1 until
         * the consumer first reads. Anything else would overflow the idle
         * and inactive times of XINFO CONSUMERS. */
        if (seen < 0 || active < -1) {
            sdsfree(cname);
            return groupLoadError(err, desc, sdsnew("consumer times: seen_time_ms must be >= 0, active_time_ms >= -1"));
        }
        streamConsumer *consumer = streamCreateConsumer(cg, cname);
        sdsfree(cname);
        if (!consumer) return groupLoadError(err, desc, sdsnew("duplicate consumer name"));
        consumer->seen_time = seen;
        consumer->active_time = active;
    }

    const cJSON *pending = cJSON_GetObjectItemCaseSensitive(g, "pending");
    if (!cJSON_IsArray(pending)) return groupLoadError(err, desc, sdsnew("pending: expected an array"));
    const cJSON *p;
    streamID prev = {0, 0};
    int have_prev = 0;
    cJSON_ArrayForEach(p, pending) {
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 4)
            return groupLoadError(err, desc, sdsnew("pending: expected [id, consumer, delivery_time_ms, count]"));
        streamID id;
        sds cname;
        int64_t dtime;
        uint64_t dcount;
        if (jsonGetStreamID(cJSON_GetArrayItem(p, 0), &id, "pending ID", &msg) != C_OK)
            return groupLoadError(err, desc, msg);
        if (have_prev && streamCompareID(&prev, &id) >= 0)
            return groupLoadError(err, desc, sdsnew("pending: IDs not in increasing order"));
        prev = id;
        have_prev = 1;
        streamConsumer *owner = NULL; /* null: released by XNACK, in the NACK zone */
        if (!cJSON_IsNull(cJSON_GetArrayItem(p, 1))) {
            if (jsonGetBytes(cJSON_GetArrayItem(p, 1), &cname, "pending consumer", &msg) != C_OK)
                return groupLoadError(err, desc, msg);
            owner = streamLookupConsumer(cg, cname);
            if (!owner) {
                sds m = sdscatprintf(sdsempty(), "pending entry owned by unknown consumer '%s'", cname);
                sdsfree(cname);
                return groupLoadError(err, desc, m);
            }
            sdsfree(cname);
        }
        if (jsonGetI64(cJSON_GetArrayItem(p, 2), &dtime, "pending delivery time", &msg) != C_OK ||
            jsonGetU64(cJSON_GetArrayItem(p, 3), &dcount, "pending delivery count", &msg) != C_OK)
            return groupLoadError(err, desc, msg);
        /* XCLAIM clamps delivery times to [0, now]; counts are long longs
         * in XPENDING and RETRYCOUNT. */
        if (dtime < 0) return groupLoadError(err, desc, sdsnew("pending delivery time must be >= 0"));
        if (!owner && dtime != 0)
            return groupLoadError(err, desc, sdsnew("pending entry without consumer: delivery time must be 0"));
        if (dcount > (uint64_t)LLONG_MAX)
            return groupLoadError(err, desc, sdsnew("pending delivery count is larger than 9223372036854775807"));
        streamNACK *nack = streamCreateNACK(owner);
        nack->delivery_count = dcount;
        idtreeInsert(&cg->pel, &id, nack, NULL);
        streamNACKSetDeliveryTime(cg, nack, dtime);
        if (owner) idtreeInsert(&owner->pel, &id, nack, NULL);
        else cg->nack_zone_len++; /* its place comes from `nacked` */
    }
    return streamNackZoneFromJSON(cg, cJSON_GetObjectItemCaseSensitive(g, "nacked"), desc, err);
}

int streamGroupsFromJSON(stream *s, const cJSON *groups, sds *err) {
    if (!cJSON_IsArray(groups)) {
        *err = sdsnew("groups: expected an array");
        return C_ERR;
    }
    size_t i = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, groups) {
        if (streamGroupFromJSON(s, g, i++, err) != C_OK) return C_ERR;
    }
    return C_OK;
}
