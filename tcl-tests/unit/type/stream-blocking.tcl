# Blocking XREAD / XREADGROUP: wake-ups, fairness, timeouts, MULTI,
# CLIENT UNBLOCK, disconnects, and what happens to blocked clients when
# their key or group changes under them.
#
# No sleeps: tests wait for INFO blocked_clients with wait_for_condition.
# casq runs with stream-id-mode liberal so explicit IDs behave as in Redis.
#
# Redis 7.2 re-executes a blocked XREAD/XREADGROUP when its key is
# signalled (PR #11012): a blocked XREADGROUP whose key or group vanished
# gets exactly the error a fresh call would get (NOGROUP ... / WRONGTYPE),
# and a wake-up that finds no data blocks again. 7.0 replied
# "-UNBLOCKED the stream key no longer exists" or "NOGROUP the consumer
# group this client was blocked on no longer exists", and could serve an
# empty reply. Tests of the 7.2 behaviour are tagged redis7.2.

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

# The reply of a deferring client, or its error as "ERROR: text".
proc read_or_error {rd} {
    if {[catch {$rd read} e]} {return "ERROR: $e"}
    return $e
}

start_server {tags {"stream" "blocking"} casq_overrides {stream-id-mode liberal}} {

    # --------------------------------------------------------------------
    # XREAD BLOCK
    # --------------------------------------------------------------------

    test {XREAD BLOCK $ is woken by XADD} {
        r del s
        r xadd s 1-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r xadd s 2-0 g w
        set res [$rd read]
        $rd close
        set res
    } {{s {{2-0 {g w}}}}}

    test {XREAD BLOCK on a missing key is woken when XADD creates it} {
        r del s
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r xadd s 1-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{1-0 {f v}}}}}

    test {XREAD BLOCK with an ID waits for a greater entry} {
        r del s
        r xadd s 1-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s 5-0]
        r xadd s 3-0 f v
        # 3-0 is not after 5-0: still blocked.
        assert_equal 1 [s blocked_clients]
        r xadd s 6-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{6-0 {f v}}}}}

    test {XREAD BLOCK times out with a null array} {
        r del s
        set rd [stream_deferring_client]
        $rd readraw 1
        $rd xread BLOCK 50 STREAMS s $
        set res [$rd read]
        $rd close
        list $res [s blocked_clients]
    } {*-1 0}

    test {RESP3: XREAD BLOCK times out with null} {
        r del s
        set rd [stream_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd xread BLOCK 50 STREAMS s $
        set res [$rd read]
        $rd close
        set res
    } {_}

    test {RESP3: a woken XREAD replies a map} {
        r del s
        set rd [stream_deferring_client]
        $rd hello 3
        $rd read
        $rd xread BLOCK 0 STREAMS s $
        wait_for_blocked_clients_count 1
        r xadd s 1-0 f v
        $rd readraw 1
        set res [stream_read_shape $rd]
        $rd close
        set res
    } {%1 s *1 *2 1-0 *2 f v}

    test {XREAD BLOCK with a timeout is served before it expires} {
        r del s
        set rd [blocked_client 1 xread BLOCK 100000 STREAMS s $]
        r xadd s 1-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{1-0 {f v}}}}}

    test {XREAD BLOCK of several keys replies with the key that got data} {
        r del s1 s2 s3
        r xadd s1 1-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s1 s2 s3 $ $ $]
        r xadd s2 5-0 g w
        set res [$rd read]
        $rd close
        set res
    } {{s2 {{5-0 {g w}}}}}

    test {XREAD BLOCK: XADDs in MULTI/EXEC wake the client once with all entries} {
        r del s
        r xadd s 1-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r multi
        r xadd s 2-0 a 1
        r xadd s 3-0 b 2
        r xadd s 4-0 c 3
        r exec
        set res [$rd read]
        # Nothing more was sent to it: the next reply is for PING.
        $rd ping
        set pong [$rd read]
        $rd close
        list $res $pong
    } {{{s {{2-0 {a 1}} {3-0 {b 2}} {4-0 {c 3}}}}} PONG}

    test {XREAD BLOCK COUNT limits what a wake-up delivers} {
        r del s
        r xadd s 1-0 f v
        set rd [blocked_client 1 xread COUNT 2 BLOCK 0 STREAMS s $]
        r multi
        r xadd s 2-0 a 1
        r xadd s 3-0 b 2
        r xadd s 4-0 c 3
        r exec
        set res [$rd read]
        $rd close
        set res
    } {{s {{2-0 {a 1}} {3-0 {b 2}}}}}

    test {XREAD BLOCK: every blocked reader gets the new entry} {
        r del s
        r xadd s 1-0 f v
        set rd1 [blocked_client 1 xread BLOCK 0 STREAMS s $]
        set rd2 [blocked_client 2 xread BLOCK 0 STREAMS s 1-0]
        set rd3 [blocked_client 3 xread COUNT 5 BLOCK 0 STREAMS s 1]
        r xadd s 2-0 g w
        set res [list [$rd1 read] [$rd2 read] [$rd3 read]]
        $rd1 close; $rd2 close; $rd3 close
        set res
    } {{{s {{2-0 {g w}}}}} {{s {{2-0 {g w}}}}} {{s {{2-0 {g w}}}}}}

    test {XREAD BLOCK 0 with an ID below the top does not block} {
        r del s
        r xadd s 1-0 f v
        set rd [stream_deferring_client]
        $rd xread BLOCK 0 STREAMS s 0
        set res [$rd read]
        $rd close
        set res
    } {{s {{1-0 {f v}}}}}

    test {XREAD BLOCK is not woken by XDEL, XTRIM, XSETID or XGROUP CREATE} {
        r del s
        stream_fill s 1 3
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r xdel s 1-0
        r xtrim s MAXLEN 1
        r xgroup create s g 0
        r xsetid s 10-0
        assert_equal 1 [s blocked_clients]
        r xadd s 11-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{11-0 {f v}}}}}

    test {XREAD BLOCK is not woken by XGROUP DESTROY after XSETID (Redis 7.2)} {
        # XGROUP DESTROY signals the key; 7.0 then served the XREAD an
        # empty array because the last ID had moved, 7.2 re-executes it
        # and, finding no entry, keeps it blocked.
        r del s
        stream_fill s 1 3
        r xgroup create s g 0
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r xsetid s 10-0
        r xgroup destroy s g
        assert_equal 1 [s blocked_clients]
        r xadd s 11-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{11-0 {f v}}}}} {redis7.2}

    test {XREAD BLOCK $: a stream deleted and re-created is read after the old last ID} {
        r del s
        r xadd s 666-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r del s
        r xadd s 1-0 old v
        assert_equal 1 [s blocked_clients]
        r xadd s 667-0 new v
        set res [$rd read]
        $rd close
        set res
    } {{s {{667-0 {new v}}}}}

    test {XREAD BLOCK: key type changed with SET, then a stream again} {
        r del s
        r xadd s 666-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r set s x
        assert_equal 1 [s blocked_clients]
        r del s
        r xadd s 667-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{667-0 {f v}}}}} {needs:other-types}

    test {XREAD BLOCK keeps waiting across FLUSHALL} {
        r del s
        r xadd s 666-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r flushall
        assert_equal 1 [s blocked_clients]
        r xadd s 667-0 f v
        set res [$rd read]
        $rd close
        set res
    } {{s {{667-0 {f v}}}}}

    test {XREAD BLOCK: an XADD whose entry is trimmed at once does not wake (Redis 7.2)} {
        # 7.0 served such a client with an empty array ({s {}}); 7.2
        # re-executes XREAD, finds nothing and keeps it blocked.
        r del s
        r xadd s 5-0 f v
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r xadd s MAXLEN 0 6-0 f v
        assert_equal 1 [s blocked_clients]
        r xadd s 7-0 g w
        set res [$rd read]
        $rd close
        set res
    } {{s {{7-0 {g w}}}}} {redis7.2}

    test {XREAD BLOCK on a key renamed onto it} {
        r del s t
        stream_fill t 1 2
        set rd [blocked_client 1 xread BLOCK 0 STREAMS s $]
        r rename t s
        set res [$rd read]
        $rd close
        set res
    } {{s {{1-0 {i 1}} {2-0 {i 2}}}}}

    test {XREAD BLOCK inside MULTI does not block} {
        r del s
        r multi
        r xread BLOCK 0 STREAMS s $
        r xread BLOCK 100000 STREAMS s 0
        set res [r exec]
        list $res [s blocked_clients]
    } {{{} {}} 0}

    test {XREAD BLOCK inside MULTI replies with data if there is some} {
        r del s
        r xadd s 1-0 f v
        r multi
        r xread BLOCK 0 STREAMS s 0
        r exec
    } {{{s {{1-0 {f v}}}}}}

    # --------------------------------------------------------------------
    # Blocked clients: CLIENT UNBLOCK, disconnects, introspection
    # --------------------------------------------------------------------

    test {CLIENT UNBLOCK TIMEOUT: the blocked XREAD replies nil} {
        r del s
        set rd [stream_deferring_client]
        set id [stream_client_id $rd 1]
        $rd xread BLOCK 0 STREAMS s $
        wait_for_blocked_clients_count 1
        set u [r client unblock $id TIMEOUT]
        $rd readraw 1
        set res [$rd read]
        $rd close
        list $u $res [s blocked_clients]
    } {1 *-1 0}

    test {CLIENT UNBLOCK ERROR: the blocked XREAD gets -UNBLOCKED} {
        r del s
        set rd [stream_deferring_client]
        set id [stream_client_id $rd 1]
        $rd xread BLOCK 0 STREAMS s $
        wait_for_blocked_clients_count 1
        set u [r client unblock $id ERROR]
        set res [read_or_error $rd]
        $rd close
        list $u $res
    } {1 {ERROR: UNBLOCKED client unblocked via CLIENT UNBLOCK}}

    test {CLIENT UNBLOCK of a blocked XREADGROUP, default reason TIMEOUT} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [stream_deferring_client]
        set id [stream_client_id $rd 1]
        $rd xreadgroup GROUP g c BLOCK 0 STREAMS s >
        wait_for_blocked_clients_count 1
        set u [r client unblock $id]
        set res [$rd read]
        $rd close
        list $u $res [r client unblock $id]
    } {1 {} 0}

    test {An unblocked client can run commands again} {
        r del s
        set rd [stream_deferring_client]
        set id [stream_client_id $rd 1]
        $rd xread BLOCK 0 STREAMS s $
        wait_for_blocked_clients_count 1
        r client unblock $id
        $rd read
        $rd xadd s 1-0 f v
        set res [$rd read]
        $rd close
        set res
    } {1-0}

    test {A client that disconnects while blocked leaves nothing behind} {
        r del s s2
        r xgroup create s2 g $ MKSTREAM
        set before [stream_client_count]
        set rd1 [blocked_client 1 xread BLOCK 0 STREAMS s $]
        set rd2 [blocked_client 2 xreadgroup GROUP g c BLOCK 0 STREAMS s2 >]
        $rd1 close
        $rd2 close
        wait_for_blocked_clients_count 0
        wait_for_condition 100 10 {[stream_client_count] == $before} else {
            fail "clients left: [r client list]"
        }
        # The entries are still there for the next reader, none pending.
        r xadd s 1-0 f v
        r xadd s2 1-0 f v
        list [r xpending s2 g] [r xlen s] [s blocked_clients]
    } {{0 {} {} {}} 1 0}

    test {CLIENT LIST shows a blocked XREAD client} {
        r del s
        set rd [stream_deferring_client]
        set id [stream_client_id $rd 1]
        $rd xread BLOCK 0 STREAMS s $
        wait_for_blocked_clients_count 1
        set line {}
        foreach l [split [string trim [r client list]] "\n"] {
            if {[dict get [client_fields $l] id] == $id} {set line $l}
        }
        set f [client_fields $line]
        r client unblock $id
        $rd read
        $rd close
        list [string match *b* [dict get $f flags]] [dict get $f cmd]
    } {1 xread}

    # --------------------------------------------------------------------
    # XREADGROUP BLOCK
    # --------------------------------------------------------------------

    test {XREADGROUP BLOCK is woken by XADD and the entry becomes pending} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [blocked_client 1 xreadgroup GROUP g alice BLOCK 0 STREAMS s >]
        r xadd s 1-0 f v
        set res [$rd read]
        $rd close
        list $res [r xpending s g]
    } {{{s {{1-0 {f v}}}}} {1 1-0 1-0 {{alice 1}}}}

    test {XREADGROUP BLOCK serves clients in the order they blocked} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd1 [blocked_client 1 xreadgroup GROUP g c1 BLOCK 0 STREAMS s >]
        set rd2 [blocked_client 2 xreadgroup GROUP g c2 BLOCK 0 STREAMS s >]
        set rd3 [blocked_client 3 xreadgroup GROUP g c3 BLOCK 0 STREAMS s >]
        r xadd s 1-0 n 1
        set a [$rd1 read]
        wait_for_blocked_clients_count 2
        r xadd s 2-0 n 2
        set b [$rd2 read]
        wait_for_blocked_clients_count 1
        r xadd s 3-0 n 3
        set c [$rd3 read]
        $rd1 close; $rd2 close; $rd3 close
        list $a $b $c [s blocked_clients]
    } {{{s {{1-0 {n 1}}}}} {{s {{2-0 {n 2}}}}} {{s {{3-0 {n 3}}}}} 0}

    test {XREADGROUP BLOCK: one XADD serves one consumer, the others keep waiting} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd1 [blocked_client 1 xreadgroup GROUP g c1 BLOCK 0 STREAMS s >]
        set rd2 [blocked_client 2 xreadgroup GROUP g c2 BLOCK 0 STREAMS s >]
        r xadd s 1-0 f v
        set a [$rd1 read]
        wait_for_blocked_clients_count 1
        set blocked [s blocked_clients]
        set pel [r xpending s g]
        r xadd s 2-0 f v
        set b [$rd2 read]
        $rd1 close; $rd2 close
        list $a $blocked $pel $b
    } {{{s {{1-0 {f v}}}}} 1 {1 1-0 1-0 {{c1 1}}} {{s {{2-0 {f v}}}}}}

    test {XREADGROUP BLOCK: XADDs in MULTI/EXEC wake the consumer once} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r multi
        r xadd s 1-0 a 1
        r xadd s 2-0 b 2
        r exec
        set res [$rd read]
        $rd ping
        set pong [$rd read]
        $rd close
        list $res $pong [lindex [r xpending s g] 0]
    } {{{s {{1-0 {a 1}} {2-0 {b 2}}}}} PONG 2}

    test {XREADGROUP BLOCK COUNT: the rest stays for the next reader} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd1 [blocked_client 1 xreadgroup GROUP g c1 COUNT 1 BLOCK 0 STREAMS s >]
        set rd2 [blocked_client 2 xreadgroup GROUP g c2 COUNT 1 BLOCK 0 STREAMS s >]
        r multi
        r xadd s 1-0 a 1
        r xadd s 2-0 b 2
        r xadd s 3-0 c 3
        r exec
        set a [$rd1 read]
        set b [$rd2 read]
        $rd1 close; $rd2 close
        list $a $b [stream_ids [lindex [r xreadgroup GROUP g c3 STREAMS s >] 0 1]]
    } {{{s {{1-0 {a 1}}}}} {{s {{2-0 {b 2}}}}} 3-0}

    test {XREADGROUP BLOCK NOACK} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [blocked_client 1 xreadgroup GROUP g c NOACK BLOCK 0 STREAMS s >]
        r xadd s 1-0 f v
        set res [$rd read]
        $rd close
        list $res [r xpending s g] [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
    } {{{s {{1-0 {f v}}}}} {0 {} {} {}} 1-0}

    test {XREADGROUP BLOCK of several keys} {
        r del s1 s2
        r xgroup create s1 g $ MKSTREAM
        r xgroup create s2 g $ MKSTREAM
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s1 s2 > >]
        r xadd s2 1-0 f v
        set res [$rd read]
        $rd close
        list $res [r xpending s1 g] [lindex [r xpending s2 g] 0]
    } {{{s2 {{1-0 {f v}}}}} {0 {} {} {}} 1}

    test {XREADGROUP BLOCK times out with a null array} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [stream_deferring_client]
        $rd readraw 1
        $rd xreadgroup GROUP g c BLOCK 50 STREAMS s >
        set res [$rd read]
        $rd close
        set res
    } {*-1}

    test {Blocking XREADGROUP will not reply with an empty array} {
        r del s
        r xgroup create s g $ MKSTREAM
        r xadd s 666-0 f v
        assert_equal {{s {{666-0 {f v}}}}} [r xreadgroup GROUP g c BLOCK 10 STREAMS s >]
        r xadd s 667-0 f2 v2
        r xdel s 667-0
        set rd [stream_deferring_client]
        $rd readraw 1
        $rd xreadgroup GROUP g c BLOCK 10 STREAMS s >
        set res [$rd read]
        $rd close
        set res
    } {*-1}

    test {XREADGROUP BLOCK and XREAD BLOCK on the same key are both served} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd1 [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        set rd2 [blocked_client 2 xread BLOCK 0 STREAMS s $]
        r xadd s 1-0 f v
        set res [list [$rd1 read] [$rd2 read]]
        $rd1 close; $rd2 close
        set res
    } {{{s {{1-0 {f v}}}}} {{s {{1-0 {f v}}}}}}

    test {XREADGROUP BLOCK inside MULTI does not block} {
        r del s
        r xgroup create s g $ MKSTREAM
        r multi
        r xreadgroup GROUP g c BLOCK 0 STREAMS s >
        set res [r exec]
        list $res [s blocked_clients]
    } {{{}} 0}

    test {XREADGROUP BLOCK: the consumer exists while it is blocked (Redis 7.2)} {
        # 7.2 creates the consumer before blocking (see stream-cgroups.tcl).
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [blocked_client 1 xreadgroup GROUP g waiting BLOCK 0 STREAMS s >]
        set names {}
        foreach c [r xinfo consumers s g] {lappend names [dict get $c name]}
        r xadd s 1-0 f v
        $rd read
        $rd close
        set names
    } {waiting} {redis7.2}

    # --------------------------------------------------------------------
    # XREADGROUP BLOCK: the key or the group goes away
    # --------------------------------------------------------------------

    # Common to every version: the client is released with an error.
    test {Blocking XREADGROUP: key deleted releases the client with an error} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r del s
        set res [read_or_error $rd]
        $rd close
        assert {[string match "ERROR: NOGROUP *" $res] || $res eq "ERROR: UNBLOCKED the stream key no longer exists"}
        s blocked_clients
    } {0}

    test {Blocking XREADGROUP: key deleted (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r del s
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: key deleted with UNLINK (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r unlink s
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: group destroyed} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r xgroup destroy s g
        set res [read_or_error $rd]
        $rd close
        list [string match "ERROR: NOGROUP *" $res] [s blocked_clients]
    } {1 0}

    test {Blocking XREADGROUP: group destroyed (Redis 7.2)} {
        # 7.0: "NOGROUP the consumer group this client was blocked on no
        # longer exists"; 7.2 re-executes the command.
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r xgroup destroy s g
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: key type changed with SET (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r set s val1
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: WRONGTYPE Operation against a key holding the wrong kind of value} {redis7.2 needs:other-types}

    test {Blocking XREADGROUP: key type changed in a transaction (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r multi
        r del s
        r set s e1
        r exec
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: WRONGTYPE Operation against a key holding the wrong kind of value} {redis7.2 needs:other-types}

    test {Blocking XREADGROUP: key re-created without the group in a transaction (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r multi
        r del s
        r xadd s 667-0 f v
        r exec
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: FLUSHALL (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r flushall
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: FLUSHDB (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r flushdb
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: swapped DB, key doesn't exist (Redis 7.2)} {
        r select 4
        r flushdb
        r select 9
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r swapdb 4 9
        set res [read_or_error $rd]
        $rd close
        r swapdb 4 9
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP: swapped DB, key is not a stream (Redis 7.2)} {
        r select 4
        r flushdb
        r lpush s x
        r select 9
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r swapdb 4 9
        set res [read_or_error $rd]
        $rd close
        r swapdb 4 9
        r select 4
        r flushdb
        r select 9
        set res
    } {ERROR: WRONGTYPE Operation against a key holding the wrong kind of value} {redis7.2 needs:other-types}

    test {Blocking XREADGROUP: swapped DB, the other stream has the group} {
        r select 4
        r flushdb
        r xadd s 1-0 other v
        r xgroup create s g $
        r select 9
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r swapdb 4 9
        # The stream now in db 9 has group g with nothing new: still blocked.
        assert_equal 1 [s blocked_clients]
        r xadd s 2-0 new v
        set res [read_or_error $rd]
        $rd close
        r swapdb 4 9
        r select 4
        r flushdb
        r select 9
        set res
    } {{s {{2-0 {new v}}}}}

    test {Blocking XREADGROUP: key renamed away (Redis 7.2)} {
        r del s t
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r rename s t
        set res [read_or_error $rd]
        $rd close
        list $res [llength [r xinfo groups t]]
    } {{ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} 1} {redis7.2}

    test {Blocking XREADGROUP: key expired (Redis 7.2)} {
        r del s
        r xadd s 666-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r pexpire s 20
        # Active expiry, or our EXISTS calls, delete the key.
        wait_for_condition 200 10 {[r exists s] == 0} else {fail "key did not expire"}
        set res [read_or_error $rd]
        $rd close
        set res
    } {ERROR: NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {redis7.2}

    test {Blocking XREADGROUP for a stream that ran dry (issue #5299)} {
        r del s
        r xgroup create s g $ MKSTREAM
        r xadd s 666-0 key value
        r xdel s 666-0
        set rd [stream_deferring_client]
        $rd xreadgroup GROUP g c BLOCK 0 STREAMS s >
        wait_for_blocked_clients_count 1
        # Larger IDs than the deleted top item still wake it.
        assert_error {ERR The ID specified in XADD is equal or smaller*} {r xadd s 665-0 key value}
        r xadd s 667-0 key value
        set res [$rd read]
        $rd close
        set res
    } {{s {{667-0 {key value}}}}}

    test {XREADGROUP BLOCK: XGROUP SETID backwards does not wake, the next XADD serves from there} {
        # XGROUP SETID does not signal the key; the next wake-up serves
        # everything after the group's new last delivered ID.
        r del s
        r xadd s 1-0 f v
        r xgroup create s g $
        set rd [blocked_client 1 xreadgroup GROUP g c BLOCK 0 STREAMS s >]
        r xgroup setid s g 0
        assert_equal 1 [s blocked_clients]
        r xadd s 2-0 g w
        set res [read_or_error $rd]
        $rd close
        set res
    } {{s {{1-0 {f v}} {2-0 {g w}}}}}
}
