# Sorted sets without blocking: ZADD and its flags, scores, ranks, the
# range commands (rank, score, lex, REV, LIMIT, WITHSCORES, STORE), removal
# by range, pops, ZMPOP, ZRANDMEMBER, ZSCAN, the set operations (with plain
# sets as inputs), encodings, RESP shapes and errors. Every test must pass
# against redis-server too (the WRONGTYPE checks use a stream key; tests of
# what 7.2 added are tagged redis7.2).
#
# BZPOPMIN/BZPOPMAX/BZMPOP are in list-blocking.tcl.

source [file join [file dirname [info script]] .. .. support stream_util.tcl]

start_server {tags {"zset"}} {

    proc make_wrongtype {key} {
        r del $key
        r xadd $key * f v
    }

    proc zfill {key args} {
        r del $key
        r zadd $key {*}$args
    }

    # --------------------------------------------------------------------
    # ZADD
    # --------------------------------------------------------------------

    test {ZADD adds and updates, ZCARD counts} {
        r del z
        list [r zadd z 1 a 2 b] [r zadd z 3 a 4 c] [r zcard z] [r zrange z 0 -1 withscores]
    } {2 1 3 {b 2 a 3 c 4}}

    test {ZADD CH counts changed elements} {
        zfill z 1 a 2 b
        list [r zadd z ch 1 a 3 b 4 c] [r zadd z ch 1 a]
    } {2 0}

    test {ZADD NX and XX} {
        zfill z 1 a
        list [r zadd z nx 5 a 2 b] [r zadd z xx 7 a 3 c] [r zrange z 0 -1 withscores] [r zadd nokey xx 1 a] [r exists nokey]
    } {1 0 {b 2 a 7} 0 0}

    test {ZADD GT and LT} {
        zfill z 5 a
        r zadd z gt 3 a
        set s1 [r zscore z a]
        r zadd z gt 8 a
        set s2 [r zscore z a]
        r zadd z lt 9 a
        set s3 [r zscore z a]
        r zadd z lt 1 a
        list $s1 $s2 $s3 [r zscore z a] [r zadd z gt ch 2 a 1 b]
    } {5 8 8 1 2}

    test {ZADD XX GT only updates} {
        zfill z 5 a
        list [r zadd z xx gt ch 6 a 1 b] [r zrange z 0 -1 withscores]
    } {1 {a 6}}

    test {ZADD INCR works like ZINCRBY} {
        zfill z 1 a
        list [r zadd z incr 2.5 a] [r zadd z incr 1 b] [r zincrby z -10 a] [r zincrby z 1 newone]
    } {3.5 1 -6.5 1}

    test {ZADD INCR with NX/XX/GT that does nothing is null} {
        zfill z 5 a
        list [r zadd z nx incr 1 a] [r zadd z xx incr 1 b] [r zadd z gt incr -1 a] [r zscore z a]
    } {{} {} {} 5}

    test {ZADD option errors} {
        r del z
        assert_error {ERR XX and NX options at the same time are not compatible} {r zadd z nx xx 1 a}
        assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} {r zadd z gt lt 1 a}
        assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} {r zadd z nx gt 1 a}
        assert_error {ERR INCR option supports a single increment-element pair} {r zadd z incr 1 a 2 b}
        assert_error {ERR syntax error} {r zadd z 1 a 2}
        assert_error {ERR value is not a valid float} {r zadd z abc a}
        assert_error {ERR value is not a valid float} {r zadd z nan a}
        assert_error {ERR value is not a valid float} {r zadd z 1 a x b}
        r exists z
    } {0}

    test {ZADD INCR reaching NaN is an error} {
        zfill z +inf a
        assert_error {ERR resulting score is not a number (NaN)} {r zadd z incr -inf a}
        assert_error {ERR resulting score is not a number (NaN)} {r zincrby z -inf a}
        r zscore z a
    } {inf}

    test {ZINCRBY with a non-float increment} {
        zfill z 1 a
        assert_error {ERR value is not a valid float} {r zincrby z x a}
    }

    test {Scores: infinities, exponents, negative zero, precision} {
        r del z
        r zadd z -inf a +inf b 1e3 c 0.1 d 1.5e-5 e -0 f
        r zrange z 0 -1 withscores
    } {a -inf f 0 e 1.5e-05 d 0.10000000000000001 c 1000 b inf}

    test {Negative zero: a listpack keeps 0, a skiplist keeps -0} {
        r del z z2
        r zadd z -0 a
        r config set zset-max-listpack-entries 0
        r zadd z2 -0 a
        r config set zset-max-listpack-entries 128
        list [r zscore z a] [r zscore z2 a] [r object encoding z2]
    } {0 -0 skiplist}

    test {Equal scores sort by member, binary safe} {
        r del z
        r zadd z 1 b 1 a 1 "a\x00" 1 c 0 z
        r zrange z 0 -1
    } [list z a "a\x00" b c]

    # --------------------------------------------------------------------
    # ZREM ZSCORE ZMSCORE ZRANK
    # --------------------------------------------------------------------

    test {ZREM removes, deletes the key when empty} {
        zfill z 1 a 2 b 3 c
        list [r zrem z a x] [r zrem z b c] [r exists z] [r zrem z a] [r zrem nokey a]
    } {1 2 0 0 0}

    test {ZSCORE and ZMSCORE} {
        zfill z 1.5 a 2 b
        list [r zscore z a] [r zscore z x] [r zscore nokey a] [r zmscore z a x b] [r zmscore nokey a b]
    } {1.5 {} {} {1.5 {} 2} {{} {}}}

    test {ZRANK and ZREVRANK} {
        zfill z 1 a 2 b 3 c
        list [r zrank z a] [r zrank z c] [r zrevrank z a] [r zrank z x] [r zrank nokey a]
    } {0 2 2 {} {}}

    test {ZRANK WITHSCORE} {
        zfill z 1 a 2.5 b
        list [r zrank z b withscore] [r zrevrank z b withscore] [r zrank z x withscore] [r zrank nokey x withscore]
    } {{1 2.5} {0 2.5} {} {}} {redis7.2}

    test {ZRANK WITHSCORE shapes} {
        zfill z 1 a
        set a [stream_shape [srv client] zrank z x withscore]
        set b [stream_shape [srv client] zrank z a withscore]
        r hello 3
        set c [stream_shape [srv client] zrank z x withscore]
        set d [stream_shape [srv client] zrank z a withscore]
        r hello 2
        list $a $b $c $d
    } {*-1 {*2 :0 1} _ {*2 :0 ,1}} {redis7.2}

    test {ZRANK errors} {
        zfill z 1 a
        assert_error {ERR syntax error} {r zrank z a foo}
        assert_error {ERR wrong number of arguments*} {r zrank z a withscore x}
    } {} {redis7.2}

    # --------------------------------------------------------------------
    # Counting
    # --------------------------------------------------------------------

    test {ZCOUNT with inclusive and exclusive bounds} {
        zfill z 1 a 2 b 3 c 4 d
        list [r zcount z 2 3] [r zcount z (2 3] [r zcount z (2 (3] [r zcount z -inf +inf] [r zcount z 5 1] [r zcount nokey 0 1]
    } {2 1 0 4 0 0}

    test {ZCOUNT errors} {
        zfill z 1 a
        assert_error {ERR min or max is not a float} {r zcount z a 1}
        assert_error {ERR min or max is not a float} {r zcount z 1 (x}
        assert_error {ERR min or max is not a float} {r zcount z nan 1}
    }

    test {ZLEXCOUNT} {
        zfill z 0 a 0 b 0 c 0 d
        list [r zlexcount z - +] [r zlexcount z \[b \[c] [r zlexcount z (b +] [r zlexcount z + -] [r zlexcount z (a (a]
    } {4 2 2 0 0}

    test {ZLEXCOUNT errors} {
        zfill z 0 a
        assert_error {ERR min or max not valid string range item} {r zlexcount z a b}
        assert_error {ERR min or max not valid string range item} {r zlexcount z - +x}
    }

    # --------------------------------------------------------------------
    # Ranges
    # --------------------------------------------------------------------

    test {ZRANGE and ZREVRANGE by rank} {
        zfill z 1 a 2 b 3 c 4 d
        list [r zrange z 0 -1] [r zrange z 1 2] [r zrange z -2 -1 withscores] [r zrevrange z 0 1] \
             [r zrange z 5 10] [r zrange z 2 1] [r zrange nokey 0 -1] [r zrange z 0 -1 rev]
    } {{a b c d} {b c} {c 3 d 4} {d c} {} {} {} {d c b a}}

    test {ZRANGE BYSCORE with LIMIT} {
        zfill z 1 a 2 b 3 c 4 d 5 e
        list [r zrange z 2 4 byscore] [r zrange z (2 +inf byscore limit 1 2] [r zrange z +inf -inf byscore rev limit 0 2 withscores] \
             [r zrange z 0 10 byscore limit 10 1] [r zrange z 0 10 byscore limit -1 2] [r zrange z 0 10 byscore limit 1 -1] \
             [r zrange z 0 10 byscore limit 1 0]
    } {{b c d} {d e} {e 5 d 4} {} {} {b c d e} {}}

    test {ZRANGE LIMIT with the smallest offset and count} {
        zfill z 1 a 2 b 3 c
        list [r zrange z -inf +inf byscore limit -9223372036854775808 1] \
             [r zrange z -inf +inf byscore limit 0 -9223372036854775808] \
             [r zrange z - + bylex limit 1 -9223372036854775808]
    } {{} {a b c} {b c}}

    test {ZRANGEBYSCORE and ZREVRANGEBYSCORE} {
        zfill z 1 a 2 b 3 c
        list [r zrangebyscore z 1 2] [r zrangebyscore z (1 +inf withscores] [r zrevrangebyscore z 3 (1] \
             [r zrevrangebyscore z +inf -inf limit 1 1]
    } {{a b} {b 2 c 3} {c b} b}

    test {ZRANGE BYLEX and the lex commands} {
        zfill z 0 a 0 b 0 c 0 d 0 e
        list [r zrange z \[b (d bylex] [r zrange z + - bylex rev limit 1 2] [r zrangebylex z - (c] \
             [r zrevrangebylex z \[d - limit 0 2] [r zrangebylex z (e +]
    } {{b c} {d c} {a b} {d c} {}}

    test {ZRANGE option errors} {
        zfill z 1 a
        assert_error {ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX} {r zrange z 0 1 limit 0 1}
        assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} {r zrange z - + bylex withscores}
        assert_error {ERR syntax error} {r zrange z 0 1 foo}
        assert_error {ERR syntax error} {r zrange z 0 1 byscore bylex}
        assert_error {ERR syntax error} {r zrevrange z 0 1 rev}
        assert_error {ERR syntax error} {r zrangebyscore z 0 1 bylex}
        assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} {r zrangebylex z - + withscores}
        assert_error {ERR value is not an integer or out of range} {r zrange z a 1}
        assert_error {ERR min or max is not a float} {r zrangebyscore z a 1}
        assert_error {ERR min or max not valid string range item} {r zrangebylex z a b}
    }

    test {ZRANGE WITHSCORES shapes in RESP2 and RESP3} {
        zfill z 1 a 2.5 b
        set a [stream_shape [srv client] zrange z 0 -1 withscores]
        r hello 3
        set b [stream_shape [srv client] zrange z 0 -1 withscores]
        set c [stream_shape [srv client] zscore z b]
        r hello 2
        list $a $b $c
    } {{*4 a 1 b 2.5} {*2 *2 a ,1 *2 b ,2.5} ,2.5}

    test {ZRANGESTORE} {
        zfill z 1 a 2 b 3 c 4 d
        list [r zrangestore dst z 1 2] [r zrange dst 0 -1 withscores] [r zrangestore dst z 3 +inf byscore] [r zrange dst 0 -1] \
             [r zrangestore dst z + \[c bylex rev limit 0 1] [r zrange dst 0 -1] [r zrangestore dst z 10 20] [r exists dst]
    } {2 {b 2 c 3} 2 {c d} 1 d 0 0}

    test {ZRANGESTORE from a missing key deletes the destination} {
        zfill dst 1 a
        list [r zrangestore dst nokey 0 -1] [r exists dst]
    } {0 0}

    test {ZRANGESTORE overwrites a key of another type} {
        make_wrongtype dst
        zfill z 1 a
        list [r zrangestore dst z 0 -1] [r type dst]
    } {1 zset}

    test {ZRANGESTORE does not take WITHSCORES} {
        zfill z 1 a
        assert_error {ERR syntax error} {r zrangestore dst z 0 -1 withscores}
    }

    # --------------------------------------------------------------------
    # Removing ranges
    # --------------------------------------------------------------------

    test {ZREMRANGEBYRANK} {
        zfill z 1 a 2 b 3 c 4 d
        list [r zremrangebyrank z 1 2] [r zrange z 0 -1] [r zremrangebyrank z 5 10] [r zremrangebyrank z 0 -1] [r exists z]
    } {2 {a d} 0 2 0}

    test {ZREMRANGEBYSCORE} {
        zfill z 1 a 2 b 3 c 4 d
        list [r zremrangebyscore z (1 3] [r zrange z 0 -1] [r zremrangebyscore z 10 20] [r zremrangebyscore nokey 0 1]
    } {2 {a d} 0 0}

    test {ZREMRANGEBYLEX} {
        zfill z 0 a 0 b 0 c 0 d
        list [r zremrangebylex z (a \[c] [r zrange z 0 -1] [r zremrangebylex z - +] [r exists z]
    } {2 {a d} 2 0}

    # --------------------------------------------------------------------
    # Pops
    # --------------------------------------------------------------------

    test {ZPOPMIN and ZPOPMAX} {
        zfill z 1 a 2 b 3 c 4 d
        list [r zpopmin z] [r zpopmax z] [r zpopmin z 5] [r exists z] [r zpopmin z] [r zpopmax nokey 2]
    } {{a 1} {d 4} {b 2 c 3} 0 {} {}}

    test {ZPOPMIN COUNT 0 and errors} {
        zfill z 1 a
        assert_error {ERR value is out of range, must be positive} {r zpopmin z -1}
        assert_error {ERR syntax error} {r zpopmin z 1 2}
        list [r zpopmin z 0] [r zcard z]
    } {{} 1}

    test {ZPOPMIN shapes in RESP2 and RESP3} {
        zfill z 1 a 2 b 3 c
        set a [stream_shape [srv client] zpopmin z]
        r hello 3
        set b [stream_shape [srv client] zpopmin z]
        set c [stream_shape [srv client] zpopmin z 1]
        set d [stream_shape [srv client] zpopmin nokey 1]
        r hello 2
        list $a $b $c $d
    } {{*2 a 1} {*2 b ,2} {*1 *2 c ,3} *0}

    test {ZMPOP MIN/MAX with COUNT} {
        r del z1
        zfill z2 1 a 2 b 3 c
        list [r zmpop 2 z1 z2 min] [r zmpop 2 z1 z2 max count 5] [r zmpop 2 z1 z2 min]
    } {{z2 {{a 1}}} {z2 {{c 3} {b 2}}} {}}

    test {ZMPOP errors} {
        assert_error {ERR numkeys should be greater than 0} {r zmpop 0 z min}
        assert_error {ERR syntax error} {r zmpop 2 z min}
        assert_error {ERR syntax error} {r zmpop 1 z middle}
        assert_error {ERR count should be greater than 0} {r zmpop 1 z min count 0}
        assert_error {ERR syntax error} {r zmpop 1 z min count 1 count 2}
    }

    test {ZMPOP shapes in RESP2 and RESP3} {
        zfill z 1 a
        r zadd z 2 b
        set a [stream_shape [srv client] zmpop 1 z min]
        r hello 3
        set b [stream_shape [srv client] zmpop 1 z min]
        set c [stream_shape [srv client] zmpop 1 z min]
        r hello 2
        list $a $b $c
    } {{*2 z *1 *2 a 1} {*2 z *1 *2 b ,2} _}

    # --------------------------------------------------------------------
    # ZRANDMEMBER ZSCAN
    # --------------------------------------------------------------------

    test {ZRANDMEMBER} {
        zfill z 1 a 2 b 3 c
        set one [r zrandmember z]
        set distinct [lsort [r zrandmember z 3]]
        set all [lsort [r zrandmember z 10]]
        set rep [llength [r zrandmember z -10]]
        set ws [r zrandmember z 5 withscores]
        list [expr {$one in {a b c}}] $distinct $all $rep [llength $ws] [r zrandmember nokey] [r zrandmember nokey 5] [r zrandmember z 0]
    } {1 {a b c} {a b c} 10 6 {} {} {}}

    test {ZRANDMEMBER distinct subset} {
        r del z
        for {set i 0} {$i < 200} {incr i} {r zadd z $i m$i}
        set res [r zrandmember z 50]
        list [llength $res] [llength [lsort -unique $res]]
    } {50 50}

    test {ZRANDMEMBER errors} {
        zfill z 1 a
        assert_error {ERR syntax error} {r zrandmember z 1 foo}
        assert_error {ERR value is not an integer or out of range} {r zrandmember z x}
        assert_error {ERR value is out of range} {r zrandmember z -9223372036854775807 withscores}
    }

    test {ZSCAN of a small and of a big sorted set} {
        zfill z 1 a 2.5 b
        set small [r zscan z 0]
        r del big
        for {set i 0} {$i < 300} {incr i} {r zadd big $i m$i}
        set cursor 0
        set seen {}
        while 1 {
            set res [r zscan big $cursor count 20]
            set cursor [lindex $res 0]
            foreach {m s} [lindex $res 1] {dict set seen $m $s}
            if {$cursor == 0} break
        }
        list $small [dict size $seen] [dict get $seen m42] [r zscan z 0 match a*] [r zscan nokey 0]
    } {{0 {a 1 b 2.5}} 300 42 {0 {a 1}} {0 {}}}

    # --------------------------------------------------------------------
    # Set operations
    # --------------------------------------------------------------------

    test {ZUNION, ZINTER, ZDIFF with scores} {
        zfill a 1 x 2 y
        zfill b 3 y 4 z
        list [r zunion 2 a b withscores] [r zinter 2 a b withscores] [r zdiff 2 a b withscores] [r zunion 2 a nokey] [r zinter 2 a nokey]
    } {{x 1 z 4 y 5} {y 5} {x 1} {x y} {}}

    test {WEIGHTS and AGGREGATE} {
        zfill a 1 x 2 y
        zfill b 3 y 4 z
        list [r zunion 2 a b weights 2 3 withscores] [r zunion 2 a b aggregate min withscores] \
             [r zinter 2 a b aggregate max withscores] [r zunion 2 a b weights 0 1 aggregate sum withscores]
    } {{x 2 z 12 y 13} {x 1 y 2 z 4} {y 3} {x 0 y 3 z 4}}

    test {Infinite weights that would make NaN give 0} {
        zfill a +inf x
        zfill b -inf x
        r zunion 2 a b withscores
    } {x 0}

    test {ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE} {
        zfill a 1 x 2 y
        zfill b 3 y 4 z
        list [r zunionstore d 2 a b] [r zrange d 0 -1 withscores] [r zinterstore d 2 a b] [r zrange d 0 -1 withscores] \
             [r zdiffstore d 2 a b] [r zrange d 0 -1 withscores] [r zinterstore d 2 a nokey] [r exists d]
    } {3 {x 1 z 4 y 5} 1 {y 5} 1 {x 1} 0 0}

    test {ZINTERSTORE with the destination as an input} {
        zfill a 1 x 2 y
        zfill b 3 y
        list [r zinterstore a 2 a b] [r zrange a 0 -1 withscores]
    } {1 {y 5}}

    test {ZINTERCARD} {
        zfill a 1 x 2 y 3 z
        zfill b 1 x 2 y 3 w
        list [r zintercard 2 a b] [r zintercard 2 a b limit 1] [r zintercard 2 a b limit 0] [r zintercard 2 a nokey]
    } {2 1 2 0}

    test {Set operation errors} {
        zfill a 1 x
        assert_error {ERR at least 1 input key is needed for 'zunionstore' command} {r zunionstore d 0 a}
        assert_error {ERR at least 1 input key is needed for 'zinter' command} {r zinter 0 a}
        assert_error {ERR syntax error} {r zunion 3 a b}
        assert_error {ERR syntax error} {r zunion 1 a weights}
        assert_error {ERR weight value is not a float} {r zunion 1 a weights x}
        assert_error {ERR syntax error} {r zunion 1 a aggregate avg}
        assert_error {ERR syntax error} {r zdiff 1 a weights 1}
        assert_error {ERR syntax error} {r zunionstore d 1 a withscores}
        assert_error {ERR LIMIT can't be negative} {r zintercard 1 a limit -1}
        assert_error {ERR syntax error} {r zintercard 1 a withscores}
        assert_error {ERR value is not an integer or out of range} {r zunion x a}
    }

    test {Set operations against a wrong type} {
        zfill a 1 x
        make_wrongtype w
        assert_error {WRONGTYPE*} {r zunion 2 a w}
        assert_error {WRONGTYPE*} {r zinterstore d 2 a w}
        assert_error {WRONGTYPE*} {r zintercard 2 w a}
    }

    test {Plain sets as inputs have score 1} {
        zfill a 5 x 2 y
        r del s
        r sadd s x z
        list [r zunion 2 a s withscores] [r zinter 2 a s withscores] [r zdiff 2 s a withscores] [r zintercard 2 s a]
    } {{z 1 y 2 x 6} {x 6} {z 1} 1}

    # --------------------------------------------------------------------
    # WRONGTYPE, encodings, restart
    # --------------------------------------------------------------------

    test {Sorted set commands against a stream key are WRONGTYPE} {
        make_wrongtype k
        foreach cmd {
            {zadd k 1 a} {zincrby k 1 a} {zrem k a} {zcard k} {zscore k a} {zmscore k a} {zrank k a}
            {zcount k 0 1} {zlexcount k - +} {zrange k 0 1} {zrangebyscore k 0 1} {zrangebylex k - +}
            {zremrangebyrank k 0 1} {zremrangebyscore k 0 1} {zremrangebylex k - +} {zpopmin k} {zpopmax k}
            {zmpop 1 k min} {zrandmember k} {zscan k 0} {zrangestore d k 0 1}
        } {
            assert_error {WRONGTYPE*} {r {*}$cmd}
        }
        r type k
    } {stream}

    test {Encodings follow zset-max-listpack-entries and -value} {
        r del z
        r zadd z 1 a
        set e1 [r object encoding z]
        for {set i 0} {$i < 128} {incr i} {r zadd z $i m$i}
        set e2 [r object encoding z]
        r del z
        r zadd z 1 [string repeat x 65]
        set e3 [r object encoding z]
        r zrem z [string repeat x 65]
        r zadd z 1 a 2 b
        list $e1 $e2 $e3 [r type z]
    } {listpack skiplist skiplist zset}

    test {A big ZADD starts as a skiplist} {
        r del z
        set args {}
        for {set i 0} {$i < 129} {incr i} {lappend args 1 same}
        r zadd z {*}$args
        list [r zcard z] [r object encoding z]
    } {1 skiplist} {redis7.2}

    test {STORE results pick the encoding by size} {
        r del z
        for {set i 0} {$i < 200} {incr i} {r zadd z $i m$i}
        r zrangestore d z 0 9
        set e1 [r object encoding d]
        r zunionstore d 1 z
        list $e1 [r object encoding d]
    } {listpack skiplist}

    test {zset-max-ziplist-entries is an alias} {
        r config set zset-max-ziplist-entries 5
        set v [r config get zset-max-listpack-entries]
        r config set zset-max-listpack-entries 128
        set v
    } {zset-max-listpack-entries 5}

    test {COPY of a sorted set} {
        zfill z 1 a 2 b
        r del z2
        r copy z z2
        r zadd z2 3 c
        list [r zcard z] [r zrange z2 0 -1 withscores]
    } {2 {a 1 b 2 c 3}}

    test {Sorted sets survive a restart} {
        r del z
        r zadd z 1.5 a -inf b +inf c 0.1 "\x00\xff" 3 "a b"
        for {set i 0} {$i < 300} {incr i} {r zadd big [expr {$i * 1.25}] m$i}
        set before [r zrange z 0 -1 withscores]
        restart_server
        list [expr {[r zrange z 0 -1 withscores] eq $before}] [r zcard big] [r zscore big m101] [r object encoding z] [r object encoding big]
    } {1 300 126.25 listpack skiplist} {needs:restart needs:persistence casq-only}
}

# Big sorted sets lend their chunks' JSON to the document being written;
# with every commit held in flight for 20 ms, pipelined changes land while
# a document still borrows the chunks they change.
start_server {tags {"zset" "needs:restart" "needs:persistence" "casq-only"} casq_overrides {enable-debug-command yes commit-debug-delay 20}} {
    test {Big sorted sets changed while a commit borrows their chunks survive a crash} {
        r del big1 big2
        set payload [string repeat p 40]
        for {set i 0} {$i < 3000} {incr i} {lappend args $i "m$i-$payload"}
        r zadd big1 {*}$args
        r zadd big2 {*}$args
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        set n 0
        for {set round 0} {$round < 30} {incr round} {
            foreach rd [list $rd1 $rd2] key {big1 big2} {
                $rd zadd $key [expr {$round * 101 % 3000}].5 "new-$round" ; incr n
                $rd zincrby $key -1500 "m[expr {$round * 37}]-$payload" ; incr n
                $rd zrem $key "m[expr {$round * 53 + 7}]-$payload" ; incr n
                $rd zpopmin $key ; incr n
                $rd zpopmax $key 2 ; incr n
                $rd zremrangebyrank $key 1000 1001 ; incr n
            }
        }
        for {set i 0} {$i < $n / 2} {incr i} {$rd1 read; $rd2 read}
        $rd1 close
        $rd2 close
        set before [list [r zrange big1 0 -1 withscores] [r zrange big2 0 -1 withscores]]
        restart_server 0 kill
        set after [list [r zrange big1 0 -1 withscores] [r zrange big2 0 -1 withscores]]
        list [expr {$before eq $after}] [expr {[r zcard big1] == [r zcard big2]}] [expr {[r zcard big1] > 2700}]
    } {1 1 1}
}
