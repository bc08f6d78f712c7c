/* commands_docs_scripting.c -- COMMAND DOCS and COMMAND INFO data of the
 * scripting commands (scripting.c).
 *
 * Transcribed from a real redis-server's COMMAND DOCS / COMMAND INFO output
 * (arguments, key specs, history, tips), with Redis 7.2's top-level
 * summaries. Sorted by full name (binary search); listed in
 * commandDocsTables[] (commands_docs.c). See commands_docs.h. SCRIPT DEBUG
 * is left out: casq has no script debugger. */
#include <stddef.h>

#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

#define EVAL_ARGS(first)                                                                         \
    ARGS({.name = first, .type = ARG_TYPE_STRING},                                               \
         {.name = "numkeys", .type = ARG_TYPE_INTEGER},                                          \
         {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0,                              \
          .flags = CMD_ARG_OPTIONAL | CMD_ARG_MULTIPLE},                                         \
         {.name = "arg", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL | CMD_ARG_MULTIPLE})

#define EVAL_KEYSPECS(notes_, flags_)                                                                 \
    KEYSPECS({.notes = notes_, .flags = flags_, .bs_type = KSPEC_BS_INDEX, .bs.index = {2},           \
              .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}})

/* clang-format off */
const commandDoc scriptingCommandDocsTable[] = {
{
    .name = "eval",
    .summary = "Executes a server-side Lua script.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "Depends on the script that is executed.",
    .key_specs = EVAL_KEYSPECS("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE",
                               KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE),
    .args = EVAL_ARGS("script"),
    .redis_arity = -3, .redis_flags = "noscript stale skip_monitor no_mandatory_keys movablekeys",
    .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "eval_ro",
    .summary = "Executes a read-only server-side Lua script.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "Depends on the script that is executed.",
    .key_specs = EVAL_KEYSPECS("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS",
                               KSPEC_RO|KSPEC_ACCESS),
    .args = EVAL_ARGS("script"),
    .redis_arity = -3, .redis_flags = "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
    .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "evalsha",
    .summary = "Executes a server-side Lua script by SHA1 digest.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "Depends on the script that is executed.",
    .key_specs = EVAL_KEYSPECS(NULL, KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE),
    .args = EVAL_ARGS("sha1"),
    .redis_arity = -3, .redis_flags = "noscript stale skip_monitor no_mandatory_keys movablekeys",
    .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "evalsha_ro",
    .summary = "Executes a read-only server-side Lua script by SHA1 digest.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "Depends on the script that is executed.",
    .key_specs = EVAL_KEYSPECS(NULL, KSPEC_RO|KSPEC_ACCESS),
    .args = EVAL_ARGS("sha1"),
    .redis_arity = -3, .redis_flags = "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
    .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "script",
    .summary = "A container for Lua scripts management commands.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "script|exists",
    .summary = "Determines whether server-side Lua scripts exist in the script cache.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
    .tips = TIPS("request_policy:all_shards", "response_policy:agg_logical_and"),
    .args = ARGS(
        {.name = "sha1", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "noscript", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "script|flush",
    .summary = "Removes all server-side Lua scripts from the script cache.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "O(N) with N being the number of scripts in cache",
    .history = HISTORY(
        {"6.2.0", "Added the `ASYNC` and `SYNC` flushing mode modifiers."}),
    .tips = TIPS("request_policy:all_nodes", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "async", .type = ARG_TYPE_ONEOF, .since = "6.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "async", .type = ARG_TYPE_PURE_TOKEN, .token = "ASYNC"},
            {.name = "sync", .type = ARG_TYPE_PURE_TOKEN, .token = "SYNC"})}),
    .redis_arity = -2, .redis_flags = "noscript", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "script|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "5.0.0",
    .group = "scripting",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "script|kill",
    .summary = "Terminates a server-side Lua script during execution.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:one_succeeded"),
    .redis_arity = 2, .redis_flags = "noscript allow_busy", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "script|load",
    .summary = "Loads a server-side Lua script to the script cache.",
    .since = "2.6.0",
    .group = "scripting",
    .complexity = "O(N) with N being the length in bytes of the script body.",
    .tips = TIPS("request_policy:all_nodes", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "script", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "noscript stale", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{0},
};
/* clang-format on */
