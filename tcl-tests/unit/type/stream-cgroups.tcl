# Consumer groups: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER
# HELP), XREADGROUP (non blocking), XACK, XPENDING, XCLAIM, XAUTOCLAIM,
# XINFO GROUPS / CONSUMERS / STREAM FULL, RESP3 shapes. Blocking reads are
# in stream-blocking.tcl.
#
# casq runs with stream-id-mode liberal so explicit IDs behave as in Redis.

source [file join [file dirname [info script]] .. .. support stream_util.tcl]

# A stream s with entries 1-0..n-0 (field i) and a group g at 0.
proc cg_setup {{n 5} {key s} {group g}} {
    r del $key
    stream_fill $key 1 $n
    r xgroup create $key $group 0
}

# The field of the (only or named) group in XINFO GROUPS.
proc cg_group_field {key group field} {
    foreach g [r xinfo groups $key] {
        if {[dict get $g name] eq $group} {return [stream_field $g $field]}
    }
    fail "no group $group in XINFO GROUPS $key"
}

# {id consumer deliveries} of every entry in the group's PEL (the idle
# time is left out: it depends on the clock).
proc cg_pel {key group args} {
    set res {}
    foreach e [r xpending $key $group - + 1000 {*}$args] {
        lassign $e id consumer idle count
        lappend res [list $id $consumer $count]
    }
    return $res
}

# The consumer dicts of XINFO CONSUMERS, by name.
proc cg_consumer {key group name} {
    foreach c [r xinfo consumers $key $group] {
        if {[dict get $c name] eq $name} {return $c}
    }
    fail "no consumer $name in XINFO CONSUMERS $key $group"
}

start_server {tags {"stream"} casq_overrides {stream-id-mode liberal}} {

    # --------------------------------------------------------------------
    # XGROUP CREATE
    # --------------------------------------------------------------------

    test {XGROUP CREATE and duplicate group detection} {
        r del s
        r xadd s 1-0 f v
        assert_equal OK [r xgroup create s g $]
        catch {r xgroup create s g $} e
        set e
    } {BUSYGROUP Consumer Group name already exists}

    test {XGROUP CREATE on a missing key without MKSTREAM} {
        r del s
        catch {r xgroup create s g $} e
        list $e [r exists s]
    } {{ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.} 0}

    test {XGROUP CREATE MKSTREAM creates an empty stream} {
        r del s
        list [r xgroup create s g $ MKSTREAM] [r exists s] [r xlen s] [r type s] [cg_group_field s g last-delivered-id]
    } {OK 1 0 stream 0-0}

    test {XGROUP CREATE MKSTREAM on an existing stream} {
        r del s
        r xadd s 3-0 f v
        list [r xgroup create s g $ mkstream] [r xlen s] [cg_group_field s g last-delivered-id]
    } {OK 1 3-0}

    test {XGROUP CREATE with $, an explicit ID and 0} {
        cg_setup 3
        r xgroup create s gdollar $
        r xgroup create s gmid 2-0
        set res {}
        foreach g {g gdollar gmid} {
            lappend res [cg_group_field s $g last-delivered-id] [cg_group_field s $g entries-read] [cg_group_field s $g lag]
        }
        set res
    } {0-0 {} 3 3-0 {} 0 2-0 {} {}}

    test {XGROUP CREATE with an incomplete ID} {
        cg_setup 3
        r xgroup create s g2 2
        cg_group_field s g2 last-delivered-id
    } {2-0}

    test {XGROUP CREATE ENTRIESREAD} {
        cg_setup 4
        r xgroup create s g1 $ ENTRIESREAD 0
        r xgroup create s g2 $ ENTRIESREAD 3
        r xgroup create s g3 $ ENTRIESREAD -1
        set res {}
        foreach g {g1 g2 g3} {
            lappend res [cg_group_field s $g entries-read] [cg_group_field s $g lag]
        }
        set res
    } {0 4 3 1 {} 0}

    test {XGROUP CREATE errors} {
        cg_setup 3
        assert_error {ERR value for ENTRIESREAD must be positive or -1} {r xgroup create s g1 $ ENTRIESREAD -3}
        assert_error {ERR value is not an integer or out of range} {r xgroup create s g1 $ ENTRIESREAD x}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xgroup create s g1 abc}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xgroup create s g1 >}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.} {r xgroup create s g1 $ FOO}
        assert_error {ERR wrong number of arguments for 'xgroup|create' command} {r xgroup create s g1}
        llength [r xinfo groups s]
    } {1}

    test {XGROUP CREATE group names are binary safe} {
        cg_setup 1
        r xgroup create s "g\x00\xff" 0
        set names {}
        foreach g [r xinfo groups s] {lappend names [dict get $g name]}
        list [lsort $names] [lindex [r xreadgroup GROUP "g\x00\xff" c STREAMS s >] 0 1 0 0]
    } [list [lsort [list g "g\x00\xff"]] 1-0]

    # --------------------------------------------------------------------
    # XGROUP SETID, DESTROY, CREATECONSUMER, DELCONSUMER, HELP
    # --------------------------------------------------------------------

    test {XGROUP SETID moves the last delivered ID} {
        cg_setup 5
        r xreadgroup GROUP g c STREAMS s >
        assert_equal OK [r xgroup setid s g 3-0]
        list [cg_group_field s g last-delivered-id] [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s >] 0 1]]
    } {3-0 {4-0 5-0}}

    test {XGROUP SETID $ and 0} {
        cg_setup 3
        r xgroup setid s g $
        set a [r xreadgroup GROUP g c STREAMS s >]
        r xgroup setid s g 0
        set b [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s >] 0 1]]
        list $a $b
    } {{} {1-0 2-0 3-0}}

    test {XGROUP SETID with ENTRIESREAD} {
        cg_setup 5
        r xgroup setid s g 3-0 ENTRIESREAD 3
        list [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {3 2}

    test {XGROUP SETID without ENTRIESREAD invalidates entries-read} {
        cg_setup 5
        r xreadgroup GROUP g c STREAMS s >
        r xgroup setid s g 2-0
        list [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {{} {}}

    test {XGROUP SETID re-delivers entries, moving them to the new consumer} {
        # A re-delivered entry starts a new delivery: its count is 1 again.
        cg_setup 4
        r xreadgroup GROUP g c1 COUNT 1 STREAMS s >
        r xgroup setid s g -
        set got [stream_ids [lindex [r xreadgroup GROUP g c2 STREAMS s >] 0 1]]
        list $got [cg_pel s g]
    } {{1-0 2-0 3-0 4-0} {{1-0 c2 1} {2-0 c2 1} {3-0 c2 1} {4-0 c2 1}}}

    test {XGROUP SETID errors} {
        cg_setup 3
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup setid s nog 0}
        assert_error {ERR The XGROUP subcommand requires the key to exist.*} {r xgroup setid nokey g 0}
        assert_error {ERR value for ENTRIESREAD must be positive or -1} {r xgroup setid s g 0 ENTRIESREAD -2}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xgroup setid s g abc}
        assert_error {ERR wrong number of arguments for 'xgroup|setid' command} {r xgroup setid s g}
        cg_group_field s g last-delivered-id
    } {0-0}

    test {XGROUP DESTROY} {
        cg_setup 3
        r xreadgroup GROUP g c STREAMS s >
        list [r xgroup destroy s g] [r xgroup destroy s g] [r xinfo groups s] [r xlen s] \
             [catch {r xreadgroup GROUP g c STREAMS s >} e] $e
    } {1 0 {} 3 1 {NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option}}

    test {XGROUP DESTROY on a missing key} {
        r del s
        catch {r xgroup destroy s g} e
        set e
    } {ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.}

    test {XGROUP CREATECONSUMER} {
        cg_setup 3
        list [r xgroup createconsumer s g alice] [r xgroup createconsumer s g alice] \
             [cg_group_field s g consumers] [dict get [cg_consumer s g alice] pending]
    } {1 0 1 0}

    test {XGROUP CREATECONSUMER errors} {
        cg_setup 3
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup createconsumer s nog c}
        assert_error {ERR The XGROUP subcommand requires the key to exist.*} {r xgroup createconsumer nokey g c}
        assert_error {ERR wrong number of arguments for 'xgroup|createconsumer' command} {r xgroup createconsumer s g}
    }

    test {XGROUP DELCONSUMER returns the pending count and drops its PEL} {
        cg_setup 5
        r xreadgroup GROUP g alice COUNT 3 STREAMS s >
        r xreadgroup GROUP g bob COUNT 1 STREAMS s >
        set n [r xgroup delconsumer s g alice]
        list $n [cg_pel s g] [cg_group_field s g consumers] [cg_group_field s g pending] [r xpending s g]
    } {3 {{4-0 bob 1}} 1 1 {1 4-0 4-0 {{bob 1}}}}

    test {XGROUP DELCONSUMER of an unknown consumer} {
        cg_setup 1
        r xgroup delconsumer s g nobody
    } {0}

    test {XGROUP DELCONSUMER errors} {
        cg_setup 1
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup delconsumer s nog c}
        assert_error {ERR The XGROUP subcommand requires the key to exist.*} {r xgroup delconsumer nokey g c}
    }

    test {XGROUP HELP} {
        r xgroup help
    } {{XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} {CREATE <key> <groupname> <id|$> [option]} {    Create a new consumer group. Options are:} {    * MKSTREAM} {      Create the empty stream if it does not exist.} {    * ENTRIESREAD entries_read} {      Set the group's entries_read counter (internal use).} {CREATECONSUMER <key> <groupname> <consumer>} {    Create a new consumer in the specified group.} {DELCONSUMER <key> <groupname> <consumer>} {    Remove the specified consumer.} {DESTROY <key> <groupname>} {    Remove the specified group.} {SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]} {    Set the current group ID and entries_read counter.} HELP {    Prints this help.}}

    test {XGROUP unknown subcommand and arity} {
        catch {r xgroup foo} e1
        catch {r xgroup} e2
        list $e1 $e2
    } {{ERR unknown subcommand 'foo'. Try XGROUP HELP.} {ERR wrong number of arguments for 'xgroup' command}}

    # --------------------------------------------------------------------
    # XREADGROUP
    # --------------------------------------------------------------------

    test {XREADGROUP > delivers new entries only once} {
        cg_setup 3
        set a [r xreadgroup GROUP g c1 STREAMS s >]
        set b [r xreadgroup GROUP g c2 STREAMS s >]
        list $a $b
    } {{{s {{1-0 {i 1}} {2-0 {i 2}} {3-0 {i 3}}}}} {}}

    test {XREADGROUP > with no new entries replies a null array} {
        cg_setup 1
        r xreadgroup GROUP g c STREAMS s >
        stream_shape [srv client] xreadgroup GROUP g c STREAMS s >
    } {*-1}

    test {XREADGROUP COUNT} {
        cg_setup 5
        list [stream_ids [lindex [r xreadgroup GROUP g c COUNT 2 STREAMS s >] 0 1]] \
             [stream_ids [lindex [r xreadgroup GROUP g c COUNT 2 STREAMS s >] 0 1]] \
             [stream_ids [lindex [r xreadgroup GROUP g c COUNT 0 STREAMS s >] 0 1]]
    } {{1-0 2-0} {3-0 4-0} 5-0}

    test {XREADGROUP updates last-delivered-id, entries-read, lag and the PEL} {
        cg_setup 5
        r xreadgroup GROUP g c COUNT 3 STREAMS s >
        list [cg_group_field s g last-delivered-id] [cg_group_field s g entries-read] \
             [cg_group_field s g lag] [cg_group_field s g pending] [cg_pel s g]
    } {3-0 3 2 3 {{1-0 c 1} {2-0 c 1} {3-0 c 1}}}

    test {XREADGROUP with ID 0 reads the consumer's own history} {
        cg_setup 4
        r xreadgroup GROUP g c1 COUNT 2 STREAMS s >
        r xreadgroup GROUP g c2 COUNT 1 STREAMS s >
        list [r xreadgroup GROUP g c1 STREAMS s 0] [r xreadgroup GROUP g c2 STREAMS s 0]
    } {{{s {{1-0 {i 1}} {2-0 {i 2}}}}} {{s {{3-0 {i 3}}}}}}

    test {XREADGROUP history of a consumer with nothing pending is an empty list} {
        cg_setup 3
        list [r xreadgroup GROUP g nobody STREAMS s 0] [stream_shape [srv client] xreadgroup GROUP g nobody STREAMS s 0]
    } {{{s {}}} {*1 *2 s *0}}

    test {XREADGROUP history from an ID, with COUNT} {
        cg_setup 5
        r xreadgroup GROUP g c STREAMS s >
        list [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s 2-0] 0 1]] \
             [stream_ids [lindex [r xreadgroup GROUP g c COUNT 2 STREAMS s 0] 0 1]] \
             [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s 9] 0 1]]
    } {{3-0 4-0 5-0} {1-0 2-0} {}}

    test {XREADGROUP history reads increment the delivery count} {
        cg_setup 2
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g c STREAMS s 0
        r xreadgroup GROUP g c COUNT 1 STREAMS s 0
        cg_pel s g
    } {{1-0 c 3} {2-0 c 2}}

    test {XREADGROUP history reports deleted entries with a nil body} {
        cg_setup 3
        r xreadgroup GROUP g c STREAMS s >
        r xdel s 2-0
        list [r xreadgroup GROUP g c STREAMS s 0] [stream_shape [srv client] xreadgroup GROUP g c STREAMS s 1-0]
    } {{{s {{1-0 {i 1}} {2-0 {}} {3-0 {i 3}}}}} {*1 *2 s *2 *2 2-0 *-1 *2 3-0 *2 i 3}}

    test {XREADGROUP history after trimming (issue #5570)} {
        r del s
        r xgroup create s g $ MKSTREAM
        r xadd s 1-0 f A
        r xreadgroup GROUP g c STREAMS s >
        r xadd s MAXLEN 1 2-0 f B
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g c STREAMS s 0-1
    } {{s {{1-0 {}} {2-0 {f B}}}}}

    test {XREADGROUP > skips deleted entries} {
        cg_setup 4
        r xdel s 1-0 3-0
        stream_ids [lindex [r xreadgroup GROUP g c STREAMS s >] 0 1]
    } {2-0 4-0}

    test {XREADGROUP NOACK does not add to the PEL} {
        cg_setup 3
        set got [stream_ids [lindex [r xreadgroup GROUP g c NOACK STREAMS s >] 0 1]]
        list $got [r xpending s g] [cg_group_field s g last-delivered-id] [cg_group_field s g entries-read]
    } {{1-0 2-0 3-0} {0 {} {} {}} 3-0 3}

    test {XREADGROUP creates the consumer} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xreadgroup GROUP g c3 STREAMS s 0
        set names {}
        foreach c [r xinfo consumers s g] {lappend names [dict get $c name] [dict get $c pending]}
        set names
    } {c1 1 c3 0}

    test {XREADGROUP creates the consumer even when nothing is read (Redis 7.2)} {
        # Since 7.2 (PR #11099) XREADGROUP, XCLAIM and XAUTOCLAIM create
        # the consumer up front (it has a seen-time even without entries);
        # 7.0 created it only when an entry was served.
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xreadgroup GROUP g c2 STREAMS s >
        set names {}
        foreach c [r xinfo consumers s g] {lappend names [dict get $c name] [dict get $c pending]}
        set names
    } {c1 1 c2 0} {redis7.2}

    test {XREADGROUP of several streams} {
        cg_setup 2 s1
        cg_setup 3 s2
        r xreadgroup GROUP g c COUNT 2 STREAMS s1 s2 > >
    } {{s1 {{1-0 {i 1}} {2-0 {i 2}}}} {s2 {{1-0 {i 1}} {2-0 {i 2}}}}}

    test {XREADGROUP of several streams mixing > and history} {
        cg_setup 2 s1
        cg_setup 2 s2
        r xreadgroup GROUP g c STREAMS s1 >
        r xreadgroup GROUP g c STREAMS s1 s2 0 >
    } {{s1 {{1-0 {i 1}} {2-0 {i 2}}}} {s2 {{1-0 {i 1}} {2-0 {i 2}}}}}

    test {XREADGROUP of several streams: only streams with data are in the reply} {
        cg_setup 2 s1
        cg_setup 2 s2
        r xreadgroup GROUP g c STREAMS s1 >
        r xreadgroup GROUP g c STREAMS s1 s2 > >
    } {{s2 {{1-0 {i 1}} {2-0 {i 2}}}}}

    test {XREADGROUP NOGROUP errors} {
        cg_setup 1
        r del nokey
        assert_error {NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option} {r xreadgroup GROUP nog c STREAMS s >}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option} {r xreadgroup GROUP g c STREAMS nokey >}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option} {r xreadgroup GROUP g c STREAMS s nokey > >}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option} {r xreadgroup GROUP g c STREAMS nokey 0}
        # Nothing was delivered from s by the failed calls.
        r xpending s g
    } {0 {} {} {}}

    test {XREADGROUP argument errors} {
        cg_setup 1
        assert_error {ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.} {r xreadgroup GROUP g c STREAMS s $}
        assert_error {ERR Missing GROUP option for XREADGROUP} {r xreadgroup COUNT 1 NOACK STREAMS s >}
        assert_error {ERR wrong number of arguments for 'xreadgroup' command} {r xreadgroup GROUP g c STREAMS s}
        assert_error {ERR Unbalanced*list of streams: for each stream key an ID or*must be specified.} {r xreadgroup GROUP g c STREAMS s s2 >}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xreadgroup GROUP g c STREAMS s abc}
        assert_error {ERR value is not an integer or out of range} {r xreadgroup GROUP g c COUNT x STREAMS s >}
        assert_error {ERR timeout is negative} {r xreadgroup GROUP g c BLOCK -1 STREAMS s >}
        assert_error {ERR syntax error} {r xreadgroup GROUP g c FOO STREAMS s >}
        r xpending s g
    } {0 {} {} {}}

    test {XREADGROUP unbalanced streams error text (Redis 7.2)} {
        # 7.2 names the command and the special ID of XREADGROUP; 7.0
        # said "Unbalanced XREAD list of streams ... or '$'".
        cg_setup 1
        catch {r xreadgroup GROUP g c STREAMS s s2 >} e
        set e
    } {ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.} {redis7.2}

    test {XREADGROUP with BLOCK and history IDs does not block} {
        cg_setup 2
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g c BLOCK 0 STREAMS s 0
    } {{s {{1-0 {i 1}} {2-0 {i 2}}}}}

    # --------------------------------------------------------------------
    # XACK
    # --------------------------------------------------------------------

    test {XACK removes entries from the group and consumer PEL} {
        cg_setup 4
        r xreadgroup GROUP g c1 COUNT 2 STREAMS s >
        r xreadgroup GROUP g c2 COUNT 2 STREAMS s >
        list [r xack s g 1-0 3-0] [r xack s g 1-0] [cg_pel s g] [cg_pel s g c1] [cg_pel s g c2]
    } {2 0 {{2-0 c1 1} {4-0 c2 1}} {{2-0 c1 1}} {{4-0 c2 1}}}

    test {XACK counts a repeated ID once} {
        cg_setup 2
        r xreadgroup GROUP g c STREAMS s >
        r xack s g 1-0 1-0 1
    } {1}

    test {XACK of IDs not pending} {
        cg_setup 2
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        list [r xack s g 2-0] [r xack s g 9-0] [r xack s nog 1-0] [r xack nokey g 1-0]
    } {0 0 0 0}

    test {XACK with an invalid ID acknowledges nothing} {
        cg_setup 2
        r xreadgroup GROUP g c STREAMS s >
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xack s g 1-0 abc}
        list [cg_group_field s g pending] [r xack s g 1-0]
    } {2 1}

    test {XACK errors} {
        assert_error {ERR wrong number of arguments for 'xack' command} {r xack s g}
    }

    test {XACK of a deleted entry} {
        cg_setup 2
        r xreadgroup GROUP g c STREAMS s >
        r xdel s 1-0
        list [r xack s g 1-0] [cg_pel s g]
    } {1 {{2-0 c 1}}}

    # --------------------------------------------------------------------
    # XPENDING
    # --------------------------------------------------------------------

    test {XPENDING summary} {
        cg_setup 5
        r xreadgroup GROUP g c1 COUNT 2 STREAMS s >
        r xreadgroup GROUP g c2 COUNT 1 STREAMS s >
        r xgroup createconsumer s g c3
        r xpending s g
    } {3 1-0 3-0 {{c1 2} {c2 1}}}

    test {XPENDING summary of an empty PEL} {
        cg_setup 1
        list [r xpending s g] [stream_shape [srv client] xpending s g]
    } {{0 {} {} {}} {*4 :0 $-1 $-1 *-1}}

    test {XPENDING extended form} {
        cg_setup 4
        r xreadgroup GROUP g c1 COUNT 2 STREAMS s >
        r xreadgroup GROUP g c2 STREAMS s >
        set res [r xpending s g - + 10]
        foreach e $res {
            lassign $e id consumer idle count
            assert {[string is integer -strict $idle] && $idle >= 0}
        }
        cg_pel s g
    } {{1-0 c1 1} {2-0 c1 1} {3-0 c2 1} {4-0 c2 1}}

    test {XPENDING COUNT, consumer filter and ranges} {
        cg_setup 5
        r xreadgroup GROUP g c1 COUNT 3 STREAMS s >
        r xreadgroup GROUP g c2 STREAMS s >
        set ids {}
        foreach args {{- + 2} {- + 10 c2} {2 4 10} {2-0 + 10 c1} {- + 10 nobody} {(1-0 (5-0 10} {(2 + 1}} {
            set l {}
            foreach e [r xpending s g {*}$args] {lappend l [lindex $e 0]}
            lappend ids $l
        }
        set ids
    } {{1-0 2-0} {4-0 5-0} {2-0 3-0 4-0} {2-0 3-0} {} {2-0 3-0 4-0} 3-0}

    test {XPENDING COUNT 0 and negative COUNT reply an empty array} {
        cg_setup 2
        r xreadgroup GROUP g c STREAMS s >
        list [stream_shape [srv client] xpending s g - + 0] [stream_shape [srv client] xpending s g - + -3]
    } {*0 *0}

    test {XPENDING IDLE filter} {
        cg_setup 3
        r xreadgroup GROUP g c STREAMS s >
        # Make 2-0 look idle for a long time.
        r xclaim s g c 0 2-0 IDLE 500000 JUSTID
        set long {}
        foreach e [r xpending s g IDLE 400000 - + 10] {lappend long [lindex $e 0]}
        set all {}
        foreach e [r xpending s g IDLE 0 - + 10] {lappend all [lindex $e 0]}
        set c {}
        foreach e [r xpending s g IDLE 400000 - + 10 c] {lappend c [lindex $e 0]}
        list $long $all $c [r xpending s g IDLE 99999999 - + 10]
    } {2-0 {1-0 2-0 3-0} 2-0 {}}

    test {XPENDING reports the idle time given by XCLAIM IDLE} {
        cg_setup 1
        r xreadgroup GROUP g c STREAMS s >
        r xclaim s g c 0 1-0 IDLE 1000000 JUSTID
        set idle [lindex [r xpending s g - + 10] 0 2]
        assert_range $idle 1000000 1100000
    }

    test {XPENDING errors} {
        cg_setup 2
        r del nokey
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xpending s nog}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xpending nokey g - + 10}
        assert_error {ERR syntax error} {r xpending s g - +}
        assert_error {ERR syntax error} {r xpending s g IDLE 10 - +}
        assert_error {ERR syntax error} {r xpending s g - + 10 c extra more args}
        assert_error {ERR value is not an integer or out of range} {r xpending s g IDLE abc - + 10}
        assert_error {ERR value is not an integer or out of range} {r xpending s g - + abc}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xpending s g (- + 10}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xpending s g abc + 10}
        assert_error {ERR invalid start ID for the interval} {r xpending s g (18446744073709551615-18446744073709551615 + 10}
        assert_error {ERR wrong number of arguments for 'xpending' command} {r xpending s}
    }

    # --------------------------------------------------------------------
    # XCLAIM
    # --------------------------------------------------------------------

    test {XCLAIM moves entries to another consumer} {
        cg_setup 3
        r xreadgroup GROUP g c1 STREAMS s >
        set res [r xclaim s g c2 0 1-0 3-0]
        list $res [cg_pel s g] [r xpending s g]
    } {{{1-0 {i 1}} {3-0 {i 3}}} {{1-0 c2 2} {2-0 c1 1} {3-0 c2 2}} {3 1-0 3-0 {{c1 1} {c2 2}}}}

    test {XCLAIM respects min-idle-time} {
        cg_setup 2
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g c1 0 1-0 IDLE 100000 JUSTID
        list [r xclaim s g c2 50000 1-0 2-0] [cg_pel s g]
    } {{{1-0 {i 1}}} {{1-0 c2 2} {2-0 c1 1}}}

    test {XCLAIM nothing claimable replies an empty array} {
        cg_setup 2
        r xreadgroup GROUP g c1 STREAMS s >
        list [stream_shape [srv client] xclaim s g c2 3600000 1-0 2-0] [stream_shape [srv client] xclaim s g c2 0 9-0]
    } {*0 *0}

    test {XCLAIM JUSTID does not increment the delivery count} {
        cg_setup 2
        r xreadgroup GROUP g c1 STREAMS s >
        list [r xclaim s g c2 0 1-0 2-0 JUSTID] [cg_pel s g]
    } {{1-0 2-0} {{1-0 c2 1} {2-0 c2 1}}}

    test {XCLAIM RETRYCOUNT sets the delivery count} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g c2 0 1-0 RETRYCOUNT 7
        set a [cg_pel s g]
        r xclaim s g c2 0 1-0 RETRYCOUNT 3 JUSTID
        list $a [cg_pel s g]
    } {{{1-0 c2 7}} {{1-0 c2 3}}}

    test {XCLAIM TIME sets the delivery time} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        set t [expr {[lindex [r time] 0] * 1000 - 5000000}]
        r xclaim s g c2 0 1-0 TIME $t JUSTID
        set full [r xinfo stream s FULL]
        set pel [lindex [dict get [lindex [dict get $full groups] 0] pending] 0]
        assert_equal [list 1-0 c2 $t 1] $pel
        set idle [lindex [r xpending s g - + 10] 0 2]
        assert_range $idle 5000000 5100000
    }

    test {XCLAIM IDLE or TIME in the future means now} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g c1 0 1-0 IDLE 1000000 JUSTID
        set t [expr {([lindex [r time] 0] + 100000) * 1000}]
        r xclaim s g c1 0 1-0 TIME $t JUSTID
        set idle [lindex [r xpending s g - + 10] 0 2]
        assert_range $idle 0 60000
        r xclaim s g c1 0 1-0 IDLE 1000000 JUSTID
        r xclaim s g c1 0 1-0 IDLE -5 JUSTID
        assert_range [lindex [r xpending s g - + 10] 0 2] 0 60000
    }

    test {XCLAIM FORCE creates a PEL entry for an existing entry} {
        cg_setup 3
        set a [r xclaim s g c 0 2-0]
        set b [r xclaim s g c 0 2-0 FORCE]
        set c [r xclaim s g c 0 9-0 FORCE]
        list $a $b $c [cg_pel s g] [cg_group_field s g last-delivered-id]
    } {{} {{2-0 {i 2}}} {} {{2-0 c 2}} 0-0}

    test {XCLAIM FORCE JUSTID} {
        cg_setup 3
        list [r xclaim s g c 0 1-0 3-0 FORCE JUSTID] [cg_pel s g]
    } {{1-0 3-0} {{1-0 c 1} {3-0 c 1}}}

    test {XCLAIM LASTID moves the group's last delivered ID forward only} {
        cg_setup 5
        r xreadgroup GROUP g c1 COUNT 2 STREAMS s >
        r xclaim s g c2 0 1-0 LASTID 4-0 JUSTID
        set a [cg_group_field s g last-delivered-id]
        r xclaim s g c2 0 1-0 LASTID 3-0 JUSTID
        list $a [cg_group_field s g last-delivered-id] [stream_ids [lindex [r xreadgroup GROUP g c2 STREAMS s >] 0 1]]
    } {4-0 4-0 5-0}

    test {XCLAIM of a deleted entry removes it from the PEL} {
        cg_setup 3
        r xreadgroup GROUP g c1 STREAMS s >
        r xdel s 2-0
        list [r xclaim s g c2 0 1-0 2-0 3-0] [cg_pel s g] [cg_group_field s g pending]
    } {{{1-0 {i 1}} {3-0 {i 3}}} {{1-0 c2 2} {3-0 c2 2}} 2}

    test {XCLAIM of a deleted entry with JUSTID} {
        cg_setup 2
        r xreadgroup GROUP g c1 STREAMS s >
        r xdel s 1-0
        list [r xclaim s g c2 0 1-0 2-0 JUSTID] [cg_pel s g]
    } {2-0 {{2-0 c2 1}}}

    test {XCLAIM creates the consumer even when nothing is claimed (Redis 7.2)} {
        # See "XREADGROUP creates the consumer even when nothing is read".
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g newbie 3600000 1-0
        set names {}
        foreach c [r xinfo consumers s g] {lappend names [dict get $c name] [dict get $c pending]}
        set names
    } {c1 1 newbie 0} {redis7.2}

    test {XCLAIM creates the consumer it claims for} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g newbie 0 1-0 JUSTID
        set names {}
        foreach c [r xinfo consumers s g] {lappend names [dict get $c name] [dict get $c pending]}
        set names
    } {c1 0 newbie 1}

    test {XCLAIM errors} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r del nokey
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xclaim s nog c 0 1-0}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xclaim nokey g c 0 1-0}
        assert_error {ERR Invalid min-idle-time argument for XCLAIM} {r xclaim s g c abc 1-0}
        assert_error {ERR Unrecognized XCLAIM option 'FOO'} {r xclaim s g c 0 1-0 FOO}
        assert_error {ERR Unrecognized XCLAIM option 'abc'} {r xclaim s g c 0 abc}
        assert_error {ERR Invalid IDLE option argument for XCLAIM} {r xclaim s g c 0 1-0 IDLE abc}
        assert_error {ERR Invalid TIME option argument for XCLAIM} {r xclaim s g c 0 1-0 TIME abc}
        assert_error {ERR Invalid RETRYCOUNT option argument for XCLAIM} {r xclaim s g c 0 1-0 RETRYCOUNT abc}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xclaim s g c 0 1-0 LASTID abc}
        assert_error {ERR wrong number of arguments for 'xclaim' command} {r xclaim s g c 0}
        cg_pel s g
    } {{1-0 c1 1}}

    test {XCLAIM with a negative min-idle-time claims} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g c2 -5 1-0 JUSTID
    } {1-0}

    # --------------------------------------------------------------------
    # XAUTOCLAIM
    # --------------------------------------------------------------------

    test {XAUTOCLAIM claims idle entries and replies cursor, entries, deleted IDs} {
        cg_setup 3
        r xreadgroup GROUP g c1 STREAMS s >
        list [r xautoclaim s g c2 0 0] [cg_pel s g]
    } {{0-0 {{1-0 {i 1}} {2-0 {i 2}} {3-0 {i 3}}} {}} {{1-0 c2 2} {2-0 c2 2} {3-0 c2 2}}}

    test {XAUTOCLAIM COUNT and the cursor} {
        cg_setup 5
        r xreadgroup GROUP g c1 STREAMS s >
        set a [r xautoclaim s g c2 0 - COUNT 2]
        set b [r xautoclaim s g c2 0 [lindex $a 0] COUNT 2]
        set c [r xautoclaim s g c2 0 [lindex $b 0] COUNT 2]
        list [lindex $a 0] [stream_ids [lindex $a 1]] [lindex $b 0] [stream_ids [lindex $b 1]] [lindex $c 0] [stream_ids [lindex $c 1]]
    } {3-0 {1-0 2-0} 5-0 {3-0 4-0} 0-0 5-0}

    test {XAUTOCLAIM JUSTID} {
        cg_setup 3
        r xreadgroup GROUP g c1 STREAMS s >
        list [r xautoclaim s g c2 0 0 JUSTID] [cg_pel s g]
    } {{0-0 {1-0 2-0 3-0} {}} {{1-0 c2 1} {2-0 c2 1} {3-0 c2 1}}}

    test {XAUTOCLAIM respects min-idle-time} {
        cg_setup 3
        r xreadgroup GROUP g c1 STREAMS s >
        r xclaim s g c1 0 2-0 IDLE 1000000 JUSTID
        list [r xautoclaim s g c2 500000 0] [cg_pel s g]
    } {{0-0 {{2-0 {i 2}}} {}} {{1-0 c1 1} {2-0 c2 2} {3-0 c1 1}}}

    test {XAUTOCLAIM reports and removes deleted entries} {
        cg_setup 5
        r xreadgroup GROUP g c1 STREAMS s >
        r xdel s 2-0 4-0
        set res [r xautoclaim s g c2 0 0]
        list $res [cg_pel s g]
    } {{0-0 {{1-0 {i 1}} {3-0 {i 3}} {5-0 {i 5}}} {2-0 4-0}} {{1-0 c2 2} {3-0 c2 2} {5-0 c2 2}}}

    test {XAUTOCLAIM deleted entries count toward COUNT} {
        cg_setup 5
        r xreadgroup GROUP g c1 STREAMS s >
        r xdel s 1-0 2-0
        list [r xautoclaim s g c2 0 0 COUNT 2] [cg_group_field s g pending]
    } {{3-0 {} {1-0 2-0}} 3}

    test {XAUTOCLAIM with an exclusive start} {
        cg_setup 3
        r xreadgroup GROUP g c1 STREAMS s >
        r xautoclaim s g c2 0 (1-0 JUSTID
    } {0-0 {2-0 3-0} {}}

    test {XAUTOCLAIM on an empty PEL} {
        cg_setup 3
        list [r xautoclaim s g c 0 0] [stream_shape [srv client] xautoclaim s g c 0 0]
    } {{0-0 {} {}} {*3 0-0 *0 *0}}

    test {XAUTOCLAIM creates the consumer even when nothing is claimed (Redis 7.2)} {
        # See "XREADGROUP creates the consumer even when nothing is read".
        cg_setup 1
        r xautoclaim s g newbie 0 0
        dict get [cg_consumer s g newbie] pending
    } {0} {redis7.2}

    test {XAUTOCLAIM errors} {
        cg_setup 1
        r xreadgroup GROUP g c1 STREAMS s >
        r del nokey
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xautoclaim s nog c 0 0}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xautoclaim nokey g c 0 0}
        assert_error {ERR COUNT must be > 0} {r xautoclaim s g c 0 0 COUNT 0}
        assert_error {ERR COUNT must be > 0} {r xautoclaim s g c 0 0 COUNT -1}
        assert_error {ERR COUNT must be > 0} {r xautoclaim s g c 0 0 COUNT abc}
        assert_error {ERR Invalid min-idle-time argument for XAUTOCLAIM} {r xautoclaim s g c abc 0}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xautoclaim s g c 0 abc}
        assert_error {ERR syntax error} {r xautoclaim s g c 0 0 FOO}
        assert_error {ERR wrong number of arguments for 'xautoclaim' command} {r xautoclaim s g c 0}
        cg_pel s g
    } {{1-0 c1 1}}

    # --------------------------------------------------------------------
    # XINFO GROUPS / CONSUMERS
    # --------------------------------------------------------------------

    test {XINFO GROUPS fields} {
        cg_setup 3
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        r xinfo groups s
    } {{name g consumers 1 pending 1 last-delivered-id 1-0 entries-read 1 lag 2}}

    test {XINFO GROUPS lists groups in name order} {
        cg_setup 1
        r xgroup create s b 0
        r xgroup create s a 0
        set names {}
        foreach g [r xinfo groups s] {lappend names [dict get $g name]}
        set names
    } {a b g}

    test {XINFO GROUPS of a stream without groups} {
        r del s
        r xadd s 1-0 f v
        list [r xinfo groups s] [stream_shape [srv client] xinfo groups s]
    } {{} *0}

    test {XINFO GROUPS lag follows reads and new entries} {
        cg_setup 5
        set res [list [cg_group_field s g lag]]
        r xreadgroup GROUP g c COUNT 2 STREAMS s >
        lappend res [cg_group_field s g entries-read] [cg_group_field s g lag]
        r xreadgroup GROUP g c STREAMS s >
        lappend res [cg_group_field s g lag]
        r xadd s 6-0 f v
        lappend res [cg_group_field s g lag]
    } {5 2 3 0 1}

    test {XINFO GROUPS lag is null after a deletion past the group's position} {
        cg_setup 5
        r xreadgroup GROUP g c COUNT 2 STREAMS s >
        r xdel s 4-0
        set a [list [cg_group_field s g entries-read] [cg_group_field s g lag]]
        r xreadgroup GROUP g c STREAMS s >
        list $a [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {{2 {}} 5 0}

    test {XINFO GROUPS lag with a deletion before the group's position} {
        cg_setup 5
        r xreadgroup GROUP g c COUNT 2 STREAMS s >
        r xdel s 1-0
        list [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {2 3}

    test {XINFO GROUPS lag after XGROUP SETID to 0 with tombstones} {
        cg_setup 5
        r xreadgroup GROUP g c STREAMS s >
        r xdel s 4-0
        r xgroup setid s g 0
        list [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {{} {}}

    test {XINFO GROUPS lag of an emptied stream} {
        cg_setup 3
        r xdel s 1-0 2-0 3-0
        list [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {{} 0}

    test {XINFO GROUPS lag of a group before the first entry after trimming} {
        cg_setup 5
        r xtrim s MAXLEN 2
        list [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {{} 2}

    test {XINFO GROUPS entries-read after XGROUP SETID $ ENTRIESREAD} {
        cg_setup 6
        r xgroup setid s g $ ENTRIESREAD 3
        list [cg_group_field s g last-delivered-id] [cg_group_field s g entries-read] [cg_group_field s g lag]
    } {6-0 3 3}

    test {XINFO GROUPS errors} {
        r del s
        assert_error {ERR no such key} {r xinfo groups s}
        assert_error {ERR wrong number of arguments for 'xinfo|groups' command} {r xinfo groups}
    }

    test {XINFO CONSUMERS name and pending} {
        cg_setup 5
        r xreadgroup GROUP g bob COUNT 2 STREAMS s >
        r xreadgroup GROUP g alice COUNT 1 STREAMS s >
        r xgroup createconsumer s g carol
        set res {}
        foreach c [r xinfo consumers s g] {
            assert {[dict get $c idle] >= 0}
            lappend res [dict get $c name] [dict get $c pending]
        }
        set res
    } {alice 1 bob 2 carol 0}

    test {XINFO CONSUMERS of a group without consumers} {
        cg_setup 1
        list [r xinfo consumers s g] [stream_shape [srv client] xinfo consumers s g]
    } {{} *0}

    test {XINFO CONSUMERS errors} {
        cg_setup 1
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xinfo consumers s nog}
        assert_error {ERR no such key} {r xinfo consumers nokey g}
        assert_error {ERR wrong number of arguments for 'xinfo|consumers' command} {r xinfo consumers s}
    }

    # Redis 7.2 added "inactive" to XINFO CONSUMERS and "active-time" to
    # XINFO STREAM FULL (PR #11099): the time since the consumer last
    # read or claimed an entry, -1 if it never did. "idle" now counts from
    # the consumer's last attempt (any XREADGROUP / XCLAIM / XAUTOCLAIM).
    test {XINFO CONSUMERS fields (Redis 7.2)} {
        cg_setup 1
        r xgroup createconsumer s g c
        set c [lindex [r xinfo consumers s g] 0]
        set keys {}
        foreach {k v} $c {lappend keys $k}
        list $keys [dict get $c pending] [dict get $c inactive]
    } {{name pending idle inactive} 0 -1} {redis7.2}

    test {XINFO CONSUMERS inactive is -1 until the consumer gets an entry (Redis 7.2)} {
        cg_setup 1
        r xgroup createconsumer s g created
        r xreadgroup GROUP g reader STREAMS s >
        r xreadgroup GROUP g late STREAMS s >
        list [dict get [cg_consumer s g created] inactive] \
             [expr {[dict get [cg_consumer s g reader] inactive] >= 0}] \
             [dict get [cg_consumer s g late] inactive]
    } {-1 1 -1} {redis7.2}

    test {XINFO STREAM FULL consumers have seen-time and active-time (Redis 7.2)} {
        cg_setup 2
        set t0 [expr {[lindex [r time] 0] * 1000}]
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        r xgroup createconsumer s g d
        set t1 [expr {([lindex [r time] 0] + 1) * 1000}]
        set g [lindex [dict get [r xinfo stream s FULL] groups] 0]
        set cs [dict get $g consumers]
        set c [lindex $cs 0]
        set d [lindex $cs 1]
        set keys {}
        foreach {k v} $c {lappend keys $k}
        assert_equal {name seen-time active-time pel-count pending} $keys
        assert_range [dict get $c seen-time] $t0 $t1
        assert_equal [dict get $c seen-time] [dict get $c active-time]
        assert_range [dict get $d seen-time] $t0 $t1
        list [dict get $d active-time] [dict get $c pel-count] [llength [dict get $c pending]]
    } {-1 1 1} {redis7.2}

    test {XREADGROUP with nothing to deliver updates only seen-time (Redis 7.2)} {
        cg_setup 1
        r xreadgroup GROUP g c STREAMS s >
        set before [lindex [dict get [lindex [dict get [r xinfo stream s FULL] groups] 0] consumers] 0]
        # Let the clock move on, then read again with nothing new.
        set seen [dict get $before seen-time]
        wait_for_condition 100 10 {[stream_time_ms] > $seen} else {fail "clock did not move"}
        r xreadgroup GROUP g c STREAMS s >
        set after [lindex [dict get [lindex [dict get [r xinfo stream s FULL] groups] 0] consumers] 0]
        list [expr {[dict get $after seen-time] > [dict get $before seen-time]}] \
             [expr {[dict get $after active-time] == [dict get $before active-time]}]
    } {1 1} {redis7.2}

    # --------------------------------------------------------------------
    # XINFO STREAM FULL with groups
    # --------------------------------------------------------------------

    test {XINFO STREAM FULL shows groups, PELs and consumers} {
        cg_setup 3
        r xreadgroup GROUP g c COUNT 2 STREAMS s >
        r xclaim s g c 0 1-0 2-0 TIME 1000000 JUSTID
        set g [lindex [dict get [r xinfo stream s FULL] groups] 0]
        set keys {}
        foreach {k v} $g {lappend keys $k}
        set c [lindex [dict get $g consumers] 0]
        list $keys [dict get $g name] [dict get $g last-delivered-id] [dict get $g entries-read] \
             [dict get $g lag] [dict get $g pel-count] [dict get $g pending] \
             [dict get $c name] [dict get $c pel-count] [dict get $c pending]
    } {{name last-delivered-id entries-read lag pel-count pending consumers} g 2-0 2 1 2 {{1-0 c 1000000 1} {2-0 c 1000000 1}} c 2 {{1-0 1000000 1} {2-0 1000000 1}}}

    test {XINFO STREAM FULL COUNT limits PELs too} {
        cg_setup 5
        r xreadgroup GROUP g c STREAMS s >
        set g [lindex [dict get [r xinfo stream s FULL COUNT 2] groups] 0]
        list [dict get $g pel-count] [llength [dict get $g pending]] \
             [llength [dict get [lindex [dict get $g consumers] 0] pending]]
    } {5 2 2}

    # casq has no other data types: this runs against redis-server only
    # (see stream_util.tcl, tag needs:other-types).
    test {Consumer group commands against a key of another type} {
        r del str
        r set str x
        set wt {WRONGTYPE Operation against a key holding the wrong kind of value}
        assert_error $wt {r xgroup create str g $}
        assert_error $wt {r xgroup create str g $ MKSTREAM}
        assert_error $wt {r xgroup setid str g 0}
        assert_error $wt {r xgroup destroy str g}
        assert_error $wt {r xgroup createconsumer str g c}
        assert_error $wt {r xgroup delconsumer str g c}
        assert_error $wt {r xreadgroup GROUP g c STREAMS str >}
        assert_error $wt {r xack str g 1-0}
        assert_error $wt {r xpending str g}
        assert_error $wt {r xpending str g - + 10}
        assert_error $wt {r xclaim str g c 0 1-0}
        assert_error $wt {r xautoclaim str g c 0 0}
        assert_error $wt {r xinfo groups str}
        assert_error $wt {r xinfo consumers str g}
        r get str
    } {x} {needs:other-types}

    # --------------------------------------------------------------------
    # RESP3
    # --------------------------------------------------------------------

    test {RESP3: XREADGROUP replies a map} {
        cg_setup 1
        set c [redis_client]
        $c hello 3
        set a [stream_shape $c xreadgroup GROUP g c STREAMS s >]
        set b [stream_shape $c xreadgroup GROUP g c STREAMS s >]
        set h [stream_shape $c xreadgroup GROUP g c STREAMS s 0]
        $c close
        list $a $b $h
    } {{%1 s *1 *2 1-0 *2 i 1} _ {%1 s *1 *2 1-0 *2 i 1}}

    test {RESP3: XINFO GROUPS and CONSUMERS reply maps} {
        cg_setup 1
        r xreadgroup GROUP g c STREAMS s >
        set c [redis_client]
        $c hello 3
        set g [stream_shape $c xinfo groups s]
        set cs [stream_shape $c xinfo consumers s g]
        $c close
        regsub {idle :\d+} $cs {idle :N} cs
        regsub {inactive :\d+} $cs {inactive :N} cs
        # 7.2 adds "inactive" (a map of 4), 7.0 has 3 fields.
        assert_match {\*1 %[34] name c pending :1 idle :N*} $cs
        set g
    } {*1 %6 name g consumers :1 pending :1 last-delivered-id 1-0 entries-read :1 lag :0}

    test {RESP3: XPENDING and XAUTOCLAIM reply arrays} {
        cg_setup 1
        r xreadgroup GROUP g c STREAMS s >
        set c [redis_client]
        $c hello 3
        set p [stream_shape $c xpending s g]
        set a [stream_shape $c xautoclaim s g c 0 0 JUSTID]
        set e [stream_shape $c xpending s g - + 0]
        $c close
        list $p $a $e
    } {{*4 :1 1-0 1-0 *1 *2 c 1} {*3 0-0 *1 1-0 *0} *0}

    test {RESP3: empty XPENDING summary} {
        cg_setup 1
        set c [redis_client]
        $c hello 3
        set p [stream_shape $c xpending s g]
        $c close
        set p
    } {*4 :0 _ _ _}
}
