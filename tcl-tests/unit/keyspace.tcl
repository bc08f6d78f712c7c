# Keyspace commands on stream keys: DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN,
# RANDOMKEY, RENAME, RENAMENX, MOVE, DBSIZE, FLUSHDB, FLUSHALL, TOUCH.

# Create stream keys (one entry each).
proc create_keys {args} {
    foreach k $args {r xadd $k * f v}
}

start_server {tags {"keyspace"}} {
    test {DEL of a single existing key} {
        r flushdb
        create_keys foo
        list [r del foo] [r exists foo]
    } {1 0}

    test {DEL of a missing key} {
        r del nosuchkey
    } {0}

    test {DEL of several keys, some missing} {
        r flushdb
        create_keys a b c
        list [r del a b nosuch c] [r dbsize]
    } {3 0}

    test {DEL counts duplicates once} {
        r flushdb
        create_keys dup
        r del dup dup dup
    } {1}

    test {UNLINK works like DEL} {
        r flushdb
        create_keys u1 u2
        list [r unlink u1 u2 u3 u1] [r exists u1 u2]
    } {2 0}

    test {EXISTS counts every argument, duplicates included} {
        r flushdb
        create_keys e1 e2
        list [r exists e1] [r exists e1 e1] [r exists e1 e2 nosuch e2] [r exists nosuch]
    } {1 2 3 0}

    test {TYPE of a stream key and of a missing key} {
        r flushdb
        create_keys s
        list [r type s] [r type nosuch]
    } {stream none}

    test {TYPE replies with a status string} {
        r readraw 1
        set a [r type nosuch]
        r readraw 0
        set a
    } {+none}

    test {DBSIZE} {
        r flushdb
        set a [r dbsize]
        create_keys k1 k2 k3
        list $a [r dbsize]
    } {0 3}

    test {DBSIZE counts only the selected database} {
        r flushdb
        create_keys x
        r select 10
        r flushdb
        set a [r dbsize]
        r select 9
        list $a [r dbsize]
    } {0 1}

    test {KEYS with *} {
        r flushdb
        create_keys foo_a foo_b bar
        lsort [r keys *]
    } {bar foo_a foo_b}

    test {KEYS with a prefix pattern} {
        lsort [r keys foo*]
    } {foo_a foo_b}

    test {KEYS with ?} {
        r flushdb
        create_keys ab abc ac b
        lsort [r keys a?]
    } {ab ac}

    test {KEYS with [a-z] ranges and [^x] negation} {
        r flushdb
        create_keys k1 ka kb kZ k-
        list [lsort [r keys {k[a-z]}]] [lsort [r keys {k[^a-z]}]] [lsort [r keys {k[0-9Z]}]]
    } {{ka kb} {k- k1 kZ} {k1 kZ}}

    test {KEYS with escaped special characters} {
        r flushdb
        create_keys {a*b} {a?b} axb {a[b}
        assert_equal [list {a*b}] [r keys {a\*b}]
        assert_equal [list {a?b}] [r keys {a\?b}]
        assert_equal [lsort [list {a*b} {a?b} axb {a[b}]] [lsort [r keys {a?b}]]
        assert_equal [list {a[b}] [r keys {a\[b}]
    }

    test {KEYS with no match} {
        r keys nomatch*
    } {}

    test {KEYS arity} {
        assert_error {ERR wrong number of arguments for 'keys' command} {r keys}
    }

    test {KEYS with binary key names} {
        r flushdb
        set k "bin\x00key\xff"
        r xadd $k * f v
        set res [r keys "bin*"]
        assert_equal [list $k] $res
    }

    test {SCAN iterates over every key exactly once} {
        r flushdb
        create_stream_keys 1000 key:
        set cur 0
        set keys {}
        set rounds 0
        while 1 {
            lassign [r scan $cur] cur part
            lappend keys {*}$part
            incr rounds
            if {$cur == 0} break
        }
        assert_morethan $rounds 1
        list [llength $keys] [llength [lsort -unique $keys]]
    } {1000 1000}

    test {SCAN with COUNT} {
        set cur 0
        set keys {}
        while 1 {
            lassign [r scan $cur count 100] cur part
            lappend keys {*}$part
            if {$cur == 0} break
        }
        llength [lsort -unique $keys]
    } {1000}

    test {SCAN with MATCH} {
        set cur 0
        set keys {}
        while 1 {
            lassign [r scan $cur match key:1?? count 50] cur part
            lappend keys {*}$part
            if {$cur == 0} break
        }
        list [llength [lsort -unique $keys]] [lsort -unique [lmap k $keys {string range $k 0 4}]]
    } {100 key:1}

    test {SCAN with TYPE stream returns the stream keys} {
        set cur 0
        set keys {}
        while 1 {
            lassign [r scan $cur type stream count 200] cur part
            lappend keys {*}$part
            if {$cur == 0} break
        }
        llength [lsort -unique $keys]
    } {1000}

    test {SCAN with TYPE string returns nothing} {
        set cur 0
        set keys {}
        while 1 {
            lassign [r scan $cur type string count 200] cur part
            lappend keys {*}$part
            if {$cur == 0} break
        }
        llength $keys
    } {0}

    test {SCAN reply shape: cursor as bulk string, then an array} {
        r flushdb
        create_keys only
        r readraw 1
        set lines [list [r scan 0]]
        for {set i 0} {$i < 5} {incr i} {lappend lines [r read]}
        r readraw 0
        set lines
    } {*2 {$1} 0 *1 {$4} only}

    test {SCAN on an empty database} {
        r flushdb
        r scan 0
    } {0 {}}

    test {SCAN errors} {
        assert_error {ERR invalid cursor} {r scan abc}
        assert_error {ERR invalid cursor} {r scan 18446744073709551616}
        assert_error {ERR syntax error} {r scan 0 count 0}
        assert_error {ERR syntax error} {r scan 0 foo}
        assert_error {ERR value is not an integer or out of range} {r scan 0 count abc}
        assert_error {ERR syntax error} {r scan 0 match}
    }

    test {SCAN guarantees: keys present during the whole scan are returned} {
        r flushdb
        create_stream_keys 200 stable:
        set cur 0
        set keys {}
        set n 0
        while 1 {
            lassign [r scan $cur count 10] cur part
            lappend keys {*}$part
            # Add and remove other keys while scanning.
            r xadd volatile:$n * f v
            r del volatile:[expr {$n-1}]
            incr n
            if {$cur == 0} break
        }
        set stable [lsearch -all -inline $keys stable:*]
        llength [lsort -unique $stable]
    } {200}

    test {RANDOMKEY on an empty database is null} {
        r flushdb
        r randomkey
    } {}

    test {RANDOMKEY returns existing keys} {
        r flushdb
        create_keys r1 r2 r3
        set seen {}
        for {set i 0} {$i < 100} {incr i} {
            dict set seen [r randomkey] 1
        }
        lsort [dict keys $seen]
    } {r1 r2 r3}

    test {RANDOMKEY with one key} {
        r flushdb
        create_keys lonely
        r randomkey
    } {lonely}

    test {RENAME moves the value} {
        r flushdb
        set id [r xadd src * f v]
        list [r rename src dst] [r exists src] [r xrange dst - +]
    } [list OK 0 [list [list "*" {f v}]]]

    test {RENAME keeps the stream content} {
        r flushdb
        set id [r xadd src * f v]
        r rename src dst
        set e [r xrange dst - +]
        assert_equal [list [list $id {f v}]] $e
    }

    test {RENAME overwrites an existing destination} {
        r flushdb
        r xadd src * from src
        r xadd dst * from dst
        r xadd dst * more dst
        r rename src dst
        list [r dbsize] [r xlen dst] [lindex [r xrange dst - +] 0 1]
    } {1 1 {from src}}

    test {RENAME of a missing key} {
        r flushdb
        catch {r rename nosuch other} e
        set e
    } {ERR no such key}

    test {RENAME to the same name} {
        r flushdb
        create_keys same
        list [r rename same same] [r exists same]
    } {OK 1}

    test {RENAME to the same name of a missing key} {
        catch {r rename nosuch nosuch} e
        set e
    } {ERR no such key}

    test {RENAME keeps the TTL} {
        r flushdb
        create_keys ttlsrc
        r expire ttlsrc 1000
        r rename ttlsrc ttldst
        assert_range [r ttl ttldst] 900 1000
    }

    test {RENAME over a key with TTL: destination gets the source's (no) TTL} {
        r flushdb
        create_keys a b
        r expire b 1000
        r rename a b
        r ttl b
    } {-1}

    test {RENAMENX to a new name} {
        r flushdb
        create_keys nxsrc
        list [r renamenx nxsrc nxdst] [r exists nxsrc] [r exists nxdst]
    } {1 0 1}

    test {RENAMENX to an existing key does nothing} {
        r flushdb
        r xadd a * from a
        r xadd b * from b
        list [r renamenx a b] [lindex [r xrange a - +] 0 1] [lindex [r xrange b - +] 0 1]
    } {0 {from a} {from b}}

    test {RENAMENX to the same name} {
        r flushdb
        create_keys same
        r renamenx same same
    } {0}

    test {RENAMENX of a missing key} {
        catch {r renamenx nosuch x} e
        set e
    } {ERR no such key}

    test {RENAME arity} {
        assert_error {ERR wrong number of arguments for 'rename' command} {r rename a}
        assert_error {ERR wrong number of arguments for 'renamenx' command} {r renamenx a b c}
    }

    test {TOUCH counts existing keys, duplicates included} {
        r flushdb
        create_keys t1 t2
        list [r touch t1] [r touch t1 t2 nosuch] [r touch t1 t1] [r touch nosuch]
    } {1 2 2 0}

    test {FLUSHDB empties only the selected database} {
        r select 10
        r flushdb
        create_keys other
        r select 9
        r flushdb
        create_keys mine
        set a [r flushdb]
        set b [r dbsize]
        r select 10
        set c [r dbsize]
        r flushdb
        r select 9
        list $a $b $c
    } {OK 0 1}

    test {FLUSHDB ASYNC and SYNC} {
        create_keys f1
        set a [r flushdb async]
        set b [r dbsize]
        create_keys f2
        set c [r flushdb sync]
        list $a $b $c [r dbsize]
    } {OK 0 OK 0}

    test {FLUSHDB syntax error} {
        assert_error {ERR syntax error} {r flushdb foo}
    }

    test {FLUSHALL empties every database} {
        r select 10
        create_keys in10
        r select 9
        create_keys in9
        set a [r flushall]
        set b [r dbsize]
        r select 10
        set c [r dbsize]
        r select 9
        list $a $b $c
    } {OK 0 0}

    test {FLUSHALL ASYNC and SYNC} {
        create_keys f1
        set a [r flushall async]
        set b [r dbsize]
        create_keys f2
        set c [r flushall sync]
        list $a $b $c [r dbsize]
    } {OK 0 OK 0}

    test {FLUSHALL syntax error} {
        assert_error {ERR syntax error} {r flushall foo}
    }

    test {Keys are binary safe} {
        r flushdb
        set k "k\x00\r\n\xff"
        r xadd $k * f v
        list [r exists $k] [r type $k] [r del $k]
    } {1 stream 1}

    test {Writes are visible to another client at once} {
        r flushdb
        set c [redis_client]
        r xadd visible * f v
        set res [$c exists visible]
        $c close
        set res
    } {1}

    test {INFO keyspace reflects the keys of the database} {
        r flushall
        create_keys ks1 ks2 ks3
        r expire ks1 1000
        set d [keyspace_info [srv client] 9]
        list [dict get $d keys] [dict get $d expires]
    } {3 1}

    test {INFO keyspace has no line for an empty database} {
        r flushall
        getInfoProperty [r info keyspace] db9
    } {}

    test {MOVE moves a key and its TTL to another database} {
        r flushall
        r set mv hello
        r expire mv 1000
        set moved [r move mv 10]
        set here [r exists mv]
        r select 10
        set there [list [r get mv] [expr {[r ttl mv] > 900}]]
        r select 9
        list $moved $here $there
    } {1 0 {hello 1}}

    test {MOVE keeps a stream's groups and pending entries} {
        r flushall
        r xadd s 1 f v
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r move s 10
        r select 10
        set p [lindex [r xpending s g - + 10] 0]
        r select 9
        list [lindex $p 0] [lindex $p 1] [r exists s]
    } {1-0 alice 0}

    test {MOVE does nothing when the key exists in the destination} {
        r flushall
        r set mv src
        r select 10
        r set mv dst
        r select 9
        set moved [r move mv 10]
        set here [r get mv]
        r select 10
        set there [r get mv]
        r select 9
        list $moved $here $there
    } {0 src dst}

    test {MOVE of a missing key} {
        r flushall
        r move nosuchkey 10
    } {0}

    test {MOVE errors: same database, out of range, not an integer, arity} {
        r flushall
        r set mv x
        set e1 [catch {r move mv 9} m1]
        set e2 [catch {r move mv 100000} m2]
        set e3 [catch {r move mv -1} m3]
        set e4 [catch {r move mv notanumber} m4]
        set e5 [catch {r move mv} m5]
        list $e1 $m1 $e2 $m2 $e3 $m3 $e4 $m4 $e5 [string match {*wrong number of arguments*} $m5] [r get mv]
    } {1 {ERR source and destination objects are the same} 1 {ERR DB index is out of range} 1 {ERR DB index is out of range} 1 {ERR value is not an integer or out of range} 1 1 x}

    test {MOVE is described as Redis describes it (COMMAND INFO)} {
        lrange [lindex [r command info move] 0] 0 6
    } {move 3 {write fast} 1 1 1 {@keyspace @write @fast}}
}

start_server {tags {"keyspace" "needs:persistence"}} {
    test {A MOVE survives a restart} {
        r flushall
        r rpush l a b c
        r pexpire l 100000
        r move l 11
        restart_server
        set here [r exists l]
        r select 11
        set there [list [r lrange l 0 -1] [expr {[r pttl l] > 90000}]]
        r select 9
        list $here $there
    } {0 {{a b c} 1}}
}
