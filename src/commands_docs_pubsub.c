/* commands_docs_pubsub.c -- COMMAND DOCS and COMMAND INFO data of the pub/sub commands (pubsub.c).
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
const commandDoc pubsubCommandDocsTable[] = {
{
    .name = "psubscribe",
    .summary = "Listens for messages published to channels that match one or more patterns.",
    .since = "2.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of patterns the client is already subscribed to.",
    .args = ARGS(
        {.name = "pattern", .type = ARG_TYPE_BLOCK, .flags = CMD_ARG_MULTIPLE,
         .subargs = ARGS(
            {.name = "pattern", .type = ARG_TYPE_PATTERN})}),
    .redis_arity = -2, .redis_flags = "pubsub noscript loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "publish",
    .summary = "Posts a message to a channel.",
    .since = "2.0.0",
    .group = "pubsub",
    .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
    .args = ARGS(
        {.name = "channel", .type = ARG_TYPE_STRING},
        {.name = "message", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "pubsub loading stale fast", .redis_acl = "@pubsub @fast",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub",
    .summary = "A container for Pub/Sub commands.",
    .since = "2.8.0",
    .group = "pubsub",
    .complexity = "Depends on subcommand.",
    .redis_arity = -2, .redis_flags = "", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub|channels",
    .summary = "Returns the active channels.",
    .since = "2.8.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
    .args = ARGS(
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "pubsub loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub|help",
    .summary = "Returns helpful text about the different subcommands.",
    .since = "6.2.0",
    .group = "pubsub",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "loading stale", .redis_acl = "@slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub|numpat",
    .summary = "Returns a count of unique pattern subscriptions.",
    .since = "2.8.0",
    .group = "pubsub",
    .complexity = "O(1)",
    .redis_arity = 2, .redis_flags = "pubsub loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub|numsub",
    .summary = "Returns a count of subscribers to channels.",
    .since = "2.8.0",
    .group = "pubsub",
    .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
    .args = ARGS(
        {.name = "channel", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "pubsub loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub|shardchannels",
    .summary = "Returns the active shard channels.",
    .since = "7.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).",
    .args = ARGS(
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .flags = CMD_ARG_OPTIONAL}),
    .redis_arity = -2, .redis_flags = "pubsub loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "pubsub|shardnumsub",
    .summary = "Returns the count of subscribers of shard channels.",
    .since = "7.0.0",
    .group = "pubsub",
    .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
    .args = ARGS(
        {.name = "shardchannel", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "pubsub loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "punsubscribe",
    .summary = "Stops listening to messages published to channels that match one or more patterns.",
    .since = "2.0.0",
    .group = "pubsub",
    .complexity = "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).",
    .args = ARGS(
        {.name = "pattern", .type = ARG_TYPE_PATTERN, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -1, .redis_flags = "pubsub noscript loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "spublish",
    .summary = "Post a message to a shard channel",
    .since = "7.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_NOT_KEY, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {0, 1, 0}}),
    .args = ARGS(
        {.name = "shardchannel", .type = ARG_TYPE_STRING},
        {.name = "message", .type = ARG_TYPE_STRING}),
    .redis_arity = 3, .redis_flags = "pubsub loading stale fast", .redis_acl = "@pubsub @fast",
    .redis_firstkey = 1, .redis_lastkey = 1, .redis_keystep = 1},
{
    .name = "ssubscribe",
    .summary = "Listens for messages published to shard channels.",
    .since = "7.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of shard channels to subscribe to.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_NOT_KEY, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "shardchannel", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "pubsub noscript loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "subscribe",
    .summary = "Listens for messages published to channels.",
    .since = "2.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of channels to subscribe to.",
    .args = ARGS(
        {.name = "channel", .type = ARG_TYPE_STRING, .flags = CMD_ARG_MULTIPLE}),
    .redis_arity = -2, .redis_flags = "pubsub noscript loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{
    .name = "sunsubscribe",
    .summary = "Stops listening to messages posted to shard channels.",
    .since = "7.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of clients already subscribed to a shard channel.",
    .key_specs = KEYSPECS(
        {.flags = KSPEC_NOT_KEY, .bs_type = KSPEC_BS_INDEX, .bs.index = {1}, .fk_type = KSPEC_FK_RANGE, .fk.range = {-1, 1, 0}}),
    .args = ARGS(
        {.name = "shardchannel", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -1, .redis_flags = "pubsub noscript loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 1, .redis_lastkey = -1, .redis_keystep = 1},
{
    .name = "unsubscribe",
    .summary = "Stops listening to messages posted to channels.",
    .since = "2.0.0",
    .group = "pubsub",
    .complexity = "O(N) where N is the number of clients already subscribed to a channel.",
    .args = ARGS(
        {.name = "channel", .type = ARG_TYPE_STRING, .flags = CMD_ARG_OPTIONAL|CMD_ARG_MULTIPLE}),
    .redis_arity = -1, .redis_flags = "pubsub noscript loading stale", .redis_acl = "@pubsub @slow",
    .redis_firstkey = 0, .redis_lastkey = 0, .redis_keystep = 0},
{0},
};
/* clang-format on */
