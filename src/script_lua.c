/* script_lua.c -- the Lua environment Redis 7.2 gives scripts, on Debian's
 * Lua 5.1 (the version Redis embeds), shared by EVAL (eval.c) and FUNCTION
 * (functions.c): the libraries, the redis.* API, the conversions between
 * Lua values and replies (RESP2 and RESP3), read-only globals, errors in
 * Redis's words, and the run of one script (busy scripts, SCRIPT KILL).
 *
 * Read-only tables. Redis patches its Lua so that the globals and every
 * library table refuse writes. Debian's Lua is stock, so casq gets the
 * same from proxies: a script sees an empty table whose metatable reads
 * from the real one (__index is the table itself: no C call on a read)
 * and refuses writes (__newindex). The real tables are never reachable
 * from a script: the raw functions that would bypass a metatable (rawset,
 * rawget, next/pairs, ipairs, setmetatable, getmetatable) are replaced by
 * versions that see through a proxy for reading and refuse to write into
 * one, and loadstring's chunks get the scripts' environment. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commit.h"
#include "lua_libs.h"
#include "script.h"

/* ========================================================================
 * SHA-1 (FIPS 180-1), for the scripts' names and redis.sha1hex()
 * ===================================================================== */

#define ROL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

static void sha1Block(uint32_t h[5], const unsigned char *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = ROL32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) f = (b & c) | (~b & d), k = 0x5A827999;
        else if (i < 40) f = b ^ c ^ d, k = 0x6ED9EBA1;
        else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
        else f = b ^ c ^ d, k = 0xCA62C1D6;
        uint32_t t = ROL32(a, 5) + f + e + k + w[i];
        e = d, d = c, c = ROL32(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void scriptSha1hex(char out[41], const char *s, size_t len) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    unsigned char block[64];
    size_t off = 0;
    for (; len - off >= 64; off += 64) sha1Block(h, (const unsigned char *)s + off);
    size_t rest = len - off;
    memcpy(block, s + off, rest);
    block[rest++] = 0x80;
    if (rest > 56) {
        memset(block + rest, 0, 64 - rest);
        sha1Block(h, block);
        rest = 0;
    }
    memset(block + rest, 0, 56 - rest);
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1Block(h, block);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 20; i++) {
        unsigned char byte = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
        out[2 * i] = hex[byte >> 4];
        out[2 * i + 1] = hex[byte & 15];
    }
    out[40] = '\0';
}

/* ========================================================================
 * Script flags
 * ===================================================================== */

static const struct {
    const char *name;
    int flag;
} scriptFlagNames[] = {
    {"no-writes", SCRIPT_FLAG_NO_WRITES},
    {"allow-oom", SCRIPT_FLAG_ALLOW_OOM},
    {"allow-stale", SCRIPT_FLAG_ALLOW_STALE},
    {"no-cluster", SCRIPT_FLAG_NO_CLUSTER},
    {"allow-cross-slot-keys", SCRIPT_FLAG_ALLOW_CROSS_SLOT},
    {NULL, 0},
};

int scriptFlagFromName(const char *name, size_t len) {
    for (int j = 0; scriptFlagNames[j].name; j++)
        if (strlen(scriptFlagNames[j].name) == len && !memcmp(scriptFlagNames[j].name, name, len))
            return scriptFlagNames[j].flag;
    return 0;
}

/* A set of simple strings, as Redis's functionListReplyFlags (FUNCTION
 * LIST: "+no-writes", not a bulk string). */
void scriptAddReplyFlags(client *c, int flags) {
    int n = 0;
    for (int j = 0; scriptFlagNames[j].name; j++)
        if (flags & scriptFlagNames[j].flag) n++;
    addReplySetLen(c, n);
    for (int j = 0; scriptFlagNames[j].name; j++)
        if (flags & scriptFlagNames[j].flag) addReplyStatus(c, scriptFlagNames[j].name);
}

/* ========================================================================
 * The running script
 * ===================================================================== */

/* Registry keys. */
#define REG_GLOBALS_MT "casq_globals_mt" /* the real globals' metatable */
#define REG_ENV "casq_env"               /* what scripts see as _G */
#define REG_STRING_MT "casq_string_mt"   /* getmetatable('') for scripts */
#define REG_LIBRARY_API "casq_library_api" /* FUNCTION LOAD's globals */

/* Marks a proxy's metatable (a light userdata key no script can make). */
static char proxyMarker;
static char proxyVisibleMt;

static struct {
    client *lua_client;  /* runs the scripts' redis.call()s */
    scriptRunCtx *run;   /* the script running, NULL when none */
    long long loader_deadline_ms; /* FUNCTION LOAD's code must end by then
                                   * (monotonic ms), 0 when none runs */
} lctx;

scriptRunCtx *scriptCurrent(void) { return lctx.run; }
int scriptIsBusy(void) { return lctx.run && lctx.run->busy; }

const char *scriptBusyError(void) {
    if (lctx.run && lctx.run->kind == SCRIPT_ENGINE_FUNCTION)
        return "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    return "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
}

static long long monotonicMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

client *scriptLuaClient(void) {
    if (!lctx.lua_client) {
        lctx.lua_client = createFakeClient();
        snprintf(lctx.lua_client->addr, sizeof(lctx.lua_client->addr), "lua");
        lctx.lua_client->authenticated = 1;
    }
    return lctx.lua_client;
}

int scriptLuaRaise(lua_State *L, const char *msg) {
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushfstring(L, "ERR %s", msg);
    lua_settable(L, -3);
    return lua_error(L);
}

void scriptKill(client *c, int is_function) {
    scriptRunCtx *run = lctx.run;
    if (!run) {
        addReplyErrorObject(c, "-NOTBUSY No scripts in execution right now.\r\n");
        return;
    }
    if (run->wrote) {
        addReplyErrorObject(c,
                            "-UNKILLABLE Sorry the script already executed write commands against the dataset. You "
                            "can either wait the script termination or kill the server in a hard way using the "
                            "SHUTDOWN NOSAVE command.\r\n");
        return;
    }
    /* The other engine's KILL: Redis answers the -BUSY that names the
     * right one. */
    if ((run->kind == SCRIPT_ENGINE_FUNCTION) != is_function) {
        addReplyError(c, scriptBusyError());
        return;
    }
    run->killed = 1;
    addReplyOk(c);
}

void scriptAddReplyRunning(client *c) {
    scriptRunCtx *run = lctx.run;
    if (!run || run->kind != SCRIPT_ENGINE_FUNCTION) {
        addReplyNull(c);
        return;
    }
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "name");
    addReplyBulkCString(c, run->name);
    addReplyBulkCString(c, "command");
    client *caller = run->caller;
    addReplyArrayLen(c, caller->argc);
    for (int j = 0; j < caller->argc; j++) addReplyBulkSds(c, sdsdup(caller->argv[j]));
    addReplyBulkCString(c, "duration_ms");
    addReplyLongLong(c, monotonicMs() - run->start_ms);
}

/* Called every LUA_HOOK_COUNT instructions while a script runs: past
 * busy-reply-threshold the server answers other clients (-BUSY but for
 * SCRIPT KILL and the like), and a kill turns into an error the script
 * cannot catch (the hook then fires at every line, so a pcall loop ends
 * too). */
#define LUA_HOOK_COUNT 100000

static void luaMaskCountHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    scriptRunCtx *run = lctx.run;
    long long now = monotonicMs();
    if (!run) {
        /* FUNCTION LOAD's library code: a hard time limit. */
        if (lctx.loader_deadline_ms && now >= lctx.loader_deadline_ms) {
            lua_sethook(L, luaMaskCountHook, LUA_MASKLINE, 0);
            scriptLuaRaise(L, "FUNCTION LOAD timeout");
        }
        return;
    }
    if (!run->busy && now - run->start_ms >= server.cfg.busy_reply_threshold) {
        run->busy = 1;
        serverLog(LL_WARNING,
                  "Slow script detected: still in execution after %lld milliseconds. You can try killing the "
                  "script using the %s command. Script name is: %s.",
                  now - run->start_ms, run->kind == SCRIPT_ENGINE_FUNCTION ? "FUNCTION KILL" : "SCRIPT KILL",
                  run->name);
    }
    if (run->busy) processEventsWhileBlocked(run->caller);
    if (run->killed) {
        /* Redis's texts name SCRIPT KILL for functions too. */
        serverLog(LL_NOTICE, "Lua script killed by user with SCRIPT KILL.");
        lua_sethook(L, luaMaskCountHook, LUA_MASKLINE, 0);
        scriptLuaRaise(L, "Script killed by user with SCRIPT KILL...");
    }
}

/* ========================================================================
 * Server reply -> Lua value
 * ===================================================================== */

/* Pushes {field = value-on-top} in place of the value on top. */
static void luaWrapInTable(lua_State *L, const char *field) {
    lua_newtable(L);
    lua_pushstring(L, field);
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    lua_replace(L, -2);
}

/* The Lua error table for an error reply or message: {err="CODE msg"}.
 * Accepts "-CODE msg" (a reply line: its code kept, the dash dropped) and
 * "msg" (given the generic ERR code), as Redis's luaPushErrorBuff. */
static void luaPushErrorBuff(lua_State *L, const char *err, size_t len) {
    sds code, msg;
    if (len && err[0] == '-') {
        const char *sp = memchr(err, ' ', len);
        if (!sp) {
            code = sdsnew("ERR");
            msg = sdsnewlen(err + 1, len - 1);
        } else {
            code = sdsnewlen(err + 1, (size_t)(sp - err - 1));
            msg = sdsnewlen(sp + 1, len - (size_t)(sp - err) - 1);
        }
    } else {
        code = sdsnew("ERR");
        msg = sdsnewlen(err, len);
    }
    sdstrim(msg, "\r\n");
    code = sdscatlen(code, " ", 1);
    code = sdscatsds(code, msg);
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushlstring(L, code, sdslen(code));
    lua_settable(L, -3);
    sdsfree(code);
    sdsfree(msg);
}

/* Pushes the reply at *p (RESP2 or RESP3, as the fake client speaks it
 * after redis.setresp) and advances *p past it. */
static void luaPushReply(lua_State *L, const char **p, const char *end) {
    const char *s = *p;
    const char *nl = memchr(s, '\r', (size_t)(end - s));
    if (!nl) nl = end;
    const char *line = s + 1;
    size_t linelen = (size_t)(nl - s - 1);
    long long n = 0;
    *p = nl + 2;
    if (!lua_checkstack(L, 5)) luaL_error(L, "reached lua stack limit");
    switch (*s) {
    case '+':
        lua_pushlstring(L, line, linelen);
        luaWrapInTable(L, "ok");
        return;
    case '-':
        luaPushErrorBuff(L, s, (size_t)(nl - s));
        return;
    case ':':
        string2ll(line, linelen, &n);
        lua_pushnumber(L, (lua_Number)n);
        return;
    case '$':
    case '=':
        string2ll(line, linelen, &n);
        if (n < 0) {
            lua_pushboolean(L, 0);
            return;
        }
        if (*s == '=') {
            /* {verbatim_string = {format = "txt", string = "..."}} */
            lua_newtable(L);
            lua_pushstring(L, "format");
            lua_pushlstring(L, *p, 3);
            lua_settable(L, -3);
            lua_pushstring(L, "string");
            lua_pushlstring(L, *p + 4, (size_t)n - 4);
            lua_settable(L, -3);
            luaWrapInTable(L, "verbatim_string");
        } else {
            lua_pushlstring(L, *p, (size_t)n);
        }
        *p += n + 2;
        return;
    case '_':
        lua_pushnil(L);
        return;
    case '#':
        lua_pushboolean(L, linelen && line[0] == 't');
        return;
    case ',': {
        char buf[MAX_D2STRING_CHARS];
        size_t l = linelen < sizeof(buf) - 1 ? linelen : sizeof(buf) - 1;
        memcpy(buf, line, l);
        buf[l] = '\0';
        lua_pushnumber(L, strtod(buf, NULL));
        luaWrapInTable(L, "double");
        return;
    }
    case '(':
        lua_pushlstring(L, line, linelen);
        luaWrapInTable(L, "big_number");
        return;
    case '*':
    case '>':
        string2ll(line, linelen, &n);
        if (n < 0) {
            lua_pushboolean(L, 0);
            return;
        }
        lua_createtable(L, (int)n, 0);
        for (long long j = 1; j <= n; j++) {
            luaPushReply(L, p, end);
            lua_rawseti(L, -2, (int)j);
        }
        return;
    case '%':
    case '~':
        string2ll(line, linelen, &n);
        lua_newtable(L);
        for (long long j = 0; j < n; j++) {
            luaPushReply(L, p, end);
            if (*s == '%') luaPushReply(L, p, end);
            else lua_pushboolean(L, 1);
            lua_settable(L, -3);
        }
        luaWrapInTable(L, *s == '%' ? "map" : "set");
        return;
    case '|':
        /* Attributes are not shown to scripts: skip them, then the reply. */
        string2ll(line, linelen, &n);
        for (long long j = 0; j < 2 * n; j++) {
            luaPushReply(L, p, end);
            lua_pop(L, 1);
        }
        luaPushReply(L, p, end);
        return;
    default:
        serverPanic("unexpected reply type '%c' to a script", *s);
    }
}

/* ========================================================================
 * redis.call() / redis.pcall()
 * ===================================================================== */

/* The refusal as a Lua error table: raised by call(), returned by pcall(). */
static int luaCallRefused(lua_State *L, int raise, const char *msg) {
    luaPushErrorBuff(L, msg, strlen(msg));
    if (raise) return lua_error(L);
    return 1;
}

/* Writes the number the way Redis passes it to a command: integers
 * without a fraction, others with 17 significant digits. */
static sds luaNumberArg(lua_Number num) {
    char buf[64];
    if (num == (lua_Number)(long long)num && num > -1e18 && num < 1e18)
        snprintf(buf, sizeof(buf), "%lld", (long long)num);
    else
        snprintf(buf, sizeof(buf), "%.17g", (double)num);
    return sdsnew(buf);
}

/* The arguments of a redis.* call as sds (freed by the caller with
 * luaFreeArgs), or NULL if one is neither a string nor a number. */
static sds *luaArgsToSds(lua_State *L, int argc) {
    sds *argv = zmalloc(sizeof(sds) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        int t = lua_type(L, j + 1);
        if (t == LUA_TNUMBER) {
            argv[j] = luaNumberArg(lua_tonumber(L, j + 1));
        } else if (t == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, j + 1, &len);
            argv[j] = sdsnewlen(s, len);
        } else {
            for (int k = 0; k < j; k++) sdsfree(argv[k]);
            zfree(argv);
            return NULL;
        }
    }
    return argv;
}

static void luaFreeArgs(sds *argv, int argc) {
    for (int k = 0; k < argc; k++) sdsfree(argv[k]);
    zfree(argv);
}

/* Why cmd may not run from this script, or NULL (*own set when the text
 * is allocated). */
static const char *luaCallRefusal(scriptRunCtx *run, struct redisCommand *cmd, sds *argv, int argc, sds *own) {
    *own = NULL;
    if (!cmd) return "ERR Unknown Redis command called from script";
    if (!commandCheckArity(cmd, argc, NULL)) return "ERR Wrong number of args calling Redis command from script";
    if (cmd->flags & CMD_NOSCRIPT) return "ERR This Redis command is not allowed from script";
    if ((*own = aclScriptRefusal(run->caller, cmd, argv, argc)) != NULL) return *own;
    if (cmd->flags & CMD_WRITE) {
        if (run->readonly) return "ERR Write commands are not allowed from read-only scripts.";
        if ((*own = commitFollowerError()) != NULL) {
            /* "-READONLY ...\r\n" from a node that cannot write. */
            sdsrange(*own, 0, -3);
            return *own;
        }
    }
    /* Scripts that declared their flags were checked before they ran
     * (allow-oom); an EVAL without a shebang is checked at each command
     * that may grow memory, as in Redis. */
    if ((cmd->flags & CMD_DENYOOM) && !(run->flags & SCRIPT_FLAG_ALLOW_OOM) && server.cfg.maxmemory &&
        zmalloc_used_memory() > (size_t)server.cfg.maxmemory && !run->wrote)
        return "OOM command not allowed when used memory > 'maxmemory'.";
    return NULL;
}

static int luaRedisGenericCommand(lua_State *L, int raise) {
    int argc = lua_gettop(L);
    scriptRunCtx *run = lctx.run;
    client *c = lctx.lua_client;
    if (!run) return luaL_error(L, "redis.call/pcall can only be called inside a script invocation");
    if (argc == 0) return luaCallRefused(L, raise, "Please specify at least one argument for this redis lib call");
    sds *argv = luaArgsToSds(L, argc);
    if (!argv) return luaCallRefused(L, raise, "Lua redis lib command arguments must be strings or integers");

    struct redisCommand *cmd = lookupCommand(argv, argc);
    sds own;
    const char *refusal = luaCallRefusal(run, cmd, argv, argc, &own);
    if (refusal) {
        luaFreeArgs(argv, argc);
        /* A reply line ("-CODE msg"), so that its code is kept. Copied to
         * the Lua stack before the sds is freed: lua_error does not
         * return. */
        sds line = refusal[0] == '-' ? sdsnew(refusal) : sdscat(sdsnew("-"), refusal);
        luaPushErrorBuff(L, line, sdslen(line));
        sdsfree(line);
        sdsfree(own);
        if (raise) return lua_error(L);
        return 1;
    }
    if (cmd->flags & CMD_WRITE) run->wrote = 1;

    /* Run it as the caller would: in the caller's database (set when the
     * script started; a SELECT in the script moves only the script). */
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
    c->cmd = cmd;
    c->observe_seq = 0;
    sdsclear(c->pending);
    call(c);
    /* What the command read, the script's reply depends on. */
    observeSeq(run->caller, c->observe_seq);
    c->observe_seq = 0;
    luaFreeArgs(c->argv, c->argc);
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    c->cmd = NULL;

    /* The reply, moved off the client first: raising below must leave the
     * fake client clean. */
    sds reply = c->pending;
    c->pending = sdsempty();
    if (sdslen(reply) == 0) {
        lua_pushboolean(L, 0); /* CLIENT REPLY OFF and the like: nothing */
        sdsfree(reply);
        return 1;
    }
    const char *p = reply;
    int is_error = reply[0] == '-';
    luaPushReply(L, &p, reply + sdslen(reply));
    sdsfree(reply);
    if (is_error && raise) return lua_error(L);
    return 1;
}

static int luaRedisCallCommand(lua_State *L) { return luaRedisGenericCommand(L, 1); }
static int luaRedisPCallCommand(lua_State *L) { return luaRedisGenericCommand(L, 0); }

/* ========================================================================
 * The rest of the redis.* API
 * ===================================================================== */

/* redis.sha1hex(string) */
static int luaRedisSha1hexCommand(lua_State *L) {
    if (lua_gettop(L) != 1) {
        lua_pushstring(L, "wrong number of arguments");
        return lua_error(L);
    }
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    scriptSha1hex(hex, s ? s : "", s ? len : 0);
    lua_pushstring(L, hex);
    return 1;
}

/* redis.error_reply(msg): {err="CODE msg"} (a bare msg gets ERR). */
static int luaRedisErrorReplyCommand(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        luaPushErrorBuff(L, "wrong number or type of arguments", 33);
        return 1;
    }
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    /* A message without a leading dash gets one, then the generic rule. */
    sds err = s[0] == '-' ? sdsnewlen(s, len) : sdscatlen(sdsnew("-"), s, len);
    luaPushErrorBuff(L, err, sdslen(err));
    sdsfree(err);
    return 1;
}

/* redis.status_reply(msg): {ok=msg}. */
static int luaRedisStatusReplyCommand(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        luaPushErrorBuff(L, "wrong number or type of arguments", 33);
        return 1;
    }
    luaWrapInTable(L, "ok");
    return 1;
}

/* redis.log(level, message...) into the server log. */
static int luaLogCommand(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc < 2) return scriptLuaRaise(L, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(L, 1)) return scriptLuaRaise(L, "First argument must be a number (log level).");
    int level = (int)lua_tonumber(L, 1);
    if (level < LL_DEBUG || level > LL_WARNING) return scriptLuaRaise(L, "Invalid debug level.");
    if (level < server.cfg.verbosity) return 0;
    sds msg = sdsempty();
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (!s) continue;
        if (j != 2) msg = sdscatlen(msg, " ", 1);
        msg = sdscatlen(msg, s, len);
    }
    serverLogRaw(level, msg);
    sdsfree(msg);
    return 0;
}

/* redis.setresp(2|3): the protocol the script's commands reply in. */
static int luaSetResp(lua_State *L) {
    if (lua_gettop(L) != 1) return scriptLuaRaise(L, "redis.setresp() requires one argument.");
    int resp = (int)lua_tonumber(L, -1);
    if (resp != 2 && resp != 3) return scriptLuaRaise(L, "RESP version must be 2 or 3.");
    lctx.lua_client->resp = resp;
    return 0;
}

/* Replication controls: casq has no replicas, and a script's writes go into
 * the commit as one change whatever they say; the checks are Redis's. */
#define PROPAGATE_NONE 0
#define PROPAGATE_AOF 1
#define PROPAGATE_REPL 2
#define PROPAGATE_ALL 3

static int luaRedisSetReplCommand(lua_State *L) {
    /* "two" is Redis's text, though it takes one. */
    if (lua_gettop(L) != 1) return scriptLuaRaise(L, "redis.set_repl() requires two arguments.");
    int flags = (int)lua_tonumber(L, -1);
    if ((flags & ~(PROPAGATE_AOF | PROPAGATE_REPL)) != 0)
        return scriptLuaRaise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    return 0;
}

/* Effects replication is the only mode since Redis 7: always true. */
static int luaRedisReplicateCommandsCommand(lua_State *L) {
    lua_pushboolean(L, 1);
    return 1;
}

/* The script debugger's hooks do nothing outside a debugging session,
 * and casq has none (SCRIPT DEBUG is not offered). */
static int luaRedisBreakpointCommand(lua_State *L) {
    lua_pushboolean(L, 0);
    return 1;
}

static int luaRedisDebugCommand(lua_State *L) {
    (void)L;
    return 0;
}

/* redis.acl_check_cmd(cmd, args...): may the caller's user run it? */
static int luaRedisAclCheckCmdPermissionsCommand(lua_State *L) {
    scriptRunCtx *run = lctx.run;
    int argc = lua_gettop(L);
    if (argc == 0) return scriptLuaRaise(L, "Please specify at least one argument for this redis lib call");
    sds *argv = luaArgsToSds(L, argc);
    if (!argv) return scriptLuaRaise(L, "Lua redis lib command arguments must be strings or integers");
    struct redisCommand *cmd = lookupCommand(argv, argc);
    if (!cmd) {
        luaFreeArgs(argv, argc);
        return scriptLuaRaise(L, "Invalid command passed to redis.acl_check_cmd()");
    }
    int ok = !run || aclUserMayRun(run->caller, cmd, argv, argc);
    luaFreeArgs(argv, argc);
    lua_pushboolean(L, ok);
    return 1;
}

/* ========================================================================
 * Read-only tables (see the top of the file)
 * ===================================================================== */

/* The real table behind the proxy at idx, pushed; nothing pushed and 0
 * returned if idx is not a proxy. */
static int luaProxyTarget(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return 0;
    lua_pushlightuserdata(L, &proxyMarker);
    lua_rawget(L, -2);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 2);
        return 0;
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "__index");
    lua_replace(L, -2);
    return 1;
}

static int luaIsProxy(lua_State *L, int idx) {
    if (!luaProxyTarget(L, idx)) return 0;
    lua_pop(L, 1);
    return 1;
}

static int luaReadonlyError(lua_State *L) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    return lua_error(L);
}

/* __newindex of a proxy: the message carries the script's position. */
static int luaReadonlyNewindex(lua_State *L) {
    luaL_where(L, 1);
    lua_pushstring(L, "Attempt to modify a readonly table");
    lua_concat(L, 2);
    return lua_error(L);
}

/* Replaces the table on top of the stack by a read-only proxy of it.
 * visible_mt: registry key of what getmetatable() shows, NULL for nil. */
static void luaMakeProxy(lua_State *L, const char *visible_mt) {
    lua_newtable(L);                 /* proxy */
    lua_newtable(L);                 /* its metatable */
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, luaReadonlyNewindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushlightuserdata(L, &proxyMarker);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    if (visible_mt) {
        lua_pushlightuserdata(L, &proxyVisibleMt);
        lua_getfield(L, LUA_REGISTRYINDEX, visible_mt);
        lua_rawset(L, -3);
    }
    lua_setmetatable(L, -2);
    lua_replace(L, -2);
}

/* The global `name` (a table) replaced by its read-only proxy. */
static void luaProtectGlobal(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    if (lua_istable(L, -1)) {
        luaMakeProxy(L, NULL);
        lua_setglobal(L, name);
    } else {
        lua_pop(L, 1);
    }
}

static int luaRawsetGuard(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (luaIsProxy(L, 1)) return luaReadonlyError(L);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int luaRawgetGuard(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    if (luaProxyTarget(L, 1)) lua_replace(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

static int luaNextGuard(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (luaProxyTarget(L, 1)) lua_replace(L, 1);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int luaPairsGuard(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushvalue(L, lua_upvalueindex(1)); /* next */
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int luaIpairsAux(lua_State *L) {
    int i = luaL_checkint(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    if (luaProxyTarget(L, 1)) lua_replace(L, 1);
    i++;
    lua_pushinteger(L, i);
    lua_rawgeti(L, 1, i);
    return lua_isnil(L, -1) ? 0 : 2;
}

static int luaIpairsGuard(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushvalue(L, lua_upvalueindex(1)); /* luaIpairsAux */
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    return 3;
}

static int luaSetmetatableGuard(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
    if (luaIsProxy(L, 1)) return luaReadonlyError(L);
    if (luaL_getmetafield(L, 1, "__metatable")) luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

static int luaGetmetatableGuard(lua_State *L) {
    luaL_checkany(L, 1);
    if (lua_type(L, 1) == LUA_TSTRING) {
        lua_getfield(L, LUA_REGISTRYINDEX, REG_STRING_MT);
        return 1;
    }
    if (luaIsProxy(L, 1)) {
        lua_getmetatable(L, 1);
        lua_pushlightuserdata(L, &proxyVisibleMt);
        lua_rawget(L, -2);
        return 1;
    }
    if (!lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    luaL_getmetafield(L, 1, "__metatable");
    return 1;
}

/* loadstring / load: the chunk gets the scripts' environment, not the real
 * globals (which a chunk could otherwise write into). */
static int luaLoadGuard(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    if (lua_isfunction(L, 1)) {
        lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
        lua_setfenv(L, 1);
    }
    return lua_gettop(L);
}

/* A global that does not exist: an error, as in Redis (typos in scripts
 * would otherwise read nil). */
static int luaGlobalIndexError(lua_State *L) {
    luaL_where(L, 1);
    lua_pushfstring(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_isstring(L, 2) ? lua_tostring(L, 2) : "?");
    lua_concat(L, 2);
    return lua_error(L);
}

/* Pushes a new table whose missing keys raise the nonexistent-global
 * error (the real globals, and FUNCTION LOAD's). */
static void luaNewStrictTable(lua_State *L) {
    lua_newtable(L);
    lua_newtable(L);
    lua_pushcfunction(L, luaGlobalIndexError);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

/* ========================================================================
 * Building an interpreter
 * ===================================================================== */

static void luaLoadLib(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void luaSetField(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
}

static void luaSetNumber(lua_State *L, const char *name, lua_Number n) {
    lua_pushnumber(L, n);
    lua_setfield(L, -2, name);
}

/* REDIS_VERSION_NUM: 0x00MMmmpp of the version casq speaks for. */
static lua_Number luaVersionNum(void) {
    int major = 0, minor = 0, patch = 0;
    sscanf(REDIS_COMPAT_VERSION, "%d.%d.%d", &major, &minor, &patch);
    return (lua_Number)((major << 16) | (minor << 8) | patch);
}

/* What both the scripts' redis table and FUNCTION LOAD's have. */
static void luaSetCommonRedisFields(lua_State *L) {
    luaSetField(L, "log", luaLogCommand);
    luaSetNumber(L, "LOG_DEBUG", LL_DEBUG);
    luaSetNumber(L, "LOG_VERBOSE", LL_VERBOSE);
    luaSetNumber(L, "LOG_NOTICE", LL_NOTICE);
    luaSetNumber(L, "LOG_WARNING", LL_WARNING);
    lua_pushstring(L, REDIS_COMPAT_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
    luaSetNumber(L, "REDIS_VERSION_NUM", luaVersionNum());
}

static void luaPushRedisTable(lua_State *L, scriptEngineKind kind) {
    lua_newtable(L);
    luaSetField(L, "call", luaRedisCallCommand);
    luaSetField(L, "pcall", luaRedisPCallCommand);
    luaSetField(L, "sha1hex", luaRedisSha1hexCommand);
    luaSetField(L, "error_reply", luaRedisErrorReplyCommand);
    luaSetField(L, "status_reply", luaRedisStatusReplyCommand);
    luaSetField(L, "setresp", luaSetResp);
    luaSetField(L, "set_repl", luaRedisSetReplCommand);
    luaSetField(L, "acl_check_cmd", luaRedisAclCheckCmdPermissionsCommand);
    if (kind == SCRIPT_ENGINE_EVAL) {
        /* Functions have no debugger hooks nor the pre-7 mode switch. */
        luaSetField(L, "replicate_commands", luaRedisReplicateCommandsCommand);
        luaSetField(L, "breakpoint", luaRedisBreakpointCommand);
        luaSetField(L, "debug", luaRedisDebugCommand);
    }
    luaSetNumber(L, "REPL_NONE", PROPAGATE_NONE);
    luaSetNumber(L, "REPL_AOF", PROPAGATE_AOF);
    luaSetNumber(L, "REPL_SLAVE", PROPAGATE_REPL);
    luaSetNumber(L, "REPL_REPLICA", PROPAGATE_REPL);
    luaSetNumber(L, "REPL_ALL", PROPAGATE_ALL);
    luaSetCommonRedisFields(L);
}

/* The error handler scripts run under (Redis names it
 * __redis__err__handler): turns what was raised into {err=, source=,
 * line=} with the position of the script code that failed. */
static int luaErrorHandler(lua_State *L) {
    lua_Debug ar;
    int level = 1;
    if (lua_getstack(L, 1, &ar)) {
        lua_getinfo(L, "Sl", &ar);
        if (!strcmp(ar.what, "C")) level = 2;
    }
    if (lua_type(L, 1) != LUA_TTABLE) {
        const char *s = lua_isstring(L, 1)    ? lua_tostring(L, 1)
                        : lua_isnil(L, 1)     ? "nil"
                        : lua_isboolean(L, 1) ? (lua_toboolean(L, 1) ? "true" : "false")
                                              : luaL_typename(L, 1);
        lua_newtable(L);
        lua_pushstring(L, "err");
        lua_pushfstring(L, "ERR %s", s);
        lua_settable(L, -3);
        lua_replace(L, 1);
    }
    if (lua_getstack(L, level, &ar)) {
        lua_getinfo(L, "Sl", &ar);
        lua_pushstring(L, ar.source);
        lua_setfield(L, 1, "source");
        lua_pushnumber(L, ar.currentline);
        lua_setfield(L, 1, "line");
    }
    lua_settop(L, 1);
    return 1;
}

/* The library functions a script may not have (file access, changing
 * environments, the module system), as Redis removes them. */
static void luaRemoveUnsafeGlobals(lua_State *L) {
    static const char *const deny[] = {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy",
                                       "module", "require", "package", NULL};
    for (int j = 0; deny[j]; j++) {
        lua_pushnil(L);
        lua_setglobal(L, deny[j]);
    }
}

/* Replaces the base function `name` by guard, with the original (or
 * extra) as its upvalue when given. */
static void luaSetGuard(lua_State *L, const char *name, lua_CFunction guard, int with_upvalue) {
    if (with_upvalue) {
        lua_pushcclosure(L, guard, 1);
    } else {
        lua_pushcfunction(L, guard);
    }
    lua_setglobal(L, name);
}

/* The table library through proxies: table.insert into one is a write
 * (Redis refuses it); foreach, foreachi, getn, maxn and concat read the
 * real table. The original is the closure's upvalue, a C function of the
 * table library (no upvalues of its own): called directly on the same
 * stack, as Lua would, without a call frame of its own (table.insert is
 * hot in job frameworks' scripts). */
static int luaTableCallOriginal(lua_State *L) {
    lua_CFunction original = lua_tocfunction(L, lua_upvalueindex(1));
    return original(L);
}

static int luaTableInsertGuard(lua_State *L) {
    if (luaIsProxy(L, 1)) return luaReadonlyError(L);
    return luaTableCallOriginal(L);
}

static int luaTableReadGuard(lua_State *L) {
    if (luaProxyTarget(L, 1)) lua_replace(L, 1);
    return luaTableCallOriginal(L);
}

static void luaInstallTableGuards(lua_State *L) {
    static const char *const readers[] = {"foreach", "foreachi", "getn", "maxn", "concat", NULL};
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "insert");
    lua_pushcclosure(L, luaTableInsertGuard, 1);
    lua_setfield(L, -2, "insert");
    for (int j = 0; readers[j]; j++) {
        lua_getfield(L, -1, readers[j]);
        lua_pushcclosure(L, luaTableReadGuard, 1);
        lua_setfield(L, -2, readers[j]);
    }
    lua_pop(L, 1);
}

static void luaInstallGuards(lua_State *L) {
    luaInstallTableGuards(L);
    luaSetGuard(L, "rawset", luaRawsetGuard, 0);
    luaSetGuard(L, "rawget", luaRawgetGuard, 0);
    luaSetGuard(L, "setmetatable", luaSetmetatableGuard, 0);
    luaSetGuard(L, "getmetatable", luaGetmetatableGuard, 0);
    lua_pushcfunction(L, luaNextGuard);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "next");
    luaSetGuard(L, "pairs", luaPairsGuard, 1);
    lua_pushcfunction(L, luaIpairsAux);
    luaSetGuard(L, "ipairs", luaIpairsGuard, 1);
    lua_getglobal(L, "loadstring");
    luaSetGuard(L, "loadstring", luaLoadGuard, 1);
    lua_getglobal(L, "load");
    luaSetGuard(L, "load", luaLoadGuard, 1);
}

/* os: only os.clock (Redis 7.2). */
static void luaLoadOsClock(lua_State *L) {
    luaLoadLib(L, LUA_OSLIBNAME, luaopen_os);
    lua_getglobal(L, "os");
    lua_getfield(L, -1, "clock");
    lua_newtable(L);
    lua_insert(L, -2);
    lua_setfield(L, -2, "clock");
    lua_setglobal(L, "os");
    lua_pop(L, 1);
}

/* FUNCTION LOAD's globals: only `redis`, with register_function (set by
 * functions.c on the table left on the stack) and the common fields. */
static void luaBuildLibraryApi(lua_State *L) {
    luaNewStrictTable(L); /* globals during a load */
    luaNewStrictTable(L); /* their redis */
    luaSetCommonRedisFields(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_LIBRARY_API "_redis");
    luaMakeProxy(L, NULL);
    lua_setfield(L, -2, "redis");
    lua_setfield(L, LUA_REGISTRYINDEX, REG_LIBRARY_API);
}

lua_State *scriptLuaCreate(scriptEngineKind kind) {
    lua_State *L = lua_open();
    luaLoadLib(L, "", luaopen_base);
    luaLoadLib(L, LUA_TABLIBNAME, luaopen_table);
    luaLoadLib(L, LUA_STRLIBNAME, luaopen_string);
    luaLoadLib(L, LUA_MATHLIBNAME, luaopen_math);
    luaLoadLib(L, "cjson", luaopen_redis_cjson);
    luaLoadLib(L, "struct", luaopen_struct);
    luaLoadLib(L, "cmsgpack", luaopen_cmsgpack);
    luaLoadLib(L, "bit", luaopen_redis_bit);
    luaLoadOsClock(L);
    luaRemoveUnsafeGlobals(L);
    /* Libraries that register themselves as modules leave package.loaded
     * behind in the registry only; no global of theirs is kept. */

    luaPushRedisTable(L, kind);
    lua_setglobal(L, "redis");
    lua_pushcfunction(L, luaErrorHandler);
    lua_setglobal(L, "__redis__err__handler");

    /* math.random is deterministic in scripts, as in Redis. */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushnumber(L, 0);
    lua_call(L, 1, 0);
    lua_pop(L, 1);

    luaInstallGuards(L);

    /* Every library table becomes a read-only proxy; string methods
     * ("x"):sub() read through the proxy too, so the string metatable's
     * __index is the same table scripts see as `string`. */
    static const char *const libs[] = {"string", "table", "math", "cjson", "struct", "cmsgpack",
                                       "bit",    "os",    "coroutine", "redis", NULL};
    for (int j = 0; libs[j]; j++) luaProtectGlobal(L, libs[j]);
    lua_pushstring(L, "");
    lua_getmetatable(L, -1);
    lua_getglobal(L, "string");
    lua_setfield(L, -2, "__index");
    luaMakeProxy(L, NULL);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_STRING_MT);
    lua_pop(L, 1);

    /* The globals: missing names raise, and scripts see them through a
     * proxy (_G is that proxy), whose metatable getmetatable(_G) shows as
     * a read-only table. */
    lua_newtable(L);
    lua_pushcfunction(L, luaGlobalIndexError);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, -1);
    lua_setmetatable(L, LUA_GLOBALSINDEX);
    luaMakeProxy(L, NULL);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_GLOBALS_MT);
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    luaMakeProxy(L, REG_GLOBALS_MT);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_ENV);
    lua_pushstring(L, "_G");
    lua_insert(L, -2);
    lua_rawset(L, LUA_GLOBALSINDEX);

    if (kind == SCRIPT_ENGINE_FUNCTION) luaBuildLibraryApi(L);
    scriptLuaClient();
    return L;
}

void scriptLuaClose(lua_State *L) {
    if (L) lua_close(L);
}

void scriptLuaRelease(void) {
    if (lctx.lua_client) freeClient(lctx.lua_client);
    lctx.lua_client = NULL;
}

int scriptLuaCompile(lua_State *L, const char *code, size_t len, const char *chunkname, sds *err) {
    if (luaL_loadbuffer(L, code, len, chunkname)) {
        *err = sdsnew(lua_tostring(L, -1));
        lua_pop(L, 1);
        return C_ERR;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
    lua_setfenv(L, -2);
    return C_OK;
}

/* The env proxy's reads go to the library API (during FUNCTION LOAD) or
 * to the real globals. */
static void luaEnvReadFrom(lua_State *L, int from_library_api) {
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
    lua_getmetatable(L, -1);
    if (from_library_api) lua_getfield(L, LUA_REGISTRYINDEX, REG_LIBRARY_API);
    else lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 2);
}

void scriptLuaLibraryApiBegin(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, REG_LIBRARY_API "_redis");
    lua_insert(L, -2);
    /* [redis table] [register_function] */
    lua_setfield(L, -2, "register_function");
    lua_pop(L, 1);
    luaEnvReadFrom(L, 1);
}

void scriptLuaLibraryApiEnd(lua_State *L) { luaEnvReadFrom(L, 0); }

/* ========================================================================
 * Lua value -> the caller's reply
 * ===================================================================== */

/* An error or status text as one reply line: no CR/LF inside. */
static sds luaReplyLine(sds s) {
    for (size_t i = 0; i < sdslen(s); i++)
        if (s[i] == '\r' || s[i] == '\n') s[i] = ' ';
    return s;
}

/* Lua numbers are doubles; the reply is the integer C's conversion gives
 * on this machine (x86: out of range and NaN become LLONG_MIN, as a real
 * Redis answers), without the undefined behaviour of the plain cast. */
static long long luaNumberToLongLong(lua_Number n) {
    if (isnan(n) || n >= 9223372036854775808.0 || n < -9223372036854775808.0) return LLONG_MIN;
    return (long long)n;
}

/* If the table on top has `field` of Lua type `type`, pushes it and
 * returns 1. */
static int luaTableField(lua_State *L, const char *field, int type) {
    lua_pushstring(L, field);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == type) return 1;
    lua_pop(L, 1);
    return 0;
}

static void luaReplyValue(client *c, lua_State *L, int depth);

/* {err=...}: the error, its code kept. As Redis's "-%s" through
 * addReplyErrorFormat: a dash of the text's own stays ({err='-X'} sends
 * "--X") and trailing newlines are trimmed before the others become
 * spaces. */
static void luaReplyErrorTable(client *c, lua_State *L) {
    sds e = sdsnew(lua_tostring(L, -1));
    size_t len = sdslen(e);
    while (len > 0 && (e[len - 1] == '\r' || e[len - 1] == '\n')) len--;
    sdssetlen(e, len);
    e = luaReplyLine(e);
    sds full = sdscatprintf(sdsempty(), "-%s\r\n", e);
    addReplyErrorObject(c, full);
    sdsfree(full);
    sdsfree(e);
}

/* {map=...} / {set=...}: the inner table's pairs. */
static void luaReplyMapOrSet(client *c, lua_State *L, int depth, int is_map) {
    void *len = addReplyDeferredLen(c);
    long n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        luaReplyValue(c, L, depth + 1); /* the key; pops its copy */
        if (is_map) luaReplyValue(c, L, depth + 1); /* the value */
        else lua_pop(L, 1);
        n++;
    }
    if (is_map) setDeferredMapLen(c, len, n);
    else setDeferredSetLen(c, len, n);
}

static int luaReplyTypedTable(client *c, lua_State *L, int depth) {
    if (luaTableField(L, "err", LUA_TSTRING)) {
        luaReplyErrorTable(c, L);
    } else if (luaTableField(L, "ok", LUA_TSTRING)) {
        sds ok = luaReplyLine(sdsnew(lua_tostring(L, -1)));
        addReplyStatus(c, ok);
        sdsfree(ok);
    } else if (luaTableField(L, "double", LUA_TNUMBER)) {
        addReplyDouble(c, lua_tonumber(L, -1));
    } else if (luaTableField(L, "big_number", LUA_TSTRING)) {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        sds line = luaReplyLine(sdsnewlen(s, len));
        addReplyBigNum(c, line, sdslen(line));
        sdsfree(line);
    } else if (luaTableField(L, "map", LUA_TTABLE)) {
        luaReplyMapOrSet(c, L, depth, 1);
    } else if (luaTableField(L, "set", LUA_TTABLE)) {
        luaReplyMapOrSet(c, L, depth, 0);
    } else if (luaTableField(L, "verbatim_string", LUA_TTABLE)) {
        int ok = luaTableField(L, "format", LUA_TSTRING);
        if (ok) {
            const char *fmt = lua_tostring(L, -1);
            lua_pop(L, 1);
            if ((ok = luaTableField(L, "string", LUA_TSTRING))) {
                size_t len;
                const char *s = lua_tolstring(L, -1, &len);
                /* Redis sends the format's first three bytes, whatever
                 * its length ("text" gives "tex"). */
                char ext[4] = "txt";
                if (strlen(fmt) >= 3) memcpy(ext, fmt, 3);
                addReplyVerbatim(c, s, len, ext);
            }
        }
        if (!ok) {
            lua_pop(L, 1);
            return 0;
        }
    } else {
        return 0;
    }
    lua_pop(L, 1);
    return 1;
}

/* Replies with the value on top of the stack and pops it. */
static void luaReplyValue(client *c, lua_State *L, int depth) {
    if (!lua_checkstack(L, 4) || depth > 1000) {
        addReplyError(c, "reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        addReplyBulk(c, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        /* RESP3 booleans once the script asked for RESP3 (setresp). */
        if (lctx.lua_client->resp == 2) {
            if (lua_toboolean(L, -1)) addReplyLongLong(c, 1);
            else addReplyNull(c);
        } else {
            addReplyBool(c, lua_toboolean(L, -1));
        }
        break;
    case LUA_TNUMBER:
        addReplyLongLong(c, luaNumberToLongLong(lua_tonumber(L, -1)));
        break;
    case LUA_TTABLE: {
        if (luaReplyTypedTable(c, L, depth)) break;
        /* An array, up to its first nil. */
        void *len = addReplyDeferredLen(c);
        long n = 0;
        for (int j = 1;; j++) {
            lua_rawgeti(L, -1, j);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            luaReplyValue(c, L, depth + 1); /* pops it */
            n++;
        }
        setDeferredArrayLen(c, len, n);
        break;
    }
    default:
        addReplyNull(c);
    }
    lua_pop(L, 1);
}

/* ========================================================================
 * Running a script
 * ===================================================================== */

/* Pushes a table of the n strings. */
static void luaPushArray(lua_State *L, sds *v, int n) {
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        lua_pushlstring(L, v[j], sdslen(v[j]));
        lua_rawseti(L, -2, j + 1);
    }
}

/* The error a script raised, as Redis words it: "<msg> script: <name>,
 * on <source>:<line>." */
static void luaReplyScriptError(client *c, lua_State *L, const char *name) {
    if (lua_type(L, -1) != LUA_TTABLE) {
        /* Out of memory inside Lua and the like: a plain message. */
        sds msg = luaReplyLine(sdsnew(lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error"));
        addReplyErrorFormat(c, "Error running script (call to %s): %s", name, msg);
        sdsfree(msg);
        return;
    }
    lua_getfield(L, -1, "err");
    lua_getfield(L, -2, "source");
    lua_getfield(L, -3, "line");
    sds msg = luaReplyLine(sdsnew(lua_isstring(L, -3) ? lua_tostring(L, -3) : "ERR unknown error"));
    sds full = sdscatprintf(sdsempty(), "-%s", msg[0] == '-' ? msg + 1 : msg);
    if (lua_isstring(L, -2)) {
        full = sdscatprintf(full, " script: %s, on %s:%s.", name, lua_tostring(L, -2),
                            lua_isstring(L, -1) ? lua_tostring(L, -1) : "?");
    }
    full = sdscatlen(full, "\r\n", 2);
    addReplyErrorObject(c, full);
    sdsfree(full);
    sdsfree(msg);
    lua_pop(L, 3);
}

void scriptLuaRun(lua_State *L, scriptRunCtx *run, sds *keys, int nkeys, sds *args, int nargs) {
    client *caller = run->caller;
    client *fake = scriptLuaClient();
    /* function on top: the error handler goes below it */
    lua_getglobal(L, "__redis__err__handler");
    lua_insert(L, -2);
    int fnargs = 0;
    if (run->kind == SCRIPT_ENGINE_EVAL) {
        /* Raw: a metamethod must not run (and fail) outside a pcall. */
        lua_pushstring(L, "KEYS");
        luaPushArray(L, keys, nkeys);
        lua_rawset(L, LUA_GLOBALSINDEX);
        lua_pushstring(L, "ARGV");
        luaPushArray(L, args, nargs);
        lua_rawset(L, LUA_GLOBALSINDEX);
    } else {
        luaPushArray(L, keys, nkeys);
        luaPushArray(L, args, nargs);
        fnargs = 2;
    }

    run->start_ms = monotonicMs();
    lctx.run = run;
    fake->resp = 2;
    fake->db = caller->db;
    lua_sethook(L, luaMaskCountHook, LUA_MASKCOUNT, LUA_HOOK_COUNT);
    /* Like a transaction: time stands still for the script's commands, and
     * a blocking command answers at once. */
    int prev_in_exec = server.in_exec;
    server.in_exec = 1;
    int err = lua_pcall(L, fnargs, 1, -2 - fnargs);
    server.in_exec = prev_in_exec;
    lua_sethook(L, NULL, 0, 0);
    if (err) luaReplyScriptError(caller, L, run->name);
    else luaReplyValue(caller, L, 0);
    if (err) lua_pop(L, 1);
    lctx.run = NULL;
    fake->resp = 2;
    lua_pop(L, 1); /* the error handler */
    lua_gc(L, LUA_GCSTEP, 1);
}

int scriptLuaRunLoader(lua_State *L, long long limit_ms, sds *err) {
    lua_getglobal(L, "__redis__err__handler");
    lua_insert(L, -2);
    lctx.loader_deadline_ms = limit_ms ? monotonicMs() + limit_ms : 0;
    lua_sethook(L, luaMaskCountHook, LUA_MASKCOUNT, LUA_HOOK_COUNT);
    int rc = lua_pcall(L, 0, 0, -2);
    lua_sethook(L, NULL, 0, 0);
    lctx.loader_deadline_ms = 0;
    if (rc == 0) {
        lua_pop(L, 1);
        return C_OK;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_getfield(L, -1, "err");
        *err = sdsnew(lua_isstring(L, -1) ? lua_tostring(L, -1) : "ERR unknown error");
        lua_pop(L, 1);
    } else {
        *err = sdsnew(lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error");
    }
    lua_pop(L, 2);
    return C_ERR;
}
