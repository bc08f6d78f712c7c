/* commands_docs_zset.c -- COMMAND DOCS entries of the sorted set commands
 * (t_zset.c), in commands_docs.h's structures: what Redis publishes about
 * them (summary, history, key specs, arguments), as redis-server 7.0
 * reports them with COMMAND DOCS and COMMAND INFO (less the noscript flag
 * of the blocking commands, which 7.2 dropped), updated with what 7.2
 * changed (the reworded summaries, ZRANK and ZREVRANK WITHSCORE). Sorted
 * by name. */
#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

const commandDoc zsetCommandDocsTable[] = {
{
    .name = "bzmpop",
    .summary = "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
    .since = "7.0.0",
    .group = "sorted-set",
    .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "timeout", .type = ARG_TYPE_DOUBLE},
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "where", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "min", .type = ARG_TYPE_PURE_TOKEN, .token = "MIN"},
            {.name = "max", .type = ARG_TYPE_PURE_TOKEN, .token = "MAX"})},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -5, .redis_flags = "write blocking movablekeys", .redis_acl = "@write @sortedset @slow @blocking",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "bzpopmax",
    .summary = "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise.  Deletes the sorted set if the last element was popped.",
    .since = "5.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
    .history = HISTORY(
        {"6.0.0", "`timeout` is interpreted as a double instead of an integer."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-2, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "timeout", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = -3, .redis_flags = "write blocking fast", .redis_acl = "@write @sortedset @fast @blocking",
    .redis_firstkey = 1, .redis_lastkey = -2, .redis_keystep = 1},
{
    .name = "bzpopmin",
    .summary = "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
    .since = "5.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
    .history = HISTORY(
        {"6.0.0", "`timeout` is interpreted as a double instead of an integer."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-2, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "timeout", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = -3, .redis_flags = "write blocking fast", .redis_acl = "@write @sortedset @fast @blocking",
    .redis_firstkey = 1, .redis_lastkey = -2, .redis_keystep = 1},
{
    .name = "zadd",
    .summary = "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple elements."},
        {"3.0.2", "Added the `XX`, `NX`, `CH` and `INCR` options."},
        {"6.2.0", "Added the `GT` and `LT` options."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "condition", .type = ARG_TYPE_ONEOF, .since = "3.0.2", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "nx", .type = ARG_TYPE_PURE_TOKEN, .token = "NX"},
            {.name = "xx", .type = ARG_TYPE_PURE_TOKEN, .token = "XX"})},
        {.name = "comparison", .type = ARG_TYPE_ONEOF, .since = "6.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "gt", .type = ARG_TYPE_PURE_TOKEN, .token = "GT"},
            {.name = "lt", .type = ARG_TYPE_PURE_TOKEN, .token = "LT"})},
        {.name = "change", .type = ARG_TYPE_PURE_TOKEN, .token = "CH", .since = "3.0.2", .flags = CMD_ARG_OPTIONAL},
        {.name = "increment", .type = ARG_TYPE_PURE_TOKEN, .token = "INCR", .since = "3.0.2", .flags = CMD_ARG_OPTIONAL},
        {.name = "score_member", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "score", .type = ARG_TYPE_DOUBLE},
            {.name = "member", .type = ARG_TYPE_STRING})}),
    .redis_arity = -4, .redis_flags = "write denyoom fast", .redis_acl = "@write @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zcard",
    .summary = "Returns the number of members in a sorted set.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zcount",
    .summary = "Returns the count of members in a sorted set that have scores within a range.",
    .since = "2.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "min", .type = ARG_TYPE_DOUBLE},
        {.name = "max", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = 4, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zdiff",
    .summary = "Returns the difference between multiple sorted sets.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly movablekeys", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "zdiffstore",
    .summary = "Stores the difference of multiple sorted sets in a key.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 1, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -4, .redis_flags = "write denyoom movablekeys", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zincrby",
    .summary = "Increments the score of a member in a sorted set.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)) where N is the number of elements in the sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "increment", .type = ARG_TYPE_INTEGER},
        {.name = "member", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write denyoom fast", .redis_acl = "@write @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zinter",
    .summary = "Returns the intersect of multiple sorted sets.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "weight", .type = ARG_TYPE_INTEGER, .token = "WEIGHTS", .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE},
        {.name = "aggregate", .type = ARG_TYPE_ONEOF, .token = "AGGREGATE", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "sum", .type = ARG_TYPE_PURE_TOKEN, .token = "SUM"},
            {.name = "min", .type = ARG_TYPE_PURE_TOKEN, .token = "MIN"},
            {.name = "max", .type = ARG_TYPE_PURE_TOKEN, .token = "MAX"})},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly movablekeys", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "zintercard",
    .summary = "Returns the number of members of the intersect of multiple sorted sets.",
    .since = "7.0.0",
    .group = "sorted-set",
    .complexity = "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "limit", .type = ARG_TYPE_INTEGER, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly movablekeys", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "zinterstore",
    .summary = "Stores the intersect of multiple sorted sets in a key.",
    .since = "2.0.0",
    .group = "sorted-set",
    .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 1, .flags = CMD_ARG_MULTIPLE},
        {.name = "weight", .type = ARG_TYPE_INTEGER, .token = "WEIGHTS", .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE},
        {.name = "aggregate", .type = ARG_TYPE_ONEOF, .token = "AGGREGATE", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "sum", .type = ARG_TYPE_PURE_TOKEN, .token = "SUM"},
            {.name = "min", .type = ARG_TYPE_PURE_TOKEN, .token = "MIN"},
            {.name = "max", .type = ARG_TYPE_PURE_TOKEN, .token = "MAX"})}),
    .redis_arity = -4, .redis_flags = "write denyoom movablekeys", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zlexcount",
    .summary = "Returns the number of members in a sorted set within a lexicographical range.",
    .since = "2.8.9",
    .group = "sorted-set",
    .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "min", .type = ARG_TYPE_STRING},
        {.name = "max", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zmpop",
    .summary = "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.",
    .since = "7.0.0",
    .group = "sorted-set",
    .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "where", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "min", .type = ARG_TYPE_PURE_TOKEN, .token = "MIN"},
            {.name = "max", .type = ARG_TYPE_PURE_TOKEN, .token = "MAX"})},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -4, .redis_flags = "write movablekeys", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "zmscore",
    .summary = "Returns the score of one or more members in a sorted set.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(N) where N is the number of members being requested.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zpopmax",
    .summary = "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
    .since = "5.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zpopmin",
    .summary = "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
    .since = "5.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrandmember",
    .summary = "Returns one or more random members from a sorted set.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(N) where N is the number of elements returned",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "options", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "count", .type = ARG_TYPE_INTEGER},
            {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL})}),
    .redis_arity = -2, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrange",
    .summary = "Returns members in a sorted set within a range of indexes.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
    .history = HISTORY(
        {"6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_STRING},
        {.name = "stop", .type = ARG_TYPE_STRING},
        {.name = "sortby", .type = ARG_TYPE_ONEOF, .since = "6.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "byscore", .type = ARG_TYPE_PURE_TOKEN, .token = "BYSCORE"},
            {.name = "bylex", .type = ARG_TYPE_PURE_TOKEN, .token = "BYLEX"})},
        {.name = "rev", .type = ARG_TYPE_PURE_TOKEN, .token = "REV", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "offset_count", .type = ARG_TYPE_BLOCK, .token = "LIMIT", .since = "6.2.0", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "offset", .type = ARG_TYPE_INTEGER},
            {.name = "count", .type = ARG_TYPE_INTEGER})},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrangebylex",
    .summary = "Returns members in a sorted set within a lexicographical range.",
    .since = "2.8.9",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`ZRANGE` with the `BYLEX` argument",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "min", .type = ARG_TYPE_STRING},
        {.name = "max", .type = ARG_TYPE_STRING},
        {.name = "offset_count", .type = ARG_TYPE_BLOCK, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "offset", .type = ARG_TYPE_INTEGER},
            {.name = "count", .type = ARG_TYPE_INTEGER})}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrangebyscore",
    .summary = "Returns members in a sorted set within a range of scores.",
    .since = "1.0.5",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`ZRANGE` with the `BYSCORE` argument",
    .history = HISTORY(
        {"2.0.0", "Added the `WITHSCORES` modifier."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "min", .type = ARG_TYPE_DOUBLE},
        {.name = "max", .type = ARG_TYPE_DOUBLE},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .since = "2.0.0", .flags = CMD_ARG_OPTIONAL},
        {.name = "offset_count", .type = ARG_TYPE_BLOCK, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "offset", .type = ARG_TYPE_INTEGER},
            {.name = "count", .type = ARG_TYPE_INTEGER})}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrangestore",
    .summary = "Stores a range of members from sorted set in a key.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "dst", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "src", .type = ARG_TYPE_KEY, .key_spec_index = 1},
        {.name = "min", .type = ARG_TYPE_STRING},
        {.name = "max", .type = ARG_TYPE_STRING},
        {.name = "sortby", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "byscore", .type = ARG_TYPE_PURE_TOKEN, .token = "BYSCORE"},
            {.name = "bylex", .type = ARG_TYPE_PURE_TOKEN, .token = "BYLEX"})},
        {.name = "rev", .type = ARG_TYPE_PURE_TOKEN, .token = "REV", .flags = CMD_ARG_OPTIONAL},
        {.name = "offset_count", .type = ARG_TYPE_BLOCK, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "offset", .type = ARG_TYPE_INTEGER},
            {.name = "count", .type = ARG_TYPE_INTEGER})}),
    .redis_arity = -5, .redis_flags = "write denyoom", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "zrank",
    .summary = "Returns the index of a member in a sorted set ordered by ascending scores.",
    .since = "2.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N))",
    .history = HISTORY(
        {"7.2.0", "Added the optional `WITHSCORE` argument."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING},
        {.name = "withscore", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORE", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrem",
    .summary = "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple elements."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write fast", .redis_acl = "@write @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zremrangebylex",
    .summary = "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.",
    .since = "2.8.9",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "min", .type = ARG_TYPE_STRING},
        {.name = "max", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zremrangebyrank",
    .summary = "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.",
    .since = "2.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_INTEGER},
        {.name = "stop", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 4, .redis_flags = "write", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zremrangebyscore",
    .summary = "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "min", .type = ARG_TYPE_DOUBLE},
        {.name = "max", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = 4, .redis_flags = "write", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrevrange",
    .summary = "Returns members in a sorted set within a range of indexes in reverse order.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`ZRANGE` with the `REV` argument",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_INTEGER},
        {.name = "stop", .type = ARG_TYPE_INTEGER},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrevrangebylex",
    .summary = "Returns members in a sorted set within a lexicographical range in reverse order.",
    .since = "2.8.9",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`ZRANGE` with the `REV` and `BYLEX` arguments",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "max", .type = ARG_TYPE_STRING},
        {.name = "min", .type = ARG_TYPE_STRING},
        {.name = "offset_count", .type = ARG_TYPE_BLOCK, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "offset", .type = ARG_TYPE_INTEGER},
            {.name = "count", .type = ARG_TYPE_INTEGER})}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrevrangebyscore",
    .summary = "Returns members in a sorted set within a range of scores in reverse order.",
    .since = "2.2.0",
    .group = "sorted-set",
    .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`ZRANGE` with the `REV` and `BYSCORE` arguments",
    .history = HISTORY(
        {"2.1.6", "`min` and `max` can be exclusive."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "max", .type = ARG_TYPE_DOUBLE},
        {.name = "min", .type = ARG_TYPE_DOUBLE},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL},
        {.name = "offset_count", .type = ARG_TYPE_BLOCK, .token = "LIMIT", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "offset", .type = ARG_TYPE_INTEGER},
            {.name = "count", .type = ARG_TYPE_INTEGER})}),
    .redis_arity = -4, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zrevrank",
    .summary = "Returns the index of a member in a sorted set ordered by descending scores.",
    .since = "2.0.0",
    .group = "sorted-set",
    .complexity = "O(log(N))",
    .history = HISTORY(
        {"7.2.0", "Added the optional `WITHSCORE` argument."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING},
        {.name = "withscore", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORE", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zscan",
    .summary = "Iterates over members and scores of a sorted set.",
    .since = "2.8.0",
    .group = "sorted-set",
    .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
    .tips = TIPS("nondeterministic_output"),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "cursor", .type = ARG_TYPE_INTEGER},
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .token = "MATCH", .flags = CMD_ARG_OPTIONAL},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zscore",
    .summary = "Returns the score of a member in a sorted set.",
    .since = "1.2.0",
    .group = "sorted-set",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "member", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "readonly fast", .redis_acl = "@read @sortedset @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "zunion",
    .summary = "Returns the union of multiple sorted sets.",
    .since = "6.2.0",
    .group = "sorted-set",
    .complexity = "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "weight", .type = ARG_TYPE_INTEGER, .token = "WEIGHTS", .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE},
        {.name = "aggregate", .type = ARG_TYPE_ONEOF, .token = "AGGREGATE", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "sum", .type = ARG_TYPE_PURE_TOKEN, .token = "SUM"},
            {.name = "min", .type = ARG_TYPE_PURE_TOKEN, .token = "MIN"},
            {.name = "max", .type = ARG_TYPE_PURE_TOKEN, .token = "MAX"})},
        {.name = "withscores", .type = ARG_TYPE_PURE_TOKEN, .token = "WITHSCORES", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly movablekeys", .redis_acl = "@read @sortedset @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "zunionstore",
    .summary = "Stores the union of multiple sorted sets in a key.",
    .since = "2.0.0",
    .group = "sorted-set",
    .complexity = "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_OW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 1, .flags = CMD_ARG_MULTIPLE},
        {.name = "weight", .type = ARG_TYPE_INTEGER, .token = "WEIGHTS", .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE},
        {.name = "aggregate", .type = ARG_TYPE_ONEOF, .token = "AGGREGATE", .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "sum", .type = ARG_TYPE_PURE_TOKEN, .token = "SUM"},
            {.name = "min", .type = ARG_TYPE_PURE_TOKEN, .token = "MIN"},
            {.name = "max", .type = ARG_TYPE_PURE_TOKEN, .token = "MAX"})}),
    .redis_arity = -4, .redis_flags = "write denyoom movablekeys", .redis_acl = "@write @sortedset @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{0},
};
