/* command.c -- the COMMAND command: introspection of the command table.
 *
 * COMMAND, COMMAND INFO and COMMAND DOCS answer with exactly the shapes of
 * Redis 7.2, because clients depend on them: redis-cli builds its hints from
 * COMMAND DOCS, cluster-aware clients and proxies read key specs and flags
 * from COMMAND INFO. What is reported comes from two places: the command
 * rows themselves (arity, flags, ACL categories: what casq enforces) and the
 * documentation entries of commands_docs.c (summary, arguments, key specs,
 * tips: what Redis publishes). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands_docs.h"
#include "server.h"

/* ------------------------------------------------------------------------
 * Names of flags and categories
 * --------------------------------------------------------------------- */

typedef struct flagName {
    uint64_t flag;
    const char *name;
} flagName;

/* Command flags in Redis's COMMAND INFO order. Flags Redis hides on
 * purpose (may_replicate, sentinel, only_sentinel, protected) are left out
 * here too. */
static const flagName commandFlagNames[] = {
    {CMD_WRITE, "write"},
    {CMD_READONLY, "readonly"},
    {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},
    {CMD_PUBSUB, "pubsub"},
    {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"},
    {CMD_LOADING, "loading"},
    {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"},
    {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_ASKING, "asking"},
    {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},
    {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NO_ASYNC_LOADING, "no_async_loading"},
    {CMD_NO_MULTI, "no_multi"},
    {CMD_MOVABLE_KEYS, "movablekeys"},
    {CMD_ALLOW_BUSY, "allow_busy"},
    {0, NULL}};

static const flagName keySpecFlagNames[] = {
    {KSPEC_RO, "RO"},
    {KSPEC_RW, "RW"},
    {KSPEC_OW, "OW"},
    {KSPEC_RM, "RM"},
    {KSPEC_ACCESS, "access"},
    {KSPEC_UPDATE, "update"},
    {KSPEC_INSERT, "insert"},
    {KSPEC_DELETE, "delete"},
    {KSPEC_NOT_KEY, "not_key"},
    {KSPEC_INCOMPLETE, "incomplete"},
    {KSPEC_VARIABLE_FLAGS, "variable_flags"},
    {0, NULL}};

static const flagName argFlagNames[] = {
    {CMD_ARG_OPTIONAL, "optional"},
    {CMD_ARG_MULTIPLE, "multiple"},
    {CMD_ARG_MULTIPLE_TOKEN, "multiple_token"},
    {0, NULL}};

static const flagName docFlagNames[] = {
    {CMD_DOC_DEPRECATED, "deprecated"},
    {CMD_DOC_SYSCMD, "syscmd"},
    {0, NULL}};

/* ACL categories, in Redis's order (which is the order COMMAND INFO lists
 * them in). A command's categories are a bitmap over this table. */
static const char *aclCategoryNames[] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash",
    "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin",
    "fast", "slow", "blocking", "dangerous", "connection", "transaction",
    "scripting", NULL};

static int aclCategoryIndex(const char *name, size_t len) {
    for (int j = 0; aclCategoryNames[j]; j++) {
        if (strlen(aclCategoryNames[j]) == len && !strncasecmp(aclCategoryNames[j], name, len)) return j;
    }
    return -1;
}

/* The categories of a command as Redis computes them: the ones its table
 * row names, plus those implied by its flags (setImplicitACLCategories). */
static uint64_t commandAclCategories(struct redisCommand *cmd) {
    uint64_t cats = 0;
    const char *p = cmd->acl_categories ? cmd->acl_categories : "";

    while (*p) {
        while (*p == ' ') p++;
        if (*p == '@') p++;
        const char *start = p;
        while (*p && *p != ' ') p++;
        int idx = aclCategoryIndex(start, p - start);
        if (idx >= 0) cats |= 1ULL << idx;
    }
    if (cmd->flags & CMD_WRITE) cats |= 1ULL << aclCategoryIndex("write", 5);
    if (cmd->flags & CMD_READONLY && !(cats & (1ULL << aclCategoryIndex("scripting", 9))))
        cats |= 1ULL << aclCategoryIndex("read", 4);
    if (cmd->flags & CMD_ADMIN) {
        cats |= 1ULL << aclCategoryIndex("admin", 5);
        cats |= 1ULL << aclCategoryIndex("dangerous", 9);
    }
    if (cmd->flags & CMD_PUBSUB) cats |= 1ULL << aclCategoryIndex("pubsub", 6);
    if (cmd->flags & CMD_FAST) cats |= 1ULL << aclCategoryIndex("fast", 4);
    if (cmd->flags & CMD_BLOCKING) cats |= 1ULL << aclCategoryIndex("blocking", 8);
    if (!(cats & (1ULL << aclCategoryIndex("fast", 4)))) cats |= 1ULL << aclCategoryIndex("slow", 4);
    return cats;
}

/* For acl.c: a command's category bitmap, and a category's bit by name
 * (-1 if unknown). */
uint64_t commandAclCategoryBits(struct redisCommand *cmd) { return commandAclCategories(cmd); }

int aclCategoryBitByName(const char *name, size_t len) { return aclCategoryIndex(name, len); }

const char *aclCategoryNameByBit(int bit) {
    int n = 0;
    while (aclCategoryNames[n]) n++;
    return bit >= 0 && bit < n ? aclCategoryNames[bit] : NULL;
}

/* Redis adds "movablekeys" to any command whose keys cannot be found at
 * fixed positions: a key spec that is not "index + range". */
static uint64_t commandReportedFlags(struct redisCommand *cmd) {
    uint64_t flags = cmd->flags;
    const keySpec *ks = cmd->doc ? cmd->doc->key_specs : NULL;
    for (int j = 0; ks && ks[j].bs_type != KSPEC_BS_INVALID; j++) {
        if (ks[j].bs_type != KSPEC_BS_INDEX || ks[j].fk_type != KSPEC_FK_RANGE) flags |= CMD_MOVABLE_KEYS;
    }
    return flags;
}

static void addReplyFlagSet(client *c, uint64_t flags, const flagName *names) {
    int count = 0;
    for (int j = 0; names[j].name; j++)
        if (flags & names[j].flag) count++;
    addReplySetLen(c, count);
    for (int j = 0; names[j].name; j++)
        if (flags & names[j].flag) addReplyStatus(c, names[j].name);
}

/* Space-separated COMMAND INFO flags and ACL categories of a command, as
 * COMMAND INFO reports them (the unit tests compare them with Redis's). */
sds catCommandFlagNames(sds s, struct redisCommand *cmd) {
    uint64_t flags = commandReportedFlags(cmd);
    int n = 0;
    for (int j = 0; commandFlagNames[j].name; j++)
        if (flags & commandFlagNames[j].flag) s = sdscatprintf(s, "%s%s", n++ ? " " : "", commandFlagNames[j].name);
    return s;
}

sds catCommandAclCategories(sds s, struct redisCommand *cmd) {
    uint64_t cats = commandAclCategories(cmd);
    int n = 0;
    for (int j = 0; aclCategoryNames[j]; j++)
        if (cats & (1ULL << j)) s = sdscatprintf(s, "%s@%s", n++ ? " " : "", aclCategoryNames[j]);
    return s;
}

/* ------------------------------------------------------------------------
 * Looking commands up by name
 * --------------------------------------------------------------------- */

static struct redisCommand *findSubcommand(struct redisCommand *parent, const char *name, size_t len) {
    if (!parent->subcommands) return NULL;
    for (struct redisCommand *sub = parent->subcommands; sub->name; sub++) {
        if (strlen(sub->name) == len && !strncasecmp(sub->name, name, len)) return sub;
    }
    return NULL;
}

/* Finds a command by name as COMMAND INFO/DOCS accept it: "xadd" or a
 * full subcommand name "xgroup|create" (any case). */
static struct redisCommand *lookupCommandByFullName(const char *name) {
    const char *bar = strchr(name, '|');
    if (!bar) return lookupCommandByCString(name);

    sds parent_name = sdsnewlen(name, bar - name);
    struct redisCommand *parent = lookupCommandByCString(parent_name);
    sdsfree(parent_name);
    if (!parent) return NULL;
    if (strchr(bar + 1, '|')) return NULL; /* one level of subcommands only */
    return findSubcommand(parent, bar + 1, strlen(bar + 1));
}

/* Resolves argv the way the dispatcher does: a container with at least one
 * more argument resolves to its subcommand (NULL if there is none). */
static struct redisCommand *lookupCommandFromArgv(sds *argv, int argc) {
    struct redisCommand *cmd = lookupCommandByCString(argv[0]);
    if (!cmd || !cmd->subcommands || argc < 2) return cmd;
    return findSubcommand(cmd, argv[1], sdslen(argv[1]));
}

/* Writes the full name of cmd ("xgroup|create") into buf. */
static const char *commandFullName(struct redisCommand *cmd, char *buf, size_t len) {
    if (cmd->fullname) return cmd->fullname;
    if (!cmd->parent) return cmd->name;
    snprintf(buf, len, "%s|%s", cmd->parent->name, cmd->name);
    return buf;
}

static int subcommandCount(struct redisCommand *cmd) {
    int n = 0;
    if (cmd->subcommands)
        while (cmd->subcommands[n].name) n++;
    return n;
}

/* ------------------------------------------------------------------------
 * COMMAND INFO
 * --------------------------------------------------------------------- */

/* One half of a key spec (begin_search or find_keys): its type name and a
 * "spec" map of `fields` entries, which the caller then fills. */
static void addReplyKeySpecPart(client *c, const char *part, const char *type, long fields) {
    addReplyBulkCString(c, part);
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "type");
    addReplyBulkCString(c, type);
    addReplyBulkCString(c, "spec");
    addReplyMapLen(c, fields);
}

static void addReplyKeySpecs(client *c, const keySpec *ks) {
    int n = keySpecsCount(ks);

    addReplySetLen(c, n);
    for (int j = 0; j < n; j++) {
        const keySpec *spec = &ks[j];
        addReplyMapLen(c, spec->notes ? 4 : 3);
        if (spec->notes) {
            addReplyBulkCString(c, "notes");
            addReplyBulkCString(c, spec->notes);
        }
        addReplyBulkCString(c, "flags");
        addReplyFlagSet(c, spec->flags, keySpecFlagNames);

        switch (spec->bs_type) {
        case KSPEC_BS_INDEX:
            addReplyKeySpecPart(c, "begin_search", "index", 1);
            addReplyBulkCString(c, "index");
            addReplyLongLong(c, spec->bs.index.pos);
            break;
        case KSPEC_BS_KEYWORD:
            addReplyKeySpecPart(c, "begin_search", "keyword", 2);
            addReplyBulkCString(c, "keyword");
            addReplyBulkCString(c, spec->bs.keyword.keyword);
            addReplyBulkCString(c, "startfrom");
            addReplyLongLong(c, spec->bs.keyword.startfrom);
            break;
        default: addReplyKeySpecPart(c, "begin_search", "unknown", 0); break;
        }

        switch (spec->fk_type) {
        case KSPEC_FK_RANGE:
            addReplyKeySpecPart(c, "find_keys", "range", 3);
            addReplyBulkCString(c, "lastkey");
            addReplyLongLong(c, spec->fk.range.lastkey);
            addReplyBulkCString(c, "keystep");
            addReplyLongLong(c, spec->fk.range.keystep);
            addReplyBulkCString(c, "limit");
            addReplyLongLong(c, spec->fk.range.limit);
            break;
        case KSPEC_FK_KEYNUM:
            addReplyKeySpecPart(c, "find_keys", "keynum", 3);
            addReplyBulkCString(c, "keynumidx");
            addReplyLongLong(c, spec->fk.keynum.keynumidx);
            addReplyBulkCString(c, "firstkey");
            addReplyLongLong(c, spec->fk.keynum.firstkey);
            addReplyBulkCString(c, "keystep");
            addReplyLongLong(c, spec->fk.keynum.keystep);
            break;
        default: addReplyKeySpecPart(c, "find_keys", "unknown", 0); break;
        }
    }
}

static void addReplyCommandInfo(client *c, struct redisCommand *cmd) {
    char buf[128];

    if (!cmd) {
        addReplyNull(c);
        return;
    }
    const commandDoc *doc = cmd->doc;
    addReplyArrayLen(c, 10);
    addReplyBulkCString(c, commandFullName(cmd, buf, sizeof(buf)));
    addReplyLongLong(c, cmd->arity);
    addReplyFlagSet(c, commandReportedFlags(cmd), commandFlagNames);
    addReplyLongLong(c, cmd->firstkey);
    addReplyLongLong(c, cmd->lastkey);
    addReplyLongLong(c, cmd->keystep);

    uint64_t cats = commandAclCategories(cmd);
    int ncats = 0;
    for (int j = 0; aclCategoryNames[j]; j++)
        if (cats & (1ULL << j)) ncats++;
    addReplySetLen(c, ncats);
    for (int j = 0; aclCategoryNames[j]; j++) {
        if (!(cats & (1ULL << j))) continue;
        char cat[32];
        snprintf(cat, sizeof(cat), "@%s", aclCategoryNames[j]);
        addReplyStatus(c, cat);
    }

    int ntips = 0;
    if (doc && doc->tips)
        while (doc->tips[ntips]) ntips++;
    addReplySetLen(c, ntips);
    for (int j = 0; j < ntips; j++) addReplyBulkCString(c, doc->tips[j]);

    addReplyKeySpecs(c, doc ? doc->key_specs : NULL);

    if (!cmd->subcommands) {
        addReplySetLen(c, 0);
        return;
    }
    addReplyArrayLen(c, subcommandCount(cmd));
    for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) addReplyCommandInfo(c, sub);
}

/* ------------------------------------------------------------------------
 * COMMAND DOCS
 * --------------------------------------------------------------------- */

static int argListCount(const commandArg *args) {
    int n = 0;
    if (args)
        while (args[n].name) n++;
    return n;
}

static void addReplyCommandArgList(client *c, const commandArg *args) {
    int n = argListCount(args);

    addReplyArrayLen(c, n);
    for (int j = 0; j < n; j++) {
        const commandArg *a = &args[j];
        int is_container = a->type == ARG_TYPE_ONEOF || a->type == ARG_TYPE_BLOCK;
        long maplen = 2 + (a->display_text != NULL) + (a->type == ARG_TYPE_KEY) + (a->token != NULL) +
                      (a->summary != NULL) + (a->since != NULL) + (a->deprecated_since != NULL) +
                      (a->flags != 0) + is_container;

        addReplyMapLen(c, maplen);
        addReplyBulkCString(c, "name");
        addReplyBulkCString(c, a->name);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, commandArgTypeName(a->type));
        if (a->display_text) {
            addReplyBulkCString(c, "display_text");
            addReplyBulkCString(c, a->display_text);
        }
        if (a->type == ARG_TYPE_KEY) {
            addReplyBulkCString(c, "key_spec_index");
            addReplyLongLong(c, a->key_spec_index);
        }
        if (a->token) {
            addReplyBulkCString(c, "token");
            addReplyBulkCString(c, a->token);
        }
        if (a->summary) {
            addReplyBulkCString(c, "summary");
            addReplyBulkCString(c, a->summary);
        }
        if (a->since) {
            addReplyBulkCString(c, "since");
            addReplyBulkCString(c, a->since);
        }
        if (a->deprecated_since) {
            addReplyBulkCString(c, "deprecated_since");
            addReplyBulkCString(c, a->deprecated_since);
        }
        if (a->flags) {
            addReplyBulkCString(c, "flags");
            addReplyFlagSet(c, a->flags, argFlagNames);
        }
        if (is_container) {
            addReplyBulkCString(c, "arguments");
            addReplyCommandArgList(c, a->subargs);
        }
    }
}

static void addReplyCommandDocs(client *c, struct redisCommand *cmd) {
    const commandDoc *doc = cmd->doc;
    char buf[128];

    if (!doc) {
        /* Cannot happen once the tables are complete (test_commands checks
         * it); reply like Redis does for a command without docs. */
        addReplyMapLen(c, 1);
        addReplyBulkCString(c, "group");
        addReplyBulkCString(c, "generic");
        return;
    }
    int nhist = 0;
    if (doc->history)
        while (doc->history[nhist].since) nhist++;

    long maplen = 1 + (doc->summary != NULL) + (doc->since != NULL) + (doc->complexity != NULL) +
                  (doc->doc_flags != 0) + (doc->deprecated_since != NULL) + (doc->replaced_by != NULL) +
                  (nhist > 0) + (doc->args != NULL) + (cmd->subcommands != NULL);
    addReplyMapLen(c, maplen);
    if (doc->summary) {
        addReplyBulkCString(c, "summary");
        addReplyBulkCString(c, doc->summary);
    }
    if (doc->since) {
        addReplyBulkCString(c, "since");
        addReplyBulkCString(c, doc->since);
    }
    addReplyBulkCString(c, "group");
    addReplyBulkCString(c, doc->group);
    if (doc->complexity) {
        addReplyBulkCString(c, "complexity");
        addReplyBulkCString(c, doc->complexity);
    }
    if (doc->doc_flags) {
        addReplyBulkCString(c, "doc_flags");
        addReplyFlagSet(c, doc->doc_flags, docFlagNames);
    }
    if (doc->deprecated_since) {
        addReplyBulkCString(c, "deprecated_since");
        addReplyBulkCString(c, doc->deprecated_since);
    }
    if (doc->replaced_by) {
        addReplyBulkCString(c, "replaced_by");
        addReplyBulkCString(c, doc->replaced_by);
    }
    if (nhist) {
        addReplyBulkCString(c, "history");
        addReplySetLen(c, nhist);
        for (int j = 0; j < nhist; j++) {
            addReplyArrayLen(c, 2);
            addReplyBulkCString(c, doc->history[j].since);
            addReplyBulkCString(c, doc->history[j].changes);
        }
    }
    if (doc->args) {
        addReplyBulkCString(c, "arguments");
        addReplyCommandArgList(c, doc->args);
    }
    if (cmd->subcommands) {
        addReplyBulkCString(c, "subcommands");
        addReplyMapLen(c, subcommandCount(cmd));
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) {
            addReplyBulkCString(c, commandFullName(sub, buf, sizeof(buf)));
            addReplyCommandDocs(c, sub);
        }
    }
}

/* ------------------------------------------------------------------------
 * Key extraction (COMMAND GETKEYS)
 * --------------------------------------------------------------------- */

/* Where the keys of one spec start: the index of the first key, 0 if the
 * keyword was not found (the spec then contributes nothing), -1 if the spec
 * cannot be used. */
static int keySpecFirstKey(const keySpec *spec, char **argv, int argc) {
    if (spec->bs_type == KSPEC_BS_INDEX) return spec->bs.index.pos;
    if (spec->bs_type != KSPEC_BS_KEYWORD) return -1;

    int from = spec->bs.keyword.startfrom;
    int start = from > 0 ? from : argc + from;
    int end = from > 0 ? argc - 1 : 0;
    int step = start <= end ? 1 : -1;
    for (int i = start; i != end + step; i += step) {
        if (i >= argc || i < 1) break;
        if (!strcasecmp(argv[i], spec->bs.keyword.keyword)) return i + 1;
    }
    return 0;
}

int getKeysFromCommandSpecs(struct redisCommand *cmd, char **argv, int argc, keyReference **keys) {
    const keySpec *specs = cmd->doc ? cmd->doc->key_specs : NULL;
    int nspecs = keySpecsCount(specs);
    int numkeys = 0, alloc = 0;

    *keys = NULL;
    for (int j = 0; j < nspecs; j++) {
        const keySpec *spec = &specs[j];
        /* As Redis's default search: a name that is not a key (the shard
         * channels of SSUBSCRIBE/SPUBLISH) is not listed. */
        if (spec->flags & KSPEC_NOT_KEY) continue;
        int first = keySpecFirstKey(spec, argv, argc), last, step;

        if (first == 0) continue;
        if (first < 0) goto invalid;

        if (spec->fk_type == KSPEC_FK_RANGE) {
            if (spec->fk.range.lastkey >= 0) {
                last = first + spec->fk.range.lastkey;
            } else if (!spec->fk.range.limit) {
                last = argc + spec->fk.range.lastkey;
            } else {
                /* e.g. XREAD's STREAMS k1 k2 id1 id2: half the rest. */
                last = first + ((argc - first) / spec->fk.range.limit + spec->fk.range.lastkey);
            }
            step = spec->fk.range.keystep;
        } else if (spec->fk_type == KSPEC_FK_KEYNUM) {
            long long n;
            int idx = first + spec->fk.keynum.keynumidx;
            if (idx >= argc || !string2ll(argv[idx], strlen(argv[idx]), &n) || n < 0 || n > argc) goto invalid;
            first += spec->fk.keynum.firstkey;
            last = first + (int)n - 1;
            step = spec->fk.keynum.keystep;
        } else {
            goto invalid;
        }

        if (last >= argc || last < first || first >= argc || step <= 0) goto invalid;
        for (int i = first; i <= last; i += step) {
            if (numkeys == alloc) {
                alloc = alloc ? alloc * 2 : 8;
                *keys = zrealloc(*keys, sizeof(keyReference) * alloc);
            }
            (*keys)[numkeys].pos = i;
            (*keys)[numkeys].flags = spec->flags;
            numkeys++;
        }
    }
    return numkeys;

invalid:
    zfree(*keys);
    *keys = NULL;
    return -1;
}

static void getKeysSubcommandImpl(client *c, int with_flags) {
    struct redisCommand *cmd = lookupCommandFromArgv(c->argv + 2, c->argc - 2);
    int argc = c->argc - 2;
    keyReference *keys;

    if (!cmd) {
        addReplyError(c, "Invalid command specified");
        return;
    }
    /* Redis's doesCommandHaveKeys: a spec that is not flagged not_key. */
    int haskeys = 0;
    for (int j = 0; cmd->doc && j < keySpecsCount(cmd->doc->key_specs); j++)
        if (!(cmd->doc->key_specs[j].flags & KSPEC_NOT_KEY)) haskeys = 1;
    if (!haskeys) {
        addReplyError(c, "The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyError(c, "Invalid number of arguments specified for command");
        return;
    }

    int numkeys = getKeysFromCommandSpecs(cmd, c->argv + 2, argc, &keys);
    if (numkeys <= 0) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS) addReplyArrayLen(c, 0);
        else addReplyError(c, "Invalid arguments specified for command");
        zfree(keys);
        return;
    }
    addReplyArrayLen(c, numkeys);
    for (int j = 0; j < numkeys; j++) {
        sds key = c->argv[keys[j].pos + 2];
        if (!with_flags) {
            addReplyBulk(c, key, sdslen(key));
            continue;
        }
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key, sdslen(key));
        addReplyFlagSet(c, keys[j].flags, keySpecFlagNames);
    }
    zfree(keys);
}

/* ------------------------------------------------------------------------
 * COMMAND LIST
 * --------------------------------------------------------------------- */

typedef enum { LIST_FILTER_NONE, LIST_FILTER_MODULE, LIST_FILTER_ACLCAT, LIST_FILTER_PATTERN } listFilterType;

static int commandMatchesFilter(struct redisCommand *cmd, listFilterType type, sds arg) {
    char buf[128];
    switch (type) {
    case LIST_FILTER_NONE:
        return 1;
    case LIST_FILTER_MODULE:
        return 0; /* casq has no modules */
    case LIST_FILTER_ACLCAT: {
        int idx = aclCategoryIndex(arg, sdslen(arg));
        return idx >= 0 && (commandAclCategories(cmd) & (1ULL << idx));
    }
    case LIST_FILTER_PATTERN: {
        const char *name = commandFullName(cmd, buf, sizeof(buf));
        return stringmatchlen(arg, sdslen(arg), name, strlen(name), 1);
    }
    }
    return 0;
}

static void commandListCommand(client *c) {
    listFilterType type = LIST_FILTER_NONE;
    sds arg = NULL;
    char buf[128];

    if (c->argc == 5 && !strcasecmp(c->argv[2], "filterby")) {
        arg = c->argv[4];
        if (!strcasecmp(c->argv[3], "module")) type = LIST_FILTER_MODULE;
        else if (!strcasecmp(c->argv[3], "aclcat")) type = LIST_FILTER_ACLCAT;
        else if (!strcasecmp(c->argv[3], "pattern")) type = LIST_FILTER_PATTERN;
        else {
            addReplyErrorSyntax(c);
            return;
        }
    } else if (c->argc != 2) {
        addReplyErrorSyntax(c);
        return;
    }

    void *len = addReplyDeferredLen(c);
    long count = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it)) != NULL) {
        struct redisCommand *cmd = de->val;
        if (commandMatchesFilter(cmd, type, arg)) {
            addReplyBulkCString(c, cmd->name);
            count++;
        }
        if (!cmd->subcommands) continue;
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) {
            if (!commandMatchesFilter(sub, type, arg)) continue;
            addReplyBulkCString(c, commandFullName(sub, buf, sizeof(buf)));
            count++;
        }
    }
    setDeferredArrayLen(c, len, count);
}

/* ------------------------------------------------------------------------
 * The command and its subcommands
 * --------------------------------------------------------------------- */

/* COMMAND: the info of every command. */
static void commandCommand(client *c) {
    dictIterator it;
    dictEntry *de;

    addReplyArrayLen(c, dictSize(server.commands));
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it)) != NULL) addReplyCommandInfo(c, de->val);
}

static void commandCountCommand(client *c) {
    addReplyLongLong(c, dictSize(server.commands));
}

/* COMMAND INFO [name ...]: nil for names that are not commands. */
static void commandInfoCommand(client *c) {
    if (c->argc == 2) {
        commandCommand(c);
        return;
    }
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) addReplyCommandInfo(c, lookupCommandByFullName(c->argv[j]));
}

/* COMMAND DOCS [name ...]: a map from name to docs; unknown names are
 * left out. */
static void commandDocsCommand(client *c) {
    char buf[128];

    if (c->argc == 2) {
        dictIterator it;
        dictEntry *de;
        addReplyMapLen(c, dictSize(server.commands));
        dictInitIterator(&it, server.commands);
        while ((de = dictNext(&it)) != NULL) {
            struct redisCommand *cmd = de->val;
            addReplyBulkCString(c, cmd->name);
            addReplyCommandDocs(c, cmd);
        }
        return;
    }

    void *len = addReplyDeferredLen(c);
    long found = 0;
    for (int j = 2; j < c->argc; j++) {
        struct redisCommand *cmd = lookupCommandByFullName(c->argv[j]);
        if (!cmd) continue;
        addReplyBulkCString(c, commandFullName(cmd, buf, sizeof(buf)));
        addReplyCommandDocs(c, cmd);
        found++;
    }
    setDeferredMapLen(c, len, found);
}

static void commandGetKeysCommand(client *c) {
    getKeysSubcommandImpl(c, 0);
}

static void commandGetKeysAndFlagsCommand(client *c) {
    getKeysSubcommandImpl(c, 1);
}

static void commandHelpCommand(client *c) {
    const char *help[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        NULL};
    addReplyHelp(c, help);
}

static struct redisCommand commandSubcommandTable[] = {
    {"count", commandCountCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {"docs", commandDocsCommand, -2, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {"getkeys", commandGetKeysCommand, -4, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {"getkeysandflags", commandGetKeysAndFlagsCommand, -4, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {"help", commandHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {"info", commandInfoCommand, -2, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {"list", commandListCommand, -2, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", NULL},
    {0}};

/* COMMAND is a container that also runs on its own (no subcommand): the
 * dispatcher calls commandCommand when argc == 1. */
struct redisCommand commandCommandTable[] = {
    {"command", commandCommand, -1, CMD_LOADING | CMD_STALE, 0, 0, 0, "connection", commandSubcommandTable},
    {0}};
