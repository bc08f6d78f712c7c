/* slowlog.h -- the slow log (SLOWLOG), as Redis's slowlog.c: commands whose
 * execution took at least slowlog-log-slower-than microseconds, newest
 * first, at most slowlog-max-len of them. The time measured is the
 * command's execution only (call()), never the wait for the group commit
 * that makes its reply durable. */
#ifndef CASQ_SLOWLOG_H
#define CASQ_SLOWLOG_H

#include "server.h"

#define SLOWLOG_ENTRY_MAX_ARGC 32
#define SLOWLOG_ENTRY_MAX_STRING 128

typedef struct slowlogEntry {
    sds *argv;         /* trimmed copy of the arguments */
    int argc;
    long long id;      /* unique, increasing */
    long long duration;/* microseconds */
    long long time;    /* unix seconds when logged */
    sds cname;         /* client name, "" if none */
    sds peerid;        /* client address */
} slowlogEntry;

extern struct redisCommand slowlogCommandTable[];

/* Number of entries (tests). */
unsigned long slowlogLength(void);
/* Frees every entry (SLOWLOG RESET, exit). */
void slowlogReset(void);

#endif
