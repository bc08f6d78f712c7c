/* server.h -- casq's core types: the server, clients, databases, commands.
 *
 * casq is single-threaded like Redis: one libevent loop reads commands,
 * executes them one at a time against the in-memory state, and writes
 * replies. What casq adds is that a reply is only *released* once the state
 * it shows is durable (design.md §4): every change bumps server.change_seq,
 * every reply is tagged with the change sequence it depends on, and the
 * commit module advances server.durable_seq when a group commit lands. */
#ifndef CASQ_SERVER_H
#define CASQ_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "adlist.h"
#include "dict.h"
#include "sds.h"
#include "zmalloc.h"

struct event_base;
struct event;
struct connection;

#define CASQ_VERSION "0.1.0"
/* What INFO's redis_version and HELLO's "version" report: clients gate
 * features on it, and casq implements Redis 7.2's stream semantics. */
#define REDIS_COMPAT_VERSION "7.2.4"

#define C_OK 0
#define C_ERR (-1)

/* ------------------------------------------------------------------------
 * Limits and defaults
 * --------------------------------------------------------------------- */
#define PROTO_IOBUF_LEN (16 * 1024)        /* read chunk size */
#define PROTO_INLINE_MAX_SIZE (64 * 1024)  /* inline request size limit */
#define PROTO_MBULK_BIG_ARG (32 * 1024)
#define PROTO_REPLY_CHUNK_BYTES (16 * 1024) /* reply block size */
#define CONFIG_DEFAULT_PORT 6379
#define CONFIG_DEFAULT_DBNUM 16
#define CONFIG_DEFAULT_MAXCLIENTS 10000
#define CONFIG_DEFAULT_HZ 10
#define LONG_STR_SIZE 21
#define CONFIG_RUN_ID_SIZE 40

/* INFO's instantaneous metrics (info.c): rates sampled every 100 ms. */
#define STATS_METRIC_SAMPLES 16
#define STATS_METRIC_COMMAND 0    /* commands processed */
#define STATS_METRIC_NET_INPUT 1  /* bytes read from clients */
#define STATS_METRIC_NET_OUTPUT 2 /* bytes written to clients */
#define STATS_METRIC_COUNT 3

/* Log levels, as Redis's. */
#define LL_DEBUG 0
#define LL_VERBOSE 1
#define LL_NOTICE 2
#define LL_WARNING 3
#define LL_RAW (1 << 10)

/* Stream ID modes for XADD (design.md §2). */
#define STREAM_ID_MODE_STRICT 0
#define STREAM_ID_MODE_SEMI_STRICT 1
#define STREAM_ID_MODE_LIBERAL 2

/* ------------------------------------------------------------------------
 * Objects: a key holds one value of one type. The type codes are Redis's
 * (OBJ_STRING .. OBJ_STREAM), and every type describes itself with an
 * objectType (below): one row of data per type, as Redis's type methods.
 * --------------------------------------------------------------------- */
#define OBJ_STRING 0 /* t_string.c */
#define OBJ_LIST 1   /* t_list.c */
#define OBJ_SET 2    /* t_set.c */
#define OBJ_ZSET 3   /* t_zset.c */
#define OBJ_HASH 4   /* t_hash.c */
#define OBJ_STREAM 6 /* t_stream.c */
#define OBJ_TYPE_MAX 7

typedef struct robj {
    unsigned type : 4; /* OBJ_* */
    unsigned lru : 24; /* LRU clock (seconds, 24 bits, as Redis) of the last
                        * access: OBJECT IDLETIME */
    uint32_t seg;      /* keyseg.c: id of the key segment that holds this
                        * key's value, 0 if the root holds it inline */
    void *ptr;         /* the value, as its type module represents it
                        * (a stream* for OBJ_STREAM ...) */
    uint64_t mod_seq;  /* server.change_seq of the last change to this key */
} robj;

struct storeDoc;
struct cJSON;
struct chunkSealPlan;

#define SEGMENT_MERGE_NO 0 /* segment-merge */
#define SEGMENT_MERGE_YES 1
#define ENABLE_DEBUG_NO 0
#define ENABLE_DEBUG_YES 1
#define COMMIT_DEBUG_DELAY_MAX_MS 60000 /* commit-debug-delay's bound */

/* What the generic code (db.c, object.c, persist.c) needs to know of a
 * type. Every type module defines one (e.g. streamObjectType) and lists it
 * in object.c's objectTypes[]. */
typedef struct objectType {
    int type;                                  /* OBJ_* */
    const char *name;                          /* TYPE's reply; the state
                                                * document's "type", and the
                                                * name of the key's value
                                                * field there */
    void (*free)(void *ptr);                   /* frees a value */
    void *(*dup)(const void *ptr);             /* deep copy (COPY) */
    const char *(*encoding)(const robj *o);    /* OBJECT ENCODING */
    /* MEMORY USAGE: the value's bytes, Redis's sampling rule (samples 0 =
     * all), without the robj itself. */
    size_t (*computeSize)(const robj *o, long long samples);
    /* --- the state document (persist.c, docs/state-format.md) --- */
    /* An upper bound of the value's JSON size, cheap: persist.c caches
     * the JSON of small values between commits. */
    size_t (*jsonBytes)(const robj *o);
    /* Appends the value's JSON to out. */
    sds (*catJSON)(sds out, robj *o);
    /* The same into a document being built for a write; a type that keeps
     * its JSON in chunks borrows them (docTextRef in persist.h) instead of
     * copying. NULL: catJSON into d->own. */
    void (*docJSON)(struct storeDoc *d, robj *o);
    /* Builds a value from its document JSON, validating everything; NULL
     * with *err set (a message without the key's path) on any problem.
     * Never crashes on hostile input. */
    void *(*fromJSON)(const struct cJSON *v, sds *err);
    /* Offers the chunks that may be sealed in a chunk segment
     * (chunkSealOffer in chunkseg.h): lists, sorted sets, hashes and sets;
     * NULL for the others. */
    void (*sealChunks)(robj *o, struct chunkSealPlan *p);
} objectType;

/* The row of a type code / a document type name; NULL if unknown. */
const objectType *objectTypeGet(int type);
const objectType *objectTypeByName(const char *name);

/* ------------------------------------------------------------------------
 * Databases
 * --------------------------------------------------------------------- */
typedef struct redisDb {
    dict *keys;           /* sds key -> robj* (the keyspace) */
    dict *expires;        /* sds key (not owned, shared with keys) -> (void*)(intptr_t)unix ms */
    dict *blocking_keys;  /* sds key (owned) -> blocked.c's waiters for it */
    dict *watched_keys;   /* sds key (owned) -> list of multi.c's watchedKey*,
                           * one per client WATCHing it */
    int id;               /* index, 0..databases-1 */
    uint64_t del_seq;     /* change_seq of the last key removal in this db:
                           * a read of a missing key depends on it */
    uint64_t mod_seq;     /* change_seq of the last change of any kind here:
                           * whole-db reads (KEYS, SCAN, DBSIZE) depend on it */
    dict *inline_keys;    /* keyseg.c: sds key (not owned, shared with keys)
                           * -> robj*, the keys whose value the root holds
                           * inline (not sealed in a key segment) */
    struct list *keysegs; /* keyseg.c: this db's key segments (keySegment*) */
    dict *log_deleted;    /* commit log: sds key (owned) -> NULL, the keys
                           * removed since the commit in flight started
                           * (only while server.log_tracking) */
    dict *log_deleted_flight; /* ... and those the commit in flight writes */
    unsigned long expires_cursor; /* active-expire scan position */
    long long avg_ttl;    /* for INFO keyspace */
} redisDb;

/* ------------------------------------------------------------------------
 * Clients
 * --------------------------------------------------------------------- */

/* Client flags */
#define CLIENT_MULTI (1 << 0)          /* in MULTI */
#define CLIENT_DIRTY_CAS (1 << 1)      /* a WATCHed key changed: EXEC fails */
#define CLIENT_DIRTY_EXEC (1 << 2)     /* a command failed to queue: EXECABORT */
#define CLIENT_CLOSE_AFTER_REPLY (1 << 3) /* close once the reply is written */
#define CLIENT_CLOSE_ASAP (1 << 4)     /* close in beforeSleep, no more replies */
#define CLIENT_BLOCKED (1 << 5)        /* blocked in XREAD/XREADGROUP */
#define CLIENT_UNIX_SOCKET (1 << 6)    /* connected over the unix socket */
#define CLIENT_PENDING_WRITE (1 << 7)  /* in server.clients_pending_write */
#define CLIENT_PROTOCOL_ERROR (1 << 8) /* stop parsing, close after reply */
#define CLIENT_REPLY_OFF (1 << 9)      /* CLIENT REPLY OFF */
#define CLIENT_REPLY_SKIP_NEXT (1 << 10) /* CLIENT REPLY SKIP: skip next */
#define CLIENT_REPLY_SKIP (1 << 11)    /* skip the reply of this command */
#define CLIENT_EXECUTING (1 << 12)     /* a command is running for it */
#define CLIENT_REEXECUTING (1 << 13)   /* re-running a blocked command */
#define CLIENT_HELD (1 << 14)          /* in server.clients_waiting_commit */
#define CLIENT_NO_EVICT (1 << 15)
#define CLIENT_FAKE (1 << 16)          /* no connection (tests, loading) */
#define CLIENT_MONITOR (1 << 17)       /* MONITOR: gets every command (monitor.c) */
#define CLIENT_NO_TOUCH (1 << 18)      /* CLIENT NO-TOUCH on: reads keep OBJECT IDLETIME */
#define CLIENT_PUBSUB (1 << 19)        /* has pub/sub subscriptions (pubsub.c) */

#define PROTO_REQ_INLINE 1
#define PROTO_REQ_MULTIBULK 2

/* A block of reply bytes, tagged with the change sequence number that must be
 * durable before the bytes may be sent (design.md §4). Blocks form a FIFO per
 * client; the writer stops at the first block whose need_seq is not durable,
 * so replies on one connection keep their order. */
typedef struct replyBlock {
    struct replyBlock *next; /* next block in the client's FIFO */
    uint64_t need_seq;       /* send only once server.durable_seq >= need_seq */
    int nreplies;            /* complete command replies in this block; if the
                              * commit fails each is replaced by an error */
    size_t size;             /* bytes allocated in buf */
    size_t used;             /* bytes filled */
    char buf[];
} replyBlock;

typedef struct multiCmd {
    sds *argv;                 /* the queued command's arguments */
    int argc;                  /* their count */
    struct redisCommand *cmd;  /* resolved command */
} multiCmd;

typedef struct multiState {
    multiCmd *commands; /* queued in MULTI */
    int count;          /* how many */
    int alloc;          /* allocated slots */
} multiState;

/* What a client blocked in XREAD/XREADGROUP waits for. */
typedef struct blockingState {
    long long timeout;      /* absolute unix ms, 0 = forever */
    dict *keys;             /* sds key -> waiter record (blocked.c): keys we
                             * wait on; NULL when not blocked */
    struct event *timer;    /* fires on timeout (NULL when BLOCK 0) */
    int unblock_error;      /* set by CLIENT UNBLOCK ERROR before re-run */
    long long blocked_at_us;/* when it blocked, for stats */
    uint64_t block_seq;     /* server.change_seq when it blocked: a timeout
                             * reply waits for what the command changed */
    int timeout_reply;      /* what a timeout replies: BLOCK_REPLY_* */
} blockingState;

#define MAXMEMORY_NOEVICTION 0

#define BLOCK_REPLY_NULL 0    /* XREAD / XREADGROUP: a null array */
#define BLOCK_REPLY_WAIT 1    /* WAIT: 0 replicas acknowledged */
#define BLOCK_REPLY_WAITAOF 2 /* WAITAOF: [1, 0] (local durable, no replica) */

typedef struct client {
    uint64_t id;               /* CLIENT ID */
    int fd;                    /* socket, -1 for fake clients */
    struct connection *conn;   /* reads/writes fd (connection.h), NULL for fake clients */
    struct event *read_ev;     /* readable event (persistent) */
    struct event *write_ev;    /* writable event, armed when a write is short */
    int resp;                  /* 2 or 3 (HELLO) */
    int authenticated;         /* AUTH passed (or no requirepass) */
    struct aclUser *user;      /* ACL user (acl.c), NULL = "default" */
    sds auth_pass;             /* that user's password, for a follower's
                                * relay to the broker (broker.c), or NULL */
    redisDb *db;               /* SELECTed database */
    sds name;                  /* CLIENT SETNAME */
    sds lib_name;              /* CLIENT SETINFO LIB-NAME */
    sds lib_ver;               /* CLIENT SETINFO LIB-VER */
    char addr[64];             /* "ip:port" of the peer, or unix socket path */
    char laddr[64];            /* "ip:port" of our side */
    uint64_t flags;            /* CLIENT_* */
    /* --- input --- */
    sds querybuf;              /* bytes read, not yet parsed */
    size_t qb_pos;             /* parse position in querybuf */
    size_t querybuf_peak;      /* for CLIENT LIST qbuf / limits */
    int reqtype;               /* PROTO_REQ_* of the request being parsed */
    long multibulklen;         /* remaining bulk args of the current request */
    long long bulklen;         /* length of the bulk being read, -1 none */
    int argc;                  /* arguments of the current command */
    int argv_len;              /* allocated argv slots */
    sds *argv;                 /* arguments */
    struct redisCommand *cmd;      /* command being executed */
    struct redisCommand *lastcmd;  /* last command executed (CLIENT LIST) */
    /* --- output --- */
    sds pending;               /* reply bytes produced by the running command;
                                * moved into the block FIFO, tagged, when it ends */
    int pending_replies;       /* complete replies in pending (normally 1) */
    replyBlock *reply;         /* FIFO head */
    replyBlock *reply_tail;    /* FIFO tail */
    size_t reply_bytes;        /* bytes queued in the FIFO, for limits */
    size_t sentlen;            /* bytes of the head block already written */
    uint64_t observe_seq;      /* highest mod_seq/del_seq the running command
                                * read: its reply waits for that to be durable */
    long long obuf_soft_limit_reached_time; /* for client-output-buffer-limit */
    listNode *pending_write_node; /* node in server.clients_pending_write */
    listNode *held_node;       /* node in server.clients_waiting_commit */
    /* --- time --- */
    long long ctime;           /* creation, unix ms */
    long long last_interaction;/* unix ms, for idle timeout and CLIENT LIST */
    long long read_ms;         /* unix ms (exact) when its last bytes were
                                * read: a broker judges the freshness of its
                                * state from then (commitStateUnconfirmed) */
    /* --- transactions --- */
    multiState mstate;         /* MULTI queue */
    list *watched_keys;        /* watchedKey* this client WATCHes */
    /* --- blocking --- */
    blockingState bstate;      /* when CLIENT_BLOCKED */
    listNode *client_list_node;/* node in server.clients */
    /* --- broker forwarding (broker.c) --- */
    struct brokerRelay *relay; /* non-NULL: a follower relays this
                                * connection to the broker, byte for byte */
    /* --- pub/sub (pubsub.c) --- */
    struct clientPubsub *pubsub; /* its subscriptions, NULL when none */
} client;

/* ------------------------------------------------------------------------
 * Commands
 * --------------------------------------------------------------------- */
typedef void redisCommandProc(client *c);

/* Command flags (COMMAND INFO reports them by name). */
#define CMD_WRITE (1ULL << 0)
#define CMD_READONLY (1ULL << 1)
#define CMD_DENYOOM (1ULL << 2)
#define CMD_ADMIN (1ULL << 4)
#define CMD_PUBSUB (1ULL << 5)
#define CMD_NOSCRIPT (1ULL << 6)
#define CMD_BLOCKING (1ULL << 8)
#define CMD_LOADING (1ULL << 9)
#define CMD_STALE (1ULL << 10)
#define CMD_SKIP_MONITOR (1ULL << 11)
#define CMD_SKIP_SLOWLOG (1ULL << 12)
#define CMD_ASKING (1ULL << 13)
#define CMD_FAST (1ULL << 14)
#define CMD_NO_AUTH (1ULL << 15)
#define CMD_MAY_REPLICATE (1ULL << 16)
#define CMD_SENTINEL (1ULL << 17)
#define CMD_ONLY_SENTINEL (1ULL << 18)
#define CMD_NO_MANDATORY_KEYS (1ULL << 19)
#define CMD_PROTECTED (1ULL << 20)
#define CMD_MODULE_GETKEYS (1ULL << 21)
#define CMD_MODULE_NO_CLUSTER (1ULL << 22)
#define CMD_NO_ASYNC_LOADING (1ULL << 23)
#define CMD_NO_MULTI (1ULL << 24)
#define CMD_MOVABLE_KEYS (1ULL << 25)
#define CMD_ALLOW_BUSY (1ULL << 26)

/* One row of the command table (commands.c). Static fields come first and
 * are data; the run-time statistics follow. */
struct redisCommand {
    const char *name;            /* lower case, e.g. "xadd" or "info" for CONFIG's */
    redisCommandProc *proc;      /* handler; NULL for containers with subcommands */
    int arity;                   /* >0 exact argc, <0 at least -arity */
    uint64_t flags;              /* CMD_* */
    int firstkey;                /* first key argument (0 = none) */
    int lastkey;                 /* last key argument, -1 = last arg, etc. */
    int keystep;                 /* step between keys */
    const char *acl_categories;  /* space separated, without '@' */
    struct redisCommand *subcommands; /* NULL-terminated array, or NULL */
    /* --- filled at start-up --- */
    struct redisCommand *parent; /* container for subcommands */
    sds fullname;                /* "xgroup|create" */
    dict *subcommands_dict;      /* name -> struct redisCommand* */
    const struct commandDoc *doc;/* COMMAND DOCS data (commands.c) */
    /* --- statistics (INFO commandstats) --- */
    long long calls;             /* successful executions */
    long long microseconds;      /* total time */
    long long rejected_calls;    /* refused before running (arity, auth, ...) */
    long long failed_calls;      /* ran and replied with an error */
};

/* ------------------------------------------------------------------------
 * Configuration values (config.c parses, CONFIG GET/SET reads and writes)
 * --------------------------------------------------------------------- */
typedef struct serverConfig {
    char *bind;                /* space separated addresses, default "127.0.0.1 -::1" */
    int port;                  /* TCP port, 0 = no TCP */
    int tcp_backlog;           /* listen() backlog */
    int tcp_keepalive;         /* seconds, 0 = off */
    char *unixsocket;          /* path, NULL = none */
    unsigned int unixsocketperm; /* octal permissions */
    /* TLS (tls.c): a second listener on tls_port, 0 = none */
    int tls_port;
    char *tls_cert_file;       /* PEM certificate (chain), NULL = none */
    char *tls_key_file;        /* its PEM private key */
    char *tls_key_file_pass;   /* the key's passphrase, NULL = none */
    char *tls_ca_cert_file;    /* CAs that sign client certificates */
    char *tls_ca_cert_dir;     /* the same, as an OpenSSL hashed directory */
    int tls_auth_clients;      /* TLS_CLIENT_AUTH_* (connection.h) */
    char *tls_protocols;       /* "TLSv1.2 TLSv1.3", NULL = that default */
    char *tls_ciphers;         /* TLSv1.2 and older, NULL = OpenSSL's */
    char *tls_ciphersuites;    /* TLSv1.3, NULL = OpenSSL's */
    int tls_prefer_server_ciphers;
    long long maxclients;      /* connection limit (1..UINT_MAX, as Redis) */
    long long maxmemory;       /* bytes; over it, commands that may grow
                                * memory are refused (0 = no limit) */
    int maxmemory_policy;      /* MAXMEMORY_NOEVICTION, the only one: a
                                * queue never drops jobs to make room */
    int maxidletime;           /* `timeout`: seconds, 0 = never */
    char *requirepass;         /* NULL = no AUTH needed */
    int databases;             /* number of databases */
    long long proto_max_bulk_len;       /* largest bulk argument */
    long long client_max_querybuf_len;  /* client-query-buffer-limit */
    /* client-output-buffer-limit normal: hard, soft bytes and soft seconds */
    long long obuf_hard_limit;
    long long obuf_soft_limit;
    long long obuf_soft_seconds;
    /* ... and for clients with pub/sub subscriptions (pubsub class) */
    long long obuf_pubsub_hard_limit;
    long long obuf_pubsub_soft_limit;
    long long obuf_pubsub_soft_seconds;
    int hz;                    /* server cron frequency */
    int verbosity;             /* loglevel LL_* */
    long long busy_reply_threshold; /* ms a script runs before others get
                                     * -BUSY (lua-time-limit) */
    char *logfile;             /* "" = stdout */
    char *pidfile;             /* NULL = none */
    int daemonize;             /* fork into background */
    int protected_mode;        /* no password: only loopback clients (Redis) */
    long long acllog_max_len;  /* ACL LOG entries kept (acl.c) */
    char *acl_filename;        /* aclfile: ACL users file, NULL = none */
    int acl_pubsub_default_all; /* acl-pubsub-default allchannels: new users
                                 * get &* (Redis 6 default) */
    char *dir;                 /* data directory (chdir at start) */
    char *store;               /* store URL: file://path or s3://bucket/key */
    char *server_cpulist;      /* CPUs of the main thread (Redis's syntax), NULL = any */
    char *bio_cpulist;         /* CPUs of the background threads, NULL = any */
    char *configfile;          /* absolute path of the config file, or NULL */
    int stream_id_mode;        /* STREAM_ID_MODE_* */
    long long stream_node_max_entries;  /* accepted for compatibility */
    long long stream_node_max_bytes;    /* accepted for compatibility */
    long long stream_idmp_duration;     /* XADD IDMP window: seconds (Redis 8.6) */
    long long stream_idmp_maxsize;      /* ... and ids per producer */
    long long hash_max_listpack_entries; /* t_hash.c: a bigger hash is a hashtable */
    long long hash_max_listpack_value;   /* ... and so is one with a longer field or value */
    long long list_max_listpack_size;   /* t_list.c: OBJECT ENCODING rule */
    long long list_compress_depth;      /* accepted for compatibility */
    long long zset_max_listpack_entries; /* t_zset.c: OBJECT ENCODING rules */
    long long zset_max_listpack_value;
    /* sets (t_set.c): Redis 7.2's encoding limits */
    long long set_max_intset_entries;
    long long set_max_listpack_entries;
    long long set_max_listpack_value;
    long long commit_timeout_ms;        /* how long a held reply waits for a commit */
    int commit_log;                     /* commits append to the store's log
                                         * (if it has one); no: every commit
                                         * writes the root (format 2's way) */
    long long commit_log_checkpoint_records; /* the root is written again
                                         * after this many log records ... */
    long long commit_log_checkpoint_bytes;   /* ... or this many log bytes */
    long long commit_log_checkpoint_ms; /* ... or this long after the last */
    long long commit_log_max_value_bytes; /* a changed value with more JSON
                                         * than this makes a checkpoint */
    long long commit_debug_delay_ms;    /* debug only: delay each commit
                                         * (needs enable_debug_command) */
    int enable_debug_command;           /* ENABLE_DEBUG_*: test knobs allowed */
    long long broker_timeout_ms;        /* failover: broker silence limit */
    long long segment_seal_bytes;       /* a stream's sealable inline bytes
                                         * that make a segment */
    long long segment_seal_min_bytes;   /* ... at least this many, and
                                         * the smallest size tier */
    long long segment_seal_commits;     /* ... about this many commits'
                                         * appends (0: segment-seal-bytes) */
    long long segment_max_bytes;        /* largest segment written */
    long long segment_merge_fanout;     /* segments of one size tier merged
                                         * into one of the next */
    int segment_merge;                  /* SEGMENT_MERGE_*: whether small
                                         * stream segments are merged into
                                         * big ones */
    long long segment_root_records;     /* records of segments a stream's
                                         * root holds before the oldest go
                                         * into a manifest */
    long long segment_gc_grace_ms;      /* a dropped segment is deleted this
                                         * long after (at least 2 x
                                         * broker-timeout + the load time) */
    long long key_seal_quiet_ms;        /* a key unchanged this long may be
                                         * sealed into a key segment */
    char *broker_announce_address;      /* "host:port" for the broker record,
                                         * NULL = derived from bind/port */
    int active_expire;         /* active expiry cycle on/off */
    int lazyfree_lazy_user_flush;       /* accepted for compatibility */
    long long slowlog_log_slower_than;  /* µs; <0 disables the slow log */
    long long slowlog_max_len;          /* entries kept */
    char *s3_endpoint;         /* http(s) endpoint, NULL = AWS default */
    char *s3_region;           /* SigV4 region */
    int s3_path_style;         /* path-style URLs */
    char *s3_access_key;       /* falls back to AWS_ACCESS_KEY_ID */
    char *s3_secret_key;       /* falls back to AWS_SECRET_ACCESS_KEY */
    char *s3_session_token;    /* falls back to AWS_SESSION_TOKEN */
    char *s3_ca_file;          /* CA bundle, NULL = system */
    int s3_insecure;           /* skip TLS verification (tests only) */
    long long s3_request_timeout_ms;    /* per HTTP request */
} serverConfig;

/* ------------------------------------------------------------------------
 * The server
 * --------------------------------------------------------------------- */
struct store;

typedef struct redisServer {
    serverConfig cfg;            /* settings */
    pid_t pid;                   /* our pid */
    char *executable;            /* argv[0] absolute path */
    char **exec_argv;            /* original argv, for CONFIG REWRITE/INFO */
    struct event_base *el;       /* the libevent loop */
    struct event *cron_ev;       /* serverCron timer */
    int ipfd[16];                /* listening TCP sockets */
    int ipfd_count;              /* how many */
    struct event *ip_ev[16];     /* accept events */
    int sofd;                    /* unix socket listener, -1 none */
    struct event *so_ev;         /* its accept event */
    int tlsfd[16];               /* listening TLS sockets (tls-port) */
    int tlsfd_count;             /* how many */
    struct event *tls_ev[16];    /* their accept events */
    redisDb *db;                 /* cfg.databases databases */
    dict *commands;              /* name -> struct redisCommand* (top level) */
    struct redisCommand *command_table; /* the static table, for COMMAND LIST */
    list *clients;               /* all connected clients */
    dict *clients_by_id;         /* not used for lookups by fd: id -> client* */
    list *clients_pending_write; /* have bytes ready to send */
    list *clients_to_close;      /* CLIENT_CLOSE_ASAP */
    list *clients_waiting_commit;/* have replies held for a commit */
    list *unblocked_clients;     /* to re-run their blocking command */
    list *ready_keys;            /* readyKey*: keys that got data (XADD) */
    dict *ready_keys_dict;       /* to dedupe ready_keys: "db:key" -> NULL */
    uint64_t next_client_id;     /* CLIENT ID counter */
    client *current_client;      /* client whose command is running */
    int in_exec;                 /* inside EXEC */
    int in_call;                 /* nesting depth of call() */
    int shutdown_asap;           /* SIGTERM/SHUTDOWN requested */
    int shutdown_exit_code;      /* exit code for shutdown */
    long long start_time_ms;     /* for uptime */
    long long mstime_cache;      /* unix ms, refreshed per event-loop turn
                                  * and before each command */
    long long ustime_cache;      /* same in microseconds */
    unsigned int lruclock;
    /* --- change tracking and group commit (design.md §4) --- */
    uint64_t change_seq;         /* bumped by every change to the state */
    uint64_t durable_seq;        /* every change <= this is in storage */
    int log_tracking;            /* the store has a commit log: note the
                                  * keys removed (db->log_deleted) */
    uint64_t log_barrier_seq;    /* change_seq of the last db-wide change
                                  * (FLUSHDB, SWAPDB, FUNCTION ...): the
                                  * commit holding it writes the root */
    uint64_t doc_pin;            /* the document being written borrows the
                                  * texts of stream nodes stamped with this
                                  * (0: none is; see store.h, storeDoc) */
    struct storeDoc *doc_pinned; /* ... that document, which keeps the
                                  * texts changed meanwhile */
    long long dirty;             /* changes since start (INFO) */
    /* --- statistics --- */
    long long stat_numcommands;
    long long stat_numconnections;
    long long stat_rejected_conn;
    long long stat_acl_denied_auth;    /* INFO acl_access_denied_* (acl.c) */
    long long stat_acl_denied_cmd;
    long long stat_acl_denied_key;
    long long stat_acl_denied_channel;
    long long stat_expiredkeys;
    long long stat_keyspace_hits;
    long long stat_keyspace_misses;
    long long stat_net_input_bytes;
    long long stat_net_output_bytes;
    long long stat_total_error_replies;
    long long stat_unexpected_error_replies;
    long long stat_client_qbuf_limit_disconnections;
    long long stat_client_outbuf_limit_disconnections;
    long long stat_total_blocking_keys;
    dict *errors;                /* error prefix -> count (INFO errorstats) */
    long long stat_peak_memory;
    int blocked_clients;         /* clients in CLIENT_BLOCKED */
    int loading;                 /* (re)loading the document: commands
                                  * without CMD_LOADING get -LOADING */
    struct store *store;         /* where the document lives (store.h) */
    struct commitState *commit;  /* group commit state (commit.h) */
    struct segmentState *segments; /* segment life (segment.h) */
    struct keysegState *keyseg;  /* key segments (keyseg.h) */
    struct chunksegState *chunkseg; /* chunk segments (chunkseg.h) */
    int log_to_stderr;           /* logs without a logfile go to stderr, not
                                  * stdout (--export-state -) */
    /* --- INFO (info.c, config.c) --- */
    char runid[CONFIG_RUN_ID_SIZE + 1]; /* random id of this run (INFO run_id) */
    struct {
        long long last_sample_time;  /* ms of the last sample */
        long long last_sample_count; /* the counter's value then */
        long long samples[STATS_METRIC_SAMPLES]; /* per-second rates */
        int idx;                     /* next slot in samples */
    } inst_metric[STATS_METRIC_COUNT]; /* instantaneous_* rates */
} redisServer;

extern redisServer server;

/* Shared reply strings */
extern const char *shared_ok;          /* "+OK\r\n" */
extern const char *shared_syntaxerr;   /* "-ERR syntax error\r\n" */
extern const char *shared_wrongtypeerr; /* "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n" */

/* ------------------------------------------------------------------------
 * Time (cached per command, as Redis does, so one command sees one time)
 * --------------------------------------------------------------------- */
long long ustime(void);
long long mstime(void);
static inline long long commandTimeSnapshot(void) { return server.mstime_cache; }
void updateCachedTime(void);

/* ------------------------------------------------------------------------
 * Logging (server.c)
 * --------------------------------------------------------------------- */
void serverLog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void serverLogRaw(int level, const char *msg);
#define serverAssert(e) ((e) ? (void)0 : (serverAssertFail(#e, __FILE__, __LINE__), __builtin_unreachable()))
void serverAssertFail(const char *estr, const char *file, int line) __attribute__((noreturn));
void serverPanic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ------------------------------------------------------------------------
 * Networking and replies (networking.c)
 * --------------------------------------------------------------------- */
client *createClient(int fd, int is_unix);
client *createFakeClient(void);
void freeClient(client *c);
void freeClientAsync(client *c);
void resetClient(client *c);
void acceptTcpHandler(int fd, short what, void *arg);
void acceptUnixHandler(int fd, short what, void *arg);
void acceptTLSHandler(int fd, short what, void *arg);
void freeAcceptBackoff(void);
int protectedModeDenies(const char *peer_ip, int is_unix);
int authPasswordMatches(const char *given, size_t len);

/* --- ACL users (acl.c) --- */
#define ACL_OK 0
#define ACL_DENIED_CMD 1
#define ACL_DENIED_KEY 2
#define ACL_DENIED_CHANNEL 3
void aclInit(void);
void aclQueueConfigUser(sds *argv, int argc);
int aclLoadConfiguredUsers(sds *err);
void aclFreeAll(void);
int aclAuthenticate(client *c, sds user, sds pass);
void aclResetClientUser(client *c);
int aclCheckCommandPerm(client *c, int *errpos);
sds aclScriptRefusal(client *caller, struct redisCommand *cmd, sds *argv, int argc);
int aclUserMayRun(client *caller, struct redisCommand *cmd, sds *argv, int argc);
sds aclDeniedMessage(client *c, int reason);
#define ACL_DENIED_AUTH 4
#define ACL_LOG_CTX_TOPLEVEL 0
#define ACL_LOG_CTX_LUA 1
#define ACL_LOG_CTX_MULTI 2
void aclLogDenied(client *c, int reason, int context, int argpos, const char *username, const char *object);
const char *aclClientUserName(const client *c);
int aclUserExists(const char *name);
uint64_t commandAclCategoryBits(struct redisCommand *cmd);
int aclCategoryBitByName(const char *name, size_t len);
const char *aclCategoryNameByBit(int bit);
int adjustOpenFilesLimit(void);
int processInputBuffer(client *c);
void handleClientsWithPendingWrites(void);
/* Tags the running command's reply bytes with need_seq and queues them. */
void clientCommitReply(client *c, uint64_t need_seq);
/* Called by the commit module after durable_seq advances. */
void releaseHeldReplies(void);
/* Called when a commit failed for good: every reply waiting for a change
 * > durable_seq becomes the error `err` (a full "-ERR ...\r\n" line). */
void failHeldReplies(const char *err);
/* Same, only for replies waiting on changes <= max_seq (commit-timeout);
 * returns how many replies were failed. */
long long failHeldRepliesUpTo(uint64_t max_seq, const char *err);
void clientInstallWriteHandler(client *c);
char *getClientPeerId(client *c);
sds catClientInfoString(sds s, client *c);
sds getAllClientsInfoString(int type);
void freeClientsInQueue(void);
void protectClient(client *c);

void addReply(client *c, const char *s, size_t len);
void addReplyStr(client *c, const char *s);    /* raw protocol bytes */
void addReplySds(client *c, sds s);            /* raw protocol, frees s */
void addReplyOk(client *c);
void addReplyError(client *c, const char *err);         /* "ERR ..." prefix added if missing */
void addReplyErrorFormat(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void addReplyErrorObject(client *c, const char *full);  /* full "-XYZ msg\r\n" */
void addReplyErrorArity(client *c);
void addReplyErrorSyntax(client *c);           /* "ERR syntax error" */
void addReplyErrorNotInteger(client *c);       /* "ERR value is not an integer or out of range" */
void addReplyStatus(client *c, const char *status);
void addReplyStatusLength(client *c, const char *s, size_t len);
void addReplyBulk(client *c, const char *p, size_t len); /* $len\r\np\r\n */
void addReplyBulkSds(client *c, sds s);        /* frees s */
void addReplyBulkCString(client *c, const char *s); /* NULL gives null */
void addReplyBulkLongLong(client *c, long long ll);
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext);
void addReplyBigNum(client *c, const char *num, size_t len);
void addReplyErrorSds(client *c, sds err); /* frees err */
/* A busy script's hook: accept, read, run (-BUSY) and write, without the
 * event loop; `running` is the script's caller, left alone. */
void processEventsWhileBlocked(client *running);
void addReplyLongLong(client *c, long long ll); /* :ll */
void addReplyDouble(client *c, double d);
void addReplyBool(client *c, int b);
void addReplyNull(client *c);                  /* RESP2 $-1, RESP3 _ */
void addReplyNullArray(client *c);             /* RESP2 *-1, RESP3 _ */
void addReplyArrayLen(client *c, long length);
void addReplyMapLen(client *c, long length);   /* RESP2: array of 2*length */
void addReplySetLen(client *c, long length);   /* RESP2: array */
void addReplyAttributeLen(client *c, long length);
void addReplyPushLen(client *c, long length);
void addReplyEmptyArray(client *c);
/* Deferred lengths: reserve a slot, fill it once the count is known. */
void *addReplyDeferredLen(client *c);
void setDeferredArrayLen(client *c, void *node, long length);
void setDeferredMapLen(client *c, void *node, long length);
void setDeferredSetLen(client *c, void *node, long length);
void addReplyHelp(client *c, const char **help);
void addReplySubcommandSyntaxError(client *c);
int clientHasPendingReplies(client *c);
/* Broker forwarding (broker.c): queues bytes the broker sent for a relayed
 * client, verbatim, behind the replies already queued. */
void clientRelayReply(client *c, const char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Command dispatch (server.c)
 * --------------------------------------------------------------------- */
void populateCommandTable(void);
struct redisCommand *lookupCommand(sds *argv, int argc);
struct redisCommand *lookupCommandByCString(const char *name);
struct redisCommand *lookupCommandOrOriginal(sds *argv, int argc);
int processCommand(client *c);
void call(client *c);
void afterCommand(client *c);
void clientResumeReading(client *c); /* after a pause of its read event (broker.c) */
int commandCheckArity(struct redisCommand *cmd, int argc, sds *err);
void beforeSleep(void);

/* Parsing helpers that reply on error (object.c style, in util.c) */
int getLongLongFromObjectOrReply(client *c, sds o, long long *target, const char *msg);
int getLongFromObjectOrReply(client *c, sds o, long *target, const char *msg);
int getPositiveLongFromObjectOrReply(client *c, sds o, long *target, const char *msg);
int getRangeLongFromObjectOrReply(client *c, sds o, long min, long max, long *target, const char *msg);
int getUnsignedLongLongFromObjectOrReply(client *c, sds o, unsigned long long *target, const char *msg);
int getTimeoutFromObjectOrReply(client *c, sds o, long long *timeout_ms, int unit_seconds);
int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase);
/* String <-> number conversions (util.c; t_string, t_hash), as Redis's. */
#define MAX_LONG_DOUBLE_CHARS (5 * 1024)
#define LD_STR_AUTO 0  /* "%.17Lg" */
#define LD_STR_HUMAN 1 /* "%.17Lf", trailing zeroes removed */
int ld2string(char *buf, size_t len, long double value, int mode);
int string2ld(const char *s, size_t slen, long double *dp);
int getLongDoubleFromObjectOrReply(client *c, sds o, long double *target, const char *msg);
/* Double conversions (util.c, as Redis's): d2string needs MAX_D2STRING_CHARS
 * bytes at most. */
#define MAX_D2STRING_CHARS 128
int d2string(char *buf, size_t len, double value);
int string2d(const char *s, size_t slen, double *dp);
int getDoubleFromObjectOrReply(client *c, sds o, double *target, const char *msg);

/* ------------------------------------------------------------------------
 * Keyspace (db.c)
 * --------------------------------------------------------------------- */
/* Lookups record what the running command observed (c->observe_seq), so
 * its reply waits for those changes to be durable. They also expire keys
 * lazily. */
robj *lookupKeyRead(client *c, redisDb *db, sds key);
robj *lookupKeyWrite(client *c, redisDb *db, sds key);
/* ...OrReply: when the key is missing, reply `reply` (raw protocol, e.g.
 * "-ERR no such key\r\n", counted as an error if it starts with '-'), or the
 * protocol's null if reply is NULL. */
robj *lookupKeyReadOrReply(client *c, sds key, const char *reply);
/* Like lookupKeyRead, without refreshing the key's access time (OBJECT,
 * as Redis's LOOKUP_NOTOUCH). */
robj *lookupKeyReadNoTouch(client *c, redisDb *db, sds key);
/* Redis's LRU clock: unix seconds modulo 2^24 (OBJECT IDLETIME). */
#define LRU_CLOCK_MAX ((1 << 24) - 1)
#define LRU_CLOCK_RESOLUTION 1000 /* ms */
unsigned int LRU_CLOCK(void);
/* Milliseconds since o was last accessed. */
unsigned long long estimateObjectIdleTime(robj *o);
robj *lookupKeyWriteOrReply(client *c, sds key, const char *reply);
void dbAdd(redisDb *db, sds key, robj *val);      /* key is copied */
int dbDelete(redisDb *db, sds key);               /* 1 if deleted */
long long dbTotalServerKeyCount(void);
long long emptyData(int dbnum, void (*callback)(dict *)); /* -1 = all */
long long getExpire(redisDb *db, sds key);        /* -1 if none */
void setExpire(redisDb *db, sds key, long long when_ms);
int removeExpire(redisDb *db, sds key);
int expireIfNeeded(redisDb *db, sds key);         /* 1 if it was expired */
int keyIsExpired(redisDb *db, sds key);           /* by the command's time */
void activeExpireCycle(void);
/* Every change to a key goes through here: bumps server.change_seq and
 * server.dirty, stamps the key and db, invalidates WATCHes. `o` is the
 * key's object after the change, NULL if the key no longer exists. */
void signalModifiedKey(client *c, redisDb *db, sds key, robj *o);
void signalKeyStateChanged(client *c, redisDb *db, robj *o);
/* A change not tied to one key (FLUSHALL, SWAPDB, XGROUP metadata ...). */
void signalStateChanged(redisDb *db);
/* Record that the running command observed db-wide state. */
void observeDb(client *c, redisDb *db);
void observeSeq(client *c, uint64_t seq);
robj *createObject(int type, void *ptr);          /* takes ptr over */
robj *createStreamObject(void);
void freeObject(robj *o);
/* If o exists and is not of `type`, replies WRONGTYPE and returns 1 (as
 * Redis's checkType). */
int checkType(client *c, robj *o, int type);
int selectDb(client *c, int id);
const char *typeName(robj *o);
void initDbs(void);                               /* allocates server.db */
void freeDbs(void);                               /* at exit, clients gone */
/* Commands (rows of dbCommandTable in db.c; the TTL ones live in expire.c) */
void expireCommand(client *c);
void pexpireCommand(client *c);
void expireatCommand(client *c);
void pexpireatCommand(client *c);
void ttlCommand(client *c);
void pttlCommand(client *c);
void expiretimeCommand(client *c);
void pexpiretimeCommand(client *c);
void persistCommand(client *c);

/* The SCAN family (db.c): SCAN, and the HSCAN/SSCAN/ZSCAN of the type
 * modules, share Redis's cursor and option parsing. */
typedef struct scanArgs {
    long count;   /* COUNT (default 10) */
    sds pattern;  /* MATCH pattern, NULL when it matches everything */
    sds type;     /* SCAN's TYPE, NULL if not given */
} scanArgs;
/* Replies "ERR invalid cursor" and returns C_ERR on a bad cursor. */
int parseScanCursorOrReply(client *c, sds o, unsigned long *cursor);
/* Options from argv[first] on (TYPE only if allow_type); replies a syntax
 * error and returns C_ERR on anything else. */
int scanParseArgsOrReply(client *c, int first, int allow_type, scanArgs *sa);
/* Whether s matches the MATCH pattern (always, without one). */
int scanMatches(const scanArgs *sa, const char *s, size_t len);

/* ------------------------------------------------------------------------
 * SLOWLOG (slowlog.c) and MONITOR (monitor.c): hooks of call()
 * --------------------------------------------------------------------- */
/* Logs the command c just ran if it took `duration` µs or more than
 * slowlog-log-slower-than. */
void slowlogPushCurrentCommand(client *c, struct redisCommand *cmd, long long duration);
/* Formats the command c just ran for the monitors (if there are any);
 * the lines are sent by monitorFlush once the top-level command ended. */
void monitorFeedCommand(client *c);
/* Queues the formatted lines to every monitor, held until need_seq (the
 * change the commands made or showed) is durable (design.md §4). */
void monitorFlush(uint64_t need_seq);
void monitorRemoveClient(client *c);
void monitorFreeAll(void); /* at exit */
void slowlogFree(void);    /* at exit */
/* AUTH and HELLO's AUTH arguments are shown as "(redacted)" in MONITOR and
 * SLOWLOG, as in Redis 7.2: 1 if c->argv[j] is such an argument. */
int commandArgIsRedacted(client *c, int j);

/* ------------------------------------------------------------------------
 * Pub/sub (pubsub.c)
 * --------------------------------------------------------------------- */
/* processCommand: the error for a command a RESP2 client in the
 * subscribed context may not run (a new sds without the "-ERR "), or NULL. */
sds pubsubContextError(client *c);
/* freeClient, RESET: drops every subscription, without replies. */
void pubsubUnsubscribeAll(client *c);
/* A client's subscriptions: which 0 channels, 1 patterns, 2 shard. */
int pubsubClientCount(client *c, int which);
/* Channels / patterns / shard channels with subscribers (INFO). */
unsigned long pubsubTotalChannels(int which);
void pubsubFreeAll(void); /* at exit */

/* ------------------------------------------------------------------------
 * Scripting: EVAL (eval.c) and FUNCTION (functions.c) on the Lua
 * environment of script_lua.c (script.h). An interpreter starts with the
 * first command that needs it.
 * --------------------------------------------------------------------- */
void scriptingRelease(void); /* at exit: both interpreters */
long long scriptingCachedScripts(void); /* INFO */
size_t scriptingCacheBytes(void);
size_t scriptingLuaMemory(void);
void functionsRelease(void);
int functionsCount(void);           /* libraries loaded */
int functionsFunctionCount(void);   /* functions they registered (INFO) */
size_t functionsMemory(void);       /* INFO used_memory_vm_functions */
size_t functionsCodeMemory(void);   /* INFO used_memory_scripts_functions */
/* The document's "functions": the libraries as a JSON array. */
sds functionsCatRecords(sds out);
/* The libraries of a document being loaded (their code, n of them),
 * compiled into a set that functionsInstall() puts in place; NULL with
 * *err if one fails. */
void *functionsDecode(sds *codes, size_t n, sds *err);
void functionsDecodedFree(void *decoded);
void functionsInstall(void *decoded); /* NULL: no libraries */
/* 1 while a script has run past busy-reply-threshold; then the -BUSY
 * error others get ("-BUSY ...", no CRLF). */
int scriptIsBusy(void);
const char *scriptBusyError(void);

/* ------------------------------------------------------------------------
 * MULTI/EXEC/WATCH (multi.c)
 * --------------------------------------------------------------------- */
void initClientMultiState(client *c);
void freeClientMultiState(client *c);
void queueMultiCommand(client *c);
/* Whether a queued command of c's transaction has this CMD_* flag. */
int multiStateHasFlag(client *c, uint64_t flag);
void discardTransaction(client *c);
void flagTransaction(client *c);
void touchWatchedKey(redisDb *db, sds key);
void touchAllWatchedKeysInDb(redisDb *emptied, redisDb *replaced_with);
void unwatchAllKeys(client *c);
int isWatchedKeyExpired(client *c);
void execCommand(client *c);
/* Reply for an EXEC refused before running (processCommand: arity, auth):
 * "EXECABORT Transaction discarded because of: <error>"; discards the
 * transaction. */
void execCommandAbort(client *c, const char *error);

/* ------------------------------------------------------------------------
 * Blocking (blocked.c)
 * --------------------------------------------------------------------- */
void blockForKeys(client *c, sds *keys, int numkeys, long long timeout_ms);
/* A blocking pop of lists (btype OBJ_LIST) or sorted sets (OBJ_ZSET). */
void blockForKeysOfType(client *c, sds *keys, int numkeys, long long timeout_ms, int btype);
void unblockClient(client *c);
void unblockClientOnTimeout(client *c);
/* err: an error message such as "-UNBLOCKED client unblocked via CLIENT
 * UNBLOCK" (no CRLF), replied with addReplyError. */
void unblockClientOnError(client *c, const char *err);
void signalKeyAsReady(redisDb *db, sds key);
void handleClientsBlockedOnKeys(void);
void replyToBlockedClientTimedOut(client *c);
void disconnectAllBlockedClients(void);
void signalDeletedKeyAsReady(redisDb *db, sds key);

/* ------------------------------------------------------------------------
 * INFO (info.c)
 * --------------------------------------------------------------------- */
/* Called from serverCron: samples ops/sec and network rates for INFO's
 * instantaneous_* fields. */
void trackInstantaneousMetrics(void);

/* ------------------------------------------------------------------------
 * Config (config.c)
 * --------------------------------------------------------------------- */
void initServerConfig(void);
int loadServerConfig(const char *filename, const char *options, sds *err);
int rewriteConfig(const char *path, sds *err);
const char *streamIdModeName(int mode);

#endif
