# OBJECT ENCODING | REFCOUNT | IDLETIME | FREQ | HELP and
# MEMORY USAGE | HELP | PURGE | MALLOC-STATS.

start_server {tags {"object"}} {
    test {OBJECT ENCODING of a stream} {
        r del s
        r xadd s * f v
        r object encoding s
    } {stream}

    test {OBJECT REFCOUNT of a stream is 1} {
        r object refcount s
    } {1}

    test {OBJECT subcommands on a missing key reply nil} {
        r del nokey
        list [r object encoding nokey] [r object refcount nokey] [r object idletime nokey] [r object freq nokey]
    } {{} {} {} {}}

    test {OBJECT ENCODING of a missing key is a null in RESP3} {
        r hello 3
        r readraw 1
        set raw [r object encoding nokey]
        r readraw 0
        r hello 2
        set raw
    } {_}

    test {OBJECT FREQ error with the default policy} {
        assert_error {ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.} {r object freq s}
    }

    test {OBJECT IDLETIME is 0 right after an access} {
        r xlen s
        assert_range [r object idletime s] 0 1
    }

    test {OBJECT IDLETIME grows, and OBJECT itself does not reset it} {
        r del idle
        r xadd idle * f v
        wait_for_condition 100 100 {[r object idletime idle] >= 2} else {
            fail "idletime did not grow: [r object idletime idle]"
        }
        r object encoding idle
        r object refcount idle
        assert_morethan_equal [r object idletime idle] 2
    }

    test {A read resets OBJECT IDLETIME} {
        assert_morethan_equal [r object idletime idle] 2
        r xrange idle - +
        assert_range [r object idletime idle] 0 1
    }

    test {A write resets OBJECT IDLETIME} {
        wait_for_condition 100 100 {[r object idletime idle] >= 2} else {
            fail "idletime did not grow"
        }
        r xadd idle * f v2
        assert_range [r object idletime idle] 0 1
    }

    test {TYPE, EXISTS, TTL, PTTL, EXPIRETIME and SCAN TYPE leave OBJECT IDLETIME alone} {
        r del quiet
        r xadd quiet * f v
        wait_for_condition 100 100 {[r object idletime quiet] >= 2} else {
            fail "idletime did not grow"
        }
        r type quiet
        r exists quiet
        r ttl quiet
        r pttl quiet
        r expiretime quiet
        r pexpiretime quiet
        r scan 0 type stream count 1000
        assert_morethan_equal [r object idletime quiet] 2
        r touch quiet
        assert_range [r object idletime quiet] 0 1
    }

    # CLIENT NO-TOUCH is new in Redis 7.2.
    test {CLIENT NO-TOUCH shows as flag T in CLIENT INFO} {
        set c [redis_client]
        $c client no-touch on
        set on [dict get [client_fields [$c client info]] flags]
        $c client no-touch off
        set off [dict get [client_fields [$c client info]] flags]
        $c close
        list $on $off
    } {T N} {redis7.2}

    # CLIENT NO-TOUCH is new in Redis 7.2.
    test {CLIENT NO-TOUCH: reads keep OBJECT IDLETIME, TOUCH does not} {
        r del nt
        r xadd nt * f v
        wait_for_condition 100 100 {[r object idletime nt] >= 2} else {
            fail "idletime did not grow"
        }
        set c [redis_client]
        $c client no-touch on
        $c xlen nt
        $c xrange nt - +
        set after_reads [r object idletime nt]
        $c touch nt
        set after_touch [r object idletime nt]
        $c client no-touch off
        $c close
        assert_morethan_equal $after_reads 2
        assert_range $after_touch 0 1
    } {} {redis7.2}

    test {OBJECT HELP} {
        set h [r object help]
        assert_equal {OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $h 0]
        assert_equal {ENCODING <key>} [lindex $h 1]
        assert_equal {FREQ <key>} [lindex $h 4]
        assert_equal {IDLETIME <key>} [lindex $h 7]
        assert_equal {REFCOUNT <key>} [lindex $h 10]
        assert_equal {HELP} [lindex $h end-1]
        assert_equal {    Prints this help.} [lindex $h end]
        llength $h
    } {15}

    test {OBJECT errors: unknown subcommand, arity} {
        assert_error {ERR unknown subcommand 'foo'. Try OBJECT HELP.} {r object foo s}
        assert_error {ERR wrong number of arguments for 'object|encoding' command} {r object encoding}
        assert_error {ERR wrong number of arguments for 'object|encoding' command} {r object encoding a b}
        assert_error {ERR wrong number of arguments for 'object' command} {r object}
        assert_error {ERR wrong number of arguments for 'object|help' command} {r object help x}
    }

    test {OBJECT lookups count as keyspace hits and misses} {
        r config resetstat
        r object encoding s
        r object encoding nokey
        set info [r info stats]
        list [getInfoProperty $info keyspace_hits] [getInfoProperty $info keyspace_misses]
    } {1 1}

    # ---------------------------------------------------------------- MEMORY

    test {MEMORY USAGE of a missing key is nil} {
        r del nokey
        r memory usage nokey
    } {}

    test {MEMORY USAGE of a stream grows with its entries} {
        r del big
        r xadd big * f v
        set small [r memory usage big]
        for {set i 0} {$i < 1000} {incr i} {r xadd big * field [string repeat x 100]}
        set large [r memory usage big]
        assert_morethan $small 0
        assert_morethan $large [expr {$small + 100000}]
        # SAMPLES 0 measures every node; the estimate stays in the same range.
        set all [r memory usage big samples 0]
        assert_range $all [expr {$large / 2}] [expr {$large * 2}]
        set one [r memory usage big SAMPLES 1]
        assert_morethan $one 0
    }

    test {MEMORY USAGE counts consumer groups and their PEL} {
        r del g
        for {set i 0} {$i < 100} {incr i} {r xadd g * f v}
        set before [r memory usage g]
        r xgroup create g grp 0
        r xreadgroup group grp alice streams g >
        assert_morethan [r memory usage g] $before
    }

    test {MEMORY USAGE option errors} {
        assert_error {ERR syntax error} {r memory usage s samples -1}
        assert_error {ERR value is not an integer or out of range} {r memory usage s samples x}
        assert_error {ERR syntax error} {r memory usage s foo}
        assert_error {ERR syntax error} {r memory usage s samples}
        assert_error {ERR wrong number of arguments for 'memory|usage' command} {r memory usage}
    }

    test {MEMORY USAGE option errors on a missing key (options parsed first)} {
        assert_error {ERR syntax error} {r memory usage nokey foo}
    }

    test {MEMORY HELP} {
        set h [r memory help]
        assert_equal {MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $h 0]
        set i [lsearch -exact $h {USAGE <key> [SAMPLES <count>]}]
        assert_morethan $i 0
        assert_equal {    Return memory in bytes used by <key> and its value. Nested values are} [lindex $h [expr {$i + 1}]]
        assert_equal {    sampled up to <count> times (default: 5, 0 means sample all).} [lindex $h [expr {$i + 2}]]
        assert_morethan [lsearch -exact $h {PURGE}] 0
        assert_morethan [lsearch -exact $h {MALLOC-STATS}] 0
        lrange $h end-1 end
    } {HELP {    Prints this help.}}

    test {MEMORY PURGE} {
        r memory purge
    } {OK}

    test {MEMORY errors: unknown subcommand, arity} {
        assert_error {ERR unknown subcommand 'foo'. Try MEMORY HELP.} {r memory foo}
        assert_error {ERR wrong number of arguments for 'memory' command} {r memory}
        assert_error {ERR wrong number of arguments for 'memory|purge' command} {r memory purge x}
    }

    test {MEMORY MALLOC-STATS with libc malloc (casq)} {
        r memory malloc-stats
    } {Stats not supported for the current allocator} {needs:casq}

    test {MEMORY STATS and DOCTOR are not implemented (casq)} {
        assert_error {ERR unknown subcommand 'stats'. Try MEMORY HELP.} {r memory stats}
        assert_error {ERR unknown subcommand 'doctor'. Try MEMORY HELP.} {r memory doctor}
    } {} {needs:casq}

    # ------------------------------------------------------- COMMAND INFO/DOCS

    test {COMMAND INFO object|encoding and memory|usage} {
        set oe [lindex [r command info object|encoding] 0]
        set mu [lindex [r command info memory|usage] 0]
        list [lrange $oe 0 6] [lrange $mu 0 6]
    } {{object|encoding 3 readonly 2 2 1 {@keyspace @read @slow}} {memory|usage -3 readonly 2 2 1 {@read @slow}}}

    test {COMMAND GETKEYS of OBJECT and MEMORY USAGE} {
        list [r command getkeys object encoding k1] [r command getkeys memory usage k2 samples 5]
    } {k1 k2}

    test {COMMAND DOCS memory|usage arguments} {
        set d [dict get [r command docs memory|usage] memory|usage]
        set args [dict get $d arguments]
        list [dict get [lindex $args 0] name] [dict get [lindex $args 1] token] [dict get [lindex $args 1] flags] \
            [dict get $d since] [dict get $d group]
    } {key SAMPLES optional 4.0.0 server}

    # The summaries were reworded in Redis 7.2.
    test {COMMAND DOCS summaries of OBJECT and MEMORY (7.2 text)} {
        list [dict get [dict get [r command docs object|idletime] object|idletime] summary] \
            [dict get [dict get [r command docs memory|usage] memory|usage] summary]
    } {{Returns the time since the last access to a Redis object.} {Estimates the memory usage of a key.}} {redis7.2}
}
