/* test_commands.c -- unit tests of the command documentation
 * (commands_docs.c) and of key extraction from key specs (command.c).
 *
 * Every command row of every module table must have documentation, and
 * what the row says (arity, flags, ACL categories, legacy key range) must
 * agree with what Redis 7.2 publishes for that command, so COMMAND INFO
 * tells clients the truth. The argument tree of each command must also
 * agree with its arity.
 *
 * int test_commands(void) returns the number of failed checks. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../src/commands_docs.h"
#include "../../src/server.h"

static int failures;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "test_commands: FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

static void fail(const char *fmt, const char *a, const char *b, const char *c) {
    fprintf(stderr, "test_commands: FAILED ");
    fprintf(stderr, fmt, a, b, c);
    fprintf(stderr, "\n");
    failures++;
}

/* ------------------------------------------------------------------------
 * The documentation table on its own
 * --------------------------------------------------------------------- */

/* Fewest and most argument words an argument list takes (max -1 when
 * unbounded). */
static void argListWords(const commandArg *args, int *min, int *max);

static void argWords(const commandArg *a, int *min, int *max) {
    int lo, hi;
    switch (a->type) {
    case ARG_TYPE_PURE_TOKEN:
        lo = hi = 1;
        break;
    case ARG_TYPE_BLOCK:
        argListWords(a->subargs, &lo, &hi);
        break;
    case ARG_TYPE_ONEOF: {
        lo = -1;
        hi = 0;
        for (const commandArg *s = a->subargs; s && s->name; s++) {
            int slo, shi;
            argWords(s, &slo, &shi);
            if (lo == -1 || slo < lo) lo = slo;
            if (hi != -1 && (shi == -1 || shi > hi)) hi = shi;
        }
        if (lo == -1) lo = 0;
        break;
    }
    default:
        lo = hi = 1;
        break;
    }
    if (a->token && a->type != ARG_TYPE_PURE_TOKEN) {
        lo += 1;
        if (hi != -1) hi += 1;
    }
    if (a->flags & (CMD_ARG_MULTIPLE | CMD_ARG_MULTIPLE_TOKEN)) hi = -1;
    if (a->flags & CMD_ARG_OPTIONAL) lo = 0;
    *min = lo;
    *max = hi;
}

static void argListWords(const commandArg *args, int *min, int *max) {
    *min = 0;
    *max = 0;
    for (const commandArg *a = args; a && a->name; a++) {
        int lo, hi;
        argWords(a, &lo, &hi);
        *min += lo;
        if (*max != -1) *max = hi == -1 ? -1 : *max + hi;
    }
}

/* Commands whose Redis arity deliberately differs from what their argument
 * tree implies (Redis checks these at run time). */
static const char *arityExceptions[] = {
    "command|getkeys",         /* arity -4: the full command needs a name and a key */
    "command|getkeysandflags", /* same */
    "client|kill",             /* Redis marks every member of its filter "optional" */
    "debug",                   /* a syscmd container documented without arguments */
    "quit",                    /* takes and ignores any arguments */
    NULL};

static int isArityException(const char *name) {
    for (int j = 0; arityExceptions[j]; j++)
        if (!strcmp(arityExceptions[j], name)) return 1;
    return 0;
}

/* Every key argument must point at an existing key spec. */
static void checkKeyArgs(const commandDoc *doc, const commandArg *args) {
    int nspecs = keySpecsCount(doc->key_specs);
    for (const commandArg *a = args; a && a->name; a++) {
        if (a->type == ARG_TYPE_KEY && (a->key_spec_index < 0 || a->key_spec_index >= nspecs))
            fail("%s: key argument '%s' has no key spec%s", doc->name, a->name, "");
        if (a->type == ARG_TYPE_ONEOF || a->type == ARG_TYPE_BLOCK) {
            if (!a->subargs || !a->subargs[0].name) fail("%s: container '%s' has no members%s", doc->name, a->name, "");
            checkKeyArgs(doc, a->subargs);
        }
    }
}

/* Whether some table has an entry "<name>|...". */
static int isContainerDoc(const char *name) {
    size_t len = strlen(name);
    for (int t = 0; commandDocsTables[t]; t++)
        for (const commandDoc *d = commandDocsTables[t]; d->name; d++)
            if (!strncmp(d->name, name, len) && d->name[len] == '|') return 1;
    return 0;
}

static void testDocsTable(void) {
    int n = 0;
    for (int t = 0; commandDocsTables[t]; t++) {
    const commandDoc *table = commandDocsTables[t];
    for (const commandDoc *doc = table; doc->name; doc++, n++) {
        /* Sorted and unique, so lookupCommandDoc's binary search works. */
        if (doc > table && strcmp(doc[-1].name, doc->name) >= 0)
            fail("%s: not sorted after %s%s", doc->name, doc[-1].name, "");
        if (!doc->summary || !doc->since || !doc->group) fail("%s: summary, since and group are required%s%s", doc->name, "", "");
        CHECK(lookupCommandDoc(doc->name) == doc);
        checkKeyArgs(doc, doc->args);

        /* A container's own arity is not described by arguments. */
        if (isContainerDoc(doc->name) || isArityException(doc->name)) continue;

        int lo, hi;
        argListWords(doc->args, &lo, &hi);
        int words = strchr(doc->name, '|') ? 2 : 1; /* the command's own name(s) */
        lo += words;
        if (hi != -1) hi += words;
        int arity = doc->redis_arity;
        int ok = arity > 0 ? (lo == arity && hi == arity) : (lo == -arity && hi != lo);
        if (!ok) {
            char buf[96];
            snprintf(buf, sizeof(buf), "arity %d but arguments take %d..%d words", arity, lo, hi);
            fail("%s: %s%s", doc->name, buf, "");
        }
    }
    }
    CHECK(n > 90);
    CHECK(lookupCommandDoc("XGROUP|CREATE") != NULL);
    CHECK(lookupCommandDoc("no-such-command") == NULL);
}

/* ------------------------------------------------------------------------
 * The command tables against the documentation
 * --------------------------------------------------------------------- */

static void checkRowAgainstDoc(struct redisCommand *cmd, struct redisCommand *parent) {
    char name[128];
    snprintf(name, sizeof(name), "%s%s%s", parent ? parent->name : "", parent ? "|" : "", cmd->name);
    const commandDoc *doc = cmd->doc;
    if (!doc) {
        fail("%s: no documentation in commands_docs.c%s%s", name, "", "");
        return;
    }
    if (strcmp(doc->name, name)) fail("%s: attached to the docs of %s%s", name, doc->name, "");
    if (cmd->arity != doc->redis_arity) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%d, Redis says %d", cmd->arity, doc->redis_arity);
        fail("%s: arity %s%s", name, buf, "");
    }
    if (cmd->firstkey != doc->redis_firstkey || cmd->lastkey != doc->redis_lastkey ||
        cmd->keystep != doc->redis_keystep) {
        char buf[96];
        snprintf(buf, sizeof(buf), "(%d,%d,%d), Redis says (%d,%d,%d)", cmd->firstkey, cmd->lastkey, cmd->keystep,
                 doc->redis_firstkey, doc->redis_lastkey, doc->redis_keystep);
        fail("%s: key range %s%s", name, buf, "");
    }
    sds flags = catCommandFlagNames(sdsempty(), cmd);
    if (strcmp(flags, doc->redis_flags)) fail("%s: flags '%s', Redis says '%s'", name, flags, doc->redis_flags);
    sdsfree(flags);
    sds acl = catCommandAclCategories(sdsempty(), cmd);
    if (strcmp(acl, doc->redis_acl)) fail("%s: ACL categories '%s', Redis says '%s'", name, acl, doc->redis_acl);
    sdsfree(acl);
}

static void testCommandTables(void) {
    if (!server.commands) populateCommandTable();
    attachCommandDocs();
    CHECK(commandsMissingDocs() == 0);

    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it)) != NULL) {
        struct redisCommand *cmd = de->val;
        checkRowAgainstDoc(cmd, NULL);
        if (!cmd->subcommands) continue;
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) checkRowAgainstDoc(sub, cmd);
    }
}

/* ------------------------------------------------------------------------
 * Key extraction (COMMAND GETKEYS)
 * --------------------------------------------------------------------- */

/* Returns the key positions found for argv as "1,2,3", or "error". */
static sds keysOf(const char *docname, int arity, char **argv, int argc) {
    struct redisCommand cmd = {.name = docname, .arity = arity};
    keyReference *keys;
    cmd.doc = lookupCommandDoc(docname);
    int n = getKeysFromCommandSpecs(&cmd, argv, argc, &keys);
    if (n < 0) return sdsnew("error");
    sds s = sdsempty();
    for (int j = 0; j < n; j++) s = sdscatprintf(s, "%s%d", j ? "," : "", keys[j].pos);
    zfree(keys);
    return s;
}

#define KEYS_ARE(doc, arity, expected, ...)                                   \
    do {                                                                      \
        char *argv_[] = {__VA_ARGS__};                                        \
        sds got_ = keysOf(doc, arity, argv_, sizeof(argv_) / sizeof(argv_[0])); \
        if (strcmp(got_, expected)) fail("keys of %s: got '%s', want '%s'", doc, got_, expected); \
        sdsfree(got_);                                                        \
    } while (0)

static void testGetKeys(void) {
    KEYS_ARE("xadd", -5, "1", "xadd", "s", "*", "f", "v");
    KEYS_ARE("del", -2, "1,2,3", "del", "a", "b", "c");
    KEYS_ARE("rename", 3, "1,2", "rename", "a", "b");
    KEYS_ARE("xread", -4, "4,5", "xread", "COUNT", "1", "STREAMS", "a", "b", "0", "0");
    KEYS_ARE("xread", -4, "2", "xread", "streams", "a", "b", "0");
    KEYS_ARE("xread", -4, "", "xread", "COUNT", "1", "b"); /* no STREAMS: no keys */
    KEYS_ARE("xreadgroup", -7, "6,7", "xreadgroup", "GROUP", "g", "c", "COUNT", "STREAMS", "k1", "k2", "0", "0");
    KEYS_ARE("xgroup|create", -5, "2", "xgroup", "create", "s", "g", "$");
    KEYS_ARE("xinfo|stream", -3, "2", "xinfo", "stream", "s");

    /* Flags come from the spec that found the key. */
    char *argv[] = {"xadd", "s", "*", "f", "v"};
    struct redisCommand cmd = {.name = "xadd", .arity = -5};
    keyReference *keys;
    cmd.doc = lookupCommandDoc("xadd");
    CHECK(getKeysFromCommandSpecs(&cmd, argv, 5, &keys) == 1);
    CHECK(keys[0].flags == (KSPEC_RW | KSPEC_UPDATE));
    zfree(keys);
}

int test_commands(void) {
    failures = 0;
    testDocsTable();
    testCommandTables();
    testGetKeys();
    return failures;
}
