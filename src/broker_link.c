/* broker_link.c -- the follower's health-check connection to the broker
 * (design.md §5; interface in broker_link.h).
 *
 * One hiredis asynchronous context on the server's libevent loop (hiredis's
 * own libevent adapter). A check is one `INFO broker` (after an AUTH when
 * the node has a password): any reply -- even an error such as -LOADING --
 * proves the broker process is alive and serving its loop; the reply's
 * fields also tell whether it still thinks it is the broker. No reply is
 * the only thing that counts against it, and broker.c decides what a long
 * silence means.
 *
 * hiredis 0.14 has no connect timeout for asynchronous contexts: a check
 * that never completes (a stopped process accepts TCP connections in the
 * kernel but never answers) stays "in flight" until broker.c drops it.
 *
 * This file includes hiredis and must not include casq's sds.h (see
 * broker_link.h); it allocates with zmalloc like the rest of casq. */
#include "broker_link.h"

#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>
#include <stdio.h>
#include <string.h>

#include "zmalloc.h"

#define LINK_TARGET_MAX 256

struct brokerLink {
    struct event_base *base;      /* the loop hiredis runs on */
    redisAsyncContext *ac;        /* the connection, NULL when there is none */
    char target[LINK_TARGET_MAX]; /* "host:port" or the socket path it is for */
    int connected;                /* the connect callback said OK */
    int answered;                 /* a reply came on this connection */
    int busy;                     /* a check is in flight */
    brokerLinkCallback *cb;       /* whom to tell about the check in flight */
    void *priv;                   /* ... and their argument */
    char err[256];                /* last connection error */
};

/* Reports the check in flight (once) and forgets it. */
static void linkReport(brokerLink *l, int ok, const char *text, size_t len, const char *err) {
    if (!l->busy) return;
    l->busy = 0;
    brokerLinkCallback *cb = l->cb;
    void *priv = l->priv;
    l->cb = NULL;
    l->priv = NULL;
    if (cb) cb(priv, ok, text, len, err);
}

static void linkConnected(const redisAsyncContext *ac, int status) {
    brokerLink *l = ac->data;
    if (!l || l->ac != ac) return;
    if (status == REDIS_OK) {
        l->connected = 1;
        return;
    }
    /* hiredis frees the context after this callback. */
    snprintf(l->err, sizeof(l->err), "connect: %s", ac->errstr[0] ? ac->errstr : "failed");
    l->ac = NULL;
    l->connected = l->answered = 0;
    linkReport(l, 0, NULL, 0, l->err);
}

static void linkDisconnected(const redisAsyncContext *ac, int status) {
    brokerLink *l = ac->data;
    if (!l || l->ac != ac) return;
    if (status != REDIS_OK) snprintf(l->err, sizeof(l->err), "connection lost: %s", ac->errstr[0] ? ac->errstr : "");
    else snprintf(l->err, sizeof(l->err), "connection closed");
    l->ac = NULL;
    l->connected = l->answered = 0;
    linkReport(l, 0, NULL, 0, l->err);
}

/* The AUTH reply: nothing to do (a wrong password shows in INFO's reply,
 * -NOAUTH, which still proves the broker is alive). */
static void linkAuthReply(redisAsyncContext *ac, void *r, void *privdata) {
    (void)ac;
    (void)r;
    (void)privdata;
}

static void linkInfoReply(redisAsyncContext *ac, void *r, void *privdata) {
    brokerLink *l = privdata;
    redisReply *reply = r;
    if (!reply) {
        /* The context is going away (freed, or the connection failed):
         * linkConnected/linkDisconnected or brokerLinkDrop report it. */
        if (l->ac == ac || l->ac == NULL) linkReport(l, 0, NULL, 0, l->err[0] ? l->err : "dropped");
        return;
    }
    l->answered = 1;
    if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS ||
        reply->type == REDIS_REPLY_ERROR)
        linkReport(l, 1, reply->str, (size_t)reply->len, NULL);
    else linkReport(l, 1, "", 0, NULL);
}

brokerLink *brokerLinkCreate(struct event_base *base) {
    brokerLink *l = zcalloc(sizeof(*l));
    l->base = base;
    return l;
}

void brokerLinkDrop(brokerLink *l) {
    redisAsyncContext *ac = l->ac;
    l->ac = NULL;
    l->connected = l->answered = 0;
    l->target[0] = '\0';
    snprintf(l->err, sizeof(l->err), "dropped");
    /* Frees the context; the reply callback of a check in flight runs with
     * a NULL reply (and reports "dropped"). */
    if (ac) redisAsyncFree(ac);
    linkReport(l, 0, NULL, 0, "dropped");
}

void brokerLinkFree(brokerLink *l) {
    if (!l) return;
    l->cb = NULL; /* nobody to tell any more */
    brokerLinkDrop(l);
    zfree(l);
}

int brokerLinkBusy(const brokerLink *l) { return l->busy; }

const char *brokerLinkState(const brokerLink *l) {
    if (!l->ac) return "down";
    return l->answered ? "up" : "connecting";
}

int brokerLinkCheck(brokerLink *l, const char *host, int port, const char *password, brokerLinkCallback *cb,
                    void *priv, const char **err) {
    if (l->busy) {
        if (err) *err = "a check is already in flight";
        return -1;
    }
    char target[LINK_TARGET_MAX];
    if (host[0] == '/') snprintf(target, sizeof(target), "%s", host);
    else snprintf(target, sizeof(target), "%s:%d", host, port);
    if (l->ac && strcmp(target, l->target) != 0) brokerLinkDrop(l);
    if (!l->ac) {
        redisAsyncContext *ac = host[0] == '/' ? redisAsyncConnectUnix(host) : redisAsyncConnect(host, port);
        if (!ac) {
            if (err) *err = "out of memory";
            return -1;
        }
        if (ac->err) {
            snprintf(l->err, sizeof(l->err), "connect: %s", ac->errstr);
            redisAsyncFree(ac);
            if (err) *err = l->err;
            return -1;
        }
        ac->data = l;
        redisLibeventAttach(ac, l->base);
        redisAsyncSetConnectCallback(ac, linkConnected);
        redisAsyncSetDisconnectCallback(ac, linkDisconnected);
        l->ac = ac;
        l->connected = l->answered = 0;
        l->err[0] = '\0';
        snprintf(l->target, sizeof(l->target), "%s", target);
        if (password) redisAsyncCommand(ac, linkAuthReply, NULL, "AUTH %s", password);
    }
    l->busy = 1;
    l->cb = cb;
    l->priv = priv;
    if (redisAsyncCommand(l->ac, linkInfoReply, l, "INFO broker") != REDIS_OK) {
        l->busy = 0;
        l->cb = NULL;
        l->priv = NULL;
        brokerLinkDrop(l);
        if (err) *err = "cannot queue the check";
        return -1;
    }
    return 0;
}
