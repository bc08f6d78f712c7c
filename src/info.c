/* info.c -- the INFO command, and the statistics behind it.
 *
 * INFO speaks Redis's format ("# Section" headers, "field:value" lines,
 * CRLF line ends) with Redis's section names, so monitoring tools and client
 * libraries that parse it keep working. Fields describe casq truthfully: a
 * field that would describe a Redis feature casq does not have (RDB, AOF,
 * replicas) is left out rather than invented; the few such fields that
 * clients commonly check (role, loading, maxmemory_policy, cluster_enabled)
 * are reported with casq's real value. The persistence section is the
 * commit module's (commitInfoString): broker role, epoch, commit latency. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event2/event.h>

#include "broker.h"
#include "commit.h"
#include "config.h"
#include "server.h"

/* ========================================================================
 * Instantaneous metrics
 * ===================================================================== */

#define STATS_METRIC_PERIOD_MS 100

static long long instantaneousMetricReading(int metric) {
    switch (metric) {
    case STATS_METRIC_COMMAND:
        return server.stat_numcommands;
    case STATS_METRIC_NET_INPUT:
        return server.stat_net_input_bytes;
    default:
        return server.stat_net_output_bytes;
    }
}

/* Redis's sampling: every 100 ms each counter's rate since the previous
 * sample goes into a ring of STATS_METRIC_SAMPLES slots; INFO reports the
 * ring's average, a rate over the last 1.6 seconds. */
void trackInstantaneousMetrics(void) {
    long long now = mstime();

    if (now - server.inst_metric[0].last_sample_time < STATS_METRIC_PERIOD_MS) return;
    for (int m = 0; m < STATS_METRIC_COUNT; m++) {
        long long reading = instantaneousMetricReading(m);
        long long elapsed = now - server.inst_metric[m].last_sample_time;
        long long delta = reading - server.inst_metric[m].last_sample_count;
        long long per_sec = elapsed > 0 ? delta * 1000 / elapsed : 0;

        server.inst_metric[m].samples[server.inst_metric[m].idx] = per_sec;
        server.inst_metric[m].idx = (server.inst_metric[m].idx + 1) % STATS_METRIC_SAMPLES;
        server.inst_metric[m].last_sample_time = now;
        server.inst_metric[m].last_sample_count = reading;
    }
}

static long long getInstantaneousMetric(int metric) {
    long long sum = 0;
    for (int j = 0; j < STATS_METRIC_SAMPLES; j++) sum += server.inst_metric[metric].samples[j];
    return sum / STATS_METRIC_SAMPLES;
}

/* ========================================================================
 * CONFIG RESETSTAT
 * ===================================================================== */

static void resetCommandStats(struct redisCommand *cmd) {
    cmd->calls = 0;
    cmd->microseconds = 0;
    cmd->rejected_calls = 0;
    cmd->failed_calls = 0;
}

void resetServerStats(void) {
    server.stat_numcommands = 0;
    server.stat_numconnections = 0;
    server.stat_rejected_conn = 0;
    server.stat_acl_denied_auth = server.stat_acl_denied_cmd = 0;
    server.stat_acl_denied_key = server.stat_acl_denied_channel = 0;
    server.stat_expiredkeys = 0;
    server.stat_keyspace_hits = 0;
    server.stat_keyspace_misses = 0;
    server.stat_net_input_bytes = 0;
    server.stat_net_output_bytes = 0;
    server.stat_total_error_replies = 0;
    server.stat_unexpected_error_replies = 0;
    server.stat_client_qbuf_limit_disconnections = 0;
    server.stat_client_outbuf_limit_disconnections = 0;
    memset(server.inst_metric, 0, sizeof(server.inst_metric));
    if (server.errors) dictEmpty(server.errors);
    if (!server.commands) return;

    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it)) != NULL) {
        struct redisCommand *cmd = de->val;
        resetCommandStats(cmd);
        if (!cmd->subcommands) continue;
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) resetCommandStats(sub);
    }
}

/* ========================================================================
 * Sections
 * ===================================================================== */

/* "1.23M" style, as Redis's bytesToHuman. */
static sds bytesToHuman(sds s, long long n) {
    double d = (double)n;
    if (n < 1024) return sdscatprintf(s, "%lldB", n);
    if (n < 1024LL * 1024) return sdscatprintf(s, "%.2fK", d / 1024);
    if (n < 1024LL * 1024 * 1024) return sdscatprintf(s, "%.2fM", d / (1024.0 * 1024));
    if (n < 1024LL * 1024 * 1024 * 1024) return sdscatprintf(s, "%.2fG", d / (1024.0 * 1024 * 1024));
    return sdscatprintf(s, "%.2fT", d / (1024.0 * 1024 * 1024 * 1024));
}
/* An INFO listener line of a TCP kind: its bind addresses and port. */
static sds catTcpListener(sds s, int n, const char *name, int port) {
    s = sdscatprintf(s, "listener%d:name=%s", n, name);
    int argc;
    sds *addrs = sdssplitargs(server.cfg.bind ? server.cfg.bind : "", &argc);
    for (int j = 0; addrs && j < argc; j++) s = sdscatprintf(s, ",bind=%s", addrs[j]);
    if (addrs) sdsfreesplitres(addrs, argc);
    return sdscatprintf(s, ",port=%d\r\n", port);
}


static sds genServerSection(sds s) {
    static struct utsname name;
    static int have_uname = 0;
    long long uptime = (server.mstime_cache - server.start_time_ms) / 1000;

    if (!have_uname) have_uname = uname(&name) == 0;
    s = sdscatprintf(s,
                     "redis_version:%s\r\n"
                     "redis_git_sha1:00000000\r\n"
                     "redis_git_dirty:0\r\n"
                     "redis_mode:standalone\r\n"
                     "casq_version:%s\r\n"
                     "os:%s %s %s\r\n"
                     "arch_bits:%d\r\n"
                     "multiplexing_api:%s\r\n"
                     "gcc_version:%d.%d.%d\r\n"
                     "process_id:%lld\r\n"
                     "process_supervised:no\r\n"
                     "run_id:%s\r\n"
                     "tcp_port:%d\r\n"
                     "server_time_usec:%lld\r\n"
                     "uptime_in_seconds:%lld\r\n"
                     "uptime_in_days:%lld\r\n"
                     "hz:%d\r\n"
                     "configured_hz:%d\r\n"
                     "lru_clock:%u\r\n"
                     "executable:%s\r\n"
                     "config_file:%s\r\n"
                     "io_threads_active:0\r\n",
                     REDIS_COMPAT_VERSION, CASQ_VERSION, have_uname ? name.sysname : "", have_uname ? name.release : "",
                     have_uname ? name.machine : "", (int)(sizeof(long) * 8),
                     server.el ? event_base_get_method(server.el) : "",
#ifdef __GNUC__
                     __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
#else
                     0, 0, 0,
#endif
                     (long long)getpid(), server.runid, server.cfg.port, ustime(), uptime, uptime / 86400,
                     server.cfg.hz, server.cfg.hz, LRU_CLOCK(), server.executable ? server.executable : "",
                     server.cfg.configfile ? server.cfg.configfile : "");

    /* Redis 7.2's listener lines: one per kind of listening socket. */
    int listener = 0;
    if (server.cfg.port) s = catTcpListener(s, listener++, "tcp", server.cfg.port);
    if (server.cfg.unixsocket) s = sdscatprintf(s, "listener%d:name=unix,bind=%s\r\n", listener++, server.cfg.unixsocket);
    if (server.cfg.tls_port) s = catTcpListener(s, listener++, "tls", server.cfg.tls_port);
    return s;
}

static sds genClientsSection(sds s) {
    size_t max_in = 0, max_out = 0;
    long connected = 0, in_timeout_table = 0;
    long long blocking_keys = 0;

    if (server.clients) {
        for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
            client *c = ln->value;
            if (c->flags & CLIENT_FAKE) continue;
            connected++;
            if (c->querybuf_peak > max_in) max_in = c->querybuf_peak;
            if (c->reply_bytes > max_out) max_out = c->reply_bytes;
            if ((c->flags & CLIENT_BLOCKED) && c->bstate.timeout) in_timeout_table++;
        }
    }
    for (int j = 0; server.db && j < server.cfg.databases; j++)
        if (server.db[j].blocking_keys) blocking_keys += dictSize(server.db[j].blocking_keys);

    return sdscatprintf(s,
                        "connected_clients:%ld\r\n"
                        "cluster_connections:0\r\n"
                        "maxclients:%lld\r\n"
                        "client_recent_max_input_buffer:%zu\r\n"
                        "client_recent_max_output_buffer:%zu\r\n"
                        "blocked_clients:%d\r\n"
                        "tracking_clients:0\r\n"
                        "clients_in_timeout_table:%ld\r\n"
                        "total_blocking_keys:%lld\r\n",
                        connected, server.cfg.maxclients, max_in, max_out, server.blocked_clients, in_timeout_table,
                        blocking_keys);
}

static long long totalSystemMemory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
    return pages > 0 && pagesize > 0 ? (long long)pages * pagesize : 0;
}

static sds genMemorySection(sds s) {
    long long used = (long long)zmalloc_used_memory();
    long long rss = (long long)zmalloc_get_rss();
    long long sysmem = totalSystemMemory();

    if (used > server.stat_peak_memory) server.stat_peak_memory = used;
    long long peak = server.stat_peak_memory;

    s = sdscatprintf(s, "used_memory:%lld\r\nused_memory_human:", used);
    s = bytesToHuman(s, used);
    s = sdscatprintf(s, "\r\nused_memory_rss:%lld\r\nused_memory_rss_human:", rss);
    s = bytesToHuman(s, rss);
    s = sdscatprintf(s, "\r\nused_memory_peak:%lld\r\nused_memory_peak_human:", peak);
    s = bytesToHuman(s, peak);
    s = sdscatprintf(s, "\r\nused_memory_peak_perc:%.2f%%\r\ntotal_system_memory:%lld\r\ntotal_system_memory_human:",
                     peak ? (double)used * 100 / (double)peak : 0.0, sysmem);
    s = bytesToHuman(s, sysmem);
    /* casq never evicts: its only policy is "noeviction". */
    s = sdscatprintf(s, "\r\nmaxmemory:%lld\r\nmaxmemory_human:", server.cfg.maxmemory);
    s = bytesToHuman(s, server.cfg.maxmemory);
    /* Scripting (eval.c, functions.c): the Lua interpreters allocate with
     * malloc, outside used_memory, as Redis's. */
    size_t vm_eval = scriptingLuaMemory(), vm_fn = functionsMemory();
    size_t scripts = scriptingCacheBytes() + functionsCodeMemory();
    s = sdscatprintf(s, "\r\nused_memory_lua:%zu\r\nused_memory_vm_eval:%zu\r\nused_memory_lua_human:", vm_eval, vm_eval);
    s = bytesToHuman(s, (long long)vm_eval);
    s = sdscatprintf(s,
                     "\r\nused_memory_scripts_eval:%zu\r\nnumber_of_cached_scripts:%lld\r\nnumber_of_functions:%d"
                     "\r\nnumber_of_libraries:%d\r\nused_memory_vm_functions:%zu\r\nused_memory_vm_total:%zu\r\nused_memory_vm_total_human:",
                     scriptingCacheBytes(), scriptingCachedScripts(), functionsFunctionCount(), functionsCount(), vm_fn,
                     vm_eval + vm_fn);
    s = bytesToHuman(s, (long long)(vm_eval + vm_fn));
    s = sdscatprintf(s, "\r\nused_memory_functions:%zu\r\nused_memory_scripts:%zu\r\nused_memory_scripts_human:",
                     functionsCodeMemory(), scripts);
    s = bytesToHuman(s, (long long)scripts);
    return sdscatprintf(s,
                        "\r\nmaxmemory_policy:noeviction\r\n"
                        "mem_fragmentation_ratio:%.2f\r\n"
                        "mem_allocator:libc\r\n",
                        used ? (double)rss / (double)used : 0.0);
}

static sds genPersistenceSection(sds s) {
    /* ioredis waits while loading:1 (a reload after losing the broker
     * role); commands meanwhile get -LOADING. */
    s = sdscatprintf(s, "loading:%d\r\nasync_loading:0\r\n", server.loading ? 1 : 0);
    return commitInfoString(s);
}

static sds genStatsSection(sds s) {
    return sdscatprintf(s,
                        "total_connections_received:%lld\r\n"
                        "total_commands_processed:%lld\r\n"
                        "instantaneous_ops_per_sec:%lld\r\n"
                        "total_net_input_bytes:%lld\r\n"
                        "total_net_output_bytes:%lld\r\n"
                        "instantaneous_input_kbps:%.2f\r\n"
                        "instantaneous_output_kbps:%.2f\r\n"
                        "rejected_connections:%lld\r\n"
                        "expired_keys:%lld\r\n"
                        "evicted_keys:0\r\n"
                        "keyspace_hits:%lld\r\n"
                        "keyspace_misses:%lld\r\n"
                        "pubsub_channels:%lu\r\n"
                        "pubsub_patterns:%lu\r\n"
                        "pubsubshard_channels:%lu\r\n"
                        "client_query_buffer_limit_disconnections:%lld\r\n"
                        "client_output_buffer_limit_disconnections:%lld\r\n"
                        "unexpected_error_replies:%lld\r\n"
                        "total_error_replies:%lld\r\n"
                        "acl_access_denied_auth:%lld\r\n"
                        "acl_access_denied_cmd:%lld\r\n"
                        "acl_access_denied_key:%lld\r\n"
                        "acl_access_denied_channel:%lld\r\n",
                        server.stat_numconnections, server.stat_numcommands,
                        getInstantaneousMetric(STATS_METRIC_COMMAND), server.stat_net_input_bytes,
                        server.stat_net_output_bytes, (double)getInstantaneousMetric(STATS_METRIC_NET_INPUT) / 1024,
                        (double)getInstantaneousMetric(STATS_METRIC_NET_OUTPUT) / 1024, server.stat_rejected_conn,
                        server.stat_expiredkeys, server.stat_keyspace_hits, server.stat_keyspace_misses,
                        pubsubTotalChannels(0), pubsubTotalChannels(1), pubsubTotalChannels(2),
                        server.stat_client_qbuf_limit_disconnections, server.stat_client_outbuf_limit_disconnections,
                        server.stat_unexpected_error_replies, server.stat_total_error_replies,
                        server.stat_acl_denied_auth, server.stat_acl_denied_cmd, server.stat_acl_denied_key,
                        server.stat_acl_denied_channel);
}

/* casq has no replication: every node that is not the broker forwards to
 * it (see the persistence section for the broker picture). */
static sds genReplicationSection(sds s) {
    return sdscatprintf(s,
                        "role:master\r\n"
                        "connected_slaves:0\r\n"
                        "master_failover_state:no-failover\r\n"
                        "master_replid:%s\r\n"
                        "master_replid2:0000000000000000000000000000000000000000\r\n"
                        "master_repl_offset:0\r\n"
                        "second_repl_offset:-1\r\n"
                        "repl_backlog_active:0\r\n",
                        server.runid);
}

static double timevalSeconds(struct timeval tv) {
    return (double)tv.tv_sec + (double)tv.tv_usec / 1000000;
}

static sds genCpuSection(sds s) {
    struct rusage self, children, thread;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    getrusage(RUSAGE_THREAD, &thread); /* INFO runs on the main thread */
    return sdscatprintf(s,
                        "used_cpu_sys:%f\r\n"
                        "used_cpu_user:%f\r\n"
                        "used_cpu_sys_children:%f\r\n"
                        "used_cpu_user_children:%f\r\n"
                        "used_cpu_sys_main_thread:%f\r\n"
                        "used_cpu_user_main_thread:%f\r\n",
                        timevalSeconds(self.ru_stime), timevalSeconds(self.ru_utime),
                        timevalSeconds(children.ru_stime), timevalSeconds(children.ru_utime),
                        timevalSeconds(thread.ru_stime), timevalSeconds(thread.ru_utime));
}

static sds catCommandStats(sds s, struct redisCommand *cmd) {
    if (!cmd->calls && !cmd->failed_calls && !cmd->rejected_calls) return s;
    return sdscatprintf(s, "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,failed_calls=%lld\r\n",
                        cmd->fullname ? cmd->fullname : cmd->name, cmd->calls, cmd->microseconds,
                        cmd->calls ? (double)cmd->microseconds / (double)cmd->calls : 0.0, cmd->rejected_calls,
                        cmd->failed_calls);
}

static sds genCommandstatsSection(sds s) {
    if (!server.commands) return s;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it)) != NULL) {
        struct redisCommand *cmd = de->val;
        s = catCommandStats(s, cmd);
        if (!cmd->subcommands) continue;
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) s = catCommandStats(s, sub);
    }
    return s;
}

static sds genErrorstatsSection(sds s) {
    if (!server.errors) return s;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.errors);
    while ((de = dictNext(&it)) != NULL)
        s = sdscatprintf(s, "errorstat_%s:count=%lld\r\n", (char *)de->key, (long long)(intptr_t)de->val);
    return s;
}

static sds genClusterSection(sds s) {
    return sdscat(s, "cluster_enabled:0\r\n");
}

static sds genKeyspaceSection(sds s) {
    for (int j = 0; server.db && j < server.cfg.databases; j++) {
        redisDb *db = &server.db[j];
        long long keys = db->keys ? (long long)dictSize(db->keys) : 0;
        long long expires = db->expires ? (long long)dictSize(db->expires) : 0;
        if (keys == 0) continue;
        s = sdscatprintf(s, "db%d:keys=%lld,expires=%lld,avg_ttl=%lld\r\n", j, keys, expires, db->avg_ttl);
    }
    return s;
}

static sds genModulesSection(sds s) {
    return s; /* casq has no modules */
}

/* ========================================================================
 * Putting INFO together
 * ===================================================================== */

#define INFO_DEFAULT (1 << 0) /* part of plain INFO */
#define INFO_ALL (1 << 1)     /* part of INFO all / everything */

typedef struct infoSection {
    const char *name;   /* as INFO takes it, lower case */
    const char *title;  /* its "# Title" line */
    int flags;          /* INFO_DEFAULT, INFO_ALL */
    sds (*gen)(sds s);  /* appends the section's fields */
} infoSection;

/* In output order. */
static const infoSection infoSections[] = {
    {"server", "Server", INFO_DEFAULT | INFO_ALL, genServerSection},
    {"clients", "Clients", INFO_DEFAULT | INFO_ALL, genClientsSection},
    {"memory", "Memory", INFO_DEFAULT | INFO_ALL, genMemorySection},
    {"persistence", "Persistence", INFO_DEFAULT | INFO_ALL, genPersistenceSection},
    {"broker", "Broker", INFO_DEFAULT | INFO_ALL, brokerInfoString},
    {"stats", "Stats", INFO_DEFAULT | INFO_ALL, genStatsSection},
    {"replication", "Replication", INFO_DEFAULT | INFO_ALL, genReplicationSection},
    {"cpu", "CPU", INFO_DEFAULT | INFO_ALL, genCpuSection},
    {"modules", "Modules", INFO_DEFAULT | INFO_ALL, genModulesSection},
    {"commandstats", "Commandstats", INFO_ALL, genCommandstatsSection},
    {"errorstats", "Errorstats", INFO_DEFAULT | INFO_ALL, genErrorstatsSection},
    {"cluster", "Cluster", INFO_DEFAULT | INFO_ALL, genClusterSection},
    {"keyspace", "Keyspace", INFO_DEFAULT | INFO_ALL, genKeyspaceSection},
    {NULL, NULL, 0, NULL}};

/* Which sections the arguments ask for: names, "default", "all",
 * "everything" (casq has no module sections, so it equals "all"). Unknown
 * names select nothing, as in Redis. */
static int infoSectionWanted(const infoSection *sec, sds *args, int nargs) {
    if (nargs == 0) return sec->flags & INFO_DEFAULT;
    for (int j = 0; j < nargs; j++) {
        if (!strcasecmp(args[j], "default") && (sec->flags & INFO_DEFAULT)) return 1;
        if ((!strcasecmp(args[j], "all") || !strcasecmp(args[j], "everything")) && (sec->flags & INFO_ALL)) return 1;
        if (!strcasecmp(args[j], sec->name)) return 1;
    }
    return 0;
}

sds genCasqInfoString(sds *sections, int numsections) {
    sds s = sdsempty();
    int emitted = 0;

    for (const infoSection *sec = infoSections; sec->name; sec++) {
        if (!infoSectionWanted(sec, sections, numsections)) continue;
        if (emitted++) s = sdscat(s, "\r\n");
        s = sdscatprintf(s, "# %s\r\n", sec->title);
        s = sec->gen(s);
    }
    return s;
}

/* INFO [section ...] */
static void infoCommand(client *c) {
    sds info = genCasqInfoString(c->argv + 1, c->argc - 1);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}

struct redisCommand infoCommandTable[] = {
    {"info", infoCommand, -1, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow dangerous", NULL},
    {0}};
