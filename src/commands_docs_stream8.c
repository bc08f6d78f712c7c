/* commands_docs_stream8.c -- COMMAND DOCS and COMMAND INFO data of the
 * stream commands Redis 8 added (t_stream.c, t_stream_idmp.c).
 *
 * Transcribed from the command JSON files of Redis's source tree
 * (src/commands/xdelex.json, xackdel.json, xcfgset.json) and the
 * redis.io command pages; there is no Redis 8 server here to compare with.
 * The Redis 8 options of older commands (XADD, XTRIM) are in
 * commands_docs.c with those commands. Sorted by full name (binary
 * search); listed in commandDocsTables[] (commands_docs.c). */
#include <stddef.h>

#include "commands_docs.h"

#define ARGS(...) ((const commandArg[]){__VA_ARGS__, {0}})
#define HISTORY(...) ((const commandHistory[]){__VA_ARGS__, {0}})
#define TIPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KEYSPECS(...) ((const keySpec[]){__VA_ARGS__, {0}})

/* The "[KEEPREF | DELREF | ACKED]" argument of XDELEX and XACKDEL. */
#define REF_CONDITION_ARG                                                                                  \
    {.name = "condition", .type = ARG_TYPE_ONEOF, .flags = CMD_ARG_OPTIONAL,                              \
     .subargs = ARGS({.name = "keepref", .type = ARG_TYPE_PURE_TOKEN, .token = "KEEPREF"},                \
                     {.name = "delref", .type = ARG_TYPE_PURE_TOKEN, .token = "DELREF"},                  \
                     {.name = "acked", .type = ARG_TYPE_PURE_TOKEN, .token = "ACKED"})}

/* "IDS numids id [id ...]" */
#define IDS_BLOCK_ARG                                                                                      \
    {.name = "ids", .type = ARG_TYPE_BLOCK, .token = "IDS",                                               \
     .subargs = ARGS({.name = "numids", .type = ARG_TYPE_INTEGER},                                        \
                     {.name = "id", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE})}

/* clang-format off */
const commandDoc stream8CommandDocsTable[] = {
{
    .name = "xackdel",
    .summary = "Acknowledges and conditionally deletes one or multiple entries for a stream consumer group.",
    .since = "8.2.0",
    .group = "stream",
    .complexity = "O(1) for each entry ID processed.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        REF_CONDITION_ARG,
        IDS_BLOCK_ARG),
    .redis_arity = -6, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xcfgset",
    .summary = "Sets the IDMP configuration parameters for a stream.",
    .since = "8.6.0",
    .group = "stream",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "idmp-duration-block", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "idmp-duration-token", .type = ARG_TYPE_PURE_TOKEN, .token = "IDMP-DURATION"},
            {.name = "duration", .type = ARG_TYPE_INTEGER})},
        {.name = "idmp-maxsize-block", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_OPTIONAL,
         .subargs = ARGS(
            {.name = "idmp-maxsize-token", .type = ARG_TYPE_PURE_TOKEN, .token = "IDMP-MAXSIZE"},
            {.name = "maxsize", .type = ARG_TYPE_INTEGER})}),
    .redis_arity = -2, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xdeadletter",
    .summary = "casq: sets or removes a consumer group's dead-letter policy (entries delivered more than max-deliveries times, or rejected with XNACK FATAL, move to another stream).",
    .since = "0.1.0",
    .group = "stream",
    .complexity = "O(1)",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        {.name = "policy", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "target", .type = ARG_TYPE_BLOCK,
             .subargs = ARGS(
                {.name = "dlq-key", .type = ARG_TYPE_STRING},
                {.name = "max-deliveries", .type = ARG_TYPE_INTEGER})},
            {.name = "off", .type = ARG_TYPE_PURE_TOKEN, .token = "OFF"})}),
    .redis_arity = -4, .redis_flags = "write denyoom", .redis_acl = "@write @stream @slow",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xdelex",
    .summary = "Deletes one or multiple entries from the stream, with control over the consumer groups' references to them.",
    .since = "8.2.0",
    .group = "stream",
    .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_DELETE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        REF_CONDITION_ARG,
        IDS_BLOCK_ARG),
    .redis_arity = -5, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "xnack",
    .summary = "Releases pending messages back to the group's PEL without acknowledging them, making them available for re-delivery.",
    .since = "8.8.0",
    .group = "stream",
    .complexity = "O(1) for each message ID processed.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_RW|KSPEC_UPDATE, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "key", .type = ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "group", .type = ARG_TYPE_STRING},
        {.name = "mode", .type = ARG_TYPE_ONEOF,
         .subargs = ARGS(
            {.name = "silent", .type = ARG_TYPE_PURE_TOKEN, .token = "SILENT"},
            {.name = "fail", .type = ARG_TYPE_PURE_TOKEN, .token = "FAIL"},
            {.name = "fatal", .type = ARG_TYPE_PURE_TOKEN, .token = "FATAL"})},
        IDS_BLOCK_ARG,
        {.name = "count", .type = ARG_TYPE_INTEGER, .token = "RETRYCOUNT", .flags = CMD_ARG_OPTIONAL},
        {.name = "force", .type = ARG_TYPE_PURE_TOKEN, .token = "FORCE", .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -7, .redis_flags = "write fast", .redis_acl = "@write @stream @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{0},
};
