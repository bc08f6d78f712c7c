/* commands_docs.c -- the documentation of every casq command.
 *
 * What Redis 7.2 publishes about each command casq implements (COMMAND DOCS,
 * COMMAND INFO key specs and tips), transcribed into casq's own structures
 * (commands_docs.h) from the output of a real redis-server and Redis's
 * command reference: 7.0's arguments, key specs and history, updated with
 * what 7.2 changed for these commands (the reworded top-level summaries,
 * QUIT's deprecation, CLIENT SETINFO and NO-TOUCH, the lib-name/lib-ver and
 * XINFO history lines). Entries are sorted by full name so they can be
 * found by binary search; subcommands are separate entries named
 * "container|sub".
 *
 * The `redis_*` fields of each entry are Redis's own command-table values.
 * They are not used to run anything: the unit tests compare them with casq's
 * command tables so COMMAND INFO keeps telling clients what Redis would.
 *
 * To document a new command, add an entry here (keep the order) from the
 * Redis documentation of that command; test_commands fails for any command
 * row that has no entry. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands_docs.h"
#include "server.h"

/* Zero-terminated array literals, so no entry needs a hand-kept count. */
#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

const commandDoc commandDocsTable[] = {
{
    .name = "auth",
    .summary = "Authenticates the connection.",
    .since = "1.0.0",
    .group = "connection",
    .complexity = "O(N) where N is the number of passwords defined for the user",
    .history = HISTORY(
        {"6.0.0", "Added ACL style (username and password)."}),
    .args = ARGS(
        {.name = "username", .type = ARG_TYPE_STRING, .since = "6.0.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "password", .type = ARG_TYPE_STRING}),
    .redis_arity = -2, .redis_flags = "noscript loading stale fast no_auth allow_busy", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "bgsave",
    .summary = "Asynchronously saves the database(s) to disk.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(1)",
    .history = HISTORY(
        {"3.2.2", "Added the `SCHEDULE` option."}),
    .args = ARGS(
        {.name = "schedule", .type = ARG_TYPE_PURE_TOKEN, .token = "SCHEDULE", .since = "3.2.2", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -1, .redis_flags = "admin noscript no_async_loading", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client",
    .summary = "A container for client connection commands.",
    .since = "2.4.0",
    .group = "connection",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|caching",
    .summary = "Instruct the server about tracking or not keys in the next request",
    .since = "6.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "mode", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "yes", .type = ARG_TYPE_PURE_TOKEN, .token = "YES"},
            {.name = "no", .type = ARG_TYPE_PURE_TOKEN, .token = "NO"})}),
    .redis_arity = 3, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|getname",
    .summary = "Get the current connection name",
    .since = "2.6.9",
    .group = "connection",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|getredir",
    .summary = "Get tracking notifications redirection client ID if any",
    .since = "6.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|help",
    .summary = "Show helpful text about the different subcommands",
    .since = "5.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|id",
    .summary = "Returns the client ID for the current connection",
    .since = "5.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|info",
    .summary = "Returns information about the current client connection.",
    .since = "6.2.0",
    .group = "connection",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.2.0", "Added `lib-name` and `lib-ver` fields."}),
    .tips = TIPS("nondeterministic_output"),
    .redis_arity = 2, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|kill",
    .summary = "Kill the connection of a client",
    .since = "2.4.0",
    .group = "connection",
    .complexity = "O(N) where N is the number of client connections",
    .history = HISTORY(
        {"2.8.12", "Added new filter format."},
        {"2.8.12", "`ID` option."},
        {"3.2.0", "Added `master` type in for `TYPE` option."},
        {"5.0.0", "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility."},
        {"6.2.0", "`LADDR` option."}),
    .args = ARGS(
        {.name = "filter", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "ip:port", .type = ARG_TYPE_STRING, .deprecated_since = "2.8.12"},
            {.name = "new-format", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_MULTIPLE,
             .subargs = ARGS(
                {.name = "client-id", .type = ARG_TYPE_INTEGER, .token = "ID", .since = "2.8.12", .flags = CMD_ARG_OPTIONAL},
                {.name = "normal_master_slave_pubsub", .type = ARG_TYPE_ONEOF, .token = "TYPE", .since = "2.8.12", .flags = CMD_ARG_OPTIONAL,
                 .subargs = ARGS(
                    {.name = "normal", .type = ARG_TYPE_PURE_TOKEN, .token = "NORMAL"},
                    {.name = "master", .type = ARG_TYPE_PURE_TOKEN, .token = "MASTER", .since = "3.2.0"},
                    {.name = "slave", .type = ARG_TYPE_PURE_TOKEN, .token = "SLAVE"},
                    {.name = "replica", .type = ARG_TYPE_PURE_TOKEN, .token = "REPLICA", .since = "5.0.0"},
                    {.name = "pubsub", .type = ARG_TYPE_PURE_TOKEN, .token = "PUBSUB"})},
                {.name = "username", .type = ARG_TYPE_STRING, .token = "USER", .flags = CMD_ARG_OPTIONAL},
                {.name = "ip:port", .type = ARG_TYPE_STRING, .token = "ADDR", .flags = CMD_ARG_OPTIONAL},
                {.name = "ip:port", .type = ARG_TYPE_STRING, .token = "LADDR", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL},
                {.name = "yes/no", .type = ARG_TYPE_STRING, .token = "SKIPME", .flags = CMD_ARG_OPTIONAL})})}),
    .redis_arity = -3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|list",
    .summary = "Get the list of client connections",
    .since = "2.4.0",
    .group = "connection",
    .complexity = "O(N) where N is the number of client connections",
    .history = HISTORY(
        {"2.8.12", "Added unique client `id` field."},
        {"5.0.0", "Added optional `TYPE` filter."},
        {"6.0.0", "Added `user` field."},
        {"6.2.0", "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter."},
        {"7.0.0", "Added `resp`, `multi-mem`, `rbs` and `rbp` fields."},
        {"7.0.3", "Added `ssub` field."},
        {"7.2.0", "Added `lib-name` and `lib-ver` fields."}),
    .tips = TIPS("nondeterministic_output"),
    .args = ARGS(
        {.name = "normal_master_replica_pubsub", .type = ARG_TYPE_ONEOF, .token = "TYPE", .since = "5.0.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "normal", .type = ARG_TYPE_PURE_TOKEN, .token = "NORMAL"},
            {.name = "master", .type = ARG_TYPE_PURE_TOKEN, .token = "MASTER"},
            {.name = "replica", .type = ARG_TYPE_PURE_TOKEN, .token = "REPLICA"},
            {.name = "pubsub", .type = ARG_TYPE_PURE_TOKEN, .token = "PUBSUB"})},
        {.name = "id", .type = ARG_TYPE_BLOCK, .token = "ID", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "client-id", .type = ARG_TYPE_INTEGER, .flags = CMD_ARG_MULTIPLE})}),
    .redis_arity = -2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|no-evict",
    .summary = "Set client eviction mode for the current connection",
    .since = "7.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "enabled", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "on", .type = ARG_TYPE_PURE_TOKEN, .token = "ON"},
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"})}),
    .redis_arity = 3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|no-touch",
    .summary = "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
    .since = "7.2.0",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "enabled", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "on", .type = ARG_TYPE_PURE_TOKEN, .token = "ON"},
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"})}),
    .redis_arity = 3, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|pause",
    .summary = "Stop processing commands from clients for some time",
    .since = "2.9.50",
    .group = "connection",
    .complexity = "O(1)",
    .history = HISTORY(
        {"6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option."}),
    .args = ARGS(
        {.name = "timeout", .type = ARG_TYPE_INTEGER},
        {.name = "mode", .type = ARG_TYPE_ONEOF, .since = "6.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "write", .type = ARG_TYPE_PURE_TOKEN, .token = "WRITE"},
            {.name = "all", .type = ARG_TYPE_PURE_TOKEN, .token = "ALL"})}),
    .redis_arity = -3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|reply",
    .summary = "Instruct the server whether to reply to commands",
    .since = "3.2.0",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "on_off_skip", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "on", .type = ARG_TYPE_PURE_TOKEN, .token = "ON"},
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"},
            {.name = "skip", .type = ARG_TYPE_PURE_TOKEN, .token = "SKIP"})}),
    .redis_arity = 3, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|setinfo",
    .summary = "Sets information specific to the client or connection.",
    .since = "7.2.0",
    .group = "connection",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_nodes", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "attr", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "libname", .type = ARG_TYPE_STRING, .token = "LIB-NAME"},
            {.name = "libver", .type = ARG_TYPE_STRING, .token = "LIB-VER"})}),
    .redis_arity = 4, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|setname",
    .summary = "Set the current connection name",
    .since = "2.6.9",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "connection-name", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|tracking",
    .summary = "Enable or disable server assisted client side caching support",
    .since = "6.0.0",
    .group = "connection",
    .complexity = "O(1). Some options may introduce additional complexity.",
    .args = ARGS(
        {.name = "status", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "on", .type = ARG_TYPE_PURE_TOKEN, .token = "ON"},
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"})},
        {.name = "client-id", .type = ARG_TYPE_INTEGER, .token = "REDIRECT", .flags = CMD_ARG_OPTIONAL},
        {.name = "prefix", .type = ARG_TYPE_STRING, .token = "PREFIX", .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE|CMD_ARG_MULTIPLE_TOKEN},
        {.name = "bcast", .type = ARG_TYPE_PURE_TOKEN, .token = "BCAST", .flags = CMD_ARG_OPTIONAL},
        {.name = "optin", .type = ARG_TYPE_PURE_TOKEN, .token = "OPTIN", .flags = CMD_ARG_OPTIONAL},
        {.name = "optout", .type = ARG_TYPE_PURE_TOKEN, .token = "OPTOUT", .flags = CMD_ARG_OPTIONAL},
        {.name = "noloop", .type = ARG_TYPE_PURE_TOKEN, .token = "NOLOOP", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|trackinginfo",
    .summary = "Return information about server assisted client side caching for the current connection",
    .since = "6.2.0",
    .group = "connection",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "noscript loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|unblock",
    .summary = "Unblock a client blocked in a blocking command from a different connection",
    .since = "5.0.0",
    .group = "connection",
    .complexity = "O(log N) where N is the number of client connections",
    .args = ARGS(
        {.name = "client-id", .type = ARG_TYPE_INTEGER},
        {.name = "timeout_error", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "timeout", .type = ARG_TYPE_PURE_TOKEN, .token = "TIMEOUT"},
            {.name = "error", .type = ARG_TYPE_PURE_TOKEN, .token = "ERROR"})}),
    .redis_arity = -3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "client|unpause",
    .summary = "Resume processing of clients that were paused",
    .since = "6.2.0",
    .group = "connection",
    .complexity = "O(N) Where N is the number of paused clients",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command",
    .summary = "Returns detailed information about all commands.",
    .since = "2.8.13",
    .group = "server",
    .complexity = "O(N) where N is the total number of Redis commands",
    .tips = TIPS("nondeterministic_output_order"),
    .redis_arity = -1, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|count",
    .summary = "Get total number of Redis commands",
    .since = "2.8.13",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|docs",
    .summary = "Get array of specific Redis command documentation",
    .since = "7.0.0",
    .group = "server",
    .complexity = "O(N) where N is the number of commands to look up",
    .tips = TIPS("nondeterministic_output_order"),
    .args = ARGS(
        {.name = "command-name", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|getkeys",
    .summary = "Extract keys given a full Redis command",
    .since = "2.8.13",
    .group = "server",
    .complexity = "O(N) where N is the number of arguments to the command",
    .redis_arity = -4, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|getkeysandflags",
    .summary = "Extract keys and access flags given a full Redis command",
    .since = "7.0.0",
    .group = "server",
    .complexity = "O(N) where N is the number of arguments to the command",
    .redis_arity = -4, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|help",
    .summary = "Show helpful text about the different subcommands",
    .since = "5.0.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|info",
    .summary = "Get array of specific Redis command details, or all when no argument is given.",
    .since = "2.8.13",
    .group = "server",
    .complexity = "O(N) where N is the number of commands to look up",
    .history = HISTORY(
        {"7.0.0", "Allowed to be called with no argument to get info on all commands."}),
    .tips = TIPS("nondeterministic_output_order"),
    .args = ARGS(
        {.name = "command-name", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "command|list",
    .summary = "Get an array of Redis command names",
    .since = "7.0.0",
    .group = "server",
    .complexity = "O(N) where N is the total number of Redis commands",
    .tips = TIPS("nondeterministic_output_order"),
    .args = ARGS(
        {.name = "filterby", .type = ARG_TYPE_ONEOF, .token = "FILTERBY", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "module-name", .type = ARG_TYPE_STRING, .token = "MODULE"},
            {.name = "category", .type = ARG_TYPE_STRING, .token = "ACLCAT"},
            {.name = "pattern", .type = ARG_TYPE_PATTERN, .token = "PATTERN"})}),
    .redis_arity = -2, .redis_flags = "loading stale", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "config",
    .summary = "A container for server configuration commands.",
    .since = "2.0.0",
    .group = "server",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "config|get",
    .summary = "Get the values of configuration parameters",
    .since = "2.0.0",
    .group = "server",
    .complexity = "O(N) when N is the number of configuration parameters provided",
    .history = HISTORY(
        {"7.0.0", "Added the ability to pass multiple pattern parameters in one call"}),
    .args = ARGS(
        {.name = "parameter", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "parameter", .type = ARG_TYPE_STRING})}),
    .redis_arity = -3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "config|help",
    .summary = "Show helpful text about the different subcommands",
    .since = "5.0.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "config|resetstat",
    .summary = "Reset the stats returned by INFO",
    .since = "2.0.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "config|rewrite",
    .summary = "Rewrite the configuration file with the in memory configuration",
    .since = "2.8.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "config|set",
    .summary = "Set configuration parameters to the given values",
    .since = "2.0.0",
    .group = "server",
    .complexity = "O(N) when N is the number of configuration parameters provided",
    .history = HISTORY(
        {"7.0.0", "Added the ability to set multiple parameters in one call."}),
    .tips = TIPS("request_policy:all_nodes", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "parameter_value", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "parameter", .type = ARG_TYPE_STRING},
            {.name = "value", .type = ARG_TYPE_STRING})}),
    .redis_arity = -4, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "copy",
    .summary = "Copies the value of a key to a new key.",
    .since = "6.2.0",
    .group = "generic",
    .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "source", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 1},
        {.name = "destination-db", .type = ARG_TYPE_INTEGER, .token = "DB", .flags = CMD_ARG_OPTIONAL},
        {.name = "replace", .type = ARG_TYPE_PURE_TOKEN, .token = "REPLACE", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@keyspace @write @slow",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "dbsize",
    .summary = "Returns the number of keys in the database.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:agg_sum"),
    .redis_arity = 1, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "debug",
    .summary = "A container for debugging commands.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "Depends on subcommand.",
    .doc_flags = CMD_DOC_SYSCMD,
    .redis_arity = -2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "del",
    .summary = "Deletes one or more keys.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
    .tips = TIPS("request_policy:multi_shard", "response_policy:agg_sum"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RM|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "write", .redis_acl = "@keyspace @write @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "discard",
    .summary = "Discards a transaction.",
    .since = "2.0.0",
    .group = "transactions",
    .complexity = "O(N), when N is the number of queued commands",
    .redis_arity = 1, .redis_flags = "noscript loading stale fast allow_busy", .redis_acl = "@fast @transaction",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "echo",
    .summary = "Returns the given string.",
    .since = "1.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "message", .type = ARG_TYPE_STRING}),
    .redis_arity = 2, .redis_flags = "loading stale fast", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "exec",
    .summary = "Executes all commands in a transaction.",
    .since = "1.2.0",
    .group = "transactions",
    .complexity = "Depends on commands in the transaction",
    .redis_arity = 1, .redis_flags = "noscript loading stale skip_slowlog", .redis_acl = "@slow @transaction",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "exists",
    .summary = "Determines whether one or more keys exist.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(N) where N is the number of keys to check.",
    .history = HISTORY(
        {"3.0.3", "Accepts multiple `key` arguments."}),
    .tips = TIPS("request_policy:multi_shard", "response_policy:agg_sum"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "expire",
    .summary = "Sets the expiration time of a key in seconds.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "seconds", .type = ARG_TYPE_INTEGER},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "7.0.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nx", .type = ARG_TYPE_PURE_TOKEN, .token = "NX"},
            {.name = "xx", .type = ARG_TYPE_PURE_TOKEN, .token = "XX"},
            {.name = "gt", .type = ARG_TYPE_PURE_TOKEN, .token = "GT"},
            {.name = "lt", .type = ARG_TYPE_PURE_TOKEN, .token = "LT"})}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "expireat",
    .summary = "Sets the expiration time of a key to a Unix timestamp.",
    .since = "1.2.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "unix-time-seconds", .type = ARG_TYPE_UNIX_TIME},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "7.0.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nx", .type = ARG_TYPE_PURE_TOKEN, .token = "NX"},
            {.name = "xx", .type = ARG_TYPE_PURE_TOKEN, .token = "XX"},
            {.name = "gt", .type = ARG_TYPE_PURE_TOKEN, .token = "GT"},
            {.name = "lt", .type = ARG_TYPE_PURE_TOKEN, .token = "LT"})}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "expiretime",
    .summary = "Returns the expiration time of a key as a Unix timestamp.",
    .since = "7.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "flushall",
    .summary = "Removes all keys from all databases.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(N) where N is the total number of keys in all databases",
    .history = HISTORY(
        {"4.0.0", "Added the `ASYNC` flushing mode modifier."},
        {"6.2.0", "Added the `SYNC` flushing mode modifier."}),
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "async", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "async", .type = ARG_TYPE_PURE_TOKEN, .token = "ASYNC", .since = "4.0.0"},
            {.name = "sync", .type = ARG_TYPE_PURE_TOKEN, .token = "SYNC", .since = "6.2.0"})}),
    .redis_arity = -1, .redis_flags = "write", .redis_acl = "@keyspace @write @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "flushdb",
    .summary = "Remove all keys from the current database.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(N) where N is the number of keys in the selected database",
    .history = HISTORY(
        {"4.0.0", "Added the `ASYNC` flushing mode modifier."},
        {"6.2.0", "Added the `SYNC` flushing mode modifier."}),
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "async", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "async", .type = ARG_TYPE_PURE_TOKEN, .token = "ASYNC", .since = "4.0.0"},
            {.name = "sync", .type = ARG_TYPE_PURE_TOKEN, .token = "SYNC", .since = "6.2.0"})}),
    .redis_arity = -1, .redis_flags = "write", .redis_acl = "@keyspace @write @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "hello",
    .summary = "Handshakes with the Redis server.",
    .since = "6.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .history = HISTORY(
        {"6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context."}),
    .args = ARGS(
        {.name = "arguments", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "protover", .type = ARG_TYPE_INTEGER},
            {.name = "username_password", .type = ARG_TYPE_BLOCK, .token = "AUTH", .flags = CMD_ARG_OPTIONAL,
             .subargs = ARGS(
                {.name = "username", .type = ARG_TYPE_STRING},
                {.name = "password", .type = ARG_TYPE_STRING})},
            {.name = "clientname", .type = ARG_TYPE_STRING, .token = "SETNAME", .flags = CMD_ARG_OPTIONAL})}),
    .redis_arity = -1, .redis_flags = "noscript loading stale fast no_auth allow_busy", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "info",
    .summary = "Returns information and statistics about the server.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added support for taking multiple section arguments."}),
    .tips = TIPS("nondeterministic_output", "request_policy:all_shards", "response_policy:special"),
    .args = ARGS(
        {.name = "section", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -1, .redis_flags = "loading stale", .redis_acl = "@slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "keys",
    .summary = "Returns all key names that match a pattern.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
    .tips = TIPS("request_policy:all_shards", "nondeterministic_output_order"),
    .args = ARGS(
        {.name = "pattern", .type = ARG_TYPE_PATTERN}),
    .redis_arity = 2, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "lastsave",
    .summary = "Returns the Unix timestamp of the last successful save to disk.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output"),
    .redis_arity = 1, .redis_flags = "loading stale fast", .redis_acl = "@admin @fast @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "memory",
    .summary = "A container for memory diagnostics commands.",
    .since = "4.0.0",
    .group = "server",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "memory|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "4.0.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "memory|malloc-stats",
    .summary = "Returns the allocator statistics.",
    .since = "4.0.0",
    .group = "server",
    .complexity = "Depends on how much memory is allocated, could be slow",
    .tips = TIPS("nondeterministic_output", "request_policy:all_shards", "response_policy:special"),
    .redis_arity = 2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "memory|purge",
    .summary = "Asks the allocator to release memory.",
    .since = "4.0.0",
    .group = "server",
    .complexity = "Depends on how much memory is allocated, could be slow",
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .redis_arity = 2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "memory|usage",
    .summary = "Estimates the memory usage of a key.",
    .since = "4.0.0",
    .group = "server",
    .complexity = "O(N) where N is the number of samples.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "SAMPLES", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "monitor",
    .summary = "Listens for all requests received by the server in real-time.",
    .since = "1.0.0",
    .group = "server",
    .redis_arity = 1, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "move",
    .summary = "Moves a key to another database.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "db", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "multi",
    .summary = "Starts a transaction.",
    .since = "1.2.0",
    .group = "transactions",
    .complexity = "O(1)",
    .redis_arity = 1, .redis_flags = "noscript loading stale fast allow_busy", .redis_acl = "@fast @transaction",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "object",
    .summary = "A container for object introspection commands.",
    .since = "2.2.3",
    .group = "generic",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "object|encoding",
    .summary = "Returns the internal encoding of a Redis object.",
    .since = "2.2.3",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 3, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "object|freq",
    .summary = "Returns the logarithmic access frequency counter of a Redis object.",
    .since = "4.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 3, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "object|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "6.2.0",
    .group = "generic",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@keyspace @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "object|idletime",
    .summary = "Returns the time since the last access to a Redis object.",
    .since = "2.2.3",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 3, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "object|refcount",
    .summary = "Returns the reference count of a value of a key.",
    .since = "2.2.3",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 3, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "persist",
    .summary = "Removes the expiration time of a key.",
    .since = "2.2.0",
    .group = "generic",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "pexpire",
    .summary = "Sets the expiration time of a key in milliseconds.",
    .since = "2.6.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "milliseconds", .type = ARG_TYPE_INTEGER},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "7.0.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nx", .type = ARG_TYPE_PURE_TOKEN, .token = "NX"},
            {.name = "xx", .type = ARG_TYPE_PURE_TOKEN, .token = "XX"},
            {.name = "gt", .type = ARG_TYPE_PURE_TOKEN, .token = "GT"},
            {.name = "lt", .type = ARG_TYPE_PURE_TOKEN, .token = "LT"})}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "pexpireat",
    .summary = "Sets the expiration time of a key to a Unix milliseconds timestamp.",
    .since = "2.6.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "unix-time-milliseconds", .type = ARG_TYPE_UNIX_TIME},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "7.0.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nx", .type = ARG_TYPE_PURE_TOKEN, .token = "NX"},
            {.name = "xx", .type = ARG_TYPE_PURE_TOKEN, .token = "XX"},
            {.name = "gt", .type = ARG_TYPE_PURE_TOKEN, .token = "GT"},
            {.name = "lt", .type = ARG_TYPE_PURE_TOKEN, .token = "LT"})}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "pexpiretime",
    .summary = "Returns the expiration time of a key as a Unix milliseconds timestamp.",
    .since = "7.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "ping",
    .summary = "Returns the server's liveliness response.",
    .since = "1.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:all_succeeded"),
    .args = ARGS(
        {.name = "message", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -1, .redis_flags = "fast", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pttl",
    .summary = "Returns the expiration time in milliseconds of a key.",
    .since = "2.6.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"2.8.0", "Added the -2 reply."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "quit",
    .summary = "Closes the connection.",
    .since = "1.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "7.2.0",
    .replaced_by = "just closing the connection",
    .redis_arity = -1, .redis_flags = "noscript loading stale fast no_auth allow_busy", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "randomkey",
    .summary = "Returns a random key name from the database.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "nondeterministic_output"),
    .redis_arity = 1, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "rename",
    .summary = "Renames a key and overwrites the destination.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "newkey", .type = ARG_TYPE_KEY, .key_spec_index = 1}),
    .redis_arity = 3, .redis_flags = "write", .redis_acl = "@keyspace @write @slow",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "renamenx",
    .summary = "Renames a key only when the target key name doesn't exist.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"3.2.0", "The command no longer returns an error when source and destination names are the same."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_OW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "newkey", .type = ARG_TYPE_KEY, .key_spec_index = 1}),
    .redis_arity = 3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "reset",
    .summary = "Resets the connection.",
    .since = "6.2.0",
    .group = "connection",
    .complexity = "O(1)",
    .redis_arity = 1, .redis_flags = "noscript loading stale fast no_auth allow_busy", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "role",
    .summary = "Returns the replication role.",
    .since = "2.8.12",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 1, .redis_flags = "noscript loading stale fast", .redis_acl = "@admin @fast @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "save",
    .summary = "Synchronously saves the database(s) to disk.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(N) where N is the total number of keys in all databases",
    .redis_arity = 1, .redis_flags = "admin noscript no_async_loading no_multi", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "scan",
    .summary = "Iterates over the key names in the database.",
    .since = "2.8.0",
    .group = "generic",
    .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
    .history = HISTORY(
        {"6.0.0", "Added the `TYPE` subcommand."}),
    .tips = TIPS("nondeterministic_output", "request_policy:special"),
    .args = ARGS(
        {.name = "cursor", .type = ARG_TYPE_INTEGER},
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .token = "MATCH", .flags = CMD_ARG_OPTIONAL},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "type", .type = ARG_TYPE_STRING, .token = "TYPE", .since = "6.0.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@keyspace @read @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "select",
    .summary = "Changes the selected database.",
    .since = "1.0.0",
    .group = "connection",
    .complexity = "O(1)",
    .args = ARGS(
        {.name = "index", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 2, .redis_flags = "loading stale fast", .redis_acl = "@fast @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "shutdown",
    .summary = "Synchronously saves the database(s) to disk and shuts down the Redis server.",
    .since = "1.0.0",
    .group = "server",
    .complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
    .history = HISTORY(
        {"7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers."}),
    .args = ARGS(
        {.name = "nosave_save", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nosave", .type = ARG_TYPE_PURE_TOKEN, .token = "NOSAVE"},
            {.name = "save", .type = ARG_TYPE_PURE_TOKEN, .token = "SAVE"})},
        {.name = "now", .type = ARG_TYPE_PURE_TOKEN, .token = "NOW", .since = "7.0.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "force", .type = ARG_TYPE_PURE_TOKEN, .token = "FORCE", .since = "7.0.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "abort", .type = ARG_TYPE_PURE_TOKEN, .token = "ABORT", .since = "7.0.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -1, .redis_flags = "admin noscript loading stale no_multi allow_busy", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "slowlog",
    .summary = "A container for slow log commands.",
    .since = "2.2.12",
    .group = "server",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "slowlog|get",
    .summary = "Returns the slow log's entries.",
    .since = "2.2.12",
    .group = "server",
    .complexity = "O(N) where N is the number of entries returned",
    .history = HISTORY(
        {"4.0.0", "Added client IP address, port and name to the reply."}),
    .tips = TIPS("request_policy:all_nodes", "nondeterministic_output"),
    .args = ARGS(
        {.name = "count", .type = ARG_TYPE_INTEGER, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "admin loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "slowlog|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "6.2.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "slowlog|len",
    .summary = "Returns the number of entries in the slow log.",
    .since = "2.2.12",
    .group = "server",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"),
    .redis_arity = 2, .redis_flags = "admin loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "slowlog|reset",
    .summary = "Clears all entries from the slow log.",
    .since = "2.2.12",
    .group = "server",
    .complexity = "O(N) where N is the number of entries in the slowlog",
    .tips = TIPS("request_policy:all_nodes", "response_policy:all_succeeded"),
    .redis_arity = 2, .redis_flags = "admin loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "swapdb",
    .summary = "Swaps two Redis databases.",
    .since = "4.0.0",
    .group = "server",
    .complexity = "O(N) where N is the count of clients watching or blocking on keys from both databases.",
    .args = ARGS(
        {.name = "index1", .type = ARG_TYPE_INTEGER},
        {.name = "index2", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 3, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "time",
    .summary = "Returns the server time.",
    .since = "2.6.0",
    .group = "server",
    .complexity = "O(1)",
    .tips = TIPS("nondeterministic_output"),
    .redis_arity = 1, .redis_flags = "loading stale fast", .redis_acl = "@fast",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "touch",
    .summary = "Returns the number of existing keys out of those specified after updating the time they were last accessed.",
    .since = "3.2.1",
    .group = "generic",
    .complexity = "O(N) where N is the number of keys that will be touched.",
    .tips = TIPS("request_policy:multi_shard", "response_policy:agg_sum"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "ttl",
    .summary = "Returns the expiration time in seconds of a key.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .history = HISTORY(
        {"2.8.0", "Added the -2 reply."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "type",
    .summary = "Determines the type of value stored at a key.",
    .since = "1.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@keyspace @read @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "unlink",
    .summary = "Asynchronously deletes one or more keys.",
    .since = "4.0.0",
    .group = "generic",
    .complexity = "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
    .tips = TIPS("request_policy:multi_shard", "response_policy:agg_sum"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RM|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@keyspace @write @fast",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "unwatch",
    .summary = "Forgets about watched keys of a transaction.",
    .since = "2.2.0",
    .group = "transactions",
    .complexity = "O(1)",
    .redis_arity = 1, .redis_flags = "noscript loading stale fast allow_busy", .redis_acl = "@fast @transaction",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "wait",
    .summary = "Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.",
    .since = "3.0.0",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:agg_min"),
    .args = ARGS(
        {.name = "numreplicas", .type = ARG_TYPE_INTEGER},
        {.name = "timeout", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 3, .redis_flags = "noscript", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "waitaof",
    .summary = "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.",
    .since = "7.2.0",
    .group = "generic",
    .complexity = "O(1)",
    .tips = TIPS("request_policy:all_shards", "response_policy:agg_min"),
    .args = ARGS(
        {.name = "numlocal", .type = ARG_TYPE_INTEGER},
        {.name = "numreplicas", .type = ARG_TYPE_INTEGER},
        {.name = "timeout", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 4, .redis_flags = "noscript", .redis_acl = "@slow @connection",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "watch",
    .summary = "Monitors changes to keys to determine the execution of a transaction.",
    .since = "2.2.0",
    .group = "transactions",
    .complexity = "O(1) for every key.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "noscript loading stale fast allow_busy", .redis_acl = "@fast @transaction",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "xack",
    .summary = "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1) for each message ID processed.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        {.name = "id", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -4, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xadd",
    .summary = "Appends a new message to a stream. Creates the key if it doesn't exist.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
    .history = HISTORY(
        {"6.2.0", "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option."},
        {"7.0.0", "Added support for the `<ms>-*` explicit ID form."},
        {"8.2.0", "Added the `KEEPREF`, `DELREF` and `ACKED` options."},
        {"8.6.0", "Added the `IDMP` and `IDMPAUTO` options."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.notes = "UPDATE instead of INSERT because of the optional trimming feature", .flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "nomkstream", .type = ARG_TYPE_PURE_TOKEN, .token = "NOMKSTREAM", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "8.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "keepref", .type = ARG_TYPE_PURE_TOKEN, .token = "KEEPREF"},
            {.name = "delref", .type = ARG_TYPE_PURE_TOKEN, .token = "DELREF"},
            {.name = "acked", .type = ARG_TYPE_PURE_TOKEN, .token = "ACKED"})},
        {.name = "idmp", .type = ARG_TYPE_ONEOF, .since = "8.6.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "idmpauto-with-pid", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "idmpauto-token", .type = ARG_TYPE_PURE_TOKEN, .token = "IDMPAUTO"},
                {.name = "pid", .type = ARG_TYPE_STRING})},
            {.name = "idmp-with-pid-iid", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "idmp-token", .type = ARG_TYPE_PURE_TOKEN, .token = "IDMP"},
                {.name = "pid", .type = ARG_TYPE_STRING},
                {.name = "iid", .type = ARG_TYPE_STRING})})},
        {.name = "trim", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "strategy", .type = ARG_TYPE_ONEOF,
             .subargs = ARGS(
                {.name = "maxlen", .type = ARG_TYPE_PURE_TOKEN, .token = "MAXLEN"},
                {.name = "minid", .type = ARG_TYPE_PURE_TOKEN, .token = "MINID", .since = "6.2.0"})},
            {.name = "operator", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
             .subargs = ARGS(
                {.name = "equal", .type = ARG_TYPE_PURE_TOKEN, .token = "="},
                {.name = "approximately", .type = ARG_TYPE_PURE_TOKEN, .token = "~"})},
            {.name = "threshold", .type = ARG_TYPE_STRING},
            {.name = "count", .type = ARG_TYPE_INTEGER, .token = "LIMIT", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL})},
        {.name = "id_or_auto", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "auto_id", .type = ARG_TYPE_PURE_TOKEN, .token = "*"},
            {.name = "id", .type = ARG_TYPE_STRING})},
        {.name = "field_value", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "field", .type = ARG_TYPE_STRING},
            {.name = "value", .type = ARG_TYPE_STRING})}),
    .redis_arity = -5, .redis_flags = "write denyoom fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xautoclaim",
    .summary = "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.",
    .since = "6.2.0",
    .group = "stream",
    .complexity = "O(1) if COUNT is small.",
    .history = HISTORY(
        {"7.0.0", "Added an element to the reply array, containing deleted entries the command cleared from the PEL"}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        {.name = "consumer", .type = ARG_TYPE_STRING},
        {.name = "min-idle-time", .type = ARG_TYPE_STRING},
        {.name = "start", .type = ARG_TYPE_STRING},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "justid", .type = ARG_TYPE_PURE_TOKEN, .token = "JUSTID", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -6, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xclaim",
    .summary = "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        {.name = "consumer", .type = ARG_TYPE_STRING},
        {.name = "min-idle-time", .type = ARG_TYPE_STRING},
        {.name = "id", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE},
        {.name = "ms", .type = ARG_TYPE_INTEGER, .token = "IDLE", .flags = CMD_ARG_OPTIONAL},
        {.name = "unix-time-milliseconds", .type = ARG_TYPE_UNIX_TIME, .token = "TIME", .flags = CMD_ARG_OPTIONAL},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "RETRYCOUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "force", .type = ARG_TYPE_PURE_TOKEN, .token = "FORCE", .flags = CMD_ARG_OPTIONAL},
        {.name = "justid", .type = ARG_TYPE_PURE_TOKEN, .token = "JUSTID", .flags = CMD_ARG_OPTIONAL},
        {.name = "id", .type = ARG_TYPE_STRING, .token = "LASTID", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -6, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xdel",
    .summary = "Returns the number of messages after removing them from a stream.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "id", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xgroup",
    .summary = "A container for consumer groups commands.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "xgroup|create",
    .summary = "Create a consumer group.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added the `entries_read` named argument."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING},
        {.name = "id", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "id", .type = ARG_TYPE_STRING},
            {.name = "new_id", .type = ARG_TYPE_PURE_TOKEN, .token = "$"})},
        {.name = "mkstream", .type = ARG_TYPE_PURE_TOKEN, .token = "MKSTREAM", .flags = CMD_ARG_OPTIONAL},
        {.name = "entries_read", .type = ARG_TYPE_INTEGER, .token = "ENTRIESREAD", .flags = CMD_ARG_OPTIONAL},
        {.name = "priority", .type = ARG_TYPE_ONEOF, .token = "PRIORITY", .since = "casq 0.1",
         .summary = "casq: priority delivery for the group (docs/priority.md).", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"},
            {.name = "fair", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "fair", .type = ARG_TYPE_PURE_TOKEN, .token = "FAIR"},
                {.name = "weights", .type = ARG_TYPE_BLOCK, .token = "WEIGHTS", .flags = CMD_ARG_OPTIONAL,
                 .subargs = ARGS(
                    {.name = "high", .type = ARG_TYPE_INTEGER},
                    {.name = "normal", .type = ARG_TYPE_INTEGER})},
                {.name = "name", .type = ARG_TYPE_STRING, .token = "FIELD", .flags = CMD_ARG_OPTIONAL})},
            {.name = "strict", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "strict", .type = ARG_TYPE_PURE_TOKEN, .token = "STRICT"},
                {.name = "milliseconds", .type = ARG_TYPE_INTEGER, .token = "MAXWAIT", .flags = CMD_ARG_OPTIONAL},
                {.name = "name", .type = ARG_TYPE_STRING, .token = "FIELD", .flags = CMD_ARG_OPTIONAL})})}),
    .redis_arity = -5, .redis_flags = "write denyoom", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xgroup|createconsumer",
    .summary = "Create a consumer in a consumer group.",
    .since = "6.2.0",
    .group = "stream",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING},
        {.name = "consumername", .type = ARG_TYPE_STRING}),
    .redis_arity = 5, .redis_flags = "write denyoom", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xgroup|delconsumer",
    .summary = "Delete a consumer from a consumer group.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING},
        {.name = "consumername", .type = ARG_TYPE_STRING}),
    .redis_arity = 5, .redis_flags = "write", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xgroup|destroy",
    .summary = "Destroy a consumer group.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xgroup|help",
    .summary = "Show helpful text about the different subcommands",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@stream @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    /* casq's own (issue 10): not a Redis command; the redis_* values are
     * casq's, in Redis's style. */
    .name = "xgroup|priority",
    .summary = "Set a consumer group's priority delivery: off, fair weighted classes or strict levels (casq).",
    .since = "casq 0.1",
    .group = "stream",
    .complexity = "O(1), or O(N) when the schedule restarts (mode or field changed, OFF), N being the undelivered "
                  "entries.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING},
        {.name = "mode", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"},
            {.name = "fair", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "fair", .type = ARG_TYPE_PURE_TOKEN, .token = "FAIR"},
                {.name = "weights", .type = ARG_TYPE_BLOCK, .token = "WEIGHTS", .flags = CMD_ARG_OPTIONAL,
                 .subargs = ARGS(
                    {.name = "high", .type = ARG_TYPE_INTEGER},
                    {.name = "normal", .type = ARG_TYPE_INTEGER})},
                {.name = "name", .type = ARG_TYPE_STRING, .token = "FIELD", .flags = CMD_ARG_OPTIONAL})},
            {.name = "strict", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "strict", .type = ARG_TYPE_PURE_TOKEN, .token = "STRICT"},
                {.name = "milliseconds", .type = ARG_TYPE_INTEGER, .token = "MAXWAIT", .flags = CMD_ARG_OPTIONAL},
                {.name = "name", .type = ARG_TYPE_STRING, .token = "FIELD", .flags = CMD_ARG_OPTIONAL})})}),
    .redis_arity = -5, .redis_flags = "write", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xgroup|setid",
    .summary = "Set a consumer group to an arbitrary last delivered ID value.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added the optional `entries_read` argument."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING},
        {.name = "id", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "id", .type = ARG_TYPE_STRING},
            {.name = "new_id", .type = ARG_TYPE_PURE_TOKEN, .token = "$"})},
        {.name = "entries_read", .type = ARG_TYPE_INTEGER, .token = "ENTRIESREAD", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -5, .redis_flags = "write", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xinfo",
    .summary = "A container for stream introspection commands.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "xinfo|consumers",
    .summary = "List the consumers in a consumer group",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.2.0", "Added the `inactive` field, and changed the meaning of `idle`."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "groupname", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "readonly", .redis_acl = "@read @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xinfo|groups",
    .summary = "List the consumer groups of a stream",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added the `entries-read` and `lag` fields"}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 3, .redis_flags = "readonly", .redis_acl = "@read @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xinfo|help",
    .summary = "Show helpful text about the different subcommands",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@stream @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "xinfo|stream",
    .summary = "Get information about a stream",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .history = HISTORY(
        {"6.0.0", "Added the `FULL` modifier."},
        {"7.0.0", "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"},
        {"7.2.0", "Added the `active-time` field, and changed the meaning of `seen-time`."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "full", .type = ARG_TYPE_BLOCK, .token = "FULL", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL})}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @stream @slow",
    .redis_firstkey = 2, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "xlen",
    .summary = "Return the number of messages in a stream.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xpending",
    .summary = "Returns the information and entries from a stream consumer group's pending entries list.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
    .history = HISTORY(
        {"6.2.0", "Added the `IDLE` option and exclusive range intervals."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        {.name = "filters", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "min-idle-time", .type = ARG_TYPE_INTEGER, .token = "IDLE", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL},
            {.name = "start", .type = ARG_TYPE_STRING},
            {.name = "end", .type = ARG_TYPE_STRING},
            {.name = "count", .type = ARG_TYPE_INTEGER},
            {.name = "consumer", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL})}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @stream @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xrange",
    .summary = "Returns the messages from a stream within a range of IDs.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
    .history = HISTORY(
        {"6.2.0", "Added exclusive ranges."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_STRING},
        {.name = "end", .type = ARG_TYPE_STRING},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @stream @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xread",
    .summary = "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
    .history = HISTORY(
        {"8.10.0", "Added the `MAXCOUNT` and `MAXSIZE` options."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_KEYWORD, .bs.keyword = {"STREAMS", 1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 2}}),
    .args = ARGS(
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "maxcount", .type = ARG_TYPE_INTEGER, .token = "MAXCOUNT", .since = "8.10.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "maxsize", .type = ARG_TYPE_INTEGER, .token = "MAXSIZE", .since = "8.10.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "milliseconds", .type = ARG_TYPE_INTEGER, .token = "BLOCK", .flags = CMD_ARG_OPTIONAL},
        {.name = "streams", .type = ARG_TYPE_BLOCK, .token = "STREAMS",
         .subargs = ARGS(
            {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
            {.name = "id", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE})}),
    .redis_arity = -4, .redis_flags = "readonly blocking movablekeys", .redis_acl = "@read @stream @slow @blocking",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "xreadgroup",
    .summary = "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
    .history = HISTORY(
        {"8.4.0", "Added the `CLAIM` option."},
        {"8.10.0", "Added the `MAXCOUNT` and `MAXSIZE` options."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_KEYWORD, .bs.keyword = {"STREAMS", 4}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 2}}),
    .args = ARGS(
        {.name = "group_consumer", .type = ARG_TYPE_BLOCK, .token = "GROUP",
         .subargs = ARGS(
            {.name = "group", .type = ARG_TYPE_STRING},
            {.name = "consumer", .type = ARG_TYPE_STRING})},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "maxcount", .type = ARG_TYPE_INTEGER, .token = "MAXCOUNT", .since = "8.10.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "maxsize", .type = ARG_TYPE_INTEGER, .token = "MAXSIZE", .since = "8.10.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "milliseconds", .type = ARG_TYPE_INTEGER, .token = "BLOCK", .flags = CMD_ARG_OPTIONAL},
        {.name = "min-idle-time", .type = ARG_TYPE_INTEGER, .token = "CLAIM", .since = "8.4.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "noack", .type = ARG_TYPE_PURE_TOKEN, .token = "NOACK", .flags = CMD_ARG_OPTIONAL},
        {.name = "streams", .type = ARG_TYPE_BLOCK, .token = "STREAMS",
         .subargs = ARGS(
            {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
            {.name = "id", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE})}),
    .redis_arity = -7, .redis_flags = "write blocking movablekeys", .redis_acl = "@write @stream @slow @blocking",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "xrevrange",
    .summary = "Returns the messages from a stream within a range of IDs in reverse order.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
    .history = HISTORY(
        {"6.2.0", "Added exclusive ranges."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "end", .type = ARG_TYPE_STRING},
        {.name = "start", .type = ARG_TYPE_STRING},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @stream @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xsetid",
    .summary = "An internal command for replicating stream values.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(1)",
    .history = HISTORY(
        {"7.0.0", "Added the `entries_added` and `max_deleted_entry_id` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "last-id", .type = ARG_TYPE_STRING},
        {.name = "entries_added", .type = ARG_TYPE_INTEGER, .token = "ENTRIESADDED", .since = "7.0.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "max_deleted_entry_id", .type = ARG_TYPE_STRING, .token = "MAXDELETEDID", .since = "7.0.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "write denyoom fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xtrim",
    .summary = "Deletes messages from the beginning of a stream.",
    .since = "5.0.0",
    .group = "stream",
    .complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
    .history = HISTORY(
        {"6.2.0", "Added the `MINID` trimming strategy and the `LIMIT` option."},
        {"8.2.0", "Added the `KEEPREF`, `DELREF` and `ACKED` options."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "trim", .type = ARG_TYPE_BLOCK,
         .subargs = ARGS(
            {.name = "strategy", .type = ARG_TYPE_ONEOF,
             .subargs = ARGS(
                {.name = "maxlen", .type = ARG_TYPE_PURE_TOKEN, .token = "MAXLEN"},
                {.name = "minid", .type = ARG_TYPE_PURE_TOKEN, .token = "MINID", .since = "6.2.0"})},
            {.name = "operator", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
             .subargs = ARGS(
                {.name = "equal", .type = ARG_TYPE_PURE_TOKEN, .token = "="},
                {.name = "approximately", .type = ARG_TYPE_PURE_TOKEN, .token = "~"})},
            {.name = "threshold", .type = ARG_TYPE_STRING},
            {.name = "count", .type = ARG_TYPE_INTEGER, .token = "LIMIT", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL})},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "8.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "keepref", .type = ARG_TYPE_PURE_TOKEN, .token = "KEEPREF"},
            {.name = "delref", .type = ARG_TYPE_PURE_TOKEN, .token = "DELREF"},
            {.name = "acked", .type = ARG_TYPE_PURE_TOKEN, .token = "ACKED"})}),
    .redis_arity = -4, .redis_flags = "write", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1}
,
{0}};

/* ------------------------------------------------------------------------
 * Lookup and attachment
 * --------------------------------------------------------------------- */

/* Every docs table: this file's, and one per data type module
 * (commands_docs_<type>.c). Each is sorted by full name. A new table is
 * added here. */
extern const commandDoc stringCommandDocsTable[]; /* commands_docs_string.c */
extern const commandDoc hashCommandDocsTable[];   /* commands_docs_hash.c */

extern const commandDoc listCommandDocsTable[];   /* commands_docs_list.c */
extern const commandDoc zsetCommandDocsTable[];   /* commands_docs_zset.c */
extern const commandDoc setCommandDocsTable[];    /* commands_docs_set.c */
extern const commandDoc pubsubCommandDocsTable[]; /* commands_docs_pubsub.c */
extern const commandDoc scriptingCommandDocsTable[]; /* commands_docs_scripting.c */
extern const commandDoc stream8CommandDocsTable[]; /* commands_docs_stream8.c */
extern const commandDoc aclCommandDocsTable[];    /* commands_docs_acl.c */

const commandDoc *const commandDocsTables[] = {
    commandDocsTable,
    stringCommandDocsTable,
    hashCommandDocsTable,
    listCommandDocsTable,
    zsetCommandDocsTable,
    setCommandDocsTable,
    pubsubCommandDocsTable,
    scriptingCommandDocsTable,
    stream8CommandDocsTable,
    aclCommandDocsTable,
    NULL,
};

static int commandDocsCount(const commandDoc *table) {
    int n = 0;
    while (table[n].name) n++;
    return n;
}

/* Binary search over each sorted table. `fullname` is compared
 * case-insensitively, as command names are. */
const commandDoc *lookupCommandDoc(const char *fullname) {
    for (int t = 0; commandDocsTables[t]; t++) {
        const commandDoc *table = commandDocsTables[t];
        int lo = 0, hi = commandDocsCount(table) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            int cmp = strcasecmp(fullname, table[mid].name);
            if (cmp == 0) return &table[mid];
            if (cmp < 0) hi = mid - 1;
            else lo = mid + 1;
        }
    }
    return NULL;
}

/* Full name of a command row: "xadd", or "xgroup|create" for a
 * subcommand (written into buf). */
static const char *commandFullName(struct redisCommand *cmd, struct redisCommand *parent, char *buf, size_t len) {
    if (!parent) return cmd->name;
    snprintf(buf, len, "%s|%s", parent->name, cmd->name);
    return buf;
}

/* Calls fn for every command row and every subcommand row reachable from
 * server.commands. Returns the sum of what fn returned. */
static int forEachCommandRow(int (*fn)(struct redisCommand *cmd, struct redisCommand *parent)) {
    dictIterator it;
    dictEntry *de;
    int sum = 0;

    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it)) != NULL) {
        struct redisCommand *cmd = de->val;
        sum += fn(cmd, NULL);
        if (!cmd->subcommands) continue;
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) sum += fn(sub, cmd);
    }
    return sum;
}

static int attachOneDoc(struct redisCommand *cmd, struct redisCommand *parent) {
    char buf[128];
    const char *name = commandFullName(cmd, parent, buf, sizeof(buf));
    cmd->doc = lookupCommandDoc(name);
    if (cmd->doc) return 0;
    serverLog(LL_WARNING, "Command '%s' has no documentation (commands_docs.c)", name);
    return 1;
}

void attachCommandDocs(void) {
    forEachCommandRow(attachOneDoc);
}

static int countMissingDoc(struct redisCommand *cmd, struct redisCommand *parent) {
    (void)parent;
    return cmd->doc == NULL;
}

int commandsMissingDocs(void) {
    return forEachCommandRow(countMissingDoc);
}

static const char *commandArgTypeNames[] = {
    [ARG_TYPE_STRING] = "string",
    [ARG_TYPE_INTEGER] = "integer",
    [ARG_TYPE_DOUBLE] = "double",
    [ARG_TYPE_KEY] = "key",
    [ARG_TYPE_PATTERN] = "pattern",
    [ARG_TYPE_UNIX_TIME] = "unix-time",
    [ARG_TYPE_PURE_TOKEN] = "pure-token",
    [ARG_TYPE_ONEOF] = "oneof",
    [ARG_TYPE_BLOCK] = "block",
};

const char *commandArgTypeName(commandArgType type) {
    return commandArgTypeNames[type];
}

int keySpecsCount(const keySpec *specs) {
    int n = 0;
    if (!specs) return 0;
    while (specs[n].bs_type != KSPEC_BS_INVALID) n++;
    return n;
}
