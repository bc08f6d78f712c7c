/* commands_docs_acl.c -- COMMAND DOCS and COMMAND INFO data of the ACL
 * subcommands casq has (acl.c).
 *
 * From Redis 7.2's src/commands/acl*.json (summaries, arity, flags, ACL
 * categories; the "sentinel" flag is left out as everywhere in casq).
 * Sorted by full name (binary search); listed in commandDocsTables[]
 * (commands_docs.c). See commands_docs.h. */
#include <stddef.h>

#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})

/* clang-format off */
const commandDoc aclCommandDocsTable[] = {
{
    .name = "acl",
    .summary = "A container for Access List Control commands.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|cat",
    .summary = "Lists the ACL categories, or the commands inside a category.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(1) since the categories and commands are a fixed set.",
    .args = ARGS(
        {.name = "category", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "noscript loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|deluser",
    .summary = "Deletes ACL users, and terminates their connections.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(1) amortized time considering the typical user.",
    .args = ARGS(
        {.name = "username", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|dryrun",
    .summary = "Simulates the execution of a command by a user, without executing the command.",
    .since = "7.0.0",
    .group = "server",
    .complexity = "O(1).",
    .args = ARGS(
        {.name = "username", .type = ARG_TYPE_STRING},
        {.name = "command", .type = ARG_TYPE_STRING},
        {.name = "arg", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -4, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|genpass",
    .summary = "Generates a pseudorandom, secure password that can be used to identify ACL users.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N)",
    .args = ARGS(
        {.name = "bits", .type = ARG_TYPE_INTEGER, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "noscript loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|getuser",
    .summary = "Lists the ACL rules of a user.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N). Where N is the number of password, command and pattern rules that the user has.",
    .history = HISTORY(
        {"6.2.0", "Added Pub/Sub channel patterns."},
        {"7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}),
    .args = ARGS(
        {.name = "username", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|list",
    .summary = "Dumps the effective rules in ACL file format.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N). Where N is the number of configured users.",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|load",
    .summary = "Reloads the rules from the configured ACL file.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N). Where N is the number of configured users.",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|log",
    .summary = "Lists recent security events generated due to ACL rules.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N) with N being the number of entries shown.",
    .history = HISTORY(
        {"7.2.0", "Added entry ID, timestamp created, and timestamp last updated."}),
    .args = ARGS(
        {.name = "operation", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "count", .type = ARG_TYPE_INTEGER},
            {.name = "reset", .type = ARG_TYPE_PURE_TOKEN, .token = "RESET"})}),
    .redis_arity = -2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|save",
    .summary = "Saves the effective ACL rules in the configured ACL file.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N). Where N is the number of configured users.",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|setuser",
    .summary = "Creates and modifies an ACL user and its rules.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N). Where N is the number of rules provided.",
    .history = HISTORY(
        {"6.2.0", "Added Pub/Sub channel patterns."},
        {"7.0.0", "Added selectors and key based permissions."}),
    .args = ARGS(
        {.name = "username", .type = ARG_TYPE_STRING},
        {.name = "rule", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|users",
    .summary = "Lists all ACL users.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(N). Where N is the number of configured users.",
    .redis_arity = 2, .redis_flags = "admin noscript loading stale", .redis_acl = "@admin @slow @dangerous",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "acl|whoami",
    .summary = "Returns the authenticated username of the current connection.",
    .since = "6.0.0",
    .group = "server",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "noscript loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{0},
};
/* clang-format on */
