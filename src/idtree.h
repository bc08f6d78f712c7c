/* idtree.h -- an ordered map keyed by 128-bit stream IDs (a B+tree).
 *
 * Streams index their entry nodes by master ID, and consumer groups keep
 * their pending entries lists (group PEL, per-consumer PELs) by entry ID:
 * all of them need O(log n) seeks, in-order iteration in both directions,
 * cheap appends at the tail and cheap removals at the head. A B+tree with
 * linked leaves gives all of that with about 24 bytes per item.
 *
 * Values are opaque non-NULL pointers owned by the caller. Any insertion or
 * removal invalidates iterators: re-seek after modifying the tree. */
#ifndef CASQ_IDTREE_H
#define CASQ_IDTREE_H

#include <stddef.h>
#include <stdint.h>

/* A stream entry ID: milliseconds and a sequence number, ordered as one
 * 128-bit number (ms is the most significant half). */
typedef struct streamID {
    uint64_t ms;  /* Unix time in milliseconds (or any number the user chose) */
    uint64_t seq; /* sequence number within the millisecond */
} streamID;

static inline int streamCompareID(const streamID *a, const streamID *b) {
    if (a->ms != b->ms) return a->ms > b->ms ? 1 : -1;
    if (a->seq != b->seq) return a->seq > b->seq ? 1 : -1;
    return 0;
}

typedef struct idtreeLeaf idtreeLeaf;

typedef struct idtree {
    void *root;      /* a leaf when height == 0, else an inner node; NULL if empty */
    int height;      /* number of inner levels above the leaves */
    uint64_t size;   /* items stored */
    uint64_t nodes;  /* leaves + inner nodes allocated (XINFO radix-tree-nodes) */
} idtree;

/* A position in the tree: a leaf and a slot in it (leaf NULL = end). */
typedef struct idtreeIter {
    idtreeLeaf *leaf; /* current leaf, NULL when past either end */
    int idx;          /* slot in the leaf */
} idtreeIter;

#define IDTREE_SEEK_FIRST 0 /* smallest item */
#define IDTREE_SEEK_LAST 1  /* greatest item */
#define IDTREE_SEEK_GE 2    /* first item >= id */
#define IDTREE_SEEK_GT 3    /* first item > id */
#define IDTREE_SEEK_LE 4    /* last item <= id */
#define IDTREE_SEEK_LT 5    /* last item < id */

idtree *idtreeNew(void);
void idtreeInit(idtree *t);
/* Frees the tree; calls freeval (if not NULL) on every value. */
void idtreeFree(idtree *t, void (*freeval)(void *));
void idtreeClear(idtree *t, void (*freeval)(void *));
/* Returns 1 if inserted, 0 if the id was present (nothing changed; the
 * current value is stored in *existing when existing is not NULL). */
int idtreeInsert(idtree *t, const streamID *id, void *val, void **existing);
/* The value stored under id, or NULL. */
void *idtreeFind(const idtree *t, const streamID *id);
/* Removes id; returns 1 and the removed value in *oldval if it was there. */
int idtreeRemove(idtree *t, const streamID *id, void **oldval);
static inline uint64_t idtreeSize(const idtree *t) { return t->size; }
static inline uint64_t idtreeNodeCount(const idtree *t) { return t->nodes; }
/* First / last item; return 0 if the tree is empty. */
int idtreeFirst(const idtree *t, streamID *id, void **val);
int idtreeLast(const idtree *t, streamID *id, void **val);
/* Bytes allocated by the tree itself (not the values). */
size_t idtreeMemoryUsage(const idtree *t);

void idtreeSeek(idtreeIter *it, const idtree *t, int op, const streamID *id);
static inline int idtreeIterValid(const idtreeIter *it) { return it->leaf != NULL; }
const streamID *idtreeIterKey(const idtreeIter *it);
void *idtreeIterVal(const idtreeIter *it);
void idtreeIterNext(idtreeIter *it);
void idtreeIterPrev(idtreeIter *it);

/* Consistency check for tests: returns NULL if fine, else a static
 * description of the first broken invariant. */
const char *idtreeCheck(const idtree *t);

#endif
