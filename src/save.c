/* save.c -- the persistence and replication commands of Redis, with what
 * they truthfully mean for casq: SAVE, BGSAVE, LASTSAVE, WAIT, WAITAOF.
 *
 * casq has no snapshots and no AOF: the whole state is one document that the
 * group commit writes to storage, and no reply that shows a change leaves
 * before that change is durable (design.md §4). So:
 *  - SAVE replies +OK once everything changed so far (by anyone) is
 *    durable: its reply observes the current change_seq and is held by the
 *    ordinary held-reply machinery until the commit that contains it lands
 *    (an error if that commit fails, never a false OK). With nothing
 *    pending it replies at once and LASTSAVE does not move: the state was
 *    already saved then.
 *  - BGSAVE replies like Redis ("Background saving started", or
 *    "... scheduled" inside MULTI/EXEC); the commit happens anyway.
 *  - LASTSAVE is the unix time of the last successful commit.
 *  - WAIT: casq has no replicas (other casq nodes are brokers-in-waiting
 *    that read the same document, not replicas of this one), so no replica
 *    ever acknowledges: as Redis without replicas, WAIT 0 replies 0 at
 *    once, and WAIT n>0 blocks until its timeout (0: until CLIENT UNBLOCK
 *    or the connection closes), then replies 0 -- at once inside
 *    MULTI/EXEC, where nothing may block. The client's own writes are
 *    durable anyway.
 *  - WAITAOF: the local "fsync" is satisfied for every acknowledged write,
 *    so numlocal 1 is met: the reply is [1, 0]. Redis refuses numlocal 1
 *    when appendonly is off; casq's CONFIG GET appendonly says "no" (there
 *    is no AOF) but its writes are durable, which is what WAITAOF asks, so
 *    casq answers instead of refusing. Like SAVE, the reply waits until
 *    everything changed so far is durable. numreplicas > 0 cannot be met:
 *    as for WAIT, the reply comes at the timeout. */
#include "commit.h"
#include "server.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

static void saveCommand(client *c) {
    /* The reply shows "everything so far is durable". */
    observeSeq(c, server.change_seq);
    addReplyOk(c);
}

static void bgsaveCommand(client *c) {
    if (c->argc > 1 && !(c->argc == 2 && !strcasecmp(c->argv[1], "schedule"))) {
        addReplyErrorSyntax(c);
        return;
    }
    /* Inside EXEC Redis schedules the save for after the transaction. */
    addReplyStatus(c, server.in_exec ? "Background saving scheduled" : "Background saving started");
}

static void lastsaveCommand(client *c) { addReplyLongLong(c, commitLastSaveTime()); }

/* Whether the running command may block (not inside MULTI/EXEC). */
static int mayBlock(client *c) { return !server.in_exec && !(c->flags & (CLIENT_MULTI | CLIENT_FAKE)); }

static void waitCommand(client *c) {
    long numreplicas;
    long long timeout;
    if (getLongFromObjectOrReply(c, c->argv[1], &numreplicas, NULL) != C_OK) return;
    if (getTimeoutFromObjectOrReply(c, c->argv[2], &timeout, 0) != C_OK) return;
    if (numreplicas <= 0 || !mayBlock(c)) {
        addReplyLongLong(c, 0);
        return;
    }
    c->bstate.timeout_reply = BLOCK_REPLY_WAIT;
    blockForKeys(c, NULL, 0, timeout);
}

static void waitaofCommand(client *c) {
    long numlocal, numreplicas;
    long long timeout;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 0, 1, &numlocal, NULL) != C_OK) return;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &numreplicas, NULL) != C_OK) return;
    if (getTimeoutFromObjectOrReply(c, c->argv[3], &timeout, 0) != C_OK) return;
    observeSeq(c, server.change_seq);
    if (numreplicas > 0 && mayBlock(c)) {
        /* The reply at the timeout waits for what was changed until now,
         * like the immediate one (blockForKeys records change_seq). */
        c->bstate.timeout_reply = BLOCK_REPLY_WAITAOF;
        blockForKeys(c, NULL, 0, timeout);
        return;
    }
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, 1);
    addReplyLongLong(c, 0);
}

struct redisCommand saveCommandTable[] = {
    {"save", saveCommand, 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, 0, 0, 0,
     "admin slow dangerous", NULL},
    {"bgsave", bgsaveCommand, -1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, 0, 0, 0, "admin slow dangerous",
     NULL},
    {"lastsave", lastsaveCommand, 1, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "admin fast dangerous", NULL},
    {"wait", waitCommand, 3, CMD_NOSCRIPT, 0, 0, 0, "slow connection", NULL},
    {"waitaof", waitaofCommand, 4, CMD_NOSCRIPT, 0, 0, 0, "slow connection", NULL},
    {0},
};
