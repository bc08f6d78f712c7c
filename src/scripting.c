/* scripting.c -- Lua scripts: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT
 * (LOAD, EXISTS, FLUSH, KILL, HELP), as Redis 7.2's, on Debian's Lua 5.1
 * (the version Redis embeds).
 *
 * A script runs atomically: casq is single-threaded, and nothing else runs
 * until it returns. Its redis.call()s run through call() on a fake client
 * (lctx.lua_client) in the caller's database, so every change goes through
 * the usual signalModifiedKey path; the script's reply, like EXEC's, is
 * released once everything it changed or read is durable (call() of EVAL
 * sees the change sequence move; reads are merged into the caller's
 * observe_seq).
 *
 * What Redis has and casq has not (README "Scripting"): the cjson,
 * cmsgpack, struct and bit libraries, redis.setresp (scripts speak RESP2 to
 * the server), redis.set_repl / redis.replicate_commands (no replication),
 * the debug library, SCRIPT DEBUG, and the busy-script machinery
 * (lua-time-limit, BUSY replies, SCRIPT KILL of a running script): a script
 * that never returns blocks the server. FUNCTION / FCALL are not
 * implemented. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "commit.h"
#include "lua_libs.h"
#include "server.h"

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

/* Writes the 40 lower-case hex digits of SHA-1(s) and a NUL into out. */
static void sha1hex(char out[41], const char *s, size_t len) {
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
 * The Lua interpreter and the script cache
 * ===================================================================== */

/* Registry keys of the tables the interpreter keeps. */
#define REG_SCRIPTS "casq_scripts" /* sha -> compiled function */
#define REG_ENV "casq_script_env"  /* the scripts' environment (below) */

/* Script flags (the "#!lua flags=..." shebang of Redis 7). */
#define SCRIPT_FLAG_NO_WRITES (1 << 0)

static struct {
    lua_State *lua;
    client *lua_client; /* runs the scripts' redis.call()s */
    client *caller;     /* the client whose EVAL runs, NULL when none */
    int readonly;       /* the running script may not write */
    long long nscripts; /* cached scripts (INFO) */
    size_t cache_bytes; /* their bodies' size (INFO used_memory_scripts) */
} lctx;

static void scriptingInitLua(void);

/* Raises a Lua error whose value is the table {err = msg}: the form Redis
 * scripts see for a failed redis.call(), and what reaches the client. */
static int luaRaiseErrorTable(lua_State *L, const char *msg) {
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushstring(L, msg);
    lua_settable(L, -3);
    return lua_error(L);
}

/* ------------------------------------------------------------------------
 * Server reply (RESP2, from the fake client) -> Lua value
 * --------------------------------------------------------------------- */

/* Pushes the reply starting at *p (RESP2, as the fake client speaks it)
 * and advances *p past it. Tables hold arrays, {ok=} statuses and {err=}
 * errors, as Redis's conversion. */
static void luaPushReply(lua_State *L, const char **p, const char *end) {
    const char *s = *p;
    const char *nl = memchr(s, '\r', (size_t)(end - s));
    if (!nl) nl = end;
    long long n = 0;
    switch (*s) {
    case '+':
    case '-':
        lua_newtable(L);
        lua_pushstring(L, *s == '+' ? "ok" : "err");
        lua_pushlstring(L, s + 1, (size_t)(nl - s - 1));
        lua_settable(L, -3);
        *p = nl + 2;
        return;
    case ':':
        string2ll(s + 1, (size_t)(nl - s - 1), &n);
        lua_pushnumber(L, (lua_Number)n);
        *p = nl + 2;
        return;
    case '$':
        string2ll(s + 1, (size_t)(nl - s - 1), &n);
        if (n < 0) {
            lua_pushboolean(L, 0);
            *p = nl + 2;
            return;
        }
        lua_pushlstring(L, nl + 2, (size_t)n);
        *p = nl + 2 + n + 2;
        return;
    case '*':
        string2ll(s + 1, (size_t)(nl - s - 1), &n);
        *p = nl + 2;
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
    default:
        /* A RESP2 client is never sent anything else. */
        serverPanic("unexpected reply type '%c' to a script", *s);
    }
}

/* ------------------------------------------------------------------------
 * redis.call() / redis.pcall()
 * --------------------------------------------------------------------- */

/* Replies in Lua (not raising) with the error for a refused call. */
static int luaCallRefused(lua_State *L, int raise, const char *msg) {
    if (raise) return luaRaiseErrorTable(L, msg);
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushstring(L, msg);
    lua_settable(L, -3);
    return 1;
}

static int luaRedisGenericCommand(lua_State *L, int raise) {
    int argc = lua_gettop(L);
    client *c = lctx.lua_client;
    if (argc == 0) return luaCallRefused(L, raise, "ERR Please specify at least one argument for this redis lib call");

    sds *argv = zmalloc(sizeof(sds) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        int t = lua_type(L, j + 1);
        if (t == LUA_TNUMBER) {
            /* Redis writes numbers the shortest exact way: integers
             * without a fraction. */
            lua_Number num = lua_tonumber(L, j + 1);
            char buf[64];
            if (num == (lua_Number)(long long)num && num > -1e18 && num < 1e18)
                snprintf(buf, sizeof(buf), "%lld", (long long)num);
            else
                snprintf(buf, sizeof(buf), "%.17g", (double)num);
            argv[j] = sdsnew(buf);
        } else if (t == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, j + 1, &len);
            argv[j] = sdsnewlen(s, len);
        } else {
            for (int k = 0; k < j; k++) sdsfree(argv[k]);
            zfree(argv);
            return luaCallRefused(L, raise, "ERR Lua redis lib command arguments must be strings or integers");
        }
    }

    const char *refusal = NULL;
    sds ownrefusal = NULL;
    struct redisCommand *cmd = lookupCommand(argv, argc);
    if (!cmd) {
        refusal = "ERR Unknown Redis command called from script";
    } else if (!commandCheckArity(cmd, argc, NULL)) {
        refusal = "ERR Wrong number of args calling Redis command from script";
    } else if (cmd->flags & CMD_NOSCRIPT) {
        refusal = "ERR This Redis command is not allowed from script";
    } else if (lctx.caller && (ownrefusal = aclScriptRefusal(lctx.caller, cmd, argv, argc)) != NULL) {
        /* The caller's ACL user applies to what the script calls (acl.c). */
    } else if ((cmd->flags & CMD_WRITE) && lctx.readonly) {
        refusal = "ERR Write commands are not allowed from read-only scripts.";
    } else if ((cmd->flags & CMD_WRITE) && (ownrefusal = commitFollowerError()) != NULL) {
        /* "-READONLY ...\r\n" from a node that cannot write. */
        sdsrange(ownrefusal, 1, -3);
    } else if ((cmd->flags & CMD_DENYOOM) && server.cfg.maxmemory &&
               zmalloc_used_memory() > (size_t)server.cfg.maxmemory) {
        refusal = "OOM command not allowed when used memory > 'maxmemory'.";
    }
    if (refusal || ownrefusal) {
        for (int k = 0; k < argc; k++) sdsfree(argv[k]);
        zfree(argv);
        if (ownrefusal) {
            /* Copied to the Lua stack before the sds is freed: lua_error
             * does not return. */
            lua_pushstring(L, ownrefusal);
            sdsfree(ownrefusal);
            const char *msg = lua_tostring(L, -1);
            return luaCallRefused(L, raise, msg);
        }
        return luaCallRefused(L, raise, refusal);
    }

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
    if (c->observe_seq > lctx.caller->observe_seq) lctx.caller->observe_seq = c->observe_seq;
    c->observe_seq = 0;
    for (int k = 0; k < c->argc; k++) sdsfree(c->argv[k]);
    zfree(c->argv);
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    c->cmd = NULL;

    /* The reply, moved off the client first: raising below must leave
     * the fake client clean. */
    sds reply = c->pending;
    c->pending = sdsempty();
    const char *p = reply;
    if (sdslen(reply) == 0) {
        lua_pushboolean(L, 0); /* CLIENT REPLY OFF and the like: nothing */
        sdsfree(reply);
        return 1;
    }
    int is_error = reply[0] == '-';
    luaPushReply(L, &p, reply + sdslen(reply));
    sdsfree(reply);
    if (is_error && raise) return lua_error(L);
    return 1;
}

static int luaRedisCallCommand(lua_State *L) { return luaRedisGenericCommand(L, 1); }
static int luaRedisPCallCommand(lua_State *L) { return luaRedisGenericCommand(L, 0); }

/* redis.sha1hex(string) */
static int luaRedisSha1hexCommand(lua_State *L) {
    if (lua_gettop(L) != 1) {
        lua_pushstring(L, "wrong number of arguments");
        return lua_error(L);
    }
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    sha1hex(hex, s ? s : "", s ? len : 0);
    lua_pushstring(L, hex);
    return 1;
}

/* redis.error_reply(msg) / redis.status_reply(msg): {err=msg} / {ok=msg}. */
static int luaReplyTable(lua_State *L, const char *field) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        lua_pushstring(L, "wrong number or type of arguments");
        return lua_error(L);
    }
    lua_newtable(L);
    lua_pushstring(L, field);
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    return 1;
}
static int luaRedisErrorReplyCommand(lua_State *L) { return luaReplyTable(L, "err"); }
static int luaRedisStatusReplyCommand(lua_State *L) { return luaReplyTable(L, "ok"); }

/* redis.log(level, message...) into the server log. */
static int luaLogCommand(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc < 2) {
        lua_pushstring(L, "redis.log() requires two arguments or more.");
        return lua_error(L);
    }
    if (!lua_isnumber(L, 1)) {
        lua_pushstring(L, "First argument must be a number (log level).");
        return lua_error(L);
    }
    int level = (int)lua_tonumber(L, 1);
    if (level < LL_DEBUG || level > LL_WARNING) {
        lua_pushstring(L, "Invalid debug level.");
        return lua_error(L);
    }
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

/* ------------------------------------------------------------------------
 * The interpreter
 * --------------------------------------------------------------------- */

static void luaLoadLib(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void luaSetField(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushstring(L, name);
    lua_pushcfunction(L, f);
    lua_settable(L, -3);
}

static void luaSetNumber(lua_State *L, const char *name, lua_Number n) {
    lua_pushstring(L, name);
    lua_pushnumber(L, n);
    lua_settable(L, -3);
}

/* The scripts' global table is read-only, as Redis 7's: a script that
 * assigns a global gets an error instead of leaving state behind for the
 * next script, and reading a global that does not exist is an error too.
 * Each script function runs with this environment. The messages carry the
 * script's position (level 1: the code that indexed). */
static int luaReadonlyNewindex(lua_State *L) {
    luaL_where(L, 1);
    lua_pushstring(L, "Attempt to modify a readonly table");
    lua_concat(L, 2);
    return lua_error(L);
}

static int luaGlobalIndex(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, LUA_GLOBALSINDEX);
    if (!lua_isnil(L, -1)) return 1;
    luaL_where(L, 1);
    lua_pushfstring(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_isstring(L, 2) ? lua_tostring(L, 2) : "?");
    lua_concat(L, 2);
    return lua_error(L);
}

static void scriptingInitLua(void) {
    lua_State *L = lua_open();
    luaLoadLib(L, "", luaopen_base);
    luaLoadLib(L, LUA_TABLIBNAME, luaopen_table);
    luaLoadLib(L, LUA_STRLIBNAME, luaopen_string);
    luaLoadLib(L, LUA_MATHLIBNAME, luaopen_math);
    luaLoadLib(L, "cjson", luaopen_redis_cjson);
    luaLoadLib(L, "struct", luaopen_struct);
    luaLoadLib(L, "cmsgpack", luaopen_cmsgpack);
    luaLoadLib(L, "bit", luaopen_redis_bit);
    /* Not the debug library: debug.getregistry() and debug.setmetatable()
     * would let a script break the tables the server itself relies on. */
    /* No file access from a script. */
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_pushnil(L);
    lua_setglobal(L, "dofile");

    lua_newtable(L); /* redis */
    luaSetField(L, "call", luaRedisCallCommand);
    luaSetField(L, "pcall", luaRedisPCallCommand);
    luaSetField(L, "sha1hex", luaRedisSha1hexCommand);
    luaSetField(L, "error_reply", luaRedisErrorReplyCommand);
    luaSetField(L, "status_reply", luaRedisStatusReplyCommand);
    luaSetField(L, "log", luaLogCommand);
    luaSetNumber(L, "LOG_DEBUG", LL_DEBUG);
    luaSetNumber(L, "LOG_VERBOSE", LL_VERBOSE);
    luaSetNumber(L, "LOG_NOTICE", LL_NOTICE);
    luaSetNumber(L, "LOG_WARNING", LL_WARNING);
    lua_pushstring(L, "REDIS_VERSION");
    lua_pushstring(L, REDIS_COMPAT_VERSION);
    lua_settable(L, -3);
    lua_setglobal(L, "redis");

    /* math.random is deterministic in scripts, as in Redis. */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushnumber(L, 0);
    lua_call(L, 1, 0);
    lua_pop(L, 1);

    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_SCRIPTS);

    /* The environment: reads fall through to the globals, writes fail. */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, "__index");
    lua_pushcfunction(L, luaGlobalIndex);
    lua_settable(L, -3);
    lua_pushstring(L, "__newindex");
    lua_pushcfunction(L, luaReadonlyNewindex);
    lua_settable(L, -3);
    lua_pushstring(L, "__metatable"); /* setmetatable() cannot lift it */
    lua_pushboolean(L, 0);
    lua_settable(L, -3);
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_ENV);

    lctx.lua = L;
    lctx.nscripts = 0;
    lctx.cache_bytes = 0;
}

static void scriptingInit(void) {
    if (lctx.lua) return;
    scriptingInitLua();
    if (lctx.lua_client) return; /* SCRIPT FLUSH: a new interpreter only */
    lctx.lua_client = createFakeClient();
    snprintf(lctx.lua_client->addr, sizeof(lctx.lua_client->addr), "lua");
    lctx.lua_client->authenticated = 1;
}

void scriptingRelease(void) {
    if (lctx.lua) lua_close(lctx.lua);
    lctx.lua = NULL;
    if (lctx.lua_client) freeClient(lctx.lua_client);
    lctx.lua_client = NULL;
}

/* INFO memory's number_of_cached_scripts and used_memory_scripts_eval. */
long long scriptingCachedScripts(void) { return lctx.nscripts; }
size_t scriptingCacheBytes(void) { return lctx.cache_bytes; }
size_t scriptingLuaMemory(void) { return lctx.lua ? (size_t)lua_gc(lctx.lua, LUA_GCCOUNT, 0) * 1024 : 0; }

/* ------------------------------------------------------------------------
 * Compiling: the shebang, then the body
 * --------------------------------------------------------------------- */

/* Parses a "#!lua [flags=a,b]" first line. *skip is set to the bytes the
 * line takes (0 without a shebang). On error returns C_ERR with *err. */
static int scriptParseShebang(const char *body, size_t len, int *flags, size_t *skip, sds *err) {
    *flags = 0;
    *skip = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') return C_OK;
    const char *nl = memchr(body, '\n', len);
    size_t linelen = nl ? (size_t)(nl - body) : len;
    *skip = linelen;
    /* Words separated by spaces: the engine, then options. */
    const char *p = body + 2, *end = body + linelen;
    int word = 0;
    while (p < end) {
        while (p < end && *p == ' ') p++;
        if (p == end) break;
        const char *w = p;
        while (p < end && *p != ' ') p++;
        size_t wl = (size_t)(p - w);
        if (word++ == 0) {
            if (wl != 3 || memcmp(w, "lua", 3)) {
                *err = sdscatprintf(sdsempty(), "Unexpected engine in script shebang: %.*s", (int)wl, w);
                return C_ERR;
            }
            continue;
        }
        if (wl < 6 || memcmp(w, "flags=", 6)) {
            *err = sdscatprintf(sdsempty(), "Unknown lua shebang option: %.*s", (int)wl, w);
            return C_ERR;
        }
        /* Comma separated flags. */
        const char *f = w + 6;
        while (f < p) {
            const char *fe = memchr(f, ',', (size_t)(p - f));
            if (!fe) fe = p;
            size_t fl = (size_t)(fe - f);
            if (fl == 9 && !memcmp(f, "no-writes", 9)) *flags |= SCRIPT_FLAG_NO_WRITES;
            else if (fl && !(fl == 9 && !memcmp(f, "allow-oom", 9)) && !(fl == 11 && !memcmp(f, "allow-stale", 11)) &&
                     !(fl == 10 && !memcmp(f, "no-cluster", 10)) &&
                     !(fl == 21 && !memcmp(f, "allow-cross-slot-keys", 21))) {
                *err = sdscatprintf(sdsempty(), "Unexpected flag in script shebang: %.*s", (int)fl, f);
                return C_ERR;
            }
            f = fe + 1;
        }
    }
    if (word == 0) {
        *err = sdsnew("Unexpected engine in script shebang: ");
        return C_ERR;
    }
    return C_OK;
}

/* Pushes the compiled function of `sha` (its flags in *flags), or
 * nothing and returns 0 if the cache has none. */
static int scriptLookup(const char *sha, int *flags) {
    lua_State *L = lctx.lua;
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPTS);
    lua_getfield(L, -1, sha);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 2);
        return 0;
    }
    /* {function, flags} */
    lua_rawgeti(L, -1, 2);
    *flags = (int)lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 1);
    lua_replace(L, -3);
    lua_pop(L, 1);
    return 1;
}

/* Compiles body into the cache under its SHA-1 (written to sha). On a
 * compile error returns C_ERR with *err ("Error compiling script ..."). */
static int scriptCreate(const char *body, size_t len, char sha[41], sds *err) {
    lua_State *L = lctx.lua;
    int flags;
    sha1hex(sha, body, len);
    if (scriptLookup(sha, &flags)) {
        lua_pop(L, 1);
        return C_OK;
    }
    size_t skip;
    sds serr = NULL;
    if (scriptParseShebang(body, len, &flags, &skip, &serr) == C_ERR) {
        *err = serr;
        return C_ERR;
    }
    if (luaL_loadbuffer(L, body + skip, len - skip, "@user_script")) {
        *err = sdscatprintf(sdsempty(), "Error compiling script (new function): %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return C_ERR;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
    lua_setfenv(L, -2);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPTS);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, -3);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, flags);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, sha);
    lua_pop(L, 2);
    lctx.nscripts++;
    lctx.cache_bytes += len;
    return C_OK;
}

/* ------------------------------------------------------------------------
 * Lua value -> the caller's reply
 * --------------------------------------------------------------------- */

/* Error text as a reply line: no CR/LF inside. */
static sds scriptErrorLine(sds s) {
    for (size_t i = 0; i < sdslen(s); i++)
        if (s[i] == '\r' || s[i] == '\n') s[i] = ' ';
    return s;
}

static void luaReplyToClient(client *c, lua_State *L, int depth) {
    int t = lua_type(L, -1);
    if (!lua_checkstack(L, 4) || depth > 1000) {
        addReplyError(c, "reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    switch (t) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        addReplyBulk(c, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        if (lua_toboolean(L, -1)) addReplyLongLong(c, 1);
        else addReplyNull(c);
        break;
    case LUA_TNUMBER:
        addReplyLongLong(c, (long long)lua_tonumber(L, -1));
        break;
    case LUA_TTABLE: {
        /* {err=...}: an error; {ok=...}: a status; else an array. */
        lua_pushstring(L, "err");
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TSTRING) {
            sds e = scriptErrorLine(sdsnew(lua_tostring(L, -1)));
            sds full = sdscatprintf(sdsempty(), "-%s\r\n", e[0] == '-' ? e + 1 : e);
            addReplyErrorObject(c, full);
            sdsfree(full);
            sdsfree(e);
            lua_pop(L, 2);
            return;
        }
        lua_pop(L, 1);
        lua_pushstring(L, "ok");
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TSTRING) {
            sds ok = scriptErrorLine(sdsnew(lua_tostring(L, -1)));
            addReplyStatus(c, ok);
            sdsfree(ok);
            lua_pop(L, 2);
            return;
        }
        lua_pop(L, 1);
        void *len = addReplyDeferredLen(c);
        long n = 0;
        for (int j = 1;; j++) {
            lua_rawgeti(L, -1, j);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            luaReplyToClient(c, L, depth + 1); /* pops it */
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

/* ------------------------------------------------------------------------
 * Running a script
 * --------------------------------------------------------------------- */

/* The error handler of a running script: turns what was raised into the
 * table {err=message, line=N} (N the script line that failed), which
 * evalRun formats as Redis does. */
static int luaErrorHandler(lua_State *L) {
    lua_Debug ar;
    int line = -1;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        if (!strcmp(ar.source, "@user_script")) {
            line = ar.currentline;
            break;
        }
    }
    sds msg;
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_getfield(L, 1, "err");
        msg = sdsnew(lua_isstring(L, -1) ? lua_tostring(L, -1) : "ERR unknown error");
        lua_pop(L, 1);
    } else {
        /* A string (error("...") or a runtime error): Redis's ERR. */
        const char *s = lua_isstring(L, 1)    ? lua_tostring(L, 1)
                        : lua_isnil(L, 1)     ? "nil"
                        : lua_isboolean(L, 1) ? (lua_toboolean(L, 1) ? "true" : "false")
                                              : "unknown error";
        msg = sdscatprintf(sdsempty(), "ERR %s", s);
    }
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushstring(L, msg);
    lua_settable(L, -3);
    lua_pushstring(L, "line");
    lua_pushnumber(L, line);
    lua_settable(L, -3);
    sdsfree(msg);
    return 1;
}

/* Sets the global table `name` to argv[0..n-1]. Raw: outside a protected
 * call, a metamethod a script put on _G must not run (and fail). */
static void luaSetGlobalArray(lua_State *L, const char *name, sds *argv, int n) {
    lua_pushstring(L, name);
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        lua_pushlstring(L, argv[j], sdslen(argv[j]));
        lua_rawseti(L, -2, j + 1);
    }
    lua_rawset(L, LUA_GLOBALSINDEX);
}

/* Runs the function on the top of the stack for c with its KEYS/ARGV. */
static void evalRun(client *c, const char *sha, int flags, int ro, long long numkeys) {
    lua_State *L = lctx.lua;
    /* function on top: put the error handler below it */
    lua_pushcfunction(L, luaErrorHandler);
    lua_insert(L, -2);
    luaSetGlobalArray(L, "KEYS", c->argv + 3, (int)numkeys);
    luaSetGlobalArray(L, "ARGV", c->argv + 3 + numkeys, c->argc - 3 - (int)numkeys);

    lctx.caller = c;
    lctx.readonly = ro || (flags & SCRIPT_FLAG_NO_WRITES);
    lctx.lua_client->resp = 2;
    lctx.lua_client->db = c->db;
    /* Like a transaction: time stands still for the script's commands, and
     * a blocking command answers at once. */
    int prev_in_exec = server.in_exec;
    server.in_exec = 1;
    int err = lua_pcall(L, 0, 1, -2);
    server.in_exec = prev_in_exec;
    lctx.caller = NULL;
    lctx.readonly = 0;

    if (err) {
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_getfield(L, -1, "err");
            lua_getfield(L, -2, "line");
            sds msg = scriptErrorLine(sdsnew(lua_tostring(L, -2) ? lua_tostring(L, -2) : "ERR unknown error"));
            int line = (int)lua_tonumber(L, -1);
            sds full = sdscatprintf(sdsempty(), "-%s script: %s, on @user_script:", msg[0] == '-' ? msg + 1 : msg,
                                    sha);
            full = line >= 0 ? sdscatprintf(full, "%d.\r\n", line) : sdscat(full, "?.\r\n");
            addReplyErrorObject(c, full);
            sdsfree(full);
            sdsfree(msg);
            lua_pop(L, 3);
        } else {
            /* Out of memory inside Lua and the like: a plain message. */
            sds msg = scriptErrorLine(sdsnew(lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error"));
            addReplyErrorFormat(c, "Error running script (call to f_%s): %s", sha, msg);
            sdsfree(msg);
            lua_pop(L, 1);
        }
    } else {
        luaReplyToClient(c, L, 0);
    }
    lua_pop(L, 1); /* the error handler */
    lua_gc(L, LUA_GCSTEP, 1);
}

static void evalGenericCommand(client *c, int evalsha, int ro) {
    long long numkeys;
    scriptingInit();
    if (getLongLongFromObjectOrReply(c, c->argv[2], &numkeys, NULL) != C_OK) return;
    if (numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return;
    }
    /* MONITOR shows EVAL before the commands it runs (the row's
     * skip_monitor keeps call() from showing it after them). */
    monitorFeedCommand(c);

    char sha[41];
    int flags = 0;
    if (evalsha) {
        sds body = c->argv[1];
        if (sdslen(body) != 40) {
            addReplyErrorObject(c, "-NOSCRIPT No matching script. Please use EVAL.\r\n");
            return;
        }
        for (int j = 0; j < 40; j++) sha[j] = (char)tolower((unsigned char)body[j]);
        sha[40] = '\0';
        if (!scriptLookup(sha, &flags)) {
            addReplyErrorObject(c, "-NOSCRIPT No matching script. Please use EVAL.\r\n");
            return;
        }
    } else {
        sds err = NULL;
        if (scriptCreate(c->argv[1], sdslen(c->argv[1]), sha, &err) != C_OK) {
            addReplyError(c, scriptErrorLine(err));
            sdsfree(err);
            return;
        }
        scriptLookup(sha, &flags);
    }
    evalRun(c, sha, flags, ro, numkeys);
}

static void evalCommand(client *c) { evalGenericCommand(c, 0, 0); }
static void evalRoCommand(client *c) { evalGenericCommand(c, 0, 1); }
static void evalShaCommand(client *c) { evalGenericCommand(c, 1, 0); }
static void evalShaRoCommand(client *c) { evalGenericCommand(c, 1, 1); }

/* ========================================================================
 * SCRIPT
 * ===================================================================== */

static void scriptLoadCommand(client *c) {
    char sha[41];
    scriptingInit();
    sds err = NULL;
    if (scriptCreate(c->argv[2], sdslen(c->argv[2]), sha, &err) != C_OK) {
        addReplyError(c, scriptErrorLine(err));
        sdsfree(err);
        return;
    }
    addReplyBulk(c, sha, 40);
}

static void scriptExistsCommand(client *c) {
    scriptingInit();
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        char sha[41];
        int flags, found = 0;
        if (sdslen(c->argv[j]) == 40) {
            for (int k = 0; k < 40; k++) sha[k] = (char)tolower((unsigned char)c->argv[j][k]);
            sha[40] = '\0';
            found = scriptLookup(sha, &flags);
            if (found) lua_pop(lctx.lua, 1);
        }
        addReplyLongLong(c, found);
    }
}

static void scriptFlushCommand(client *c) {
    if (c->argc > 3) {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    if (c->argc == 3 && strcasecmp(c->argv[2], "sync") && strcasecmp(c->argv[2], "async")) {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    if (lctx.lua) lua_close(lctx.lua);
    lctx.lua = NULL;
    scriptingInit();
    addReplyOk(c);
}

/* A script holds the only thread until it returns, so SCRIPT KILL can
 * never find one running. */
static void scriptKillCommand(client *c) {
    addReplyErrorObject(c, "-NOTBUSY No scripts in execution right now.\r\n");
}

static void scriptHelpCommand(client *c) {
    static const char *help[] = {
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        NULL};
    addReplyHelp(c, help);
}

/* ========================================================================
 * Command table
 * ===================================================================== */

#define EVAL_FLAGS (CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_MOVABLE_KEYS)

static struct redisCommand scriptSubcommands[] = {
    {"exists", scriptExistsCommand, -3, CMD_NOSCRIPT, 0, 0, 0, "slow scripting", NULL},
    {"flush", scriptFlushCommand, -2, CMD_NOSCRIPT, 0, 0, 0, "slow scripting", NULL},
    {"help", scriptHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow scripting", NULL},
    {"kill", scriptKillCommand, 2, CMD_NOSCRIPT | CMD_ALLOW_BUSY, 0, 0, 0, "slow scripting", NULL},
    {"load", scriptLoadCommand, 3, CMD_NOSCRIPT | CMD_STALE, 0, 0, 0, "slow scripting", NULL},
    {0},
};

struct redisCommand scriptingCommandTable[] = {
    {"eval", evalCommand, -3, EVAL_FLAGS | CMD_MAY_REPLICATE, 0, 0, 0, "slow scripting", NULL},
    {"evalsha", evalShaCommand, -3, EVAL_FLAGS | CMD_MAY_REPLICATE, 0, 0, 0, "slow scripting", NULL},
    {"eval_ro", evalRoCommand, -3, EVAL_FLAGS | CMD_READONLY, 0, 0, 0, "slow scripting", NULL},
    {"evalsha_ro", evalShaRoCommand, -3, EVAL_FLAGS | CMD_READONLY, 0, 0, 0, "slow scripting", NULL},
    {"script", NULL, -2, 0, 0, 0, 0, "slow", scriptSubcommands},
    {0},
};
