/* store.c -- picks the state document's backend from the store URL
 * (store.h, design.md §6).
 *
 *   s3://bucket/key           the S3 store (store_s3.c)
 *   file:///abs/path          the file store (store_file.c)
 *   file://relative/path      the file store, relative to `dir`
 *   /abs/path, relative/path  the file store
 *
 * Anything else with a "scheme://" prefix is refused rather than taken for
 * a file name: a typo such as "s4://bucket/key" must not silently create a
 * local file called "s4:". */
#include "store.h"

#include <string.h>
#include <strings.h>

#include "server.h"

/* Returns the backend for url, or NULL if its scheme is unknown. */
static const storeType *storeTypeForUrl(const char *url) {
    if (!strncasecmp(url, "s3://", 5)) return &s3StoreType;
    if (!strncasecmp(url, "file://", 7)) return &fileStoreType;
    /* A scheme is letters, digits, '+', '-', '.' followed by "://". */
    const char *p = url;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' ||
           *p == '-' || *p == '.')
        p++;
    if (p != url && !strncmp(p, "://", 3)) return NULL;
    return &fileStoreType;
}

store *storeOpen(const char *url, struct event_base *base, sds *err) {
    if (!url || !url[0]) {
        *err = sdsnew("empty store URL");
        return NULL;
    }
    const storeType *type = storeTypeForUrl(url);
    if (!type) {
        *err = sdscatprintf(sdsempty(),
                            "unsupported store URL '%s' (expected file://path, a plain path, or s3://bucket/key)",
                            url);
        return NULL;
    }
    store *st = zcalloc(sizeof(*st));
    st->type = type;
    st->url = sdsnew(url);
    st->base = base;
    if (type->open(st, url, base, err) == -1) {
        sdsfree(st->url);
        sdsfree(st->location);
        zfree(st);
        return NULL;
    }
    if (!st->location) st->location = sdsdup(st->url);
    return st;
}

void storeClose(store *st) {
    if (!st) return;
    st->type->close(st);
    sdsfree(st->url);
    sdsfree(st->location);
    zfree(st);
}

/* ========================================================================
 * Documents as byte ranges (store.h)
 * ===================================================================== */

storeDoc *storeDocNew(size_t hint) {
    storeDoc *d = zcalloc(sizeof(*d));
    d->own = sdsMakeRoomFor(sdsempty(), hint);
    return d;
}

storeDoc *storeDocFromSds(sds data) {
    storeDoc *d = zcalloc(sizeof(*d));
    d->own = data;
    storeDocSeal(d);
    return d;
}

static void storeDocAddChunk(storeDoc *d, const char *ref, size_t off, size_t len) {
    if (len == 0) return;
    if (d->nchunks == d->chunks_alloc) {
        d->chunks_alloc = d->chunks_alloc ? d->chunks_alloc * 2 : 16;
        d->chunks = zrealloc(d->chunks, d->chunks_alloc * sizeof(*d->chunks));
    }
    d->chunks[d->nchunks++] = (storeDocChunk){ref, off, len};
    d->len += len;
}

/* The own bytes appended since the last chunk become one. */
static void storeDocCut(storeDoc *d) {
    size_t end = sdslen(d->own);
    storeDocAddChunk(d, NULL, d->mark, end - d->mark);
    d->mark = end;
}

void storeDocRef(storeDoc *d, const char *p, size_t len) {
    storeDocCut(d);
    storeDocAddChunk(d, p, 0, len);
}

void storeDocSeal(storeDoc *d) { storeDocCut(d); }

void storeDocKeep(storeDoc *d, sds s) {
    if (d->nkept == d->kept_alloc) {
        d->kept_alloc = d->kept_alloc ? d->kept_alloc * 2 : 16;
        d->kept = zrealloc(d->kept, d->kept_alloc * sizeof(*d->kept));
    }
    d->kept[d->nkept++] = s;
}

sds storeDocFlatten(const storeDoc *d) {
    sds out = sdsMakeRoomFor(sdsempty(), d->len);
    for (size_t i = 0; i < d->nchunks; i++) out = sdscatlen(out, storeDocChunkBytes(d, i), d->chunks[i].len);
    return out;
}

void storeDocFree(storeDoc *d) {
    if (!d) return;
    for (size_t i = 0; i < d->nkept; i++) sdsfree(d->kept[i]);
    zfree(d->kept);
    zfree(d->chunks);
    sdsfree(d->own);
    zfree(d);
}
