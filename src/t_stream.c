/* t_stream.c -- the stream type: entries, XADD XLEN XRANGE XREVRANGE XDEL
 * XTRIM XREAD/XREADGROUP XSETID XINFO, ID parsing, and the streams' part
 * of the state document.
 *
 * Replies, errors and edge cases follow Redis 7.2 (plus XREAD's "+" from
 * 7.4); consumer group commands live in t_stream_group.c.
 *
 * ------------------------------------------------------------------------
 * Node encoding
 * ------------------------------------------------------------------------
 * Entries are packed in nodes (streamNode) indexed by master ID. A node
 * keeps its live entries exactly as the state document writes them --
 * `["<id>",field,value,...]` joined by commas, byte strings as JSON
 * strings or {"base64":...} (docs/state-format.md) -- so a commit copies
 * each node's text as it is (design.md §6: no re-serialisation of
 * unchanged data) and the entries are held once, not twice. Beside the
 * text, a small binary index has one record per entry:
 *
 *   varint  ms-delta   id.ms - master.ms
 *   varint  seq        id.seq - master.seq if ms-delta is 0, else id.seq
 *   varint  jlen       bytes of the entry's JSON (without the comma)
 *   backlen the record's length as a varint readable backwards
 *
 * Seeks use the index only; reading an entry parses its JSON, which for
 * plain text is zero-copy (a JSON string without escapes is the bytes).
 * Deleting an entry removes its text and record at once (Redis only flags
 * it), so scans never meet tombstones.
 *
 * When to start a new node follows Redis's rule exactly -- a new listpack
 * once it holds stream-node-max-entries entries (deleted ones included) or
 * would reach stream-node-max-bytes -- using the size a Redis listpack
 * would have (emulated byte for byte from listpack's encoding, kept in
 * lp_fixed/lp_entries; the first entry's field names are kept for
 * listpack's same-fields compression). So node boundaries, and with them
 * what "~" trimming removes and XINFO's radix-tree-keys, match Redis for
 * a stream built by the same commands. They can differ after a restart
 * (nodes are rebuilt from the surviving entries) or after CONFIG SET of
 * the node limits.
 * --------------------------------------------------------------------- */
#include "t_stream.h"
#include "persist.h"
#include "segment.h"
#include "store.h"

#include <errno.h>
#include <zlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"

/* Streams larger than this per entry are refused, like Redis. */
#define STREAM_LISTPACK_MAX_SIZE (1 << 30)
/* Commands taking many IDs avoid a malloc below this many. */
#define STREAMID_STATIC_VECTOR_LEN 8

/* ========================================================================
 * Varints
 * ===================================================================== */

static inline int varintLen(uint64_t v) {
    int n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline unsigned char *varintPut(unsigned char *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline uint64_t varintGet(const unsigned char **pp) {
    const unsigned char *p = *pp;
    uint64_t v = 0;
    int shift = 0;
    while (*p & 0x80) {
        v |= (uint64_t)(*p++ & 0x7F) << shift;
        shift += 7;
    }
    v |= (uint64_t)*p++ << shift;
    *pp = p;
    return v;
}

/* A varint read from its last byte backwards: the last byte holds the low
 * 7 bits, the high bit of a byte says "more bytes before me". */
static inline unsigned char *revVarintPut(unsigned char *p, uint64_t v) {
    int len = varintLen(v);
    for (int i = 0; i < len; i++) {
        unsigned char b = (unsigned char)((v >> (7 * i)) & 0x7F);
        if (i < len - 1) b |= 0x80;
        p[len - 1 - i] = b;
    }
    return p + len;
}

static inline uint64_t revVarintGet(const unsigned char *end, int *len) {
    uint64_t v = 0;
    int i = 0;
    const unsigned char *p = end - 1;
    for (;;) {
        unsigned char b = *p;
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        i++;
        if (!(b & 0x80)) break;
        p--;
    }
    *len = i;
    return v;
}

/* ========================================================================
 * Emulated Redis listpack sizes (for Redis's node split rule)
 * ===================================================================== */

/* Bytes of listpack's back-length field for an element of l bytes. */
static inline size_t lpBacklenSize(size_t l) {
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

/* Size of an integer element (encoding + back-length). */
static size_t lpIntSize(int64_t v) {
    size_t enc;
    if (v >= 0 && v <= 127) enc = 1;
    else if (v >= -4096 && v <= 4095) enc = 2;
    else if (v >= -32768 && v <= 32767) enc = 3;
    else if (v >= -8388608 && v <= 8388607) enc = 4;
    else if (v >= -2147483648LL && v <= 2147483647LL) enc = 5;
    else enc = 9;
    return enc + lpBacklenSize(enc);
}

/* Size of a string element: listpack stores canonical integers as such. */
static size_t lpStrSize(const char *s, size_t len) {
    long long v;
    if (len > 0 && len < LONG_STR_SIZE && string2ll(s, len, &v)) return lpIntSize(v);
    size_t enc = len + (len < 64 ? 1 : len < 4096 ? 2 : 5);
    return enc + lpBacklenSize(enc);
}

static inline size_t nodeLpBytes(const streamNode *n) {
    return (size_t)n->lp_fixed + lpIntSize(n->count) + lpIntSize(n->deleted) + n->lp_entries;
}

/* ========================================================================
 * Nodes
 * ===================================================================== */

static streamNode *nodeNew(const streamID *master, sds *argv, int64_t numfields) {
    streamNode *n = zcalloc(sizeof(*n));
    n->master_id = *master;
    n->last_id = *master;
    n->json = sdsempty();
    size_t mlen = (size_t)varintLen((uint64_t)numfields);
    size_t lp = 7 + lpIntSize(numfields) + lpIntSize(0);
    for (int64_t i = 0; i < numfields; i++) {
        size_t fl = sdslen(argv[i * 2]);
        mlen += (size_t)varintLen(fl) + fl;
        lp += lpStrSize(argv[i * 2], fl);
    }
    n->master_fields = zmalloc(mlen);
    unsigned char *p = varintPut(n->master_fields, (uint64_t)numfields);
    for (int64_t i = 0; i < numfields; i++) {
        size_t fl = sdslen(argv[i * 2]);
        p = varintPut(p, fl);
        memcpy(p, argv[i * 2], fl);
        p += fl;
    }
    n->lp_fixed = (uint32_t)lp;
    return n;
}

/* The document being written may borrow a node's text (streamDocJSON),
 * and the store reads it on its own thread. Before the text changes or is
 * freed, the node takes a copy, and the document keeps the original until
 * the write is over. One copy per node and commit at most: the next change
 * finds the node unpinned. */
static void nodeUnpinText(streamNode *n) { docTextUnpin(&n->json, &n->json_pin); }

/* ------------------------------------------------------------------------
 * Sealed nodes (see streamSegment in t_stream.h)
 * --------------------------------------------------------------------- */

/* Changes with every change of any node's entries: a seal planned on a
 * node checks, when its segment is durable, that the node is as planned. */
static uint64_t nodeGenNext = 0;

static void segmentFree(streamSegment *g) {
    segmentUnregister(g->name, g->bytes);
    sdsfree(g->name);
    sdsfree(g->json);
    zfree(g->nodes);
    zfree(g);
}

/* The stream no longer uses g: the next root does not name it. */
static void streamDropSegment(stream *s, streamSegment *g) {
    for (uint32_t i = 0; i < s->nsegs; i++) {
        if (s->segs[i] != g) continue;
        memmove(s->segs + i, s->segs + i + 1, (s->nsegs - i - 1) * sizeof(*s->segs));
        s->nsegs--;
        break;
    }
    streamManifestSegmentDropped(s, g);
    segmentDropped(g->name);
    segmentFree(g);
}

static void streamMaybeWantSeal(stream *s) {
    if (!(s->seal_queued & STREAM_SEAL_QUEUED) && s->inline_bytes >= segmentSealThreshold())
        segmentStreamWantsSeal(s);
}

/* The node's sealed entries (its last piece ends them): how many, their
 * bytes of idx and of json (no comma after). */
static inline uint32_t nodeSealedCount(const streamNode *n) {
    return n->npieces ? n->pieces[n->npieces - 1].count : 0;
}
static inline uint32_t nodeSealedIdx(const streamNode *n) { return n->npieces ? n->pieces[n->npieces - 1].idx : 0; }
static inline size_t nodeSealedJson(const streamNode *n) { return n->npieces ? n->pieces[n->npieces - 1].json : 0; }

/* Where the root's part of a node's entries starts in its text: after the
 * sealed prefix and the comma that follows it. */
static inline size_t nodeInlineOffset(const streamNode *n) { return n->npieces ? nodeSealedJson(n) + 1 : 0; }

/* JSON bytes of the node's entries that the root writes. */
static inline size_t nodeInlineBytes(const streamNode *n) {
    if (!n->npieces) return sdslen(n->json);
    return n->count > nodeSealedCount(n) ? sdslen(n->json) - nodeSealedJson(n) - 1 : 0;
}

/* Where piece k of n starts: the node's entries before it, their bytes
 * of idx, and the offset of its text (after the previous piece's comma). */
static void pieceStart(const streamNode *n, uint32_t k, uint32_t *count, uint32_t *idx, size_t *json) {
    if (!k) {
        *count = *idx = 0;
        *json = 0;
        return;
    }
    const streamNodePiece *p = &n->pieces[k - 1];
    *count = p->count;
    *idx = p->idx;
    *json = p->json + 1;
}

/* The piece of n that g holds (g->nodes names n only for it). */
static const streamNodePiece *pieceIn(const streamNode *n, const streamSegment *g, uint32_t *k) {
    for (uint32_t i = 0; i < n->npieces; i++) {
        if (n->pieces[i].seg != g) continue;
        if (k) *k = i;
        return &n->pieces[i];
    }
    serverPanic("a segment names a node that has no piece in it");
}

/* Takes piece k of n out of its segment's books (the segment's record
 * changes: its live ranges stop covering those entries). Leaves n's own
 * list of pieces and the stream's inline books as they are. */
static streamSegment *segmentReleasePiece(streamNode *n, uint32_t k) {
    streamNodePiece *p = &n->pieces[k];
    streamSegment *g = p->seg;
    uint32_t c0, i0;
    size_t j0;
    pieceStart(n, k, &c0, &i0, &j0);
    g->nodes[p->slot] = NULL;
    while (g->head_dead < g->nnodes && !g->nodes[g->head_dead]) g->head_dead++;
    g->nlive--;
    g->live -= p->count - c0;
    g->live_bytes -= p->json - j0;
    sdsfree(g->json);
    g->json = NULL;
    streamManifestSegmentChanged(g);
    return g;
}

/* Takes n's first `upto` pieces out of their segments, dropping a segment
 * left empty (died: their entries are gone, not moved). The pieces after
 * them keep their places in n->pieces, from index `keep_first` on (the
 * caller puts a piece covering the released ones before them). */
static void nodeReleasePieces(stream *s, streamNode *n, uint32_t upto, uint32_t keep_first, int died) {
    streamSegment *emptied[8], **dropped = upto <= 8 ? emptied : zmalloc(sizeof(*dropped) * upto);
    uint32_t ndropped = 0;
    for (uint32_t k = 0; k < upto; k++) {
        streamSegment *g = segmentReleasePiece(n, k);
        if (died) g->died_ms = server.mstime_cache; /* a move to a new segment is not a death */
        if (g->nlive == 0) dropped[ndropped++] = g;
    }
    memmove(n->pieces + keep_first, n->pieces + upto, (n->npieces - upto) * sizeof(*n->pieces));
    n->npieces = n->npieces - upto + keep_first;
    if (!n->npieces) {
        zfree(n->pieces);
        n->pieces = NULL;
    }
    for (uint32_t i = 0; i < ndropped; i++) streamDropSegment(s, dropped[i]);
    if (dropped != emptied) zfree(dropped);
}

/* The node's entries are about to change (or go): they are no longer what
 * its segments hold, so they go back inline. */
static void nodeLeaveSegment(streamNode *n) {
    if (!n->npieces) return;
    stream *s = n->pieces[0].seg->owner;
    size_t before = nodeInlineBytes(n);
    nodeReleasePieces(s, n, n->npieces, 0, 1);
    s->inline_bytes += sdslen(n->json) - before;
    idtreeInsert(&s->inline_nodes, &n->master_id, n, NULL); /* (a partial node is there already) */
    streamMaybeWantSeal(s);
}

/* Before entries of n are removed. */
static void nodeTouch(streamNode *n) {
    nodeLeaveSegment(n);
    n->gen = ++nodeGenNext;
}

/* A node whose gen is at most the epoch of a time has kept its entries
 * where they were then (appends add records and text at the end, only
 * removals move them, and every removal gives the node a new gen above
 * every earlier epoch): a streamEntryPos taken then is still valid. */
uint64_t streamLayoutEpoch(void) { return nodeGenNext; }

/* JSON bytes of every entry appended so far (segment.c follows the rate
 * of appends per commit to size the inline tail). */
static uint64_t streamAppendedBytes;

uint64_t streamBytesAppended(void) { return streamAppendedBytes; }

/* Nodes freed so far: a streamEntryHint whose count is still current
 * points at a live node. */
static uint64_t streamNodesFreed;

static void nodeFree(void *ptr) {
    streamNode *n = ptr;
    streamNodesFreed++;
    docTextFree(n->json, n->json_pin);
    zfree(n->pieces);
    zfree(n->idx);
    zfree(n->master_fields);
    zfree(n);
}

/* Gives back growth slack: when a node stops being the tail, and after
 * deletions freed a good part of it. */
static void nodeShrinkToFit(streamNode *n) {
    nodeUnpinText(n);
    if (n->idx_alloc > n->idx_used) {
        n->idx = n->idx_used ? zrealloc(n->idx, n->idx_used) : (zfree(n->idx), NULL);
        n->idx_alloc = n->idx_used;
    }
    if (sdsavail(n->json)) n->json = sdsRemoveFreeSpace(n->json);
}

/* 1 if the entry's field names equal the node's master fields. */
static int nodeSameFields(const streamNode *n, sds *argv, int64_t numfields) {
    const unsigned char *p = n->master_fields;
    if ((int64_t)varintGet(&p) != numfields) return 0;
    for (int64_t i = 0; i < numfields; i++) {
        size_t len = (size_t)varintGet(&p);
        if (len != sdslen(argv[i * 2]) || memcmp(p, argv[i * 2], len) != 0) return 0;
        p += len;
    }
    return 1;
}

/* Appends an entry: its JSON to the text, its record to the index. The
 * entries already there stay as they are (and a sealed prefix sealed). */
static void nodeAppendEntry(streamNode *n, const streamID *id, sds *argv, int64_t numfields) {
    nodeUnpinText(n);
    if (n->count) n->json = sdscatlen(n->json, ",", 1);
    size_t start = sdslen(n->json);
    n->json = sdscatlen(n->json, "[", 1);
    n->json = jsonCatStreamID(n->json, id);
    for (int64_t i = 0; i < numfields * 2; i++) {
        n->json = sdscatlen(n->json, ",", 1);
        n->json = jsonCatBytes(n->json, argv[i], sdslen(argv[i]));
    }
    n->json = sdscatlen(n->json, "]", 1);
    uint64_t jlen = sdslen(n->json) - start;

    uint64_t msd = id->ms - n->master_id.ms;
    uint64_t seq = msd == 0 ? id->seq - n->master_id.seq : id->seq;
    size_t body = (size_t)varintLen(msd) + (size_t)varintLen(seq) + (size_t)varintLen((uint64_t)numfields) +
                  (size_t)varintLen(jlen);
    size_t need = body + (size_t)varintLen(body);
    if ((size_t)n->idx_used + need > n->idx_alloc) {
        size_t want = n->idx_alloc ? (size_t)n->idx_alloc * 2 : 64;
        while (want < (size_t)n->idx_used + need) want *= 2;
        n->idx = zrealloc(n->idx, want);
        n->idx_alloc = (uint32_t)want;
    }
    unsigned char *p = n->idx + n->idx_used;
    p = varintPut(p, msd);
    p = varintPut(p, seq);
    p = varintPut(p, (uint64_t)numfields);
    p = varintPut(p, jlen);
    p = revVarintPut(p, body);
    n->idx_used = (uint32_t)(p - n->idx);
}

/* Decodes the index record at off: the entry's ID, field count and JSON
 * length. Returns the offset of the next record. (Inlined where it runs
 * once per entry scanned: streamIteratorGetRawBatch.) */
static inline __attribute__((always_inline)) uint32_t nodeParseRecordInline(const streamNode *n, uint32_t off,
                                                                           streamID *id, int64_t *numfields,
                                                                           size_t *jlen) {
    const unsigned char *start = n->idx + off, *p = start;
    uint64_t msd = varintGet(&p);
    uint64_t seq = varintGet(&p);
    uint64_t nf = varintGet(&p);
    uint64_t jl = varintGet(&p);
    id->ms = n->master_id.ms + msd;
    id->seq = msd == 0 ? n->master_id.seq + seq : seq;
    if (numfields) *numfields = (int64_t)nf;
    if (jlen) *jlen = (size_t)jl;
    size_t body = (size_t)(p - start);
    return off + (uint32_t)(body + (size_t)varintLen(body));
}

static uint32_t nodeParseRecord(const streamNode *n, uint32_t off, streamID *id, int64_t *numfields, size_t *jlen) {
    return nodeParseRecordInline(n, off, id, numfields, jlen);
}

/* Offset of the record that ends at `end`. */
static uint32_t nodeRecordBefore(const streamNode *n, uint32_t end) {
    int blen;
    uint64_t body = revVarintGet(n->idx + end, &blen);
    return end - (uint32_t)blen - (uint32_t)body;
}

static void nodeLastEntryID(const streamNode *n, streamID *id) {
    nodeParseRecord(n, nodeRecordBefore(n, n->idx_used), id, NULL, NULL);
}

static void nodeFirstEntryID(const streamNode *n, streamID *id) { nodeParseRecord(n, 0, id, NULL, NULL); }

/* The first and the last entry of the piece of n that g holds. */
static void pieceRange(const streamNode *n, const streamSegment *g, streamID *first, streamID *last) {
    uint32_t k, c0, i0;
    size_t j0;
    const streamNodePiece *p = pieceIn(n, g, &k);
    pieceStart(n, k, &c0, &i0, &j0);
    if (first) nodeParseRecord(n, i0, first, NULL, NULL);
    if (last) nodeParseRecord(n, nodeRecordBefore(n, p->idx), last, NULL, NULL);
}

/* Removes `entries` consecutive entries: their records [rfrom, rto) and
 * their text, which starts at jfrom and spans jlen bytes (separating
 * commas excluded). */
static void nodeRemoveEntries(streamNode *n, uint32_t rfrom, uint32_t rto, size_t jfrom, size_t jlen,
                              uint32_t entries) {
    nodeTouch(n);
    n->mod_ms = server.mstime_cache;
    nodeUnpinText(n);
    memmove(n->idx + rfrom, n->idx + rto, n->idx_used - rto);
    n->idx_used -= rto - rfrom;
    size_t total = sdslen(n->json);
    size_t from = jfrom, to = jfrom + jlen;
    if (entries == n->count) {
        from = 0;
        to = total;
    } else if (to < total) {
        to++; /* the comma after */
    } else {
        from--; /* the last entries: the comma before */
    }
    memmove(n->json + from, n->json + to, total - to);
    sdssetlen(n->json, total - (to - from));
    n->count -= entries;
    n->deleted += entries;
    if (sdsavail(n->json) > 256 && sdsavail(n->json) > sdslen(n->json)) nodeShrinkToFit(n);
}

/* nodeRemoveEntries, keeping the stream's count of inline bytes. */
static void streamNodeRemoveEntries(stream *s, streamNode *n, uint32_t rfrom, uint32_t rto, size_t jfrom,
                                    size_t jlen, uint32_t entries) {
    nodeLeaveSegment(n);
    size_t before = sdslen(n->json);
    nodeRemoveEntries(n, rfrom, rto, jfrom, jlen, entries);
    s->inline_bytes -= before - sdslen(n->json);
}

/* ------------------------------------------------------------------------
 * Reading an entry's JSON (the format nodeAppendEntry writes)
 * --------------------------------------------------------------------- */

/* Decodes the JSON string escapes jsonCatString produces. */
static void unescapeJSON(sds *buf, const char *p, const char *end) {
    sdsclear(*buf);
    while (p < end) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs) bs = end;
        *buf = sdscatlen(*buf, p, (size_t)(bs - p));
        if (bs == end) break;
        char c = bs[1], out;
        p = bs + 2;
        switch (c) {
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'u': {
            unsigned v = 0;
            for (int k = 0; k < 4; k++) {
                char h = p[k];
                v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
            }
            p += 4;
            out = (char)v; /* only \u00XX is ever written */
            break;
        }
        default: out = c; /* \" \\ \/ */
        }
        *buf = sdscatlen(*buf, &out, 1);
    }
}

/* The closing quote of the JSON string whose content starts at p: the
 * first quote not escaped by an odd run of backslashes. */
static const char *jsonStringEnd(const char *p) {
    const char *q = p;
    for (;;) {
        q = strchr(q, '"');
        const char *b = q;
        while (b > p && b[-1] == '\\') b--;
        if (((q - b) & 1) == 0) return q;
        q++;
    }
}

/* Reads one byte string at *pp (a JSON string or {"base64":"..."}) and
 * moves *pp past it and its comma. Plain strings point into the text;
 * others are decoded into *buf (created on first use). */
static void readJSONBytes(const char **pp, sds *buf, const unsigned char **out, size_t *outlen) {
    const char *p = *pp;
    if (!*buf) *buf = sdsempty();
    if (*p == '{') {
        p += 11; /* {"base64":" */
        const char *q = strchr(p, '"');
        sds d = base64Decode(p, (size_t)(q - p));
        sdsclear(*buf);
        if (d) {
            *buf = sdscatlen(*buf, d, sdslen(d));
            sdsfree(d);
        }
        *out = (const unsigned char *)*buf;
        *outlen = sdslen(*buf);
        p = q + 2; /* "} */
    } else {
        p++;
        const char *q = jsonStringEnd(p);
        size_t len = q > p ? (size_t)(q - p) : 0;
        if (!memchr(p, '\\', len)) {
            *out = (const unsigned char *)p;
            *outlen = len;
        } else {
            unescapeJSON(buf, p, q);
            *out = (const unsigned char *)*buf;
            *outlen = sdslen(*buf);
        }
        p = q + 1;
    }
    if (*p == ',') p++;
    *pp = p;
}

/* The first field of the entry whose JSON starts at p: past `["<id>",`. */
static inline const char *entryFields(const char *p) { return strchr(p + 2, '"') + 2; }

/* ========================================================================
 * Streams
 * ===================================================================== */

stream *streamNew(void) {
    stream *s = zcalloc(sizeof(*s));
    idtreeInit(&s->nodes);
    idtreeInit(&s->inline_nodes);
    return s;
}

void freeStream(stream *s) {
    if (!s) return;
    if (s->seal_queued) segmentStreamFreed(s);
    idtreeClear(&s->inline_nodes, NULL);
    idtreeClear(&s->nodes, nodeFree);
    for (uint32_t i = 0; i < s->nsegs; i++) {
        segmentDropped(s->segs[i]->name);
        segmentFree(s->segs[i]);
    }
    zfree(s->segs);
    streamManifestsFree(s);
    for (size_t i = 0; i < s->num_cgroups; i++) streamFreeCG(s->cgroups[i]);
    zfree(s->cgroups);
    streamIdmpFree(s->idmp);
    zfree(s->log_dels);
    zfree(s);
}

unsigned long streamLength(const robj *o) { return ((const stream *)o->ptr)->length; }

size_t streamMemoryUsage(const stream *s) {
    size_t sum = zmalloc_size((void *)s) + idtreeMemoryUsage(&s->nodes) + idtreeMemoryUsage(&s->inline_nodes);
    idtreeIter it;
    for (idtreeSeek(&it, &s->nodes, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNode *n = idtreeIterVal(&it);
        sum += zmalloc_size(n) + sdsAllocSize(n->json) + zmalloc_size(n->idx) + zmalloc_size(n->master_fields);
    }
    for (size_t i = 0; i < s->num_cgroups; i++) {
        streamCG *cg = s->cgroups[i];
        sum += zmalloc_size(cg) + idtreeMemoryUsage(&cg->pel) + idtreeSize(&cg->pel) * sizeof(streamNACK);
        sum += streamPrioMemoryUsage(cg);
        for (size_t j = 0; j < cg->num_consumers; j++)
            sum += zmalloc_size(cg->consumers[j]) + idtreeMemoryUsage(&cg->consumers[j]->pel);
    }
    return sum + streamIdmpMemoryUsage(s->idmp);
}

static size_t nodeAllocSize(const streamNode *n) {
    return zmalloc_size((void *)n) + sdsAllocSize(n->json) + zmalloc_size(n->idx) + zmalloc_size(n->master_fields) +
           zmalloc_size(n->pieces);
}

/* MEMORY USAGE: Redis's objectComputeSize for streams, on casq's own
 * structures. The first `samples` nodes are measured and their average
 * stands for every node but the last, which is measured (it is often the
 * partly filled one); with fewer nodes than samples every node is
 * measured. Consumer groups are counted in full: the group, its PEL tree
 * and NACKs, each consumer with its name and PEL tree. */
size_t streamObjectComputeSize(const stream *s, long long samples) {
    size_t asize = zmalloc_size((void *)s) + idtreeMemoryUsage(&s->nodes);
    idtreeIter it;
    size_t nodesize = 0;
    long long sampled = 0;
    uint64_t numele = idtreeSize(&s->nodes);
    for (idtreeSeek(&it, &s->nodes, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it) && sampled < samples;
         idtreeIterNext(&it)) {
        nodesize += nodeAllocSize(idtreeIterVal(&it));
        sampled++;
    }
    if (numele <= (uint64_t)sampled) {
        asize += nodesize;
    } else {
        if (sampled) nodesize /= (size_t)sampled;
        asize += nodesize * (size_t)(numele - 1);
        idtreeSeek(&it, &s->nodes, IDTREE_SEEK_LAST, NULL);
        asize += nodeAllocSize(idtreeIterVal(&it));
    }
    asize += zmalloc_size(s->cgroups);
    for (size_t i = 0; i < s->num_cgroups; i++) {
        const streamCG *cg = s->cgroups[i];
        asize += zmalloc_size((void *)cg) + sdsAllocSize(cg->name) + idtreeMemoryUsage(&cg->pel);
        asize += streamPrioMemoryUsage(cg);
        void *nack;
        if (idtreeFirst(&cg->pel, NULL, &nack)) asize += zmalloc_size(nack) * (size_t)idtreeSize(&cg->pel);
        asize += zmalloc_size(cg->consumers);
        for (size_t j = 0; j < cg->num_consumers; j++) {
            const streamConsumer *sc = cg->consumers[j];
            /* NACKs are shared with the group PEL: not counted again. */
            asize += zmalloc_size((void *)sc) + sdsAllocSize(sc->name) + idtreeMemoryUsage(&sc->pel);
            if (sc->json_name) asize += sdsAllocSize(sc->json_name);
        }
    }
    return asize + streamIdmpMemoryUsage(s->idmp);
}

/* Bytes of a node's master_fields record (varint n, n x (varint len, bytes)). */
static size_t masterFieldsLen(const unsigned char *mf) {
    const unsigned char *p = mf;
    uint64_t n = varintGet(&p);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t l = varintGet(&p);
        p += l;
    }
    return (size_t)(p - mf);
}

static streamNode *nodeDup(const streamNode *src) {
    streamNode *n = zmalloc(sizeof(*n));
    *n = *src;
    n->json = sdsdup(src->json);
    n->json_pin = 0;
    n->pieces = NULL; /* a copy writes its own segments */
    n->npieces = 0;
    n->idx = NULL;
    if (src->idx_alloc) {
        n->idx = zmalloc(src->idx_alloc);
        memcpy(n->idx, src->idx, src->idx_used);
    }
    size_t mlen = masterFieldsLen(src->master_fields);
    n->master_fields = zmalloc(mlen);
    memcpy(n->master_fields, src->master_fields, mlen);
    return n;
}

/* A deep, independent copy (COPY): the same nodes (so XINFO STREAM FULL
 * and MEMORY USAGE see the same layout, as Redis's streamDup copies its
 * listpacks), the same metadata, and every consumer group with its
 * consumers (seen/active times) and pending entries (delivery time and
 * count, owner), the NACKs shared between group and consumer PELs as in
 * the original. */
stream *streamDup(const stream *src) {
    stream *s = streamNew();
    idtreeIter it;
    for (idtreeSeek(&it, &src->nodes, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNode *n = nodeDup(idtreeIterVal(&it));
        idtreeInsert(&s->nodes, idtreeIterKey(&it), n, NULL);
        idtreeInsert(&s->inline_nodes, idtreeIterKey(&it), n, NULL);
    }
    s->length = src->length;
    s->last_id = src->last_id;
    s->first_id = src->first_id;
    s->max_deleted_entry_id = src->max_deleted_entry_id;
    s->entries_added = src->entries_added;
    for (idtreeSeek(&it, &s->nodes, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it))
        s->inline_bytes += sdslen(((streamNode *)idtreeIterVal(&it))->json);
    streamMaybeWantSeal(s);
    for (size_t i = 0; i < src->num_cgroups; i++) {
        const streamCG *scg = src->cgroups[i];
        streamCG *cg = streamCreateCG(s, scg->name, sdslen(scg->name), &scg->last_id, scg->entries_read);
        cg->created = scg->created;
        cg->prio = streamPrioDup(scg->prio);
        if (scg->dlq_key) cg->dlq_key = sdsdup(scg->dlq_key);
        cg->dlq_max = scg->dlq_max;
        cg->dlq_count = scg->dlq_count;
        cg->nack_zone_len = scg->nack_zone_len;
        cg->nack_seq_next = scg->nack_seq_next;
        for (size_t j = 0; j < scg->num_consumers; j++) {
            const streamConsumer *sc = scg->consumers[j];
            streamConsumer *consumer = streamCreateConsumer(cg, sc->name);
            consumer->seen_time = sc->seen_time;
            consumer->active_time = sc->active_time;
        }
        idtreeIter pi;
        for (idtreeSeek(&pi, &scg->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&pi); idtreeIterNext(&pi)) {
            const streamNACK *snack = idtreeIterVal(&pi);
            streamConsumer *owner = snack->consumer ? streamLookupConsumer(cg, snack->consumer->name) : NULL;
            streamNACK *nack = streamCreateNACK(owner);
            nack->delivery_time = snack->delivery_time;
            nack->delivery_count = snack->delivery_count;
            nack->nack_seq = snack->nack_seq;
            idtreeInsert(&cg->pel, idtreeIterKey(&pi), nack, NULL);
            streamPelNoteTime(cg, nack->delivery_time);
            if (owner) idtreeInsert(&owner->pel, idtreeIterKey(&pi), nack, NULL);
        }
    }
    s->cg_created = src->cg_created;
    s->idmp = streamIdmpDup(src->idmp);
    return s;
}

/* ========================================================================
 * IDs
 * ===================================================================== */

/* Sets id to its successor; wraps to 0-0 and returns C_ERR past the max. */
int streamIncrID(streamID *id) {
    if (id->seq == UINT64_MAX) {
        if (id->ms == UINT64_MAX) {
            id->ms = id->seq = 0;
            return C_ERR;
        }
        id->ms++;
        id->seq = 0;
    } else {
        id->seq++;
    }
    return C_OK;
}

/* Sets id to its predecessor; wraps to the max and returns C_ERR at 0-0. */
int streamDecrID(streamID *id) {
    if (id->seq == 0) {
        if (id->ms == 0) {
            id->ms = id->seq = UINT64_MAX;
            return C_ERR;
        }
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        id->seq--;
    }
    return C_OK;
}

/* The ID "*" generates: the current time, or the last ID plus one when the
 * clock has not moved past it. */
static void streamNextID(const streamID *last_id, streamID *new_id) {
    uint64_t ms = (uint64_t)commandTimeSnapshot();
    if (ms > last_id->ms) {
        new_id->ms = ms;
        new_id->seq = 0;
    } else {
        *new_id = *last_id;
        streamIncrID(new_id);
    }
}

static int streamIDToString(char *buf, size_t len, const streamID *id) {
    int n = ull2string(buf, len, id->ms);
    buf[n++] = '-';
    n += ull2string(buf + n, len - (size_t)n, id->seq);
    return n;
}

static sds createStreamIDString(const streamID *id) {
    char buf[48];
    int n = streamIDToString(buf, sizeof(buf), id);
    return sdsnewlen(buf, (size_t)n);
}

void addReplyStreamID(client *c, const streamID *id) {
    char buf[48];
    int n = streamIDToString(buf, sizeof(buf), id);
    addReplyBulk(c, buf, (size_t)n);
}

/* ========================================================================
 * Appending
 * ===================================================================== */

/* Adds an entry with numfields field/value pairs from argv. The ID is
 * generated ("*") unless use_id is given; with seq_given 0 only use_id's
 * milliseconds count and the sequence is picked (the "<ms>-*" form).
 * Returns C_ERR with errno EDOM if the ID is not above the stream's last
 * ID, ERANGE if the entry is too large. */
static int streamAppendEntry(stream *s, sds *argv, int64_t numfields, streamID *added_id, const streamID *use_id,
                             int seq_given, int force_new_node);

int streamAppendItem(stream *s, sds *argv, int64_t numfields, streamID *added_id, const streamID *use_id,
                     int seq_given) {
    return streamAppendEntry(s, argv, numfields, added_id, use_id, seq_given, 0);
}

/* streamAppendItem; force_new_node starts a new node whatever Redis's rule
 * says (loading: a node holds the entries of one source only). */
static int streamAppendEntry(stream *s, sds *argv, int64_t numfields, streamID *added_id, const streamID *use_id,
                             int seq_given, int force_new_node) {
    streamID id;
    if (use_id) {
        if (seq_given) {
            id = *use_id;
        } else if (s->last_id.ms == use_id->ms) {
            if (s->last_id.seq == UINT64_MAX) {
                errno = EDOM;
                return C_ERR;
            }
            id = s->last_id;
            id.seq++;
        } else {
            id = *use_id;
        }
    } else {
        streamNextID(&s->last_id, &id);
    }
    if (streamCompareID(&id, &s->last_id) <= 0) {
        errno = EDOM;
        return C_ERR;
    }

    size_t totelelen = 0;
    for (int64_t i = 0; i < numfields * 2; i++) totelelen += sdslen(argv[i]);
    if (totelelen > STREAM_LISTPACK_MAX_SIZE) {
        errno = ERANGE;
        return C_ERR;
    }

    /* Redis's rule for switching to a new node. */
    streamNode *n = NULL;
    idtreeLast(&s->nodes, NULL, (void **)&n);
    if (n) {
        size_t max_bytes = (size_t)server.cfg.stream_node_max_bytes;
        if (max_bytes == 0 || max_bytes > STREAM_LISTPACK_MAX_SIZE) max_bytes = STREAM_LISTPACK_MAX_SIZE;
        int new_node = force_new_node;
        if (nodeLpBytes(n) + totelelen >= max_bytes) new_node = 1;
        else if (server.cfg.stream_node_max_entries &&
                 (long long)n->count + n->deleted >= server.cfg.stream_node_max_entries)
            new_node = 1;
        if (new_node) {
            nodeShrinkToFit(n);
            n = NULL;
        }
    }
    int same;
    if (!n) {
        n = nodeNew(&id, argv, numfields);
        idtreeInsert(&s->nodes, &id, n, NULL);
        idtreeInsert(&s->inline_nodes, &id, n, NULL);
        same = 1;
    } else {
        same = nodeSameFields(n, argv, numfields);
    }

    /* The listpack bytes Redis would have used for this entry. */
    size_t lp = lpIntSize(same ? 2 : 0) + lpIntSize((int64_t)(id.ms - n->master_id.ms)) +
                lpIntSize((int64_t)(id.seq - n->master_id.seq));
    if (!same) lp += lpIntSize(numfields);
    for (int64_t i = 0; i < numfields; i++) {
        if (!same) lp += lpStrSize(argv[i * 2], sdslen(argv[i * 2]));
        lp += lpStrSize(argv[i * 2 + 1], sdslen(argv[i * 2 + 1]));
    }
    lp += lpIntSize(numfields + 3 + (same ? 0 : numfields + 1));

    size_t before = nodeInlineBytes(n), jbefore = sdslen(n->json);
    nodeAppendEntry(n, &id, argv, numfields); /* (a sealed prefix stays sealed) */
    n->count++;
    n->last_id = id;
    n->lp_entries += (uint32_t)lp;
    s->inline_bytes += nodeInlineBytes(n) - before;
    if (!server.loading) streamAppendedBytes += sdslen(n->json) - jbefore;
    if (n->npieces && n->count == nodeSealedCount(n) + 1) idtreeInsert(&s->inline_nodes, &n->master_id, n, NULL);

    s->length++;
    /* entries_added is a long long in every reply and XSETID: it stops at
     * LLONG_MAX rather than leave the range the loader accepts. */
    if (s->entries_added < (uint64_t)LLONG_MAX) s->entries_added++;
    s->last_id = id;
    if (s->length == 1) s->first_id = id;
    if (added_id) *added_id = id;
    streamMaybeWantSeal(s);
    return C_OK;
}

/* ========================================================================
 * Iterating
 * ===================================================================== */

/* Iterates the entries with IDs in [start, end] (NULL: open), forwards or
 * in reverse:
 *
 *   streamIteratorStart(&si, s, &start, &end, 0);
 *   while (streamIteratorGetID(&si, &id, &numfields))
 *       while (numfields--) streamIteratorGetField(&si, &f, &flen, &v, &vlen);
 *   streamIteratorStop(&si);
 *
 * The stream must not change while iterating. */
void streamIteratorStart(streamIterator *si, stream *s, const streamID *start, const streamID *end, int rev) {
    static const streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    si->s = s;
    si->start = start ? *start : min;
    si->end = end ? *end : max;
    si->rev = rev;
    si->node = NULL;
    si->pos = 0;
    si->jpos = 0;
    si->fp = NULL;
    si->field_buf = si->value_buf = NULL;
    if (!rev) {
        idtreeSeek(&si->ni, &s->nodes, IDTREE_SEEK_LE, &si->start);
        if (!idtreeIterValid(&si->ni)) idtreeSeek(&si->ni, &s->nodes, IDTREE_SEEK_FIRST, NULL);
    } else {
        idtreeSeek(&si->ni, &s->nodes, IDTREE_SEEK_LE, &si->end);
    }
}

int streamIteratorGetID(streamIterator *si, streamID *id, int64_t *numfields) {
    for (;;) {
        if (!si->node) {
            if (!idtreeIterValid(&si->ni)) return 0;
            si->node = idtreeIterVal(&si->ni);
            si->pos = si->rev ? si->node->idx_used : 0;
            si->jpos = si->rev ? sdslen(si->node->json) + 1 : 0;
        }
        streamNode *n = si->node;
        size_t jlen, entry;
        if (!si->rev) {
            if (si->pos >= n->idx_used) {
                idtreeIterNext(&si->ni);
                si->node = NULL;
                continue;
            }
            si->pos = nodeParseRecord(n, si->pos, id, numfields, &jlen);
            entry = si->jpos;
            si->jpos += jlen + 1;
            if (streamCompareID(id, &si->start) < 0) continue;
            if (streamCompareID(id, &si->end) > 0) return 0;
        } else {
            if (si->pos == 0) {
                idtreeIterPrev(&si->ni);
                si->node = NULL;
                continue;
            }
            si->pos = nodeRecordBefore(n, si->pos);
            nodeParseRecord(n, si->pos, id, numfields, &jlen);
            entry = si->jpos - 1 - jlen;
            si->jpos = entry;
            if (streamCompareID(id, &si->end) > 0) continue;
            if (streamCompareID(id, &si->start) < 0) return 0;
        }
        si->fp = entryFields(n->json + entry);
        return 1;
    }
}

/* The next entries of a forward walk (rev 0), up to max of them, for
 * scanners that read each entry's JSON in place (priority classification,
 * t_stream_prio.c): each one's ID, field count, first field and closing
 * ']' (everything a scanner reads lies before it), and its offsets in
 * its node. Returns how many were written, 0 at the end of the range.
 * Within a node, past the range's start, records are read without the
 * iterator's general checks and no call per entry: this runs once for
 * every entry classified. si->fp is left at the last entry's fields. */
size_t streamIteratorGetRawBatch(streamIterator *si, streamRawEntry *out, size_t max) {
    size_t got = 0;
    while (got < max) {
        streamNode *n = si->node;
        streamRawEntry *e = &out[got];
        size_t jlen;
        if (n && si->pos < n->idx_used) {
            uint32_t rec = si->pos;
            si->pos = nodeParseRecordInline(n, rec, &e->id, &e->numfields, &jlen);
            if (streamCompareID(&e->id, &si->end) > 0) break;
            const char *entry = n->json + si->jpos;
            e->at.rec = si->jpos < STREAM_POS_UNKNOWN ? rec : STREAM_POS_UNKNOWN;
            e->at.text = (uint32_t)si->jpos;
            si->jpos += jlen + 1;
            e->fields = entryFields(entry);
            e->end = entry + jlen - 1;
            got++;
            continue;
        }
        /* The first entry of a node: the general step, then its offsets
         * from its record (the one just before si->pos). */
        if (!streamIteratorGetID(si, &e->id, &e->numfields)) break;
        n = si->node;
        uint32_t rec = nodeRecordBefore(n, si->pos);
        streamID cur;
        nodeParseRecord(n, rec, &cur, NULL, &jlen);
        size_t text = si->jpos - jlen - 1; /* jpos: past the entry and its comma */
        e->at.rec = text < STREAM_POS_UNKNOWN ? rec : STREAM_POS_UNKNOWN;
        e->at.text = (uint32_t)text;
        e->fields = si->fp;
        e->end = n->json + si->jpos - 2;
        got++;
    }
    if (got) si->fp = out[got - 1].fields;
    return got;
}

/* streamIteratorStart(si, s, start, NULL, 0), resuming where a walk that
 * ended with the entry just before start left off (streamIteratorSaveHint)
 * when that still holds: its node alive, unchanged, and the one start
 * falls in. A walk resumed often (classification, a batch at a time)
 * then does not scan its node again from the start to find its place. */
void streamIteratorStartAfter(streamIterator *si, stream *s, const streamID *start, const streamEntryHint *hint) {
    streamIteratorStart(si, s, start, NULL, 0);
    if (!hint || !hint->node || hint->freed != streamNodesFreed || !idtreeIterValid(&si->ni)) return;
    streamNode *n = idtreeIterVal(&si->ni);
    streamID next = hint->id;
    if (n != hint->node || n->gen != hint->gen || streamIncrID(&next) != C_OK || streamCompareID(&next, start) != 0)
        return;
    si->node = n;
    si->pos = hint->pos;
    si->jpos = hint->jpos;
}

/* Where a forward walk stands after returning the entry last (see
 * streamIteratorStartAfter). */
void streamIteratorSaveHint(const streamIterator *si, const streamID *last, streamEntryHint *hint) {
    hint->node = si->node;
    if (!si->node) return;
    hint->gen = si->node->gen;
    hint->freed = streamNodesFreed;
    hint->pos = si->pos;
    hint->jpos = si->jpos;
    hint->id = *last;
}

/* The next field and value of the current entry. The pointers stay valid
 * until the next call (or the next entry). */
void streamIteratorGetField(streamIterator *si, const unsigned char **field, size_t *flen, const unsigned char **value,
                            size_t *vlen) {
    readJSONBytes(&si->fp, &si->field_buf, field, flen);
    readJSONBytes(&si->fp, &si->value_buf, value, vlen);
}

void streamIteratorStop(streamIterator *si) {
    if (si->field_buf) sdsfree(si->field_buf);
    if (si->value_buf) sdsfree(si->value_buf);
    si->field_buf = si->value_buf = NULL;
}

/* Where the entry with this ID is: its node, its index record [*roff,
 * *rend) and its text [*joff, *joff + *jlen). Returns 0 if absent. */
static int streamFindEntry(stream *s, const streamID *id, streamNode **node, uint32_t *roff, uint32_t *rend,
                           size_t *joff, size_t *jlen) {
    idtreeIter it;
    idtreeSeek(&it, &s->nodes, IDTREE_SEEK_LE, id);
    if (!idtreeIterValid(&it)) return 0;
    streamNode *n = idtreeIterVal(&it);
    uint32_t pos = 0;
    size_t jpos = 0;
    while (pos < n->idx_used) {
        streamID cur;
        size_t len;
        uint32_t next = nodeParseRecord(n, pos, &cur, NULL, &len);
        int cmp = streamCompareID(&cur, id);
        if (cmp == 0) {
            *node = n;
            *roff = pos;
            *rend = next;
            *joff = jpos;
            *jlen = len;
            return 1;
        }
        if (cmp > 0) return 0;
        pos = next;
        jpos += len + 1;
    }
    return 0;
}

int streamEntryExists(stream *s, const streamID *id) {
    streamNode *n;
    uint32_t roff, rend;
    size_t joff, jlen;
    return streamFindEntry(s, id, &n, &roff, &rend, &joff, &jlen);
}

int streamLastValidID(stream *s, streamID *id) {
    streamNode *n;
    if (!s->length || !idtreeLast(&s->nodes, NULL, (void **)&n)) return 0;
    nodeLastEntryID(n, id);
    return 1;
}

int streamFirstValidID(stream *s, streamID *id) {
    streamNode *n;
    if (!s->length || !idtreeFirst(&s->nodes, NULL, (void **)&n)) return 0;
    nodeFirstEntryID(n, id);
    return 1;
}

/* ========================================================================
 * Deleting and trimming
 * ===================================================================== */

static void streamRemoveNode(stream *s, streamNode *n) {
    nodeLeaveSegment(n);
    s->inline_bytes -= sdslen(n->json);
    idtreeRemove(&s->inline_nodes, &n->master_id, NULL);
    idtreeRemove(&s->nodes, &n->master_id, NULL);
    nodeFree(n);
}

/* Deletes the entry with this ID; returns 1 if it existed. */
int streamDeleteItem(stream *s, const streamID *id) {
    streamNode *n;
    uint32_t roff, rend;
    size_t joff, jlen;
    if (!streamFindEntry(s, id, &n, &roff, &rend, &joff, &jlen)) return 0;
    streamNodeRemoveEntries(s, n, roff, rend, joff, jlen, 1);
    s->length--;
    streamLogNoteHole(s, id);
    if (n->count == 0) streamRemoveNode(s, n);
    return 1;
}

#define TRIM_STRATEGY_NONE 0
#define TRIM_STRATEGY_MAXLEN 1
#define TRIM_STRATEGY_MINID 2

/* What removing an entry does to the groups' references to it (Redis
 * 8.2's KEEPREF / DELREF / ACKED of XADD, XTRIM, XDELEX, XACKDEL). */
#define STREAM_REF_KEEPREF 0 /* remove the entry, leave pending entries (XDEL) */
#define STREAM_REF_DELREF 1  /* ... and drop them from every group's PEL */
#define STREAM_REF_ACKED 2   /* remove only entries no group needs any more */

/* Reply codes of XDELEX / XACKDEL for one ID. */
#define STREAM_DEL_NOTFOUND (-1)
#define STREAM_DEL_DELETED 1
#define STREAM_DEL_REFERENCED 2

typedef struct streamAddTrimArgs {
    streamID id;               /* XADD: the ID given (id_given) */
    int id_given;              /* XADD: an ID other than "*" */
    int seq_given;             /* XADD: the ID was not "<ms>-*" */
    int no_mkstream;           /* XADD NOMKSTREAM */
    int trim_strategy;         /* TRIM_STRATEGY_* */
    int approx_trim;           /* "~": remove whole nodes only */
    long long limit;           /* most entries to remove, 0 = no limit */
    long long maxlen;          /* MAXLEN */
    streamID minid;            /* MINID */
    int ref_policy;            /* STREAM_REF_*: KEEPREF (default), DELREF, ACKED */
    sds idmp_pid;              /* XADD IDMP / IDMPAUTO producer id (argv), or NULL */
    sds idmp_iid;              /* XADD IDMP idempotent id (argv), NULL with IDMPAUTO */
} streamAddTrimArgs;

static int64_t streamTrimAcked(stream *s, const streamAddTrimArgs *args);

/* Drops the groups' references to the entries of node n at index records
 * [from, to) (DELREF), before they are removed. */
static void nodeDelEntryRefs(stream *s, streamNode *n, uint32_t from, uint32_t to) {
    if (!s->num_cgroups) return;
    while (from < to) {
        streamID id;
        from = nodeParseRecord(n, from, &id, NULL, NULL);
        streamDelEntryRefs(s, &id);
    }
}

/* Trims from the head as Redis does: whole nodes while they can go, then
 * (exact trimming only) single entries of the first remaining node.
 * Returns the number of entries removed. */
static int64_t streamTrim(stream *s, const streamAddTrimArgs *args) {
    if (args->trim_strategy == TRIM_STRATEGY_NONE) return 0;
    if (args->ref_policy == STREAM_REF_ACKED && s->num_cgroups) return streamTrimAcked(s, args);
    int delref = args->ref_policy == STREAM_REF_DELREF;
    int64_t deleted = 0;
    streamNode *n;
    while (idtreeFirst(&s->nodes, NULL, (void **)&n)) {
        if (args->trim_strategy == TRIM_STRATEGY_MAXLEN && s->length <= (uint64_t)args->maxlen) break;
        int64_t entries = n->count;
        if (args->limit && deleted + entries > args->limit) break;
        int remove_node;
        if (args->trim_strategy == TRIM_STRATEGY_MAXLEN)
            remove_node = s->length - (uint64_t)entries >= (uint64_t)args->maxlen;
        else
            remove_node = streamCompareID(&n->last_id, &args->minid) < 0;
        if (remove_node) {
            if (delref) nodeDelEntryRefs(s, n, 0, n->idx_used);
            s->length -= (uint64_t)entries;
            deleted += entries;
            streamRemoveNode(s, n);
            continue;
        }
        if (args->approx_trim) break;

        /* Remove single entries from the head of this node. */
        uint32_t pos = 0, k = 0;
        size_t text = 0; /* their JSON, commas included */
        while (pos < n->idx_used) {
            if (args->trim_strategy == TRIM_STRATEGY_MAXLEN) {
                if (s->length - k <= (uint64_t)args->maxlen) break;
            }
            streamID cur;
            size_t jlen;
            uint32_t next = nodeParseRecord(n, pos, &cur, NULL, &jlen);
            if (args->trim_strategy == TRIM_STRATEGY_MINID && streamCompareID(&cur, &args->minid) >= 0) break;
            pos = next;
            text += jlen + 1;
            k++;
        }
        if (k) {
            if (delref) nodeDelEntryRefs(s, n, 0, pos);
            streamNodeRemoveEntries(s, n, 0, pos, 0, text - 1, k);
            s->length -= k;
            deleted += k;
        }
        break;
    }
    if (s->length == 0) {
        s->first_id.ms = s->first_id.seq = 0;
    } else if (deleted) {
        streamFirstValidID(s, &s->first_id);
    }
    return deleted;
}

/* ACKED trimming: the oldest entries go, up to the threshold (and LIMIT),
 * except those some group still needs, which stay where they are. A
 * group's last delivered ID only grows, so nothing above the lowest one
 * can go: the scan stops there. An entry removed behind one that stays is
 * a tombstone (max-deleted-entry-id), as for XDEL. */
static int64_t streamTrimAcked(stream *s, const streamAddTrimArgs *args) {
    streamID bound = s->cgroups[0]->last_id;
    for (size_t g = 1; g < s->num_cgroups; g++)
        if (streamCompareID(&s->cgroups[g]->last_id, &bound) < 0) bound = s->cgroups[g]->last_id;

    streamID *victims = NULL;
    size_t nv = 0, av = 0;
    int kept_before = 0;
    streamID max_tomb = {0, 0};
    streamIterator si;
    streamIteratorStart(&si, s, NULL, &bound, 0);
    streamID id;
    int64_t numfields;
    while (streamIteratorGetID(&si, &id, &numfields)) {
        if (args->trim_strategy == TRIM_STRATEGY_MAXLEN && s->length - nv <= (uint64_t)args->maxlen) break;
        if (args->trim_strategy == TRIM_STRATEGY_MINID && streamCompareID(&id, &args->minid) >= 0) break;
        if (args->limit && (long long)nv >= args->limit) break;
        if (streamEntryIsReferenced(s, &id)) {
            kept_before = 1;
            continue;
        }
        if (nv == av) {
            av = av ? av * 2 : 16;
            victims = zrealloc(victims, sizeof(streamID) * av);
        }
        victims[nv++] = id;
        if (kept_before) max_tomb = id;
    }
    streamIteratorStop(&si);
    for (size_t k = 0; k < nv; k++) streamDeleteItem(s, &victims[k]);
    zfree(victims);
    if (streamCompareID(&max_tomb, &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = max_tomb;
    if (s->length == 0) s->first_id.ms = s->first_id.seq = 0;
    else if (nv) streamFirstValidID(s, &s->first_id);
    return (int64_t)nv;
}

/* Removes one entry under a reference policy (XDELEX, XACKDEL): returns
 * STREAM_DEL_DELETED, STREAM_DEL_NOTFOUND (no such entry) or
 * STREAM_DEL_REFERENCED (ACKED: a group still needs it, kept). DELREF
 * drops the groups' pending entries even when the entry itself is gone. */
static int streamDeleteWithPolicy(stream *s, const streamID *id, int policy) {
    if (policy == STREAM_REF_DELREF) streamDelEntryRefs(s, id);
    if (!streamEntryExists(s, id)) return STREAM_DEL_NOTFOUND;
    if (policy == STREAM_REF_ACKED && streamEntryIsReferenced(s, id)) return STREAM_DEL_REFERENCED;
    streamDeleteItem(s, id);
    if (streamCompareID(id, &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = *id;
    if (s->length == 0) s->first_id.ms = s->first_id.seq = 0;
    else if (streamCompareID(id, &s->first_id) == 0) streamFirstValidID(s, &s->first_id);
    return STREAM_DEL_DELETED;
}

int64_t streamTrimByLength(stream *s, long long maxlen, int approx) {
    streamAddTrimArgs args = {.trim_strategy = TRIM_STRATEGY_MAXLEN, .approx_trim = approx, .maxlen = maxlen};
    args.limit = approx ? 100 * server.cfg.stream_node_max_entries : 0;
    return streamTrim(s, &args);
}

int64_t streamTrimByID(stream *s, streamID minid, int approx) {
    streamAddTrimArgs args = {.trim_strategy = TRIM_STRATEGY_MINID, .approx_trim = approx, .minid = minid};
    args.limit = approx ? 100 * server.cfg.stream_node_max_entries : 0;
    return streamTrim(s, &args);
}

/* ========================================================================
 * Consumer group helpers that need the entries
 * ===================================================================== */

/* 1 if the range [start, end] (NULL: open) may hold a tombstone, i.e. the
 * greatest deleted ID falls in it. */
int streamRangeHasTombstones(stream *s, const streamID *start, const streamID *end) {
    if (!s->length || streamIDEqZero(&s->max_deleted_entry_id)) return 0;
    streamID start_id = {0, 0}, end_id = {UINT64_MAX, UINT64_MAX};
    if (start) start_id = *start;
    if (end) end_id = *end;
    return streamCompareID(&start_id, &s->max_deleted_entry_id) <= 0 &&
           streamCompareID(&s->max_deleted_entry_id, &end_id) <= 0;
}

/* The logical read counter of an ID (entries from the first ever added up
 * to it), or SCG_INVALID_ENTRIES_READ when it cannot be known. */
long long streamEstimateDistanceFromFirstEverEntry(stream *s, const streamID *id) {
    if (!s->entries_added) return 0;
    if (!s->length && streamCompareID(id, &s->last_id) < 1) return (long long)s->entries_added;
    if (!streamIDEqZero(id) && streamCompareID(id, &s->max_deleted_entry_id) < 0) return SCG_INVALID_ENTRIES_READ;
    int cmp_last = streamCompareID(id, &s->last_id);
    if (cmp_last == 0) return (long long)s->entries_added;
    if (cmp_last > 0) return SCG_INVALID_ENTRIES_READ;
    int cmp_id_first = streamCompareID(id, &s->first_id);
    int cmp_xdel_first = streamCompareID(&s->max_deleted_entry_id, &s->first_id);
    if (streamIDEqZero(&s->max_deleted_entry_id) || cmp_xdel_first < 0) {
        if (cmp_id_first < 0) return (long long)(s->entries_added - s->length);
        if (cmp_id_first == 0) return (long long)(s->entries_added - s->length + 1);
    }
    return SCG_INVALID_ENTRIES_READ;
}

/* XINFO's lag: entries not yet delivered to the group, or null. */
void streamReplyWithCGLag(client *c, stream *s, streamCG *cg) {
    if (cg->prio) {
        /* Exact: the undelivered entries of every class. */
        addReplyLongLong(c, streamPrioLag(s, cg));
        return;
    }
    int valid = 0;
    long long lag = 0;
    if (!s->entries_added || !s->length) {
        valid = 1;
    } else if (streamCompareID(&cg->last_id, &s->first_id) < 0 &&
               streamCompareID(&s->max_deleted_entry_id, &s->first_id) < 0) {
        lag = (long long)s->length;
        valid = 1;
    } else if (cg->entries_read != SCG_INVALID_ENTRIES_READ && !streamRangeHasTombstones(s, &cg->last_id, NULL)) {
        lag = (long long)s->entries_added - cg->entries_read;
        valid = 1;
    } else {
        long long entries_read = streamEstimateDistanceFromFirstEverEntry(s, &cg->last_id);
        if (entries_read != SCG_INVALID_ENTRIES_READ) {
            lag = (long long)s->entries_added - entries_read;
            valid = 1;
        }
    }
    if (valid) addReplyLongLong(c, lag);
    else addReplyNull(c);
}

/* XINFO's entries-read. A priority group delivers out of ID order, so
 * its counter is defined by the lag: entries added minus undelivered. */
void streamReplyWithCGEntriesRead(client *c, stream *s, streamCG *cg) {
    if (cg->prio) addReplyLongLong(c, (long long)s->entries_added - streamPrioLag(s, cg));
    else if (cg->entries_read != SCG_INVALID_ENTRIES_READ) addReplyLongLong(c, cg->entries_read);
    else addReplyNull(c);
}

/* ========================================================================
 * Replying with entries
 * ===================================================================== */

static size_t streamReplyWithRangeFromConsumerPEL(client *c, stream *s, const streamID *start, size_t count,
                                                  streamCG *group, streamConsumer *consumer);

/* Sends the entries in [start, end] (NULL end: to the last), at most count
 * (0 = all), as [[id, [f, v, ...]], ...]. With a group and a consumer this
 * is a delivery (XREADGROUP): the group's last ID and read counter
 * advance, each entry enters the PELs (unless STREAM_RWR_NOACK), and with
 * STREAM_RWR_HISTORY the consumer's own PEL is served instead. Returns the
 * number of entries sent. */
/* XREAD/XREADGROUP ... MAXSIZE (Redis 8.10): while a read runs with it,
 * the length c->pending may reach before no further entry is replied (0:
 * no limit). A soft cap: the entry that crosses it is replied whole. */
static size_t streamReplyByteLimit = 0;

int streamReplyBudgetExhausted(client *c) {
    return streamReplyByteLimit && sdslen(c->pending) >= streamReplyByteLimit;
}

size_t streamReplyWithRange(client *c, stream *s, const streamID *start, const streamID *end, size_t count, int rev,
                            streamCG *group, streamConsumer *consumer, int flags) {
    void *arraylen_ptr = NULL;
    size_t arraylen = 0;
    streamIterator si;
    int64_t numfields;
    streamID id;
    int noack = flags & STREAM_RWR_NOACK;
    int meta = flags & STREAM_RWR_CLAIM_META;

    if (group && (flags & STREAM_RWR_HISTORY))
        return streamReplyWithRangeFromConsumerPEL(c, s, start, count, group, consumer);

    if (!(flags & STREAM_RWR_RAWENTRIES)) arraylen_ptr = addReplyDeferredLen(c);
    streamIteratorStart(&si, s, start, end, rev);
    while (streamIteratorGetID(&si, &id, &numfields)) {
        if (group && streamCompareID(&id, &group->last_id) > 0) {
            if (group->entries_read != SCG_INVALID_ENTRIES_READ &&
                streamCompareID(&group->last_id, &s->first_id) >= 0 &&
                !streamRangeHasTombstones(s, &group->last_id, NULL)) {
                /* A valid counter and no tombstone ahead: keep counting. */
                group->entries_read++;
            } else if (s->entries_added) {
                group->entries_read = streamEstimateDistanceFromFirstEverEntry(s, &id);
            }
            group->last_id = id;
        }

        addReplyArrayLen(c, meta ? 4 : 2);
        addReplyStreamID(c, &id);
        addReplyArrayLen(c, (long)numfields * 2);
        while (numfields--) {
            const unsigned char *f, *v;
            size_t fl, vl;
            streamIteratorGetField(&si, &f, &fl, &v, &vl);
            addReplyBulk(c, (const char *)f, fl);
            addReplyBulk(c, (const char *)v, vl);
        }
        if (meta) { /* a new entry: never delivered before */
            addReplyLongLong(c, 0);
            addReplyLongLong(c, 0);
        }

        if (group && !noack) {
            /* Usually a new NACK; an existing one (the group's last ID was
             * moved back by XGROUP SETID) changes owner. */
            streamNACK *nack = streamCreateNACK(consumer);
            void *existing = NULL;
            if (!idtreeInsert(&group->pel, &id, nack, &existing)) {
                streamFreeNACK(nack);
                nack = existing;
                streamNACKDetach(group, nack, &id);
                nack->consumer = consumer;
                nack->delivery_time = commandTimeSnapshot();
                nack->delivery_count = 1;
            }
            streamPelNoteTime(group, nack->delivery_time);
            idtreeInsert(&consumer->pel, &id, nack, NULL);
        }
        if (group) consumer->active_time = commandTimeSnapshot();

        arraylen++;
        if (count && count == arraylen) break;
        if (streamReplyBudgetExhausted(c)) break;
    }
    streamIteratorStop(&si);
    if (arraylen_ptr) setDeferredArrayLen(c, arraylen_ptr, (long)arraylen);
    return arraylen;
}

/* streamReplyWithEntry's reply, the entry found: the record after its
 * own at next, its text at text (jlen bytes). The hint moves past it. */
static void streamReplyEntryAt(client *c, streamNode *n, uint32_t next, size_t text, size_t jlen, const streamID *id,
                               int64_t numfields, streamEntryHint *hint, int meta) {
    static sds buf; /* decoded fields and values, kept for the next call */
    if (hint) {
        hint->node = n;
        hint->freed = streamNodesFreed;
        hint->gen = n->gen;
        hint->pos = next;
        hint->jpos = text + jlen + 1;
        hint->id = *id;
    }
    addReplyArrayLen(c, meta ? 4 : 2);
    addReplyStreamID(c, id);
    addReplyArrayLen(c, (long)numfields * 2);
    const char *fp = entryFields(n->json + text);
    while (numfields--) {
        for (int k = 0; k < 2; k++) {
            const unsigned char *v;
            size_t vl;
            readJSONBytes(&fp, &buf, &v, &vl);
            addReplyBulk(c, (const char *)v, vl);
        }
    }
    if (meta) { /* a new entry: never delivered before */
        addReplyLongLong(c, 0);
        addReplyLongLong(c, 0);
    }
}

/* Sends one entry as [id, [f, v, ...]] (no header: like
 * STREAM_RWR_RAWENTRIES; with meta, XREADGROUP CLAIM's [id, [f, v, ...],
 * 0, 0] of a new entry) and returns 1, or returns 0 if it does not exist.
 * With a hint, lookups of increasing IDs within one node scan on from the
 * previous one instead of from the node's start (priority delivery looks
 * up each class's entries in ID order, see t_stream_prio.c); the hint
 * holds no reference: it is used only while its node is alive (no node
 * freed since) and, to scan on, unchanged (gen is unique, even across
 * nodes). With at (NULL: none), where a scan saw the entry, no scan at
 * all while its node is unchanged since then: priority delivery would
 * otherwise scan past the entries of the other classes in between. */
int streamReplyWithEntry(client *c, stream *s, const streamID *id, streamEntryHint *hint, const streamEntryPos *at,
                         int meta) {
    streamNode *n = NULL;
    uint32_t pos = 0;
    size_t jpos = 0;
    int hint_alive = hint && hint->node && hint->freed == streamNodesFreed;
    if (hint_alive) {
        /* The hint's node holds every live entry in its range: no tree
         * lookup when id is in it. */
        streamNode *hn = (streamNode *)hint->node;
        if (streamCompareID(id, &hn->last_id) <= 0 && streamCompareID(id, &hn->master_id) >= 0) n = hn;
    }
    if (!n) {
        idtreeIter it;
        idtreeSeek(&it, &s->nodes, IDTREE_SEEK_LE, id);
        if (!idtreeIterValid(&it)) return 0;
        n = idtreeIterVal(&it);
    }
    int seen = 0; /* starting where the scan saw it */
    if (at && at->rec != STREAM_POS_UNKNOWN && n->gen <= at->epoch && at->rec < n->idx_used) {
        /* Where the scan saw it (the record says whether it is). */
        streamID cur;
        int64_t numfields;
        size_t jlen;
        uint32_t next = nodeParseRecordInline(n, at->rec, &cur, &numfields, &jlen);
        if (streamCompareID(&cur, id) == 0) {
            streamReplyEntryAt(c, n, next, at->text, jlen, &cur, numfields, hint, meta);
            return 1;
        }
        pos = at->rec;
        jpos = at->text;
        seen = 1;
    } else if (hint_alive && hint->node == n && hint->gen == n->gen && streamCompareID(id, &hint->id) > 0) {
        pos = hint->pos;
        jpos = hint->jpos;
    }
    while (pos < n->idx_used) {
        streamID cur;
        int64_t numfields;
        size_t jlen;
        uint32_t next = nodeParseRecord(n, pos, &cur, &numfields, &jlen);
        int cmp = streamCompareID(&cur, id);
        if (cmp > 0 && seen) {
            /* (Not where it was seen: cannot happen while the epochs
             * hold; scanned from the node's start all the same.) */
            seen = 0;
            pos = 0;
            jpos = 0;
            continue;
        }
        if (cmp > 0) return 0;
        if (cmp == 0) {
            streamReplyEntryAt(c, n, next, jpos, jlen, &cur, numfields, hint, meta);
            return 1;
        }
        pos = next;
        jpos += jlen + 1;
    }
    return 0;
}

/* XREADGROUP with an ID other than ">": the consumer's own pending
 * entries from start on. An entry deleted from the stream since shows as
 * [id, nil]. Every entry served counts as a new delivery. */
static size_t streamReplyWithRangeFromConsumerPEL(client *c, stream *s, const streamID *start, size_t count,
                                                  streamCG *group, streamConsumer *consumer) {
    size_t arraylen = 0;
    void *arraylen_ptr = addReplyDeferredLen(c);
    idtreeIter it;
    idtreeSeek(&it, &consumer->pel, IDTREE_SEEK_GE, start);
    for (; idtreeIterValid(&it) && (!count || arraylen < count); idtreeIterNext(&it)) {
        streamID thisid = *idtreeIterKey(&it);
        streamNACK *nack = idtreeIterVal(&it);
        if (streamReplyWithRange(c, s, &thisid, &thisid, 1, 0, NULL, NULL, STREAM_RWR_RAWENTRIES) == 0) {
            addReplyArrayLen(c, 2);
            addReplyStreamID(c, &thisid);
            addReplyNullArray(c);
        } else {
            streamNACKSetDeliveryTime(group, nack, commandTimeSnapshot());
            streamNACKCountDelivery(nack);
        }
        arraylen++;
    }
    setDeferredArrayLen(c, arraylen_ptr, (long)arraylen);
    return arraylen;
}

/* ========================================================================
 * Parsing IDs
 * ===================================================================== */

/* Redis's string2ull: a canonical integer, or failing that whatever
 * strtoull accepts in full (so "007", " 7" and "+7" are 7). */
static int redisString2ull(const char *s, unsigned long long *value) {
    long long ll;
    if (string2ll(s, strlen(s), &ll)) {
        if (ll < 0) return 0;
        *value = (unsigned long long)ll;
        return 1;
    }
    errno = 0;
    char *endptr = NULL;
    *value = strtoull(s, &endptr, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *endptr == '\0')) return 0;
    return 1;
}

/* Parses "<ms>-<seq>", "<ms>" (seq = missing_seq), "-" and "+" (unless
 * strict), and "<ms>-*" when seq_given is not NULL (then *seq_given = 0).
 * On error replies (if c) and returns C_ERR. */
int streamGenericParseIDOrReply(client *c, sds o, streamID *id, uint64_t missing_seq, int strict, int *seq_given) {
    char buf[128];
    if (sdslen(o) > sizeof(buf) - 1) goto invalid;
    memcpy(buf, o, sdslen(o) + 1);

    if (strict && (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0') goto invalid;
    if (seq_given != NULL) *seq_given = 1;

    if (buf[0] == '-' && buf[1] == '\0') {
        id->ms = 0;
        id->seq = 0;
        return C_OK;
    } else if (buf[0] == '+' && buf[1] == '\0') {
        id->ms = UINT64_MAX;
        id->seq = UINT64_MAX;
        return C_OK;
    }

    unsigned long long ms, seq;
    char *dot = strchr(buf, '-');
    if (dot) *dot = '\0';
    if (redisString2ull(buf, &ms) == 0) goto invalid;
    if (dot) {
        size_t seqlen = strlen(dot + 1);
        if (seq_given != NULL && seqlen == 1 && *(dot + 1) == '*') {
            seq = 0;
            *seq_given = 0;
        } else if (redisString2ull(dot + 1, &seq) == 0) {
            goto invalid;
        }
    } else {
        seq = missing_seq;
    }
    id->ms = ms;
    id->seq = seq;
    return C_OK;

invalid:
    if (c) addReplyError(c, "Invalid stream ID specified as stream command argument");
    return C_ERR;
}

int streamParseIDOrReply(client *c, sds o, streamID *id, uint64_t missing_seq) {
    return streamGenericParseIDOrReply(c, o, id, missing_seq, 0, NULL);
}

int streamParseStrictIDOrReply(client *c, sds o, streamID *id, uint64_t missing_seq, int *seq_given) {
    return streamGenericParseIDOrReply(c, o, id, missing_seq, 1, seq_given);
}

/* A range bound: "(" makes it exclusive (and "-"/"+" are then invalid). */
int streamParseIntervalIDOrReply(client *c, sds o, streamID *id, int *exclude, uint64_t missing_seq) {
    size_t len = sdslen(o);
    if (exclude != NULL) *exclude = (len > 1 && o[0] == '(');
    if (exclude != NULL && *exclude) {
        sds t = sdsnewlen(o + 1, len - 1);
        int ret = streamParseStrictIDOrReply(c, t, id, missing_seq, NULL);
        sdsfree(t);
        return ret;
    }
    return streamParseIDOrReply(c, o, id, missing_seq);
}

/* stream-id-mode (design.md §2): strict and semi-strict take a
 * milliseconds-only ID as "<ms>-*" (the server picks the sequence so IDs
 * never collide) and refuse the forms their mode excludes. Liberal is
 * Redis. Returns C_ERR after replying. */
static int streamApplyIdMode(client *c, sds arg, streamAddTrimArgs *args) {
    int mode = server.cfg.stream_id_mode;
    if (mode == STREAM_ID_MODE_LIBERAL) return C_OK;
    const char *dash = strchr(arg, '-');
    if (!dash) {
        args->seq_given = 0; /* "<ms>": the server picks the sequence */
        return C_OK;
    }
    if (!args->seq_given) { /* "<ms>-*" */
        addReplyErrorFormat(c,
                            "stream-id-mode is %s: only %s is accepted (set stream-id-mode to liberal to use "
                            "'<ms>-*' IDs)",
                            mode == STREAM_ID_MODE_STRICT ? "strict" : "semi-strict",
                            mode == STREAM_ID_MODE_STRICT ? "'*' or a milliseconds-only ID"
                                                          : "'*', a milliseconds-only ID or a full ID");
        return C_ERR;
    }
    if (mode == STREAM_ID_MODE_STRICT) {
        addReplyError(c,
                      "stream-id-mode is strict: only '*' or a milliseconds-only ID is accepted (set "
                      "stream-id-mode to semi-strict or liberal to use full IDs)");
        return C_ERR;
    }
    return C_OK;
}

/* ========================================================================
 * XADD / XTRIM argument parsing
 * ===================================================================== */

/* MAXLEN/MINID at argv[i]: refuses a second strategy, consumes the
 * optional "~" (approximate) or "=" operator. Returns the index just before
 * the threshold argument, or -1 after replying with an error. */
static int streamParseTrimStrategyOrReply(client *c, streamAddTrimArgs *args, int i, int moreargs) {
    if (args->trim_strategy != TRIM_STRATEGY_NONE) {
        addReplyError(c, "syntax error, MAXLEN and MINID options at the same time are not compatible");
        return -1;
    }
    const char *next = c->argv[i + 1];
    args->approx_trim = 0;
    if (moreargs >= 2 && (next[0] == '~' || next[0] == '=') && next[1] == '\0') {
        args->approx_trim = next[0] == '~';
        i++;
    }
    return i;
}

/* Parses the options shared by XADD and XTRIM. Returns the position of
 * XADD's ID argument (XTRIM: argc), or -1 after replying with an error. */
static int streamParseAddOrTrimArgsOrReply(client *c, streamAddTrimArgs *args, int xadd) {
    memset(args, 0, sizeof(*args));
    int i = 2;
    int limit_given = 0;
    for (; i < c->argc; i++) {
        int moreargs = (c->argc - 1) - i;
        char *opt = c->argv[i];
        if (xadd && opt[0] == '*' && opt[1] == '\0') {
            break;
        } else if (!strcasecmp(opt, "maxlen") && moreargs) {
            if ((i = streamParseTrimStrategyOrReply(c, args, i, moreargs)) < 0) return -1;
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &args->maxlen, NULL) != C_OK) return -1;
            if (args->maxlen < 0) {
                addReplyError(c, "The MAXLEN argument must be >= 0.");
                return -1;
            }
            i++;
            args->trim_strategy = TRIM_STRATEGY_MAXLEN;
        } else if (!strcasecmp(opt, "minid") && moreargs) {
            if ((i = streamParseTrimStrategyOrReply(c, args, i, moreargs)) < 0) return -1;
            if (streamParseStrictIDOrReply(c, c->argv[i + 1], &args->minid, 0, NULL) != C_OK) return -1;
            i++;
            args->trim_strategy = TRIM_STRATEGY_MINID;
        } else if (!strcasecmp(opt, "limit") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &args->limit, NULL) != C_OK) return -1;
            if (args->limit < 0) {
                addReplyError(c, "The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = 1;
            i++;
        } else if (xadd && !strcasecmp(opt, "nomkstream")) {
            args->no_mkstream = 1;
        } else if (!strcasecmp(opt, "keepref")) {
            args->ref_policy = STREAM_REF_KEEPREF;
        } else if (!strcasecmp(opt, "delref")) {
            args->ref_policy = STREAM_REF_DELREF;
        } else if (!strcasecmp(opt, "acked")) {
            args->ref_policy = STREAM_REF_ACKED;
        } else if (xadd && (!strcasecmp(opt, "idmp") && moreargs >= 2)) {
            if (args->idmp_pid) {
                addReplyError(c, "IDMP/IDMPAUTO specified multiple times");
                return -1;
            }
            if (!sdslen(c->argv[i + 1])) {
                addReplyError(c, "IDMP requires a non-empty producer ID");
                return -1;
            }
            if (!sdslen(c->argv[i + 2])) {
                addReplyError(c, "IDMP requires a non-empty idempotent ID");
                return -1;
            }
            args->idmp_pid = c->argv[i + 1];
            args->idmp_iid = c->argv[i + 2];
            i += 2;
        } else if (xadd && (!strcasecmp(opt, "idmpauto") && moreargs)) {
            if (args->idmp_pid) {
                addReplyError(c, "IDMP/IDMPAUTO specified multiple times");
                return -1;
            }
            if (!sdslen(c->argv[i + 1])) {
                addReplyError(c, "IDMPAUTO requires a non-empty producer ID");
                return -1;
            }
            args->idmp_pid = c->argv[i + 1];
            i++;
        } else if (xadd) {
            /* Anything else is the ID (or a syntax error). */
            if (streamParseStrictIDOrReply(c, c->argv[i], &args->id, 0, &args->seq_given) != C_OK) return -1;
            args->id_given = 1;
            break;
        } else {
            addReplyErrorSyntax(c);
            return -1;
        }
    }

    if (xadd && args->idmp_pid && args->id_given) {
        addReplyError(c, "IDMP/IDMPAUTO can be used only with auto-generated IDs");
        return -1;
    }
    if (args->limit && args->trim_strategy == TRIM_STRATEGY_NONE) {
        addReplyError(c, "syntax error, LIMIT cannot be used without specifying a trimming strategy");
        return -1;
    }
    if (!xadd && args->trim_strategy == TRIM_STRATEGY_NONE) {
        addReplyError(c, "syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    if (limit_given) {
        if (!args->approx_trim) {
            addReplyError(c, "syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
    } else if (args->approx_trim) {
        /* Bound the work of an approximate trim: at most 100 nodes. */
        args->limit = 100 * server.cfg.stream_node_max_entries;
        if (args->limit <= 0) args->limit = 10000;
        if (args->limit > 1000000) args->limit = 1000000;
    } else {
        args->limit = 0;
    }
    return i;
}

/* ========================================================================
 * XADD, XRANGE, XREVRANGE, XLEN
 * ===================================================================== */

/* XADD key [NOMKSTREAM] [KEEPREF|DELREF|ACKED]
 *      [IDMP producer-id idempotent-id | IDMPAUTO producer-id]
 *      [(MAXLEN|MINID) [=|~] threshold [LIMIT count]]
 *      (*|id) field value [field value ...] */
void xaddCommand(client *c) {
    streamAddTrimArgs args;
    int idpos = streamParseAddOrTrimArgsOrReply(c, &args, 1);
    if (idpos < 0) return;
    int field_pos = idpos + 1;

    if ((c->argc - field_pos) < 2 || ((c->argc - field_pos) % 2) == 1) {
        addReplyErrorArity(c);
        return;
    }
    if (args.id_given && streamApplyIdMode(c, c->argv[idpos], &args) != C_OK) return;
    if (args.id_given && args.seq_given && args.id.ms == 0 && args.id.seq == 0) {
        addReplyError(c, "The ID specified in XADD must be greater than 0-0");
        return;
    }

    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    int created = 0;
    if (!o) {
        if (args.no_mkstream) {
            addReplyNull(c);
            return;
        }
        o = createStreamObject();
        dbAdd(c->db, c->argv[1], o);
        created = 1;
    }
    stream *s = o->ptr;

    /* IDMP: a (producer, idempotent id) already in the window adds
     * nothing and gets the ID it produced the first time. */
    sds iid = NULL;
    if (args.idmp_pid) {
        iid = args.idmp_iid ? sdsdup(args.idmp_iid)
                            : streamIdmpAutoIID(c->argv + field_pos, (c->argc - field_pos) / 2);
        streamID orig;
        if (streamIdmpLookup(s, args.idmp_pid, iid, &orig)) {
            sdsfree(iid);
            addReplyStreamID(c, &orig);
            signalKeyStateChanged(c, c->db, o); /* iids-duplicates */
            return;
        }
    }

    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        sdsfree(iid);
        addReplyError(c, "The stream has exhausted the last possible ID, unable to add more items");
        return;
    }

    errno = 0;
    streamID id;
    if (streamAppendItem(s, c->argv + field_pos, (c->argc - field_pos) / 2, &id, args.id_given ? &args.id : NULL,
                         args.seq_given) == C_ERR) {
        if (errno == EDOM)
            addReplyError(c, "The ID specified in XADD is equal or smaller than the target stream top item");
        else
            addReplyError(c, "Elements are too large to be stored");
        /* Like Redis, a stream created by a failed XADD stays (empty). */
        if (created) signalModifiedKey(c, c->db, c->argv[1], o);
        sdsfree(iid);
        return;
    }
    if (iid) {
        streamIdmpRecord(s, args.idmp_pid, iid, &id);
        sdsfree(iid);
    }
    addReplyStreamID(c, &id);
    if (args.trim_strategy != TRIM_STRATEGY_NONE) streamTrim(s, &args);
    signalModifiedKey(c, c->db, c->argv[1], o);
    signalKeyAsReady(c->db, c->argv[1]);
}

/* XRANGE / XREVRANGE key start end [COUNT count]. Incomplete start IDs get
 * sequence 0, incomplete end IDs the maximum; "(" excludes a bound. */
static void xrangeGenericCommand(client *c, int rev) {
    streamID startid, endid;
    long long count = -1;
    sds startarg = rev ? c->argv[3] : c->argv[2];
    sds endarg = rev ? c->argv[2] : c->argv[3];
    int startex = 0, endex = 0;

    if (streamParseIntervalIDOrReply(c, startarg, &startid, &startex, 0) != C_OK) return;
    if (startex && streamIncrID(&startid) != C_OK) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    if (streamParseIntervalIDOrReply(c, endarg, &endid, &endex, UINT64_MAX) != C_OK) return;
    if (endex && streamDecrID(&endid) != C_OK) {
        addReplyError(c, "invalid end ID for the interval");
        return;
    }
    for (int j = 4; j < c->argc; j++) {
        int additional = c->argc - j - 1;
        if (strcasecmp(c->argv[j], "COUNT") == 0 && additional >= 1) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &count, NULL) != C_OK) return;
            if (count < 0) count = 0;
            j++;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }

    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    if (!o) {
        addReplyEmptyArray(c);
        return;
    }
    if (count == 0) {
        addReplyNullArray(c);
        return;
    }
    if (count == -1) count = 0;
    streamReplyWithRange(c, o->ptr, &startid, &endid, (size_t)count, rev, NULL, NULL, 0);
}

void xrangeCommand(client *c) { xrangeGenericCommand(c, 0); }

void xrevrangeCommand(client *c) { xrangeGenericCommand(c, 1); }

void xlenCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    addReplyLongLong(c, o ? (long long)((stream *)o->ptr)->length : 0);
}

/* ========================================================================
 * XREAD, XREADGROUP
 * ===================================================================== */

/* XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]
 * XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [CLAIM min-idle]
 *            [NOACK] STREAMS key [key ...] id [id ...] */
void xreadCommand(client *c) {
    long long timeout = -1; /* -1: no BLOCK */
    long long count = 0;
    int streams_count = 0;
    int streams_arg = 0;
    int noack = 0;
    streamID static_ids[STREAMID_STATIC_VECTOR_LEN];
    streamID *ids = static_ids;
    streamCG **groups = NULL;
    int xreadgroup = sdslen(c->argv[0]) == 10;
    sds groupname = NULL;
    sds consumername = NULL;
    long long claim_idle = -1; /* CLAIM min-idle-time (Redis 8.4), -1: none */
    long long maxcount = 0;    /* MAXCOUNT (Redis 8.10): entries in total, 0: no limit */
    long long maxsize = 0;     /* MAXSIZE (Redis 8.10): reply bytes, soft, 0: no limit */
    int count_given = 0;

    for (int i = 1; i < c->argc; i++) {
        int moreargs = c->argc - i - 1;
        char *o = c->argv[i];
        if (!strcasecmp(o, "BLOCK") && moreargs) {
            i++;
            if (getTimeoutFromObjectOrReply(c, c->argv[i], &timeout, 0) != C_OK) return;
        } else if (!strcasecmp(o, "COUNT") && moreargs) {
            i++;
            if (getLongLongFromObjectOrReply(c, c->argv[i], &count, NULL) != C_OK) return;
            if (count < 0) count = 0;
            count_given = 1;
        } else if (!strcasecmp(o, "STREAMS") && moreargs) {
            streams_arg = i + 1;
            streams_count = (c->argc - streams_arg);
            if ((streams_count % 2) != 0) {
                char symbol = xreadgroup ? '>' : '$';
                addReplyErrorFormat(c,
                                    "Unbalanced '%s' list of streams: for each stream key an ID or '%c' must be "
                                    "specified.",
                                    c->cmd->fullname, symbol);
                return;
            }
            streams_count /= 2;
            break;
        } else if (!strcasecmp(o, "GROUP") && moreargs >= 2) {
            if (!xreadgroup) {
                addReplyError(c, "The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            groupname = c->argv[i + 1];
            consumername = c->argv[i + 2];
            i += 2;
        } else if (!strcasecmp(o, "NOACK")) {
            if (!xreadgroup) {
                addReplyError(c, "The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            noack = 1;
        } else if (!strcasecmp(o, "MAXCOUNT") && moreargs) {
            i++;
            if (getLongLongFromObjectOrReply(c, c->argv[i], &maxcount, "MAXCOUNT must be a positive integer") !=
                C_OK)
                return;
            if (maxcount <= 0) {
                addReplyError(c, "MAXCOUNT must be a positive integer");
                return;
            }
        } else if (!strcasecmp(o, "MAXSIZE") && moreargs) {
            i++;
            if (getLongLongFromObjectOrReply(c, c->argv[i], &maxsize, "MAXSIZE must be a positive integer") != C_OK)
                return;
            if (maxsize <= 0) {
                addReplyError(c, "MAXSIZE must be a positive integer");
                return;
            }
        } else if (!strcasecmp(o, "CLAIM") && moreargs) {
            if (!xreadgroup) {
                addReplyError(c, "The CLAIM option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            i++;
            if (getLongLongFromObjectOrReply(c, c->argv[i], &claim_idle, "min-idle-time is not an integer") != C_OK)
                return;
            if (claim_idle < 0) {
                addReplyError(c, "min-idle-time must be a positive integer");
                return;
            }
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }

    if (streams_arg == 0) {
        addReplyErrorSyntax(c);
        return;
    }
    if (maxcount && count_given && count > maxcount) {
        addReplyError(c, "MAXCOUNT must be greater than or equal to COUNT");
        return;
    }
    if (xreadgroup && groupname == NULL) {
        addReplyError(c, "Missing GROUP option for XREADGROUP");
        return;
    }

    if (streams_count > STREAMID_STATIC_VECTOR_LEN) ids = zmalloc(sizeof(streamID) * (size_t)streams_count);
    if (groupname) groups = zmalloc(sizeof(streamCG *) * (size_t)streams_count);

    /* Resolve IDs and groups first: any error replies before any change. */
    for (int i = streams_arg + streams_count; i < c->argc; i++) {
        int id_idx = i - streams_arg - streams_count;
        sds key = c->argv[i - streams_count];
        robj *o = lookupKeyRead(c, c->db, key);
        if (checkType(c, o, OBJ_STREAM)) goto cleanup;
        streamCG *group = NULL;

        if (groupname) {
            if (o == NULL || (group = streamLookupCG(o->ptr, groupname)) == NULL) {
                addReplyErrorFormat(c,
                                    "-NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP "
                                    "option",
                                    key, groupname);
                goto cleanup;
            }
            groups[id_idx] = group;
        }

        if (strcmp(c->argv[i], "$") == 0) {
            if (xreadgroup) {
                addReplyError(c,
                              "The $ ID is meaningless in the context of XREADGROUP: you want to read the history "
                              "of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ "
                              "ID would just return an empty result set.");
                goto cleanup;
            }
            if (o) {
                ids[id_idx] = ((stream *)o->ptr)->last_id;
            } else {
                ids[id_idx].ms = 0;
                ids[id_idx].seq = 0;
            }
            continue;
        } else if (strcmp(c->argv[i], "+") == 0) {
            if (xreadgroup) {
                addReplyError(c,
                              "The + ID is meaningless in the context of XREADGROUP: you want to read the history "
                              "of this consumer by specifying a proper ID, or use the > ID to get new messages. The + "
                              "ID would just return an empty result set.");
                goto cleanup;
            }
            if (o && ((stream *)o->ptr)->length) {
                /* The last entry: start just before it. */
                streamLastValidID(o->ptr, &ids[id_idx]);
                streamDecrID(&ids[id_idx]);
            } else {
                ids[id_idx].ms = 0;
                ids[id_idx].seq = 0;
            }
            continue;
        } else if (strcmp(c->argv[i], ">") == 0) {
            if (!xreadgroup) {
                addReplyError(c,
                              "The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
                              "<consumer> option.");
                goto cleanup;
            }
            /* The maximum ID stands for ">": serve from the group's last ID. */
            ids[id_idx].ms = UINT64_MAX;
            ids[id_idx].seq = UINT64_MAX;
            continue;
        }
        if (streamParseStrictIDOrReply(c, c->argv[i], ids + id_idx, 0, NULL) != C_OK) goto cleanup;
    }

    /* Serve what can be served now. */
    size_t arraylen = 0;
    void *arraylen_ptr = NULL;
    long long served = 0; /* entries so far, for MAXCOUNT */
    streamReplyByteLimit = maxsize ? sdslen(c->pending) + (size_t)maxsize : 0;
    for (int i = 0; i < streams_count; i++) {
        sds key = c->argv[streams_arg + i];
        robj *o = lookupKeyRead(c, c->db, key);
        if (o == NULL) continue;
        stream *s = o->ptr;
        streamID *gt = ids + i; /* serve entries > this */
        int serve_synchronously = 0;
        int serve_history = 0;
        streamConsumer *consumer = NULL;

        if (groups) {
            if (gt->ms != UINT64_MAX || gt->seq != UINT64_MAX) {
                /* An explicit ID reads the consumer's history: always now. */
                serve_synchronously = 1;
                serve_history = 1;
            } else if (groups[i]->prio) {
                /* Priority: undelivered entries may lie below last_id. */
                serve_synchronously = streamPrioHasUndelivered(s, groups[i]);
            } else if (s->length) {
                streamID maxid, *last = &groups[i]->last_id;
                streamLastValidID(s, &maxid);
                if (streamCompareID(&maxid, last) > 0) {
                    serve_synchronously = 1;
                    *gt = *last;
                }
            }
            /* CLAIM: idle pending entries are served too, before new ones. */
            if (!serve_history && claim_idle >= 0 && streamGroupPrepareClaim(c, key, s, groups[i], claim_idle) &&
                !serve_synchronously) {
                serve_synchronously = 1;
                *gt = groups[i]->last_id;
            }
            consumer = streamLookupConsumer(groups[i], consumername);
            if (consumer == NULL) consumer = streamCreateConsumer(groups[i], consumername);
            consumer->seen_time = commandTimeSnapshot();
            signalKeyStateChanged(c, c->db, o);
        } else if (s->length) {
            streamID maxid;
            streamLastValidID(s, &maxid);
            if (streamCompareID(&maxid, gt) > 0) serve_synchronously = 1;
        }

        /* MAXCOUNT or MAXSIZE reached: the remaining streams are not served. */
        if ((maxcount && served >= maxcount) || streamReplyBudgetExhausted(c)) serve_synchronously = 0;
        long long scount = count;
        if (maxcount && (!scount || scount > maxcount - served)) scount = maxcount - served;

        if (serve_synchronously) {
            arraylen++;
            if (arraylen == 1) arraylen_ptr = addReplyDeferredLen(c);
            streamID start = *gt;
            streamIncrID(&start);
            if (c->resp == 2) addReplyArrayLen(c, 2);
            addReplyBulk(c, key, sdslen(key));
            int flags = 0;
            if (noack) flags |= STREAM_RWR_NOACK;
            if (serve_history) flags |= STREAM_RWR_HISTORY;
            if (groups && !serve_history && claim_idle >= 0) {
                /* CLAIM: the idle pending entries first, then new ones up
                 * to COUNT, every entry with its delivery metadata (a
                 * priority group's new entries by its schedule). */
                void *lenp = addReplyDeferredLen(c);
                size_t n = streamReplyClaimIdlePending(c, key, s, groups[i], consumer, claim_idle, (size_t)scount);
                size_t left = scount ? (size_t)scount - n : 0;
                int rflags = flags | STREAM_RWR_RAWENTRIES | STREAM_RWR_CLAIM_META;
                if ((!scount || n < (size_t)scount) && groups[i]->prio)
                    n += streamPrioDeliver(c, s, groups[i], consumer, left, rflags);
                else if (!scount || n < (size_t)scount)
                    n += streamReplyWithRange(c, s, &start, NULL, left, 0, groups[i], consumer, rflags);
                setDeferredArrayLen(c, lenp, (long)n);
                served += (long long)n;
            } else if (groups && !serve_history && groups[i]->prio) {
                served += (long long)streamPrioDeliver(c, s, groups[i], consumer, (size_t)scount, flags);
            } else {
                served += (long long)streamReplyWithRange(c, s, &start, NULL, (size_t)scount, 0,
                                                          groups ? groups[i] : NULL, consumer, flags);
            }
        }
    }

    streamReplyByteLimit = 0;
    if (arraylen) {
        if (c->resp == 2) setDeferredArrayLen(c, arraylen_ptr, (long)arraylen);
        else setDeferredMapLen(c, arraylen_ptr, (long)arraylen);
        goto cleanup;
    }

    if (timeout != -1) {
        /* Inside MULTI/EXEC (and for fake clients) a blocking read cannot
         * wait: it answers as if it timed out. */
        if (server.in_exec || (c->flags & (CLIENT_MULTI | CLIENT_FAKE))) {
            addReplyNullArray(c);
            goto cleanup;
        }
        /* "$" becomes the concrete last ID, so running the command again
         * once data arrives does not wait for yet newer data. */
        for (int id_idx = 0; id_idx < streams_count; id_idx++) {
            int arg_idx = id_idx + streams_arg + streams_count;
            if (strcmp(c->argv[arg_idx], "$") == 0) {
                sdsfree(c->argv[arg_idx]);
                c->argv[arg_idx] = createStreamIDString(&ids[id_idx]);
            }
        }
        blockForStreams(c, c->argv + streams_arg, groupname ? NULL : ids, streams_count, timeout, groupname);
        goto cleanup;
    }

    addReplyNullArray(c);

cleanup:
    if (ids != static_ids) zfree(ids);
    zfree(groups);
}

/* Whether a client blocked on key could be served now (see t_stream.h).
 * Looks the key up without side effects (no lazy expiry, no observation:
 * the command itself does that when it runs again). */
int streamWaiterCanBeServed(redisDb *db, sds key, const streamID *id, sds group) {
    robj *o = dictFetchValue(db->keys, key);
    if (o) {
        long long when = getExpire(db, key);
        if (when != -1 && when <= commandTimeSnapshot()) o = NULL;
    }
    if (group) {
        if (!o) return 1; /* replies -NOGROUP */
        /* A key that now holds another type: the re-run replies
         * WRONGTYPE, as in Redis 7.2 (XREAD waiters keep waiting). */
        if (o->type != OBJ_STREAM) return 1;
        stream *s = o->ptr;
        streamCG *cg = streamLookupCG(s, group);
        if (!cg) return 1; /* replies -NOGROUP */
        if (cg->prio) return streamPrioHasUndelivered(s, cg);
        streamID last;
        return streamLastValidID(s, &last) && streamCompareID(&last, &cg->last_id) > 0;
    }
    if (!o || o->type != OBJ_STREAM) return 0;
    streamID last;
    return streamLastValidID(o->ptr, &last) && streamCompareID(&last, id) > 0;
}

/* ========================================================================
 * XDEL, XTRIM, XSETID
 * ===================================================================== */

/* XDEL key id [id ...] */
void xdelCommand(client *c) {
    streamID static_ids[STREAMID_STATIC_VECTOR_LEN];
    streamID *ids = static_ids;
    int id_count = c->argc - 2;

    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    if (!o) {
        addReplyLongLong(c, 0);
        return;
    }
    stream *s = o->ptr;

    /* Validate every ID first: no partial execution on a bad one. */
    if (id_count > STREAMID_STATIC_VECTOR_LEN) ids = zmalloc(sizeof(streamID) * (size_t)id_count);
    for (int j = 2; j < c->argc; j++)
        if (streamParseStrictIDOrReply(c, c->argv[j], &ids[j - 2], 0, NULL) != C_OK) goto cleanup;

    int deleted = 0, first_entry = 0;
    for (int j = 0; j < id_count; j++) {
        streamID *id = &ids[j];
        if (streamDeleteItem(s, id)) {
            if (streamCompareID(id, &s->first_id) == 0) first_entry = 1;
            if (streamCompareID(id, &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = *id;
            deleted++;
        }
    }
    if (deleted) {
        if (s->length == 0) {
            s->first_id.ms = s->first_id.seq = 0;
        } else if (first_entry) {
            streamFirstValidID(s, &s->first_id);
        }
        signalModifiedKey(c, c->db, c->argv[1], o);
    }
    addReplyLongLong(c, deleted);
cleanup:
    if (ids != static_ids) zfree(ids);
}

/* ------------------------------------------------------------------------
 * XDELEX, XACKDEL (Redis 8.2)
 * --------------------------------------------------------------------- */

/* Parses "[KEEPREF|DELREF|ACKED] IDS numids id [id ...]" from argv[start]
 * on, in any order, and every ID. On success *ids holds *numids IDs (free
 * with zfree) and the policy is set; C_ERR after replying otherwise. */
static int streamParseDelArgsOrReply(client *c, int start, int *policy, streamID **ids, long *numids) {
    int ids_pos = 0, policy_given = 0;
    *policy = STREAM_REF_KEEPREF;
    *ids = NULL;
    *numids = 0;
    for (int i = start; i < c->argc; i++) {
        int moreargs = c->argc - 1 - i;
        const char *opt = c->argv[i];
        if (!strcasecmp(opt, "IDS") && moreargs && !ids_pos) {
            if (getRangeLongFromObjectOrReply(c, c->argv[i + 1], 1, LONG_MAX, numids,
                                              "Number of IDs must be a positive integer") != C_OK)
                return C_ERR;
            if (*numids > c->argc - (i + 2)) {
                addReplyError(c, "The `numids` parameter must match the number of arguments");
                return C_ERR;
            }
            ids_pos = i + 2;
            i += 1 + (int)*numids;
        } else if (!policy_given && !strcasecmp(opt, "KEEPREF")) {
            policy_given = 1;
        } else if (!policy_given && !strcasecmp(opt, "DELREF")) {
            *policy = STREAM_REF_DELREF;
            policy_given = 1;
        } else if (!policy_given && !strcasecmp(opt, "ACKED")) {
            *policy = STREAM_REF_ACKED;
            policy_given = 1;
        } else {
            addReplyErrorSyntax(c);
            return C_ERR;
        }
    }
    if (!ids_pos) {
        addReplyErrorSyntax(c);
        return C_ERR;
    }
    *ids = zmalloc(sizeof(streamID) * (size_t)*numids);
    for (long k = 0; k < *numids; k++) {
        if (streamParseStrictIDOrReply(c, c->argv[ids_pos + k], &(*ids)[k], 0, NULL) != C_OK) {
            zfree(*ids);
            *ids = NULL;
            return C_ERR;
        }
    }
    return C_OK;
}

static void addReplyDelCodes(client *c, const int *codes, long n) {
    addReplyArrayLen(c, n);
    for (long k = 0; k < n; k++) addReplyLongLong(c, codes ? codes[k] : STREAM_DEL_NOTFOUND);
}

/* XDELEX key [KEEPREF|DELREF|ACKED] IDS numids id [id ...]
 * One code per ID: 1 deleted, -1 no such entry, 2 kept (ACKED: a group
 * still needs it). */
void xdelexCommand(client *c) {
    int policy;
    streamID *ids;
    long numids;
    if (streamParseDelArgsOrReply(c, 2, &policy, &ids, &numids) != C_OK) return;
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) goto cleanup;
    if (!o) {
        addReplyDelCodes(c, NULL, numids);
        goto cleanup;
    }
    stream *s = o->ptr;
    int *codes = zmalloc(sizeof(int) * (size_t)numids);
    uint64_t len_before = s->length;
    int refs_changed = 0;
    for (long k = 0; k < numids; k++) {
        if (policy == STREAM_REF_DELREF && s->num_cgroups) refs_changed = 1;
        codes[k] = streamDeleteWithPolicy(s, &ids[k], policy);
    }
    addReplyDelCodes(c, codes, numids);
    zfree(codes);
    if (s->length != len_before) signalModifiedKey(c, c->db, c->argv[1], o);
    else if (refs_changed) signalKeyStateChanged(c, c->db, o);
cleanup:
    zfree(ids);
}

/* XACKDEL key group [KEEPREF|DELREF|ACKED] IDS numids id [id ...]
 * Acknowledges each ID in group, then removes the entry under the policy.
 * One code per ID: 1 acknowledged and deleted, 2 acknowledged but kept
 * (ACKED: another group still needs it), -1 not pending in the group. */
void xackdelCommand(client *c) {
    int policy;
    streamID *ids;
    long numids;
    if (streamParseDelArgsOrReply(c, 3, &policy, &ids, &numids) != C_OK) return;
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) goto cleanup;
    streamCG *group = o ? streamLookupCG(o->ptr, c->argv[2]) : NULL;
    if (!group) {
        addReplyDelCodes(c, NULL, numids);
        goto cleanup;
    }
    stream *s = o->ptr;
    int *codes = zmalloc(sizeof(int) * (size_t)numids);
    uint64_t len_before = s->length;
    int acked = 0;
    for (long k = 0; k < numids; k++) {
        if (!streamAckID(group, &ids[k])) {
            codes[k] = STREAM_DEL_NOTFOUND;
            continue;
        }
        acked++;
        int r = streamDeleteWithPolicy(s, &ids[k], policy);
        codes[k] = r == STREAM_DEL_REFERENCED ? STREAM_DEL_REFERENCED : STREAM_DEL_DELETED;
    }
    addReplyDelCodes(c, codes, numids);
    zfree(codes);
    if (s->length != len_before) signalModifiedKey(c, c->db, c->argv[1], o);
    else if (acked) signalKeyStateChanged(c, c->db, o);
cleanup:
    zfree(ids);
}

/* XTRIM key (MAXLEN|MINID) [=|~] threshold [LIMIT count] [KEEPREF|DELREF|ACKED] */
void xtrimCommand(client *c) {
    streamAddTrimArgs args;
    if (streamParseAddOrTrimArgsOrReply(c, &args, 0) < 0) return;
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    if (!o) {
        addReplyLongLong(c, 0);
        return;
    }
    int64_t deleted = streamTrim(o->ptr, &args);
    if (deleted) signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, deleted);
}

/* XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id] */
void xsetidCommand(client *c) {
    streamID id, max_xdel_id = {0, 0};
    long long entries_added = -1;

    if (streamParseStrictIDOrReply(c, c->argv[2], &id, 0, NULL) != C_OK) return;
    int i = 3;
    while (i < c->argc) {
        int moreargs = (c->argc - 1) - i;
        char *opt = c->argv[i];
        if (!strcasecmp(opt, "ENTRIESADDED") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &entries_added, NULL) != C_OK) return;
            if (entries_added < 0) {
                addReplyError(c, "entries_added must be positive");
                return;
            }
            i += 2;
        } else if (!strcasecmp(opt, "MAXDELETEDID") && moreargs) {
            if (streamParseStrictIDOrReply(c, c->argv[i + 1], &max_xdel_id, 0, NULL) != C_OK) return;
            if (streamCompareID(&id, &max_xdel_id) < 0) {
                addReplyError(c, "The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                return;
            }
            i += 2;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }

    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    if (!o) {
        addReplyError(c, "no such key");
        return;
    }
    stream *s = o->ptr;
    if (streamCompareID(&id, &s->max_deleted_entry_id) < 0) {
        addReplyError(c, "The ID specified in XSETID is smaller than current max_deleted_entry_id");
        return;
    }
    if (s->length > 0) {
        streamID maxid;
        streamLastValidID(s, &maxid);
        if (streamCompareID(&id, &maxid) < 0) {
            addReplyError(c, "The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (entries_added != -1 && s->length > (uint64_t)entries_added) {
            addReplyError(c, "The entries_added specified in XSETID is smaller than the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (entries_added != -1) s->entries_added = (uint64_t)entries_added;
    if (!streamIDEqZero(&max_xdel_id)) s->max_deleted_entry_id = max_xdel_id;
    signalKeyStateChanged(c, c->db, o);
    addReplyOk(c);
}

/* ========================================================================
 * XINFO
 * ===================================================================== */

/* XINFO STREAM key [FULL [COUNT count]] */
static void xinfoReplyWithStreamInfo(client *c, stream *s) {
    int full = 1;
    long long count = 10;
    sds *optv = c->argv + 3;
    int optc = c->argc - 3;

    if (optc == 0) {
        full = 0;
    } else {
        if (optc != 1 && optc != 3) {
            addReplySubcommandSyntaxError(c);
            return;
        }
        if (strcasecmp(optv[0], "full")) {
            addReplySubcommandSyntaxError(c);
            return;
        }
        if (optc == 3) {
            if (strcasecmp(optv[1], "count")) {
                addReplySubcommandSyntaxError(c);
                return;
            }
            if (getLongLongFromObjectOrReply(c, optv[2], &count, NULL) == C_ERR) return;
            if (count < 0) count = 10;
        }
    }

    /* radix-tree-keys / radix-tree-nodes describe casq's own index: the
     * number of entry nodes (Redis's listpacks, split by the same rule)
     * and the B+tree nodes indexing them (0 for an empty stream). */
    addReplyMapLen(c, (full ? 9 : 10) + (s->idmp ? 6 : 0));
    addReplyBulkCString(c, "length");
    addReplyLongLong(c, (long long)s->length);
    addReplyBulkCString(c, "radix-tree-keys");
    addReplyLongLong(c, (long long)idtreeSize(&s->nodes));
    addReplyBulkCString(c, "radix-tree-nodes");
    addReplyLongLong(c, (long long)idtreeNodeCount(&s->nodes));
    addReplyBulkCString(c, "last-generated-id");
    addReplyStreamID(c, &s->last_id);
    addReplyBulkCString(c, "max-deleted-entry-id");
    addReplyStreamID(c, &s->max_deleted_entry_id);
    addReplyBulkCString(c, "entries-added");
    addReplyLongLong(c, (long long)s->entries_added);
    addReplyBulkCString(c, "recorded-first-entry-id");
    addReplyStreamID(c, &s->first_id);
    streamIdmpReplyInfo(c, s); /* Redis 8.6: six more fields, once used */

    if (!full) {
        addReplyBulkCString(c, "groups");
        addReplyLongLong(c, (long long)s->num_cgroups);
        streamID start = {0, 0}, end = {UINT64_MAX, UINT64_MAX};
        addReplyBulkCString(c, "first-entry");
        if (!streamReplyWithRange(c, s, &start, &end, 1, 0, NULL, NULL, STREAM_RWR_RAWENTRIES)) addReplyNull(c);
        addReplyBulkCString(c, "last-entry");
        if (!streamReplyWithRange(c, s, &start, &end, 1, 1, NULL, NULL, STREAM_RWR_RAWENTRIES)) addReplyNull(c);
        return;
    }

    addReplyBulkCString(c, "entries");
    streamReplyWithRange(c, s, NULL, NULL, (size_t)count, 0, NULL, NULL, 0);

    addReplyBulkCString(c, "groups");
    addReplyArrayLen(c, (long)s->num_cgroups);
    for (size_t g = 0; g < s->num_cgroups; g++) {
        streamCG *cg = s->cgroups[g];
        addReplyMapLen(c, 7 + streamPrioInfoFieldCount(cg) + (cg->dlq_key ? 3 : 0));
        addReplyBulkCString(c, "name");
        addReplyBulk(c, cg->name, sdslen(cg->name));
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        streamReplyWithCGEntriesRead(c, s, cg);
        addReplyBulkCString(c, "lag");
        streamReplyWithCGLag(c, s, cg);
        addReplyBulkCString(c, "pel-count");
        addReplyLongLong(c, (long long)idtreeSize(&cg->pel));
        if (cg->prio) streamPrioReplyInfo(c, s, cg);
        streamDeadLetterReplyInfo(c, cg); /* casq: a group with a policy */

        addReplyBulkCString(c, "pending");
        long long n = 0;
        void *lenp = addReplyDeferredLen(c);
        idtreeIter it;
        for (idtreeSeek(&it, &cg->pel, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it) && (!count || n < count);
             idtreeIterNext(&it), n++) {
            streamNACK *nack = idtreeIterVal(&it);
            addReplyArrayLen(c, 4);
            addReplyStreamID(c, idtreeIterKey(&it));
            if (nack->consumer) addReplyBulk(c, nack->consumer->name, sdslen(nack->consumer->name));
            else addReplyBulk(c, "", 0); /* released by XNACK */
            addReplyLongLong(c, nack->delivery_time);
            addReplyLongLong(c, (long long)nack->delivery_count);
        }
        setDeferredArrayLen(c, lenp, n);

        addReplyBulkCString(c, "consumers");
        addReplyArrayLen(c, (long)cg->num_consumers);
        for (size_t k = 0; k < cg->num_consumers; k++) {
            streamConsumer *consumer = cg->consumers[k];
            addReplyMapLen(c, 5);
            addReplyBulkCString(c, "name");
            addReplyBulk(c, consumer->name, sdslen(consumer->name));
            addReplyBulkCString(c, "seen-time");
            addReplyLongLong(c, consumer->seen_time);
            addReplyBulkCString(c, "active-time");
            addReplyLongLong(c, consumer->active_time);
            addReplyBulkCString(c, "pel-count");
            addReplyLongLong(c, (long long)idtreeSize(&consumer->pel));
            addReplyBulkCString(c, "pending");
            long long m = 0;
            void *clenp = addReplyDeferredLen(c);
            for (idtreeSeek(&it, &consumer->pel, IDTREE_SEEK_FIRST, NULL);
                 idtreeIterValid(&it) && (!count || m < count); idtreeIterNext(&it), m++) {
                streamNACK *nack = idtreeIterVal(&it);
                addReplyArrayLen(c, 3);
                addReplyStreamID(c, idtreeIterKey(&it));
                addReplyLongLong(c, nack->delivery_time);
                addReplyLongLong(c, (long long)nack->delivery_count);
            }
            setDeferredArrayLen(c, clenp, m);
        }
    }
}

/* XINFO CONSUMERS key group | GROUPS key | STREAM key [FULL [COUNT n]] | HELP */
void xinfoCommand(client *c) {
    if (!strcasecmp(c->argv[1], "HELP")) {
        if (c->argc != 2) {
            addReplySubcommandSyntaxError(c);
            return;
        }
        const char *help[] = {
            "CONSUMERS <key> <groupname>",
            "    Show consumers of <groupname>.",
            "GROUPS <key>",
            "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]",
            "    Show information about the stream.",
            NULL,
        };
        addReplyHelp(c, help);
        return;
    }

    char *opt = c->argv[1];
    sds key = c->argv[2];
    robj *o = lookupKeyRead(c, c->db, key);
    if (checkType(c, o, OBJ_STREAM)) return;
    if (!o) {
        addReplyError(c, "no such key");
        return;
    }
    stream *s = o->ptr;

    if (!strcasecmp(opt, "CONSUMERS") && c->argc == 4) {
        streamCG *cg = streamLookupCG(s, c->argv[3]);
        if (cg == NULL) {
            addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", c->argv[3], key);
            return;
        }
        addReplyArrayLen(c, (long)cg->num_consumers);
        long long now = commandTimeSnapshot();
        for (size_t k = 0; k < cg->num_consumers; k++) {
            streamConsumer *consumer = cg->consumers[k];
            long long inactive = consumer->active_time != -1 ? now - consumer->active_time : consumer->active_time;
            long long idle = now - consumer->seen_time;
            if (idle < 0) idle = 0;
            addReplyMapLen(c, 4);
            addReplyBulkCString(c, "name");
            addReplyBulk(c, consumer->name, sdslen(consumer->name));
            addReplyBulkCString(c, "pending");
            addReplyLongLong(c, (long long)idtreeSize(&consumer->pel));
            addReplyBulkCString(c, "idle");
            addReplyLongLong(c, idle);
            addReplyBulkCString(c, "inactive");
            addReplyLongLong(c, inactive);
        }
    } else if (!strcasecmp(opt, "GROUPS") && c->argc == 3) {
        addReplyArrayLen(c, (long)s->num_cgroups);
        for (size_t g = 0; g < s->num_cgroups; g++) {
            streamCG *cg = s->cgroups[g];
            addReplyMapLen(c, 6 + streamPrioInfoFieldCount(cg) + (cg->dlq_key ? 3 : 0));
            addReplyBulkCString(c, "name");
            addReplyBulk(c, cg->name, sdslen(cg->name));
            addReplyBulkCString(c, "consumers");
            addReplyLongLong(c, (long long)cg->num_consumers);
            addReplyBulkCString(c, "pending");
            addReplyLongLong(c, (long long)idtreeSize(&cg->pel));
            addReplyBulkCString(c, "last-delivered-id");
            addReplyStreamID(c, &cg->last_id);
            addReplyBulkCString(c, "entries-read");
            streamReplyWithCGEntriesRead(c, s, cg);
            addReplyBulkCString(c, "lag");
            streamReplyWithCGLag(c, s, cg);
            if (cg->prio) streamPrioReplyInfo(c, s, cg);
            streamDeadLetterReplyInfo(c, cg); /* casq: a group with a policy */
        }
    } else if (!strcasecmp(opt, "STREAM")) {
        xinfoReplyWithStreamInfo(c, s);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}

/* ========================================================================
 * Keys of XREAD / XREADGROUP
 * ===================================================================== */

/* As Redis's key specs: the keys follow the first "STREAMS" found from
 * argument 1 (XREAD) or 4 (XREADGROUP), and are the first half of what
 * follows it. */
int streamGetKeys(struct redisCommand *cmd, sds *argv, int argc, int *keys_out, int max) {
    int startfrom = strcasecmp(cmd->name, "xreadgroup") == 0 ? 4 : 1;
    int first = 0;
    for (int i = startfrom; i < argc - 1; i++) {
        if (!strcasecmp(argv[i], "streams")) {
            first = i + 1;
            break;
        }
    }
    if (!first) return 0;
    int last = first + (argc - first) / 2 - 1;
    int n = 0;
    for (int i = first; i <= last && i < argc; i++) {
        if (n < max) keys_out[n] = i;
        n++;
    }
    return n < max ? n : max;
}

/* ========================================================================
 * The state document
 * ===================================================================== */

/* --export-state: every entry inline (see streamSetInlineAll). */
static int streamInlineAll = 0;

void streamSetInlineAll(int on) { streamInlineAll = on; }

/* The part of n's text the document writes (all of it for an export, the
 * unsealed suffix otherwise); 0 if none. */
static int nodeRootText(const streamNode *n, size_t *off, size_t *len) {
    *off = streamInlineAll ? 0 : nodeInlineOffset(n);
    *len = streamInlineAll ? sdslen(n->json) : nodeInlineBytes(n);
    return *len != 0;
}

/* Every entry's JSON bytes (an export writes them all inline). */
static size_t streamEntriesJSONBytesAll(const stream *s) {
    size_t b = 0;
    idtreeIter it;
    for (idtreeSeek(&it, &s->nodes, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it))
        b += sdslen(((streamNode *)idtreeIterVal(&it))->json);
    return b;
}

/* The nodes whose entries the root holds (every node for an export). */
static inline const idtree *streamJSONNodes(const stream *s) {
    return streamInlineAll ? &s->nodes : &s->inline_nodes;
}

/* The root's record of a segment (docs/state-format.md):
 * {"name":..,"first_id":..,"last_id":..,"count":..,"bytes":..,"crc32":..,
 *  "live_count":..,"live":[[from,to],...]} where "live" lists the ID ranges
 * of the entries still taken from it: runs of slots whose nodes are still
 * sealed (a slot emptied by a node that left breaks a run). */
static sds segmentCatRecord(sds out, const streamSegment *g) {
    out = sdscatlen(out, "{\"name\":", 8);
    out = jsonCatString(out, g->name, sdslen(g->name));
    out = sdscatlen(out, ",\"first_id\":", 12);
    out = jsonCatStreamID(out, &g->first_id);
    out = sdscatlen(out, ",\"last_id\":", 11);
    out = jsonCatStreamID(out, &g->last_id);
    out = segmentCatSizes(out, g->count, g->bytes, g->crc, g->live);
    out = sdscatlen(out, ",\"live\":[", 9);
    int first = 1;
    for (uint32_t i = 0; i < g->nnodes;) {
        if (!g->nodes[i]) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j + 1 < g->nnodes && g->nodes[j + 1]) j++;
        streamID from, to;
        pieceRange(g->nodes[i], g, &from, NULL);
        pieceRange(g->nodes[j], g, NULL, &to);
        if (!first) out = sdscatlen(out, ",", 1);
        out = sdscatlen(out, "[", 1);
        out = jsonCatStreamID(out, &from);
        out = sdscatlen(out, ",", 1);
        out = jsonCatStreamID(out, &to);
        out = sdscatlen(out, "]", 1);
        first = 0;
        i = j + 1;
    }
    return sdscatlen(out, "]}", 2);
}

sds streamSegmentRecord(streamSegment *g) {
    if (!g->json) g->json = segmentCatRecord(sdsempty(), g);
    return g->json;
}

/* {"length":..,"last_id":..,"first_id":..,"max_deleted_id":..,
 *  "entries_added":..[,"segments":[...][,"manifests":[...]]],
 *  "entries":[...],"groups":[...]}:
 * the part before the entries. */
sds streamCatCounters(sds out, const stream *s) {
    out = sdscatlen(out, "\"length\":", 9);
    out = jsonCatU64(out, s->length);
    out = sdscatlen(out, ",\"last_id\":", 11);
    out = jsonCatStreamID(out, &s->last_id);
    out = sdscatlen(out, ",\"first_id\":", 12);
    out = jsonCatStreamID(out, &s->first_id);
    out = sdscatlen(out, ",\"max_deleted_id\":", 18);
    out = jsonCatStreamID(out, &s->max_deleted_entry_id);
    out = sdscatlen(out, ",\"entries_added\":", 17);
    return jsonCatU64(out, s->entries_added);
}

static sds streamCatJSONHead(sds out, const stream *cs) {
    stream *s = (stream *)cs; /* segments cache their records */
    out = streamCatCounters(sdscatlen(out, "{", 1), s);
    if (s->nsegs && !streamInlineAll) {
        /* The records the root holds: those in no manifest, and those
         * whose manifest's copy is out of date. */
        out = sdscatlen(out, ",\"segments\":[", 13);
        int first = 1;
        for (uint32_t i = 0; i < s->nsegs; i++) {
            streamSegment *g = s->segs[i];
            if (g->man && !g->overridden) continue;
            sds rec = streamSegmentRecord(g);
            if (!first) out = sdscatlen(out, ",", 1);
            out = sdscatlen(out, rec, sdslen(rec));
            first = 0;
        }
        out = sdscatlen(out, "]", 1);
        out = streamCatManifestsJSON(out, s);
    }
    return sdscatlen(out, ",\"entries\":[", 12);
}

/* ... and the part after them. */
static sds streamCatJSONTail(sds out, const stream *cs) {
    stream *s = (stream *)cs; /* consumers cache their names' JSON */
    out = sdscatlen(out, "],\"groups\":", 11);
    out = streamCatGroupsJSON(out, s);
    out = streamIdmpCatJSON(out, s);
    return sdscatlen(out, "}", 1);
}

/* The inline entries' bytes; a stream with segments is never cached whole
 * by persist.c (sealing changes its JSON without a command touching it). */
size_t streamEntriesJSONBytes(const stream *s) {
    if (s->nsegs || s->seal_queued) return SIZE_MAX / 2;
    return s->inline_bytes + idtreeSize(&s->nodes);
}

sds streamCatJSON(sds out, const stream *s) {
    out = streamCatJSONHead(out, s);
    /* Each node holds its entries' JSON: size the output once, then copy. */
    out = sdsMakeRoomFor(out, (streamInlineAll ? streamEntriesJSONBytesAll(s) : s->inline_bytes) +
                                  idtreeSize(&s->nodes) + 64);
    int first = 1;
    idtreeIter it;
    for (idtreeSeek(&it, streamJSONNodes(s), IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNode *n = idtreeIterVal(&it);
        size_t off, len;
        if (!nodeRootText(n, &off, &len)) continue;
        if (!first) out = sdscatlen(out, ",", 1);
        out = sdscatlen(out, n->json + off, len);
        first = 0;
    }
    return streamCatJSONTail(out, s);
}

void streamDocJSON(storeDoc *d, const stream *s) {
    d->own = streamCatJSONHead(d->own, s);
    int first = 1;
    idtreeIter it;
    for (idtreeSeek(&it, streamJSONNodes(s), IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNode *n = idtreeIterVal(&it);
        size_t off, len;
        if (!nodeRootText(n, &off, &len)) continue;
        if (!first) d->own = sdscatlen(d->own, ",", 1);
        if (off) {
            /* A partly sealed node: its suffix, borrowed and pinned as
             * docTextRef does for a whole text. */
            storeDocRef(d, n->json + off, len);
            n->json_pin = server.doc_pin;
        } else {
            docTextRef(d, n->json, &n->json_pin);
        }
        first = 0;
    }
    d->own = streamCatJSONTail(d->own, s);
}

/* ------------------------------------------------------------------------
 * Sealing: planning a segment, attaching it once durable
 * --------------------------------------------------------------------- */

/* A node being consumed from the head (entries removed in the last second)
 * would leave a segment again at once: it waits until it is quiet. */
#define SEAL_QUIET_MS 1000

/* Less than half of its entries still live (counted in entries, not
 * bytes: a small rewritten segment, mostly header, is not dead) -- unless
 * it is being consumed from its head: its dead entries all before its
 * live ones, and one of its nodes left it lately. Trimming (MAXLEN,
 * MINID) and workers deleting the jobs they did kill a queue's segments
 * that way, and will most likely drop this one whole: rewriting its live
 * part now would write those entries again, maybe several times, for a
 * segment about to go. */
int streamSegmentConsumed(const streamSegment *g, long long now_ms) {
    return g->head_dead && g->head_dead + g->nlive == g->nnodes && g->died_ms &&
           now_ms - g->died_ms < SEG_HEAD_QUIET_MS;
}

static int segmentMostlyDead(const streamSegment *g, long long now_ms) {
    return g->live * 2 < g->count && !streamSegmentConsumed(g, now_ms);
}

/* Whether g is small, to be merged with others (not while consumed: see
 * above): under max_bytes / fanout, the size a merge makes. */
static int segmentMergeable(const streamSegment *g, size_t max_bytes, int fanout, long long now_ms) {
    return g->bytes < max_bytes / (size_t)fanout && !streamSegmentConsumed(g, now_ms);
}

/* Whether g is rewritten by this plan: mostly dead, or small while small
 * ones are being merged. */
static int segmentWantsRewrite(const streamSegment *g, size_t max_bytes, int fanout, int merging,
                               long long now_ms) {
    if (segmentMostlyDead(g, now_ms)) return 1;
    return merging && segmentMergeable(g, max_bytes, fanout, now_ms);
}

/* Adds n's entries after `start` (0: from its first) up to count (idx,
 * json bytes of them) to the plan. */
static void planAdd(streamSealPlan *p, uint32_t *alloc, const streamNode *n, uint32_t start, uint32_t count,
                    uint32_t idx, size_t json) {
    if (p->nnodes == *alloc) {
        *alloc = *alloc ? *alloc * 2 : 64;
        p->masters = zrealloc(p->masters, *alloc * sizeof(*p->masters));
        p->gens = zrealloc(p->gens, *alloc * sizeof(*p->gens));
        p->starts = zrealloc(p->starts, *alloc * sizeof(*p->starts));
        p->counts = zrealloc(p->counts, *alloc * sizeof(*p->counts));
        p->idxs = zrealloc(p->idxs, *alloc * sizeof(*p->idxs));
        p->jsons = zrealloc(p->jsons, *alloc * sizeof(*p->jsons));
    }
    p->masters[p->nnodes] = n->master_id;
    p->gens[p->nnodes] = n->gen;
    p->starts[p->nnodes] = start;
    p->counts[p->nnodes] = count;
    p->idxs[p->nnodes] = idx;
    p->jsons[p->nnodes] = json;
    p->nnodes++;
    p->count += count - start;
}

/* Whether a node's inline entries may be sealed now: not while it is
 * being consumed. They are sealed as one more piece of the node (the
 * tail's too: later appends stay inline until the next seal), so an
 * entry is written into a new segment once. */
static int nodeSealableInline(const streamNode *n, long long now_ms) {
    if (!n->count || n->count == nodeSealedCount(n)) return 0;
    return !(n->deleted && now_ms - n->mod_ms < SEAL_QUIET_MS);
}

/* Whether one of n's pieces is in a segment this rewrite empties. */
static int nodeWantsRewrite(const streamNode *n, size_t max_bytes, int fanout, int merging, long long now_ms) {
    for (uint32_t k = 0; k < n->npieces; k++)
        if (segmentWantsRewrite(n->pieces[k].seg, max_bytes, fanout, merging, now_ms)) return 1;
    return 0;
}

size_t streamPlanSeal(stream *s, int lane, const char *name, size_t seal_bytes, size_t max_bytes, int fanout,
                      int merge, long long now_ms, streamSealPlan *plan, sds *text) {
    memset(plan, 0, sizeof(*plan));
    *text = NULL;
    if (fanout < 2) fanout = 2;

    /* What could go in: sealable inline bytes, and segments to rewrite
     * (small ones only when there are a few to merge). */
    size_t inline_ok = 0, waiting = 0;
    idtreeIter it;
    for (idtreeSeek(&it, &s->inline_nodes, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNode *n = idtreeIterVal(&it);
        if (!n->count) continue;
        if (nodeSealableInline(n, now_ms)) inline_ok += nodeInlineBytes(n) + 1;
        else waiting += nodeInlineBytes(n) + 1;
    }
    /* Small segments are merged once they add up to a merged one's size
     * (max_bytes / fanout), in one go: an entry is written into a small
     * segment, then into a big one, and no more. The root names a few
     * records whatever their number (manifests), so nothing else asks
     * for fewer segments; a load reads a few big ones faster than
     * thousands of small ones. */
    uint32_t dead = 0, small = 0;
    uint64_t small_bytes = 0;
    for (uint32_t i = 0; i < s->nsegs; i++) {
        streamSegment *g = s->segs[i];
        if (segmentMostlyDead(g, now_ms)) {
            dead++;
        } else if (segmentMergeable(g, max_bytes, fanout, now_ms)) {
            small++;
            small_bytes += g->live_bytes; /* what the merge writes: at least a merged one's size */
        }
    }
    int merging = merge && small > 1 && small_bytes >= max_bytes / (size_t)fanout;
    int rewrite = dead > 0 || merging, fresh = inline_ok >= seal_bytes;
    plan->later = (lane == STREAM_SEAL_NEW ? rewrite : fresh) || inline_ok + waiting >= seal_bytes;
    if (lane == STREAM_SEAL_NEW ? !fresh : !rewrite) return 0;
    if (lane == STREAM_SEAL_REWRITE) plan->merged = dead + (merging ? small : 0);

    /* Nodes in ID order, until the segment is full (their texts are copied
     * once, into the segment, after the header that needs their range).
     * The new-entries lane takes each node's inline entries (found among
     * the inline nodes only, not a backlog's every node) as one more piece
     * of it; a rewrite takes a node's sealed entries, all its pieces, as
     * one piece. */
    uint32_t alloc = 0;
    size_t bytes = 0;
    const char **texts = NULL;
    size_t *text_lens = NULL;
    const idtree *from = lane == STREAM_SEAL_NEW ? &s->inline_nodes : &s->nodes;
    for (idtreeSeek(&it, from, IDTREE_SEEK_FIRST, NULL); idtreeIterValid(&it); idtreeIterNext(&it)) {
        streamNode *n = idtreeIterVal(&it);
        if (!n->count) continue;
        uint32_t start = 0, count, idx;
        size_t off = 0, json;
        if (lane == STREAM_SEAL_NEW) {
            if (!nodeSealableInline(n, now_ms)) continue;
            start = nodeSealedCount(n);
            off = nodeInlineOffset(n);
            count = n->count;
            idx = n->idx_used;
            json = sdslen(n->json);
        } else {
            if (!n->npieces || !nodeWantsRewrite(n, max_bytes, fanout, merging, now_ms)) continue;
            count = nodeSealedCount(n);
            idx = nodeSealedIdx(n);
            json = nodeSealedJson(n);
        }
        if (plan->nnodes && bytes + json - off + 1 > max_bytes) break;
        if (!plan->nnodes) nodeParseRecord(n, start ? nodeSealedIdx(n) : 0, &plan->first_id, NULL, NULL);
        bytes += json - off + 1;
        nodeParseRecord(n, nodeRecordBefore(n, idx), &plan->last_id, NULL, NULL);
        uint32_t before = alloc;
        planAdd(plan, &alloc, n, start, count, idx, json);
        if (alloc != before) {
            texts = zrealloc(texts, alloc * sizeof(*texts));
            text_lens = zrealloc(text_lens, alloc * sizeof(*text_lens));
        }
        texts[plan->nnodes - 1] = n->json + off;
        text_lens[plan->nnodes - 1] = json - off;
    }
    if (plan->nnodes == 0) {
        int later = plan->later;
        zfree(texts);
        zfree(text_lens);
        streamSealPlanFree(plan);
        plan->later = later;
        return 0;
    }
    sds t = sdsMakeRoomFor(sdsempty(), bytes + 256);
    t = sdscatlen(t, "{\"format\":", 10);
    t = jsonCatU64(t, PERSIST_SEGMENT_FORMAT);
    t = sdscatlen(t, ",\"segment\":", 11);
    t = jsonCatString(t, name, strlen(name));
    t = sdscatlen(t, ",\"first_id\":", 12);
    t = jsonCatStreamID(t, &plan->first_id);
    t = sdscatlen(t, ",\"last_id\":", 11);
    t = jsonCatStreamID(t, &plan->last_id);
    t = sdscatlen(t, ",\"count\":", 9);
    t = jsonCatU64(t, plan->count);
    t = sdscatlen(t, ",\"entries\":[", 12);
    for (uint32_t i = 0; i < plan->nnodes; i++) {
        if (i) t = sdscatlen(t, ",", 1);
        t = sdscatlen(t, texts[i], text_lens[i]);
    }
    t = sdscatlen(t, "]}\n", 3);
    zfree(texts);
    zfree(text_lens);
    *text = t;
    return sdslen(t);
}

void streamSealPlanFree(streamSealPlan *plan) {
    zfree(plan->masters);
    zfree(plan->gens);
    zfree(plan->starts);
    zfree(plan->counts);
    zfree(plan->idxs);
    zfree(plan->jsons);
    memset(plan, 0, sizeof(*plan));
}

static streamSegment *segmentNew(stream *s, const char *name, size_t namelen, uint64_t bytes, uint32_t crc) {
    streamSegment *g = zcalloc(sizeof(*g));
    g->name = sdsnewlen(name, namelen);
    g->owner = s;
    g->bytes = bytes;
    g->crc = crc;
    segmentRegister(g->name, bytes);
    return g;
}

/* Adds a slot to g: n's piece (see nodeAddPiece), or a gap (NULL). */
static uint32_t segmentAddSlot(streamSegment *g, uint32_t *alloc, streamNode *n) {
    if (g->nnodes == *alloc) {
        *alloc = *alloc ? *alloc * 2 : 16;
        g->nodes = zrealloc(g->nodes, *alloc * sizeof(*g->nodes));
    }
    g->nodes[g->nnodes] = n;
    if (!n && g->head_dead == g->nnodes) g->head_dead++;
    return g->nnodes++;
}

/* Makes n's entries up to count (idx, json bytes of them) a piece held
 * by g: after its sealed entries if there are `start` of them, or (start
 * 0) in place of its first pieces, those that end by count -- a node
 * sealed for the first time, or moved out of segments being rewritten.
 * 0 if n's pieces changed since that was planned so that it no longer
 * fits (another seal covers those entries already): n is left as it is. */
static int nodeAddPiece(stream *s, streamNode *n, streamSegment *g, uint32_t *alloc, uint32_t start,
                        uint32_t count, uint32_t idx, size_t json) {
    uint32_t upto = 0;
    if (start) {
        if (nodeSealedCount(n) != start) return 0;
    } else {
        while (upto < n->npieces && n->pieces[upto].count <= count) upto++;
        if (upto < n->npieces && (!upto || n->pieces[upto - 1].count != count)) return 0;
    }
    size_t before = nodeInlineBytes(n);
    size_t j0 = start ? nodeSealedJson(n) + 1 : 0;
    if (!start && upto) {
        nodeReleasePieces(s, n, upto, 1, 0); /* moved, not dead: piece 0 is left for the new one */
    } else {
        /* After the others (a node not sealed yet has none). */
        n->pieces = zrealloc(n->pieces, (n->npieces + 1) * sizeof(*n->pieces));
        n->npieces++;
    }
    uint32_t at = start ? n->npieces - 1 : 0;
    n->pieces[at] = (streamNodePiece){g, segmentAddSlot(g, alloc, n), count, idx, json};
    g->nlive++;
    g->live += count - start;
    g->live_bytes += json - j0;
    s->inline_bytes -= before - nodeInlineBytes(n);
    if (n->count == nodeSealedCount(n)) idtreeRemove(&s->inline_nodes, &n->master_id, NULL);
    else idtreeInsert(&s->inline_nodes, &n->master_id, n, NULL); /* its inline entries stay in the root */
    return 1;
}

static void streamAddSegment(stream *s, streamSegment *g) {
    if (s->nsegs == s->segs_alloc) {
        s->segs_alloc = s->segs_alloc ? s->segs_alloc * 2 : 4;
        s->segs = zrealloc(s->segs, s->segs_alloc * sizeof(*s->segs));
    }
    s->segs[s->nsegs++] = g;
}

uint32_t streamAttachSegment(stream *s, const streamSealPlan *plan, const char *name, uint64_t bytes, uint32_t crc) {
    streamSegment *g = segmentNew(s, name, strlen(name), bytes, crc);
    g->first_id = plan->first_id;
    g->last_id = plan->last_id;
    g->count = plan->count;
    uint32_t alloc = 0;
    for (uint32_t i = 0; i < plan->nnodes; i++) {
        /* Removals since the plan void it (gen); appends do not: the
         * segment holds the node's entries as planned. So does a seal of
         * the other lane that landed meanwhile, unless it took the same
         * entries (the new-entries lane sealing what a rewrite planned
         * as the node's inline entries, or the other way round): those
         * stay where they are, and this slot is a gap. */
        streamNode *n = idtreeFind(&s->nodes, &plan->masters[i]);
        if (n && (n->gen != plan->gens[i] || n->count < plan->counts[i])) n = NULL;
        if (n && !nodeAddPiece(s, n, g, &alloc, plan->starts[i], plan->counts[i], plan->idxs[i], plan->jsons[i]))
            n = NULL;
        if (!n) segmentAddSlot(g, &alloc, NULL);
    }
    uint32_t sealed = g->nlive;
    if (!sealed) {
        segmentFree(g);
        return 0;
    }
    streamAddSegment(s, g);
    return sealed;
}

void streamUnsealAll(stream *s) {
    while (s->nsegs) {
        streamSegment *g = s->segs[0];
        nodeLeaveSegment(g->nodes[g->head_dead]); /* the last piece it holds frees it */
    }
}

uint32_t streamSegmentCRC(const char *data, size_t len) {
    uLong crc = crc32(0L, Z_NULL, 0);
    while (len) {
        uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
        crc = crc32(crc, (const Bytef *)data, chunk);
        data += chunk;
        len -= chunk;
    }
    return (uint32_t)crc;
}

static stream *streamLoadFail(stream *s, sds *err, sds msg) {
    freeStream(s);
    *err = msg;
    return NULL;
}

/* Reads one entry [id, field, value, ...] and appends it. */
static int streamLoadEntry(stream *s, const cJSON *e, size_t index, const streamID *last_id, int force_new_node,
                           sds *err) {
    sds msg = NULL;
    int n = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : 0;
    if (n < 3 || n % 2 == 0) {
        *err = sdscatprintf(sdsempty(), "entry #%zu: expected [id, field, value, ...]", index);
        return C_ERR;
    }
    streamID id;
    if (jsonGetStreamID(cJSON_GetArrayItem(e, 0), &id, "entry ID", &msg) != C_OK) {
        *err = sdscatprintf(sdsempty(), "entry #%zu: %s", index, msg);
        sdsfree(msg);
        return C_ERR;
    }
    if (streamCompareID(&id, &s->last_id) <= 0) {
        *err = sdscatprintf(sdsempty(), "entry #%zu: IDs must be increasing and greater than 0-0", index);
        return C_ERR;
    }
    if (streamCompareID(&id, last_id) > 0) {
        *err = sdscatprintf(sdsempty(), "entry #%zu: ID greater than the stream's last_id", index);
        return C_ERR;
    }
    int argc = n - 1;
    sds stackv[16];
    sds *argv = argc <= 16 ? stackv : zmalloc(sizeof(sds) * (size_t)argc);
    int got = 0, ret = C_OK;
    const cJSON *item = e->child->next;
    for (; item; item = item->next, got++) {
        if (jsonGetBytes(item, &argv[got], got % 2 ? "entry value" : "entry field", &msg) != C_OK) {
            *err = sdscatprintf(sdsempty(), "entry #%zu: %s", index, msg);
            sdsfree(msg);
            ret = C_ERR;
            break;
        }
    }
    if (ret == C_OK && streamAppendEntry(s, argv, argc / 2, NULL, &id, 1, force_new_node) != C_OK) {
        *err = sdscatprintf(sdsempty(), "entry #%zu: entry too large", index);
        ret = C_ERR;
    }
    for (int i = 0; i < got; i++) sdsfree(argv[i]);
    if (argv != stackv) zfree(argv);
    return ret;
}

/* ------------------------------------------------------------------------
 * Loading entries from the root and from segments
 * --------------------------------------------------------------------- */

/* Where entries come from while loading: the root's "entries", or one
 * segment (only its live ranges). */
typedef struct loadSource {
    const cJSON *item;     /* the next entry to take, NULL once exhausted */
    streamID id;           /* its ID */
    size_t index;          /* its position in its array (messages) */
    streamSegment *seg;    /* NULL: the root's entries */
    streamID *live;        /* segment: live ranges, as pairs */
    size_t nlive;          /* ... how many */
    size_t range;          /* the range the next entry is in */
    size_t last_range;     /* the range of the last entry taken, or SIZE_MAX */
    uint32_t slots_alloc;  /* seg->nodes allocated */
    cJSON *doc;            /* segment: its parsed object (owned) */
} loadSource;

/* A node created while loading, and where its entries came from. */
typedef struct loadNode {
    streamNode *node;      /* the node */
    loadSource *src;       /* its source */
    int gap;               /* dead entries of the segment before it */
} loadNode;

static int entryIDOf(const cJSON *e, streamID *id) {
    if (!cJSON_IsArray(e) || !e->child) return C_ERR;
    sds msg = NULL;
    if (jsonGetStreamID(e->child, id, "entry ID", &msg) != C_OK) {
        sdsfree(msg);
        return C_ERR;
    }
    return C_OK;
}

/* Moves src to its next entry to take (item may be the current one). A
 * malformed entry stops here with its ID zero: streamLoadEntry reports it. */
static void sourceSettle(loadSource *src, const cJSON *item) {
    for (; item; item = item->next, src->index++) {
        if (entryIDOf(item, &src->id) != C_OK) {
            src->id.ms = src->id.seq = 0;
            break;
        }
        if (!src->seg) break;
        while (src->range < src->nlive && streamCompareID(&src->id, &src->live[src->range * 2 + 1]) > 0)
            src->range++;
        if (src->range == src->nlive) {
            item = NULL;
            break;
        }
        if (streamCompareID(&src->id, &src->live[src->range * 2]) >= 0) break;
    }
    src->item = item;
}

/* Reads the segment's own object: its header must agree with the root's
 * record, its entries be in order, as many as it says. */
static int segmentCheckObject(streamSegment *g, cJSON *doc, sds *err) {
    static const char *const fields[] = {"format", "segment", "first_id", "last_id", "count", "entries", NULL};
    if (!cJSON_IsObject(doc)) {
        *err = sdsnew("expected a JSON object");
        return C_ERR;
    }
    if (jsonCheckFields(doc, fields, "object", err) != C_OK) return C_ERR;
    uint64_t format, count;
    streamID first, last;
    sds msg = NULL;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "segment");
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(doc, "format"), &format, "format", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(doc, "first_id"), &first, "first_id", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(doc, "last_id"), &last, "last_id", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(doc, "count"), &count, "count", &msg) != C_OK) {
        *err = msg;
        return C_ERR;
    }
    if (format != PERSIST_SEGMENT_FORMAT) {
        *err = sdscatprintf(sdsempty(), "unsupported format %llu", (unsigned long long)format);
        return C_ERR;
    }
    if (!cJSON_IsString(name) || strcmp(name->valuestring, g->name)) {
        *err = sdsnew("its \"segment\" field is not its name");
        return C_ERR;
    }
    if (streamCompareID(&first, &g->first_id) || streamCompareID(&last, &g->last_id) || count != g->count) {
        *err = sdsnew("first_id, last_id or count differ from the root's record");
        return C_ERR;
    }
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
    if (!cJSON_IsArray(entries)) {
        *err = sdsnew("entries: expected an array");
        return C_ERR;
    }
    uint64_t n = 0;
    streamID prev = {0, 0}, id;
    for (const cJSON *e = entries->child; e; e = e->next, n++) {
        if (entryIDOf(e, &id) != C_OK || (n && streamCompareID(&id, &prev) <= 0) ||
            (n == 0 && streamCompareID(&id, &first)) || streamCompareID(&id, &last) > 0) {
            *err = sdscatprintf(sdsempty(), "entry #%llu: missing, malformed or out of order ID",
                                (unsigned long long)n);
            return C_ERR;
        }
        prev = id;
    }
    if (n != count || (n && streamCompareID(&prev, &last))) {
        *err = sdscatprintf(sdsempty(), "holds %llu entries ending at another ID, its header says %llu",
                            (unsigned long long)n, (unsigned long long)count);
        return C_ERR;
    }
    return C_OK;
}

/* Reads one record of a segment (the root's, or a manifest's: owner) and
 * the segment it names. */
static int segmentLoad(stream *s, const streamLoadRecords *recs, size_t index, loadSource *src, uint64_t *live_count,
                       sds *err) {
    static const char *const fields[] = {"name", "first_id", "last_id", "count", "bytes",
                                         "crc32", "live_count", "live", NULL};
    const cJSON *rec = recs->recs[index];
    streamManifest *owner = recs->owners[index];
    sds msg = NULL;
    char what[200];
    if (owner && !recs->overridden[index])
        snprintf(what, sizeof(what), "manifest %s", owner->name);
    else
        snprintf(what, sizeof(what), "segments");
    if (!cJSON_IsObject(rec)) {
        *err = sdscatprintf(sdsempty(), "%s: expected an object", what);
        return C_ERR;
    }
    if (jsonCheckFields(rec, fields, what, err) != C_OK) return C_ERR;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(rec, "name");
    if (!cJSON_IsString(name) || !segmentNameValid(name->valuestring, strlen(name->valuestring))) {
        *err = sdscatprintf(sdsempty(), "%s: \"name\" must be a segment name ([A-Za-z0-9._-], at most 128)", what);
        return C_ERR;
    }
    streamID first, last;
    uint64_t count, bytes, crc;
    if (jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(rec, "first_id"), &first, "first_id", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(rec, "last_id"), &last, "last_id", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "count"), &count, "count", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "bytes"), &bytes, "bytes", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "crc32"), &crc, "crc32", &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(rec, "live_count"), live_count, "live_count", &msg) != C_OK) {
        *err = sdscatprintf(sdsempty(), "%s (%s): %s", what, name->valuestring, msg);
        sdsfree(msg);
        return C_ERR;
    }
    if (crc > UINT32_MAX || count == 0 || streamCompareID(&first, &last) > 0) {
        *err = sdscatprintf(sdsempty(), "%s (%s): bad crc32, count or ID range", what, name->valuestring);
        return C_ERR;
    }
    streamSegment *g = segmentNew(s, name->valuestring, strlen(name->valuestring), bytes, (uint32_t)crc);
    g->first_id = first;
    g->last_id = last;
    g->count = count;
    g->man = owner;
    g->overridden = recs->overridden[index];
    if (owner) {
        owner->nlive++;
        owner->nover += (uint32_t)g->overridden;
    }
    streamAddSegment(s, g);
    src->seg = g;
    src->last_range = SIZE_MAX;

    const cJSON *live = cJSON_GetObjectItemCaseSensitive(rec, "live");
    int n = cJSON_IsArray(live) ? cJSON_GetArraySize(live) : -1;
    if (n < 0) {
        *err = sdscatprintf(sdsempty(), "%s (%s): \"live\" must be an array", what, g->name);
        return C_ERR;
    }
    src->live = zmalloc(sizeof(streamID) * 2 * (size_t)(n ? n : 1));
    src->nlive = (size_t)n;
    size_t k = 0;
    for (const cJSON *r = live->child; r; r = r->next, k++) {
        streamID *p = src->live + k * 2;
        if (cJSON_GetArraySize(r) != 2 || jsonGetStreamID(r->child, &p[0], "live", &msg) != C_OK ||
            jsonGetStreamID(r->child->next, &p[1], "live", &msg) != C_OK || streamCompareID(&p[0], &p[1]) > 0 ||
            streamCompareID(&p[0], &first) < 0 || streamCompareID(&p[1], &last) > 0 ||
            (k && streamCompareID(&p[0], &src->live[k * 2 - 1]) <= 0)) {
            sdsfree(msg);
            *err = sdscatprintf(sdsempty(), "%s (%s): live range #%zu is malformed, out of order or outside "
                                "first_id..last_id", what, g->name, k);
            return C_ERR;
        }
    }

    const char *data;
    size_t len;
    if (!segmentSourceGet(g->name, &data, &len)) {
        *err = sdscatprintf(sdsempty(), "%s: segment %s is missing from the store", what, g->name);
        return C_ERR;
    }
    if (len != bytes || streamSegmentCRC(data, len) != g->crc) {
        *err = sdscatprintf(sdsempty(), "%s: segment %s is corrupt: %zu bytes with CRC-32 %u, the root records %llu "
                            "bytes with CRC-32 %u", what, g->name, len, streamSegmentCRC(data, len),
                            (unsigned long long)bytes, g->crc);
        return C_ERR;
    }
    src->doc = cJSON_ParseWithLength(data, len);
    if (!src->doc || segmentCheckObject(g, src->doc, &msg) != C_OK) {
        *err = sdscatprintf(sdsempty(), "%s: segment %s: %s", what, g->name, msg ? msg : "invalid JSON");
        sdsfree(msg);
        return C_ERR;
    }
    sourceSettle(src, cJSON_GetObjectItemCaseSensitive(src->doc, "entries")->child);
    return C_OK;
}

/* A binary heap of sources by the ID of their next entry. */
static void sourceHeapPush(loadSource **h, size_t *n, loadSource *src) {
    size_t i = (*n)++;
    while (i && streamCompareID(&src->id, &h[(i - 1) / 2]->id) < 0) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = src;
}

static loadSource *sourceHeapPop(loadSource **h, size_t *n) {
    loadSource *top = h[0], *last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && streamCompareID(&h[c + 1]->id, &h[c]->id) < 0) c++;
        if (streamCompareID(&h[c]->id, &last->id) >= 0) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = last;
    return top;
}

/* Appends every entry: the root's and the segments' live ones, merged in
 * ID order. A node never mixes sources, so that the nodes made from a
 * segment are sealed in it again, exactly as the root says (a node that
 * was sealed in pieces comes back as one node per piece, sealed, and one
 * for its inline entries -- the next root is the same). */
static int streamLoadAllEntries(stream *s, const cJSON *entries, const cJSON *segments, const cJSON *manifests,
                                const streamID *last_id, sds *err) {
    streamLoadRecords recs;
    if (streamLoadRecordsMake(s, manifests, segments, &recs, err) != C_OK) {
        streamLoadRecordsFree(&recs);
        return C_ERR;
    }
    size_t nsrc = recs.n + 1;
    loadSource *src = zcalloc(sizeof(*src) * nsrc);
    loadSource **heap = NULL; /* see below */
    size_t nheap = 0;
    uint64_t *live_counts = zcalloc(sizeof(uint64_t) * nsrc);
    loadNode *made = NULL;
    size_t nmade = 0, made_alloc = 0;
    int ret = C_ERR;

    sourceSettle(&src[0], entries->child);
    size_t i;
    for (i = 1; i < nsrc; i++)
        if (segmentLoad(s, &recs, i - 1, &src[i], &live_counts[i], err) != C_OK) goto done;

    /* The sources with entries left, by the ID of their next one: the
     * first source is taken from until it passes the next one's ID (a
     * backlog sealed into thousands of segments would make a scan of all
     * of them per switch quadratic). */
    heap = zmalloc(sizeof(*heap) * nsrc);
    for (i = 0; i < nsrc; i++)
        if (src[i].item) sourceHeapPush(heap, &nheap, &src[i]);
    loadSource *cur = NULL, *last_src = NULL;
    streamID bound = {UINT64_MAX, UINT64_MAX};
    for (;;) {
        if (!cur || !cur->item || streamCompareID(&cur->id, &bound) > 0) {
            if (cur && cur->item) sourceHeapPush(heap, &nheap, cur);
            if (!nheap) break;
            cur = sourceHeapPop(heap, &nheap);
            bound.ms = bound.seq = UINT64_MAX;
            if (nheap) bound = heap[0]->id;
        }
        int gap = cur->seg && cur->last_range != SIZE_MAX && cur->range != cur->last_range;
        int force = cur != last_src || gap;
        streamNode *before = NULL, *after = NULL;
        idtreeLast(&s->nodes, NULL, (void **)&before);
        sds msg = NULL;
        if (streamLoadEntry(s, cur->item, cur->index, last_id, force, &msg) != C_OK) {
            *err = cur->seg ? sdscatprintf(sdsempty(), "segment %s: %s", cur->seg->name, msg) : sdsdup(msg);
            sdsfree(msg);
            goto done;
        }
        idtreeLast(&s->nodes, NULL, (void **)&after);
        if (after != before) {
            if (nmade == made_alloc) {
                made_alloc = made_alloc ? made_alloc * 2 : 64;
                made = zrealloc(made, made_alloc * sizeof(*made));
            }
            made[nmade++] = (loadNode){after, cur, gap};
        }
        cur->last_range = cur->range;
        last_src = cur;
        cur->index++;
        sourceSettle(cur, cur->item->next);
    }

    zfree(heap);
    heap = NULL;

    /* Seal the nodes made from segments again. */
    for (size_t m = 0; m < nmade; m++) {
        loadSource *ms = made[m].src;
        if (!ms->seg) continue;
        streamNode *n = made[m].node;
        if (made[m].gap) segmentAddSlot(ms->seg, &ms->slots_alloc, NULL);
        nodeAddPiece(s, n, ms->seg, &ms->slots_alloc, 0, n->count, n->idx_used, sdslen(n->json));
    }
    for (i = 1; i < nsrc; i++) {
        streamSegment *g = src[i].seg;
        if (g->live != live_counts[i]) {
            *err = sdscatprintf(sdsempty(), "segment %s: %llu live entries found, the root records %llu", g->name,
                                (unsigned long long)g->live, (unsigned long long)live_counts[i]);
            goto done;
        }
    }
    /* A segment nothing is taken from any more is not named again. */
    for (uint32_t k = s->nsegs; k-- > 0;)
        if (!s->segs[k]->nlive) streamDropSegment(s, s->segs[k]);
    streamManifestsSettle(s);
    ret = C_OK;
done:
    zfree(heap);
    streamLoadRecordsFree(&recs);
    for (i = 0; i < nsrc; i++) {
        zfree(src[i].live);
        cJSON_Delete(src[i].doc);
    }
    zfree(src);
    zfree(live_counts);
    zfree(made);
    return ret;
}

stream *streamFromJSON(const cJSON *obj, sds *err) {
    stream *s = streamNew();
    sds msg = NULL;
    if (!cJSON_IsObject(obj)) return streamLoadFail(s, err, sdsnew("stream: expected an object"));
    static const char *const fields[] = {"length",  "last_id",   "first_id", "max_deleted_id",
                                         "entries_added", "segments", "manifests", "entries",
                                         "groups",  "idmp",      NULL};
    if (jsonCheckFields(obj, fields, "stream", &msg) != C_OK) return streamLoadFail(s, err, msg);

    uint64_t length, entries_added;
    streamID last_id, first_id, max_deleted;
    if (jsonGetU64(cJSON_GetObjectItemCaseSensitive(obj, "length"), &length, "length", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(obj, "last_id"), &last_id, "last_id", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(obj, "first_id"), &first_id, "first_id", &msg) != C_OK ||
        jsonGetStreamID(cJSON_GetObjectItemCaseSensitive(obj, "max_deleted_id"), &max_deleted, "max_deleted_id",
                        &msg) != C_OK ||
        jsonGetU64(cJSON_GetObjectItemCaseSensitive(obj, "entries_added"), &entries_added, "entries_added", &msg) !=
            C_OK)
        return streamLoadFail(s, err, msg);

    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(obj, "entries");
    if (!cJSON_IsArray(entries)) return streamLoadFail(s, err, sdsnew("entries: expected an array"));
    if (streamLoadAllEntries(s, entries, cJSON_GetObjectItemCaseSensitive(obj, "segments"),
                             cJSON_GetObjectItemCaseSensitive(obj, "manifests"), &last_id, &msg) != C_OK)
        return streamLoadFail(s, err, msg);
    if (s->length != length)
        return streamLoadFail(s, err,
                              sdscatprintf(sdsempty(), "length is %llu but %llu entries are listed",
                                           (unsigned long long)length, (unsigned long long)s->length));
    if (entries_added < length) return streamLoadFail(s, err, sdsnew("entries_added is smaller than length"));
    if (entries_added > (uint64_t)LLONG_MAX)
        return streamLoadFail(s, err, sdsnew("entries_added is larger than 9223372036854775807 (no command sets more)"));
    streamID expect_first = {0, 0};
    if (length) streamFirstValidID(s, &expect_first);
    if (streamCompareID(&first_id, &expect_first) != 0)
        return streamLoadFail(s, err, sdsnew("first_id does not match the first entry (0-0 when empty)"));
    if (streamCompareID(&max_deleted, &last_id) > 0)
        return streamLoadFail(s, err, sdsnew("max_deleted_id is greater than last_id"));
    s->last_id = last_id;
    s->first_id = first_id;
    s->max_deleted_entry_id = max_deleted;
    s->entries_added = entries_added;

    if (streamGroupsFromJSON(s, cJSON_GetObjectItemCaseSensitive(obj, "groups"), &msg) != C_OK)
        return streamLoadFail(s, err, msg);
    const cJSON *idmp = cJSON_GetObjectItemCaseSensitive(obj, "idmp");
    if (idmp && streamIdmpFromJSON(s, idmp, &msg) != C_OK) return streamLoadFail(s, err, msg);
    return s;
}

/* ========================================================================
 * The stream type (server.h, objectType)
 * ===================================================================== */

static void streamTypeFree(void *ptr) { freeStream(ptr); }

static void *streamTypeDup(const void *ptr) { return streamDup(ptr); }

static const char *streamTypeEncoding(const robj *o) {
    (void)o;
    return "stream";
}

static size_t streamTypeComputeSize(const robj *o, long long samples) {
    return streamObjectComputeSize(o->ptr, samples);
}

static size_t streamTypeJSONBytes(const robj *o) { return streamEntriesJSONBytes(o->ptr); }

static sds streamTypeCatJSON(sds out, robj *o) { return streamCatJSON(out, o->ptr); }

static void streamTypeDocJSON(storeDoc *d, robj *o) { streamDocJSON(d, o->ptr); }

static void *streamTypeFromJSON(const cJSON *v, sds *err) { return streamFromJSON(v, err); }

const objectType streamObjectType = {
    .type = OBJ_STREAM,
    .name = "stream",
    .free = streamTypeFree,
    .dup = streamTypeDup,
    .encoding = streamTypeEncoding,
    .computeSize = streamTypeComputeSize,
    .jsonBytes = streamTypeJSONBytes,
    .catJSON = streamTypeCatJSON,
    .docJSON = streamTypeDocJSON,
    .fromJSON = streamTypeFromJSON,
};

/* ========================================================================
 * Command table (arity, flags and key positions as Redis 7.2)
 * ===================================================================== */

static struct redisCommand xgroupSubcommands[] = {
    {"create", xgroupCommand, -5, CMD_WRITE | CMD_DENYOOM, 2, 2, 1, "write stream slow", NULL},
    {"setid", xgroupCommand, -5, CMD_WRITE, 2, 2, 1, "write stream slow", NULL},
    {"priority", xgroupCommand, -5, CMD_WRITE, 2, 2, 1, "write stream slow", NULL},
    {"destroy", xgroupCommand, 4, CMD_WRITE, 2, 2, 1, "write stream slow", NULL},
    {"createconsumer", xgroupCommand, 5, CMD_WRITE | CMD_DENYOOM, 2, 2, 1, "write stream slow", NULL},
    {"delconsumer", xgroupCommand, 5, CMD_WRITE, 2, 2, 1, "write stream slow", NULL},
    {"help", xgroupCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "stream slow", NULL},
    {0},
};

static struct redisCommand xinfoSubcommands[] = {
    {"consumers", xinfoCommand, 4, CMD_READONLY, 2, 2, 1, "read stream slow", NULL},
    {"groups", xinfoCommand, 3, CMD_READONLY, 2, 2, 1, "read stream slow", NULL},
    {"stream", xinfoCommand, -3, CMD_READONLY, 2, 2, 1, "read stream slow", NULL},
    {"help", xinfoCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "stream slow", NULL},
    {0},
};

struct redisCommand streamCommandTable[] = {
    {"xadd", xaddCommand, -5, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xrange", xrangeCommand, -4, CMD_READONLY, 1, 1, 1, "read stream slow", NULL},
    {"xrevrange", xrevrangeCommand, -4, CMD_READONLY, 1, 1, 1, "read stream slow", NULL},
    {"xlen", xlenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read stream fast", NULL},
    {"xread", xreadCommand, -4, CMD_READONLY | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0, "read stream slow blocking",
     NULL},
    {"xreadgroup", xreadCommand, -7, CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0,
     "write stream slow blocking", NULL},
    {"xdel", xdelCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xdelex", xdelexCommand, -5, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xackdel", xackdelCommand, -6, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xcfgset", xcfgsetCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xnack", xnackCommand, -7, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xdeadletter", xdeadletterCommand, -4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write stream slow", NULL},
    {"xtrim", xtrimCommand, -4, CMD_WRITE, 1, 1, 1, "write stream slow", NULL},
    {"xsetid", xsetidCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xack", xackCommand, -4, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xclaim", xclaimCommand, -6, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xautoclaim", xautoclaimCommand, -6, CMD_WRITE | CMD_FAST, 1, 1, 1, "write stream fast", NULL},
    {"xpending", xpendingCommand, -3, CMD_READONLY, 1, 1, 1, "read stream slow", NULL},
    {"xgroup", NULL, -2, 0, 0, 0, 0, "slow", xgroupSubcommands},
    {"xinfo", NULL, -2, 0, 0, 0, 0, "slow", xinfoSubcommands},
    {0},
};
