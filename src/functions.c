/* functions.c -- Redis 7's functions: FUNCTION LOAD / DELETE / FLUSH /
 * LIST / STATS / DUMP / RESTORE / KILL / HELP, FCALL and FCALL_RO.
 *
 * A library is Lua code that starts with "#!lua name=<library>" and
 * registers its functions with redis.register_function() when it is
 * loaded. Unlike EVAL's script cache, libraries are state (as they are in
 * a Redis RDB): they are written into the document ("functions", see
 * docs/state-format.md), a FUNCTION LOAD is acknowledged only once that
 * is durable, and they come back after a crash or a take-over.
 *
 * All libraries live in one interpreter of their own (script_lua.c); a
 * function is a reference to its callback in that interpreter's registry.
 * A set of libraries (functionsLibCtx) is built completely before it
 * replaces or joins the current one, so a load that fails halfway (a
 * FUNCTION RESTORE with a conflict, a document whose code does not
 * compile) changes nothing. */
#include <ctype.h>
#include <lauxlib.h>
#include <lua.h>
#include <lzf.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"
#include "script.h"

/* Redis's limit for running a library's code at FUNCTION LOAD. Redis runs
 * an RDB's or a FUNCTION RESTORE payload's libraries without one; casq
 * gives RESTORE the same limit as LOAD, and a document's libraries a
 * generous one, so that a library that never returns (a hand-made payload
 * or document) is refused instead of hanging the server. */
#define FUNCTION_LOAD_TIMEOUT_MS 500
#define FUNCTION_DOCUMENT_TIMEOUT_MS 10000

/* RDB framing of FUNCTION DUMP's payload (Redis's rdb.h). */
#define RDB_OPCODE_FUNCTION_PRE_GA 246
#define RDB_OPCODE_FUNCTION2 245
#define RDB_VERSION 11 /* Redis 7.2's; payloads up to it are accepted */
#define RDB_ENCVAL 3
#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

/* ========================================================================
 * Libraries and their functions
 * ===================================================================== */

typedef struct functionLib functionLib;

typedef struct functionInfo {
    sds name;         /* the function's name */
    sds desc;         /* its description, NULL if none was given */
    int flags;        /* SCRIPT_FLAG_* */
    int ref;          /* its callback in the interpreter's registry */
    functionLib *lib; /* the library that registered it */
} functionInfo;

struct functionLib {
    sds name;              /* the library's name */
    sds code;              /* its code, shebang included */
    functionInfo **funcs;  /* its functions, in registration order */
    int nfuncs;            /* how many */
};

/* A set of libraries, and the functions they registered. */
typedef struct functionsLibCtx {
    dict *libraries; /* name -> functionLib (owned) */
    dict *functions; /* name -> functionInfo (owned by their library) */
} functionsLibCtx;

static struct {
    lua_State *lua;          /* the functions' interpreter, NULL until used */
    functionsLibCtx *cur;    /* the libraries in effect */
    functionLib *loading;    /* the library whose code runs (FUNCTION LOAD) */
    size_t code_bytes;       /* the libraries' code (INFO) */
    sds records;             /* the document's "functions" as last encoded,
                              * NULL once they changed */
} fctx;

static uint64_t functionsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

static int functionsKeyCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

/* Function names are looked up case-insensitively, as Redis's
 * functionDictType does (FCALL MyFunc calls myfunc); library names are
 * case-sensitive. */
static uint64_t functionsCaseHash(const void *key) {
    const char *s = key;
    size_t len = sdslen((const sds)key);
    char buf[128];
    if (len > sizeof(buf)) len = sizeof(buf); /* a prefix is enough for a hash */
    for (size_t i = 0; i < len; i++) buf[i] = (char)tolower((unsigned char)s[i]);
    return dictGenHashFunction(buf, len);
}

static int functionsKeyCaseCompare(const void *a, const void *b) {
    size_t l1 = sdslen((const sds)a), l2 = sdslen((const sds)b);
    return l1 == l2 && strncasecmp(a, b, l1) == 0;
}

static void functionLibFree(void *p);

/* Library names are keys the dict does not own (the library does). */
static dictType librariesDictType = {functionsHash, functionsKeyCompare, NULL, functionLibFree};
static dictType functionsDictType = {functionsCaseHash, functionsKeyCaseCompare, NULL, NULL};

static void functionInfoFree(functionInfo *fi) {
    if (fctx.lua) luaL_unref(fctx.lua, LUA_REGISTRYINDEX, fi->ref);
    sdsfree(fi->name);
    sdsfree(fi->desc);
    zfree(fi);
}

static void functionLibFree(void *p) {
    functionLib *lib = p;
    if (!lib) return; /* unlinked from its dict, kept by the caller */
    for (int j = 0; j < lib->nfuncs; j++) functionInfoFree(lib->funcs[j]);
    zfree(lib->funcs);
    sdsfree(lib->name);
    sdsfree(lib->code);
    zfree(lib);
}

static functionsLibCtx *functionsLibCtxCreate(void) {
    functionsLibCtx *ctx = zmalloc(sizeof(*ctx));
    ctx->libraries = dictCreate(&librariesDictType);
    ctx->functions = dictCreate(&functionsDictType);
    return ctx;
}

static void functionsLibCtxFree(functionsLibCtx *ctx) {
    if (!ctx) return;
    dictRelease(ctx->functions);
    dictRelease(ctx->libraries);
    zfree(ctx);
}

static void functionsInit(void) {
    if (fctx.lua) return;
    fctx.lua = scriptLuaCreate(SCRIPT_ENGINE_FUNCTION);
    if (!fctx.cur) fctx.cur = functionsLibCtxCreate();
}

void functionsRelease(void) {
    functionsLibCtxFree(fctx.cur);
    fctx.cur = NULL;
    sdsfree(fctx.records);
    fctx.records = NULL;
    scriptLuaClose(fctx.lua);
    fctx.lua = NULL;
}

/* Adds lib's functions to ctx->functions and lib to ctx->libraries. */
static void libraryLink(functionsLibCtx *ctx, functionLib *lib) {
    for (int j = 0; j < lib->nfuncs; j++) dictAdd(ctx->functions, lib->funcs[j]->name, lib->funcs[j]);
    dictAdd(ctx->libraries, lib->name, lib);
}

/* Takes lib out of ctx without freeing it. */
static void libraryUnlink(functionsLibCtx *ctx, functionLib *lib) {
    for (int j = 0; j < lib->nfuncs; j++) dictDelete(ctx->functions, lib->funcs[j]->name);
    dictEntry *de = dictUnlink(ctx->libraries, lib->name);
    if (de) {
        de->val = NULL; /* not freed: the caller keeps it */
        dictFreeUnlinkedEntry(ctx->libraries, de);
    }
}

static size_t functionsCodeBytes(functionsLibCtx *ctx) {
    size_t n = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, ctx->libraries);
    while ((de = dictNext(&it)) != NULL) n += sdslen(((functionLib *)de->val)->code);
    return n;
}

/* Libraries (or functions) in name order: FUNCTION LIST, DUMP and the
 * document list them that way, so their output is stable. */
static int compareLibs(const void *a, const void *b) {
    const functionLib *x = *(functionLib *const *)a, *y = *(functionLib *const *)b;
    return sdscmp(x->name, y->name);
}

static functionLib **functionsSortedLibs(functionsLibCtx *ctx, size_t *n) {
    *n = dictSize(ctx->libraries);
    functionLib **v = zmalloc(sizeof(*v) * (*n ? *n : 1));
    dictIterator it;
    dictEntry *de;
    size_t i = 0;
    dictInitIterator(&it, ctx->libraries);
    while ((de = dictNext(&it)) != NULL) v[i++] = de->val;
    qsort(v, *n, sizeof(*v), compareLibs);
    return v;
}

/* The state changed: the next commit writes the libraries, and the reply
 * of the command that changed them waits for it. */
static void functionsChanged(void) {
    fctx.code_bytes = functionsCodeBytes(fctx.cur);
    sdsfree(fctx.records);
    fctx.records = NULL;
    signalStateChanged(NULL);
}

/* ========================================================================
 * Creating a library: the shebang, then its code, run once
 * ===================================================================== */

/* Letters, digits and underscores, at least one. */
static int functionsVerifyName(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
            return 0;
    }
    return 1;
}

/* Redis's text for a bad library name, and for a bad function name too. */
#define BAD_NAME_ERR \
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

/* "#!<engine> name=<library>": the library's name into *name and the
 * line's length (its newline excluded) into *shebang_len, or C_ERR with
 * *err. */
static int functionExtractLibMetaData(sds code, sds *name, size_t *shebang_len, sds *err) {
    *name = NULL;
    if (strncmp(code, "#!", 2)) {
        *err = sdsnew("Missing library metadata");
        return C_ERR;
    }
    const char *nl = strchr(code, '\n');
    if (!nl) {
        *err = sdsnew("Invalid library metadata");
        return C_ERR;
    }
    *shebang_len = (size_t)(nl - code);
    sds shebang = sdsnewlen(code, *shebang_len);
    int nparts;
    sds *parts = sdssplitargs(shebang, &nparts);
    sdsfree(shebang);
    if (!parts || nparts == 0) {
        if (parts) sdsfreesplitres(parts, nparts);
        *err = sdsnew("Invalid library metadata");
        return C_ERR;
    }
    int rc = C_OK;
    sds engine = sdsnew(parts[0] + 2);
    for (int i = 1; i < nparts && rc == C_OK; i++) {
        if (!strncasecmp(parts[i], "name=", 5)) {
            if (*name) {
                *err = sdsnew("Invalid metadata value, name argument was given multiple times");
                rc = C_ERR;
            } else {
                *name = sdsnew(parts[i] + 5);
            }
            continue;
        }
        *err = sdscatprintf(sdsempty(), "Invalid metadata value given: %s", parts[i]);
        rc = C_ERR;
    }
    if (rc == C_OK && !*name) {
        *err = sdsnew("Library name was not given");
        rc = C_ERR;
    }
    if (rc == C_OK && strcasecmp(engine, "lua")) {
        *err = sdscatprintf(sdsempty(), "Engine '%s' not found", engine);
        rc = C_ERR;
    }
    if (rc != C_OK) {
        sdsfree(*name);
        *name = NULL;
    }
    sdsfree(engine);
    sdsfreesplitres(parts, nparts);
    return rc;
}

/* redis.register_function's flags={...} into *flags, or C_ERR. */
static int luaRegisterFunctionReadFlags(lua_State *L, int *flags) {
    int f = 0;
    for (int j = 1;; j++) {
        lua_rawgeti(L, -1, j);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (!lua_isstring(L, -1)) {
            lua_pop(L, 1);
            return C_ERR;
        }
        /* Unlike a shebang's flags=, Redis matches these ignoring case. */
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        char lower[32];
        int flag = 0;
        if (len < sizeof(lower)) {
            for (size_t i = 0; i < len; i++) lower[i] = (char)tolower((unsigned char)s[i]);
            flag = scriptFlagFromName(lower, len);
        }
        lua_pop(L, 1);
        if (!flag) return C_ERR;
        f |= flag;
    }
    *flags = f;
    return C_OK;
}

/* The table form: {function_name=, callback=, flags=, description=}
 * (the table at index 1). Leaves the callback on top and returns C_OK with
 * *name, or C_ERR with the message in *err. */
static int luaRegisterFunctionTable(lua_State *L, sds *name, sds *desc, int *flags, const char **err) {
    lua_settop(L, 1);
    lua_pushnil(L); /* index 2: the callback, once found */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (!lua_isstring(L, -2)) {
            *err = "named argument key given to redis.register_function is not a string";
            return C_ERR;
        }
        const char *key = lua_tostring(L, -2);
        size_t len;
        if (!strcasecmp(key, "function_name")) {
            if (!lua_isstring(L, -1)) {
                *err = "function_name argument given to redis.register_function must be a string";
                return C_ERR;
            }
            const char *s = lua_tolstring(L, -1, &len);
            sdsfree(*name);
            *name = sdsnewlen(s, len);
        } else if (!strcasecmp(key, "description")) {
            if (!lua_isstring(L, -1)) {
                *err = "description argument given to redis.register_function must be a string";
                return C_ERR;
            }
            const char *s = lua_tolstring(L, -1, &len);
            sdsfree(*desc);
            *desc = sdsnewlen(s, len);
        } else if (!strcasecmp(key, "callback")) {
            if (!lua_isfunction(L, -1)) {
                *err = "callback argument given to redis.register_function must be a function";
                return C_ERR;
            }
            lua_pushvalue(L, -1);
            lua_replace(L, 2);
        } else if (!strcasecmp(key, "flags")) {
            if (!lua_istable(L, -1)) {
                *err = "flags argument to redis.register_function must be a table representing function flags";
                return C_ERR;
            }
            if (luaRegisterFunctionReadFlags(L, flags) != C_OK) {
                *err = "unknown flag given";
                return C_ERR;
            }
        } else {
            *err = "unknown argument given to redis.register_function";
            return C_ERR;
        }
        lua_pop(L, 1);
    }
    if (!*name) {
        *err = "redis.register_function must get a function name argument";
        return C_ERR;
    }
    if (lua_isnil(L, 2)) {
        *err = "redis.register_function must get a callback argument";
        return C_ERR;
    }
    lua_pushvalue(L, 2);
    return C_OK;
}

/* Registers the callback on top of the stack (popped) as `name` in the
 * library being loaded. */
static const char *libraryAddFunction(lua_State *L, sds name, sds desc, int flags) {
    functionLib *lib = fctx.loading;
    size_t len = sdslen(name);
    if (!functionsVerifyName(name, len)) {
        sdsfree(desc);
        return BAD_NAME_ERR;
    }
    for (int j = 0; j < lib->nfuncs; j++)
        if (sdslen(lib->funcs[j]->name) == len && !memcmp(lib->funcs[j]->name, name, len)) {
            sdsfree(desc);
            return "Function already exists in the library";
        }
    functionInfo *fi = zcalloc(sizeof(*fi));
    fi->name = sdsnewlen(name, len);
    fi->desc = desc;
    fi->flags = flags;
    fi->lib = lib;
    fi->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lib->funcs = zrealloc(lib->funcs, sizeof(*lib->funcs) * (size_t)(lib->nfuncs + 1));
    lib->funcs[lib->nfuncs++] = fi;
    return NULL;
}

/* redis.register_function(name, callback) or
 * redis.register_function{function_name=..., callback=..., ...}. */
static int luaRegisterFunction(lua_State *L) {
    if (!fctx.loading) return scriptLuaRaise(L, "redis.register_function can only be called on FUNCTION LOAD command");
    int argc = lua_gettop(L);
    const char *err = NULL;
    sds name = NULL, desc = NULL;
    int flags = 0;
    if (argc == 1) {
        if (lua_istable(L, 1))
            luaRegisterFunctionTable(L, &name, &desc, &flags, &err);
        else
            err = "calling redis.register_function with a single argument is only applicable to Lua table "
                  "(representing named arguments).";
    } else if (argc == 2) {
        if (!lua_isstring(L, 1)) err = "first argument to redis.register_function must be a string";
        else if (!lua_isfunction(L, 2)) err = "second argument to redis.register_function must be a function";
        else name = sdsnew(lua_tostring(L, 1));
    } else {
        err = "wrong number of arguments to redis.register_function";
    }
    if (!err) err = libraryAddFunction(L, name, desc, flags);
    else sdsfree(desc);
    sdsfree(name);
    if (err) return scriptLuaRaise(L, err);
    return 0;
}

/* Creates the library `code` into ctx (conflicts checked against ctx
 * only). replace: an existing library of that name in ctx is replaced
 * (and put back if the new one fails). On success returns the library's
 * name (an sds of the library), else NULL with *err. */
static functionLib *functionsCreateWithLibraryCtx(sds code, int replace, sds *err, functionsLibCtx *ctx,
                                                  long long timeout_ms) {
    sds name;
    size_t skip;
    if (functionExtractLibMetaData(code, &name, &skip, err) != C_OK) return NULL;
    if (!functionsVerifyName(name, sdslen(name))) {
        *err = sdsnew(BAD_NAME_ERR);
        sdsfree(name);
        return NULL;
    }
    functionLib *old = dictFetchValue(ctx->libraries, name);
    if (old && !replace) {
        *err = sdscatprintf(sdsempty(), "Library '%s' already exists", name);
        sdsfree(name);
        return NULL;
    }

    functionsInit();
    lua_State *L = fctx.lua;
    functionLib *lib = zcalloc(sizeof(*lib));
    lib->name = name;
    lib->code = sdsdup(code);
    /* The code from the shebang's newline on: its line numbers count the
     * shebang line, as Redis's. */
    sds cerr = NULL;
    if (scriptLuaCompile(L, code + skip, sdslen(code) - skip, "@user_function", &cerr) != C_OK) {
        *err = sdscatprintf(sdsempty(), "Error compiling function: %s", cerr);
        sdsfree(cerr);
        functionLibFree(lib);
        return NULL;
    }
    lua_pushcfunction(L, luaRegisterFunction);
    scriptLuaLibraryApiBegin(L);
    fctx.loading = lib;
    sds rerr = NULL;
    int rc = scriptLuaRunLoader(L, timeout_ms, &rerr);
    fctx.loading = NULL;
    scriptLuaLibraryApiEnd(L);
    if (rc != C_OK) {
        *err = sdscatprintf(sdsempty(), "Error registering functions: %s", rerr);
        sdsfree(rerr);
        functionLibFree(lib);
        return NULL;
    }
    if (lib->nfuncs == 0) {
        *err = sdsnew("No functions registered");
        functionLibFree(lib);
        return NULL;
    }
    if (old) libraryUnlink(ctx, old);
    for (int j = 0; j < lib->nfuncs; j++) {
        if (dictFind(ctx->functions, lib->funcs[j]->name)) {
            *err = sdscatprintf(sdsempty(), "Function %s already exists", lib->funcs[j]->name);
            functionLibFree(lib);
            if (old) libraryLink(ctx, old);
            return NULL;
        }
    }
    if (old) functionLibFree(old);
    libraryLink(ctx, lib);
    return lib;
}

/* Joins src's libraries into dst (FUNCTION RESTORE APPEND / REPLACE):
 * all or nothing. src is emptied on success. */
static int libraryJoin(functionsLibCtx *dst, functionsLibCtx *src, int replace, sds *err) {
    size_t n;
    functionLib **libs = functionsSortedLibs(src, &n);
    functionLib **olds = zcalloc(sizeof(*olds) * (n ? n : 1));
    int rc = C_OK;
    for (size_t i = 0; i < n && rc == C_OK; i++) {
        functionLib *old = dictFetchValue(dst->libraries, libs[i]->name);
        if (!old) continue;
        if (!replace) {
            *err = sdscatprintf(sdsempty(), "Library %s already exists", libs[i]->name);
            rc = C_ERR;
            break;
        }
        libraryUnlink(dst, old);
        olds[i] = old;
    }
    for (size_t i = 0; i < n && rc == C_OK; i++)
        for (int j = 0; j < libs[i]->nfuncs && rc == C_OK; j++)
            if (dictFind(dst->functions, libs[i]->funcs[j]->name)) {
                *err = sdscatprintf(sdsempty(), "Function %s already exists", libs[i]->funcs[j]->name);
                rc = C_ERR;
            }
    for (size_t i = 0; i < n; i++) {
        if (rc == C_OK) {
            libraryUnlink(src, libs[i]);
            libraryLink(dst, libs[i]);
            if (olds[i]) functionLibFree(olds[i]);
        } else if (olds[i]) {
            libraryLink(dst, olds[i]);
        }
    }
    zfree(olds);
    zfree(libs);
    return rc;
}

/* ========================================================================
 * FCALL / FCALL_RO
 * ===================================================================== */

static void fcallCommandGeneric(client *c, int ro) {
    functionsInit();
    functionInfo *fi = dictFetchValue(fctx.cur->functions, c->argv[1]);
    if (!fi) {
        addReplyError(c, "Function not found");
        return;
    }
    long long numkeys;
    if (!string2ll(c->argv[2], sdslen(c->argv[2]), &numkeys)) {
        addReplyError(c, "Bad number of keys provided");
        return;
    }
    if (numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return;
    }
    const char *refusal = scriptPrepareRefusal(fi->flags, ro);
    if (refusal) {
        addReplyErrorObject(c, refusal);
        return;
    }
    monitorFeedCommand(c);
    lua_rawgeti(fctx.lua, LUA_REGISTRYINDEX, fi->ref);
    scriptRunCtx run = {.caller = c,
                        .name = fi->name,
                        .kind = SCRIPT_ENGINE_FUNCTION,
                        .flags = fi->flags,
                        .readonly = ro || (fi->flags & SCRIPT_FLAG_NO_WRITES)};
    scriptLuaRun(fctx.lua, &run, c->argv + 3, (int)numkeys, c->argv + 3 + numkeys, c->argc - 3 - (int)numkeys);
}

static void fcallCommand(client *c) { fcallCommandGeneric(c, 0); }
static void fcallroCommand(client *c) { fcallCommandGeneric(c, 1); }

/* ========================================================================
 * FUNCTION LOAD / DELETE / FLUSH / LIST / STATS / KILL / HELP
 * ===================================================================== */

static void functionLoadCommand(client *c) {
    int replace = 0, argc_pos = 2;
    while (argc_pos < c->argc - 1) {
        if (!strcasecmp(c->argv[argc_pos], "replace")) {
            replace = 1;
            argc_pos++;
            continue;
        }
        addReplyErrorFormat(c, "Unknown option given: %s", c->argv[argc_pos]);
        return;
    }
    if (argc_pos >= c->argc) {
        addReplyError(c, "Function code is missing");
        return;
    }
    functionsInit();
    sds err = NULL;
    functionLib *lib =
        functionsCreateWithLibraryCtx(c->argv[argc_pos], replace, &err, fctx.cur, FUNCTION_LOAD_TIMEOUT_MS);
    if (!lib) {
        addReplyErrorSds(c, err);
        return;
    }
    functionsChanged();
    addReplyBulkSds(c, sdsdup(lib->name));
}

static void functionDeleteCommand(client *c) {
    functionsInit();
    functionLib *lib = dictFetchValue(fctx.cur->libraries, c->argv[2]);
    if (!lib) {
        addReplyError(c, "Library not found");
        return;
    }
    libraryUnlink(fctx.cur, lib);
    functionLibFree(lib);
    functionsChanged();
    addReplyOk(c);
}

static void functionsFlushAll(void) {
    functionsLibCtxFree(fctx.cur);
    fctx.cur = functionsLibCtxCreate();
    /* A fresh interpreter: what the old libraries left in it goes too. */
    scriptLuaClose(fctx.lua);
    fctx.lua = NULL;
    functionsInit();
}

static void functionFlushCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3 && strcasecmp(c->argv[2], "sync") && strcasecmp(c->argv[2], "async")) {
        addReplyError(c, "FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    functionsFlushAll();
    functionsChanged();
    addReplyOk(c);
}

static void functionListReplyFunctions(client *c, functionLib *lib) {
    addReplyArrayLen(c, lib->nfuncs);
    for (int j = 0; j < lib->nfuncs; j++) {
        functionInfo *fi = lib->funcs[j];
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkSds(c, sdsdup(fi->name));
        addReplyBulkCString(c, "description");
        if (fi->desc) addReplyBulkSds(c, sdsdup(fi->desc));
        else addReplyNull(c);
        addReplyBulkCString(c, "flags");
        scriptAddReplyFlags(c, fi->flags);
    }
}

static void functionListCommand(client *c) {
    int with_code = 0;
    const char *pattern = NULL;
    for (int i = 2; i < c->argc; i++) {
        if (!with_code && !strcasecmp(c->argv[i], "withcode")) {
            with_code = 1;
            continue;
        }
        if (!pattern && !strcasecmp(c->argv[i], "libraryname")) {
            if (i >= c->argc - 1) {
                addReplyError(c, "library name argument was not given");
                return;
            }
            pattern = c->argv[++i];
            continue;
        }
        addReplyErrorFormat(c, "Unknown argument %s", c->argv[i]);
        return;
    }
    functionsInit();
    size_t n;
    functionLib **libs = functionsSortedLibs(fctx.cur, &n);
    void *len = addReplyDeferredLen(c);
    long shown = 0;
    for (size_t i = 0; i < n; i++) {
        functionLib *lib = libs[i];
        if (pattern && !stringmatchlen(pattern, (int)strlen(pattern), lib->name, (int)sdslen(lib->name), 1)) continue;
        shown++;
        addReplyMapLen(c, with_code ? 4 : 3);
        addReplyBulkCString(c, "library_name");
        addReplyBulkSds(c, sdsdup(lib->name));
        addReplyBulkCString(c, "engine");
        addReplyBulkCString(c, "LUA");
        addReplyBulkCString(c, "functions");
        functionListReplyFunctions(c, lib);
        if (with_code) {
            addReplyBulkCString(c, "library_code");
            addReplyBulkSds(c, sdsdup(lib->code));
        }
    }
    setDeferredArrayLen(c, len, shown);
    zfree(libs);
}

static void functionStatsCommand(client *c) {
    /* Allowed while a script is busy, but Redis reports on functions only:
     * during an EVAL it answers the -BUSY that names SCRIPT KILL. */
    scriptRunCtx *run = scriptCurrent();
    if (run && run->kind != SCRIPT_ENGINE_FUNCTION) {
        addReplyError(c, scriptBusyError());
        return;
    }
    functionsInit();
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "running_script");
    scriptAddReplyRunning(c);
    addReplyBulkCString(c, "engines");
    addReplyMapLen(c, 1);
    addReplyBulkCString(c, "LUA");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "libraries_count");
    addReplyLongLong(c, (long long)dictSize(fctx.cur->libraries));
    /* Redis counts each library's functions, so two whose names differ
     * only in case (one callable: see functionsDictType) count twice. */
    long long nfuncs = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, fctx.cur->libraries);
    while ((de = dictNext(&it)) != NULL) nfuncs += ((functionLib *)de->val)->nfuncs;
    addReplyBulkCString(c, "functions_count");
    addReplyLongLong(c, nfuncs);
}

static void functionKillCommand(client *c) { scriptKill(c, 1); }

static void functionHelpCommand(client *c) {
    static const char *help[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION "
        "RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        NULL};
    addReplyHelp(c, help);
}

/* ========================================================================
 * FUNCTION DUMP / RESTORE: Redis's payload (RDB strings, RDB version and
 * CRC-64), so a dump moves between casq and Redis
 * ===================================================================== */

/* CRC-64/Jones, reflected, as Redis's crc64(0, ...). */
static uint64_t crc64Jones(const unsigned char *p, size_t len) {
    static uint64_t table[256];
    static int ready = 0;
    if (!ready) {
        for (int i = 0; i < 256; i++) {
            uint64_t crc = (uint64_t)i;
            for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
            table[i] = crc;
        }
        ready = 1;
    }
    uint64_t crc = 0;
    for (size_t i = 0; i < len; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

static sds rdbCatLen(sds out, uint64_t len) {
    unsigned char buf[9];
    if (len < (1 << 6)) {
        buf[0] = (unsigned char)len;
        return sdscatlen(out, buf, 1);
    }
    if (len < (1 << 14)) {
        buf[0] = (unsigned char)((len >> 8) | 0x40);
        buf[1] = (unsigned char)(len & 0xff);
        return sdscatlen(out, buf, 2);
    }
    if (len <= UINT32_MAX) {
        buf[0] = 0x80;
        for (int i = 0; i < 4; i++) buf[1 + i] = (unsigned char)(len >> (24 - 8 * i));
        return sdscatlen(out, buf, 5);
    }
    buf[0] = 0x81;
    for (int i = 0; i < 8; i++) buf[1 + i] = (unsigned char)(len >> (56 - 8 * i));
    return sdscatlen(out, buf, 9);
}

/* An RDB string, LZF-compressed when that saves more than 4 bytes (as
 * Redis's rdbSaveRawString with rdbcompression yes). */
static sds rdbCatString(sds out, const char *s, size_t len) {
    if (len > 20) {
        size_t outlen = len - 4;
        char *comp = zmalloc(outlen + 1);
        unsigned int clen = lzf_compress(s, (unsigned int)len, comp, (unsigned int)outlen);
        if (clen > 0) {
            unsigned char type = (RDB_ENCVAL << 6) | RDB_ENC_LZF;
            out = sdscatlen(out, &type, 1);
            out = rdbCatLen(out, clen);
            out = rdbCatLen(out, len);
            out = sdscatlen(out, comp, clen);
            zfree(comp);
            return out;
        }
        zfree(comp);
    }
    out = rdbCatLen(out, len);
    return sdscatlen(out, s, len);
}

/* A reader over a payload. */
typedef struct rdbReader {
    const unsigned char *p, *end;
} rdbReader;

/* Reads a length; *encoded set for the special (11) encodings. */
static int rdbReadLen(rdbReader *r, uint64_t *len, int *encoded) {
    *encoded = 0;
    if (r->p >= r->end) return C_ERR;
    unsigned char b = *r->p++;
    int type = b >> 6;
    if (type == 0) {
        *len = b & 0x3f;
    } else if (type == 1) {
        if (r->p >= r->end) return C_ERR;
        *len = (uint64_t)(b & 0x3f) << 8 | *r->p++;
    } else if (type == 3) {
        *encoded = 1;
        *len = b & 0x3f;
    } else {
        int n = b == 0x80 ? 4 : b == 0x81 ? 8 : 0;
        if (!n || r->end - r->p < n) return C_ERR;
        uint64_t v = 0;
        for (int i = 0; i < n; i++) v = v << 8 | *r->p++;
        *len = v;
    }
    return C_OK;
}

static int rdbReadString(rdbReader *r, sds *out) {
    uint64_t len;
    int encoded;
    if (rdbReadLen(r, &len, &encoded) != C_OK) return C_ERR;
    if (!encoded) {
        if ((uint64_t)(r->end - r->p) < len) return C_ERR;
        *out = sdsnewlen(r->p, len);
        r->p += len;
        return C_OK;
    }
    if (len == RDB_ENC_INT8 || len == RDB_ENC_INT16 || len == RDB_ENC_INT32) {
        int n = 1 << len;
        if (r->end - r->p < n) return C_ERR;
        uint32_t v = 0;
        for (int i = 0; i < n; i++) v |= (uint32_t)r->p[i] << (8 * i);
        r->p += n;
        long long val = n == 1 ? (int8_t)v : n == 2 ? (int16_t)v : (int32_t)v;
        *out = sdsfromlonglong(val);
        return C_OK;
    }
    if (len != RDB_ENC_LZF) return C_ERR;
    uint64_t clen, ulen;
    if (rdbReadLen(r, &clen, &encoded) != C_OK || encoded) return C_ERR;
    if (rdbReadLen(r, &ulen, &encoded) != C_OK || encoded) return C_ERR;
    if ((uint64_t)(r->end - r->p) < clen || ulen > 512 * 1024 * 1024 || clen > UINT32_MAX) return C_ERR;
    sds s = sdsnewlen(NULL, ulen);
    if (ulen && lzf_decompress(r->p, (unsigned int)clen, s, (unsigned int)ulen) != ulen) {
        sdsfree(s);
        return C_ERR;
    }
    r->p += clen;
    *out = s;
    return C_OK;
}

static void functionDumpCommand(client *c) {
    functionsInit();
    size_t n;
    functionLib **libs = functionsSortedLibs(fctx.cur, &n);
    sds payload = sdsempty();
    for (size_t i = 0; i < n; i++) {
        unsigned char op = RDB_OPCODE_FUNCTION2;
        payload = sdscatlen(payload, &op, 1);
        payload = rdbCatString(payload, libs[i]->code, sdslen(libs[i]->code));
    }
    zfree(libs);
    unsigned char footer[10];
    footer[0] = RDB_VERSION & 0xff;
    footer[1] = (RDB_VERSION >> 8) & 0xff;
    payload = sdscatlen(payload, footer, 2);
    uint64_t crc = crc64Jones((const unsigned char *)payload, sdslen(payload));
    for (int i = 0; i < 8; i++) footer[i] = (unsigned char)(crc >> (8 * i));
    payload = sdscatlen(payload, footer, 8);
    addReplyBulkSds(c, payload);
}

/* The payload's footer: RDB version <= ours and a matching CRC-64. */
static int verifyDumpPayload(const unsigned char *p, size_t len) {
    if (len < 10) return C_ERR;
    unsigned int rdbver = (unsigned int)p[len - 10] | (unsigned int)p[len - 9] << 8;
    if (rdbver > RDB_VERSION) return C_ERR;
    uint64_t crc = 0;
    for (int i = 0; i < 8; i++) crc |= (uint64_t)p[len - 8 + i] << (8 * i);
    return crc64Jones(p, len - 8) == crc ? C_OK : C_ERR;
}

/* The libraries in a payload, into a new set (each library's code runs
 * within FUNCTION LOAD's limit). */
static functionsLibCtx *functionsFromPayload(const unsigned char *p, size_t len, sds *err) {
    functionsLibCtx *ctx = functionsLibCtxCreate();
    /* Redis reads the payload's strings out of the whole buffer, footer
     * included: a string that runs past the libraries reads into the
     * footer (and its errors are those of what it read there). */
    rdbReader r = {p, p + len};
    while (r.p < p + len - 10) {
        unsigned char type = *r.p++;
        if (type == RDB_OPCODE_FUNCTION_PRE_GA) {
            *err = sdsnew("Pre-GA function format not supported");
            break;
        }
        if (type != RDB_OPCODE_FUNCTION2) {
            *err = sdsnew("given type is not a function");
            break;
        }
        sds code;
        if (rdbReadString(&r, &code) != C_OK) {
            *err = sdsnew("Failed loading library payload");
            break;
        }
        functionLib *lib = functionsCreateWithLibraryCtx(code, 0, err, ctx, FUNCTION_LOAD_TIMEOUT_MS);
        sdsfree(code);
        if (!lib) break;
    }
    if (*err) {
        functionsLibCtxFree(ctx);
        return NULL;
    }
    return ctx;
}

static void functionRestoreCommand(client *c) {
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    enum { RESTORE_APPEND, RESTORE_REPLACE, RESTORE_FLUSH } policy = RESTORE_APPEND;
    if (c->argc == 4) {
        if (!strcasecmp(c->argv[3], "append")) policy = RESTORE_APPEND;
        else if (!strcasecmp(c->argv[3], "replace")) policy = RESTORE_REPLACE;
        else if (!strcasecmp(c->argv[3], "flush")) policy = RESTORE_FLUSH;
        else {
            addReplyError(c, "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
    }
    const unsigned char *p = (const unsigned char *)c->argv[2];
    size_t len = sdslen(c->argv[2]);
    if (verifyDumpPayload(p, len) != C_OK) {
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return;
    }
    functionsInit();
    sds err = NULL;
    functionsLibCtx *ctx = functionsFromPayload(p, len, &err);
    if (!ctx) {
        addReplyErrorSds(c, err);
        return;
    }
    if (policy == RESTORE_FLUSH) {
        functionsLibCtxFree(fctx.cur);
        fctx.cur = ctx;
    } else {
        int rc = libraryJoin(fctx.cur, ctx, policy == RESTORE_REPLACE, &err);
        functionsLibCtxFree(ctx);
        if (rc != C_OK) {
            addReplyErrorSds(c, err);
            return;
        }
    }
    functionsChanged();
    addReplyOk(c);
}

/* ========================================================================
 * The libraries in the document (persist.c)
 * ===================================================================== */

int functionsCount(void) { return fctx.cur ? (int)dictSize(fctx.cur->libraries) : 0; }
int functionsFunctionCount(void) { return fctx.cur ? (int)dictSize(fctx.cur->functions) : 0; }

size_t functionsMemory(void) { return fctx.lua ? (size_t)lua_gc(fctx.lua, LUA_GCCOUNT, 0) * 1024 : 0; }
size_t functionsCodeMemory(void) { return fctx.code_bytes; }

/* Encoded once per change, not at every commit. */
sds functionsCatRecords(sds out) {
    if (!fctx.records) {
        size_t n;
        functionLib **libs = functionsSortedLibs(fctx.cur, &n);
        sds r = sdsnewlen("[", 1);
        for (size_t i = 0; i < n; i++) {
            r = sdscatlen(r, i ? ",\n{\"library\":" : "\n{\"library\":", i ? 13 : 12);
            r = jsonCatBytes(r, libs[i]->name, sdslen(libs[i]->name));
            r = sdscatlen(r, ",\"code\":", 8);
            r = jsonCatBytes(r, libs[i]->code, sdslen(libs[i]->code));
            r = sdscatlen(r, "}", 1);
        }
        zfree(libs);
        fctx.records = sdscatlen(r, "\n]", 2);
    }
    return sdscatsds(out, fctx.records);
}

void *functionsDecode(sds *codes, size_t n, sds *err) {
    functionsInit();
    functionsLibCtx *ctx = functionsLibCtxCreate();
    for (size_t i = 0; i < n; i++) {
        sds lerr = NULL;
        if (!functionsCreateWithLibraryCtx(codes[i], 0, &lerr, ctx, FUNCTION_DOCUMENT_TIMEOUT_MS)) {
            *err = sdscatprintf(sdsempty(), "functions[%zu]: %s", i, lerr);
            sdsfree(lerr);
            functionsLibCtxFree(ctx);
            return NULL;
        }
    }
    return ctx;
}

void functionsDecodedFree(void *decoded) { functionsLibCtxFree(decoded); }

void functionsInstall(void *decoded) {
    if (!decoded && !fctx.cur) return; /* nothing before, nothing now */
    functionsInit();
    functionsLibCtxFree(fctx.cur);
    fctx.cur = decoded ? decoded : functionsLibCtxCreate();
    fctx.code_bytes = functionsCodeBytes(fctx.cur);
    sdsfree(fctx.records);
    fctx.records = NULL;
}

/* ========================================================================
 * Command table
 * ===================================================================== */

#define FCALL_FLAGS (CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_MOVABLE_KEYS)

static struct redisCommand functionSubcommands[] = {
    {"delete", functionDeleteCommand, 3, CMD_NOSCRIPT | CMD_WRITE, 0, 0, 0, "write slow scripting", NULL},
    {"dump", functionDumpCommand, 2, CMD_NOSCRIPT, 0, 0, 0, "slow scripting", NULL},
    {"flush", functionFlushCommand, -2, CMD_NOSCRIPT | CMD_WRITE, 0, 0, 0, "write slow scripting", NULL},
    {"help", functionHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow scripting", NULL},
    {"kill", functionKillCommand, 2, CMD_NOSCRIPT | CMD_ALLOW_BUSY, 0, 0, 0, "slow scripting", NULL},
    {"list", functionListCommand, -2, CMD_NOSCRIPT, 0, 0, 0, "slow scripting", NULL},
    {"load", functionLoadCommand, -3, CMD_NOSCRIPT | CMD_WRITE | CMD_DENYOOM, 0, 0, 0, "write slow scripting",
     NULL},
    {"restore", functionRestoreCommand, -3, CMD_NOSCRIPT | CMD_WRITE | CMD_DENYOOM, 0, 0, 0,
     "write slow scripting", NULL},
    {"stats", functionStatsCommand, 2, CMD_NOSCRIPT | CMD_ALLOW_BUSY, 0, 0, 0, "slow scripting", NULL},
    {0},
};

struct redisCommand functionsCommandTable[] = {
    {"fcall", fcallCommand, -3, FCALL_FLAGS | CMD_MAY_REPLICATE, 0, 0, 0, "slow scripting", NULL},
    {"fcall_ro", fcallroCommand, -3, FCALL_FLAGS | CMD_READONLY, 0, 0, 0, "slow scripting", NULL},
    {"function", NULL, -2, 0, 0, 0, 0, "slow", functionSubcommands},
    {0},
};
