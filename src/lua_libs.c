/* lua_libs.c -- Debian's lua-cjson and lua-bitop opened for scripts the way
 * Redis 7.2 opens its vendored copies of the same versions.
 *
 * Both libraries are the upstream releases Redis ships (lua-cjson 2.1.0,
 * Lua BitOp 1.0.2), and they behave as Redis's copies for every input a
 * script can give, except in two places Redis patched, which the wrappers
 * below take care of:
 *
 *  - Redis builds cjson with ENABLE_CJSON_GLOBAL, so luaopen_cjson() also
 *    sets the global `cjson`; Debian's only returns the module table.
 *  - bit.tohex(x, n) with n == INT32_MIN negates n and overflows: Lua BitOp
 *    1.0.2 then writes far outside its buffer (CVE-2024-31449). Redis's
 *    copy takes INT32_MIN as INT32_MIN + 1 (eight upper-case digits). */

#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

/* The Debian headers declare the entry points only (they need lua.h). */
#include <lua-bitop.h>
#include <lua-cjson.h>

#include "lua_libs.h"

/* ------------------------------------------------------------------------
 * cjson
 * --------------------------------------------------------------------- */

int luaopen_redis_cjson(lua_State *L) {
    luaopen_cjson(L);
    lua_setglobal(L, "cjson");
    return 0;
}

/* ------------------------------------------------------------------------
 * bit
 * --------------------------------------------------------------------- */

/* The 32 bits Lua BitOp takes from a number: it rounds by adding 2^52+2^51
 * and keeps the low word of the double's representation (so 2^32 + k is k,
 * and -1 is 0xffffffff). */
static int32_t bitArg(lua_Number n) {
    uint64_t bits;
    n += 6755399441055744.0;
    memcpy(&bits, &n, sizeof(bits));
    return (int32_t)(uint32_t)bits;
}

/* bit.tohex, with Redis's fix for a width of INT32_MIN; anything else goes
 * to Lua BitOp's own tohex unchanged. That function is called in this
 * frame (not through lua_call) so its argument errors still name
 * 'tohex'. */
static int bitToHex(lua_State *L) {
    lua_CFunction tohex = lua_tocfunction(L, lua_upvalueindex(1));
    if (lua_isnumber(L, 2) && bitArg(lua_tonumber(L, 2)) == INT32_MIN) {
        lua_pushnumber(L, (lua_Number)INT32_MIN + 1);
        lua_replace(L, 2);
    }
    return tohex(L);
}

int luaopen_redis_bit(lua_State *L) {
    luaopen_bit(L); /* sets the global bit, leaves the table on the stack */
    lua_getfield(L, -1, "tohex");
    lua_pushcclosure(L, bitToHex, 1);
    lua_setfield(L, -2, "tohex");
    return 0;
}
