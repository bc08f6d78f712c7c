# The stream commands and options Redis 8 added (issue 11):
#   8.2  XDELEX, XACKDEL, KEEPREF | DELREF | ACKED of XADD and XTRIM
#   8.4  XREADGROUP ... CLAIM min-idle-time
#   8.6  XADD ... IDMP producer-id idempotent-id | IDMPAUTO producer-id,
#        XCFGSET, XINFO STREAM's idmp-* / pids-* / iids-* fields
#   8.8  XNACK key group SILENT|FAIL|FATAL IDS n id ... [RETRYCOUNT c]
#   8.10 MAXCOUNT and MAXSIZE of XREAD and XREADGROUP
#
# There is no Redis 8 server on these machines (the redis-server the suite
# runs against is 7.2), so these tests are casq-only; each one names the
# redis.io page (https://redis.io/docs/latest/commands/<name>/) whose
# description and examples it follows.
#
# casq runs with stream-id-mode liberal so explicit IDs behave as in Redis.

source [file join [file dirname [info script]] .. .. support stream_util.tcl]

# A stream s with entries 1-0..n-0 (field i) and a group g at 0.
proc r8_setup {{n 5} {key s} {group g}} {
    r del $key
    stream_fill $key 1 $n
    r xgroup create $key $group 0
}

# {id consumer deliveries} of every entry in the group's PEL.
proc r8_pel {key group} {
    set res {}
    foreach e [r xpending $key $group - + 1000] {
        lassign $e id consumer idle count
        lappend res [list $id $consumer $count]
    }
    return $res
}

# The IDs of an XRANGE reply.
proc r8_ids {reply} {
    set res {}
    foreach e $reply {lappend res [lindex $e 0]}
    return $res
}

# The entries of the only stream of an XREADGROUP reply.
proc r8_entries {reply} { lindex $reply 0 1 }

# Makes pending entries of group g look idle: r8_age key id ms ?id ms ...?
# (XCLAIM IDLE ... JUSTID: same owner, delivery count unchanged).
proc r8_age {key args} {
    foreach {id ms} $args {
        set owner [lindex [r xpending $key g $id $id 1] 0 1]
        r xclaim $key g $owner 0 $id IDLE $ms JUSTID
    }
}

# The same delivery time, ms ago, for several pending entries of group g.
proc r8_age_tie {key ms args} {
    lassign [r time] sec usec
    set t [expr {$sec * 1000 + $usec / 1000 - $ms}]
    foreach id $args {
        set owner [lindex [r xpending $key g $id $id 1] 0 1]
        r xclaim $key g $owner 0 $id TIME $t JUSTID
    }
}

# {id idle count} of each entry of an XREADGROUP CLAIM reply; the idle
# time rounded down to the age given (10 s steps), 0 for a new entry.
proc r8_claimed {reply} {
    set res {}
    foreach e [r8_entries $reply] {
        lassign $e id fields idle count
        lappend res [list $id [expr {$idle / 10000 * 10000}] $count]
    }
    return $res
}

start_server {tags {"stream" "casq-only"} casq_overrides {stream-id-mode liberal}} {

    # --------------------------------------------------------------------
    # XDELEX (redis.io: xdelex)
    # --------------------------------------------------------------------

    test {XDELEX: KEEPREF (the default) deletes and leaves the PEL (xdelex)} {
        r8_setup 3
        r xreadgroup GROUP g c COUNT 2 STREAMS s >
        set a [r xdelex s IDS 2 1-0 9-0]
        set b [r xdelex s KEEPREF IDS 1 2-0]
        list $a $b [r8_ids [r xrange s - +]] [r8_pel s g]
    } {{1 -1} 1 3-0 {{1-0 c 1} {2-0 c 1}}}

    test {XDELEX: DELREF deletes and drops every group's pending entries (xdelex)} {
        r8_setup 3
        r xgroup create s g2 0
        r xreadgroup GROUP g c COUNT 2 STREAMS s >
        r xreadgroup GROUP g2 d COUNT 1 STREAMS s >
        set a [r xdelex s DELREF IDS 1 1-0]
        list $a [r8_pel s g] [r8_pel s g2] [r xlen s]
    } {1 {{2-0 c 1}} {} 2}

    test {XDELEX: DELREF drops dangling references of an entry already gone (xdelex)} {
        r8_setup 2
        r xreadgroup GROUP g c STREAMS s >
        r xdel s 1-0
        set a [r xdelex s DELREF IDS 1 1-0]
        list $a [r8_pel s g]
    } {-1 {{2-0 c 1}}}

    test {XDELEX: ACKED deletes only what no group needs, as the page's example (xdelex)} {
        r del s4
        r xadd s4 1-0 a 1
        r xgroup create s4 grp 0
        r xreadgroup GROUP grp cons1 COUNT 10 STREAMS s4 >
        set a [r xdelex s4 ACKED IDS 1 1-0]
        set l1 [r xlen s4]
        r xack s4 grp 1-0
        set b [r xdelex s4 ACKED IDS 1 1-0]
        list $a $l1 $b [r xlen s4]
    } {2 1 1 0}

    test {XDELEX: ACKED keeps entries a group has not read yet (xdelex)} {
        r8_setup 3
        r xgroup create s late 0
        r xreadgroup GROUP g c STREAMS s >
        r xack s g 1-0 2-0 3-0
        set a [r xdelex s ACKED IDS 3 1-0 2-0 3-0]
        r xreadgroup GROUP late c COUNT 2 STREAMS s >
        r xack s late 1-0 2-0
        set b [r xdelex s ACKED IDS 3 1-0 2-0 3-0]
        list $a $b [r8_ids [r xrange s - +]]
    } {{2 2 2} {1 1 2} 3-0}

    test {XDELEX: a missing key gives -1 per ID (xdelex)} {
        r del nokey
        r xdelex nokey ACKED IDS 3 1-0 2-0 3-0
    } {-1 -1 -1}

    test {XDELEX: the IDS block may come first, a policy after it (xdelex)} {
        r8_setup 2
        r xdelex s IDS 1 1-0 DELREF
    } {1}

    test {XDELEX: errors (xdelex)} {
        r8_setup 2
        set res {}
        foreach args {{IDS 0 1-0} {IDS -1 1-0} {IDS x 1-0} {IDS 3 1-0 2-0} {FOO IDS 1 1-0}
                      {ACKED DELREF IDS 1 1-0} {IDS 1 bad} {KEEPREF KEEPREF IDS 1 1-0}} {
            catch {r xdelex s {*}$args} e
            lappend res $e
        }
        catch {r xdelex s IDS 1} e
        lappend res $e
        r set str x
        catch {r xdelex str IDS 1 1-0} e
        lappend res $e
        set res
    } [list {ERR Number of IDs must be a positive integer} {ERR Number of IDs must be a positive integer} \
           {ERR Number of IDs must be a positive integer} \
           {ERR The `numids` parameter must match the number of arguments} {ERR syntax error} \
           {ERR syntax error} {ERR Invalid stream ID specified as stream command argument} {ERR syntax error} \
           {ERR wrong number of arguments for 'xdelex' command} \
           {WRONGTYPE Operation against a key holding the wrong kind of value}]

    test {XDELEX: deleting the first entry moves recorded-first-entry-id (xdelex)} {
        r8_setup 3
        r xdelex s IDS 1 1-0
        list [stream_field [r xinfo stream s] recorded-first-entry-id] \
             [stream_field [r xinfo stream s] max-deleted-entry-id]
    } {2-0 1-0}

    # --------------------------------------------------------------------
    # XACKDEL (redis.io: xackdel)
    # --------------------------------------------------------------------

    test {XACKDEL: KEEPREF acknowledges, deletes, keeps other groups' PELs (xackdel)} {
        r8_setup 3
        r xgroup create s g2 0
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g2 d STREAMS s >
        set a [r xackdel s g IDS 2 1-0 2-0]
        list $a [r8_pel s g] [r8_pel s g2] [r8_ids [r xrange s - +]]
    } {{1 1} {{3-0 c 1}} {{1-0 d 1} {2-0 d 1} {3-0 d 1}} 3-0}

    test {XACKDEL: DELREF cleans every group's references (xackdel)} {
        r8_setup 2
        r xgroup create s g2 0
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g2 d STREAMS s >
        set a [r xackdel s g DELREF IDS 1 1-0]
        list $a [r8_pel s g] [r8_pel s g2] [r xlen s]
    } {1 {{2-0 c 1}} {{2-0 d 1}} 1}

    test {XACKDEL: ACKED deletes once the last group acknowledges (xackdel)} {
        r8_setup 1
        r xgroup create s g2 0
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g2 d STREAMS s >
        set a [r xackdel s g ACKED IDS 1 1-0]
        set l1 [r xlen s]
        set b [r xackdel s g2 ACKED IDS 1 1-0]
        list $a $l1 $b [r xlen s] [r8_pel s g] [r8_pel s g2]
    } {2 1 1 0 {} {}}

    test {XACKDEL: an ID not pending in the group gives -1 and is not deleted (xackdel)} {
        r8_setup 2
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        list [r xackdel s g IDS 3 1-0 2-0 1-0] [r8_ids [r xrange s - +]]
    } {{1 -1 -1} 2-0}

    test {XACKDEL: a missing key or group gives -1 per ID (xackdel)} {
        r8_setup 1
        r del nokey
        list [r xackdel nokey g IDS 2 1-0 2-0] [r xackdel s nogroup IDS 1 1-0]
    } {{-1 -1} -1}

    test {XACKDEL: errors (xackdel)} {
        r8_setup 1
        set res {}
        catch {r xackdel s g IDS 0 1-0} e; lappend res $e
        catch {r xackdel s g IDS 2 1-0} e; lappend res $e
        catch {r xackdel s g BAD IDS 1 1-0} e; lappend res $e
        catch {r xackdel s g IDS 1} e; lappend res $e
        set res
    } {{ERR Number of IDs must be a positive integer} {ERR The `numids` parameter must match the number of arguments} {ERR syntax error} {ERR wrong number of arguments for 'xackdel' command}}

    # --------------------------------------------------------------------
    # KEEPREF | DELREF | ACKED of XADD and XTRIM (redis.io: xadd, xtrim)
    # --------------------------------------------------------------------

    test {XADD MAXLEN ACKED keeps unacknowledged entries, as Redis's own test (xadd)} {
        r del s
        foreach id {1-0 2-0 3-0 4-0 5-0} {r xadd s $id f v}
        r xgroup create s g 0
        r xadd s MAXLEN = 1 ACKED 6-0 f v
        set a [r xlen s]
        set rec [r xreadgroup GROUP g c COUNT 1 STREAMS s >]
        r xack s g [lindex [r8_entries $rec] 0 0]
        r xadd s MAXLEN = 1 ACKED 7-0 f v
        set b [r xlen s]
        set rec [r xreadgroup GROUP g c STREAMS s >]
        foreach e [r8_entries $rec] {r xack s g [lindex $e 0]}
        r xadd s MAXLEN = 1 ACKED * f v
        list $a $b [r xlen s]
    } {6 6 1}

    test {XADD MAXLEN DELREF trims and cleans the PEL (xadd)} {
        r del s
        foreach id {1-0 2-0 3-0 4-0 5-0} {r xadd s $id f v}
        r xgroup create s g 0
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        r xadd s MAXLEN = 1 DELREF * f v
        list [r xlen s] [lindex [r xpending s g] 0]
    } {1 0}

    test {XADD MAXLEN KEEPREF is the default trimming (xadd)} {
        r del s
        foreach id {1-0 2-0 3-0} {r xadd s $id f v}
        r xgroup create s g 0
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        r xadd s MAXLEN = 1 KEEPREF 4-0 f v
        list [r xlen s] [r8_pel s g]
    } {1 {{1-0 c 1}}}

    test {XTRIM ACKED with several groups: only what every group acknowledged goes (xtrim)} {
        r8_setup 6
        r xgroup create s g2 0
        r xreadgroup GROUP g c STREAMS s >
        r xack s g 1-0 2-0 3-0 4-0
        r xreadgroup GROUP g2 d COUNT 3 STREAMS s >
        r xack s g2 1-0 3-0
        # 2-0 pending in g2; 4-0.. not read by g2 yet.
        set n [r xtrim s MAXLEN = 0 ACKED]
        list $n [r8_ids [r xrange s - +]] [stream_field [r xinfo stream s] recorded-first-entry-id] \
             [stream_field [r xinfo stream s] max-deleted-entry-id]
    } {2 {2-0 4-0 5-0 6-0} 2-0 3-0}

    test {XTRIM MINID ACKED and LIMIT (xtrim)} {
        r8_setup 6
        r xreadgroup GROUP g c STREAMS s >
        r xack s g 1-0 2-0 3-0 4-0 5-0 6-0
        set a [r xtrim s MINID ~ 5-0 LIMIT 2 ACKED]
        set b [r xtrim s MINID 5-0 ACKED]
        list $a $b [r8_ids [r xrange s - +]]
    } {2 2 {5-0 6-0}}

    test {XTRIM DELREF (xtrim)} {
        r8_setup 4
        r xgroup create s g2 0
        r xreadgroup GROUP g c STREAMS s >
        r xreadgroup GROUP g2 d COUNT 1 STREAMS s >
        set n [r xtrim s MAXLEN 2 DELREF]
        list $n [r8_pel s g] [r8_pel s g2]
    } {2 {{3-0 c 1} {4-0 c 1}} {}}

    test {XTRIM ACKED without groups trims as usual (xtrim)} {
        r del s
        stream_fill s 1 5
        list [r xtrim s MAXLEN 2 ACKED] [r xlen s]
    } {3 2}

    # --------------------------------------------------------------------
    # XREADGROUP ... CLAIM (redis.io: xreadgroup, "The CLAIM option")
    # --------------------------------------------------------------------

    test {XREADGROUP CLAIM: idle pending entries come first, then new ones, with metadata (xreadgroup)} {
        r8_setup 4
        r xreadgroup GROUP g alice COUNT 2 STREAMS s >
        after 30
        set rep [r xreadgroup GROUP g bob COUNT 3 CLAIM 20 STREAMS s >]
        set res {}
        foreach e [r8_entries $rep] {
            lassign $e id fields idle count
            lappend res [list $id $fields [expr {$idle >= 20}] $count]
        }
        list $res [r8_pel s g]
    } {{{1-0 {i 1} 1 1} {2-0 {i 2} 1 1} {3-0 {i 3} 0 0}} {{1-0 bob 2} {2-0 bob 2} {3-0 bob 1}}}

    test {XREADGROUP CLAIM: entries not idle enough stay where they are (xreadgroup)} {
        r8_setup 2
        r xreadgroup GROUP g alice COUNT 1 STREAMS s >
        set rep [r xreadgroup GROUP g bob CLAIM 100000 STREAMS s >]
        list $rep [r8_pel s g]
    } {{{s {{2-0 {i 2} 0 0}}}} {{1-0 alice 1} {2-0 bob 1}}}

    test {XREADGROUP CLAIM 0 with nothing new claims everything pending (xreadgroup)} {
        r8_setup 2
        r xreadgroup GROUP g alice STREAMS s >
        set rep [r xreadgroup GROUP g bob CLAIM 0 STREAMS s >]
        set ids {}
        foreach e [r8_entries $rep] {lappend ids [lindex $e 0] [lindex $e 3]}
        set ids
    } {1-0 1 2-0 1}

    test {XREADGROUP CLAIM: nothing idle, nothing new: nil (xreadgroup)} {
        r8_setup 1
        r xreadgroup GROUP g alice STREAMS s >
        r xreadgroup GROUP g bob CLAIM 100000 STREAMS s >
    } {}

    # casq: a CLAIM that finds nothing idle enough remembers the oldest
    # delivery time and skips the PEL until something can be idle; every
    # way of making an entry older must still be seen.
    test {XREADGROUP CLAIM: after a read that found nothing idle, entries aged by XCLAIM IDLE or TIME are claimed (xreadgroup)} {
        r8_setup 3
        r xreadgroup GROUP g alice STREAMS s >
        set a [r xreadgroup GROUP g bob CLAIM 100000 STREAMS s >]
        r8_age s 2-0 200000
        set b [r8_claimed [r xreadgroup GROUP g bob CLAIM 100000 STREAMS s >]]
        set c [r xreadgroup GROUP g bob CLAIM 100000 STREAMS s >]
        r8_age_tie s 300000 3-0
        set d [r8_claimed [r xreadgroup GROUP g carol CLAIM 100000 STREAMS s >]]
        r xack s g 1-0
        set e [r xreadgroup GROUP g dave CLAIM 100000 STREAMS s >]
        list $a $b $c $d $e [r8_pel s g]
    } {{} {{2-0 200000 1}} {} {{3-0 300000 1}} {} {{2-0 bob 2} {3-0 carol 2}}}

    test {XREADGROUP CLAIM: NOACK does not apply to claimed entries (xreadgroup)} {
        r8_setup 2
        r xreadgroup GROUP g alice COUNT 1 STREAMS s >
        r xreadgroup GROUP g bob NOACK CLAIM 0 STREAMS s >
        r8_pel s g
    } {{1-0 bob 2}}

    test {XREADGROUP CLAIM: history reads (explicit ID) are unchanged (xreadgroup)} {
        r8_setup 2
        r xreadgroup GROUP g alice STREAMS s >
        r xreadgroup GROUP g alice CLAIM 0 STREAMS s 0
    } {{s {{1-0 {i 1}} {2-0 {i 2}}}}}

    test {XREADGROUP CLAIM: RESP3 replies the metadata as integers (xreadgroup)} {
        r8_setup 1
        set c [redis_client]
        $c hello 3
        set a [stream_shape $c xreadgroup GROUP g c CLAIM 0 STREAMS s >]
        $c close
        set a
    } {%1 s *1 *4 1-0 *2 i 1 :0 :0}

    test {XREADGROUP CLAIM: errors (xreadgroup)} {
        r8_setup 1
        set res {}
        catch {r xreadgroup GROUP g c CLAIM -1 STREAMS s >} e; lappend res $e
        catch {r xreadgroup GROUP g c CLAIM x STREAMS s >} e; lappend res $e
        catch {r xread CLAIM 10 STREAMS s 0} e; lappend res $e
        set res
    } {{ERR min-idle-time must be a positive integer} {ERR min-idle-time is not an integer} {ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead.}}

    test {XREADGROUP CLAIM: what is not an integer, as Redis's own tests (xreadgroup)} {
        r8_setup 1
        set res {}
        foreach v {5.5 +10 -0 10e -5.5 COUNT} {
            catch {r xreadgroup GROUP g c CLAIM $v STREAMS s >} e; lappend res $e
        }
        catch {r xreadgroup GROUP g c CLAIM -42 STREAMS s >} e; lappend res $e
        lsort -unique $res
    } {{ERR min-idle-time is not an integer} {ERR min-idle-time must be a positive integer}}

    test {XREADGROUP CLAIM: the reply counts the deliveries before this one, XPENDING after it (xreadgroup)} {
        r8_setup 1
        r xreadgroup GROUP g alice STREAMS s >
        set a [lindex [r8_entries [r xreadgroup GROUP g bob CLAIM 0 STREAMS s >]] 0 3]
        set b [lindex [r8_entries [r xreadgroup GROUP g carol CLAIM 0 STREAMS s >]] 0 3]
        list $a $b [r8_pel s g]
    } {1 2 {{1-0 carol 3}}}

    test {XREADGROUP CLAIM with a blocking read: served by a new entry, with metadata (xreadgroup)} {
        r8_setup 1
        r xreadgroup GROUP g alice STREAMS s >
        set rd [redis_deferring_client]
        $rd xreadgroup GROUP g bob BLOCK 5000 CLAIM 100000 STREAMS s >
        wait_for_blocked_client
        r xadd s 9-0 f v
        set rep [$rd read]
        $rd close
        list $rep [r8_pel s g]
    } {{{s {{9-0 {f v} 0 0}}}} {{1-0 alice 1} {9-0 bob 1}}}

    test {XREADGROUP CLAIM with BLOCK: an idle pending entry is served at once (xreadgroup)} {
        r8_setup 1
        r xreadgroup GROUP g alice STREAMS s >
        after 20
        set rep [r xreadgroup GROUP g bob BLOCK 5000 CLAIM 10 STREAMS s >]
        list [lindex [r8_entries $rep] 0 0] [lindex [r8_entries $rep] 0 3]
    } {1-0 1}

    # Ordering guarantees: "Idle pending entries are ordered by idle time
    # (longer first)"; equal idle times in ID order (Redis walks its PEL
    # indexed by delivery time, then ID). XCLAIM ... IDLE / TIME ... JUSTID
    # set the delivery times without counting a delivery.

    test {XREADGROUP CLAIM: longest idle first, equal idle times in ID order, then new entries (xreadgroup)} {
        r8_setup 6
        r xreadgroup GROUP g alice STREAMS s >
        r8_age s 2-0 50000 5-0 90000 1-0 20000
        r8_age_tie s 70000 6-0 3-0
        r xadd s 7-0 i 7
        r8_claimed [r xreadgroup GROUP g bob COUNT 10 CLAIM 10000 STREAMS s >]
    } {{5-0 90000 1} {3-0 70000 1} {6-0 70000 1} {2-0 50000 1} {1-0 20000 1} {7-0 0 0}}

    test {XREADGROUP CLAIM: COUNT smaller than the idle set takes the longest idle ones (xreadgroup)} {
        r8_setup 6
        r xreadgroup GROUP g alice STREAMS s >
        r8_age s 2-0 50000 5-0 90000 1-0 20000
        r8_age_tie s 70000 6-0 3-0
        r xadd s 7-0 i 7
        set a [r8_claimed [r xreadgroup GROUP g bob COUNT 2 CLAIM 10000 STREAMS s >]]
        set b [r8_claimed [r xreadgroup GROUP g carol COUNT 2 CLAIM 10000 STREAMS s >]]
        set c [r8_claimed [r xreadgroup GROUP g dave COUNT 3 CLAIM 10000 STREAMS s >]]
        list $a $b $c [r8_pel s g]
    } {{{5-0 90000 1} {3-0 70000 1}} {{6-0 70000 1} {2-0 50000 1}} {{1-0 20000 1} {7-0 0 0}} {{1-0 dave 2} {2-0 carol 2} {3-0 bob 2} {4-0 alice 1} {5-0 bob 2} {6-0 carol 2} {7-0 dave 1}}}

    test {XREADGROUP CLAIM: the NACK zone first, in release order, then longest idle first (xreadgroup, xnack)} {
        r8_setup 5
        r xreadgroup GROUP g alice STREAMS s >
        r8_age s 2-0 50000 4-0 90000
        r xnack s g FAIL IDS 1 5-0
        r xnack s g FAIL IDS 1 1-0
        set a [r8_claimed [r xreadgroup GROUP g bob COUNT 3 CLAIM 10000 STREAMS s >]]
        set b [r8_claimed [r xreadgroup GROUP g bob CLAIM 10000 STREAMS s >]]
        list [lmap e $a {lindex $e 0}] [lmap e $b {lindex $e 0}]
    } {{5-0 1-0 4-0} 2-0}

    test {XREADGROUP CLAIM: deleted entries are dropped and do not take a COUNT place (xreadgroup)} {
        r8_setup 4
        r xreadgroup GROUP g alice STREAMS s >
        r8_age s 2-0 90000 4-0 80000 1-0 70000 3-0 60000
        r xdel s 2-0 4-0
        set a [r8_claimed [r xreadgroup GROUP g bob COUNT 2 CLAIM 10000 STREAMS s >]]
        list $a [r8_pel s g]
    } {{{1-0 70000 1} {3-0 60000 1}} {{1-0 bob 2} {3-0 bob 2}}}

    # --------------------------------------------------------------------
    # MAXCOUNT of XREAD / XREADGROUP (redis.io: xread, xreadgroup)
    # --------------------------------------------------------------------

    test {XREAD MAXCOUNT limits the entries in total across the streams (xread)} {
        r del a b c
        stream_fill a 1 3
        stream_fill b 1 3
        stream_fill c 1 3
        set r1 [r xread MAXCOUNT 4 STREAMS a b c 0 0 0]
        set r2 [r xread COUNT 1 MAXCOUNT 2 STREAMS a b c 0 0 0]
        # The page's example: COUNT 2 MAXCOUNT 3 gives 2 from the first, 1 from the second.
        set r3 [r xread COUNT 2 MAXCOUNT 3 STREAMS a b c 0 0 0]
        list $r1 $r2 [llength $r3] [llength [lindex $r3 0 1]] [llength [lindex $r3 1 1]]
    } {{{a {{1-0 {i 1}} {2-0 {i 2}} {3-0 {i 3}}}} {b {{1-0 {i 1}}}}} {{a {{1-0 {i 1}}}} {b {{1-0 {i 1}}}}} 2 2 1}

    test {XREAD MAXSIZE: a soft byte cap, at least one entry (xread)} {
        r del a b
        r xadd a 1-0 f [string repeat x 100]
        r xadd a 2-0 f [string repeat x 100]
        r xadd b 1-0 f [string repeat x 100]
        set one [r xread MAXSIZE 1 STREAMS a b 0 0]
        set two [r xread MAXSIZE 150 STREAMS a b 0 0]
        set all [r xread MAXSIZE 100000 STREAMS a b 0 0]
        r del e
        set empty [r xread MAXSIZE 1 STREAMS e 0]
        list [llength [lindex $one 0 1]] [llength $one] [llength [lindex $two 0 1]] [llength $all] $empty
    } {1 1 2 2 {}}

    test {XREADGROUP MAXSIZE: only the entries replied become pending (xreadgroup)} {
        r8_setup 3
        r xreadgroup GROUP g c MAXSIZE 1 STREAMS s >
        r8_pel s g
    } {{1-0 c 1}}

    test {MAXCOUNT / MAXSIZE errors (xread)} {
        set res {}
        foreach args {{MAXCOUNT 0} {MAXCOUNT -1} {MAXCOUNT x} {MAXSIZE 0} {MAXSIZE x} {COUNT 5 MAXCOUNT 2}} {
            catch {r xread {*}$args STREAMS s 0} e
            lappend res $e
        }
        set res
    } {{ERR MAXCOUNT must be a positive integer} {ERR MAXCOUNT must be a positive integer} {ERR MAXCOUNT must be a positive integer} {ERR MAXSIZE must be a positive integer} {ERR MAXSIZE must be a positive integer} {ERR MAXCOUNT must be greater than or equal to COUNT}}

    test {XREADGROUP MAXCOUNT: only the entries replied are delivered (xreadgroup)} {
        r del a b
        stream_fill a 1 2
        stream_fill b 1 2
        r xgroup create a g 0
        r xgroup create b g 0
        set rep [r xreadgroup GROUP g c MAXCOUNT 3 STREAMS a b > >]
        list $rep [r8_pel a g] [r8_pel b g]
    } {{{a {{1-0 {i 1}} {2-0 {i 2}}}} {b {{1-0 {i 1}}}}} {{1-0 c 1} {2-0 c 1}} {{1-0 c 1}}}

    test {XREADGROUP MAXCOUNT with CLAIM counts the claimed entries (xreadgroup)} {
        r8_setup 3
        r xreadgroup GROUP g alice COUNT 1 STREAMS s >
        set rep [r xreadgroup GROUP g bob MAXCOUNT 2 CLAIM 0 STREAMS s >]
        set ids {}
        foreach e [r8_entries $rep] {lappend ids [lindex $e 0]}
        set ids
    } {1-0 2-0}

    # --------------------------------------------------------------------
    # XNACK (redis.io: xnack)
    # --------------------------------------------------------------------

    test {XNACK: the redis.io example -- released entries have no consumer and idle -1 (xnack)} {
        r8_setup 2
        r xreadgroup GROUP g consumer1 STREAMS s >
        set n [r xnack s g FAIL IDS 2 1-0 2-0]
        list $n [r xpending s g - + 10]
    } {2 {{1-0 {} -1 1} {2-0 {} -1 1}}}

    test {XNACK: SILENT, FAIL, FATAL adjust the delivery count; unknown IDs are skipped (xnack)} {
        r8_setup 3
        r xreadgroup GROUP g c STREAMS s >
        r xclaim s g c 0 1-0 2-0 3-0
        set a [r xnack s g SILENT IDS 1 1-0]
        set b [r xnack s g FAIL IDS 1 2-0]
        set d [r xnack s g FATAL IDS 2 3-0 9-0]
        list $a $b $d [r8_pel s g]
    } {1 1 1 {{1-0 {} 1} {2-0 {} 2} {3-0 {} 9223372036854775807}}}

    test {XNACK: RETRYCOUNT sets the count whatever the mode (xnack)} {
        r8_setup 1
        r xreadgroup GROUP g c STREAMS s >
        r xnack s g FATAL IDS 1 1-0 RETRYCOUNT 7
        r8_pel s g
    } {{1-0 {} 7}}

    test {XNACK: the entry leaves its consumer (XPENDING summary and filter, XINFO, history) (xnack)} {
        r8_setup 3
        r xreadgroup GROUP g alice STREAMS s >
        r xnack s g FAIL IDS 1 2-0
        set sum [r xpending s g]
        set alice [r xpending s g - + 10 alice]
        set cons {}
        foreach c [r xinfo consumers s g] {lappend cons [dict get $c name] [dict get $c pending]}
        set hist [r8_ids [r8_entries [r xreadgroup GROUP g alice STREAMS s 0]]]
        set full [lindex [dict get [lindex [dict get [r xinfo stream s FULL] groups] 0] pending] 1]
        list $sum [llength $alice] $cons $hist [lrange $full 0 2] [dict get [lindex [r xinfo groups s] 0] pending]
    } {{3 1-0 3-0 {{alice 2}}} 2 {alice 2} {1-0 3-0} {2-0 {} 0} 3}

    test {XNACK FORCE: creates unowned pending entries for existing entries only (xnack)} {
        r8_setup 4
        set a [r xnack s g FAIL IDS 3 1-0 2-0 9-0 FORCE]
        set b [r xnack s g FATAL IDS 1 3-0 FORCE]
        set d [r xnack s g SILENT IDS 1 4-0 RETRYCOUNT 5 FORCE]
        set e [r xnack s g FAIL IDS 1 1-0]
        list $a $b $d $e [r xpending s g - + 10]
    } {2 1 1 1 {{1-0 {} -1 0} {2-0 {} -1 0} {3-0 {} -1 9223372036854775807} {4-0 {} -1 5}}}

    test {XNACK without FORCE creates nothing (xnack)} {
        r8_setup 2
        list [r xnack s g FAIL IDS 2 1-0 2-0] [r xpending s g]
    } {0 {0 {} {} {}}}

    test {XNACK then XREADGROUP CLAIM: released entries first, in release order, then other idle ones (xnack)} {
        r8_setup 5
        r xreadgroup GROUP g alice COUNT 4 STREAMS s >
        r xnack s g FAIL IDS 1 3-0
        r xnack s g FAIL IDS 1 1-0
        r xnack s g FAIL IDS 1 3-0
        set rep [r xreadgroup GROUP g bob CLAIM 0 STREAMS s >]
        set got {}
        foreach e [r8_entries $rep] {lappend got [list [lindex $e 0] [lindex $e 3]]}
        list $got [r8_pel s g]
    } {{{1-0 1} {3-0 1} {2-0 1} {4-0 1} {5-0 0}} {{1-0 bob 2} {2-0 bob 2} {3-0 bob 2} {4-0 bob 2} {5-0 bob 1}}}

    test {XNACK then XREADGROUP > and CLAIM: > gives new entries only; CLAIM with COUNT takes the zone first (xnack)} {
        r8_setup 3
        r xreadgroup GROUP g alice COUNT 2 STREAMS s >
        r xnack s g SILENT IDS 1 2-0
        set a [r8_ids [r8_entries [r xreadgroup GROUP g bob COUNT 1 STREAMS s >]]]
        r xadd s 4-0 i 4
        set rep [r xreadgroup GROUP g bob COUNT 1 CLAIM 60000 STREAMS s >]
        set b {}
        foreach e [r8_entries $rep] {lappend b [list [lindex $e 0] [lindex $e 3]]}
        list $a $b [r8_pel s g]
    } {3-0 {{2-0 0}} {{1-0 alice 1} {2-0 bob 1} {3-0 bob 1}}}

    test {XNACK then XAUTOCLAIM, XCLAIM and XACK take released entries at once (xnack)} {
        r8_setup 3
        r xreadgroup GROUP g alice STREAMS s >
        r xnack s g FAIL IDS 3 1-0 2-0 3-0
        set a [lindex [r xautoclaim s g bob 60000 0 COUNT 1 JUSTID] 1]
        set b [r xclaim s g carol 60000 2-0 JUSTID]
        set d [r xack s g 3-0]
        list $a $b $d [r8_pel s g] [r xpending s g]
    } {1-0 2-0 1 {{1-0 bob 1} {2-0 carol 1}} {2 1-0 2-0 {{bob 1} {carol 1}}}}

    test {XNACK: errors (xnack)} {
        r8_setup 1
        set res {}
        catch {r xnack s g MAYBE IDS 1 1-0} e; lappend res $e
        catch {r xnack s nogroup FAIL IDS 1 1-0} e; lappend res $e
        catch {r xnack s g FAIL IDS 2 1-0} e; lappend res $e
        catch {r xnack s g FAIL IDS 1 1-0 RETRYCOUNT -1} e; lappend res $e
        catch {r xnack s g FAIL RETRYCOUNT 1 2} e; lappend res $e
        catch {r xnack s g FAIL IDS 1 1-0 FORCE EXTRA} e; lappend res $e
        set res
    } {{ERR syntax error} {NOGROUP No such key 's' or consumer group 'nogroup'} {ERR The `numids` parameter must match the number of arguments} {ERR Invalid RETRYCOUNT option argument for XNACK} {ERR syntax error} {ERR syntax error}}

    # --------------------------------------------------------------------
    # XADD IDMP / IDMPAUTO, XCFGSET (redis.io: xadd, xcfgset, xinfo-stream)
    # --------------------------------------------------------------------

    test {XADD IDMP: a duplicate returns the original ID and adds nothing (xadd)} {
        r del s
        set id1 [r xadd s IDMP p1 payment-abc * amount 100 currency USD]
        set id2 [r xadd s IDMP p1 payment-abc * amount 200 currency EUR]
        list [expr {$id1 eq $id2}] [r xlen s] [lindex [r xrange s - +] 0 1]
    } {1 1 {amount 100 currency USD}}

    test {XADD IDMP: producers have separate namespaces (xadd)} {
        r del s
        set a [r xadd s IDMP p1 req * f 1]
        set b [r xadd s IDMP p2 req * f 2]
        list [expr {$a ne $b}] [expr {[r xadd s IDMP p1 req * f x] eq $a}] \
             [expr {[r xadd s IDMP p2 req * f x] eq $b}] [r xlen s]
    } {1 1 1 2}

    test {XADD IDMP: binary producer and idempotent ids (xadd)} {
        r del s
        set a [r xadd s IDMP "\x00\x01" "\x00\xff" * f 1]
        list [expr {[r xadd s IDMP "\x00\x01" "\x00\xff" * f 2] eq $a}] [r xlen s]
    } {1 1}

    test {XADD IDMPAUTO: the same pairs in any order are a duplicate (xadd)} {
        r del s
        set a [r xadd s IDMPAUTO p1 * f1 a f2 b f3 c]
        set b [r xadd s IDMPAUTO p1 * f2 b f3 c f1 a]
        set c [r xadd s IDMPAUTO p1 * f1 x f2 b f3 c]
        set d [r xadd s IDMPAUTO p1 * f1 b f2 a f3 c]
        list [expr {$a eq $b}] [expr {$c ne $a}] [expr {$d ne $a}] [r xlen s]
    } {1 1 1 3}

    test {XADD IDMP with MULTI: a duplicate inside the transaction (xadd)} {
        r del s
        r multi
        r xadd s IDMP p1 req-1 * f 1
        r xadd s IDMP p1 req-2 * f 2
        r xadd s IDMP p1 req-1 * f 3
        set res [r exec]
        list [expr {[lindex $res 0] eq [lindex $res 2]}] [expr {[lindex $res 0] ne [lindex $res 1]}] [r xlen s]
    } {1 1 2}

    test {XADD IDMP with trimming and NOMKSTREAM (xadd)} {
        r del s
        set n [r xadd s NOMKSTREAM IDMP p1 r1 * f v]
        set a [r xadd s IDMP p1 r1 MAXLEN ~ 100 * f v]
        set b [r xadd s MAXLEN ~ 100 IDMP p1 r1 * f w]
        set c [r xadd s KEEPREF IDMPAUTO p2 * f v]
        list $n [expr {$a eq $b}] [expr {$c ne $a}] [r xlen s]
    } {{} 1 1 2}

    test {XADD IDMP / IDMPAUTO errors, as Redis's own tests (xadd)} {
        r del s
        set res {}
        foreach args {{IDMP p1 * f v} {IDMP p1 iid1 1-1 f v} {IDMP p1 iid1 IDMP p2 iid2 * f v}
                      {IDMPAUTO p1 IDMP p2 iid2 * f v} {IDMP "" iid1 * f v} {IDMP p1 "" * f v}
                      {IDMPAUTO "" * f v} {IDMPAUTO p1 1-1 f v}} {
            catch {r xadd s {*}$args} e
            lappend res $e
        }
        lappend res [r exists s]
    } {{ERR Invalid stream ID specified as stream command argument} {ERR IDMP/IDMPAUTO can be used only with auto-generated IDs} {ERR IDMP/IDMPAUTO specified multiple times} {ERR IDMP/IDMPAUTO specified multiple times} {ERR IDMP requires a non-empty producer ID} {ERR IDMP requires a non-empty idempotent ID} {ERR IDMPAUTO requires a non-empty producer ID} {ERR IDMP/IDMPAUTO can be used only with auto-generated IDs} 0}

    test {XINFO STREAM: idmp-* and iids-* fields, FULL too (xinfo-stream)} {
        r del s
        r xadd s * f v
        # casq: a stream that never used the window replies as Redis 7.2.
        set i0 [r xinfo stream s]
        r xadd s IDMP p1 r1 * f v
        r xadd s IDMP p1 r2 * f v
        r xadd s IDMP p2 r1 * f v
        r xadd s IDMP p1 r1 * f v
        set i1 [r xinfo stream s]
        set f1 [r xinfo stream s FULL]
        set res [list [dict exists $i0 idmp-duration] [lrange [dict keys $i1] 6 end]]
        foreach f {idmp-duration idmp-maxsize pids-tracked iids-tracked iids-added iids-duplicates} {
            lappend res [stream_field $i1 $f] [stream_field $f1 $f]
        }
        set res
    } {0 {recorded-first-entry-id idmp-duration idmp-maxsize pids-tracked iids-tracked iids-added iids-duplicates groups first-entry last-entry} 100 100 100 100 2 2 3 3 3 3 1 1}

    test {XCFGSET: sets the window; a change clears the ids, counters stay (xcfgset)} {
        r del s
        set id1 [r xadd s IDMP p1 r1 * f v]
        assert_equal OK [r xcfgset s IDMP-DURATION 100 IDMP-MAXSIZE 100]
        set same [expr {[r xadd s IDMP p1 r1 * f v] eq $id1}]
        assert_equal OK [r xcfgset s IDMP-DURATION 5 IDMP-MAXSIZE 3]
        set info [r xinfo stream s]
        set new [expr {[r xadd s IDMP p1 r1 * f v] ne $id1}]
        list $same $new [stream_field $info idmp-duration] [stream_field $info idmp-maxsize] \
             [stream_field $info pids-tracked] [stream_field $info iids-tracked] \
             [stream_field $info iids-added] [stream_field $info iids-duplicates]
    } {1 1 5 3 0 0 1 1}

    test {XCFGSET IDMP-MAXSIZE evicts the oldest ids per producer (xcfgset)} {
        r del s
        r xadd s IDMP p1 init * f v
        r xcfgset s IDMP-MAXSIZE 3 IDMP-DURATION 60
        set id1 [r xadd s IDMP p1 req-1 * f v1]
        set id2 [r xadd s IDMP p1 req-2 * f v2]
        set id3 [r xadd s IDMP p1 req-3 * f v3]
        set q1 [r xadd s IDMP q1 req-1 * f v1]
        r xadd s IDMP p1 req-4 * f v4
        list [expr {[r xadd s IDMP p1 req-1 * f x] ne $id1}] [expr {[r xadd s IDMP p1 req-3 * f x] eq $id3}] \
             [expr {[r xadd s IDMP q1 req-1 * f x] eq $q1}] [stream_field [r xinfo stream s] pids-tracked]
    } {1 1 1 2}

    test {XCFGSET IDMP-DURATION: ids expire (xcfgset)} {
        r del s
        r xadd s IDMP p1 x * f v
        r xcfgset s IDMP-DURATION 1
        set id1 [r xadd s IDMP p1 req-1 * f v]
        set dup [expr {[r xadd s IDMP p1 req-1 * f v] eq $id1}]
        after 1200
        list $dup [expr {[r xadd s IDMP p1 req-1 * f v] ne $id1}] [stream_field [r xinfo stream s] iids-tracked]
    } {1 1 1}

    test {XCFGSET errors, as Redis's own tests (xcfgset)} {
        r del s
        r xadd s IDMP p1 r1 * f v
        set res {}
        foreach args {{} {IDMP-DURATION} {IDMP-DURATION A} {IDMP-DURATION 3.14} {IDMP-DURATION 0}
                      {IDMP-DURATION 86401} {IDMP-MAXSIZE 0} {IDMP-MAXSIZE 10001} {INVALID}
                      {IDMP-DURATION INVALID IDMP-MAXSIZE}} {
            catch {r xcfgset s {*}$args} e
            lappend res $e
        }
        r del nokey
        catch {r xcfgset nokey IDMP-DURATION 5} e
        lappend res $e
        lappend res [stream_field [r xinfo stream s] idmp-duration]
    } {{ERR At least one parameter must be specified: IDMP-DURATION or IDMP-MAXSIZE} {ERR syntax error} {ERR value is not an integer or out of range} {ERR value is not an integer or out of range} {ERR IDMP-DURATION must be between 1 and 86400 seconds} {ERR IDMP-DURATION must be between 1 and 86400 seconds} {ERR IDMP-MAXSIZE must be between 1 and 10000 entries} {ERR IDMP-MAXSIZE must be between 1 and 10000 entries} {ERR syntax error} {ERR value is not an integer or out of range} {ERR no such key} 100}

    test {CONFIG stream-idmp-duration / stream-idmp-maxsize: defaults and bounds (xcfgset)} {
        set res [list [lindex [r config get stream-idmp-duration] 1] [lindex [r config get stream-idmp-maxsize] 1]]
        catch {r config set stream-idmp-duration 86401} e
        lappend res [string match {*must be between*} $e]
        catch {r config set stream-idmp-maxsize 0} e
        lappend res [string match {*must be between*} $e]
        r config set stream-idmp-maxsize 7
        r del s
        r xadd s IDMP p x * f v
        lappend res [stream_field [r xinfo stream s] idmp-maxsize]
        r config set stream-idmp-maxsize 100
        set res
    } {100 100 1 1 7}

    test {COMMAND DOCS: the Redis 8 commands and options are documented with their versions} {
        set d [r command docs xdelex xackdel xcfgset xnack xdeadletter]
        set res {}
        foreach {name doc} $d {lappend res $name [dict get $doc since]}
        set xadd [dict get [lindex [r command docs xadd] 1] history]
        set xrg [dict get [lindex [r command docs xreadgroup] 1] history]
        list [lsort -stride 2 $res] [lrange $xadd end-1 end] $xrg
    } {{xackdel 8.2.0 xcfgset 8.6.0 xdeadletter 0.1.0 xdelex 8.2.0 xnack 8.8.0} {{8.2.0 {Added the `KEEPREF`, `DELREF` and `ACKED` options.}} {8.6.0 {Added the `IDMP` and `IDMPAUTO` options.}}} {{8.4.0 {Added the `CLAIM` option.}} {8.10.0 {Added the `MAXCOUNT` and `MAXSIZE` options.}}}}
}

# Dead-lettering: casq's own (issue 11), XDEADLETTER key group dlq-key
# max-deliveries | OFF. No redis.io page: README "Dead-lettering".
start_server {tags {"stream" "casq-only"} casq_overrides {stream-id-mode liberal}} {
    # The dead-letter entries of dlq as {source id group consumer deliveries
    # reason fields...} lists.
    proc dlq_entries {key} {
        set res {}
        foreach e [r xrange $key - +] {
            set f [lindex $e 1]
            lappend res [concat [dict get $f dlq-source] [dict get $f dlq-id] [dict get $f dlq-group] \
                [dict get $f dlq-consumer] [dict get $f dlq-deliveries] [dict get $f dlq-reason] [lrange $f 12 end]]
        }
        return $res
    }

    test {Dead-lettering with XAUTOCLAIM: past max-deliveries the entry moves, atomically} {
        r del dlq
        r8_setup 2
        assert_equal OK [r xdeadletter s g dlq 2]
        r xreadgroup GROUP g alice STREAMS s >
        set a [r xautoclaim s g bob 0 0]
        set b [r xautoclaim s g carol 0 0]
        list [lindex $a 1] $b [r8_pel s g] [dlq_entries dlq] [r xlen s]
    } {{{1-0 {i 1}} {2-0 {i 2}}} {0-0 {} {}} {} {{s 1-0 g bob 2 max-deliveries i 1} {s 2-0 g bob 2 max-deliveries i 2}} 2}

    test {Dead-lettering with XCLAIM and XREADGROUP CLAIM} {
        r del dlq
        r8_setup 2
        r xdeadletter s g dlq 1
        r xreadgroup GROUP g alice STREAMS s >
        set a [r xclaim s g bob 0 1-0]
        set b [r xreadgroup GROUP g bob CLAIM 0 STREAMS s >]
        list $a $b [r8_pel s g] [llength [dlq_entries dlq]]
    } {{} {} {} 2}

    test {Dead-lettering with XNACK FATAL: at once, the last consumer recorded} {
        r del dlq
        r8_setup 2
        r xdeadletter s g dlq 10
        r xreadgroup GROUP g alice STREAMS s >
        set n [r xnack s g FATAL IDS 1 2-0]
        list $n [r8_pel s g] [dlq_entries dlq]
    } {1 {{1-0 alice 1}} {{s 2-0 g alice 9223372036854775807 xnack-fatal i 2}}}

    # A released entry has no consumer any more (XNACK), so none is recorded.
    test {Dead-lettering: XNACK FAIL counts, then CLAIM dead-letters it} {
        r del dlq
        r8_setup 1
        r xdeadletter s g dlq 2
        r xreadgroup GROUP g alice STREAMS s >
        r xnack s g FAIL IDS 1 1-0
        set a [r8_entries [r xreadgroup GROUP g bob CLAIM 0 STREAMS s >]]
        r xnack s g FAIL IDS 1 1-0
        set b [r xreadgroup GROUP g bob CLAIM 0 STREAMS s >]
        set consumer [dict get [lindex [r xrange dlq - +] 0 1] dlq-consumer]
        list [lindex $a 0 3] $b [dlq_entries dlq] [string length $consumer]
    } {1 {} {{s 1-0 g 2 max-deliveries i 1}} 0}

    test {Dead-lettering: XINFO GROUPS and STREAM FULL show the policy; OFF removes it} {
        r del dlq
        r8_setup 1
        r xdeadletter s g dlq 1
        r xreadgroup GROUP g alice STREAMS s >
        r xautoclaim s g bob 0 0
        set grp [lindex [r xinfo groups s] 0]
        set full [lindex [dict get [r xinfo stream s FULL] groups] 0]
        r xdeadletter s g OFF
        set off [lindex [r xinfo groups s] 0]
        list [dict get $grp dead-letter-key] [dict get $grp dead-letter-max-deliveries] [dict get $grp dead-lettered] \
             [dict get $full dead-lettered] [dict exists $off dead-letter-key]
    } {dlq 1 1 1 0}

    test {Dead-lettering: a blocked reader of the dead-letter stream is woken} {
        r del dlq
        r8_setup 1
        r xdeadletter s g dlq 1
        r xreadgroup GROUP g alice STREAMS s >
        set rd [redis_deferring_client]
        $rd xread BLOCK 5000 STREAMS dlq $
        wait_for_blocked_client
        r xautoclaim s g bob 0 0
        set rep [$rd read]
        $rd close
        list [lindex $rep 0 0] [dict get [lindex $rep 0 1 0 1] dlq-id]
    } {dlq 1-0}

    test {Dead-lettering: a dead-letter key of another type keeps the entry pending} {
        r del dlq
        r8_setup 1
        r xdeadletter s g dlq 1
        r xreadgroup GROUP g alice STREAMS s >
        r set dlq x
        set a [lindex [r xautoclaim s g bob 0 0 JUSTID] 1]
        list $a [r8_pel s g]
    } {1-0 {{1-0 bob 1}}}

    test {Dead-lettering inside MULTI with XAUTOCLAIM} {
        r del dlq
        r8_setup 1
        r xdeadletter s g dlq 1
        r xreadgroup GROUP g alice STREAMS s >
        r multi
        r xautoclaim s g bob 0 0
        r xlen dlq
        set res [r exec]
        lindex $res 1
    } {1}

    test {XDEADLETTER errors} {
        r8_setup 1
        r set str x
        set res {}
        foreach args {{s g dlq 0} {s g dlq x} {s g s 3} {s nog dlq 1} {s g dlq} {s g dlq 1 extra} {str g dlq 1} {s g str 1}} {
            catch {r xdeadletter {*}$args} e
            lappend res $e
        }
        set res
    } {{ERR max-deliveries must be a positive integer} {ERR value is not an integer or out of range} {ERR the dead-letter stream must be another key} {NOGROUP No such key 's' or consumer group 'nog'} {ERR syntax error} {ERR syntax error} {WRONGTYPE Operation against a key holding the wrong kind of value} {WRONGTYPE Operation against a key holding the wrong kind of value}}
}

# The idempotency window is in the state document: it survives a kill -9.
start_server {tags {"stream" "casq-only" "needs:restart" "needs:persistence"} casq_overrides {stream-id-mode liberal}} {
    test {XADD IDMP after kill -9: the retry gets the original ID (xadd, casq durability)} {
        r del s
        r xadd s * init x
        r xcfgset s IDMP-MAXSIZE 50
        set id1 [r xadd s IDMP p1 job-1 * f v]
        set id2 [r xadd s IDMPAUTO p2 * a 1 b 2]
        restart_server 0 kill
        list [expr {[r xadd s IDMP p1 job-1 * f retry] eq $id1}] [r xlen s] \
             [stream_field [r xinfo stream s] idmp-maxsize] [stream_field [r xinfo stream s] iids-tracked] \
             [expr {[r xadd s IDMPAUTO p2 * b 2 a 1] eq $id2}] [r xlen s]
    } {1 3 50 2 1 3}
}

# The NACK zone is in the state document: after a kill -9 the released
# entries are still unowned and still claimed first, in release order.
start_server {tags {"stream" "casq-only" "needs:restart" "needs:persistence"} casq_overrides {stream-id-mode liberal}} {
    test {XNACK after kill -9: released entries stay unowned, in release order (xnack, casq durability)} {
        r8_setup 4
        r xreadgroup GROUP g alice STREAMS s >
        r xnack s g FAIL IDS 2 4-0 2-0
        r xnack s g FAIL IDS 1 3-0 RETRYCOUNT 9
        restart_server 0 kill
        set pel {}
        foreach e [r xpending s g - + 10] {
            lassign $e id consumer idle count
            if {$consumer ne ""} {set idle owned}
            lappend pel [list $id $consumer $idle $count]
        }
        set rep [r xreadgroup GROUP g bob COUNT 3 CLAIM 0 STREAMS s >]
        set got {}
        foreach e [r8_entries $rep] {lappend got [list [lindex $e 0] [lindex $e 3]]}
        list $pel $got
    } {{{1-0 alice owned 1} {2-0 {} -1 1} {3-0 {} -1 9} {4-0 {} -1 1}} {{4-0 1} {2-0 1} {3-0 9}}}
}

# Delivery times are in the state document: after a kill -9 CLAIM still
# serves the NACK zone first, then the longest idle entries first.
start_server {tags {"stream" "casq-only" "needs:restart" "needs:persistence"} casq_overrides {stream-id-mode liberal}} {
    test {XREADGROUP CLAIM after kill -9: the NACK zone, then longest idle first (xreadgroup, casq durability)} {
        r8_setup 5
        r xreadgroup GROUP g alice STREAMS s >
        r8_age s 3-0 90000 1-0 60000 4-0 30000
        r xnack s g FAIL IDS 1 5-0
        restart_server 0 kill
        set a [r8_claimed [r xreadgroup GROUP g bob COUNT 3 CLAIM 10000 STREAMS s >]]
        set b [r8_claimed [r xreadgroup GROUP g bob CLAIM 10000 STREAMS s >]]
        list [lmap e $a {lindex $e 0}] [lrange [lindex $a 1] 1 2] $b [r8_pel s g]
    } {{5-0 3-0 1-0} {90000 1} {{4-0 30000 1}} {{1-0 bob 2} {2-0 alice 1} {3-0 bob 2} {4-0 bob 2} {5-0 bob 2}}}
}
