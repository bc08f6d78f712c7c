/* zmalloc.c -- allocation wrappers (see zmalloc.h). */
#include "zmalloc.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Atomic because the file store's worker thread allocates too. */
static _Atomic size_t used_memory = 0;

static void zmallocOOM(size_t size) {
    fprintf(stderr, "casq: out of memory allocating %zu bytes\n", size);
    fflush(stderr);
    abort();
}

size_t zmalloc_size(void *ptr) { return ptr ? malloc_usable_size(ptr) : 0; }

void *zmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) zmallocOOM(size);
    used_memory += malloc_usable_size(p);
    return p;
}

void *zcalloc(size_t size) {
    void *p = calloc(1, size ? size : 1);
    if (!p) zmallocOOM(size);
    used_memory += malloc_usable_size(p);
    return p;
}

void *zrealloc(void *ptr, size_t size) {
    if (!ptr) return zmalloc(size);
    size_t old = malloc_usable_size(ptr);
    void *p = realloc(ptr, size ? size : 1);
    if (!p) zmallocOOM(size);
    used_memory += malloc_usable_size(p);
    used_memory -= old;
    return p;
}

void zfree(void *ptr) {
    if (!ptr) return;
    used_memory -= malloc_usable_size(ptr);
    free(ptr);
}

char *zstrdup(const char *s) {
    size_t l = strlen(s) + 1;
    char *p = zmalloc(l);
    memcpy(p, s, l);
    return p;
}

size_t zmalloc_used_memory(void) { return used_memory; }

/* Resident set size from /proc, in bytes (0 if unavailable). */
size_t zmalloc_get_rss(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long size = 0, resident = 0;
    int ok = fscanf(f, "%lu %lu", &size, &resident) == 2;
    fclose(f);
    return ok ? resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}
