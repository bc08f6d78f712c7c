/* lua_libs.h -- the libraries Redis 7.2 gives scripts beside Lua's own:
 * cjson, struct, cmsgpack and bit, each loaded as a global of that name.
 *
 * cjson and bit are Debian's lua-cjson 2.1.0 and lua-bitop 1.0.2 (the
 * versions Redis vendors), opened through thin wrappers that make them
 * behave as Redis's patched copies do (lua_libs.c). struct and cmsgpack
 * are not packaged by Debian: lua_struct.c and lua_cmsgpack.c implement
 * them, with Redis's API, replies and error texts.
 *
 * Each is a lua_CFunction to call with the library's name (the pattern of
 * luaopen_base and friends); it sets the global and returns nothing to
 * keep. */
#ifndef CASQ_LUA_LIBS_H
#define CASQ_LUA_LIBS_H

#include <lua.h>

int luaopen_redis_cjson(lua_State *L);
int luaopen_redis_bit(lua_State *L);
int luaopen_cmsgpack(lua_State *L);
int luaopen_struct(lua_State *L);

#endif
