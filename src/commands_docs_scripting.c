/* commands_docs_scripting.c -- COMMAND DOCS and COMMAND INFO data of the
 * scripting commands (eval.c) and of functions (functions.c).
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
    .name = "fcall",
    .summary = "Invokes a function.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "Depends on the function that is executed.",
    .key_specs = EVAL_KEYSPECS("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE",
                               KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE),
    .args = EVAL_ARGS("function"),
    .redis_arity = -3, .redis_flags = "noscript stale skip_monitor no_mandatory_keys movablekeys",
    .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "fcall_ro",
    .summary = "Invokes a read-only function.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "Depends on the function that is executed.",
    .key_specs = EVAL_KEYSPECS("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS",
                               KSPEC_RO|KSPEC_ACCESS),
    .args = EVAL_ARGS("function"),
    .redis_arity = -3, .redis_flags = "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
    .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function",
    .summary = "A container for function commands.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|delete",
    .summary = "Deletes a library and its functions.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "library-name", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "write noscript", .redis_acl = "@write @slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|dump",
    .summary = "Dumps all libraries into a serialized binary payload.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(N) where N is the number of functions",
    .redis_arity = 2, .redis_flags = "noscript", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|flush",
    .summary = "Deletes all libraries and functions.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(N) where N is the number of functions deleted",
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "async", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "async", .type = ARG_TYPE_PURE_TOKEN, .token = "ASYNC"},
            {.name = "sync", .type = ARG_TYPE_PURE_TOKEN, .token = "SYNC"})}),
    .redis_arity = -2, .redis_flags = "write noscript", .redis_acl = "@write @slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|kill",
    .summary = "Terminates a function during execution.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:one_succeeded"),
    .redis_arity = 2, .redis_flags = "noscript allow_busy", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|list",
    .summary = "Returns information about all libraries.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(N) where N is the number of functions",
    .tips = TIPS("nondeterministic_output_order"),
    .args = ARGS(
        {.name = "library-name-pattern", .type = ARG_TYPE_STRING, .token = "LIBRARYNAME",
         .flags = CMD_ARG_OPTIONAL},
        {.name = "withcode", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHCODE", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "noscript", .redis_acl = "@slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|load",
    .summary = "Creates a library.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(1) (considering compilation time is redundant)",
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "replace", .type = ARG_TYPE_PURE_TOKEN, .token = "REPLACE", .flags = CMD_ARG_OPTIONAL},
        {.name = "function-code", .type = ARG_TYPE_STRING}),
    .redis_arity = -3, .redis_flags = "write denyoom noscript", .redis_acl = "@write @slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|restore",
    .summary = "Restores all libraries from a payload.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(N) where N is the number of functions on the payload",
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "serialized-value", .type = ARG_TYPE_STRING},
        {.name = "policy", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "flush", .type = ARG_TYPE_PURE_TOKEN, .token = "FLUSH"},
            {.name = "append", .type = ARG_TYPE_PURE_TOKEN, .token = "APPEND"},
            {.name = "replace", .type = ARG_TYPE_PURE_TOKEN, .token = "REPLACE"})}),
    .redis_arity = -3, .redis_flags = "write denyoom noscript", .redis_acl = "@write @slow @scripting",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "function|stats",
    .summary = "Returns information about a function during execution.",
    .since = "7.0.0",
    .group = "scripting",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output", "request_policy:all_shards", "response_policy:special"),
    .redis_arity = 2, .redis_flags = "noscript allow_busy", .redis_acl = "@slow @scripting",
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
