# Strings: SET and its options, GET, GETDEL, GETEX, GETSET, SETNX, SETEX,
# PSETEX, MGET, MSET, MSETNX, APPEND, STRLEN, GETRANGE, SETRANGE, and the
# generic commands on string keys (TYPE, OBJECT ENCODING, RENAME, COPY,
# SCAN TYPE, EXPIRE). Counters are in type/incr.tcl.

start_server {tags {"string"}} {
    test {SET and GET an item} {
        r set x foobar
        r get x
    } {foobar}

    test {SET and GET an empty item} {
        r set x {}
        r get x
    } {}

    test {GET of a missing key is nil} {
        r del nokey
        r get nokey
    } {}

    test {SET and GET a binary-safe value} {
        set v "a\x00b\r\n\xff\x01"
        r set bin $v
        assert_equal $v [r get bin]
        r strlen bin
    } {7}

    test {Very big payload in GET/SET} {
        set buf [string repeat "abcd" 1000000]
        r set foo $buf
        assert_equal $buf [r get foo]
        r strlen foo
    } {4000000}

    test {SET 10000 numeric keys and access all of them in reverse order} {
        r flushdb
        for {set x 0} {$x < 1000} {incr x} {
            r set $x $x
        }
        set err {}
        for {set x 999} {$x >= 0} {incr x -1} {
            set val [r get $x]
            if {$val ne $x} {
                set err "Element at position $x is $val instead of $x"
                break
            }
        }
        list $err [r dbsize]
    } {{} 1000}

    test {SETNX target key missing} {
        r del novar
        assert_equal 1 [r setnx novar foobared]
        r get novar
    } {foobared}

    test {SETNX target key exists} {
        r set novar foobared
        assert_equal 0 [r setnx novar blabla]
        r get novar
    } {foobared}

    test {SETNX against a key with an expire does not override it} {
        r set x 10
        r expire x 10000
        assert_equal 0 [r setnx x 20]
        r get x
    } {10}

    test {SETNX against an expired key sets it} {
        r set x 10
        r pexpire x 1
        after 20
        assert_equal 1 [r setnx x 20]
        r get x
    } {20}

    test {GETEX EX option} {
        r del foo
        r set foo bar
        r getex foo ex 10
        assert_range [r ttl foo] 5 10
    }

    test {GETEX PX option} {
        r del foo
        r set foo bar
        r getex foo px 10000
        assert_range [r pttl foo] 5000 10000
    }

    test {GETEX EXAT option} {
        r del foo
        r set foo bar
        r getex foo exat [expr {[clock seconds] + 10}]
        assert_range [r ttl foo] 5 10
    }

    test {GETEX PXAT option} {
        r del foo
        r set foo bar
        r getex foo pxat [expr {[clock milliseconds] + 10000}]
        assert_range [r pttl foo] 5000 10000
    }

    test {GETEX PERSIST option} {
        r set foo bar ex 10
        assert_range [r ttl foo] 5 10
        r getex foo persist
        r ttl foo
    } {-1}

    test {GETEX no option keeps the TTL} {
        r del foo
        r set foo bar
        r getex foo
        r ttl foo
    } {-1}

    test {GETEX syntax errors} {
        set err {}
        catch {r getex foo non-existent-option} err
        set err
    } {*syntax*}

    test {GETEX rejects SET's options} {
        r set foo bar
        assert_error {*syntax*} {r getex foo nx}
        assert_error {*syntax*} {r getex foo xx}
        assert_error {*syntax*} {r getex foo get}
        assert_error {*syntax*} {r getex foo keepttl}
        assert_error {*syntax*} {r getex foo ex 10 px 10}
        assert_error {*syntax*} {r getex foo ex 10 persist}
        assert_error {*syntax*} {r getex foo ex}
    }

    test {GETEX invalid expire times} {
        r set foo bar
        assert_error {ERR invalid expire time in 'getex' command} {r getex foo ex 0}
        assert_error {ERR invalid expire time in 'getex' command} {r getex foo px -1}
        assert_error {ERR invalid expire time in 'getex' command} {r getex foo ex 9223372036854775807}
        assert_error {ERR value is not an integer or out of range} {r getex foo ex abc}
    }

    test {GETEX of a missing key is nil, even with a bad expire} {
        r del foo
        list [r getex foo] [r getex foo ex abc]
    } {{} {}}

    test {GETEX with a time in the past deletes the key} {
        r set foo bar
        assert_equal bar [r getex foo pxat 1]
        r exists foo
    } {0}

    test {GETEX with a time in the past deletes the key (EXAT)} {
        r set foo bar
        assert_equal bar [r getex foo exat 1]
        r exists foo
    } {0}

    test {GETDEL returns the value and deletes the key} {
        r set foo bar
        assert_equal bar [r getdel foo]
        list [r exists foo] [r getdel foo]
    } {0 {}}

    test {GETDEL propagates to a TTL-less missing key read} {
        r set foo bar ex 100
        r getdel foo
        r ttl foo
    } {-2}

    test {GETSET (set new value)} {
        r del foo
        list [r getset foo xyz] [r get foo]
    } {{} xyz}

    test {GETSET (replace old value)} {
        r set foo bar
        list [r getset foo xyz] [r get foo]
    } {bar xyz}

    test {GETSET clears the TTL} {
        r set foo bar ex 100
        r getset foo baz
        r ttl foo
    } {-1}

    test {MSET base case} {
        r mset x{t} 10 y{t} "foo bar" z{t} "x x x x x x x\n\n\r\n"
        r mget x{t} y{t} z{t}
    } [list 10 {foo bar} "x x x x x x x\n\n\r\n"]

    test {MSET/MSETNX wrong number of args} {
        assert_error {*wrong number of arguments for 'mset' command} {r mset x{t} 10 y{t} "foo bar" z{t}}
        assert_error {*wrong number of arguments for 'msetnx' command} {r msetnx x{t} 20 y{t} "foo bar" z{t}}
    }

    test {MSET with already existing - same key twice} {
        r del x{t}
        r mset x{t} xxx x{t} yyy
        r get x{t}
    } {yyy}

    test {MSETNX with already existent key} {
        r del x1{t} x2{t}
        r set x2{t} xxx
        list [r msetnx x1{t} xxx y2{t} yyy x2{t} zzz] [r exists x1{t}] [r exists y2{t}] [r get x2{t}]
    } {0 0 0 xxx}

    test {MSETNX with not existing keys} {
        r del x1{t} x2{t}
        list [r msetnx x1{t} xxx x2{t} yyy] [r get x1{t}] [r get x2{t}]
    } {1 xxx yyy}

    test {MSETNX with not existing keys - same key twice} {
        r del x1{t}
        list [r msetnx x1{t} xxx x1{t} yyy] [r get x1{t}]
    } {1 yyy}

    test {MSETNX with already existing keys - same key twice} {
        list [r msetnx x1{t} xxx x1{t} zzz] [r get x1{t}]
    } {0 yyy}

    test {MSET clears the TTLs} {
        r set x1{t} a ex 100
        r mset x1{t} b
        r ttl x1{t}
    } {-1}

    test {MGET} {
        r flushdb
        r set foo{t} BAR
        r set bar{t} FOO
        r mget foo{t} bar{t}
    } {BAR FOO}

    test {MGET against non existing key} {
        r mget foo{t} baazz{t} bar{t}
    } {BAR {} FOO}

    test {MGET against non-string key} {
        r xadd mystream{t} * f v
        r mget foo{t} baazz{t} bar{t} mystream{t}
    } {BAR {} FOO {}}

    test {SET NX} {
        r del foo
        assert_equal OK [r set foo 1 nx]
        assert_equal {} [r set foo 2 nx]
        r get foo
    } {1}

    test {SET XX} {
        r del foo
        assert_equal {} [r set foo 1 xx]
        assert_equal 0 [r exists foo]
        r set foo 1
        assert_equal OK [r set foo 2 xx]
        r get foo
    } {2}

    test {SET NX and XX together are a syntax error} {
        assert_error {*syntax*} {r set foo bar nx xx}
        assert_error {*syntax*} {r set foo bar xx nx}
    }

    test {SET GET on a missing key} {
        r del foo
        list [r set foo bar get] [r get foo]
    } {{} bar}

    test {SET GET on an existing key} {
        r set foo bar
        list [r set foo bar2 get] [r get foo]
    } {bar bar2}

    test {SET GET against a key of another type fails and sets nothing} {
        r del foo
        r xadd foo * a b
        assert_error {WRONGTYPE*} {r set foo bar get}
        r type foo
    } {stream}

    test {SET NX GET: key exists} {
        r set foo bar
        list [r set foo baz nx get] [r get foo]
    } {bar bar}

    test {SET NX GET: key missing} {
        r del foo
        list [r set foo baz nx get] [r get foo]
    } {{} baz}

    test {SET XX GET: key missing} {
        r del foo
        list [r set foo baz xx get] [r exists foo]
    } {{} 0}

    test {SET EX and PX} {
        r set foo bar ex 100
        assert_range [r ttl foo] 90 100
        r set foo bar px 100000
        assert_range [r pttl foo] 90000 100000
    }

    test {SET EXAT / PXAT} {
        set now [clock seconds]
        r set foo bar exat [expr {$now + 100}]
        assert_equal [expr {$now + 100}] [r expiretime foo]
        r set foo bar pxat [expr {$now * 1000 + 100000}]
        assert_equal [expr {$now * 1000 + 100000}] [r pexpiretime foo]
    }

    test {SET with EXAT in the past: the key is gone at once} {
        r set foo bar exat 1
        list [r get foo] [r exists foo]
    } {{} 0}

    test {SET clears an existing TTL} {
        r set foo bar ex 100
        r set foo bar2
        r ttl foo
    } {-1}

    test {SET KEEPTTL keeps the TTL} {
        r set foo bar ex 100
        r set foo bar2 keepttl
        assert_equal bar2 [r get foo]
        assert_range [r ttl foo] 90 100
    }

    test {SET KEEPTTL on a key without TTL} {
        r set foo bar
        r set foo bar2 keepttl
        r ttl foo
    } {-1}

    test {SET option combinations that are syntax errors} {
        assert_error {*syntax*} {r set foo bar ex 10 px 100}
        assert_error {*syntax*} {r set foo bar ex 10 keepttl}
        assert_error {*syntax*} {r set foo bar keepttl exat 10}
        assert_error {*syntax*} {r set foo bar px 10 pxat 10}
        assert_error {*syntax*} {r set foo bar ex}
        assert_error {*syntax*} {r set foo bar persist}
        assert_error {*syntax*} {r set foo bar foo}
    }

    test {SET invalid expire times} {
        assert_error {ERR invalid expire time in 'set' command} {r set foo bar ex 0}
        assert_error {ERR invalid expire time in 'set' command} {r set foo bar px -10}
        assert_error {ERR invalid expire time in 'set' command} {r set foo bar exat 0}
        assert_error {ERR invalid expire time in 'set' command} {r set foo bar ex 9223372036854775807}
        assert_error {ERR invalid expire time in 'set' command} {r set foo bar px 9223372036854775807}
        assert_error {ERR value is not an integer or out of range} {r set foo bar ex 10.5}
        assert_error {ERR invalid expire time in 'setex' command} {r setex foo 0 bar}
        assert_error {ERR invalid expire time in 'psetex' command} {r psetex foo -1 bar}
    }

    test {SET options are case insensitive} {
        r del foo
        r set foo bar Nx Ex 100 gEt
        list [r get foo] [expr {[r ttl foo] > 0}]
    } {bar 1}

    test {SET replaces a key of another type and clears its TTL} {
        r del foo
        r xadd foo * a b
        r expire foo 100
        r set foo bar
        list [r type foo] [r get foo] [r ttl foo]
    } {string bar -1}

    test {SET KEEPTTL over a key of another type keeps the TTL} {
        r del foo
        r xadd foo * a b
        r expire foo 100
        r set foo bar keepttl
        list [r type foo] [expr {[r ttl foo] > 0}]
    } {string 1}

    test {SETEX - Set + Expire combo operation. Check for TTL} {
        r setex x 12 test
        assert_range [r ttl x] 10 12
        r get x
    } {test}

    test {PSETEX can set sub-second expires} {
        r psetex x 100 somevalue
        set a [r get x]
        after 150
        list $a [r get x]
    } {somevalue {}}

    test {SETEX - Wrong time parameter} {
        assert_error {*invalid expire*} {r setex z -10 foo}
    }

    test {APPEND basics} {
        r del foo
        list [r append foo bar] [r get foo] \
             [r append foo 100] [r get foo]
    } {3 bar 6 bar100}

    test {APPEND basics, integer encoded values} {
        set res {}
        r del foo
        r append foo 1
        r append foo 2
        lappend res [r get foo]
        r set foo 1
        r append foo 2
        lappend res [r get foo]
    } {12 12}

    test {APPEND fuzzing} {
        set err {}
        foreach type {binary alpha compr} {
            set buf {}
            r del x
            for {set i 0} {$i < 100} {incr i} {
                set bin [string repeat [format %c [expr {65 + $i % 26}]] [expr {$i % 7}]]
                append buf $bin
                r append x $bin
            }
            if {$buf != [r get x]} {
                set err "Expected '$buf' found '[r get x]'"
                break
            }
        }
        set err
    } {}

    test {APPEND against a non-string key} {
        r del s
        r xadd s * a b
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r append s x}
    }

    test {STRLEN against non-existing key} {
        r del notakey
        r strlen notakey
    } {0}

    test {STRLEN against integer-encoded value} {
        r set myinteger -555
        r strlen myinteger
    } {4}

    test {STRLEN against plain string} {
        r set mystring "foozzz0123456789 baz"
        r strlen mystring
    } {20}

    test {SETRANGE against non-existing key} {
        r del mykey
        assert_equal 3 [r setrange mykey 0 foo]
        assert_equal foo [r get mykey]

        r del mykey
        assert_equal 0 [r setrange mykey 0 ""]
        assert_equal 0 [r exists mykey]

        r del mykey
        assert_equal 4 [r setrange mykey 1 foo]
        r get mykey
    } "\000foo"

    test {SETRANGE against string-encoded key} {
        r set mykey "foo"
        assert_equal 3 [r setrange mykey 0 b]
        assert_equal "boo" [r get mykey]

        r set mykey "foo"
        assert_equal 3 [r setrange mykey 0 ""]
        assert_equal "foo" [r get mykey]

        r set mykey "foo"
        assert_equal 3 [r setrange mykey 1 b]
        assert_equal "fbo" [r get mykey]

        r set mykey "foo"
        assert_equal 7 [r setrange mykey 4 bar]
        r get mykey
    } "foo\000bar"

    test {SETRANGE against integer-encoded key} {
        r set mykey 1234
        assert_equal int [r object encoding mykey]
        assert_equal 4 [r setrange mykey 0 2]
        assert_equal raw [r object encoding mykey]
        assert_equal 2234 [r get mykey]

        r set mykey 1234
        assert_equal 4 [r setrange mykey 0 ""]
        assert_equal int [r object encoding mykey]
        assert_equal 1234 [r get mykey]

        r set mykey 1234
        assert_equal 6 [r setrange mykey 5 2]
        r get mykey
    } "1234\0002"

    test {SETRANGE against key with wrong type} {
        r del mykey
        r xadd mykey * a b
        assert_error {WRONGTYPE*} {r setrange mykey 0 bar}
        assert_error {WRONGTYPE*} {r setrange mykey 0 ""}
    }

    test {SETRANGE with out of range offset} {
        r del mykey
        assert_error {*maximum allowed size*} {r setrange mykey [expr {512*1024*1024-4}] world}
        r set mykey "hello"
        assert_error {*out of range*} {r setrange mykey -1 world}
        assert_error {*maximum allowed size*} {r setrange mykey [expr {512*1024*1024-4}] world}
        assert_error {*not an integer*} {r setrange mykey abc world}
    }

    test {GETRANGE against non-existing key} {
        r del mykey
        r getrange mykey 0 -1
    } {}

    test {GETRANGE against wrong type} {
        r del mykey
        r xadd mykey * a b
        assert_error {WRONGTYPE*} {r getrange mykey 0 -1}
    }

    test {GETRANGE against string value} {
        r set mykey "Hello World"
        list [r getrange mykey 0 3] [r getrange mykey 0 -1] [r getrange mykey -4 -1] \
             [r getrange mykey 5 3] [r getrange mykey 5 5000] [r getrange mykey -5000 10000] \
             [r getrange mykey -1 -5] [r getrange mykey 20 30] [r getrange mykey -30 -20]
    } {Hell {Hello World} orld {} { World} {Hello World} {} {} H}

    test {GETRANGE against integer-encoded value} {
        r set mykey 1234
        list [r getrange mykey 0 2] [r getrange mykey 0 -1] [r getrange mykey -3 -1] \
             [r getrange mykey 5 3] [r getrange mykey 3 5000] [r getrange mykey -5000 10000]
    } {123 1234 234 {} 4 1234}

    test {GETRANGE with huge ranges} {
        r set mykey "Hello"
        list [r getrange mykey 0 9223372036854775807] [r getrange mykey -9223372036854775808 -1]
    } {Hello Hello}

    test {GETRANGE with non-integer indexes} {
        assert_error {*not an integer*} {r getrange mykey a 1}
    }

    test {GETRANGE fuzzing} {
        set err {}
        for {set i 0} {$i < 300} {incr i} {
            set bin [string repeat "abcdefghij" [expr {$i % 5}]]
            r set bin $bin
            set _start [expr {int(rand()*60)-30}]
            set _end [expr {int(rand()*60)-30}]
            set s $_start
            set e $_end
            set len [string length $bin]
            if {$s < 0 && $e < 0 && $s > $e} {
                set expected {}
            } else {
                if {$s < 0} {set s [expr {$len+$s}]}
                if {$e < 0} {set e [expr {$len+$e}]}
                if {$s < 0} {set s 0}
                if {$e < 0} {set e 0}
                if {$e >= $len} {set e [expr {$len-1}]}
                set expected [string range $bin $s $e]
            }
            if {[r getrange bin $_start $_end] ne $expected} {
                set err "GETRANGE $_start $_end on '$bin': expected '$expected'"
                break
            }
        }
        set err
    } {}

    test {Every string command against a key of another type is WRONGTYPE} {
        r del k
        r xadd k * a b
        foreach cmd {
            {get k} {getex k} {getex k persist} {getdel k} {getset k v} {strlen k} {append k v}
            {getrange k 0 1} {setrange k 0 v} {incr k} {decr k} {incrby k 1} {decrby k 1}
            {incrbyfloat k 1}
        } {
            assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r {*}$cmd}
        }
        r type k
    } {stream}

    test {SETNX, SETEX, PSETEX, MSET replace keys of another type} {
        r del k{t} j{t}
        r xadd k{t} * a b
        assert_equal 0 [r setnx k{t} v]
        r setex k{t} 100 v1
        assert_equal [list string v1] [list [r type k{t}] [r get k{t}]]
        r del k{t}
        r xadd k{t} * a b
        r psetex k{t} 100000 v2
        assert_equal v2 [r get k{t}]
        r del k{t}
        r xadd k{t} * a b
        r mset k{t} v3 j{t} v4
        list [r type k{t}] [r get k{t}] [r ttl k{t}]
    } {string v3 -1}

    test {Extended SET can detect syntax errors} {
        set e {}
        catch {r set foo bar non-existing-option} e
        set e
    } {*syntax*}

    test {Extended SET GET option with no previous value} {
        r del foo
        set old_value [r set foo bar GET]
        set new_value [r get foo]
        list $old_value $new_value
    } {{} bar}

    test {Extended SET GET option with XX and no previous value} {
        r del foo
        set old_value [r set foo bar GET XX]
        set new_value [r get foo]
        list $old_value $new_value
    } {{} {}}

    test {SET, GET in RESP3} {
        r hello 3
        r del foo
        set a [r get foo]
        set b [r set foo bar]
        set c [r set foo x nx]
        set d [r get foo]
        r readraw 1
        set e [r set foo x nx]
        r readraw 0
        r hello 2
        list $a $b $c $d $e
    } {{} OK {} bar _}

    test {String commands with the wrong number of arguments} {
        assert_error {*wrong number of arguments for 'get' command} {r get}
        assert_error {*wrong number of arguments for 'set' command} {r set foo}
        assert_error {*wrong number of arguments for 'setrange' command} {r setrange foo 1}
        assert_error {*wrong number of arguments for 'mget' command} {r mget}
    }
}

start_server {tags {"string"}} {
    test {OBJECT ENCODING of strings follows Redis's rules} {
        r set i 12345
        r set neg -1
        r set big 9223372036854775807
        r set toobig 9223372036854775808
        r set lead 0123
        r set plus +1
        r set sp " 1"
        r set emb [string repeat x 44]
        r set raw [string repeat x 45]
        r set empty ""
        list [r object encoding i] [r object encoding neg] [r object encoding big] \
             [r object encoding toobig] [r object encoding lead] [r object encoding plus] \
             [r object encoding sp] [r object encoding emb] [r object encoding raw] \
             [r object encoding empty]
    } {int int int embstr embstr embstr embstr embstr raw embstr}

    test {APPEND makes a string raw, on a new key it is encoded as SET would} {
        r del a b c
        r append a 123
        r append b hello
        r set c hello
        r append c ""
        list [r object encoding a] [r object encoding b] [r object encoding c]
    } {int embstr raw}

    test {INCR gives int, INCRBYFLOAT gives embstr} {
        r del n f
        r incr n
        r incrbyfloat f 3
        list [r object encoding n] [r object encoding f] [r get f]
    } {int embstr 3}

    test {SETRANGE on a missing key gives raw} {
        r del s
        r setrange s 0 a
        r object encoding s
    } {raw}

    test {COPY keeps the encoding, RENAME keeps the value and TTL} {
        r set src hello
        r append src ""
        r copy src dst
        assert_equal raw [r object encoding dst]
        r set n 10 ex 100
        r rename n m
        list [r get m] [expr {[r ttl m] > 0}] [r object encoding m] [r exists n]
    } {10 1 int 0}

    test {COPY of a string is independent of its source} {
        r set src abc
        r copy src dst2
        r append src def
        list [r get src] [r get dst2]
    } {abcdef abc}

    test {TYPE, EXISTS, DEL and UNLINK on strings} {
        r set a 1
        r set b 2
        list [r type a] [r exists a b nokey] [r del a] [r unlink b] [r type a]
    } {string 2 1 1 none}

    test {SCAN TYPE string} {
        r flushdb
        r set s1 a
        r set s2 b
        r xadd st * f v
        set keys {}
        set cursor 0
        while 1 {
            set res [r scan $cursor type string count 100]
            set cursor [lindex $res 0]
            lappend keys {*}[lindex $res 1]
            if {$cursor == 0} break
        }
        lsort $keys
    } {s1 s2}

    test {EXPIRE family on strings} {
        r set k v
        r expire k 100
        assert_range [r ttl k] 90 100
        r persist k
        assert_equal -1 [r ttl k]
        r pexpire k 1
        after 20
        r get k
    } {}

    test {MEMORY USAGE of a string key} {
        r set k [string repeat x 1000]
        assert_morethan [r memory usage k] 1000
    }
}

start_server {tags {string needs:persistence needs:restart}} {
    test {Strings survive a restart, with their TTLs and encodings} {
        r set a 12345
        r set b "hello world"
        r set c [string repeat z 100]
        r set bin "\x00\x01\xff"
        r set t v ex 1000
        r append d 1
        r append d 2
        restart_server
        list [r get a] [r get b] [string length [r get c]] [r get bin] [expr {[r ttl t] > 900}] \
             [r object encoding a] [r object encoding b] [r object encoding c] [r object encoding d]
    } [list 12345 {hello world} 100 "\x00\x01\xff" 1 int embstr raw [reload_encoding int raw]]
}
