/* t_stream_prio.c -- priority delivery for consumer groups (issue 10,
 * design.md §8, docs/priority.md).
 *
 * A group with priority on delivers XREADGROUP ">" by a schedule over
 * classes read from one field of each entry (default "priority"; missing
 * or not an integer counts as 4, as in RabbitMQ):
 *
 *  - FAIR: two classes, high (>= 5) and normal (< 5), served by a
 *    weighted round robin (2:1 by default): the cycle has weights[0] slots
 *    of high then weights[1] slots of normal; a slot whose class has
 *    nothing undelivered is skipped. RabbitMQ 4.0's quorum queues.
 *  - STRICT: levels 0..31 (above 31 counts as 31, below 0 as 0), highest
 *    first; with MAXWAIT, the oldest undelivered head whose ID time is
 *    more than max_wait ms in the past goes first whatever its level.
 *
 * Within a class delivery is FIFO (ID order), so a class's delivered set
 * is "every entry of the class up to its cursor": the durable state is
 * just the cursors, the cycle position and the settings (the "priority"
 * object of a group in the state document). In memory, each class has a
 * FIFO of its undelivered entries (20 bytes per entry, in chunks: the ID
 * and where classification saw the entry in its node, so that delivering
 * it neither looks it up from its node's start nor scans past the other
 * classes' entries), filled by classifying new entries once, in ID order,
 * up to `scanned`, just ahead of delivery (prioClassify). Deleted entries
 * (XDEL, trimming) are dropped lazily: a delivery skips IDs that no
 * longer exist, and XINFO purges the queues when entries were removed
 * since it last looked, so its counts and the lag are exact. No node
 * pointers are kept (nodes are freed, and join or leave segments): a
 * position is used only while its node is unchanged (streamEntryPos). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"
#include "t_stream.h"

/* ========================================================================
 * Per-class FIFO of entry IDs
 * ===================================================================== */

/* Each queued entry is 20 bytes: its ID's ms and (low 32 bits of) seq,
 * and where classification saw it in its node (streamEntryPos: record
 * and text offsets, valid while the node's gen stays at most the chunk's
 * epoch), so that delivering it does not scan past the entries of other
 * classes between it and its class's previous one. A seq that does not
 * fit (explicit IDs only) is written as PRIO_SEQ_WIDE with its two
 * halves in rec and text, and the entry has no position. Arrays rather
 * than records: no padding. */
#define PRIO_CHUNK_IDS 203 /* a chunk is 4 KB */
#define PRIO_SEQ_WIDE UINT32_MAX

typedef struct prioChunk {
    struct prioChunk *next;
    uint32_t used;  /* entries written */
    uint64_t epoch; /* streamLayoutEpoch() when the chunk was made */
    uint64_t ms[PRIO_CHUNK_IDS];
    uint32_t seq[PRIO_CHUNK_IDS];
    uint32_t rec[PRIO_CHUNK_IDS];
    uint32_t text[PRIO_CHUNK_IDS];
} prioChunk;

typedef struct prioQueue {
    prioChunk *head, *tail;
    uint32_t hpos;  /* next entry to pop in head */
    uint64_t size;  /* entries queued */
} prioQueue;

/* A new chunk at the tail (once per PRIO_CHUNK_IDS pushes). */
static void queueGrow(prioQueue *q) {
    prioChunk *ch = zmalloc(sizeof(*ch));
    ch->next = NULL;
    ch->used = 0;
    ch->epoch = streamLayoutEpoch();
    if (q->tail) q->tail->next = ch;
    else {
        q->head = ch;
        q->hpos = 0;
    }
    q->tail = ch;
}

/* Queues id, seen at *at (NULL: position unknown). */
static inline void queuePush(prioQueue *q, const streamID *id, const streamEntryPos *at) {
    if (!q->tail || q->tail->used == PRIO_CHUNK_IDS) queueGrow(q);
    prioChunk *ch = q->tail;
    uint32_t i = ch->used++;
    ch->ms[i] = id->ms;
    if (id->seq < PRIO_SEQ_WIDE) {
        ch->seq[i] = (uint32_t)id->seq;
        ch->rec[i] = at ? at->rec : STREAM_POS_UNKNOWN;
        ch->text[i] = at ? at->text : 0;
    } else {
        ch->seq[i] = PRIO_SEQ_WIDE;
        ch->rec[i] = (uint32_t)(id->seq >> 32);
        ch->text[i] = (uint32_t)id->seq;
    }
    q->size++;
}

/* The ID of the head (the queue is not empty). */
static inline streamID queueHeadID(const prioQueue *q) {
    const prioChunk *ch = q->head;
    uint32_t i = q->hpos;
    streamID id = {ch->ms[i], ch->seq[i]};
    if (ch->seq[i] == PRIO_SEQ_WIDE) id.seq = (uint64_t)ch->rec[i] << 32 | ch->text[i];
    return id;
}

/* ... and where it was seen (rec STREAM_POS_UNKNOWN: not known). */
static inline void queueHeadPos(const prioQueue *q, streamEntryPos *at) {
    const prioChunk *ch = q->head;
    uint32_t i = q->hpos;
    at->rec = ch->seq[i] == PRIO_SEQ_WIDE ? STREAM_POS_UNKNOWN : ch->rec[i];
    at->text = ch->text[i];
    at->epoch = ch->epoch;
}

/* The head chunk is used up: the next one becomes the head. */
static void queueDropHead(prioQueue *q) {
    prioChunk *next = q->head->next;
    zfree(q->head);
    q->head = next;
    q->hpos = 0;
    if (!next) q->tail = NULL;
}

static inline void queuePop(prioQueue *q) {
    q->size--;
    if (++q->hpos == q->head->used) queueDropHead(q);
}

static void queueClear(prioQueue *q) {
    prioChunk *ch = q->head;
    while (ch) {
        prioChunk *next = ch->next;
        zfree(ch);
        ch = next;
    }
    memset(q, 0, sizeof(*q));
}

/* ========================================================================
 * The group's priority state
 * ===================================================================== */

#define PRIO_FAIR 1
#define PRIO_STRICT 2
#define PRIO_MAX_CLASSES 32
#define PRIO_DEFAULT 4       /* priority of an entry without a valid one */
#define PRIO_FAIR_HIGH_MIN 5 /* fair mode: >= 5 is high */
#define PRIO_MAX_WEIGHT 1000000

struct streamPrio {
    int mode;                 /* PRIO_FAIR or PRIO_STRICT */
    sds field;                /* the entry field holding the priority */
    int field_plain;          /* field has no '"', '\\' or control byte:
                               * JSON text may spell it without escapes */
    sds tok;                  /* field_plain: `"<field>","`, the field and
                               * the opening quote of its value as an
                               * entry's JSON spells them (prioClassOfRaw) */
    size_t toklen;            /* its length, 0 without it */
    uint8_t class_of[100];    /* the class of the values 0..99 */
    uint32_t weights[2];      /* fair: slots of high, of normal per cycle */
    uint32_t cycle_pos;       /* fair: next slot of the cycle */
    long long max_wait;       /* strict: starvation guard in ms, 0 = off */
    int nclasses;             /* 2 (fair: 0 high, 1 normal) or 32 (levels) */
    streamID cursor[PRIO_MAX_CLASSES]; /* durable: every entry of the class
                                        * with ID <= cursor was delivered */
    streamID scanned;         /* every entry <= scanned is classified */
    streamEntryHint scan_hint; /* where classification stopped, after
                                * scanned (streamIteratorStartAfter) */
    prioQueue q[PRIO_MAX_CLASSES]; /* undelivered IDs per class */
    uint32_t queued;          /* bit k: q[k] is not empty */
    uint32_t enough;          /* the schedule can pick once every class of
                               * this mask has an entry queued (fair: both
                               * classes; strict: the top level, which no
                               * entry not yet classified can pass) */
    streamEntryHint hint[PRIO_MAX_CLASSES]; /* where each class's last
                                             * delivery was found */
    uint64_t removed_seen;    /* entries_added - length when the queues
                               * were last purged of deleted entries */
};

static int prioClassOf(const streamPrio *p, long long value);

static streamPrio *prioNew(int mode, const char *field, size_t flen) {
    streamPrio *p = zcalloc(sizeof(*p));
    p->mode = mode;
    p->field = sdsnewlen(field, flen);
    p->field_plain = 1;
    for (size_t k = 0; k < flen; k++) {
        unsigned char ch = (unsigned char)field[k];
        if (ch == '"' || ch == '\\' || ch < 0x20) p->field_plain = 0;
    }
    if (p->field_plain) {
        p->tok = sdscatlen(sdsnewlen("\"", 1), field, flen);
        p->tok = sdscatlen(p->tok, "\",\"", 3);
        p->toklen = sdslen(p->tok);
    }
    p->weights[0] = 2;
    p->weights[1] = 1;
    p->nclasses = mode == PRIO_FAIR ? 2 : PRIO_MAX_CLASSES;
    for (int v = 0; v < 100; v++) p->class_of[v] = (uint8_t)prioClassOf(p, v);
    p->enough = mode == PRIO_FAIR ? 3 : 1u << (PRIO_MAX_CLASSES - 1);
    return p;
}

void streamPrioFree(streamPrio *p) {
    if (!p) return;
    for (int k = 0; k < PRIO_MAX_CLASSES; k++) queueClear(&p->q[k]);
    sdsfree(p->field);
    sdsfree(p->tok);
    zfree(p);
}

/* Queueing an undelivered ID, delivering a class's head: the queues and
 * the mask of the non-empty ones change together. */
static inline void prioPush(streamPrio *p, int cls, const streamID *id, const streamEntryPos *at) {
    queuePush(&p->q[cls], id, at);
    p->queued |= 1u << cls;
}

static inline void prioPop(streamPrio *p, int cls) {
    queuePop(&p->q[cls]);
    if (!p->q[cls].size) p->queued &= ~(1u << cls);
}

static void prioClearQueues(streamPrio *p) {
    for (int k = 0; k < PRIO_MAX_CLASSES; k++) queueClear(&p->q[k]);
    p->queued = 0;
}

/* Every class restarts after id: the index is rebuilt lazily. */
static void prioResetCursors(streamPrio *p, const streamID *id) {
    prioClearQueues(p);
    for (int k = 0; k < PRIO_MAX_CLASSES; k++) p->cursor[k] = *id;
    p->scanned = *id;
}

/* The queues are dropped and rebuilt from the cursors (after a load, a
 * copy): entries above the lowest cursor are classified again. */
static void prioRebuildIndex(streamPrio *p) {
    streamID low = p->cursor[0];
    prioClearQueues(p);
    for (int k = 1; k < p->nclasses; k++)
        if (streamCompareID(&p->cursor[k], &low) < 0) low = p->cursor[k];
    p->scanned = low;
}

streamPrio *streamPrioDup(const streamPrio *src) {
    if (!src) return NULL;
    streamPrio *p = prioNew(src->mode, src->field, sdslen(src->field));
    p->weights[0] = src->weights[0];
    p->weights[1] = src->weights[1];
    p->cycle_pos = src->cycle_pos;
    p->max_wait = src->max_wait;
    memcpy(p->cursor, src->cursor, sizeof(p->cursor));
    prioRebuildIndex(p);
    return p;
}

/* ========================================================================
 * Classifying entries
 * ===================================================================== */

/* The priority value of an entry's field value (RabbitMQ: a missing or
 * malformed priority is 4). */
static long long prioValue(const unsigned char *v, size_t vlen) {
    /* One or two digits, the usual priorities, without string2ll
     * (which agrees: no sign, no leading zero). */
    if (vlen == 1 && v[0] >= '0' && v[0] <= '9') return v[0] - '0';
    if (vlen == 2 && v[0] >= '1' && v[0] <= '9' && v[1] >= '0' && v[1] <= '9') return (v[0] - '0') * 10 + (v[1] - '0');
    long long ll;
    if (!string2ll((const char *)v, vlen, &ll)) return PRIO_DEFAULT;
    return ll;
}

static int prioClassOf(const streamPrio *p, long long value) {
    if (p->mode == PRIO_FAIR) return value >= PRIO_FAIR_HIGH_MIN ? 0 : 1;
    if (value < 0) return 0;
    if (value >= PRIO_MAX_CLASSES) return PRIO_MAX_CLASSES - 1;
    return (int)value;
}

/* The class of the entry the iterator is on (its fields not read yet),
 * decoding every field up to the priority field: any JSON form. */
static int prioClassOfCurrentDecoded(const streamPrio *p, streamIterator *si, int64_t numfields) {
    long long value = PRIO_DEFAULT;
    size_t fl = sdslen(p->field);
    while (numfields--) {
        const unsigned char *f, *v;
        size_t flen, vlen;
        streamIteratorGetField(si, &f, &flen, &v, &vlen);
        if (flen == fl && !memcmp(f, p->field, fl)) {
            value = prioValue(v, vlen); /* the first occurrence counts */
            break;
        }
    }
    return prioClassOf(p, value);
}

/* The text of the JSON string token at t, `"..."`, if it has no escape:
 * its bytes are then exactly the value. Returns the end of the token
 * (past the closing quote, *len set), or NULL for any other form (an
 * escape, or a {"base64": ...} object). */
static const char *prioPlainToken(const char *t, size_t *len) {
    if (*t != '"') return NULL;
    /* A byte loop: names and priorities are a few bytes, shorter than
     * what a vectorized strchr pays to start. */
    const char *q = t + 1;
    for (; *q != '"'; q++)
        if (*q == '\\') return NULL;
    *len = (size_t)(q - t - 1);
    return q + 1;
}

/* Whether the JSON string whose text starts at t (past its opening
 * quote) is exactly name (len bytes without '"', '\\' or control bytes).
 * Byte by byte: it stops at the first difference, at the latest at the
 * string's closing quote, never reading past it. */
static inline int prioTokenIs(const char *t, const char *name, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (t[i] != name[i]) return 0;
    return t[len] == '"';
}

/* The class of the entry the iterator is on (its fields not read yet).
 * The common case reads the entry's JSON in place: field names and the
 * value compared and parsed without decoding, stopping at the priority
 * field. An escaped or base64 field or value before it (rare: binary or
 * quoted text) sends the whole entry to the decoding path. */
static int prioClassOfCurrent(const streamPrio *p, streamIterator *si, int64_t numfields) {
    const char *fp = si->fp;
    size_t fl = sdslen(p->field);
    for (int64_t k = 0; k < numfields; k++) {
        size_t flen, vlen;
        /* The usual case first: the field is spelled plainly here. */
        if (p->field_plain && fp[0] == '"' && prioTokenIs(fp + 1, p->field, fl)) {
            const char *vend = prioPlainToken(fp + fl + 3, &vlen);
            if (!vend) return prioClassOfCurrentDecoded(p, si, numfields);
            return prioClassOf(p, prioValue((const unsigned char *)fp + fl + 4, vlen));
        }
        const char *fend = prioPlainToken(fp, &flen);
        const char *vend = fend ? prioPlainToken(fend + 1, &vlen) : NULL;
        if (!vend) return prioClassOfCurrentDecoded(p, si, numfields);
        if (flen == fl && !memcmp(fp + 1, p->field, fl))
            return prioClassOf(p, prioValue((const unsigned char *)fend + 2, vlen));
        fp = vend + 1; /* past the comma */
    }
    return prioClassOf(p, PRIO_DEFAULT);
}

/* Whether the n bytes at a and b are equal, n >= 8: 8-byte words, the
 * last one overlapping, no call (a field token is 8 to a few dozen
 * bytes, and this runs once per entry classified). */
static inline int prioBytesEqual(const char *a, const char *b, size_t n) {
    uint64_t x, y;
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return 0;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/* The class of an entry from streamIteratorGetRawBatch. The usual layout,
 * the priority field first and spelled plainly, is recognized with one
 * comparison of its token `"<field>","` (within the entry: it ends after
 * the value's opening quote, before end) and a value of one or two digits
 * read directly; any other goes to prioClassOfCurrent (si on the entry's
 * fields). */
static inline int prioClassOfRaw(const streamPrio *p, streamIterator *si, const streamRawEntry *e) {
    const char *fp = e->fields;
    size_t tl = p->toklen;
    if (tl >= 8 && e->numfields && (size_t)(e->end - fp) > tl + 1 && prioBytesEqual(fp, p->tok, tl)) {
        /* The value's text lies before end; past a digit, v[1] is its
         * next byte or closing quote, so v[2] is still inside it. */
        const char *v = fp + tl;
        if (v[0] >= '0' && v[0] <= '9') {
            if (v[1] == '"') return p->class_of[v[0] - '0'];
            if (v[0] != '0' && v[1] >= '0' && v[1] <= '9' && v[2] == '"')
                return p->class_of[(v[0] - '0') * 10 + (v[1] - '0')];
        }
    }
    si->fp = fp;
    return prioClassOfCurrent(p, si, e->numfields);
}

/* The class of one entry by ID, or -1 if it does not exist. */
static int prioClassOfID(const streamPrio *p, stream *s, const streamID *id) {
    streamIterator si;
    streamID cur;
    int64_t numfields;
    int cls = -1;
    streamIteratorStart(&si, s, id, id, 0);
    if (streamIteratorGetID(&si, &cur, &numfields)) cls = prioClassOfCurrent(p, &si, numfields);
    streamIteratorStop(&si);
    return cls;
}

/* Whether enough is queued for the schedule's next pick (see enough). */
static inline int prioEnoughQueued(const streamPrio *p) { return (p->queued & p->enough) == p->enough; }

#define PRIO_CLASSIFY_BATCH 64 /* entries read at once, between checks */

/* Classifies entries added after `scanned`, in ID order: each goes to its
 * class's queue unless that class already delivered past it. With `all`
 * every one of them; otherwise only until enough is queued for the
 * schedule's next pick (checked every PRIO_CLASSIFY_BATCH entries): in
 * fair mode an entry of each class, so that a class whose queue is empty
 * has no undelivered entry at all; in strict mode one of the top level,
 * which no later entry can pass. A queue's head is its class's oldest
 * undelivered entry since classification goes in ID order, and the
 * entries not classified yet are younger than every head (MAXWAIT's
 * oldest head). Classifying just ahead of delivery also finds the
 * entries still in the CPU caches when they are replied. */
static void prioClassify(streamPrio *p, stream *s, int all) {
    if (streamCompareID(&s->last_id, &p->scanned) < 0) {
        /* XSETID moved the stream's last ID back (the stream emptied by
         * trimming) and new entries may lie below `scanned`: classify
         * again from the lowest cursor (the cursors decide what is
         * delivered, so nothing is queued twice). Rare, and O(entries
         * above the lowest cursor). */
        prioRebuildIndex(p);
    }
    if (streamCompareID(&s->last_id, &p->scanned) <= 0) return;
    streamID start = p->scanned;
    if (streamIncrID(&start) != C_OK) return;
    streamIterator si;
    streamRawEntry batch[PRIO_CLASSIFY_BATCH];
    size_t got;
    streamIteratorStartAfter(&si, s, &start, &p->scan_hint);
    while ((got = streamIteratorGetRawBatch(&si, batch, PRIO_CLASSIFY_BATCH)) != 0) {
        for (size_t i = 0; i < got; i++) {
            const streamRawEntry *e = &batch[i];
            int cls = prioClassOfRaw(p, &si, e);
            if (streamCompareID(&e->id, &p->cursor[cls]) > 0) prioPush(p, cls, &e->id, &e->at);
        }
        p->scanned = batch[got - 1].id;
        if (!all && prioEnoughQueued(p)) {
            streamIteratorSaveHint(&si, &p->scanned, &p->scan_hint);
            streamIteratorStop(&si);
            return;
        }
    }
    streamIteratorStop(&si);
    /* Nothing is left to classify up to the stream's last ID. */
    if (streamCompareID(&s->last_id, &p->scanned) > 0) p->scanned = s->last_id;
}

/* Every entry classified (XINFO's counts, restarting the schedule). */
static void prioClassifyNew(streamPrio *p, stream *s) { prioClassify(p, s, 1); }

/* Enough classified for the schedule's next pick (see prioClassify). */
static inline void prioClassifyAhead(streamPrio *p, stream *s) {
    int cmp = streamCompareID(&p->scanned, &s->last_id);
    /* (cmp > 0: XSETID moved the last ID back, see prioClassify) */
    if (cmp > 0 || (cmp < 0 && !prioEnoughQueued(p))) prioClassify(p, s, 0);
}

static uint64_t streamRemovedCount(const stream *s) { return s->entries_added - s->length; }

/* Drops deleted IDs from every queue (XINFO's exact counts). */
static void prioPurgeDeleted(streamPrio *p, stream *s) {
    if (streamRemovedCount(s) == p->removed_seen) return;
    for (int k = 0; k < p->nclasses; k++) {
        prioQueue *q = &p->q[k], fresh = {0};
        if (!q->size) continue;
        while (q->size) {
            /* (Positions are not copied: the new chunks' epochs are
             * later than when the entries were seen.) */
            streamID id = queueHeadID(q);
            if (streamCompareID(&id, &s->first_id) >= 0 && streamEntryExists(s, &id)) queuePush(&fresh, &id, NULL);
            queuePop(q);
        }
        *q = fresh;
        if (!q->size) p->queued &= ~(1u << k);
    }
    p->removed_seen = streamRemovedCount(s);
}

/* Drops deleted IDs at the heads of the queues, so that a non-empty
 * queue has a deliverable head. Trimmed IDs (below the first entry) go
 * without a lookup. */
static void prioPurgeHeads(streamPrio *p, stream *s) {
    int check = streamRemovedCount(s) != p->removed_seen;
    if (!check) return;
    for (int k = 0; k < p->nclasses; k++) {
        prioQueue *q = &p->q[k];
        while (q->size) {
            streamID id = queueHeadID(q);
            if (s->length && streamCompareID(&id, &s->first_id) >= 0 && streamEntryExists(s, &id)) break;
            prioPop(p, k);
        }
    }
}

static uint64_t prioUndelivered(const streamPrio *p) {
    uint64_t n = 0;
    for (int k = 0; k < p->nclasses; k++) n += p->q[k].size;
    return n;
}

int streamPrioHasUndelivered(stream *s, streamCG *cg) {
    streamPrio *p = cg->prio;
    for (;;) {
        prioClassifyAhead(p, s);
        prioPurgeHeads(p, s); /* may empty a queue: classify further */
        if (prioEnoughQueued(p) || streamCompareID(&p->scanned, &s->last_id) >= 0) break;
    }
    return p->queued != 0;
}

int streamPrioIsUndelivered(stream *s, streamCG *cg, const streamID *id) {
    streamPrio *p = cg->prio;
    int cls = prioClassOfID(p, s, id);
    return cls >= 0 && streamCompareID(id, &p->cursor[cls]) > 0;
}

/* Exact number of undelivered entries (XINFO lag). */
long long streamPrioLag(stream *s, streamCG *cg) {
    streamPrio *p = cg->prio;
    prioClassifyNew(p, s);
    prioPurgeDeleted(p, s);
    return (long long)prioUndelivered(p);
}

/* ========================================================================
 * The schedule
 * ===================================================================== */

/* The class to serve next and, for fair mode, the cycle position after
 * it (*next_pos); -1 if every queue is empty. Changes nothing. */
static int prioPickClass(const streamPrio *p, uint32_t *next_pos) {
    *next_pos = p->cycle_pos;
    if (p->mode == PRIO_FAIR) {
        /* (no division on this per-entry path: cycle_pos < total) */
        uint32_t total = p->weights[0] + p->weights[1];
        uint32_t pos = p->cycle_pos < total ? p->cycle_pos : p->cycle_pos % total;
        int cls = pos < p->weights[0] ? 0 : 1;
        if (p->queued & (1u << cls)) {
            *next_pos = pos + 1 == total ? 0 : pos + 1;
            return cls;
        }
        /* The slot's class is empty: its remaining slots are skipped, the
         * first slot of the other class serves. */
        cls ^= 1;
        if (!p->queued) return -1;
        uint32_t slot = cls == 1 ? p->weights[0] : 0;
        *next_pos = slot + 1 == total ? 0 : slot + 1;
        return cls;
    }
    /* Strict: the starvation guard first, then the highest level. */
    if (!p->queued) return -1;
    if (p->max_wait) {
        long long now = commandTimeSnapshot();
        int oldest = -1;
        streamID oldest_id = {0, 0};
        for (uint32_t m = p->queued; m; m &= m - 1) {
            int k = __builtin_ctz(m);
            streamID h = queueHeadID(&p->q[k]);
            if (oldest < 0 || streamCompareID(&h, &oldest_id) < 0) {
                oldest = k;
                oldest_id = h;
            }
        }
        if (now - (long long)oldest_id.ms > p->max_wait) return oldest;
    }
    return 31 - __builtin_clz(p->queued);
}

/* Delivers up to count entries (0: all) by the schedule, as XREADGROUP
 * ">" does: [[id, [f, v, ...]], ...] (STREAM_RWR_RAWENTRIES: without the
 * array header; STREAM_RWR_CLAIM_META: XREADGROUP CLAIM's 4-element
 * entries), each entering the PELs unless STREAM_RWR_NOACK, stopping early
 * when a MAXSIZE budget is spent. Returns the number sent. */
size_t streamPrioDeliver(client *c, stream *s, streamCG *cg, streamConsumer *consumer, size_t count, int flags) {
    streamPrio *p = cg->prio;
    int noack = flags & STREAM_RWR_NOACK, meta = flags & STREAM_RWR_CLAIM_META;
    void *lenp = (flags & STREAM_RWR_RAWENTRIES) ? NULL : addReplyDeferredLen(c);
    size_t sent = 0;
    long long now = commandTimeSnapshot();
    prioClassifyAhead(p, s);
    while (!count || sent < count) {
        uint32_t next_pos;
        /* (The stream does not change here: scanned stays at most its
         * last ID after the first call.) */
        if (!prioEnoughQueued(p)) prioClassifyAhead(p, s);
        int cls = prioPickClass(p, &next_pos);
        if (cls < 0) break;
        streamID id = queueHeadID(&p->q[cls]);
        streamEntryPos at;
        queueHeadPos(&p->q[cls], &at);
        prioPop(p, cls);
        p->cursor[cls] = id;
        if (!streamReplyWithEntry(c, s, &id, &p->hint[cls], &at, meta))
            continue; /* deleted since it was classified */
        p->cycle_pos = next_pos;
        if (streamCompareID(&id, &cg->last_id) > 0) cg->last_id = id;
        if (!noack) {
            streamNACK *nack = streamCreateNACK(consumer);
            void *existing = NULL;
            if (!idtreeInsert(&cg->pel, &id, nack, &existing)) {
                /* Delivered before, then SETID moved the group back. */
                streamFreeNACK(nack);
                nack = existing;
                streamNACKDetach(cg, nack, &id);
                nack->consumer = consumer;
                nack->delivery_time = now;
                nack->delivery_count = 1;
            }
            streamPelNoteTime(cg, nack->delivery_time);
            idtreeInsert(&consumer->pel, &id, nack, NULL);
        }
        consumer->active_time = now;
        sent++;
        if (streamReplyBudgetExhausted(c)) break; /* MAXSIZE */
    }
    if (lenp) setDeferredArrayLen(c, lenp, (long)sent);
    return sent;
}

/* ========================================================================
 * Settings: XGROUP PRIORITY and XGROUP CREATE ... PRIORITY
 * ===================================================================== */

/* Parses "OFF | FAIR [WEIGHTS high normal] | STRICT [MAXWAIT ms]
 * [FIELD name]" from argv[*j]; on success *j is past the last argument
 * used (options may come in any order; parsing stops at the first word
 * that is not one of them, so XGROUP CREATE may go on with MKSTREAM). */
int streamPrioParseOrReply(client *c, int *j, streamPrioSpec *spec) {
    memset(spec, 0, sizeof(*spec));
    int i = *j;
    if (i >= c->argc) {
        addReplyErrorSyntax(c);
        return C_ERR;
    }
    if (!strcasecmp(c->argv[i], "OFF")) spec->mode = 0;
    else if (!strcasecmp(c->argv[i], "FAIR")) spec->mode = PRIO_FAIR;
    else if (!strcasecmp(c->argv[i], "STRICT")) spec->mode = PRIO_STRICT;
    else {
        addReplyError(c, "PRIORITY must be followed by OFF, FAIR or STRICT");
        return C_ERR;
    }
    i++;
    while (i < c->argc && spec->mode) {
        int moreargs = c->argc - i - 1;
        if (spec->mode == PRIO_FAIR && !strcasecmp(c->argv[i], "WEIGHTS") && moreargs >= 2) {
            long long w[2];
            for (int k = 0; k < 2; k++) {
                if (getLongLongFromObjectOrReply(c, c->argv[i + 1 + k], &w[k], NULL) != C_OK) return C_ERR;
                if (w[k] < 1 || w[k] > PRIO_MAX_WEIGHT) {
                    addReplyError(c, "WEIGHTS must be integers between 1 and 1000000");
                    return C_ERR;
                }
            }
            spec->weights[0] = (uint32_t)w[0];
            spec->weights[1] = (uint32_t)w[1];
            spec->has_weights = 1;
            i += 3;
        } else if (spec->mode == PRIO_STRICT && !strcasecmp(c->argv[i], "MAXWAIT") && moreargs >= 1) {
            long long ms;
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &ms, NULL) != C_OK) return C_ERR;
            if (ms < 0) {
                addReplyError(c, "MAXWAIT must be >= 0 (0: no starvation guard)");
                return C_ERR;
            }
            spec->max_wait = ms;
            spec->has_max_wait = 1;
            i += 2;
        } else if (!strcasecmp(c->argv[i], "FIELD") && moreargs >= 1) {
            if (sdslen(c->argv[i + 1]) == 0) {
                addReplyError(c, "FIELD name must not be empty");
                return C_ERR;
            }
            spec->field = c->argv[i + 1];
            i += 2;
        } else {
            break;
        }
    }
    *j = i;
    return C_OK;
}

/* The lowest undelivered ID's predecessor, or the group's last ID when
 * nothing is undelivered: where a restarted schedule (or a plain group)
 * begins so that no undelivered entry is skipped. */
static streamID prioRestartPoint(stream *s, streamCG *cg) {
    streamPrio *p = cg->prio;
    prioClassifyNew(p, s);
    prioPurgeDeleted(p, s);
    int found = 0;
    streamID low = {0, 0};
    for (int k = 0; k < p->nclasses; k++) {
        if (!p->q[k].size) continue;
        streamID h = queueHeadID(&p->q[k]);
        if (!found || streamCompareID(&h, &low) < 0) low = h;
        found = 1;
    }
    if (!found) return cg->last_id;
    streamDecrID(&low);
    return low;
}

/* Applies a parsed spec to a group: OFF turns priority off (the group's
 * last ID becomes the restart point: nothing undelivered is skipped);
 * WEIGHTS and MAXWAIT change the settings in place (WEIGHTS restarts the
 * cycle); a new mode or field restarts every class at the restart
 * point. */
void streamPrioApply(stream *s, streamCG *cg, const streamPrioSpec *spec) {
    streamPrio *p = cg->prio;
    const char *field = spec->field ? spec->field : (p ? p->field : "priority");
    size_t flen = spec->field ? sdslen(spec->field) : (p ? sdslen(p->field) : 8);
    if (!spec->mode) {
        if (!p) return;
        cg->last_id = prioRestartPoint(s, cg);
        cg->entries_read = streamEstimateDistanceFromFirstEverEntry(s, &cg->last_id);
        streamPrioFree(p);
        cg->prio = NULL;
        return;
    }
    if (!p || p->mode != spec->mode || sdslen(p->field) != flen || memcmp(p->field, field, flen)) {
        streamID start = p ? prioRestartPoint(s, cg) : cg->last_id;
        streamPrio *np = prioNew(spec->mode, field, flen);
        if (p) {
            np->weights[0] = p->weights[0];
            np->weights[1] = p->weights[1];
            np->max_wait = p->max_wait;
            streamPrioFree(p);
        }
        prioResetCursors(np, &start);
        np->removed_seen = streamRemovedCount(s);
        cg->prio = p = np;
        cg->entries_read = SCG_INVALID_ENTRIES_READ;
    }
    if (spec->has_weights) {
        p->weights[0] = spec->weights[0];
        p->weights[1] = spec->weights[1];
        p->cycle_pos = 0;
    }
    if (spec->has_max_wait) p->max_wait = spec->max_wait;
}

/* XGROUP SETID on a priority group: every class restarts after id. */
void streamPrioSetID(stream *s, streamCG *cg, const streamID *id) {
    prioResetCursors(cg->prio, id);
    cg->prio->removed_seen = streamRemovedCount(s);
}

/* ========================================================================
 * XINFO
 * ===================================================================== */

static const char *prioModeName(const streamPrio *p) { return p->mode == PRIO_FAIR ? "fair" : "strict"; }

int streamPrioInfoFieldCount(const streamCG *cg) {
    if (!cg->prio) return 0;
    return cg->prio->mode == PRIO_FAIR ? 5 : 4;
}

/* The extra fields of a priority group in XINFO GROUPS and XINFO STREAM
 * FULL (streamPrioInfoFieldCount of them): priority, priority-field,
 * weights + cycle-position (fair) or max-wait (strict), and classes: one
 * map per class (fair: high, normal; strict: every level with undelivered
 * or pending entries) with its undelivered and pending counts. */
void streamPrioReplyInfo(client *c, stream *s, streamCG *cg) {
    streamPrio *p = cg->prio;
    prioClassifyNew(p, s);
    prioPurgeDeleted(p, s);
    addReplyBulkCString(c, "priority");
    addReplyBulkCString(c, prioModeName(p));
    addReplyBulkCString(c, "priority-field");
    addReplyBulk(c, p->field, sdslen(p->field));
    if (p->mode == PRIO_FAIR) {
        addReplyBulkCString(c, "weights");
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, p->weights[0]);
        addReplyLongLong(c, p->weights[1]);
        addReplyBulkCString(c, "cycle-position");
        addReplyLongLong(c, p->cycle_pos);
    } else {
        addReplyBulkCString(c, "max-wait");
        addReplyLongLong(c, p->max_wait);
    }
    /* Pending per class: each pending entry's class (a deleted entry
     * counts as the default priority's). */
    uint64_t pending[PRIO_MAX_CLASSES] = {0};
    idtreeIter it;
    for (idtreeSeek(&it, &cg->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        int cls = prioClassOfID(p, s, idtreeIterKey(&it));
        if (cls < 0) cls = prioClassOf(p, PRIO_DEFAULT);
        pending[cls]++;
    }
    addReplyBulkCString(c, "classes");
    int shown = 0;
    for (int k = 0; k < p->nclasses; k++)
        if (p->mode == PRIO_FAIR || p->q[k].size || pending[k]) shown++;
    addReplyArrayLen(c, shown);
    for (int n = 0; n < p->nclasses; n++) {
        /* Strict levels are listed highest first, like the schedule. */
        int k = p->mode == PRIO_STRICT ? p->nclasses - 1 - n : n;
        if (p->mode == PRIO_STRICT && !p->q[k].size && !pending[k]) continue;
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "class");
        if (p->mode == PRIO_FAIR) addReplyBulkCString(c, k == 0 ? "high" : "normal");
        else addReplyLongLong(c, k);
        addReplyBulkCString(c, "undelivered");
        addReplyLongLong(c, (long long)p->q[k].size);
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)pending[k]);
    }
}

/* ========================================================================
 * The state document
 * ===================================================================== */

/* The group's "priority" object (docs/state-format.md). */
sds streamPrioCatJSON(sds out, const streamCG *cg) {
    const streamPrio *p = cg->prio;
    out = sdscatlen(out, "{\"mode\":\"", 9);
    out = sdscat(out, prioModeName(p));
    out = sdscatlen(out, "\",\"field\":", 10);
    out = jsonCatBytes(out, p->field, sdslen(p->field));
    if (p->mode == PRIO_FAIR) {
        /* (No printf: this runs at every commit of the group.) */
        out = sdscatlen(out, ",\"weights\":[", 12);
        out = jsonCatU64(out, p->weights[0]);
        out = sdscatlen(out, ",", 1);
        out = jsonCatU64(out, p->weights[1]);
        out = sdscatlen(out, "],\"cycle_pos\":", 14);
        out = jsonCatU64(out, p->cycle_pos);
    } else {
        out = sdscatlen(out, ",\"max_wait_ms\":", 15);
        out = jsonCatI64(out, p->max_wait);
    }
    out = sdscatlen(out, ",\"cursors\":[", 12);
    for (int k = 0; k < p->nclasses; k++) {
        if (k) out = sdscatlen(out, ",", 1);
        out = jsonCatStreamID(out, &p->cursor[k]);
    }
    return sdscatlen(out, "]}", 2);
}

static int prioLoadError(sds *err, const char *msg) {
    *err = sdscatprintf(sdsempty(), "priority: %s", msg);
    return C_ERR;
}

/* Loads a group's "priority" object, validating everything. */
int streamPrioFromJSON(stream *s, streamCG *cg, const cJSON *obj, sds *err) {
    sds msg = NULL;
    if (!cJSON_IsObject(obj)) return prioLoadError(err, "expected an object");
    static const char *const fields[] = {"mode", "field", "weights", "cycle_pos", "max_wait_ms", "cursors", NULL};
    if (jsonCheckFields(obj, fields, "priority", &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(obj, "mode");
    int m;
    if (cJSON_IsString(mode) && !strcmp(mode->valuestring, "fair")) m = PRIO_FAIR;
    else if (cJSON_IsString(mode) && !strcmp(mode->valuestring, "strict")) m = PRIO_STRICT;
    else return prioLoadError(err, "mode: expected \"fair\" or \"strict\"");
    sds field;
    if (jsonGetBytes(cJSON_GetObjectItemCaseSensitive(obj, "field"), &field, "priority field", &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    if (!sdslen(field)) {
        sdsfree(field);
        return prioLoadError(err, "field: must not be empty");
    }
    streamPrio *p = prioNew(m, field, sdslen(field));
    sdsfree(field);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(obj, "weights");
    const cJSON *cp = cJSON_GetObjectItemCaseSensitive(obj, "cycle_pos");
    const cJSON *mw = cJSON_GetObjectItemCaseSensitive(obj, "max_wait_ms");
    const char *bad = NULL;
    if (m == PRIO_FAIR) {
        if (mw) bad = "max_wait_ms: only for strict mode";
        else if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) != 2) bad = "weights: expected [high, normal]";
        else {
            for (int k = 0; k < 2 && !bad; k++) {
                uint64_t v;
                sds e = NULL;
                if (jsonGetU64(cJSON_GetArrayItem(w, k), &v, "weight", &e) != C_OK || v < 1 || v > PRIO_MAX_WEIGHT)
                    bad = "weights: integers between 1 and 1000000";
                else p->weights[k] = (uint32_t)v;
                if (e) sdsfree(e);
            }
        }
        if (!bad) {
            uint64_t v;
            sds e = NULL;
            if (jsonGetU64(cp, &v, "cycle_pos", &e) != C_OK || v >= (uint64_t)p->weights[0] + p->weights[1])
                bad = "cycle_pos: an integer below the sum of the weights";
            else p->cycle_pos = (uint32_t)v;
            if (e) sdsfree(e);
        }
    } else {
        if (w || cp) bad = "weights and cycle_pos: only for fair mode";
        else {
            int64_t v;
            sds e = NULL;
            if (jsonGetI64(mw, &v, "max_wait_ms", &e) != C_OK || v < 0) bad = "max_wait_ms: an integer >= 0";
            else p->max_wait = v;
            if (e) sdsfree(e);
        }
    }
    const cJSON *cur = cJSON_GetObjectItemCaseSensitive(obj, "cursors");
    if (!bad && (!cJSON_IsArray(cur) || cJSON_GetArraySize(cur) != p->nclasses))
        bad = m == PRIO_FAIR ? "cursors: expected 2 IDs" : "cursors: expected 32 IDs";
    for (int k = 0; !bad && k < p->nclasses; k++) {
        sds e = NULL;
        if (jsonGetStreamID(cJSON_GetArrayItem(cur, k), &p->cursor[k], "cursor", &e) != C_OK) bad = "cursors: bad ID";
        if (e) sdsfree(e);
    }
    if (bad) {
        streamPrioFree(p);
        return prioLoadError(err, bad);
    }
    prioRebuildIndex(p);
    /* The queues are rebuilt from live entries only: nothing to purge. */
    p->removed_seen = streamRemovedCount(s);
    cg->prio = p;
    return C_OK;
}

/* Memory of the index (MEMORY USAGE): the chunks of every queue. */
size_t streamPrioMemoryUsage(const streamCG *cg) {
    const streamPrio *p = cg->prio;
    if (!p) return 0;
    size_t n = sizeof(*p) + sdsalloc(p->field) + (p->tok ? sdsalloc(p->tok) : 0);
    for (int k = 0; k < p->nclasses; k++) {
        for (const prioChunk *ch = p->q[k].head; ch; ch = ch->next) n += sizeof(*ch);
    }
    return n;
}
