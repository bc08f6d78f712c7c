# The libraries scripts get beside Lua's own, as in Redis 7.2: cjson,
# bit, struct and cmsgpack (src/lua_libs.c, lua_struct.c, lua_cmsgpack.c).
# Replies are exact: binary results come back as hex. Every test passes
# against redis-server too.
#
# Each script starts with the helpers below, all on the script's first
# line, so error texts still say user_script:1. all(...) dumps each of
# its arguments; add(...) appends them to R, for a reply of several calls'
# results (a call's results only all count when it is the last argument).
set libs_prelude [join {
    {local function hx(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end}
    {local function unhx(s) return (string.gsub(s, '..', function(h) return string.char(tonumber(h, 16)) end)) end}
    {local function dump(v) if type(v) == 'table' then local ks = {} for k in pairs(v) do ks[#ks+1] = k end table.sort(ks, function(a, b) return tostring(a) < tostring(b) end) local t = {} for _, k in ipairs(ks) do t[#t+1] = dump(k) .. '=' .. dump(v[k]) end return '{' .. table.concat(t, ',') .. '}' elseif type(v) == 'string' then return 's:' .. hx(v) else return tostring(v) end end}
    {local function all(...) local t = {} for i = 1, select('#', ...) do t[#t+1] = dump((select(i, ...))) end return t end}
    {local R = {} local function add(...) for i = 1, select('#', ...) do R[#R+1] = dump((select(i, ...))) end end}
} " "]

# Runs a script with the helpers; extra arguments are ARGV.
proc lib_eval {body args} {
    r eval "$::libs_prelude $body" 0 {*}$args
}

# The error a script raises, without the "script: <sha>, on @..." tail.
proc lib_error {body args} {
    if {![catch {lib_eval $body {*}$args} e]} { return "no error: $e" }
    regsub { script: [0-9a-f]{40}, on @user_script:[0-9]+\.$} $e {} e
    return $e
}

# The errors of several one-line scripts, in order.
proc lib_errors {bodies} {
    lmap body $bodies { lib_error $body }
}

# The distinct errors of cmsgpack.unpack on each of some hex strings.
proc unpack_errors {hexes} {
    lsort -unique [lmap hex $hexes { lib_error "return cmsgpack.unpack(unhx('$hex'))" }]
}

start_server {tags {"scripting"}} {

    # ------------------------------------------------------------------
    # The globals
    # ------------------------------------------------------------------

    test {Libraries - cjson, bit, struct and cmsgpack are tables; no package, require or module} {
        lib_eval {
            local out = {type(cjson), type(bit), type(struct), type(cmsgpack)}
            for _, name in ipairs({'package', 'require', 'module'}) do
                local ok = pcall(function() return _G[name] and 1 end)
                local found = ok and rawget(_G, name) ~= nil
                out[#out+1] = name .. '=' .. tostring(found)
            end
            return out
        }
    } {table table table table package=false require=false module=false}

    test {Libraries - a script reading package gets the nonexistent-global error} {
        lib_error {return type(package)}
    } {ERR user_script:1: Script attempted to access nonexistent global variable 'package'}

    # ------------------------------------------------------------------
    # cjson
    # ------------------------------------------------------------------

    test {cjson - fields and functions} {
        lib_eval {
            local k = {}
            for name, v in pairs(cjson) do k[#k+1] = name .. ':' .. type(v) end
            table.sort(k)
            return {cjson._NAME, cjson._VERSION, table.concat(k, ' ')}
        }
    } {cjson 2.1.0 {_NAME:string _VERSION:string decode:function decode_invalid_numbers:function decode_max_depth:function encode:function encode_invalid_numbers:function encode_keep_buffer:function encode_max_depth:function encode_number_precision:function encode_sparse_array:function new:function null:userdata}}

    test {cjson.encode - numbers with 14 significant digits} {
        lib_eval {
            local z = 0
            return cjson.encode({1/3, 0.1, 0.1 + 0.2, 1e300, 1e-300, 2^53, 2^63, 123456789012345,
                                 12345678901234, -123.5, 1e15, -z, 4294967296, -2^31})
        }
    } {[0.33333333333333,0.1,0.3,1e+300,1e-300,9.007199254741e+15,9.2233720368548e+18,1.2345678901234e+14,12345678901234,-123.5,1e+15,-0,4294967296,-2147483648]}

    test {cjson.encode - strings: escapes, NUL and bytes above 127 as they are} {
        lib_eval {return hx(cjson.encode("a/b\"\\\n\r\t\b\f\0\1\31\127\200\233"))}
    } {22615c2f625c225c5c5c6e5c725c745c625c665c75303030305c75303030315c75303031665c7530303766c8e922}

    test {cjson.encode - scalars, empty table, arrays, objects, nesting} {
        lib_eval {
            return {cjson.encode(true), cjson.encode(false), cjson.encode(nil), cjson.encode(cjson.null),
                    cjson.encode({}), cjson.encode({1, 'a', {2, {}}}), cjson.encode({a = {b = {c = {}}}}),
                    cjson.encode({[1] = 1, x = 2}), cjson.encode({[1.5] = 1}), cjson.encode({[-1] = 1}),
                    cjson.encode({[0] = 1}), cjson.encode({["\0a"] = "\0"})}
        }
    } {true false null null {{}} {[1,"a",[2,{}]]} {{"a":{"b":{"c":{}}}}} {{"1":1,"x":2}} {{"1.5":1}} {{"-1":1}} {{"0":1}} {{"\u0000a":"\u0000"}}}

    test {cjson.encode - sparse arrays: holes as null up to the ratio, then an error} {
        lib_eval {
            local ok, e = pcall(cjson.encode, {[1] = 1, [20] = 2})
            return {cjson.encode({1, 2, nil, 4}), cjson.encode({[1] = 1, [2] = 2, [4] = 4}),
                    cjson.encode({[3] = 3}), cjson.encode({[10] = 1}), e}
        }
    } {{[1,2,null,4]} {[1,2,null,4]} {[null,null,3]} {[null,null,null,null,null,null,null,null,null,1]} {Cannot serialise table: excessively sparse array}}

    test {cjson.encode - errors} {
        lib_errors {
            {return cjson.encode(function() end)}
            {return cjson.encode({f = coroutine.create(function() end)})}
            {return cjson.encode({[true] = 1})}
            {return cjson.encode(0/0)}
            {return cjson.encode({1/0})}
            {return cjson.encode()}
            {return cjson.encode(1, 2)}
            {local t = {} t[1] = t return cjson.encode(t)}
        }
    } {{ERR user_script:1: Cannot serialise function: type not supported} {ERR user_script:1: Cannot serialise thread: type not supported} {ERR user_script:1: Cannot serialise boolean: table key must be a number or string} {ERR user_script:1: Cannot serialise number: must not be NaN or Inf} {ERR user_script:1: Cannot serialise number: must not be NaN or Inf} {ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument)} {ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument)} {ERR user_script:1: Cannot serialise, excessive nesting (1001)}}

    test {cjson.encode - 1000 levels of nesting pass, 1001 do not} {
        lib_eval {
            local function nest(n) local t = {} local c = t for i = 2, n do c[1] = {} c = c[1] end return t end
            local ok, e = pcall(cjson.encode, nest(1001))
            return {#cjson.encode(nest(1000)), e}
        }
    } {2000 {Cannot serialise, excessive nesting (1001)}}

    test {cjson.decode - values, nesting, unicode escapes, null} {
        lib_eval {
            local t = cjson.decode('{"a":[1,2.5,{"b":null}],"c":"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\"\\\\","d":true,"e":false,"":-0.5e2}')
            return {dump(t.a[1]), dump(t.a[2]), tostring(t.a[3].b == cjson.null), hx(t.c), dump(t.d), dump(t.e), dump(t[""]),
                    dump(cjson.decode('  [ 1 , 2 ] ')), dump(cjson.decode('"a\\u0000b"')), dump(cjson.decode(12))}
        }
    } {1 2.5 true c3a9f09f98802f080c0a0d09225c true false -50 {{1=1,2=2}} s:610062 12}

    test {cjson.decode - numbers: hex, nan, inf, huge, leading zero} {
        lib_eval {
            return {tostring(cjson.decode('0x10')), tostring(cjson.decode('NaN')), tostring(cjson.decode('Infinity')),
                    tostring(cjson.decode('-inf')), tostring(cjson.decode('1e400')), tostring(cjson.decode('01')),
                    tostring(cjson.decode('123456789012345678901234567890')), tostring(cjson.decode('1.5e3'))}
        }
    } {16 nan inf -inf inf 1 1.2345678901235e+29 1500}

    test {cjson.decode - malformed input errors} {
        lib_errors {
            {return cjson.decode('[1')}
            {return cjson.decode('')}
            {return cjson.decode('{"a":}')}
            {return cjson.decode('{1:2}')}
            {return cjson.decode('[1,]')}
            {return cjson.decode('[1,2] x')}
            {return cjson.decode('"\\x"')}
            {return cjson.decode('"abc')}
            {return cjson.decode('"\\ud800"')}
            {return cjson.decode('tru')}
            {return cjson.decode('-')}
            {return cjson.decode('\239\187\191[1]')}
            {return cjson.decode()}
            {return cjson.decode({})}
        }
    } {{ERR user_script:1: Expected comma or array end but found T_END at character 3} {ERR user_script:1: Expected value but found T_END at character 1} {ERR user_script:1: Expected value but found T_OBJ_END at character 6} {ERR user_script:1: Expected object key string but found T_NUMBER at character 2} {ERR user_script:1: Expected value but found T_ARR_END at character 4} {ERR user_script:1: Expected the end but found invalid token at character 7} {ERR user_script:1: Expected value but found invalid escape code at character 2} {ERR user_script:1: Expected value but found unexpected end of string at character 5} {ERR user_script:1: Expected value but found invalid unicode escape code at character 2} {ERR user_script:1: Expected value but found invalid token at character 1} {ERR user_script:1: Expected value but found invalid number at character 1} {ERR user_script:1: Expected value but found invalid token at character 1} {ERR user_script:1: bad argument #1 to 'decode' (expected 1 argument)} {ERR user_script:1: bad argument #1 to 'decode' (string expected, got table)}}

    test {cjson.decode - deep nesting is an error, not a crash} {
        lib_errors {
            {return cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000)) and 'ok'}
            {return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))}
            {return cjson.decode(string.rep('\123"a":', 100000))}
        }
    } {{no error: ok} {ERR user_script:1: Found too many nested data structures (1001) at character 1001} {ERR user_script:1: Found too many nested data structures (1001) at character 5001}}

    test {cjson - round trip} {
        lib_eval {
            local t = {1, 2.5, 'three', {a = 'b', c = {true, false}}, {}}
            return cjson.encode(cjson.decode(cjson.encode(t)))
        }
    } {[1,2.5,"three",{"a":"b","c":[true,false]},{}]}

    # The settings live in the interpreter until SCRIPT FLUSH: each test
    # puts back the defaults it changed.
    test {cjson - the settings' defaults} {
        lib_eval {
            return all(cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision(),
                       cjson.encode_invalid_numbers(), cjson.decode_invalid_numbers(), cjson.encode_keep_buffer(),
                       cjson.encode_sparse_array())
        }
    } {1000 1000 14 false true true false 2 10}

    test {cjson - encode_number_precision} {
        lib_eval {
            cjson.encode_number_precision(3)
            local short = cjson.encode(1/3)
            cjson.encode_number_precision(14)
            local errs = {}
            for _, p in ipairs({0, 15, -1}) do errs[#errs+1] = select(2, pcall(cjson.encode_number_precision, p)) end
            return {short, cjson.encode(1/3), unpack(errs)}
        }
    } {0.333 0.33333333333333 {bad argument #1 to '?' (expected integer between 1 and 14)} {bad argument #1 to '?' (expected integer between 1 and 14)} {bad argument #1 to '?' (expected integer between 1 and 14)}}

    test {cjson - encode_invalid_numbers and decode_invalid_numbers} {
        lib_eval {
            cjson.encode_invalid_numbers(true)
            local on = cjson.encode({0/0 > 0 and 1 or math.huge, -math.huge})
            cjson.encode_invalid_numbers('null')
            local null = cjson.encode({0/0, math.huge})
            cjson.encode_invalid_numbers(false)
            local bad = select(2, pcall(cjson.encode_invalid_numbers, 'x'))
            cjson.decode_invalid_numbers(false)
            local e1 = select(2, pcall(cjson.decode, 'nan'))
            local e2 = select(2, pcall(cjson.decode, '0x10'))
            cjson.decode_invalid_numbers(true)
            return {on, null, bad, e1, e2}
        }
    } {{[inf,-inf]} {[null,null]} {bad argument #1 to '?' (invalid option 'x')} {Expected value but found invalid token at character 1} {Expected value but found invalid number at character 1}}

    test {cjson - encode_sparse_array, encode_max_depth, decode_max_depth, encode_keep_buffer} {
        lib_eval {
            cjson.encode_sparse_array(true)
            local sparse = cjson.encode({[1] = 1, [20] = 2})
            cjson.encode_sparse_array(false, 2, 10)
            cjson.encode_max_depth(2)
            local e1 = select(2, pcall(cjson.encode, {{{1}}}))
            cjson.encode_max_depth(1000)
            cjson.decode_max_depth(2)
            local e2 = select(2, pcall(cjson.decode, '[[[1]]]'))
            cjson.decode_max_depth(1000)
            local e3 = select(2, pcall(cjson.encode_max_depth, 0))
            cjson.encode_keep_buffer(false)
            local nobuf = cjson.encode({1})
            cjson.encode_keep_buffer(true)
            return {sparse, e1, e2, e3, nobuf}
        }
    } {{{"1":1,"20":2}} {Cannot serialise, excessive nesting (3)} {Found too many nested data structures (3) at character 3} {bad argument #1 to '?' (expected integer between 1 and 2147483647)} {[1]}}

    test {cjson.new - an instance with settings of its own} {
        lib_eval {
            local c = cjson.new()
            c.encode_number_precision(3)
            return {c.encode(1/3), cjson.encode(1/3), c.encode({1, {a = 2}})}
        }
    } {0.333 0.33333333333333 {[1,{"a":2}]}}

    # ------------------------------------------------------------------
    # bit
    # ------------------------------------------------------------------

    test {bit - functions} {
        lib_eval {
            local k = {}
            for name in pairs(bit) do k[#k+1] = name end
            table.sort(k)
            return table.concat(k, ' ')
        }
    } {arshift band bnot bor bswap bxor lshift rol ror rshift tobit tohex}

    test {bit.tobit - numbers to signed 32 bits} {
        lib_eval {
            return {bit.tobit(0xffffffff), bit.tobit(2^32), bit.tobit(2^32 + 5), bit.tobit(-1), bit.tobit(2^31),
                    bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-2.5), bit.tobit(2^53), bit.tobit(' 12 '), bit.tobit(0/0)}
        }
    } {-1 0 5 -1 -2147483648 2 2 -2 0 12 0}

    test {bit - bnot band bor bxor} {
        lib_eval {
            return {bit.bnot(0), bit.bnot(0x12345678), bit.band(0xff, 0x0f), bit.band(1, 3, 5, 7), bit.bor(1, 2, 4, 8),
                    bit.bxor(1, 3, 7), bit.band(-1), bit.band('12', '10'), bit.band(1, 2^40 + 1)}
        }
    } {-1 -305419897 15 1 15 5 -1 8 1}

    test {bit - shifts and rotations} {
        lib_eval {
            return {bit.lshift(1, 31), bit.lshift(1, 32), bit.lshift(1, 33), bit.lshift(1, -1), bit.rshift(-1, 28),
                    bit.rshift(0x80000000, 31), bit.arshift(-256, 4), bit.arshift(0x80000000, 31),
                    bit.rol(0x12345678, 12), bit.ror(0x12345678, 12), bit.ror(1, 1), bit.bswap(0x12345678), bit.bswap(-1)}
        }
    } {-2147483648 1 2 -2147483648 15 1 -16 -1 1164411171 1736516421 -2147483648 2018915346 -1}

    test {bit.tohex - widths, case, wrap-around} {
        lib_eval {
            return {bit.tohex(1), bit.tohex(-1), bit.tohex(0x12345678, 4), bit.tohex(0x12345678, -4),
                    bit.tohex(0x12345678, 9), bit.tohex(0xabcdef, -8), bit.tohex(0x12345678, 0), bit.tohex(255, 2^32 + 2),
                    bit.tohex(0xfedcba98, -1), bit.tohex(-1, 3.7), bit.tohex(-1, -3.7)}
        }
    } {00000001 ffffffff 5678 5678 12345678 00ABCDEF {} ff 8 ffff FFFF}

    # Lua BitOp 1.0.2 overflows its buffer for n = INT32_MIN
    # (CVE-2024-31449); Redis takes it as INT32_MIN + 1.
    test {bit.tohex - a width of INT32_MIN is eight upper-case digits} {
        lib_eval {
            return {bit.tohex(255, -2147483648), bit.tohex(255, 2147483648), bit.tohex(255, '-2147483648'),
                    bit.tohex(-1, 6442450944), bit.tohex(255, 2147483647)}
        }
    } {000000FF 000000FF 000000FF FFFFFFFF 000000ff}

    test {bit - argument errors} {
        lib_errors {
            {return bit.band()}
            {return bit.bor(1, {})}
            {return bit.lshift(1)}
            {return bit.tohex('a')}
            {return bit.tohex(1, 'b')}
            {return bit.tohex('x', -2147483648)}
        }
    } {{ERR user_script:1: bad argument #1 to 'band' (number expected, got no value)} {ERR user_script:1: bad argument #2 to 'bor' (number expected, got table)} {ERR user_script:1: bad argument #2 to 'lshift' (number expected, got no value)} {ERR user_script:1: bad argument #1 to 'tohex' (number expected, got string)} {ERR user_script:1: bad argument #2 to 'tohex' (number expected, got string)} {ERR user_script:1: bad argument #1 to 'tohex' (number expected, got string)}}

    # ------------------------------------------------------------------
    # struct
    # ------------------------------------------------------------------

    test {struct - functions} {
        lib_eval {
            local k = {}
            for name, v in pairs(struct) do k[#k+1] = name .. ':' .. type(v) end
            table.sort(k)
            return k
        }
    } {pack:function size:function unpack:function}

    test {struct.pack - every integer letter, native (little) endian} {
        lib_eval {
            return {hx(struct.pack('b', -1)), hx(struct.pack('B', 255)), hx(struct.pack('h', -2)), hx(struct.pack('H', 65535)),
                    hx(struct.pack('l', -3)), hx(struct.pack('L', 3)), hx(struct.pack('T', 4)), hx(struct.pack('i', -5)),
                    hx(struct.pack('I', 5)), hx(struct.pack('i2', 0x0102)), hx(struct.pack('I3', 0x010203)), hx(struct.pack('i0', 7))}
        }
    } {ff ff feff ffff fdffffffffffffff 0300000000000000 0400000000000000 fbffffff 05000000 0201 030201 {}}

    test {struct.pack - big and little endian, integers wider than 8 bytes} {
        lib_eval {
            return {hx(struct.pack('>h', -2)), hx(struct.pack('>i', 0x01020304)), hx(struct.pack('<i', 0x01020304)),
                    hx(struct.pack('>i3', 0x010203)), hx(struct.pack('<i3', -2)), hx(struct.pack('>i16', -2)),
                    hx(struct.pack('<i16', -2)), hx(struct.pack('>I12', 2^40)), hx(struct.pack('>i9', -1)),
                    hx(struct.pack('<>b<h', 1, 2))}
        }
    } {fffe 01020304 04030201 010203 feffff 0000000000000000fffffffffffffffe feffffffffffffff0000000000000000 000000000000010000000000 00ffffffffffffffff 010200}

    test {struct.pack - numbers out of range, fractions, NaN, infinities} {
        lib_eval {
            local z = 0
            return {hx(struct.pack('i1', 256)), hx(struct.pack('b', 128)), hx(struct.pack('B', -1)), hx(struct.pack('B', 1.9)),
                    hx(struct.pack('b', -1.9)), hx(struct.pack('I', 2^32 + 1)), hx(struct.pack('>l', 2^63)),
                    hx(struct.pack('>l', 2^64)), hx(struct.pack('>l', -2^64)), hx(struct.pack('>L', 2^63 + 2^62)),
                    hx(struct.pack('>l', 0/0)), hx(struct.pack('>l', 1/0)), hx(struct.pack('>l', -1/0)), hx(struct.pack('>L', -0.5)),
                    hx(struct.pack('>l', -z))}
        }
    } {00 80 ff 01 ff 01000000 8000000000000000 0000000000000000 8000000000000000 c000000000000000 8000000000000000 0000000000000000 8000000000000000 0000000000000000 0000000000000000}

    test {struct.pack - f and d} {
        lib_eval {
            return {hx(struct.pack('f', 1.5)), hx(struct.pack('>f', 1.5)), hx(struct.pack('d', 1.5)), hx(struct.pack('>d', -1.5)),
                    hx(struct.pack('>f', 1/0)), hx(struct.pack('>f', 1e300)), hx(struct.pack('<f', 0.1)), hx(struct.pack('<f', 16777217))}
        }
    } {0000c03f 3fc00000 000000000000f83f bff8000000000000 7f800000 7f800000 cdcccc3d 0000804b}

    test {struct.pack - s, c[n], c0, x} {
        lib_eval {
            return {hx(struct.pack('s', 'abc')), hx(struct.pack('s', '')), hx(struct.pack('s', 'a\0b')), hx(struct.pack('c', 'xyz')),
                    hx(struct.pack('c3', 'xyz')), hx(struct.pack('c2', 'xyz')), hx(struct.pack('c0', 'hello')), hx(struct.pack('c0', '')),
                    hx(struct.pack('x')), hx(struct.pack('xxb', 1)), hx(struct.pack('c0b', 'ab', 2)), hx(struct.pack('c', 12)),
                    hx(struct.pack('s s', 'a', 'b'))}
        }
    } {61626300 00 61006200 78 78797a 7879 68656c6c6f {} 00 000001 616202 31 61006200}

    test {struct.pack - alignment} {
        lib_eval {
            return {hx(struct.pack('!4bi', 1, 2)), hx(struct.pack('!bi', 1, 2)), hx(struct.pack('!2bi', 1, 2)),
                    hx(struct.pack('!bd', 1, 2)), hx(struct.pack('!4bd', 1, 2)), hx(struct.pack('!bh', 1, 2)),
                    hx(struct.pack('!bf', 1, 2)), hx(struct.pack('!8bi16', 1, 2)), hx(struct.pack('!4bc3i', 1, 'abc', 2)),
                    hx(struct.pack('!4bsi', 1, 'ab', 2)), hx(struct.pack('!4bxi', 1, 2)), hx(struct.pack('!4b!1i', 1, 2)),
                    hx(struct.pack('!4bi0b', 1, 2, 3)), hx(struct.pack('!bb<hi>hi', 1, 2, 3, 4, 5, 6))}
        }
    } {0100000002000000 0100000002000000 010002000000 01000000000000000000000000000040 010000000000000000000040 01000200 0100000000000040 010000000000000002000000000000000000000000000000 0161626302000000 0161620002000000 0100000002000000 0102000000 0103 01020300040000000005000000000006}

    # The library's mask arithmetic, kept: an item whose size is not a
    # power of 2 pads by (size - (offset & (size-1))) & (size-1).
    test {struct.pack - alignment of sizes that are not powers of 2} {
        lib_eval {
            return {hx(struct.pack('!4i3i', 1, 2)), hx(struct.pack('!4bi3', 1, 2)), hx(struct.pack('!4bbi3', 1, 2, 3)),
                    hx(struct.pack('!4bbbbbi3', 1, 2, 3, 4, 5, 6)), hx(struct.pack('!8bi7', 1, 2)), hx(struct.pack('!8bi12i', 1, 2, 3))}
        }
    } {000001000000000002000000 010000020000 0102030000 01020304050000060000 0100000000000002000000000000 010000000000000002000000000000000000000003000000}

    test {struct.pack - errors} {
        lib_errors {
            {return struct.pack('c4', 'ab')}
            {return struct.pack('z', 1)}
            {return struct.pack('=b', 1)}
            {return struct.pack('i33', 1)}
            {return struct.pack('i99999999999', 1)}
            {return struct.pack('!3i', 1)}
            {return struct.pack('!0i', 1)}
            {return struct.pack('i')}
            {return struct.pack('ii', 1)}
            {return struct.pack('i', 'x')}
            {return struct.pack('s')}
            {return struct.pack()}
            {return struct.pack(12, 1)}
        }
    } {{ERR user_script:1: bad argument #3 to 'pack' (string too short)} {ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'z')} {ERR user_script:1: bad argument #1 to 'pack' (invalid format option '=')} {ERR user_script:1: integral size 33 is larger than limit of 32} {ERR user_script:1: integral size overflow} {ERR user_script:1: alignment 3 is not a power of 2} {ERR user_script:1: alignment 0 is not a power of 2} {ERR user_script:1: bad argument #2 to 'pack' (number expected, got nil)} {ERR user_script:1: bad argument #3 to 'pack' (number expected, got nil)} {ERR user_script:1: bad argument #2 to 'pack' (number expected, got string)} {ERR user_script:1: bad argument #2 to 'pack' (string expected, got nil)} {ERR user_script:1: bad argument #1 to 'pack' (string expected, got no value)} {ERR user_script:1: bad argument #1 to 'pack' (invalid format option '1')}}

    test {struct.pack - a format stops at a NUL byte; spaces are ignored} {
        lib_eval {return {hx(struct.pack('bb\0bb', 1, 2, 3, 4)), hx(struct.pack(' b  b ', 1, 2)), struct.pack('')}}
    } {0102 0102 {}}

    test {struct.unpack - integers, signed and unsigned, and the next position} {
        lib_eval {
            return all(struct.unpack('bB>h<H<i>i>I', '\255\255\255\254\255\254\1\2\3\4\255\255\255\254\255\255\255\254'))
        }
    } {-1 255 -2 65279 67305985 -2 4294967294 19}

    test {struct.unpack - 8-byte and wider integers} {
        lib_eval {
            local ff = string.rep('\255', 16)
            add(struct.unpack('>l', ff)) add(struct.unpack('>L', ff)) add(struct.unpack('>T', '\0\0\0\0\0\0\1\1'))
            add(struct.unpack('>i3', '\255\255\254')) add(struct.unpack('>I3', '\255\255\254')) add(struct.unpack('>i16', ff))
            add(struct.unpack('>I16', ff)) add(struct.unpack('>i16', '\1' .. string.rep('\0', 14) .. '\2'))
            add(struct.unpack('<i16', '\1' .. string.rep('\0', 14) .. '\2')) add(struct.unpack('>i5', '\128\0\0\0\1'))
            add(struct.unpack('i0', ''))
            return R
        }
    } {-1 9 1.844674407371e+19 9 257 9 -2 4 16777214 4 -1 17 1.844674407371e+19 17 2 17 1 17 -549755813887 6 0 1}

    # Only the last eight bytes count, and the sign is taken from bit
    # (size*8-1) modulo 64, as Redis's copy reads them.
    test {struct.unpack - the sign of integers wider than 8 bytes} {
        lib_eval {
            return {(struct.unpack('>i9', '\1\128\0\0\0\0\0\0\0')), (struct.unpack('>i10', '\0\0\128\0\0\0\0\0\0\0')),
                    (struct.unpack('>i10', '\0\128\0\0\0\0\0\0\0\0')), (struct.unpack('>i12', '\0\0\0\0\0\128\0\0\0\0\0\0')),
                    (struct.unpack('>i32', string.rep('\0', 31) .. '\128'))}
        }
    } {-128 -32768 0 -2147483648 128}

    test {struct.unpack - f and d} {
        lib_eval {
            add(struct.unpack('<f', '\0\0\192\63')) add(struct.unpack('>d', '\191\248\0\0\0\0\0\0'))
            add(struct.unpack('>f', '\127\128\0\0')) add((struct.unpack('<f', struct.pack('<f', 0.1))))
            add((struct.unpack('<d', struct.pack('<d', 0.1)))) add(struct.unpack('<f', struct.pack('<f', 1e-40)))
            return R
        }
    } {1.5 5 -1.5 9 inf 5 0.10000000149012 0.1 9.9999461011148e-41 5}

    test {struct.unpack - s, c[n], c0 and x} {
        lib_eval {
            add(struct.unpack('ss', 'abc\0def\0')) add(struct.unpack('c2', 'abc')) add(struct.unpack('bc0', '\3abcd'))
            add(struct.unpack('sc0', '3\0abcd')) add(struct.unpack('bc0', '\0abcd')) add(struct.unpack('xb', 'a\1'))
            add(struct.unpack('c3', 'a\0b')) add(struct.unpack('bi0c0', '\1abc')) add(struct.unpack('dc0', struct.pack('d', 2.5) .. 'abcd'))
            return R
        }
    } {s:616263 s:646566 9 s:6162 3 s:616263 5 s:616263 6 s: 2 1 3 s:610062 4 1 s: 2 s:6162 11}

    test {struct.unpack - a start position} {
        lib_eval {
            add(struct.unpack('b', 'abc', 2)) add(struct.unpack('b', 'abc', 3)) add(struct.unpack('b', 'abc', 1.5))
            add(struct.unpack('b', 'abc', '2')) add(struct.unpack('', 'abc', 10)) add(struct.unpack('!4i', 'xy\2\0\0\0\0\0', 3))
            return R
        }
    } {98 3 99 4 97 2 98 3 10 0 9}

    test {struct.unpack - alignment} {
        lib_eval {
            add(struct.unpack('!4bi', '\1\0\0\0\2\0\0\0')) add(struct.unpack('!4bi3', '\1\0\0\2\0\0'))
            add(struct.unpack('!8xd', string.rep('\0', 16))) add(struct.unpack('<!4 b > i', '\1\0\0\0\0\0\0\2'))
            return R
        }
    } {1 2 9 1 2 7 0 17 1 2 9}

    test {struct.unpack - errors} {
        lib_errors {
            {return struct.unpack('b', '')}
            {return struct.unpack('i', '\1\2\3')}
            {return struct.unpack('!4bi', '\1\0\0\0\2\0\0')}
            {return struct.unpack('b', 'abc', 4)}
            {return struct.unpack('b', 'abc', 0)}
            {return struct.unpack('b', 'abc', -1)}
            {return struct.unpack(' ', 'abc', 10)}
            {return struct.unpack('s', 'abc')}
            {return struct.unpack('c0', 'abcd', 2)}
            {return struct.unpack('sc0', 'x\0abcd')}
            {return struct.unpack('bc0', '\5abcd')}
            {return struct.unpack('dc0', struct.pack('d', -1) .. 'abcd')}
            {return struct.unpack('z', 'a')}
            {return struct.unpack('i33', 'a')}
            {return struct.unpack('b', {})}
            {return struct.unpack('b', 'abc', 'x')}
            {return struct.unpack(string.rep('b', 10000), string.rep('a', 10000))}
        }
    } {{ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater)} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: unfinished string in data} {ERR user_script:1: format 'c0' needs a previous size} {ERR user_script:1: format 'c0' needs a previous size} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #2 to 'unpack' (data string too short)} {ERR user_script:1: bad argument #1 to 'unpack' (invalid format option 'z')} {ERR user_script:1: integral size 33 is larger than limit of 32} {ERR user_script:1: bad argument #2 to 'unpack' (string expected, got table)} {ERR user_script:1: bad argument #3 to 'unpack' (number expected, got string)} {ERR user_script:1: stack overflow (too many results)}}

    test {struct.size - fixed sizes, alignment, unknown letters count 0} {
        lib_eval {
            return {struct.size(''), struct.size('bhilT'), struct.size('!bhilT'), struct.size('!4bd'), struct.size('<>!2bi'),
                    struct.size('c10'), struct.size('x'), struct.size('fd'), struct.size('i32'), struct.size('!4i3i'),
                    struct.size('i0'), struct.size('izi'), struct.size(12), struct.size(string.rep('c2147483647', 5))}
        }
    } {0 23 24 12 6 10 1 12 32 12 0 8 0 10737418235}

    test {struct.size - errors} {
        lib_errors {
            {return struct.size('s')}
            {return struct.size('bc0')}
            {return struct.size('%')}
            {return struct.size('\200')}
            {return struct.size('!3')}
            {return struct.size('c99999999999')}
            {return struct.size()}
        }
    } "{ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)} {ERR user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size)} {ERR user_script:1: bad argument #1 to 'size' (invalid format option '%')} {ERR user_script:1: bad argument #1 to 'size' (invalid format option '\xc8')} {ERR user_script:1: alignment 3 is not a power of 2} {ERR user_script:1: integral size overflow} {ERR user_script:1: bad argument #1 to 'size' (string expected, got no value)}"

    test {struct - round trips} {
        lib_eval {
            local fmt = '>!4bBhHiIlLTfdsc5c0'
            local s = struct.pack(fmt, -1, 200, -300, 60000, -70000, 4000000000, -2^53, 2^53, 77, 0.5, math.pi, 'zero', 'five!', 'tail')
            return all(#s, struct.size('>!4bBhHiIlLTfd'), struct.unpack('>!4bBhHiIlLTfdsc5', s))
        }
    } {66 52 -1 200 -300 60000 -70000 4000000000 -9.007199254741e+15 9.007199254741e+15 77 0.5 3.1415926535898 s:7a65726f s:6669766521 63}

    # ------------------------------------------------------------------
    # cmsgpack
    # ------------------------------------------------------------------

    test {cmsgpack - fields and functions} {
        lib_eval {
            local k = {}
            for name, v in pairs(cmsgpack) do k[#k+1] = name .. '=' .. (type(v) == 'string' and v or type(v)) end
            table.sort(k)
            return k
        }
    } {{_COPYRIGHT=Copyright (C) 2012, Salvatore Sanfilippo} {_DESCRIPTION=MessagePack C implementation for Lua} _NAME=cmsgpack {_VERSION=lua-cmsgpack 0.4.0} pack=function unpack=function unpack_limit=function unpack_one=function}

    test {cmsgpack.pack - nil, booleans, positive integers at every boundary} {
        lib_eval {
            local out = {hx(cmsgpack.pack(nil)), hx(cmsgpack.pack(true)), hx(cmsgpack.pack(false))}
            for _, n in ipairs({0, 127, 128, 255, 256, 65535, 65536, 2^32 - 1, 2^32, 2^53, 2^63 - 1024}) do
                out[#out+1] = hx(cmsgpack.pack(n))
            end
            return out
        }
    } {c0 c3 c2 00 7f cc80 ccff cd0100 cdffff ce00010000 ceffffffff cf0000000100000000 cf0020000000000000 cf7ffffffffffffc00}

    test {cmsgpack.pack - negative integers at every boundary} {
        lib_eval {
            local out = {}
            for _, n in ipairs({-1, -32, -33, -128, -129, -32768, -32769, -2^31, -2^31 - 1, -2^53, -2^63}) do
                out[#out+1] = hx(cmsgpack.pack(n))
            end
            return out
        }
    } {ff e0 d0df d080 d1ff7f d18000 d2ffff7fff d280000000 d3ffffffff7fffffff d3ffe0000000000000 d38000000000000000}

    test {cmsgpack.pack - floats: 32 bits when exact, else 64; NaN, infinities, 2^63 and beyond} {
        lib_eval {
            local z = 0
            local out = {}
            for _, n in ipairs({1.5, -0.5, 0.1, 1/0, -1/0, 0/0, 2^63, 2^64, -2^64, 1e300, 1e-45, 2^-149, 3.4028234663852886e38, -z, math.pi}) do
                out[#out+1] = hx(cmsgpack.pack(n))
            end
            return out
        }
    } {ca3fc00000 cabf000000 cb3fb999999999999a ca7f800000 caff800000 cbfff8000000000000 ca5f000000 ca5f800000 cadf800000 cb7e37e43c8800759c cb3696d601ad376ab9 ca00000001 ca7f7fffff 00 cb400921fb54442d18}

    test {cmsgpack.pack - strings across the fixstr, str 8, 16 and 32 boundaries} {
        lib_eval {
            local out = {hx(cmsgpack.pack('')), hx(cmsgpack.pack('a\0b'))}
            for _, n in ipairs({31, 32, 255, 256, 65535, 65536}) do
                local s = cmsgpack.pack(string.rep('x', n))
                out[#out+1] = hx(string.sub(s, 1, #s - n)) .. ':' .. (#s - n)
            end
            return out
        }
    } {a0 a3610062 bf:1 d920:2 d9ff:2 da0100:3 daffff:3 db00010000:5}

    test {cmsgpack.pack - arrays and maps across the fix, 16 and 32-bit boundaries} {
        lib_eval {
            local out = {}
            for _, n in ipairs({15, 16, 65535, 65536}) do
                local a, m = {}, {}
                for i = 1, n do a[i] = 0 m['k' .. i] = 0 end
                local pa, pm = cmsgpack.pack(a), cmsgpack.pack(m)
                out[#out+1] = hx(string.sub(pa, 1, #pa - n)) .. ':' .. #pa
                out[#out+1] = hx(string.sub(pm, 1, 1)) .. ':' .. #pm
            end
            return out
        }
    } {9f:16 8f:67 dc0010:19 de:74 dcffff:65538 de:513177 dd00010000:65541 df:513187}

    test {cmsgpack.pack - which tables are arrays} {
        lib_eval {
            return {hx(cmsgpack.pack({})), hx(cmsgpack.pack({1, 2, 3})), hx(cmsgpack.pack({a = 1})), hx(cmsgpack.pack({1, 2, nil, 4})),
                    hx(cmsgpack.pack({[2] = 2})), hx(cmsgpack.pack({[0] = 0})), hx(cmsgpack.pack({[1.5] = 1})),
                    hx(cmsgpack.pack({[1] = 1, x = 2})), hx(cmsgpack.pack({[-1] = 1})), hx(cmsgpack.pack({["1"] = 'a'})),
                    hx(cmsgpack.pack({[true] = 1})), hx(cmsgpack.pack({[1] = 1, [2^40] = 1})),
                    hx(cmsgpack.pack(setmetatable({1, 2}, {__len = function() return 5 end})))}
        }
    } {90 93010203 81a16101 83010102020404 810202 810000 81ca3fc0000001 820101a17802 81ff01 81a131a161 81c301 820101cf000001000000000001 920102}

    test {cmsgpack.pack - several values, nested tables, unsupported types} {
        lib_eval {
            return {hx(cmsgpack.pack(1, 'a', {2}, nil, true)), hx(cmsgpack.pack({a = {1, {b = 'c'}}})),
                    hx(cmsgpack.pack(function() end)), hx(cmsgpack.pack({f = function() end})), hx(cmsgpack.pack(cjson.null)),
                    hx(cmsgpack.pack(coroutine.create(function() end)))}
        }
    } {01a1619102c0c3 81a161920181a162a163 c0 81a166c0 c0 c0}

    test {cmsgpack.pack - tables nested deeper than 16 levels pack as nil} {
        lib_eval {
            local function nest(n, leaf) local t = {} local c = t for i = 2, n do c[1] = {} c = c[1] end c[1] = leaf return t end
            local self = {} self[1] = self
            local keyed = {} keyed.a = keyed
            return {hx(cmsgpack.pack(nest(16, 5))), hx(cmsgpack.pack(nest(17, 5))), hx(cmsgpack.pack(self)),
                    #cmsgpack.pack(keyed), hx(cmsgpack.pack(nest(16, 1), nest(16, 2)))}
        }
    } {9191919191919191919191919191919105 91919191919191919191919191919191c0 91919191919191919191919191919191c0 49 91919191919191919191919191919191019191919191919191919191919191919102}

    test {cmsgpack.pack - no argument is an error} {
        lib_error {return cmsgpack.pack()}
    } {ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)}

    test {cmsgpack.unpack - every type} {
        lib_eval {
            return all(cmsgpack.unpack(unhx('c0c2c3007fe0ff' .. 'cc80cd0100ce00010000cf0000000100000000' ..
                'd0ffd1ff7fd2ffff7fffd3ffffffff7fffffff' .. 'ca3fc00000cb3fb999999999999aca7f800000' ..
                'a161d90162da000163db0000000164' .. '920102dc000103dd0000000104' .. '81a16101de0001a16202df00000001a16303')))
        }
    } {nil false true 0 127 -32 -1 128 256 65536 4294967296 -1 -129 -32769 -2147483649 1.5 0.1 inf s:61 s:62 s:63 s:64 {{1=1,2=2}} {{1=3}} {{1=4}} {{s:61=1}} {{s:62=2}} {{s:63=3}}}

    test {cmsgpack.unpack - uint 64 reads as signed; float 32 NaN and subnormals} {
        lib_eval {
            return all(cmsgpack.unpack(unhx('cfffffffffffffffffcf8000000000000000cbfff8000000000000ca7fc00000ca00000001ca80000000')))
        }
    } {-1 -9.2233720368548e+18 -nan nan 1.4012984643248e-45 -0}

    test {cmsgpack.unpack - nil elements and values leave holes; the last duplicate key wins} {
        lib_eval {
            return all(cmsgpack.unpack(unhx('93c001c08101c08201010102819001')))
        }
    } {{{2=1}} {{}} {{1=2}} {{{}=1}}}

    test {cmsgpack.unpack - the empty string, strings of digits, several values} {
        lib_eval {
            return {#{cmsgpack.unpack('')}, dump({cmsgpack.unpack(12)}), dump({cmsgpack.unpack(unhx('0102'), 1, 1)})}
        }
    } {0 {{1=49,2=50}} {{1=1,2=2}}}

    test {cmsgpack - round trips} {
        lib_eval {
            local t = {1, -1, 1.5, 'two', {a = {b = {true, false}}, [1.5] = 'x'}, {}, string.rep('\0\255', 40000), 2^53, -2^63}
            local u = {cmsgpack.unpack(cmsgpack.pack(unpack(t)))}
            local big = {}
            for i = 1, 70000 do big[i] = i end
            local back = cmsgpack.unpack(cmsgpack.pack(big))
            return {dump(t) == dump(u), #u, #back, back[70000]}
        }
    } {1 9 70000 70000}

    test {cmsgpack.unpack_one - offsets, -1 at the end} {
        lib_eval {
            local s = unhx('01a1619102c0c3')
            local out = {}
            for _, off in ipairs({0, 1, 2, 3, 6, 7}) do out[#out+1] = dump({cmsgpack.unpack_one(s, off)}) end
            out[#out+1] = dump({cmsgpack.unpack_one(s)})
            out[#out+1] = dump({cmsgpack.unpack_one('')})
            out[#out+1] = dump({cmsgpack.unpack_one(unhx('01'))})
            out[#out+1] = dump({cmsgpack.unpack_one(s, '3')})
            out[#out+1] = dump({cmsgpack.unpack_one(s, 1.7)})
            return out
        }
    } {{{1=1,2=1}} {{1=3,2=s:61}} {{1=3,2=97}} {{1=5,2={1=2}}} {{1=-1,2=true}} {{1=-1}} {{1=1,2=1}} {{1=-1}} {{1=-1,2=1}} {{1=5,2={1=2}}} {{1=3,2=s:61}}}

    test {cmsgpack.unpack_limit - offsets, limits, 0 and 0 decode everything} {
        lib_eval {
            local s = unhx('01a1619102c0c3')
            local out = {}
            for _, a in ipairs({{2, 0}, {2, 3}, {4, 0}, {5, 0}, {10, 0}, {0, 0}, {0, 1}, {0, 7}, {1, 7}, {2^32, 0}}) do
                out[#out+1] = dump({cmsgpack.unpack_limit(s, a[1], a[2])})
            end
            out[#out+1] = dump({cmsgpack.unpack_limit(s, 2)})
            out[#out+1] = dump({cmsgpack.unpack_limit('', 1)})
            out[#out+1] = dump({cmsgpack.unpack_limit(unhx('0102cc'), 2)})
            return out
        }
    } {{{1=3,2=1,3=s:61}} {{1=6,2={1=2}}} {{1=6,2=1,3=s:61,4={1=2}}} {{1=-1,2=1,3=s:61,4={1=2},6=true}} {{1=-1,2=1,3=s:61,4={1=2},6=true}} {{1=1,2=s:61,3={1=2},5=true}} {{1=1}} {{1=-1}} {{1=-1}} {{1=-1,2=1,3=s:61,4={1=2},6=true}} {{1=3,2=1,3=s:61}} {{1=-1}} {{1=2,2=1,3=2}}}

    # Redis prints the offset and, as "limit", the input's length, both as
    # 32-bit ints.
    test {cmsgpack.unpack_one and unpack_limit - offset and limit errors} {
        lib_errors {
            {return cmsgpack.unpack_one(unhx('01a1619102c0c3'), 8)}
            {return cmsgpack.unpack_one(unhx('01a1619102c0c3'), -1)}
            {return cmsgpack.unpack_one('', 1)}
            {return cmsgpack.unpack_one(unhx('01'), 2^31)}
            {return cmsgpack.unpack_one(unhx('01'), -2^32 + 1)}
            {return cmsgpack.unpack_limit(unhx('01a1619102c0c3'), -1)}
            {return cmsgpack.unpack_limit(unhx('01a1619102c0c3'), 1, 8)}
            {return cmsgpack.unpack_limit(unhx('01'))}
            {return cmsgpack.unpack_limit(unhx('01'), nil, 1)}
            {return cmsgpack.unpack_one(unhx('01'), 'x')}
            {return cmsgpack.unpack_one()}
            {return cmsgpack.unpack({})}
        }
    } {{ERR user_script:1: Start offset 8 greater than input length 7.} {ERR user_script:1: Invalid request to unpack with offset of -1 and limit of 7.} {ERR user_script:1: Start offset 1 greater than input length 0.} {ERR user_script:1: Start offset -2147483648 greater than input length 1.} {ERR user_script:1: Invalid request to unpack with offset of 1 and limit of 1.} {ERR user_script:1: Invalid request to unpack with offset of 0 and limit of 7.} {ERR user_script:1: Start offset 8 greater than input length 7.} {ERR user_script:1: bad argument #2 to 'unpack_limit' (number expected, got no value)} {ERR user_script:1: bad argument #2 to 'unpack_limit' (number expected, got nil)} {ERR user_script:1: bad argument #2 to 'unpack_one' (number expected, got string)} {ERR user_script:1: bad argument #1 to 'unpack_one' (string expected, got no value)} {ERR user_script:1: bad argument #1 to 'unpack' (string expected, got table)}}

    test {cmsgpack.unpack - truncated input} {
        unpack_errors {cc cd00 ce0000 cf00000000000000 d0 d1ff d2ffff d3000000 ca0000 cb00000000000000
                     a3 a36162 d9 d902 da00 da000261 db000000 92 9201 dc00 dc0002 dd000000 81c0 de0001a161 df00000001 0001cc}
    } {{ERR user_script:1: Missing bytes in input.}}

    test {cmsgpack.unpack - huge declared lengths are missing bytes, not allocations} {
        unpack_errors {dbffffffff dbffffff00 ddffffffff dfffffffff dcffff daffff}
    } {{ERR user_script:1: Missing bytes in input.}}

    test {cmsgpack.unpack - types it does not read: bin, ext, 0xc1} {
        unpack_errors {c1 c40161 c5000161 c60000000161 c7010161 c8000101 c9000000010161 d40161 d5016161 d601616161 d70100000000000000 d801 00c1 92c1 82c1 9201c1}
    } {{ERR user_script:1: Bad data format in input.}}

    test {cmsgpack.unpack - nil and NaN keys} {
        list [lib_error {return cmsgpack.unpack(unhx('81c001'))}] [lib_error {return cmsgpack.unpack(unhx('81cbfff800000000000001'))}]
    } {{ERR table index is nil} {ERR table index is NaN}}

    test {cmsgpack.unpack - deep nesting and too many values are stack overflow errors} {
        lib_eval {
            local out = {}
            for _, s in ipairs({string.rep(unhx('91'), 3999) .. unhx('01'), string.rep(unhx('91'), 4000) .. unhx('01'),
                                string.rep(unhx('91'), 3999) .. unhx('90'), string.rep(unhx('91'), 3999),
                                string.rep(unhx('8101'), 3999) .. unhx('01'), string.rep(unhx('8101'), 4000) .. unhx('01'),
                                string.rep(unhx('81'), 7997) .. string.rep(unhx('01'), 7998), string.rep(unhx('81'), 7999),
                                string.rep(unhx('81'), 8000), string.rep(unhx('91'), 100000), string.rep(unhx('01'), 7999),
                                string.rep(unhx('01'), 8000)}) do
                local ok, e = pcall(cmsgpack.unpack, s)
                out[#out+1] = ok and 'ok' or e
            end
            return out
        }
    } {ok {stack overflow (in function mp_decode_to_lua_array)} {stack overflow (in function mp_decode_to_lua_array)} {Missing bytes in input.} ok {stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)} ok {Missing bytes in input.} {stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)} {stack overflow (in function mp_decode_to_lua_array)} ok {stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)}}

    test {cmsgpack.unpack_limit - room for the next offset} {
        lib_eval {
            local s = string.rep(unhx('01'), 8000)
            local out = {}
            for _, n in ipairs({7998, 7999}) do
                local ok, e = pcall(cmsgpack.unpack_limit, s, n)
                out[#out+1] = ok and 'ok' or e
            end
            return out
        }
    } {ok {stack overflow (in function mp_unpack_full)}}
}
