# Hashes: HSET, HSETNX, HGET, HMGET, HMSET, HGETALL, HDEL, HEXISTS, HLEN,
# HKEYS, HVALS, HSTRLEN, HINCRBY, HINCRBYFLOAT, HRANDFIELD, HSCAN, the
# listpack -> hashtable conversion rules, and the generic commands on hash
# keys.

proc scan_all_hash {key {pattern *}} {
    set cursor 0
    set res {}
    while 1 {
        set r [r hscan $key $cursor match $pattern count 10]
        set cursor [lindex $r 0]
        foreach {f v} [lindex $r 1] {dict set res $f $v}
        if {$cursor == 0} break
    }
    set res
}

start_server {tags {"hash"}} {
    test {HRANDFIELD against non existing key} {
        r del nokey
        list [r hrandfield nokey] [r hrandfield nokey 5] [r hrandfield nokey -5 withvalues]
    } {{} {} {}}

    test {HRANDFIELD count of 0 is handled correctly} {
        r del myhash
        r hset myhash a 1
        r hrandfield myhash 0
    } {}

    test {HRANDFIELD with <count> against non existing key} {
        r hrandfield nonexisting_key 100
    } {}

    test {HRANDFIELD count overflow} {
        r hmset myhash a 1
        assert_error {*value is out of range*} {r hrandfield myhash -9223372036854770000 withvalues}
        assert_error {*value is out of range*} {r hrandfield myhash -9223372036854775808 withvalues}
        assert_error {*value is out of range*} {r hrandfield myhash -9223372036854775808}
    }

    test {HRANDFIELD syntax errors} {
        assert_error {*syntax*} {r hrandfield myhash 1 withvalues x}
        assert_error {*syntax*} {r hrandfield myhash 1 x}
        assert_error {*not an integer*} {r hrandfield myhash x}
    }

    test {Small hash creation and encoding} {
        r del smallhash
        set smallhash {}
        for {set i 0} {$i < 8} {incr i} {
            set key __avoid_collisions__[expr {int(rand() * 100000)}]
            set val __avoid_collisions__[expr {int(rand() * 100000)}]
            if {[dict exists $smallhash $key]} {
                incr i -1
                continue
            }
            r hset smallhash $key $val
            dict set smallhash $key $val
        }
        list [r hlen smallhash] [r object encoding smallhash]
    } {8 listpack}

    test {Big hash creation and encoding} {
        r del bighash
        set bighash {}
        for {set i 0} {$i < 1024} {incr i} {
            set key field$i
            set val value[expr {$i * 7}]
            r hset bighash $key $val
            dict set bighash $key $val
        }
        list [r hlen bighash] [r object encoding bighash]
    } {1024 hashtable}

    test {Is a listpack encoded Hash promoted on big payload?} {
        r hset smallhash foo [string repeat a 1024]
        dict set smallhash foo [string repeat a 1024]
        r object encoding smallhash
    } {hashtable}

    test {HGET against the small and big hash} {
        set err {}
        foreach k [dict keys $smallhash] {
            if {[r hget smallhash $k] ne [dict get $smallhash $k]} {set err "small $k"; break}
        }
        foreach k [dict keys $bighash] {
            if {[r hget bighash $k] ne [dict get $bighash $k]} {set err "big $k"; break}
        }
        set err
    } {}

    test {HGET against non existing key / field} {
        r del nokey
        list [r hget nokey f] [r hget smallhash __123123123__] [r hget bighash __123123123__]
    } {{} {} {}}

    test {HSET in update and insert mode} {
        r del h
        set rv {}
        lappend rv [r hset h a 1]
        lappend rv [r hset h a 2]
        lappend rv [r hset h b 1 c 2 a 3]
        lappend rv [r hget h a]
    } {1 0 2 3}

    test {HSET/HMSET wrong number of args} {
        assert_error {*wrong number of arguments for 'hset' command} {r hset smallhash key1 val1 key2}
        assert_error {*wrong number of arguments for 'hmset' command} {r hmset smallhash key1 val1 key2}
        assert_error {*wrong number of arguments for 'hset' command} {r hset smallhash key1}
    }

    test {HMSET replies OK} {
        r del h
        list [r hmset h a 1 b 2] [r hgetall h]
    } {OK {a 1 b 2}}

    test {HSETNX target key missing - small hash} {
        r del h
        list [r hsetnx h a 1] [r hget h a]
    } {1 1}

    test {HSETNX target key exists - small hash} {
        list [r hsetnx h a 2] [r hget h a]
    } {0 1}

    test {HSETNX against the big hash} {
        dict set bighash newfield y
        list [r hsetnx bighash field1 x] [r hget bighash field1] [r hsetnx bighash newfield y] [r hget bighash newfield]
    } {0 value7 1 y}

    test {HMGET against non existing key and fields} {
        r del nokey h
        r hset h a 1 b 2
        list [r hmget nokey a b] [r hmget h a x b]
    } {{{} {}} {1 {} 2}}

    test {HMGET against wrong type} {
        r set wrongtype somevalue
        assert_error {WRONGTYPE*} {r hmget wrongtype field1 field2}
    }

    test {HKEYS, HVALS, HGETALL of a small hash keep the insertion order} {
        r del h
        r hset h z 1 a 2 m 3
        r hset h a 20
        r hset h b 4
        list [r hkeys h] [r hvals h] [r hgetall h]
    } {{z a m b} {1 20 3 4} {z 1 a 20 m 3 b 4}}

    test {HDEL keeps the order of the remaining fields} {
        r hdel h a
        r hset h a 5
        r hgetall h
    } {z 1 m 3 b 4 a 5}

    test {HKEYS, HVALS, HGETALL of the big hash} {
        set keys [lsort [r hkeys bighash]]
        set vals [lsort [r hvals bighash]]
        set all [r hgetall bighash]
        list [llength $keys] [llength $vals] [llength $all] \
             [expr {$keys eq [lsort [dict keys $bighash]]}] [dict get $all field10]
    } {1025 1025 2050 1 value70}

    test {HGETALL against non-existing key} {
        r del htest
        list [r hgetall htest] [r hkeys htest] [r hvals htest]
    } {{} {} {}}

    test {HGETALL in RESP3 is a map, empty map for a missing key} {
        r hello 3
        r del h
        r hset h a 1 b 2
        set a [r hgetall h]
        r readraw 1
        set b [r hgetall nokey]
        set c [r hkeys nokey]
        r readraw 0
        r hello 2
        list $a $b $c
    } {{a 1 b 2} %0 *0}

    test {HDEL and return value} {
        r del h
        r hset h a 1 b 2 c 3
        set rv {}
        lappend rv [r hdel h nokey]
        lappend rv [r hdel h a]
        lappend rv [r hdel h a]
        lappend rv [r hdel h b c nokey]
        lappend rv [r exists h]
    } {0 1 0 2 0}

    test {HDEL - hash becomes empty before deleting all specified fields} {
        r del myhash
        r hmset myhash a 1 b 2 c 3
        assert_equal 3 [r hdel myhash a b c d e]
        assert_equal 0 [r exists myhash]
    }

    test {HDEL on a missing key} {
        r del nokey
        r hdel nokey a
    } {0}

    test {HEXISTS} {
        r del h
        r hset h a 1
        list [r hexists h a] [r hexists h b] [r hexists nokey a] [r hexists bighash field5]
    } {1 0 0 1}

    test {HLEN and HSTRLEN} {
        r del h
        r hset h a hello b -123 c ""
        list [r hlen h] [r hstrlen h a] [r hstrlen h b] [r hstrlen h c] [r hstrlen h nofield] \
             [r hstrlen nokey a] [r hlen nokey] [r hstrlen bighash field3]
    } {3 5 4 0 0 0 0 7}

    test {HINCRBY against non existing database key} {
        r del htest
        list [r hincrby htest foo 2] [r hget htest foo]
    } {2 2}

    test {HINCRBY against non existing hash key} {
        r hset htest foo 10
        list [r hincrby htest bar 2] [r hincrby htest foo 1]
    } {2 11}

    test {HINCRBY over 32bit value} {
        r hset htest foo 17179869184
        r hincrby htest foo 1
    } {17179869185}

    test {HINCRBY fails against hash value with spaces (left)} {
        r hset htest str " 11"
        assert_error {ERR hash value is not an integer} {r hincrby htest str 1}
    }

    test {HINCRBY can detect overflows} {
        r hset htest n -9223372036854775484
        assert_equal -9223372036854775485 [r hincrby htest n -1]
        assert_error {ERR increment or decrement would overflow} {r hincrby htest n -10000}
        r hset htest n 9223372036854775807
        assert_error {ERR increment or decrement would overflow} {r hincrby htest n 1}
    }

    test {HINCRBY with a bad increment} {
        assert_error {ERR value is not an integer or out of range} {r hincrby htest n x}
        assert_error {ERR value is not an integer or out of range} {r hincrby nokey n 1.5}
        r exists nokey
    } {0}

    test {HINCRBYFLOAT against non existing database key} {
        r del htest
        list [r hincrbyfloat htest foo 2.5] [r hget htest foo]
    } {2.5 2.5}

    test {HINCRBYFLOAT against non existing hash key} {
        list [r hincrbyfloat htest bar 2.5] [r hincrbyfloat htest foo 1]
    } {2.5 3.5}

    test {HINCRBYFLOAT over 32bit value} {
        r hset htest foo 17179869184
        r hincrbyfloat htest foo 1
    } {17179869185}

    test {HINCRBYFLOAT fails against hash value with spaces} {
        r hset htest str " 11"
        assert_error {ERR hash value is not a float} {r hincrbyfloat htest str 1}
    }

    test {HINCRBYFLOAT fails against hash value that contains a null-terminator in the middle} {
        r hset h f "1\x002"
        assert_error {ERR hash value is not a float} {r hincrbyfloat h f 1}
    }

    test {HINCRBYFLOAT does not allow NaN or Infinity} {
        assert_error {ERR value is NaN or Infinity} {r hincrbyfloat htest foo +inf}
        assert_error {ERR value is not a valid float} {r hincrbyfloat htest foo nan}
        r hset htest big 1e4932
        assert_error {ERR increment would produce NaN or Infinity} {r hincrbyfloat htest big 1e4932}
    }

    test {HINCRBYFLOAT formatting} {
        r del h
        list [r hincrbyfloat h f 10.5] [r hincrbyfloat h f -10.5] [r hincrbyfloat h f 3.0e3] \
             [r hincrbyfloat h f 0.1]
    } {10.5 0 3000 3000.10000000000000009}

    test {Hash commands against wrong type} {
        r set wrongtype somevalue
        foreach cmd {
            {hset wrongtype a b} {hsetnx wrongtype a b} {hget wrongtype a} {hmget wrongtype a}
            {hmset wrongtype a b} {hgetall wrongtype} {hdel wrongtype a} {hexists wrongtype a}
            {hlen wrongtype} {hkeys wrongtype} {hvals wrongtype} {hstrlen wrongtype a}
            {hincrby wrongtype a 1} {hincrbyfloat wrongtype a 1} {hrandfield wrongtype}
            {hrandfield wrongtype 2} {hscan wrongtype 0}
        } {
            assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r {*}$cmd}
        }
        r get wrongtype
    } {somevalue}

    test {String commands against a hash are WRONGTYPE, SET replaces it} {
        r del h
        r hset h a 1
        r expire h 100
        assert_error {WRONGTYPE*} {r get h}
        assert_error {WRONGTYPE*} {r incr h}
        assert_equal {{}} [r mget h]
        r set h v
        list [r type h] [r ttl h]
    } {string -1}

    test {HRANDFIELD with a small hash} {
        r del h
        r hset h a 1 b 2 c 3 d 4 e 5
        set err {}
        for {set i 0} {$i < 50} {incr i} {
            set f [r hrandfield h]
            if {[lsearch {a b c d e} $f] < 0} {set err "got $f"}
        }
        # count >= size: the whole hash, in its order
        lappend err [r hrandfield h 5] [r hrandfield h 10 withvalues]
        # positive count: distinct fields
        set three [r hrandfield h 3]
        lappend err [llength $three] [llength [lsort -unique $three]]
        # negative count: repetitions allowed
        lappend err [llength [r hrandfield h -20]] [llength [r hrandfield h -20 withvalues]]
    } {{a b c d e} {a 1 b 2 c 3 d 4 e 5} 3 3 20 40}

    test {HRANDFIELD with the big hash} {
        set err {}
        set f [r hrandfield bighash 300 withvalues]
        if {[llength $f] != 600} {set err "len [llength $f]"}
        set fields {}
        foreach {k v} $f {
            if {[r hget bighash $k] ne $v} {set err "bad $k $v"}
            lappend fields $k
        }
        if {[llength [lsort -unique $fields]] != 300} {set err "not unique"}
        set f [r hrandfield bighash 1000]
        if {[llength [lsort -unique $f]] != 1000} {set err "not unique 1000"}
        set err
    } {}

    test {HRANDFIELD WITHVALUES in RESP3 is an array of pairs} {
        r del h
        r hset h a 1
        r hello 3
        set res [list [r hrandfield h 1 withvalues] [r hrandfield h -2 withvalues] [r hrandfield h 3 withvalues]]
        r hello 2
        set res
    } {{{a 1}} {{a 1} {a 1}} {{a 1}}}

    test {HSCAN of a small hash returns everything with cursor 0} {
        r del h
        r hset h a 1 b 2 c 3
        list [r hscan h 0] [r hscan h 123 count 1] [r hscan h 0 match b*]
    } {{0 {a 1 b 2 c 3}} {0 {a 1 b 2 c 3}} {0 {b 2}}}

    test {HSCAN of the big hash visits every field} {
        set res [scan_all_hash bighash]
        list [dict size $res] [dict get $res field100]
    } {1025 value700}

    test {HSCAN with MATCH on the big hash} {
        set res [scan_all_hash bighash field1?]
        lsort [dict keys $res]
    } {field10 field11 field12 field13 field14 field15 field16 field17 field18 field19}

    test {HSCAN of a missing key, and errors} {
        r del nokey
        assert_equal {0 {}} [r hscan nokey 0]
        assert_error {*invalid cursor*} {r hscan h abc}
        assert_error {*syntax*} {r hscan h 0 count 0}
        assert_error {*syntax*} {r hscan h 0 type string}
        assert_error {*syntax*} {r hscan h 0 foo}
        assert_error {*not an integer*} {r hscan h 0 count x}
    }

    test {Hash commands with the wrong number of arguments} {
        assert_error {*wrong number of arguments for 'hget' command} {r hget h}
        assert_error {*wrong number of arguments for 'hdel' command} {r hdel h}
        assert_error {*wrong number of arguments for 'hscan' command} {r hscan h}
    }
}

start_server {tags {"hash"}} {
    # Fields and values around the lengths where a packed entry's length
    # takes a second or third byte (127/128, 16383/16384), growing and
    # shrinking in place, with hash-max-listpack-value raised.
    test {A listpack hash with long fields and values, changed in place} {
        r config set hash-max-listpack-value 20000
        r del h
        set fields {}
        foreach len {0 1 127 128 300 16383 16384} {
            lappend fields [string repeat f $len]x$len
        }
        foreach f $fields { r hset h $f [string repeat v [string length $f]] }
        set enc1 [r object encoding h]
        # each value takes the next field's length: entries change size
        set n [llength $fields]
        for {set i 0} {$i < $n} {incr i} {
            set len [string length [lindex $fields [expr {($i + 1) % $n}]]]
            r hset h [lindex $fields $i] [string repeat w $len]
        }
        r hdel h [lindex $fields 2] [lindex $fields 5]
        r hincrby h n 7
        set lens {}
        foreach {f v} [r hgetall h] { lappend lens [string length $f] [string length $v] }
        set res [list $enc1 [r object encoding h] [r hlen h] $lens \
                     [r hstrlen h [lindex $fields 6]] [r hexists h [lindex $fields 5]] \
                     [r hget h n]]
        r config set hash-max-listpack-value 64
        set res
    } {listpack listpack 6 {2 3 3 131 132 304 304 16389 16390 2 1 1} 2 0 7}

    test {Encoding: more entries than hash-max-listpack-entries} {
        r config set hash-max-listpack-entries 4
        r del h
        r hset h a 1 b 2 c 3 d 4
        set e1 [r object encoding h]
        r hset h e 5
        set e2 [r object encoding h]
        r hdel h a b c d
        list $e1 $e2 [r object encoding h]
    } {listpack hashtable hashtable}

    # Redis 7.2 (#12019) converts before inserting when the command has more
    # pairs than hash-max-listpack-entries; 7.0 counted the fields added.
    test {Encoding: HSET with more pairs than the limit converts even if they repeat} {
        r del h
        r hset h a 1 a 2 a 3 a 4 a 5
        list [r hlen h] [r object encoding h]
    } {1 hashtable} {redis7.2}

    test {Encoding: a value longer than hash-max-listpack-value} {
        r config set hash-max-listpack-entries 512
        r config set hash-max-listpack-value 8
        r del h h2 h3 h4
        r hset h a 12345678
        set e1 [r object encoding h]
        r hset h b 123456789
        r hset h2 123456789 a
        r hsetnx h3 a 123456789
        r hset h4 a 1
        r hincrbyfloat h4 a 0.123456789
        list $e1 [r object encoding h] [r object encoding h2] [r object encoding h3] [r object encoding h4]
    } {listpack hashtable hashtable hashtable hashtable}

    test {hash-max-ziplist-* are aliases} {
        r config set hash-max-ziplist-entries 77
        r config set hash-max-ziplist-value 33
        list [r config get hash-max-listpack-entries] [r config get hash-max-listpack-value]
    } {{hash-max-listpack-entries 77} {hash-max-listpack-value 33}}

    test {COPY keeps the encoding and makes an independent hash} {
        r config set hash-max-listpack-entries 512
        r config set hash-max-listpack-value 64
        r del h c1 c2
        r hset h a 1 b 2
        r copy h c1
        r hset h c 3
        r del big
        for {set i 0} {$i < 600} {incr i} {r hset big f$i $i}
        r copy big c2
        list [r hgetall c1] [r object encoding c1] [r object encoding c2] [r hlen c2] [r hget c2 f150]
    } {{a 1 b 2} listpack hashtable 600 150}

    test {RENAME a hash keeps its TTL, TYPE and SCAN TYPE see it} {
        r flushdb
        r hset h a 1
        r expire h 100
        r rename h h2
        r set s v
        list [r type h2] [expr {[r ttl h2] > 0}] [r hget h2 a] [r scan 0 type hash count 100] \
             [r exists h h2]
    } {hash 1 1 {0 h2} 1}

    test {EXPIRE on a hash, UNLINK} {
        r hset h a 1
        r pexpire h 1
        after 20
        list [r hget h a] [r exists h] [r hset h b 2] [r unlink h] [r exists h]
    } {{} 0 1 1 0}
}

start_server {tags {hash needs:persistence needs:restart}} {
    test {Hashes survive a restart with their order; a hashtable that fits is a listpack again} {
        r hset small z 1 a 2 bin "\x00\xff"
        for {set i 0} {$i < 600} {incr i} {r hset big f$i $i}
        for {set i 0} {$i < 590} {incr i} {r hdel big f$i}
        r hset t a 1
        r expire t 1000
        set before [r hgetall small]
        set enc_before [r object encoding big]
        restart_server
        list [expr {[r hgetall small] eq $before}] $enc_before [r object encoding big] [r hlen big] \
             [r hget big f595] [expr {[r ttl t] > 900}] [r object encoding small]
    } [list 1 hashtable [reload_encoding listpack hashtable] 10 595 1 listpack]
}
