/* zmalloc.h -- allocation wrappers: abort on out-of-memory (as Redis does)
 * and keep a count of bytes in use for INFO memory. */
#ifndef CASQ_ZMALLOC_H
#define CASQ_ZMALLOC_H

#include <stddef.h>

void *zmalloc(size_t size);
void *zcalloc(size_t size);
void *zrealloc(void *ptr, size_t size);
void zfree(void *ptr);
char *zstrdup(const char *s);
size_t zmalloc_used_memory(void);
size_t zmalloc_get_rss(void);
size_t zmalloc_size(void *ptr);

#endif
