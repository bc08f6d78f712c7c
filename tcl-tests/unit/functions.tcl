# Functions: FUNCTION LOAD / LIST / STATS / DELETE / FLUSH / DUMP / RESTORE /
# KILL / HELP, FCALL and FCALL_RO, their errors and texts; the Lua
# environment both engines share (redis.setresp and the RESP3 conversions,
# read-only tables, redis.* helpers); busy scripts of both engines (-BUSY,
# FUNCTION STATS, SCRIPT KILL / FUNCTION KILL, -UNKILLABLE, SHUTDOWN NOSAVE).
# Every test must pass against redis-server too: where Redis 7.2 differs
# from Debian's 7.0.15 the test is tagged redis7.2 and says what changed.
#
# Redis lists libraries, and a library's functions, in the order of a dict:
# the tests sort what FUNCTION LIST returns before comparing.

# "#!lua name=<name>" and the code after it.
proc fn_lib {name code} {
    return "#!lua name=$name\n$code"
}

# The error text of a FUNCTION LOAD REPLACE of `code` in library errlib.
proc fn_load_error {code} {
    if {![catch {r function load replace [fn_lib errlib $code]} e]} {
        error "FUNCTION LOAD succeeded: $e"
    }
    return $e
}

# FUNCTION LIST's reply with its libraries sorted by name, and each
# library's functions too.
proc fn_sorted {reply} {
    set libs {}
    foreach lib $reply {
        dict set lib functions [lsort -index 1 [dict get $lib functions]]
        lappend libs $lib
    }
    return [lsort -index 1 $libs]
}

# One whole reply as its protocol lines (without CRLF) joined by spaces,
# read with a readraw client: the RESP3 types stay visible.
proc fn_raw_read {c} {
    set line [$c read]
    set out [list $line]
    set type [string index $line 0]
    set n [string range $line 1 end]
    switch -- $type {
        * - ~ - > {
            for {set i 0} {$i < $n} {incr i} {lappend out [fn_raw_read $c]}
        }
        % - | {
            for {set i 0} {$i < 2 * $n} {incr i} {lappend out [fn_raw_read $c]}
        }
        $ - = {
            if {$n >= 0} {lappend out [$c read]}
        }
    }
    return [join $out " "]
}

# Sends a command on readraw client c and returns its reply as fn_raw_read.
proc fn_raw {c args} {
    $c write [format_command {*}$args]
    $c flush
    fn_raw_read $c
}

# CRC-64/Jones (reflected), Redis's crc64(0, ...), over a byte string.
proc fn_crc64 {data} {
    if {![info exists ::fn_crc64_table]} {
        for {set i 0} {$i < 256} {incr i} {
            set c $i
            for {set k 0} {$k < 8} {incr k} {
                set c [expr {$c & 1 ? ($c >> 1) ^ 0x95ac9329ac4bc9b5 : $c >> 1}]
            }
            lappend ::fn_crc64_table $c
        }
    }
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {[lindex $::fn_crc64_table [expr {($crc ^ $b) & 0xff}]] ^ ($crc >> 8)}]
    }
    return $crc
}

# A FUNCTION RESTORE payload: body, RDB version (2 bytes LE), CRC-64 (8
# bytes LE) of both. Version 10 is the one both 7.0 and 7.2 accept.
proc fn_payload {body {rdbver 10}} {
    set p "$body[binary format s $rdbver]"
    set crc [fn_crc64 $p]
    append p [binary format ii [expr {$crc & 0xffffffff}] [expr {$crc >> 32}]]
    return $p
}

# A library as the payload has it: the function opcode (245) and the code
# as an RDB string (uncompressed; lengths below 16384).
proc fn_rdb_lib {code} {
    set n [string length $code]
    if {$n < 64} {return "\xf5[binary format c $n]$code"}
    return "\xf5[binary format cc [expr {0x40 | ($n >> 8)}] [expr {$n & 0xff}]]$code"
}

# FUNCTION DUMP of redis-server 7.0.15 (RDB version 10) holding one library,
# dumplib (its code LZF-compressed, as Redis writes strings over 20 bytes):
#   #!lua name=dumplib
#   redis.register_function('dl_echo', function(keys, args) return args[1] end)
#   redis.register_function{function_name='dl_get', callback=function(keys)
#       return redis.call('get', keys[1]) end, flags={'no-writes'},
#       description='reads a key'}      (one line in the library)
set ::fn_redis_dump [binary decode hex [join {
    f5c340bd40fd1f23216c7561206e616d653d64756d706c69620a72656469732e72656769
    73746515725f66756e6374696f6e2827646c5f6563686f272c20e00013116b6579732c20
    61726773292072657475726e600c075b315d20656e6429e00f4b007bc040005f60794059
    0267657420580863616c6c6261636b3dc0206061e0005b809a402401282780304080206d
    0029406e20971a6c6167733d7b276e6f2d777269746573277d2c206465736372697040c3
    083d2772656164732061403701277d0a00d64e6822f0f1602a
} ""]]
set ::fn_dumplib_code [fn_lib dumplib [join [list \
    "redis.register_function('dl_echo', function(keys, args) return args\[1\] end)" \
    "redis.register_function{function_name='dl_get', callback=function(keys) return redis.call('get', keys\[1\]) end, flags={'no-writes'}, description='reads a key'}"] \n]]

start_server {tags {"functions"}} {

    # --------------------------------------------------------------------
    # FUNCTION LOAD
    # --------------------------------------------------------------------

    test {FUNCTION LOAD returns the library name, FCALL calls its function} {
        r function flush
        set name [r function load [fn_lib mylib {
            redis.register_function('myfunc', function(keys, args) return 'hello' end)
        }]]
        list $name [r fcall myfunc 0]
    } {mylib hello}

    test {FUNCTION LOAD - named arguments: callback, flags and description} {
        r function flush
        r function load [fn_lib named {
            redis.register_function{function_name='f_plain', callback=function() return 1 end}
            redis.register_function{function_name='f_ro', callback=function() return 2 end,
                                    flags={'no-writes'}, description='read only'}
            redis.register_function{function_name='f_all', callback=function() return 3 end,
                flags={'no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}
        }]
        list [r fcall f_plain 0] [r fcall_ro f_ro 0] [r fcall_ro f_all 0] [fn_sorted [r function list]]
    } {1 2 3 {{library_name named engine LUA functions {{name f_all description {} flags {no-writes allow-oom allow-stale no-cluster allow-cross-slot-keys}} {name f_plain description {} flags {}} {name f_ro description {read only} flags no-writes}}}}}

    test {FUNCTION LOAD - an existing library needs REPLACE} {
        r function flush
        r function load [fn_lib lib1 {redis.register_function('old', function() return 'old' end)}]
        catch {r function load [fn_lib lib1 {redis.register_function('new', function() return 'new' end)}]} e
        assert_equal {ERR Library 'lib1' already exists} $e
        assert_equal old [r fcall old 0]
        # REPLACE drops the old library's functions with it.
        assert_equal lib1 [r function load REPLACE [fn_lib lib1 {redis.register_function('new', function() return 'new' end)}]]
        catch {r fcall old 0} e
        list $e [r fcall new 0]
    } {{ERR Function not found} new}

    test {FUNCTION LOAD - a REPLACE that fails keeps the old library} {
        r function flush
        r function load [fn_lib keep {redis.register_function('kept', function() return 'kept' end)}]
        catch {r function load replace [fn_lib keep {retur 1}]} e
        assert_match {ERR Error compiling function: *} $e
        catch {r function load replace [fn_lib keep {return 1}]} e
        assert_equal {ERR No functions registered} $e
        r fcall kept 0
    } {kept}

    test {FUNCTION LOAD - metadata errors} {
        set errs {}
        foreach code [list \
                "redis.register_function('f', function() return 1 end)" \
                "#!lua" \
                "#!lua\nreturn 1" \
                "#!lua name=a name=b\nreturn 1" \
                "#!lua foo=bar\nreturn 1" \
                "#!lua name=a foo\nreturn 1" \
                "#!lua2 name=a\nreturn 1"] {
            catch {r function load $code} e
            lappend errs $e
        }
        set errs
    } {{ERR Missing library metadata} {ERR Invalid library metadata} {ERR Library name was not given} {ERR Invalid metadata value, name argument was given multiple times} {ERR Invalid metadata value given: foo=bar} {ERR Invalid metadata value given: foo} {ERR Engine 'lua2' not found}}

    test {FUNCTION LOAD - the engine name ignores case} {
        r function flush
        r function load "#!LUA name=upper\nredis.register_function('up', function() return 'up' end)"
        r fcall up 0
    } {up}

    test {FUNCTION LOAD - library and function names: letters, digits, underscores} {
        set bad {Library names can only contain letters, numbers, or underscores(_) and must be at least one character long}
        catch {r function load "#!lua name=a-b\nreturn 1"} e1
        catch {r function load "#!lua name=\nreturn 1"} e2
        # Redis's text for a bad function name says "Library names" too.
        set e3 [fn_load_error {redis.register_function('f-1', function() return 1 end)}]
        set e4 [fn_load_error {redis.register_function('', function() return 1 end)}]
        assert_equal "ERR $bad" $e1
        assert_equal "ERR $bad" $e2
        assert_equal "ERR Error registering functions: ERR $bad" $e3
        assert_equal "ERR Error registering functions: ERR $bad" $e4
        r function flush
        r function load [fn_lib Lib_09 {redis.register_function('Fn_09', function() return 9 end)}]
        r fcall Fn_09 0
    } {9}

    test {FUNCTION LOAD - a function name taken in the library or by another library} {
        r function flush
        r function load [fn_lib first {redis.register_function('shared', function() return 1 end)}]
        set e1 [fn_load_error {
            redis.register_function('twice', function() return 1 end)
            redis.register_function('twice', function() return 2 end)
        }]
        catch {r function load [fn_lib second {redis.register_function('shared', function() return 2 end)}]} e2
        # Function names ignore case across libraries (Redis's functions dict).
        catch {r function load [fn_lib third {redis.register_function('SHARED', function() return 3 end)}]} e3
        list $e1 $e2 $e3 [r fcall shared 0]
    } {{ERR Error registering functions: ERR Function already exists in the library} {ERR Function shared already exists} {ERR Function SHARED already exists} 1}

    test {FUNCTION LOAD - a library must register a function} {
        fn_load_error {local x = 1}
    } {ERR No functions registered}

    test {FUNCTION LOAD - compile and run-time errors of the library's code} {
        # Line numbers count the shebang line.
        set e1 [fn_load_error {retur 1}]
        set e2 [fn_load_error "\n\nlocal t = nil\nt.x = 1"]
        list $e1 $e2
    } {{ERR Error compiling function: user_function:2: '=' expected near '1'} {ERR Error registering functions: ERR user_function:5: attempt to index local 't' (a nil value)}}

    test {FUNCTION LOAD - redis.register_function argument errors} {
        set errs {}
        foreach call {
            {redis.register_function()}
            {redis.register_function('a', 'b', 'c')}
            {redis.register_function('f')}
            {redis.register_function({}, function() end)}
            {redis.register_function('f', 1)}
            {redis.register_function({})}
            {redis.register_function({function_name='f'})}
            {redis.register_function({callback=function() end})}
            {redis.register_function({function_name={}, callback=function() end})}
            {redis.register_function({function_name='f', callback=1})}
            {redis.register_function({function_name='f', callback=function() end, description={}})}
            {redis.register_function({function_name='f', callback=function() end, flags='no-writes'})}
            {redis.register_function({function_name='f', callback=function() end, flags={'no-such-flag'}})}
            {redis.register_function({function_name='f', callback=function() end, flags={1}})}
            {redis.register_function({function_name='f', callback=function() end, foo=1})}
            {redis.register_function({[1]='f', callback=function() end})}
        } {
            set e [fn_load_error $call]
            regsub {^ERR Error registering functions: ERR } $e {} e
            lappend errs $e
        }
        join $errs \n
    } {wrong number of arguments to redis.register_function
wrong number of arguments to redis.register_function
calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).
first argument to redis.register_function must be a string
second argument to redis.register_function must be a function
redis.register_function must get a function name argument
redis.register_function must get a callback argument
redis.register_function must get a function name argument
function_name argument given to redis.register_function must be a string
callback argument given to redis.register_function must be a function
description argument given to redis.register_function must be a string
flags argument to redis.register_function must be a table representing function flags
unknown flag given
unknown flag given
unknown argument given to redis.register_function
unknown argument given to redis.register_function}

    test {FUNCTION LOAD - register_function's flag names ignore case} {
        r function flush
        r function load [fn_lib flagcase {
            redis.register_function{function_name='fc', callback=function() return 1 end, flags={'NO-WRITES', 'Allow-Stale'}}
        }]
        list [r fcall_ro fc 0] [dict get [lindex [dict get [lindex [r function list] 0] functions] 0] flags]
    } {1 {no-writes allow-stale}}

    test {FUNCTION LOAD - while the library loads, only redis is there, with few fields} {
        set errs {}
        foreach expr {string _G KEYS ARGV error pairs pcall type
                      redis.call redis.pcall redis.setresp redis.sha1hex redis.error_reply
                      redis.status_reply redis.set_repl redis.acl_check_cmd} {
            set e [fn_load_error "local x = $expr"]
            regsub {^ERR Error registering functions: ERR user_function:2: } $e {} e
            lappend errs $e
        }
        lsort -unique $errs
    } {{Script attempted to access nonexistent global variable 'ARGV'} {Script attempted to access nonexistent global variable 'KEYS'} {Script attempted to access nonexistent global variable '_G'} {Script attempted to access nonexistent global variable 'acl_check_cmd'} {Script attempted to access nonexistent global variable 'call'} {Script attempted to access nonexistent global variable 'error'} {Script attempted to access nonexistent global variable 'error_reply'} {Script attempted to access nonexistent global variable 'pairs'} {Script attempted to access nonexistent global variable 'pcall'} {Script attempted to access nonexistent global variable 'set_repl'} {Script attempted to access nonexistent global variable 'setresp'} {Script attempted to access nonexistent global variable 'sha1hex'} {Script attempted to access nonexistent global variable 'status_reply'} {Script attempted to access nonexistent global variable 'string'} {Script attempted to access nonexistent global variable 'type'}}

    test {FUNCTION LOAD - redis.log, LOG_* and the version are there at load time} {
        r function flush
        r function load [fn_lib loadtime {
            local levels = {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}
            redis.log(redis.LOG_NOTICE, 'library loadtime is loading')
            local version, num = redis.REDIS_VERSION, redis.REDIS_VERSION_NUM
            redis.register_function('lt', function() return {levels, version, num} end)
        }]
        lassign [r fcall lt 0] levels version num
        set v [s redis_version]
        lassign [split $v .] major minor patch
        assert_equal {0 1 2 3} $levels
        assert_equal $v $version
        assert_equal [expr {($major << 16) | ($minor << 8) | $patch}] $num
        fn_load_error {redis.log(redis.LOG_WARNING)}
    } {ERR Error registering functions: ERR redis.log() requires two arguments or more.}

    test {FUNCTION LOAD - the load-time globals and redis are read-only} {
        set e1 [fn_load_error {redis.foo = 1}]
        set e2 [fn_load_error {foo = 1}]
        set e3 [fn_load_error {redis.register_function = nil}]
        list $e1 $e2 $e3
    } {{ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table} {ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table} {ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table}}

    test {FUNCTION LOAD - redis.register_function is not there when a function runs} {
        r function flush
        r function load [fn_lib late {
            redis.register_function('late', function() return type(redis.register_function) end)
        }]
        r fcall late 0
    } {nil}

    test {FUNCTION LOAD - an endless loop ends with FUNCTION LOAD timeout} {
        r function flush
        set e [fn_load_error {local i = 0 while true do i = i + 1 end}]
        list $e [r function list]
    } {{ERR Error registering functions: ERR FUNCTION LOAD timeout} {}}

    test {FUNCTION LOAD - arguments} {
        catch {r function load foo [fn_lib x {return 1}]} e1
        catch {r function load} e2
        # A lone REPLACE is the code.
        catch {r function load replace} e3
        list $e1 $e2 $e3
    } {{ERR Unknown option given: foo} {ERR wrong number of arguments for 'function|load' command} {ERR Missing library metadata}}

    # --------------------------------------------------------------------
    # FCALL / FCALL_RO
    # --------------------------------------------------------------------

    r function flush
    r function load [fn_lib calls {
        redis.register_function('echo_all', function(keys, args) return {keys, args} end)
        redis.register_function('incr_key', function(keys) return redis.call('incr', keys[1]) end)
        redis.register_function{function_name='get_key', callback=function(keys) return redis.call('get', keys[1]) end,
                                flags={'no-writes'}}
        redis.register_function{function_name='try_write', callback=function(keys) return redis.call('set', keys[1], 'x') end,
                                flags={'no-writes'}}
        redis.register_function('unknown_cmd', function() return redis.call('nosuchcommand') end)
        redis.register_function('raise', function() error('boom') end)
        redis.register_function('wrong_type', function(keys) return redis.call('lpush', keys[1], 'x') end)
        redis.register_function('raise_table', function() error({err='MYCODE custom'}) end)
        redis.register_function('bad_global', function() return no_such_global end)
        redis.register_function('err_reply', function() return redis.error_reply('MY_ERR mine') end)
        redis.register_function('err_table', function() return {err='OTHER failed'} end)
        redis.register_function('status', function() return redis.status_reply('FINE') end)
        redis.register_function('pcall_err', function(keys) return redis.pcall('incr', keys[1]) end)
        redis.register_function('nested', function() return redis.call('fcall', 'echo_all', 0) end)
    }]

    test {FCALL - keys and arguments} {
        list [r fcall echo_all 2 k1 k2 a1 a2 a3] [r fcall echo_all 0 a1] [r fcall echo_all 1 k1] [r fcall echo_all 0]
    } {{{k1 k2} {a1 a2 a3}} {{} a1} {k1 {}} {{} {}}}

    test {FCALL - numkeys errors} {
        set errs {}
        foreach nk {-1 x 1.5 4} {
            catch {r fcall echo_all $nk a b c} e
            lappend errs $e
        }
        catch {r fcall echo_all} e
        lappend errs $e
        join $errs \n
    } {ERR Number of keys can't be negative
ERR Bad number of keys provided
ERR Bad number of keys provided
ERR Number of keys can't be greater than number of args
ERR wrong number of arguments for 'fcall' command}

    test {FCALL - Function not found} {
        catch {r fcall nosuchfunction 0} e1
        catch {r fcall_ro nosuchfunction 0} e2
        # The name is looked up before numkeys.
        catch {r fcall nosuchfunction -1} e3
        list $e1 $e2 $e3
    } {{ERR Function not found} {ERR Function not found} {ERR Function not found}}

    test {FCALL - function names ignore case} {
        r fcall ECHO_ALL 0 x
    } {{} x}

    test {FCALL - a function writes and reads} {
        r del fk
        list [r fcall incr_key 1 fk] [r fcall incr_key 1 fk] [r fcall get_key 1 fk] [r get fk]
    } {1 2 2 2}

    test {FCALL_RO - only no-writes functions} {
        r set fk 5
        catch {r fcall_ro incr_key 1 fk} e
        list $e [r fcall_ro get_key 1 fk] [r get fk]
    } {{ERR Can not execute a script with write flag using *_ro command.} 5 5}

    test {FCALL - a no-writes function cannot write, whichever command calls it} {
        catch {r fcall try_write 1 fk} e1
        catch {r fcall_ro try_write 1 fk} e2
        list $e1 $e2 [r get fk]
    } {{ERR Write commands are not allowed from read-only scripts. script: try_write, on @user_function:7.} {ERR Write commands are not allowed from read-only scripts. script: try_write, on @user_function:7.} 5}

    test {FCALL - errors name the function and the line} {
        r set fstr x
        set errs {}
        foreach {f nk} {unknown_cmd 0 raise 0 wrong_type 1 raise_table 0 bad_global 0} {
            catch {r fcall $f $nk fstr} e
            lappend errs $e
        }
        join $errs \n
    } {ERR Unknown Redis command called from script script: unknown_cmd, on @user_function:9.
ERR user_function:10: boom script: raise, on @user_function:10.
WRONGTYPE Operation against a key holding the wrong kind of value script: wrong_type, on @user_function:11.
MYCODE custom script: raise_table, on @user_function:12.
ERR user_function:13: Script attempted to access nonexistent global variable 'no_such_global' script: bad_global, on @user_function:13.}

    test {FCALL - returned errors and statuses are sent as they are} {
        r set fstr x
        catch {r fcall err_reply 0} e1
        catch {r fcall err_table 0} e2
        catch {r fcall pcall_err 1 fstr} e3
        list $e1 $e2 $e3 [r fcall status 0]
    } {{MY_ERR mine} {OTHER failed} {ERR value is not an integer or out of range} FINE}

    test {FCALL and FUNCTION are not allowed from scripts} {
        set errs {}
        foreach call {{'fcall', 'echo_all', 0} {'fcall_ro', 'get_key', 1, 'k'} {'function', 'list'} {'function', 'stats'}} {
            catch {r eval "return redis.call($call)" 0} e
            lappend errs [regsub {script: \w+, } $e {script: *, }]
        }
        catch {r fcall nested 0} e
        lappend errs $e
        lsort -unique $errs
    } {{ERR This Redis command is not allowed from script script: *, on @user_script:1.} {ERR This Redis command is not allowed from script script: nested, on @user_function:18.}}

    test {FCALL in MULTI runs at EXEC} {
        r del fm
        r multi
        r fcall incr_key 1 fm
        r fcall_ro get_key 1 fm
        r exec
    } {1 1}

    test {COMMAND GETKEYS of FCALL and FCALL_RO} {
        list [r command getkeys fcall f 2 a b c] [r command getkeys fcall_ro f 1 a b]
    } {{a b} a}

    # --------------------------------------------------------------------
    # FUNCTION LIST / STATS / DELETE / FLUSH / HELP
    # --------------------------------------------------------------------

    test {FUNCTION LIST - every library, with its functions} {
        r function flush
        r function load [fn_lib lib_b {
            redis.register_function('b2', function() return 1 end)
            redis.register_function{function_name='b1', callback=function() return 1 end, description='first b'}
        }]
        r function load [fn_lib lib_a {redis.register_function('a1', function() return 1 end)}]
        fn_sorted [r function list]
    } {{library_name lib_a engine LUA functions {{name a1 description {} flags {}}}} {library_name lib_b engine LUA functions {{name b1 description {first b} flags {}} {name b2 description {} flags {}}}}}

    test {FUNCTION LIST - LIBRARYNAME is a glob pattern that ignores case} {
        set got {}
        foreach pat {lib_a lib_* *_b LIB_A lib_? nomatch} {
            set names {}
            foreach lib [r function list libraryname $pat] {lappend names [dict get $lib library_name]}
            lappend got [lsort $names]
        }
        set got
    } {lib_a {lib_a lib_b} lib_b lib_a {lib_a lib_b} {}}

    test {FUNCTION LIST - WITHCODE adds the library's code} {
        set code [fn_lib lib_a {redis.register_function('a1', function() return 1 end)}]
        set lib [lindex [r function list withcode libraryname lib_a] 0]
        assert_equal {library_name engine functions library_code} [dict keys $lib]
        assert_equal $code [dict get $lib library_code]
        # In any order, any case.
        assert_equal $code [dict get [lindex [r function list LIBRARYNAME lib_a WITHCODE] 0] library_code]
    }

    test {FUNCTION LIST - argument errors} {
        set errs {}
        foreach args {{libraryname} {withcode withcode} {libraryname a libraryname b} {foo} {libraryname a foo}} {
            catch {r function list {*}$args} e
            lappend errs $e
        }
        join $errs \n
    } {ERR library name argument was not given
ERR Unknown argument withcode
ERR Unknown argument libraryname
ERR Unknown argument foo
ERR Unknown argument foo}

    test {FUNCTION LIST - function flags are a RESP3 set} {
        r function flush
        r function load [fn_lib flagset {
            redis.register_function{function_name='fs', callback=function() return 1 end, flags={'no-writes'}}
        }]
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set raw [fn_raw $c function list]
        $c close
        set raw
    } {*1 %3 $12 library_name $7 flagset $6 engine $3 LUA $9 functions *1 %3 $4 name $2 fs $11 description _ $5 flags ~1 +no-writes}

    test {FUNCTION STATS - libraries and functions} {
        r function flush
        set empty [r function stats]
        r function load [fn_lib st1 {
            redis.register_function('s1', function() return 1 end)
            redis.register_function('s2', function() return 1 end)
        }]
        r function load [fn_lib st2 {redis.register_function('s3', function() return 1 end)}]
        list $empty [r function stats]
    } {{running_script {} engines {LUA {libraries_count 0 functions_count 0}}} {running_script {} engines {LUA {libraries_count 2 functions_count 3}}}}

    test {FUNCTION DELETE} {
        # Library names are case-sensitive (function names are not).
        catch {r function delete ST1} e1
        assert_equal OK [r function delete st1]
        catch {r function delete st1} e2
        catch {r fcall s1 0} e3
        catch {r function delete} e4
        catch {r function delete a b} e5
        list $e1 $e2 $e3 $e4 $e5 [r function stats]
    } {{ERR Library not found} {ERR Library not found} {ERR Function not found} {ERR wrong number of arguments for 'function|delete' command} {ERR wrong number of arguments for 'function|delete' command} {running_script {} engines {LUA {libraries_count 1 functions_count 1}}}}

    test {FUNCTION FLUSH, ASYNC and SYNC} {
        set got {}
        foreach mode {{} async SYNC} {
            r function load replace [fn_lib fl {redis.register_function('flf', function() return 1 end)}]
            lappend got [r function flush {*}$mode] [r function list]
        }
        catch {r function flush foo} e1
        catch {r function flush async sync} e2
        list $got $e1 $e2
    } {{OK {} OK {} OK {}} {ERR FUNCTION FLUSH only supports SYNC|ASYNC option} {ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.}}

    test {FUNCTION HELP and unknown subcommands} {
        set help [r function help]
        catch {r function nosuch} e
        list [lindex $help 0] [lindex $help 1] [lindex $help end-1] [lindex $help end] [llength $help] $e
    } {{FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} {LOAD [REPLACE] <FUNCTION CODE>} HELP {    Prints this help.} 40 {ERR unknown subcommand 'nosuch'. Try FUNCTION HELP.}}

    # --------------------------------------------------------------------
    # FUNCTION DUMP / RESTORE
    # --------------------------------------------------------------------

    test {FUNCTION DUMP and RESTORE round trip} {
        r function flush
        r function load [fn_lib rt1 {
            redis.register_function{function_name='rt_a', callback=function() return 'a' end, flags={'no-writes'}, description='A'}
        }]
        r function load [fn_lib rt2 {redis.register_function('rt_b', function() return 'b' end)}]
        set before [fn_sorted [r function list withcode]]
        set dump [r function dump]
        r function flush
        assert_equal OK [r function restore $dump]
        list [expr {[fn_sorted [r function list withcode]] eq $before}] [r fcall rt_a 0] [r fcall rt_b 0]
    } {1 a b}

    test {FUNCTION RESTORE policies: APPEND (the default), REPLACE, FLUSH} {
        # The payload holds rt1 and rt2; rt2 is replaced by other code.
        set dump [r function dump]
        r function delete rt1
        r function load replace [fn_lib rt2 {redis.register_function('rt_b', function() return 'changed' end)}]
        catch {r function restore $dump} e1
        catch {r function restore $dump APPEND} e2
        assert_equal {ERR Library rt2 already exists} $e1
        assert_equal $e1 $e2
        # Nothing of a failed RESTORE is kept.
        assert_equal {rt2} [lmap l [r function list] {dict get $l library_name}]
        assert_equal OK [r function restore $dump replace]
        assert_equal {b a} [list [r fcall rt_b 0] [r fcall rt_a 0]]
        r function load [fn_lib extra {redis.register_function('ex', function() return 1 end)}]
        assert_equal OK [r function restore $dump FLUSH]
        lsort [lmap l [r function list] {dict get $l library_name}]
    } {rt1 rt2}

    test {FUNCTION RESTORE REPLACE still fails on a function of another library} {
        set dump [r function dump]
        r function flush
        r function load [fn_lib thief {redis.register_function('rt_a', function() return 'thief' end)}]
        catch {r function restore $dump replace} e
        list $e [r fcall rt_a 0] [lmap l [r function list] {dict get $l library_name}]
    } {{ERR Function rt_a already exists} thief thief}

    test {FUNCTION RESTORE - policy and argument errors} {
        set dump [r function dump]
        catch {r function restore $dump foo} e1
        catch {r function restore $dump flush extra} e2
        catch {r function restore} e3
        list $e1 $e2 $e3
    } {{ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.} {ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.} {ERR wrong number of arguments for 'function|restore' command}}

    test {FUNCTION RESTORE - a wrong checksum or RDB version} {
        set dump [r function dump]
        set errs {}
        foreach p [list "" junk [string range $dump 0 end-1] [string replace $dump 3 3 Z] \
                       [fn_payload [string range $dump 0 end-10] 99]] {
            catch {r function restore $p} e
            lappend errs $e
        }
        lsort -unique $errs
    } {{ERR DUMP payload version or checksum are wrong}}

    test {FUNCTION RESTORE - an empty payload (footer only) restores nothing} {
        r function flush
        r function load [fn_lib kept {redis.register_function('k', function() return 1 end)}]
        list [r function restore [fn_payload ""]] [r function restore [fn_payload ""] flush] [r function list]
    } {OK OK {}}

    test {FUNCTION RESTORE - a valid checksum over bad content} {
        r function flush
        set good "#!lua name=pl\nredis.register_function('plf', function() return 'pl' end)"
        set errs {}
        foreach body [list \
                "\x00" \
                "\xf5\x05ab" \
                "\xf5" \
                [fn_rdb_lib "return 1"] \
                [fn_rdb_lib "#!lua name=pl\n"] \
                [fn_rdb_lib "#!lua name=pl\nretur 1"] \
                "[fn_rdb_lib $good][fn_rdb_lib $good]" \
                "[fn_rdb_lib $good][fn_rdb_lib [string map {name=pl name=pl2} $good]]"] {
            catch {r function restore [fn_payload $body]} e
            lappend errs $e
        }
        lappend errs [r function list]
        join $errs \n
    } {ERR given type is not a function
ERR Missing library metadata
ERR Failed loading library payload
ERR Missing library metadata
ERR No functions registered
ERR Error compiling function: user_function:2: '=' expected near '1'
ERR Library 'pl' already exists
ERR Function plf already exists
}

    test {FUNCTION RESTORE of a payload built here} {
        r function flush
        set code "#!lua name=pl\nredis.register_function('plf', function() return 'pl' end)"
        list [r function restore [fn_payload [fn_rdb_lib $code]]] [r fcall plf 0]
    } {OK pl}

    # casq-only: Redis runs a payload's libraries without a time limit, so
    # this payload would hang it for good.
    test {FUNCTION RESTORE of a library that never returns is refused within FUNCTION LOAD's limit} {
        r function flush
        set code "#!lua name=endless\nlocal x = 0 while true do x = x + 1 end"
        catch {r function restore [fn_payload [fn_rdb_lib $code]]} e
        list $e [r function list] [r ping]
    } {{ERR Error registering functions: ERR FUNCTION LOAD timeout} {} PONG} {needs:casq}

    test {FUNCTION RESTORE of a payload dumped by redis-server 7.0.15} {
        r function flush
        r set dk dv
        assert_equal OK [r function restore $::fn_redis_dump]
        set lib [lindex [fn_sorted [r function list withcode]] 0]
        list [dict get $lib library_name] [dict get $lib functions] \
            [expr {[dict get $lib library_code] eq $::fn_dumplib_code}] \
            [r fcall dl_echo 0 hi] [r fcall_ro dl_get 1 dk]
    } {dumplib {{name dl_echo description {} flags {}} {name dl_get description {reads a key} flags no-writes}} 1 hi dv}

    test {FUNCTION DUMP writes the library as redis-server does} {
        r function flush
        r function load $::fn_dumplib_code
        set dump [r function dump]
        # The same LZF-compressed RDB string; the footer holds the server's
        # RDB version and the checksum.
        binary scan [string range $dump end-9 end-8] s ver
        set body [string range $dump 0 end-10]
        list [string equal $body [string range $::fn_redis_dump 0 end-10]] [string equal $dump [fn_payload $body $ver]]
    } {1 1}

    # Redis 7.2 writes and reads RDB version 11 (7.0: 10).
    test {FUNCTION DUMP / RESTORE use RDB version 11 (Redis 7.2)} {
        set dump [r function dump]
        binary scan [string range $dump end-9 end-8] s ver
        r function flush
        list $ver [r function restore [fn_payload [string range $dump 0 end-10] 11]] [r fcall dl_echo 0 x]
    } {11 OK x} {redis7.2}

    # Redis 7.2 refuses the pre-GA opcode (7.0.15 still tries to read it).
    test {FUNCTION RESTORE of the pre-GA format (Redis 7.2)} {
        catch {r function restore [fn_payload "\xf6\x01x"]} e
        set e
    } {ERR Pre-GA function format not supported} {redis7.2}

    # --------------------------------------------------------------------
    # The Lua environment (both engines)
    # --------------------------------------------------------------------

    test {redis.setresp(3): redis.call returns maps, sets, doubles and nil} {
        r del rh rs rz
        r hset rh f v
        r sadd rs m
        r zadd rz 1.5 a
        r eval {
            redis.setresp(3)
            local h = redis.call('hgetall', KEYS[1])
            local s = redis.call('smembers', KEYS[2])
            local z = redis.call('zscore', KEYS[3], 'a')
            local n = redis.call('get', 'rnokey')
            return {type(h.map), h.map.f, type(s.set), tostring(s.set.m), type(z.double), tostring(z.double * 2),
                    tostring(n == nil)}
        } 3 rh rs rz
    } {table v table true number 3 true}

    test {redis.setresp(2): nil is false, a status is {ok=}} {
        r eval {
            redis.setresp(2)
            local n = redis.call('get', 'rnokey')
            local z = redis.call('zscore', KEYS[1], 'a')
            return {tostring(n), z, redis.call('set', KEYS[2], 'v').ok}
        } 2 rz rnew
    } {false 1.5 OK}

    test {redis.setresp errors} {
        set errs {}
        foreach call {{redis.setresp()} {redis.setresp(3, 4)} {redis.setresp(4)} {redis.setresp('a')}} {
            catch {r eval $call 0} e
            lappend errs [regsub { script: .*} $e {}]
        }
        lappend errs [r eval {return redis.setresp(2)} 0]
    } {{ERR redis.setresp() requires one argument.} {ERR redis.setresp() requires one argument.} {ERR RESP version must be 2 or 3.} {ERR RESP version must be 2 or 3.} {}}

    test {setresp(3) replies to a RESP2 caller} {
        set c [redis_client]
        $c readraw 1
        set got {}
        foreach body {
            {return true} {return false} {return nil} {return {double=1.5}}
            {return {map={k='v'}}} {return {set={m=true}}}
            {return {big_number='123456789012345678901234567890'}}
            {return {verbatim_string={format='txt', string='hi'}}}
            {return redis.call('hgetall', KEYS[1])}
        } {
            lappend got [fn_raw $c eval "redis.setresp(3) $body" 1 rh]
        }
        $c close
        join $got \n
    } {:1
:0
$-1
$3 1.5
*2 $1 k $1 v
*1 $1 m
$30 123456789012345678901234567890
$2 hi
*2 $1 f $1 v}

    test {setresp(3) replies to a RESP3 caller} {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set got {}
        foreach body {
            {return true} {return false} {return nil} {return {double=1.5}} {return {true, false, 1}}
            {return {map={k='v'}}} {return {set={m=true}}} {return {map={k={set={x=true}}}}}
            {return {big_number='123456789012345678901234567890'}}
            {return {verbatim_string={format='txt', string='hi'}}}
            {return redis.call('hgetall', KEYS[1])} {return redis.call('zscore', KEYS[2], 'a')}
        } {
            lappend got [fn_raw $c eval "redis.setresp(3) $body" 2 rh rz]
        }
        $c close
        join $got \n
    } {#t
#f
_
,1.5
*3 #t #f :1
%1 $1 k $1 v
~1 $1 m
%1 $1 k ~1 $1 x
(123456789012345678901234567890
=6 txt:hi
%1 $1 f $1 v
,1.5}

    test {A RESP3 caller without setresp: booleans and nulls as in RESP2} {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set got [list [fn_raw $c eval {return true} 0] [fn_raw $c eval {return false} 0] \
                     [fn_raw $c eval {return redis.call('hgetall', KEYS[1])} 1 rh] \
                     [fn_raw $c eval {return {double=2.5}} 0] [fn_raw $c eval {return {map={a=1}}} 0]]
        $c close
        set got
    } {:1 _ {*2 $1 f $1 v} ,2.5 {%1 $1 a :1}}

    test {FCALL with a RESP3 caller} {
        r function flush
        r function load [fn_lib resp3 {
            redis.register_function('r3', function(keys)
                redis.setresp(3)
                return {redis.call('hgetall', keys[1]), true, {double=0.5}}
            end)
        }]
        set c [redis_client]
        $c hello 3
        set parsed [$c fcall r3 1 rh]
        $c readraw 1
        set raw [fn_raw $c fcall r3 1 rh]
        $c close
        list $parsed $raw
    } {{{f v} 1 0.5} {*3 %1 $1 f $1 v #t ,0.5}}

    test {Typed tables that are not what they say are empty arrays} {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set got {}
        foreach body {
            {return {double='x'}} {return {map=1}} {return {set=1}} {return {big_number=1}}
            {return {verbatim_string='x'}} {return {verbatim_string={format='txt'}}} {return {ok=1}} {return {err=1}}
        } {
            lappend got [fn_raw $c eval $body 0]
        }
        $c close
        lsort -unique $got
    } {*0}

    test {A verbatim string's format is its first three bytes} {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set raw [fn_raw $c eval {return {verbatim_string={format='text', string='x'}}} 0]
        $c close
        set raw
    } {=5 tex:x}

    test {Library tables and globals are read-only} {
        set errs {}
        foreach body {
            {string.x = 1} {string.len = nil} {math.pi = 3} {table.x = 1} {cjson.x = 1} {bit.x = 1}
            {redis.call = nil} {redis.x = 1} {_G.x = 1} {x = 1} {KEYS = 1} {function f() end}
        } {
            catch {r eval $body 0} e
            lappend errs [regsub { script: .*} $e {}]
        }
        lsort -unique $errs
    } {{ERR user_script:1: Attempt to modify a readonly table}}

    test {rawset and setmetatable cannot get around it} {
        set errs {}
        foreach body {{rawset(_G, 'x', 1)} {rawset(string, 'x', 1)} {setmetatable(_G, {})} {setmetatable(string, {})}} {
            catch {r eval $body 0} e
            lappend errs [regsub { script: .*} $e {}]
        }
        lsort -unique $errs
    } {{ERR Attempt to modify a readonly table}}

    test {The table library cannot write into a library table, and reads it whole} {
        catch {r eval {table.insert(string, 'x')} 0} e
        list [regsub { script: .*} $e {}] \
            [r eval {local n = 0; table.foreach(string, function() n = n + 1 end); return n} 0] \
            [r eval {return {table.getn(string), table.maxn(math), table.concat(table)}} 0] \
            [r eval {local t = {3, 1, 2}; table.sort(t); table.insert(t, 1, 0); return table.concat(t, ',')} 0] \
            [r eval {table.insert(KEYS, 'k'); return KEYS} 0]
    } {{ERR Attempt to modify a readonly table} 15 {0 0 {}} 0,1,2,3 k}

    test {A loadstring chunk cannot write globals either} {
        catch {r eval {local f = loadstring('y = 1'); f()} 0} e1
        catch {r eval {local f = loadstring('string.q = 1'); f()} 0} e2
        list $e1 $e2 [r eval {return loadstring('return 1 + 1')()} 0]
    } {{ERR [string "y = 1"]:1: Attempt to modify a readonly table script: 785c42612bfedcda0ad4961de8d015856e35ad6e, on y = 1:1.} {ERR [string "string.q = 1"]:1: Attempt to modify a readonly table script: b23de1ae3a2063e0dc3324c48c2df31af936823c, on string.q = 1:1.} 2}

    test {A function's globals are read-only too} {
        r function flush
        r function load [fn_lib ro {
            redis.register_function('ro1', function() string.x = 1 end)
            redis.register_function('ro2', function() x = 1 end)
            redis.register_function('ro3', function() rawset(_G, 'x', 1) end)
            redis.register_function('ro4', function() local f = loadstring('z = 1'); f() end)
            redis.register_function('ro5', function(keys) keys[1] = 'changed'; return keys[1] end)
        }]
        set errs {}
        foreach f {ro1 ro2 ro3 ro4} {
            catch {r fcall $f 0} e
            lappend errs $e
        }
        lappend errs [r fcall ro5 1 k]
        join $errs \n
    } {ERR user_function:3: Attempt to modify a readonly table script: ro1, on @user_function:3.
ERR user_function:4: Attempt to modify a readonly table script: ro2, on @user_function:4.
ERR Attempt to modify a readonly table script: ro3, on @user_function:5.
ERR [string "z = 1"]:1: Attempt to modify a readonly table script: ro4, on z = 1:1.
changed}

    test {Removed globals: print, dofile, loadfile, require, io, debug} {
        set errs {}
        foreach g {print dofile loadfile require module io debug} {
            catch {r eval "return $g" 0} e
            lappend errs [regsub { script: .*} $e {}]
        }
        join $errs \n
    } {ERR user_script:1: Script attempted to access nonexistent global variable 'print'
ERR user_script:1: Script attempted to access nonexistent global variable 'dofile'
ERR user_script:1: Script attempted to access nonexistent global variable 'loadfile'
ERR user_script:1: Script attempted to access nonexistent global variable 'require'
ERR user_script:1: Script attempted to access nonexistent global variable 'module'
ERR user_script:1: Script attempted to access nonexistent global variable 'io'
ERR user_script:1: Script attempted to access nonexistent global variable 'debug'}

    # Redis 7.2 gives scripts os, with os.clock only (7.0 has no os).
    test {os.clock and nothing else of os (Redis 7.2)} {
        catch {r eval {os.x = 1} 0} e
        list [r eval {return os.clock() >= 0} 0] [r eval {return type(os.time)} 0] [regsub { script: .*} $e {}]
    } {1 nil {ERR user_script:1: Attempt to modify a readonly table}} {redis7.2}

    test {redis.error_reply and redis.status_reply} {
        set got {}
        foreach arg {{'MY_CODE text'} {'noprefix'} {'-DASH text'} {''} {'X y\n'}} {
            catch {r eval "return redis.error_reply($arg)" 0} e
            lappend got $e
        }
        foreach call {{redis.error_reply(1)} {redis.error_reply()} {redis.error_reply('a', 'b')}
                      {redis.status_reply(1)} {redis.status_reply()}} {
            catch {r eval "return $call" 0} e
            lappend got $e
        }
        lappend got [r eval {return redis.status_reply('FINE')} 0]
        lappend got [r eval {local t = redis.error_reply('X y'); return {type(t), t.err}} 0]
        lappend got [r eval {local t = redis.status_reply('S'); return {type(t), t.ok}} 0]
        join $got \n
    } {MY_CODE text
ERR noprefix
DASH text
ERR 
X y
ERR wrong number or type of arguments
ERR wrong number or type of arguments
ERR wrong number or type of arguments
ERR wrong number or type of arguments
ERR wrong number or type of arguments
FINE
table {X y}
table S}

    test {{err=} and {ok=} tables: the text goes out as Redis sends it} {
        set c [redis_client]
        $c readraw 1
        set got {}
        foreach body {
            {return {err='noprefix'}} {return {err='-X y'}} {return {err='x y\r\n'}} {return {err='a\r\nb'}}
            {return {ok='a\r\nb'}} {return {ok='fine', err='bad'}}
        } {
            lappend got [fn_raw $c eval $body 0]
        }
        $c close
        join $got \n
    } {-noprefix
--X y
-x y
-a  b
+a  b
-bad}

    test {redis.set_repl, the REPL_* constants and replicate_commands} {
        set got [r eval {return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REPL_ALL}} 0]
        lappend got [r eval {return redis.set_repl(redis.REPL_ALL)} 0] [r eval {return redis.replicate_commands()} 0]
        foreach call {{redis.set_repl(99)} {redis.set_repl()}} {
            catch {r eval $call 0} e
            lappend got [regsub { script: .*} $e {}]
        }
        set got
    } {0 1 2 2 3 {} 1 {ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.} {ERR redis.set_repl() requires two arguments.}}

    test {redis.acl_check_cmd} {
        set got [r eval {return redis.acl_check_cmd('set', 'k', 'v')} 0]
        foreach call {{redis.acl_check_cmd('nosuchcommand')} {redis.acl_check_cmd()} {redis.acl_check_cmd(1)}
                      {redis.acl_check_cmd('get', {})}} {
            catch {r eval "return $call" 0} e
            lappend got [regsub { script: .*} $e {}]
        }
        join $got \n
    } {1
ERR Invalid command passed to redis.acl_check_cmd()
ERR Please specify at least one argument for this redis lib call
ERR Invalid command passed to redis.acl_check_cmd()
ERR Lua redis lib command arguments must be strings or integers}

    test {redis.acl_check_cmd follows the user's rules} {
        r acl setuser fnuser on nopass +eval +get -set ~*
        set c [redis_client]
        $c auth fnuser x
        set got [$c eval {return {redis.acl_check_cmd('get', 'k'), redis.acl_check_cmd('set', 'k', 'v')}} 0]
        $c close
        r acl deluser fnuser
        set got
    } {1 {}}

    test {REDIS_VERSION and REDIS_VERSION_NUM} {
        set v [s redis_version]
        lassign [split $v .] major minor patch
        set got [r eval {return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}} 0]
        list [expr {[lindex $got 0] eq $v}] [expr {[lindex $got 1] == ($major << 16 | $minor << 8 | $patch)}]
    } {1 1}

    test {redis.breakpoint and redis.debug do nothing outside the debugger} {
        list [r eval {return redis.breakpoint()} 0] [r eval {return redis.debug('x', 1)} 0]
    } {{} {}}

    test {redis.log errors} {
        set got [list [r eval {return redis.log(redis.LOG_WARNING, 'from', 'a', 'test', 1)} 0]]
        foreach call {{redis.log(99, 'x')} {redis.log('x', 'y')} {redis.log(redis.LOG_WARNING)}} {
            catch {r eval $call 0} e
            lappend got [regsub { script: .*} $e {}]
        }
        set got
    } {{} {ERR Invalid debug level.} {ERR First argument must be a number (log level).} {ERR redis.log() requires two arguments or more.}}

    # --------------------------------------------------------------------
    # Busy scripts
    # --------------------------------------------------------------------

    r function flush
    r function load [fn_lib busy {
        redis.register_function('spin', function() while true do end end)
        redis.register_function{function_name='spin_ro', callback=function() while true do end end, flags={'no-writes'}}
    }]

    # Waits until the server answers -BUSY (the deferring client's script
    # may not have started yet when this is called); returns the error.
    proc fn_wait_busy {} {
        wait_for_condition 200 10 {[catch {r ping} ::fn_busy_err] && [string match BUSY* $::fn_busy_err]} else {
            fail "the server never became busy: $::fn_busy_err"
        }
        return $::fn_busy_err
    }

    test {busy-reply-threshold and its old name lua-time-limit} {
        r config set lua-time-limit 1234
        set old [r config get busy-reply-threshold]
        r config set busy-reply-threshold 100
        list $old [r config get lua-time-limit]
    } {{busy-reply-threshold 1234} {lua-time-limit 100}}

    test {No script running: NOTBUSY to both KILLs, no running_script} {
        catch {r script kill} e1
        catch {r function kill} e2
        list $e1 $e2 [dict get [r function stats] running_script]
    } {{NOTBUSY No scripts in execution right now.} {NOTBUSY No scripts in execution right now.} {}}

    test {A busy function: -BUSY to others, FUNCTION STATS shows it, FUNCTION KILL ends it} {
        set rd [redis_deferring_client]
        $rd fcall spin 0
        set busy [fn_wait_busy]
        set refused {}
        foreach cmd {{get x} {eval {return 1} 0} {fcall spin 0} {function list} {function delete busy} {script kill}} {
            catch {r {*}$cmd} e
            lappend refused $e
        }
        set running [dict get [r function stats] running_script]
        assert_equal OK [r function kill]
        catch {$rd read} killed
        $rd close
        assert_equal {BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.} $busy
        # SCRIPT KILL is the wrong KILL: the same -BUSY.
        assert_equal [list $busy] [lsort -unique $refused]
        assert_equal {name spin command {fcall spin 0}} [lrange $running 0 3]
        assert_equal duration_ms [lindex $running 4]
        assert_morethan_equal [lindex $running 5] 100
        list $killed [r ping] [dict get [r function stats] running_script]
    } {{ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3.} PONG {}}

    test {A busy FCALL_RO: FUNCTION KILL ends it} {
        set rd [redis_deferring_client]
        $rd fcall_ro spin_ro 0
        fn_wait_busy
        set running [dict get [r function stats] running_script]
        assert_equal OK [r function kill]
        catch {$rd read} killed
        $rd close
        list [lrange $running 0 3] $killed
    } {{name spin_ro command {fcall_ro spin_ro 0}} {ERR Script killed by user with SCRIPT KILL... script: spin_ro, on @user_function:4.}}

    test {A busy EVAL: -BUSY naming SCRIPT KILL, FUNCTION STATS and KILL refused, SCRIPT KILL ends it} {
        set rd [redis_deferring_client]
        $rd eval {local i = 0 while true do i = i + 1 end} 0
        set busy [fn_wait_busy]
        catch {r function stats} e1
        catch {r function kill} e2
        assert_equal OK [r script kill]
        catch {$rd read} killed
        $rd close
        list $busy $e1 $e2 [regsub {script: \w+,} $killed {script: *,}] [r ping]
    } {{BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {ERR Script killed by user with SCRIPT KILL... script: *, on @user_script:1.} PONG}

    test {A killed script cannot catch the kill with pcall} {
        set rd [redis_deferring_client]
        $rd eval {while true do pcall(function() while true do end end) end} 0
        fn_wait_busy
        assert_equal OK [r script kill]
        catch {$rd read} killed
        $rd close
        list [string match {ERR Script killed by user with SCRIPT KILL...*} $killed] [r ping]
    } {1 PONG}

    r config set busy-reply-threshold 5000
}

# A script that wrote cannot be killed: only SHUTDOWN NOSAVE ends it, and
# with it the server (started again for what follows).
start_server {tags {"functions" "needs:restart"}} {
    test {A function that wrote is UNKILLABLE; SHUTDOWN NOSAVE ends the server} {
        r config set busy-reply-threshold 100
        r function load [fn_lib wrote {
            redis.register_function('write_spin', function(keys) redis.call('set', keys[1], 'v') while true do end end)
        }]
        set rd [redis_deferring_client]
        $rd fcall write_spin 1 wk
        set busy [fn_wait_busy]
        set unkillable {Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.}
        catch {r function kill} e1
        catch {r script kill} e2
        set running [lrange [dict get [r function stats] running_script] 0 3]
        catch {r shutdown} e3
        catch {r shutdown save} e4
        assert_equal "UNKILLABLE $unkillable" $e1
        assert_equal "UNKILLABLE $unkillable" $e2
        assert_equal $busy $e3
        assert_equal $busy $e4
        catch {r shutdown nosave} e5
        catch {$rd read} e6
        $rd close
        set status [restart_exited_server]
        list $running $e5 $e6 $status
    } {{name write_spin command {fcall write_spin 1 wk}} {I/O error reading reply: connection closed by server} {I/O error reading reply: connection closed by server} 0}

    test {An EVAL that wrote is UNKILLABLE too} {
        r config set busy-reply-threshold 100
        set rd [redis_deferring_client]
        $rd eval {redis.call('set', KEYS[1], 'v') while true do end} 1 wk2
        fn_wait_busy
        catch {r script kill} e1
        catch {r function kill} e2
        catch {r shutdown nosave} e3
        catch {$rd read} e4
        $rd close
        set status [restart_exited_server]
        list [string range $e1 0 9] [string range $e2 0 9] $e3 $status
    } {UNKILLABLE UNKILLABLE {I/O error reading reply: connection closed by server} 0}
}

# casq keeps libraries in its state document (as Redis in its RDB): they
# are there after a restart.
start_server {tags {"functions" "needs:persistence"}} {
    test {Libraries survive a restart} {
        r function load [fn_lib durable {redis.register_function('still_here', function() return 'yes' end)}]
        restart_server
        list [r fcall still_here 0] [lmap l [r function list] {dict get $l library_name}]
    } {yes durable}
}

start_server {tags {"functions"}} {
    test {COMMAND INFO of FCALL, FCALL_RO and FUNCTION} {
        set got {}
        foreach c {fcall fcall_ro function|load function|stats function|kill function|list} {
            lappend got [lrange [lindex [r command info $c] 0] 0 6]
        }
        join $got \n
    } {fcall -3 {noscript stale skip_monitor no_mandatory_keys movablekeys} 0 0 0 {@slow @scripting}
fcall_ro -3 {readonly noscript stale skip_monitor no_mandatory_keys movablekeys} 0 0 0 {@slow @scripting}
function|load -3 {write denyoom noscript} 0 0 0 {@write @slow @scripting}
function|stats 2 {noscript allow_busy} 0 0 0 {@slow @scripting}
function|kill 2 {noscript allow_busy} 0 0 0 {@slow @scripting}
function|list -2 noscript 0 0 0 {@slow @scripting}}

    test {COMMAND INFO of FUNCTION lists its subcommands} {
        set e [lindex [r command info function] 0]
        list [lindex $e 1] [lsort [lmap s [lindex $e 9] {lindex $s 0}]]
    } {-2 {function|delete function|dump function|flush function|help function|kill function|list function|load function|restore function|stats}}

    test {COMMAND DOCS of FUNCTION RESTORE and FCALL} {
        set d [dict get [r command docs function|restore] function|restore]
        set fc [dict get [r command docs fcall] fcall]
        list [dict get $d since] [dict get $d group] [lmap a [dict get $d arguments] {dict get $a name}] \
            [lmap a [dict get [lindex [dict get $d arguments] 1] arguments] {dict get $a token}] \
            [lmap a [dict get $fc arguments] {dict get $a name}]
    } {7.0.0 scripting {serialized-value policy} {FLUSH APPEND REPLACE} {function numkeys key arg}}

    # Redis 7.2 rewrote the summaries (7.0: "Invoke a function").
    test {COMMAND DOCS summaries (Redis 7.2)} {
        list [dict get [dict get [r command docs fcall] fcall] summary] \
            [dict get [dict get [r command docs function|load] function|load] summary]
    } {{Invokes a function.} {Creates a library.}} {redis7.2}
}
