/* networking.c -- connections, the RESP parser, replies and their release.
 *
 * Reading and parsing follow Redis's networking.c: a query buffer per
 * client, inline and multibulk requests, pipelining by parsing as many
 * complete commands as a read delivered. Replies differ: a command writes its
 * reply into c->pending; when it finishes, the bytes are queued as a
 * replyBlock tagged with the change sequence they depend on, and the writer
 * only sends blocks whose changes are durable (design.md §4). */
#include "server.h"
#include "broker.h"
#include "commit.h"
#include "connection.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <event2/event.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_D2STRING_CHARS 128

static void readQueryFromClient(int fd, short what, void *arg);
static void sendReplyToClient(int fd, short what, void *arg);
static int writeToClient(client *c);

/* ========================================================================
 * Client creation and destruction
 * ===================================================================== */

static void anetTuneSocket(int fd, int is_unix) {
    int flags = fcntl(fd, F_GETFL);
    if (flags != -1) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    if (is_unix) return;
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    if (server.cfg.tcp_keepalive > 0) {
        int ka = server.cfg.tcp_keepalive, intvl = ka / 3 ? ka / 3 : 1, cnt = 3;
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes));
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &ka, sizeof(ka));
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    }
}

static void formatSockaddr(const struct sockaddr_storage *sa, char *buf, size_t len) {
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (sa->ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
        port = ntohs(s->sin_port);
        snprintf(buf, len, "%s:%d", ip, port);
    } else if (sa->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
        port = ntohs(s->sin6_port);
        snprintf(buf, len, "%s:%d", ip, port);
    } else {
        snprintf(buf, len, "%s", server.cfg.unixsocket ? server.cfg.unixsocket : "");
    }
}

static void clientSetAddresses(client *c, int is_unix) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    if (is_unix) {
        snprintf(c->addr, sizeof(c->addr), "%s:0", server.cfg.unixsocket ? server.cfg.unixsocket : "");
        snprintf(c->laddr, sizeof(c->laddr), "%s:0", server.cfg.unixsocket ? server.cfg.unixsocket : "");
        return;
    }
    if (getpeername(c->fd, (struct sockaddr *)&sa, &salen) == 0) formatSockaddr(&sa, c->addr, sizeof(c->addr));
    salen = sizeof(sa);
    if (getsockname(c->fd, (struct sockaddr *)&sa, &salen) == 0) formatSockaddr(&sa, c->laddr, sizeof(c->laddr));
}

/* A client on `conn` (NULL with fd -1: a fake client). */
static client *createClientOnConn(connection *conn, int fd, int is_unix) {
    client *c = zcalloc(sizeof(*c));
    c->fd = fd;
    c->conn = conn;
    c->id = server.next_client_id++;
    c->resp = 2;
    c->authenticated = server.cfg.requirepass == NULL;
    c->db = &server.db[0];
    c->querybuf = sdsempty();
    c->bulklen = -1;
    c->pending = sdsempty();
    c->ctime = c->last_interaction = server.mstime_cache;
    c->watched_keys = listCreate();
    initClientMultiState(c);
    if (fd == -1) {
        c->flags |= CLIENT_FAKE;
        return c;
    }
    if (is_unix) c->flags |= CLIENT_UNIX_SOCKET;
    anetTuneSocket(fd, is_unix);
    clientSetAddresses(c, is_unix);
    c->read_ev = event_new(server.el, fd, EV_READ | EV_PERSIST, readQueryFromClient, c);
    c->write_ev = event_new(server.el, fd, EV_WRITE, sendReplyToClient, c);
    event_add(c->read_ev, NULL);
    c->client_list_node = listAddNodeTail(server.clients, c);
    return c;
}

client *createClient(int fd, int is_unix) {
    return createClientOnConn(fd == -1 ? NULL : connCreateSocket(fd, is_unix), fd, is_unix);
}

client *createFakeClient(void) { return createClient(-1, 0); }

static void freeReplyBlocks(client *c) {
    replyBlock *b = c->reply;
    while (b) {
        replyBlock *next = b->next;
        zfree(b);
        b = next;
    }
    c->reply = c->reply_tail = NULL;
    c->reply_bytes = 0;
    c->sentlen = 0;
}

static void freeClientArgv(client *c) {
    for (int i = 0; i < c->argc; i++) sdsfree(c->argv[i]);
    c->argc = 0;
    c->cmd = NULL;
}

void freeClient(client *c) {
    if (server.current_client == c) {
        /* Never free a client under its own running command. */
        freeClientAsync(c);
        return;
    }
    if (c->relay) brokerRelayFree(c); /* broker forwarding */
    if (c->flags & CLIENT_BLOCKED) unblockClient(c);
    if (c->flags & CLIENT_MONITOR) monitorRemoveClient(c); /* monitor.c */
    pubsubUnsubscribeAll(c);                              /* pubsub.c */
    unwatchAllKeys(c);
    freeClientMultiState(c);
    if (c->read_ev) event_free(c->read_ev);
    if (c->write_ev) event_free(c->write_ev);
    if (c->conn) connClose(c->conn); /* closes fd */
    else if (c->fd != -1) close(c->fd);
    if (c->client_list_node) listDelNode(server.clients, c->client_list_node);
    if (c->pending_write_node) listDelNode(server.clients_pending_write, c->pending_write_node);
    if (c->held_node) listDelNode(server.clients_waiting_commit, c->held_node);
    if (c->flags & CLIENT_CLOSE_ASAP) {
        listNode *ln = listSearchKey(server.clients_to_close, c);
        if (ln) listDelNode(server.clients_to_close, ln);
    }
    listNode *un = listSearchKey(server.unblocked_clients, c);
    if (un) listDelNode(server.unblocked_clients, un);
    freeReplyBlocks(c);
    freeClientArgv(c);
    zfree(c->argv);
    listRelease(c->watched_keys);
    sdsfree(c->querybuf);
    sdsfree(c->pending);
    sdsfree(c->name);
    sdsfree(c->lib_name);
    sdsfree(c->lib_ver);
    sdsfree(c->auth_pass);
    zfree(c);
}

void freeClientAsync(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    listAddNodeTail(server.clients_to_close, c);
}

void freeClientsInQueue(void) {
    while (listLength(server.clients_to_close)) {
        listNode *ln = listFirst(server.clients_to_close);
        client *c = ln->value;
        listDelNode(server.clients_to_close, ln);
        c->flags &= ~CLIENT_CLOSE_ASAP;
        freeClient(c);
    }
}

/* ========================================================================
 * Accepting connections
 * ===================================================================== */

/* Protected mode, as Redis's clientAcceptHandler: while it is on and the
 * default user has no password, only loopback clients are served. "Local"
 * is Redis's connIsLocal: a Unix socket, or a peer whose address text starts
 * with "127." or is "::1". */
int protectedModeDenies(const char *peer_ip, int is_unix) {
    if (!server.cfg.protected_mode || server.cfg.requirepass) return 0;
    if (is_unix) return 0;
    return strncmp(peer_ip, "127.", 4) != 0 && strcmp(peer_ip, "::1") != 0;
}

static void peerIpString(int fd, char *ip, size_t len) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    snprintf(ip, len, "?");
    if (getpeername(fd, (struct sockaddr *)&sa, &salen) == -1) return;
    if (sa.ss_family == AF_INET) inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, ip, (socklen_t)len);
    else if (sa.ss_family == AF_INET6) inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, ip, (socklen_t)len);
}

/* A best-effort error line for a connection refused before it becomes a
 * client (Redis does not check the write either). */
static void rejectConnection(int cfd, const char *err) {
    ssize_t w = write(cfd, err, strlen(err));
    (void)w;
    server.stat_rejected_conn++;
    close(cfd);
}

/* Redis's reply to a client protected mode refuses. */
static const char *protectedModeDeniedReply =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no password is "
    "set for the default user. In this mode connections are only accepted from the loopback interface. "
    "If you want to connect from external computers to Redis you may adopt one of the following "
    "solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from "
    "the loopback interface by connecting to Redis from the same host the server is running, however "
    "MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make "
    "this change permanent. 2) Alternatively you can just disable the protected mode by editing the "
    "Redis configuration file, and setting the protected mode option to 'no', and then restarting the "
    "server. 3) If you started the server manually just for testing, restart it with the "
    "'--protected-mode no' option. 4) Set up an authentication password for the default user. NOTE: "
    "You only need to do one of the above things in order for the server to start accepting "
    "connections from the outside.\r\n";

static int peerDeniedByProtectedMode(int cfd, int is_unix) {
    if (!server.cfg.protected_mode || server.cfg.requirepass || is_unix) return 0;
    char ip[INET6_ADDRSTRLEN];
    peerIpString(cfd, ip, sizeof(ip));
    return protectedModeDenies(ip, is_unix);
}

/* A failed TLS handshake is logged, at most once per interval with how
 * many failures went unlogged: a scanner or a plain-text client hammering
 * the TLS port must not flood the log. */
#define TLS_ERROR_LOG_INTERVAL_MS 1000

static void logTLSAcceptError(client *c) {
    static long long last_log_ms, unlogged;
    long long now = mstime();
    if (now - last_log_ms < TLS_ERROR_LOG_INTERVAL_MS) {
        unlogged++;
        return;
    }
    if (unlogged)
        serverLog(LL_WARNING, "Error accepting a client connection: %s (addr=%s laddr=%s) (%lld more since the last message)",
                  connLastError(c->conn), c->addr, c->laddr, unlogged);
    else
        serverLog(LL_WARNING, "Error accepting a client connection: %s (addr=%s laddr=%s)", connLastError(c->conn),
                  c->addr, c->laddr);
    last_log_ms = now;
    unlogged = 0;
}

/* Bytes TLS already decrypted raise no socket event: read them now, unless
 * reading is paused (broker forwarding deletes the read event). */
static void clientReadPendingData(client *c) {
    if (c->conn && connHasPendingData(c->conn) && event_pending(c->read_ev, EV_READ, NULL))
        event_active(c->read_ev, EV_READ, 1);
}

/* Reading resumes after a pause (broker forwarding). */
void clientResumeReading(client *c) {
    event_add(c->read_ev, NULL);
    clientReadPendingData(c);
}

#define HANDSHAKE_READY 0   /* the client may send commands */
#define HANDSHAKE_WAITING 1 /* the socket must become ready first */
#define HANDSHAKE_FREED 2   /* failed or refused: the client is gone */

/* Drives a TLS client's handshake from its events: while OpenSSL waits to
 * write, only the write event is armed (a peer that keeps sending would
 * otherwise wake us for nothing); while it waits to read, only the read
 * event. Once done, protected mode applies exactly as for plain clients. */
static int clientTLSHandshake(client *c) {
    int r = connHandshake(c->conn);
    if (r == CONN_HANDSHAKE_AGAIN) {
        if (c->conn->flags & CONN_FLAG_HANDSHAKE_WANTS_WRITE) {
            event_del(c->read_ev);
            event_add(c->write_ev, NULL);
        } else {
            event_add(c->read_ev, NULL);
        }
        return HANDSHAKE_WAITING;
    }
    if (r == CONN_HANDSHAKE_FAILED) {
        logTLSAcceptError(c);
        freeClient(c);
        return HANDSHAKE_FREED;
    }
    event_add(c->read_ev, NULL);
    if (peerDeniedByProtectedMode(c->fd, 0)) {
        struct iovec iov = {(void *)protectedModeDeniedReply, strlen(protectedModeDeniedReply)};
        ssize_t w = connWritev(c->conn, &iov, 1); /* best effort, as for plain clients */
        (void)w;
        server.stat_rejected_conn++;
        freeClient(c);
        return HANDSHAKE_FREED;
    }
    server.stat_numconnections++;
    clientReadPendingData(c);
    return HANDSHAKE_READY;
}

/* A TLS client: the handshake runs first (clientTLSHandshake); protected
 * mode is checked once it is done, so that the refusal can be read. Over
 * maxclients nothing readable can be sent before a handshake: the
 * connection is just closed (as Redis does). */
static void acceptTLSConnection(int cfd) {
    if (listLength(server.clients) >= (unsigned long)server.cfg.maxclients) {
        server.stat_rejected_conn++;
        close(cfd);
        return;
    }
    connection *conn = connCreateAcceptedTLS(cfd, server.cfg.tls_auth_clients);
    client *c = createClientOnConn(conn, cfd, 0);
    clientTLSHandshake(c);
}

static void acceptCommonHandler(int cfd, int is_unix) {
    if (listLength(server.clients) >= (unsigned long)server.cfg.maxclients) {
        rejectConnection(cfd, "-ERR max number of clients reached\r\n");
        return;
    }
    if (peerDeniedByProtectedMode(cfd, is_unix)) {
        rejectConnection(cfd, protectedModeDeniedReply);
        return;
    }
    createClient(cfd, is_unix);
    server.stat_numconnections++;
}

/* accept() failing for a reason other than "nothing to accept" (EMFILE,
 * ENFILE, ENOBUFS...) would fail again at once: the listening sockets stay
 * readable, so a level-triggered loop would spin on them and log each
 * failure. Instead the listeners pause for ACCEPT_BACKOFF_MS, and the error
 * is logged at most once per ACCEPT_LOG_INTERVAL_MS with how many were left
 * unlogged. Descriptors kept in reserve (adjustOpenFilesLimit) mean this
 * only happens when something outside casq's accounting uses them up. */
#define ACCEPT_BACKOFF_MS 100
#define ACCEPT_LOG_INTERVAL_MS 10000

static struct event *accept_resume_ev;
static long long accept_last_log_ms;
static long long accept_unlogged_errors;

static void setListenersEnabled(int on) {
    for (int i = 0; i < server.ipfd_count; i++) {
        if (on) event_add(server.ip_ev[i], NULL);
        else event_del(server.ip_ev[i]);
    }
    for (int i = 0; i < server.tlsfd_count; i++) {
        if (on) event_add(server.tls_ev[i], NULL);
        else event_del(server.tls_ev[i]);
    }
    if (server.sofd != -1 && server.so_ev) {
        if (on) event_add(server.so_ev, NULL);
        else event_del(server.so_ev);
    }
}

static void resumeAccepting(int fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    setListenersEnabled(1);
}

static void acceptFailed(int err) {
    if (err == EWOULDBLOCK || err == EAGAIN || err == EINTR || err == ECONNABORTED) return;
    long long now = mstime();
    if (now - accept_last_log_ms >= ACCEPT_LOG_INTERVAL_MS) {
        if (accept_unlogged_errors)
            serverLog(LL_WARNING, "Accepting client connection: %s (%lld more failures since the last message)",
                      strerror(err), accept_unlogged_errors);
        else
            serverLog(LL_WARNING, "Accepting client connection: %s", strerror(err));
        accept_last_log_ms = now;
        accept_unlogged_errors = 0;
    } else {
        accept_unlogged_errors++;
    }
    if (!accept_resume_ev) accept_resume_ev = evtimer_new(server.el, resumeAccepting, NULL);
    if (evtimer_pending(accept_resume_ev, NULL)) return;
    struct timeval tv = {0, ACCEPT_BACKOFF_MS * 1000};
    setListenersEnabled(0);
    evtimer_add(accept_resume_ev, &tv);
}

/* Releases the accept back-off timer (at exit). */
void freeAcceptBackoff(void) {
    if (accept_resume_ev) event_free(accept_resume_ev);
    accept_resume_ev = NULL;
}

/* Accepts up to 1000 connections on a listener (as Redis's
 * MAX_ACCEPTS_PER_CALL) and hands each to `accepted`. */
static void acceptLoop(int fd, void (*accepted)(int cfd, int is_unix), int is_unix) {
    for (int max = 1000; max > 0; max--) {
        int cfd = accept(fd, NULL, NULL);
        if (cfd == -1) {
            acceptFailed(errno);
            return;
        }
        accepted(cfd, is_unix);
    }
}

static void acceptTLS(int cfd, int is_unix) {
    (void)is_unix;
    acceptTLSConnection(cfd);
}

void acceptTcpHandler(int fd, short what, void *arg) {
    (void)what;
    (void)arg;
    acceptLoop(fd, acceptCommonHandler, 0);
}

void acceptTLSHandler(int fd, short what, void *arg) {
    (void)what;
    (void)arg;
    acceptLoop(fd, acceptTLS, 0);
}

void acceptUnixHandler(int fd, short what, void *arg) {
    (void)what;
    (void)arg;
    acceptLoop(fd, acceptCommonHandler, 1);
}

/* ========================================================================
 * Reply construction (into c->pending)
 * ===================================================================== */

/* Replies are suppressed by CLIENT REPLY OFF/SKIP, except while the command
 * runs inside a client that must always see them. */
static int prepareClientToWrite(client *c) {
    if (c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) return C_ERR;
    if (c->flags & CLIENT_CLOSE_ASAP) return C_ERR;
    return C_OK;
}

void addReply(client *c, const char *s, size_t len) {
    if (prepareClientToWrite(c) != C_OK) return;
    c->pending = sdscatlen(c->pending, s, len);
}

void addReplyStr(client *c, const char *s) { addReply(c, s, strlen(s)); }

void addReplySds(client *c, sds s) {
    addReply(c, s, sdslen(s));
    sdsfree(s);
}

void addReplyOk(client *c) { addReply(c, "+OK\r\n", 5); }

/* Error replies also feed INFO errorstats and the failed-calls counter. */
static void afterErrorReply(client *c, const char *s, size_t len) {
    server.stat_total_error_replies++;
    if (c->cmd && server.in_call) c->cmd->failed_calls++;
    /* The error code is the first word (e.g. "ERR", "WRONGTYPE"). */
    size_t n = 0;
    if (len && s[0] == '-') {
        s++;
        len--;
    }
    while (n < len && n < 64 && s[n] != ' ' && s[n] != '\r') n++;
    if (server.errors) {
        sds code = sdsnewlen(s, n);
        dictEntry *de = dictFind(server.errors, code);
        if (de) {
            de->val = (void *)((intptr_t)de->val + 1);
            sdsfree(code);
        } else if (dictSize(server.errors) < 128) {
            dictAdd(server.errors, code, (void *)(intptr_t)1);
        } else {
            sdsfree(code);
        }
    }
}

/* Adds "-<err>\r\n". Newlines in the message would break the protocol, so
 * they are turned into spaces as Redis does. */
static void addReplyErrorLength(client *c, const char *s, size_t len) {
    if (prepareClientToWrite(c) == C_OK) {
        if (!len || s[0] != '-') c->pending = sdscatlen(c->pending, "-", 1);
        size_t start = sdslen(c->pending);
        c->pending = sdscatlen(c->pending, s, len);
        for (size_t i = start; i < sdslen(c->pending); i++)
            if (c->pending[i] == '\r' || c->pending[i] == '\n') c->pending[i] = ' ';
        c->pending = sdscatlen(c->pending, "\r\n", 2);
    }
    afterErrorReply(c, s, len);
}

/* As in Redis: a message that starts with '-' carries its own error code
 * ("-NOGROUP ..."); anything else gets the generic "ERR ". */
void addReplyError(client *c, const char *err) {
    size_t len = strlen(err);
    if (len && err[0] == '-') {
        addReplyErrorLength(c, err + 1, len - 1);
        return;
    }
    sds s = sdscatlen(sdsnew("ERR "), err, len);
    addReplyErrorLength(c, s, sdslen(s));
    sdsfree(s);
}

void addReplyErrorFormat(client *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    addReplyError(c, s);
    sdsfree(s);
}

void addReplyErrorSds(client *c, sds err) {
    addReplyError(c, err);
    sdsfree(err);
}

/* `full` is a complete "-CODE message\r\n" protocol line. */
void addReplyErrorObject(client *c, const char *full) {
    size_t len = strlen(full);
    if (prepareClientToWrite(c) == C_OK) c->pending = sdscatlen(c->pending, full, len);
    afterErrorReply(c, full, len);
}

void addReplyErrorArity(client *c) {
    addReplyErrorFormat(c, "wrong number of arguments for '%s' command", c->cmd ? c->cmd->fullname : "");
}

void addReplyErrorSyntax(client *c) { addReplyError(c, "syntax error"); }

void addReplyErrorNotInteger(client *c) { addReplyError(c, "value is not an integer or out of range"); }

void addReplyStatusLength(client *c, const char *s, size_t len) {
    if (prepareClientToWrite(c) != C_OK) return;
    c->pending = sdscatlen(c->pending, "+", 1);
    c->pending = sdscatlen(c->pending, s, len);
    c->pending = sdscatlen(c->pending, "\r\n", 2);
}

void addReplyStatus(client *c, const char *status) { addReplyStatusLength(c, status, strlen(status)); }

static void addReplyLongLongWithPrefix(client *c, long long ll, char prefix) {
    if (prepareClientToWrite(c) != C_OK) return;
    char buf[LONG_STR_SIZE + 4];
    buf[0] = prefix;
    int len = ll2string(buf + 1, sizeof(buf) - 1, ll);
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    c->pending = sdscatlen(c->pending, buf, (size_t)len + 3);
}

void addReplyLongLong(client *c, long long ll) { addReplyLongLongWithPrefix(c, ll, ':'); }

void addReplyBulk(client *c, const char *p, size_t len) {
    if (prepareClientToWrite(c) != C_OK) return;
    addReplyLongLongWithPrefix(c, (long long)len, '$');
    c->pending = sdscatlen(c->pending, p, len);
    c->pending = sdscatlen(c->pending, "\r\n", 2);
}

void addReplyBulkSds(client *c, sds s) {
    addReplyBulk(c, s, sdslen(s));
    sdsfree(s);
}

void addReplyBulkCString(client *c, const char *s) {
    if (!s) addReplyNull(c);
    else addReplyBulk(c, s, strlen(s));
}

void addReplyBulkLongLong(client *c, long long ll) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), ll);
    addReplyBulk(c, buf, (size_t)len);
}

/* RESP3 verbatim string; RESP2 gets a plain bulk. */
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext) {
    if (c->resp == 2) {
        addReplyBulk(c, s, len);
        return;
    }
    if (prepareClientToWrite(c) != C_OK) return;
    addReplyLongLongWithPrefix(c, (long long)len + 4, '=');
    c->pending = sdscatlen(c->pending, ext, 3);
    c->pending = sdscatlen(c->pending, ":", 1);
    c->pending = sdscatlen(c->pending, s, len);
    c->pending = sdscatlen(c->pending, "\r\n", 2);
}

/* RESP3 big number; RESP2 gets a plain bulk. */
void addReplyBigNum(client *c, const char *num, size_t len) {
    if (c->resp == 2) {
        addReplyBulk(c, num, len);
        return;
    }
    if (prepareClientToWrite(c) != C_OK) return;
    c->pending = sdscatlen(c->pending, "(", 1);
    c->pending = sdscatlen(c->pending, num, len);
    c->pending = sdscatlen(c->pending, "\r\n", 2);
}

void addReplyDouble(client *c, double d) {
    char dbuf[MAX_D2STRING_CHARS];
    int len;
    if (isinf(d)) len = snprintf(dbuf, sizeof(dbuf), "%s", d > 0 ? "inf" : "-inf");
    else len = snprintf(dbuf, sizeof(dbuf), "%.17g", d);
    if (c->resp == 2) {
        addReplyBulk(c, dbuf, (size_t)len);
    } else {
        if (prepareClientToWrite(c) != C_OK) return;
        c->pending = sdscatprintf(c->pending, ",%s\r\n", dbuf);
    }
}

void addReplyBool(client *c, int b) {
    if (c->resp == 2) addReplyLongLong(c, b ? 1 : 0);
    else addReply(c, b ? "#t\r\n" : "#f\r\n", 4);
}

void addReplyNull(client *c) {
    if (c->resp == 2) addReply(c, "$-1\r\n", 5);
    else addReply(c, "_\r\n", 3);
}

void addReplyNullArray(client *c) {
    if (c->resp == 2) addReply(c, "*-1\r\n", 5);
    else addReply(c, "_\r\n", 3);
}

void addReplyArrayLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, '*'); }

void addReplyMapLen(client *c, long length) {
    if (c->resp == 2) addReplyLongLongWithPrefix(c, length * 2, '*');
    else addReplyLongLongWithPrefix(c, length, '%');
}

void addReplySetLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '~'); }

void addReplyAttributeLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, '|'); }

void addReplyPushLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '>'); }

void addReplyEmptyArray(client *c) { addReply(c, "*0\r\n", 4); }

/* A deferred length is an offset into c->pending (+1 so NULL means "reply
 * suppressed"); the header is spliced in when the count is known. */
void *addReplyDeferredLen(client *c) {
    if (prepareClientToWrite(c) != C_OK) return NULL;
    return (void *)(uintptr_t)(sdslen(c->pending) + 1);
}

static void setDeferredReply(client *c, void *node, char prefix, long length) {
    if (node == NULL) return;
    size_t off = (size_t)(uintptr_t)node - 1;
    char hdr[LONG_STR_SIZE + 4];
    hdr[0] = prefix;
    int n = ll2string(hdr + 1, sizeof(hdr) - 1, length);
    hdr[n + 1] = '\r';
    hdr[n + 2] = '\n';
    size_t hlen = (size_t)n + 3, oldlen = sdslen(c->pending);
    c->pending = sdsMakeRoomFor(c->pending, hlen);
    memmove(c->pending + off + hlen, c->pending + off, oldlen - off);
    memcpy(c->pending + off, hdr, hlen);
    sdsIncrLen(c->pending, hlen);
}

void setDeferredArrayLen(client *c, void *node, long length) { setDeferredReply(c, node, '*', length); }

void setDeferredMapLen(client *c, void *node, long length) {
    if (c->resp == 2) setDeferredReply(c, node, '*', length * 2);
    else setDeferredReply(c, node, '%', length);
}

void setDeferredSetLen(client *c, void *node, long length) {
    setDeferredReply(c, node, c->resp == 2 ? '*' : '~', length);
}

/* The HELP subcommand reply: "<CMD> <subcommand> ..." then the command's
 * help lines, then the HELP line every container command has. */
void addReplyHelp(client *c, const char **help) {
    sds cmd = sdsnew(c->argv[0]);
    sdstoupper(cmd);
    void *blenp = addReplyDeferredLen(c);
    long blen = 0;
    sds first = sdscatprintf(sdsempty(), "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", cmd);
    addReplyStatus(c, first);
    sdsfree(first);
    sdsfree(cmd);
    blen++;
    for (const char **h = help; *h; h++, blen++) addReplyStatus(c, *h);
    addReplyStatus(c, "HELP");
    addReplyStatus(c, "    Prints this help.");
    blen += 2;
    setDeferredArrayLen(c, blenp, blen);
}

void addReplySubcommandSyntaxError(client *c) {
    sds cmd = sdsnew(c->argv[0]);
    sdstoupper(cmd);
    addReplyErrorFormat(c, "unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.", c->argv[1],
                        cmd);
    sdsfree(cmd);
}

/* ========================================================================
 * Queueing replies behind the group commit
 * ===================================================================== */

static void clientMarkPendingWrite(client *c) {
    if (c->pending_write_node || c->fd == -1) return;
    c->pending_write_node = listAddNodeTail(server.clients_pending_write, c);
}

static void clientMarkHeld(client *c) {
    if (c->held_node) return;
    c->held_node = listAddNodeTail(server.clients_waiting_commit, c);
}

/* client-output-buffer-limit normal <hard> <soft> <seconds>: a client that
 * does not read its replies is disconnected instead of growing forever. */
/* An unauthenticated client may hold this much of unread replies and no
 * more (CVE-2025-21605; Redis >= 7.2.8 allows 1 kB beyond its 16 kB static
 * reply buffer, whatever client-output-buffer-limit says). Enough for the
 * replies to AUTH/HELLO and a few refused commands; a client that floods
 * commands without reading is disconnected instead of growing memory. */
#define UNAUTH_REPLY_BYTES_LIMIT (16 * 1024 + 1024)

/* Query buffer of an unauthenticated client (Redis 7.4: 1 MB at most). */
#define UNAUTH_QUERYBUF_LIMIT (1024 * 1024)

static void checkClientOutputBufferLimits(client *c) {
    size_t used = c->reply_bytes;
    if (!c->authenticated && !(c->flags & CLIENT_FAKE) && used > UNAUTH_REPLY_BYTES_LIMIT) {
        if (c->flags & CLIENT_CLOSE_ASAP) return;
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", ci);
        sdsfree(ci);
        server.stat_client_outbuf_limit_disconnections++;
        freeClientAsync(c);
        return;
    }
    /* A client with pub/sub subscriptions has the pubsub class's limits. */
    int ps = (c->flags & CLIENT_PUBSUB) != 0;
    long long hard_limit = ps ? server.cfg.obuf_pubsub_hard_limit : server.cfg.obuf_hard_limit;
    long long soft_limit = ps ? server.cfg.obuf_pubsub_soft_limit : server.cfg.obuf_soft_limit;
    long long soft_seconds = ps ? server.cfg.obuf_pubsub_soft_seconds : server.cfg.obuf_soft_seconds;
    int hard = hard_limit && used >= (size_t)hard_limit;
    int soft = 0;
    if (soft_limit && used >= (size_t)soft_limit) {
        if (c->obuf_soft_limit_reached_time == 0) c->obuf_soft_limit_reached_time = server.mstime_cache;
        else if ((server.mstime_cache - c->obuf_soft_limit_reached_time) / 1000 > soft_seconds)
            soft = 1; /* seconds, as Redis: soft_seconds may be up to LLONG_MAX */
    } else {
        c->obuf_soft_limit_reached_time = 0;
    }
    if (!hard && !soft) return;
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    sds ci = catClientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", ci);
    sdsfree(ci);
    server.stat_client_outbuf_limit_disconnections++;
    freeClientAsync(c);
}

static replyBlock *newReplyBlock(size_t size) {
    replyBlock *b = zmalloc(sizeof(*b) + size);
    b->next = NULL;
    b->size = size;
    b->used = 0;
    b->need_seq = 0;
    b->nreplies = 0;
    return b;
}

/* Where a reply goes in the FIFO. It may share the tail block when the
 * tail needs at least as much (it could not overtake the tail anyway), or
 * when neither is covered by a commit in flight: the next commit to start
 * covers every change made so far, so both are released by that same commit
 * and raising the tail's need_seq delays nothing. */
static replyBlock *replyTailFor(client *c, uint64_t need_seq, size_t len) {
    replyBlock *tail = c->reply_tail;
    if (!tail || tail->size - tail->used < len) return NULL;
    if (tail->need_seq >= need_seq) return tail;
    uint64_t covered = commitCoveredSeq();
    if (tail->need_seq <= covered) return NULL;
    tail->need_seq = need_seq;
    return tail;
}

/* Moves the running command's reply into the FIFO. New blocks start small
 * and double while replies keep sharing them, so a client waiting on one
 * small reply at a time does not pin a whole chunk. */
void clientCommitReply(client *c, uint64_t need_seq) {
    size_t len = sdslen(c->pending);
    if (len == 0) return;
    /* A reply is never sent before the ones queued ahead of it, so it needs
     * at least what the tail needs. Keeping need_seq non-decreasing along
     * the FIFO is what lets releaseHeldReplies() judge a client by its tail
     * block alone: a read-only reply (need 0) in a new block behind held
     * writes must not make the client look fully released. */
    if (c->reply_tail && c->reply_tail->need_seq > need_seq) need_seq = c->reply_tail->need_seq;
    replyBlock *tail = replyTailFor(c, need_seq, len);
    if (!tail) {
        size_t size = 512;
        if (c->reply_tail && c->reply_tail->need_seq >= need_seq) size = c->reply_tail->size * 2;
        if (size > PROTO_REPLY_CHUNK_BYTES) size = PROTO_REPLY_CHUNK_BYTES;
        tail = newReplyBlock(len > size ? len : size);
        tail->need_seq = need_seq;
        if (c->reply_tail) c->reply_tail->next = tail;
        else c->reply = tail;
        c->reply_tail = tail;
    }
    memcpy(tail->buf + tail->used, c->pending, len);
    tail->used += len;
    tail->nreplies++;
    c->reply_bytes += len;
    /* Keep a small pending buffer around; free a large one. */
    if (sdsalloc(c->pending) > 64 * 1024) {
        sdsfree(c->pending);
        c->pending = sdsempty();
    } else {
        sdsclear(c->pending);
    }
    if (c->reply->need_seq <= server.durable_seq) clientMarkPendingWrite(c);
    if (tail->need_seq > server.durable_seq) clientMarkHeld(c);
    checkClientOutputBufferLimits(c);
}

int clientHasPendingReplies(client *c) { return c->reply != NULL; }

/* --- broker forwarding (broker.c) --------------------------------------
 * The broker's bytes for a relayed client. They bypass CLIENT REPLY (the
 * broker applies it) and depend on nothing here (need_seq 0), but queue
 * behind what this node replied before the switch. */
void clientRelayReply(client *c, const char *buf, size_t len) {
    c->pending = sdscatlen(c->pending, buf, len);
    clientCommitReply(c, 0);
}

/* After durable_seq advanced: clients whose head block became sendable go
 * to the write list; those with nothing left waiting leave the held list. */
void releaseHeldReplies(void) {
    listNode *ln = listFirst(server.clients_waiting_commit), *next;
    for (; ln; ln = next) {
        next = ln->next;
        client *c = ln->value;
        if (c->reply && c->reply->need_seq <= server.durable_seq) clientMarkPendingWrite(c);
        if (!c->reply_tail || c->reply_tail->need_seq <= server.durable_seq) {
            listDelNode(server.clients_waiting_commit, ln);
            c->held_node = NULL;
        }
    }
}

/* A commit failed for good: every reply that waited on it was never
 * acknowledged, so each becomes `err`. Replies already sendable stay. */
void failHeldReplies(const char *err) { failHeldRepliesUpTo(UINT64_MAX, err); }

/* ========================================================================
 * Writing
 * ===================================================================== */

/* Writes what may be sent. Returns C_ERR if the client was freed. */
static int writeToClient(client *c) {
    if (c->conn->state == CONN_STATE_ACCEPTING) return C_OK; /* nothing to say before the handshake */
    struct iovec iov[16];
    size_t totwritten = 0;
    for (;;) {
        int n = 0;
        size_t total = 0;
        replyBlock *b = c->reply;
        size_t off = c->sentlen;
        while (b && n < 16 && b->need_seq <= server.durable_seq) {
            iov[n].iov_base = b->buf + off;
            iov[n].iov_len = b->used - off;
            total += iov[n].iov_len;
            off = 0;
            n++;
            b = b->next;
        }
        if (n == 0) break;
        ssize_t w = connWritev(c->conn, iov, n);
        if (w == -1) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            if (errno == EINTR) continue;
            serverLog(LL_VERBOSE, "Error writing to client: %s", connLastError(c->conn));
            freeClient(c);
            return C_ERR;
        }
        server.stat_net_output_bytes += w;
        totwritten += (size_t)w;
        size_t left = (size_t)w;
        while (left && c->reply) {
            size_t avail = c->reply->used - c->sentlen;
            if (left >= avail) {
                left -= avail;
                replyBlock *done = c->reply;
                c->reply = done->next;
                if (!c->reply) c->reply_tail = NULL;
                c->reply_bytes -= done->used;
                c->sentlen = 0;
                zfree(done);
            } else {
                c->sentlen += left;
                left = 0;
            }
        }
        if ((size_t)w < total) break;
    }
    /* Only bytes that left count as interaction (Redis): a client that
     * does not read stays idle for `timeout`. */
    if (totwritten) c->last_interaction = server.mstime_cache;
    if (c->relay) brokerRelayClientDrained(c); /* broker forwarding */
    int sendable = c->reply && c->reply->need_seq <= server.durable_seq;
    if (sendable) {
        /* A TLS write waiting for a read is resumed by the read event. */
        if (!(c->conn->flags & CONN_FLAG_WRITE_WANTS_READ)) event_add(c->write_ev, NULL);
    } else if (!c->reply && (c->flags & CLIENT_CLOSE_AFTER_REPLY)) {
        freeClient(c);
        return C_ERR;
    }
    return C_OK;
}

static int readFromClient(client *c);

static void sendReplyToClient(int fd, short what, void *arg) {
    (void)fd;
    (void)what;
    client *c = arg;
    if (c->conn->state == CONN_STATE_ACCEPTING) {
        clientTLSHandshake(c);
        return;
    }
    if (c->conn->flags & CONN_FLAG_READ_WANTS_WRITE) {
        c->conn->flags &= ~CONN_FLAG_READ_WANTS_WRITE;
        if (readFromClient(c) == C_ERR) return;
    }
    writeToClient(c);
}

void clientInstallWriteHandler(client *c) { clientMarkPendingWrite(c); }

/* Called from beforeSleep: one write attempt per client with sendable
 * replies; short writes arm the write event. */
void handleClientsWithPendingWrites(void) {
    while (listLength(server.clients_pending_write)) {
        listNode *ln = listFirst(server.clients_pending_write);
        client *c = ln->value;
        listDelNode(server.clients_pending_write, ln);
        c->pending_write_node = NULL;
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        writeToClient(c);
    }
}

/* ========================================================================
 * Reading and parsing
 * ===================================================================== */

void resetClient(client *c) {
    freeClientArgv(c);
    c->reqtype = 0;
    c->multibulklen = 0;
    c->bulklen = -1;
    c->flags &= ~CLIENT_REEXECUTING;
    /* CLIENT REPLY SKIP applies to the command after it. */
    if (c->flags & CLIENT_REPLY_SKIP) c->flags &= ~CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
    }
}

/* Protocol errors end the connection once the error has been written, like
 * Redis. Parsing stops at once. */
static void setProtocolError(client *c, const char *errstr) {
    if (server.cfg.verbosity <= LL_VERBOSE) {
        sds buf = sdscatrepr(sdsempty(), c->querybuf + c->qb_pos,
                             sdslen(c->querybuf) - c->qb_pos > 128 ? 128 : sdslen(c->querybuf) - c->qb_pos);
        serverLog(LL_VERBOSE, "Protocol error (%s) from client: id=%llu addr=%s. Query buffer: %s", errstr,
                  (unsigned long long)c->id, c->addr, buf);
        sdsfree(buf);
    }
    c->flags |= CLIENT_PROTOCOL_ERROR | CLIENT_CLOSE_AFTER_REPLY;
}

static void ensureArgv(client *c, int n) {
    if (c->argv_len >= n) return;
    c->argv_len = n;
    c->argv = zrealloc(c->argv, sizeof(sds) * (size_t)c->argv_len);
}

/* Finds the CRLF-terminated "*<count>" or "$<len>" line at qb_pos. Returns 1
 * with line and linelen set (prefix included, CRLF not), 0 when more input is
 * needed, -1 after a protocol error (no length needs that many bytes). */
static int findLengthLine(client *c, const char *what, char **line, size_t *linelen) {
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    char *cr = memchr(start, '\r', avail);
    if (!cr) {
        if (avail <= PROTO_INLINE_MAX_SIZE) return 0;
        addReplyErrorFormat(c, "Protocol error: too big %s count string", what);
        setProtocolError(c, "too big count string");
        return -1;
    }
    if ((size_t)(cr - start) + 1 >= avail) return 0; /* the \n is not here yet */
    *line = start;
    *linelen = (size_t)(cr - start);
    return 1;
}

static int processInlineBuffer(client *c) {
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    char *newline = memchr(start, '\n', avail);
    /* Redis finds the end of an inline request with strchr(): a NUL byte
     * before the newline hides it, so the line is never complete (no
     * truncated command runs) until it is too big for an inline request. */
    if (newline && memchr(start, '\0', (size_t)(newline - start))) newline = NULL;
    if (!newline) {
        if (avail > PROTO_INLINE_MAX_SIZE) {
            addReplyError(c, "Protocol error: too big inline request");
            setProtocolError(c, "too big inline request");
        }
        return C_ERR;
    }
    size_t linelen = (size_t)(newline - start);
    if (linelen && start[linelen - 1] == '\r') linelen--;
    sds line = sdsnewlen(start, linelen);
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    sdsfree(line);
    if (!argv) {
        addReplyError(c, "Protocol error: unbalanced quotes in request");
        setProtocolError(c, "unbalanced quotes in inline request");
        return C_ERR;
    }
    c->qb_pos += (size_t)(newline - start) + 1;
    ensureArgv(c, argc);
    for (int i = 0; i < argc; i++) c->argv[i] = argv[i];
    c->argc = argc;
    zfree(argv);
    return C_OK;
}

/* Parses one multibulk request incrementally. Returns C_OK when c->argv is
 * complete, C_ERR when more data is needed or on a protocol error. */
static int processMultibulkBuffer(client *c) {
    long long ll;
    char *line;
    size_t linelen;
    if (c->multibulklen == 0) {
        int found = findLengthLine(c, "mbulk", &line, &linelen);
        if (found <= 0) return C_ERR;
        int ok = string2ll(line + 1, linelen - 1, &ll);
        if (!ok || ll > INT_MAX) {
            addReplyError(c, "Protocol error: invalid multibulk length");
            setProtocolError(c, "invalid mbulk count");
            return C_ERR;
        } else if (ll > 10 && !c->authenticated) {
            addReplyError(c, "Protocol error: unauthenticated multibulk length");
            setProtocolError(c, "unauth mbulk count");
            return C_ERR;
        }
        c->qb_pos += linelen + 2;
        if (ll <= 0) return C_OK; /* empty request: skipped by the caller */
        c->multibulklen = (long)ll;
        ensureArgv(c, (int)(ll < 1024 ? ll : 1024));
    }
    while (c->multibulklen) {
        if (c->bulklen == -1) {
            int found = findLengthLine(c, "bulk", &line, &linelen);
            if (found < 0) return C_ERR;
            if (found == 0) break;
            if (line[0] != '$') {
                addReplyErrorFormat(c, "Protocol error: expected '$', got '%c'", line[0]);
                setProtocolError(c, "expected $ but got something else");
                return C_ERR;
            }
            int ok = string2ll(line + 1, linelen - 1, &ll);
            if (!ok || ll < 0 || (!(c->flags & CLIENT_FAKE) && ll > server.cfg.proto_max_bulk_len)) {
                addReplyError(c, "Protocol error: invalid bulk length");
                setProtocolError(c, "invalid bulk length");
                return C_ERR;
            } else if (ll > 16384 && !c->authenticated) {
                addReplyError(c, "Protocol error: unauthenticated bulk length");
                setProtocolError(c, "unauth bulk length");
                return C_ERR;
            }
            c->qb_pos += linelen + 2;
            c->bulklen = ll;
            /* Big arguments: make room at once so the read lands in place. */
            if (ll >= PROTO_MBULK_BIG_ARG) c->querybuf = sdsMakeRoomFor(c->querybuf, (size_t)ll + 2);
        }
        if (sdslen(c->querybuf) - c->qb_pos < (size_t)(c->bulklen + 2)) break;
        if (c->argc >= c->argv_len) {
            c->argv_len = c->argv_len ? c->argv_len * 2 : 8;
            if (c->argv_len > c->argc + c->multibulklen) c->argv_len = c->argc + (int)c->multibulklen;
            c->argv = zrealloc(c->argv, sizeof(sds) * (size_t)c->argv_len);
        }
        c->argv[c->argc++] = sdsnewlen(c->querybuf + c->qb_pos, (size_t)c->bulklen);
        c->qb_pos += (size_t)c->bulklen + 2;
        c->bulklen = -1;
        c->multibulklen--;
    }
    return c->multibulklen == 0 ? C_OK : C_ERR;
}

/* Parses and runs every complete command in the query buffer. Stops when a
 * command blocks the client, when it must close, or when input runs out.
 * Returns C_ERR if the client was freed. */
int processInputBuffer(client *c) {
    while (c->qb_pos < sdslen(c->querybuf)) {
        if (c->relay) break; /* broker forwarding: the rest is the broker's */
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP)) break;
        if (!c->reqtype) c->reqtype = c->querybuf[c->qb_pos] == '*' ? PROTO_REQ_MULTIBULK : PROTO_REQ_INLINE;
        int ok = c->reqtype == PROTO_REQ_INLINE ? processInlineBuffer(c) : processMultibulkBuffer(c);
        if (ok != C_OK) break;
        if (c->argc == 0) {
            resetClient(c);
            continue;
        }
        if (processCommand(c) == C_OK && !(c->flags & CLIENT_BLOCKED)) resetClient(c);
        if (c->flags & CLIENT_CLOSE_ASAP) break;
    }
    if (c->flags & CLIENT_PROTOCOL_ERROR) {
        /* The error reply is the last thing this client gets. */
        clientCommitReply(c, 0);
    }
    /* Drop what was parsed. */
    if (c->qb_pos) {
        sdsrange(c->querybuf, (long)c->qb_pos, -1);
        c->qb_pos = 0;
    }
    if (c->relay) brokerRelayInput(c); /* broker forwarding */
    return C_OK;
}

static void readQueryFromClient(int fd, short what, void *arg) {
    (void)fd;
    (void)what;
    readFromClient(arg);
}

/* Reads what the connection has and runs the commands it completes.
 * Returns C_ERR if the client was freed. */
static int readFromClient(client *c) {
    connection *conn = c->conn;
    if (conn->state == CONN_STATE_ACCEPTING) {
        int hs = clientTLSHandshake(c);
        if (hs == HANDSHAKE_FREED) return C_ERR;
        if (hs == HANDSHAKE_WAITING) return C_OK;
    }
    if (conn->flags & CONN_FLAG_WRITE_WANTS_READ) {
        conn->flags &= ~CONN_FLAG_WRITE_WANTS_READ;
        if (writeToClient(c) == C_ERR) return C_ERR;
    }
    size_t readlen = PROTO_IOBUF_LEN;
    /* Reading a big bulk: read just what completes it. */
    if (c->reqtype == PROTO_REQ_MULTIBULK && c->multibulklen && c->bulklen >= PROTO_MBULK_BIG_ARG) {
        ssize_t remaining = (ssize_t)(c->bulklen + 2) - (ssize_t)(sdslen(c->querybuf) - c->qb_pos);
        if (remaining > 0) readlen = (size_t)remaining;
    }
    c->querybuf = sdsMakeRoomFor(c->querybuf, readlen);
    ssize_t n = connRead(conn, c->querybuf + sdslen(c->querybuf), readlen);
    if (n == -1) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            /* A TLS read that must first write: the write event resumes it. */
            if (conn->flags & CONN_FLAG_READ_WANTS_WRITE) event_add(c->write_ev, NULL);
            return C_OK;
        }
        serverLog(LL_VERBOSE, "Reading from client: %s", connLastError(conn));
        freeClient(c);
        return C_ERR;
    } else if (n == 0) {
        serverLog(LL_VERBOSE, "Client closed connection id=%llu addr=%s", (unsigned long long)c->id, c->addr);
        freeClient(c);
        return C_ERR;
    }
    sdsIncrLen(c->querybuf, (size_t)n);
    server.stat_net_input_bytes += n;
    c->last_interaction = server.mstime_cache;
    c->read_ms = mstime();
    if (sdslen(c->querybuf) > c->querybuf_peak) c->querybuf_peak = sdslen(c->querybuf);
    if ((server.cfg.client_max_querybuf_len && sdslen(c->querybuf) > (size_t)server.cfg.client_max_querybuf_len) ||
        (!c->authenticated && sdslen(c->querybuf) > UNAUTH_QUERYBUF_LIMIT)) {
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_WARNING, "Closing client that reached max query buffer length: %s", ci);
        sdsfree(ci);
        server.stat_client_qbuf_limit_disconnections++;
        freeClientAsync(c);
        return C_OK;
    }
    /* A client that stops reading replies while we hold many of its replies
     * is not allowed to grow them without bound: output limits apply. */
    processInputBuffer(c);
    if (!(c->flags & CLIENT_CLOSE_ASAP)) clientReadPendingData(c);
    return C_OK;
}

/* ========================================================================
 * Serving while a script runs (busy scripts)
 * ===================================================================== */

/* The client whose descriptor is fd, NULL if none (it may have been freed
 * by what ran before). */
static client *clientByFd(int fd) {
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        client *c = ln->value;
        if (c->fd == fd) return c;
    }
    return NULL;
}

/* Past busy-reply-threshold, a script's hook calls this every so many
 * instructions (script_lua.c), as Redis's processEventsWhileBlocked. The
 * event loop cannot run here (the script runs inside one of its
 * callbacks, and libevent does not nest loops), so the listeners and the
 * clients are polled directly: new connections are accepted, input is
 * read and its commands run -- processCommand answers -BUSY to all but
 * the commands flagged allow-busy (SCRIPT KILL, FUNCTION KILL and STATS,
 * SHUTDOWN NOSAVE, ...) -- and what may be sent is written. The script's
 * own caller is left alone: its command is the one running. */
void processEventsWhileBlocked(client *running) {
    int nl = server.ipfd_count + server.tlsfd_count + (server.sofd != -1);
    size_t cap = (size_t)nl + listLength(server.clients);
    struct pollfd *fds = zmalloc(sizeof(*fds) * (cap ? cap : 1));
    size_t n = 0;
    for (int j = 0; j < server.ipfd_count; j++) fds[n++] = (struct pollfd){.fd = server.ipfd[j], .events = POLLIN};
    for (int j = 0; j < server.tlsfd_count; j++) fds[n++] = (struct pollfd){.fd = server.tlsfd[j], .events = POLLIN};
    if (server.sofd != -1) fds[n++] = (struct pollfd){.fd = server.sofd, .events = POLLIN};
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        client *c = ln->value;
        if (c == running || c->fd == -1 || (c->flags & CLIENT_CLOSE_ASAP)) continue;
        fds[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
    }
    /* What runs here is not part of the script's command: it replies (and
     * commits) on its own, at its own time. */
    int in_call = server.in_call, in_exec = server.in_exec;
    client *current = server.current_client;
    server.in_call = server.in_exec = 0;
    updateCachedTime();
    if (poll(fds, (nfds_t)n, 0) > 0) {
        for (size_t j = 0; j < n; j++) {
            if (!(fds[j].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            int fd = fds[j].fd;
            if (j < (size_t)server.ipfd_count) {
                acceptTcpHandler(fd, EV_READ, NULL);
            } else if (j < (size_t)(server.ipfd_count + server.tlsfd_count)) {
                acceptTLSHandler(fd, EV_READ, NULL);
            } else if (j < (size_t)nl) {
                acceptUnixHandler(fd, EV_READ, NULL);
            } else {
                client *c = clientByFd(fd);
                if (c && c != running) readFromClient(c);
            }
        }
    }
    zfree(fds);
    handleClientsWithPendingWrites();
    server.in_call = in_call;
    server.in_exec = in_exec;
    server.current_client = current;
}

/* Called after a command ran outside the normal read path (a blocked
 * command that was served or timed out): reset, and let beforeSleep resume
 * the client's pipelined input. */
void afterCommand(client *c) {
    resetClient(c);
    if (c->fd != -1 && !listSearchKey(server.unblocked_clients, c))
        listAddNodeTail(server.unblocked_clients, c);
}

/* ========================================================================
 * Client introspection: CLIENT LIST / INFO
 * ===================================================================== */

static const char *clientFlagsString(client *c, char *buf) {
    char *p = buf;
    if (c->flags & CLIENT_MONITOR) *p++ = 'O'; /* first, as in Redis */
    if (c->flags & CLIENT_PUBSUB) *p++ = 'P';
    if (c->flags & CLIENT_MULTI) *p++ = 'x';
    if (c->flags & CLIENT_BLOCKED) *p++ = 'b';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) *p++ = 'c';
    if (c->flags & CLIENT_UNIX_SOCKET) *p++ = 'U';
    if (c->flags & CLIENT_CLOSE_ASAP) *p++ = 'A';
    if (c->flags & CLIENT_NO_EVICT) *p++ = 'e';
    if (c->flags & CLIENT_DIRTY_CAS) *p++ = 'd';
    if (c->flags & CLIENT_NO_TOUCH) *p++ = 'T';
    if (p == buf) *p++ = 'N';
    *p = '\0';
    return buf;
}

sds catClientInfoString(sds s, client *c) {
    char flags[16];
    long long now = server.mstime_cache;
    const char *cmdname = c->lastcmd ? c->lastcmd->fullname : "NULL";
    size_t obl = c->reply ? c->reply->used : 0;
    int oll = 0;
    for (replyBlock *b = c->reply; b; b = b->next) oll++;
    size_t watched = c->watched_keys ? listLength(c->watched_keys) : 0;
    return sdscatprintf(
        s,
        "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%d psub=%d ssub=%d "
        "multi=%d watch=%zu qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=0 rbs=%zu rbp=%zu obl=%zu oll=%d omem=%zu "
        "tot-mem=%zu events=r%s cmd=%s user=%s redir=-1 resp=%d lib-name=%s lib-ver=%s",
        (unsigned long long)c->id, c->addr, c->laddr, c->fd, c->name ? c->name : "", (now - c->ctime) / 1000,
        (now - c->last_interaction) / 1000, clientFlagsString(c, flags), c->db ? c->db->id : 0,
        pubsubClientCount(c, 0), pubsubClientCount(c, 1), pubsubClientCount(c, 2),
        (c->flags & CLIENT_MULTI) ? c->mstate.count : -1, watched, sdslen(c->querybuf) - c->qb_pos,
        sdsavail(c->querybuf), (size_t)0, sdsalloc(c->querybuf), c->querybuf_peak, obl, oll, c->reply_bytes,
        sdsAllocSize(c->querybuf) + c->reply_bytes + sizeof(client), c->reply ? "w" : "", cmdname, aclClientUserName(c), c->resp,
        c->lib_name ? c->lib_name : "", c->lib_ver ? c->lib_ver : "");
}

sds getAllClientsInfoString(int type) {
    (void)type;
    sds s = sdsempty();
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        s = catClientInfoString(s, ln->value);
        s = sdscatlen(s, "\n", 1);
    }
    return s;
}

char *getClientPeerId(client *c) { return c->addr; }

void protectClient(client *c) { (void)c; }

/* ========================================================================
 * CLIENT
 * ===================================================================== */

static client *lookupClientByID(uint64_t id) {
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        client *c = ln->value;
        if (c->id == id) return c;
    }
    return NULL;
}

/* Names shown in CLIENT LIST must be printable without spaces. */
static int validateClientAttr(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] < '!' || s[i] > '~') return 0;
    return 1;
}

static void clientIdCommand(client *c) { addReplyLongLong(c, (long long)c->id); }

static void clientSetNameCommand(client *c) {
    sds name = c->argv[2];
    if (!validateClientAttr(name, sdslen(name))) {
        addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
        return;
    }
    sdsfree(c->name);
    c->name = sdslen(name) ? sdsdup(name) : NULL;
    addReplyOk(c);
}

static void clientGetNameCommand(client *c) {
    if (c->name) addReplyBulk(c, c->name, sdslen(c->name));
    else addReplyNull(c);
}

static void clientListCommand(client *c) {
    sds out = sdsempty();
    dict *ids = NULL;
    int want_pubsub = -1; /* TYPE: -1 any, 0 normal, 1 pubsub (pubsub.c) */
    for (int j = 2; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        if (!strcasecmp(c->argv[j], "type") && moreargs == 1) {
            const char *t = c->argv[j + 1];
            if (strcasecmp(t, "normal") && strcasecmp(t, "master") && strcasecmp(t, "replica") &&
                strcasecmp(t, "slave") && strcasecmp(t, "pubsub")) {
                addReplyErrorFormat(c, "Unknown client type '%s'", t);
                goto done;
            }
            if (strcasecmp(t, "normal") && strcasecmp(t, "pubsub")) {
                addReplyVerbatim(c, "", 0, "txt");
                goto done;
            }
            want_pubsub = !strcasecmp(t, "pubsub");
            j++;
        } else if (!strcasecmp(c->argv[j], "id") && moreargs >= 1) {
            ids = dictCreate(&sdsKeyDictType);
            for (j++; j < c->argc; j++) {
                long long id;
                if (!string2ll(c->argv[j], sdslen(c->argv[j]), &id) || id < 1) {
                    addReplyError(c, "Invalid client ID");
                    goto done;
                }
                sds key = sdsfromlonglong(id);
                if (!dictAdd(ids, key, NULL)) sdsfree(key);
            }
        } else {
            addReplyErrorSyntax(c);
            goto done;
        }
    }
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        client *cl = ln->value;
        if (want_pubsub != -1 && want_pubsub != !!(cl->flags & CLIENT_PUBSUB)) continue;
        if (ids) {
            sds key = sdsfromlonglong((long long)cl->id);
            int want = dictFind(ids, key) != NULL;
            sdsfree(key);
            if (!want) continue;
        }
        out = catClientInfoString(out, cl);
        out = sdscatlen(out, "\n", 1);
    }
    addReplyVerbatim(c, out, sdslen(out), "txt");
done:
    if (ids) dictRelease(ids);
    sdsfree(out);
}

static void clientInfoCommand(client *c) {
    sds o = catClientInfoString(sdsempty(), c);
    o = sdscatlen(o, "\n", 1);
    addReplyVerbatim(c, o, sdslen(o), "txt");
    sdsfree(o);
}

/* CLIENT KILL <ip:port> (old form) or CLIENT KILL <filter> <value> ... */
static void clientKillCommand(client *c) {
    const char *addr = NULL, *laddr = NULL, *user = NULL;
    long long id = 0, maxage = 0;
    int skipme = 1, type_normal = -1; /* 1 normal, 2 pubsub, 0 other */
    if (c->argc == 3) {
        addr = c->argv[2];
        skipme = 0;
    } else if (c->argc > 3 && (c->argc % 2) == 0) {
        for (int i = 2; i < c->argc; i += 2) {
            const char *opt = c->argv[i];
            sds val = c->argv[i + 1];
            if (!strcasecmp(opt, "id")) {
                if (!string2ll(val, sdslen(val), &id) || id <= 0) {
                    addReplyError(c, "client-id should be greater than 0");
                    return;
                }
            } else if (!strcasecmp(opt, "type")) {
                if (!strcasecmp(val, "normal")) type_normal = 1;
                else if (!strcasecmp(val, "pubsub")) type_normal = 2;
                else if (!strcasecmp(val, "master") || !strcasecmp(val, "replica") || !strcasecmp(val, "slave"))
                    type_normal = 0;
                else {
                    addReplyErrorFormat(c, "Unknown client type '%s'", val);
                    return;
                }
            } else if (!strcasecmp(opt, "addr")) {
                addr = val;
            } else if (!strcasecmp(opt, "laddr")) {
                laddr = val;
            } else if (!strcasecmp(opt, "user")) {
                if (!aclUserExists(val)) {
                    addReplyErrorFormat(c, "No such user '%s'", val);
                    return;
                }
                user = val;
            } else if (!strcasecmp(opt, "skipme")) {
                if (!strcasecmp(val, "yes")) skipme = 1;
                else if (!strcasecmp(val, "no")) skipme = 0;
                else {
                    addReplyErrorSyntax(c);
                    return;
                }
            } else if (!strcasecmp(opt, "maxage")) {
                if (!string2ll(val, sdslen(val), &maxage) || maxage < 0) {
                    addReplyErrorSyntax(c);
                    return;
                }
            } else {
                addReplyErrorSyntax(c);
                return;
            }
        }
    } else {
        addReplyErrorSyntax(c);
        return;
    }
    long long killed = 0;
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        client *cl = ln->value;
        if (addr && strcmp(cl->addr, addr)) continue;
        if (laddr && strcmp(cl->laddr, laddr)) continue;
        if (id && cl->id != (uint64_t)id) continue;
        if (user && strcmp(aclClientUserName(cl), user)) continue;
        if (type_normal == 0) continue;
        if (type_normal > 0 && (type_normal == 2) != !!(cl->flags & CLIENT_PUBSUB)) continue;
        if (maxage && (server.mstime_cache - cl->ctime) / 1000 < maxage) continue;
        if (cl == c && skipme) continue;
        if (cl == c) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else freeClientAsync(cl);
        killed++;
    }
    if (c->argc == 3) {
        if (killed == 0) addReplyError(c, "No such client");
        else addReplyOk(c);
    } else {
        addReplyLongLong(c, killed);
    }
}

static void clientSetInfoCommand(client *c) {
    sds attr = c->argv[2], val = c->argv[3];
    sds *dest;
    if (!strcasecmp(attr, "lib-name")) dest = &c->lib_name;
    else if (!strcasecmp(attr, "lib-ver")) dest = &c->lib_ver;
    else {
        addReplyErrorFormat(c, "Unrecognized option '%s'", attr);
        return;
    }
    if (!validateClientAttr(val, sdslen(val))) {
        addReplyErrorFormat(c, "%s cannot contain spaces, newlines or special characters.",
                            dest == &c->lib_name ? "lib-name" : "lib-ver");
        return;
    }
    sdsfree(*dest);
    *dest = sdslen(val) ? sdsdup(val) : NULL;
    addReplyOk(c);
}

static void clientUnblockCommand(client *c) {
    long long id;
    int use_error = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &id, NULL) != C_OK) return;
    if (c->argc == 4) {
        if (!strcasecmp(c->argv[3], "timeout")) use_error = 0;
        else if (!strcasecmp(c->argv[3], "error")) use_error = 1;
        else {
            addReplyError(c, "CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    } else if (c->argc > 4) {
        addReplyErrorSyntax(c);
        return;
    }
    client *target = id > 0 ? lookupClientByID((uint64_t)id) : NULL;
    if (!target || !(target->flags & CLIENT_BLOCKED)) {
        addReplyLongLong(c, 0);
        return;
    }
    if (use_error) unblockClientOnError(target, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    else unblockClientOnTimeout(target);
    addReplyLongLong(c, 1);
}

static void clientReplyCommand(client *c) {
    if (!strcasecmp(c->argv[2], "on")) {
        c->flags &= ~(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        addReplyOk(c);
    } else if (!strcasecmp(c->argv[2], "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (!strcasecmp(c->argv[2], "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        addReplyErrorSyntax(c);
    }
}

static void clientOnOffFlagCommand(client *c, uint64_t flag) {
    if (!strcasecmp(c->argv[2], "on")) c->flags |= flag;
    else if (!strcasecmp(c->argv[2], "off")) c->flags &= ~flag;
    else {
        addReplyErrorSyntax(c);
        return;
    }
    addReplyOk(c);
}

static void clientNoEvictCommand(client *c) { clientOnOffFlagCommand(c, CLIENT_NO_EVICT); }

/* NO-TOUCH: this client's reads leave OBJECT IDLETIME alone (db.c's
 * lookupKey), except TOUCH itself, as in Redis 7.2. */
static void clientNoTouchCommand(client *c) { clientOnOffFlagCommand(c, CLIENT_NO_TOUCH); }

static void clientHelpCommand(client *c) {
    static const char *help[] = {
        "CACHING (YES|NO)",
        "    Not supported by casq (client side caching).",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "    * MAXAGE <maxage>",
        "      Kill connections older than the specified age.",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "SETINFO <option> <value>",
        "    Set client meta attr. Options are:",
        "    * LIB-NAME: the client lib name.",
        "    * LIB-VER: the client lib version.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        "NO-TOUCH (ON|OFF)",
        "    Will not touch LRU/LFU stats when this mode is on.",
        NULL,
    };
    addReplyHelp(c, help);
}

#define CLIENT_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
#define CLIENT_CONN_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

static struct redisCommand clientSubcommands[] = {
    {"id", clientIdCommand, 2, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"setname", clientSetNameCommand, 3, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"getname", clientGetNameCommand, 2, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"list", clientListCommand, -2, CLIENT_FLAGS, 0, 0, 0, "admin slow dangerous connection", NULL},
    {"info", clientInfoCommand, 2, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"kill", clientKillCommand, -3, CLIENT_FLAGS, 0, 0, 0, "admin slow dangerous connection", NULL},
    {"setinfo", clientSetInfoCommand, 4, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"unblock", clientUnblockCommand, -3, CLIENT_FLAGS, 0, 0, 0, "admin slow dangerous connection", NULL},
    {"reply", clientReplyCommand, 3, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"no-evict", clientNoEvictCommand, 3, CLIENT_FLAGS, 0, 0, 0, "admin slow dangerous connection", NULL},
    {"no-touch", clientNoTouchCommand, 3, CLIENT_CONN_FLAGS, 0, 0, 0, "slow connection", NULL},
    {"help", clientHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow connection", NULL},
    {0},
};

struct redisCommand clientCommandTable[] = {
    {"client", NULL, -2, 0, 0, 0, 0, "slow", clientSubcommands},
    {0},
};

/* ========================================================================
 * Commit timeouts (used by commit.c; added with the persistence module)
 * ===================================================================== */

/* Like failHeldReplies(), but only for the replies waiting on changes up to
 * max_seq: the commit module calls it once those changes have waited longer
 * than commit-timeout, while replies waiting on later changes keep waiting.
 * Returns how many replies became `err` (a full "-ERR ...\r\n" line). */
long long failHeldRepliesUpTo(uint64_t max_seq, const char *err) {
    size_t errlen = strlen(err);
    long long total = 0;
    listNode *ln = listFirst(server.clients_waiting_commit), *next;
    for (; ln; ln = next) {
        next = ln->next;
        client *c = ln->value;
        /* Skip what is sendable (and a partly written head block). */
        replyBlock **pp = &c->reply, *prev = NULL;
        while (*pp && ((*pp)->need_seq <= server.durable_seq || (*pp == c->reply && c->sentlen))) {
            prev = *pp;
            pp = &(*pp)->next;
        }
        /* The run of blocks that waited too long. Blocks after one that
         * needs more than max_seq stay: replies keep their order. */
        int n = 0;
        while (*pp && (*pp)->need_seq <= max_seq) {
            replyBlock *b = *pp;
            *pp = b->next;
            n += b->nreplies;
            c->reply_bytes -= b->used;
            zfree(b);
        }
        replyBlock *rest = *pp;
        if (n) {
            replyBlock *eb = newReplyBlock(errlen * (size_t)n);
            for (int i = 0; i < n; i++) {
                memcpy(eb->buf + eb->used, err, errlen);
                eb->used += errlen;
            }
            eb->nreplies = n;
            eb->need_seq = 0;
            eb->next = rest;
            *pp = eb;
            c->reply_bytes += eb->used;
            total += n;
            server.stat_total_error_replies += n;
            prev = eb;
        }
        if (!rest) c->reply_tail = prev;
        if (!c->reply_tail || c->reply_tail->need_seq <= server.durable_seq) {
            listDelNode(server.clients_waiting_commit, ln);
            c->held_node = NULL;
        }
        if (c->reply && c->reply->need_seq <= server.durable_seq) clientMarkPendingWrite(c);
    }
    return total;
}
