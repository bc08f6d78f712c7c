/* test_db.c -- unit tests of the keyspace (db.c), expiry (expire.c) and
 * transactions (multi.c), without the network.
 *
 * Commands run against fake clients (createFakeClient); their replies are
 * read from c->pending. Time is the command time snapshot
 * (server.mstime_cache), which the tests set, so expiry is checked
 * exactly and without sleeping. What is asserted besides replies is the
 * change tracking the group commit relies on (design.md §4): which change
 * sequence a reply depends on, and that every change is signalled.
 *
 * int test_db(void) returns the number of failed checks and prints one
 * line per failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../src/server.h"

static int failures;

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "test_db: FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

/* Checks that `got` equals the expected protocol text. */
#define CHECK_REPLY(got, want)                                                              \
    do {                                                                                    \
        sds g_ = (got);                                                                     \
        if (strcmp(g_, (want)) != 0) {                                                      \
            sds r_ = sdscatrepr(sdsempty(), g_, sdslen(g_));                                \
            fprintf(stderr, "test_db: FAILED %s:%d: reply %s, expected %s\n", __FILE__, __LINE__, \
                    r_, #want);                                                             \
            sdsfree(r_);                                                                    \
            failures++;                                                                     \
        }                                                                                   \
        sdsfree(g_);                                                                        \
    } while (0)

extern struct redisCommand dbCommandTable[];
extern struct redisCommand multiCommandTable[];

static const long long T0 = 1700000000000LL; /* the tests' "now" */

/* ------------------------------------------------------------------------
 * Harness
 * --------------------------------------------------------------------- */

static struct redisCommand *findCommand(const char *name) {
    struct redisCommand *tables[] = {dbCommandTable, multiCommandTable, NULL};
    for (int t = 0; tables[t]; t++)
        for (struct redisCommand *cmd = tables[t]; cmd->name; cmd++)
            if (!strcasecmp(cmd->name, name)) return cmd;
    return NULL;
}

static int isControl(const char *name) {
    return !strcasecmp(name, "exec") || !strcasecmp(name, "discard") || !strcasecmp(name, "multi") ||
           !strcasecmp(name, "watch");
}

/* Runs one command line for c the way processCommand() would (queueing in
 * MULTI, arity checked by the caller's choice of arguments) and returns
 * its reply. The command runs as if inside call(), so EXEC's nested calls
 * do not commit replies on their own. */
static sds run(client *c, const char *line) {
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    struct redisCommand *cmd = findCommand(argv[0]);
    if (!cmd) {
        sdsfreesplitres(argv, argc);
        if (c->flags & CLIENT_MULTI) flagTransaction(c);
        return sdsnew("-unknown test command\r\n");
    }
    c->argv = zrealloc(c->argv, sizeof(sds) * (size_t)argc);
    c->argv_len = argc;
    for (int j = 0; j < argc; j++) c->argv[j] = argv[j];
    zfree(argv);
    c->argc = argc;
    c->cmd = cmd;
    c->observe_seq = 0;
    if ((c->flags & CLIENT_MULTI) && !isControl(cmd->name)) {
        queueMultiCommand(c);
        addReplyStatus(c, "QUEUED");
    } else {
        server.in_call++;
        server.current_client = c;
        cmd->proc(c);
        server.current_client = NULL;
        server.in_call--;
    }
    resetClient(c);
    sds reply = sdsdup(c->pending);
    sdsclear(c->pending);
    return reply;
}

/* Adds a stream key directly. */
static robj *addKey(redisDb *db, const char *name) {
    sds key = sdsnew(name);
    robj *o = createStreamObject();
    dbAdd(db, key, o);
    signalModifiedKey(NULL, db, key, o);
    sdsfree(key);
    return o;
}

static int exists(redisDb *db, const char *name) {
    sds key = sdsnew(name);
    int found = dictFind(db->keys, key) != NULL;
    sdsfree(key);
    return found;
}

/* The tests run on databases of their own, whatever other tests in the
 * same process did to the server; setUp saves what tearDown restores. */
static struct {
    redisDb *db;
    int databases;
    int hz;
    long long mstime_cache;
} saved;

/* What the tests need of the server that initServer() would set up. */
static void setUp(void) {
    saved.db = server.db;
    saved.databases = server.cfg.databases;
    saved.hz = server.cfg.hz;
    saved.mstime_cache = server.mstime_cache;
    if (!server.unblocked_clients) server.unblocked_clients = listCreate();
    if (!server.clients_to_close) server.clients_to_close = listCreate();
    if (!server.ready_keys) server.ready_keys = listCreate();
    if (!server.ready_keys_dict) server.ready_keys_dict = dictCreate(&sdsKeyDictType);
    server.cfg.databases = 16;
    server.cfg.hz = 10;
    initDbs();
    server.mstime_cache = T0;
}

static void tearDown(void) {
    freeDbs();
    server.db = saved.db;
    server.cfg.databases = saved.databases;
    server.cfg.hz = saved.hz;
    server.mstime_cache = saved.mstime_cache;
}

static void resetData(void) {
    server.mstime_cache = T0;
    emptyData(-1, NULL);
}

/* ------------------------------------------------------------------------
 * Keyspace and change tracking
 * --------------------------------------------------------------------- */

static void testAddLookupDelete(void) {
    resetData();
    redisDb *db = &server.db[0];
    client *c = createFakeClient();
    sds k = sdsnew("s");

    CHECK(lookupKeyRead(c, db, k) == NULL);
    uint64_t before = server.change_seq;
    long long dirty = server.dirty;
    robj *o = addKey(db, "s");
    CHECK(server.change_seq == before + 1);
    CHECK(server.dirty == dirty + 1);
    CHECK(o->mod_seq == server.change_seq);
    CHECK(db->mod_seq == server.change_seq);
    CHECK(!strcmp(typeName(o), "stream"));
    CHECK(!strcmp(typeName(NULL), "none"));
    CHECK(dbTotalServerKeyCount() == 1);

    /* A read depends on the object's last change ... */
    c->observe_seq = 0;
    long long hits = server.stat_keyspace_hits;
    CHECK(lookupKeyRead(c, db, k) == o);
    CHECK(c->observe_seq == o->mod_seq);
    CHECK(server.stat_keyspace_hits == hits + 1);

    /* ... a write lookup too, without counting a hit. */
    c->observe_seq = 0;
    CHECK(lookupKeyWrite(c, db, k) == o);
    CHECK(c->observe_seq == o->mod_seq);
    CHECK(server.stat_keyspace_hits == hits + 1);

    /* Deleting: the db remembers the removal; a miss depends on it. */
    CHECK(dbDelete(db, k) == 1);
    signalModifiedKey(c, db, k, NULL);
    uint64_t del = server.change_seq;
    CHECK(db->del_seq == del);
    CHECK(dbDelete(db, k) == 0);
    c->observe_seq = 0;
    long long misses = server.stat_keyspace_misses;
    CHECK(lookupKeyRead(c, db, k) == NULL);
    CHECK(c->observe_seq == del);
    CHECK(server.stat_keyspace_misses == misses + 1);

    /* Another db is unaffected. */
    c->observe_seq = 0;
    CHECK(lookupKeyRead(c, &server.db[1], k) == NULL);
    CHECK(c->observe_seq == server.db[1].del_seq);

    /* observeSeq keeps the maximum; a NULL client is fine. */
    c->observe_seq = 10;
    observeSeq(c, 5);
    CHECK(c->observe_seq == 10);
    observeSeq(NULL, 5);

    sdsfree(k);
    freeClient(c);
}

static void testGenericCommands(void) {
    resetData();
    client *c = createFakeClient();
    addKey(c->db, "a");
    addKey(c->db, "b");

    CHECK_REPLY(run(c, "exists a b c a"), ":3\r\n");
    CHECK_REPLY(run(c, "touch a c"), ":1\r\n");
    CHECK_REPLY(run(c, "type a"), "+stream\r\n");
    CHECK_REPLY(run(c, "type zz"), "+none\r\n");
    CHECK_REPLY(run(c, "dbsize"), ":2\r\n");
    CHECK(c->observe_seq == c->db->mod_seq);

    uint64_t before = server.change_seq;
    CHECK_REPLY(run(c, "del a c"), ":1\r\n");
    CHECK(server.change_seq == before + 1);
    CHECK(c->db->del_seq == server.change_seq);
    CHECK_REPLY(run(c, "unlink a b"), ":1\r\n");
    CHECK_REPLY(run(c, "dbsize"), ":0\r\n");

    /* KEYS with a pattern. */
    addKey(c->db, "foo");
    addKey(c->db, "foobar");
    addKey(c->db, "bar");
    sds r = run(c, "keys fo*");
    CHECK(!strncmp(r, "*2\r\n", 4) && strstr(r, "$3\r\nfoo\r\n") && strstr(r, "$6\r\nfoobar\r\n"));
    sdsfree(r);
    CHECK_REPLY(run(c, "keys nomatch"), "*0\r\n");

    /* SELECT. */
    CHECK_REPLY(run(c, "select 3"), "+OK\r\n");
    CHECK(c->db == &server.db[3]);
    CHECK_REPLY(run(c, "select 16"), "-ERR DB index is out of range\r\n");
    CHECK_REPLY(run(c, "select x"), "-ERR value is not an integer or out of range\r\n");
    CHECK_REPLY(run(c, "randomkey"), "$-1\r\n");
    CHECK_REPLY(run(c, "select 0"), "+OK\r\n");

    /* RANDOMKEY returns one of the keys. */
    r = run(c, "randomkey");
    CHECK(!strcmp(r, "$3\r\nfoo\r\n") || !strcmp(r, "$6\r\nfoobar\r\n") || !strcmp(r, "$3\r\nbar\r\n"));
    sdsfree(r);

    /* FLUSHDB / FLUSHALL. */
    CHECK_REPLY(run(c, "flushdb foo"), "-ERR syntax error\r\n");
    CHECK_REPLY(run(c, "flushall sync async"), "-ERR syntax error\r\n");
    before = server.change_seq;
    CHECK_REPLY(run(c, "flushdb async"), "+OK\r\n");
    CHECK(server.change_seq == before + 1);
    CHECK(c->db->del_seq == server.change_seq);
    CHECK_REPLY(run(c, "dbsize"), ":0\r\n");
    freeClient(c);
}

static void testRename(void) {
    resetData();
    client *c = createFakeClient();
    robj *o = addKey(c->db, "src");
    sds src = sdsnew("src"), dst = sdsnew("dst");
    setExpire(c->db, src, T0 + 5000);

    CHECK_REPLY(run(c, "rename nokey x"), "-ERR no such key\r\n");
    CHECK_REPLY(run(c, "renamenx nokey x"), "-ERR no such key\r\n");
    CHECK_REPLY(run(c, "rename src src"), "+OK\r\n");
    CHECK_REPLY(run(c, "renamenx src src"), ":0\r\n");

    uint64_t before = server.change_seq;
    CHECK_REPLY(run(c, "rename src dst"), "+OK\r\n");
    /* The same object moved, with its TTL; two changes signalled. */
    CHECK(dictFetchValue(c->db->keys, dst) == o);
    CHECK(!exists(c->db, "src"));
    CHECK(getExpire(c->db, dst) == T0 + 5000);
    CHECK(getExpire(c->db, src) == -1);
    CHECK(server.change_seq == before + 2);
    CHECK(o->mod_seq == server.change_seq);
    CHECK(c->db->del_seq == before + 1);

    /* Overwriting a destination drops it and its TTL. */
    robj *o2 = addKey(c->db, "other");
    (void)o2;
    CHECK_REPLY(run(c, "renamenx dst other"), ":0\r\n");
    CHECK_REPLY(run(c, "rename other dst"), "+OK\r\n");
    CHECK(getExpire(c->db, dst) == -1);
    CHECK(dictSize(c->db->keys) == 1);
    CHECK(dictSize(c->db->expires) == 0);
    CHECK_REPLY(run(c, "renamenx dst fresh"), ":1\r\n");

    sdsfree(src);
    sdsfree(dst);
    freeClient(c);
}

static void testScan(void) {
    resetData();
    client *c = createFakeClient();
    char name[32];
    for (int j = 0; j < 200; j++) {
        snprintf(name, sizeof(name), "key:%d", j);
        addKey(c->db, name);
    }
    /* A full iteration returns every key at least once. */
    int seen[200] = {0};
    unsigned long cursor = 0;
    int calls = 0;
    do {
        char line[64];
        snprintf(line, sizeof(line), "scan %lu count 7", cursor);
        sds r = run(c, line);
        CHECK(!strncmp(r, "*2\r\n$", 5));
        char *p = strchr(r + 5, '\n') + 1; /* the cursor bulk */
        cursor = strtoul(p, NULL, 10);
        for (char *q = strstr(p, "key:"); q; q = strstr(q + 1, "key:")) seen[atoi(q + 4)]++;
        sdsfree(r);
        calls++;
    } while (cursor != 0 && calls < 1000);
    int missing = 0;
    for (int j = 0; j < 200; j++) missing += seen[j] == 0;
    CHECK(missing == 0);
    CHECK(calls > 1);

    CHECK_REPLY(run(c, "scan 0 count 1000 match key:7"), "*2\r\n$1\r\n0\r\n*1\r\n$5\r\nkey:7\r\n");
    CHECK_REPLY(run(c, "scan 0 count 1000 type string"), "*2\r\n$1\r\n0\r\n*0\r\n");
    CHECK_REPLY(run(c, "scan 0 count 1000 type nosuchtype"), "*2\r\n$1\r\n0\r\n*0\r\n");
    CHECK_REPLY(run(c, "scan 0 count 0"), "-ERR syntax error\r\n");
    CHECK_REPLY(run(c, "scan 0 match"), "-ERR syntax error\r\n");
    CHECK_REPLY(run(c, "scan x"), "-ERR invalid cursor\r\n");
    CHECK_REPLY(run(c, "scan 18446744073709551616"), "-ERR invalid cursor\r\n");

    /* Expired keys are left out and deleted (a change). */
    sds k = sdsnew("key:7");
    setExpire(c->db, k, T0 - 1);
    long long expired = server.stat_expiredkeys;
    CHECK_REPLY(run(c, "scan 0 count 1000 match key:7"), "*2\r\n$1\r\n0\r\n*0\r\n");
    CHECK(server.stat_expiredkeys == expired + 1);
    CHECK(!exists(c->db, "key:7"));
    CHECK(c->observe_seq == c->db->del_seq);
    sdsfree(k);
    freeClient(c);
}

static void testSwapdb(void) {
    resetData();
    client *c = createFakeClient();
    robj *a = addKey(&server.db[0], "a");
    robj *b = addKey(&server.db[1], "b");
    uint64_t old = a->mod_seq;

    CHECK_REPLY(run(c, "swapdb 0 16"), "-ERR DB index is out of range\r\n");
    CHECK_REPLY(run(c, "swapdb x 0"), "-ERR invalid first DB index\r\n");
    CHECK_REPLY(run(c, "swapdb 0 x"), "-ERR invalid second DB index\r\n");
    CHECK_REPLY(run(c, "swapdb 0 1"), "+OK\r\n");
    CHECK(exists(&server.db[0], "b") && !exists(&server.db[0], "a"));
    CHECK(exists(&server.db[1], "a") && !exists(&server.db[1], "b"));
    /* A read of a moved key waits for the swap to be durable. */
    CHECK(a->mod_seq > old);
    CHECK(a->mod_seq == server.change_seq);
    /* One change per db: db 0 (now holding b) first, then db 1. */
    CHECK(b->mod_seq + 1 == a->mod_seq);
    CHECK(server.db[0].del_seq == b->mod_seq && server.db[0].mod_seq == b->mod_seq);
    CHECK(server.db[1].del_seq == a->mod_seq && server.db[1].mod_seq == a->mod_seq);
    CHECK(server.db[0].id == 0 && server.db[1].id == 1);
    freeClient(c);
}

/* ------------------------------------------------------------------------
 * Expiry
 * --------------------------------------------------------------------- */

static void testExpireBookkeeping(void) {
    resetData();
    redisDb *db = &server.db[0];
    client *c = createFakeClient();
    sds k = sdsnew("k");
    addKey(db, "k");

    CHECK(getExpire(db, k) == -1);
    CHECK(removeExpire(db, k) == 0);
    setExpire(db, k, T0 + 100);
    CHECK(getExpire(db, k) == T0 + 100);
    setExpire(db, k, T0 + 200);
    CHECK(getExpire(db, k) == T0 + 200);
    CHECK(dictSize(db->expires) == 1);
    /* The expires dict borrows the key's own sds. */
    CHECK(dictFind(db->expires, k)->key == dictFind(db->keys, k)->key);

    /* Expired only once the time is strictly past (Redis: now > when). */
    server.mstime_cache = T0 + 200;
    CHECK(!keyIsExpired(db, k));
    CHECK(expireIfNeeded(db, k) == 0);
    server.mstime_cache = T0 + 201;
    CHECK(keyIsExpired(db, k));

    /* Lazy expiry on lookup: the deletion is a change the reply waits for. */
    uint64_t before = server.change_seq;
    long long expired = server.stat_expiredkeys;
    c->observe_seq = 0;
    CHECK(lookupKeyRead(c, db, k) == NULL);
    CHECK(server.change_seq == before + 1);
    CHECK(db->del_seq == server.change_seq);
    CHECK(c->observe_seq == server.change_seq);
    CHECK(server.stat_expiredkeys == expired + 1);
    CHECK(dictSize(db->keys) == 0 && dictSize(db->expires) == 0);

    /* removeExpire. */
    server.mstime_cache = T0;
    addKey(db, "k");
    setExpire(db, k, T0 + 100);
    CHECK(removeExpire(db, k) == 1);
    CHECK(getExpire(db, k) == -1);
    CHECK(dictSize(db->expires) == 0);

    sdsfree(k);
    freeClient(c);
}

static void testExpireCommands(void) {
    resetData();
    client *c = createFakeClient();
    robj *o = addKey(c->db, "k");

    CHECK_REPLY(run(c, "ttl k"), ":-1\r\n");
    CHECK_REPLY(run(c, "ttl nokey"), ":-2\r\n");
    CHECK_REPLY(run(c, "pexpiretime nokey"), ":-2\r\n");
    CHECK_REPLY(run(c, "expire nokey 10"), ":0\r\n");

    uint64_t before = server.change_seq;
    CHECK_REPLY(run(c, "expire k 10"), ":1\r\n");
    CHECK(server.change_seq == before + 1 && o->mod_seq == server.change_seq);
    CHECK_REPLY(run(c, "ttl k"), ":10\r\n");
    CHECK(c->observe_seq == o->mod_seq);
    CHECK_REPLY(run(c, "pttl k"), ":10000\r\n");
    CHECK_REPLY(run(c, "pexpiretime k"), ":1700000010000\r\n");
    CHECK_REPLY(run(c, "expiretime k"), ":1700000010\r\n");
    server.mstime_cache = T0 + 1499;
    CHECK_REPLY(run(c, "ttl k"), ":9\r\n"); /* 8501 ms rounds to 9 */
    server.mstime_cache = T0;

    /* NX / XX / GT / LT. */
    CHECK_REPLY(run(c, "expire k 20 nx"), ":0\r\n");
    CHECK_REPLY(run(c, "expire k 5 gt"), ":0\r\n");
    CHECK_REPLY(run(c, "expire k 20 gt"), ":1\r\n");
    CHECK_REPLY(run(c, "expire k 30 lt"), ":0\r\n");
    CHECK_REPLY(run(c, "expire k 15 lt"), ":1\r\n");
    CHECK_REPLY(run(c, "ttl k"), ":15\r\n");
    before = server.change_seq;
    CHECK_REPLY(run(c, "persist k"), ":1\r\n");
    CHECK(server.change_seq == before + 1);
    CHECK_REPLY(run(c, "persist k"), ":0\r\n");
    CHECK(server.change_seq == before + 1);
    CHECK_REPLY(run(c, "expire k 5 xx"), ":0\r\n");
    CHECK_REPLY(run(c, "expire k 5 gt"), ":0\r\n"); /* no TTL = infinite */
    CHECK_REPLY(run(c, "expire k 5 lt"), ":1\r\n");
    CHECK_REPLY(run(c, "expire k 50 xx"), ":1\r\n");

    /* Errors. */
    CHECK_REPLY(run(c, "expire k 10 nx xx"),
                "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
    CHECK_REPLY(run(c, "expire k 10 gt lt"), "-ERR GT and LT options at the same time are not compatible\r\n");
    CHECK_REPLY(run(c, "expire k 10 foo"), "-ERR Unsupported option foo\r\n");
    CHECK_REPLY(run(c, "expire k 9223372036854775807"), "-ERR invalid expire time in 'expire' command\r\n");
    CHECK_REPLY(run(c, "pexpire k 9223372036854775807"), "-ERR invalid expire time in 'pexpire' command\r\n");
    CHECK_REPLY(run(c, "expire k abc"), "-ERR value is not an integer or out of range\r\n");

    /* A time not in the future deletes the key. */
    before = server.change_seq;
    CHECK_REPLY(run(c, "pexpireat k 1700000000000"), ":1\r\n");
    CHECK(!exists(c->db, "k"));
    CHECK(server.change_seq == before + 1 && c->db->del_seq == server.change_seq);
    addKey(c->db, "k");
    CHECK_REPLY(run(c, "expire k -1"), ":1\r\n");
    CHECK(!exists(c->db, "k"));
    freeClient(c);
}

static void testActiveExpire(void) {
    resetData();
    redisDb *db = &server.db[2];
    char name[32];
    for (int j = 0; j < 300; j++) {
        snprintf(name, sizeof(name), "k%d", j);
        addKey(db, name);
        sds k = sdsnew(name);
        /* 250 keys already expired, 50 in the future, 10 without TTL. */
        setExpire(db, k, j < 250 ? T0 - 1 - j : T0 + 100000);
        sdsfree(k);
    }
    for (int j = 0; j < 10; j++) {
        snprintf(name, sizeof(name), "p%d", j);
        addKey(db, name);
    }
    long long expired = server.stat_expiredkeys;
    uint64_t before = server.change_seq;
    for (int i = 0; i < 1000 && dictSize(db->expires) > 50; i++) activeExpireCycle();
    CHECK(dictSize(db->expires) == 50);
    CHECK(dictSize(db->keys) == 60);
    CHECK(server.stat_expiredkeys == expired + 250);
    CHECK(server.change_seq == before + 250);
    CHECK(db->del_seq == server.change_seq);
    CHECK(db->avg_ttl > 0);
    /* Nothing more to do: further cycles change nothing. */
    activeExpireCycle();
    CHECK(server.change_seq == before + 250);
}

/* ------------------------------------------------------------------------
 * Transactions
 * --------------------------------------------------------------------- */

static void testMultiExec(void) {
    resetData();
    client *c = createFakeClient();
    addKey(c->db, "a");

    CHECK_REPLY(run(c, "exec"), "-ERR EXEC without MULTI\r\n");
    CHECK_REPLY(run(c, "discard"), "-ERR DISCARD without MULTI\r\n");
    CHECK_REPLY(run(c, "multi"), "+OK\r\n");
    CHECK_REPLY(run(c, "multi"), "-ERR MULTI calls can not be nested\r\n");
    CHECK_REPLY(run(c, "watch a"), "-ERR WATCH inside MULTI is not allowed\r\n");
    CHECK_REPLY(run(c, "exists a"), "+QUEUED\r\n");
    CHECK_REPLY(run(c, "del a"), "+QUEUED\r\n");
    CHECK_REPLY(run(c, "exists a"), "+QUEUED\r\n");
    CHECK(c->mstate.count == 3);
    CHECK(exists(c->db, "a")); /* nothing ran yet */
    CHECK_REPLY(run(c, "exec"), "*3\r\n:1\r\n:1\r\n:0\r\n");
    CHECK(!(c->flags & CLIENT_MULTI));
    CHECK(c->mstate.count == 0);
    CHECK(!server.in_exec);

    /* DISCARD. */
    CHECK_REPLY(run(c, "multi"), "+OK\r\n");
    CHECK_REPLY(run(c, "dbsize"), "+QUEUED\r\n");
    CHECK_REPLY(run(c, "discard"), "+OK\r\n");
    CHECK(!(c->flags & CLIENT_MULTI) && c->mstate.count == 0);

    /* A command that failed to queue aborts the transaction. */
    CHECK_REPLY(run(c, "multi"), "+OK\r\n");
    sds r = run(c, "nosuchcommand");
    sdsfree(r);
    CHECK_REPLY(run(c, "dbsize"), "+QUEUED\r\n");
    CHECK_REPLY(run(c, "exec"), "-EXECABORT Transaction discarded because of previous errors.\r\n");
    CHECK(!(c->flags & (CLIENT_MULTI | CLIENT_DIRTY_EXEC)));

    /* Errors of queued commands are just their replies. */
    addKey(c->db, "b");
    CHECK_REPLY(run(c, "multi"), "+OK\r\n");
    CHECK_REPLY(run(c, "rename nokey x"), "+QUEUED\r\n");
    CHECK_REPLY(run(c, "exists b"), "+QUEUED\r\n");
    CHECK_REPLY(run(c, "exec"), "*2\r\n-ERR no such key\r\n:1\r\n");

    /* An empty transaction. */
    CHECK_REPLY(run(c, "multi"), "+OK\r\n");
    CHECK_REPLY(run(c, "exec"), "*0\r\n");
    freeClient(c);
}

static void testWatch(void) {
    resetData();
    client *a = createFakeClient(), *b = createFakeClient();
    addKey(a->db, "k");

    /* Modified by another client: EXEC fails with a null array. */
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    CHECK(listLength(a->watched_keys) == 1);
    CHECK(dictSize(a->db->watched_keys) == 1);
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n"); /* already watched */
    CHECK(listLength(a->watched_keys) == 1);
    CHECK_REPLY(run(b, "expire k 100"), ":1\r\n");
    CHECK(a->flags & CLIENT_DIRTY_CAS);
    /* A dirty client no longer watches anything. */
    CHECK(listLength(a->watched_keys) == 0);
    CHECK(dictSize(a->db->watched_keys) == 0);
    CHECK_REPLY(run(a, "multi"), "+OK\r\n");
    CHECK_REPLY(run(a, "dbsize"), "+QUEUED\r\n");
    CHECK_REPLY(run(a, "exec"), "*-1\r\n");
    /* The null reply shows the other client's change: it waits for it. */
    CHECK(a->observe_seq == server.change_seq);
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));

    /* Untouched: EXEC runs, and depends on the watched key's state. */
    CHECK_REPLY(run(a, "watch k nokey"), "+OK\r\n");
    CHECK(listLength(a->watched_keys) == 2);
    CHECK_REPLY(run(a, "multi"), "+OK\r\n");
    CHECK_REPLY(run(a, "exists k"), "+QUEUED\r\n");
    CHECK_REPLY(run(a, "exec"), "*1\r\n:1\r\n");
    CHECK(listLength(a->watched_keys) == 0);

    /* Deleting a missing watched key is no change. */
    CHECK_REPLY(run(a, "watch nokey"), "+OK\r\n");
    CHECK_REPLY(run(b, "del nokey"), ":0\r\n");
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));
    /* UNWATCH forgets everything. */
    CHECK_REPLY(run(a, "unwatch"), "+OK\r\n");
    CHECK(dictSize(a->db->watched_keys) == 0);

    /* A key in another db with the same name is another key. */
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    CHECK_REPLY(run(b, "select 1"), "+OK\r\n");
    addKey(b->db, "k");
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));
    /* FLUSHALL touches keys that existed. */
    CHECK_REPLY(run(b, "flushall"), "+OK\r\n");
    CHECK(a->flags & CLIENT_DIRTY_CAS);
    CHECK_REPLY(run(a, "unwatch"), "+OK\r\n");
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));

    /* Two clients on one key; one leaves. */
    addKey(a->db, "k");
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    CHECK_REPLY(run(b, "select 0"), "+OK\r\n");
    CHECK_REPLY(run(b, "watch k"), "+OK\r\n");
    sds key = sdsnew("k");
    CHECK(listLength((list *)dictFetchValue(a->db->watched_keys, key)) == 2);
    freeClient(b);
    CHECK(listLength((list *)dictFetchValue(a->db->watched_keys, key)) == 1);
    signalModifiedKey(NULL, a->db, key, dictFetchValue(a->db->keys, key));
    CHECK(a->flags & CLIENT_DIRTY_CAS);
    CHECK(dictSize(a->db->watched_keys) == 0);
    sdsfree(key);
    freeClient(a);
}

static void testWatchExpiry(void) {
    resetData();
    client *a = createFakeClient();
    redisDb *db = a->db;
    sds k = sdsnew("k");

    /* A watched key that expires before EXEC fails the transaction. */
    addKey(db, "k");
    setExpire(db, k, T0 + 10);
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    server.mstime_cache = T0 + 11;
    CHECK(isWatchedKeyExpired(a));
    CHECK_REPLY(run(a, "multi"), "+OK\r\n");
    CHECK_REPLY(run(a, "exec"), "*-1\r\n");

    /* Already expired when watched: its deletion by expiry is no change. */
    CHECK(exists(db, "k"));
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    CHECK(!isWatchedKeyExpired(a));
    CHECK(expireIfNeeded(db, k) == 1);
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));
    CHECK_REPLY(run(a, "multi"), "+OK\r\n");
    CHECK_REPLY(run(a, "exec"), "*0\r\n");

    /* ... but being created again is. */
    addKey(db, "k");
    setExpire(db, k, T0);
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    CHECK(lookupKeyWrite(NULL, db, k) == NULL); /* expired: deleted */
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));
    addKey(db, "k");
    CHECK(a->flags & CLIENT_DIRTY_CAS);
    CHECK_REPLY(run(a, "unwatch"), "+OK\r\n");

    /* SWAPDB bringing in an expired key for a missing one: no change. */
    emptyData(-1, NULL);
    addKey(&server.db[1], "k");
    setExpire(&server.db[1], k, T0);
    CHECK_REPLY(run(a, "watch k"), "+OK\r\n");
    CHECK_REPLY(run(a, "swapdb 0 1"), "+OK\r\n");
    CHECK(!(a->flags & CLIENT_DIRTY_CAS));
    CHECK_REPLY(run(a, "multi"), "+OK\r\n");
    CHECK_REPLY(run(a, "exec"), "*0\r\n");

    sdsfree(k);
    freeClient(a);
}

int test_db(void) {
    failures = 0;
    setUp();
    testAddLookupDelete();
    testGenericCommands();
    testRename();
    testScan();
    testSwapdb();
    testExpireBookkeeping();
    testExpireCommands();
    testActiveExpire();
    testMultiExec();
    testWatch();
    testWatchExpiry();
    tearDown();
    return failures;
}
