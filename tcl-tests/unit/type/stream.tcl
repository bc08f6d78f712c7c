# Streams without consumer groups: XADD XLEN XRANGE XREVRANGE XDEL XTRIM
# XSETID XINFO STREAM, non-blocking XREAD, keyspace interactions and RESP3
# shapes. Every test must pass against redis-server too.
#
# casq runs with stream-id-mode liberal: explicit ms-seq IDs then behave
# exactly as in Redis (the ID modes have their own casq-only file,
# stream-idmodes.tcl).

source [file join [file dirname [info script]] .. .. support stream_util.tcl]

start_server {tags {"stream"} casq_overrides {stream-id-mode liberal}} {

    # --------------------------------------------------------------------
    # XADD: IDs
    # --------------------------------------------------------------------

    test {XADD with an explicit ID returns that ID} {
        r del s
        list [r xadd s 1-1 f v] [r xadd s 1-2 f v] [r xadd s 2-0 f v]
    } {1-1 1-2 2-0}

    test {XADD with a milliseconds-only ID means ms-0} {
        r del s
        list [r xadd s 5 f v] [r xadd s 6 f v] [r xrange s - +]
    } {5-0 6-0 {{5-0 {f v}} {6-0 {f v}}}}

    test {XADD ms-* picks the next sequence number} {
        r del s
        list [r xadd s 5-* f v] [r xadd s 5-* f v] [r xadd s 5-* f v] [r xadd s 7-* f v]
    } {5-0 5-1 5-2 7-0}

    test {XADD 0-* on an empty stream gives 0-1} {
        r del s
        r xadd s 0-* f v
    } {0-1}

    test {XADD ms-* with ms lower than the top item is an error} {
        r del s
        r xadd s 5-3 f v
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 4-* f v}
        r xlen s
    } {1}

    test {XADD * generates increasing IDs} {
        r del s
        set a [r xadd s * f v]
        set b [r xadd s * f v]
        set c [r xadd s * f v]
        assert_match {*-*} $a
        assert [stream_id_less $a $b]
        assert [stream_id_less $b $c]
        r xlen s
    } {3}

    test {XADD * after a top item in the future continues its sequence} {
        r del s
        r xadd s 99999999999999-5 f v
        list [r xadd s * f v] [r xadd s * f v]
    } {99999999999999-6 99999999999999-7}

    test {XADD * uses the current time in milliseconds} {
        r del s
        set before [lindex [r time] 0]
        set id [r xadd s * f v]
        set after [lindex [r time] 0]
        set ms [lindex [split $id -] 0]
        assert_range $ms [expr {$before * 1000}] [expr {($after + 1) * 1000}]
    }

    test {XADD with an ID equal to the top item is an error} {
        r del s
        r xadd s 2-0 f v
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 2-0 f v}
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 1-5 f v}
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 2 f v}
        r xrange s - +
    } {{2-0 {f v}}}

    test {XADD 0-0 is an error, even on a new stream} {
        r del s
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s 0-0 f v}
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s 0 f v}
        r exists s
    } {0}

    test {XADD with a smaller ID than a deleted top item is an error} {
        r del s
        r xadd s 1-0 f v
        r xadd s 2-0 f v
        r xdel s 2-0
        assert_error {ERR The ID specified in XADD is equal or smaller*} {r xadd s 2-0 f v}
        assert_error {ERR The ID specified in XADD is equal or smaller*} {r xadd s 1-5 f v}
        r xadd s 2-1 f v
    } {2-1}

    test {XADD invalid IDs} {
        r del s
        foreach id {abc 1-x -1 {} 10- -5 1-2-3 18446744073709551616-0 1-18446744073709551616 1.5 0x10} {
            assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s $id f v}
        }
        r exists s
    } {0}

    test {XADD accepts the largest possible ID, then the stream is exhausted} {
        r del s
        assert_equal 18446744073709551615-18446744073709551615 [r xadd s 18446744073709551615-18446744073709551615 f v]
        assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} {r xadd s * f v}
        assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} {r xadd s 18446744073709551615-* f v}
        r xlen s
    } {1}

    test {XADD ms-* when the sequence of ms is exhausted is an error} {
        r del s
        r xadd s 5-18446744073709551615 f v
        # The error text differs between Redis versions (7.0 replies
        # "Elements are too large to be stored", later ones "The ID
        # specified in XADD is equal or smaller ..."): only assert that
        # it is refused and changes nothing.
        assert_error {ERR *} {r xadd s 5-* f v}
        list [r xlen s] [r xadd s 6-* f v]
    } {1 6-0}

    test {XADD with an odd number of field/value arguments} {
        r del s
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * f}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * f v g}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s MAXLEN 5 * f v g}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s *}
        r exists s
    } {0}

    test {XADD stores fields in order, duplicates included} {
        r del s
        r xadd s 1-0 b 2 a 1 b 3 c {}
        r xrange s - +
    } {{1-0 {b 2 a 1 b 3 c {}}}}

    test {XADD is binary safe for keys, fields and values} {
        r del "s\x00k"
        set f "f\x00\xff\r\n"
        set v "\x00\x01\xfe\xff end\r\n"
        r xadd "s\x00k" 1-0 $f $v
        set e [lindex [r xrange "s\x00k" - +] 0]
        assert_equal $f [lindex $e 1 0]
        assert_equal $v [lindex $e 1 1]
        r del "s\x00k"
    } {1}

    test {XADD with many fields and a large value} {
        r del s
        set args {}
        for {set i 0} {$i < 200} {incr i} {lappend args f$i v$i}
        set big [string repeat x 100000]
        r xadd s 1-0 {*}$args big $big
        set e [lindex [r xrange s - +] 0 1]
        list [llength $e] [lindex $e 0] [lindex $e 399] [string length [lindex $e 401]]
    } {402 f0 v199 100000}

    test {XADD NOMKSTREAM on a missing key replies nil and creates nothing} {
        r del s
        set raw [stream_shape [srv client] xadd s NOMKSTREAM * f v]
        list $raw [r exists s]
    } {{$-1} 0}

    test {XADD NOMKSTREAM on an existing stream adds} {
        r del s
        r xadd s 1-0 f v
        list [r xadd s NOMKSTREAM 2-0 g w] [r xlen s]
    } {2-0 2}

    test {XADD NOMKSTREAM with trimming on a missing key} {
        r del s
        list [r xadd s NOMKSTREAM MAXLEN 1 * f v] [r exists s]
    } {{} 0}

    test {XADD MAXLEN trims exactly} {
        r del s
        stream_fill s 1 10
        assert_equal 11-0 [r xadd s MAXLEN 5 11-0 i 11]
        list [r xlen s] [stream_ids [r xrange s - +]]
    } {5 {7-0 8-0 9-0 10-0 11-0}}

    test {XADD MAXLEN = trims exactly} {
        r del s
        stream_fill s 1 10
        r xadd s MAXLEN = 3 11-0 i 11
        stream_ids [r xrange s - +]
    } {9-0 10-0 11-0}

    test {XADD MAXLEN 0 leaves an empty stream that still exists} {
        r del s
        stream_fill s 1 3
        list [r xadd s MAXLEN 0 4-0 f v] [r xlen s] [r exists s] [r type s]
    } {4-0 0 1 stream}

    test {XADD MAXLEN ~ does not trim inside a single node} {
        r del s
        stream_fill s 1 10
        r xadd s MAXLEN ~ 5 11-0 i 11
        r xlen s
    } {11}

    test {XADD MINID trims entries below the ID} {
        r del s
        stream_fill s 1 10
        r xadd s MINID 8 11-0 i 11
        stream_ids [r xrange s - +]
    } {8-0 9-0 10-0 11-0}

    test {XADD MINID = with a full ID} {
        r del s
        stream_fill s 1 5
        r xadd s MINID = 4-0 6-0 i 6
        stream_ids [r xrange s - +]
    } {4-0 5-0 6-0}

    test {XADD MINID above the new ID trims the new entry too} {
        r del s
        stream_fill s 1 3
        list [r xadd s MINID 100 50-0 f v] [r xlen s] [r exists s]
    } {50-0 0 1}

    test {XADD options are case insensitive and can be combined} {
        r del s
        stream_fill s 1 5
        list [r xadd s nomkstream maxlen = 2 6-0 f v] [stream_ids [r xrange s - +]]
    } {6-0 {5-0 6-0}}

    test {XADD trimming argument errors} {
        r del s
        r xadd s 1-0 f v
        assert_error {ERR value is not an integer or out of range} {r xadd s MAXLEN abc * f v}
        assert_error {ERR value is not an integer or out of range} {r xadd s MAXLEN = * f v}
        assert_error {ERR The MAXLEN argument must be >= 0.} {r xadd s MAXLEN -1 * f v}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} {r xadd s MAXLEN 1 LIMIT 10 * f v}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} {r xadd s MAXLEN = 1 LIMIT 10 * f v}
        assert_error {ERR The LIMIT argument must be >= 0.} {r xadd s MAXLEN ~ 1 LIMIT -1 * f v}
        assert_error {ERR value is not an integer or out of range} {r xadd s MAXLEN ~ 1 LIMIT x * f v}
        assert_error {ERR syntax error, MAXLEN and MINID options at the same time are not compatible} {r xadd s MAXLEN 1 MINID 1 * f v}
        assert_error {ERR syntax error, LIMIT cannot be used without specifying a trimming strategy} {r xadd s LIMIT 5 * f v}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s MINID abc * f v}
        r xrange s - +
    } {{1-0 {f v}}}

    # --------------------------------------------------------------------
    # XLEN
    # --------------------------------------------------------------------

    test {XLEN of a missing key is 0} {
        r del s
        r xlen s
    } {0}

    test {XLEN counts entries, not deleted ones} {
        r del s
        stream_fill s 1 5
        r xdel s 2-0 4-0
        r xlen s
    } {3}

    test {XLEN errors} {
        assert_error {ERR wrong number of arguments for 'xlen' command} {r xlen}
        assert_error {ERR wrong number of arguments for 'xlen' command} {r xlen a b}
    }

    # --------------------------------------------------------------------
    # XRANGE / XREVRANGE
    # --------------------------------------------------------------------

    test {XRANGE - + returns every entry} {
        r del s
        stream_fill s 1 5
        r xrange s - +
    } {{1-0 {i 1}} {2-0 {i 2}} {3-0 {i 3}} {4-0 {i 4}} {5-0 {i 5}}}

    test {XRANGE with explicit bounds is inclusive} {
        r del s
        stream_fill s 1 10
        stream_ids [r xrange s 3-0 6-0]
    } {3-0 4-0 5-0 6-0}

    test {XRANGE with incomplete IDs: start ms-0, end ms-max} {
        r del s
        r xadd s 1-0 f v
        r xadd s 2-0 f v
        r xadd s 2-7 f v
        r xadd s 3-0 f v
        list [stream_ids [r xrange s 2 2]] [stream_ids [r xrange s - 2]] [stream_ids [r xrange s 3 +]]
    } {{2-0 2-7} {1-0 2-0 2-7} 3-0}

    test {XRANGE COUNT} {
        r del s
        stream_fill s 1 10
        list [stream_ids [r xrange s - + COUNT 3]] [stream_ids [r xrange s 5 + count 2]] [llength [r xrange s - + COUNT 100]]
    } {{1-0 2-0 3-0} {5-0 6-0} 10}

    test {XRANGE COUNT 0 replies a null array} {
        r del s
        stream_fill s 1 3
        stream_shape [srv client] xrange s - + COUNT 0
    } {*-1}

    test {XRANGE negative COUNT is like COUNT 0} {
        r del s
        stream_fill s 1 3
        stream_shape [srv client] xrange s - + COUNT -5
    } {*-1}

    test {XRANGE exclusive ranges} {
        r del s
        stream_fill s 1 10
        list [stream_ids [r xrange s (2-0 (5-0]] \
             [stream_ids [r xrange s (8-0 +]] \
             [stream_ids [r xrange s - (3-0]]
    } {{3-0 4-0} {9-0 10-0} {1-0 2-0}}

    test {XRANGE exclusive incomplete IDs} {
        r del s
        r xadd s 1-0 f v
        r xadd s 2-0 f v
        r xadd s 2-1 f v
        r xadd s 3-0 f v
        # "(2" as start is after 2-0; "(3" as end is before 3-max.
        list [stream_ids [r xrange s (2 +]] [stream_ids [r xrange s - (3]] [stream_ids [r xrange s - (2]]
    } {{2-1 3-0} {1-0 2-0 2-1 3-0} {1-0 2-0 2-1}}

    test {XRANGE exclusive range with sequence overflow} {
        r del s
        r xadd s 1-18446744073709551615 f v
        r xadd s 2-0 f v
        list [stream_ids [r xrange s (1-18446744073709551615 +]] [stream_ids [r xrange s - (2-0]]
    } {2-0 1-18446744073709551615}

    test {XRANGE exclusive bounds that cannot be incremented are errors} {
        r del s
        r xadd s 1-0 f v
        assert_error {ERR invalid start ID for the interval} {r xrange s (18446744073709551615-18446744073709551615 +}
        assert_error {ERR invalid end ID for the interval} {r xrange s - (0-0}
        assert_error {ERR invalid end ID for the interval} {r xrevrange s (0-0 -}
        assert_error {ERR invalid start ID for the interval} {r xrevrange s + (18446744073709551615-18446744073709551615}
    }

    test {XRANGE ( on - or + is an invalid ID} {
        r del s
        r xadd s 1-0 f v
        foreach {a b} {(- + - (+ (+ + - (-} {
            assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s $a $b}
            assert_error {ERR Invalid stream ID specified as stream command argument} {r xrevrange s $b $a}
        }
    }

    test {XRANGE invalid IDs} {
        r del s
        r xadd s 1-0 f v
        assert_error {ERR Invalid stream ID*} {r xrange s abc +}
        assert_error {ERR Invalid stream ID*} {r xrange s - 1-x}
        assert_error {ERR Invalid stream ID*} {r xrange s ( +}
        assert_error {ERR Invalid stream ID*} {r xrange s 1-* +}
        assert_error {ERR Invalid stream ID*} {r xrange s * +}
    }

    test {XRANGE syntax errors} {
        r del s
        r xadd s 1-0 f v
        assert_error {ERR syntax error} {r xrange s - + COUNT}
        assert_error {ERR syntax error} {r xrange s - + FOO 1}
        assert_error {ERR value is not an integer or out of range} {r xrange s - + COUNT abc}
        assert_error {ERR wrong number of arguments for 'xrange' command} {r xrange s -}
        assert_error {ERR wrong number of arguments for 'xrevrange' command} {r xrevrange s +}
    }

    test {XRANGE with start after end is empty} {
        r del s
        stream_fill s 1 5
        list [r xrange s 4 2] [stream_shape [srv client] xrange s 4 2]
    } {{} *0}

    test {XRANGE on a missing key is an empty array} {
        r del s
        stream_shape [srv client] xrange s - +
    } {*0}

    test {XRANGE skips deleted entries} {
        r del s
        stream_fill s 1 6
        r xdel s 1-0 3-0 6-0
        list [stream_ids [r xrange s - +]] [stream_ids [r xrange s - + COUNT 2]] [stream_ids [r xrevrange s + - COUNT 2]]
    } {{2-0 4-0 5-0} {2-0 4-0} {5-0 4-0}}

    test {XRANGE of a single ID} {
        r del s
        stream_fill s 1 5
        list [r xrange s 3-0 3-0] [r xrange s 3-1 3-1]
    } {{{3-0 {i 3}}} {}}

    test {XREVRANGE returns entries in reverse order} {
        r del s
        stream_fill s 1 5
        stream_ids [r xrevrange s + -]
    } {5-0 4-0 3-0 2-0 1-0}

    test {XREVRANGE with bounds, COUNT and exclusive ranges} {
        r del s
        stream_fill s 1 10
        list [stream_ids [r xrevrange s 6 3]] \
             [stream_ids [r xrevrange s + - COUNT 3]] \
             [stream_ids [r xrevrange s (5-0 (2-0]] \
             [stream_ids [r xrevrange s (3 -]]
    } {{6-0 5-0 4-0 3-0} {10-0 9-0 8-0} {4-0 3-0} {3-0 2-0 1-0}}

    test {XREVRANGE COUNT 0 and empty results} {
        r del s
        stream_fill s 1 3
        list [stream_shape [srv client] xrevrange s + - COUNT 0] \
             [stream_shape [srv client] xrevrange s 1 2] \
             [stream_shape [srv client] xrevrange nosuchkey + -]
    } {*-1 *0 *0}

    test {XRANGE walks a large stream in pages} {
        r del s
        stream_fill s 1 1000
        set seen 0
        set start -
        while 1 {
            set page [r xrange s $start + COUNT 77]
            if {[llength $page] == 0} break
            incr seen [llength $page]
            set start "([lindex $page end 0]"
        }
        list $seen [lindex [r xrevrange s + - COUNT 1] 0 0]
    } {1000 1000-0}

    # --------------------------------------------------------------------
    # XDEL
    # --------------------------------------------------------------------

    test {XDEL removes entries and counts them} {
        r del s
        stream_fill s 1 5
        list [r xdel s 2-0 4-0] [r xdel s 2-0] [r xdel s 9-0] [stream_ids [r xrange s - +]]
    } {2 0 0 {1-0 3-0 5-0}}

    test {XDEL counts a repeated ID once} {
        r del s
        stream_fill s 1 3
        list [r xdel s 2-0 2-0 2] [r xlen s]
    } {1 2}

    test {XDEL on a missing key} {
        r del s
        list [r xdel s 1-0] [r exists s]
    } {0 0}

    test {XDEL with an invalid ID deletes nothing} {
        r del s
        stream_fill s 1 3
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xdel s 1-0 abc}
        r xlen s
    } {3}

    test {XDEL errors} {
        assert_error {ERR wrong number of arguments for 'xdel' command} {r xdel s}
    }

    test {XDEL of every entry keeps an empty stream} {
        r del s
        stream_fill s 1 3
        r xdel s 1-0 2-0 3-0
        list [r exists s] [r xlen s] [r type s] [r xrange s - +]
    } {1 0 stream {}}

    test {XDEL does not lower the last generated ID} {
        r del s
        stream_fill s 1 3
        r xdel s 3-0
        assert_error {ERR The ID specified in XADD is equal or smaller*} {r xadd s 3-0 f v}
        list [stream_field [r xinfo stream s] last-generated-id] [r xadd s 3-* f v]
    } {3-0 3-1}

    # --------------------------------------------------------------------
    # XTRIM
    # --------------------------------------------------------------------

    test {XTRIM MAXLEN} {
        r del s
        stream_fill s 1 10
        list [r xtrim s MAXLEN 4] [stream_ids [r xrange s - +]] [r xtrim s MAXLEN 4] [r xtrim s maxlen = 10]
    } {6 {7-0 8-0 9-0 10-0} 0 0}

    test {XTRIM MAXLEN 0 empties the stream but keeps the key} {
        r del s
        stream_fill s 1 10
        list [r xtrim s MAXLEN 0] [r xlen s] [r exists s]
    } {10 0 1}

    test {XTRIM MINID} {
        r del s
        stream_fill s 1 10
        list [r xtrim s MINID 7] [stream_ids [r xrange s - +]] [r xtrim s MINID = 8-0] [r xtrim s MINID 1]
    } {6 {7-0 8-0 9-0 10-0} 1 0}

    test {XTRIM MINID with an incomplete ID means ms-0} {
        r del s
        r xadd s 1-5 f v
        r xadd s 2-0 f v
        r xadd s 2-3 f v
        list [r xtrim s MINID 2] [stream_ids [r xrange s - +]]
    } {1 {2-0 2-3}}

    test {XTRIM MAXLEN ~ does not trim inside a single node} {
        r del s
        stream_fill s 1 10
        list [r xtrim s MAXLEN ~ 5] [r xtrim s MINID ~ 8] [r xlen s]
    } {0 0 10}

    test {XTRIM counts only existing entries} {
        r del s
        stream_fill s 1 10
        r xdel s 1-0 2-0 3-0
        list [r xtrim s MAXLEN 5] [stream_ids [r xrange s - +]]
    } {2 {6-0 7-0 8-0 9-0 10-0}}

    test {XTRIM on a missing key} {
        r del s
        list [r xtrim s MAXLEN 0] [r exists s]
    } {0 0}

    test {XTRIM errors} {
        r del s
        stream_fill s 1 3
        assert_error {ERR wrong number of arguments for 'xtrim' command} {r xtrim s MAXLEN}
        assert_error {ERR syntax error} {r xtrim s FOO 1}
        assert_error {ERR syntax error} {r xtrim s MAXLEN ~ 1 FOO}
        assert_error {ERR The MAXLEN argument must be >= 0.} {r xtrim s MAXLEN -1}
        assert_error {ERR value is not an integer or out of range} {r xtrim s MAXLEN x}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} {r xtrim s MAXLEN 1 LIMIT 2}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} {r xtrim s MINID = 1 LIMIT 2}
        assert_error {ERR The LIMIT argument must be >= 0.} {r xtrim s MAXLEN ~ 1 LIMIT -1}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xtrim s MINID abc}
        assert_error {ERR syntax error, MAXLEN and MINID options at the same time are not compatible} {r xtrim s MAXLEN 1 MINID 1}
        r xlen s
    } {3}

    test {XTRIM does not touch max-deleted-entry-id but moves the first entry} {
        r del s
        stream_fill s 1 10
        r xtrim s MAXLEN 3
        set info [r xinfo stream s]
        list [stream_field $info max-deleted-entry-id] [stream_field $info recorded-first-entry-id] \
             [stream_field $info entries-added] [stream_field $info length]
    } {0-0 8-0 10 3}

    # Small nodes make approximate trimming observable: with
    # stream-node-max-entries 4 the entries 1..10 live in nodes
    # [1..4] [5..8] [9..10], and "~" only removes whole nodes.
    start_server {tags {"stream"} overrides {stream-node-max-entries 4} casq_overrides {stream-id-mode liberal}} {
        test {XTRIM MAXLEN ~ removes whole nodes only} {
            r del s
            stream_fill s 1 10
            list [r xtrim s MAXLEN ~ 5] [stream_ids [r xrange s - +]]
        } {4 {5-0 6-0 7-0 8-0 9-0 10-0}}

        test {XTRIM MAXLEN ~ 0 removes every node} {
            r del s
            stream_fill s 1 10
            list [r xtrim s MAXLEN ~ 0] [r xlen s] [r exists s]
        } {10 0 1}

        test {XTRIM MINID ~ removes whole nodes below the ID} {
            r del s
            stream_fill s 1 10
            list [r xtrim s MINID ~ 6] [stream_ids [r xrange s - +]] [r xtrim s MINID ~ 10] [r xlen s]
        } {4 {5-0 6-0 7-0 8-0 9-0 10-0} 4 2}

        test {XTRIM ~ LIMIT bounds the number of removed entries} {
            r del s
            stream_fill s 1 10
            list [r xtrim s MAXLEN ~ 0 LIMIT 1] [r xtrim s MAXLEN ~ 0 LIMIT 4] [r xlen s] [r xtrim s MAXLEN ~ 0 LIMIT 0] [r xlen s]
        } {0 4 6 6 0}

        test {XADD MAXLEN ~ LIMIT} {
            r del s
            stream_fill s 1 10
            # 11 entries after the add: [1..4] [5..8] [9..11].
            list [r xadd s MAXLEN ~ 0 LIMIT 5 11-0 f v] [r xlen s] [r xadd s MAXLEN ~ 2 12-0 f v] [r xlen s]
        } {11-0 7 12-0 4}

        test {XTRIM with = and a LIMIT-free exact trim inside nodes} {
            r del s
            stream_fill s 1 10
            list [r xtrim s MAXLEN = 5] [stream_ids [r xrange s - +]]
        } {5 {6-0 7-0 8-0 9-0 10-0}}

        test {XDEL then XTRIM ~ across partly deleted nodes} {
            r del s
            stream_fill s 1 10
            r xdel s 1-0 2-0 3-0
            # Nodes: [4] (1..3 deleted), [5..8], [9..10]; only the first
            # can go without leaving fewer than 3 entries.
            list [r xtrim s MAXLEN ~ 3] [stream_ids [r xrange s - +]]
        } {1 {5-0 6-0 7-0 8-0 9-0 10-0}}
    }

    # --------------------------------------------------------------------
    # XSETID
    # --------------------------------------------------------------------

    test {XSETID moves the last ID forward} {
        r del s
        stream_fill s 1 3
        assert_equal OK [r xsetid s 100-0]
        assert_error {ERR The ID specified in XADD is equal or smaller*} {r xadd s 50-0 f v}
        list [stream_field [r xinfo stream s] last-generated-id] [r xadd s 100-* f v]
    } {100-0 100-1}

    test {XSETID to the top item is allowed, below it is not} {
        r del s
        stream_fill s 1 3
        assert_equal OK [r xsetid s 3-0]
        assert_error {ERR The ID specified in XSETID is smaller than the target stream top item} {r xsetid s 2-5}
        stream_field [r xinfo stream s] last-generated-id
    } {3-0}

    test {XSETID on an emptied stream may go below the last ID} {
        # Trimming (unlike XDEL) leaves max-deleted-entry-id alone.
        r del s
        stream_fill s 1 3
        r xtrim s MAXLEN 0
        list [r xsetid s 2-0] [stream_field [r xinfo stream s] last-generated-id] [r xadd s 2-1 f v]
    } {OK 2-0 2-1}

    test {XSETID below max-deleted-entry-id is an error (Redis 7.2)} {
        # Added in 7.2 (PR #11444); 7.0 accepted the ID.
        r del s
        stream_fill s 1 3
        r xdel s 3-0
        catch {r xsetid s 2-5} e
        list $e [stream_field [r xinfo stream s] last-generated-id]
    } {{ERR The ID specified in XSETID is smaller than current max_deleted_entry_id} 3-0} {redis7.2}

    test {XSETID with an incomplete ID} {
        r del s
        stream_fill s 1 3
        r xsetid s 7
        stream_field [r xinfo stream s] last-generated-id
    } {7-0}

    test {XSETID ENTRIESADDED and MAXDELETEDID} {
        r del s
        stream_fill s 1 3
        assert_equal OK [r xsetid s 10-0 ENTRIESADDED 42 MAXDELETEDID 8-0]
        set info [r xinfo stream s]
        list [stream_field $info last-generated-id] [stream_field $info entries-added] [stream_field $info max-deleted-entry-id]
    } {10-0 42 8-0}

    test {XSETID errors} {
        r del s
        stream_fill s 1 3
        assert_error {ERR no such key} {r xsetid nosuchkey 1-0}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xsetid s abc}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xsetid s 10-0 MAXDELETEDID abc}
        assert_error {ERR entries_added must be positive} {r xsetid s 10-0 ENTRIESADDED -1}
        assert_error {ERR value is not an integer or out of range} {r xsetid s 10-0 ENTRIESADDED x}
        assert_error {ERR The entries_added specified in XSETID is smaller than the target stream length} {r xsetid s 10-0 ENTRIESADDED 2}
        assert_error {ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id} {r xsetid s 10-0 ENTRIESADDED 5 MAXDELETEDID 20-0}
        assert_error {ERR syntax error} {r xsetid s 10-0 FOO}
        assert_error {ERR syntax error} {r xsetid s 10-0 ENTRIESADDED}
        assert_error {ERR wrong number of arguments for 'xsetid' command} {r xsetid s}
        set info [r xinfo stream s]
        list [stream_field $info last-generated-id] [stream_field $info entries-added]
    } {3-0 3}

    test {XSETID to the maximum ID exhausts the stream} {
        r del s
        r xadd s 1-0 f v
        r xsetid s 18446744073709551615-18446744073709551615
        assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} {r xadd s * f v}
        r xlen s
    } {1}

    # --------------------------------------------------------------------
    # XINFO STREAM
    # --------------------------------------------------------------------

    test {XINFO STREAM fields and their order} {
        r del s
        stream_fill s 1 3
        set info [r xinfo stream s]
        set keys {}
        foreach {k v} $info {lappend keys $k}
        set keys
    } {length radix-tree-keys radix-tree-nodes last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id groups first-entry last-entry}

    test {XINFO STREAM values} {
        r del s
        stream_fill s 1 3
        r xgroup create s g1 0
        r xgroup create s g2 0
        set info [r xinfo stream s]
        assert {[string is integer -strict [stream_field $info radix-tree-keys]]}
        assert {[string is integer -strict [stream_field $info radix-tree-nodes]]}
        set res {}
        foreach k {length last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id groups first-entry last-entry} {
            lappend res [stream_field $info $k]
        }
        set res
    } {3 3-0 0-0 3 1-0 2 {1-0 {i 1}} {3-0 {i 3}}}

    test {XINFO STREAM tracks entries-added, max-deleted-entry-id and the first entry} {
        r del s
        stream_fill s 1 5
        r xdel s 1-0 4-0
        set info [r xinfo stream s]
        set res {}
        foreach k {length last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id first-entry last-entry} {
            lappend res [stream_field $info $k]
        }
        set res
    } {3 5-0 4-0 5 2-0 {2-0 {i 2}} {5-0 {i 5}}}

    test {XINFO STREAM of an empty stream} {
        r del s
        stream_fill s 1 2
        r xdel s 1-0 2-0
        set info [r xinfo stream s]
        set res {}
        foreach k {length last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id first-entry last-entry} {
            lappend res [stream_field $info $k]
        }
        set res
    } {0 2-0 2-0 2 0-0 {} {}}

    test {XINFO STREAM of a stream created by XGROUP CREATE MKSTREAM} {
        r del s
        r xgroup create s g $ MKSTREAM
        set info [r xinfo stream s]
        set res {}
        foreach k {length last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id groups first-entry last-entry} {
            lappend res [stream_field $info $k]
        }
        set res
    } {0 0-0 0-0 0 0-0 1 {} {}}

    test {XINFO STREAM FULL} {
        r del s
        stream_fill s 1 3
        set info [r xinfo stream s FULL]
        set keys {}
        foreach {k v} $info {lappend keys $k}
        assert_equal {length radix-tree-keys radix-tree-nodes last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id entries groups} $keys
        list [stream_field $info length] [stream_field $info entries] [stream_field $info groups] [stream_field $info entries-added]
    } {3 {{1-0 {i 1}} {2-0 {i 2}} {3-0 {i 3}}} {} 3}

    test {XINFO STREAM FULL COUNT limits entries (0 means all)} {
        r del s
        stream_fill s 1 20
        list [stream_ids [stream_field [r xinfo stream s FULL COUNT 2] entries]] \
             [llength [stream_field [r xinfo stream s FULL COUNT 0] entries]] \
             [llength [stream_field [r xinfo stream s FULL] entries]] \
             [llength [stream_field [r xinfo stream s FULL COUNT 100] entries]]
    } {{1-0 2-0} 20 10 20}

    test {XINFO STREAM errors} {
        r del s
        assert_error {ERR no such key} {r xinfo stream s}
        r xadd s 1-0 f v
        assert_error {ERR value is not an integer or out of range} {r xinfo stream s FULL COUNT abc}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.} {r xinfo stream s FOO}
        assert_error {ERR wrong number of arguments for 'xinfo|stream' command} {r xinfo stream}
    }

    test {XINFO HELP} {
        r xinfo help
    } {{XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} {CONSUMERS <key> <groupname>} {    Show consumers of <groupname>.} {GROUPS <key>} {    Show the stream consumer groups.} {STREAM <key> [FULL [COUNT <count>]} {    Show information about the stream.} HELP {    Prints this help.}}

    test {XINFO unknown subcommand} {
        catch {r xinfo foo} e
        set e
    } {ERR unknown subcommand 'foo'. Try XINFO HELP.}

    # --------------------------------------------------------------------
    # XREAD (non blocking)
    # --------------------------------------------------------------------

    test {XREAD from 0 returns the whole stream} {
        r del s
        stream_fill s 1 3
        r xread STREAMS s 0
    } {{s {{1-0 {i 1}} {2-0 {i 2}} {3-0 {i 3}}}}}

    test {XREAD returns entries strictly after the ID} {
        r del s
        stream_fill s 1 5
        list [stream_ids [lindex [r xread STREAMS s 3-0] 0 1]] [stream_ids [lindex [r xread STREAMS s 3] 0 1]] [stream_ids [lindex [r xread STREAMS s 2-5] 0 1]]
    } {{4-0 5-0} {4-0 5-0} {3-0 4-0 5-0}}

    test {XREAD COUNT} {
        r del s
        stream_fill s 1 5
        list [stream_ids [lindex [r xread COUNT 2 STREAMS s 0] 0 1]] \
             [stream_ids [lindex [r xread count 0 streams s 3] 0 1]] \
             [stream_ids [lindex [r xread COUNT -1 STREAMS s 3] 0 1]]
    } {{1-0 2-0} {4-0 5-0} {4-0 5-0}}

    test {XREAD of several keys, only keys with data are in the reply} {
        r del s1 s2 s3
        r xadd s1 1-0 a 1
        r xadd s2 2-0 b 2
        r xadd s3 3-0 c 3
        r xread STREAMS s1 s2 s3 nokey 0 2-0 0 0
    } {{s1 {{1-0 {a 1}}}} {s3 {{3-0 {c 3}}}}}

    test {XREAD of the same key twice} {
        r del s
        stream_fill s 1 3
        r xread STREAMS s s 1 2
    } {{s {{2-0 {i 2}} {3-0 {i 3}}}} {s {{3-0 {i 3}}}}}

    test {XREAD with no data replies a null array} {
        r del s
        r xadd s 1-0 f v
        list [stream_shape [srv client] xread STREAMS s 1-0] [stream_shape [srv client] xread STREAMS nokey 0] [stream_shape [srv client] xread STREAMS s {$}]
    } {*-1 *-1 *-1}

    test {XREAD + returns the last entry (Redis 7.4; an invalid ID before)} {
        # XREAD's "+" ID (read the last entry) was added in Redis 7.4;
        # before, XREAD rejects it like any invalid ID. casq reports 7.2
        # but implements this 7.4 addition on purpose (issue 3).
        r del s
        stream_fill s 1 3
        if {[stream_version_at_least 7.4] || [opt server] eq "casq"} {
            assert_equal {{s {{3-0 {i 3}}}}} [r xread STREAMS s +]
        } else {
            assert_error {ERR Invalid stream ID specified as stream command argument} {r xread STREAMS s +}
        }
    } {} {redis7.4}

    test {XREAD BLOCK with data available replies at once} {
        r del s
        stream_fill s 1 2
        r xread BLOCK 0 STREAMS s 1-0
    } {{s {{2-0 {i 2}}}}}

    test {XREAD errors} {
        r del s
        r xadd s 1-0 f v
        assert_error {ERR Unbalanced*list of streams: for each stream key an ID or '$' must be specified.} {r xread STREAMS s1 s2 0}
        assert_error {ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.} {r xread STREAMS s >}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xread STREAMS s abc}
        assert_error {ERR timeout is negative} {r xread BLOCK -1 STREAMS s 0}
        assert_error {ERR timeout is not an integer or out of range} {r xread BLOCK abc STREAMS s 0}
        assert_error {ERR value is not an integer or out of range} {r xread COUNT abc STREAMS s 0}
        assert_error {ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.} {r xread NOACK STREAMS s 0}
        assert_error {ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.} {r xread GROUP g c STREAMS s 0}
        assert_error {ERR syntax error} {r xread FOO STREAMS s 0}
        assert_error {ERR syntax error} {r xread COUNT 1 s 0}
        assert_error {ERR wrong number of arguments for 'xread' command} {r xread STREAMS s}
    }

    test {XREAD unbalanced streams error text (Redis 7.2)} {
        # 7.2 names the command in quotes and the special ID; 7.0 said
        # "Unbalanced XREAD list of streams".
        r del s
        catch {r xread STREAMS s1 s2 0} e
        set e
    } {ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.} {redis7.2}

    # casq has no other data types: this runs against redis-server only
    # (see stream_util.tcl, tag needs:other-types).
    test {Stream commands against a key of another type} {
        r del str
        r set str x
        set wt {WRONGTYPE Operation against a key holding the wrong kind of value}
        assert_error $wt {r xadd str * f v}
        assert_error $wt {r xadd str NOMKSTREAM * f v}
        assert_error $wt {r xlen str}
        assert_error $wt {r xrange str - +}
        assert_error $wt {r xrevrange str + -}
        assert_error $wt {r xdel str 1-0}
        assert_error $wt {r xtrim str MAXLEN 1}
        assert_error $wt {r xsetid str 1-0}
        assert_error $wt {r xinfo stream str}
        assert_error $wt {r xread STREAMS str 0}
        assert_error $wt {r xread STREAMS s str 0 0}
        r get str
    } {x} {needs:other-types}

    # --------------------------------------------------------------------
    # Streams and the keyspace
    # --------------------------------------------------------------------

    test {TYPE of a stream} {
        r del s
        r xadd s 1-0 f v
        r type s
    } {stream}

    test {DEL and UNLINK remove a stream with its groups} {
        r del s s2
        r xadd s 1-0 f v
        r xgroup create s g 0
        r xadd s2 1-0 f v
        list [r del s] [r unlink s2] [r exists s s2] [r xlen s] \
             [catch {r xinfo groups s} e] $e
    } {1 1 0 0 1 {ERR no such key}}

    test {A stream created again after DEL starts from scratch} {
        r del s
        r xadd s 5-0 f v
        r xgroup create s g 0
        r del s
        list [r xadd s 1-0 f v] [stream_field [r xinfo stream s] groups] [stream_field [r xinfo stream s] entries-added]
    } {1-0 0 1}

    test {RENAME keeps entries, IDs and groups} {
        r del s t
        stream_fill s 1 3
        r xgroup create s g 0
        r xreadgroup GROUP g c COUNT 1 STREAMS s >
        r rename s t
        list [r exists s] [stream_ids [r xrange t - +]] \
             [stream_field [lindex [r xinfo groups t] 0] pending] \
             [stream_field [r xinfo stream t] last-generated-id]
    } {0 {1-0 2-0 3-0} 1 3-0}

    test {RENAMENX onto an existing stream fails} {
        r del s t
        r xadd s 1-0 f v
        r xadd t 2-0 f v
        list [r renamenx s t] [stream_ids [r xrange t - +]]
    } {0 2-0}

    test {EXPIRE on a stream} {
        r del s
        r xadd s 1-0 f v
        list [r expire s 100] [expr {[r ttl s] > 0}] [r persist s] [r ttl s]
    } {1 1 1 -1}

    test {A stream expires} {
        r del s
        r xadd s 1-0 f v
        r pexpire s 50
        wait_for_condition 100 20 {[r exists s] == 0} else {fail "stream did not expire"}
        list [r xlen s] [r xrange s - +]
    } {0 {}}

    test {XADD keeps the TTL of a stream} {
        r del s
        r xadd s 1-0 f v
        r expire s 100
        r xadd s 2-0 f v
        r xtrim s MAXLEN 1
        r xdel s 2-0
        expr {[r ttl s] > 0}
    } {1}

    test {FLUSHALL removes streams} {
        r del s
        r xadd s 1-0 f v
        r flushall
        list [r exists s] [r dbsize]
    } {0 0}

    test {SWAPDB moves streams with their groups} {
        r flushall
        r xadd s 1-0 f v
        r xgroup create s g 0
        r swapdb 9 10
        set here [r exists s]
        r select 10
        set there [list [r xlen s] [llength [r xinfo groups s]]]
        r select 9
        r swapdb 9 10
        list $here $there [r xlen s]
    } {0 {1 1} 1}

    test {MULTI/EXEC with stream commands} {
        r del s
        r multi
        r xadd s 1-0 f v
        r xadd s 2-0 g w
        r xlen s
        r xrange s - +
        r xdel s 1-0
        list [r exec] [r xlen s]
    } {{1-0 2-0 2 {{1-0 {f v}} {2-0 {g w}}} 1} 1}

    test {MULTI/EXEC: the error of a failing XADD is returned inline} {
        r del s
        r multi
        r xadd s 1-0 f v
        r xadd s 1-0 f v
        r xadd s 2-0 f v
        set c [srv client]
        $c errors_inline 1
        set res [r exec]
        $c errors_inline 0
        list $res [r xlen s]
    } {{1-0 {ERR The ID specified in XADD is equal or smaller than the target stream top item} 2-0} 2}

    test {WATCH a stream: XADD by another client aborts EXEC} {
        r del s
        r xadd s 1-0 f v
        r watch s
        set c [redis_client]
        $c xadd s 2-0 f v
        $c close
        r multi
        r xlen s
        list [r exec] [r xlen s]
    } {{} 2}

    # --------------------------------------------------------------------
    # RESP3
    # --------------------------------------------------------------------

    test {RESP3: XREAD replies a map keyed by stream name} {
        r del s t
        r xadd s 1-0 f v
        r xadd t 2-0 g w
        set c [redis_client]
        $c hello 3
        set shape [stream_shape $c xread STREAMS s t 0 0]
        set parsed [$c xread STREAMS s t 0 0]
        $c close
        list $shape $parsed
    } {{%2 s *1 *2 1-0 *2 f v t *1 *2 2-0 *2 g w} {s {{1-0 {f v}}} t {{2-0 {g w}}}}}

    test {RESP3: XREAD with no data replies null} {
        r del s
        set c [redis_client]
        $c hello 3
        set shape [stream_shape $c xread STREAMS s 0]
        $c close
        set shape
    } {_}

    test {RESP3: XRANGE replies arrays} {
        r del s
        r xadd s 1-0 f v
        set c [redis_client]
        $c hello 3
        set res [list [stream_shape $c xrange s - +] [stream_shape $c xrange s - + COUNT 0] [stream_shape $c xadd nokey NOMKSTREAM * f v]]
        $c close
        set res
    } {{*1 *2 1-0 *2 f v} _ _}

    test {RESP3: XINFO STREAM replies a map} {
        r del s
        r xadd s 1-0 f v
        set c [redis_client]
        $c hello 3
        set shape [stream_shape $c xinfo stream s]
        $c close
        # radix-tree-* values are implementation details: blank them.
        regsub {radix-tree-keys :\d+ radix-tree-nodes :\d+} $shape {radix-tree-keys :N radix-tree-nodes :N} shape
        set shape
    } {%10 length :1 radix-tree-keys :N radix-tree-nodes :N last-generated-id 1-0 max-deleted-entry-id 0-0 entries-added :1 recorded-first-entry-id 1-0 groups :0 first-entry *2 1-0 *2 f v last-entry *2 1-0 *2 f v}

    test {RESP3: XINFO STREAM FULL replies maps} {
        r del s
        r xadd s 1-0 f v
        r xgroup create s g 0
        set c [redis_client]
        $c hello 3
        set shape [stream_shape $c xinfo stream s FULL]
        $c close
        regsub {radix-tree-keys :\d+ radix-tree-nodes :\d+} $shape {radix-tree-keys :N radix-tree-nodes :N} shape
        set shape
    } {%9 length :1 radix-tree-keys :N radix-tree-nodes :N last-generated-id 1-0 max-deleted-entry-id 0-0 entries-added :1 recorded-first-entry-id 1-0 entries *1 *2 1-0 *2 f v groups *1 %7 name g last-delivered-id 0-0 entries-read _ lag :1 pel-count :0 pending *0 consumers *0}

    test {RESP2: XINFO STREAM is a flat array} {
        r del s
        r xadd s 1-0 f v
        set shape [stream_shape [srv client] xinfo stream s]
        string range $shape 0 2
    } {*20}
}
