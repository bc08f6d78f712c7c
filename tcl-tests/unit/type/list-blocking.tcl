# Blocking pops of lists and sorted sets: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH,
# BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP. Wake-ups, the order blocked clients
# are served in, MULTI, timeouts, CLIENT UNBLOCK, keys that change type,
# and XREAD blocked next to BLPOP on the same key name.
#
# No sleeps: tests wait for INFO blocked_clients with wait_for_condition.
# Every test must pass against redis-server too, except those tagged
# casq-only (durability of a served pop) or redis7.2 (what 7.2 changed:
# a woken blocking command runs again, PR #11012).

source [file join [file dirname [info script]] .. .. support stream_util.tcl]
stream_close_clients_between_tests

# A deferring client blocked with the given command; waits until the
# server counts `blocked` blocked clients.
proc blocked_client {blocked args} {
    set rd [stream_deferring_client]
    $rd {*}$args
    wait_for_blocked_clients_count $blocked
    return $rd
}

proc read_or_error {rd} {
    if {[catch {$rd read} e]} {return "ERROR: $e"}
    return $e
}

start_server {tags {"list" "zset" "blocking"}} {

    # --------------------------------------------------------------------
    # BLPOP / BRPOP
    # --------------------------------------------------------------------

    test {BLPOP with data replies at once} {
        r del l
        r rpush l a b
        list [r blpop l 0] [r brpop l 0] [r exists l]
    } {{l a} {l b} 0}

    test {BLPOP takes the first non-empty key} {
        r del l1 l2
        r rpush l2 x
        r blpop l1 l2 0
    } {l2 x}

    test {BLPOP is woken by RPUSH} {
        r del l
        set rd [blocked_client 1 blpop l 0]
        r rpush l foo
        list [$rd read] [r exists l]
    } {{l foo} 0}

    test {BRPOP on several keys is woken by the key that gets data} {
        r del l1 l2
        set rd [blocked_client 1 brpop l1 l2 0]
        r rpush l2 a b
        list [$rd read] [r lrange l2 0 -1]
    } {{l2 b} a}

    test {BLPOP with a variadic LPUSH gets the head after the whole push} {
        r del l
        set rd [blocked_client 1 blpop l 0]
        r lpush l foo bar
        list [$rd read] [r lrange l 0 -1]
    } {{l bar} foo}

    test {Blocked clients are served in the order they blocked} {
        r del l
        set rd1 [blocked_client 1 blpop l 0]
        set rd2 [blocked_client 2 blpop l 0]
        set rd3 [blocked_client 3 blpop l 0]
        r rpush l a b
        set r1 [$rd1 read]
        set r2 [$rd2 read]
        assert_equal 1 [s blocked_clients]
        r rpush l c
        list $r1 $r2 [$rd3 read]
    } {{l a} {l b} {l c}}

    test {MULTI/EXEC pushing several times serves the final state} {
        r del l
        set rd [blocked_client 1 blpop l 0]
        r multi
        r lpush l a
        r lpush l b
        r lpush l c
        r exec
        list [$rd read] [r lrange l 0 -1]
    } {{l c} {b a}}

    test {MULTI/EXEC that pushes and pops leaves the client blocked} {
        r del l
        set rd [blocked_client 1 blpop l 0]
        r multi
        r lpush l a
        r lpop l
        r exec
        assert_equal 1 [s blocked_clients]
        r rpush l z
        $rd read
    } {l z}

    test {BLPOP with the same key twice} {
        r del l
        set rd [blocked_client 1 blpop l l 0]
        r rpush l x
        list [$rd read] [s blocked_clients]
    } {{l x} 0}

    test {BLPOP inside MULTI does not block} {
        r del l
        r multi
        r blpop l 0
        r brpop l 0
        r blmpop 0 1 l left
        r exec
    } {{} {} {}}

    test {BLMOVE inside MULTI replies null} {
        r del l d
        r multi
        r blmove l d left right 0
        r brpoplpush l d 0
        set res [r exec]
        list $res [r exists d]
    } {{{} {}} 0}

    test {BLPOP timeout} {
        r del l
        set rd [stream_deferring_client]
        $rd readraw 1
        $rd blpop l 0.05
        list [$rd read] [s blocked_clients]
    } {*-1 0}

    test {BLPOP timeout errors} {
        assert_error {ERR timeout is negative} {r blpop l -1}
        assert_error {ERR timeout is not a float or out of range} {r blpop l abc}
        assert_error {ERR timeout is not a float or out of range} {r brpoplpush l d x}
        assert_error {ERR timeout is negative} {r bzpopmin z -0.5}
    }

    test {BLPOP against a wrong type} {
        r del k
        r xadd k * f v
        assert_error {WRONGTYPE*} {r blpop k 0}
        assert_error {WRONGTYPE*} {r bzpopmin k 0}
        r del l
        assert_error {WRONGTYPE*} {r blpop l k 0}
    }

    test {BLPOP with a decimal timeout times out} {
        r del l
        set rd [stream_deferring_client]
        $rd brpop l 0.01
        list [$rd read] [s blocked_clients]
    } {{} 0}

    # --------------------------------------------------------------------
    # BLMOVE / BRPOPLPUSH
    # --------------------------------------------------------------------

    test {BLMOVE is woken and moves the element} {
        r del s d
        set rd [blocked_client 1 blmove s d right left 0]
        r rpush s a b
        list [$rd read] [r lrange s 0 -1] [r lrange d 0 -1]
    } {b a b}

    test {BRPOPLPUSH is woken and moves the element} {
        r del s d
        r rpush d x
        set rd [blocked_client 1 brpoplpush s d 0]
        r rpush s a
        list [$rd read] [r exists s] [r lrange d 0 -1]
    } {a 0 {a x}}

    test {Linked BLMOVEs move an element along the chain} {
        r del l1 l2 l3
        set rd1 [blocked_client 1 blmove l1 l2 right left 0]
        set rd2 [blocked_client 2 blmove l2 l3 left right 0]
        r rpush l1 foo
        list [$rd1 read] [$rd2 read] [r exists l1] [r exists l2] [r lrange l3 0 -1]
    } {foo foo 0 0 foo}

    test {A BLMOVE target feeding a blocked BLPOP} {
        r del s d
        set rd1 [blocked_client 1 blpop d 0]
        set rd2 [blocked_client 2 blmove s d left left 0]
        r rpush s x
        list [$rd2 read] [$rd1 read] [r exists d]
    } {x {d x} 0}

    test {BLMOVE to itself rotates} {
        r del l
        set rd [blocked_client 1 blmove l l left right 0]
        r rpush l a
        list [$rd read] [r lrange l 0 -1]
    } {a a}

    test {BRPOPLPUSH with a wrong-type destination, served later} {
        r del s d
        r xadd d * f v
        set rd [blocked_client 1 brpoplpush s d 0]
        r rpush s foo
        list [read_or_error $rd] [r lrange s 0 -1] [r type d]
    } {{ERROR: WRONGTYPE Operation against a key holding the wrong kind of value} foo stream} {redis7.2}

    # --------------------------------------------------------------------
    # BLMPOP
    # --------------------------------------------------------------------

    test {BLMPOP with data and with COUNT} {
        r del l1 l2
        r rpush l2 a b c
        list [r blmpop 0 2 l1 l2 left count 2] [r blmpop 0 2 l1 l2 right]
    } {{l2 {a b}} {l2 c}}

    test {BLMPOP is woken with COUNT} {
        r del l1 l2
        set rd [blocked_client 1 blmpop 0 2 l1 l2 right count 3]
        r rpush l2 a b
        $rd read
    } {l2 {b a}}

    test {BLMPOP takes what it asked for, the next client the rest} {
        r del l
        set rd1 [blocked_client 1 blmpop 0 1 l left count 2]
        set rd2 [blocked_client 2 blpop l 0]
        r rpush l a b c
        list [$rd1 read] [$rd2 read] [r exists l]
    } {{l {a b}} {l c} 0}

    test {BLMPOP errors} {
        assert_error {ERR numkeys should be greater than 0} {r blmpop 0 0 l left}
        assert_error {ERR syntax error} {r blmpop 0 2 l left}
        assert_error {ERR count should be greater than 0} {r blmpop 0 1 l left count 0}
        assert_error {ERR timeout is negative} {r blmpop -1 1 l left}
    }

    # --------------------------------------------------------------------
    # BZPOPMIN / BZPOPMAX / BZMPOP
    # --------------------------------------------------------------------

    test {BZPOPMIN and BZPOPMAX with data} {
        r del z
        r zadd z 1 a 2 b 3 c
        list [r bzpopmin z 0] [r bzpopmax z 0] [r zcard z]
    } {{z a 1} {z c 3} 1}

    test {BZPOPMIN is woken by ZADD} {
        r del z1 z2
        set rd [blocked_client 1 bzpopmin z1 z2 0]
        r zadd z2 5 x 3 y
        list [$rd read] [r zrange z2 0 -1]
    } {{z2 y 3} x}

    test {BZPOPMAX clients are served in order} {
        r del z
        set rd1 [blocked_client 1 bzpopmax z 0]
        set rd2 [blocked_client 2 bzpopmax z 0]
        r zadd z 1 a 2 b
        list [$rd1 read] [$rd2 read] [r exists z]
    } {{z b 2} {z a 1} 0}

    test {BZMPOP is woken with COUNT} {
        r del z
        set rd [blocked_client 1 bzmpop 0 1 z max count 10]
        r zadd z 1 a 2 b
        $rd read
    } {z {{b 2} {a 1}}}

    test {BZPOPMIN in MULTI and timeout} {
        r del z
        r multi
        r bzpopmin z 0
        r bzmpop 0 1 z min
        set res [r exec]
        set rd [stream_deferring_client]
        $rd bzpopmax z 0.01
        list $res [$rd read]
    } {{{} {}} {}}

    test {BZPOPMIN shape in RESP3} {
        r del z
        r zadd z 1.5 a
        set rd [stream_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd bzpopmin z 0
        list [$rd read] [$rd read] [$rd read] [$rd read] [$rd read] [$rd read]
    } {*3 {$1} z {$1} a ,1.5}

    test {BZMPOP errors} {
        assert_error {ERR numkeys should be greater than 0} {r bzmpop 0 0 z min}
        assert_error {ERR syntax error} {r bzmpop 0 1 z middle}
        assert_error {ERR count should be greater than 0} {r bzmpop 0 1 z min count -1}
    }

    # --------------------------------------------------------------------
    # Keys that change type; XREAD next to BLPOP
    # --------------------------------------------------------------------

    test {BLPOP stays blocked while the key is a stream} {
        r del k
        set rd [blocked_client 1 blpop k 0]
        r xadd k * f v
        assert_equal 1 [s blocked_clients]
        r del k
        r rpush k x
        $rd read
    } {k x}

    test {BZPOPMIN stays blocked while the key is a list, BLPOP is served} {
        r del k
        set rdz [blocked_client 1 bzpopmin k 0]
        set rdl [blocked_client 2 blpop k 0]
        r rpush k x
        set rl [$rdl read]
        assert_equal 1 [s blocked_clients]
        r zadd k 7 m
        list $rl [$rdz read]
    } {{k x} {k m 7}}

    test {XREAD and BLPOP blocked on the same key name} {
        r del k
        set rdx [blocked_client 1 xread BLOCK 0 STREAMS k $]
        set rdl [blocked_client 2 blpop k 0]
        r rpush k a
        set rl [$rdl read]
        assert_equal 1 [s blocked_clients]
        set rdl2 [blocked_client 2 blpop k 0]
        set id [r xadd k * f v]
        set rx [$rdx read]
        assert_equal 1 [s blocked_clients]
        r del k
        r lpush k b
        list $rl [expr {$rx eq [list [list k [list [list $id {f v}]]]]}] [$rdl2 read]
    } {{k a} 1 {k b}}

    test {BLPOP is served when RENAME moves a list into place} {
        r del src dst
        set rd [blocked_client 1 blpop dst 0]
        r rpush src a b
        r rename src dst
        list [$rd read] [r lrange dst 0 -1]
    } {{dst a} b}

    test {BLPOP is served after a MULTI that ends with a list, not one that ends with a stream} {
        r del k
        set rd [blocked_client 1 blpop k 0]
        r multi
        r rpush k x
        r del k
        r xadd k * f v
        r exec
        assert_equal 1 [s blocked_clients]
        r multi
        r del k
        r rpush k y z
        r exec
        list [$rd read] [r lrange k 0 -1]
    } {{k y} z}

    # --------------------------------------------------------------------
    # CLIENT UNBLOCK, disconnects, stats
    # --------------------------------------------------------------------

    test {CLIENT UNBLOCK TIMEOUT and ERROR on BLPOP} {
        r del l
        set rd [stream_deferring_client]
        $rd client id
        set id [$rd read]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id]
        set r1 [$rd read]
        $rd bzpopmin l 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id error]
        list $r1 [read_or_error $rd] [r client unblock $id]
    } {{} {ERROR: UNBLOCKED client unblocked via CLIENT UNBLOCK} 0}

    test {A blocked client that disconnects is forgotten} {
        r del l
        set rd [blocked_client 1 blpop l 0]
        $rd close
        wait_for_blocked_clients_count 0
        r rpush l a
        r lrange l 0 -1
    } {a}

    test {INFO counts blocked keys} {
        r del l1 l2
        set rd [blocked_client 1 blpop l1 l2 0]
        set keys [s total_blocking_keys]
        r rpush l1 x
        $rd read
        set keys
    } {2} {redis7.2}
}

start_server {tags {"list" "blocking" "needs:persistence" "casq-only"}} {
    test {A served BLPOP is durable before its reply} {
        r del l d
        set rd [blocked_client 1 blpop l 0]
        set rd2 [blocked_client 2 blmove s d left left 0]
        r rpush l a b
        r rpush s x
        set res [list [$rd read] [$rd2 read]]
        restart_server 0 kill
        lappend res [r lrange l 0 -1] [r exists s] [r lrange d 0 -1]
    } {{l a} x b 0 x}
}
