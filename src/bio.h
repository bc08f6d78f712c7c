/* bio.h -- background I/O jobs (Redis's bio.c, in casq's shape).
 *
 * A small pool of threads that run blocking work (file reads, writes,
 * fsyncs) off the event loop, and hand each finished job back to the loop:
 * `work` runs on a pool thread, then `done` runs on the main thread, from
 * the libevent loop, never from inside bioSubmit. Jobs may run in any
 * order and concurrently with each other; a job's work and done never
 * overlap. */
#ifndef CASQ_BIO_H
#define CASQ_BIO_H

#include <pthread.h>

struct event_base;

typedef struct bioPool bioPool;

/* A pool of `threads` threads reporting to `base`, named `name` (as `top
 * -H` shows them: at most 15 bytes); NULL if a thread or the wake-up pipe
 * cannot be made. */
bioPool *bioCreate(struct event_base *base, int threads, const char *name);
/* The pool's threads (to set their CPU affinity): how many, and each. */
int bioThreadCount(bioPool *p);
pthread_t bioThread(bioPool *p, int i);
/* Queues a job. */
void bioSubmit(bioPool *p, void (*work)(void *arg), void (*done)(void *arg), void *arg);
/* Jobs queued or running, not yet handed back. */
unsigned long bioPending(bioPool *p);
/* Waits for the jobs already running, drops the queued ones (neither their
 * work nor their done runs: `drop` is called for each instead, if set) and
 * for the finished ones not yet handed back, then frees the pool. */
void bioFree(bioPool *p, void (*drop)(void *arg));

#endif
