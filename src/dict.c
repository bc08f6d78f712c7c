/* dict.c -- chained hash table (see dict.h). */
#include "dict.h"
#include "sds.h"
#include "zmalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint64_t hash_seed = 0x9E3779B97F4A7C15ULL;

void dictSetHashSeed(uint64_t seed) { hash_seed = seed ^ 0x9E3779B97F4A7C15ULL; }

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* A seeded 64-bit mixing hash (8 bytes at a time, murmur-style finaliser).
 * The seed is random per process so keys cannot be crafted to collide. */
uint64_t dictGenHashFunction(const void *key, size_t len) {
    const unsigned char *p = key;
    uint64_t h = hash_seed ^ (len * 0xff51afd7ed558ccdULL);
    while (len >= 8) {
        uint64_t k;
        memcpy(&k, p, 8);
        k *= 0x87c37b91114253d5ULL;
        k = rotl64(k, 31);
        k *= 0x4cf5ad432745937fULL;
        h ^= k;
        h = rotl64(h, 27) * 5 + 0x52dce729;
        p += 8;
        len -= 8;
    }
    uint64_t k = 0;
    switch (len) {
    case 7: k ^= (uint64_t)p[6] << 48; /* fall through */
    case 6: k ^= (uint64_t)p[5] << 40; /* fall through */
    case 5: k ^= (uint64_t)p[4] << 32; /* fall through */
    case 4: k ^= (uint64_t)p[3] << 24; /* fall through */
    case 3: k ^= (uint64_t)p[2] << 16; /* fall through */
    case 2: k ^= (uint64_t)p[1] << 8;  /* fall through */
    case 1:
        k ^= (uint64_t)p[0];
        k *= 0x87c37b91114253d5ULL;
        k = rotl64(k, 31);
        k *= 0x4cf5ad432745937fULL;
        h ^= k;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

dict *dictCreate(dictType *type) {
    dict *d = zmalloc(sizeof(*d));
    d->type = type;
    d->table = NULL;
    d->size = 0;
    d->used = 0;
    return d;
}

static void dictFreeEntry(dict *d, dictEntry *de) {
    if (d->type->keyDestructor) d->type->keyDestructor(de->key);
    if (d->type->valDestructor) d->type->valDestructor(de->val);
    zfree(de);
}

void dictEmpty(dict *d) {
    for (unsigned long i = 0; i < d->size; i++) {
        dictEntry *de = d->table[i];
        while (de) {
            dictEntry *next = de->next;
            dictFreeEntry(d, de);
            de = next;
        }
    }
    zfree(d->table);
    d->table = NULL;
    d->size = 0;
    d->used = 0;
}

void dictRelease(dict *d) {
    dictEmpty(d);
    zfree(d);
}

static void dictResize(dict *d, unsigned long newsize) {
    dictEntry **nt = zcalloc(newsize * sizeof(dictEntry *));
    for (unsigned long i = 0; i < d->size; i++) {
        dictEntry *de = d->table[i];
        while (de) {
            dictEntry *next = de->next;
            unsigned long idx = d->type->hash(de->key) & (newsize - 1);
            de->next = nt[idx];
            nt[idx] = de;
            de = next;
        }
    }
    zfree(d->table);
    d->table = nt;
    d->size = newsize;
}

dictEntry *dictFind(dict *d, const void *key) {
    if (d->size == 0) return NULL;
    unsigned long idx = d->type->hash(key) & (d->size - 1);
    for (dictEntry *de = d->table[idx]; de; de = de->next)
        if (d->type->keyCompare(key, de->key)) return de;
    return NULL;
}

void *dictFetchValue(dict *d, const void *key) {
    dictEntry *de = dictFind(d, key);
    return de ? de->val : NULL;
}

dictEntry *dictAdd(dict *d, void *key, void *val) {
    if (dictFind(d, key)) return NULL;
    if (d->used >= d->size) dictResize(d, d->size ? d->size * 2 : 4);
    unsigned long idx = d->type->hash(key) & (d->size - 1);
    dictEntry *de = zmalloc(sizeof(*de));
    de->key = key;
    de->val = val;
    de->next = d->table[idx];
    d->table[idx] = de;
    d->used++;
    return de;
}

/* Shrinks when the table is under 1/8 full, so a big table that emptied
 * does not keep its memory forever. */
static void dictMaybeShrink(dict *d) {
    if (d->size > 4 && d->used * 8 < d->size) {
        unsigned long ns = 4;
        while (ns < d->used * 2) ns *= 2;
        dictResize(d, ns);
    }
}

dictEntry *dictUnlink(dict *d, const void *key) {
    if (d->size == 0) return NULL;
    unsigned long idx = d->type->hash(key) & (d->size - 1);
    dictEntry **pp = &d->table[idx];
    while (*pp) {
        dictEntry *de = *pp;
        if (d->type->keyCompare(key, de->key)) {
            *pp = de->next;
            d->used--;
            return de;
        }
        pp = &de->next;
    }
    return NULL;
}

void dictFreeUnlinkedEntry(dict *d, dictEntry *de) {
    if (!de) return;
    dictFreeEntry(d, de);
    dictMaybeShrink(d);
}

int dictDelete(dict *d, const void *key) {
    dictEntry *de = dictUnlink(d, key);
    if (!de) return 0;
    dictFreeUnlinkedEntry(d, de);
    return 1;
}

/* Picks a random non-empty bucket, then a random element of its chain. */
dictEntry *dictGetRandomKey(dict *d) {
    if (d->used == 0) return NULL;
    dictEntry *de;
    do {
        de = d->table[(unsigned long)random() & (d->size - 1)];
    } while (!de);
    unsigned long len = 0;
    for (dictEntry *e = de; e; e = e->next) len++;
    unsigned long pick = (unsigned long)random() % len;
    while (pick--) de = de->next;
    return de;
}

static unsigned long rev(unsigned long v) {
    unsigned long s = 8 * sizeof(v), mask = ~0UL;
    while ((s >>= 1) > 0) {
        mask ^= (mask << s);
        v = ((v >> s) & mask) | ((v << s) & ~mask);
    }
    return v;
}

/* Reverse-binary cursor scan: increments the cursor's high bits first, so
 * the buckets visited before a resize map onto buckets already visited
 * after it. Returns the next cursor, 0 when done. */
unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata) {
    if (d->used == 0) return 0;
    unsigned long m0 = d->size - 1;
    for (dictEntry *de = d->table[v & m0]; de; de = de->next) fn(privdata, de);
    v |= ~m0;
    v = rev(v);
    v++;
    v = rev(v);
    return v;
}

void dictInitIterator(dictIterator *it, dict *d) {
    it->d = d;
    it->idx = 0;
    it->entry = NULL;
    it->next = NULL;
}

/* Safe against deletion of the entry just returned (not of others). The
 * table must not be resized while iterating. */
dictEntry *dictNext(dictIterator *it) {
    if (it->next) {
        it->entry = it->next;
        it->next = it->entry->next;
        return it->entry;
    }
    while (it->idx < it->d->size) {
        dictEntry *de = it->d->table[it->idx++];
        if (de) {
            it->entry = de;
            it->next = de->next;
            return de;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------- types */

static uint64_t sdsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

static int sdsKeyCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

static uint64_t sdsCaseHash(const void *key) {
    const char *s = key;
    size_t len = sdslen((const sds)key);
    char buf[128];
    if (len > sizeof(buf)) len = sizeof(buf);
    for (size_t i = 0; i < len; i++) buf[i] = (char)tolower((unsigned char)s[i]);
    return dictGenHashFunction(buf, len);
}

static int sdsCaseCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && strncasecmp(a, b, l1) == 0;
}

static void sdsDestructor(void *p) { sdsfree(p); }

uint64_t dictPtrHash(const void *key) {
    uintptr_t v = (uintptr_t)key;
    return dictGenHashFunction(&v, sizeof(v));
}

int dictPtrCompare(const void *a, const void *b) { return a == b; }

dictType sdsKeyDictType = {sdsHash, sdsKeyCompare, sdsDestructor, NULL};
dictType sdsCaseDictType = {sdsCaseHash, sdsCaseCompare, sdsDestructor, NULL};
