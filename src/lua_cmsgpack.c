/* lua_cmsgpack.c -- the scripts' cmsgpack library: MessagePack for Lua
 * values, with the API and the replies of the lua-cmsgpack 0.4.0 that
 * Redis ships:
 *
 *   cmsgpack.pack(v1, v2, ...)             -> the encodings, concatenated
 *   cmsgpack.unpack(s)                     -> every value in s
 *   cmsgpack.unpack_one(s [, offset])      -> next offset, one value
 *   cmsgpack.unpack_limit(s, n [, offset]) -> next offset, up to n values
 *
 * Offsets count bytes from 0; the next offset is -1 once s is used up.
 *
 * Written here from the MessagePack specification and from what Redis's
 * copy replies. Packing picks, as Redis's does:
 *
 *  - for a number: the shortest integer encoding when it is integral and
 *    within the 64-bit range, else a float 32 when that holds it exactly
 *    (also +-inf), else a float 64 (NaN among them);
 *  - for a string: str (fixstr, str 8, 16, 32), never bin;
 *  - for a table: an array when its keys are exactly the integers 1..n
 *    (the empty table too), else a map, its pairs in the order next()
 *    gives; a table nested deeper than 16 levels packs as nil;
 *  - nil for anything else (functions, userdata, threads).
 *
 * Unpacking reads every type of the specification except bin and ext
 * ("Bad data format in input."), never trusts a declared length beyond
 * the bytes there ("Missing bytes in input."), and checks the Lua stack
 * at the same points as Redis's copy, with its messages, so that deep
 * nesting or too many values fail the same way. */

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua_libs.h"

/* ------------------------------------------------------------------------
 * The output buffer
 * --------------------------------------------------------------------- */

/* The packed bytes so far. They live in a Lua userdata (at stack index
 * `slot`) rather than in malloc'd memory, so that an error while packing
 * (out of memory) leaves nothing to free; growing replaces the userdata
 * with a bigger copy. */
typedef struct mpBuf {
    lua_State *L;
    int slot;
    unsigned char *b;
    size_t len;
    size_t cap;
} mpBuf;

static void mpBufInit(mpBuf *buf, lua_State *L) {
    buf->L = L;
    buf->cap = 64;
    buf->len = 0;
    buf->b = lua_newuserdata(L, buf->cap);
    buf->slot = lua_gettop(L);
}

static void mpBufGrow(mpBuf *buf, size_t need) {
    size_t cap = buf->cap;
    while (cap - buf->len < need) {
        if (cap > SIZE_MAX / 2) luaL_error(buf->L, "MessagePack output too large.");
        cap *= 2;
    }
    unsigned char *b = lua_newuserdata(buf->L, cap); /* the old one is still held */
    memcpy(b, buf->b, buf->len);
    lua_replace(buf->L, buf->slot);
    buf->b = b;
    buf->cap = cap;
}

static void mpBufAppend(mpBuf *buf, const void *p, size_t n) {
    if (buf->cap - buf->len < n) mpBufGrow(buf, n);
    memcpy(buf->b + buf->len, p, n);
    buf->len += n;
}

/* A type byte followed by `nbytes` bytes of v, big-endian (MessagePack's
 * order for every multi-byte field). */
static void mpAppendTagged(mpBuf *buf, unsigned char tag, uint64_t v, int nbytes) {
    unsigned char b[9];
    b[0] = tag;
    for (int i = nbytes; i >= 1; i--) {
        b[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    mpBufAppend(buf, b, (size_t)nbytes + 1);
}

/* ------------------------------------------------------------------------
 * Packing
 * --------------------------------------------------------------------- */

#define MP_MAX_NESTING 16 /* tables deeper than this pack as nil */
#define MP_TWO63 9223372036854775808.0

static void mpEncodeValue(mpBuf *buf, int level);

static void mpEncodeInteger(mpBuf *buf, int64_t v) {
    if (v >= 0) {
        uint64_t u = (uint64_t)v;
        if (u <= 0x7f) mpAppendTagged(buf, (unsigned char)u, 0, 0);
        else if (u <= 0xff) mpAppendTagged(buf, 0xcc, u, 1);
        else if (u <= 0xffff) mpAppendTagged(buf, 0xcd, u, 2);
        else if (u <= 0xffffffff) mpAppendTagged(buf, 0xce, u, 4);
        else mpAppendTagged(buf, 0xcf, u, 8);
        return;
    }
    if (v >= -32) mpAppendTagged(buf, (unsigned char)(0x100 + v), 0, 0); /* 0xe0..0xff */
    else if (v >= INT8_MIN) mpAppendTagged(buf, 0xd0, (uint64_t)v, 1);
    else if (v >= INT16_MIN) mpAppendTagged(buf, 0xd1, (uint64_t)v, 2);
    else if (v >= INT32_MIN) mpAppendTagged(buf, 0xd2, (uint64_t)v, 4);
    else mpAppendTagged(buf, 0xd3, (uint64_t)v, 8);
}

/* A float 32 when the float holds n exactly (so +-inf too, not NaN),
 * else a float 64. */
static void mpEncodeFloat(mpBuf *buf, lua_Number n) {
    float f = (float)n;
    if ((lua_Number)f == n) {
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        mpAppendTagged(buf, 0xca, bits, 4);
        return;
    }
    double d = n;
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    mpAppendTagged(buf, 0xcb, bits, 8);
}

static void mpEncodeNumber(mpBuf *buf, lua_Number n) {
    if (n >= -MP_TWO63 && n < MP_TWO63 && n == (lua_Number)(int64_t)n) {
        mpEncodeInteger(buf, (int64_t)n); /* -0.0 too: it packs as 0 */
        return;
    }
    mpEncodeFloat(buf, n);
}

static void mpEncodeString(mpBuf *buf, const char *s, size_t len) {
    if (len < 32) mpAppendTagged(buf, (unsigned char)(0xa0 | len), 0, 0);
    else if (len <= 0xff) mpAppendTagged(buf, 0xd9, len, 1);
    else if (len <= 0xffff) mpAppendTagged(buf, 0xda, len, 2);
    else if (len <= 0xffffffff) mpAppendTagged(buf, 0xdb, len, 4);
    else luaL_error(buf->L, "MessagePack cannot pack a string of more than 4 GB.");
    mpBufAppend(buf, s, len);
}

/* Array and map headers: the fix form below 16 entries, then 16 and 32
 * bits. A Lua table never has 2^32 entries. */
static void mpEncodeContainer(mpBuf *buf, size_t n, unsigned char fix, unsigned char tag16) {
    if (n < 16) mpAppendTagged(buf, (unsigned char)(fix | n), 0, 0);
    else if (n <= 0xffff) mpAppendTagged(buf, tag16, n, 2);
    else mpAppendTagged(buf, (unsigned char)(tag16 + 1), n, 4);
}

/* Whether the table at the top is an array: every key an integer from 1
 * to INT_MAX, as many keys as the largest one (1..n with no hole). The
 * number of keys goes to *count. */
static int mpTableIsArray(lua_State *L, size_t *count) {
    lua_Number max = 0;
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1); /* the value */
        lua_Number k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        if (!(k >= 1 && k <= INT_MAX && k == floor(k))) {
            lua_pop(L, 1); /* the key */
            return 0;
        }
        if (k > max) max = k;
        n++;
    }
    *count = n;
    return max == (lua_Number)n;
}

static size_t mpTableCount(lua_State *L) {
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        n++;
    }
    return n;
}

/* The table at the top, as an array or a map. Its entries are one level
 * deeper; keys count as entries for the nesting limit. */
static void mpEncodeTable(mpBuf *buf, int level) {
    lua_State *L = buf->L;
    size_t n;
    luaL_checkstack(L, 3, "packing a table"); /* key, value, key copy */
    if (mpTableIsArray(L, &n)) {
        mpEncodeContainer(buf, n, 0x90, 0xdc);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (int)i);
            mpEncodeValue(buf, level + 1);
        }
        return;
    }
    mpEncodeContainer(buf, mpTableCount(L), 0x80, 0xde);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        mpEncodeValue(buf, level + 1); /* the key copy */
        mpEncodeValue(buf, level + 1); /* the value */
    }
}

/* Packs the value at the top of the stack and pops it. */
static void mpEncodeValue(mpBuf *buf, int level) {
    lua_State *L = buf->L;
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        mpEncodeString(buf, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        mpAppendTagged(buf, lua_toboolean(L, -1) ? 0xc3 : 0xc2, 0, 0);
        break;
    case LUA_TNUMBER:
        mpEncodeNumber(buf, lua_tonumber(L, -1));
        break;
    case LUA_TTABLE:
        if (level < MP_MAX_NESTING) mpEncodeTable(buf, level);
        else mpAppendTagged(buf, 0xc0, 0, 0); /* too deep: nil */
        break;
    default:
        mpAppendTagged(buf, 0xc0, 0, 0);
    }
    lua_pop(L, 1);
}

static int cmsgpackPack(lua_State *L) {
    int nargs = lua_gettop(L);
    mpBuf buf;
    if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    mpBufInit(&buf, L);
    for (int i = 1; i <= nargs; i++) {
        lua_pushvalue(L, i);
        mpEncodeValue(&buf, 0);
    }
    lua_pushlstring(L, (const char *)buf.b, buf.len);
    return 1;
}

/* ------------------------------------------------------------------------
 * Unpacking
 * --------------------------------------------------------------------- */

enum { MP_OK, MP_ERR_EOF, MP_ERR_BADFMT };

/* The bytes still to read. A decoder that finds too few sets err and
 * returns; the error is raised once back at the top (its partial values
 * are then dropped with the stack). */
typedef struct mpCursor {
    const unsigned char *p;
    size_t left;
    int err;
} mpCursor;

#define MP_TOO_MANY "too many return values at once; use unpack_one or unpack_limit instead."

static int mpNeed(mpCursor *c, size_t n) {
    if (c->left >= n) return 1;
    c->err = MP_ERR_EOF;
    return 0;
}

static void mpSkip(mpCursor *c, size_t n) {
    c->p += n;
    c->left -= n;
}

/* The n-byte big-endian field after the type byte. */
static uint64_t mpField(const mpCursor *c, int n) {
    uint64_t v = 0;
    for (int i = 1; i <= n; i++) v = (v << 8) | c->p[i];
    return v;
}

/* Reads the type byte and an n-byte field; 0 (err set) when short. */
static int mpReadField(mpCursor *c, int n, uint64_t *v) {
    if (!mpNeed(c, (size_t)n + 1)) return 0;
    *v = mpField(c, n);
    mpSkip(c, (size_t)n + 1);
    return 1;
}

static void mpDecodeValue(lua_State *L, mpCursor *c);

static void mpDecodeString(lua_State *L, mpCursor *c, size_t len) {
    if (!mpNeed(c, len)) return;
    lua_pushlstring(L, (const char *)c->p, len);
    mpSkip(c, len);
}

/* The table is made with lua_newtable and filled with lua_settable, in
 * the order of the data, as Redis's copy does: pairs() on it then goes in
 * the same order. A nil element leaves a hole. */
static void mpDecodeArray(lua_State *L, mpCursor *c, uint64_t len) {
    lua_newtable(L);
    luaL_checkstack(L, 1, "in function mp_decode_to_lua_array"); /* Redis's text */
    for (uint64_t i = 1; i <= len; i++) {
        lua_pushnumber(L, (lua_Number)i);
        mpDecodeValue(L, c);
        if (c->err) return;
        lua_settable(L, -3);
    }
}

/* A nil or NaN key raises Lua's own "table index is nil/NaN". */
static void mpDecodeMap(lua_State *L, mpCursor *c, uint64_t len) {
    lua_newtable(L);
    for (uint64_t i = 0; i < len; i++) {
        mpDecodeValue(L, c);
        if (c->err) return;
        mpDecodeValue(L, c);
        if (c->err) return;
        lua_settable(L, -3);
    }
}

static lua_Number mpFloat32(uint64_t bits) {
    uint32_t b32 = (uint32_t)bits;
    float f;
    memcpy(&f, &b32, sizeof(f));
    return (lua_Number)f;
}

static lua_Number mpFloat64(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof(d));
    return (lua_Number)d;
}

/* A two's complement field of `n` bytes as a number. uint 64 reads this
 * way too (as Redis's copy does): 0xcf ff..ff is -1. */
static lua_Number mpSigned(uint64_t v, int n) {
    if (n < 8 && (v >> (n * 8 - 1)) & 1) v |= ~UINT64_C(0) << (n * 8);
    int64_t s;
    memcpy(&s, &v, sizeof(s));
    return (lua_Number)s;
}

/* The types with a length or value field after the type byte. */
static void mpDecodeTagged(lua_State *L, mpCursor *c, unsigned char tag) {
    uint64_t v;
    switch (tag) {
    case 0xcc: case 0xcd: case 0xce: {
        int n = 1 << (tag - 0xcc);
        if (mpReadField(c, n, &v)) lua_pushnumber(L, (lua_Number)v);
        return;
    }
    case 0xcf:
        if (mpReadField(c, 8, &v)) lua_pushnumber(L, mpSigned(v, 8));
        return;
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        int n = 1 << (tag - 0xd0);
        if (mpReadField(c, n, &v)) lua_pushnumber(L, mpSigned(v, n));
        return;
    }
    case 0xca:
        if (mpReadField(c, 4, &v)) lua_pushnumber(L, mpFloat32(v));
        return;
    case 0xcb:
        if (mpReadField(c, 8, &v)) lua_pushnumber(L, mpFloat64(v));
        return;
    case 0xd9: case 0xda: case 0xdb:
        if (mpReadField(c, 1 << (tag - 0xd9), &v)) mpDecodeString(L, c, (size_t)v);
        return;
    case 0xdc: case 0xdd:
        if (mpReadField(c, tag == 0xdc ? 2 : 4, &v)) mpDecodeArray(L, c, v);
        return;
    case 0xde: case 0xdf:
        if (mpReadField(c, tag == 0xde ? 2 : 4, &v)) mpDecodeMap(L, c, v);
        return;
    default: /* 0xc1, bin 8/16/32, ext */
        c->err = MP_ERR_BADFMT;
    }
}

/* Decodes one value onto the stack. */
static void mpDecodeValue(lua_State *L, mpCursor *c) {
    if (!mpNeed(c, 1)) return;
    luaL_checkstack(L, 1, MP_TOO_MANY);
    unsigned char tag = c->p[0];
    if (tag <= 0x7f || tag >= 0xe0) { /* positive and negative fixint */
        lua_pushnumber(L, tag <= 0x7f ? (lua_Number)tag : (lua_Number)tag - 256);
        mpSkip(c, 1);
    } else if (tag <= 0x8f) {
        mpSkip(c, 1);
        mpDecodeMap(L, c, tag & 0x0f);
    } else if (tag <= 0x9f) {
        mpSkip(c, 1);
        mpDecodeArray(L, c, tag & 0x0f);
    } else if (tag <= 0xbf) {
        mpSkip(c, 1);
        mpDecodeString(L, c, tag & 0x1f);
    } else if (tag == 0xc0) {
        lua_pushnil(L);
        mpSkip(c, 1);
    } else if (tag == 0xc2 || tag == 0xc3) {
        lua_pushboolean(L, tag == 0xc3);
        mpSkip(c, 1);
    } else {
        mpDecodeTagged(L, c, tag);
    }
}

/* The low 32 bits of v as an int: what Redis's messages print for the
 * offset and the length (its "%d" reads them as int). */
static int mpLow32(long long v) {
    uint32_t u = (uint32_t)v;
    return u <= INT_MAX ? (int)u : -(int)(UINT32_MAX - u) - 1;
}

/* Decodes up to `limit` values of the string at index 1 from byte
 * `offset`. With both 0 it decodes everything and returns the values
 * only; otherwise the next offset (-1 at the end) comes first. */
static int mpUnpack(lua_State *L, long long limit, long long offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int all = limit == 0 && offset == 0;
    mpCursor c;
    int n = 0;
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                          mpLow32(offset), mpLow32((long long)len)); /* the length, as Redis */
    if ((unsigned long long)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", mpLow32(offset),
                          mpLow32((long long)len));
    if (all) limit = LLONG_MAX;
    c.p = (const unsigned char *)s + offset;
    c.left = len - (size_t)offset;
    c.err = MP_OK;
    for (; c.left > 0 && n < limit; n++) {
        mpDecodeValue(L, &c);
        if (c.err == MP_ERR_EOF) return luaL_error(L, "Missing bytes in input.");
        if (c.err == MP_ERR_BADFMT) return luaL_error(L, "Bad data format in input.");
    }
    if (all) return n;
    luaL_checkstack(L, 1, "in function mp_unpack_full"); /* Redis's text */
    lua_pushinteger(L, c.left == 0 ? -1 : (lua_Integer)(len - c.left));
    lua_insert(L, 2); /* before the values, after the string */
    return n + 1;
}

/* Any arguments after the string stay on the stack (and count against
 * its limit), as in Redis's copy. */
static int cmsgpackUnpack(lua_State *L) { return mpUnpack(L, 0, 0); }

static int cmsgpackUnpackOne(lua_State *L) {
    long long offset = (long long)luaL_optinteger(L, 2, 0);
    if (lua_gettop(L) > 1) lua_settop(L, 1);
    return mpUnpack(L, 1, offset);
}

static int cmsgpackUnpackLimit(lua_State *L) {
    long long limit = (long long)luaL_checkinteger(L, 2);
    long long offset = (long long)luaL_optinteger(L, 3, 0);
    lua_settop(L, 1);
    return mpUnpack(L, limit, offset);
}

/* ------------------------------------------------------------------------
 * The library
 * --------------------------------------------------------------------- */

static const luaL_Reg cmsgpackFuncs[] = {
    {"pack", cmsgpackPack},
    {"unpack", cmsgpackUnpack},
    {"unpack_one", cmsgpackUnpackOne},
    {"unpack_limit", cmsgpackUnpackLimit},
    {NULL, NULL},
};

static void cmsgpackSetString(lua_State *L, const char *name, const char *value) {
    lua_pushstring(L, value);
    lua_setfield(L, -2, name);
}

int luaopen_cmsgpack(lua_State *L) {
    luaL_register(L, "cmsgpack", cmsgpackFuncs);
    cmsgpackSetString(L, "_NAME", "cmsgpack");
    cmsgpackSetString(L, "_VERSION", "lua-cmsgpack 0.4.0");
    cmsgpackSetString(L, "_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo");
    cmsgpackSetString(L, "_DESCRIPTION", "MessagePack C implementation for Lua");
    return 1;
}
