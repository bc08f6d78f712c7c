/* monitor.c -- MONITOR, as Redis 7.2's replicationFeedMonitors.
 *
 * Every command that ran (call(), after it executed, so SELECT shows the
 * new db as in Redis 7) is sent to each monitoring client as one status
 * line:
 *
 *   +<unix seconds>.<microseconds> [<db> <addr>] "cmd" "arg" ...
 *
 * with <addr> "ip:port" or "unix:<socket path>", every argument quoted and
 * escaped like sdscatrepr. Not shown, as in Redis: admin commands (MONITOR,
 * CONFIG, SLOWLOG, SAVE ...) and commands flagged skip_monitor, commands
 * refused before running (unknown, arity, NOAUTH), and the re-execution of
 * a blocked command (it was shown when it blocked). AUTH passwords and
 * HELLO's AUTH arguments appear as "(redacted)". A monitor in RESP3 gets
 * the same status lines.
 *
 * casq addition (design.md §4): a monitor line shows the command's
 * arguments -- the data of a write -- so it is queued into the monitor's
 * reply FIFO tagged like the command's own reply: it leaves once the
 * change it describes (or the state it read) is durable, in order. The
 * lines of one top-level command (EXEC's inner commands, then EXEC) are
 * gathered and flushed together when it ends. */
#include "server.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

static list *monitors;       /* client* with CLIENT_MONITOR */
static sds monitor_pending;  /* lines of the running top-level command */

void monitorRemoveClient(client *c) {
    if (!monitors) return;
    listNode *ln = listSearchKey(monitors, c);
    if (ln) listDelNode(monitors, ln);
    c->flags &= ~CLIENT_MONITOR;
}

void monitorFeedCommand(client *c) {
    if (!monitors || listLength(monitors) == 0 || server.loading) return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    sds s = monitor_pending ? monitor_pending : sdsempty();
    s = sdscatprintf(s, "+%ld.%06ld ", (long)tv.tv_sec, (long)tv.tv_usec);
    int dbid = c->db ? c->db->id : 0;
    if (c->flags & CLIENT_UNIX_SOCKET)
        s = sdscatprintf(s, "[%d unix:%s] ", dbid, server.cfg.unixsocket ? server.cfg.unixsocket : "");
    else
        s = sdscatprintf(s, "[%d %s] ", dbid, getClientPeerId(c));
    for (int j = 0; j < c->argc; j++) {
        if (commandArgIsRedacted(c, j)) s = sdscatlen(s, "\"(redacted)\"", 12);
        else s = sdscatrepr(s, c->argv[j], sdslen(c->argv[j]));
        if (j != c->argc - 1) s = sdscatlen(s, " ", 1);
    }
    monitor_pending = sdscatlen(s, "\r\n", 2);
}

void monitorFlush(uint64_t need_seq) {
    if (!monitor_pending) return;
    if (sdslen(monitor_pending) && monitors) {
        for (listNode *ln = listFirst(monitors); ln; ln = ln->next) {
            client *m = ln->value;
            /* m runs no command now (the running client's own reply was
             * just queued), so its pending buffer is free. */
            addReply(m, monitor_pending, sdslen(monitor_pending));
            clientCommitReply(m, need_seq);
        }
    }
    sdsclear(monitor_pending);
}

/* MONITOR: from now on this client gets the line of every command. A
 * second MONITOR is ignored without a reply, as in Redis. RESET ends the
 * monitor mode. */
static void monitorCommand(client *c) {
    if (server.in_exec) {
        /* Redis: a transaction's client must get one reply per command. */
        addReplyError(c, "MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    if (c->flags & CLIENT_MONITOR) return;
    if (!monitors) monitors = listCreate();
    c->flags |= CLIENT_MONITOR;
    listAddNodeTail(monitors, c);
    addReplyOk(c);
}

/* At exit, after every client is gone. */
void monitorFreeAll(void) {
    if (monitors) listRelease(monitors);
    monitors = NULL;
    sdsfree(monitor_pending);
    monitor_pending = NULL;
}

struct redisCommand monitorCommandTable[] = {
    {"monitor", monitorCommand, 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
     "admin slow dangerous", NULL},
    {0},
};
