/* setcpuaffinity.c -- server_cpulist and bio_cpulist (Redis 6's
 * directives, same syntax).
 *
 * casq's work on a write is a relay: the main thread runs the command and
 * encodes the root, the file store's worker writes and flushes it, the
 * main thread sends the replies. On a small machine shared with the
 * clients, keeping those threads on one CPU saves a cross-CPU wake-up per
 * hand-off (costly on a virtual machine) and leaves the other CPUs to the
 * clients; bench/durable_bench.sh measures it (CPULIST=). Unset, the kernel
 * places the threads, as Redis does by default. */
#include "setcpuaffinity.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "server.h"

/* Reads a CPU number at *p; advances *p. */
static int readCpu(const char **p, long *out, sds *err) {
    if (!isdigit((unsigned char)**p)) {
        *err = sdscatprintf(sdsempty(), "invalid CPU list: a CPU number was expected at '%s'", *p);
        return 0;
    }
    long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v >= CPU_SETSIZE) {
            *err = sdscatprintf(sdsempty(), "invalid CPU list: CPU numbers must be below %d", CPU_SETSIZE);
            return 0;
        }
        (*p)++;
    }
    *out = v;
    return 1;
}

int cpulistParse(const char *list, cpu_set_t *set, sds *err) {
    cpu_set_t local;
    if (!set) set = &local;
    CPU_ZERO(set);
    const char *p = list;
    if (!*p) {
        *err = sdsnew("invalid CPU list: it is empty");
        return 0;
    }
    for (;;) {
        long from, to, stride = 1;
        if (!readCpu(&p, &from, err)) return 0;
        to = from;
        if (*p == '-') {
            p++;
            if (!readCpu(&p, &to, err)) return 0;
            if (to < from) {
                *err = sdscatprintf(sdsempty(), "invalid CPU list: range %ld-%ld goes backwards", from, to);
                return 0;
            }
            if (*p == ':') {
                p++;
                if (!readCpu(&p, &stride, err)) return 0;
                if (stride < 1) {
                    *err = sdsnew("invalid CPU list: a stride must be at least 1");
                    return 0;
                }
            }
        }
        for (long c = from; c <= to; c += stride) CPU_SET((int)c, set);
        if (!*p) return 1;
        if (*p != ',') {
            *err = sdscatprintf(sdsempty(), "invalid CPU list: unexpected '%c'", *p);
            return 0;
        }
        p++;
    }
}

/* Why pthread_setaffinity_np refused. */
static const char *affinityError(int rc) {
    return rc == EINVAL ? "none of those CPUs is available to casq" : strerror(rc);
}

/* The set a directive's value names; 0 if the directive is unset. The
 * value was checked when it was read, so a parse error cannot happen. */
static int cpulistOf(const char *list, cpu_set_t *set) {
    if (!list) return 0;
    sds err = NULL;
    int ok = cpulistParse(list, set, &err);
    sdsfree(err);
    return ok;
}

void setServerCpuAffinity(void) {
    cpu_set_t set;
    if (!cpulistOf(server.cfg.server_cpulist, &set)) return;
    int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (rc)
        serverLog(LL_WARNING, "Cannot run the main thread on CPUs %s (server_cpulist): %s", server.cfg.server_cpulist,
                  affinityError(rc));
}

void setBioCpuAffinity(pthread_t thread, const char *what) {
    cpu_set_t set;
    if (!cpulistOf(server.cfg.bio_cpulist, &set)) return;
    int rc = pthread_setaffinity_np(thread, sizeof(set), &set);
    if (rc)
        serverLog(LL_WARNING, "Cannot run %s on CPUs %s (bio_cpulist): %s", what, server.cfg.bio_cpulist,
                  affinityError(rc));
}
