/* broker.h -- forwarding to the broker and taking over from it
 * (design.md §5). See broker.c for the design. */
#ifndef CASQ_BROKER_H
#define CASQ_BROKER_H

#include "server.h"

/* After commitInit: starts the periodic broker check. */
void brokerInit(void);

/* At exit, once every client is gone: closes what is left (lingering
 * relays, the health-check link, the timer). */
void brokerClose(void);

/* processCommand: whether c's command must go to the broker instead of
 * running here (this node is a follower and the command is not one it
 * answers itself). A broker answers 0 at the cost of one call. */
int brokerMustForward(client *c);

/* Switches c to relay mode, starting with its current command (c->argv),
 * or, if the broker cannot be reached, replies a -TRYAGAIN error to it.
 * Returns C_OK (the caller resets the client as after any command). */
int brokerForwardClient(client *c);

/* processInputBuffer: hands what c sent to the broker (kept in the query
 * buffer while the relay is still connecting). */
void brokerRelayInput(client *c);

/* writeToClient: c's reply FIFO shrank; a relay that stopped reading the
 * broker because c did not read its replies may go on. */
void brokerRelayClientDrained(client *c);

/* freeClient: detaches and closes c's relay. */
void brokerRelayFree(client *c);

/* INFO `# Broker`. */
sds brokerInfoString(sds s);

#endif
