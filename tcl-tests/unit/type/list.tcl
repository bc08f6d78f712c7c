# Lists without blocking: pushes, pops, ranges, in-place changes, LMOVE,
# LMPOP, encodings, RESP shapes and errors. Every test must pass against
# redis-server too (the WRONGTYPE checks use a stream key).
#
# Blocking pops are in list-blocking.tcl.

source [file join [file dirname [info script]] .. .. support stream_util.tcl]

start_server {tags {"list"}} {

    proc make_wrongtype {key} {
        r del $key
        r xadd $key * f v
    }

    # --------------------------------------------------------------------
    # Push and pop
    # --------------------------------------------------------------------

    test {LPUSH, RPUSH, LLEN, LINDEX, LPOP, RPOP} {
        r del l
        assert_equal 1 [r lpush l a]
        assert_equal 2 [r rpush l b]
        assert_equal 4 [r lpush l c d]
        assert_equal {d c a b} [r lrange l 0 -1]
        assert_equal 4 [r llen l]
        list [r lindex l 0] [r lindex l -1] [r lindex l 10] [r lpop l] [r rpop l] [r lrange l 0 -1]
    } {d b {} d b {c a}}

    test {Variadic LPUSH pushes left to right} {
        r del l
        r lpush l 1 2 3
        r lrange l 0 -1
    } {3 2 1}

    test {LPUSHX and RPUSHX on a missing key do nothing} {
        r del l
        list [r lpushx l a] [r rpushx l a b] [r exists l]
    } {0 0 0}

    test {LPUSHX and RPUSHX on an existing list} {
        r del l
        r rpush l x
        list [r lpushx l a b] [r rpushx l c d] [r lrange l 0 -1]
    } {3 5 {b a x c d}}

    test {LPOP/RPOP on a missing key} {
        r del l
        list [r lpop l] [r rpop l]
    } {{} {}}

    test {LPOP/RPOP with COUNT} {
        r del l
        r rpush l a b c d e
        list [r lpop l 2] [r rpop l 2] [r lpop l 10] [r exists l]
    } {{a b} {e d} c 0}

    test {LPOP with COUNT on a missing key is a null array} {
        r del l
        stream_shape [srv client] lpop l 3
    } {*-1}

    test {LPOP with COUNT 0 is an empty array} {
        r del l
        r rpush l a
        list [stream_shape [srv client] lpop l 0] [r llen l]
    } {*0 1}

    test {LPOP COUNT errors} {
        r del l
        r rpush l a
        assert_error {ERR value is out of range, must be positive} {r lpop l -1}
        assert_error {ERR value is out of range, must be positive} {r lpop l abc}
        assert_error {ERR wrong number of arguments for 'lpop' command} {r lpop l 1 2}
    }

    test {The last pop deletes the key} {
        r del l
        r rpush l a
        r lpop l
        r exists l
    } {0}

    test {Binary-safe elements} {
        r del l
        set bin "a\x00b\xff\r\n"
        r rpush l $bin ""
        list [string equal [r lindex l 0] $bin] [r lindex l 1] [r llen l]
    } {1 {} 2}

    # --------------------------------------------------------------------
    # Ranges
    # --------------------------------------------------------------------

    test {LRANGE with positive, negative and out-of-range indexes} {
        r del l
        r rpush l 0 1 2 3 4 5 6 7 8 9
        list [r lrange l 0 2] [r lrange l -3 -1] [r lrange l 5 100] [r lrange l -100 1] \
             [r lrange l 7 3] [r lrange l 20 30] [r lrange nolist 0 -1]
    } {{0 1 2} {7 8 9} {5 6 7 8 9} {0 1} {} {} {}}

    test {LRANGE index errors} {
        r del l
        r rpush l a
        assert_error {ERR value is not an integer or out of range} {r lrange l a 1}
        assert_error {ERR value is not an integer or out of range} {r lrange l 0 1.5}
    }

    test {LINDEX index error} {
        r del l
        r rpush l a
        assert_error {ERR value is not an integer or out of range} {r lindex l x}
    }

    test {LTRIM keeps a range} {
        r del l
        r rpush l 0 1 2 3 4 5
        r ltrim l 1 -2
        r lrange l 0 -1
    } {1 2 3 4}

    test {LTRIM out of range deletes the key} {
        r del l
        r rpush l a b c
        list [r ltrim l 5 10] [r exists l] [r ltrim nolist 0 1]
    } {OK 0 OK}

    test {LTRIM with start after end empties the list} {
        r del l
        r rpush l a b c
        r ltrim l 2 1
        r exists l
    } {0}

    # --------------------------------------------------------------------
    # LSET LINSERT LREM LPOS
    # --------------------------------------------------------------------

    test {LSET} {
        r del l
        r rpush l a b c
        list [r lset l 0 x] [r lset l -1 z] [r lrange l 0 -1]
    } {OK OK {x b z}}

    test {LSET errors} {
        r del l
        assert_error {ERR no such key} {r lset l 0 x}
        r rpush l a
        assert_error {ERR index out of range} {r lset l 1 x}
        assert_error {ERR index out of range} {r lset l -2 x}
        assert_error {ERR value is not an integer or out of range} {r lset l x x}
    }

    test {LINSERT before and after} {
        r del l
        r rpush l a b c
        list [r linsert l before b X] [r linsert l AFTER c Y] [r linsert l before a Z] [r lrange l 0 -1]
    } {4 5 6 {Z a X b c Y}}

    test {LINSERT with a missing pivot or key} {
        r del l
        r rpush l a
        list [r linsert l before nope x] [r linsert nolist before a x] [r exists nolist]
    } {-1 0 0}

    test {LINSERT syntax error} {
        r del l
        r rpush l a
        assert_error {ERR syntax error} {r linsert l middle a x}
    }

    test {LINSERT into a long list keeps the order} {
        r del l
        for {set i 0} {$i < 600} {incr i} {r rpush l $i}
        r linsert l after 300 x
        r linsert l before 0 y
        r linsert l after 599 z
        list [r llen l] [r lindex l 302] [r lindex l 0] [r lindex l -1] [r lrange l 300 303]
    } {603 x y z {299 300 x 301}}

    test {LREM from the head, from the tail, all} {
        r del l
        r rpush l a b a c a b a
        assert_equal 2 [r lrem l 2 a]
        assert_equal {b c a b a} [r lrange l 0 -1]
        assert_equal 1 [r lrem l -1 b]
        assert_equal {b c a a} [r lrange l 0 -1]
        assert_equal 2 [r lrem l 0 a]
        assert_equal {b c} [r lrange l 0 -1]
        assert_equal 0 [r lrem l 0 zz]
        list [r lrem l 0 b] [r lrem l 0 c] [r exists l] [r lrem nolist 0 a]
    } {1 1 0 0}

    test {LREM with the smallest count removes every match} {
        r del l
        r rpush l x a x x
        list [r lrem l -9223372036854775808 x] [r lrange l 0 -1]
    } {3 a}

    test {LREM across chunks} {
        r del l
        for {set i 0} {$i < 500} {incr i} {r rpush l [expr {$i % 3}]}
        list [r lrem l 0 1] [r llen l] [r lrange l 0 5] [r lrem l -10 2] [r lrange l -5 -1]
    } {167 333 {0 2 0 2 0 2} 10 {0 0 0 0 0}}

    test {LPOS basics} {
        r del l
        r rpush l a b c 1 2 3 c c
        list [r lpos l c] [r lpos l c RANK 2] [r lpos l c RANK -1] [r lpos l c RANK -3] [r lpos l nope]
    } {2 6 7 2 {}}

    test {LPOS COUNT and MAXLEN} {
        r del l
        r rpush l a b c 1 2 3 c c
        list [r lpos l c COUNT 0] [r lpos l c COUNT 2] [r lpos l c COUNT 2 RANK -1] \
             [r lpos l c COUNT 0 MAXLEN 3] [r lpos l c MAXLEN 1] [r lpos l nope COUNT 0] [r lpos nolist a COUNT 1]
    } {{2 6 7} {2 6} {7 6} 2 {} {} {}}

    test {LPOS errors} {
        r del l
        r rpush l a
        assert_error {ERR RANK can't be zero*} {r lpos l a RANK 0}
        assert_error {ERR COUNT can't be negative} {r lpos l a COUNT -1}
        assert_error {ERR MAXLEN can't be negative} {r lpos l a MAXLEN -1}
        assert_error {ERR syntax error} {r lpos l a FOO 1}
        assert_error {ERR syntax error} {r lpos l a RANK}
    }

    test {LPOS RANK LONG_MIN is out of range} {
        r del l
        r rpush l a
        assert_error {ERR value is out of range*} {r lpos l a RANK -9223372036854775808}
    } {} {redis7.2}

    test {LPOS on a missing key without COUNT is null} {
        r del l
        stream_shape [srv client] lpos l a
    } {$-1}

    # --------------------------------------------------------------------
    # LMOVE RPOPLPUSH LMPOP
    # --------------------------------------------------------------------

    test {LMOVE in all four directions} {
        r del s d
        r rpush s 1 2 3 4
        list [r lmove s d left left] [r lmove s d left right] [r lmove s d right left] \
             [r lmove s d right right] [r lrange d 0 -1] [r exists s]
    } {1 2 4 3 {4 1 2 3} 0}

    test {RPOPLPUSH} {
        r del s d
        r rpush s a b c
        list [r rpoplpush s d] [r rpoplpush s d] [r lrange s 0 -1] [r lrange d 0 -1]
    } {c b a {b c}}

    test {RPOPLPUSH and LMOVE on the same list rotate it} {
        r del l
        r rpush l a b c
        list [r rpoplpush l l] [r lrange l 0 -1] [r lmove l l left right] [r lrange l 0 -1]
    } {c {c a b} c {a b c}}

    test {LMOVE of a single-element list onto itself keeps the key} {
        r del l
        r rpush l a
        list [r lmove l l left left] [r lrange l 0 -1]
    } {a a}

    test {LMOVE from a missing key is null and creates nothing} {
        r del s d
        list [r lmove s d left left] [r rpoplpush s d] [r exists d]
    } {{} {} 0}

    test {LMOVE syntax error} {
        r del s
        r rpush s a
        assert_error {ERR syntax error} {r lmove s d up left}
        assert_error {ERR syntax error} {r lmove s d left down}
    }

    test {LMOVE against a wrong-type destination leaves the source alone} {
        r del s
        make_wrongtype d
        r rpush s a b
        assert_error {WRONGTYPE*} {r lmove s d left left}
        assert_error {WRONGTYPE*} {r rpoplpush s d}
        r lrange s 0 -1
    } {a b}

    test {LMPOP LEFT/RIGHT with and without COUNT} {
        r del l1 l2
        r rpush l2 a b c d
        list [r lmpop 2 l1 l2 left] [r lmpop 2 l1 l2 right count 2] [r lmpop 1 l2 left count 10] \
             [r lmpop 2 l1 l2 left]
    } {{l2 a} {l2 {d c}} {l2 b} {}}

    test {LMPOP takes the first non-empty key} {
        r del l1 l2
        r rpush l1 x
        r rpush l2 y
        list [r lmpop 2 l1 l2 right] [r lmpop 2 l1 l2 right]
    } {{l1 x} {l2 y}}

    test {LMPOP errors} {
        r del l
        assert_error {ERR numkeys should be greater than 0} {r lmpop 0 l left}
        assert_error {ERR numkeys should be greater than 0} {r lmpop -1 l left}
        assert_error {ERR numkeys*} {r lmpop a l left}
        assert_error {ERR syntax error} {r lmpop 2 l left}
        assert_error {ERR syntax error} {r lmpop 1 l middle}
        assert_error {ERR syntax error} {r lmpop 1 l left count}
        assert_error {ERR syntax error} {r lmpop 1 l left count 1 count 1}
        assert_error {ERR count should be greater than 0} {r lmpop 1 l left count 0}
        assert_error {ERR syntax error} {r lmpop 1 l left foo}
        assert_error {ERR syntax error} {r lmpop 9223372036854775807 l left}
    }

    test {LMPOP shapes in RESP2 and RESP3} {
        r del l
        r rpush l a b
        set r2 [stream_shape [srv client] lmpop 1 l left count 1]
        set r2n [stream_shape [srv client] lmpop 1 nolist left]
        r hello 3
        set r3 [stream_shape [srv client] lmpop 1 l left count 1]
        set r3n [stream_shape [srv client] lmpop 1 nolist left]
        r hello 2
        list $r2 $r2n $r3 $r3n
    } {{*2 l *1 a} *-1 {*2 l *1 b} _}

    test {LMPOP against a wrong type in the middle} {
        r del l1 l2
        make_wrongtype l2
        r rpush l1 a
        list [r lmpop 2 l1 l2 left] [catch {r lmpop 2 l1 l2 left} e] $e
    } {{l1 a} 1 {WRONGTYPE Operation against a key holding the wrong kind of value}}

    # --------------------------------------------------------------------
    # WRONGTYPE
    # --------------------------------------------------------------------

    test {List commands against a stream key are WRONGTYPE} {
        make_wrongtype k
        foreach cmd {
            {lpush k a} {rpush k a} {lpushx k a} {rpushx k a} {lpop k} {rpop k} {llen k}
            {lindex k 0} {lrange k 0 -1} {lset k 0 a} {linsert k before a b} {lrem k 0 a}
            {ltrim k 0 1} {lpos k a} {lmove k x left left} {rpoplpush k x} {lmpop 1 k left}
        } {
            assert_error {WRONGTYPE*} {r {*}$cmd}
        }
        r type k
    } {stream}

    test {TYPE and OBJECT ENCODING of a list} {
        r del l
        r rpush l a
        list [r type l] [r object encoding l]
    } {list listpack} {redis7.2}

    # --------------------------------------------------------------------
    # Encodings (list-max-listpack-size; Redis 7.2 keeps small lists as a
    # listpack, 7.0 always used a quicklist)
    # --------------------------------------------------------------------

    test {A big element makes a quicklist; shrinking makes a listpack again} {
        r del l
        r rpush l a
        r rpush l [string repeat x 9000]
        set e1 [r object encoding l]
        r rpop l
        list $e1 [r object encoding l]
    } {quicklist listpack} {redis7.2}

    test {Many elements make a quicklist} {
        r del l
        for {set i 0} {$i < 2000} {incr i} {r rpush l "element-$i"}
        set e [r object encoding l]
        r ltrim l 0 9
        list $e [r object encoding l] [r llen l]
    } {quicklist listpack 10} {redis7.2}

    test {list-max-listpack-size with a count} {
        r config set list-max-listpack-size 4
        r del l
        r rpush l 1 2 3 4
        set e1 [r object encoding l]
        r rpush l 5
        set e2 [r object encoding l]
        r config set list-max-listpack-size -2
        list $e1 $e2
    } {listpack quicklist} {redis7.2}

    test {list-max-ziplist-size is an alias} {
        r config set list-max-ziplist-size -3
        set v [r config get list-max-listpack-size]
        r config set list-max-listpack-size -2
        set v
    } {list-max-listpack-size -3}

    # --------------------------------------------------------------------
    # Queues, COPY, RENAME, restart
    # --------------------------------------------------------------------

    # A long list's full chunks of plain-text elements are kept in their
    # JSON once a commit wrote them; every change below lands in such a
    # chunk, in the middle of the list or at an end, and some elements
    # need escaping (a chunk holding one stays as it was).
    test {A long list changed in every part keeps its order and contents} {
        r del big
        set model {}
        for {set i 0} {$i < 3000} {incr i} {
            set e [expr {$i % 700 == 5 ? "q\"$i\\" : "e$i"}]
            lappend model $e
        }
        r rpush big {*}$model
        for {set round 0} {$round < 12} {incr round} {
            set at [expr {($round * 251) % [llength $model]}]
            r lset big $at "s$round"
            lset model $at "s$round"
            r linsert big before [lindex $model [expr {$at + 7}]] "i$round"
            set model [linsert $model [expr {$at + 7}] "i$round"]
            set victim [lindex $model [expr {$at + 100}]]
            r lrem big 1 $victim
            set model [lreplace $model [expr {$at + 100}] [expr {$at + 100}]]
            lappend model [r lpop big]
            r rpush big [lindex $model end]
            set model [lrange $model 1 end]
            assert_equal [lindex $model $at] [r lindex big $at]
            set from [expr {$at < 5 ? 0 : $at - 5}]
            assert_equal [lrange $model $from [expr {$at + 200}]] [r lrange big $from [expr {$at + 200}]]
        }
        assert_equal [lsearch -all -exact $model "s3"] [r lpos big s3 count 0]
        list [expr {[r lrange big 0 -1] eq $model}] [r llen big] [r lindex big -1]
    } [list 1 3000 e10]

    test {A long queue: push at the tail, pop at the head} {
        r del q
        set expected 0
        for {set i 0} {$i < 3000} {incr i} {
            r rpush q $i
            if {$i % 3 == 2} {
                assert_equal $expected [r lpop q]
                incr expected
            }
        }
        list [r llen q] [r lindex q 0] [r lindex q -1] [r lindex q 1500]
    } {2000 1000 2999 2500}

    test {COPY and RENAME of a list} {
        r del l l2 l3
        r rpush l a b c
        r copy l l2
        r rpush l2 d
        r rename l2 l3
        list [r lrange l 0 -1] [r lrange l3 0 -1] [r exists l2]
    } {{a b c} {a b c d} 0}

    test {Lists survive a restart} {
        r del l q
        r rpush l a "b c" [string repeat z 100] "\x00\xff"
        for {set i 0} {$i < 1000} {incr i} {r rpush q $i}
        for {set i 0} {$i < 300} {incr i} {r lpop q}
        restart_server
        list [r llen l] [r lindex l 1] [string length [r lindex l 2]] [r lindex l 3] [r llen q] [r lindex q 0] [r lindex q -1]
    } [list 4 {b c} 100 "\x00\xff" 700 300 999] {needs:restart needs:persistence casq-only}
}

# Big lists lend their chunks' JSON to the document being written; with
# every commit held in flight for 20 ms, pipelined changes land while a
# document still borrows the chunks they change.
start_server {tags {"list" "needs:restart" "needs:persistence" "casq-only"} casq_overrides {enable-debug-command yes commit-debug-delay 20}} {
    test {Big lists changed while a commit borrows their chunks survive a crash} {
        r del big1 big2
        set payload [string repeat p 40]
        for {set i 0} {$i < 3000} {incr i} {lappend args "$i-$payload"}
        r rpush big1 {*}$args
        r rpush big2 {*}$args
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        set n 0
        for {set round 0} {$round < 20} {incr round} {
            foreach rd [list $rd1 $rd2] key {big1 big2} {
                $rd rpush $key "new-$round" ; incr n
                $rd lpop $key 3 ; incr n
                $rd lset $key [expr {$round * 97}] "set-$round" ; incr n
                $rd linsert $key before "[expr {1000 + $round}]-$payload" "ins-$round" ; incr n
                $rd lrem $key 1 "[expr {2000 + $round}]-$payload" ; incr n
                $rd lmove $key $key left right ; incr n
            }
        }
        for {set i 0} {$i < $n / 2} {incr i} {$rd1 read; $rd2 read}
        $rd1 close
        $rd2 close
        set before [list [r lrange big1 0 -1] [r lrange big2 0 -1]]
        restart_server 0 kill
        set after [list [r lrange big1 0 -1] [r lrange big2 0 -1]]
        list [expr {$before eq $after}] [r llen big1] [r llen big2]
    } {1 2960 2960}
}
