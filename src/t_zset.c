/* t_zset.c -- the sorted set type: ZADD and friends, ranges by rank, score
 * and lex, pops (and the blocking BZPOPMIN/BZPOPMAX/BZMPOP), ZRANDMEMBER,
 * ZSCAN, and the set operations ZUNION/ZINTER/ZDIFF(STORE), ZINTERCARD.
 *
 * Semantics are Redis 7.2's t_zset.c. A sorted set is a skip list ordered
 * by (score, member) with spans for ranks, plus a dict member -> node, as
 * Redis's skiplist encoding; what OBJECT ENCODING reports follows Redis's
 * rules: "listpack" while the set has at most zset-max-listpack-entries
 * members of at most zset-max-listpack-value bytes, "skiplist" once either
 * is exceeded (and from then on, as in Redis, except for the results of the
 * STORE commands and after a restart, where Redis too picks the encoding by
 * size). A listpack-encoded set is scanned in one ZSCAN call, as in Redis.
 *
 * ZUNIONSTORE & co. accept plain sets (t_set.h) as inputs, with score 1.
 *
 * Scores are replied with addReplyDouble (RESP2 bulk, RESP3 double); ZSCAN
 * formats them with d2string, as Redis does. */
#include "server.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chunkseg.h"
#include "jsonutil.h"
#include "persist.h"
#include "store.h"
#include "t_set.h"

/* ========================================================================
 * Skip list
 * ===================================================================== */

#define ZSKIPLIST_MAXLEVEL 32
#define ZSKIPLIST_P 0.25

struct zchunk;

typedef struct zskiplistNode {
    sds ele;
    double score;
    struct zchunk *chunk; /* the run of members whose JSON it shares */
    struct zskiplistNode *backward;
    struct zskiplistLevel {
        struct zskiplistNode *forward;
        unsigned long span;
    } level[];
} zskiplistNode;

typedef struct zskiplist {
    zskiplistNode *header, *tail;
    unsigned long length;
    int level;
} zskiplist;

/* The members in rank order are cut into runs (chunks) of up to about
 * 2 * ZCHUNK_MAX; each chunk caches the JSON text of its members for the
 * state document and lends it to the document being written (docTextRef).
 * A change re-encodes only the chunk it touches at the next commit. */
#define ZCHUNK_MAX 32

typedef struct zchunk {
    struct zchunk *prev, *next;  /* chunks in rank order */
    struct zskiplistNode *first; /* its first member */
    unsigned long count;         /* its members */
    sds json;                    /* cached JSON, NULL when stale */
    uint64_t json_pin;           /* docTextRef pin of json */
    size_t json_len;             /* the length of json when last made */
    chunkRef ref;                /* its chunk segment, if sealed (chunkseg.h) */
} zchunk;

typedef struct zset {
    dict *dict;    /* member (the node's sds, not owned) -> node */
    zskiplist *zsl;
    int skiplist;  /* Redis's encoding: 0 listpack, 1 skiplist */
    int chunk_break; /* loading: the next member starts a chunk */
    zchunk *chead, *ctail;
} zset;

static uint64_t zsetDictHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

static int zsetDictCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

static dictType zsetDictType = {zsetDictHash, zsetDictCompare, NULL, NULL};

static zskiplistNode *zslCreateNode(int level, double score, sds ele) {
    zskiplistNode *zn = zmalloc(sizeof(*zn) + (size_t)level * sizeof(struct zskiplistLevel));
    zn->score = score;
    zn->ele = ele;
    return zn;
}

static zskiplist *zslCreate(void) {
    zskiplist *zsl = zmalloc(sizeof(*zsl));
    zsl->level = 1;
    zsl->length = 0;
    zsl->header = zslCreateNode(ZSKIPLIST_MAXLEVEL, 0, NULL);
    for (int j = 0; j < ZSKIPLIST_MAXLEVEL; j++) {
        zsl->header->level[j].forward = NULL;
        zsl->header->level[j].span = 0;
    }
    zsl->header->backward = NULL;
    zsl->tail = NULL;
    return zsl;
}

static void zslFreeNode(zskiplistNode *node) {
    sdsfree(node->ele);
    zfree(node);
}

static void zslFree(zskiplist *zsl) {
    zskiplistNode *node = zsl->header->level[0].forward;
    zfree(zsl->header);
    while (node) {
        zskiplistNode *next = node->level[0].forward;
        zslFreeNode(node);
        node = next;
    }
    zfree(zsl);
}

static int zslRandomLevel(void) {
    int level = 1;
    while ((random() & 0xFFFF) < (ZSKIPLIST_P * 0xFFFF)) level++;
    return level < ZSKIPLIST_MAXLEVEL ? level : ZSKIPLIST_MAXLEVEL;
}

static inline int zslLess(double s1, sds e1, double s2, sds e2) { return s1 < s2 || (s1 == s2 && sdscmp(e1, e2) < 0); }

/* Inserts a new node (the member must not be there); takes ele. */
static zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    unsigned long rank[ZSKIPLIST_MAXLEVEL];
    for (int i = zsl->level - 1; i >= 0; i--) {
        rank[i] = i == (zsl->level - 1) ? 0 : rank[i + 1];
        while (x->level[i].forward && zslLess(x->level[i].forward->score, x->level[i].forward->ele, score, ele)) {
            rank[i] += x->level[i].span;
            x = x->level[i].forward;
        }
        update[i] = x;
    }
    int level = zslRandomLevel();
    if (level > zsl->level) {
        for (int i = zsl->level; i < level; i++) {
            rank[i] = 0;
            update[i] = zsl->header;
            update[i]->level[i].span = zsl->length;
        }
        zsl->level = level;
    }
    x = zslCreateNode(level, score, ele);
    for (int i = 0; i < level; i++) {
        x->level[i].forward = update[i]->level[i].forward;
        update[i]->level[i].forward = x;
        x->level[i].span = update[i]->level[i].span - (rank[0] - rank[i]);
        update[i]->level[i].span = (rank[0] - rank[i]) + 1;
    }
    for (int i = level; i < zsl->level; i++) update[i]->level[i].span++;
    x->backward = (update[0] == zsl->header) ? NULL : update[0];
    if (x->level[0].forward) x->level[0].forward->backward = x;
    else zsl->tail = x;
    zsl->length++;
    return x;
}

static void zslDeleteNode(zskiplist *zsl, zskiplistNode *x, zskiplistNode **update) {
    for (int i = 0; i < zsl->level; i++) {
        if (update[i]->level[i].forward == x) {
            update[i]->level[i].span += x->level[i].span - 1;
            update[i]->level[i].forward = x->level[i].forward;
        } else {
            update[i]->level[i].span -= 1;
        }
    }
    if (x->level[0].forward) x->level[0].forward->backward = x->backward;
    else zsl->tail = x->backward;
    while (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) zsl->level--;
    zsl->length--;
}

/* Unlinks the node (score, ele) and frees it; 1 if found. */
static int zslDelete(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && zslLess(x->level[i].forward->score, x->level[i].forward->ele, score, ele))
            x = x->level[i].forward;
        update[i] = x;
    }
    x = x->level[0].forward;
    if (x && score == x->score && sdscmp(x->ele, ele) == 0) {
        zslDeleteNode(zsl, x, update);
        zslFreeNode(x);
        return 1;
    }
    return 0;
}

/* 1-based rank of (score, ele), 0 if absent. */
static unsigned long zslGetRank(zskiplist *zsl, double score, sds ele) {
    unsigned long rank = 0;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && (x->level[i].forward->score < score ||
                                       (x->level[i].forward->score == score && sdscmp(x->level[i].forward->ele, ele) <= 0))) {
            rank += x->level[i].span;
            x = x->level[i].forward;
        }
        if (x->ele && x->score == score && sdscmp(x->ele, ele) == 0) return rank;
    }
    return 0;
}

/* The node at 1-based rank, NULL if out of range. */
static zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank) {
    unsigned long traversed = 0;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && (traversed + x->level[i].span) <= rank) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
        }
        if (traversed == rank) return x;
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * Ranges
 * --------------------------------------------------------------------- */

typedef struct {
    double min, max;
    int minex, maxex;
} zrangespec;

typedef struct {
    sds min, max; /* may be the shared minstring / maxstring */
    int minex, maxex;
} zlexrangespec;

/* Sentinels of lex ranges ("-" and "+"): compared by address. */
static char lexMinSentinel, lexMaxSentinel;
#define LEX_MINSTRING ((sds)&lexMinSentinel)
#define LEX_MAXSTRING ((sds)&lexMaxSentinel)

static int zslValueGteMin(double value, const zrangespec *spec) {
    return spec->minex ? (value > spec->min) : (value >= spec->min);
}

static int zslValueLteMax(double value, const zrangespec *spec) {
    return spec->maxex ? (value < spec->max) : (value <= spec->max);
}

static int zslIsInRange(zskiplist *zsl, const zrangespec *range) {
    if (range->min > range->max || (range->min == range->max && (range->minex || range->maxex))) return 0;
    zskiplistNode *x = zsl->tail;
    if (x == NULL || !zslValueGteMin(x->score, range)) return 0;
    x = zsl->header->level[0].forward;
    if (x == NULL || !zslValueLteMax(x->score, range)) return 0;
    return 1;
}

static zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslIsInRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range)) x = x->level[i].forward;
    }
    x = x->level[0].forward;
    if (!zslValueLteMax(x->score, range)) return NULL;
    return x;
}

static zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslIsInRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && zslValueLteMax(x->level[i].forward->score, range)) x = x->level[i].forward;
    }
    if (!zslValueGteMin(x->score, range)) return NULL;
    return x;
}

static int parseScoreBound(sds s, double *v, int *ex) {
    char *eptr;
    const char *p = s;
    *ex = 0;
    if (p[0] == '(') {
        p++;
        *ex = 1;
    }
    *v = strtod(p, &eptr);
    if (eptr[0] != '\0' || isnan(*v)) return C_ERR;
    return C_OK;
}

static int zslParseRange(sds min, sds max, zrangespec *spec) {
    if (parseScoreBound(min, &spec->min, &spec->minex) != C_OK) return C_ERR;
    if (parseScoreBound(max, &spec->max, &spec->maxex) != C_OK) return C_ERR;
    return C_OK;
}

static int zslParseLexRangeItem(sds item, sds *dest, int *ex) {
    switch (item[0]) {
    case '+':
        if (item[1] != '\0') return C_ERR;
        *ex = 1;
        *dest = LEX_MAXSTRING;
        return C_OK;
    case '-':
        if (item[1] != '\0') return C_ERR;
        *ex = 1;
        *dest = LEX_MINSTRING;
        return C_OK;
    case '(':
        *ex = 1;
        *dest = sdsnewlen(item + 1, sdslen(item) - 1);
        return C_OK;
    case '[':
        *ex = 0;
        *dest = sdsnewlen(item + 1, sdslen(item) - 1);
        return C_OK;
    default: return C_ERR;
    }
}

static void zslFreeLexRange(zlexrangespec *spec) {
    if (spec->min && spec->min != LEX_MINSTRING && spec->min != LEX_MAXSTRING) sdsfree(spec->min);
    if (spec->max && spec->max != LEX_MINSTRING && spec->max != LEX_MAXSTRING) sdsfree(spec->max);
    spec->min = spec->max = NULL;
}

static int zslParseLexRange(sds min, sds max, zlexrangespec *spec) {
    spec->min = spec->max = NULL;
    if (zslParseLexRangeItem(min, &spec->min, &spec->minex) == C_ERR ||
        zslParseLexRangeItem(max, &spec->max, &spec->maxex) == C_ERR) {
        zslFreeLexRange(spec);
        return C_ERR;
    }
    return C_OK;
}

static int sdscmplex(sds a, sds b) {
    if (a == b) return 0;
    if (a == LEX_MINSTRING || b == LEX_MAXSTRING) return -1;
    if (a == LEX_MAXSTRING || b == LEX_MINSTRING) return 1;
    return sdscmp(a, b);
}

static int zslLexValueGteMin(sds value, const zlexrangespec *spec) {
    return spec->minex ? (sdscmplex(value, spec->min) > 0) : (sdscmplex(value, spec->min) >= 0);
}

static int zslLexValueLteMax(sds value, const zlexrangespec *spec) {
    return spec->maxex ? (sdscmplex(value, spec->max) < 0) : (sdscmplex(value, spec->max) <= 0);
}

static int zslIsInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    int cmp = sdscmplex(range->min, range->max);
    if (cmp > 0 || (cmp == 0 && (range->minex || range->maxex))) return 0;
    zskiplistNode *x = zsl->tail;
    if (x == NULL || !zslLexValueGteMin(x->ele, range)) return 0;
    x = zsl->header->level[0].forward;
    if (x == NULL || !zslLexValueLteMax(x->ele, range)) return 0;
    return 1;
}

/* A listpack-encoded set is searched linearly by Redis (zzlFirstInLexRange
 * and zzlLastInLexRange): when the scores differ, so that the members are
 * not in lex order, the answer is the first (last) member in set order that
 * is >= min (<= max), which a skip list descent need not find. */
static zskiplistNode *zzlFirstInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    for (zskiplistNode *x = zsl->header->level[0].forward; x; x = x->level[0].forward) {
        if (zslLexValueGteMin(x->ele, range)) return zslLexValueLteMax(x->ele, range) ? x : NULL;
    }
    return NULL;
}

static zskiplistNode *zzlLastInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    for (zskiplistNode *x = zsl->tail; x; x = x->backward) {
        if (zslLexValueLteMax(x->ele, range)) return zslLexValueGteMin(x->ele, range) ? x : NULL;
    }
    return NULL;
}

static zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && !zslLexValueGteMin(x->level[i].forward->ele, range)) x = x->level[i].forward;
    }
    x = x->level[0].forward;
    if (!zslLexValueLteMax(x->ele, range)) return NULL;
    return x;
}

static zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && zslLexValueLteMax(x->level[i].forward->ele, range)) x = x->level[i].forward;
    }
    if (!zslLexValueGteMin(x->ele, range)) return NULL;
    return x;
}

/* The first / last member in a lex range, as the set's encoding finds it. */
static zskiplistNode *zsetFirstInLexRange(zset *zs, const zlexrangespec *range) {
    return zs->skiplist ? zslFirstInLexRange(zs->zsl, range) : zzlFirstInLexRange(zs->zsl, range);
}

static zskiplistNode *zsetLastInLexRange(zset *zs, const zlexrangespec *range) {
    return zs->skiplist ? zslLastInLexRange(zs->zsl, range) : zzlLastInLexRange(zs->zsl, range);
}

/* ========================================================================
 * The sorted set value
 * ===================================================================== */

static zset *zsetNew(void) {
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    zs->skiplist = 0;
    zs->chunk_break = 0;
    zs->chead = zs->ctail = NULL;
    return zs;
}

/* ------------------------------------------------------------------------
 * Chunks
 * --------------------------------------------------------------------- */

static void zchunkDirty(zchunk *ch) {
    chunkRefChanged(&ch->ref);
    if (!ch->json) return;
    docTextFree(ch->json, ch->json_pin);
    ch->json = NULL;
    ch->json_pin = 0;
}

static zchunk *zchunkNew(zset *zs, zchunk *after) {
    zchunk *ch = zcalloc(sizeof(*ch));
    chunkRefInit(&ch->ref);
    ch->prev = after;
    ch->next = after ? after->next : zs->chead;
    if (ch->next) ch->next->prev = ch;
    else zs->ctail = ch;
    if (after) after->next = ch;
    else zs->chead = ch;
    return ch;
}

static void zchunkFree(zset *zs, zchunk *ch) {
    if (ch->prev) ch->prev->next = ch->next;
    else zs->chead = ch->next;
    if (ch->next) ch->next->prev = ch->prev;
    else zs->ctail = ch->prev;
    chunkRefFreed(&ch->ref);
    if (ch->json) docTextFree(ch->json, ch->json_pin);
    zfree(ch);
}

/* x was just linked into the skip list: it joins its predecessor's chunk
 * (or its successor's at the front, or when the predecessor's is sealed
 * in a chunk segment and the successor's is not), which splits when too
 * long. */
static void zsetChunkAttach(zset *zs, zskiplistNode *x) {
    zskiplistNode *pred = x->backward, *succ = x->level[0].forward;
    zchunk *ch;
    if (pred && zs->chunk_break) {
        ch = zchunkNew(zs, pred->chunk);
        ch->first = x;
        zs->chunk_break = 0;
    } else if (pred && (!pred->chunk->ref.seg || !succ || succ->chunk == pred->chunk || succ->chunk->ref.seg)) {
        ch = pred->chunk;
    } else if (succ) {
        ch = succ->chunk;
        ch->first = x;
    } else {
        ch = zchunkNew(zs, NULL);
        ch->first = x;
    }
    x->chunk = ch;
    ch->count++;
    zchunkDirty(ch);
    if (ch->count > 2 * ZCHUNK_MAX) {
        zskiplistNode *n = ch->first;
        for (unsigned long i = 0; i < ch->count / 2; i++) n = n->level[0].forward;
        zchunk *nc = zchunkNew(zs, ch);
        nc->first = n;
        while (n && n->chunk == ch) {
            n->chunk = nc;
            nc->count++;
            n = n->level[0].forward;
        }
        ch->count -= nc->count;
    }
}

/* x is about to be unlinked from the skip list. */
static void zsetChunkDetach(zset *zs, zskiplistNode *x) {
    zchunk *ch = x->chunk;
    if (ch->first == x) {
        zskiplistNode *next = x->level[0].forward;
        ch->first = (next && next->chunk == ch) ? next : NULL;
    }
    zchunkDirty(ch);
    if (--ch->count == 0) zchunkFree(zs, ch);
}

static void zsetFree(zset *zs) {
    while (zs->chead) zchunkFree(zs, zs->chead);
    dictRelease(zs->dict);
    zslFree(zs->zsl);
    zfree(zs);
}

static unsigned long zsetLength(const robj *o) { return ((zset *)o->ptr)->zsl->length; }

/* Redis's zsetTypeCreate: listpack if the hints fit. */
static robj *zsetTypeCreate(size_t size_hint, size_t value_len_hint) {
    zset *zs = zsetNew();
    if (size_hint > (size_t)server.cfg.zset_max_listpack_entries ||
        value_len_hint > (size_t)server.cfg.zset_max_listpack_value)
        zs->skiplist = 1;
    return createObject(OBJ_ZSET, zs);
}

/* Redis's zsetConvertToListpackIfNeeded (STORE results, loading). */
static void zsetConvertToListpackIfNeeded(zset *zs, size_t maxelelen) {
    if (zs->zsl->length <= (unsigned long)server.cfg.zset_max_listpack_entries &&
        maxelelen <= (size_t)server.cfg.zset_max_listpack_value) {
        zs->skiplist = 0;
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward) {
            if (x->score == 0 && signbit(x->score)) {
                x->score = 0.0;
                zchunkDirty(x->chunk);
            }
        }
    } else
        zs->skiplist = 1;
}

static size_t zsetMaxEleLen(zset *zs) {
    size_t m = 0;
    for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward)
        if (sdslen(x->ele) > m) m = sdslen(x->ele);
    return m;
}

static zskiplistNode *zsetFindSds(zset *zs, sds ele) { return dictFetchValue(zs->dict, ele); }

/* A listpack stores the score "-0" as the integer 0: a listpack-encoded
 * set never holds -0 (a skiplist does), as in Redis. */
static inline double zsetStoredScore(const zset *zs, double score) {
    return (!zs->skiplist && score == 0) ? 0.0 : score;
}

/* Adds a member that is not there (copies ele). */
static zskiplistNode *zsetInsertNew(zset *zs, double score, const char *ele, size_t len) {
    score = zsetStoredScore(zs, score);
    sds e = sdsnewlen(ele, len);
    zskiplistNode *n = zslInsert(zs->zsl, score, e);
    dictAdd(zs->dict, n->ele, n);
    zsetChunkAttach(zs, n);
    return n;
}

/* Changes an existing member's score. */
static zskiplistNode *zsetUpdateScore(zset *zs, zskiplistNode *n, double newscore) {
    newscore = zsetStoredScore(zs, newscore);
    sds ele = sdsdup(n->ele);
    zsetChunkDetach(zs, n);
    dictDelete(zs->dict, n->ele);
    zslDelete(zs->zsl, n->score, n->ele);
    n = zslInsert(zs->zsl, newscore, ele);
    dictAdd(zs->dict, n->ele, n);
    zsetChunkAttach(zs, n);
    return n;
}

static void zsetDeleteNode(zset *zs, zskiplistNode *n) {
    zsetChunkDetach(zs, n);
    dictDelete(zs->dict, n->ele);
    zslDelete(zs->zsl, n->score, n->ele);
}

static int zsetDel(zset *zs, sds ele) {
    zskiplistNode *n = zsetFindSds(zs, ele);
    if (!n) return 0;
    zsetDeleteNode(zs, n);
    return 1;
}

/* 0-based rank (reversed if reverse), -1 if not a member. */
static long zsetRank(zset *zs, sds ele, int reverse, double *score) {
    zskiplistNode *n = zsetFindSds(zs, ele);
    if (!n) return -1;
    unsigned long rank = zslGetRank(zs->zsl, n->score, n->ele);
    if (score) *score = n->score;
    return reverse ? (long)(zs->zsl->length - rank) : (long)rank - 1;
}

static zset *zsetDup(const zset *src) {
    zset *zs = zsetNew();
    zs->skiplist = src->skiplist;
    /* Insert from the tail so every insertion happens at the head. */
    for (zskiplistNode *x = src->zsl->tail; x; x = x->backward) zsetInsertNew(zs, x->score, x->ele, sdslen(x->ele));
    return zs;
}

#define ZADD_IN_INCR (1 << 0)
#define ZADD_IN_NX (1 << 1)
#define ZADD_IN_XX (1 << 2)
#define ZADD_IN_GT (1 << 3)
#define ZADD_IN_LT (1 << 4)
#define ZADD_OUT_NOP (1 << 0)
#define ZADD_OUT_NAN (1 << 1)
#define ZADD_OUT_ADDED (1 << 2)
#define ZADD_OUT_UPDATED (1 << 3)

/* Redis's zsetAdd. Returns 0 on a NaN result (nothing changed). */
static int zsetAdd(zset *zs, double score, sds ele, int in_flags, int *out_flags, double *newscore) {
    int incr = (in_flags & ZADD_IN_INCR) != 0, nx = (in_flags & ZADD_IN_NX) != 0;
    int xx = (in_flags & ZADD_IN_XX) != 0, gt = (in_flags & ZADD_IN_GT) != 0, lt = (in_flags & ZADD_IN_LT) != 0;
    *out_flags = 0;
    if (isnan(score)) {
        *out_flags = ZADD_OUT_NAN;
        return 0;
    }
    zskiplistNode *n = zsetFindSds(zs, ele);
    if (n) {
        if (nx) {
            *out_flags |= ZADD_OUT_NOP;
            return 1;
        }
        double curscore = n->score;
        if (incr) {
            score += curscore;
            if (isnan(score)) {
                *out_flags |= ZADD_OUT_NAN;
                return 0;
            }
        }
        if ((lt && score >= curscore) || (gt && score <= curscore)) {
            *out_flags |= ZADD_OUT_NOP;
            return 1;
        }
        if (newscore) *newscore = score;
        if (score != curscore) {
            zsetUpdateScore(zs, n, score);
            *out_flags |= ZADD_OUT_UPDATED;
        }
        return 1;
    } else if (!xx) {
        if (!zs->skiplist && (zs->zsl->length + 1 > (unsigned long)server.cfg.zset_max_listpack_entries ||
                              sdslen(ele) > (size_t)server.cfg.zset_max_listpack_value))
            zs->skiplist = 1;
        zsetInsertNew(zs, score, ele, sdslen(ele));
        *out_flags |= ZADD_OUT_ADDED;
        if (newscore) *newscore = score;
        return 1;
    }
    *out_flags |= ZADD_OUT_NOP;
    return 1;
}

/* ========================================================================
 * Helpers
 * ===================================================================== */

/* Stores o at key, replacing whatever was there (Redis's setKey). */
static void zsetStoreKey(client *c, sds key, robj *o) {
    if (lookupKeyWrite(c, c->db, key)) dbDelete(c->db, key);
    dbAdd(c->db, key, o);
    signalModifiedKey(c, c->db, key, o);
}

/* After removals: deletes the key if the set is empty; signals. */
static void zsetElementsRemoved(client *c, sds key, robj *o) {
    if (zsetLength(o) == 0) {
        dbDelete(c->db, key);
        signalModifiedKey(c, c->db, key, NULL);
    } else {
        signalModifiedKey(c, c->db, key, o);
    }
}

/* Inside MULTI/EXEC (and for fake clients) a blocking command cannot
 * wait: it answers as if it timed out. */
static int zsetDenyBlocking(client *c) { return server.in_exec || (c->flags & (CLIENT_MULTI | CLIENT_FAKE)); }

/* ========================================================================
 * ZADD, ZINCRBY, ZREM
 * ===================================================================== */

static void zaddGenericCommand(client *c, int flags) {
    static const char *nanerr = "resulting score is not a number (NaN)";
    sds key = c->argv[1];
    int ch = 0, added = 0, updated = 0, processed = 0;
    double score = 0;
    int scoreidx = 2;
    while (scoreidx < c->argc) {
        sds opt = c->argv[scoreidx];
        if (!strcasecmp(opt, "nx")) flags |= ZADD_IN_NX;
        else if (!strcasecmp(opt, "xx")) flags |= ZADD_IN_XX;
        else if (!strcasecmp(opt, "ch")) ch = 1;
        else if (!strcasecmp(opt, "incr")) flags |= ZADD_IN_INCR;
        else if (!strcasecmp(opt, "gt")) flags |= ZADD_IN_GT;
        else if (!strcasecmp(opt, "lt")) flags |= ZADD_IN_LT;
        else break;
        scoreidx++;
    }
    int incr = (flags & ZADD_IN_INCR) != 0, nx = (flags & ZADD_IN_NX) != 0, xx = (flags & ZADD_IN_XX) != 0;
    int gt = (flags & ZADD_IN_GT) != 0, lt = (flags & ZADD_IN_LT) != 0;
    long elements = c->argc - scoreidx;
    if (elements % 2 || !elements) {
        addReplyErrorSyntax(c);
        return;
    }
    elements /= 2;
    if (nx && xx) {
        addReplyError(c, "XX and NX options at the same time are not compatible");
        return;
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
        addReplyError(c, "GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if (incr && elements > 1) {
        addReplyError(c, "INCR option supports a single increment-element pair");
        return;
    }
    double *scores = zmalloc(sizeof(double) * (size_t)elements);
    size_t maxelelen = 0;
    for (long j = 0; j < elements; j++) {
        if (getDoubleFromObjectOrReply(c, c->argv[scoreidx + j * 2], &scores[j], NULL) != C_OK) goto cleanup;
        size_t l = sdslen(c->argv[scoreidx + 1 + j * 2]);
        if (l > maxelelen) maxelelen = l;
    }
    robj *zobj = lookupKeyWrite(c, c->db, key);
    if (checkType(c, zobj, OBJ_ZSET)) goto cleanup;
    if (!zobj) {
        if (xx) goto reply_to_client;
        zobj = zsetTypeCreate((size_t)elements, maxelelen);
        dbAdd(c->db, key, zobj);
    } else {
        zset *zs = zobj->ptr;
        if (!zs->skiplist && ((size_t)elements > (size_t)server.cfg.zset_max_listpack_entries ||
                              maxelelen > (size_t)server.cfg.zset_max_listpack_value))
            zs->skiplist = 1;
    }
    for (long j = 0; j < elements; j++) {
        double newscore = 0;
        int retflags = 0;
        if (!zsetAdd(zobj->ptr, scores[j], c->argv[scoreidx + 1 + j * 2], flags, &retflags, &newscore)) {
            addReplyError(c, nanerr);
            goto cleanup;
        }
        if (retflags & ZADD_OUT_ADDED) added++;
        if (retflags & ZADD_OUT_UPDATED) updated++;
        if (!(retflags & ZADD_OUT_NOP)) processed++;
        score = newscore;
    }

reply_to_client:
    if (incr) {
        if (processed) addReplyDouble(c, score);
        else addReplyNull(c);
    } else {
        addReplyLongLong(c, ch ? added + updated : added);
    }

cleanup:
    zfree(scores);
    if (added || updated) signalModifiedKey(c, c->db, key, lookupKeyWrite(c, c->db, key));
}

static void zaddCommand(client *c) { zaddGenericCommand(c, 0); }
static void zincrbyCommand(client *c) { zaddGenericCommand(c, ZADD_IN_INCR); }

static void zremCommand(client *c) {
    robj *zobj = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) return;
    long deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        if (zsetDel(zobj->ptr, c->argv[j])) deleted++;
        if (zsetLength(zobj) == 0) break;
    }
    if (deleted) zsetElementsRemoved(c, c->argv[1], zobj);
    addReplyLongLong(c, deleted);
}

/* ========================================================================
 * Reads of one member or of the size
 * ===================================================================== */

static void zcardCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) return;
    addReplyLongLong(c, (long long)zsetLength(zobj));
}

static void zscoreCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) return;
    zskiplistNode *n = zsetFindSds(zobj->ptr, c->argv[2]);
    if (!n) addReplyNull(c);
    else addReplyDouble(c, n->score);
}

static void zmscoreCommand(client *c) {
    robj *zobj = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        zskiplistNode *n = zobj ? zsetFindSds(zobj->ptr, c->argv[j]) : NULL;
        if (!n) addReplyNull(c);
        else addReplyDouble(c, n->score);
    }
}

static void zrankGenericCommand(client *c, int reverse) {
    int withscore = 0;
    if (c->argc > 4) {
        addReplyErrorArity(c);
        return;
    }
    if (c->argc > 3) {
        if (!strcasecmp(c->argv[3], "withscore")) {
            withscore = 1;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    robj *zobj = lookupKeyRead(c, c->db, c->argv[1]);
    if (!zobj) {
        if (withscore) addReplyNullArray(c);
        else addReplyNull(c);
        return;
    }
    if (checkType(c, zobj, OBJ_ZSET)) return;
    double score;
    long rank = zsetRank(zobj->ptr, c->argv[2], reverse, &score);
    if (rank >= 0) {
        if (withscore) addReplyArrayLen(c, 2);
        addReplyLongLong(c, rank);
        if (withscore) addReplyDouble(c, score);
    } else {
        if (withscore) addReplyNullArray(c);
        else addReplyNull(c);
    }
}

static void zrankCommand(client *c) { zrankGenericCommand(c, 0); }
static void zrevrankCommand(client *c) { zrankGenericCommand(c, 1); }

static void zcountCommand(client *c) {
    zrangespec range;
    if (zslParseRange(c->argv[2], c->argv[3], &range) != C_OK) {
        addReplyError(c, "min or max is not a float");
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) return;
    zset *zs = zobj->ptr;
    unsigned long count = 0;
    zskiplistNode *first = zslFirstInRange(zs->zsl, &range);
    if (first) {
        zskiplistNode *last = zslLastInRange(zs->zsl, &range);
        count = zslGetRank(zs->zsl, last->score, last->ele) - zslGetRank(zs->zsl, first->score, first->ele) + 1;
    }
    addReplyLongLong(c, (long long)count);
}

static void zlexcountCommand(client *c) {
    zlexrangespec range;
    if (zslParseLexRange(c->argv[2], c->argv[3], &range) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) {
        zslFreeLexRange(&range);
        return;
    }
    zset *zs = zobj->ptr;
    unsigned long count = 0;
    zskiplistNode *first = zsetFirstInLexRange(zs, &range);
    if (first && !zs->skiplist) {
        /* listpack: count forward while in range (Redis's zzl walk) */
        for (zskiplistNode *x = first; x && zslLexValueLteMax(x->ele, &range); x = x->level[0].forward) count++;
    } else if (first) {
        zskiplistNode *last = zslLastInLexRange(zs->zsl, &range);
        count = zslGetRank(zs->zsl, last->score, last->ele) - zslGetRank(zs->zsl, first->score, first->ele) + 1;
    }
    zslFreeLexRange(&range);
    addReplyLongLong(c, (long long)count);
}

/* ========================================================================
 * ZRANGE and its older forms, ZRANGESTORE
 * ===================================================================== */

typedef enum { ZRANGE_AUTO = 0, ZRANGE_RANK, ZRANGE_SCORE, ZRANGE_LEX } zrange_type;
typedef enum { ZRANGE_DIRECTION_AUTO = 0, ZRANGE_DIRECTION_FORWARD, ZRANGE_DIRECTION_REVERSE } zrange_direction;

/* Where a range goes: the client's reply, or a new sorted set (STORE). */
typedef struct zrangeResult {
    client *c;
    int withscores;
    int store;
    sds dstkey;
    robj *dst;           /* STORE: the set being built */
    void *lenptr;        /* reply: the deferred length */
    long count;          /* elements emitted */
    size_t maxelelen;
} zrangeResult;

static void zrangeBegin(zrangeResult *r) {
    if (r->store) {
        /* Built as ZADD builds: a listpack converted once it grows past
         * the limits (as Redis's zrangeResultEmitCBufferForStore). */
        r->dst = createObject(OBJ_ZSET, zsetNew());
    } else {
        r->lenptr = addReplyDeferredLen(r->c);
    }
    r->count = 0;
}

static void zrangeEmit(zrangeResult *r, sds ele, double score) {
    if (r->store) {
        zset *zs = r->dst->ptr;
        if (!zs->skiplist && (zs->zsl->length + 1 > (unsigned long)server.cfg.zset_max_listpack_entries ||
                              sdslen(ele) > (size_t)server.cfg.zset_max_listpack_value))
            zs->skiplist = 1;
        zsetInsertNew(zs, score, ele, sdslen(ele));
    } else {
        client *c = r->c;
        if (r->withscores && c->resp > 2) addReplyArrayLen(c, 2);
        addReplyBulk(c, ele, sdslen(ele));
        if (r->withscores) addReplyDouble(c, score);
    }
    r->count++;
}

static void zrangeFinalize(zrangeResult *r) {
    client *c = r->c;
    if (r->store) {
        if (r->count) {
            zsetStoreKey(c, r->dstkey, r->dst);
            addReplyLongLong(c, r->count);
        } else {
            freeObject(r->dst);
            addReplyLongLong(c, 0);
            if (lookupKeyWrite(c, c->db, r->dstkey) && dbDelete(c->db, r->dstkey))
                signalModifiedKey(c, c->db, r->dstkey, NULL);
        }
        r->dst = NULL;
    } else {
        long n = r->count;
        if (r->withscores && c->resp == 2) n *= 2;
        setDeferredArrayLen(c, r->lenptr, n);
    }
}

static void genericZrangebyrank(zrangeResult *r, robj *zobj, long start, long end, int reverse) {
    zset *zs = zobj->ptr;
    long llen = (long)zs->zsl->length;
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    zrangeBegin(r);
    if (start > end || start >= llen) {
        zrangeFinalize(r);
        return;
    }
    if (end >= llen) end = llen - 1;
    long rangelen = end - start + 1;
    zskiplistNode *ln;
    if (reverse) {
        ln = zs->zsl->tail;
        if (start > 0) ln = zslGetElementByRank(zs->zsl, (unsigned long)(llen - start));
    } else {
        ln = zs->zsl->header->level[0].forward;
        if (start > 0) ln = zslGetElementByRank(zs->zsl, (unsigned long)(start + 1));
    }
    while (rangelen-- && ln) {
        zrangeEmit(r, ln->ele, ln->score);
        ln = reverse ? ln->backward : ln->level[0].forward;
    }
    zrangeFinalize(r);
}

static void genericZrangebyscore(zrangeResult *r, const zrangespec *range, robj *zobj, long offset, long limit,
                                 int reverse) {
    zset *zs = zobj->ptr;
    if (offset > 0 && offset >= (long)zs->zsl->length) {
        zrangeBegin(r);
        zrangeFinalize(r);
        return;
    }
    zrangeBegin(r);
    zskiplistNode *ln = reverse ? zslLastInRange(zs->zsl, range) : zslFirstInRange(zs->zsl, range);
    /* A negative offset skips everything, a negative limit is no limit
     * (Redis's `offset--` / `limit--` loops, without their overflow). */
    if (offset < 0) ln = NULL;
    if (limit < 0) limit = LONG_MAX;
    while (ln && offset--) ln = reverse ? ln->backward : ln->level[0].forward;
    while (ln && limit--) {
        if (reverse ? !zslValueGteMin(ln->score, range) : !zslValueLteMax(ln->score, range)) break;
        zrangeEmit(r, ln->ele, ln->score);
        ln = reverse ? ln->backward : ln->level[0].forward;
    }
    zrangeFinalize(r);
}

static void genericZrangebylex(zrangeResult *r, const zlexrangespec *range, robj *zobj, long offset, long limit,
                               int reverse) {
    zset *zs = zobj->ptr;
    if (offset > 0 && offset >= (long)zs->zsl->length) {
        zrangeBegin(r);
        zrangeFinalize(r);
        return;
    }
    zrangeBegin(r);
    zskiplistNode *ln = reverse ? zsetLastInLexRange(zs, range) : zsetFirstInLexRange(zs, range);
    /* A negative offset skips everything, a negative limit is no limit
     * (Redis's `offset--` / `limit--` loops, without their overflow). */
    if (offset < 0) ln = NULL;
    if (limit < 0) limit = LONG_MAX;
    while (ln && offset--) ln = reverse ? ln->backward : ln->level[0].forward;
    while (ln && limit--) {
        if (reverse ? !zslLexValueGteMin(ln->ele, range) : !zslLexValueLteMax(ln->ele, range)) break;
        zrangeEmit(r, ln->ele, ln->score);
        ln = reverse ? ln->backward : ln->level[0].forward;
    }
    zrangeFinalize(r);
}

static void zrangeGenericCommand(client *c, int argc_start, int store, zrange_type rangetype,
                                 zrange_direction direction) {
    sds key = c->argv[argc_start];
    int minidx = argc_start + 1, maxidx = argc_start + 2;
    long opt_start = 0, opt_end = 0, opt_offset = 0, opt_limit = -1;
    int opt_withscores = 0;
    zrangespec range;
    zlexrangespec lexrange = {NULL, NULL, 0, 0};

    for (int j = argc_start + 3; j < c->argc; j++) {
        int leftargs = c->argc - j - 1;
        if (!store && !strcasecmp(c->argv[j], "withscores")) {
            opt_withscores = 1;
        } else if (!strcasecmp(c->argv[j], "limit") && leftargs >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &opt_offset, NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &opt_limit, NULL) != C_OK)
                return;
            j += 2;
        } else if (direction == ZRANGE_DIRECTION_AUTO && !strcasecmp(c->argv[j], "rev")) {
            direction = ZRANGE_DIRECTION_REVERSE;
        } else if (rangetype == ZRANGE_AUTO && !strcasecmp(c->argv[j], "bylex")) {
            rangetype = ZRANGE_LEX;
        } else if (rangetype == ZRANGE_AUTO && !strcasecmp(c->argv[j], "byscore")) {
            rangetype = ZRANGE_SCORE;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    if (direction == ZRANGE_DIRECTION_AUTO) direction = ZRANGE_DIRECTION_FORWARD;
    if (rangetype == ZRANGE_AUTO) rangetype = ZRANGE_RANK;
    if (opt_limit != -1 && rangetype == ZRANGE_RANK) {
        addReplyError(c, "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (opt_withscores && rangetype == ZRANGE_LEX) {
        addReplyError(c, "syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    int reverse = direction == ZRANGE_DIRECTION_REVERSE;
    if (reverse && (rangetype == ZRANGE_SCORE || rangetype == ZRANGE_LEX)) {
        int tmp = maxidx;
        maxidx = minidx;
        minidx = tmp;
    }
    switch (rangetype) {
    case ZRANGE_SCORE:
        if (zslParseRange(c->argv[minidx], c->argv[maxidx], &range) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return;
        }
        break;
    case ZRANGE_LEX:
        if (zslParseLexRange(c->argv[minidx], c->argv[maxidx], &lexrange) != C_OK) {
            addReplyError(c, "min or max not valid string range item");
            return;
        }
        break;
    default:
        if (getLongFromObjectOrReply(c, c->argv[minidx], &opt_start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[maxidx], &opt_end, NULL) != C_OK)
            return;
        break;
    }

    zrangeResult r = {.c = c, .withscores = opt_withscores, .store = store, .dstkey = store ? c->argv[1] : NULL};
    robj *zobj = lookupKeyRead(c, c->db, key);
    if (!zobj) {
        if (store) {
            zrangeBegin(&r);
            zrangeFinalize(&r);
        } else {
            addReplyArrayLen(c, 0);
        }
        goto cleanup;
    }
    if (checkType(c, zobj, OBJ_ZSET)) goto cleanup;
    switch (rangetype) {
    case ZRANGE_SCORE: genericZrangebyscore(&r, &range, zobj, opt_offset, opt_limit, reverse); break;
    case ZRANGE_LEX: genericZrangebylex(&r, &lexrange, zobj, opt_offset, opt_limit, reverse); break;
    default: genericZrangebyrank(&r, zobj, opt_start, opt_end, reverse); break;
    }

cleanup:
    if (rangetype == ZRANGE_LEX) zslFreeLexRange(&lexrange);
}

static void zrangeCommand(client *c) { zrangeGenericCommand(c, 1, 0, ZRANGE_AUTO, ZRANGE_DIRECTION_AUTO); }
static void zrevrangeCommand(client *c) { zrangeGenericCommand(c, 1, 0, ZRANGE_RANK, ZRANGE_DIRECTION_REVERSE); }
static void zrangebyscoreCommand(client *c) {
    zrangeGenericCommand(c, 1, 0, ZRANGE_SCORE, ZRANGE_DIRECTION_FORWARD);
}
static void zrevrangebyscoreCommand(client *c) {
    zrangeGenericCommand(c, 1, 0, ZRANGE_SCORE, ZRANGE_DIRECTION_REVERSE);
}
static void zrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, 0, ZRANGE_LEX, ZRANGE_DIRECTION_FORWARD); }
static void zrevrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, 0, ZRANGE_LEX, ZRANGE_DIRECTION_REVERSE); }
static void zrangestoreCommand(client *c) { zrangeGenericCommand(c, 2, 1, ZRANGE_AUTO, ZRANGE_DIRECTION_AUTO); }

/* ========================================================================
 * ZREMRANGEBYRANK / BYSCORE / BYLEX
 * ===================================================================== */

static void zremrangeGenericCommand(client *c, zrange_type rangetype) {
    sds key = c->argv[1];
    long start = 0, end = 0;
    zrangespec range;
    zlexrangespec lexrange = {NULL, NULL, 0, 0};
    if (rangetype == ZRANGE_RANK) {
        if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
    } else if (rangetype == ZRANGE_SCORE) {
        if (zslParseRange(c->argv[2], c->argv[3], &range) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return;
        }
    } else {
        if (zslParseLexRange(c->argv[2], c->argv[3], &lexrange) != C_OK) {
            addReplyError(c, "min or max not valid string range item");
            return;
        }
    }
    robj *zobj = lookupKeyWriteOrReply(c, key, ":0\r\n");
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) goto cleanup;
    zset *zs = zobj->ptr;
    unsigned long deleted = 0;
    zskiplistNode *ln;
    if (rangetype == ZRANGE_RANK) {
        long llen = (long)zs->zsl->length;
        if (start < 0) start = llen + start;
        if (end < 0) end = llen + end;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            addReplyLongLong(c, 0);
            goto cleanup;
        }
        if (end >= llen) end = llen - 1;
        ln = zslGetElementByRank(zs->zsl, (unsigned long)start + 1);
        long n = end - start + 1;
        while (n-- && ln) {
            zskiplistNode *next = ln->level[0].forward;
            zsetDeleteNode(zs, ln);
            deleted++;
            ln = next;
        }
    } else if (rangetype == ZRANGE_SCORE) {
        ln = zslFirstInRange(zs->zsl, &range);
        while (ln && zslValueLteMax(ln->score, &range)) {
            zskiplistNode *next = ln->level[0].forward;
            zsetDeleteNode(zs, ln);
            deleted++;
            ln = next;
        }
    } else {
        ln = zsetFirstInLexRange(zs, &lexrange);
        while (ln && zslLexValueLteMax(ln->ele, &lexrange)) {
            zskiplistNode *next = ln->level[0].forward;
            zsetDeleteNode(zs, ln);
            deleted++;
            ln = next;
        }
    }
    if (deleted) zsetElementsRemoved(c, key, zobj);
    addReplyLongLong(c, (long long)deleted);

cleanup:
    if (rangetype == ZRANGE_LEX) zslFreeLexRange(&lexrange);
}

static void zremrangebyrankCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_RANK); }
static void zremrangebyscoreCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_SCORE); }
static void zremrangebylexCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_LEX); }

/* ========================================================================
 * ZPOPMIN/ZPOPMAX, ZMPOP and the blocking forms
 * ===================================================================== */

#define ZSET_MIN 0
#define ZSET_MAX 1

/* Redis's genericZpopCommand. count -1: a single pop. */
static void genericZpopCommand(client *c, sds *keyv, int keyc, int where, int emitkey, long count,
                               int use_nested_array, int reply_nil_when_empty) {
    sds key = NULL;
    robj *zobj = NULL;
    int idx = 0;
    while (idx < keyc) {
        key = keyv[idx++];
        zobj = lookupKeyWrite(c, c->db, key);
        if (!zobj) continue;
        if (checkType(c, zobj, OBJ_ZSET)) return;
        break;
    }
    if (!zobj) {
        if (reply_nil_when_empty) addReplyNullArray(c);
        else addReplyArrayLen(c, 0);
        return;
    }
    if (count == 0) {
        addReplyArrayLen(c, 0);
        return;
    }
    if (count == -1) count = 1;
    zset *zs = zobj->ptr;
    long llen = (long)zs->zsl->length;
    long rangelen = count > llen ? llen : count;
    if (!use_nested_array && !emitkey) {
        addReplyArrayLen(c, rangelen * 2);
    } else if (use_nested_array && !emitkey) {
        addReplyArrayLen(c, rangelen);
    } else if (!use_nested_array && emitkey) {
        addReplyArrayLen(c, rangelen * 2 + 1);
        addReplyBulk(c, key, sdslen(key));
    } else {
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key, sdslen(key));
        addReplyArrayLen(c, rangelen);
    }
    while (rangelen--) {
        zskiplistNode *ln = where == ZSET_MIN ? zs->zsl->header->level[0].forward : zs->zsl->tail;
        if (use_nested_array) addReplyArrayLen(c, 2);
        addReplyBulk(c, ln->ele, sdslen(ln->ele));
        addReplyDouble(c, ln->score);
        zsetDeleteNode(zs, ln);
    }
    zsetElementsRemoved(c, key, zobj);
}

static void zpopMinMaxCommand(client *c, int where) {
    if (c->argc > 3) {
        addReplyErrorSyntax(c);
        return;
    }
    long count = -1;
    if (c->argc == 3 && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    int use_nested_array = c->resp > 2 && count != -1;
    genericZpopCommand(c, &c->argv[1], 1, where, 0, count, use_nested_array, 0);
}

static void zpopminCommand(client *c) { zpopMinMaxCommand(c, ZSET_MIN); }
static void zpopmaxCommand(client *c) { zpopMinMaxCommand(c, ZSET_MAX); }

static void blockingGenericZpopCommand(client *c, sds *keys, int numkeys, int where, int timeout_idx, long count,
                                       int use_nested_array, int reply_nil_when_empty) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout, 1) != C_OK) return;
    for (int j = 0; j < numkeys; j++) {
        robj *o = lookupKeyWrite(c, c->db, keys[j]);
        if (!o) continue;
        if (checkType(c, o, OBJ_ZSET)) return;
        genericZpopCommand(c, &keys[j], 1, where, 1, count, use_nested_array, reply_nil_when_empty);
        return;
    }
    if (zsetDenyBlocking(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeysOfType(c, keys, numkeys, timeout, OBJ_ZSET);
}

static void bzpopminCommand(client *c) {
    blockingGenericZpopCommand(c, c->argv + 1, c->argc - 2, ZSET_MIN, c->argc - 1, -1, 0, 0);
}
static void bzpopmaxCommand(client *c) {
    blockingGenericZpopCommand(c, c->argv + 1, c->argc - 2, ZSET_MAX, c->argc - 1, -1, 0, 0);
}

static void zmpopGenericCommand(client *c, int numkeys_idx, int is_block) {
    long numkeys = 0, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys >= c->argc - numkeys_idx - 1) {
        addReplyErrorSyntax(c);
        return;
    }
    int where_idx = numkeys_idx + (int)numkeys + 1;
    if (!strcasecmp(c->argv[where_idx], "MIN")) where = ZSET_MIN;
    else if (!strcasecmp(c->argv[where_idx], "MAX")) where = ZSET_MAX;
    else {
        addReplyErrorSyntax(c);
        return;
    }
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
    if (is_block) blockingGenericZpopCommand(c, c->argv + numkeys_idx + 1, (int)numkeys, where, 1, count, 1, 1);
    else genericZpopCommand(c, c->argv + numkeys_idx + 1, (int)numkeys, where, 1, count, 1, 1);
}

static void zmpopCommand(client *c) { zmpopGenericCommand(c, 1, 0); }
static void bzmpopCommand(client *c) { zmpopGenericCommand(c, 2, 1); }

/* ========================================================================
 * ZRANDMEMBER
 * ===================================================================== */

static void zrandReplyOne(client *c, zskiplistNode *n, int withscores) {
    if (withscores && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyBulk(c, n->ele, sdslen(n->ele));
    if (withscores) addReplyDouble(c, n->score);
}

static zskiplistNode *zsetRandomNode(zset *zs) {
    unsigned long r = ((unsigned long)random() << 31 | (unsigned long)random()) % zs->zsl->length;
    return zslGetElementByRank(zs->zsl, r + 1);
}

static void zrandmemberWithCountCommand(client *c, long l, int withscores) {
    robj *zobj = lookupKeyRead(c, c->db, c->argv[1]);
    if (!zobj) {
        addReplyArrayLen(c, 0);
        return;
    }
    if (checkType(c, zobj, OBJ_ZSET)) return;
    zset *zs = zobj->ptr;
    unsigned long size = zs->zsl->length;
    unsigned long count;
    int uniq = 1;
    if (l >= 0) {
        count = (unsigned long)l;
    } else {
        count = (unsigned long)(-l);
        uniq = 0;
    }
    if (count == 0) {
        addReplyArrayLen(c, 0);
        return;
    }
    if (!uniq || count == 1) {
        addReplyArrayLen(c, (long)(withscores && c->resp == 2 ? count * 2 : count));
        while (count--) zrandReplyOne(c, zsetRandomNode(zs), withscores);
        return;
    }
    if (count >= size) {
        addReplyArrayLen(c, (long)(withscores && c->resp == 2 ? size * 2 : size));
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward)
            zrandReplyOne(c, x, withscores);
        return;
    }
    /* count distinct random ranks (Floyd's algorithm), replied in a random
     * order. */
    long *ranks = zmalloc(sizeof(long) * count);
    dict *seen = dictCreate(&sdsKeyDictType);
    unsigned long n = 0;
    for (unsigned long j = size - count; j < size; j++) {
        unsigned long t = ((unsigned long)random() << 31 | (unsigned long)random()) % (j + 1);
        char buf[32];
        int len = ll2string(buf, sizeof(buf), (long long)t);
        sds k = sdsnewlen(buf, (size_t)len);
        if (dictFind(seen, k)) {
            sdsfree(k);
            len = ll2string(buf, sizeof(buf), (long long)j);
            k = sdsnewlen(buf, (size_t)len);
            t = j;
        }
        dictAdd(seen, k, NULL);
        ranks[n++] = (long)t;
    }
    dictRelease(seen);
    /* Shuffle (Fisher-Yates). */
    for (unsigned long j = n - 1; j > 0; j--) {
        unsigned long k = (unsigned long)random() % (j + 1);
        long tmp = ranks[j];
        ranks[j] = ranks[k];
        ranks[k] = tmp;
    }
    addReplyArrayLen(c, (long)(withscores && c->resp == 2 ? count * 2 : count));
    for (unsigned long j = 0; j < n; j++) zrandReplyOne(c, zslGetElementByRank(zs->zsl, (unsigned long)ranks[j] + 1), withscores);
    zfree(ranks);
}

static void zrandmemberCommand(client *c) {
    if (c->argc >= 3) {
        long l;
        int withscores = 0;
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
        if (c->argc > 4 || (c->argc == 4 && strcasecmp(c->argv[3], "withscores"))) {
            addReplyErrorSyntax(c);
            return;
        } else if (c->argc == 4) {
            withscores = 1;
            if (l < -LONG_MAX / 2 || l > LONG_MAX / 2) {
                addReplyError(c, "value is out of range");
                return;
            }
        }
        zrandmemberWithCountCommand(c, l, withscores);
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!zobj || checkType(c, zobj, OBJ_ZSET)) return;
    zskiplistNode *n = zsetRandomNode(zobj->ptr);
    addReplyBulk(c, n->ele, sdslen(n->ele));
}

/* ========================================================================
 * ZSCAN
 * ===================================================================== */

typedef struct zscanData {
    const scanArgs *sa;
    sds *out; /* member, score, member, score ... */
    long count, alloc;
} zscanData;

static void zscanAdd(zscanData *sd, zskiplistNode *n) {
    if (!scanMatches(sd->sa, n->ele, sdslen(n->ele))) return;
    if (sd->count + 2 > sd->alloc) {
        sd->alloc = sd->alloc ? sd->alloc * 2 : 32;
        sd->out = zrealloc(sd->out, sizeof(sds) * (size_t)sd->alloc);
    }
    char buf[MAX_D2STRING_CHARS];
    int len = d2string(buf, sizeof(buf), n->score);
    sd->out[sd->count++] = sdsdup(n->ele);
    sd->out[sd->count++] = sdsnewlen(buf, (size_t)len);
}

static void zscanCallback(void *privdata, const dictEntry *de) { zscanAdd(privdata, de->val); }

static void zscanCommand(client *c) {
    unsigned long cursor;
    scanArgs sa;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    if (scanParseArgsOrReply(c, 3, 0, &sa) != C_OK) return;
    robj *zobj = lookupKeyRead(c, c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    if (!zobj) {
        addReplyArrayLen(c, 2);
        addReplyBulk(c, "0", 1);
        addReplyArrayLen(c, 0);
        return;
    }
    zset *zs = zobj->ptr;
    zscanData sd = {&sa, NULL, 0, 0};
    if (!zs->skiplist) {
        /* A listpack is returned whole, in order, with cursor 0. */
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward) zscanAdd(&sd, x);
        cursor = 0;
    } else {
        long maxiterations = sa.count > LONG_MAX / 10 ? LONG_MAX : sa.count * 10;
        do {
            cursor = dictScan(zs->dict, cursor, zscanCallback, &sd);
        } while (cursor && maxiterations-- && sd.count / 2 < sa.count);
    }
    addReplyArrayLen(c, 2);
    addReplyBulkSds(c, sdscatprintf(sdsempty(), "%lu", cursor));
    addReplyArrayLen(c, sd.count);
    for (long j = 0; j < sd.count; j++) addReplyBulkSds(c, sd.out[j]);
    zfree(sd.out);
}

/* ========================================================================
 * ZUNION, ZINTER, ZDIFF (STORE), ZINTERCARD
 * ===================================================================== */

#define SET_OP_UNION 0
#define SET_OP_DIFF 1
#define SET_OP_INTER 2
#define REDIS_AGGR_SUM 1
#define REDIS_AGGR_MIN 2
#define REDIS_AGGR_MAX 3

/* One input: a sorted set, a plain set (scores 1), or missing. */
typedef struct zsetopsrc {
    robj *subject;
    double weight;
} zsetopsrc;

static unsigned long zuiLength(const zsetopsrc *op) {
    if (!op->subject) return 0;
    if (op->subject->type == OBJ_ZSET) return zsetLength(op->subject);
    return setTypeSize(op->subject);
}

/* The member's score in the input (1 for a set member); 0 if absent. */
static int zuiFind(const zsetopsrc *op, sds ele, double *score) {
    if (!op->subject) return 0;
    if (op->subject->type == OBJ_ZSET) {
        zskiplistNode *n = zsetFindSds(op->subject->ptr, ele);
        if (!n) return 0;
        *score = n->score;
        return 1;
    }
    if (!setTypeIsMember(op->subject, ele, sdslen(ele))) return 0;
    *score = 1.0;
    return 1;
}

/* Iterating an input: calls fn(ele, score, arg) for every member. */
typedef void zuiVisitFn(sds ele, double score, void *arg);

static void zuiForEach(const zsetopsrc *op, zuiVisitFn *fn, void *arg) {
    if (!op->subject) return;
    if (op->subject->type == OBJ_ZSET) {
        zset *zs = op->subject->ptr;
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward) fn(x->ele, x->score, arg);
        return;
    }
    setTypeIterator *it = setTypeInitIterator(op->subject);
    sds m;
    while ((m = setTypeNext(it)) != NULL) fn(m, 1.0, arg);
    setTypeReleaseIterator(it);
}

static int zuiCompareByCardinality(const void *s1, const void *s2) {
    unsigned long first = zuiLength((const zsetopsrc *)s1), second = zuiLength((const zsetopsrc *)s2);
    if (first > second) return 1;
    if (first < second) return -1;
    return 0;
}

static inline void zunionInterAggregate(double *target, double val, int aggregate) {
    if (aggregate == REDIS_AGGR_SUM) {
        *target = *target + val;
        if (isnan(*target)) *target = 0.0;
    } else if (aggregate == REDIS_AGGR_MIN) {
        *target = val < *target ? val : *target;
    } else if (aggregate == REDIS_AGGR_MAX) {
        *target = val > *target ? val : *target;
    }
}

typedef struct zsetopState {
    zsetopsrc *src;
    long setnum;
    int aggregate;
    int cardinality_only;
    long limit;
    unsigned long cardinality;
    int stop;
    zset *dst;        /* result */
    size_t maxelelen;
    dict *acc;        /* union: member -> unionAcc (scores accumulate) */
    long cur;         /* union: the input being visited */
} zsetopState;

static void zinterVisit(sds ele, double s0, void *arg) {
    zsetopState *st = arg;
    if (st->stop) return;
    double score = st->src[0].weight * s0;
    if (isnan(score)) score = 0;
    long j;
    for (j = 1; j < st->setnum; j++) {
        double value;
        if (st->src[j].subject == st->src[0].subject) {
            value = s0 * st->src[j].weight;
            zunionInterAggregate(&score, value, st->aggregate);
        } else if (zuiFind(&st->src[j], ele, &value)) {
            value *= st->src[j].weight;
            zunionInterAggregate(&score, value, st->aggregate);
        } else {
            break;
        }
    }
    if (j != st->setnum) return;
    if (st->cardinality_only) {
        st->cardinality++;
        if (st->limit && st->cardinality >= (unsigned long)st->limit) st->stop = 1;
        return;
    }
    zsetInsertNew(st->dst, score, ele, sdslen(ele));
    if (sdslen(ele) > st->maxelelen) st->maxelelen = sdslen(ele);
}

/* Union: scores accumulate in a temporary table, inserted at the end. */
typedef struct unionAcc {
    double score;
} unionAcc;

static void zunionVisit(sds ele, double s, void *arg) {
    zsetopState *st = arg;
    double score = st->src[st->cur].weight * s;
    if (isnan(score)) score = 0;
    dictEntry *de = dictFind(st->acc, ele);
    if (!de) {
        unionAcc *a = zmalloc(sizeof(*a));
        a->score = score;
        dictAdd(st->acc, sdsdup(ele), a);
        if (sdslen(ele) > st->maxelelen) st->maxelelen = sdslen(ele);
    } else {
        zunionInterAggregate(&((unionAcc *)de->val)->score, score, st->aggregate);
    }
}

static void zdiffVisit(sds ele, double s, void *arg) {
    zsetopState *st = arg;
    for (long j = 1; j < st->setnum; j++) {
        double v;
        if (st->src[j].subject == st->src[0].subject || zuiFind(&st->src[j], ele, &v)) return;
    }
    zsetInsertNew(st->dst, s, ele, sdslen(ele));
    if (sdslen(ele) > st->maxelelen) st->maxelelen = sdslen(ele);
}

static void zunionInterDiffGenericCommand(client *c, sds dstkey, int numkeysIndex, int op, int cardinality_only) {
    long setnum;
    int aggregate = REDIS_AGGR_SUM, withscores = 0;
    long limit = 0;
    if (getLongFromObjectOrReply(c, c->argv[numkeysIndex], &setnum, NULL) != C_OK) return;
    if (setnum < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return;
    }
    if (setnum > c->argc - (numkeysIndex + 1)) {
        addReplyErrorSyntax(c);
        return;
    }
    zsetopsrc *src = zcalloc(sizeof(zsetopsrc) * (size_t)setnum);
    int i, j;
    for (i = 0, j = numkeysIndex + 1; i < setnum; i++, j++) {
        robj *obj = lookupKeyRead(c, c->db, c->argv[j]);
        if (obj && obj->type != OBJ_ZSET && obj->type != OBJ_SET) {
            zfree(src);
            addReplyErrorObject(c, shared_wrongtypeerr);
            return;
        }
        src[i].subject = obj;
        src[i].weight = 1.0;
    }
    if (j < c->argc) {
        int remaining = c->argc - j;
        while (remaining) {
            if (op != SET_OP_DIFF && !cardinality_only && remaining >= (setnum + 1) &&
                !strcasecmp(c->argv[j], "weights")) {
                j++;
                remaining--;
                for (i = 0; i < setnum; i++, j++, remaining--) {
                    if (getDoubleFromObjectOrReply(c, c->argv[j], &src[i].weight, "weight value is not a float") !=
                        C_OK) {
                        zfree(src);
                        return;
                    }
                }
            } else if (op != SET_OP_DIFF && !cardinality_only && remaining >= 2 &&
                       !strcasecmp(c->argv[j], "aggregate")) {
                j++;
                remaining--;
                if (!strcasecmp(c->argv[j], "sum")) aggregate = REDIS_AGGR_SUM;
                else if (!strcasecmp(c->argv[j], "min")) aggregate = REDIS_AGGR_MIN;
                else if (!strcasecmp(c->argv[j], "max")) aggregate = REDIS_AGGR_MAX;
                else {
                    zfree(src);
                    addReplyErrorSyntax(c);
                    return;
                }
                j++;
                remaining--;
            } else if (remaining >= 1 && !dstkey && !cardinality_only && !strcasecmp(c->argv[j], "withscores")) {
                j++;
                remaining--;
                withscores = 1;
            } else if (cardinality_only && remaining >= 2 && !strcasecmp(c->argv[j], "limit")) {
                j++;
                remaining--;
                if (getPositiveLongFromObjectOrReply(c, c->argv[j], &limit, "LIMIT can't be negative") != C_OK) {
                    zfree(src);
                    return;
                }
                j++;
                remaining--;
            } else {
                zfree(src);
                addReplyErrorSyntax(c);
                return;
            }
        }
    }
    if (op != SET_OP_DIFF) qsort(src, (size_t)setnum, sizeof(zsetopsrc), zuiCompareByCardinality);

    zsetopState st = {.src = src, .setnum = setnum, .aggregate = aggregate, .cardinality_only = cardinality_only,
                      .limit = limit, .dst = zsetNew()};
    st.dst->skiplist = 1; /* Redis builds a skiplist, converted when stored */
    if (op == SET_OP_INTER) {
        if (zuiLength(&src[0]) > 0) zuiForEach(&src[0], zinterVisit, &st);
    } else if (op == SET_OP_UNION) {
        st.acc = dictCreate(&sdsKeyDictType);
        for (i = 0; i < setnum; i++) {
            if (zuiLength(&src[i]) == 0) continue;
            st.cur = i;
            zuiForEach(&src[i], zunionVisit, &st);
        }
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, st.acc);
        while ((de = dictNext(&it)) != NULL) {
            zsetInsertNew(st.dst, ((unionAcc *)de->val)->score, de->key, sdslen(de->key));
            zfree(de->val);
        }
        dictRelease(st.acc);
    } else {
        if (zuiLength(&src[0]) > 0) zuiForEach(&src[0], zdiffVisit, &st);
    }
    zfree(src);

    if (dstkey) {
        if (st.dst->zsl->length) {
            zsetConvertToListpackIfNeeded(st.dst, st.maxelelen);
            robj *dstobj = createObject(OBJ_ZSET, st.dst);
            long long len = (long long)st.dst->zsl->length;
            zsetStoreKey(c, dstkey, dstobj);
            addReplyLongLong(c, len);
        } else {
            zsetFree(st.dst);
            addReplyLongLong(c, 0);
            if (lookupKeyWrite(c, c->db, dstkey) && dbDelete(c->db, dstkey)) signalModifiedKey(c, c->db, dstkey, NULL);
        }
    } else if (cardinality_only) {
        zsetFree(st.dst);
        addReplyLongLong(c, (long long)st.cardinality);
    } else {
        zskiplist *zsl = st.dst->zsl;
        unsigned long length = zsl->length;
        addReplyArrayLen(c, (long)(withscores && c->resp == 2 ? length * 2 : length));
        for (zskiplistNode *zn = zsl->header->level[0].forward; zn; zn = zn->level[0].forward) {
            if (withscores && c->resp > 2) addReplyArrayLen(c, 2);
            addReplyBulk(c, zn->ele, sdslen(zn->ele));
            if (withscores) addReplyDouble(c, zn->score);
        }
        zsetFree(st.dst);
    }
}

static void zunionstoreCommand(client *c) { zunionInterDiffGenericCommand(c, c->argv[1], 2, SET_OP_UNION, 0); }
static void zinterstoreCommand(client *c) { zunionInterDiffGenericCommand(c, c->argv[1], 2, SET_OP_INTER, 0); }
static void zdiffstoreCommand(client *c) { zunionInterDiffGenericCommand(c, c->argv[1], 2, SET_OP_DIFF, 0); }
static void zunionCommand(client *c) { zunionInterDiffGenericCommand(c, NULL, 1, SET_OP_UNION, 0); }
static void zinterCommand(client *c) { zunionInterDiffGenericCommand(c, NULL, 1, SET_OP_INTER, 0); }
static void zinterCardCommand(client *c) { zunionInterDiffGenericCommand(c, NULL, 1, SET_OP_INTER, 1); }
static void zdiffCommand(client *c) { zunionInterDiffGenericCommand(c, NULL, 1, SET_OP_DIFF, 0); }

/* ========================================================================
 * The state document: [["member", score], ...] in rank order; a score is
 * a JSON number (exact: 17 significant digits), or "inf" / "-inf".
 * ===================================================================== */

static sds zsetCatScore(sds out, double score) {
    if (isinf(score)) return sdscat(out, score > 0 ? "\"inf\"" : "\"-inf\"");
    char buf[64];
    int len;
    /* Integers (the common case) the fast way; -0 keeps its sign. */
    if (score > -9007199254740992.0 && score < 9007199254740992.0 && score == (double)(long long)score &&
        !(score == 0 && signbit(score)))
        len = ll2string(buf, sizeof(buf), (long long)score);
    else
        len = snprintf(buf, sizeof(buf), "%.17g", score);
    return sdscatlen(out, buf, (size_t)len);
}

/* The chunk's members as JSON ("[m,s],[m,s]..."), cached. */
static sds zchunkJSON(zchunk *ch) {
    if (ch->json) return ch->json;
    sds out = sdsempty();
    zskiplistNode *x = ch->first;
    for (unsigned long i = 0; i < ch->count; i++, x = x->level[0].forward) {
        if (i) out = sdscatlen(out, ",", 1);
        out = sdscatlen(out, "[", 1);
        out = jsonCatBytes(out, x->ele, sdslen(x->ele));
        out = sdscatlen(out, ",", 1);
        out = zsetCatScore(out, x->score);
        out = sdscatlen(out, "]", 1);
    }
    ch->json = out;
    ch->json_pin = 0;
    ch->json_len = sdslen(out);
    return out;
}

static size_t zsetTypeJSONBytes(const robj *o) {
    zset *zs = o->ptr;
    size_t total = 2;
    for (zchunk *ch = zs->chead; ch; ch = ch->next) {
        if (ch->json) {
            total += sdslen(ch->json) + 1;
        } else if (ch->ref.seg) {
            /* Sealed, unchanged since: its JSON went to the segment. */
            total += ch->json_len + 1;
        } else {
            zskiplistNode *x = ch->first;
            for (unsigned long i = 0; i < ch->count; i++, x = x->level[0].forward) total += 6 * sdslen(x->ele) + 40;
        }
    }
    return total;
}

static sds zsetTypeCatJSON(sds out, robj *o) {
    zset *zs = o->ptr;
    out = sdscatlen(out, "[", 1);
    for (zchunk *ch = zs->chead; ch; ch = ch->next) {
        if (ch != zs->chead) out = sdscatlen(out, ",", 1);
        sds j = zchunkJSON(ch);
        out = sdscatlen(out, j, sdslen(j));
    }
    return sdscatlen(out, "]", 1);
}

/* A big sorted set: sealed chunks by reference, the others' JSON lent. */
static void zsetTypeDocJSON(storeDoc *d, robj *o) {
    zset *zs = o->ptr;
    chunkDocWriter w;
    chunkDocBegin(&w, d);
    for (zchunk *ch = zs->chead; ch; ch = ch->next) {
        if (chunkDocAddSealed(&w, &ch->ref, &ch->json, &ch->json_pin)) continue;
        zchunkJSON(ch);
        chunkDocText(&w, ch->json, &ch->json_pin);
    }
    chunkDocEnd(&w);
}

/* The chunks between the lowest and the highest scores: delayed jobs are
 * added near the end and taken from the front (chunkseg.h). */
static void zsetTypeSealChunks(robj *o, chunkSealPlan *p) {
    zset *zs = o->ptr;
    if (!zs->chead) return;
    for (zchunk *ch = zs->chead; ch; ch = ch->next)
        chunkSealOffer(p, &ch->ref, ch->json, ch == zs->chead || ch == zs->ctail);
}

static void *zsetLoadFail(zset *zs, sds *err, sds msg) {
    zsetFree(zs);
    *err = msg;
    return NULL;
}

static void *zsetTypeFromJSON(const cJSON *v, sds *err) {
    if (!cJSON_IsArray(v)) {
        *err = sdsnew("zset: expected an array of [member, score]");
        return NULL;
    }
    if (!v->child) {
        *err = sdsnew("zset: empty (an empty sorted set is no key)");
        return NULL;
    }
    zset *zs = zsetNew();
    zs->skiplist = 1; /* keeps -0 until the encoding is known (below) */
    size_t index = 0;
    /* A sealed part's members get a chunk of their own (chunkseg.h); a
     * document not in rank order keeps none. */
    chunkLoadPart *part = NULL;
    zskiplistNode *part_first = NULL;
    int ordered = 1;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2)
            return zsetLoadFail(zs, err, sdscatprintf(sdsempty(), "zset: entry #%zu: expected [member, score]", index));
        sds ele = NULL, msg = NULL;
        if (jsonGetBytes(e->child, &ele, "member", &msg) != C_OK) {
            sds m = sdscatprintf(sdsempty(), "zset: entry #%zu: %s", index, msg);
            sdsfree(msg);
            return zsetLoadFail(zs, err, m);
        }
        const cJSON *s = e->child->next;
        double score;
        if (cJSON_IsNumber(s)) {
            score = s->valuedouble;
        } else if (cJSON_IsString(s) && !strcmp(s->valuestring, "inf")) {
            score = INFINITY;
        } else if (cJSON_IsString(s) && !strcmp(s->valuestring, "-inf")) {
            score = -INFINITY;
        } else {
            sdsfree(ele);
            return zsetLoadFail(zs, err,
                                sdscatprintf(sdsempty(), "zset: entry #%zu: score must be a number, \"inf\" or \"-inf\"",
                                             index));
        }
        if (isnan(score) || (cJSON_IsNumber(s) && isinf(score))) {
            sdsfree(ele);
            return zsetLoadFail(zs, err, sdscatprintf(sdsempty(), "zset: entry #%zu: score out of range", index));
        }
        if (zsetFindSds(zs, ele)) {
            sds m = sdscatprintf(sdsempty(), "zset: entry #%zu: duplicate member", index);
            sdsfree(ele);
            return zsetLoadFail(zs, err, m);
        }
        chunkLoadPart *starts = chunkLoadPartAt(index);
        if (starts) zs->chunk_break = 1;
        zskiplistNode *x = zsetInsertNew(zs, score, ele, sdslen(ele));
        sdsfree(ele);
        zs->chunk_break = 0;
        if (x->level[0].forward) ordered = 0;
        if (starts) {
            part = starts;
            part_first = x;
        }
        if (part && index == part->start + part->count - 1) {
            zchunk *ch = part_first->chunk;
            if (ordered && ch->first == part_first && ch->count == part->count) chunkLoadAttach(part, &ch->ref);
            part = NULL;
            zs->chunk_break = 1;
        }
        index++;
    }
    zs->chunk_break = 0;
    if (!ordered) chunkLoadDetachAll();
    zsetConvertToListpackIfNeeded(zs, zsetMaxEleLen(zs));
    return zs;
}

/* ========================================================================
 * The zset type (server.h, objectType)
 * ===================================================================== */

static void zsetTypeFree(void *ptr) { zsetFree(ptr); }

static void *zsetTypeDup(const void *ptr) { return zsetDup(ptr); }

static const char *zsetTypeEncoding(const robj *o) { return ((zset *)o->ptr)->skiplist ? "skiplist" : "listpack"; }

static size_t zsetTypeComputeSize(const robj *o, long long samples) {
    (void)samples;
    zset *zs = o->ptr;
    size_t total = 0;
    if (!zs->skiplist) {
        /* listpack: member and score entries */
        total = 7;
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward)
            total += sdslen(x->ele) + 2 + 10;
        return total;
    }
    total = sizeof(zset) + sizeof(zskiplist) + sizeof(dict) + zs->dict->size * sizeof(dictEntry *);
    for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward)
        total += sizeof(*x) + 2 * sizeof(struct zskiplistLevel) + sdsAllocSize(x->ele) + sizeof(dictEntry);
    return total;
}

const objectType zsetObjectType = {
    .type = OBJ_ZSET,
    .name = "zset",
    .free = zsetTypeFree,
    .dup = zsetTypeDup,
    .encoding = zsetTypeEncoding,
    .computeSize = zsetTypeComputeSize,
    .jsonBytes = zsetTypeJSONBytes,
    .catJSON = zsetTypeCatJSON,
    .docJSON = zsetTypeDocJSON,
    .fromJSON = zsetTypeFromJSON,
    .sealChunks = zsetTypeSealChunks,
};

/* ========================================================================
 * Command table (arity, flags and key positions as Redis 7.2)
 * ===================================================================== */

struct redisCommand zsetCommandTable[] = {
    {"zadd", zaddCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write sortedset fast", NULL},
    {"zincrby", zincrbyCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write sortedset fast", NULL},
    {"zrem", zremCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "write sortedset fast", NULL},
    {"zremrangebyscore", zremrangebyscoreCommand, 4, CMD_WRITE, 1, 1, 1, "write sortedset slow", NULL},
    {"zremrangebyrank", zremrangebyrankCommand, 4, CMD_WRITE, 1, 1, 1, "write sortedset slow", NULL},
    {"zremrangebylex", zremrangebylexCommand, 4, CMD_WRITE, 1, 1, 1, "write sortedset slow", NULL},
    {"zunionstore", zunionstoreCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS, 1, 1, 1,
     "write sortedset slow", NULL},
    {"zinterstore", zinterstoreCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS, 1, 1, 1,
     "write sortedset slow", NULL},
    {"zdiffstore", zdiffstoreCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS, 1, 1, 1,
     "write sortedset slow", NULL},
    {"zunion", zunionCommand, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0, 0, "read sortedset slow", NULL},
    {"zinter", zinterCommand, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0, 0, "read sortedset slow", NULL},
    {"zintercard", zinterCardCommand, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0, 0, "read sortedset slow", NULL},
    {"zdiff", zdiffCommand, -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0, 0, "read sortedset slow", NULL},
    {"zrange", zrangeCommand, -4, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zrangestore", zrangestoreCommand, -5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "write sortedset slow", NULL},
    {"zrangebyscore", zrangebyscoreCommand, -4, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zrevrangebyscore", zrevrangebyscoreCommand, -4, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zrangebylex", zrangebylexCommand, -4, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zrevrangebylex", zrevrangebylexCommand, -4, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zcount", zcountCommand, 4, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zlexcount", zlexcountCommand, 4, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zrevrange", zrevrangeCommand, -4, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zcard", zcardCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zscore", zscoreCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zmscore", zmscoreCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zrank", zrankCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zrevrank", zrevrankCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "read sortedset fast", NULL},
    {"zscan", zscanCommand, -3, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {"zpopmin", zpopminCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write sortedset fast", NULL},
    {"zpopmax", zpopmaxCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write sortedset fast", NULL},
    {"zmpop", zmpopCommand, -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0, 0, "write sortedset slow", NULL},
    {"bzpopmin", bzpopminCommand, -3, CMD_WRITE | CMD_FAST | CMD_BLOCKING, 1, -2, 1,
     "write sortedset fast blocking", NULL},
    {"bzpopmax", bzpopmaxCommand, -3, CMD_WRITE | CMD_FAST | CMD_BLOCKING, 1, -2, 1,
     "write sortedset fast blocking", NULL},
    {"bzmpop", bzmpopCommand, -5, CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0,
     "write sortedset slow blocking", NULL},
    {"zrandmember", zrandmemberCommand, -2, CMD_READONLY, 1, 1, 1, "read sortedset slow", NULL},
    {0},
};
