/* commands_docs_hash.c -- COMMAND DOCS / COMMAND INFO data of the hash
 * commands (t_hash.c), in commands_docs.h's structures: Redis 7.0's
 * arguments, key specs, history and tips as a real redis-server publishes
 * them, with Redis 7.2's reworded summaries. Sorted by name (binary
 * search); the `redis_*` fields are Redis's command-table values, checked
 * against t_hash.c's table by tests/unit/test_commands.c. */
#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

/* clang-format off */
const commandDoc hashCommandDocsTable[] = {
{
    .name = "hdel",
    .summary = "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(N) where N is the number of fields to be removed.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple `field` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@write @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hexists",
    .summary = "Determines whether a field exists in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "readonly fast", .redis_acl = "@read @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hget",
    .summary = "Returns the value of a field in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "readonly fast", .redis_acl = "@read @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hgetall",
    .summary = "Returns all fields and values in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(N) where N is the size of the hash.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly", .redis_acl = "@read @hash @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hincrby",
    .summary = "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING},
        {.name = "increment", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 4, .redis_flags = "write denyoom fast", .redis_acl = "@write @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hincrbyfloat",
    .summary = "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.",
    .since = "2.6.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING},
        {.name = "increment", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = 4, .redis_flags = "write denyoom fast", .redis_acl = "@write @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hkeys",
    .summary = "Returns all fields in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(N) where N is the size of the hash.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly", .redis_acl = "@read @hash @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hlen",
    .summary = "Returns the number of fields in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hmget",
    .summary = "Returns the values of all fields in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(N) where N is the number of fields being requested.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "readonly fast", .redis_acl = "@read @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hmset",
    .summary = "Sets the values of multiple fields.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(N) where N is the number of fields being set.",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "4.0.0",
    .replaced_by = "`HSET` with multiple field-value pairs",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field_value", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "field", .type = ARG_TYPE_STRING},
            {.name = "value", .type = ARG_TYPE_STRING})}),
    .redis_arity = -4, .redis_flags = "write denyoom fast", .redis_acl = "@write @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hrandfield",
    .summary = "Returns one or more random fields from a hash.",
    .since = "6.2.0",
    .group = "hash",
    .complexity = "O(N) where N is the number of fields returned",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "options", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "count", .type = ARG_TYPE_INTEGER},
            {.name = "withvalues", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHVALUES", .flags = CMD_ARG_OPTIONAL})}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@read @hash @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hscan",
    .summary = "Iterates over fields and values of a hash.",
    .since = "2.8.0",
    .group = "hash",
    .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "cursor", .type = ARG_TYPE_INTEGER},
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .token = "MATCH", .flags = CMD_ARG_OPTIONAL},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @hash @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hset",
    .summary = "Creates or modifies the value of a field in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
    .history = HISTORY(
        {"4.0.0", "Accepts multiple `field` and `value` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field_value", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "field", .type = ARG_TYPE_STRING},
            {.name = "value", .type = ARG_TYPE_STRING})}),
    .redis_arity = -4, .redis_flags = "write denyoom fast", .redis_acl = "@write @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hsetnx",
    .summary = "Sets the value of a field in a hash only when the field doesn't exist.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write denyoom fast", .redis_acl = "@write @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hstrlen",
    .summary = "Returns the length of the value of a field.",
    .since = "3.2.0",
    .group = "hash",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "field", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "readonly fast", .redis_acl = "@read @hash @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "hvals",
    .summary = "Returns all values in a hash.",
    .since = "2.0.0",
    .group = "hash",
    .complexity = "O(N) where N is the size of the hash.",
    .tips = TIPS("nondeterministic_output_order"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly", .redis_acl = "@read @hash @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{0},
};
/* clang-format on */
