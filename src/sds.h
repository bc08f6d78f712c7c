/* sds.h -- binary-safe dynamic strings.
 *
 * An sds is a plain `char *` that points just past a small header holding the
 * length and the allocated size, so it can be handed to any C function that
 * wants a NUL-terminated string while still holding arbitrary bytes. */
#ifndef CASQ_SDS_H
#define CASQ_SDS_H

#include <stddef.h>
#include <stdarg.h>

typedef char *sds;

/* Lives immediately before the string bytes. */
struct sdshdr {
    size_t len;   /* bytes used, not counting the trailing NUL */
    size_t alloc; /* bytes available for content, not counting the NUL */
    char buf[];
};

#define SDS_HDR(s) ((struct sdshdr *)((s) - sizeof(struct sdshdr)))

static inline size_t sdslen(const sds s) { return SDS_HDR(s)->len; }
static inline size_t sdsavail(const sds s) { return SDS_HDR(s)->alloc - SDS_HDR(s)->len; }
static inline size_t sdsalloc(const sds s) { return SDS_HDR(s)->alloc; }

sds sdsnewlen(const void *init, size_t len);
sds sdsnew(const char *init);
sds sdsempty(void);
sds sdsdup(const sds s);
void sdsfree(sds s);
sds sdsMakeRoomFor(sds s, size_t addlen);
void sdsIncrLen(sds s, size_t incr);
void sdssetlen(sds s, size_t len);
sds sdscatlen(sds s, const void *t, size_t len);
sds sdscat(sds s, const char *t);
sds sdscatsds(sds s, const sds t);
sds sdscpylen(sds s, const char *t, size_t len);
sds sdscatvprintf(sds s, const char *fmt, va_list ap);
sds sdscatprintf(sds s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
sds sdscatrepr(sds s, const char *p, size_t len);
sds sdsfromlonglong(long long value);
sds sdscatlonglong(sds s, long long value);
void sdsrange(sds s, long start, long end);
void sdsclear(sds s);
void sdstolower(sds s);
void sdstoupper(sds s);
int sdscmp(const sds a, const sds b);
sds sdsRemoveFreeSpace(sds s);
size_t sdsAllocSize(const sds s);
sds *sdssplitargs(const char *line, int *argc);
void sdsfreesplitres(sds *tokens, int count);
sds sdstrim(sds s, const char *cset);

/* Formats a long long into buf, returns the length. buf must hold 21 bytes. */
int ll2string(char *buf, size_t len, long long value);
int ull2string(char *buf, size_t len, unsigned long long value);
/* Strict decimal parsing as Redis does it: no spaces, no leading '+', no
 * leading zeros (except "0"), must fit. Returns 1 on success. */
int string2ll(const char *s, size_t slen, long long *value);
int string2ull(const char *s, size_t slen, unsigned long long *value);

#endif
