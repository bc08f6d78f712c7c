/* lua_struct.c -- the scripts' struct library: Lua values to and from C
 * structs packed in a string, with the API of Roberto Ierusalimschy's
 * struct library (0.2) as Redis ships it:
 *
 *   struct.pack(fmt, v1, v2, ...)  -> string
 *   struct.unpack(fmt, s [, pos])  -> v1, v2, ..., next position
 *   struct.size(fmt)               -> the size of a fixed-size format
 *
 * A format is read left to right; each option is one letter with, for some,
 * a decimal count right after it:
 *
 *   >  <      big / little endian from here on (the default: the machine's)
 *   ![n]      align items to min(their size, n) (n a power of 2; no n: the
 *             machine's largest alignment, 8; the default is 1, no padding)
 *   x         one padding byte (packs a zero, unpacks nothing)
 *   b B       signed / unsigned char       h H   short (2 bytes)
 *   l L       long (8 bytes)               T     size_t (8 bytes)
 *   i[n] I[n] signed / unsigned integer of n bytes (default 4, at most 32)
 *   f d       float / double
 *   s         a zero-terminated string
 *   c[n]      n bytes as one string (default 1); c0: the string's length
 *             when packing, the value unpacked just before when unpacking
 *             (that value is then not returned)
 *   space     ignored
 *
 * Written here from the library's manual and from what Redis 7's copy
 * replies, including its corner cases: padding computed for sizes that
 * are not powers of 2, integers wider than 8 bytes, out-of-range numbers,
 * the argument number in "string too short", and struct.size ignoring
 * unknown letters. Where Redis's C leaves a result to the hardware (a
 * double out of an integer's range, a shift of 64 bits or more) this file
 * computes explicitly what x86-64, the platform Redis is built for, gives,
 * so the replies are the same everywhere and no input is undefined
 * behaviour. */

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua_libs.h"

/* ------------------------------------------------------------------------
 * Formats
 * --------------------------------------------------------------------- */

#define STRUCT_MAXINTSIZE 32 /* the widest i[n] / I[n] */

enum { STRUCT_BIG, STRUCT_LITTLE };

/* The alignment '!' alone asks for: the strictest of the machine's types
 * (8 on x86-64, as Redis's copy computes it). */
struct structAlignProbe {
    char c;
    union {
        double d;
        void *p;
        lua_Integer i;
        lua_Number n;
    } u;
};
#define STRUCT_NATIVE_ALIGN ((int)offsetof(struct structAlignProbe, u))

/* What the control options set as a format is read. */
typedef struct structState {
    int endian;
    int align; /* a power of 2 */
} structState;

static int structNativeEndian(void) {
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first ? STRUCT_LITTLE : STRUCT_BIG;
}

static void structInitState(structState *st) {
    st->endian = structNativeEndian();
    st->align = 1;
}

static int structIsDigit(int c) { return c >= '0' && c <= '9'; }

/* ASCII letters and digits (struct.size skips them when unknown, but
 * hands any other byte to structControl, which rejects unknown ones). */
static int structIsAlnum(int c) {
    return structIsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The count after an option, or `dflt` when no digit follows. */
static int structGetNum(lua_State *L, const char **fmt, int dflt) {
    if (!structIsDigit(**fmt)) return dflt;
    int a = 0;
    while (structIsDigit(**fmt)) {
        int digit = *(*fmt)++ - '0';
        if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
        a = a * 10 + digit;
    }
    return a;
}

/* The size of option `opt`, reading its count from *fmt. Options with no
 * size of their own (s, c0, the controls, unknown letters) are 0. */
static size_t structOptSize(lua_State *L, int opt, const char **fmt) {
    switch (opt) {
    case 'B': case 'b': case 'x': return 1;
    case 'H': case 'h': return sizeof(short);
    case 'L': case 'l': return sizeof(long);
    case 'T': return sizeof(size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'c': return (size_t)structGetNum(L, fmt, 1);
    case 'i': case 'I': {
        int n = structGetNum(L, fmt, (int)sizeof(int));
        if (n > STRUCT_MAXINTSIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", n, STRUCT_MAXINTSIZE);
        return (size_t)n;
    }
    default: return 0;
    }
}

/* Padding before an item of `size` bytes at offset `len`. Strings are
 * never aligned. The mask arithmetic is the library's own, also for a size
 * that is not a power of 2 (i3 under !4 pads 2 bytes at offset 0 or 1). */
static size_t structToAlign(size_t len, const structState *st, int opt, size_t size) {
    if (size <= 1 || opt == 'c') return 0;
    if (size > (size_t)st->align) size = (size_t)st->align;
    return (size - (len & (size - 1))) & (size - 1);
}

/* The options that are not items: endianness, alignment, spaces. Anything
 * else is not an option at all. */
static void structControl(lua_State *L, int opt, const char **fmt, structState *st) {
    switch (opt) {
    case ' ': return;
    case '>': st->endian = STRUCT_BIG; return;
    case '<': st->endian = STRUCT_LITTLE; return;
    case '!': {
        int a = structGetNum(L, fmt, STRUCT_NATIVE_ALIGN);
        if (a <= 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
        st->align = a;
        return;
    }
    default:
        luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

/* ------------------------------------------------------------------------
 * Numbers
 * --------------------------------------------------------------------- */

#define STRUCT_TWO63 9223372036854775808.0
#define STRUCT_INDEFINITE (UINT64_C(1) << 63)

/* A double truncated to a signed 64-bit integer as x86-64 does it (what
 * Redis's casts compile to): toward zero, and 2^63 bits for NaN and for
 * anything out of range. */
static uint64_t structTrunc64(lua_Number n) {
    if (n >= -STRUCT_TWO63 && n < STRUCT_TWO63) return (uint64_t)(int64_t)n;
    return STRUCT_INDEFINITE;
}

/* A double cast to an unsigned 64-bit integer, as gcc compiles it for
 * x86-64: from 2^63 on, through the signed conversion of n - 2^63. So -1
 * is all ones, 2^64 and +inf are 0, NaN is 2^63. The library packs every
 * integer (and takes c0's count) through this conversion. */
static uint64_t structNumberToU64(lua_Number n) {
    if (n >= STRUCT_TWO63) return structTrunc64(n - STRUCT_TWO63) ^ STRUCT_INDEFINITE;
    return structTrunc64(n);
}

/* `size` bytes of n's 64-bit value; bytes past the eighth are zero (not
 * sign bytes), as in Redis's copy. */
static void structPutInteger(luaL_Buffer *b, lua_Number n, int endian, size_t size) {
    char buf[STRUCT_MAXINTSIZE];
    uint64_t v = structNumberToU64(n);
    for (size_t i = 0; i < size; i++) {
        buf[endian == STRUCT_LITTLE ? i : size - 1 - i] = (char)(v & 0xff);
        v >>= 8;
    }
    luaL_addlstring(b, buf, size);
}

/* An integer of `size` bytes. Only the last eight bytes read count (the
 * earlier ones shift out of 64 bits). A signed value is extended from bit
 * size*8-1, that bit number taken modulo 64 as an x86 shift does: so an
 * i10 is negative when any of its bits from 15 up (of the 64 kept) is
 * set, exactly as Redis's copy reads it. */
static lua_Number structGetInteger(const char *p, int endian, int issigned, size_t size) {
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned char byte = (unsigned char)p[endian == STRUCT_BIG ? i : size - 1 - i];
        v = (v << 8) | byte;
    }
    if (!issigned) return (lua_Number)v;
    unsigned shift = ((unsigned)size * 8u - 1u) & 63u;
    uint64_t mask = ~UINT64_C(0) << shift;
    if (v & mask) v |= mask;
    int64_t s;
    memcpy(&s, &v, sizeof(s));
    return (lua_Number)s;
}

/* The bytes of a float or double in the requested order. */
static void structPutBytes(luaL_Buffer *b, const void *value, size_t size, int endian) {
    const char *p = value;
    if (endian == structNativeEndian()) {
        luaL_addlstring(b, p, size);
        return;
    }
    for (size_t i = size; i > 0; i--) luaL_addchar(b, p[i - 1]);
}

static void structGetBytes(void *value, const char *p, size_t size, int endian) {
    char *dst = value;
    if (endian == structNativeEndian()) {
        memcpy(dst, p, size);
        return;
    }
    for (size_t i = 0; i < size; i++) dst[i] = p[size - 1 - i];
}

/* ------------------------------------------------------------------------
 * struct.pack
 * --------------------------------------------------------------------- */

static int structPack(lua_State *L) {
    structState st;
    const char *fmt = luaL_checkstring(L, 1);
    int arg = 2;
    size_t total = 0;
    luaL_Buffer b;
    structInitState(&st);
    /* A nil between the arguments and the pieces luaL_Buffer leaves on the
     * stack, as the library has: the first missing value reads as nil. */
    lua_pushnil(L);
    luaL_buffinit(L, &b);
    while (*fmt != '\0') {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptSize(L, opt, &fmt);
        size_t pad = structToAlign(total, &st, opt, size);
        total += pad;
        while (pad-- > 0) luaL_addchar(&b, '\0');
        switch (opt) {
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L':
        case 'T': case 'i': case 'I':
            structPutInteger(&b, luaL_checknumber(L, arg++), st.endian, size);
            break;
        case 'x':
            luaL_addchar(&b, '\0');
            break;
        case 'f': {
            float f = (float)luaL_checknumber(L, arg++);
            structPutBytes(&b, &f, size, st.endian);
            break;
        }
        case 'd': {
            double d = luaL_checknumber(L, arg++);
            structPutBytes(&b, &d, size, st.endian);
            break;
        }
        case 'c': {
            size_t len;
            const char *s = luaL_checklstring(L, arg++, &len);
            if (size == 0) size = len;
            /* Redis's copy names the argument after the string. */
            luaL_argcheck(L, len >= size, arg, "string too short");
            luaL_addlstring(&b, s, size);
            break;
        }
        case 's': {
            size_t len;
            const char *s = luaL_checklstring(L, arg++, &len);
            luaL_addlstring(&b, s, len + 1); /* with Lua's terminating zero */
            size = len + 1;
            break;
        }
        default:
            structControl(L, opt, &fmt, &st);
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

/* ------------------------------------------------------------------------
 * struct.unpack
 * --------------------------------------------------------------------- */

/* c0's count: the value unpacked just before, which must be a number (or a
 * string that reads as one); it is taken off the results. */
static size_t structPopCount(lua_State *L, int *nresults) {
    if (*nresults == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
    size_t count = (size_t)structNumberToU64(lua_tonumber(L, -1));
    lua_pop(L, 1);
    (*nresults)--;
    return count;
}

/* The string at data[pos..] up to its zero byte, which must be there. */
static size_t structPushZString(lua_State *L, const char *data, size_t ld, size_t pos) {
    const char *start = data + pos;
    const char *end = memchr(start, '\0', ld - pos);
    if (end == NULL) luaL_error(L, "unfinished string in data");
    lua_pushlstring(L, start, (size_t)(end - start));
    return (size_t)(end - start) + 1;
}

static int structUnpack(lua_State *L) {
    structState st;
    const char *fmt = luaL_checkstring(L, 1);
    size_t ld;
    const char *data = luaL_checklstring(L, 2, &ld);
    /* 0 is refused; a negative position wraps to a huge one, which the
     * first option then finds past the end (as Redis's copy does). */
    size_t pos = (size_t)luaL_optinteger(L, 3, 1);
    int nresults = 0;
    luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
    pos--;
    structInitState(&st);
    while (*fmt != '\0') {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptSize(L, opt, &fmt);
        size_t pad = structToAlign(pos, &st, opt, size);
        /* Every option, even a control one, must start inside the data. */
        luaL_argcheck(L, pos <= ld && pad <= ld - pos && size <= ld - pos - pad, 2,
                      "data string too short");
        pos += pad;
        luaL_checkstack(L, 2, "too many results"); /* the item and the position */
        switch (opt) {
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L':
        case 'T': case 'i': case 'I': {
            int issigned = opt >= 'a'; /* the lower-case letters */
            lua_pushnumber(L, structGetInteger(data + pos, st.endian, issigned, size));
            nresults++;
            break;
        }
        case 'x':
            break;
        case 'f': {
            float f;
            structGetBytes(&f, data + pos, size, st.endian);
            lua_pushnumber(L, (lua_Number)f);
            nresults++;
            break;
        }
        case 'd': {
            double d;
            structGetBytes(&d, data + pos, size, st.endian);
            lua_pushnumber(L, (lua_Number)d);
            nresults++;
            break;
        }
        case 'c':
            if (size == 0) {
                size = structPopCount(L, &nresults);
                luaL_argcheck(L, size <= ld - pos, 2, "data string too short");
            }
            lua_pushlstring(L, data + pos, size);
            nresults++;
            break;
        case 's':
            size = structPushZString(L, data, ld, pos);
            nresults++;
            break;
        default:
            structControl(L, opt, &fmt, &st);
        }
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)(pos + 1));
    return nresults + 1;
}

/* ------------------------------------------------------------------------
 * struct.size
 * --------------------------------------------------------------------- */

/* Letters that are no option count 0 here (pack and unpack refuse them);
 * other unknown bytes are refused. */
static int structSize(lua_State *L) {
    structState st;
    const char *fmt = luaL_checkstring(L, 1);
    size_t pos = 0;
    structInitState(&st);
    while (*fmt != '\0') {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptSize(L, opt, &fmt);
        pos += structToAlign(pos, &st, opt, size);
        if (opt == 's') luaL_argerror(L, 1, "option 's' has no fixed size");
        if (opt == 'c' && size == 0) luaL_argerror(L, 1, "option 'c0' has no fixed size");
        if (!structIsAlnum(opt)) structControl(L, opt, &fmt, &st);
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)pos);
    return 1;
}

/* ------------------------------------------------------------------------
 * The library
 * --------------------------------------------------------------------- */

static const luaL_Reg structFuncs[] = {
    {"pack", structPack},
    {"unpack", structUnpack},
    {"size", structSize},
    {NULL, NULL},
};

int luaopen_struct(lua_State *L) {
    luaL_register(L, "struct", structFuncs);
    return 1;
}
