/* broker.c -- forwarding to the broker, and taking over from it
 * (design.md §5).
 *
 * Any number of casq nodes may share one state document; its broker record
 * names the one that executes commands and commits (commit.c). Every other
 * node is a follower, and this module makes a follower useful:
 *
 * Forwarding (relay mode)
 *   A follower answers a few connection-level commands itself (see
 *   isLocalCommand: PING, ECHO, HELLO, AUTH, ACL, CLIENT, INFO, CONFIG, COMMAND,
 *   SELECT, TIME, QUIT, RESET, SHUTDOWN), so an operator can still inspect
 *   and manage it. The first other command on a connection switches the
 *   connection to relay mode for good:
 *
 *     client ──bytes──> follower ──bytes──> broker      (a plain TCP
 *     client <─bytes─── follower <─bytes─── broker       connection each)
 *
 *   The follower opens a connection to the broker's address (a bufferevent
 *   on the server's loop), replays the state of the connection that the
 *   broker must know (AUTH when requirepass is set, HELLO 3, SELECT,
 *   CLIENT SETNAME / SETINFO, CLIENT REPLY OFF|SKIP), swallows the replies
 *   to that, then sends the command (re-encoded from its arguments) and
 *   from then on every byte the client sends, and queues every byte the
 *   broker sends into the client's reply FIFO. So the client gets exactly
 *   the broker's replies, byte for byte, for every command, including
 *   MULTI/EXEC, WATCH, blocking reads and pipelines; and the replies this
 *   node gave before the switch are written first (same FIFO).
 *   The command is sent only once the handshake succeeded: if the broker
 *   cannot be reached, or refuses the handshake, the command was not
 *   executed anywhere, and the client gets a -TRYAGAIN error that says so.
 *   A connection that is in MULTI or WATCHes keys here (it started while
 *   this node was the broker) cannot be moved: it gets an error and is
 *   closed. Once relaying, the end of either side ends the other. Each
 *   direction holds at most RELAY_BUFFER_MAX bytes before the side that
 *   is ahead stops being read, so a client that does not read (or a slow
 *   broker) costs bounded memory.
 *
 * Checking the broker and taking over
 *   A follower asks the broker `INFO broker` every broker-timeout/4 (at
 *   least 100 ms apart) over a hiredis connection (broker_link.c). When no
 *   answer has come for broker-timeout, the broker is considered dead: the
 *   relayed connections to it are closed (their clients reconnect), new
 *   ones are refused with -TRYAGAIN, and this node takes over
 *   (commitTakeOver: reload; if the record still names that broker at that
 *   epoch, commit a record naming this node, epoch+1). CAS settles races
 *   between followers and with a broker that was only slow: the loser
 *   reloads and follows the winner. The answers also tell when the broker
 *   is not the broker any more (deposed, or a new process on its address):
 *   then this node reloads the document to learn the new one. A node that
 *   starts following another broker closes the relays to the old one. A
 *   broker that steps down (commit.c: CAS conflict) unblocks its clients
 *   blocked in XREAD/XREADGROUP with -UNBLOCKED, as Redis does when a
 *   master becomes a replica.
 *
 * The broker's hot path is untouched: brokerMustForward() is one call that
 * looks at the role, and the check timer does nothing on a broker. */
#include "broker.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "broker_link.h"
#include "commit.h"

#define BROKER_CHECK_MIN_MS 100        /* checks are at least this far apart */
#define BROKER_TICK_MAX_MS 250         /* the check timer's longest period, so
                                        * CONFIG SET broker-timeout and the
                                        * silence limit act promptly */
#define BROKER_UNREACHABLE_CACHE_MS 100 /* a failed connect answers for this long */
#define BROKER_RESOLVE_RETRY_MS 1000   /* a failed address lookup, this long */
#define RELAY_BUFFER_MAX (4 * 1024 * 1024) /* bytes queued one way before that
                                            * side stops being read */

/* ========================================================================
 * Types
 * ===================================================================== */

typedef enum relayState {
    RELAY_CONNECTING = 0, /* TCP connect in progress */
    RELAY_HANDSHAKE,      /* replaying the connection state, swallowing replies */
    RELAY_OPEN,           /* bytes flow both ways */
    RELAY_LINGER,         /* the client left; sending what it had sent */
} relayState;

/* One relayed client connection. */
typedef struct brokerRelay {
    client *c;               /* the client; NULL once it left (RELAY_LINGER) */
    struct bufferevent *bev; /* the connection to the broker */
    relayState state;        /* see relayState */
    sds target;              /* the broker address it was opened to */
    sds first;               /* the command that switched the connection,
                              * sent after the handshake; NULL once sent */
    int handshake_left;      /* handshake replies still to swallow */
    sds handshake_in;        /* broker bytes received while swallowing */
    struct event *timer;     /* connect/handshake deadline, linger deadline */
    listNode *node;          /* in bs.relays */
    int client_paused;       /* the broker is behind: client not read */
    int broker_paused;       /* the client is behind: broker not read */
} brokerRelay;

/* Where the broker is, resolved once per address. */
typedef struct brokerTarget {
    sds address;                 /* as in the broker record */
    int ok;                      /* resolved */
    sds err;                     /* why not, when !ok */
    struct sockaddr_storage sa;  /* the address to connect to */
    socklen_t salen;             /* its length */
    char host[108];              /* numeric host (or socket path), for hiredis */
    int port;                    /* port (0 for a socket path) */
    long long resolved_ms;       /* when: a failed lookup is retried after
                                  * BROKER_RESOLVE_RETRY_MS */
} brokerTarget;

typedef struct brokerState {
    struct event *check_ev;    /* the periodic check */
    brokerLink *link;          /* health-check connection (hiredis) */
    commitRole last_role;      /* role at the previous check */
    /* --- the broker this node follows --- */
    sds followed_id;           /* its id, NULL when not following */
    sds followed_address;      /* its address */
    uint64_t followed_epoch;   /* its epoch */
    long long last_contact_ms; /* its last answer (or when following began) */
    long long check_sent_ms;   /* when the check in flight was sent */
    int dead;                  /* silent for broker-timeout: relays refused */
    brokerTarget target;       /* its resolved address */
    long long unreachable_until_ms; /* connects fail fast until then ... */
    sds unreachable_err;            /* ... with this reason */
    /* --- take-over --- */
    int takeover_active;       /* commitTakeOver started, outcome pending */
    uint64_t takeover_epoch;   /* the epoch it wants to replace */
    /* --- relays --- */
    list *relays;              /* brokerRelay*, including lingering ones */
    /* --- statistics (INFO) --- */
    long long relays_total;    /* connections switched to relay mode */
    long long relay_errors;    /* switches refused or failed */
    long long relays_closed;   /* relays closed because the broker died or changed */
    long long checks;          /* checks sent */
    long long check_failures;  /* checks without an answer */
    long long takeover_attempts; /* take-overs started */
    long long takeovers;       /* take-overs won */
    long long bytes_to_broker; /* relayed client bytes */
    long long bytes_from_broker; /* relayed broker bytes */
} brokerState;

static brokerState bs;

static void relayFailed(brokerRelay *r, const char *why);
static void syncFollowed(void);

/* ========================================================================
 * Which commands a follower answers itself
 * ===================================================================== */

/* Connection state and introspection: what the follower itself is asked
 * about, or what it replays to the broker at the switch. Nothing here
 * reads or writes the keyspace. */
static int isLocalCommand(const char *name) {
    static const char *local[] = {"ping",    "echo", "hello", "auth",  "client",   "info",   "config",
                                  "command", "time", "quit",  "reset", "shutdown", "select", "acl", NULL};
    for (int i = 0; local[i]; i++)
        if (!strcasecmp(name, local[i])) return 1;
    return 0;
}

int brokerMustForward(client *c) {
    if (commitGetRole() != COMMIT_ROLE_FOLLOWER) return 0;
    /* A client that has not passed this node's requirepass is answered
     * here (-NOAUTH), never relayed: the broker must not be the first to
     * judge a connection this node accepted. */
    if (!c->authenticated) return 0;
    if (isLocalCommand(c->argv[0])) return 0;
    /* An ACL user's first command is checked here too (the broker checks
     * it again, and everything after it): one this node refuses is
     * answered here with -NOPERM, not relayed. */
    if (c->user) {
        struct redisCommand *cmd = lookupCommand(c->argv, c->argc);
        if (cmd) {
            int errpos;
            c->cmd = cmd;
            int denied = aclCheckCommandPerm(c, &errpos) != ACL_OK;
            c->cmd = NULL;
            if (denied) return 0;
        }
    }
    return 1;
}

/* ========================================================================
 * The broker's address
 * ===================================================================== */

/* Resolves bs.target for `address` ("host:port", "[v6]:port" or a socket
 * path), once per address: a host name costs one blocking lookup when the
 * broker changes, not one per connection. */
static int resolveTarget(const char *address) {
    brokerTarget *t = &bs.target;
    long long now = mstime();
    if (t->address && !strcmp(t->address, address) && (t->ok || now - t->resolved_ms < BROKER_RESOLVE_RETRY_MS))
        return t->ok;
    sdsfree(t->address);
    sdsfree(t->err);
    memset(t, 0, sizeof(*t));
    t->address = sdsnew(address);
    t->resolved_ms = now;
    if (address[0] == '/') {
        struct sockaddr_un *sun = (struct sockaddr_un *)&t->sa;
        if (strlen(address) >= sizeof(sun->sun_path)) {
            t->err = sdsnew("socket path too long");
            return 0;
        }
        sun->sun_family = AF_UNIX;
        strcpy(sun->sun_path, address);
        t->salen = sizeof(*sun);
        snprintf(t->host, sizeof(t->host), "%s", address);
        return t->ok = 1;
    }
    const char *colon = strrchr(address, ':');
    long long port = 0;
    if (!colon || !string2ll(colon + 1, strlen(colon + 1), &port) || port < 1 || port > 65535) {
        t->err = sdsnew("not a host:port address");
        return 0;
    }
    sds host = sdsnewlen(address, (size_t)(colon - address));
    if (sdslen(host) >= 2 && host[0] == '[' && host[sdslen(host) - 1] == ']') {
        sdsrange(host, 1, -2);
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    char portstr[8];
    snprintf(portstr, sizeof(portstr), "%d", (int)port);
    int rv = getaddrinfo(host, portstr, &hints, &res);
    if (rv != 0 || !res) {
        t->err = sdscatprintf(sdsempty(), "cannot resolve %s: %s", host, gai_strerror(rv));
        sdsfree(host);
        if (res) freeaddrinfo(res);
        return 0;
    }
    memcpy(&t->sa, res->ai_addr, res->ai_addrlen);
    t->salen = res->ai_addrlen;
    t->port = (int)port;
    if (res->ai_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, t->host, sizeof(t->host));
    else inet_ntop(AF_INET6, &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr, t->host, sizeof(t->host));
    freeaddrinfo(res);
    sdsfree(host);
    return t->ok = 1;
}

/* ========================================================================
 * Relays
 * ===================================================================== */

static void addTimerMs(struct event *ev, long long ms) {
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000)};
    evtimer_add(ev, &tv);
}

static sds catCommand(sds s, int argc, const char **argv, const size_t *lens) {
    s = sdscatprintf(s, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) {
        s = sdscatprintf(s, "$%zu\r\n", lens[i]);
        s = sdscatlen(s, argv[i], lens[i]);
        s = sdscatlen(s, "\r\n", 2);
    }
    return s;
}

static sds catCommandStr(sds s, int argc, ...) {
    const char *argv[8];
    size_t lens[8];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc && i < 8; i++) {
        argv[i] = va_arg(ap, const char *);
        lens[i] = strlen(argv[i]);
    }
    va_end(ap);
    return catCommand(s, argc, argv, lens);
}

/* Length of the one complete RESP2/RESP3 reply at p, 0 if more bytes are
 * needed, -1 if it is not RESP. */
static long respReplyLength(const char *p, size_t len, int depth) {
    if (len == 0) return 0;
    if (depth > 64) return -1;
    const char *cr = memchr(p, '\r', len);
    if (!cr || (size_t)(cr - p) + 1 >= len) return 0;
    size_t line = (size_t)(cr - p) + 2; /* type byte ... CRLF */
    long long n = 0;
    switch (p[0]) {
    case '+': case '-': case ':': case '_': case '#': case ',': case '(':
        return (long)line;
    case '$': case '=': case '!':
        if (!string2ll(p + 1, (size_t)(cr - p) - 1, &n)) return -1;
        if (n < 0) return (long)line;
        if (len < line + (size_t)n + 2) return 0;
        return (long)(line + (size_t)n + 2);
    case '*': case '~': case '>': case '%': case '|': {
        if (!string2ll(p + 1, (size_t)(cr - p) - 1, &n)) return -1;
        if (n < 0) return (long)line;
        if (p[0] == '%' || p[0] == '|') n *= 2;
        size_t off = line;
        for (long long i = 0; i < n; i++) {
            long l = respReplyLength(p + off, len - off, depth + 1);
            if (l <= 0) return l;
            off += (size_t)l;
        }
        if (p[0] == '|') { /* an attribute precedes the reply it annotates */
            long l = respReplyLength(p + off, len - off, depth + 1);
            if (l <= 0) return l;
            off += (size_t)l;
        }
        return (long)off;
    }
    default:
        return -1;
    }
}

static sds relayErrorIntro(sds s) {
    const char *id, *addr;
    uint64_t epoch;
    commitGetBroker(&id, &addr, &epoch);
    return sdscatprintf(s, "-TRYAGAIN this casq node is not the broker and could not forward the command: the "
                           "state document names broker %s at %s (epoch %llu)",
                        id ? id : "?", addr && addr[0] ? addr : "?", (unsigned long long)epoch);
}

/* The command was not executed anywhere: the client is told so and the
 * connection stays local (its next command tries again). */
static void replyNotForwarded(client *c, const char *why) {
    sds err = relayErrorIntro(sdsempty());
    err = sdscatprintf(err, ": %s; the command was not executed", why);
    addReplyError(c, err);
    clientCommitReply(c, 0);
    sdsfree(err);
    bs.relay_errors++;
}

static void relayFree(brokerRelay *r) {
    if (r->c && r->client_paused) clientResumeReading(r->c); /* reads resume locally */
    if (r->bev) bufferevent_free(r->bev);
    if (r->timer) event_free(r->timer);
    if (r->node) listDelNode(bs.relays, r->node);
    if (r->c) r->c->relay = NULL;
    sdsfree(r->target);
    sdsfree(r->first);
    sdsfree(r->handshake_in);
    zfree(r);
}

/* Everything the client sent after the command that switched it. */
static void relayFlushClientInput(brokerRelay *r) {
    client *c = r->c;
    if (!c || r->state != RELAY_OPEN) return;
    size_t len = sdslen(c->querybuf) - c->qb_pos;
    if (len) {
        bufferevent_write(r->bev, c->querybuf + c->qb_pos, len);
        bs.bytes_to_broker += (long long)len;
    }
    sdsclear(c->querybuf);
    c->qb_pos = 0;
    /* A client that sends faster than the broker takes: stop reading it
     * until half of the backlog is gone (relayBrokerWritable). */
    if (!r->client_paused && evbuffer_get_length(bufferevent_get_output(r->bev)) > RELAY_BUFFER_MAX) {
        event_del(c->read_ev);
        r->client_paused = 1;
    }
}

static void relayBrokerWritable(struct bufferevent *bev, void *arg) {
    (void)bev;
    brokerRelay *r = arg;
    if (!r->client_paused || !r->c) return;
    r->client_paused = 0;
    clientResumeReading(r->c);
}

/* The handshake is done: the command, then everything else. */
static void relayOpen(brokerRelay *r) {
    r->state = RELAY_OPEN;
    evtimer_del(r->timer);
    if (r->first) {
        bufferevent_write(r->bev, r->first, sdslen(r->first));
        bs.bytes_to_broker += (long long)sdslen(r->first);
        sdsfree(r->first);
        r->first = NULL;
    }
    /* The broker applies CLIENT REPLY now. */
    if (r->c) r->c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT);
    relayFlushClientInput(r);
}

static void relayDeliver(brokerRelay *r, const char *p, size_t len) {
    if (!len || !r->c) return;
    bs.bytes_from_broker += (long long)len;
    clientRelayReply(r->c, p, len);
}

static void relayReadCallback(struct bufferevent *bev, void *arg) {
    brokerRelay *r = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    if (!r->c) {
        evbuffer_drain(in, evbuffer_get_length(in));
        return;
    }
    if (r->state == RELAY_HANDSHAKE) {
        size_t n = evbuffer_get_length(in);
        size_t old = sdslen(r->handshake_in);
        r->handshake_in = sdsMakeRoomFor(r->handshake_in, n);
        evbuffer_remove(in, r->handshake_in + old, n);
        sdsIncrLen(r->handshake_in, n);
        size_t off = 0;
        while (r->handshake_left > 0) {
            long l = respReplyLength(r->handshake_in + off, sdslen(r->handshake_in) - off, 0);
            if (l == 0) break;
            if (l < 0) {
                relayFailed(r, "the broker's handshake replies are not RESP");
                return;
            }
            if (r->handshake_in[off] == '-') {
                sds why = sdsnew("the broker refused the connection's state (");
                why = sdscatlen(why, r->handshake_in + off + 1, (size_t)l - 3);
                why = sdscat(why, ")");
                relayFailed(r, why);
                sdsfree(why);
                return;
            }
            off += (size_t)l;
            r->handshake_left--;
        }
        sdsrange(r->handshake_in, (long)off, -1);
        if (r->handshake_left > 0) return;
        sds rest = r->handshake_in;
        r->handshake_in = sdsempty();
        relayOpen(r);
        relayDeliver(r, rest, sdslen(rest));
        sdsfree(rest);
        return;
    }
    /* RELAY_OPEN: straight through, in the order it came -- unless the
     * client does not read what it was sent: then the broker's bytes wait
     * in the socket until it does (brokerRelayClientDrained). */
    struct evbuffer_iovec v[8];
    while (evbuffer_get_length(in)) {
        if (r->c->reply_bytes > RELAY_BUFFER_MAX) {
            bufferevent_disable(bev, EV_READ);
            r->broker_paused = 1;
            return;
        }
        int n = evbuffer_peek(in, -1, NULL, v, 8);
        if (n > 8) n = 8;
        size_t taken = 0;
        for (int i = 0; i < n; i++) {
            relayDeliver(r, v[i].iov_base, v[i].iov_len);
            taken += v[i].iov_len;
        }
        evbuffer_drain(in, taken);
    }
}

/* The broker end closed or failed after the handshake: the client's
 * connection ends too, once it has what the broker sent. */
static void relayBrokerGone(brokerRelay *r) {
    client *c = r->c;
    relayFree(r);
    if (!c) return;
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    if (!c->reply) freeClientAsync(c);
}

static void relayEventCallback(struct bufferevent *bev, short what, void *arg) {
    brokerRelay *r = arg;
    if (what & BEV_EVENT_CONNECTED) {
        int fd = (int)bufferevent_getfd(bev), yes = 1;
        if (r->target[0] != '/') setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
        if (r->handshake_left > 0) r->state = RELAY_HANDSHAKE;
        else relayOpen(r);
        return;
    }
    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))) return;
    if (r->state == RELAY_CONNECTING) {
        int e = EVUTIL_SOCKET_ERROR();
        sds why = sdscatprintf(sdsempty(), "cannot connect: %s", e ? strerror(e) : "connection failed");
        sdsfree(bs.unreachable_err);
        bs.unreachable_err = sdsdup(why);
        bs.unreachable_until_ms = mstime() + BROKER_UNREACHABLE_CACHE_MS;
        relayFailed(r, why);
        sdsfree(why);
        return;
    }
    if (r->state == RELAY_HANDSHAKE) {
        relayFailed(r, "the broker closed the connection");
        return;
    }
    relayBrokerGone(r);
}

/* Connect or handshake failed: the command was never sent. With the
 * connection state replayed in part, the client cannot go on here either
 * way -- unless nothing was replayed yet: then it simply stays local. */
static void relayFailed(brokerRelay *r, const char *why) {
    client *c = r->c;
    int replayed = r->state == RELAY_HANDSHAKE;
    relayFree(r);
    if (!c) return;
    replyNotForwarded(c, why);
    if (replayed) {
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        return;
    }
    /* Resume its pipelined input locally (beforeSleep). */
    afterCommand(c);
}

static void relayTimerFired(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    brokerRelay *r = arg;
    if (r->state == RELAY_LINGER) {
        relayFree(r);
        return;
    }
    sds why = sdscatprintf(sdsempty(), "no answer within broker-timeout (%lld ms)", server.cfg.broker_timeout_ms);
    relayFailed(r, why);
    sdsfree(why);
}

/* Lingering: the client's last bytes reached the broker. */
static void relayLingerWritten(struct bufferevent *bev, void *arg) {
    (void)bev;
    relayFree(arg);
}

static void relayLingerEvent(struct bufferevent *bev, short what, void *arg) {
    (void)bev;
    (void)what;
    relayFree(arg);
}

/* The connection state the broker must know, as commands; returns how
 * many replies they produce. */
static int buildHandshake(client *c, sds *hs) {
    int n = 0;
    if (c->user && c->auth_pass) {
        /* An ACL user (acl.c): the broker checks that user's rules. */
        const char *name = aclClientUserName(c);
        const char *argv[3] = {"AUTH", name, c->auth_pass};
        size_t lens[3] = {4, strlen(name), sdslen(c->auth_pass)};
        *hs = catCommand(*hs, 3, argv, lens);
        n++;
    } else if (server.cfg.requirepass && c->authenticated) {
        *hs = catCommandStr(*hs, 2, "AUTH", server.cfg.requirepass);
        n++;
    }
    if (c->resp == 3) {
        *hs = catCommandStr(*hs, 2, "HELLO", "3");
        n++;
    }
    if (c->db && c->db->id != 0) {
        char id[LONG_STR_SIZE];
        ll2string(id, sizeof(id), c->db->id);
        *hs = catCommandStr(*hs, 2, "SELECT", id);
        n++;
    }
    if (c->name) {
        *hs = catCommandStr(*hs, 3, "CLIENT", "SETNAME", c->name);
        n++;
    }
    if (c->lib_name) {
        *hs = catCommandStr(*hs, 4, "CLIENT", "SETINFO", "LIB-NAME", c->lib_name);
        n++;
    }
    if (c->lib_ver) {
        *hs = catCommandStr(*hs, 4, "CLIENT", "SETINFO", "LIB-VER", c->lib_ver);
        n++;
    }
    /* No reply to this one, and it silences only what follows. */
    if (c->flags & CLIENT_REPLY_OFF) *hs = catCommandStr(*hs, 3, "CLIENT", "REPLY", "OFF");
    return n;
}

int brokerForwardClient(client *c) {
    if ((c->flags & CLIENT_MULTI) || listLength(c->watched_keys)) {
        /* Begun while this node was the broker: a transaction or its
         * WATCHes cannot be moved to another node. */
        sds err = relayErrorIntro(sdsempty());
        err = sdscat(err, ": this connection's transaction (MULTI/WATCH) began on this node and cannot be moved; "
                          "the connection is closed, reconnect and start again");
        addReplyError(c, err);
        sdsfree(err);
        if (c->flags & CLIENT_MULTI) discardTransaction(c);
        unwatchAllKeys(c);
        clientCommitReply(c, 0);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        bs.relay_errors++;
        return C_OK;
    }
    syncFollowed();
    const char *id, *addr;
    uint64_t epoch;
    commitGetBroker(&id, &addr, &epoch);
    if (!addr || !addr[0]) {
        replyNotForwarded(c, "the broker record has no address");
        return C_OK;
    }
    if (!strcmp(addr, commitNodeAddress())) {
        /* Never to itself. A record naming this node's id makes it the
         * broker or, until it can read the document, loading (commit.c):
         * this one names another process at this address -- one that ran
         * here before, or a node announcing the same address. Nobody
         * answers for it, so followerCheck takes over after
         * broker-timeout. */
        sds why = sdscatprintf(sdsempty(), "that is this node's own address, but the record is another "
                                           "process's (one that served here before, or a node announcing this "
                                           "address); this node takes over if it stays so for broker-timeout "
                                           "(%lld ms)",
                               server.cfg.broker_timeout_ms);
        replyNotForwarded(c, why);
        sdsfree(why);
        return C_OK;
    }
    if (bs.dead) {
        sds why = sdscatprintf(sdsempty(), "it has not answered for %lld ms (broker-timeout %lld ms); a node is "
                                           "taking over",
                               mstime() - bs.last_contact_ms, server.cfg.broker_timeout_ms);
        replyNotForwarded(c, why);
        sdsfree(why);
        return C_OK;
    }
    if (!resolveTarget(addr)) {
        replyNotForwarded(c, bs.target.err);
        return C_OK;
    }
    if (mstime() < bs.unreachable_until_ms && bs.unreachable_err) {
        replyNotForwarded(c, bs.unreachable_err);
        return C_OK;
    }

    brokerRelay *r = zcalloc(sizeof(*r));
    r->c = c;
    r->target = sdsnew(addr);
    r->handshake_in = sdsempty();
    r->bev = bufferevent_socket_new(server.el, -1, BEV_OPT_CLOSE_ON_FREE);
    r->timer = evtimer_new(server.el, relayTimerFired, r);
    if (!r->bev || !r->timer) {
        relayFree(r);
        replyNotForwarded(c, "out of resources");
        return C_OK;
    }
    bufferevent_setcb(r->bev, relayReadCallback, relayBrokerWritable, relayEventCallback, r);
    bufferevent_setwatermark(r->bev, EV_WRITE, RELAY_BUFFER_MAX / 2, 0);
    bufferevent_enable(r->bev, EV_READ | EV_WRITE);

    sds hs = sdsempty();
    r->handshake_left = buildHandshake(c, &hs);
    /* The switching command; CLIENT REPLY SKIP (pending here) applies to it. */
    r->first = sdsempty();
    if (c->flags & CLIENT_REPLY_SKIP) r->first = catCommandStr(r->first, 3, "CLIENT", "REPLY", "SKIP");
    size_t *lens = zmalloc(sizeof(size_t) * (size_t)c->argc);
    for (int i = 0; i < c->argc; i++) lens[i] = sdslen(c->argv[i]);
    r->first = catCommand(r->first, c->argc, (const char **)c->argv, lens);
    zfree(lens);
    /* Written before the connection is up: libevent sends it once it is
     * (and never, if it fails). Without a handshake the command may go
     * right away; with one, it waits for the handshake's replies. */
    if (r->handshake_left > 0) bufferevent_write(r->bev, hs, sdslen(hs));
    else {
        if (sdslen(hs)) bufferevent_write(r->bev, hs, sdslen(hs));
        bufferevent_write(r->bev, r->first, sdslen(r->first));
        bs.bytes_to_broker += (long long)sdslen(r->first);
        sdsfree(r->first);
        r->first = NULL;
    }
    sdsfree(hs);
    if (bufferevent_socket_connect(r->bev, (struct sockaddr *)&bs.target.sa, (int)bs.target.salen) != 0) {
        int e = EVUTIL_SOCKET_ERROR();
        sds why = sdscatprintf(sdsempty(), "cannot connect: %s", e ? strerror(e) : "failed");
        relayFree(r);
        replyNotForwarded(c, why);
        sdsfree(why);
        return C_OK;
    }
    r->state = RELAY_CONNECTING;
    addTimerMs(r->timer, server.cfg.broker_timeout_ms);
    r->node = listAddNodeTail(bs.relays, r);
    c->relay = r;
    bs.relays_total++;
    return C_OK;
}

void brokerRelayInput(client *c) {
    brokerRelay *r = c->relay;
    if (r && r->state == RELAY_OPEN) relayFlushClientInput(r);
}

void brokerRelayClientDrained(client *c) {
    brokerRelay *r = c->relay;
    if (!r || !r->broker_paused || c->reply_bytes > RELAY_BUFFER_MAX / 2) return;
    r->broker_paused = 0;
    bufferevent_enable(r->bev, EV_READ);
    /* What is already buffered raises no new read event. */
    if (evbuffer_get_length(bufferevent_get_input(r->bev))) relayReadCallback(r->bev, r);
}

void brokerRelayFree(client *c) {
    brokerRelay *r = c->relay;
    if (!r) return;
    c->relay = NULL;
    r->c = NULL;
    /* What the client sent before leaving still goes to the broker (a
     * pipeline that ends with QUIT, a fire-and-forget XADD). */
    if (r->state == RELAY_OPEN && evbuffer_get_length(bufferevent_get_output(r->bev)) > 0 && bs.relays) {
        r->state = RELAY_LINGER;
        bufferevent_disable(r->bev, EV_READ);
        bufferevent_setcb(r->bev, NULL, relayLingerWritten, relayLingerEvent, r);
        bufferevent_setwatermark(r->bev, EV_WRITE, 0, 0); /* called once all is sent */
        addTimerMs(r->timer, server.cfg.broker_timeout_ms);
        return;
    }
    relayFree(r);
}

/* Closes the relays that do not go to `keep` (NULL: all of them): their
 * broker is dead or not the broker any more. */
static void closeRelays(const char *keep) {
    listNode *ln = listFirst(bs.relays), *next;
    long long n = 0;
    for (; ln; ln = next) {
        next = ln->next;
        brokerRelay *r = ln->value;
        if (keep && !strcmp(r->target, keep)) continue;
        if (r->c) n++;
        if (r->state == RELAY_CONNECTING || r->state == RELAY_HANDSHAKE) {
            /* Nothing was executed yet: say so. */
            relayFailed(r, "the broker changed while connecting");
            continue;
        }
        relayBrokerGone(r);
    }
    bs.relays_closed += n;
    if (n) serverLog(LL_NOTICE, "Broker: closed %lld relayed client connections to the previous broker", n);
}

/* ========================================================================
 * Checking the broker, taking over
 * ===================================================================== */

static sds infoField(const char *text, size_t len, const char *field) {
    size_t flen = strlen(field);
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if ((size_t)(eol - p) > flen && !memcmp(p, field, flen) && p[flen] == ':') {
            const char *v = p + flen + 1, *ve = eol;
            if (ve > v && ve[-1] == '\r') ve--;
            return sdsnewlen(v, (size_t)(ve - v));
        }
        p = eol + 1;
    }
    return NULL;
}

static void checkAnswered(void *priv, int ok, const char *text, size_t len, const char *err) {
    (void)priv;
    if (!ok) {
        bs.check_failures++;
        serverLog(LL_VERBOSE, "Broker check: no answer from %s (%s)", bs.followed_address ? bs.followed_address : "?",
                  err ? err : "?");
        return;
    }
    bs.last_contact_ms = mstime();
    if (bs.dead) {
        bs.dead = 0;
        serverLog(LL_NOTICE, "Broker: %s at %s answers again", bs.followed_id ? bs.followed_id : "?",
                  bs.followed_address ? bs.followed_address : "?");
    }
    /* Is it still the broker this node follows? If it says otherwise (it
     * was deposed, or another process serves that address), the document
     * has news: read it. */
    sds role = infoField(text, len, "broker_role");
    sds node = infoField(text, len, "node_id");
    sds epoch = infoField(text, len, "broker_epoch");
    unsigned long long e = 0;
    int stale = 0;
    if (role && !strcmp(role, "follower")) stale = 1;
    if (node && bs.followed_id && strcmp(node, bs.followed_id)) stale = 1;
    if (epoch && string2ull(epoch, sdslen(epoch), &e) && e > bs.followed_epoch) stale = 1;
    if (stale) commitFollowerReload();
    sdsfree(role);
    sdsfree(node);
    sdsfree(epoch);
}

/* This node now follows `id` at `addr`: give it a full broker-timeout, and
 * drop what went to the previous one. */
static void startFollowing(const char *id, const char *addr, uint64_t epoch) {
    int changed = !bs.followed_id || !id || strcmp(bs.followed_id, id) != 0;
    int moved = !bs.followed_address || !addr || strcmp(bs.followed_address, addr) != 0;
    /* From one broker to another (commit.c logs the step-down case and
     * the lost take-over reloads loudly). */
    if (changed && bs.followed_id && !bs.takeover_active)
        serverLog(LL_NOTICE, "Broker: the state document names a new broker: %s at %s (epoch %llu); forwarding there",
                  id ? id : "?", addr && addr[0] ? addr : "?", (unsigned long long)epoch);
    sdsfree(bs.followed_id);
    sdsfree(bs.followed_address);
    bs.followed_id = id ? sdsnew(id) : NULL;
    bs.followed_address = sdsnew(addr ? addr : "");
    bs.followed_epoch = epoch;
    if (!changed && !moved) return; /* same broker, new epoch: nothing to redo */
    bs.last_contact_ms = mstime();
    bs.check_sent_ms = 0; /* check it at once */
    bs.dead = 0;
    bs.unreachable_until_ms = 0;
    brokerLinkDrop(bs.link);
    closeRelays(addr);
}

/* Follows what the document says now (it may have changed since the last
 * check: a reload happens whenever the store answers). */
static void syncFollowed(void) {
    const char *id, *addr;
    uint64_t epoch;
    commitGetBroker(&id, &addr, &epoch);
    if (!bs.followed_id || !id || strcmp(bs.followed_id, id) || bs.followed_epoch != epoch ||
        strcmp(bs.followed_address, addr ? addr : ""))
        startFollowing(id, addr, epoch);
}

static void tryTakeOver(long long silent_ms) {
    if (!bs.dead) {
        bs.dead = 1;
        serverLog(LL_WARNING,
                  "Broker: %s at %s has not answered for %lld ms (broker-timeout %lld ms); taking over",
                  bs.followed_id ? bs.followed_id : "?", bs.followed_address ? bs.followed_address : "?", silent_ms,
                  server.cfg.broker_timeout_ms);
        brokerLinkDrop(bs.link);
        closeRelays(NULL);
    }
    if (bs.takeover_active) return;
    if (commitTakeOver(bs.followed_id, bs.followed_epoch) != C_OK) return; /* busy: next check */
    bs.takeover_active = 1;
    bs.takeover_epoch = bs.followed_epoch;
    bs.takeover_attempts++;
}

static long long checkIntervalMs(void);

static void followerCheck(void) {
    long long now = mstime();
    if (brokerLinkBusy(bs.link) && now - bs.check_sent_ms > server.cfg.broker_timeout_ms) {
        /* A check that never returns (a stopped process): start again. */
        brokerLinkDrop(bs.link);
    }
    long long silent = now - bs.last_contact_ms;
    if (silent >= server.cfg.broker_timeout_ms) tryTakeOver(silent);
    /* Checks go on meanwhile: if the take-over cannot happen (the store
     * fails too) and the broker answers again, it is the broker again. */
    if (commitGetRole() != COMMIT_ROLE_FOLLOWER) return;
    if (brokerLinkBusy(bs.link) || now - bs.check_sent_ms < checkIntervalMs()) return;
    if (!bs.followed_address || !bs.followed_address[0]) return;
    if (!strcmp(bs.followed_address, commitNodeAddress())) return; /* never check ourselves */
    if (!resolveTarget(bs.followed_address)) return;
    const char *err = NULL;
    bs.checks++;
    bs.check_sent_ms = now;
    if (brokerLinkCheck(bs.link, bs.target.host, bs.target.port, server.cfg.requirepass, checkAnswered, NULL, &err) !=
        0) {
        bs.check_failures++;
        serverLog(LL_VERBOSE, "Broker check: cannot reach %s (%s)", bs.followed_address, err ? err : "?");
    }
}

/* A check every broker-timeout/4, at least BROKER_CHECK_MIN_MS apart. */
static long long checkIntervalMs(void) {
    long long ms = server.cfg.broker_timeout_ms / 4;
    return ms < BROKER_CHECK_MIN_MS ? BROKER_CHECK_MIN_MS : ms;
}

static long long tickMs(void) {
    long long ms = checkIntervalMs();
    return ms > BROKER_TICK_MAX_MS ? BROKER_TICK_MAX_MS : ms;
}

static void checkTimerFired(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
    commitRole role = commitGetRole();
    const char *id, *addr;
    uint64_t epoch;
    commitGetBroker(&id, &addr, &epoch);
    if (role == COMMIT_ROLE_BROKER) {
        if (bs.last_role != COMMIT_ROLE_BROKER) {
            /* Taking over (or adopted a document without a broker): the
             * relays went to the previous broker. */
            brokerLinkDrop(bs.link);
            closeRelays(NULL);
            sdsfree(bs.followed_id);
            sdsfree(bs.followed_address);
            bs.followed_id = bs.followed_address = NULL;
            bs.dead = 0;
        }
        /* Won once the record naming this node is committed. */
        if (bs.takeover_active && id && !strcmp(id, commitNodeId()) && epoch > bs.takeover_epoch) {
            bs.takeovers++;
            bs.takeover_active = 0;
        }
    } else if (role == COMMIT_ROLE_FOLLOWER) {
        if (bs.last_role == COMMIT_ROLE_BROKER && server.blocked_clients) {
            /* Stepped down: what the clients blocked here wait for will
             * never be added here. As Redis does when a master becomes a
             * replica: -UNBLOCKED, and the connection closes (reconnected,
             * it is forwarded to the broker). */
            serverLog(LL_NOTICE, "Broker: stepped down; unblocking %d blocked clients (-UNBLOCKED)",
                      server.blocked_clients);
            disconnectAllBlockedClients();
        }
        syncFollowed();
        bs.takeover_active = 0; /* lost, or not needed: follow the document */
        followerCheck();
    }
    /* COMMIT_ROLE_LOADING: wait for the document. */
    if (role != COMMIT_ROLE_LOADING) bs.last_role = role;
    addTimerMs(bs.check_ev, tickMs());
}

/* ========================================================================
 * Start, stop, INFO
 * ===================================================================== */

void brokerInit(void) {
    bs.relays = listCreate();
    bs.link = brokerLinkCreate(server.el);
    bs.last_role = commitGetRole();
    bs.check_ev = evtimer_new(server.el, checkTimerFired, NULL);
    addTimerMs(bs.check_ev, tickMs());
}

void brokerClose(void) {
    if (!bs.relays) return;
    while (listLength(bs.relays)) {
        brokerRelay *r = listFirst(bs.relays)->value;
        if (r->c) r->c->relay = NULL;
        r->c = NULL;
        relayFree(r);
    }
    listRelease(bs.relays);
    bs.relays = NULL;
    brokerLinkFree(bs.link);
    bs.link = NULL;
    if (bs.check_ev) event_free(bs.check_ev);
    bs.check_ev = NULL;
    sdsfree(bs.followed_id);
    sdsfree(bs.followed_address);
    sdsfree(bs.target.address);
    sdsfree(bs.target.err);
    sdsfree(bs.unreachable_err);
    memset(&bs, 0, sizeof(bs));
}

sds brokerInfoString(sds s) {
    const char *id, *addr;
    uint64_t epoch;
    commitGetBroker(&id, &addr, &epoch);
    commitRole role = commitGetRole();
    const char *rname = role == COMMIT_ROLE_BROKER ? "broker" : role == COMMIT_ROLE_FOLLOWER ? "follower" : "loading";
    unsigned long relayed = 0;
    if (bs.relays)
        for (listNode *ln = listFirst(bs.relays); ln; ln = ln->next)
            if (((brokerRelay *)ln->value)->c) relayed++;
    int following = role != COMMIT_ROLE_BROKER && bs.followed_id;
    s = sdscatprintf(s,
                     "broker_role:%s\r\n"
                     "broker_id:%s\r\n"
                     "broker_address:%s\r\n"
                     "broker_epoch:%llu\r\n"
                     "node_id:%s\r\n"
                     "node_address:%s\r\n"
                     "broker_timeout_ms:%lld\r\n"
                     "broker_link:%s\r\n"
                     "broker_last_contact_ms:%lld\r\n"
                     "broker_unresponsive:%d\r\n"
                     "broker_checks:%lld\r\n"
                     "broker_check_failures:%lld\r\n"
                     "relayed_clients:%lu\r\n"
                     "relayed_connections_total:%lld\r\n"
                     "relay_errors:%lld\r\n"
                     "relays_closed:%lld\r\n"
                     "relayed_bytes_to_broker:%lld\r\n"
                     "relayed_bytes_from_broker:%lld\r\n"
                     "takeover_attempts:%lld\r\n"
                     "takeovers:%lld\r\n",
                     rname, id ? id : "", addr ? addr : "", (unsigned long long)epoch, commitNodeId(),
                     commitNodeAddress(), server.cfg.broker_timeout_ms,
                     following && bs.link ? brokerLinkState(bs.link) : "-",
                     following ? mstime() - bs.last_contact_ms : -1, following ? bs.dead : 0, bs.checks,
                     bs.check_failures, relayed, bs.relays_total, bs.relay_errors, bs.relays_closed,
                     bs.bytes_to_broker, bs.bytes_from_broker, bs.takeover_attempts, bs.takeovers);
    return s;
}
