/* idtree.c -- an ordered map keyed by 128-bit stream IDs (see idtree.h).
 *
 * A B+tree: items live in leaves (sorted arrays of keys and values, doubly
 * linked for iteration); inner nodes hold child pointers and, for every
 * child but the first, a lower bound of the keys below it (keys[i] <= every
 * key in child i < keys[i+1]). Bounds may be lower than the real minimum
 * after deletions, which is harmless for routing.
 *
 * Tuned for the two shapes streams produce:
 *  - append-mostly (entry nodes, PELs filled by XREADGROUP): a full
 *    rightmost node splits by starting an empty sibling, so sequential
 *    appends leave every node 100% full;
 *  - many tiny trees (one PEL per consumer): a tree that fits in one leaf
 *    uses a leaf sized to its content (4, 8, ... 64 slots), and an empty
 *    tree allocates nothing.
 * Removals free empty nodes and merge an underfull node (< 1/4) with a
 * neighbour when both fit in one node. */
#include "idtree.h"

#include <string.h>

#include "zmalloc.h"

#define LEAF_MAX 64  /* slots in a full leaf */
#define LEAF_MIN 4   /* smallest leaf (only a root leaf is ever smaller than LEAF_MAX) */
#define INNER_MAX 64 /* children of an inner node */

struct idtreeLeaf {
    idtreeLeaf *prev; /* leaf holding smaller keys, NULL for the first */
    idtreeLeaf *next; /* leaf holding greater keys, NULL for the last */
    uint16_t n;       /* items stored */
    uint16_t cap;     /* slots allocated; the values array follows keys[cap] */
    streamID keys[];  /* sorted, then `void *vals[cap]` */
};

typedef struct idtreeInner {
    int n;                      /* children */
    streamID keys[INNER_MAX];   /* keys[i]: lower bound of child i (keys[0] of
                                 * the leftmost node is meaningless) */
    void *child[INNER_MAX];     /* leaves when this node is on level 1 */
} idtreeInner;

/* ------------------------------------------------------------------------
 * Node helpers
 * --------------------------------------------------------------------- */

static inline void **leafVals(idtreeLeaf *l) { return (void **)(l->keys + l->cap); }

static size_t leafAllocSize(int cap) { return sizeof(idtreeLeaf) + (size_t)cap * (sizeof(streamID) + sizeof(void *)); }

static idtreeLeaf *leafNew(idtree *t, int cap) {
    idtreeLeaf *l = zmalloc(leafAllocSize(cap));
    l->prev = l->next = NULL;
    l->n = 0;
    l->cap = (uint16_t)cap;
    t->nodes++;
    return l;
}

static void leafFree(idtree *t, idtreeLeaf *l) {
    zfree(l);
    t->nodes--;
}

/* Reallocates a root leaf (no siblings) with another capacity. */
static idtreeLeaf *leafResize(idtree *t, idtreeLeaf *l, int cap) {
    idtreeLeaf *nl = leafNew(t, cap);
    nl->n = l->n;
    memcpy(nl->keys, l->keys, sizeof(streamID) * l->n);
    memcpy(leafVals(nl), leafVals(l), sizeof(void *) * l->n);
    leafFree(t, l);
    return nl;
}

static idtreeInner *innerNew(idtree *t) {
    idtreeInner *in = zmalloc(sizeof(*in));
    in->n = 0;
    t->nodes++;
    return in;
}

static void innerFree(idtree *t, idtreeInner *in) {
    zfree(in);
    t->nodes--;
}

static inline int nodeCount(void *node, int level) {
    return level == 0 ? ((idtreeLeaf *)node)->n : ((idtreeInner *)node)->n;
}

/* First slot whose key is >= id (or > id when strict). */
static int leafBound(const idtreeLeaf *l, const streamID *id, int strict) {
    int lo = 0, hi = l->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int c = streamCompareID(&l->keys[mid], id);
        if (c < 0 || (strict && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The child whose range holds id: the last i >= 1 with keys[i] <= id, or 0. */
static int innerRoute(const idtreeInner *in, const streamID *id) {
    int lo = 1, hi = in->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (streamCompareID(&in->keys[mid], id) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static void leafInsertAt(idtreeLeaf *l, int pos, const streamID *id, void *val) {
    void **vals = leafVals(l);
    memmove(l->keys + pos + 1, l->keys + pos, sizeof(streamID) * (size_t)(l->n - pos));
    memmove(vals + pos + 1, vals + pos, sizeof(void *) * (size_t)(l->n - pos));
    l->keys[pos] = *id;
    vals[pos] = val;
    l->n++;
}

static void leafRemoveAt(idtreeLeaf *l, int pos) {
    void **vals = leafVals(l);
    memmove(l->keys + pos, l->keys + pos + 1, sizeof(streamID) * (size_t)(l->n - pos - 1));
    memmove(vals + pos, vals + pos + 1, sizeof(void *) * (size_t)(l->n - pos - 1));
    l->n--;
}

static void innerInsertAt(idtreeInner *in, int pos, const streamID *key, void *child) {
    memmove(in->keys + pos + 1, in->keys + pos, sizeof(streamID) * (size_t)(in->n - pos));
    memmove(in->child + pos + 1, in->child + pos, sizeof(void *) * (size_t)(in->n - pos));
    in->keys[pos] = *key;
    in->child[pos] = child;
    in->n++;
}

static void innerRemoveAt(idtreeInner *in, int pos) {
    memmove(in->keys + pos, in->keys + pos + 1, sizeof(streamID) * (size_t)(in->n - pos - 1));
    memmove(in->child + pos, in->child + pos + 1, sizeof(void *) * (size_t)(in->n - pos - 1));
    in->n--;
}

static void leafUnlink(idtreeLeaf *l) {
    if (l->prev) l->prev->next = l->next;
    if (l->next) l->next->prev = l->prev;
}

/* ------------------------------------------------------------------------
 * Creation and destruction
 * --------------------------------------------------------------------- */

void idtreeInit(idtree *t) {
    t->root = NULL;
    t->height = 0;
    t->size = 0;
    t->nodes = 0;
}

idtree *idtreeNew(void) {
    idtree *t = zmalloc(sizeof(*t));
    idtreeInit(t);
    return t;
}

static void freeRec(idtree *t, void *node, int level, void (*freeval)(void *)) {
    if (level == 0) {
        idtreeLeaf *l = node;
        if (freeval)
            for (int i = 0; i < l->n; i++) freeval(leafVals(l)[i]);
        leafFree(t, l);
        return;
    }
    idtreeInner *in = node;
    for (int i = 0; i < in->n; i++) freeRec(t, in->child[i], level - 1, freeval);
    innerFree(t, in);
}

void idtreeClear(idtree *t, void (*freeval)(void *)) {
    if (t->root) freeRec(t, t->root, t->height, freeval);
    idtreeInit(t);
}

void idtreeFree(idtree *t, void (*freeval)(void *)) {
    if (!t) return;
    idtreeClear(t, freeval);
    zfree(t);
}

/* ------------------------------------------------------------------------
 * Lookup
 * --------------------------------------------------------------------- */

static idtreeLeaf *descend(const idtree *t, const streamID *id) {
    void *node = t->root;
    for (int level = t->height; level > 0; level--) {
        idtreeInner *in = node;
        node = in->child[innerRoute(in, id)];
    }
    return node;
}

void *idtreeFind(const idtree *t, const streamID *id) {
    if (!t->root) return NULL;
    idtreeLeaf *l = descend(t, id);
    int pos = leafBound(l, id, 0);
    if (pos < l->n && streamCompareID(&l->keys[pos], id) == 0) return leafVals(l)[pos];
    return NULL;
}

/* ------------------------------------------------------------------------
 * Insertion
 * --------------------------------------------------------------------- */

/* Inserts below *nodep (on `level`). If the node had to split, returns the
 * new right sibling and stores its lower bound in *sep. */
static void *insertRec(idtree *t, void **nodep, int level, const streamID *id, void *val, int *inserted,
                       void **existing, streamID *sep) {
    if (level == 0) {
        idtreeLeaf *l = *nodep;
        int pos = leafBound(l, id, 0);
        if (pos < l->n && streamCompareID(&l->keys[pos], id) == 0) {
            *inserted = 0;
            if (existing) *existing = leafVals(l)[pos];
            return NULL;
        }
        *inserted = 1;
        if (l->n < l->cap) {
            leafInsertAt(l, pos, id, val);
            return NULL;
        }
        if (l->cap < LEAF_MAX) { /* a small root leaf: grow it */
            l = leafResize(t, l, l->cap * 2);
            *nodep = l;
            leafInsertAt(l, pos, id, val);
            return NULL;
        }
        idtreeLeaf *r = leafNew(t, LEAF_MAX);
        if (pos == l->n) {
            /* Appending: keep this leaf full, start the next one. */
            leafInsertAt(r, 0, id, val);
        } else {
            int h = l->n / 2;
            r->n = (uint16_t)(l->n - h);
            memcpy(r->keys, l->keys + h, sizeof(streamID) * r->n);
            memcpy(leafVals(r), leafVals(l) + h, sizeof(void *) * r->n);
            l->n = (uint16_t)h;
            if (pos <= h) leafInsertAt(l, pos, id, val);
            else leafInsertAt(r, pos - h, id, val);
        }
        r->next = l->next;
        if (l->next) l->next->prev = r;
        l->next = r;
        r->prev = l;
        *sep = r->keys[0];
        return r;
    }

    idtreeInner *in = *nodep;
    int i = innerRoute(in, id);
    if (i == 0 && in->n && streamCompareID(id, &in->keys[0]) < 0) in->keys[0] = *id;
    streamID csep;
    void *r = insertRec(t, &in->child[i], level - 1, id, val, inserted, existing, &csep);
    if (!r) return NULL;
    int pos = i + 1;
    if (in->n < INNER_MAX) {
        innerInsertAt(in, pos, &csep, r);
        return NULL;
    }
    idtreeInner *rn = innerNew(t);
    if (pos == in->n) {
        innerInsertAt(rn, 0, &csep, r);
    } else {
        int h = in->n / 2;
        rn->n = in->n - h;
        memcpy(rn->keys, in->keys + h, sizeof(streamID) * (size_t)rn->n);
        memcpy(rn->child, in->child + h, sizeof(void *) * (size_t)rn->n);
        in->n = h;
        if (pos <= h) innerInsertAt(in, pos, &csep, r);
        else innerInsertAt(rn, pos - h, &csep, r);
    }
    *sep = rn->keys[0];
    return rn;
}

int idtreeInsert(idtree *t, const streamID *id, void *val, void **existing) {
    if (!t->root) {
        idtreeLeaf *l = leafNew(t, LEAF_MIN);
        leafInsertAt(l, 0, id, val);
        t->root = l;
        t->height = 0;
        t->size = 1;
        return 1;
    }
    int inserted = 0;
    streamID sep;
    void *r = insertRec(t, &t->root, t->height, id, val, &inserted, existing, &sep);
    if (r) {
        idtreeInner *nr = innerNew(t);
        streamID zero = {0, 0};
        innerInsertAt(nr, 0, &zero, t->root);
        innerInsertAt(nr, 1, &sep, r);
        t->root = nr;
        t->height++;
    }
    if (inserted) t->size++;
    return inserted;
}

/* ------------------------------------------------------------------------
 * Removal
 * --------------------------------------------------------------------- */

/* Merges child b = a+1 into child a, both on `level`. */
static void mergeChildren(idtree *t, idtreeInner *in, int a, int level) {
    int b = a + 1;
    if (level == 0) {
        idtreeLeaf *la = in->child[a], *lb = in->child[b];
        memcpy(la->keys + la->n, lb->keys, sizeof(streamID) * lb->n);
        memcpy(leafVals(la) + la->n, leafVals(lb), sizeof(void *) * lb->n);
        la->n = (uint16_t)(la->n + lb->n);
        leafUnlink(lb);
        leafFree(t, lb);
    } else {
        idtreeInner *ia = in->child[a], *ib = in->child[b];
        for (int j = 0; j < ib->n; j++) {
            ia->keys[ia->n + j] = j == 0 ? in->keys[b] : ib->keys[j];
            ia->child[ia->n + j] = ib->child[j];
        }
        ia->n += ib->n;
        innerFree(t, ib);
    }
    innerRemoveAt(in, b);
}

/* After a removal below child i (on `level`): free it if empty, merge it
 * with a neighbour if it became sparse and they fit together. */
static void fixChild(idtree *t, idtreeInner *in, int i, int level) {
    int cn = nodeCount(in->child[i], level);
    if (cn == 0) {
        if (level == 0) {
            leafUnlink(in->child[i]);
            leafFree(t, in->child[i]);
        } else {
            innerFree(t, in->child[i]);
        }
        innerRemoveAt(in, i);
        return;
    }
    int max = level == 0 ? LEAF_MAX : INNER_MAX;
    if (cn >= max / 4) return;
    if (i + 1 < in->n && cn + nodeCount(in->child[i + 1], level) <= max) mergeChildren(t, in, i, level);
    else if (i > 0 && cn + nodeCount(in->child[i - 1], level) <= max) mergeChildren(t, in, i - 1, level);
}

static int removeRec(idtree *t, void *node, int level, const streamID *id, void **oldval) {
    if (level == 0) {
        idtreeLeaf *l = node;
        int pos = leafBound(l, id, 0);
        if (pos >= l->n || streamCompareID(&l->keys[pos], id) != 0) return 0;
        if (oldval) *oldval = leafVals(l)[pos];
        leafRemoveAt(l, pos);
        return 1;
    }
    idtreeInner *in = node;
    int i = innerRoute(in, id);
    if (!removeRec(t, in->child[i], level - 1, id, oldval)) return 0;
    fixChild(t, in, i, level - 1);
    return 1;
}

int idtreeRemove(idtree *t, const streamID *id, void **oldval) {
    if (!t->root) return 0;
    if (!removeRec(t, t->root, t->height, id, oldval)) return 0;
    t->size--;
    /* Shrink the tree from the top. */
    while (t->height > 0) {
        idtreeInner *in = t->root;
        if (in->n > 1) break;
        if (in->n == 0) {
            innerFree(t, in);
            t->root = NULL;
            t->height = 0;
            return 1;
        }
        t->root = in->child[0];
        innerFree(t, in);
        t->height--;
    }
    if (t->height == 0) {
        idtreeLeaf *l = t->root;
        if (l->n == 0) {
            leafFree(t, l);
            t->root = NULL;
        } else if (l->cap > LEAF_MIN && l->n <= l->cap / 4) {
            int cap = LEAF_MIN;
            while (cap < l->n * 2) cap *= 2;
            t->root = leafResize(t, l, cap);
        }
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * Iteration
 * --------------------------------------------------------------------- */

void idtreeSeek(idtreeIter *it, const idtree *t, int op, const streamID *id) {
    it->leaf = NULL;
    it->idx = 0;
    if (!t->root) return;
    void *node = t->root;
    if (op == IDTREE_SEEK_FIRST || op == IDTREE_SEEK_LAST) {
        for (int level = t->height; level > 0; level--) {
            idtreeInner *in = node;
            node = in->child[op == IDTREE_SEEK_FIRST ? 0 : in->n - 1];
        }
        idtreeLeaf *l = node;
        it->leaf = l;
        it->idx = op == IDTREE_SEEK_FIRST ? 0 : l->n - 1;
        return;
    }
    idtreeLeaf *l = descend(t, id);
    if (op == IDTREE_SEEK_GE || op == IDTREE_SEEK_GT) {
        int idx = leafBound(l, id, op == IDTREE_SEEK_GT);
        if (idx == l->n) {
            l = l->next;
            idx = 0;
        }
        it->leaf = l;
        it->idx = idx;
    } else {
        int idx = leafBound(l, id, op == IDTREE_SEEK_LE) - 1;
        if (idx < 0) {
            l = l->prev;
            idx = l ? l->n - 1 : 0;
        }
        it->leaf = l;
        it->idx = idx;
    }
}

const streamID *idtreeIterKey(const idtreeIter *it) { return &it->leaf->keys[it->idx]; }

void *idtreeIterVal(const idtreeIter *it) { return leafVals(it->leaf)[it->idx]; }

void idtreeIterNext(idtreeIter *it) {
    if (!it->leaf) return;
    if (++it->idx >= it->leaf->n) {
        it->leaf = it->leaf->next;
        it->idx = 0;
    }
}

void idtreeIterPrev(idtreeIter *it) {
    if (!it->leaf) return;
    if (--it->idx < 0) {
        it->leaf = it->leaf->prev;
        it->idx = it->leaf ? it->leaf->n - 1 : 0;
    }
}

int idtreeFirst(const idtree *t, streamID *id, void **val) {
    idtreeIter it;
    idtreeSeek(&it, t, IDTREE_SEEK_FIRST, NULL);
    if (!it.leaf) return 0;
    if (id) *id = *idtreeIterKey(&it);
    if (val) *val = idtreeIterVal(&it);
    return 1;
}

int idtreeLast(const idtree *t, streamID *id, void **val) {
    idtreeIter it;
    idtreeSeek(&it, t, IDTREE_SEEK_LAST, NULL);
    if (!it.leaf) return 0;
    if (id) *id = *idtreeIterKey(&it);
    if (val) *val = idtreeIterVal(&it);
    return 1;
}

/* ------------------------------------------------------------------------
 * Introspection
 * --------------------------------------------------------------------- */

static size_t memRec(void *node, int level) {
    if (level == 0) return zmalloc_size(node);
    idtreeInner *in = node;
    size_t sum = zmalloc_size(in);
    for (int i = 0; i < in->n; i++) sum += memRec(in->child[i], level - 1);
    return sum;
}

size_t idtreeMemoryUsage(const idtree *t) { return t->root ? memRec(t->root, t->height) : 0; }

typedef struct checkState {
    uint64_t items;        /* items seen */
    uint64_t nodes;        /* nodes seen */
    idtreeLeaf *last_leaf; /* previous leaf in key order */
    const char *err;       /* first problem found */
} checkState;

/* Checks the subtree: every key in [lo, hi) (a NULL bound is open). */
static void checkRec(const idtree *t, void *node, int level, const streamID *lo, const streamID *hi,
                     checkState *cs) {
    if (cs->err) return;
    cs->nodes++;
    if (level == 0) {
        idtreeLeaf *l = node;
        if (l->n == 0) cs->err = "empty leaf";
        if (l->n > l->cap) cs->err = "leaf overflow";
        if (node != t->root && l->cap != LEAF_MAX) cs->err = "small non-root leaf";
        for (int i = 0; i < l->n && !cs->err; i++) {
            if (i && streamCompareID(&l->keys[i - 1], &l->keys[i]) >= 0) cs->err = "leaf keys out of order";
            if (lo && streamCompareID(&l->keys[i], lo) < 0) cs->err = "key below its bound";
            if (hi && streamCompareID(&l->keys[i], hi) >= 0) cs->err = "key above its bound";
        }
        if (l->prev != cs->last_leaf) cs->err = "broken leaf chain";
        if (cs->last_leaf && cs->last_leaf->next != l) cs->err = "broken leaf chain";
        cs->last_leaf = l;
        cs->items += l->n;
        return;
    }
    idtreeInner *in = node;
    if (in->n < (node == t->root ? 2 : 1)) cs->err = "inner node too small";
    for (int i = 0; i < in->n && !cs->err; i++) {
        const streamID *clo = i == 0 ? lo : &in->keys[i];
        const streamID *chi = i + 1 < in->n ? &in->keys[i + 1] : hi;
        if (i > 0 && streamCompareID(&in->keys[i - 1], &in->keys[i]) >= 0 && i - 1 > 0)
            cs->err = "inner keys out of order";
        checkRec(t, in->child[i], level - 1, clo, chi, cs);
    }
}

const char *idtreeCheck(const idtree *t) {
    checkState cs = {0, 0, NULL, NULL};
    if (t->root) checkRec(t, t->root, t->height, NULL, NULL, &cs);
    if (cs.err) return cs.err;
    if (cs.last_leaf && cs.last_leaf->next) return "last leaf has a successor";
    if (cs.items != t->size) return "size mismatch";
    if (cs.nodes != t->nodes) return "node count mismatch";
    return NULL;
}
