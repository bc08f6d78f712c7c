/* testhelp.c -- in-process server and socketpair connections for the C unit
 * tests and the fuzzer (see testhelp.h).
 *
 * src/server.c is compiled here with its main() renamed, so tests reach
 * initServer(), beforeSleep() and the rest exactly as the server runs them;
 * the test binaries link every other server object unchanged. */
#define main casq_main
#include "../../src/server.c"
#undef main

#include "testhelp.h"

#include <dirent.h>
#include <event2/event.h>
#include <poll.h>
#include <sys/ioctl.h>

int th_failures;
sds *th_argv;
int th_argc;

static int server_started;
static char server_dir[256];

void thCheckBytes(const char *file, int line, const char *got, size_t gotlen, const char *want, size_t wantlen) {
    if (got && gotlen == wantlen && memcmp(got, want, wantlen) == 0) return;
    sds g = got ? sdscatrepr(sdsempty(), got, gotlen > 300 ? 300 : gotlen) : sdsnew("(null)");
    sds w = sdscatrepr(sdsempty(), want, wantlen > 300 ? 300 : wantlen);
    printf("    %s:%d: got %s%s (%zu bytes)\n    %*s  want %s%s (%zu bytes)\n", file, line, g,
           gotlen > 300 ? "..." : "", got ? gotlen : 0, (int)strlen(file), "", w, wantlen > 300 ? "..." : "",
           wantlen);
    sdsfree(g);
    sdsfree(w);
    th_failures++;
}

/* ------------------------------------------------------------------------
 * The test command
 * --------------------------------------------------------------------- */

static void unittestArgvCommand(client *c) {
    for (int i = 0; i < th_argc; i++) sdsfree(th_argv[i]);
    zfree(th_argv);
    th_argc = c->argc;
    th_argv = zmalloc(sizeof(sds) * (size_t)(c->argc ? c->argc : 1));
    for (int i = 0; i < c->argc; i++) th_argv[i] = sdsdup(c->argv[i]);
    addReplyOk(c);
}

static struct redisCommand unittestArgvRow = {
    "unittest-argv", unittestArgvCommand, -1, CMD_FAST | CMD_LOADING | CMD_NO_AUTH, 0, 0, 0, "", NULL,
};

/* ------------------------------------------------------------------------
 * Server
 * --------------------------------------------------------------------- */

static void removeDir(const char *path) {
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
        if (unlink(p) == -1) removeDir(p);
    }
    closedir(d);
    rmdir(path);
}

void testStartServer(void) {
    if (server_started) return;
    const char *tmp = getenv("TMPDIR");
    char cwd[4096];
    if (!getcwd(cwd, sizeof(cwd))) cwd[0] = '\0';
    snprintf(server_dir, sizeof(server_dir), "%s/casq-unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(server_dir) || chdir(server_dir) == -1) {
        perror("testStartServer: temporary directory");
        exit(2);
    }
    initServerConfig();
    server.cfg.verbosity = LL_WARNING; /* tests provoke errors on purpose */
    initServer();
    unittestArgvRow.fullname = sdsnew(unittestArgvRow.name);
    dictAdd(server.commands, sdsnew(unittestArgvRow.name), &unittestArgvRow);
    sds err = NULL;
    if (commitInit(&err) != C_OK) {
        printf("testStartServer: commitInit failed: %s\n", err ? err : "?");
        exit(2);
    }
    /* The store now has the document's absolute path: go back, so relative
     * paths given to the test program (a fuzzer's corpus) keep working. */
    if (cwd[0] && chdir(cwd) == -1) perror("testStartServer: chdir back");
    server_started = 1;
}

void testStopServer(void) {
    if (!server_started) return;
    while (listLength(server.clients)) freeClient(listNodeValue(listFirst(server.clients)));
    commitFlushAndClose();
    for (int i = 0; i < th_argc; i++) sdsfree(th_argv[i]);
    zfree(th_argv);
    th_argv = NULL;
    th_argc = 0;
    removeDir(server_dir);
    server_started = 0;
}

void testServerStep(void) {
    beforeSleep();
    event_base_loop(server.el, EVLOOP_NONBLOCK);
    beforeSleep();
}

/* ------------------------------------------------------------------------
 * Connections
 * --------------------------------------------------------------------- */

static client *findClient(uint64_t id) {
    for (listNode *ln = listFirst(server.clients); ln; ln = ln->next) {
        client *c = listNodeValue(ln);
        if (c->id == id) return c;
    }
    return NULL;
}

testConn *testConnCreate(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1) {
        perror("socketpair");
        exit(2);
    }
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    testConn *tc = zcalloc(sizeof(*tc));
    tc->peer = sv[0];
    tc->c = createClient(sv[1], 1);
    tc->id = tc->c->id;
    tc->in = sdsempty();
    return tc;
}

/* Moves what the server sent into tc->in; notes EOF. */
static void drain(testConn *tc) {
    char buf[65536];
    for (;;) {
        ssize_t n = read(tc->peer, buf, sizeof(buf));
        if (n > 0) {
            tc->in = sdscatlen(tc->in, buf, (size_t)n);
            continue;
        }
        if (n == 0) tc->closed = 1;
        break;
    }
    tc->c = findClient(tc->id);
}

void testConnFree(testConn *tc) {
    close(tc->peer);
    /* The server notices the hang-up on its next read. */
    for (int i = 0; i < 100 && findClient(tc->id); i++) testServerStep();
    sdsfree(tc->in);
    zfree(tc);
}

void testConnWrite(testConn *tc, const char *buf, size_t len) {
    while (len) {
        ssize_t n = write(tc->peer, buf, len);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n == -1 && errno != EAGAIN && errno != EINTR) return; /* server gone */
        testServerStep();
        drain(tc);
    }
}

long testReplyLength(const char *buf, size_t len) {
    if (len < 3) return 0;
    const char *nl = memchr(buf, '\n', len);
    if (!nl) return 0;
    if (nl == buf || nl[-1] != '\r') return -1;
    size_t hdr = (size_t)(nl - buf) + 1;
    long long n = 0;
    char t = buf[0];
    switch (t) {
    case '+': case '-': case ':': case '_': case ',': case '#': case '(':
        return (long)hdr;
    case '$': case '=': case '!':
        if (!string2ll(buf + 1, hdr - 3, &n)) return -1;
        if (n < 0) return (long)hdr;
        return len >= hdr + (size_t)n + 2 ? (long)(hdr + (size_t)n + 2) : 0;
    case '*': case '~': case '>': case '%': case '|': {
        if (!string2ll(buf + 1, hdr - 3, &n)) return -1;
        if (n < 0) return (long)hdr;
        if (t == '%' || t == '|') n *= 2;
        if (t == '|') n++; /* the attributed value follows */
        size_t off = hdr;
        for (long long i = 0; i < n; i++) {
            long l = testReplyLength(buf + off, len - off);
            if (l <= 0) return l;
            off += (size_t)l;
        }
        return (long)off;
    }
    default:
        return -1;
    }
}

static int countReplies(testConn *tc) {
    int n = 0;
    size_t off = 0;
    for (;;) {
        long l = testReplyLength(tc->in + off, sdslen(tc->in) - off);
        if (l <= 0) return n;
        off += (size_t)l;
        n++;
    }
}

int testConnWaitReplies(testConn *tc, int n, int timeout_ms) {
    long long deadline = mstime() + timeout_ms;
    drain(tc);
    while (countReplies(tc) < n && !tc->closed && mstime() < deadline) {
        testServerStep();
        drain(tc);
        if (countReplies(tc) < n && !tc->closed) {
            /* Nothing yet: a commit may be in flight on the store thread. */
            struct pollfd p = {.fd = tc->peer, .events = POLLIN};
            poll(&p, 1, 1);
        }
    }
    return countReplies(tc);
}

int testConnWaitClosed(testConn *tc, int timeout_ms) {
    long long deadline = mstime() + timeout_ms;
    drain(tc);
    while (!tc->closed && mstime() < deadline) {
        testServerStep();
        drain(tc);
        if (!tc->closed) {
            struct pollfd p = {.fd = tc->peer, .events = POLLIN};
            poll(&p, 1, 1);
        }
    }
    return tc->closed;
}

sds testConnPopReply(testConn *tc) {
    long l = testReplyLength(tc->in, sdslen(tc->in));
    if (l <= 0) return NULL;
    sds r = sdsnewlen(tc->in, (size_t)l);
    sdsrange(tc->in, l, -1);
    return r;
}

sds testConnCall(testConn *tc, const char *req, size_t len) {
    testConnWrite(tc, req, len);
    if (testConnWaitReplies(tc, 1, 10000) < 1) return NULL;
    return testConnPopReply(tc);
}
