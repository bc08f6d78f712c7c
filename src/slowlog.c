/* slowlog.c -- SLOWLOG GET | LEN | RESET | HELP, as Redis 7.2's slowlog.c.
 *
 * call() (server.c) hands every executed command to
 * slowlogPushCurrentCommand() with the microseconds its handler took. That
 * is the execution time only: a write's reply is held afterwards until the
 * group commit makes it durable, and that wait is not the command being
 * slow (it shows in INFO's commit latency instead). Entries keep Redis's
 * shape: id, unix time, duration, arguments (at most 32, the last one then
 * saying "... (N more arguments)"; strings over 128 bytes cut with
 * "... (N more bytes)"), client address and client name. AUTH passwords
 * and HELLO's AUTH arguments appear as "(redacted)", as in Redis. */
#include "slowlog.h"
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static list *slowlog;             /* slowlogEntry*, newest first */
static long long slowlog_entry_id; /* next entry id */

/* ========================================================================
 * Redaction (shared with monitor.c)
 * ===================================================================== */

/* Redis redacts these arguments inside the commands themselves as they
 * parse them (redactClientCommandArgument): AUTH's arguments unless it has
 * too many to be parsed at all, HELLO's AUTH username and password for
 * every AUTH option met before a syntax error. This mirrors that parsing. */
int commandArgIsRedacted(client *c, int j) {
    const char *name = c->argv[0];
    if (j < 1 || j >= c->argc) return 0;
    if (!strcasecmp(name, "auth")) return c->argc <= 3;
    /* ACL SETUSER: every argument from the user name on (passwords). */
    if (!strcasecmp(name, "acl")) return c->argc >= 3 && !strcasecmp(c->argv[1], "setuser") && j >= 2;
    if (!strcasecmp(name, "config")) {
        /* CONFIG SET name value ...: the values of secrets (Redis checks
         * every pair, even after an invalid one). */
        if (c->argc < 4 || c->argc % 2 || strcasecmp(c->argv[1], "set")) return 0;
        return j >= 3 && (j - 3) % 2 == 0 && configIsSensitive(c->argv[j - 1]);
    }
    if (strcasecmp(name, "hello") || c->argc < 3) return 0;
    long long ver;
    if (!string2ll(c->argv[1], sdslen(c->argv[1]), &ver) || ver < 2 || ver > 3) return 0;
    for (int k = 2; k < c->argc; k++) {
        int moreargs = c->argc - 1 - k;
        if (!strcasecmp(c->argv[k], "auth") && moreargs >= 2) {
            if (j == k + 1 || j == k + 2) return 1;
            k += 2;
        } else if (!strcasecmp(c->argv[k], "setname") && moreargs) {
            k++;
        } else {
            break;
        }
    }
    return 0;
}

/* ========================================================================
 * Entries
 * ===================================================================== */

static void slowlogFreeEntry(void *p) {
    slowlogEntry *se = p;
    for (int j = 0; j < se->argc; j++) sdsfree(se->argv[j]);
    zfree(se->argv);
    sdsfree(se->peerid);
    sdsfree(se->cname);
    zfree(se);
}

static void slowlogDelNode(listNode *ln) {
    slowlogFreeEntry(ln->value);
    listDelNode(slowlog, ln);
}

static slowlogEntry *slowlogCreateEntry(client *c, long long duration) {
    slowlogEntry *se = zmalloc(sizeof(*se));
    int argc = c->argc, slargc = argc > SLOWLOG_ENTRY_MAX_ARGC ? SLOWLOG_ENTRY_MAX_ARGC : argc;
    se->argc = slargc;
    se->argv = zmalloc(sizeof(sds) * (size_t)slargc);
    for (int j = 0; j < slargc; j++) {
        if (slargc != argc && j == slargc - 1) {
            se->argv[j] = sdscatprintf(sdsempty(), "... (%d more arguments)", argc - slargc + 1);
        } else if (commandArgIsRedacted(c, j)) {
            se->argv[j] = sdsnew("(redacted)");
        } else if (sdslen(c->argv[j]) > SLOWLOG_ENTRY_MAX_STRING) {
            sds s = sdsnewlen(c->argv[j], SLOWLOG_ENTRY_MAX_STRING);
            se->argv[j] = sdscatprintf(s, "... (%lu more bytes)",
                                       (unsigned long)(sdslen(c->argv[j]) - SLOWLOG_ENTRY_MAX_STRING));
        } else {
            se->argv[j] = sdsdup(c->argv[j]);
        }
    }
    se->time = (long long)time(NULL);
    se->duration = duration;
    se->id = slowlog_entry_id++;
    se->peerid = sdsnew(getClientPeerId(c));
    se->cname = c->name ? sdsdup(c->name) : sdsempty();
    return se;
}

void slowlogPushCurrentCommand(client *c, struct redisCommand *cmd, long long duration) {
    if (cmd->flags & CMD_SKIP_SLOWLOG) return;
    if (server.cfg.slowlog_log_slower_than < 0 || server.cfg.slowlog_max_len == 0) return;
    if (!slowlog) slowlog = listCreate();
    if (duration >= server.cfg.slowlog_log_slower_than) listAddNodeHead(slowlog, slowlogCreateEntry(c, duration));
    while (listLength(slowlog) > (unsigned long)server.cfg.slowlog_max_len) slowlogDelNode(listLast(slowlog));
}

unsigned long slowlogLength(void) { return slowlog ? listLength(slowlog) : 0; }

void slowlogReset(void) {
    while (slowlog && listLength(slowlog)) slowlogDelNode(listFirst(slowlog));
}

void slowlogFree(void) {
    slowlogReset();
    if (slowlog) listRelease(slowlog);
    slowlog = NULL;
}

/* ========================================================================
 * SLOWLOG
 * ===================================================================== */

static void slowlogGetCommand(client *c) {
    long count = 10;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3) {
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -1, LONG_MAX, &count,
                                          "count should be greater than or equal to -1") != C_OK)
            return;
        if (count == -1) count = LONG_MAX; /* all */
    }
    unsigned long len = slowlogLength();
    long n = (unsigned long)count < len ? count : (long)len;
    addReplyArrayLen(c, n);
    listNode *ln = slowlog ? listFirst(slowlog) : NULL;
    for (long i = 0; i < n && ln; i++, ln = ln->next) {
        slowlogEntry *se = ln->value;
        addReplyArrayLen(c, 6);
        addReplyLongLong(c, se->id);
        addReplyLongLong(c, se->time);
        addReplyLongLong(c, se->duration);
        addReplyArrayLen(c, se->argc);
        for (int j = 0; j < se->argc; j++) addReplyBulk(c, se->argv[j], sdslen(se->argv[j]));
        addReplyBulk(c, se->peerid, sdslen(se->peerid));
        addReplyBulk(c, se->cname, sdslen(se->cname));
    }
}

static void slowlogLenCommand(client *c) { addReplyLongLong(c, (long long)slowlogLength()); }

static void slowlogResetCommand(client *c) {
    slowlogReset();
    addReplyOk(c);
}

static void slowlogHelpCommand(client *c) {
    const char *help[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL};
    addReplyHelp(c, help);
}

static struct redisCommand slowlogSubcommands[] = {
    {"get", slowlogGetCommand, -2, CMD_ADMIN | CMD_LOADING | CMD_STALE, 0, 0, 0, "admin slow dangerous", NULL},
    {"help", slowlogHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow", NULL},
    {"len", slowlogLenCommand, 2, CMD_ADMIN | CMD_LOADING | CMD_STALE, 0, 0, 0, "admin slow dangerous", NULL},
    {"reset", slowlogResetCommand, 2, CMD_ADMIN | CMD_LOADING | CMD_STALE, 0, 0, 0, "admin slow dangerous", NULL},
    {0},
};

struct redisCommand slowlogCommandTable[] = {
    {"slowlog", NULL, -2, 0, 0, 0, 0, "slow", slowlogSubcommands},
    {0},
};
