/* test_config.c -- unit tests of config.c: defaults, the file parser
 * (quotes, comments, units, include, errors with line numbers), the
 * command-line options, and CONFIG REWRITE's round trip.
 *
 * int test_config(void) returns the number of failed checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/config.h"
#include "../../src/server.h"
#include "../../src/setcpuaffinity.h"

static int failures;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "test_config: FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

#define CHECK_STR(a, b) CHECK((a) != NULL && !strcmp((a), (b)))
#define CHECK_CONTAINS(hay, needle) CHECK((hay) != NULL && strstr((hay), (needle)) != NULL)
/* CONFIG GET's view of a directive. */
#define CHECK_GET(name, expect)                    \
    do {                                           \
        sds value_ = getConfigValueByName(name);   \
        CHECK_STR(value_, (expect));               \
        sdsfree(value_);                           \
    } while (0)

/* A fresh temporary directory for files; removed by cleanupTempDir. */
static char tmpdir[256];

static void makeTempDir(void) {
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/casq-test-config-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(1);
    }
}

static sds tmpPath(const char *name) {
    return sdscatprintf(sdsempty(), "%s/%s", tmpdir, name);
}

static void writeFile(const char *path, const char *content) {
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        exit(1);
    }
    fputs(content, fp);
    fclose(fp);
}

static sds readFile(const char *path) {
    FILE *fp = fopen(path, "r");
    sds s = sdsempty();
    char buf[1024];
    size_t n;
    if (!fp) return s;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) s = sdscatlen(s, buf, n);
    fclose(fp);
    return s;
}

/* Loads config text on top of the defaults. Returns the error (caller
 * frees) or NULL on success. */
static sds loadText(const char *text) {
    sds err = NULL;
    initServerConfig();
    if (loadServerConfigFromString(text, &err) == C_OK) {
        sdsfree(err);
        return NULL;
    }
    return err ? err : sdsnew("(no message)");
}

static void testDefaults(void) {
    initServerConfig();
    CHECK_STR(server.cfg.bind, "127.0.0.1 -::1");
    CHECK(server.cfg.port == 6379);
    CHECK(server.cfg.tcp_backlog == 511);
    CHECK(server.cfg.tcp_keepalive == 300);
    CHECK(server.cfg.maxidletime == 0);
    CHECK(server.cfg.maxclients == 10000);
    CHECK(server.cfg.databases == 16);
    CHECK(server.cfg.proto_max_bulk_len == 512LL * 1024 * 1024);
    CHECK(server.cfg.client_max_querybuf_len == 1024LL * 1024 * 1024);
    CHECK(server.cfg.obuf_hard_limit == 0 && server.cfg.obuf_soft_limit == 0 && server.cfg.obuf_soft_seconds == 0);
    CHECK(server.cfg.hz == 10);
    CHECK(server.cfg.verbosity == LL_NOTICE);
    CHECK_STR(server.cfg.logfile, "");
    CHECK(server.cfg.requirepass == NULL);
    CHECK(server.cfg.unixsocket == NULL);
    CHECK(server.cfg.pidfile == NULL);
    CHECK(server.cfg.daemonize == 0);
    CHECK(server.cfg.dir != NULL && server.cfg.dir[0] == '/');
    CHECK_STR(server.cfg.store, "");
    CHECK(server.cfg.stream_id_mode == STREAM_ID_MODE_STRICT);
    CHECK(server.cfg.commit_timeout_ms == 30000);
    CHECK(server.cfg.commit_debug_delay_ms == 0);
    CHECK(server.cfg.broker_timeout_ms == 5000);
    CHECK(server.cfg.active_expire == 1);
    CHECK(server.cfg.s3_region == NULL); /* empty: AWS_REGION, then us-east-1 */
    CHECK(server.cfg.s3_endpoint == NULL);
    CHECK(server.cfg.s3_path_style == 0);
    CHECK(server.cfg.s3_request_timeout_ms == 10000);
    CHECK(strlen(server.runid) == CONFIG_RUN_ID_SIZE);
    CHECK_STR(streamIdModeName(STREAM_ID_MODE_STRICT), "strict");
    CHECK_STR(streamIdModeName(STREAM_ID_MODE_SEMI_STRICT), "semi-strict");
    CHECK_STR(streamIdModeName(STREAM_ID_MODE_LIBERAL), "liberal");
}

static void testParsing(void) {
    sds err = loadText("# a comment\n"
                       "\n"
                       "   port 7777   \r\n"
                       "\t# indented comment\n"
                       "LogLevel VERBOSE\n"
                       "requirepass \"a b\\x41\\n\"\n"
                       "logfile 'it\\'s'\n"
                       "client-query-buffer-limit 2mb\n"
                       "proto-max-bulk-len 2M\n"
                       "stream-node-max-bytes 1k\n"
                       "stream-id-mode Semi-Strict\n"
                       "bind 0.0.0.0 ::1\n"
                       "client-output-buffer-limit normal 1mb 512kb 10\n"
                       "client-output-buffer-limit pubsub 32mb 8mb 60\n"
                       "daemonize no\n"
                       "active-expire NO\n"
                       "unixsocketperm 700\n"
                       "save \"\"\n"
                       "save 900 1 300 10\n"
                       "appendonly no\n"
                       "protected-mode no\n"
                       "hz 100\n");
    CHECK(err == NULL);
    if (err) fprintf(stderr, "%s\n", err);
    sdsfree(err);
    CHECK(server.cfg.port == 7777);
    CHECK(server.cfg.verbosity == LL_VERBOSE);
    CHECK_STR(server.cfg.requirepass, "a bA\n");
    CHECK_STR(server.cfg.logfile, "it's");
    CHECK(server.cfg.client_max_querybuf_len == 2 * 1024 * 1024);
    CHECK(server.cfg.proto_max_bulk_len == 2000000);
    CHECK(server.cfg.stream_node_max_bytes == 1000);
    CHECK(server.cfg.stream_id_mode == STREAM_ID_MODE_SEMI_STRICT);
    CHECK_STR(server.cfg.bind, "0.0.0.0 ::1");
    CHECK(server.cfg.obuf_hard_limit == 1024 * 1024);
    CHECK(server.cfg.obuf_soft_limit == 512 * 1024);
    CHECK(server.cfg.obuf_soft_seconds == 10);
    CHECK(server.cfg.active_expire == 0);
    CHECK(server.cfg.unixsocketperm == 0700);
    CHECK(server.cfg.hz == 100);

    /* A multi-word directive given as one quoted argument, as the command
     * line makes it (--client-output-buffer-limit "normal 2mb 1mb 5"). */
    err = loadText("client-output-buffer-limit \"normal 2mb 1mb 5\"\nsave \"900 1 300 10\"\n");
    CHECK(err == NULL);
    sdsfree(err);
    CHECK(server.cfg.obuf_hard_limit == 2 * 1024 * 1024);
    CHECK(server.cfg.obuf_soft_limit == 1024 * 1024);
    CHECK(server.cfg.obuf_soft_seconds == 5);

    /* The last occurrence wins; an empty string means "none" where it
     * should. */
    err = loadText("port 1\nport 2\nrequirepass secret\nrequirepass \"\"\n");
    CHECK(err == NULL);
    sdsfree(err);
    CHECK(server.cfg.port == 2);
    CHECK(server.cfg.requirepass == NULL);

    /* CONFIG GET's view of values. */
    CHECK_GET("unixsocketperm", "0");
    err = loadText("unixsocketperm 755\nclient-query-buffer-limit 1gb\n");
    sdsfree(err);
    CHECK_GET("unixsocketperm", "755");
    CHECK_GET("CLIENT-QUERY-BUFFER-LIMIT", "1073741824");
    CHECK_GET("appendonly", "no");
    CHECK_GET("save", "");
    CHECK(getConfigValueByName("no-such-directive") == NULL);

    /* hz is clamped to 1..500 like Redis's. */
    initServerConfig();
    CHECK(loadServerConfig(NULL, "hz 1000\n", &err) == C_OK);
    CHECK(server.cfg.hz == 500);
    sdsfree(err);
    CHECK(loadServerConfig(NULL, "hz 0\n", &err) == C_OK);
    CHECK(server.cfg.hz == 1);
    sdsfree(err);
}

static void testMemoryUnits(void) {
    static const struct {
        const char *text;
        int ok;
        long long bytes;
    } cases[] = {
        {"0", 1, 0}, {"100", 1, 100}, {"100b", 1, 100}, {"1k", 1, 1000}, {"1kb", 1, 1024}, {"1K", 1, 1000},
        {"1KB", 1, 1024}, {"1kB", 1, 1024}, {"3m", 1, 3000000}, {"3mb", 1, 3 * 1024 * 1024},
        {"2g", 1, 2000000000LL}, {"2gb", 1, 2LL * 1024 * 1024 * 1024}, {"2Gb", 1, 2LL * 1024 * 1024 * 1024},
        {"", 0, 0}, {"kb", 0, 0}, {"-1", 0, 0}, {"1.5g", 0, 0}, {"1tb", 0, 0}, {"1 kb", 0, 0},
        {"0x10", 0, 0}, {"99999999999999999999", 0, 0}, {"9999999999gb", 0, 0}, {NULL, 0, 0}};
    for (int j = 0; cases[j].text; j++) {
        long long bytes = -1;
        int ok = parseMemoryValue(cases[j].text, &bytes);
        if (ok != cases[j].ok || (ok && bytes != cases[j].bytes)) {
            fprintf(stderr, "test_config: FAILED memory value '%s': ok=%d bytes=%lld\n", cases[j].text, ok, bytes);
            failures++;
        }
    }
}

/* Each bad line must be reported with its number, its text and the reason,
 * in redis-server's format. */
static void testErrors(void) {
    static const struct {
        const char *text;
        int line;
        const char *shown;
        const char *reason;
    } cases[] = {
        {"port 1\n# c\nport abc\n", 3, ">>> 'port abc'", "argument couldn't be parsed into an integer"},
        {"port 70000\n", 1, ">>> 'port 70000'", "argument must be between 0 and 65535 inclusive"},
        {"\n\nfoo bar\n", 3, ">>> 'foo bar'", "Bad directive or wrong number of arguments"},
        {"port\n", 1, ">>> 'port'", "wrong number of arguments"},
        {"port 1 2\n", 1, ">>> 'port 1 2'", "wrong number of arguments"},
        {"daemonize maybe\n", 1, ">>> 'daemonize maybe'", "argument must be 'yes' or 'no'"},
        {"loglevel loud\n", 1, ">>> 'loglevel loud'",
         "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
        {"stream-id-mode sloppy\n", 1, ">>> 'stream-id-mode sloppy'",
         "argument(s) must be one of the following: strict, semi-strict, liberal"},
        {"client-query-buffer-limit 12x\n", 1, ">>> 'client-query-buffer-limit 12x'",
         "argument must be a memory value"},
        {"proto-max-bulk-len 10\n", 1, ">>> 'proto-max-bulk-len 10'",
         "argument must be between 1048576 and 9223372036854775807 inclusive"},
        {"timeout -1\n", 1, ">>> 'timeout -1'", "argument must be between 0 and 2147483647 inclusive"},
        {"timeout 05\n", 1, ">>> 'timeout 05'", "argument couldn't be parsed into an integer"},
        {"unixsocketperm 999\n", 1, ">>> 'unixsocketperm 999'", "argument couldn't be parsed as an octal number"},
        {"requirepass \"unterminated\n", 1, ">>> 'requirepass \"unterminated'",
         "Unbalanced quotes in configuration line"},
        {"client-output-buffer-limit normal 1 2\n", 1, ">>> 'client-output-buffer-limit normal 1 2'",
         "Wrong number of arguments in buffer limit configuration."},
        {"client-output-buffer-limit foo 0 0 0\n", 1, ">>> 'client-output-buffer-limit foo 0 0 0'",
         "Invalid client class specified in buffer limit configuration."},
        {"save 900\n", 1, ">>> 'save 900'", "Invalid save parameters"},
        {"server_cpulist 3-1\n", 1, ">>> 'server_cpulist 3-1'", "invalid CPU list: range 3-1 goes backwards"},
        {"bio_cpulist 0,,1\n", 1, ">>> 'bio_cpulist 0,,1'", "invalid CPU list: a CPU number was expected at ',1'"},
        {"bio_cpulist 0-7:0\n", 1, ">>> 'bio_cpulist 0-7:0'", "invalid CPU list: a stride must be at least 1"},
        {"server_cpulist 1024\n", 1, ">>> 'server_cpulist 1024'", "invalid CPU list: CPU numbers must be below 1024"},
        {"appendonly sometimes\n", 1, ">>> 'appendonly sometimes'", "argument must be 'yes' or 'no'"},
        {"dir /nonexistent/casq/dir\n", 1, ">>> 'dir /nonexistent/casq/dir'", "No such file or directory"},
        {"commit-timeout 0\n", 1, ">>> 'commit-timeout 0'", "argument must be between 1 and"},
        {NULL, 0, NULL, NULL}};
    for (int j = 0; cases[j].text; j++) {
        sds err = loadText(cases[j].text);
        char linebuf[64];
        snprintf(linebuf, sizeof(linebuf), "Reading the configuration file, at line %d\n", cases[j].line);
        if (!err || !strstr(err, "*** FATAL CONFIG FILE ERROR (casq " CASQ_VERSION ") ***") ||
            !strstr(err, linebuf) || !strstr(err, cases[j].shown) || !strstr(err, cases[j].reason)) {
            fprintf(stderr, "test_config: FAILED error case '%s': got %s\n", cases[j].text, err ? err : "(no error)");
            failures++;
        }
        sdsfree(err);
    }
    /* A failed line leaves the previous value alone. */
    sds err = loadText("port 7000\nport abc\n");
    CHECK(err != NULL);
    CHECK(server.cfg.port == 7000);
    sdsfree(err);
}

static void testFilesAndIncludes(void) {
    sds main_conf = tmpPath("main.conf");
    sds inc1 = tmpPath("inc-a.conf");
    sds inc2 = tmpPath("inc-b.conf");
    sds missing = tmpPath("missing.conf");
    sds text, err = NULL;

    writeFile(inc1, "timeout 11\nport 1111\n");
    writeFile(inc2, "timeout 22\n");
    text = sdscatprintf(sdsempty(), "port 1000\ninclude %s/inc-*.conf\nmaxclients 77\n", tmpdir);
    writeFile(main_conf, text);
    sdsfree(text);

    /* Globbed includes load in name order; the command-line options come
     * after the file and win. */
    initServerConfig();
    CHECK(loadServerConfig(main_conf, "port 2000\n", &err) == C_OK);
    sdsfree(err);
    err = NULL;
    CHECK(server.cfg.port == 2000);
    CHECK(server.cfg.maxidletime == 22);
    CHECK(server.cfg.maxclients == 77);
    CHECK_STR(server.cfg.configfile, main_conf);

    /* An error in the options is numbered after the file's lines, like
     * redis-server does. */
    initServerConfig();
    CHECK(loadServerConfig(main_conf, "maxclients 5\nport x\n", &err) == C_ERR);
    CHECK_CONTAINS(err, "at line 6\n"); /* 3 file lines, the "\n" joining them, 2 option lines */
    CHECK_CONTAINS(err, ">>> 'port x'");
    sdsfree(err);
    err = NULL;

    /* Missing files: the main one and an included one. */
    initServerConfig();
    CHECK(loadServerConfig(missing, NULL, &err) == C_ERR);
    CHECK_CONTAINS(err, "Fatal error, can't open config file '");
    CHECK_CONTAINS(err, "No such file or directory");
    sdsfree(err);
    err = NULL;
    text = sdscatprintf(sdsempty(), "include %s\n", missing);
    err = loadText(text);
    CHECK_CONTAINS(err, "can't open config file");
    sdsfree(err);
    sdsfree(text);
    err = NULL;

    /* An include loop is caught instead of recursing forever. */
    sds loop = tmpPath("loop.conf");
    text = sdscatprintf(sdsempty(), "include %s\n", loop);
    writeFile(loop, text);
    sdsfree(text);
    initServerConfig();
    CHECK(loadServerConfig(loop, NULL, &err) == C_ERR);
    CHECK_CONTAINS(err, "nested includes");
    sdsfree(err);

    unlink(main_conf);
    unlink(inc1);
    unlink(inc2);
    unlink(loop);
    sdsfree(main_conf);
    sdsfree(inc1);
    sdsfree(inc2);
    sdsfree(missing);
    sdsfree(loop);
}

static void testRewrite(void) {
    sds path = tmpPath("rewrite.conf");
    sds err = NULL;

    writeFile(path,
              "# My settings\n"
              "port 7000\n"
              "\n"
              "# keep this comment\n"
              "appendonly yes\n"
              "timeout 3\n"
              "timeout 4\n"
              "requirepass old\n");
    initServerConfig();
    CHECK(loadServerConfig(path, NULL, &err) == C_OK);
    sdsfree(err);
    err = NULL;
    CHECK(server.cfg.maxidletime == 4);

    /* What CONFIG SET would change at run time. */
    server.cfg.port = 7001;
    server.cfg.maxidletime = 9;
    zfree(server.cfg.requirepass);
    server.cfg.requirepass = NULL;
    server.cfg.client_max_querybuf_len = 64LL * 1024 * 1024;
    zfree(server.cfg.logfile);
    server.cfg.logfile = zstrdup("my log \"file\"");
    CHECK(rewriteConfig(path, &err) == C_OK);
    sdsfree(err);
    err = NULL;

    sds content = readFile(path);
    CHECK_CONTAINS(content, "# My settings\nport 7001\n\n# keep this comment\nappendonly yes\ntimeout 9\n");
    CHECK(strstr(content, "timeout 4") == NULL);
    CHECK(strstr(content, "requirepass \"\"\n") != NULL);
    CHECK_CONTAINS(content, "# Generated by CONFIG REWRITE\n");
    CHECK_CONTAINS(content, "client-query-buffer-limit 64mb\n");
    CHECK_CONTAINS(content, "logfile \"my log \\\"file\\\"\"\n");
    CHECK_CONTAINS(content, "dir \"");
    CHECK(strstr(content, "\nbind ") == NULL);     /* still the default */
    CHECK(strstr(content, "\nmaxclients ") == NULL); /* still the default */

    /* Reading the rewritten file gives back the same settings. */
    initServerConfig();
    CHECK(loadServerConfig(path, NULL, &err) == C_OK);
    sdsfree(err);
    err = NULL;
    CHECK(server.cfg.port == 7001);
    CHECK(server.cfg.maxidletime == 9);
    CHECK(server.cfg.requirepass == NULL);
    CHECK(server.cfg.client_max_querybuf_len == 64LL * 1024 * 1024);
    CHECK_STR(server.cfg.logfile, "my log \"file\"");

    /* A second rewrite with nothing changed leaves the file as it is. */
    CHECK(rewriteConfig(path, &err) == C_OK);
    sdsfree(err);
    sds again = readFile(path);
    CHECK(!strcmp(again, content));
    sdsfree(again);
    sdsfree(content);

    unlink(path);
    sdsfree(path);
}

/* protected-mode (Redis's connIsLocal): only a missing password and a peer
 * that is not 127.x / ::1 / a Unix socket are refused. */
static void testProtectedMode(void) {
    initServerConfig();
    CHECK(server.cfg.protected_mode == 1);
    CHECK(protectedModeDenies("192.0.2.7", 0));
    CHECK(protectedModeDenies("10.1.2.3", 0));
    CHECK(protectedModeDenies("fd00::2", 0));
    CHECK(protectedModeDenies("::ffff:127.0.0.1", 0)); /* Redis compares the text */
    CHECK(!protectedModeDenies("127.0.0.1", 0));
    CHECK(!protectedModeDenies("127.3.4.5", 0));
    CHECK(!protectedModeDenies("::1", 0));
    CHECK(!protectedModeDenies("", 1)); /* Unix socket */
    server.cfg.requirepass = zstrdup("pw");
    CHECK(!protectedModeDenies("192.0.2.7", 0));
    zfree(server.cfg.requirepass);
    server.cfg.requirepass = NULL;
    server.cfg.protected_mode = 0;
    CHECK(!protectedModeDenies("192.0.2.7", 0));
    server.cfg.protected_mode = 1;
}

/* Redis's CPU list syntax (setcpuaffinity.c): numbers, ranges, strides. */
static void testCpulist(void) {
    static const struct {
        const char *list;
        const char *cpus; /* the set, as a list of single CPUs; NULL: refused */
    } cases[] = {
        {"0", "0"},           {"3", "3"},         {"0-3", "0,1,2,3"},      {"0-7:2", "0,2,4,6"},
        {"1,3", "1,3"},       {"1,10-11", "1,10,11"}, {"8-11", "8,9,10,11"}, {"0-6:3,5", "0,3,5,6"},
        {"2-2", "2"},         {"1023", "1023"},   {"", NULL},              {"a", NULL},
        {"1,", NULL},         {",1", NULL},       {"1-", NULL},            {"1-2:", NULL},
        {"1 2", NULL},        {"-1", NULL},       {"2-1", NULL},           {"0-3:0", NULL},
        {"1024", NULL},       {"99999999999999999999", NULL}, {"1:2", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cpu_set_t set;
        sds err = NULL;
        int ok = cpulistParse(cases[i].list, &set, &err);
        if (!cases[i].cpus) {
            CHECK(!ok && err != NULL && !strncmp(err, "invalid CPU list: ", 18));
            sdsfree(err);
            continue;
        }
        CHECK(ok && err == NULL);
        sds got = sdsempty();
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) got = sdscatprintf(got, "%s%d", sdslen(got) ? "," : "", c);
        if (strcmp(got, cases[i].cpus))
            fprintf(stderr, "test_config: cpulist '%s' gave %s, expected %s\n", cases[i].list, got, cases[i].cpus);
        CHECK_STR(got, cases[i].cpus);
        sdsfree(got);
    }
    /* Read from a file as Redis writes them; CONFIG GET shows them so. */
    CHECK(loadText("server_cpulist 0-7:2\nbio_cpulist \"1,3\"\n") == NULL);
    CHECK_GET("server_cpulist", "0-7:2");
    CHECK_GET("bio_cpulist", "1,3");
    /* "" unsets them (the later line wins). */
    CHECK(loadText("server_cpulist 1\nbio_cpulist 1\nserver_cpulist \"\"\nbio_cpulist \"\"\n") == NULL);
    CHECK(server.cfg.server_cpulist == NULL && server.cfg.bio_cpulist == NULL);
    /* Redis's lists for its forked children: checked, no effect (casq forks
     * none), CONFIG GET says so. */
    CHECK(loadText("aof_rewrite_cpulist 8-11\nbgsave_cpulist 1,10-11\n") == NULL);
    CHECK_GET("bgsave_cpulist", "");
    sds err = loadText("bgsave_cpulist 1,x\n");
    CHECK_CONTAINS(err, "invalid CPU list: a CPU number was expected at 'x'");
    sdsfree(err);
}

int test_config(void) {
    char cwd[4096];
    failures = 0;
    if (!getcwd(cwd, sizeof(cwd))) cwd[0] = '\0';
    makeTempDir();

    testDefaults();
    testParsing();
    testMemoryUnits();
    testErrors();
    testFilesAndIncludes();
    testRewrite();
    testProtectedMode();
    testCpulist();

    rmdir(tmpdir);
    /* Leave the server with its defaults and the original directory. */
    if (cwd[0] && chdir(cwd) == -1) failures++;
    initServerConfig();
    zfree(server.cfg.configfile);
    server.cfg.configfile = NULL;
    return failures;
}
