/* commit.h -- the group commit (design.md §4): how the in-memory state
 * reaches the store, and when held replies are released. */
#ifndef CASQ_COMMIT_H
#define CASQ_COMMIT_H

#include <stdint.h>

#include "sds.h"

/* Opens the configured store and loads the document into the databases,
 * running the event loop until the load finished. A missing document starts
 * an empty state (created by the first commit with a create-only CAS). On an
 * unreadable document returns C_ERR with *err saying why; the document is
 * left untouched. */
int commitInit(sds *err);

/* Called from beforeSleep: if changes are pending and no commit is in
 * flight, serialises the state and starts a CAS write. */
void commitBeforeSleep(void);

/* Called from serverCron: commit-timeout enforcement, retries. */
void commitCron(void);

/* The change sequence the commit in flight will make durable, or
 * server.durable_seq when none is in flight. Every change after it is
 * covered by the next commit to start. */
uint64_t commitCoveredSeq(void);

/* NULL while this node is the broker; otherwise the error (a full
 * "-TRYAGAIN ...\r\n" line, caller frees) that a write command gets up
 * front: a follower does not execute changes. */
sds commitFollowerError(void);

/* Appends INFO `# Persistence` fields. */
sds commitInfoString(sds s);

/* At shutdown: commits what is pending and waits (running the loop) until
 * it is durable or fails. Returns C_OK if everything is durable. */
int commitFlushAndClose(void);

#endif
