/* server.c -- start-up, the event loop, command dispatch and the
 * connection-level commands (PING, ECHO, QUIT, RESET, AUTH, HELLO, TIME,
 * SHUTDOWN). */
#include "server.h"
#include "setcpuaffinity.h"
#include "broker.h"
#include "commit.h"
#include "connection.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

redisServer server;

const char *shared_ok = "+OK\r\n";
const char *shared_syntaxerr = "-ERR syntax error\r\n";
const char *shared_wrongtypeerr = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

/* The module command tables. Each module owns its rows; dispatch is a dict
 * lookup built from these at start-up. */
extern struct redisCommand serverCommandTable[];
extern struct redisCommand clientCommandTable[];
extern struct redisCommand dbCommandTable[];
extern struct redisCommand multiCommandTable[];
extern struct redisCommand streamCommandTable[];
extern struct redisCommand configCommandTable[];
extern struct redisCommand commandCommandTable[];
extern struct redisCommand infoCommandTable[];
extern struct redisCommand objectCommandTable[];  /* object.c: OBJECT, MEMORY */
extern struct redisCommand slowlogCommandTable[]; /* slowlog.c */
extern struct redisCommand monitorCommandTable[]; /* monitor.c */
extern struct redisCommand saveCommandTable[];    /* save.c: SAVE BGSAVE LASTSAVE WAIT WAITAOF */
extern struct redisCommand stringCommandTable[];  /* t_string.c */
extern struct redisCommand hashCommandTable[];    /* t_hash.c */
extern struct redisCommand listCommandTable[];    /* t_list.c */
extern struct redisCommand zsetCommandTable[];    /* t_zset.c */
extern struct redisCommand setCommandTable[];     /* t_set.c */
extern struct redisCommand pubsubCommandTable[];  /* pubsub.c */
extern struct redisCommand scriptingCommandTable[]; /* eval.c: EVAL, EVALSHA, SCRIPT */
extern struct redisCommand functionsCommandTable[]; /* functions.c: FUNCTION, FCALL */
extern struct redisCommand aclCommandTable[];     /* acl.c */

static struct redisCommand *commandTables[] = {
    serverCommandTable, clientCommandTable, dbCommandTable,      multiCommandTable,
    streamCommandTable, configCommandTable, commandCommandTable, infoCommandTable,
    objectCommandTable, slowlogCommandTable, monitorCommandTable, saveCommandTable,
    stringCommandTable, hashCommandTable,
    listCommandTable,  zsetCommandTable,
    setCommandTable,   pubsubCommandTable,
    scriptingCommandTable,
    functionsCommandTable,
    aclCommandTable,
    NULL,
};

void attachCommandDocs(void);
void initDbs(void);

/* ========================================================================
 * Time
 * ===================================================================== */

long long ustime(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

long long mstime(void) { return ustime() / 1000; }

void updateCachedTime(void) {
    server.ustime_cache = ustime();
    server.mstime_cache = server.ustime_cache / 1000;
}

/* ========================================================================
 * Logging
 * ===================================================================== */

void serverLogRaw(int level, const char *msg) {
    static const char marks[] = ".-*#";
    int rawmode = level & LL_RAW;
    level &= 0xff;
    if (level < server.cfg.verbosity) return;
    int to_stdout = !server.cfg.logfile || server.cfg.logfile[0] == '\0';
    FILE *fp = to_stdout ? (server.log_to_stderr ? stderr : stdout) : fopen(server.cfg.logfile, "a");
    if (!fp) return;
    if (rawmode) {
        fprintf(fp, "%s", msg);
    } else {
        char buf[64];
        struct timeval tv;
        gettimeofday(&tv, NULL);
        struct tm tm;
        localtime_r(&tv.tv_sec, &tm);
        int off = (int)strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S.", &tm);
        snprintf(buf + off, sizeof(buf) - (size_t)off, "%03d", (int)tv.tv_usec / 1000);
        fprintf(fp, "%d:M %s %c %s\n", (int)getpid(), buf, marks[level], msg);
    }
    fflush(fp);
    if (!to_stdout) fclose(fp);
}

void serverLog(int level, const char *fmt, ...) {
    if ((level & 0xff) < server.cfg.verbosity) return;
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    serverLogRaw(level, msg);
}

void serverAssertFail(const char *estr, const char *file, int line) {
    serverLog(LL_WARNING, "=== ASSERTION FAILED === %s:%d '%s'", file, line, estr);
    abort();
}

void serverPanic(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    serverLog(LL_WARNING, "!!! PANIC: %s", msg);
    abort();
}

/* ========================================================================
 * The command table
 * ===================================================================== */

static void populateSubcommands(struct redisCommand *parent) {
    parent->subcommands_dict = dictCreate(&sdsCaseDictType);
    for (struct redisCommand *sub = parent->subcommands; sub->name; sub++) {
        sub->parent = parent;
        sub->fullname = sdscatprintf(sdsempty(), "%s|%s", parent->name, sub->name);
        dictAdd(parent->subcommands_dict, sdsnew(sub->name), sub);
    }
}

void populateCommandTable(void) {
    server.commands = dictCreate(&sdsCaseDictType);
    for (int t = 0; commandTables[t]; t++) {
        for (struct redisCommand *cmd = commandTables[t]; cmd->name; cmd++) {
            cmd->fullname = sdsnew(cmd->name);
            if (cmd->subcommands) populateSubcommands(cmd);
            if (!dictAdd(server.commands, sdsnew(cmd->name), cmd))
                serverPanic("command '%s' is defined twice", cmd->name);
        }
    }
}

static void freeCommandTable(void) {
    for (int t = 0; commandTables[t]; t++) {
        for (struct redisCommand *cmd = commandTables[t]; cmd->name; cmd++) {
            if (cmd->subcommands) {
                for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) sdsfree(sub->fullname);
                dictRelease(cmd->subcommands_dict);
            }
            sdsfree(cmd->fullname);
        }
    }
    dictRelease(server.commands);
}

/* Iterates every top-level command (COMMAND, INFO commandstats). */
struct redisCommand *lookupCommandByCString(const char *name) {
    sds s = sdsnew(name);
    struct redisCommand *cmd = dictFetchValue(server.commands, s);
    sdsfree(s);
    return cmd;
}

/* Resolves argv to a command or subcommand. For a container whose
 * subcommand is unknown returns NULL; the caller tells the two apart. */
struct redisCommand *lookupCommand(sds *argv, int argc) {
    struct redisCommand *base = dictFetchValue(server.commands, argv[0]);
    if (!base || !base->subcommands || argc < 2) return base;
    return dictFetchValue(base->subcommands_dict, argv[1]);
}

struct redisCommand *lookupCommandOrOriginal(sds *argv, int argc) { return lookupCommand(argv, argc); }

int commandCheckArity(struct redisCommand *cmd, int argc, sds *err) {
    if ((cmd->arity > 0 && cmd->arity != argc) || (argc < -cmd->arity)) {
        if (err) *err = sdscatprintf(sdsempty(), "wrong number of arguments for '%s' command", cmd->fullname);
        return 0;
    }
    return 1;
}

/* ========================================================================
 * Executing commands
 * ===================================================================== */

/* Runs c->cmd. The reply waits for whatever the command changed, or for
 * the newest change it observed, to be durable (design.md §4). Nested calls
 * (EXEC) accumulate into the outermost one. */
void call(client *c) {
    struct redisCommand *cmd = c->cmd;
    uint64_t before = server.change_seq;
    uint64_t outer_observe = c->observe_seq;
    client *prev = server.current_client;

    c->observe_seq = 0;
    server.current_client = c;
    server.in_call++;
    c->lastcmd = cmd; /* CLIENT INFO run now shows itself, as in Redis */
    if (!server.in_exec) updateCachedTime();
    long long start = ustime();
    cmd->proc(c);
    long long duration = ustime() - start;
    server.in_call--;
    server.current_client = prev;

    if (!(c->flags & CLIENT_BLOCKED)) {
        cmd->calls++;
        cmd->microseconds += duration;
        server.stat_numcommands++;
        /* SLOWLOG: the execution time only, not the commit wait. */
        slowlogPushCurrentCommand(c, cmd, duration);
    }
    /* MONITOR: shown once (not when a blocked command runs again); admin
     * commands never, as in Redis. */
    if (!(c->flags & CLIENT_REEXECUTING) && !(cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN))) monitorFeedCommand(c);
    uint64_t need = server.change_seq != before ? server.change_seq : c->observe_seq;
    c->observe_seq = need > outer_observe ? need : outer_observe;
    if (server.in_call == 0) {
        clientCommitReply(c, c->observe_seq);
        monitorFlush(c->observe_seq); /* after c's own reply, held as long */
        c->observe_seq = 0;
    }
}

/* A command refused before running: the reply depends on nothing. */
static void rejectCommand(client *c, const char *err) {
    if (c->cmd && c->cmd->proc == execCommand) {
        /* A refused EXEC still ends the transaction (EXECABORT ...). */
        execCommandAbort(c, err);
    } else {
        if (c->flags & CLIENT_MULTI) flagTransaction(c);
        addReplyError(c, err);
    }
    clientCommitReply(c, 0);
}

static void rejectCommandSds(client *c, sds err) {
    rejectCommand(c, err);
    sdsfree(err);
}

static int isMultiControlCommand(struct redisCommand *cmd) {
    static const char *names[] = {"exec", "discard", "multi", "watch", "quit", "reset", NULL};
    for (int i = 0; names[i]; i++)
        if (!strcmp(cmd->name, names[i])) return 1;
    return 0;
}

/* maxmemory (noeviction, as Redis): over the limit, a command that may grow
 * memory is refused; inside MULTI so is every command but EXEC, DISCARD,
 * QUIT and RESET (queueing costs memory too), and EXEC when it would run
 * one that may grow. Reads, and the commands that free memory (XDEL,
 * XTRIM, XACK, DEL ...), still run. */
static int rejectOnOutOfMemory(client *c) {
    if (!server.cfg.maxmemory || zmalloc_used_memory() <= (size_t)server.cfg.maxmemory) return 0;
    if (c->cmd->flags & CMD_DENYOOM) return 1;
    if (!(c->flags & CLIENT_MULTI)) return 0;
    if (c->cmd->proc == execCommand) return multiStateHasFlag(c, CMD_DENYOOM);
    return strcmp(c->cmd->name, "discard") && strcmp(c->cmd->name, "quit") && strcmp(c->cmd->name, "reset");
}

/* Returns C_OK if the client can go on (its command ran, was queued or was
 * refused), C_ERR if it is going away. */
int processCommand(client *c) {
    /* --- broker forwarding: a follower hands the connection over --- */
    if (brokerMustForward(c)) return brokerForwardClient(c);
    c->cmd = lookupCommand(c->argv, c->argc);
    if (!c->cmd) {
        struct redisCommand *base = dictFetchValue(server.commands, c->argv[0]);
        if (base && base->subcommands) {
            sds up = sdsnew(base->name);
            sdstoupper(up);
            sds err = sdscatprintf(sdsempty(), "unknown subcommand '%.128s'. Try %s HELP.", c->argv[1], up);
            sdsfree(up);
            rejectCommandSds(c, err);
            return C_OK;
        }
        sds args = sdsempty();
        for (int i = 1; i < c->argc && sdslen(args) < 128; i++)
            args = sdscatprintf(args, "'%.*s' ", 128 - (int)sdslen(args), c->argv[i]);
        sds err = sdscatprintf(sdsempty(), "unknown command '%.128s', with args beginning with: %s", c->argv[0], args);
        sdsfree(args);
        rejectCommandSds(c, err);
        return C_OK;
    }
    sds aerr = NULL;
    if (!commandCheckArity(c->cmd, c->argc, &aerr)) {
        c->cmd->rejected_calls++;
        rejectCommandSds(c, aerr);
        return C_OK;
    }
    if (!c->authenticated && !(c->cmd->flags & CMD_NO_AUTH)) {
        c->cmd->rejected_calls++;
        rejectCommand(c, "-NOAUTH Authentication required.");
        return C_OK;
    }
    if (c->user) {
        int errpos, denied = aclCheckCommandPerm(c, &errpos);
        if (denied != ACL_OK) {
            aclLogDenied(c, denied, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL, errpos, NULL,
                         NULL);
            c->cmd->rejected_calls++;
            rejectCommandSds(c, aclDeniedMessage(c, denied));
            return C_OK;
        }
    }
    if (server.loading && !(c->cmd->flags & CMD_LOADING)) {
        sds lerr = commitLoadingError();
        if (!lerr) {
            rejectCommand(c, "-LOADING casq is loading the state document");
            return C_OK;
        }
        sdssetlen(lerr, sdslen(lerr) - 2); /* rejectCommand adds the CRLF */
        rejectCommandSds(c, lerr);
        return C_OK;
    }
    /* A script past busy-reply-threshold holds the server: only what can
     * stop it (or has to answer anyway) runs meanwhile. Those show no
     * keyspace state, and the store cannot confirm this node's role while
     * the script runs (the loop is held): they skip the check below. */
    if (scriptIsBusy()) {
        if (!(c->cmd->flags & CMD_ALLOW_BUSY)) {
            rejectCommand(c, scriptBusyError());
            return C_OK;
        }
    } else if (!(c->cmd->flags & CMD_LOADING) && commitStateUnconfirmed(c->read_ms ? c->read_ms : mstime())) {
        commitKickProbe();
        rejectCommand(c, "-TRYAGAIN this casq node cannot confirm that it is still the broker (the store has not "
                         "answered within broker-timeout); the command was not executed");
        return C_OK;
    }
    if (c->cmd->flags & CMD_WRITE) {
        sds ferr = commitFollowerError();
        if (ferr) {
            sdssetlen(ferr, sdslen(ferr) - 2); /* rejectCommand adds the CRLF */
            rejectCommandSds(c, ferr);
            return C_OK;
        }
    }
    if (rejectOnOutOfMemory(c)) {
        c->cmd->rejected_calls++;
        rejectCommand(c, "-OOM command not allowed when used memory > 'maxmemory'.");
        return C_OK;
    }
    sds perr = pubsubContextError(c); /* RESP2 subscribed context */
    if (perr) {
        c->cmd->rejected_calls++;
        rejectCommandSds(c, perr);
        return C_OK;
    }
    if ((c->flags & CLIENT_MULTI) && !isMultiControlCommand(c->cmd)) {
        if (c->cmd->flags & CMD_NO_MULTI) {
            c->cmd->rejected_calls++;
            rejectCommand(c, "Command not allowed inside a transaction");
            return C_OK;
        }
        queueMultiCommand(c);
        addReplyStatus(c, "QUEUED");
        clientCommitReply(c, 0);
        return C_OK;
    }
    call(c);
    if (listLength(server.ready_keys)) handleClientsBlockedOnKeys();
    return C_OK;
}

/* ========================================================================
 * Connection commands
 * ===================================================================== */

static void pingCommand(client *c) {
    if (c->argc > 2) {
        addReplyErrorArity(c);
        return;
    }
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2) {
        /* The subscribed context: ["pong", arg or ""] (pubsub.c). */
        addReplyArrayLen(c, 2);
        addReplyBulk(c, "pong", 4);
        if (c->argc == 1) addReplyBulk(c, "", 0);
        else addReplyBulk(c, c->argv[1], sdslen(c->argv[1]));
        return;
    }
    if (c->argc == 1) addReplyStatus(c, "PONG");
    else addReplyBulk(c, c->argv[1], sdslen(c->argv[1]));
}

static void echoCommand(client *c) { addReplyBulk(c, c->argv[1], sdslen(c->argv[1])); }

static void quitCommand(client *c) {
    addReplyOk(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

static void timeCommand(client *c) {
    long long us = ustime();
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, us / 1000000);
    addReplyBulkLongLong(c, us % 1000000);
}

/* Whether `given` is the default user's password (requirepass). As Redis
 * (ACLCheckUserCredentials), the SHA-256 digests of both are compared, in
 * constant time: how long a wrong guess takes says nothing about how much
 * of it was right, nor about the password's length. */
int authPasswordMatches(const char *given, size_t len) {
    if (!server.cfg.requirepass) return 1; /* "nopass" default user */
    unsigned char a[EVP_MAX_MD_SIZE], b[EVP_MAX_MD_SIZE];
    unsigned int alen = 0, blen = 0;
    if (!EVP_Digest(given, len, a, &alen, EVP_sha256(), NULL) ||
        !EVP_Digest(server.cfg.requirepass, strlen(server.cfg.requirepass), b, &blen, EVP_sha256(), NULL) ||
        alen != blen)
        return 0;
    return CRYPTO_memcmp(a, b, alen) == 0;
}

static void authCommand(client *c) {
    if (c->argc > 3) {
        addReplyErrorSyntax(c);
        return;
    }
    if (c->argc == 2 && !server.cfg.requirepass) {
        addReplyError(c, "AUTH <password> called without any password configured for the default user. "
                         "Are you sure your configuration is correct?");
        return;
    }
    /* AUTH <password> is the "default" user's; AUTH <user> <password> any
     * user's (acl.c). */
    sds pass = c->argv[c->argc - 1];
    sds def = c->argc == 2 ? sdsnew("default") : NULL;
    int ok = aclAuthenticate(c, def ? def : c->argv[1], pass);
    sdsfree(def);
    if (ok) {
        addReplyOk(c);
    } else {
        aclLogDenied(c, ACL_DENIED_AUTH, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL, 0,
                     c->argc == 2 ? "default" : c->argv[1], NULL);
        addReplyError(c, "-WRONGPASS invalid username-password pair or user is disabled.");
    }
}

static void helloCommand(client *c) {
    long long ver = 0;
    int next = 1;
    if (c->argc >= 2) {
        if (!string2ll(c->argv[1], sdslen(c->argv[1]), &ver)) {
            addReplyError(c, "Protocol version is not an integer or out of range");
            return;
        }
        next = 2;
        if (ver < 2 || ver > 3) {
            addReplyError(c, "-NOPROTO unsupported protocol version");
            return;
        }
    }
    sds user = NULL, pass = NULL, name = NULL;
    for (int j = next; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        if (!strcasecmp(c->argv[j], "AUTH") && moreargs >= 2) {
            user = c->argv[j + 1];
            pass = c->argv[j + 2];
            j += 2;
        } else if (!strcasecmp(c->argv[j], "SETNAME") && moreargs) {
            name = c->argv[j + 1];
            j++;
        } else {
            addReplyErrorFormat(c, "Syntax error in HELLO option '%s'", c->argv[j]);
            return;
        }
    }
    if (user && !aclAuthenticate(c, user, pass)) {
        aclLogDenied(c, ACL_DENIED_AUTH, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL, 0, user,
                     NULL);
        addReplyError(c, "-WRONGPASS invalid username-password pair or user is disabled.");
        return;
    }
    if (!c->authenticated) {
        addReplyError(c, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
                         "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
                         "RESP protocol version at the same time");
        return;
    }
    if (name) {
        for (size_t i = 0; i < sdslen(name); i++) {
            if (name[i] < '!' || name[i] > '~') {
                addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
                return;
            }
        }
        sdsfree(c->name);
        c->name = sdslen(name) ? sdsdup(name) : NULL;
    }
    if (ver) c->resp = (int)ver;
    addReplyMapLen(c, 7);
    addReplyBulkCString(c, "server");
    addReplyBulkCString(c, "redis");
    addReplyBulkCString(c, "version");
    addReplyBulkCString(c, REDIS_COMPAT_VERSION);
    addReplyBulkCString(c, "proto");
    addReplyLongLong(c, c->resp);
    addReplyBulkCString(c, "id");
    addReplyLongLong(c, (long long)c->id);
    addReplyBulkCString(c, "mode");
    addReplyBulkCString(c, "standalone");
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, "master");
    addReplyBulkCString(c, "modules");
    addReplyArrayLen(c, 0);
}

static void resetCommand(client *c) {
    if (c->flags & CLIENT_MULTI) discardTransaction(c);
    unwatchAllKeys(c);
    selectDb(c, 0);
    c->resp = 2;
    sdsfree(c->name);
    c->name = NULL;
    c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT | CLIENT_NO_EVICT | CLIENT_NO_TOUCH);
    if (c->flags & CLIENT_MONITOR) monitorRemoveClient(c); /* RESET ends MONITOR */
    pubsubUnsubscribeAll(c);                              /* ... and pub/sub */
    aclResetClientUser(c); /* back to "default" */
    addReplyStatus(c, "RESET");
}

static void shutdownCommand(client *c) {
    int abort = 0, nosave = 0;
    for (int j = 1; j < c->argc; j++) {
        const char *o = c->argv[j];
        if (!strcasecmp(o, "nosave")) {
            nosave = 1;
        } else if (!strcasecmp(o, "save") || !strcasecmp(o, "now") || !strcasecmp(o, "force")) {
            continue; /* every acknowledged change is already durable */
        } else if (!strcasecmp(o, "abort")) {
            abort = 1;
        } else {
            addReplyErrorSyntax(c);
            return;
        }
    }
    if (abort) {
        if (c->argc != 2) {
            addReplyErrorSyntax(c);
            return;
        }
        addReplyError(c, "No shutdown in progress.");
        return;
    }
    if (scriptIsBusy()) {
        /* A busy script's partial writes must never be committed: only
         * NOSAVE stops the server now, and at once, as a crash would
         * (everything acknowledged is already durable). */
        if (!nosave) {
            addReplyError(c, scriptBusyError());
            return;
        }
        serverLog(LL_WARNING, "User requested shutdown during a busy script: exiting without committing it.");
        if (server.cfg.pidfile) unlink(server.cfg.pidfile);
        _exit(0);
    }
    serverLog(LL_WARNING, "User requested shutdown...");
    server.shutdown_asap = 1;
    event_base_loopbreak(server.el);
    /* No reply: the connection closes with the server, as in Redis. */
}

struct redisCommand serverCommandTable[] = {
    {"ping", pingCommand, -1, CMD_FAST, 0, 0, 0, "fast connection", NULL},
    {"echo", echoCommand, 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "fast connection", NULL},
    {"quit", quitCommand, -1, CMD_ALLOW_BUSY | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH, 0, 0,
     0, "fast connection", NULL},
    {"reset", resetCommand, 1,
     CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY, 0, 0, 0, "fast connection",
     NULL},
    {"auth", authCommand, -2,
     CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY, 0, 0, 0, "fast connection",
     NULL},
    {"hello", helloCommand, -1,
     CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY, 0, 0, 0, "fast connection",
     NULL},
    {"time", timeCommand, 1, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "fast", NULL},
    {"shutdown", shutdownCommand, -1, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_NO_MULTI | CMD_ALLOW_BUSY,
     0, 0, 0, "admin slow dangerous", NULL},
    {0},
};

/* ========================================================================
 * Periodic work and the loop
 * ===================================================================== */

static void clientsCron(void) {
    long long now = server.mstime_cache;
    listNode *ln, *next;
    for (ln = listFirst(server.clients); ln; ln = next) {
        next = ln->next;
        client *c = ln->value;
        /* As Redis: blocked and Pub/Sub clients have no idle timeout, and
         * unread replies do not make a client busy (a client that stops
         * reading is idle). Replies still waiting for a commit do: that
         * client is waiting on us. A relayed connection's idleness is the
         * broker's to judge. */
        int waiting_on_commit = c->reply_tail && c->reply_tail->need_seq > server.durable_seq;
        if (server.cfg.maxidletime && !(c->flags & (CLIENT_BLOCKED | CLIENT_PUBSUB)) && !waiting_on_commit &&
            !c->relay && now - c->last_interaction > (long long)server.cfg.maxidletime * 1000) {
            serverLog(LL_VERBOSE, "Closing idle client");
            freeClientAsync(c);
            continue;
        }
        /* Give back query buffer memory after a burst. */
        if (c->qb_pos == 0 && sdslen(c->querybuf) == 0 && sdsalloc(c->querybuf) > 32 * 1024) {
            sdsfree(c->querybuf);
            c->querybuf = sdsempty();
        }
        c->querybuf_peak = sdslen(c->querybuf);
    }
}

void trackInstantaneousMetrics(void);

static void serverCron(int fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    updateCachedTime();
    clientsCron();
    if (server.cfg.active_expire) activeExpireCycle();
    commitCron();
    trackInstantaneousMetrics();
    size_t used = zmalloc_used_memory();
    if ((long long)used > server.stat_peak_memory) server.stat_peak_memory = (long long)used;
    freeClientsInQueue();
}

static void resumeUnblockedClients(void) {
    while (listLength(server.unblocked_clients)) {
        listNode *ln = listFirst(server.unblocked_clients);
        client *c = ln->value;
        listDelNode(server.unblocked_clients, ln);
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_ASAP)) continue;
        processInputBuffer(c);
    }
}

void beforeSleep(void) {
    updateCachedTime();
    if (listLength(server.ready_keys)) handleClientsBlockedOnKeys();
    resumeUnblockedClients();
    if (listLength(server.ready_keys)) handleClientsBlockedOnKeys();
    commitBeforeSleep();
    handleClientsWithPendingWrites();
    freeClientsInQueue();
}

/* ========================================================================
 * Listening sockets
 * ===================================================================== */

/* Where listenToAddress puts a listening socket: the plain TCP listeners
 * or the TLS ones. */
typedef struct listenerSet {
    int *fds;
    struct event **evs;
    int *count;
    event_callback_fn accept_handler;
} listenerSet;

static int listenToAddress(const char *addr, int port, int optional, const listenerSet *ls) {
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    struct addrinfo hints, *res, *p;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
    const char *host = addr;
    if (!strcmp(addr, "*")) {
        hints.ai_family = AF_INET;
        host = NULL;
    } else if (!strcmp(addr, "::*")) {
        hints.ai_family = AF_INET6;
        host = NULL;
    }
    int rv = getaddrinfo(host, portstr, &hints, &res);
    if (rv != 0) {
        serverLog(optional ? LL_NOTICE : LL_WARNING, "Could not resolve bind address %s: %s", addr, gai_strerror(rv));
        return optional ? C_OK : C_ERR;
    }
    int ok = C_ERR;
    for (p = res; p; p = p->ai_next) {
        int fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->ai_protocol);
        if (fd == -1) continue;
        int yes = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
        if (p->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof(yes));
        if (bind(fd, p->ai_addr, p->ai_addrlen) == -1 || listen(fd, server.cfg.tcp_backlog) == -1) {
            int saved = errno;
            close(fd);
            if (optional && (saved == EADDRNOTAVAIL || saved == EAFNOSUPPORT || saved == EPROTONOSUPPORT)) {
                ok = C_OK;
                continue;
            }
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s", addr, port,
                      strerror(saved));
            continue;
        }
        if (*ls->count >= 16) {
            close(fd);
            break;
        }
        ls->fds[*ls->count] = fd;
        ls->evs[*ls->count] = event_new(server.el, fd, EV_READ | EV_PERSIST, ls->accept_handler, NULL);
        event_add(ls->evs[*ls->count], NULL);
        (*ls->count)++;
        ok = C_OK;
        break;
    }
    freeaddrinfo(res);
    return ok;
}

/* `bind` is a list of addresses; a leading '-' marks one as optional (it may
 * be unavailable, e.g. IPv6 disabled), as in Redis 7. */
static int listenToPort(int port, const listenerSet *ls) {
    if (port == 0) return C_OK;
    int argc;
    sds *addrs = sdssplitargs(server.cfg.bind ? server.cfg.bind : "127.0.0.1", &argc);
    int ret = C_OK;
    for (int i = 0; i < argc; i++) {
        int optional = addrs[i][0] == '-';
        if (listenToAddress(addrs[i] + optional, port, optional, ls) != C_OK) {
            ret = C_ERR;
            break;
        }
    }
    sdsfreesplitres(addrs, argc);
    if (ret == C_OK && *ls->count == 0) ret = C_ERR;
    return ret;
}

static int listenToTcpPort(void) {
    listenerSet ls = {server.ipfd, server.ip_ev, &server.ipfd_count, acceptTcpHandler};
    return listenToPort(server.cfg.port, &ls);
}

/* tls-port: the same addresses (bind), TLS connections. */
static int listenToTLSPort(void) {
    listenerSet ls = {server.tlsfd, server.tls_ev, &server.tlsfd_count, acceptTLSHandler};
    return listenToPort(server.cfg.tls_port, &ls);
}

static int listenToUnixSocket(void) {
    server.sofd = -1;
    if (!server.cfg.unixsocket) return C_OK;
    struct sockaddr_un sa;
    if (strlen(server.cfg.unixsocket) >= sizeof(sa.sun_path)) {
        serverLog(LL_WARNING, "unixsocket path too long: %s", server.cfg.unixsocket);
        return C_ERR;
    }
    unlink(server.cfg.unixsocket);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1) return C_ERR;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    strcpy(sa.sun_path, server.cfg.unixsocket);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 || listen(fd, server.cfg.tcp_backlog) == -1) {
        serverLog(LL_WARNING, "Failed opening Unix socket: %s", strerror(errno));
        close(fd);
        return C_ERR;
    }
    if (server.cfg.unixsocketperm) chmod(server.cfg.unixsocket, server.cfg.unixsocketperm);
    server.sofd = fd;
    server.so_ev = event_new(server.el, fd, EV_READ | EV_PERSIST, acceptUnixHandler, NULL);
    event_add(server.so_ev, NULL);
    return C_OK;
}

static void closeListeningSockets(void) {
    for (int i = 0; i < server.ipfd_count; i++) {
        event_free(server.ip_ev[i]);
        close(server.ipfd[i]);
    }
    server.ipfd_count = 0;
    for (int i = 0; i < server.tlsfd_count; i++) {
        event_free(server.tls_ev[i]);
        close(server.tlsfd[i]);
    }
    server.tlsfd_count = 0;
    if (server.sofd != -1) {
        event_free(server.so_ev);
        close(server.sofd);
        unlink(server.cfg.unixsocket);
        server.sofd = -1;
    }
}

/* ========================================================================
 * Start-up and shutdown
 * ===================================================================== */

static void sigShutdownHandler(evutil_socket_t sig, short what, void *arg) {
    (void)what;
    (void)arg;
    const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (server.shutdown_asap && sig == SIGINT) {
        serverLog(LL_WARNING, "You insist... exiting now.");
        exit(1);
    }
    serverLog(LL_WARNING, "Received %s scheduling shutdown...", name);
    server.shutdown_asap = 1;
    event_base_loopbreak(server.el);
}

static void createPidFile(void) {
    if (!server.cfg.pidfile) return;
    FILE *fp = fopen(server.cfg.pidfile, "w");
    if (!fp) {
        serverLog(LL_WARNING, "Failed to write PID file: %s", strerror(errno));
        return;
    }
    fprintf(fp, "%d\n", (int)getpid());
    fclose(fp);
}

static void daemonize(void) {
    if (fork() != 0) exit(0);
    setsid();
    int fd = open("/dev/null", O_RDWR, 0);
    if (fd != -1) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO) close(fd);
    }
}

/* ========================================================================
 * Open files limit
 * ===================================================================== */

/* Every client is a descriptor, and so are the listeners, the log, the
 * store's files (document, temporary copy, lock, segments) or its S3
 * connections, and the broker links. Redis keeps CONFIG_MIN_RESERVED_FDS (32)
 * for itself; casq's store needs its own on top, so that a full set of
 * clients never makes a commit fail with EMFILE. */
#define CONFIG_MIN_RESERVED_FDS 32
#define CASQ_STORE_RESERVED_FDS 32
#define CASQ_RESERVED_FDS (CONFIG_MIN_RESERVED_FDS + CASQ_STORE_RESERVED_FDS)

/* As Redis's adjustOpenFilesLimit: raise RLIMIT_NOFILE to fit maxclients
 * plus the reserve if the system lets us; otherwise lower maxclients to what
 * the limit allows, and say so. Returns C_ERR when the limit leaves no room
 * for a single client. */
int adjustOpenFilesLimit(void) {
    rlim_t maxfiles = (rlim_t)server.cfg.maxclients + CASQ_RESERVED_FDS;
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == -1) {
        serverLog(LL_WARNING, "Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting the max "
                              "clients configuration accordingly.", strerror(errno));
        server.cfg.maxclients = 1024 - CASQ_RESERVED_FDS;
        return C_OK;
    }
    rlim_t oldlimit = limit.rlim_cur;
    if (oldlimit >= maxfiles) return C_OK;

    /* Try maxfiles, then a little less each time, down to what we have. */
    rlim_t bestlimit = maxfiles;
    int setrlimit_error = 0;
    while (bestlimit > oldlimit) {
        struct rlimit want = limit;
        want.rlim_cur = bestlimit;
        if (want.rlim_max != RLIM_INFINITY && want.rlim_max < bestlimit) want.rlim_max = bestlimit;
        if (setrlimit(RLIMIT_NOFILE, &want) != -1) break;
        setrlimit_error = errno;
        if (bestlimit < 16) {
            bestlimit = oldlimit;
            break;
        }
        bestlimit -= 16;
    }
    if (bestlimit < oldlimit) bestlimit = oldlimit;

    if (bestlimit >= maxfiles) {
        serverLog(LL_NOTICE, "Increased maximum number of open files to %llu (it was originally set to %llu).",
                  (unsigned long long)maxfiles, (unsigned long long)oldlimit);
        return C_OK;
    }
    long long old_maxclients = server.cfg.maxclients;
    if (bestlimit <= CASQ_RESERVED_FDS) {
        serverLog(LL_WARNING, "Your current 'ulimit -n' of %llu is not enough for the server to start. Please "
                              "increase your open file limit to at least %llu. Exiting.",
                  (unsigned long long)oldlimit, (unsigned long long)maxfiles);
        return C_ERR;
    }
    server.cfg.maxclients = (long long)bestlimit - CASQ_RESERVED_FDS;
    serverLog(LL_WARNING, "You requested maxclients of %lld requiring at least %llu max file descriptors.",
              old_maxclients, (unsigned long long)maxfiles);
    serverLog(LL_WARNING, "Server can't set maximum open files to %llu because of OS error: %s.",
              (unsigned long long)maxfiles, strerror(setrlimit_error ? setrlimit_error : EPERM));
    serverLog(LL_WARNING, "Current maximum open files is %llu. maxclients has been reduced to %lld to compensate "
                          "for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
              (unsigned long long)bestlimit, server.cfg.maxclients);
    return C_OK;
}

static void initServer(void) {
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    server.pid = getpid();
    server.el = event_base_new();
    if (!server.el) serverPanic("Failed creating the event loop");
    server.clients = listCreate();
    server.clients_pending_write = listCreate();
    server.clients_to_close = listCreate();
    server.clients_waiting_commit = listCreate();
    server.unblocked_clients = listCreate();
    server.ready_keys = listCreate();
    server.ready_keys_dict = dictCreate(&sdsKeyDictType);
    server.errors = dictCreate(&sdsKeyDictType);
    server.next_client_id = 1;
    server.sofd = -1;
    updateCachedTime();
    server.start_time_ms = server.mstime_cache;
    initDbs();
    populateCommandTable();
    aclInit();
    attachCommandDocs();
}

static int prepareForShutdown(void) {
    closeListeningSockets();
    int ok = commitFlushAndClose();
    if (ok != C_OK) serverLog(LL_WARNING, "Some changes could not be committed before shutdown.");
    if (server.cfg.pidfile) unlink(server.cfg.pidfile);
    serverLog(LL_WARNING, "casq is now ready to exit, bye bye...");
    return ok;
}

/* Releases everything, so leak checkers see a clean exit. */
static void freeServerOnExit(void) {
    while (listLength(server.clients)) freeClient(listFirst(server.clients)->value);
    freeClientsInQueue();
    slowlogFree();    /* slowlog.c */
    monitorFreeAll(); /* monitor.c */
    pubsubFreeAll();  /* pubsub.c */
    scriptingRelease(); /* eval.c, functions.c: the Lua interpreters */
    aclFreeAll();     /* acl.c */
    brokerClose(); /* broker forwarding: lingering relays, the link */
    freeDbs();
    if (server.cron_ev) event_free(server.cron_ev);
    freeAcceptBackoff();
    tlsCleanup(); /* tls.c */
    listRelease(server.clients);
    listRelease(server.clients_pending_write);
    listRelease(server.clients_to_close);
    listRelease(server.clients_waiting_commit);
    listRelease(server.unblocked_clients);
    listRelease(server.ready_keys);
    dictRelease(server.ready_keys_dict);
    dictRelease(server.errors);
    freeCommandTable();
    event_base_free(server.el);
    free(server.executable);
}

static void usage(void) {
    fprintf(stderr,
            "Usage: ./casq-server [/path/to/casq.conf] [options] [-]\n"
            "       ./casq-server - (read config from stdin)\n"
            "       ./casq-server -v or --version\n"
            "       ./casq-server -h or --help\n"
            "       ./casq-server [config] [options] --export-state PATH|-\n"
            "           (writes the whole state -- the root and every segment it names -- as one\n"
            "            document with every entry inline, to PATH or stdout, and exits)\n\n"
            "Examples:\n"
            "       ./casq-server (run with the defaults: 127.0.0.1:6379, ./queue.json)\n"
            "       ./casq-server /etc/casq/6379.conf\n"
            "       ./casq-server --port 7777 --dir /var/lib/casq\n"
            "       ./casq-server /etc/casq.conf --loglevel verbose --stream-id-mode liberal\n"
            "       ./casq-server --store s3://bucket/queue.json --s3-endpoint http://127.0.0.1:7480\n");
    exit(1);
}

/* Turns "--port 7777 --save ''" into config text "port 7777\nsave ''\n",
 * quoting each value so it reads back verbatim. */
static sds buildOptionsFromArgs(int argc, char **argv, int first, int *read_stdin) {
    sds options = sdsempty();
    int have_directive = 0;
    for (int j = first; j < argc; j++) {
        if (!strcmp(argv[j], "-") && !have_directive) {
            *read_stdin = 1;
            continue;
        }
        if (argv[j][0] == '-' && argv[j][1] == '-' && argv[j][2]) {
            if (have_directive) options = sdscat(options, "\n");
            options = sdscat(options, argv[j] + 2);
            options = sdscat(options, " ");
            have_directive = 1;
        } else {
            options = sdscatrepr(options, argv[j], strlen(argv[j]));
            options = sdscat(options, " ");
        }
    }
    return sdscat(options, "\n");
}

int main(int argc, char **argv) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    srandom((unsigned)(tv.tv_sec ^ tv.tv_usec ^ getpid()));
    dictSetHashSeed(((uint64_t)random() << 32) ^ (uint64_t)random());
    initServerConfig();
    server.executable = realpath(argv[0], NULL);
    server.exec_argv = argv;

    /* --export-state PATH|-: not a directive; taken out of argv. */
    const char *export_path = NULL;
    for (int j = 1; j < argc; j++) {
        if (strcmp(argv[j], "--export-state")) continue;
        if (j + 1 >= argc) usage();
        export_path = argv[j + 1];
        for (int k = j; k + 2 <= argc; k++) argv[k] = argv[k + 2];
        argc -= 2;
        break;
    }
    if (export_path) server.log_to_stderr = 1;

    const char *configfile = NULL;
    int first_opt = 1;
    if (argc >= 2) {
        if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version")) {
            printf("casq server v=%s (Redis %s compatible) bits=%d\n", CASQ_VERSION, REDIS_COMPAT_VERSION,
                   (int)(sizeof(long) * 8));
            return 0;
        }
        if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) usage();
        if (argv[1][0] != '-') {
            configfile = argv[1];
            first_opt = 2;
        }
    }
    int read_stdin = 0;
    sds options = buildOptionsFromArgs(argc, argv, first_opt, &read_stdin);
    if (read_stdin) {
        char buf[4096];
        size_t n;
        sds in = sdsempty();
        while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) in = sdscatlen(in, buf, n);
        in = sdscatsds(in, options);
        sdsfree(options);
        options = in;
    }
    sds err = NULL;
    if (loadServerConfig(configfile, options, &err) != C_OK) {
        fprintf(stderr, "%s\n", err ? err : "Bad configuration");
        sdsfree(err);
        return 1;
    }
    sdsfree(options);
    if (server.cfg.daemonize) daemonize();

    serverLog(LL_NOTICE, "oO0OoO0OoO0Oo casq is starting oO0OoO0OoO0Oo");
    serverLog(LL_NOTICE, "casq version=%s (Redis %s compatible), bits=%d, pid=%d, just started", CASQ_VERSION,
              REDIS_COMPAT_VERSION, (int)(sizeof(long) * 8), (int)getpid());
    if (configfile) serverLog(LL_NOTICE, "Configuration loaded from %s", configfile);
    else serverLog(LL_NOTICE, "No config file specified, using the default config.");

    if (server.cfg.dir && chdir(server.cfg.dir) == -1) {
        serverLog(LL_WARNING, "Can't chdir to '%s': %s", server.cfg.dir, strerror(errno));
        return 1;
    }
    initServer();
    if (!export_path && adjustOpenFilesLimit() != C_OK) {
        freeServerOnExit();
        return 1;
    }
    if (aclLoadConfiguredUsers(&err) != C_OK) {
        serverLog(LL_WARNING, "Error in user declaration: %s", err);
        sdsfree(err);
        freeServerOnExit();
        return 1;
    }
    if (export_path) {
        int rc = commitExportState(export_path, &err) == C_OK ? 0 : 1;
        if (rc) serverLog(LL_WARNING, "Export failed: %s", err);
        else if (strcmp(export_path, "-")) serverLog(LL_NOTICE, "State exported to %s", export_path);
        sdsfree(err);
        freeServerOnExit();
        return rc;
    }
    if (!server.cfg.port && !server.cfg.tls_port && !server.cfg.unixsocket) {
        serverLog(LL_WARNING, "Configured to not listen anywhere, exiting.");
        freeServerOnExit();
        return 1;
    }
    /* TLS is configured before anything listens, as Redis does. */
    if (server.cfg.tls_port && tlsConfigure() != C_OK) {
        serverLog(LL_WARNING, "Failed to configure TLS. Check logs for more info.");
        freeServerOnExit();
        return 1;
    }
    if (listenToTcpPort() != C_OK || listenToUnixSocket() != C_OK) {
        serverLog(LL_WARNING, "Failed listening on port %d (tcp), aborting.", server.cfg.port);
        return 1;
    }
    if (listenToTLSPort() != C_OK) {
        serverLog(LL_WARNING, "Failed listening on port %d (tls), aborting.", server.cfg.tls_port);
        return 1;
    }
    serverLog(LL_NOTICE, "Running mode=standalone, port=%d.", server.cfg.port);
    createPidFile();

    /* Load the state before serving anyone. */
    if (commitInit(&err) != C_OK) {
        serverLog(LL_WARNING, "Fatal: %s", err ? err : "cannot load the state document");
        serverLog(LL_WARNING, "casq refuses to start; the document was not modified.");
        sdsfree(err);
        closeListeningSockets();
        if (server.cfg.pidfile) unlink(server.cfg.pidfile);
        freeServerOnExit();
        return 1;
    }
    brokerInit(); /* broker forwarding and failover (broker.c) */

    struct event *sigterm = evsignal_new(server.el, SIGTERM, sigShutdownHandler, NULL);
    struct event *sigint = evsignal_new(server.el, SIGINT, sigShutdownHandler, NULL);
    evsignal_add(sigterm, NULL);
    evsignal_add(sigint, NULL);
    struct timeval period = {0, 1000000 / (server.cfg.hz > 0 ? server.cfg.hz : 10)};
    server.cron_ev = event_new(server.el, -1, EV_PERSIST, serverCron, NULL);
    event_add(server.cron_ev, &period);

    setServerCpuAffinity(); /* where Redis does it: once set up, before the loop */
    if (server.cfg.port) serverLog(LL_NOTICE, "Ready to accept connections tcp");
    if (server.cfg.unixsocket) serverLog(LL_NOTICE, "Ready to accept connections unix");
    if (server.cfg.tls_port) serverLog(LL_NOTICE, "Ready to accept connections tls");

    while (!server.shutdown_asap) {
        beforeSleep();
        if (server.shutdown_asap) break;
        event_base_loop(server.el, EVLOOP_ONCE);
    }
    int ok = prepareForShutdown();
    event_free(sigterm);
    event_free(sigint);
    freeServerOnExit();
    return ok == C_OK ? server.shutdown_exit_code : 1;
}
