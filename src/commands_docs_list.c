/* commands_docs_list.c -- COMMAND DOCS entries of the list commands
 * (t_list.c), in commands_docs.h's structures: what Redis publishes about
 * them (summary, history, key specs, arguments), as redis-server 7.0
 * reports them with COMMAND DOCS and COMMAND INFO (less the noscript flag
 * of the blocking commands, which 7.2 dropped), with 7.2's reworded
 * summaries. Sorted by name. */
#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

const commandDoc listCommandDocsTable[] = {
{
    .name = "blmove",
    .summary = "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.",
    .since = "6.2.0",
    .group = "list",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "source", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 1},
        {.name = "wherefrom", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "left", .type = ARG_TYPE_PURE_TOKEN, .token = "LEFT"},
            {.name = "right", .type = ARG_TYPE_PURE_TOKEN, .token = "RIGHT"})},
        {.name = "whereto", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "left", .type = ARG_TYPE_PURE_TOKEN, .token = "LEFT"},
            {.name = "right", .type = ARG_TYPE_PURE_TOKEN, .token = "RIGHT"})},
        {.name = "timeout", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = 6, .redis_flags = "write denyoom blocking", .redis_acl = "@write @list @slow @blocking",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "blmpop",
    .summary = "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
    .since = "7.0.0",
    .group = "list",
    .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "timeout", .type = ARG_TYPE_DOUBLE},
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "where", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "left", .type = ARG_TYPE_PURE_TOKEN, .token = "LEFT"},
            {.name = "right", .type = ARG_TYPE_PURE_TOKEN, .token = "RIGHT"})},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -5, .redis_flags = "write blocking movablekeys", .redis_acl = "@write @list @slow @blocking",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "blpop",
    .summary = "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
    .since = "2.0.0",
    .group = "list",
    .complexity = "O(N) where N is the number of provided keys.",
    .history = HISTORY(
        {"6.0.0", "`timeout` is interpreted as a double instead of an integer."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-2, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "timeout", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = -3, .redis_flags = "write blocking", .redis_acl = "@write @list @slow @blocking",
    .redis_firstkey = 1, .redis_lastkey = -2, .redis_keystep = 1},
{
    .name = "brpop",
    .summary = "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
    .since = "2.0.0",
    .group = "list",
    .complexity = "O(N) where N is the number of provided keys.",
    .history = HISTORY(
        {"6.0.0", "`timeout` is interpreted as a double instead of an integer."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-2, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "timeout", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = -3, .redis_flags = "write blocking", .redis_acl = "@write @list @slow @blocking",
    .redis_firstkey = 1, .redis_lastkey = -2, .redis_keystep = 1},
{
    .name = "brpoplpush",
    .summary = "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.",
    .since = "2.2.0",
    .group = "list",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`BLMOVE` with the `RIGHT` and `LEFT` arguments",
    .history = HISTORY(
        {"6.0.0", "`timeout` is interpreted as a double instead of an integer."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "source", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 1},
        {.name = "timeout", .type = ARG_TYPE_DOUBLE}),
    .redis_arity = 4, .redis_flags = "write denyoom blocking", .redis_acl = "@write @list @slow @blocking",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "lindex",
    .summary = "Returns an element from a list by its index.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "index", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 3, .redis_flags = "readonly", .redis_acl = "@read @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "linsert",
    .summary = "Inserts an element before or after another element in a list.",
    .since = "2.2.0",
    .group = "list",
    .complexity = "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "where", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "before", .type = ARG_TYPE_PURE_TOKEN, .token = "BEFORE"},
            {.name = "after", .type = ARG_TYPE_PURE_TOKEN, .token = "AFTER"})},
        {.name = "pivot", .type = ARG_TYPE_STRING},
        {.name = "element", .type = ARG_TYPE_STRING}),
    .redis_arity = 5, .redis_flags = "write denyoom", .redis_acl = "@write @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "llen",
    .summary = "Returns the length of a list.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0}),
    .redis_arity = 2, .redis_flags = "readonly fast", .redis_acl = "@read @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lmove",
    .summary = "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.",
    .since = "6.2.0",
    .group = "list",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "source", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 1},
        {.name = "wherefrom", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "left", .type = ARG_TYPE_PURE_TOKEN, .token = "LEFT"},
            {.name = "right", .type = ARG_TYPE_PURE_TOKEN, .token = "RIGHT"})},
        {.name = "whereto", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "left", .type = ARG_TYPE_PURE_TOKEN, .token = "LEFT"},
            {.name = "right", .type = ARG_TYPE_PURE_TOKEN, .token = "RIGHT"})}),
    .redis_arity = 5, .redis_flags = "write denyoom", .redis_acl = "@write @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "lmpop",
    .summary = "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.",
    .since = "7.0.0",
    .group = "list",
    .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {0, 1, 1}}),
    .args = ARGS(
        {.name = "numkeys", .type = ARG_TYPE_INTEGER},
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0, .flags = CMD_ARG_MULTIPLE},
        {.name = "where", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "left", .type = ARG_TYPE_PURE_TOKEN, .token = "LEFT"},
            {.name = "right", .type = ARG_TYPE_PURE_TOKEN, .token = "RIGHT"})},
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -4, .redis_flags = "write movablekeys", .redis_acl = "@write @list @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "lpop",
    .summary = "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(N) where N is the number of elements returned",
    .history = HISTORY(
        {"6.2.0", "Added the `count` argument."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .since = "6.2.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lpos",
    .summary = "Returns the index of matching elements in a list.",
    .since = "6.0.6",
    .group = "list",
    .complexity = "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "element", .type = ARG_TYPE_STRING},
        {.name = "rank", .type = ARG_TYPE_INTEGER, .token = "RANK", .flags = CMD_ARG_OPTIONAL},
        {.name = "num-matches", .type = ARG_TYPE_INTEGER, .token = "COUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "len", .type = ARG_TYPE_INTEGER, .token = "MAXLEN", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -3, .redis_flags = "readonly", .redis_acl = "@read @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lpush",
    .summary = "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple `element` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "element", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom fast", .redis_acl = "@write @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lpushx",
    .summary = "Prepends one or more elements to a list only when the list exists.",
    .since = "2.2.0",
    .group = "list",
    .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
    .history = HISTORY(
        {"4.0.0", "Accepts multiple `element` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "element", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom fast", .redis_acl = "@write @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lrange",
    .summary = "Returns a range of elements from a list.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RO|KSPEC_ACCESS, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_INTEGER},
        {.name = "stop", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 4, .redis_flags = "readonly", .redis_acl = "@read @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lrem",
    .summary = "Removes elements from a list. Deletes the list if the last element was removed.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(N+M) where N is the length of the list and M is the number of elements removed.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER},
        {.name = "element", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write", .redis_acl = "@write @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "lset",
    .summary = "Sets the value of an element in a list by its index.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "index", .type = ARG_TYPE_INTEGER},
        {.name = "element", .type = ARG_TYPE_STRING}),
    .redis_arity = 4, .redis_flags = "write denyoom", .redis_acl = "@write @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "ltrim",
    .summary = "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(N) where N is the number of elements to be removed by the operation.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "start", .type = ARG_TYPE_INTEGER},
        {.name = "stop", .type = ARG_TYPE_INTEGER}),
    .redis_arity = 4, .redis_flags = "write", .redis_acl = "@write @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "rpop",
    .summary = "Returns and removes the last elements of a list. Deletes the list if the last element was popped.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(N) where N is the number of elements returned",
    .history = HISTORY(
        {"6.2.0", "Added the `count` argument."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "count", .type = ARG_TYPE_INTEGER, .since = "6.2.0", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "rpoplpush",
    .summary = "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.",
    .since = "1.2.0",
    .group = "list",
    .complexity = "O(1)",
    .doc_flags = CMD_DOC_DEPRECATED,
    .deprecated_since = "6.2.0",
    .replaced_by = "`LMOVE` with the `RIGHT` and `LEFT` arguments",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_ACCESS|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}},
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {2}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "source", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "destination", .type = ARG_TYPE_KEY, .key_spec_index = 1}),
    .redis_arity = 3, .redis_flags = "write denyoom", .redis_acl = "@write @list @slow",
    .redis_firstkey = 1, .redis_lastkey = 2, .redis_keystep = 1},
{
    .name = "rpush",
    .summary = "Appends one or more elements to a list. Creates the key if it doesn't exist.",
    .since = "1.0.0",
    .group = "list",
    .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
    .history = HISTORY(
        {"2.4.0", "Accepts multiple `element` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "element", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom fast", .redis_acl = "@write @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "rpushx",
    .summary = "Appends an element to a list only when the list exists.",
    .since = "2.2.0",
    .group = "list",
    .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
    .history = HISTORY(
        {"4.0.0", "Accepts multiple `element` arguments."}),
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_INSERT, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "element", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -3, .redis_flags = "write denyoom fast", .redis_acl = "@write @list @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{0},
};
