# casq's priority delivery for consumer groups (issue 10, docs/priority.md):
#   XGROUP PRIORITY key group OFF | FAIR [WEIGHTS high normal]
#                                 | STRICT [MAXWAIT ms] [FIELD name]
#   XGROUP CREATE key group id PRIORITY ...
# casq only: redis-server has no priority. The heavy schedule tests (200k
# entries, concurrency, SIGKILL, take-over) are in
# tests/durability/test_priority.py.

# The values of field f of the entries of an XREADGROUP reply (one key).
proc prio_values {reply {f n}} {
    set out {}
    foreach e [lindex $reply 0 1] {
        foreach {k v} [lindex $e 1] {if {$k eq $f} {lappend out $v}}
    }
    return $out
}

# A dict of one group of XINFO GROUPS.
proc prio_group_info {key group} {
    foreach g [r xinfo groups $key] {
        if {[dict get $g name] eq $group} {return $g}
    }
    return {}
}

# The FAIR schedule of entries given as {name class ...} in ID order
# (class 0 high, 1 normal): the cycle has wh slots of high then wn of
# normal, an empty class's slots are skipped; pos: the first slot used.
proc prio_fair_model {entries {wh 2} {wn 1} {pos 0}} {
    set q(0) {}
    set q(1) {}
    foreach {n c} $entries {lappend q($c) $n}
    set out {}
    set total [expr {$wh + $wn}]
    while {[llength $q(0)] || [llength $q(1)]} {
        set c [expr {$pos < $wh ? 0 : 1}]
        if {![llength $q($c)]} {
            set c [expr {1 - $c}]
            set pos [expr {$c == 1 ? $wh : 0}]
        }
        lappend out [lindex $q($c) 0]
        set q($c) [lrange $q($c) 1 end]
        set pos [expr {($pos + 1) % $total}]
    }
    return $out
}

start_server {tags {"stream" "casq-only"}} {
    test {PRIORITY: syntax errors} {
        r del q
        r xadd q * f v
        r xgroup create q g 0
        set errs {}
        foreach args {
            {q g}
            {q g MAYBE}
            {q g FAIR WEIGHTS 2}
            {q g FAIR WEIGHTS 0 1}
            {q g FAIR WEIGHTS 2 x}
            {q g FAIR MAXWAIT 10}
            {q g STRICT WEIGHTS 2 1}
            {q g STRICT MAXWAIT -1}
            {q g STRICT FIELD}
            {q g FAIR FIELD ""}
            {q g OFF FIELD p}
        } {
            catch {r xgroup priority {*}$args} e
            lappend errs $e
        }
        set errs
    } {{ERR wrong number of arguments for 'xgroup|priority' command} {ERR PRIORITY must be followed by OFF, FAIR or STRICT} {ERR syntax error} {ERR WEIGHTS must be integers between 1 and 1000000} {ERR value is not an integer or out of range} {ERR syntax error} {ERR syntax error} {ERR MAXWAIT must be >= 0 (0: no starvation guard)} {ERR syntax error} {ERR FIELD name must not be empty} {ERR syntax error}}

    test {PRIORITY: missing key and missing group} {
        catch {r xgroup priority nokey g FAIR} e1
        catch {r xgroup priority q nog FAIR} e2
        list $e1 $e2
    } {{ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.} {NOGROUP No such consumer group 'nog' for key name 'q'}}

    test {PRIORITY: a plain group shows Redis's XINFO fields only} {
        lsort [dict keys [prio_group_info q g]]
    } {consumers entries-read lag last-delivered-id name pending}

    test {PRIORITY FAIR: XINFO GROUPS shows the settings and classes} {
        r xgroup priority q g FAIR
        set g [prio_group_info q g]
        list [dict get $g priority] [dict get $g priority-field] [dict get $g weights] \
             [dict get $g cycle-position] [dict get $g classes] [dict get $g lag]
    } {fair priority {2 1} 0 {{class high undelivered 0 pending 0} {class normal undelivered 1 pending 0}} 1}

    test {PRIORITY STRICT: XINFO GROUPS shows max-wait and the levels in use} {
        r xgroup priority q g STRICT MAXWAIT 500 FIELD prio
        set g [prio_group_info q g]
        list [dict get $g priority] [dict get $g priority-field] [dict get $g max-wait] [dict get $g classes]
    } {strict prio 500 {{class 4 undelivered 1 pending 0}}}

    test {PRIORITY OFF: back to a plain group} {
        r xgroup priority q g OFF
        lsort [dict keys [prio_group_info q g]]
    } {consumers entries-read lag last-delivered-id name pending}

    test {XGROUP CREATE ... PRIORITY, with MKSTREAM after the options} {
        r del q2
        r xgroup create q2 g $ PRIORITY FAIR WEIGHTS 3 1 FIELD p MKSTREAM
        set g [prio_group_info q2 g]
        list [r exists q2] [dict get $g weights] [dict get $g priority-field]
    } {1 {3 1} p}

    test {XGROUP CREATE ... PRIORITY errors} {
        catch {r xgroup create q2 g3 $ PRIORITY} e1
        catch {r xgroup create q2 g3 $ PRIORITY FAIR FOO} e2
        catch {r xgroup create q2 g $ PRIORITY STRICT} e3
        list $e1 $e2 $e3 [r exists q2]
    } {{ERR syntax error} {ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.} {BUSYGROUP Consumer Group name already exists} 1}

    test {FAIR: the 20-message case (10 high, 10 normal, pushed first)} {
        r del q
        for {set i 1} {$i <= 10} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 10} {incr i} {r xadd q * n n$i}
        r xgroup create q g 0 PRIORITY FAIR
        prio_values [r xreadgroup group g c count 20 streams q >]
    } {h1 h2 n1 h3 h4 n2 h5 h6 n3 h7 h8 n4 h9 h10 n5 n6 n7 n8 n9 n10}

    test {FAIR: the same sequence whatever COUNT and however many consumers} {
        r xgroup create q g1 0 PRIORITY FAIR
        set seq {}
        set k 0
        while {1} {
            set r [r xreadgroup group g1 c[expr {$k % 3}] count [expr {1 + $k % 4}] streams q >]
            if {$r eq {}} break
            lappend seq {*}[prio_values $r]
            incr k
        }
        set seq
    } {h1 h2 n1 h3 h4 n2 h5 h6 n3 h7 h8 n4 h9 h10 n5 n6 n7 n8 n9 n10}

    test {FAIR: priority values: >= 5 high, missing or not an integer = 4 (normal)} {
        r del q
        foreach {f v n} {priority 5 a priority 4 b x 1 c priority abc d priority 10 e priority -3 f priority 31 g} {
            r xadd q * $f $v n $n
        }
        r xgroup create q g 0 PRIORITY FAIR
        prio_values [r xreadgroup group g c streams q >]
    } {a e b g c d f}

    test {FAIR: WEIGHTS 1 3} {
        r del q
        for {set i 1} {$i <= 4} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 8} {incr i} {r xadd q * priority 0 n n$i}
        r xgroup create q g 0 PRIORITY FAIR WEIGHTS 1 3
        prio_values [r xreadgroup group g c streams q >]
    } {h1 n1 n2 n3 h2 n4 n5 n6 h3 n7 n8 h4}

    test {FAIR: FIELD names the priority field} {
        r del q
        r xadd q * level 9 priority 0 n a
        r xadd q * level 0 priority 9 n b
        r xgroup create q g 0 PRIORITY FAIR FIELD level WEIGHTS 1 1
        r xgroup create q g2 0 PRIORITY FAIR WEIGHTS 1 1
        list [prio_values [r xreadgroup group g c count 1 streams q >]] \
             [prio_values [r xreadgroup group g2 c count 1 streams q >]]
    } {a b}

    test {STRICT: highest level first, FIFO within a level} {
        r del q
        foreach {p n} {0 a 7 b 31 c 7 d 40 e 3 f x g} {r xadd q * priority $p n $n}
        r xgroup create q g 0 PRIORITY STRICT
        prio_values [r xreadgroup group g c streams q >]
    } {c e b d g f a}

    # The priority field is read in the entry's stored text (JSON): plain,
    # escaped and base64 spellings of names and values must all count.
    test {STRICT: priority values in any spelling: escapes, binary, leading zeros, later fields} {
        r del q
        r xadd q * n a priority 09
        r xadd q * n b priority 12
        r xadd q * n c priority "1\"2"
        r xadd q * n d "pri\"ority" 30 priority 3
        r xadd q * n e "\xff" 31 priority 5
        r xadd q * n f priority "\xff"
        r xadd q * n g priority 7 priority 31
        r xadd q * n h x "q\\" priority 20
        r xadd q * n i priority -0
        r xadd q * n j priority 0
        r xgroup create q g 0 PRIORITY STRICT
        r xgroup create q g2 0 PRIORITY STRICT FIELD "pri\"ority"
        list [prio_values [r xreadgroup group g c streams q >]] \
             [prio_values [r xreadgroup group g2 c count 2 streams q >]]
    } {{h b g e a c f i d j} {d a}}

    # The queues keep a sequence number in 32 bits when it fits.
    test {STRICT: entry IDs with sequence numbers of 32 bits and more} {
        r del q
        set mode [lindex [r config get stream-id-mode] 1]
        r config set stream-id-mode liberal
        r xadd q 5-4294967294 priority 1 n a
        r xadd q 5-4294967295 priority 2 n b
        r xadd q 5-4294967296 priority 1 n c
        r xadd q 5-18446744073709551614 priority 2 n d
        r xadd q 6-0 priority 1 n e
        r config set stream-id-mode $mode
        r xgroup create q g 0 PRIORITY STRICT
        set first [r xreadgroup group g c count 1 streams q >]
        list [lindex $first 0 1 0 0] [prio_values $first] [prio_values [r xreadgroup group g c streams q >]] \
             [dict get [prio_group_info q g] last-delivered-id]
    } {5-4294967295 b {d a c e} 6-0}

    test {STRICT: a new high entry overtakes older low ones} {
        r del q
        r xadd q * priority 1 n a
        r xadd q * priority 1 n b
        r xgroup create q g 0 PRIORITY STRICT
        set first [prio_values [r xreadgroup group g c count 1 streams q >]]
        r xadd q * priority 9 n c
        list $first [prio_values [r xreadgroup group g c streams q >]]
    } {a {c b}}

    test {STRICT MAXWAIT: an entry older than max-wait goes first} {
        r del q
        set old [expr {[clock milliseconds] - 10000}]
        r xadd q $old priority 0 n old
        r xadd q * priority 9 n new
        r xgroup create q g 0 PRIORITY STRICT MAXWAIT 5000
        r xgroup create q g2 0 PRIORITY STRICT
        list [prio_values [r xreadgroup group g c streams q >]] [prio_values [r xreadgroup group g2 c streams q >]]
    } {{old new} {new old}}

    test {XINFO: per-class undelivered and pending, exact lag and entries-read} {
        r del q
        for {set i 1} {$i <= 6} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 3} {incr i} {r xadd q * n n$i}
        r xgroup create q g 0 PRIORITY FAIR
        r xreadgroup group g c count 4 streams q >
        set g [prio_group_info q g]
        list [dict get $g classes] [dict get $g lag] [dict get $g entries-read] [dict get $g pending]
    } {{{class high undelivered 3 pending 3} {class normal undelivered 2 pending 1}} 5 4 4}

    test {XINFO STREAM FULL shows the priority fields of the group} {
        set g [lindex [dict get [r xinfo stream q full] groups] 0]
        list [dict get $g priority] [dict get $g weights] [dict get $g lag] [dict get $g classes]
    } {fair {2 1} 5 {{class high undelivered 3 pending 3} {class normal undelivered 2 pending 1}}}

    test {Deleted undelivered entries are skipped and leave the counts} {
        # Undelivered: h4 h5 h6 n2 n3, the cycle at its 2nd slot. Delete h5 and n2.
        set ids {}
        foreach e [r xrange q - +] {lappend ids [dict get [lindex $e 1] n] [lindex $e 0]}
        r xdel q [dict get $ids h5] [dict get $ids n2]
        set g [prio_group_info q g]
        list [dict get $g lag] [dict get $g classes] [prio_values [r xreadgroup group g c streams q >]]
    } {3 {{class high undelivered 2 pending 3} {class normal undelivered 1 pending 1}} {h4 n3 h6}}

    test {Trimmed undelivered entries are skipped} {
        r del q
        for {set i 1} {$i <= 5} {incr i} {r xadd q * n n$i}
        for {set i 1} {$i <= 5} {incr i} {r xadd q * priority 9 n h$i}
        r xgroup create q g 0 PRIORITY FAIR
        r xtrim q maxlen 3
        list [dict get [prio_group_info q g] lag] [prio_values [r xreadgroup group g c streams q >]]
    } {3 {h3 h4 h5}}

    # Delivery finds an entry where classification saw it in its node
    # (docs/priority.md): entries deleted from a node after that, and
    # nodes freed or appended to, must not make it reply another entry.
    test {FAIR: classes interleaved over many nodes, entries deleted, trimmed and appended between reads} {
        r del q
        set old [lindex [r config get stream-node-max-entries] 1]
        r config set stream-node-max-entries 16
        set model {}
        set ids {}
        for {set i 0} {$i < 300} {incr i} {
            set c [expr {($i * 7) % 5 < 2}]
            set id [r xadd q * priority [expr {$c ? 1 : 9}] n e$i]
            dict set ids e$i $id
            lappend model e$i $c
        }
        r xgroup create q g 0 PRIORITY FAIR
        # A few deliveries classify well ahead; then entries of the first
        # nodes go (some delivered: trimmed; others not: deleted), and of
        # nodes far ahead, and new ones arrive in the last node and after.
        set got [prio_values [r xreadgroup group g c count 5 streams q >]]
        r xtrim q minid [dict get $ids e3]
        set gone {e0 e1 e2 e20 e21 e40 e100 e101 e150 e299}
        foreach n [lrange $gone 3 end] {r xdel q [dict get $ids $n]}
        for {set i 300} {$i < 330} {incr i} {
            set c [expr {($i * 7) % 5 < 2}]
            r xadd q * priority [expr {$c ? 1 : 9}] n e$i
            lappend model e$i $c
        }
        lappend got {*}[prio_values [r xreadgroup group g c count 37 streams q >]]
        r xdel q [dict get $ids e200] [dict get $ids e201]
        lappend gone e200 e201
        while {1} {
            set r [r xreadgroup group g c count 50 streams q >]
            if {$r eq {}} break
            lappend got {*}[prio_values $r]
        }
        r config set stream-node-max-entries $old
        # The first five were delivered before anything went.
        set want [lrange [prio_fair_model $model] 0 4]
        set rest {}
        foreach {n c} $model {if {[lsearch -exact $gone $n] < 0 && [lsearch -exact $want $n] < 0} {lappend rest $n $c}}
        # The schedule goes on at the cycle's slot 5 % 3 = 2.
        lappend want {*}[prio_fair_model $rest 2 1 2]
        expr {$got eq $want ? "ok" : "got $got"}
    } {ok}

    test {STRICT: many levels interleaved, entries deleted between reads} {
        r del q
        set old [lindex [r config get stream-node-max-entries] 1]
        r config set stream-node-max-entries 16
        set ids {}
        for {set i 0} {$i < 200} {incr i} {
            dict set ids e$i [r xadd q * priority [expr {($i * 11) % 7}] n e$i]
        }
        r xgroup create q g 0 PRIORITY STRICT
        set got [prio_values [r xreadgroup group g c count 3 streams q >]]
        set gone {e6 e13 e20 e34 e1 e8 e100 e199}
        foreach n $gone {r xdel q [dict get $ids $n]}
        while {1} {
            set r [r xreadgroup group g c count 7 streams q >]
            if {$r eq {}} break
            lappend got {*}[prio_values $r]
        }
        r config set stream-node-max-entries $old
        set want {}
        for {set l 6} {$l >= 0} {incr l -1} {
            for {set i 0} {$i < 200} {incr i} {
                set n e$i
                if {($i * 11) % 7 == $l && ([lsearch -exact $gone $n] < 0 || [lsearch -exact [lrange $got 0 2] $n] >= 0)} {
                    lappend want $n
                }
            }
        }
        expr {$got eq $want ? "ok" : "got $got"}
    } {ok}

    test {NOACK delivers by the schedule without pending entries} {
        r del q
        for {set i 1} {$i <= 3} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 3} {incr i} {r xadd q * n n$i}
        r xgroup create q g 0 PRIORITY FAIR
        list [prio_values [r xreadgroup group g c noack streams q >]] [r xpending q g]
    } {{h1 h2 n1 h3 n2 n3} {0 {} {} {}}}

    test {XREADGROUP with an explicit ID reads the consumer's pending entries as usual} {
        r del q
        r xadd q * n a
        r xadd q * priority 9 n b
        r xgroup create q g 0 PRIORITY FAIR
        r xreadgroup group g c streams q >
        prio_values [r xreadgroup group g c streams q 0]
    } {a b}

    test {last-delivered-id is the greatest ID delivered} {
        set last [lindex [r xrevrange q + - count 1] 0 0]
        r xgroup create q g2 0 PRIORITY FAIR
        r xreadgroup group g2 c count 1 streams q >
        list [expr {[dict get [prio_group_info q g2] last-delivered-id] eq $last}] [dict get [prio_group_info q g2] lag]
    } {1 1}

    test {XGROUP SETID: every class restarts after the ID} {
        r del q
        for {set i 1} {$i <= 3} {incr i} {r xadd q * n n$i}
        set mid [r xadd q * priority 9 n h1]
        r xadd q * priority 9 n h2
        r xadd q * n n4
        r xgroup create q g 0 PRIORITY FAIR
        r xreadgroup group g c streams q >
        r xgroup setid q g $mid
        list [dict get [prio_group_info q g] lag] [prio_values [r xreadgroup group g c streams q >]]
    } {2 {h2 n4}}

    test {PRIORITY OFF: nothing undelivered is skipped} {
        r del q
        for {set i 1} {$i <= 3} {incr i} {r xadd q * n n$i}
        for {set i 1} {$i <= 3} {incr i} {r xadd q * priority 9 n h$i}
        r xgroup create q g 0 PRIORITY FAIR
        set first [prio_values [r xreadgroup group g c count 3 streams q >]]
        r xgroup priority q g OFF
        list $first [prio_values [r xreadgroup group g c streams q >]]
    } {{h1 h2 n1} {n2 n3 h1 h2 h3}}

    test {Changing WEIGHTS keeps the cursors and restarts the cycle} {
        r del q
        for {set i 1} {$i <= 6} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 6} {incr i} {r xadd q * n n$i}
        r xgroup create q g 0 PRIORITY FAIR
        set a [prio_values [r xreadgroup group g c count 4 streams q >]]
        r xgroup priority q g FAIR WEIGHTS 1 2
        list $a [prio_values [r xreadgroup group g c streams q >]]
    } {{h1 h2 n1 h3} {h4 n2 n3 h5 n4 n5 h6 n6}}

    test {Blocking XREADGROUP on a priority group wakes for a new entry} {
        r del q
        r xgroup create q g $ MKSTREAM PRIORITY FAIR
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams q >
        wait_for_blocked_client
        r xadd q * priority 7 n x
        set res [prio_values [$rd read]]
        $rd close
        set res
    } {x}

    test {Blocking XREADGROUP wakes for an entry below the last delivered ID (SETID back)} {
        r del q
        r xadd q * priority 9 n a
        r xgroup create q g $ PRIORITY FAIR
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams q >
        wait_for_blocked_client
        r xgroup setid q g 0
        set res [prio_values [$rd read]]
        $rd close
        set res
    } {a}

    test {XSETID moving the stream's last ID back: new entries are still delivered} {
        r del q
        r xadd q 5 priority 9 n a
        r xadd q 50 n b
        r xgroup create q g 0 PRIORITY FAIR
        set first [prio_values [r xreadgroup group g c streams q >]]
        r xtrim q maxlen 0
        r xsetid q 10
        r xadd q 20 priority 9 n c
        list $first [prio_values [r xreadgroup group g c streams q >]] [dict get [prio_group_info q g] lag]
    } {{a b} c 0}

    # Redis 8 options on a priority group (tcl-tests/unit/type/stream-redis8.tcl)
    test {XREADGROUP CLAIM on a priority group: idle pending first, then new entries by the schedule} {
        r del q
        for {set i 1} {$i <= 3} {incr i} {r xadd q * n n$i}
        for {set i 1} {$i <= 3} {incr i} {r xadd q * priority 9 n h$i}
        r xgroup create q g 0 PRIORITY FAIR
        r xreadgroup group g alice count 1 streams q >
        after 30
        set rep [r xreadgroup group g bob count 4 claim 20 streams q >]
        set res {}
        foreach e [lindex $rep 0 1] {
            lappend res [list [dict get [lindex $e 1] n] [expr {[lindex $e 2] >= 20}] [lindex $e 3]]
        }
        list $res [prio_values [r xreadgroup group g bob streams q >]] [dict get [prio_group_info q g] lag]
    } {{{h1 1 1} {h2 0 0} {n1 0 0} {h3 0 0}} {n2 n3} 0}

    test {MAXCOUNT and MAXSIZE bound a priority group's delivery; the rest follows in order} {
        r del q
        for {set i 1} {$i <= 4} {incr i} {r xadd q * n n$i}
        for {set i 1} {$i <= 4} {incr i} {r xadd q * priority 9 n h$i}
        r xgroup create q g 0 PRIORITY FAIR
        set a [prio_values [r xreadgroup group g c maxcount 2 streams q >]]
        set b [prio_values [r xreadgroup group g c maxsize 1 streams q >]]
        set rest [prio_values [r xreadgroup group g c streams q >]]
        list $a $b $rest
    } {{h1 h2} n1 {h3 h4 n2 n3 n4}}

    test {XTRIM ... ACKED and XDELEX ACKED keep what a priority group has not delivered} {
        r del q
        set n1 [r xadd q * n n1]
        set h1 [r xadd q * priority 9 n h1]
        r xgroup create q g 0 PRIORITY FAIR
        # h1 delivered and acknowledged, n1 (below it) not delivered yet.
        r xreadgroup group g c count 1 streams q >
        r xack q g $h1
        set del [r xdelex q ACKED IDS 2 $n1 $h1]
        r xadd q * n n2
        r xtrim q maxlen 0 ACKED
        list $del [prio_values [r xreadgroup group g c streams q >]]
    } {{2 1} {n1 n2}}

    test {COPY keeps the priority settings and the schedule's position} {
        r del q q3
        for {set i 1} {$i <= 4} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 4} {incr i} {r xadd q * n n$i}
        r xgroup create q g 0 PRIORITY FAIR
        r xreadgroup group g c count 4 streams q >
        r copy q q3
        list [prio_values [r xreadgroup group g c streams q3 >]] [dict get [prio_group_info q3 g] weights]
    } {{h4 n2 n3 n4} {2 1}}

    test {COMMAND DOCS describe XGROUP PRIORITY} {
        set d [lindex [r command docs xgroup|priority] 1]
        list [dict get $d group] [llength [dict get $d arguments]]
    } {stream 3}
}

start_server {tags {"stream" "casq-only" "needs:persistence"}} {
    test {The schedule continues exactly after a restart} {
        r del q
        for {set i 1} {$i <= 10} {incr i} {r xadd q * priority 9 n h$i}
        for {set i 1} {$i <= 10} {incr i} {r xadd q * n n$i}
        r xgroup create q g 0 PRIORITY FAIR
        set a [prio_values [r xreadgroup group g c count 4 streams q >]]
        restart_server 0 kill
        set b [prio_values [r xreadgroup group g c streams q >]]
        concat $a $b
    } {h1 h2 n1 h3 h4 n2 h5 h6 n3 h7 h8 n4 h9 h10 n5 n6 n7 n8 n9 n10}

    test {Settings survive a restart} {
        r xgroup create q s 0 PRIORITY STRICT MAXWAIT 250 FIELD lvl
        restart_server 0 term
        set g [prio_group_info q s]
        list [dict get $g priority] [dict get $g max-wait] [dict get $g priority-field] [dict get $g lag]
    } {strict 250 lvl 20}
}
