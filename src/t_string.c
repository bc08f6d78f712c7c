/* t_string.c -- the string type: SET and its options, GET, GETDEL, GETEX,
 * GETSET, SETNX, SETEX, PSETEX, MGET, MSET, MSETNX, INCR/DECR/INCRBY/
 * DECRBY/INCRBYFLOAT, APPEND, STRLEN, GETRANGE, SETRANGE.
 *
 * Semantics, replies and error strings are Redis 7.2's t_string.c. A
 * string value is one allocation: its length, its room, the encoding
 * Redis would report for it, and the bytes. casq keeps every string as
 * bytes, but OBJECT ENCODING follows Redis's rules exactly:
 *
 *   - "int": a value Redis would store as a long: made by SET, GETSET,
 *     MSET, SETEX ... (tryObjectEncoding) from a canonical decimal of at
 *     most 20 characters that fits a long, and by INCR and friends;
 *   - "embstr": any other value of at most 44 bytes made that way, and
 *     INCRBYFLOAT's results of at most 44 bytes;
 *   - "raw": longer values, and any value APPEND or SETRANGE changed
 *     (Redis unshares the value into a raw sds before changing it).
 *
 * A loaded value (restart) gets tryObjectEncoding's encoding, as a value
 * Redis loads from its RDB file does.
 *
 * Every change goes through signalModifiedKey, so it is part of the next
 * commit and the reply waits for it (design.md §4). */
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "jsonutil.h"
#include "persist.h"
#include "server.h"
#include "store.h"

/* ========================================================================
 * The value
 * ===================================================================== */

#define STRING_ENC_RAW 0
#define STRING_ENC_INT 1
#define STRING_ENC_EMBSTR 2
#define STRING_ENC_MASK 3
/* Flag in enc: the value's document JSON is kept in stringJSONCache. */
#define STRING_HAS_JSON 4

#define OBJ_ENCODING_EMBSTR_SIZE_LIMIT 44 /* Redis's */
#define STRING_MAX_PREALLOC (1024 * 1024) /* sds's SDS_MAX_PREALLOC */

typedef struct stringValue {
    size_t len;        /* bytes used; the room is what the allocator gave
                        * (strvRoom): no field of its own, so that a short
                        * value fits a smaller allocation */
    unsigned char enc; /* STRING_ENC_*: what OBJECT ENCODING says */
    char buf[];        /* the bytes, NUL-terminated */
} stringValue;

#define STRV_HDR offsetof(stringValue, buf)

/* Bytes buf can hold, not counting the NUL. */
static size_t strvRoom(stringValue *sv) { return zmalloc_size(sv) - STRV_HDR - 1; }

/* Redis's tryObjectEncoding, for a value being stored. */
static int stringCanonicalEncoding(const char *p, size_t len) {
    long long v;
    if (len <= 20 && string2ll(p, len, &v)) return STRING_ENC_INT;
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) return STRING_ENC_EMBSTR;
    return STRING_ENC_RAW;
}

/* A value of len bytes (p may be NULL: zeroes) with room for alloc. */
static stringValue *strvNew(const char *p, size_t len, size_t alloc, int enc) {
    if (alloc < len) alloc = len;
    stringValue *sv = zmalloc(STRV_HDR + alloc + 1);
    sv->len = len;
    sv->enc = (unsigned char)enc;
    if (p) memcpy(sv->buf, p, len);
    else memset(sv->buf, 0, len);
    sv->buf[len] = '\0';
    return sv;
}

/* Grows sv to hold newlen bytes, greedily as sdsMakeRoomFor does, the new
 * bytes zeroed (sdsgrowzero). */
static stringValue *strvGrowZero(stringValue *sv, size_t newlen) {
    if (newlen <= sv->len) return sv;
    if (newlen > strvRoom(sv)) {
        size_t alloc = newlen < STRING_MAX_PREALLOC ? newlen * 2 : newlen + STRING_MAX_PREALLOC;
        sv = zrealloc(sv, STRV_HDR + alloc + 1);
    }
    memset(sv->buf + sv->len, 0, newlen - sv->len + 1);
    sv->len = newlen;
    return sv;
}

static robj *createStringObjectWithEncoding(const char *p, size_t len, int enc) {
    return createObject(OBJ_STRING, strvNew(p, len, len, enc));
}

static robj *createStringObject(const char *p, size_t len) {
    return createStringObjectWithEncoding(p, len, stringCanonicalEncoding(p, len));
}

static robj *createStringObjectFromLongLong(long long v) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), v);
    return createStringObjectWithEncoding(buf, (size_t)len, STRING_ENC_INT);
}

static size_t stringObjectLen(const robj *o) { return ((const stringValue *)o->ptr)->len; }

/* Redis's dbUnshareStringValue: before an in-place change the value
 * becomes raw. */
static void stringDropJSON(stringValue *sv);

static stringValue *stringUnshare(robj *o) {
    stringValue *sv = o->ptr;
    stringDropJSON(sv);
    sv->enc = STRING_ENC_RAW;
    return sv;
}

/* ========================================================================
 * The type (server.h, objectType)
 * ===================================================================== */

/* ------------------------------------------------------------------------
 * A big string's document JSON (base64 or escaped text) is kept between
 * commits and lent to the document (docTextRef), so an unchanged big value
 * costs a commit nothing but its write. Kept aside, keyed by the value,
 * so small strings pay nothing; STRING_HAS_JSON says a value has one.
 * --------------------------------------------------------------------- */

typedef struct stringJSON {
    sds json;     /* the value's JSON */
    uint64_t pin; /* docTextRef's pin */
} stringJSON;

static void stringJSONFree(void *val) {
    stringJSON *j = val;
    docTextFree(j->json, j->pin);
    zfree(j);
}

static dictType stringJSONDictType = {dictPtrHash, dictPtrCompare, NULL, stringJSONFree};
static dict *stringJSONCache; /* stringValue* -> stringJSON* */

/* Before sv changes or goes: its JSON is stale (a borrowed one goes to the
 * document that borrowed it). */
static void stringDropJSON(stringValue *sv) {
    if (!(sv->enc & STRING_HAS_JSON)) return;
    dictDelete(stringJSONCache, sv);
    sv->enc &= (unsigned char)~STRING_HAS_JSON;
}

static void stringTypeFree(void *ptr) {
    stringDropJSON(ptr);
    zfree(ptr);
}

/* COPY keeps the encoding, as Redis's dupStringObject. */
static void *stringTypeDup(const void *ptr) {
    const stringValue *sv = ptr;
    return strvNew(sv->buf, sv->len, sv->len, sv->enc & STRING_ENC_MASK);
}

static const char *stringTypeEncoding(const robj *o) {
    switch (((const stringValue *)o->ptr)->enc & STRING_ENC_MASK) {
    case STRING_ENC_INT: return "int";
    case STRING_ENC_EMBSTR: return "embstr";
    default: return "raw";
    }
}

static size_t stringTypeComputeSize(const robj *o, long long samples) {
    (void)samples;
    return zmalloc_size(o->ptr);
}

/* Text stays about its size; binary becomes base64 (4/3). */
static size_t stringTypeJSONBytes(const robj *o) {
    size_t len = ((const stringValue *)o->ptr)->len;
    return len + len / 3 + 16;
}

static sds stringTypeCatJSON(sds out, robj *o) {
    const stringValue *sv = o->ptr;
    return jsonCatBytes(out, sv->buf, sv->len);
}

static void stringTypeDocJSON(storeDoc *d, robj *o) {
    stringValue *sv = o->ptr;
    if (!stringJSONCache) stringJSONCache = dictCreate(&stringJSONDictType);
    stringJSON *j = (sv->enc & STRING_HAS_JSON) ? dictFetchValue(stringJSONCache, sv) : NULL;
    if (!j) {
        j = zmalloc(sizeof(*j));
        j->json = jsonCatBytes(sdsempty(), sv->buf, sv->len);
        j->pin = 0;
        dictAdd(stringJSONCache, sv, j);
        sv->enc |= STRING_HAS_JSON;
    }
    docTextRef(d, j->json, &j->pin);
}

static void *stringTypeFromJSON(const cJSON *v, sds *err) {
    sds s;
    if (jsonGetBytes(v, &s, "value", err) != C_OK) return NULL;
    size_t len = sdslen(s);
    stringValue *sv = strvNew(s, len, len, stringCanonicalEncoding(s, len));
    sdsfree(s);
    return sv;
}

const objectType stringObjectType = {
    .type = OBJ_STRING,
    .name = "string",
    .free = stringTypeFree,
    .dup = stringTypeDup,
    .encoding = stringTypeEncoding,
    .computeSize = stringTypeComputeSize,
    .jsonBytes = stringTypeJSONBytes,
    .catJSON = stringTypeCatJSON,
    .docJSON = stringTypeDocJSON,
    .fromJSON = stringTypeFromJSON,
};

/* ========================================================================
 * Helpers
 * ===================================================================== */

/* Redis's checkStringLength: the result may not exceed
 * proto-max-bulk-len. */
static int checkStringLength(client *c, long long size, long long append) {
    long long total = (long long)((unsigned long long)size + (unsigned long long)append);
    if (total > server.cfg.proto_max_bulk_len || total < size || total < append) {
        addReplyError(c, "string exceeds maximum allowed size (proto-max-bulk-len)");
        return C_ERR;
    }
    return C_OK;
}

static void addReplyStringValue(client *c, robj *o) {
    const stringValue *sv = o->ptr;
    addReplyBulk(c, sv->buf, sv->len);
}

/* Redis's setKey: val replaces whatever key held (any type), and the key's
 * TTL goes unless keepttl. */
static void setKey(client *c, redisDb *db, sds key, robj *val, int keepttl) {
    long long when = keepttl ? getExpire(db, key) : -1;
    if (dictFind(db->keys, key)) dbDelete(db, key);
    dbAdd(db, key, val);
    if (when != -1) setExpire(db, key, when);
    signalModifiedKey(c, db, key, val);
}

/* Replaces the value of an existing key in place, keeping its TTL
 * (Redis's dbReplaceValue), or adds the key. */
static void setValueKeepTTL(client *c, redisDb *db, sds key, robj *existing, stringValue *nv) {
    if (existing) {
        stringTypeFree(existing->ptr);
        existing->ptr = nv;
        signalModifiedKey(c, db, key, existing);
    } else {
        robj *o = createObject(OBJ_STRING, nv);
        dbAdd(db, key, o);
        signalModifiedKey(c, db, key, o);
    }
}

/* ========================================================================
 * SET and its options (Redis's parseExtendedStringArgumentsOrReply)
 * ===================================================================== */

#define OBJ_NO_FLAGS 0
#define OBJ_SET_NX (1 << 0)
#define OBJ_SET_XX (1 << 1)
#define OBJ_EX (1 << 2)
#define OBJ_PX (1 << 3)
#define OBJ_KEEPTTL (1 << 4)
#define OBJ_SET_GET (1 << 5)
#define OBJ_EXAT (1 << 6)
#define OBJ_PXAT (1 << 7)
#define OBJ_PERSIST (1 << 8)

#define UNIT_SECONDS 0
#define UNIT_MILLISECONDS 1

#define COMMAND_GET 0
#define COMMAND_SET 1

static int isOption(const char *a, char c0, char c1) {
    return (a[0] == c0 || a[0] == c0 - 32) && (a[1] == c1 || a[1] == c1 - 32) && a[2] == '\0';
}

static int parseExtendedStringArgumentsOrReply(client *c, int *flags, int *unit, sds *expire, int command_type) {
    int j = command_type == COMMAND_GET ? 2 : 3;
    for (; j < c->argc; j++) {
        char *opt = c->argv[j];
        sds next = (j == c->argc - 1) ? NULL : c->argv[j + 1];
        if (isOption(opt, 'n', 'x') && !(*flags & OBJ_SET_XX) && command_type == COMMAND_SET) {
            *flags |= OBJ_SET_NX;
        } else if (isOption(opt, 'x', 'x') && !(*flags & OBJ_SET_NX) && command_type == COMMAND_SET) {
            *flags |= OBJ_SET_XX;
        } else if (!strcasecmp(opt, "get") && command_type == COMMAND_SET) {
            *flags |= OBJ_SET_GET;
        } else if (!strcasecmp(opt, "keepttl") && !(*flags & OBJ_PERSIST) && !(*flags & OBJ_EX) &&
                   !(*flags & OBJ_EXAT) && !(*flags & OBJ_PX) && !(*flags & OBJ_PXAT) &&
                   command_type == COMMAND_SET) {
            *flags |= OBJ_KEEPTTL;
        } else if (!strcasecmp(opt, "persist") && command_type == COMMAND_GET && !(*flags & OBJ_EX) &&
                   !(*flags & OBJ_EXAT) && !(*flags & OBJ_PX) && !(*flags & OBJ_PXAT) &&
                   !(*flags & OBJ_KEEPTTL)) {
            *flags |= OBJ_PERSIST;
        } else if (isOption(opt, 'e', 'x') && !(*flags & OBJ_KEEPTTL) && !(*flags & OBJ_PERSIST) &&
                   !(*flags & OBJ_EXAT) && !(*flags & OBJ_PX) && !(*flags & OBJ_PXAT) && next) {
            *flags |= OBJ_EX;
            *expire = next;
            j++;
        } else if (isOption(opt, 'p', 'x') && !(*flags & OBJ_KEEPTTL) && !(*flags & OBJ_PERSIST) &&
                   !(*flags & OBJ_EX) && !(*flags & OBJ_EXAT) && !(*flags & OBJ_PXAT) && next) {
            *flags |= OBJ_PX;
            *unit = UNIT_MILLISECONDS;
            *expire = next;
            j++;
        } else if (!strcasecmp(opt, "exat") && !(*flags & OBJ_KEEPTTL) && !(*flags & OBJ_PERSIST) &&
                   !(*flags & OBJ_EX) && !(*flags & OBJ_PX) && !(*flags & OBJ_PXAT) && next) {
            *flags |= OBJ_EXAT;
            *expire = next;
            j++;
        } else if (!strcasecmp(opt, "pxat") && !(*flags & OBJ_KEEPTTL) && !(*flags & OBJ_PERSIST) &&
                   !(*flags & OBJ_EX) && !(*flags & OBJ_EXAT) && !(*flags & OBJ_PX) && next) {
            *flags |= OBJ_PXAT;
            *unit = UNIT_MILLISECONDS;
            *expire = next;
            j++;
        } else {
            addReplyErrorObject(c, shared_syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

static void addReplyErrorExpireTime(client *c) {
    addReplyErrorFormat(c, "invalid expire time in '%s' command", c->cmd ? c->cmd->fullname : "");
}

/* The absolute expiry in ms from an EX/PX/EXAT/PXAT argument. */
static int getExpireMillisecondsOrReply(client *c, sds expire, int flags, int unit, long long *milliseconds) {
    if (getLongLongFromObjectOrReply(c, expire, milliseconds, NULL) != C_OK) return C_ERR;
    if (*milliseconds <= 0 || (unit == UNIT_SECONDS && *milliseconds > LLONG_MAX / 1000)) {
        addReplyErrorExpireTime(c);
        return C_ERR;
    }
    if (unit == UNIT_SECONDS) *milliseconds *= 1000;
    if ((flags & OBJ_PX) || (flags & OBJ_EX)) {
        long long now = commandTimeSnapshot();
        if (*milliseconds > LLONG_MAX - now) {
            /* Redis adds and the result wraps negative: the same error. */
            addReplyErrorExpireTime(c);
            return C_ERR;
        }
        *milliseconds += now;
    }
    if (*milliseconds <= 0) {
        addReplyErrorExpireTime(c);
        return C_ERR;
    }
    return C_OK;
}

/* GET's reply; C_ERR (WRONGTYPE replied) if the key holds another type. */
static int getGenericCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o) return C_OK;
    if (checkType(c, o, OBJ_STRING)) return C_ERR;
    addReplyStringValue(c, o);
    return C_OK;
}

/* ok_reply / abort_reply: raw protocol, NULL for +OK / the null. */
static void setGenericCommand(client *c, int flags, sds key, sds val, sds expire, int unit, const char *ok_reply,
                              const char *abort_reply) {
    long long milliseconds = 0;
    if (expire && getExpireMillisecondsOrReply(c, expire, flags, unit, &milliseconds) != C_OK) return;
    if (flags & OBJ_SET_GET) {
        if (getGenericCommand(c) == C_ERR) return;
    }
    int found = lookupKeyWrite(c, c->db, key) != NULL;
    if (((flags & OBJ_SET_NX) && found) || ((flags & OBJ_SET_XX) && !found)) {
        if (!(flags & OBJ_SET_GET)) {
            if (abort_reply) addReplyStr(c, abort_reply);
            else addReplyNull(c);
        }
        return;
    }
    robj *o = createStringObject(val, sdslen(val));
    setKey(c, c->db, key, o, flags & OBJ_KEEPTTL);
    if (expire) setExpire(c->db, key, milliseconds);
    if (!(flags & OBJ_SET_GET)) {
        if (ok_reply) addReplyStr(c, ok_reply);
        else addReplyOk(c);
    }
}

/* SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL] */
void setCommand(client *c) {
    sds expire = NULL;
    int unit = UNIT_SECONDS, flags = OBJ_NO_FLAGS;
    if (parseExtendedStringArgumentsOrReply(c, &flags, &unit, &expire, COMMAND_SET) != C_OK) return;
    setGenericCommand(c, flags, c->argv[1], c->argv[2], expire, unit, NULL, NULL);
}

void setnxCommand(client *c) { setGenericCommand(c, OBJ_SET_NX, c->argv[1], c->argv[2], NULL, 0, ":1\r\n", ":0\r\n"); }

void setexCommand(client *c) {
    setGenericCommand(c, OBJ_EX, c->argv[1], c->argv[3], c->argv[2], UNIT_SECONDS, NULL, NULL);
}

void psetexCommand(client *c) {
    setGenericCommand(c, OBJ_PX, c->argv[1], c->argv[3], c->argv[2], UNIT_MILLISECONDS, NULL, NULL);
}

/* ========================================================================
 * GET family
 * ===================================================================== */

void getCommand(client *c) { getGenericCommand(c); }

/* GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST] */
void getexCommand(client *c) {
    sds expire = NULL;
    int unit = UNIT_SECONDS, flags = OBJ_NO_FLAGS;
    if (parseExtendedStringArgumentsOrReply(c, &flags, &unit, &expire, COMMAND_GET) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o || checkType(c, o, OBJ_STRING)) return;
    long long milliseconds = 0;
    if (expire && getExpireMillisecondsOrReply(c, expire, flags, unit, &milliseconds) != C_OK) return;
    addReplyStringValue(c, o);
    if (((flags & OBJ_PXAT) || (flags & OBJ_EXAT)) && milliseconds <= commandTimeSnapshot()) {
        /* Already expired: the key goes now (Redis's checkAlreadyExpired). */
        dbDelete(c->db, c->argv[1]);
        signalModifiedKey(c, c->db, c->argv[1], NULL);
    } else if (expire) {
        setExpire(c->db, c->argv[1], milliseconds);
        signalModifiedKey(c, c->db, c->argv[1], o);
    } else if (flags & OBJ_PERSIST) {
        if (removeExpire(c->db, c->argv[1])) signalModifiedKey(c, c->db, c->argv[1], o);
    }
}

void getdelCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], NULL);
    if (!o || checkType(c, o, OBJ_STRING)) return;
    addReplyStringValue(c, o);
    dbDelete(c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[1], NULL);
}

void getsetCommand(client *c) {
    if (getGenericCommand(c) == C_ERR) return;
    robj *o = createStringObject(c->argv[2], sdslen(c->argv[2]));
    setKey(c, c->db, c->argv[1], o, 0);
}

void mgetCommand(client *c) {
    addReplyArrayLen(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c, c->db, c->argv[j]);
        if (!o || o->type != OBJ_STRING) addReplyNull(c);
        else addReplyStringValue(c, o);
    }
}

static void msetGenericCommand(client *c, int nx) {
    if ((c->argc % 2) == 0) {
        addReplyErrorArity(c);
        return;
    }
    /* MSETNX sets nothing if any key exists. */
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (lookupKeyWrite(c, c->db, c->argv[j])) {
                addReplyLongLong(c, 0);
                return;
            }
        }
    }
    for (int j = 1; j < c->argc; j += 2) {
        robj *o = createStringObject(c->argv[j + 1], sdslen(c->argv[j + 1]));
        setKey(c, c->db, c->argv[j], o, 0);
    }
    if (nx) addReplyLongLong(c, 1);
    else addReplyOk(c);
}

void msetCommand(client *c) { msetGenericCommand(c, 0); }

void msetnxCommand(client *c) { msetGenericCommand(c, 1); }

/* ========================================================================
 * Counters
 * ===================================================================== */

static void incrDecrCommand(client *c, long long incr) {
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return;
    long long value = 0;
    if (o) {
        const stringValue *sv = o->ptr;
        if (!string2ll(sv->buf, sv->len, &value)) {
            addReplyErrorNotInteger(c);
            return;
        }
    }
    long long oldvalue = value;
    if ((incr < 0 && oldvalue < 0 && incr < (LLONG_MIN - oldvalue)) ||
        (incr > 0 && oldvalue > 0 && incr > (LLONG_MAX - oldvalue))) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    robj *n = createStringObjectFromLongLong(value);
    stringValue *nv = n->ptr;
    n->ptr = NULL;
    zfree(n);
    setValueKeepTTL(c, c->db, c->argv[1], o, nv);
    addReplyLongLong(c, value);
}

void incrCommand(client *c) { incrDecrCommand(c, 1); }

void decrCommand(client *c) { incrDecrCommand(c, -1); }

void incrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    incrDecrCommand(c, incr);
}

void decrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    /* Negating LLONG_MIN would overflow. */
    if (incr == LLONG_MIN) {
        addReplyError(c, "decrement would overflow");
        return;
    }
    incrDecrCommand(c, -incr);
}

void incrbyfloatCommand(client *c) {
    long double incr, value = 0;
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return;
    if (o) {
        const stringValue *sv = o->ptr;
        if (!string2ld(sv->buf, sv->len, &value)) {
            addReplyError(c, "value is not a valid float");
            return;
        }
    }
    if (getLongDoubleFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, LD_STR_HUMAN);
    /* createStringObject in Redis: embstr or raw, never int. */
    int enc = len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT ? STRING_ENC_EMBSTR : STRING_ENC_RAW;
    stringValue *nv = strvNew(buf, (size_t)len, (size_t)len, enc);
    setValueKeepTTL(c, c->db, c->argv[1], o, nv);
    addReplyBulk(c, buf, (size_t)len);
}

/* ========================================================================
 * APPEND, STRLEN, GETRANGE, SETRANGE
 * ===================================================================== */

void appendCommand(client *c) {
    size_t totlen;
    sds append = c->argv[2];
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (!o) {
        o = createStringObject(append, sdslen(append));
        dbAdd(c->db, c->argv[1], o);
        totlen = sdslen(append);
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        stringValue *sv = o->ptr;
        if (checkStringLength(c, (long long)sv->len, (long long)sdslen(append)) != C_OK) return;
        sv = stringUnshare(o);
        size_t oldlen = sv->len;
        sv = strvGrowZero(sv, oldlen + sdslen(append));
        memcpy(sv->buf + oldlen, append, sdslen(append));
        o->ptr = sv;
        totlen = sv->len;
    }
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, (long long)totlen);
}

void strlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_STRING)) return;
    addReplyLongLong(c, (long long)stringObjectLen(o));
}

void getrangeCommand(client *c) {
    long long start, end;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], "$0\r\n\r\n");
    if (!o || checkType(c, o, OBJ_STRING)) return;
    const stringValue *sv = o->ptr;
    long long strlen = (long long)sv->len;

    if (start < 0 && end < 0 && start > end) {
        addReplyBulk(c, "", 0);
        return;
    }
    if (start < 0) start = strlen + start;
    if (end < 0) end = strlen + end;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if ((unsigned long long)end >= (unsigned long long)strlen) end = strlen - 1;
    if (start > end || strlen == 0) addReplyBulk(c, "", 0);
    else addReplyBulk(c, sv->buf + start, (size_t)(end - start + 1));
}

void setrangeCommand(client *c) {
    long offset;
    sds value = c->argv[3];
    size_t vlen = sdslen(value);
    if (getLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) return;
    if (offset < 0) {
        addReplyError(c, "offset is out of range");
        return;
    }
    robj *o = lookupKeyWrite(c, c->db, c->argv[1]);
    if (!o) {
        /* Setting nothing on a missing key creates nothing. */
        if (vlen == 0) {
            addReplyLongLong(c, 0);
            return;
        }
        if (checkStringLength(c, offset, (long long)vlen) != C_OK) return;
        o = createObject(OBJ_STRING, strvNew(NULL, (size_t)offset + vlen, (size_t)offset + vlen, STRING_ENC_RAW));
        dbAdd(c->db, c->argv[1], o);
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        size_t olen = stringObjectLen(o);
        if (vlen == 0) {
            addReplyLongLong(c, (long long)olen);
            return;
        }
        if (checkStringLength(c, offset, (long long)vlen) != C_OK) return;
        stringUnshare(o);
    }
    stringValue *sv = strvGrowZero(o->ptr, (size_t)offset + vlen);
    memcpy(sv->buf + offset, value, vlen);
    o->ptr = sv;
    signalModifiedKey(c, c->db, c->argv[1], o);
    addReplyLongLong(c, (long long)sv->len);
}

/* ========================================================================
 * Command table (Redis 7.2's arity, flags, key positions, categories)
 * ===================================================================== */

struct redisCommand stringCommandTable[] = {
    {"get", getCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read string fast", NULL},
    {"getex", getexCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"getdel", getdelCommand, 2, CMD_WRITE | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"set", setCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write string slow", NULL},
    {"setnx", setnxCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"setex", setexCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write string slow", NULL},
    {"psetex", psetexCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write string slow", NULL},
    {"append", appendCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"strlen", strlenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "read string fast", NULL},
    {"setrange", setrangeCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "write string slow", NULL},
    {"getrange", getrangeCommand, 4, CMD_READONLY, 1, 1, 1, "read string slow", NULL},
    {"incr", incrCommand, 2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"decr", decrCommand, 2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"incrby", incrbyCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"decrby", decrbyCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"incrbyfloat", incrbyfloatCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"getset", getsetCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "write string fast", NULL},
    {"mget", mgetCommand, -2, CMD_READONLY | CMD_FAST, 1, -1, 1, "read string fast", NULL},
    {"mset", msetCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 2, "write string slow", NULL},
    {"msetnx", msetnxCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 2, "write string slow", NULL},
    {0},
};
