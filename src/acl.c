/* acl.c -- ACL users besides "default" (a subset of Redis 7.2's ACL).
 *
 * The "default" user is what requirepass configures (c->user == NULL): on,
 * all commands, all keys, all channels, with requirepass as its password or
 * nopass. Other users are made with ACL SETUSER and checked before every
 * command (processCommand): the command, its keys (from the key specs) and
 * its Pub/Sub channels must be allowed, or the client gets Redis's
 * -NOPERM errors.
 *
 * Supported: AUTH <user> <pass>, HELLO ... AUTH <user> <pass>, ACL WHOAMI,
 * ACL SETUSER with the rules on, off, nopass, resetpass, >pass, <pass,
 * #hash, !hash, allcommands/+@all, nocommands/-@all, +@category,
 * -@category, +command, -command, +command|sub, -command|sub, allkeys, ~*,
 * ~pattern, %R~pattern, %W~pattern, %RW~pattern, resetkeys, allchannels,
 * &pattern, resetchannels, reset; ACL DELUSER, ACL USERS, ACL CAT; `user`
 * lines in the configuration or an aclfile (ACL SAVE, ACL LOAD), ACL
 * DRYRUN, ACL LOG, ACL GETUSER, ACL LIST, ACL GENPASS, acl-pubsub-default,
 * selectors "(rule ...)" and clearselectors; the (skip-)sanitize-payload
 * flags are kept and shown (casq has no RESTORE for them to act on).
 *
 * Users are configuration, not queue state: the configuration's `user`
 * lines (or --user) make them at start, ACL SETUSER changes live in this
 * process only, and the state document never holds them; every node of a
 * document needs the same users. A follower relays a client authenticated
 * as a user by sending AUTH <user> <pass> to the broker, which applies its
 * own rules (so the password is kept with the connection for that).
 *
 * Passwords are kept as their SHA-256 digests and compared in constant
 * time, as Redis does. */
#include "server.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>
#include <strings.h>

#include "commands_docs.h"

#define ACL_HASH_LEN 32
#define ACL_SANITIZE_PAYLOAD 1
#define ACL_SKIP_SANITIZE_PAYLOAD 2
#define ACL_KEY_READ (1 << 0)
#define ACL_KEY_WRITE (1 << 1)

typedef struct aclUser {
    sds name;
    int enabled;
    int nopass;
    int sanitize; /* 0, ACL_SANITIZE_PAYLOAD or ACL_SKIP_SANITIZE_PAYLOAD
                   * (flags only: casq has no RESTORE) */
    int npass;
    unsigned char (*pass)[ACL_HASH_LEN]; /* SHA-256 of each password */
    int allcommands;                     /* +@all: every command */
    int base_all;                        /* the last +@all/-@all was +@all */
    sds cmd_rules;                       /* command rules since it, as Redis
                                          * keeps them for ACL GETUSER/LIST */
    dict *commands;                      /* otherwise: allowed full names */
    int allkeys;
    int npatterns;
    sds *patterns; /* ~pattern, %R~pattern, %W~pattern */
    int *pflags;   /* ACL_KEY_READ | ACL_KEY_WRITE of each pattern */
    int allchannels;
    int nchannels;
    sds *channels; /* &pattern */
    /* Selectors, "(rule ...)": more permission sets, each an aclUser of
     * which only the command, key and channel fields are used. A command
     * runs if the user's own set or any one selector allows all of it. */
    int nsel;
    struct aclUser **sels;
} aclUser;

static dict *Users; /* name -> aclUser* (values freed here) */

/* ========================================================================
 * Users
 * ===================================================================== */

static void freeSdsArray(sds *a, int n) {
    for (int j = 0; j < n; j++) sdsfree(a[j]);
    zfree(a);
}

/* A new user as Redis makes one: off, no passwords, no commands, no keys,
 * and no channels unless acl-pubsub-default is allchannels. */
static aclUser *aclCreateUser(const char *name, size_t len) {
    aclUser *u = zcalloc(sizeof(*u));
    u->name = sdsnewlen(name, len);
    u->allchannels = server.cfg.acl_pubsub_default_all;
    u->commands = dictCreate(&sdsKeyDictType);
    u->cmd_rules = sdsempty();
    return u;
}

static aclUser *aclDupUser(const aclUser *src);

static void aclFreeUser(aclUser *u) {
    if (!u) return;
    sdsfree(u->name);
    sdsfree(u->cmd_rules);
    zfree(u->pass);
    dictRelease(u->commands);
    freeSdsArray(u->patterns, u->npatterns);
    zfree(u->pflags);
    freeSdsArray(u->channels, u->nchannels);
    for (int j = 0; j < u->nsel; j++) aclFreeUser(u->sels[j]);
    zfree(u->sels);
    zfree(u);
}

static aclUser *aclDupUser(const aclUser *src) {
    aclUser *u = aclCreateUser(src->name, sdslen(src->name));
    u->enabled = src->enabled;
    u->nopass = src->nopass;
    u->sanitize = src->sanitize;
    u->npass = src->npass;
    if (src->npass) {
        u->pass = zmalloc(sizeof(*u->pass) * (size_t)src->npass);
        memcpy(u->pass, src->pass, sizeof(*u->pass) * (size_t)src->npass);
    }
    u->allcommands = src->allcommands;
    u->base_all = src->base_all;
    sdsfree(u->cmd_rules);
    u->cmd_rules = sdsdup(src->cmd_rules);
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, src->commands);
    while ((de = dictNext(&it))) dictAdd(u->commands, sdsdup(de->key), NULL);
    u->allkeys = src->allkeys;
    u->npatterns = src->npatterns;
    u->patterns = zmalloc(sizeof(sds) * (size_t)(src->npatterns + 1));
    u->pflags = zmalloc(sizeof(int) * (size_t)(src->npatterns + 1));
    for (int j = 0; j < src->npatterns; j++) {
        u->patterns[j] = sdsdup(src->patterns[j]);
        u->pflags[j] = src->pflags[j];
    }
    u->allchannels = src->allchannels;
    u->nchannels = src->nchannels;
    u->channels = zmalloc(sizeof(sds) * (size_t)(src->nchannels + 1));
    for (int j = 0; j < src->nchannels; j++) u->channels[j] = sdsdup(src->channels[j]);
    u->nsel = src->nsel;
    u->sels = src->nsel ? zmalloc(sizeof(aclUser *) * (size_t)src->nsel) : NULL;
    for (int j = 0; j < src->nsel; j++) u->sels[j] = aclDupUser(src->sels[j]);
    return u;
}

void aclInit(void) {
    if (!Users) Users = dictCreate(&sdsKeyDictType);
}

/* `user <name> <rule> ...` lines of the configuration, kept until the
 * command table exists (aclLoadConfiguredUsers). */
static list *ConfigUsers;

void aclQueueConfigUser(sds *argv, int argc) {
    if (!ConfigUsers) ConfigUsers = listCreate();
    sds *copy = zmalloc(sizeof(sds) * (size_t)(argc + 1));
    for (int j = 0; j < argc; j++) copy[j] = sdsdup(argv[j]);
    copy[argc] = NULL;
    listAddNodeTail(ConfigUsers, copy);
}

static void freeConfigUsers(void) {
    if (!ConfigUsers) return;
    for (listNode *ln = listFirst(ConfigUsers); ln; ln = ln->next) {
        sds *a = ln->value;
        for (int j = 0; a[j]; j++) sdsfree(a[j]);
        zfree(a);
    }
    listRelease(ConfigUsers);
    ConfigUsers = NULL;
}

static int aclSetUserFromArgs(sds *argv, int argc, sds *err);

static sds aclLoadFromFile(const char *filename);

/* Makes the users of the configuration's `user` lines, or of the aclfile;
 * the first bad one stops the start-up, as in Redis. */
int aclLoadConfiguredUsers(sds *err) {
    int ret = C_OK;
    if (server.cfg.acl_filename) {
        if (ConfigUsers && listLength(ConfigUsers)) {
            *err = sdsnew("Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
                          "path is invalid. This setup is very likely to lead to configuration errors and security "
                          "holes, please define either an ACL file or declare users directly in your redis.conf, "
                          "but not both.");
            freeConfigUsers();
            return C_ERR;
        }
        sds errors = aclLoadFromFile(server.cfg.acl_filename);
        if (errors) {
            *err = sdscatprintf(sdsempty(), "Aborting Redis startup because of ACL errors: %s", errors);
            sdsfree(errors);
            return C_ERR;
        }
        return C_OK;
    }
    for (listNode *ln = ConfigUsers ? listFirst(ConfigUsers) : NULL; ln && ret == C_OK; ln = ln->next) {
        sds *a = ln->value;
        int argc = 0;
        while (a[argc]) argc++;
        if (Users && dictFind(Users, a[0])) {
            *err = sdscatprintf(sdsempty(), "Duplicate user '%s' found in the configuration", a[0]);
            ret = C_ERR;
        } else if (aclSetUserFromArgs(a, argc, err) != C_OK) {
            ret = C_ERR;
        }
    }
    freeConfigUsers();
    return ret;
}

static void aclLogFreeAll(void);

void aclFreeAll(void) {
    freeConfigUsers();
    aclLogFreeAll();
    if (!Users) return;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, Users);
    while ((de = dictNext(&it))) aclFreeUser(de->val);
    dictRelease(Users);
    Users = NULL;
}

static aclUser *aclLookupUser(const char *name, size_t len) {
    if (!Users) return NULL;
    sds n = sdsnewlen(name, len);
    aclUser *u = dictFetchValue(Users, n);
    sdsfree(n);
    return u;
}

const char *aclClientUserName(const client *c) { return c->user ? c->user->name : "default"; }

int aclUserExists(const char *name) { return !strcmp(name, "default") || aclLookupUser(name, strlen(name)); }

/* ========================================================================
 * Passwords
 * ===================================================================== */

static void aclHashPassword(const char *p, size_t len, unsigned char out[ACL_HASH_LEN]) {
    unsigned int n = 0;
    if (!EVP_Digest(p, len, out, &n, EVP_sha256(), NULL) || n != ACL_HASH_LEN) memset(out, 0, ACL_HASH_LEN);
}

static int aclFindHash(const aclUser *u, const unsigned char h[ACL_HASH_LEN]) {
    int found = -1;
    /* Every stored hash is compared, in constant time each. */
    for (int j = 0; j < u->npass; j++)
        if (CRYPTO_memcmp(u->pass[j], h, ACL_HASH_LEN) == 0) found = j;
    return found;
}

static void aclAddHash(aclUser *u, const unsigned char h[ACL_HASH_LEN]) {
    if (aclFindHash(u, h) >= 0) return;
    u->pass = zrealloc(u->pass, sizeof(*u->pass) * (size_t)(u->npass + 1));
    memcpy(u->pass[u->npass++], h, ACL_HASH_LEN);
}

static int aclRemoveHash(aclUser *u, const unsigned char h[ACL_HASH_LEN]) {
    int j = aclFindHash(u, h);
    if (j < 0) return 0;
    memmove(u->pass[j], u->pass[j + 1], sizeof(*u->pass) * (size_t)(u->npass - j - 1));
    u->npass--;
    return 1;
}

/* "#<64 lowercase hex digits>" as Redis accepts it. */
static int aclParseHash(const char *hex, size_t len, unsigned char out[ACL_HASH_LEN]) {
    if (len != ACL_HASH_LEN * 2) return 0;
    for (size_t j = 0; j < len; j++) {
        char ch = hex[j];
        int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (v < 0) return 0;
        if (j % 2 == 0) out[j / 2] = (unsigned char)(v << 4);
        else out[j / 2] |= (unsigned char)v;
    }
    return 1;
}

/* ========================================================================
 * Command rules
 * ===================================================================== */

/* The commands a rule names: one command (a container brings its
 * subcommands), or every command of a category. */
static void aclAllowCommand(aclUser *u, struct redisCommand *cmd, int allow) {
    if (allow) {
        if (!dictFind(u->commands, cmd->fullname)) dictAdd(u->commands, sdsdup(cmd->fullname), NULL);
    } else {
        dictDelete(u->commands, cmd->fullname);
    }
}

static void aclAllowCommandAndSubs(aclUser *u, struct redisCommand *cmd, int allow) {
    aclAllowCommand(u, cmd, allow);
    if (cmd->subcommands)
        for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) aclAllowCommand(u, sub, allow);
}

/* Once a user has "+@all", a rule that takes something away needs the
 * explicit list of what remains. */
static void aclMaterializeAllCommands(aclUser *u) {
    if (!u->allcommands) return;
    u->allcommands = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it))) aclAllowCommandAndSubs(u, de->val, 1);
}

static void aclAllowCategory(aclUser *u, uint64_t bit, int allow) {
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it))) {
        struct redisCommand *cmd = de->val;
        if (commandAclCategoryBits(cmd) & bit) aclAllowCommand(u, cmd, allow);
        if (cmd->subcommands)
            for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++)
                if (commandAclCategoryBits(sub) & bit) aclAllowCommand(u, sub, allow);
    }
}

static int aclCommandAllowed(const aclUser *u, struct redisCommand *cmd) {
    return u->allcommands || dictFind(u->commands, cmd->fullname) != NULL;
}

/* ========================================================================
 * ACL SETUSER rules
 * ===================================================================== */

#define ACL_RULE_OK 0
#define ACL_RULE_SYNTAX 1
#define ACL_RULE_UNKNOWN 2
#define ACL_RULE_AFTER_ALLKEYS 3
#define ACL_RULE_AFTER_ALLCHANNELS 4
#define ACL_RULE_NO_SUCH_PASS 5
#define ACL_RULE_BAD_HASH 6

static const char *aclRuleErrorString(int err) {
    switch (err) {
    case ACL_RULE_UNKNOWN: return "Unknown command or category name in ACL";
    case ACL_RULE_SYNTAX: return "Syntax error";
    case ACL_RULE_AFTER_ALLKEYS:
        return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any "
               "effect. Try 'resetkeys' to start with an empty list of patterns";
    case ACL_RULE_AFTER_ALLCHANNELS:
        return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any "
               "effect. Try 'resetchannels' to start with an empty list of channels";
    case ACL_RULE_NO_SUCH_PASS: return "The password you are trying to remove from the user does not exist";
    case ACL_RULE_BAD_HASH:
        return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
    default: return "Wrong format";
    }
}

static void aclResetKeys(aclUser *u) {
    freeSdsArray(u->patterns, u->npatterns);
    zfree(u->pflags);
    u->pflags = NULL;
    u->patterns = NULL;
    u->npatterns = 0;
    u->allkeys = 0;
}

static void aclResetChannels(aclUser *u) {
    freeSdsArray(u->channels, u->nchannels);
    u->channels = NULL;
    u->nchannels = 0;
    u->allchannels = 0;
}

/* A key pattern with its permissions; the same pattern again adds to them. */
static void aclAddKeyPattern(aclUser *u, const char *p, size_t len, int flags) {
    for (int j = 0; j < u->npatterns; j++) {
        if (sdslen(u->patterns[j]) == len && !memcmp(u->patterns[j], p, len)) {
            u->pflags[j] |= flags;
            return;
        }
    }
    u->patterns = zrealloc(u->patterns, sizeof(sds) * (size_t)(u->npatterns + 1));
    u->pflags = zrealloc(u->pflags, sizeof(int) * (size_t)(u->npatterns + 1));
    u->pflags[u->npatterns] = flags;
    u->patterns[u->npatterns++] = sdsnewlen(p, len);
}

static void aclAddPattern(sds **a, int *n, const char *p, size_t len) {
    for (int j = 0; j < *n; j++)
        if (sdslen((*a)[j]) == len && !memcmp((*a)[j], p, len)) return;
    *a = zrealloc(*a, sizeof(sds) * (size_t)(*n + 1));
    (*a)[(*n)++] = sdsnewlen(p, len);
}

/* Redis 7.2's command_rules: a command or category rule replaces an earlier
 * one for the same name (and, for a command, its subcommands), and goes to
 * the end, so the description keeps the order rules were given in. */
static void aclUpdateCommandRules(aclUser *u, const char *rule, size_t len, int allow) {
    sds name = sdsnewlen(rule, len);
    sdstolower(name);
    int argc = 0;
    sds *argv = sdssplitargs(u->cmd_rules, &argc);
    sds out = sdsempty();
    for (int j = 0; argv && j < argc; j++) {
        const char *r = argv[j] + 1;
        size_t rl = sdslen(argv[j]) - 1;
        size_t nl = sdslen(name);
        int same = rl == nl && !memcmp(r, name, nl);
        int sub = rl > nl && !memcmp(r, name, nl) && r[nl] == '|';
        if (same || sub) continue;
        if (sdslen(out)) out = sdscatlen(out, " ", 1);
        out = sdscatsds(out, argv[j]);
    }
    if (argv) sdsfreesplitres(argv, argc);
    if (sdslen(out)) out = sdscatlen(out, " ", 1);
    out = sdscatlen(out, allow ? "+" : "-", 1);
    out = sdscatsds(out, name);
    sdsfree(name);
    sdsfree(u->cmd_rules);
    u->cmd_rules = out;
}

/* Patterns and user names may not hold spaces or NULs (they could not be
 * written back as rules), as in Redis. */
static int aclHasSpaces(const char *s, size_t len) {
    for (size_t j = 0; j < len; j++)
        if (isspace((unsigned char)s[j]) || s[j] == '\0') return 1;
    return 0;
}

static int aclSetUserRule(aclUser *u, const char *op, size_t len);

/* A rule inside a selector: only command, key and channel rules (Redis's
 * ACLSetSelector). */
static int aclSetSelectorRule(aclUser *sel, const char *op, size_t len) {
    static const char *user_only[] = {"on", "off", "nopass", "resetpass", "reset", "clearselectors",
                                      "sanitize-payload", "skip-sanitize-payload", NULL};
    if (len == 0) return ACL_RULE_OK;
    if (op[0] == '>' || op[0] == '<' || op[0] == '#' || op[0] == '!' || op[0] == '(') return ACL_RULE_SYNTAX;
    for (int j = 0; user_only[j]; j++)
        if (strlen(user_only[j]) == len && !strncasecmp(op, user_only[j], len)) return ACL_RULE_SYNTAX;
    return aclSetUserRule(sel, op, len);
}

/* "(rule rule ...)": a new selector, made from -@all, no keys, and the
 * channels acl-pubsub-default gives. */
static int aclAddSelector(aclUser *u, const char *op, size_t len) {
    aclUser *sel = aclCreateUser("", 0);
    sds inner = sdsnewlen(op + 1, len - 2);
    int argc = 0;
    sds *argv = sdssplitargs(inner, &argc);
    sdsfree(inner);
    int err = argv ? ACL_RULE_OK : ACL_RULE_SYNTAX;
    for (int j = 0; argv && j < argc && err == ACL_RULE_OK; j++) err = aclSetSelectorRule(sel, argv[j], sdslen(argv[j]));
    if (argv) sdsfreesplitres(argv, argc);
    if (err != ACL_RULE_OK) {
        aclFreeUser(sel);
        return err;
    }
    u->sels = zrealloc(u->sels, sizeof(aclUser *) * (size_t)(u->nsel + 1));
    u->sels[u->nsel++] = sel;
    return ACL_RULE_OK;
}

static void aclClearSelectors(aclUser *u) {
    for (int j = 0; j < u->nsel; j++) aclFreeUser(u->sels[j]);
    zfree(u->sels);
    u->sels = NULL;
    u->nsel = 0;
}

/* Redis's ACLMergeSelectorArguments: a selector given as several words
 * ("(~x" "+get)") becomes one rule. Returns the merged rules (*merged of
 * them) or NULL with *bad the argument whose parenthesis is not closed. */
static sds *aclMergeSelectorArgs(sds *argv, int argc, int *merged, int *bad) {
    sds *out = zmalloc(sizeof(sds) * (size_t)(argc + 1));
    int n = 0;
    sds open = NULL;
    int open_at = -1;
    for (int j = 0; j < argc; j++) {
        sds a = argv[j];
        size_t l = sdslen(a);
        if (open) {
            open = sdscatlen(sdscatlen(open, " ", 1), a, l);
            if (l && a[l - 1] == ')') {
                out[n++] = open;
                open = NULL;
            }
        } else if (l && a[0] == '(' && a[l - 1] != ')') {
            open = sdsdup(a);
            open_at = j;
        } else {
            out[n++] = sdsdup(a);
        }
    }
    if (open) {
        sdsfree(open);
        freeSdsArray(out, n);
        *bad = open_at;
        return NULL;
    }
    *merged = n;
    return out;
}

/* One rule applied to u; ACL_RULE_OK or why not. */
static int aclSetUserRule(aclUser *u, const char *op, size_t len) {
    unsigned char h[ACL_HASH_LEN];
    if (len >= 2 && op[0] == '(' && op[len - 1] == ')') return aclAddSelector(u, op, len);
    if (len == 14 && !strncasecmp(op, "clearselectors", 14)) {
        aclClearSelectors(u);
        return ACL_RULE_OK;
    }
    if (len == 2 && !strncasecmp(op, "on", 2)) {
        u->enabled = 1;
    } else if (len == 3 && !strncasecmp(op, "off", 3)) {
        u->enabled = 0;
    } else if (len == 16 && !strncasecmp(op, "sanitize-payload", 16)) {
        u->sanitize = ACL_SANITIZE_PAYLOAD;
    } else if (len == 21 && !strncasecmp(op, "skip-sanitize-payload", 21)) {
        u->sanitize = ACL_SKIP_SANITIZE_PAYLOAD;
    } else if (len == 6 && !strncasecmp(op, "nopass", 6)) {
        u->nopass = 1;
        zfree(u->pass);
        u->pass = NULL;
        u->npass = 0;
    } else if (len == 9 && !strncasecmp(op, "resetpass", 9)) {
        u->nopass = 0;
        zfree(u->pass);
        u->pass = NULL;
        u->npass = 0;
    } else if (len >= 1 && op[0] == '>') {
        aclHashPassword(op + 1, len - 1, h);
        aclAddHash(u, h);
        u->nopass = 0;
    } else if (len >= 1 && op[0] == '#') {
        if (!aclParseHash(op + 1, len - 1, h)) return ACL_RULE_BAD_HASH;
        aclAddHash(u, h);
        u->nopass = 0;
    } else if (len >= 1 && op[0] == '<') {
        aclHashPassword(op + 1, len - 1, h);
        if (!aclRemoveHash(u, h)) return ACL_RULE_NO_SUCH_PASS;
    } else if (len >= 1 && op[0] == '!') {
        if (!aclParseHash(op + 1, len - 1, h)) return ACL_RULE_BAD_HASH;
        if (!aclRemoveHash(u, h)) return ACL_RULE_NO_SUCH_PASS;
    } else if ((len == 11 && !strncasecmp(op, "allcommands", 11)) || (len == 5 && !strncasecmp(op, "+@all", 5))) {
        u->allcommands = u->base_all = 1;
        dictEmpty(u->commands);
        sdsclear(u->cmd_rules);
    } else if ((len == 10 && !strncasecmp(op, "nocommands", 10)) || (len == 5 && !strncasecmp(op, "-@all", 5))) {
        u->allcommands = u->base_all = 0;
        dictEmpty(u->commands);
        sdsclear(u->cmd_rules);
    } else if (len >= 2 && (op[0] == '+' || op[0] == '-') && op[1] == '@') {
        int bit = aclCategoryBitByName(op + 2, len - 2);
        if (bit < 0) return ACL_RULE_UNKNOWN;
        int allow = op[0] == '+';
        aclUpdateCommandRules(u, op + 1, len - 1, allow);
        if (allow && u->allcommands) return ACL_RULE_OK;
        aclMaterializeAllCommands(u);
        aclAllowCategory(u, 1ULL << bit, allow);
    } else if (len >= 2 && (op[0] == '+' || op[0] == '-')) {
        int allow = op[0] == '+';
        sds name = sdsnewlen(op + 1, len - 1);
        char *bar = strchr(name, '|');
        struct redisCommand *cmd = NULL;
        if (bar) {
            *bar = '\0';
            struct redisCommand *parent = lookupCommandByCString(name);
            if (parent && parent->subcommands_dict && bar[1]) {
                sds sub = sdsnew(bar + 1);
                cmd = dictFetchValue(parent->subcommands_dict, sub);
                sdsfree(sub);
            }
        } else {
            cmd = lookupCommandByCString(name);
        }
        sdsfree(name);
        if (!cmd) return ACL_RULE_UNKNOWN;
        aclUpdateCommandRules(u, cmd->fullname, sdslen(cmd->fullname), allow);
        if (allow && u->allcommands) return ACL_RULE_OK;
        aclMaterializeAllCommands(u);
        if (cmd->parent) aclAllowCommand(u, cmd, allow);
        else aclAllowCommandAndSubs(u, cmd, allow);
    } else if ((len == 7 && !strncasecmp(op, "allkeys", 7)) || (len == 2 && !memcmp(op, "~*", 2))) {
        aclResetKeys(u);
        u->allkeys = 1;
    } else if (len == 9 && !strncasecmp(op, "resetkeys", 9)) {
        aclResetKeys(u);
    } else if (len >= 1 && op[0] == '~') {
        if (u->allkeys) return ACL_RULE_AFTER_ALLKEYS;
        if (aclHasSpaces(op + 1, len - 1)) return ACL_RULE_SYNTAX;
        aclAddKeyPattern(u, op + 1, len - 1, ACL_KEY_READ | ACL_KEY_WRITE);
    } else if (len >= 1 && op[0] == '%') {
        /* %R~pattern, %W~pattern, %RW~pattern (Redis 7). */
        int flags = 0;
        size_t j = 1;
        for (; j < len && op[j] != '~'; j++) {
            if (op[j] == 'R' || op[j] == 'r') flags |= ACL_KEY_READ;
            else if (op[j] == 'W' || op[j] == 'w') flags |= ACL_KEY_WRITE;
            else return ACL_RULE_SYNTAX;
        }
        if (u->allkeys) return ACL_RULE_AFTER_ALLKEYS;
        if (!flags || j == len || aclHasSpaces(op + j + 1, len - j - 1)) return ACL_RULE_SYNTAX;
        aclAddKeyPattern(u, op + j + 1, len - j - 1, flags);
    } else if ((len == 11 && !strncasecmp(op, "allchannels", 11)) || (len == 2 && !memcmp(op, "&*", 2))) {
        aclResetChannels(u);
        u->allchannels = 1;
    } else if (len == 13 && !strncasecmp(op, "resetchannels", 13)) {
        aclResetChannels(u);
    } else if (len >= 1 && op[0] == '&') {
        if (u->allchannels) return ACL_RULE_AFTER_ALLCHANNELS;
        if (aclHasSpaces(op + 1, len - 1)) return ACL_RULE_SYNTAX;
        aclAddPattern(&u->channels, &u->nchannels, op + 1, len - 1);
    } else if (len == 5 && !strncasecmp(op, "reset", 5)) {
        aclSetUserRule(u, "resetpass", 9);
        aclSetUserRule(u, "resetkeys", 9);
        aclSetUserRule(u, "resetchannels", 13);
        if (server.cfg.acl_pubsub_default_all) aclSetUserRule(u, "allchannels", 11);
        aclSetUserRule(u, "off", 3);
        aclSetUserRule(u, "sanitize-payload", 16);
        aclClearSelectors(u);
        aclSetUserRule(u, "-@all", 5);
    } else {
        return ACL_RULE_SYNTAX;
    }
    return ACL_RULE_OK;
}

/* ========================================================================
 * Authentication
 * ===================================================================== */

/* AUTH / HELLO AUTH with a user name. Returns 1 and switches the client to
 * that user when the user is on and the password is one of its own. */
int aclAuthenticate(client *c, sds user, sds pass) {
    if (!strcmp(user, "default")) {
        if (!authPasswordMatches(pass, sdslen(pass))) return 0;
        sdsfree(c->auth_pass);
        c->auth_pass = NULL;
        c->user = NULL;
        c->authenticated = 1;
        return 1;
    }
    aclUser *u = aclLookupUser(user, sdslen(user));
    unsigned char h[ACL_HASH_LEN];
    aclHashPassword(pass, sdslen(pass), h);
    int ok = u && u->enabled && (u->nopass || aclFindHash(u, h) >= 0);
    if (!ok) return 0;
    c->user = u;
    c->authenticated = 1;
    sdsfree(c->auth_pass);
    c->auth_pass = sdsdup(pass); /* for a follower's relay (broker.c) */
    return 1;
}

/* RESET and a deleted user: back to "default", authenticated only if it
 * needs no password. */
void aclResetClientUser(client *c) {
    c->user = NULL;
    sdsfree(c->auth_pass);
    c->auth_pass = NULL;
    c->authenticated = server.cfg.requirepass == NULL;
}

/* ========================================================================
 * Permission checks (processCommand)
 * ===================================================================== */

/* As Redis's ACLSelectorCheckKey: what the key spec says the command does
 * with the key (access: read; insert, delete, update: write) must be
 * granted by one pattern that matches it. */
static int aclKeyAllowed(const aclUser *u, const char *key, size_t len, uint64_t kspec_flags) {
    if (u->allkeys) return 1;
    int need = 0;
    if (kspec_flags & KSPEC_ACCESS) need |= ACL_KEY_READ;
    if (kspec_flags & (KSPEC_INSERT | KSPEC_DELETE | KSPEC_UPDATE)) need |= ACL_KEY_WRITE;
    for (int j = 0; j < u->npatterns; j++) {
        if ((u->pflags[j] & need) != need) continue;
        if (stringmatchlen(u->patterns[j], (int)sdslen(u->patterns[j]), key, (int)len, 0)) return 1;
    }
    return 0;
}

/* Channels match the user's patterns; a PSUBSCRIBE pattern must be one of
 * them literally (as Redis). */
static int aclChannelAllowed(const aclUser *u, const char *ch, size_t len, int literal) {
    if (u->allchannels) return 1;
    for (int j = 0; j < u->nchannels; j++) {
        if (literal) {
            if (sdslen(u->channels[j]) == len && !memcmp(u->channels[j], ch, len)) return 1;
        } else if (stringmatchlen(u->channels[j], (int)sdslen(u->channels[j]), ch, (int)len, 0)) {
            return 1;
        }
    }
    return 0;
}

/* The channel arguments of a Pub/Sub command: from `first` to the end, or
 * only `first` (PUBLISH). Returns 0 if the command names none. */
static int aclCommandChannels(struct redisCommand *cmd, int *first, int *only_one, int *literal) {
    const char *n = cmd->fullname;
    *first = 1;
    *only_one = 0;
    *literal = 0;
    if (!strcasecmp(n, "publish") || !strcasecmp(n, "spublish")) *only_one = 1;
    else if (!strcasecmp(n, "subscribe") || !strcasecmp(n, "ssubscribe")) ;
    else if (!strcasecmp(n, "psubscribe")) *literal = 1;
    else return 0;
    return 1;
}

static int aclCheckSelector(aclUser *u, struct redisCommand *cmd, sds *argv, int argc, int *errpos);

/* Whether user u may run cmd with argv: ACL_OK, or what is denied, with
 * *errpos the argument at fault. u NULL is "default": everything. With
 * selectors, the user's own rules or any one selector must allow all of
 * it; otherwise the refusal reported is the one that got furthest (a
 * channel over a key over a command, then the later argument), as Redis. */
static int aclCheckPermFor(aclUser *u, struct redisCommand *cmd, sds *argv, int argc, int *errpos) {
    *errpos = 0;
    if (!u) return ACL_OK;
    int best = aclCheckSelector(u, cmd, argv, argc, errpos);
    if (best == ACL_OK) return ACL_OK;
    for (int j = 0; j < u->nsel; j++) {
        int pos = 0;
        int res = aclCheckSelector(u->sels[j], cmd, argv, argc, &pos);
        if (res == ACL_OK) {
            *errpos = 0;
            return ACL_OK;
        }
        if (res > best || (res == best && pos > *errpos)) {
            best = res;
            *errpos = pos;
        }
    }
    return best;
}

/* One permission set (the user's own, or a selector). */
static int aclCheckSelector(aclUser *u, struct redisCommand *cmd, sds *argv, int argc, int *errpos) {
    *errpos = 0;
    /* AUTH, HELLO, QUIT, RESET (no_auth) are every user's, as in Redis. */
    if (!(cmd->flags & CMD_NO_AUTH) && !aclCommandAllowed(u, cmd)) return ACL_DENIED_CMD;
    if (!u->allkeys && cmd->doc) {
        keyReference *keys = NULL;
        int n = getKeysFromCommandSpecs(cmd, argv, argc, &keys);
        for (int j = 0; j < n; j++) {
            sds k = argv[keys[j].pos];
            if (!aclKeyAllowed(u, k, sdslen(k), keys[j].flags)) {
                *errpos = keys[j].pos;
                zfree(keys);
                return ACL_DENIED_KEY;
            }
        }
        zfree(keys);
    }
    int first, only_one, literal;
    if (!u->allchannels && aclCommandChannels(cmd, &first, &only_one, &literal)) {
        int last = only_one ? first : argc - 1;
        for (int j = first; j <= last && j < argc; j++) {
            if (!aclChannelAllowed(u, argv[j], sdslen(argv[j]), literal)) {
                *errpos = j;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_OK;
}

int aclCheckCommandPerm(client *c, int *errpos) { return aclCheckPermFor(c->user, c->cmd, c->argv, c->argc, errpos); }

/* redis.acl_check_cmd(): may the caller's user run cmd with argv? Nothing
 * is logged: the script only asks. */
int aclUserMayRun(client *caller, struct redisCommand *cmd, sds *argv, int argc) {
    int errpos;
    return !caller->user || aclCheckPermFor(caller->user, cmd, argv, argc, &errpos) == ACL_OK;
}

/* A script's redis.call() runs as the script's caller: NULL if its user
 * may run cmd with argv, else Redis's error text ("ERR ACL failure in
 * script: ..."). */
sds aclScriptRefusal(client *caller, struct redisCommand *cmd, sds *argv, int argc) {
    if (!caller->user) return NULL;
    int errpos;
    int res = aclCheckPermFor(caller->user, cmd, argv, argc, &errpos);
    if (res == ACL_OK) return NULL;
    aclLogDenied(caller, res, ACL_LOG_CTX_LUA, 0, NULL,
                 res == ACL_DENIED_CMD ? cmd->fullname : argv[errpos]);
    sds err = sdsnew("ERR ACL failure in script: ");
    if (res == ACL_DENIED_CMD)
        return sdscatprintf(err, "User %s has no permissions to run the '%s' command", caller->user->name,
                            cmd->fullname);
    return sdscat(err, res == ACL_DENIED_KEY ? "No permissions to access a key" : "No permissions to access a channel");
}

/* The -NOPERM text for a refusal, as Redis 7.2 words it. */
sds aclDeniedMessage(client *c, int reason) {
    switch (reason) {
    case ACL_DENIED_CMD:
        return sdscatprintf(sdsempty(), "-NOPERM User %s has no permissions to run the '%s' command",
                            aclClientUserName(c), c->cmd->fullname);
    case ACL_DENIED_KEY: return sdsnew("-NOPERM No permissions to access a key");
    default: return sdsnew("-NOPERM No permissions to access a channel");
    }
}

/* ========================================================================
 * The ACL file (aclfile, ACL LOAD, ACL SAVE)
 * ===================================================================== */

static sds aclDescribeUser(const char *name, aclUser *u);
static void aclKillUserClients(aclUser *u);

/* Splits s on every `sep` (empty pieces kept, as Redis's sdssplitlen). */
static sds *aclSplit(const char *s, size_t len, char sep, int *count) {
    int n = 0, alloc = 8;
    sds *out = zmalloc(sizeof(sds) * (size_t)alloc);
    size_t start = 0;
    for (size_t j = 0; j <= len; j++) {
        if (j < len && s[j] != sep) continue;
        if (n == alloc) {
            alloc *= 2;
            out = zrealloc(out, sizeof(sds) * (size_t)alloc);
        }
        out[n++] = sdsnewlen(s + start, j - start);
        start = j + 1;
    }
    *count = n;
    return out;
}

/* "default" in a file can only say what requirepass says (full access,
 * on; nopass without requirepass, else requirepass's digest alone): casq
 * configures that user with requirepass. NULL if it does, else why not. */
static const char *aclCheckDefaultLine(sds *argv, int argc) {
    aclUser *u = aclCreateUser("default", 7);
    const char *why = NULL;
    for (int j = 0; j < argc && !why; j++)
        if (sdslen(argv[j]) && aclSetUserRule(u, argv[j], sdslen(argv[j])) != ACL_RULE_OK) why = "Syntax error";
    if (!why) {
        unsigned char h[ACL_HASH_LEN];
        int pass_ok;
        if (!server.cfg.requirepass) {
            pass_ok = u->nopass;
        } else {
            aclHashPassword(server.cfg.requirepass, strlen(server.cfg.requirepass), h);
            pass_ok = !u->nopass && u->npass == 1 && !memcmp(u->pass[0], h, ACL_HASH_LEN);
        }
        if (!u->enabled || !u->allcommands || !u->allkeys || !u->allchannels || !pass_ok)
            why = "casq configures the 'default' user with requirepass: its line must be 'on', '~*', '&*', '+@all' "
                  "and nopass or requirepass's digest";
    }
    aclFreeUser(u);
    return why;
}

/* Loads the users of an ACL file, as Redis's ACLLoadFromFile: one "user
 * <name> <rule> ..." per line, words split on spaces. All lines or none:
 * on any error the users stay as they were and the errors are returned. */
static sds aclLoadFromFile(const char *filename) {
    FILE *fp = fopen(filename, "r");
    if (!fp) return sdscatprintf(sdsempty(), "Error loading ACLs, opening file '%s': %s", filename, strerror(errno));
    sds acls = sdsempty();
    char buf[1024];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) acls = sdscatlen(acls, buf, n);
    fclose(fp);

    dict *fresh = dictCreate(&sdsKeyDictType);
    int default_seen = 0;
    sds errors = sdsempty();
    int totlines;
    sds *lines = aclSplit(acls, sdslen(acls), '\n', &totlines);
    sdsfree(acls);
    for (int i = 0; i < totlines; i++) {
        int linenum = i + 1;
        lines[i] = sdstrim(lines[i], " \t\r\n");
        if (lines[i][0] == '\0') continue;
        int argc;
        sds *argv = aclSplit(lines[i], sdslen(lines[i]), ' ', &argc);
        if (strcmp(argv[0], "user") || argc < 2) {
            errors = sdscatprintf(errors, "%s:%d should start with user keyword followed by the username. ", filename,
                                  linenum);
        } else if (aclHasSpaces(argv[1], sdslen(argv[1]))) {
            errors = sdscatprintf(errors, "'%s:%d: username '%s' contains invalid characters. ", filename, linenum,
                                  argv[1]);
        } else if (dictFind(fresh, argv[1]) || (!strcmp(argv[1], "default") && default_seen)) {
            errors = sdscatprintf(errors, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum);
        } else if (!strcmp(argv[1], "default")) {
            const char *why = aclCheckDefaultLine(argv + 2, argc - 2);
            if (why) errors = sdscatprintf(errors, "%s:%d: %s. ", filename, linenum, why);
            default_seen = 1;
        } else {
            int nrules, unmatched;
            sds *rules = aclMergeSelectorArgs(argv + 2, argc - 2, &nrules, &unmatched);
            if (!rules) {
                errors = sdscatprintf(errors, "%s:%d: Unmatched parenthesis in acl selector starting at '%s'. ",
                                      filename, linenum, argv[2 + unmatched]);
            } else {
                aclUser *u = aclCreateUser(argv[1], sdslen(argv[1]));
                int bad = 0;
                for (int j = 0; j < nrules; j++) {
                    if (sdslen(rules[j]) == 0) continue; /* two spaces: an empty rule, a no-op */
                    int rerr = aclSetUserRule(u, rules[j], sdslen(rules[j]));
                    if (rerr != ACL_RULE_OK) {
                        errors = sdscatprintf(errors, "%s:%d: Error in applying operation '%s': %s. ", filename,
                                              linenum, rules[j], aclRuleErrorString(rerr));
                        bad = 1;
                    }
                }
                freeSdsArray(rules, nrules);
                if (bad) aclFreeUser(u);
                else dictAdd(fresh, sdsdup(u->name), u);
            }
        }
        freeSdsArray(argv, argc);
    }
    freeSdsArray(lines, totlines);

    if (sdslen(errors)) {
        dictIterator it;
        dictEntry *de;
        dictInitIterator(&it, fresh);
        while ((de = dictNext(&it))) aclFreeUser(de->val);
        dictRelease(fresh);
        return sdscat(errors, "WARNING: ACL errors detected, no change to the previously active ACL rules was "
                              "performed");
    }
    sdsfree(errors);
    /* The old users go, and with them their connections (their rules may
     * have changed or gone). */
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, Users);
    while ((de = dictNext(&it))) {
        aclKillUserClients(de->val);
        aclFreeUser(de->val);
    }
    dictRelease(Users);
    Users = fresh;
    return NULL;
}

static int cmpSds(const void *a, const void *b);

/* Writes every user, "default" first among them in name order, as ACL LIST
 * lines: a temporary file, then rename. */
static int aclSaveToFile(const char *filename) {
    unsigned long n = dictSize(Users);
    sds *names = zmalloc(sizeof(sds) * (n + 1));
    unsigned long k = 0;
    names[k++] = sdsnew("default");
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, Users);
    while ((de = dictNext(&it))) names[k++] = sdsdup(de->key);
    qsort(names, k, sizeof(sds), cmpSds);
    sds acl = sdsempty();
    for (unsigned long j = 0; j < k; j++) {
        sds line = aclDescribeUser(names[j], strcmp(names[j], "default") ? aclLookupUser(names[j], sdslen(names[j])) : NULL);
        acl = sdscatlen(sdscatsds(acl, line), "\n", 1);
        sdsfree(line);
    }
    freeSdsArray(names, (int)k);
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d-%lld", filename, (int)getpid(), mstime());
    int ret = C_ERR;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Opening temp ACL file for ACL SAVE: %s", strerror(errno));
    } else {
        size_t off = 0;
        while (off < sdslen(acl)) {
            ssize_t w = write(fd, acl + off, sdslen(acl) - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        if (off != sdslen(acl) || fsync(fd) == -1) {
            serverLog(LL_WARNING, "Writing ACL file for ACL SAVE: %s", strerror(errno));
        } else if (rename(tmp, filename) == -1) {
            serverLog(LL_WARNING, "Renaming ACL file for ACL SAVE: %s", strerror(errno));
        } else {
            ret = C_OK;
        }
        close(fd);
        if (ret != C_OK) unlink(tmp);
    }
    sdsfree(tmp);
    sdsfree(acl);
    return ret;
}

#define ACL_NO_FILE_ERR                                                                                             \
    "This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER " \
    "command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store " \
    "users in the Redis configuration."

static void aclLoadCommand(client *c) {
    if (!server.cfg.acl_filename) {
        addReplyError(c, ACL_NO_FILE_ERR);
        return;
    }
    sds errors = aclLoadFromFile(server.cfg.acl_filename);
    if (!errors) {
        addReplyOk(c);
    } else {
        addReplyError(c, errors);
        sdsfree(errors);
    }
}

static void aclSaveCommand(client *c) {
    if (!server.cfg.acl_filename) {
        addReplyError(c, ACL_NO_FILE_ERR);
        return;
    }
    if (aclSaveToFile(server.cfg.acl_filename) == C_OK) addReplyOk(c);
    else addReplyError(c, "There was an error trying to save the ACLs. Please check the server logs for more information");
}

/* ========================================================================
 * ACL LOG: refused commands and authentications, as Redis 7.2
 * ===================================================================== */

#define ACL_LOG_GROUPING_MAX_TIME_DELTA 60000 /* ms: repeats within it share an entry */

typedef struct aclLogEntry {
    long long count;
    int reason;  /* ACL_DENIED_* */
    int context; /* ACL_LOG_CTX_* */
    sds object;  /* the command, key, channel, or AUTH/HELLO */
    sds username;
    long long ctime;             /* last occurrence, unix ms */
    long long entry_id;
    long long timestamp_created; /* first occurrence */
    sds cinfo;                   /* CLIENT LIST line of the last client */
} aclLogEntry;

static list *AclLog;
static long long AclLogEntryCount;

static void aclFreeLogEntry(aclLogEntry *le) {
    sdsfree(le->object);
    sdsfree(le->username);
    sdsfree(le->cinfo);
    zfree(le);
}

static void aclLogTrim(void) {
    while (AclLog && listLength(AclLog) > (unsigned long)server.cfg.acllog_max_len) {
        listNode *ln = listLast(AclLog);
        aclFreeLogEntry(ln->value);
        listDelNode(AclLog, ln);
    }
}

/* Records a refusal: username NULL is the client's user; object NULL is
 * what the reason names (the command, the argument at argpos, or the
 * command name for AUTH). Also counts it for INFO stats. */
void aclLogDenied(client *c, int reason, int context, int argpos, const char *username, const char *object) {
    switch (reason) {
    case ACL_DENIED_AUTH: server.stat_acl_denied_auth++; break;
    case ACL_DENIED_CMD: server.stat_acl_denied_cmd++; break;
    case ACL_DENIED_KEY: server.stat_acl_denied_key++; break;
    default: server.stat_acl_denied_channel++; break;
    }
    if (!AclLog) AclLog = listCreate();
    aclLogEntry *le = zcalloc(sizeof(*le));
    le->count = 1;
    le->reason = reason;
    le->context = context;
    le->username = sdsnew(username ? username : aclClientUserName(c));
    if (object) le->object = sdsnew(object);
    else if (reason == ACL_DENIED_CMD) le->object = sdsdup(c->cmd->fullname);
    else if (reason == ACL_DENIED_AUTH) le->object = sdsdup(c->argv[0]);
    else le->object = sdsdup(c->argv[argpos]);
    le->ctime = le->timestamp_created = commandTimeSnapshot();
    le->cinfo = catClientInfoString(sdsempty(), c);

    /* The same refusal within a minute bumps an existing entry (of the 10
     * most recent ones), as Redis groups them. */
    long toscan = 10;
    for (listNode *ln = listFirst(AclLog); ln && toscan--; ln = ln->next) {
        aclLogEntry *cur = ln->value;
        if (cur->reason != le->reason || cur->context != le->context ||
            le->ctime - cur->ctime > ACL_LOG_GROUPING_MAX_TIME_DELTA || sdscmp(cur->object, le->object) ||
            sdscmp(cur->username, le->username))
            continue;
        sdsfree(cur->cinfo);
        cur->cinfo = le->cinfo;
        le->cinfo = NULL;
        cur->ctime = le->ctime;
        cur->count++;
        listDelNode(AclLog, ln);
        listAddNodeHead(AclLog, cur);
        aclFreeLogEntry(le);
        return;
    }
    le->entry_id = AclLogEntryCount++;
    listAddNodeHead(AclLog, le);
    aclLogTrim();
}

static void aclLogFreeAll(void) {
    if (!AclLog) return;
    for (listNode *ln = listFirst(AclLog); ln; ln = ln->next) aclFreeLogEntry(ln->value);
    listRelease(AclLog);
    AclLog = NULL;
}

/* ACL LOG [<count> | RESET] */
static void aclLogCommand(client *c) {
    long long count = 10;
    if (c->argc == 3) {
        if (!strcasecmp(c->argv[2], "reset")) {
            aclLogFreeAll();
            addReplyOk(c);
            return;
        }
        if (!string2ll(c->argv[2], sdslen(c->argv[2]), &count)) {
            addReplyErrorNotInteger(c);
            return;
        }
    } else if (c->argc != 2) {
        addReplyErrorSyntax(c);
        return;
    }
    static const char *reasons[] = {"unknown", "command", "key", "channel", "auth"};
    static const char *contexts[] = {"toplevel", "lua", "multi"};
    long long now = commandTimeSnapshot();
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (listNode *ln = AclLog ? listFirst(AclLog) : NULL; ln && count-- != 0; ln = ln->next, n++) {
        aclLogEntry *le = ln->value;
        addReplyMapLen(c, 10);
        addReplyBulkCString(c, "count");
        addReplyLongLong(c, le->count);
        addReplyBulkCString(c, "reason");
        addReplyBulkCString(c, reasons[le->reason >= 0 && le->reason <= 4 ? le->reason : 0]);
        addReplyBulkCString(c, "context");
        addReplyBulkCString(c, contexts[le->context]);
        addReplyBulkCString(c, "object");
        addReplyBulk(c, le->object, sdslen(le->object));
        addReplyBulkCString(c, "username");
        addReplyBulk(c, le->username, sdslen(le->username));
        addReplyBulkCString(c, "age-seconds");
        addReplyDouble(c, (double)(now - le->ctime) / 1000);
        addReplyBulkCString(c, "client-info");
        addReplyBulk(c, le->cinfo, sdslen(le->cinfo));
        addReplyBulkCString(c, "entry-id");
        addReplyLongLong(c, le->entry_id);
        addReplyBulkCString(c, "timestamp-created");
        addReplyLongLong(c, le->timestamp_created);
        addReplyBulkCString(c, "timestamp-last-updated");
        addReplyLongLong(c, le->ctime);
    }
    setDeferredArrayLen(c, len, n);
}

/* ========================================================================
 * ACL command
 * ===================================================================== */

static void aclWhoamiCommand(client *c) { addReplyBulkCString(c, aclClientUserName(c)); }

/* argv[0] is the user name, then its rules (ACL SETUSER, `user` lines). */
static int aclSetUserFromArgs(sds *argv, int argc, sds *err) {
    sds name = argv[0];
    if (!strcmp(name, "default")) {
        *err = sdsnew("casq configures the 'default' user with requirepass (CONFIG SET requirepass); ACL SETUSER "
                      "default is not supported");
        return C_ERR;
    }
    int nrules, bad;
    sds *rules = aclMergeSelectorArgs(argv + 1, argc - 1, &nrules, &bad);
    if (!rules) {
        *err = sdscatprintf(sdsempty(), "Unmatched parenthesis in acl selector starting at '%s'.", argv[1 + bad]);
        return C_ERR;
    }
    aclUser *old = aclLookupUser(name, sdslen(name));
    /* All rules or none: they are applied to a copy. */
    aclUser *u = old ? aclDupUser(old) : aclCreateUser(name, sdslen(name));
    for (int j = 0; j < nrules; j++) {
        int rerr = aclSetUserRule(u, rules[j], sdslen(rules[j]));
        if (rerr != ACL_RULE_OK) {
            *err = sdscatprintf(sdsempty(), "Error in ACL SETUSER modifier '%s': %s", rules[j],
                                aclRuleErrorString(rerr));
            aclFreeUser(u);
            freeSdsArray(rules, nrules);
            return C_ERR;
        }
    }
    freeSdsArray(rules, nrules);
    if (old) {
        /* Swap the contents so that connections keep their pointer. */
        aclUser tmp = *old;
        *old = *u;
        *u = tmp;
        aclFreeUser(u);
    } else {
        dictAdd(Users, sdsdup(u->name), u);
    }
    return C_OK;
}

static void aclSetuserCommand(client *c) {
    sds err = NULL;
    if (aclHasSpaces(c->argv[2], sdslen(c->argv[2]))) {
        addReplyError(c, "Usernames can't contain spaces or null characters");
        return;
    }
    if (aclSetUserFromArgs(c->argv + 2, c->argc - 2, &err) == C_OK) addReplyOk(c);
    else addReplyError(c, err);
    sdsfree(err);
}

/* Connections of a deleted user are closed, as in Redis. */
static void aclKillUserClients(aclUser *u) {
    listNode *ln;
    for (ln = listFirst(server.clients); ln; ln = ln->next) {
        client *c = ln->value;
        if (c->user != u) continue;
        aclResetClientUser(c);
        if (c == server.current_client) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else freeClientAsync(c);
    }
}

static void aclDeluserCommand(client *c) {
    for (int j = 2; j < c->argc; j++) {
        if (!strcmp(c->argv[j], "default")) {
            addReplyError(c, "The 'default' user cannot be removed");
            return;
        }
    }
    long long deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        aclUser *u = aclLookupUser(c->argv[j], sdslen(c->argv[j]));
        if (!u) continue;
        aclKillUserClients(u);
        dictDelete(Users, c->argv[j]);
        aclFreeUser(u);
        deleted++;
    }
    addReplyLongLong(c, deleted);
}

static int cmpSds(const void *a, const void *b) {
    const sds x = *(const sds *)a, y = *(const sds *)b;
    return sdscmp(x, y);
}

static void aclUsersCommand(client *c) {
    unsigned long n = Users ? dictSize(Users) : 0;
    sds *names = zmalloc(sizeof(sds) * (n + 1));
    unsigned long k = 0;
    names[k++] = sdsnew("default");
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, Users);
    while ((de = dictNext(&it))) names[k++] = sdsdup(de->key);
    qsort(names, k, sizeof(sds), cmpSds);
    addReplyArrayLen(c, (long)k);
    for (unsigned long j = 0; j < k; j++) addReplyBulk(c, names[j], sdslen(names[j]));
    freeSdsArray(names, (int)k);
}

/* ACL CAT: the categories; ACL CAT <category>: its commands and
 * subcommands (full names), as Redis 7. */
static void aclCatCommand(client *c) {
    if (c->argc == 2) {
        int n = 0;
        while (aclCategoryNameByBit(n)) n++;
        addReplyArrayLen(c, n);
        for (int j = 0; j < n; j++) addReplyBulkCString(c, aclCategoryNameByBit(j));
        return;
    }
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    int bit = aclCategoryBitByName(c->argv[2], sdslen(c->argv[2]));
    if (bit < 0) {
        addReplyErrorFormat(c, "Unknown category '%.128s'", c->argv[2]);
        return;
    }
    uint64_t mask = 1ULL << bit;
    void *len = addReplyDeferredLen(c);
    long count = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, server.commands);
    while ((de = dictNext(&it))) {
        struct redisCommand *cmd = de->val;
        if (commandAclCategoryBits(cmd) & mask) {
            addReplyBulkCString(c, cmd->fullname);
            count++;
        }
        if (cmd->subcommands) {
            for (struct redisCommand *sub = cmd->subcommands; sub->name; sub++) {
                if (!(commandAclCategoryBits(sub) & mask)) continue;
                addReplyBulkCString(c, sub->fullname);
                count++;
            }
        }
    }
    setDeferredArrayLen(c, len, count);
}

/* The parts of a user's description (ACL GETUSER, ACL LIST). "default"
 * (u NULL) is what requirepass makes of it. */
static sds aclDescribeKeys(aclUser *u) {
    if (!u || u->allkeys) return sdsnew("~*");
    sds s = sdsempty();
    for (int j = 0; j < u->npatterns; j++) {
        if (j) s = sdscatlen(s, " ", 1);
        int f = u->pflags[j];
        s = sdscat(s, f == (ACL_KEY_READ | ACL_KEY_WRITE) ? "~" : f == ACL_KEY_READ ? "%R~" : "%W~");
        s = sdscatsds(s, u->patterns[j]);
    }
    return s;
}

static sds aclDescribeChannels(aclUser *u, int for_list) {
    if (!u || u->allchannels) return sdsnew("&*");
    sds s = sdsnew(for_list ? "resetchannels" : "");
    for (int j = 0; j < u->nchannels; j++) {
        if (sdslen(s)) s = sdscatlen(s, " ", 1);
        s = sdscatsds(sdscatlen(s, "&", 1), u->channels[j]);
    }
    return s;
}

static sds aclDescribeCommands(aclUser *u) {
    if (!u) return sdsnew("+@all");
    sds s = sdsnew(u->base_all ? "+@all" : "-@all");
    if (sdslen(u->cmd_rules)) s = sdscatsds(sdscatlen(s, " ", 1), u->cmd_rules);
    return s;
}

static sds aclHexHash(const unsigned char h[ACL_HASH_LEN]) {
    static const char hex[] = "0123456789abcdef";
    sds s = sdsempty();
    for (int j = 0; j < ACL_HASH_LEN; j++) {
        char b[2] = {hex[h[j] >> 4], hex[h[j] & 15]};
        s = sdscatlen(s, b, 2);
    }
    return s;
}

/* The password digests: a user's own, or requirepass's for "default". */
static int aclUserHashes(aclUser *u, unsigned char (**out)[ACL_HASH_LEN]) {
    if (u) {
        *out = u->pass;
        return u->npass;
    }
    static unsigned char h[1][ACL_HASH_LEN];
    if (!server.cfg.requirepass) return 0;
    aclHashPassword(server.cfg.requirepass, strlen(server.cfg.requirepass), h[0]);
    *out = h;
    return 1;
}

/* ACL GETUSER <username> */
static void aclGetuserCommand(client *c) {
    sds name = c->argv[2];
    aclUser *u = NULL;
    if (strcmp(name, "default")) {
        u = aclLookupUser(name, sdslen(name));
        if (!u) {
            addReplyNull(c);
            return;
        }
    }
    int enabled = u ? u->enabled : 1;
    int nopass = u ? u->nopass : server.cfg.requirepass == NULL;
    addReplyMapLen(c, 6);
    int sanitize = u ? u->sanitize : 0;
    addReplyBulkCString(c, "flags");
    addReplySetLen(c, 1 + nopass + (sanitize != 0));
    addReplyBulkCString(c, enabled ? "on" : "off");
    if (nopass) addReplyBulkCString(c, "nopass");
    if (sanitize == ACL_SKIP_SANITIZE_PAYLOAD) addReplyBulkCString(c, "skip-sanitize-payload");
    if (sanitize == ACL_SANITIZE_PAYLOAD) addReplyBulkCString(c, "sanitize-payload");
    addReplyBulkCString(c, "passwords");
    unsigned char(*hashes)[ACL_HASH_LEN] = NULL;
    int n = aclUserHashes(u, &hashes);
    addReplyArrayLen(c, n);
    for (int j = 0; j < n; j++) addReplyBulkSds(c, aclHexHash(hashes[j]));
    addReplyBulkCString(c, "commands");
    addReplyBulkSds(c, aclDescribeCommands(u));
    addReplyBulkCString(c, "keys");
    addReplyBulkSds(c, aclDescribeKeys(u));
    addReplyBulkCString(c, "channels");
    addReplyBulkSds(c, aclDescribeChannels(u, 0));
    addReplyBulkCString(c, "selectors");
    int nsel = u ? u->nsel : 0;
    addReplyArrayLen(c, nsel);
    for (int j = 0; j < nsel; j++) {
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "commands");
        addReplyBulkSds(c, aclDescribeCommands(u->sels[j]));
        addReplyBulkCString(c, "keys");
        addReplyBulkSds(c, aclDescribeKeys(u->sels[j]));
        addReplyBulkCString(c, "channels");
        addReplyBulkSds(c, aclDescribeChannels(u->sels[j], 0));
    }
}

/* One ACL LIST line: "user <name> on|off [nopass] #<hash>... keys channels
 * commands", as Redis writes it (and an aclfile would hold it). */
static sds aclDescribeUser(const char *name, aclUser *u) {
    sds s = sdscatlen(sdscat(sdsnew("user "), name), " ", 1);
    s = sdscat(s, (u ? u->enabled : 1) ? "on " : "off ");
    if (u ? u->nopass : server.cfg.requirepass == NULL) s = sdscat(s, "nopass ");
    if (u && u->sanitize == ACL_SKIP_SANITIZE_PAYLOAD) s = sdscat(s, "skip-sanitize-payload ");
    if (u && u->sanitize == ACL_SANITIZE_PAYLOAD) s = sdscat(s, "sanitize-payload ");
    unsigned char(*hashes)[ACL_HASH_LEN] = NULL;
    int n = aclUserHashes(u, &hashes);
    for (int j = 0; j < n; j++) {
        sds h = aclHexHash(hashes[j]);
        s = sdscatlen(sdscatsds(sdscatlen(s, "#", 1), h), " ", 1);
        sdsfree(h);
    }
    sds part = aclDescribeKeys(u);
    if (sdslen(part)) s = sdscatlen(sdscatsds(s, part), " ", 1);
    sdsfree(part);
    part = aclDescribeChannels(u, 1);
    if (sdslen(part)) s = sdscatlen(sdscatsds(s, part), " ", 1);
    sdsfree(part);
    part = aclDescribeCommands(u);
    s = sdscatsds(s, part);
    sdsfree(part);
    for (int j = 0; u && j < u->nsel; j++) {
        aclUser *sel = u->sels[j];
        s = sdscat(s, " (");
        part = aclDescribeKeys(sel);
        if (sdslen(part)) s = sdscatlen(sdscatsds(s, part), " ", 1);
        sdsfree(part);
        part = aclDescribeChannels(sel, 1);
        if (sdslen(part)) s = sdscatlen(sdscatsds(s, part), " ", 1);
        sdsfree(part);
        part = aclDescribeCommands(sel);
        s = sdscatlen(sdscatsds(s, part), ")", 1);
        sdsfree(part);
    }
    return s;
}

static void aclListCommand(client *c) {
    unsigned long n = Users ? dictSize(Users) : 0;
    sds *names = zmalloc(sizeof(sds) * (n + 1));
    unsigned long k = 0;
    names[k++] = sdsnew("default");
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, Users);
    while ((de = dictNext(&it))) names[k++] = sdsdup(de->key);
    qsort(names, k, sizeof(sds), cmpSds);
    addReplyArrayLen(c, (long)k);
    for (unsigned long j = 0; j < k; j++)
        addReplyBulkSds(c, aclDescribeUser(names[j], strcmp(names[j], "default") ? aclLookupUser(names[j], sdslen(names[j])) : NULL));
    freeSdsArray(names, (int)k);
}

/* ACL DRYRUN <user> <command> [arg ...]: whether the user could run it,
 * with Redis's verbose messages (a bulk string) when not. */
static void aclDryrunCommand(client *c) {
    sds name = c->argv[2];
    aclUser *u = NULL;
    if (strcmp(name, "default")) {
        u = aclLookupUser(name, sdslen(name));
        if (!u) {
            addReplyErrorFormat(c, "User '%s' not found", name);
            return;
        }
    }
    struct redisCommand *cmd = lookupCommand(c->argv + 3, c->argc - 3);
    if (!cmd) {
        addReplyErrorFormat(c, "Command '%s' not found", c->argv[3]);
        return;
    }
    int argc = c->argc - 3;
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyErrorFormat(c, "wrong number of arguments for '%s' command", cmd->fullname);
        return;
    }
    int errpos;
    int res = aclCheckPermFor(u, cmd, c->argv + 3, argc, &errpos);
    if (res == ACL_OK) {
        addReplyOk(c);
    } else if (res == ACL_DENIED_CMD) {
        addReplyBulkSds(c, sdscatprintf(sdsempty(), "User %s has no permissions to run the '%s' command", name,
                                        cmd->fullname));
    } else {
        addReplyBulkSds(c, sdscatprintf(sdsempty(), "User %s has no permissions to access the '%s' %s", name,
                                        c->argv[3 + errpos], res == ACL_DENIED_KEY ? "key" : "channel"));
    }
}

/* ACL GENPASS [<bits>]: a random password, bits/4 hex digits rounded up
 * (256 bits by default), from the system's random source. */
static void aclGenpassCommand(client *c) {
    long long bits = 256;
    if (c->argc == 3 && (!string2ll(c->argv[2], sdslen(c->argv[2]), &bits) || bits <= 0 || bits > 4096)) {
        addReplyError(c, "ACL GENPASS argument must be the number of bits for the output password, a positive number "
                         "up to 4096");
        return;
    }
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    size_t chars = (size_t)(bits + 3) / 4;
    unsigned char raw[1024];
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd != -1) {
        while (got < (chars + 1) / 2) {
            ssize_t n = read(fd, raw + got, (chars + 1) / 2 - got);
            if (n <= 0) break;
            got += (size_t)n;
        }
        close(fd);
    }
    if (got < (chars + 1) / 2) {
        addReplyError(c, "Unable to read random bytes for ACL GENPASS");
        return;
    }
    static const char hex[] = "0123456789abcdef";
    sds pw = sdsempty();
    for (size_t j = 0; j < chars; j++) {
        unsigned char b = raw[j / 2];
        char ch = hex[j % 2 ? (b & 15) : (b >> 4)];
        pw = sdscatlen(pw, &ch, 1);
    }
    addReplyBulkSds(c, pw);
}

static void aclHelpCommand(client *c) {
    const char *help[] = {
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "GETUSER <username>",
        "    Get the user's details.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> ...",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        NULL};
    addReplyHelp(c, help);
}

#define ACL_ADMIN_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
#define ACL_CONN_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

static struct redisCommand aclSubcommands[] = {
    {"whoami", aclWhoamiCommand, 2, ACL_CONN_FLAGS, 0, 0, 0, "slow", NULL},
    {"cat", aclCatCommand, -2, ACL_CONN_FLAGS, 0, 0, 0, "slow", NULL},
    {"setuser", aclSetuserCommand, -3, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"deluser", aclDeluserCommand, -3, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"dryrun", aclDryrunCommand, -4, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"log", aclLogCommand, -2, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"getuser", aclGetuserCommand, 3, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"genpass", aclGenpassCommand, -2, ACL_CONN_FLAGS, 0, 0, 0, "slow", NULL},
    {"load", aclLoadCommand, 2, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"save", aclSaveCommand, 2, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"list", aclListCommand, 2, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"users", aclUsersCommand, 2, ACL_ADMIN_FLAGS, 0, 0, 0, "admin slow dangerous", NULL},
    {"help", aclHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0, "slow", NULL},
    {0},
};

struct redisCommand aclCommandTable[] = {
    {"acl", NULL, -2, 0, 0, 0, 0, "slow", aclSubcommands},
    {0},
};
