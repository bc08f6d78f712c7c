/* script.h -- what EVAL (eval.c) and FUNCTION (functions.c) share: the Lua
 * environment Redis 7.2 gives scripts and the run of one script
 * (script_lua.c).
 *
 * Each engine has an interpreter of its own, as in Redis: SCRIPT FLUSH
 * throws away the scripts' and FUNCTION FLUSH the libraries'. Both run
 * their redis.call()s through one fake client, so a script's writes reach
 * the group commit like any client's, and the script's reply waits for
 * them (call() of EVAL / FCALL sees change_seq move). */
#ifndef CASQ_SCRIPT_H
#define CASQ_SCRIPT_H

#include <lua.h>

#include "server.h"

/* Script flags: the "#!lua flags=..." shebang of an EVAL script, the
 * flags={...} of a registered function. */
#define SCRIPT_FLAG_NO_WRITES (1 << 0)
#define SCRIPT_FLAG_ALLOW_OOM (1 << 1)
#define SCRIPT_FLAG_ALLOW_STALE (1 << 2)
#define SCRIPT_FLAG_NO_CLUSTER (1 << 3)
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1 << 4)
#define SCRIPT_FLAG_EVAL_COMPAT (1 << 5) /* EVAL without a shebang */

/* Parses one flag name; returns its SCRIPT_FLAG_* or 0 if unknown. */
int scriptFlagFromName(const char *name, size_t len);
/* Appends the names of flags (as FUNCTION LIST shows them) as a reply. */
void scriptAddReplyFlags(client *c, int flags);

/* Which interpreter: what a script may see differs (KEYS/ARGV globals for
 * EVAL, keys and args as arguments for functions) and so do its errors'
 * names (@user_script / @user_function). */
typedef enum scriptEngineKind {
    SCRIPT_ENGINE_EVAL = 0,
    SCRIPT_ENGINE_FUNCTION,
} scriptEngineKind;

/* The script that is running (at most one: scripts do not nest). */
typedef struct scriptRunCtx {
    client *caller;       /* the client whose EVAL / FCALL runs */
    const char *name;     /* the sha (EVAL) or function name, for errors */
    scriptEngineKind kind; /* which interpreter runs it */
    int flags;            /* SCRIPT_FLAG_* of the script */
    int readonly;         /* no write command may run (EVAL_RO, no-writes) */
    int wrote;            /* a write command ran: SCRIPT KILL refuses */
    int killed;           /* SCRIPT KILL / FUNCTION KILL asked it to stop */
    int busy;             /* past busy-reply-threshold: others get -BUSY */
    long long start_ms;   /* when it started (monotonic ms) */
} scriptRunCtx;

/* The running script, NULL when none. */
scriptRunCtx *scriptCurrent(void);
/* 1 while a script has run past busy-reply-threshold: commands without
 * CMD_ALLOW_BUSY get -BUSY. */
int scriptIsBusy(void);
/* SCRIPT KILL (is_function 0) / FUNCTION KILL (1): replies to c. */
void scriptKill(client *c, int is_function);
/* FUNCTION STATS' running_script: nil, or the name/command/duration map. */
void scriptAddReplyRunning(client *c);

/* ------------------------------------------------------------------------
 * Interpreters
 * --------------------------------------------------------------------- */

/* A new interpreter with Redis's libraries and globals, all read-only. */
lua_State *scriptLuaCreate(scriptEngineKind kind);
void scriptLuaClose(lua_State *L);
/* At exit, once both interpreters are closed: the scripts' fake client. */
void scriptLuaRelease(void);

/* Compiles code as chunk `chunkname` ("@user_script" / "@user_function")
 * with the scripts' environment and pushes the function. On a syntax error
 * pushes nothing and returns C_ERR with *err. */
int scriptLuaCompile(lua_State *L, const char *code, size_t len, const char *chunkname, sds *err);

/* FUNCTION LOAD: while the library's code runs, its globals are only
 * `redis` with register_function, log, the LOG_ levels and the versions
 * (as Redis 7.2); the table on top of the stack is what `redis` is then.
 * scriptLuaLibraryApiEnd() gives the scripts' globals back. */
void scriptLuaLibraryApiBegin(lua_State *L);
void scriptLuaLibraryApiEnd(lua_State *L);

/* Runs the function on top of the stack (popped) for caller: EVAL with
 * KEYS/ARGV set as globals, a function with them as its two arguments.
 * The reply (or the error, formatted as Redis's) goes to the caller. */
void scriptLuaRun(lua_State *L, scriptRunCtx *run, sds *keys, int nkeys, sds *args, int nargs);

/* Runs the function on top of the stack (popped) with no arguments, for
 * at most limit_ms, 0 for no limit (FUNCTION LOAD's library code). On error returns
 * C_ERR with *err (the message, without the script: suffix). */
int scriptLuaRunLoader(lua_State *L, long long limit_ms, sds *err);

/* Raises the Lua error {err="ERR <msg>"} (Redis's form). */
int scriptLuaRaise(lua_State *L, const char *msg);

/* SHA-1 of s as 40 lower-case hex digits and a NUL. */
void scriptSha1hex(char out[41], const char *s, size_t len);

/* Why a script with these flags may not start (a full error line), or
 * NULL: what Redis checks before running a script with a shebang or a
 * function (ro: EVAL_RO, FCALL_RO). */
const char *scriptPrepareRefusal(int flags, int ro);

/* The fake client that runs the scripts' commands. */
client *scriptLuaClient(void);

#endif
