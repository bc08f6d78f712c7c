/* dict.h -- a chained hash table with power-of-two buckets.
 *
 * Keys and values are opaque pointers; a dictType says how to hash, compare
 * and free them. Rehashing is done at once (tables here stay moderate and a
 * simple table keeps iteration and SCAN easy to reason about); dictScan uses
 * Redis's reverse-binary cursor, so every element present for the whole scan
 * is returned at least once even if the table grows or shrinks meanwhile. */
#ifndef CASQ_DICT_H
#define CASQ_DICT_H

#include <stddef.h>
#include <stdint.h>

typedef struct dictEntry {
    void *key;              /* owned per the dictType */
    void *val;              /* owned per the dictType */
    struct dictEntry *next; /* next in the same bucket */
} dictEntry;

typedef struct dictType {
    uint64_t (*hash)(const void *key);
    int (*keyCompare)(const void *a, const void *b); /* 1 if equal */
    void (*keyDestructor)(void *key);                /* may be NULL */
    void (*valDestructor)(void *val);                /* may be NULL */
} dictType;

typedef struct dict {
    dictType *type;     /* callbacks */
    dictEntry **table;  /* buckets, size is a power of two (or NULL) */
    unsigned long size; /* number of buckets */
    unsigned long used; /* number of entries */
} dict;

typedef struct dictIterator {
    dict *d;            /* table being walked */
    unsigned long idx;  /* current bucket */
    dictEntry *entry;   /* current entry */
    dictEntry *next;    /* saved so the current entry may be deleted */
} dictIterator;

typedef void dictScanFunction(void *privdata, const dictEntry *de);

dict *dictCreate(dictType *type);
void dictRelease(dict *d);
void dictEmpty(dict *d);
/* Adds key->val; returns the new entry, or NULL if the key exists. */
dictEntry *dictAdd(dict *d, void *key, void *val);
dictEntry *dictFind(dict *d, const void *key);
void *dictFetchValue(dict *d, const void *key);
/* Removes and frees key and value; returns 1 if found. */
int dictDelete(dict *d, const void *key);
/* Unlinks the entry without calling destructors; caller frees with
 * dictFreeUnlinkedEntry. */
dictEntry *dictUnlink(dict *d, const void *key);
void dictFreeUnlinkedEntry(dict *d, dictEntry *de);
dictEntry *dictGetRandomKey(dict *d);
unsigned long dictScan(dict *d, unsigned long cursor, dictScanFunction *fn, void *privdata);
void dictInitIterator(dictIterator *it, dict *d);
dictEntry *dictNext(dictIterator *it);
static inline unsigned long dictSize(const dict *d) { return d->used; }

uint64_t dictGenHashFunction(const void *key, size_t len);
void dictSetHashSeed(uint64_t seed);

/* Keys that are pointers or integers cast to one, compared as such. */
uint64_t dictPtrHash(const void *key);
int dictPtrCompare(const void *a, const void *b);

/* Ready-made type for sds keys (binary-safe), values untouched. */
extern dictType sdsKeyDictType;
/* sds keys compared case-insensitively (command names, config names). */
extern dictType sdsCaseDictType;

#endif
