# COPY source destination [DB destination-db] [REPLACE] for streams.

start_server {tags {"copy"}} {
    test {COPY of a missing key is 0} {
        r del nosrc dst
        list [r copy nosrc dst] [r exists dst]
    } {0 0}

    test {COPY basic usage for stream} {
        r del mystream mynewstream
        for {set i 0} {$i < 1000} {incr i} {r xadd mystream * item $i value b}
        assert_equal 1 [r copy mystream mynewstream]
        set range [r xrange mystream - +]
        assert_equal $range [r xrange mynewstream - +]
        assert_equal [r xinfo stream mystream full] [r xinfo stream mynewstream full]
        assert_equal 1 [r object refcount mynewstream]
        r del mystream
        assert_equal $range [r xrange mynewstream - +]
        r xlen mynewstream
    } {1000}

    test {COPY basic usage for stream-cgroups} {
        r del x newx
        r xadd x 100 a 1
        set id [r xadd x 101 b 1]
        r xadd x 102 c 1
        r xadd x 103 e 1
        r xadd x 104 f 1
        r xadd x 105 g 1
        r xgroup create x g1 0
        r xgroup create x g2 0
        r xreadgroup group g1 Alice count 1 streams x >
        r xreadgroup group g1 Bob count 1 streams x >
        r xreadgroup group g1 Bob noack count 1 streams x >
        r xreadgroup group g2 Charlie count 4 streams x >
        r xgroup setid x g1 $id
        r xreadgroup group g1 Dave count 3 streams x >
        r xdel x 103

        r copy x newx
        set info [r xinfo stream x full]
        assert_equal $info [r xinfo stream newx full]
        assert_equal 1 [r object refcount x]
        assert_equal 1 [r object refcount newx]
        r del x
        assert_equal $info [r xinfo stream newx full]
    }

    test {COPY is independent: changing the copy leaves the source alone} {
        r del src cp
        for {set i 1} {$i <= 10} {incr i} {r xadd src $i f v$i}
        r xgroup create src grp 0
        r xreadgroup group grp alice count 5 streams src >
        r copy src cp
        set src_full [r xinfo stream src full]
        # Mutate the copy in every way.
        r xadd cp 20 f new
        r xdel cp 1-0
        r xtrim cp maxlen 5
        r xack cp grp 2-0 3-0
        r xclaim cp grp bob 0 4-0
        r xgroup createconsumer cp grp carol
        r xgroup setid cp grp 7
        r xgroup create cp grp2 0
        r xgroup delconsumer cp grp alice
        assert_equal $src_full [r xinfo stream src full]
        list [r xlen src] [r xlen cp] [lindex [r xpending src grp] 0] [lindex [r xpending cp grp] 0]
    } {10 5 5 0}

    test {COPY is independent: changing the source leaves the copy alone} {
        r del src cp
        for {set i 1} {$i <= 10} {incr i} {r xadd src $i f v$i}
        r xgroup create src grp 0
        r xreadgroup group grp alice count 5 streams src >
        r copy src cp
        set cp_full [r xinfo stream cp full]
        r xadd src 30 f x
        r xack src grp 1-0 2-0 3-0 4-0 5-0
        r xgroup destroy src grp
        r xtrim src maxlen 0
        assert_equal $cp_full [r xinfo stream cp full]
        r del src
        assert_equal $cp_full [r xinfo stream cp full]
        r xpending cp grp - + 10 alice
    } {{1-0 alice * 1} {2-0 alice * 1} {3-0 alice * 1} {4-0 alice * 1} {5-0 alice * 1}}

    test {COPY keeps PEL delivery counts and times} {
        r del src cp
        r xadd src 1 f v
        r xgroup create src grp 0
        r xreadgroup group grp alice streams src >
        r xclaim src grp alice 0 1-0
        r xclaim src grp alice 0 1-0
        r copy src cp
        set a [lindex [r xinfo stream src full] end]
        set b [lindex [r xinfo stream cp full] end]
        assert_equal $a $b
        lindex [r xpending cp grp - + 10] 0 3
    } {3}

    test {COPY of an empty stream with groups} {
        r del e ecp
        r xgroup create e g $ mkstream
        r copy e ecp
        list [r xlen ecp] [llength [r xinfo groups ecp]] [r type ecp]
    } {0 1 stream}

    test {COPY to an existing key needs REPLACE} {
        r del a b
        r xadd a 1 f a
        r xadd b 2 f b
        set r1 [r copy a b]
        set before [r xrange b - +]
        set r2 [r copy a b replace]
        list $r1 $before $r2 [r xrange b - +]
    } {0 {{2-0 {f b}}} 1 {{1-0 {f a}}}}

    test {COPY to the same key in the same db is an error} {
        assert_error {ERR source and destination objects are the same} {r copy a a}
        assert_error {ERR source and destination objects are the same} {r copy a a replace}
        assert_error {ERR source and destination objects are the same} {r copy a a db 9}
    }

    test {COPY to another database} {
        r del a
        r xadd a 1 f v
        r select 10
        r del a
        r select 9
        assert_equal 1 [r copy a a db 10]
        r select 10
        set got [r xrange a - +]
        r del a
        r select 9
        list $got [r xlen a]
    } {{{1-0 {f v}}} 1}

    test {COPY DB errors} {
        assert_error {ERR DB index is out of range} {r copy a b db 100}
        assert_error {ERR DB index is out of range} {r copy a b db -1}
        assert_error {ERR value is not an integer or out of range} {r copy a b db x}
        assert_error {ERR value is out of range, value must between -2147483648 and 2147483647} {r copy a b db 99999999999}
    }

    test {COPY syntax errors} {
        assert_error {ERR syntax error} {r copy a b foo}
        assert_error {ERR syntax error} {r copy a b db}
        assert_error {ERR wrong number of arguments for 'copy' command} {r copy a}
    }

    test {COPY keeps the TTL} {
        r del t tcp
        r xadd t 1 f v
        r pexpire t 100000
        r copy t tcp
        assert_range [r pttl tcp] 1 100000
        r copy a nottl
        r pttl nottl
    } {-1}

    test {COPY over a destination with a TTL drops that TTL} {
        r del a b
        r xadd a 1 f v
        r xadd b 1 f v
        r expire b 1000
        r copy a b replace
        r ttl b
    } {-1}

    test {COPY invalidates a WATCH on the destination} {
        r del a b
        r xadd a 1 f v
        r watch b
        set c [redis_client]
        $c copy a b
        $c close
        r multi
        r ping
        r exec
    } {}

    test {COPY wakes a client blocked on the destination} {
        r del a b
        r xadd a 1 f v
        set rd [redis_deferring_client]
        $rd xread block 0 streams b 0
        wait_for_blocked_clients_count 1
        r copy a b
        set reply [$rd read]
        $rd close
        set reply
    } {{b {{1-0 {f v}}}}}

    test {COMMAND INFO copy} {
        lrange [lindex [r command info copy] 0] 0 6
    } {copy -3 {write denyoom} 1 2 1 {@keyspace @write @slow}}
}

start_server {tags {"copy" "needs:persistence"}} {
    test {A COPY survives a restart, groups and PEL included} {
        r del src cp
        for {set i 1} {$i <= 5} {incr i} {r xadd src $i f v$i}
        r xgroup create src grp 0
        r xreadgroup group grp alice count 3 streams src >
        r copy src cp
        r del src
        restart_server
        set pel {}
        foreach p [r xpending cp grp - + 10] {lappend pel [list [lindex $p 0] [lindex $p 1] [lindex $p 3]]}
        set g [lindex [r xinfo groups cp] 0]
        list [r xrange cp 2 3] [dict get $g name] [dict get $g last-delivered-id] [dict get $g pending] $pel \
            [r exists src]
    } {{{2-0 {f v2}} {3-0 {f v3}}} grp 3-0 3 {{1-0 alice 1} {2-0 alice 1} {3-0 alice 1}} 0}
}

# casq's document keeps everything (entries-read, seen times, delivery
# times): the copy reloads exactly as it was. (Redis's AOF replay does not
# keep all of it, hence casq-only.)
start_server {tags {"copy" "needs:persistence" "needs:casq"}} {
    test {A COPY reloads exactly (XINFO STREAM FULL)} {
        r del src cp
        for {set i 1} {$i <= 5} {incr i} {r xadd src $i f v$i}
        r xgroup create src grp 0
        r xreadgroup group grp alice count 3 streams src >
        r copy src cp
        set full [r xinfo stream cp full]
        restart_server
        assert_equal $full [r xinfo stream cp full]
        assert_equal $full [r xinfo stream src full]
        r xlen cp
    } {5}
}
