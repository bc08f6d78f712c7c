/* setcpuaffinity.h -- Redis's server_cpulist and bio_cpulist: which CPUs
 * casq's main thread and its background threads may run on. */
#ifndef CASQ_SETCPUAFFINITY_H
#define CASQ_SETCPUAFFINITY_H

#include <pthread.h>
#include <sched.h>

#include "sds.h"

/* Parses a CPU list as Redis writes it: comma-separated CPU numbers and
 * ranges, a range optionally with a stride ("0-7:2" is 0,2,4,6), e.g.
 * "0-3,8,10-15:5". Returns 1 and fills *set (if not NULL), or 0 with *err
 * set to the reason (an sds). */
int cpulistParse(const char *list, cpu_set_t *set, sds *err);

/* server_cpulist, if set: applied to the calling thread (the main one),
 * as Redis does just before it enters its event loop. */
void setServerCpuAffinity(void);

/* bio_cpulist, if set: applied to a background thread (the file store's
 * worker, the threads of a bio pool); `what` names it in the log. */
void setBioCpuAffinity(pthread_t thread, const char *what);

#endif
