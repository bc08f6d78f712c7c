/* commands_docs_string.c -- COMMAND DOCS / COMMAND INFO data of the string
 * commands (t_string.c), in commands_docs.h's structures: Redis 7.0's
 * arguments, key specs, history and tips as a real redis-server publishes
 * them, with Redis 7.2's reworded summaries. Sorted by name (binary
 * search); the `redis_*` fields are Redis's command-table values, checked
 * against t_string.c's table by tests/unit/test_commands.c. */
#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

/* clang-format off */
const commandDoc stringCommandDocsTable[] = {
{
    .name = "append",
    .summary = "Appends a string to the value of a key. Creates the key if it doesn't exist.",
    .since = "2.0.0",
    .group = "string",
    .complexity = "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "decr",
    .summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "decrby",
    .summary = "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "decrement", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 3, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "get",
    .summary = "Returns the string value of a key.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "getdel",
    .summary = "Returns the string value of a key after deleting the key.",
    .since = "6.2.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "write fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "getex",
    .summary = "Returns the string value of a key after setting its expiration time.",
    .since = "6.2.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.notes = "RW and UPDATE because it changes the TTL", .flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "expiration", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "seconds", .type = ARG_TYPE_INTEGER, .token = "EX"},
            {.name = "milliseconds", .type = ARG_TYPE_INTEGER, .token = "PX"},
            {.name = "unix-time-seconds", .type = ARG_TYPE_UNIX_TIME, .token = "EXAT"},
            {.name = "unix-time-milliseconds", .type = ARG_TYPE_UNIX_TIME, .token = "PXAT"},
            {.name = "persist", .type = ARG_TYPE_PURE_TOKEN, .token = "PERSIST"})}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "getrange",
    .summary = "Returns a substring of the string stored at a key.",
    .since = "2.4.0",
    .group = "string",
    .complexity = "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_INTEGER},
        {.name = "end", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 4, .redis_flags = "readonly", .redis_acl = "@read @string @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "getset",
    .summary = "Returns the previous string value of a key after setting it to a new value.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`SET` with the `!GET` argument",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "incr",
    .summary = "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "incrby",
    .summary = "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "increment", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 3, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "incrbyfloat",
    .summary = "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
    .since = "2.6.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "increment", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = 3, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "mget",
    .summary = "Atomically returns the string values of one or more keys.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(N) where N is the number of keys to retrieve.",
    .tips = TIPS("request_policy:multi_shard"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "readonly fast", .redis_acl = "@read @string @fast",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "mset",
    .summary = "Atomically creates or modifies the string values of one or more keys.",
    .since = "1.0.1",
    .group = "string",
    .complexity = "O(N) where N is the number of keys to set.",
    .tips = TIPS("request_policy:multi_shard", "response_policy:all_succeeded"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 2, 0}}),
    .args = ARGS(
        {.name = "key_value", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
            {.name = "value", .type = ARG_TYPE_STRING})}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@write @string @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 2},
{
    .name = "msetnx",
    .summary = "Atomically modifies the string values of one or more keys only when all keys don't exist.",
    .since = "1.0.1",
    .group = "string",
    .complexity = "O(N) where N is the number of keys to set.",
    .tips = TIPS("request_policy:multi_shard", "response_policy:agg_min"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 2, 0}}),
    .args = ARGS(
        {.name = "key_value", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
            {.name = "value", .type = ARG_TYPE_STRING})}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@write @string @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 2},
{
    .name = "psetex",
    .summary = "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
    .since = "2.6.0",
    .group = "string",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "2.6.12",
    .replaced_by = "`SET` with the `PX` argument",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "milliseconds", .type = ARG_TYPE_INTEGER},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write denyoom", .redis_acl = "@write @string @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "set",
    .summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .history = HISTORY(
        {"2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options."},
        {"6.0.0", "Added the `KEEPTTL` option."},
        {"6.2.0", "Added the `GET`, `EXAT` and `PXAT` option."},
        {"7.0.0", "Allowed the `NX` and `GET` options to be used together."}),
    .key_specs = KEYSPECS(
        {.notes = "RW and ACCESS due to the optional `GET` argument", .flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE|KSPEC_VARIABLE_FLAGS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "value", .type = ARG_TYPE_STRING},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "2.6.12", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nx", .type = ARG_TYPE_PURE_TOKEN, .token = "NX"},
            {.name = "xx", .type = ARG_TYPE_PURE_TOKEN, .token = "XX"})},
        {.name = "get", .type = ARG_TYPE_PURE_TOKEN, .token = "GET", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "expiration", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "seconds", .type = ARG_TYPE_INTEGER, .token = "EX", .since = "2.6.12"},
            {.name = "milliseconds", .type = ARG_TYPE_INTEGER, .token = "PX", .since = "2.6.12"},
            {.name = "unix-time-seconds", .type = ARG_TYPE_UNIX_TIME, .token = "EXAT", .since = "6.2.0"},
            {.name = "unix-time-milliseconds", .type = ARG_TYPE_UNIX_TIME, .token = "PXAT", .since = "6.2.0"},
            {.name = "keepttl", .type = ARG_TYPE_PURE_TOKEN, .token = "KEEPTTL", .since = "6.0.0"})}),
    .redis_arity = -3, .redis_flags = "write denyoom", .redis_acl = "@write @string @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "setex",
    .summary = "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
    .since = "2.0.0",
    .group = "string",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "2.6.12",
    .replaced_by = "`SET` with the `EX` argument",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "seconds", .type = ARG_TYPE_INTEGER},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write denyoom", .redis_acl = "@write @string @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "setnx",
    .summary = "Set the string value of a key only when the key doesn't exist.",
    .since = "1.0.0",
    .group = "string",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "2.6.12",
    .replaced_by = "`SET` with the `NX` argument",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "write denyoom fast", .redis_acl = "@write @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "setrange",
    .summary = "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
    .since = "2.2.0",
    .group = "string",
    .complexity = "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "offset", .type = ARG_TYPE_INTEGER},
        {.name = "value", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write denyoom", .redis_acl = "@write @string @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "strlen",
    .summary = "Returns the length of a string value.",
    .since = "2.2.0",
    .group = "string",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @string @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{0},
};
/* clang-format on */
