/* commands_docs_set.c -- COMMAND DOCS and COMMAND INFO data of the set commands (t_set.c).
 *
 * Transcribed from a real redis-server's COMMAND DOCS / COMMAND INFO output
 * (arguments, key specs, history, tips), with Redis 7.2's top-level
 * summaries. Sorted by full name (binary search); listed in
 * commandDocsTables[] (commands_docs.c). See commands_docs.h. */
#include <stddef.h>

#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

/* clang-format off */
const commandDoc setCommandDocsTable[] = {
{
    .name = "sadd",
    .summary = "Adds one or more members to a set. Creates the key if it doesn't exist.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple `member` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom fast", .redis_acl = "@write @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "scard",
    .summary = "Returns the number of members in a set.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "sdiff",
    .summary = "Returns the difference of multiple sets.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N) where N is the total number of elements in all given sets.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@read @set @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "sdiffstore",
    .summary = "Stores the difference of multiple sets in a key.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N) where N is the total number of elements in all given sets.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 1, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@write @set @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "sinter",
    .summary = "Returns the intersect of multiple sets.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@read @set @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "sintercard",
    .summary = "Returns the number of members of the intersect of multiple sets.",
    .since = "7.0.0",
    .group = "set",
    .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "limit", .type = ARG_TYPE_INTEGER, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly movablekeys", .redis_acl = "@read @set @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "sinterstore",
    .summary = "Stores the intersect of multiple sets in a key.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 1, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@write @set @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "sismember",
    .summary = "Determines whether a member belongs to a set.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "readonly fast", .redis_acl = "@read @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "smembers",
    .summary = "Returns all members of a set.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N) where N is the set cardinality.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly", .redis_acl = "@read @set @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "smismember",
    .summary = "Determines whether multiple members belong to a set.",
    .since = "6.2.0",
    .group = "set",
    .complexity = "O(N) where N is the number of elements being checked for membership",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "readonly fast", .redis_acl = "@read @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "smove",
    .summary = "Moves a member from one set to another.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "source", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 1},
        {.name = "member", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write fast", .redis_acl = "@write @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "spop",
    .summary = "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
    .history = HISTORY(
        {"3.2.0", "Added the `count` argument."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .since = "3.2.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "srandmember",
    .summary = "Get one or multiple random members from a set",
    .since = "1.0.0",
    .group = "set",
    .complexity = "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
    .history = HISTORY(
        {"2.6.0", "Added the optional `count` argument."}),
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .since = "2.6.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@read @set @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "srem",
    .summary = "Removes one or more members from a set. Deletes the set if the last member was removed.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N) where N is the number of members to be removed.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple `member` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@write @set @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "sscan",
    .summary = "Iterates over members of a set.",
    .since = "2.8.0",
    .group = "set",
    .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "cursor", .type = ARG_TYPE_INTEGER},
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .token = "MATCH", .flags = CMD_ARG_OPTIONAL},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @set @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "sunion",
    .summary = "Returns the union of multiple sets.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N) where N is the total number of elements in all given sets.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@read @set @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "sunionstore",
    .summary = "Stores the union of multiple sets in a key.",
    .since = "1.0.0",
    .group = "set",
    .complexity = "O(N) where N is the total number of elements in all given sets.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 1, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@write @set @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{0},
};
/* clang-format on */
