/* pubsub.c -- Pub/Sub: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE
 * PUBLISH, the shard channels (SSUBSCRIBE SUNSUBSCRIBE SPUBLISH, which on
 * a server that is not a cluster are one more, separate, name space), and
 * PUBSUB CHANNELS/NUMSUB/NUMPAT/SHARDCHANNELS/SHARDNUMSUB/HELP.
 *
 * Replies, message formats, counts and errors are Redis 7.2's:
 *
 *   - a RESP2 client with at least one subscription is in the "subscribed
 *     context": only (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT and RESET
 *     run (pubsubContextError, called by processCommand), and PING answers
 *     ["pong", <arg or "">]. A RESP3 client may run anything: messages and
 *     (un)subscription confirmations are push messages (>) among its
 *     replies;
 *   - like Redis 7.2's CLIENT_PUSHING, confirmations and messages are sent
 *     even to a client that said CLIENT REPLY OFF/SKIP;
 *   - PUBLISH replies the number of receptions: each client subscribed to
 *     the channel, plus each (client, pattern) pair whose pattern matches
 *     (a client subscribed both ways gets, and counts, two messages).
 *
 * Pub/sub is not state: nothing of it is in the state document, and
 * PUBLISH changes nothing (it is no write: no commit).
 *
 * casq addition (design.md §4): a message is queued to each receiver
 * tagged with the newest change made so far (server.change_seq), so it is
 * sent only once everything that happened before the PUBLISH is durable,
 * as with Redis's appendfsync always, where a PUBLISH that follows a write
 * reaches subscribers only after that write was fsynced. A message about a
 * change never overtakes the change. With nothing waiting for a commit the
 * message leaves at once.
 *
 * Several nodes (design.md §5): a follower does not run these commands, it
 * relays the connection to the broker (broker.c) like any other non-local
 * command, and the broker runs them. So a client subscribed through a
 * follower is one subscriber on the broker, whose messages travel back
 * through its relay; a PUBLISH sent to any node is one PUBLISH on the
 * broker and reaches every subscriber of every node; PUBLISH's count,
 * PUBSUB CHANNELS/NUMSUB/NUMPAT are the broker's, so they count the
 * subscribers connected through every node, each once. When the broker
 * goes away its relayed connections are closed (broker.c), and the
 * subscribers reconnect and subscribe again, as after a Redis failover. */
#include "server.h"

#include <string.h>
#include <strings.h>

/* What a client is subscribed to (client->pubsub; NULL when nothing). */
typedef struct clientPubsub {
    dict *channels; /* sds -> NULL */
    dict *patterns; /* sds -> NULL */
    dict *shard;    /* sds -> NULL: shard channels */
} clientPubsub;

/* The server's side: name -> list of client* subscribed. */
static dict *server_channels; /* channels */
static dict *server_patterns; /* patterns */
static dict *server_shard;    /* shard channels */

/* A kind of subscription: channels, patterns or shard channels. */
typedef struct pubsubKind {
    dict **server_dict;
    int which;               /* 0 channels, 1 patterns, 2 shard */
    const char *sub_msg;     /* "subscribe" ... */
    const char *unsub_msg;   /* "unsubscribe" ... */
} pubsubKind;

static const pubsubKind kindChannel = {&server_channels, 0, "subscribe", "unsubscribe"};
static const pubsubKind kindPattern = {&server_patterns, 1, "psubscribe", "punsubscribe"};
static const pubsubKind kindShard = {&server_shard, 2, "ssubscribe", "sunsubscribe"};

/* ========================================================================
 * Bookkeeping
 * ===================================================================== */

static dict *serverDict(const pubsubKind *k) {
    if (!*k->server_dict) *k->server_dict = dictCreate(&sdsKeyDictType);
    return *k->server_dict;
}

static dict *clientDict(client *c, const pubsubKind *k) {
    if (!c->pubsub) {
        c->pubsub = zmalloc(sizeof(clientPubsub));
        c->pubsub->channels = dictCreate(&sdsKeyDictType);
        c->pubsub->patterns = dictCreate(&sdsKeyDictType);
        c->pubsub->shard = dictCreate(&sdsKeyDictType);
    }
    return k->which == 0 ? c->pubsub->channels : k->which == 1 ? c->pubsub->patterns : c->pubsub->shard;
}

static unsigned long clientCount(client *c, int which) {
    if (!c->pubsub) return 0;
    dict *d = which == 0 ? c->pubsub->channels : which == 1 ? c->pubsub->patterns : c->pubsub->shard;
    return dictSize(d);
}

/* Redis's clientSubscriptionsCount / clientShardSubscriptionsCount: what
 * a confirmation reports. */
static long subscriptionCount(client *c, const pubsubKind *k) {
    if (k->which == 2) return (long)clientCount(c, 2);
    return (long)(clientCount(c, 0) + clientCount(c, 1));
}

static unsigned long totalCount(client *c) { return clientCount(c, 0) + clientCount(c, 1) + clientCount(c, 2); }

/* Sets or clears CLIENT_PUBSUB from the client's subscriptions, and frees
 * its bookkeeping when it has none. */
static void updateClientFlag(client *c) {
    if (totalCount(c)) {
        c->flags |= CLIENT_PUBSUB;
        return;
    }
    c->flags &= ~CLIENT_PUBSUB;
    if (c->pubsub) {
        dictRelease(c->pubsub->channels);
        dictRelease(c->pubsub->patterns);
        dictRelease(c->pubsub->shard);
        zfree(c->pubsub);
        c->pubsub = NULL;
    }
}

/* ========================================================================
 * Writing to clients
 * ===================================================================== */

/* Like Redis 7.2's CLIENT_PUSHING: confirmations and messages go out even
 * under CLIENT REPLY OFF/SKIP. */
#define PUSH_BEGIN(c)                                                  \
    uint64_t saved_flags_ = (c)->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP); \
    (c)->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)
#define PUSH_END(c) (c)->flags |= saved_flags_

/* [kind, name or nil, count]: a (un)subscription confirmation. */
static void addReplyPubsubConfirm(client *c, const char *kind, const char *name, size_t len, long count) {
    PUSH_BEGIN(c);
    if (c->resp == 2) addReply(c, "*3\r\n", 4);
    else addReplyPushLen(c, 3);
    addReplyBulk(c, kind, strlen(kind));
    if (name) addReplyBulk(c, name, len);
    else addReplyNull(c);
    addReplyLongLong(c, count);
    PUSH_END(c);
}

/* Queues a message to a receiver: into the running command's reply when
 * the receiver is the publisher itself, else straight into its FIFO,
 * tagged so that it leaves after every change made so far is durable. */
static void deliver(client *r, const char *kind, sds pattern, sds channel, sds msg) {
    PUSH_BEGIN(r);
    int n = pattern ? 4 : 3;
    if (r->resp == 2) addReplyArrayLen(r, n);
    else addReplyPushLen(r, n);
    addReplyBulk(r, kind, strlen(kind));
    if (pattern) addReplyBulk(r, pattern, sdslen(pattern));
    addReplyBulk(r, channel, sdslen(channel));
    addReplyBulk(r, msg, sdslen(msg));
    PUSH_END(r);
    if (r == server.current_client) observeSeq(r, server.change_seq);
    else clientCommitReply(r, server.change_seq);
}

/* ========================================================================
 * Subscribing and unsubscribing
 * ===================================================================== */

/* Returns 1 if c was not subscribed to name yet. */
static int pubsubSubscribe(client *c, sds name, const pubsubKind *k) {
    int added = 0;
    dict *cd = clientDict(c, k);
    if (!dictFind(cd, name)) {
        dictAdd(cd, sdsdup(name), NULL);
        dict *sd = serverDict(k);
        list *clients = dictFetchValue(sd, name);
        if (!clients) {
            clients = listCreate();
            dictAdd(sd, sdsdup(name), clients);
        }
        listAddNodeTail(clients, c);
        added = 1;
    }
    addReplyPubsubConfirm(c, k->sub_msg, name, sdslen(name), subscriptionCount(c, k));
    return added;
}

/* Returns 1 if c was subscribed to name. */
static int pubsubUnsubscribe(client *c, sds name, int notify, const pubsubKind *k) {
    int removed = 0;
    sds keep = sdsdup(name); /* name may be the client's own key, freed below */
    dict *cd = c->pubsub ? clientDict(c, k) : NULL;
    if (cd && dictFind(cd, keep)) {
        dictDelete(cd, keep);
        dict *sd = serverDict(k);
        list *clients = dictFetchValue(sd, keep);
        serverAssert(clients != NULL);
        listNode *ln = listSearchKey(clients, c);
        serverAssert(ln != NULL);
        listDelNode(clients, ln);
        if (listLength(clients) == 0) {
            listRelease(clients);
            dictDelete(sd, keep);
        }
        removed = 1;
    }
    if (notify) addReplyPubsubConfirm(c, k->unsub_msg, keep, sdslen(keep), subscriptionCount(c, k));
    sdsfree(keep);
    return removed;
}

/* Every subscription of kind k; with notify, one confirmation each, or
 * [kind, nil, count] when there was none. */
static int pubsubUnsubscribeAllKind(client *c, int notify, const pubsubKind *k) {
    int count = 0;
    if (c->pubsub) {
        dict *cd = clientDict(c, k);
        while (dictSize(cd)) {
            dictIterator it;
            dictInitIterator(&it, cd);
            dictEntry *de = dictNext(&it);
            count += pubsubUnsubscribe(c, de->key, notify, k);
        }
    }
    if (notify && count == 0) addReplyPubsubConfirm(c, k->unsub_msg, NULL, 0, subscriptionCount(c, k));
    return count;
}

void pubsubUnsubscribeAll(client *c) {
    if (!c->pubsub) return;
    pubsubUnsubscribeAllKind(c, 0, &kindChannel);
    pubsubUnsubscribeAllKind(c, 0, &kindPattern);
    pubsubUnsubscribeAllKind(c, 0, &kindShard);
    updateClientFlag(c);
}

/* ========================================================================
 * Publishing
 * ===================================================================== */

static long long pubsubPublish(sds channel, sds msg, int sharded) {
    long long receivers = 0;
    dict *sd = sharded ? server_shard : server_channels;
    list *clients = sd ? dictFetchValue(sd, channel) : NULL;
    if (clients) {
        for (listNode *ln = listFirst(clients); ln; ln = ln->next) {
            deliver(ln->value, sharded ? "smessage" : "message", NULL, channel, msg);
            receivers++;
        }
    }
    if (sharded || !server_patterns || !dictSize(server_patterns)) return receivers;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server_patterns);
    while ((de = dictNext(&it)) != NULL) {
        sds pattern = de->key;
        if (!stringmatchlen(pattern, (int)sdslen(pattern), channel, (int)sdslen(channel), 0)) continue;
        for (listNode *ln = listFirst((list *)de->val); ln; ln = ln->next) {
            deliver(ln->value, "pmessage", pattern, channel, msg);
            receivers++;
        }
    }
    return receivers;
}

/* ========================================================================
 * The subscribed context (processCommand)
 * ===================================================================== */

sds pubsubContextError(client *c) {
    if (!(c->flags & CLIENT_PUBSUB) || c->resp != 2) return NULL;
    static const char *allowed[] = {"ping",         "subscribe",   "ssubscribe", "unsubscribe", "sunsubscribe",
                                    "psubscribe",   "punsubscribe", "quit",      "reset",       NULL};
    const char *name = c->cmd->parent ? c->cmd->parent->name : c->cmd->name;
    for (int i = 0; allowed[i]; i++)
        if (!strcmp(name, allowed[i])) return NULL;
    return sdscatprintf(sdsempty(),
                        "Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                        "allowed in this context",
                        c->cmd->fullname);
}

int pubsubClientCount(client *c, int which) { return (int)clientCount(c, which); }

unsigned long pubsubTotalChannels(int which) {
    dict *d = which == 0 ? server_channels : which == 1 ? server_patterns : server_shard;
    return d ? dictSize(d) : 0;
}

void pubsubFreeAll(void) {
    dict **all[] = {&server_channels, &server_patterns, &server_shard};
    for (int i = 0; i < 3; i++) {
        if (!*all[i]) continue;
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, *all[i]);
        while ((de = dictNext(&it)) != NULL) listRelease(de->val);
        dictRelease(*all[i]);
        *all[i] = NULL;
    }
}

/* ========================================================================
 * Commands
 * ===================================================================== */

static void subscribeCommand(client *c) {
    for (int j = 1; j < c->argc; j++) pubsubSubscribe(c, c->argv[j], &kindChannel);
    updateClientFlag(c);
}

static void unsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllKind(c, 1, &kindChannel);
    else
        for (int j = 1; j < c->argc; j++) pubsubUnsubscribe(c, c->argv[j], 1, &kindChannel);
    updateClientFlag(c);
}

static void psubscribeCommand(client *c) {
    for (int j = 1; j < c->argc; j++) pubsubSubscribe(c, c->argv[j], &kindPattern);
    updateClientFlag(c);
}

static void punsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllKind(c, 1, &kindPattern);
    else
        for (int j = 1; j < c->argc; j++) pubsubUnsubscribe(c, c->argv[j], 1, &kindPattern);
    updateClientFlag(c);
}

static void ssubscribeCommand(client *c) {
    if (server.in_exec) {
        /* Redis: a transaction's client expects one reply per command. */
        addReplyError(c, "SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
        return;
    }
    for (int j = 1; j < c->argc; j++) pubsubSubscribe(c, c->argv[j], &kindShard);
    updateClientFlag(c);
}

static void sunsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllKind(c, 1, &kindShard);
    else
        for (int j = 1; j < c->argc; j++) pubsubUnsubscribe(c, c->argv[j], 1, &kindShard);
    updateClientFlag(c);
}

static void publishCommand(client *c) { addReplyLongLong(c, pubsubPublish(c->argv[1], c->argv[2], 0)); }

static void spublishCommand(client *c) { addReplyLongLong(c, pubsubPublish(c->argv[1], c->argv[2], 1)); }

/* PUBSUB CHANNELS / SHARDCHANNELS [pattern] */
static void channelList(client *c, dict *d) {
    sds pat = c->argc == 2 ? NULL : c->argv[2];
    void *len = addReplyDeferredLen(c);
    long n = 0;
    if (d) {
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, d);
        while ((de = dictNext(&it)) != NULL) {
            sds ch = de->key;
            if (pat && !stringmatchlen(pat, (int)sdslen(pat), ch, (int)sdslen(ch), 0)) continue;
            addReplyBulk(c, ch, sdslen(ch));
            n++;
        }
    }
    setDeferredArrayLen(c, len, n);
}

/* PUBSUB NUMSUB / SHARDNUMSUB [channel ...]: [channel, count, ...] */
static void channelCounts(client *c, dict *d) {
    addReplyArrayLen(c, (long)(c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        list *l = d ? dictFetchValue(d, c->argv[j]) : NULL;
        addReplyBulk(c, c->argv[j], sdslen(c->argv[j]));
        addReplyLongLong(c, l ? (long long)listLength(l) : 0);
    }
}

static void pubsubChannelsCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    channelList(c, server_channels);
}

static void pubsubShardchannelsCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    channelList(c, server_shard);
}

static void pubsubNumsubCommand(client *c) { channelCounts(c, server_channels); }

static void pubsubShardnumsubCommand(client *c) { channelCounts(c, server_shard); }

static void pubsubNumpatCommand(client *c) { addReplyLongLong(c, (long long)pubsubTotalChannels(1)); }

static void pubsubHelpCommand(client *c) {
    const char *help[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        NULL};
    addReplyHelp(c, help);
}

/* ========================================================================
 * Command table (arity, flags and key positions as Redis 7.2)
 * ===================================================================== */

static struct redisCommand pubsubSubcommands[] = {
    {"channels", pubsubChannelsCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub slow", NULL},
    {"help", pubsubHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow", NULL},
    {"numpat", pubsubNumpatCommand, 2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub slow", NULL},
    {"numsub", pubsubNumsubCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub slow", NULL},
    {"shardchannels", pubsubShardchannelsCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub slow",
     NULL},
    {"shardnumsub", pubsubShardnumsubCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub slow", NULL},
    {0},
};

#define PUBSUB_SUB_FLAGS (CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

struct redisCommand pubsubCommandTable[] = {
    {"subscribe", subscribeCommand, -2, PUBSUB_SUB_FLAGS, 0, 0, 0, "pubsub slow", NULL},
    {"unsubscribe", unsubscribeCommand, -1, PUBSUB_SUB_FLAGS, 0, 0, 0, "pubsub slow", NULL},
    {"psubscribe", psubscribeCommand, -2, PUBSUB_SUB_FLAGS, 0, 0, 0, "pubsub slow", NULL},
    {"punsubscribe", punsubscribeCommand, -1, PUBSUB_SUB_FLAGS, 0, 0, 0, "pubsub slow", NULL},
    {"ssubscribe", ssubscribeCommand, -2, PUBSUB_SUB_FLAGS, 1, -1, 1, "pubsub slow", NULL},
    {"sunsubscribe", sunsubscribeCommand, -1, PUBSUB_SUB_FLAGS, 1, -1, 1, "pubsub slow", NULL},
    {"publish", publishCommand, 3, CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, 0, 0, 0,
     "pubsub fast", NULL},
    {"spublish", spublishCommand, 3, CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, 1, 1, 1,
     "pubsub fast", NULL},
    {"pubsub", NULL, -2, 0, 0, 0, 0, "slow", pubsubSubcommands},
    {0},
};
