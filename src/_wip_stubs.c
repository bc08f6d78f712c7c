/* TEMPORARY (lead): weak stand-ins so the tree links while modules are
 * being written in parallel. Every symbol here is overridden by the real
 * module. This file is deleted before the work lands. */
#include "server.h"
#include "commit.h"
#include <stdlib.h>
#include <string.h>

#define W __attribute__((weak))
W struct redisCommand dbCommandTable[] = {{0}};
W struct redisCommand multiCommandTable[] = {{0}};
W struct redisCommand streamCommandTable[] = {{0}};
W struct redisCommand configCommandTable[] = {{0}};
W struct redisCommand commandCommandTable[] = {{0}};
W struct redisCommand infoCommandTable[] = {{0}};
W void attachCommandDocs(void) {}
W void trackInstantaneousMetrics(void) {}
W void initDbs(void) {
    server.db = zcalloc(sizeof(redisDb) * (size_t)server.cfg.databases);
    for (int i = 0; i < server.cfg.databases; i++) {
        server.db[i].id = i;
        server.db[i].keys = dictCreate(&sdsKeyDictType);
    }
}
W void activeExpireCycle(void) {}
W int selectDb(client *c, int id) { c->db = &server.db[id]; return C_OK; }
W void initClientMultiState(client *c) { (void)c; }
W void freeClientMultiState(client *c) { (void)c; }
W void queueMultiCommand(client *c) { (void)c; }
W void discardTransaction(client *c) { (void)c; }
W void flagTransaction(client *c) { (void)c; }
W void unwatchAllKeys(client *c) { (void)c; }
W void unblockClient(client *c) { (void)c; }
W void unblockClientOnTimeout(client *c) { (void)c; }
W void unblockClientOnError(client *c, const char *err) { (void)c; (void)err; }
W void handleClientsBlockedOnKeys(void) {}
W void initServerConfig(void) {
    server.cfg.bind = zstrdup("127.0.0.1 -::1");
    server.cfg.port = 6379;
    server.cfg.tcp_backlog = 511;
    server.cfg.tcp_keepalive = 300;
    server.cfg.maxclients = 10000LL;
    server.cfg.databases = 16;
    server.cfg.proto_max_bulk_len = 512LL * 1024 * 1024;
    server.cfg.client_max_querybuf_len = 1024LL * 1024 * 1024;
    server.cfg.hz = 10;
    server.cfg.verbosity = LL_NOTICE;
    server.cfg.active_expire = 1;
}
W int loadServerConfig(const char *filename, const char *options, sds *err) {
    (void)filename; (void)err;
    int n;
    sds *lines = NULL;
    (void)lines; (void)n;
    const char *p = strstr(options, "port ");
    if (p) server.cfg.port = atoi(p + 5 + (p[5] == 0x22));
    return C_OK;
}
W int commitInit(sds *err) { (void)err; return C_OK; }
W void commitBeforeSleep(void) {
    if (server.durable_seq != server.change_seq) {
        server.durable_seq = server.change_seq;
        releaseHeldReplies();
    }
}
W void commitCron(void) {}
W sds commitInfoString(sds s) { return s; }
W int commitFlushAndClose(void) { return C_OK; }
W uint64_t commitCoveredSeq(void) { return server.durable_seq; }
