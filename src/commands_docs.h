/* commands_docs.h -- what COMMAND DOCS and COMMAND INFO say about commands.
 *
 * The command tables (one per module, see server.h) hold what the server
 * needs to *run* a command: handler, arity, flags. This file describes what
 * Redis 7.2 publishes *about* each command: summary, history, the argument
 * tree that redis-cli turns into hints, and the key specs that COMMAND INFO
 * and COMMAND GETKEYS use. The data itself lives in commands_docs.c, one
 * entry per command and per subcommand, keyed by full name ("xgroup|create");
 * attachCommandDocs() links every command row to its entry at start-up.
 *
 * Every array below is terminated by an all-zero element, so the data can
 * be written as plain nested initializers without hand-kept counts. */
#ifndef CASQ_COMMANDS_DOCS_H
#define CASQ_COMMANDS_DOCS_H

#include <stdint.h>

#include "sds.h"

/* Argument types, in the order of their COMMAND DOCS names
 * (commandArgTypeName()). */
typedef enum commandArgType {
    ARG_TYPE_STRING,
    ARG_TYPE_INTEGER,
    ARG_TYPE_DOUBLE,
    ARG_TYPE_KEY,        /* a key name: has a key_spec_index */
    ARG_TYPE_PATTERN,
    ARG_TYPE_UNIX_TIME,
    ARG_TYPE_PURE_TOKEN, /* only the token, no value */
    ARG_TYPE_ONEOF,      /* exactly one of the subargs */
    ARG_TYPE_BLOCK,      /* all the subargs, in order */
} commandArgType;

/* Argument flags (COMMAND DOCS "flags"). */
#define CMD_ARG_NONE 0
#define CMD_ARG_OPTIONAL (1 << 0)       /* may be omitted */
#define CMD_ARG_MULTIPLE (1 << 1)       /* may repeat */
#define CMD_ARG_MULTIPLE_TOKEN (1 << 2) /* repeats together with its token */

typedef struct commandArg {
    const char *name;             /* identifies the argument (not shown in syntax) */
    commandArgType type;          /* ARG_TYPE_* */
    int key_spec_index;           /* for ARG_TYPE_KEY: index into key_specs */
    const char *token;            /* literal that introduces it, or NULL */
    const char *summary;          /* short description, or NULL */
    const char *since;            /* version that added it, or NULL */
    int flags;                    /* CMD_ARG_* */
    const char *deprecated_since; /* or NULL */
    const char *display_text;     /* how syntax shows the value, or NULL */
    const struct commandArg *subargs; /* ONEOF/BLOCK members, {0}-terminated */
} commandArg;

/* One line of a command's history: what changed in which version. */
typedef struct commandHistory {
    const char *since;   /* version */
    const char *changes; /* description */
} commandHistory;

/* Key spec flags (COMMAND INFO key spec "flags"), as Redis defines them. */
#define KSPEC_RO (1ULL << 0)      /* read-only access to the key's value */
#define KSPEC_RW (1ULL << 1)      /* read and write */
#define KSPEC_OW (1ULL << 2)      /* overwrite without reading */
#define KSPEC_RM (1ULL << 3)      /* may delete the key */
#define KSPEC_ACCESS (1ULL << 4)  /* returns, copies or uses user data */
#define KSPEC_UPDATE (1ULL << 5)  /* updates data in place */
#define KSPEC_INSERT (1ULL << 6)  /* adds data, never modifies or deletes */
#define KSPEC_DELETE (1ULL << 7)  /* explicitly deletes data */
#define KSPEC_NOT_KEY (1ULL << 8) /* a key name that is not a key (cluster only) */
#define KSPEC_INCOMPLETE (1ULL << 9)     /* the spec may miss keys */
#define KSPEC_VARIABLE_FLAGS (1ULL << 10) /* flags depend on the arguments */

typedef enum keySpecBeginSearch {
    KSPEC_BS_INVALID = 0, /* terminator of a key_specs array */
    KSPEC_BS_UNKNOWN,
    KSPEC_BS_INDEX,       /* keys start at a fixed argument index */
    KSPEC_BS_KEYWORD,     /* keys start after a keyword (STREAMS) */
} keySpecBeginSearch;

typedef enum keySpecFindKeys {
    KSPEC_FK_UNKNOWN = 0,
    KSPEC_FK_RANGE,  /* a range from the begin-search point */
    KSPEC_FK_KEYNUM, /* an argument tells how many keys follow */
} keySpecFindKeys;

/* Where a command's keys are, in Redis 7's "key specs" language. */
typedef struct keySpec {
    const char *notes;      /* free text, or NULL */
    uint64_t flags;         /* KSPEC_* */
    keySpecBeginSearch bs_type;
    union {
        struct {
            int pos;               /* absolute argument index */
        } index;
        struct {
            const char *keyword;   /* e.g. "STREAMS" */
            int startfrom;         /* where to look for it; <0 = from the end */
        } keyword;
    } bs;
    keySpecFindKeys fk_type;
    union {
        struct {
            int lastkey;   /* relative to the first key; <0 = from the end */
            int keystep;   /* step between keys */
            int limit;     /* lastkey -1 only: keys = remaining args / limit */
        } range;
        struct {
            int keynumidx; /* relative index of the "numkeys" argument */
            int firstkey;  /* relative index of the first key */
            int keystep;   /* step between keys */
        } keynum;
    } fk;
} keySpec;

/* Documentation flags. */
#define CMD_DOC_NONE 0
#define CMD_DOC_DEPRECATED (1 << 0) /* the command is deprecated */
#define CMD_DOC_SYSCMD (1 << 1)     /* a system command, not for users */

/* Everything Redis 7.2 publishes about one command or subcommand. The
 * `redis_*` fields are Redis's own table values; casq's command rows must
 * agree with them (tests/unit/test_commands.c checks it), so COMMAND INFO
 * reports what a Redis client expects. */
typedef struct commandDoc {
    const char *name;        /* full name, lower case: "xadd", "xgroup|create" */
    const char *summary;
    const char *since;
    const char *group;       /* "stream", "generic", "connection", "server" ... */
    const char *complexity;  /* or NULL */
    int doc_flags;           /* CMD_DOC_* */
    const char *deprecated_since; /* or NULL */
    const char *replaced_by;      /* or NULL */
    const commandHistory *history; /* {0}-terminated, or NULL */
    const char *const *tips;       /* NULL-terminated, or NULL */
    const keySpec *key_specs;      /* bs_type KSPEC_BS_INVALID-terminated, or NULL */
    const commandArg *args;        /* {0}-terminated, or NULL */
    /* --- Redis's command table values, for consistency checks --- */
    int redis_arity;
    const char *redis_flags;  /* space separated COMMAND INFO flag names */
    const char *redis_acl;    /* space separated, with '@' */
    int redis_firstkey, redis_lastkey, redis_keystep; /* legacy key range */
} commandDoc;

/* The core commands' entries (commands_docs.c), terminated by one whose
 * name is NULL. */
extern const commandDoc commandDocsTable[];
/* Every table (the core's and each type module's), NULL-terminated; each
 * table is sorted by name and terminated like commandDocsTable. */
extern const commandDoc *const commandDocsTables[];

struct redisCommand;

/* Looks up the entry for a full name ("xgroup|create"), NULL if none. */
const commandDoc *lookupCommandDoc(const char *fullname);
/* Sets cmd->doc for every command and subcommand in server.commands;
 * logs a warning for any row left without docs (a bug: the unit tests
 * assert there is none). */
void attachCommandDocs(void);
/* How many command rows (subcommands included) have no docs attached. */
int commandsMissingDocs(void);
const char *commandArgTypeName(commandArgType type);
int keySpecsCount(const keySpec *specs);

/* ------------------------------------------------------------------------
 * Key extraction from key specs (command.c): COMMAND GETKEYS and anything
 * else that needs to know which arguments are keys.
 * --------------------------------------------------------------------- */
typedef struct keyReference {
    int pos;        /* argument index of the key */
    uint64_t flags; /* KSPEC_* of the spec that found it */
} keyReference;

/* Fills *keys (zmalloc'ed, caller frees) with the key positions of argv
 * according to cmd's key specs. Returns the number of keys, or -1 if the
 * arguments cannot be parsed (e.g. a keynum out of range). */
int getKeysFromCommandSpecs(struct redisCommand *cmd, char **argv, int argc, keyReference **keys);

/* Space-separated flags / "@category" names of a command as COMMAND INFO
 * reports them (for tests and diagnostics). */
sds catCommandFlagNames(sds s, struct redisCommand *cmd);
sds catCommandAclCategories(sds s, struct redisCommand *cmd);

#endif
