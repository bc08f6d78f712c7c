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
