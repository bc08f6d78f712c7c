/* broker_link.h -- the follower's health-check connection to the broker
 * (design.md §5): hiredis, asynchronous, on the server's libevent loop.
 *
 * Kept apart from broker.c because hiredis brings its own "sds.h", which
 * clashes with casq's: this file and broker_link.c use plain C strings only,
 * and broker_link.c is the one file that includes hiredis. */
#ifndef CASQ_BROKER_LINK_H
#define CASQ_BROKER_LINK_H

#include <stddef.h>

struct event_base;
typedef struct brokerLink brokerLink;

/* The answer to one check. ok: the broker answered (text/len hold the
 * reply: a bulk or status string; an error reply also counts as an answer,
 * with text = the error). !ok: no answer (connection refused, reset,
 * dropped); err says why. Runs on the loop, never inside brokerLinkCheck. */
typedef void brokerLinkCallback(void *priv, int ok, const char *text, size_t len, const char *err);

brokerLink *brokerLinkCreate(struct event_base *base);
/* Drops the connection (a check in flight reports !ok) and frees the link. */
void brokerLinkFree(brokerLink *l);

/* Sends `INFO broker` to host:port (host numeric; a host starting with '/'
 * is a unix socket path and port is ignored), connecting first if the link
 * is not connected to that target, and authenticating with `password` if
 * it is not NULL. At most one check is in flight: returns -1 (and does
 * nothing) while one is, or if the connection cannot even be started (then
 * *err, if not NULL, points to a static or link-owned message). */
int brokerLinkCheck(brokerLink *l, const char *host, int port, const char *password, brokerLinkCallback *cb,
                    void *priv, const char **err);

/* Whether a check is in flight. */
int brokerLinkBusy(const brokerLink *l);

/* Closes the connection: a check in flight reports !ok ("dropped"). The
 * next check connects again. */
void brokerLinkDrop(brokerLink *l);

/* "up" (connected and answered), "connecting", "down" (no connection). */
const char *brokerLinkState(const brokerLink *l);

#endif
