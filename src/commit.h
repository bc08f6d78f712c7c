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

/* NULL unless the last reload of the document failed; otherwise the
 * -LOADING error (a full "-LOADING ...\r\n" line, caller frees) that says
 * why, for the commands refused while it is retried. */
sds commitLoadingError(void);

/* Unix seconds of the last successful commit (start time before the
 * first one): LASTSAVE, INFO rdb_last_save_time. */
long long commitLastSaveTime(void);

/* Appends INFO `# Persistence` fields. */
sds commitInfoString(sds s);

/* ------------------------------------------------------------------------
 * The broker module's view (broker.c, design.md §5)
 * --------------------------------------------------------------------- */

typedef enum commitRole {
    COMMIT_ROLE_NONE = 0,  /* no commit module (not initialised) */
    COMMIT_ROLE_LOADING,   /* starting, (re)loading the document, or
                            * stepped down and unable to read it since
                            * (the record it holds names this node) */
    COMMIT_ROLE_BROKER,    /* the document names this node (or will, once
                            * a pending take-over commit lands) */
    COMMIT_ROLE_FOLLOWER,  /* another node is the broker */
} commitRole;

/* Where this node stands. Cheap: called for every command. */
commitRole commitGetRole(void);

/* The document's broker record as this node last read or wrote it; fields
 * are NULL / 0 when there is none. The strings stay valid until the next
 * return to the event loop. */
void commitGetBroker(const char **id, const char **address, uint64_t *epoch);

/* This node's id (run_id) and the address it puts in the broker record. */
const char *commitNodeId(void);
const char *commitNodeAddress(void);

/* A follower takes over: loads the document again (reserving the next
 * write when the store can), and if its broker record is still
 * expect_id / expect_epoch, commits a record naming this node with epoch+1
 * (the start-up take-over; a lost CAS reloads and follows the winner).
 * Returns C_ERR (nothing started) unless this node is an idle follower. */
int commitTakeOver(const char *expect_id, uint64_t expect_epoch);

/* A follower reads the document again, to learn of a new broker (at most
 * once per second; a reload already due or running counts). */
void commitFollowerReload(void);

/* casq-server --export-state PATH|-: the whole logical state as one
 * document, every entry inline (the store is only read). */
int commitExportState(const char *path, sds *err);

/* commit-debug-delay changed: a commit waiting for it follows the new
 * value. */
void commitDebugDelayChanged(void);

/* 1 if this node is the broker but, at at_ms (when a command's bytes were
 * read), the store had not confirmed for broker-timeout that the document
 * is still the one it wrote (it may have been taken over): the command
 * must not be served from its state. Judged at read time, not now, so that
 * a long pipeline or a slow command is not taken for a stopped broker. */
int commitStateUnconfirmed(long long at_ms);
/* Asks the store now (if due and possible) rather than at the next cron. */
void commitKickProbe(void);

/* How long the last load of the document took (ms). */
long long commitLastLoadMs(void);

/* The key records the commits keep encoded (persist.h), NULL before the
 * commit module starts: key segments take their records from it. */
struct persistCache;
struct persistCache *commitEncodeCache(void);

/* At shutdown: commits what is pending and waits (running the loop) until
 * it is durable or fails. Returns C_OK if everything is durable. */
int commitFlushAndClose(void);

#endif
