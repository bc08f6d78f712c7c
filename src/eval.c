/* eval.c -- EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (LOAD, EXISTS,
 * FLUSH, KILL, HELP), as Redis 7.2's.
 *
 * Scripts are cached by the SHA-1 of their body in the eval interpreter
 * (script_lua.c builds it; SCRIPT FLUSH makes a new one). The cache is not
 * state: like Redis, casq forgets it at a restart or a take-over, and
 * clients (BullMQ, redis-py's Script, ioredis's defineCommand) answer
 * NOSCRIPT by sending the body again.
 *
 * A script runs atomically: casq is single-threaded, and nothing else runs
 * until it returns (past busy-reply-threshold other clients get -BUSY, and
 * SCRIPT KILL can stop a script that wrote nothing). Its writes are one
 * change for the group commit and its reply, like EXEC's, is released once
 * everything it changed or read is durable. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>
#include <lua.h>

#include "script.h"

/* Registry key of the table sha -> {function, flags}. */
#define REG_SCRIPTS "casq_scripts"

static struct {
    lua_State *lua;      /* the eval interpreter, NULL until first used */
    long long nscripts;  /* cached scripts (INFO) */
    size_t cache_bytes;  /* their bodies' size (INFO used_memory_scripts_eval) */
} ectx;

static void evalInit(void) {
    if (ectx.lua) return;
    ectx.lua = scriptLuaCreate(SCRIPT_ENGINE_EVAL);
    lua_newtable(ectx.lua);
    lua_setfield(ectx.lua, LUA_REGISTRYINDEX, REG_SCRIPTS);
    ectx.nscripts = 0;
    ectx.cache_bytes = 0;
}

void scriptingRelease(void) {
    scriptLuaClose(ectx.lua);
    ectx.lua = NULL;
    functionsRelease();
    scriptLuaRelease();
}

/* INFO memory's number_of_cached_scripts and used_memory_scripts_eval. */
long long scriptingCachedScripts(void) { return ectx.nscripts; }
size_t scriptingCacheBytes(void) { return ectx.cache_bytes; }
size_t scriptingLuaMemory(void) { return ectx.lua ? (size_t)lua_gc(ectx.lua, LUA_GCCOUNT, 0) * 1024 : 0; }

/* ========================================================================
 * Compiling: the shebang, then the body
 * ===================================================================== */

/* Parses a "#!lua [flags=a,b]" first line. *skip is set to the bytes the
 * line takes (0 without a shebang, and then the flags say EVAL_COMPAT:
 * Redis 6's behaviour). On error returns C_ERR with *err. */
static int evalParseShebang(const char *body, size_t len, int *flags, size_t *skip, sds *err) {
    *flags = 0;
    *skip = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') {
        *flags = SCRIPT_FLAG_EVAL_COMPAT;
        return C_OK;
    }
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
            int flag = scriptFlagFromName(f, fl);
            if (fl && !flag) {
                *err = sdscatprintf(sdsempty(), "Unexpected flag in script shebang: %.*s", (int)fl, f);
                return C_ERR;
            }
            *flags |= flag;
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
static int evalLookup(const char *sha, int *flags) {
    lua_State *L = ectx.lua;
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
static int evalCreate(const char *body, size_t len, char sha[41], sds *err) {
    lua_State *L = ectx.lua;
    int flags;
    scriptSha1hex(sha, body, len);
    if (evalLookup(sha, &flags)) {
        lua_pop(L, 1);
        return C_OK;
    }
    size_t skip;
    if (evalParseShebang(body, len, &flags, &skip, err) == C_ERR) return C_ERR;
    sds cerr = NULL;
    if (scriptLuaCompile(L, body + skip, len - skip, "@user_script", &cerr) != C_OK) {
        *err = sdscatprintf(sdsempty(), "Error compiling script (new function): %s", cerr);
        sdsfree(cerr);
        return C_ERR;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPTS);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, -3);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, flags);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, sha);
    lua_pop(L, 2);
    ectx.nscripts++;
    ectx.cache_bytes += len;
    return C_OK;
}

/* ========================================================================
 * Running a script
 * ===================================================================== */

/* What Redis checks before a script with declared flags runs; NULL when
 * it may run. Scripts without a shebang (EVAL_COMPAT) are checked command
 * by command instead (script_lua.c). Shared with FCALL. */
const char *scriptPrepareRefusal(int flags, int ro) {
    if (flags & SCRIPT_FLAG_EVAL_COMPAT) return NULL;
    if (!(flags & SCRIPT_FLAG_ALLOW_OOM) && !(flags & SCRIPT_FLAG_NO_WRITES) && server.cfg.maxmemory &&
        zmalloc_used_memory() > (size_t)server.cfg.maxmemory)
        return "-OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'\r\n";
    if (!(flags & SCRIPT_FLAG_NO_WRITES) && ro)
        return "-ERR Can not execute a script with write flag using *_ro command.\r\n";
    return NULL;
}

static void evalGenericCommand(client *c, int evalsha, int ro) {
    long long numkeys;
    evalInit();
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
        if (!evalLookup(sha, &flags)) {
            addReplyErrorObject(c, "-NOSCRIPT No matching script. Please use EVAL.\r\n");
            return;
        }
    } else {
        sds err = NULL;
        if (evalCreate(c->argv[1], sdslen(c->argv[1]), sha, &err) != C_OK) {
            addReplyErrorSds(c, err); /* its CR/LF become spaces there */
            return;
        }
        evalLookup(sha, &flags);
    }
    const char *refusal = scriptPrepareRefusal(flags, ro);
    if (refusal) {
        lua_pop(ectx.lua, 1);
        addReplyErrorObject(c, refusal);
        return;
    }
    scriptRunCtx run = {.caller = c,
                        .name = sha,
                        .kind = SCRIPT_ENGINE_EVAL,
                        .flags = flags,
                        .readonly = ro || (flags & SCRIPT_FLAG_NO_WRITES)};
    scriptLuaRun(ectx.lua, &run, c->argv + 3, (int)numkeys, c->argv + 3 + numkeys, c->argc - 3 - (int)numkeys);
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
    evalInit();
    sds err = NULL;
    if (evalCreate(c->argv[2], sdslen(c->argv[2]), sha, &err) != C_OK) {
        addReplyErrorSds(c, err);
        return;
    }
    addReplyBulk(c, sha, 40);
}

static void scriptExistsCommand(client *c) {
    evalInit();
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        char sha[41];
        int flags, found = 0;
        if (sdslen(c->argv[j]) == 40) {
            for (int k = 0; k < 40; k++) sha[k] = (char)tolower((unsigned char)c->argv[j][k]);
            sha[40] = '\0';
            found = evalLookup(sha, &flags);
            if (found) lua_pop(ectx.lua, 1);
        }
        addReplyLongLong(c, found);
    }
}

static void scriptFlushCommand(client *c) {
    if (c->argc > 3 || (c->argc == 3 && strcasecmp(c->argv[2], "sync") && strcasecmp(c->argv[2], "async"))) {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    scriptLuaClose(ectx.lua);
    ectx.lua = NULL;
    evalInit();
    addReplyOk(c);
}

static void scriptKillCommand(client *c) { scriptKill(c, 0); }

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
