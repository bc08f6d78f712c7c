/* t_list.c -- the list type: LPUSH/RPUSH, pops, ranges, LMOVE, LMPOP and
 * the blocking pops (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP).
 *
 * Semantics are Redis 7.2's t_list.c. A list is a chain of chunks of up to
 * LIST_CHUNK_MAX elements or LIST_CHUNK_BYTES bytes, each packing its
 * elements, length-prefixed, in one buffer (a deque, with room at both
 * ends), as Redis's quicklist is a chain of listpacks. Every chunk of a big
 * list caches the JSON of its elements for the state document and lends
 * it (docTextRef) to the
 * document being written: a list used as a queue, pushed at one end and
 * popped at the other, re-encodes only the chunks at its two ends at each
 * commit, never the whole list.
 *
 * OBJECT ENCODING reports what Redis would use: "listpack" while the list
 * would fit in one listpack under list-max-listpack-size, "quicklist"
 * beyond, and back to "listpack" once it shrinks under half the limit
 * (Redis's hysteresis). The sizes are computed as a listpack would store
 * the elements.
 *
 * A blocking pop that finds nothing blocks on its keys (blocked.c, type
 * OBJ_LIST); when one of them gets a list, the command runs again, as in
 * Redis 7.2. */
#include "server.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "chunkseg.h"
#include "jsonutil.h"
#include "persist.h"
#include "store.h"

#define LIST_HEAD 0
#define LIST_TAIL 1
#define LIST_CHUNK_MAX 128 /* elements per chunk before another starts */

#define LIST_CHUNK_BYTES 8192 /* ... or bytes, as Redis's 8 kB quicklist nodes */

/* ========================================================================
 * The data structure
 * ===================================================================== */

/* A chunk packs its elements back to back in buf[bstart .. bend), with
 * room kept at both ends, each as its length (a varint: 7 bits a byte,
 * low bits first) and its bytes -- one byte of overhead for an element
 * shorter than 128 bytes, as a listpack entry's header. Element i is found
 * by walking from the first (a chunk has at most LIST_CHUNK_MAX), as in a
 * listpack; a listPos remembers the byte offset it reached.
 *
 * A full chunk whose elements are all plain text (their JSON is each one's
 * bytes between quotes, nothing escaped) is "frozen" once its JSON is
 * made for a document: the JSON, which the chunk keeps for the documents
 * anyway, then holds the elements and the packed buffer goes, so such a
 * chunk costs its JSON only (an element's bytes and 3). Reads walk the
 * JSON from quote to quote; a change thaws the chunk first (rebuilds the
 * buffer, drops the JSON, which a document may still be borrowing). */
typedef struct listChunk {
    struct listChunk *prev, *next;
    char *buf;         /* NULL while frozen */
    size_t bstart, bend, bcap; /* frozen: 0, the bytes buf would use, 0 */
    int n;             /* elements */
    int frozen;        /* the elements live in json only (below) */
    sds json;          /* cached: the elements' JSON, comma separated; NULL
                        * when stale */
    uint64_t json_pin; /* docTextRef pin of json */
    chunkRef ref;      /* its chunk segment, if sealed (chunkseg.h) */
} listChunk;

typedef struct rlist {
    listChunk *head, *tail;
    long len;          /* elements */
    unsigned long chunks;
    size_t lpbytes;    /* what the elements take in a listpack */
    int quicklist;     /* Redis's encoding: 0 listpack, 1 quicklist */
} rlist;

/* Where an element is. */
typedef struct listPos {
    listChunk *ch;
    int i;      /* index inside the chunk (0 .. ch->n) */
    size_t off; /* byte offset of its entry in ch->buf */
} listPos;

/* --- listpack sizes (Redis's listpack.c encoding rules) --- */

static size_t lpBacklen(size_t l) {
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

static size_t lpEntrySize(const char *s, size_t len) {
    long long v;
    size_t l;
    if (len <= 20 && string2ll(s, len, &v)) {
        if (v >= 0 && v <= 127) l = 1;
        else if (v >= -4096 && v <= 4095) l = 2;
        else if (v >= -32768 && v <= 32767) l = 3;
        else if (v >= -8388608 && v <= 8388607) l = 4;
        else if (v >= -2147483648LL && v <= 2147483647LL) l = 5;
        else l = 9;
    } else if (len < 64) {
        l = 1 + len;
    } else if (len < 4096) {
        l = 2 + len;
    } else {
        l = 5 + len;
    }
    return l + lpBacklen(l);
}

#define LP_HDR_SIZE 7 /* header (6) and end byte (1) */

/* Redis's quicklistNodeExceedsLimit for list-max-listpack-size. */
static int listExceedsLimit(size_t bytes, long count, int shrinking) {
    long long fill = server.cfg.list_max_listpack_size;
    size_t size_limit;
    long long count_limit;
    if (fill >= 0) {
        size_limit = 8192; /* SIZE_SAFETY_LIMIT */
        count_limit = fill ? fill : 1;
    } else {
        int level = (int)(-fill - 1);
        if (level > 4) level = 4;
        size_limit = (size_t)4096 << level;
        count_limit = -1;
    }
    if (shrinking) {
        size_limit /= 2;
        if (count_limit > 0) count_limit /= 2;
    }
    if (bytes > size_limit) return 1;
    if (count_limit >= 0 && count > count_limit) return 1;
    return 0;
}

/* --- a chunk's entries --- */

/* Bytes of an entry holding len bytes. */
static inline size_t entrySize(size_t len) {
    size_t n = 1;
    for (size_t l = len; l >= 0x80; l >>= 7) n++;
    return n + len;
}

/* Writes the entry of v[0..len) at p; returns its end. */
static inline char *entryPut(char *p, const char *v, size_t len) {
    size_t l = len;
    while (l >= 0x80) {
        *p++ = (char)(unsigned char)(l | 0x80);
        l >>= 7;
    }
    *p++ = (char)(unsigned char)l;
    if (len) memcpy(p, v, len);
    return p + len;
}

/* The bytes of the entry at p (their length in *len). */
static inline const char *entryGet(const char *p, size_t *len) {
    const unsigned char *u = (const unsigned char *)p;
    size_t l = 0;
    int shift = 0;
    while (*u & 0x80) {
        l |= (size_t)(*u++ & 0x7f) << shift;
        shift += 7;
    }
    l |= (size_t)*u++ << shift;
    *len = l;
    return (const char *)u;
}

/* The bytes of the entry at offset off (in buf, or in json if frozen);
 * *next is the following entry's offset. */
static inline const char *chunkEntry(const listChunk *ch, size_t off, size_t *len, size_t *next) {
    if (ch->frozen) {
        const char *v = ch->json + off + 1; /* after the opening quote */
        const char *q = memchr(v, '"', sdslen(ch->json) - off - 1);
        *len = (size_t)(q - v);
        *next = off + *len + 3; /* the quotes and the comma */
        return v;
    }
    const char *v = entryGet(ch->buf + off, len);
    *next = (size_t)(v - ch->buf) + *len;
    return v;
}

/* Byte offset of element i's entry (i == n: the end). */
static size_t chunkOffsetOf(const listChunk *ch, int i) {
    size_t off = ch->frozen ? 0 : ch->bstart;
    while (i-- > 0) {
        size_t len;
        chunkEntry(ch, off, &len, &off);
    }
    return off;
}

static inline listPos posAt(listChunk *ch, int i) {
    listPos p = {ch, i, chunkOffsetOf(ch, i)};
    return p;
}

static listChunk *chunkNew(void) {
    listChunk *ch = zcalloc(sizeof(listChunk));
    chunkRefInit(&ch->ref);
    return ch;
}

/* The chunk's elements change: its cached JSON goes (to the document that
 * borrowed it, if any). */
static void chunkDirty(listChunk *ch) {
    /* A frozen chunk's JSON holds its elements: every change thaws the
     * chunk first (chunkThaw). */
    serverAssert(!ch->frozen);
    chunkRefChanged(&ch->ref);
    if (!ch->json) return;
    docTextFree(ch->json, ch->json_pin);
    ch->json = NULL;
    ch->json_pin = 0;
}

static void chunkFree(listChunk *ch) {
    chunkRefFreed(&ch->ref);
    if (ch->json) docTextFree(ch->json, ch->json_pin);
    zfree(ch->buf);
    zfree(ch);
}

static inline size_t chunkBytes(const listChunk *ch) { return ch->bend - ch->bstart; }

/* A frozen chunk gets its buffer back, before a change. */
static void chunkThaw(listChunk *ch) {
    if (!ch->frozen) return;
    size_t used = chunkBytes(ch), off = 0, w = 0;
    char *nb = zmalloc(used ? used : 1);
    for (int i = 0; i < ch->n; i++) {
        size_t len;
        const char *v = chunkEntry(ch, off, &len, &off);
        w = (size_t)(entryPut(nb + w, v, len) - nb);
    }
    ch->buf = nb;
    ch->bstart = 0;
    ch->bend = ch->bcap = used;
    ch->frozen = 0;
    chunkDirty(ch);
}

/* Room for `need` more bytes at the end of buf. */
static void chunkBytesRoomAtEnd(listChunk *ch, size_t need) {
    if (ch->bcap - ch->bend >= need) return;
    size_t used = ch->bend - ch->bstart;
    if (ch->bstart >= need && used + need <= ch->bcap / 2 + need) {
        /* Slide to the front: the room at the start is not used. */
        memmove(ch->buf, ch->buf + ch->bstart, used);
        ch->bend = used;
        ch->bstart = 0;
        if (ch->bcap - ch->bend >= need) return;
    }
    size_t newcap = ch->bcap ? ch->bcap * 2 : 16;
    while (newcap - ch->bend < need) newcap *= 2;
    ch->buf = zrealloc(ch->buf, newcap);
    ch->bcap = newcap;
}

/* Room for `need` more bytes before bstart. */
static void chunkBytesRoomAtStart(listChunk *ch, size_t need) {
    if (ch->bstart >= need) return;
    size_t used = ch->bend - ch->bstart;
    size_t newcap = ch->bcap ? ch->bcap * 2 : 16;
    while (newcap < used + need + used / 2) newcap *= 2;
    char *nb = zmalloc(newcap);
    size_t nstart = newcap - used;
    if (used) memcpy(nb + nstart, ch->buf + ch->bstart, used);
    zfree(ch->buf);
    ch->buf = nb;
    ch->bcap = newcap;
    ch->bstart = nstart;
    ch->bend = newcap;
}

static rlist *rlistNew(void) { return zcalloc(sizeof(rlist)); }

static void rlistFree(rlist *l) {
    listChunk *ch = l->head;
    while (ch) {
        listChunk *next = ch->next;
        chunkFree(ch);
        ch = next;
    }
    zfree(l);
}

static void rlistLinkAfter(rlist *l, listChunk *after, listChunk *ch) {
    ch->prev = after;
    ch->next = after ? after->next : l->head;
    if (ch->next) ch->next->prev = ch;
    else l->tail = ch;
    if (after) after->next = ch;
    else l->head = ch;
    l->chunks++;
}

static void rlistUnlink(rlist *l, listChunk *ch) {
    if (ch->prev) ch->prev->next = ch->next;
    else l->head = ch->next;
    if (ch->next) ch->next->prev = ch->prev;
    else l->tail = ch->prev;
    l->chunks--;
}

static inline int chunkFull(const listChunk *ch) {
    return ch->n >= LIST_CHUNK_MAX || chunkBytes(ch) >= LIST_CHUNK_BYTES;
}

/* A full chunk that another one now follows (or precedes) gives back the
 * room it kept for growing. */
static void chunkShrinkToFit(listChunk *ch) {
    if (ch->frozen) return;
    size_t used = chunkBytes(ch);
    if (ch->bcap > used) {
        char *nb = zmalloc(used ? used : 1);
        if (used) memcpy(nb, ch->buf + ch->bstart, used);
        zfree(ch->buf);
        ch->buf = nb;
        ch->bcap = used;
        ch->bstart = 0;
        ch->bend = used;
    }
}

/* Appends a copy of v[0..len) at the head or the tail; fresh: in a new
 * chunk (at the tail). */
static void rlistPushChunk(rlist *l, const char *v, size_t len, int where, int fresh) {
    size_t esize = entrySize(len);
    l->len++;
    l->lpbytes += lpEntrySize(v, len);
    if (where == LIST_TAIL) {
        listChunk *ch = l->tail;
        if (!ch || chunkFull(ch) || fresh) {
            if (ch) chunkShrinkToFit(ch);
            ch = chunkNew();
            rlistLinkAfter(l, l->tail, ch);
        }
        chunkThaw(ch);
        chunkBytesRoomAtEnd(ch, esize);
        entryPut(ch->buf + ch->bend, v, len);
        ch->bend += esize;
        ch->n++;
        chunkDirty(ch);
    } else {
        listChunk *ch = l->head;
        if (!ch || chunkFull(ch)) {
            if (ch) chunkShrinkToFit(ch);
            ch = chunkNew();
            rlistLinkAfter(l, NULL, ch);
        }
        chunkThaw(ch);
        chunkBytesRoomAtStart(ch, esize);
        ch->bstart -= esize;
        entryPut(ch->buf + ch->bstart, v, len);
        ch->n++;
        chunkDirty(ch);
    }
}

static void rlistPush(rlist *l, const char *v, size_t len, int where) { rlistPushChunk(l, v, len, where, 0); }

/* Removes the element at p and returns it (a new sds). */
static sds rlistTake(rlist *l, listPos p) {
    listChunk *ch = p.ch;
    if (ch->frozen) {
        chunkThaw(ch);
        p.off = chunkOffsetOf(ch, p.i);
    }
    size_t len;
    const char *ptr = entryGet(ch->buf + p.off, &len);
    sds v = sdsnewlen(ptr, len);
    size_t start = p.off, esize = entrySize(len);
    if (p.i == 0) {
        ch->bstart = start + esize;
    } else if (p.i == ch->n - 1) {
        ch->bend = start;
    } else {
        memmove(ch->buf + start, ch->buf + start + esize, ch->bend - start - esize);
        ch->bend -= esize;
    }
    ch->n--;
    chunkDirty(ch);
    if (ch->n == 0) {
        rlistUnlink(l, ch);
        chunkFree(ch);
    }
    l->len--;
    l->lpbytes -= lpEntrySize(v, len);
    return v;
}

static sds rlistPop(rlist *l, int where) {
    if (!l->len) return NULL;
    listPos p = where == LIST_HEAD ? posAt(l->head, 0) : posAt(l->tail, l->tail->n - 1);
    return rlistTake(l, p);
}

/* Position of element `index` (negative from the tail); 0 if out of
 * range. */
static int rlistSeek(rlist *l, long index, listPos *p) {
    if (index < 0) index += l->len;
    if (index < 0 || index >= l->len) return 0;
    if (index < l->len / 2) {
        listChunk *ch = l->head;
        while (index >= ch->n) {
            index -= ch->n;
            ch = ch->next;
        }
        *p = posAt(ch, (int)index);
    } else {
        long back = l->len - 1 - index;
        listChunk *ch = l->tail;
        while (back >= ch->n) {
            back -= ch->n;
            ch = ch->prev;
        }
        *p = posAt(ch, ch->n - 1 - (int)back);
    }
    return 1;
}

static inline const char *posGet(listPos p, size_t *len) {
    size_t next;
    return chunkEntry(p.ch, p.off, len, &next);
}

static inline int posEquals(listPos p, const char *s, size_t len) {
    size_t vlen;
    const char *v = posGet(p, &vlen);
    return vlen == len && (len == 0 || memcmp(v, s, len) == 0);
}

/* Moves p one step forward (dir LIST_TAIL) or back; 0 at the end. A step
 * back inside a chunk walks it from its start. */
static int posNext(listPos *p, int dir) {
    if (dir == LIST_TAIL) {
        if (++p->i < p->ch->n) {
            size_t len;
            chunkEntry(p->ch, p->off, &len, &p->off);
            return 1;
        }
        p->ch = p->ch->next;
        if (!p->ch) return 0;
        *p = posAt(p->ch, 0);
        return 1;
    }
    if (--p->i >= 0) {
        p->off = chunkOffsetOf(p->ch, p->i);
        return 1;
    }
    p->ch = p->ch->prev;
    if (!p->ch) return 0;
    *p = posAt(p->ch, p->ch->n - 1);
    return 1;
}

/* Moves the elements from index `from` on of ch into a new chunk after
 * it. */
static void chunkSplit(rlist *l, listChunk *ch, int from) {
    chunkThaw(ch);
    listChunk *nc = chunkNew();
    size_t bfrom = chunkOffsetOf(ch, from);
    size_t bytes = ch->bend - bfrom;
    chunkBytesRoomAtEnd(nc, bytes);
    memcpy(nc->buf, ch->buf + bfrom, bytes);
    nc->bend = bytes;
    nc->n = ch->n - from;
    ch->bend = bfrom;
    ch->n = from;
    chunkDirty(ch);
    rlistLinkAfter(l, ch, nc);
}

/* Inserts a copy of v[0..len) before (after=0) or after p. */
static void rlistInsert(rlist *l, listPos p, const char *v, size_t len, int after) {
    listChunk *ch = p.ch;
    chunkThaw(ch);
    int at = p.i + (after ? 1 : 0);
    if (ch->n >= 2 * LIST_CHUNK_MAX || chunkBytes(ch) >= 2 * LIST_CHUNK_BYTES) {
        int half = ch->n / 2;
        if (half > 0) {
            chunkSplit(l, ch, half);
            if (at > half) {
                ch = ch->next;
                at -= half;
            }
        }
    }
    size_t esize = entrySize(len);
    chunkBytesRoomAtEnd(ch, esize);
    size_t pos = chunkOffsetOf(ch, at); /* after the buffer may have slid */
    memmove(ch->buf + pos + esize, ch->buf + pos, ch->bend - pos);
    entryPut(ch->buf + pos, v, len);
    ch->bend += esize;
    ch->n++;
    chunkDirty(ch);
    l->len++;
    l->lpbytes += lpEntrySize(v, len);
}

static void rlistReplace(rlist *l, listPos p, const char *v, size_t len) {
    listChunk *ch = p.ch;
    if (ch->frozen) {
        chunkThaw(ch);
        p.off = chunkOffsetOf(ch, p.i);
    }
    if (ch->n == 1) {
        /* Taking the only element would free the chunk. */
        size_t olen;
        const char *old = posGet(p, &olen);
        l->lpbytes -= lpEntrySize(old, olen);
        l->lpbytes += lpEntrySize(v, len);
        size_t esize = entrySize(len);
        ch->bstart = ch->bend = 0;
        chunkBytesRoomAtEnd(ch, esize);
        entryPut(ch->buf, v, len);
        ch->bend = esize;
        chunkDirty(ch);
        return;
    }
    sdsfree(rlistTake(l, p));
    if (p.i < ch->n) {
        rlistInsert(l, posAt(ch, p.i), v, len, 0);
    } else {
        rlistInsert(l, posAt(ch, ch->n - 1), v, len, 1);
    }
}

static rlist *rlistDup(const rlist *src) {
    rlist *l = rlistNew();
    for (listChunk *ch = src->head; ch; ch = ch->next) {
        size_t off = chunkOffsetOf(ch, 0);
        for (int i = 0; i < ch->n; i++) {
            size_t len;
            const char *v = chunkEntry(ch, off, &len, &off);
            rlistPush(l, v, len, LIST_TAIL);
        }
    }
    l->quicklist = src->quicklist;
    return l;
}

/* ========================================================================
 * Encoding (Redis's listTypeTryConversion rules)
 * ===================================================================== */

/* Before adding: the elements argv[0..n) would make a listpack too big. */
static void listTryConversionGrowing(rlist *l, sds *argv, int n) {
    if (l->quicklist) return;
    size_t add = 0;
    for (int i = 0; i < n; i++) add += lpEntrySize(argv[i], sdslen(argv[i]));
    if (listExceedsLimit(LP_HDR_SIZE + l->lpbytes + add, l->len + n, 0)) l->quicklist = 1;
}

static void listTryConversionShrinking(rlist *l) {
    if (!l->quicklist) return;
    if (!listExceedsLimit(LP_HDR_SIZE + l->lpbytes, l->len, 1)) l->quicklist = 0;
}

/* ========================================================================
 * Replies and helpers
 * ===================================================================== */

static robj *createListObject(void) { return createObject(OBJ_LIST, rlistNew()); }

static int getListPositionFromObjectOrReply(client *c, sds arg, int *where) {
    if (!strcasecmp(arg, "right")) *where = LIST_TAIL;
    else if (!strcasecmp(arg, "left")) *where = LIST_HEAD;
    else {
        addReplyErrorSyntax(c);
        return C_ERR;
    }
    return C_OK;
}

/* Elements [start, end] (normalised, in range), reversed if rev (start
 * then counts from the tail). */
static void addListRangeReply(client *c, rlist *l, long start, long end, int rev) {
    long rangelen = end - start + 1;
    addReplyArrayLen(c, rangelen);
    listPos p;
    rlistSeek(l, rev ? -start - 1 : start, &p);
    while (rangelen--) {
        size_t vlen;
        const char *v = posGet(p, &vlen);
        addReplyBulk(c, v, vlen);
        posNext(&p, rev ? LIST_HEAD : LIST_TAIL);
    }
}

/* After elements were removed: deletes the key when empty, else tries the
 * listpack encoding again; signals the change. */
static void listElementsRemoved(client *c, sds key, robj *o, int *deleted) {
    rlist *l = o->ptr;
    if (l->len == 0) {
        dbDelete(c->db, key);
        signalModifiedKey(c, c->db, key, NULL);
        if (deleted) *deleted = 1;
    } else {
        listTryConversionShrinking(l);
        signalModifiedKey(c, c->db, key, o);
        if (deleted) *deleted = 0;
    }
}

/* Pops up to count elements of a non-empty list and replies [key,
 * [elements]] (LMPOP/BLMPOP). */
static void listPopRangeAndReplyWithKey(client *c, robj *o, sds key, int where, long count) {
    rlist *l = o->ptr;
    long rangelen = count > l->len ? l->len : count;
    addReplyArrayLen(c, 2);
    addReplyBulk(c, key, sdslen(key));
    addReplyArrayLen(c, rangelen);
    for (long i = 0; i < rangelen; i++) {
        sds v = rlistPop(l, where);
        addReplyBulk(c, v, sdslen(v));
        sdsfree(v);
    }
    listElementsRemoved(c, key, o, NULL);
}

/* ========================================================================
 * Push and pop
 * ===================================================================== */

static void pushGenericCommand(client *c, int where, int xx) {
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    if (!o) {
        if (xx) {
            addReplyLongLong(c, 0);
            return;
        }
        o = createListObject();
        dbAdd(c->db, c->argv[1], o);
    }
    rlist *l = o->ptr;
    listTryConversionGrowing(l, c->argv + 2, c->argc - 2);
    for (int j = 2; j < c->argc; j++) rlistPush(l, c->argv[j], sdslen(c->argv[j]), where);
    addReplyLongLong(c, l->len);
    signalModifiedKey(c, c->db, c->argv[1], o);
}

static void lpushCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 0); }
static void rpushCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 0); }
static void lpushxCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 1); }
static void rpushxCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 1); }

static void popGenericCommand(client *c, int where) {
    int hascount = c->argc == 3;
    long count = 0;
    if (c->argc > 3) {
        addReplyErrorArity(c);
        return;
    }
    if (hascount && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, "value is out of range, must be positive") !=
                        C_OK)
        return;
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (!o) {
        if (hascount) addReplyNullArray(c);
        else addReplyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    if (hascount && !count) {
        addReplyArrayLen(c, 0);
        return;
    }
    rlist *l = o->ptr;
    if (!count) {
        sds v = rlistPop(l, where);
        addReplyBulk(c, v, sdslen(v));
        sdsfree(v);
    } else {
        long rangelen = count > l->len ? l->len : count;
        addReplyArrayLen(c, rangelen);
        for (long i = 0; i < rangelen; i++) {
            sds v = rlistPop(l, where);
            addReplyBulk(c, v, sdslen(v));
            sdsfree(v);
        }
    }
    listElementsRemoved(c, c->argv[1], o, NULL);
}

static void lpopCommand(client *c) { popGenericCommand(c, LIST_HEAD); }
static void rpopCommand(client *c) { popGenericCommand(c, LIST_TAIL); }

/* ========================================================================
 * Reads
 * ===================================================================== */

static void llenCommand(client *c) {
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    addReplyLongLong(c, o ? ((rlist *)o->ptr)->len : 0);
}

static void lindexCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK) return;
    listPos p;
    if (!rlistSeek(o->ptr, index, &p)) {
        addReplyNull(c);
        return;
    }
    size_t vlen;
    const char *v = posGet(p, &vlen);
    addReplyBulk(c, v, vlen);
}

static void lrangeCommand(client *c) {
    long start, end;
    if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    if (!o) {
        addReplyArrayLen(c, 0);
        return;
    }
    rlist *l = o->ptr;
    long llen = l->len;
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        addReplyArrayLen(c, 0);
        return;
    }
    if (end >= llen) end = llen - 1;
    addListRangeReply(c, l, start, end, 0);
}

static void lposCommand(client *c) {
    sds ele = c->argv[2];
    int direction = LIST_TAIL;
    long rank = 1, count = -1, maxlen = 0;
    for (int j = 3; j < c->argc; j++) {
        sds opt = c->argv[j];
        int moreargs = (c->argc - 1) - j;
        if (!strcasecmp(opt, "RANK") && moreargs) {
            j++;
            if (getRangeLongFromObjectOrReply(c, c->argv[j], -LONG_MAX, LONG_MAX, &rank, NULL) != C_OK) return;
            if (rank == 0) {
                addReplyError(c, "RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                                 "or use negative to start from the end of the list");
                return;
            }
        } else if (!strcasecmp(opt, "COUNT") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &count, "COUNT can't be negative") != C_OK) return;
        } else if (!strcasecmp(opt, "MAXLEN") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &maxlen, "MAXLEN can't be negative") != C_OK) return;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    if (rank < 0) {
        rank = -rank;
        direction = LIST_HEAD;
    }
    robj *o = lookupKeyRead(c, c->db, c->argv[1]);
    if (!o) {
        if (count != -1) addReplyArrayLen(c, 0);
        else addReplyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    rlist *l = o->ptr;
    void *lenptr = count != -1 ? addReplyDeferredLen(c) : NULL;
    long index = 0, matches = 0, matchindex = -1, arraylen = 0;
    listPos p;
    int valid = rlistSeek(l, direction == LIST_HEAD ? -1 : 0, &p);
    while (valid && (maxlen == 0 || index < maxlen)) {
        if (posEquals(p, ele, sdslen(ele))) {
            matches++;
            matchindex = direction == LIST_TAIL ? index : l->len - index - 1;
            if (matches >= rank) {
                if (lenptr) {
                    arraylen++;
                    addReplyLongLong(c, matchindex);
                    if (count && matches - rank + 1 >= count) break;
                } else {
                    break;
                }
            }
        }
        index++;
        matchindex = -1;
        valid = posNext(&p, direction);
    }
    if (lenptr) setDeferredArrayLen(c, lenptr, arraylen);
    else if (matchindex != -1) addReplyLongLong(c, matchindex);
    else addReplyNull(c);
}

/* ========================================================================
 * In-place changes
 * ===================================================================== */

static void lsetCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], "-ERR no such key\r\n");
    if (!o || checkType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK) return;
    rlist *l = o->ptr;
    listTryConversionGrowing(l, c->argv + 3, 1);
    listPos p;
    if (!rlistSeek(l, index, &p)) {
        addReplyError(c, "index out of range");
        return;
    }
    rlistReplace(l, p, c->argv[3], sdslen(c->argv[3]));
    addReplyOk(c);
    listTryConversionShrinking(l);
    signalModifiedKey(c, c->db, c->argv[1], o);
}

static void linsertCommand(client *c) {
    int after;
    if (!strcasecmp(c->argv[2], "after")) after = 1;
    else if (!strcasecmp(c->argv[2], "before")) after = 0;
    else {
        addReplyErrorSyntax(c);
        return;
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_LIST)) return;
    rlist *l = o->ptr;
    listTryConversionGrowing(l, c->argv + 4, 1);
    sds pivot = c->argv[3];
    listPos p;
    int valid = rlistSeek(l, 0, &p);
    while (valid) {
        if (posEquals(p, pivot, sdslen(pivot))) break;
        valid = posNext(&p, LIST_TAIL);
    }
    if (!valid) {
        addReplyLongLong(c, -1);
        return;
    }
    rlistInsert(l, p, c->argv[4], sdslen(c->argv[4]), after);
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, l->len);
}

static void ltrimCommand(client *c) {
    long start, end;
    if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared_ok);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    rlist *l = o->ptr;
    long llen = l->len, ltrim, rtrim;
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        ltrim = llen;
        rtrim = 0;
    } else {
        if (end >= llen) end = llen - 1;
        ltrim = start;
        rtrim = llen - end - 1;
    }
    for (long i = 0; i < ltrim && l->len; i++) sdsfree(rlistPop(l, LIST_HEAD));
    for (long i = 0; i < rtrim && l->len; i++) sdsfree(rlistPop(l, LIST_TAIL));
    listElementsRemoved(c, c->argv[1], o, NULL);
    addReplyOk(c);
}

static void lremCommand(client *c) {
    long toremove;
    if (getLongFromObjectOrReply(c, c->argv[2], &toremove, NULL) != C_OK) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_LIST)) return;
    rlist *l = o->ptr;
    sds ele = c->argv[3];
    int dir = LIST_TAIL;
    if (toremove < 0) {
        /* LONG_MIN cannot be negated: like Redis's wrapped value, it
         * never matches the count, so everything goes. */
        toremove = toremove == LONG_MIN ? 0 : -toremove;
        dir = LIST_HEAD;
    }
    long removed = 0;
    listPos p;
    int valid = rlistSeek(l, dir == LIST_HEAD ? -1 : 0, &p);
    while (valid) {
        if (posEquals(p, ele, sdslen(ele))) {
            /* Find where to go on before the element goes. */
            listPos next = p;
            int more;
            listChunk *ch = p.ch;
            if (dir == LIST_TAIL) {
                if (p.i + 1 < ch->n) {
                    more = 1; /* same chunk: index p.i after removal */
                } else {
                    next.ch = ch->next;
                    next.i = 0;
                    more = next.ch != NULL;
                }
            } else {
                if (p.i > 0) {
                    next.i = p.i - 1;
                    more = 1;
                } else {
                    next.ch = ch->prev;
                    more = next.ch != NULL;
                    if (more) next.i = next.ch->n - 1;
                }
            }
            sdsfree(rlistTake(l, p));
            removed++;
            if (more) next.off = chunkOffsetOf(next.ch, next.i);
            p = next;
            valid = more;
            if (toremove && removed == toremove) break;
        } else {
            valid = posNext(&p, dir);
        }
    }
    if (removed) listElementsRemoved(c, c->argv[1], o, NULL);
    addReplyLongLong(c, removed);
}

/* ========================================================================
 * LMOVE, RPOPLPUSH and their blocking forms
 * ===================================================================== */

static void lmoveHandlePush(client *c, sds dstkey, robj *dst, sds value, int where) {
    if (!dst) {
        dst = createListObject();
        dbAdd(c->db, dstkey, dst);
    }
    listTryConversionGrowing(dst->ptr, &value, 1);
    addReplyBulk(c, value, sdslen(value));
    rlistPush(dst->ptr, value, sdslen(value), where);
    sdsfree(value);
    signalModifiedKey(c, c->db, dstkey, dst);
}

static void lmoveGenericCommand(client *c, int wherefrom, int whereto) {
    robj *src = lookupKeyWrite(c, c->db, c->argv[1]);
    if (!src) {
        addReplyNull(c);
        return;
    }
    if (checkType(c, src, OBJ_LIST)) return;
    robj *dst = lookupKeyWrite(c, c->db, c->argv[2]);
    if (checkType(c, dst, OBJ_LIST)) return;
    sds value = rlistPop(src->ptr, wherefrom);
    lmoveHandlePush(c, c->argv[2], dst, value, whereto);
    /* Deletes the source when empty (not when it is the destination). */
    listElementsRemoved(c, c->argv[1], src, NULL);
}

static void lmoveCommand(client *c) {
    int wherefrom, whereto;
    if (getListPositionFromObjectOrReply(c, c->argv[3], &wherefrom) != C_OK ||
        getListPositionFromObjectOrReply(c, c->argv[4], &whereto) != C_OK)
        return;
    lmoveGenericCommand(c, wherefrom, whereto);
}

static void rpoplpushCommand(client *c) { lmoveGenericCommand(c, LIST_TAIL, LIST_HEAD); }

/* Inside MULTI/EXEC (and for fake clients) a blocking command cannot
 * wait: it answers as if it timed out (Redis's CLIENT_DENY_BLOCKING). */
static int listDenyBlocking(client *c) { return server.in_exec || (c->flags & (CLIENT_MULTI | CLIENT_FAKE)); }

static void blmoveGenericCommand(client *c, int wherefrom, int whereto, long long timeout) {
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    if (!o) {
        if (listDenyBlocking(c)) addReplyNull(c);
        else blockForKeysOfType(c, c->argv + 1, 1, timeout, OBJ_LIST);
        return;
    }
    lmoveGenericCommand(c, wherefrom, whereto);
}

static void blmoveCommand(client *c) {
    int wherefrom, whereto;
    long long timeout;
    if (getListPositionFromObjectOrReply(c, c->argv[3], &wherefrom) != C_OK ||
        getListPositionFromObjectOrReply(c, c->argv[4], &whereto) != C_OK)
        return;
    if (getTimeoutFromObjectOrReply(c, c->argv[5], &timeout, 1) != C_OK) return;
    blmoveGenericCommand(c, wherefrom, whereto, timeout);
}

static void brpoplpushCommand(client *c) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[3], &timeout, 1) != C_OK) return;
    blmoveGenericCommand(c, LIST_TAIL, LIST_HEAD, timeout);
}

/* ========================================================================
 * BLPOP, BRPOP, LMPOP, BLMPOP
 * ===================================================================== */

/* count -1: BLPOP/BRPOP (reply [key, element]); else BLMPOP's count. */
static void blockingPopGenericCommand(client *c, sds *keys, int numkeys, int where, int timeout_idx, long count) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout, 1) != C_OK) return;
    for (int j = 0; j < numkeys; j++) {
        robj *o = lookupKeyWrite(c, c->db, keys[j]);
        if (!o) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        if (count != -1) {
            listPopRangeAndReplyWithKey(c, o, keys[j], where, count);
            return;
        }
        sds v = rlistPop(o->ptr, where);
        addReplyArrayLen(c, 2);
        addReplyBulk(c, keys[j], sdslen(keys[j]));
        addReplyBulk(c, v, sdslen(v));
        sdsfree(v);
        listElementsRemoved(c, keys[j], o, NULL);
        return;
    }
    if (listDenyBlocking(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeysOfType(c, keys, numkeys, timeout, OBJ_LIST);
}

static void blpopCommand(client *c) { blockingPopGenericCommand(c, c->argv + 1, c->argc - 2, LIST_HEAD, c->argc - 1, -1); }
static void brpopCommand(client *c) { blockingPopGenericCommand(c, c->argv + 1, c->argc - 2, LIST_TAIL, c->argc - 1, -1); }

static void lmpopGenericCommand(client *c, int numkeys_idx, int is_block) {
    long numkeys = 0, count = -1;
    int where = 0;
    long long timeout = 0;
    if (is_block && getTimeoutFromObjectOrReply(c, c->argv[1], &timeout, 1) != C_OK) return;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys >= c->argc - numkeys_idx - 1) {
        addReplyErrorSyntax(c);
        return;
    }
    int where_idx = numkeys_idx + (int)numkeys + 1;
    if (getListPositionFromObjectOrReply(c, c->argv[where_idx], &where) != C_OK) return;
    for (int j = where_idx + 1; j < c->argc; j++) {
        int moreargs = (c->argc - 1) - j;
        if (count == -1 && !strcasecmp(c->argv[j], "COUNT") && moreargs) {
            j++;
            if (getRangeLongFromObjectOrReply(c, c->argv[j], 1, LONG_MAX, &count, "count should be greater than 0") !=
                C_OK)
                return;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    if (count == -1) count = 1;
    sds *keys = c->argv + numkeys_idx + 1;
    if (is_block) {
        blockingPopGenericCommand(c, keys, (int)numkeys, where, 1, count);
        return;
    }
    for (long j = 0; j < numkeys; j++) {
        robj *o = lookupKeyWrite(c, c->db, keys[j]);
        if (!o) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        listPopRangeAndReplyWithKey(c, o, keys[j], where, count);
        return;
    }
    addReplyNullArray(c);
}

static void lmpopCommand(client *c) { lmpopGenericCommand(c, 1, 0); }
static void blmpopCommand(client *c) { lmpopGenericCommand(c, 2, 1); }

/* ========================================================================
 * The state document: ["element", ...]
 * ===================================================================== */

/* Appends the chunk's (packed) elements as JSON to out; *raw gets the sum
 * of their lengths. */
static sds chunkCatJSON(sds out, const listChunk *ch, size_t *raw) {
    out = sdsMakeRoomFor(out, chunkBytes(ch) + 3 * (size_t)ch->n);
    size_t off = ch->bstart;
    *raw = 0;
    for (int i = 0; i < ch->n; i++) {
        size_t vlen;
        const char *v = entryGet(ch->buf + off, &vlen);
        off = (size_t)(v - ch->buf) + vlen;
        *raw += vlen;
        if (i) out = sdscatlen(out, ",", 1);
        out = jsonCatBytes(out, v, vlen);
    }
    return out;
}

/* The chunk's elements as JSON, cached for the documents to borrow; a full
 * chunk of plain-text elements freezes (see listChunk). */
static sds chunkJSON(listChunk *ch) {
    if (ch->json) return ch->json;
    size_t raw;
    /* Kept until the chunk changes: without the room sds left to grow. */
    sds out = sdsRemoveFreeSpace(chunkCatJSON(sdsempty(), ch, &raw));
    ch->json = out;
    ch->json_pin = 0;
    /* Escaping or base64 makes an element's JSON longer than its bytes and
     * two quotes: equal lengths mean every element is verbatim. */
    if (ch->n > 0 && chunkFull(ch) && sdslen(out) == raw + 3 * (size_t)ch->n - 1) {
        size_t used = chunkBytes(ch);
        zfree(ch->buf);
        ch->buf = NULL;
        ch->bstart = ch->bcap = 0;
        ch->bend = used;
        ch->frozen = 1;
    }
    return out;
}

static size_t listTypeJSONBytes(const robj *o) {
    const rlist *l = o->ptr;
    /* An upper bound without encoding: escapes may take six bytes a byte,
     * base64 less; the cached chunks are exact. */
    size_t total = 2;
    for (listChunk *ch = l->head; ch; ch = ch->next) {
        if (ch->json) total += sdslen(ch->json) + 1;
        else
            total += 6 * chunkBytes(ch) + 16 * (size_t)ch->n;
    }
    return total;
}

/* Used for the small lists whose JSON persist.c keeps itself: the chunks
 * do not keep a second copy (docJSON, for the big ones, does). */
static sds listTypeCatJSON(sds out, robj *o) {
    rlist *l = o->ptr;
    out = sdscatlen(out, "[", 1);
    for (listChunk *ch = l->head; ch; ch = ch->next) {
        if (ch != l->head) out = sdscatlen(out, ",", 1);
        size_t raw;
        if (ch->json) out = sdscatlen(out, ch->json, sdslen(ch->json));
        else out = chunkCatJSON(out, ch, &raw);
    }
    return sdscatlen(out, "]", 1);
}

/* A big list: sealed chunks by reference, the others' JSON lent. */
static void listTypeDocJSON(storeDoc *d, robj *o) {
    rlist *l = o->ptr;
    chunkDocWriter w;
    chunkDocBegin(&w, d);
    for (listChunk *ch = l->head; ch; ch = ch->next) {
        /* A frozen chunk's elements live in its JSON: it keeps it. */
        if (chunkDocAddSealed(&w, &ch->ref, ch->frozen ? NULL : &ch->json, &ch->json_pin)) continue;
        chunkJSON(ch);
        chunkDocText(&w, ch->json, &ch->json_pin);
    }
    chunkDocEnd(&w);
}

/* The chunks between the ends, which a queue's pushes and pops leave
 * alone (chunkseg.h). */
static void listTypeSealChunks(robj *o, chunkSealPlan *p) {
    rlist *l = o->ptr;
    if (!l->head) return;
    for (listChunk *ch = l->head; ch; ch = ch->next)
        chunkSealOffer(p, &ch->ref, ch->json, ch == l->head || ch == l->tail);
}

static void *listTypeFromJSON(const cJSON *v, sds *err) {
    if (!cJSON_IsArray(v)) {
        *err = sdsnew("list: expected an array of elements");
        return NULL;
    }
    if (!v->child) {
        *err = sdsnew("list: empty (an empty list is no key)");
        return NULL;
    }
    rlist *l = rlistNew();
    size_t index = 0;
    /* A sealed part's items get a chunk of their own (chunkseg.h). */
    chunkLoadPart *part = NULL;
    listChunk *part_chunk = NULL;
    int fresh = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        sds val = NULL, msg = NULL;
        if (jsonGetBytes(e, &val, "list element", &msg) != C_OK) {
            *err = sdscatprintf(sdsempty(), "list: element #%zu: %s", index, msg);
            sdsfree(msg);
            rlistFree(l);
            return NULL;
        }
        chunkLoadPart *starts = chunkLoadPartAt(index);
        rlistPushChunk(l, val, sdslen(val), LIST_TAIL, fresh || starts);
        sdsfree(val);
        fresh = 0;
        if (starts) {
            part = starts;
            part_chunk = l->tail;
        }
        if (part && index == part->start + part->count - 1) {
            if (l->tail == part_chunk && (size_t)part_chunk->n == part->count) chunkLoadAttach(part, &part_chunk->ref);
            part = NULL;
            fresh = 1;
        }
        index++;
    }
    if (listExceedsLimit(LP_HDR_SIZE + l->lpbytes, l->len, 0)) l->quicklist = 1;
    return l;
}

/* ========================================================================
 * The list type (server.h, objectType)
 * ===================================================================== */

static void listTypeFree(void *ptr) { rlistFree(ptr); }

static void *listTypeDup(const void *ptr) { return rlistDup(ptr); }

static const char *listTypeEncoding(const robj *o) { return ((rlist *)o->ptr)->quicklist ? "quicklist" : "listpack"; }

static size_t listTypeComputeSize(const robj *o, long long samples) {
    (void)samples;
    const rlist *l = o->ptr;
    size_t lp = LP_HDR_SIZE + l->lpbytes;
    if (!l->quicklist) return lp;
    /* quicklist header, and one node (with its listpack header) per 8 kB */
    size_t nodes = lp / 8192 + 1;
    return 40 + nodes * (32 + LP_HDR_SIZE) + lp;
}

const objectType listObjectType = {
    .type = OBJ_LIST,
    .name = "list",
    .free = listTypeFree,
    .dup = listTypeDup,
    .encoding = listTypeEncoding,
    .computeSize = listTypeComputeSize,
    .jsonBytes = listTypeJSONBytes,
    .catJSON = listTypeCatJSON,
    .docJSON = listTypeDocJSON,
    .fromJSON = listTypeFromJSON,
    .sealChunks = listTypeSealChunks,
};

/* ========================================================================
 * Command table (arity, flags and key positions as Redis 7.2)
 * ===================================================================== */

struct redisCommand listCommandTable[] = {
    {"lpush", lpushCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write list fast", NULL},
    {"rpush", rpushCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write list fast", NULL},
    {"lpushx", lpushxCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write list fast", NULL},
    {"rpushx", rpushxCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write list fast", NULL},
    {"linsert", linsertCommand, 5, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write list slow", NULL},
    {"lpop", lpopCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write list fast", NULL},
    {"rpop", rpopCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write list fast", NULL},
    {"lmpop", lmpopCommand, -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0, 0, "write list slow", NULL},
    {"brpop", brpopCommand, -3, CMD_WRITE | CMD_BLOCKING, 1, -2, 1, "write list slow blocking", NULL},
    {"brpoplpush", brpoplpushCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_BLOCKING, 1, 2, 1, "write list slow blocking",
     NULL},
    {"blmove", blmoveCommand, 6, CMD_WRITE | CMD_DENYOOM | CMD_BLOCKING, 1, 2, 1, "write list slow blocking", NULL},
    {"blpop", blpopCommand, -3, CMD_WRITE | CMD_BLOCKING, 1, -2, 1, "write list slow blocking", NULL},
    {"blmpop", blmpopCommand, -5, CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0, "write list slow blocking",
     NULL},
    {"llen", llenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read list fast", NULL},
    {"lindex", lindexCommand, 3, CMD_READONLY, 1, 1, 1, "read list slow", NULL},
    {"lset", lsetCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write list slow", NULL},
    {"lrange", lrangeCommand, 4, CMD_READONLY, 1, 1, 1, "read list slow", NULL},
    {"ltrim", ltrimCommand, 4, CMD_WRITE, 1, 1, 1, "write list slow", NULL},
    {"lpos", lposCommand, -3, CMD_READONLY, 1, 1, 1, "read list slow", NULL},
    {"lrem", lremCommand, 4, CMD_WRITE, 1, 1, 1, "write list slow", NULL},
    {"rpoplpush", rpoplpushCommand, 3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "write list slow", NULL},
    {"lmove", lmoveCommand, 5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "write list slow", NULL},
    {0},
};
