# Sets: SADD SREM SMOVE SISMEMBER SMISMEMBER SCARD SMEMBERS SPOP
# SRANDMEMBER SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF
# SDIFFSTORE SSCAN, encodings, WRONGTYPE, RESP3 shapes, persistence.
# Every test must pass against redis-server too, except those tagged
# redis7.2 (the listpack encoding of small sets is new in 7.2) or
# casq-only.

proc create_set {key entries} {
    r del $key
    foreach entry $entries { r sadd $key $entry }
}

proc randomInt {max} { expr {int(rand()*$max)} }

proc assert_encoding {enc key} {
    assert_equal $enc [r object encoding $key]
}

start_server {tags {"set"}} {

    # --------------------------------------------------------------------
    # SADD, SCARD, SISMEMBER, SMEMBERS and the encodings
    # --------------------------------------------------------------------

    test {SADD, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS basics - intset} {
        create_set myset {17}
        assert_encoding intset myset
        assert_equal 1 [r sadd myset 16]
        assert_equal 0 [r sadd myset 16]
        assert_equal 2 [r scard myset]
        assert_equal 1 [r sismember myset 16]
        assert_equal 1 [r sismember myset 17]
        assert_equal 0 [r sismember myset 18]
        assert_equal {1} [r smismember myset 16]
        assert_equal {1 1} [r smismember myset 16 17]
        assert_equal {1 0} [r smismember myset 16 18]
        assert_equal {0 1} [r smismember myset 18 16]
        assert_equal {16 17} [r smembers myset]
    }

    test {SMEMBERS of an intset is sorted} {
        r del myset
        r sadd myset 5 -3 100 0 -9223372036854775808 9223372036854775807
        r smembers myset
    } {-9223372036854775808 -3 0 5 100 9223372036854775807}

    test {SADD, SCARD, SISMEMBER, SMEMBERS basics - listpack} {
        # Redis 7.2: small sets of strings are listpacks, in insertion order
        create_set myset {b a}
        assert_encoding listpack myset
        assert_equal 1 [r sadd myset c]
        assert_equal 0 [r sadd myset a]
        assert_equal 3 [r scard myset]
        assert_equal {b a c} [r smembers myset]
        assert_equal {1 0 1} [r smismember myset a z c]
    } {} {redis7.2}

    test {SADD, SCARD, SISMEMBER, SMEMBERS basics - hashtable} {
        create_set myset {a}
        r config set set-max-intset-entries 512
        for {set i 0} {$i < 200} {incr i} { r sadd myset "member:$i" }
        assert_encoding hashtable myset
        assert_equal 201 [r scard myset]
        assert_equal 1 [r sismember myset member:150]
        assert_equal 0 [r sismember myset member:250]
        assert_equal 201 [llength [lsort -unique [r smembers myset]]]
    }

    test {SMISMEMBER SMEMBERS SCARD against non set} {
        r del mylist
        r xadd mylist * f v
        assert_error {WRONGTYPE*} {r smismember mylist bar}
        assert_error {WRONGTYPE*} {r smismember mylist bar baz}
        assert_error {WRONGTYPE*} {r smembers mylist}
        assert_error {WRONGTYPE*} {r scard mylist}
        assert_error {WRONGTYPE*} {r sismember mylist bar}
        assert_error {WRONGTYPE*} {r sadd mylist bar}
        assert_error {WRONGTYPE*} {r srem mylist bar}
    }

    test {SMISMEMBER SMEMBERS SCARD against non existing key} {
        r del myset1
        assert_equal {0} [r smismember myset1 a]
        assert_equal {0 0} [r smismember myset1 a b]
        assert_equal {} [r smembers myset1]
        assert_equal 0 [r scard myset1]
        assert_equal 0 [r sismember myset1 a]
    }

    test {SMISMEMBER requires one or more members} {
        r del zmscoretest
        r sadd zmscoretest x
        assert_error {ERR wrong number of arguments for 'smismember' command} {r smismember zmscoretest}
    }

    test {SADD against non set} {
        r del mylist
        r xadd mylist * f v
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r sadd mylist bar}
    }

    test {SADD a non-integer against a large intset} {
        create_set myset {0}
        for {set i 1} {$i < 130} {incr i} { r sadd myset $i }
        assert_encoding intset myset
        assert_equal 1 [r sadd myset a]
        assert_encoding hashtable myset
    }

    test {SADD a non-integer against a small intset} {
        create_set myset {1 2 3}
        assert_encoding intset myset
        assert_equal 1 [r sadd myset a]
        assert_encoding listpack myset
        # the intset's order is kept, the new member comes last
        r smembers myset
    } {1 2 3 a} {redis7.2}

    test {SADD an integer larger than 64 bits} {
        create_set myset {213244124402402314402033402}
        assert_encoding listpack myset
        assert_equal 1 [r sismember myset 213244124402402314402033402]
        assert_equal {1} [r smismember myset 213244124402402314402033402]
    } {} {redis7.2}

    test {SADD an integer larger than 64 bits to a large intset} {
        create_set myset {0}
        for {set i 1} {$i < 130} {incr i} { r sadd myset $i }
        assert_encoding intset myset
        r sadd myset 213244124402402314402033402
        assert_encoding hashtable myset
        assert_equal 1 [r sismember myset 213244124402402314402033402]
    }

    test {Integers that are not canonical are strings} {
        r del myset
        r sadd myset 1 01 +1 " 1" -0 0
        assert_equal 6 [r scard myset]
        assert_equal {1 1 1 1 1 1} [r smismember myset 1 01 +1 " 1" -0 0]
        assert_equal 0 [r sismember myset 001]
    }

    test "SADD overflows the maximum allowed integers in an intset" {
        r config set set-max-intset-entries 512
        r del myset
        for {set i 0} {$i < 512} {incr i} { r sadd myset $i }
        assert_encoding intset myset
        assert_equal 1 [r sadd myset 512]
        assert_encoding hashtable myset
    }

    test {SADD overflows the maximum allowed elements in a listpack - single} {
        r del myset
        for {set i 0} {$i < 128} {incr i} { r sadd myset "e$i" }
        assert_encoding listpack myset
        assert_equal 1 [r sadd myset e128]
        assert_encoding hashtable myset
    } {} {redis7.2}

    test {SADD overflows the maximum allowed elements in a listpack - multiple} {
        r del myset
        set args {}
        for {set i 0} {$i < 128} {incr i} { lappend args "e$i" }
        r sadd myset {*}$args
        assert_encoding listpack myset
        lappend args e128
        r del myset
        r sadd myset {*}$args
        assert_encoding hashtable myset
    } {} {redis7.2}

    test {SADD overflows the maximum allowed element size in a listpack} {
        r del myset
        r sadd myset [string repeat x 64]
        assert_encoding listpack myset
        r sadd myset [string repeat x 65]
        assert_encoding hashtable myset
    } {} {redis7.2}

    test {Set encoding after DEL of the whole set} {
        create_set myset {a b c}
        r del myset
        r sadd myset 1
        assert_encoding intset myset
    }

    test {Variadic SADD} {
        r del myset
        assert_equal 3 [r sadd myset a b c]
        assert_equal 2 [r sadd myset A a b c B]
        lsort [r smembers myset]
    } {A B a b c}

    test {Set encoding limits follow CONFIG SET} {
        r config set set-max-intset-entries 4
        r del myset
        r sadd myset 1 2 3 4
        assert_encoding intset myset
        r sadd myset 5
        set enc [r object encoding myset]
        r config set set-max-intset-entries 512
        set enc
    } {hashtable}

    # --------------------------------------------------------------------
    # SREM
    # --------------------------------------------------------------------

    test {SREM basics - intset} {
        create_set myset {3 4 5}
        assert_encoding intset myset
        assert_equal 0 [r srem myset 6]
        assert_equal 1 [r srem myset 4]
        assert_equal {3 5} [lsort [r smembers myset]]
    }

    test {SREM basics - listpack and hashtable} {
        create_set myset {foo bar ciao}
        assert_equal 0 [r srem myset qux]
        assert_equal 1 [r srem myset foo]
        assert_equal {bar ciao} [lsort [r smembers myset]]
    }

    test {SREM with multiple arguments} {
        r del myset
        r sadd myset a b c d
        assert_equal 0 [r srem myset k k k]
        assert_equal 2 [r srem myset b d x y]
        lsort [r smembers myset]
    } {a c}

    test {SREM variadic version with more args needed to destroy the key} {
        r del myset
        r sadd myset 1 2 3
        r srem myset 1 2 3 4 5 6 7 8
    } {3}

    test {SREM of the last member deletes the key} {
        r del myset
        r sadd myset x
        r srem myset x
        r exists myset
    } {0}

    test {SREM against a missing key is 0} {
        r del nokey
        r srem nokey a b
    } {0}

    test {SREM keeps the listpack order} {
        r del myset
        r sadd myset a b c d e
        r srem myset b d
        r smembers myset
    } {a c e} {redis7.2}

    # Members around the lengths where a packed member's length takes a
    # second byte (127/128), with set-max-listpack-value raised; an intset
    # that takes a string member becomes a listpack of its integers.
    test {A listpack set with long members, removed from the middle} {
        r config set set-max-listpack-value 2000
        r del myset
        set members {}
        foreach len {0 1 126 127 128 129 300 999} {
            lappend members [string repeat m $len]x$len
        }
        r sadd myset 5 -70000 123456789012
        r sadd myset {*}$members
        r srem myset [lindex $members 3] 5 [lindex $members 6]
        set lens {}
        foreach m [lsort [r smembers myset]] { lappend lens [string length $m] }
        set res [list [r scard myset] $lens [r sismember myset [lindex $members 4]] \
                     [r sismember myset [lindex $members 3]] [r sismember myset -70000] \
                     [expr {[r srandmember myset] in [r smembers myset]}] \
                     [llength [r srandmember myset 100]] [r smismember myset x0 [lindex $members 7] 5] \
                     [r object encoding myset]]
        r config set set-max-listpack-value 64
        set res
    } {8 {6 12 1003 133 132 130 3 2} 1 0 1 1 8 {1 1 0} listpack} {redis7.2}

    # --------------------------------------------------------------------
    # SINTER, SUNION, SDIFF (+STORE), SINTERCARD
    # --------------------------------------------------------------------

    foreach {type} {regular intset} {
        test "Generated sets must be encoded correctly - $type" {
            r del set1{t} set2{t}
            for {set i 0} {$i < 200} {incr i} {
                if {$type eq "regular"} {
                    r sadd set1{t} "x$i"
                } else {
                    r sadd set1{t} $i
                }
            }
            for {set i 195} {$i < 250} {incr i} {
                if {$type eq "regular"} {
                    r sadd set2{t} "x$i"
                } else {
                    r sadd set2{t} $i
                }
            }
            assert_equal [expr {$type eq "regular" ? "hashtable" : "intset"}] [r object encoding set1{t}]
            if {$type eq "intset"} { assert_encoding intset set2{t} }
        }

        test "SINTER with two sets - $type" {
            set expected {}
            foreach i {195 196 197 198 199} { lappend expected [expr {$type eq "regular" ? "x$i" : $i}] }
            assert_equal [lsort $expected] [lsort [r sinter set1{t} set2{t}]]
        }

        test "SINTERCARD with two sets - $type" {
            assert_equal 5 [r sintercard 2 set1{t} set2{t}]
            assert_equal 5 [r sintercard 2 set1{t} set2{t} limit 0]
            assert_equal 3 [r sintercard 2 set1{t} set2{t} limit 3]
            assert_equal 5 [r sintercard 2 set1{t} set2{t} limit 10]
        }

        test "SINTERSTORE with two sets - $type" {
            r sinterstore setres{t} set1{t} set2{t}
            assert_equal [lsort [r sinter set1{t} set2{t}]] [lsort [r smembers setres{t}]]
            if {$type eq "intset"} { assert_encoding intset setres{t} }
        }

        test "SUNION with two sets - $type" {
            assert_equal 250 [llength [lsort -unique [r sunion set1{t} set2{t}]]]
        }

        test "SUNIONSTORE with two sets - $type" {
            assert_equal 250 [r sunionstore setres{t} set1{t} set2{t}]
            assert_equal [expr {$type eq "intset" ? "intset" : "hashtable"}] [r object encoding setres{t}]
            assert_equal [lsort [r sunion set1{t} set2{t}]] [lsort [r smembers setres{t}]]
        }

        test "SDIFF with two sets - $type" {
            assert_equal 195 [llength [r sdiff set1{t} set2{t}]]
            assert_equal 50 [llength [r sdiff set2{t} set1{t}]]
        }

        test "SDIFFSTORE with two sets - $type" {
            assert_equal 195 [r sdiffstore setres{t} set1{t} set2{t}]
            assert_equal [lsort [r sdiff set1{t} set2{t}]] [lsort [r smembers setres{t}]]
        }
    }

    test {SINTER of intsets is sorted} {
        r del a{t} b{t}
        r sadd a{t} 9 3 7 1 5
        r sadd b{t} 1 3 5 7 9 11
        r sinter a{t} b{t}
    } {1 3 5 7 9}

    test {SUNION of intsets is sorted} {
        r del a{t} b{t}
        r sadd a{t} 9 3
        r sadd b{t} 1 10 -5
        r sunion a{t} b{t}
    } {-5 1 3 9 10}

    test {SDIFF of intsets is sorted} {
        r del a{t} b{t}
        r sadd a{t} 9 3 7 1 5
        r sadd b{t} 3 7
        r sdiff a{t} b{t}
    } {1 5 9}

    test {SINTERSTORE of a listpack and an intset gives an intset} {
        r del a{t} b{t} dst{t}
        r sadd a{t} x 1 2 3
        r sadd b{t} 1 2 3 4
        assert_equal 3 [r sinterstore dst{t} a{t} b{t}]
        assert_encoding intset dst{t}
        r smembers dst{t}
    } {1 2 3}

    test {SINTERSTORE of strings keeps the first set's order} {
        r del a{t} b{t} dst{t}
        r sadd a{t} c a b
        r sadd b{t} a b c d
        assert_equal 3 [r sinterstore dst{t} a{t} b{t}]
        assert_encoding listpack dst{t}
        r smembers dst{t}
    } {c a b} {redis7.2}

    test {SUNIONSTORE of strings is a listpack in order} {
        r del a{t} b{t} dst{t}
        r sadd a{t} c a
        r sadd b{t} b a 1
        assert_equal 4 [r sunionstore dst{t} a{t} b{t}]
        assert_encoding listpack dst{t}
        r smembers dst{t}
    } {c a b 1} {redis7.2}

    test {SINTERSTORE with two hashtable sets where result is intset} {
        r del setres{t} set1{t} set2{t}
        r sadd set1{t} a b c 444 555 666
        r sadd set2{t} e f g 111 222 333
        set expected {}
        for {set i 1} {$i < 130} {incr i} {
            r sadd set1{t} $i
            r sadd set2{t} $i
            lappend expected $i
        }
        assert_encoding hashtable set1{t}
        assert_encoding hashtable set2{t}
        r sinterstore setres{t} set1{t} set2{t}
        assert_equal [lsort $expected] [lsort [r smembers setres{t}]]
        assert_encoding intset setres{t}
    }

    test {SINTERSTORE with two listpack sets where result is intset} {
        r del setres{t} set1{t} set2{t}
        r sadd set1{t} a b c 1 3 6 x y z
        r sadd set2{t} e f g 1 2 3 u v w
        r sinterstore setres{t} set1{t} set2{t}
        assert_equal {1 3} [lsort [r smembers setres{t}]]
        assert_encoding intset setres{t}
    } {} {redis7.2}

    test {SMOVE of a member the destination has does not touch a WATCH of it} {
        r del srcset{t} dstset{t}
        r sadd srcset{t} a b
        r sadd dstset{t} a
        r watch dstset{t}
        r multi
        r sadd dstset{t} c
        set r2 [redis_client]
        assert_equal 1 [$r2 smove srcset{t} dstset{t} a]
        $r2 close
        assert_equal {1} [r exec]
        list [lsort [r smembers srcset{t}]] [lsort [r smembers dstset{t}]]
    } {b {a c}}

    test {SINTER against non-set should throw error} {
        r del key1{t} noset{t}
        r xadd noset{t} * f v
        r sadd key1{t} a b c
        assert_error {WRONGTYPE*} {r sinter key1{t} noset{t}}
        assert_error {WRONGTYPE*} {r sinter noset{t} key1{t}}
        assert_error {WRONGTYPE*} {r sinterstore dst{t} key1{t} noset{t}}
        assert_error {WRONGTYPE*} {r sintercard 2 key1{t} noset{t}}
    }

    test {SINTER should handle non existing key as empty} {
        r del set1{t} set2{t} set3{t}
        r sadd set1{t} a b c
        r sadd set2{t} b c d
        r sinter set1{t} set2{t} set3{t}
    } {}

    test {SINTER with same integer elements but different encoding} {
        r del set1{t} set2{t}
        r sadd set1{t} 1 2 3
        r sadd set2{t} 1 2 3 a
        r srem set2{t} a
        lsort [r sinter set1{t} set2{t}]
    } {1 2 3}

    test {SINTERSTORE against non existing keys should delete dstkey} {
        r del setres{t} set1{t}
        r sadd setres{t} xxx
        assert_equal 1 [r exists setres{t}]
        assert_equal 0 [r sinterstore setres{t} foo111{t} bar222{t}]
        assert_equal 0 [r exists setres{t}]
        r sadd setres{t} xxx
        r sadd set1{t} a
        assert_equal 0 [r sinterstore setres{t} set1{t} bar222{t}]
        assert_equal 0 [r exists setres{t}]
    }

    test {SUNIONSTORE and SDIFFSTORE against non existing keys delete dstkey} {
        r del setres{t}
        r sadd setres{t} xxx
        assert_equal 0 [r sunionstore setres{t} foo111{t} bar222{t}]
        assert_equal 0 [r exists setres{t}]
        r sadd setres{t} xxx
        assert_equal 0 [r sdiffstore setres{t} foo111{t} bar222{t}]
        assert_equal 0 [r exists setres{t}]
    }

    test {SINTERSTORE replaces a key of another type, and its TTL} {
        r del dst{t} a{t}
        r xadd dst{t} * f v
        r expire dst{t} 100
        r sadd a{t} 1 2
        assert_equal 2 [r sinterstore dst{t} a{t}]
        list [r type dst{t}] [r ttl dst{t}]
    } {set -1}

    test {SUNIONSTORE against non-set should throw error} {
        r del dst{t} noset{t} a{t}
        r xadd noset{t} * f v
        r sadd a{t} 1
        assert_error {WRONGTYPE*} {r sunionstore dst{t} a{t} noset{t}}
        assert_error {WRONGTYPE*} {r sdiffstore dst{t} a{t} noset{t}}
        r exists dst{t}
    } {0}

    test {SDIFF with first set empty} {
        r del set1{t} set2{t} set3{t}
        r sadd set2{t} 1 2 3 4
        r sadd set3{t} a b c d
        r sdiff set1{t} set2{t} set3{t}
    } {}

    test {SDIFF with same set two times} {
        r del set1{t}
        r sadd set1{t} a b c 1 2 3 4 5 6
        r sdiff set1{t} set1{t}
    } {}

    test {SDIFF with three sets} {
        r del s1{t} s2{t} s3{t}
        r sadd s1{t} a b c d e f
        r sadd s2{t} b c
        r sadd s3{t} e z
        lsort [r sdiff s1{t} s2{t} s3{t}]
    } {a d f}

    test {SDIFF fuzzing against a Tcl model} {
        for {set j 0} {$j < 30} {incr j} {
            unset -nocomplain s
            array set s {}
            set args {}
            set num_sets [expr {[randomInt 10]+1}]
            for {set i 0} {$i < $num_sets} {incr i} {
                set num_elements [randomInt 60]
                r del set_$i{t}
                lappend args set_$i{t}
                while {$num_elements} {
                    set ele [expr {[randomInt 2] ? [randomInt 30] : "x[randomInt 30]"}]
                    r sadd set_$i{t} $ele
                    if {$i == 0} {
                        set s($ele) x
                    } else {
                        unset -nocomplain s($ele)
                    }
                    incr num_elements -1
                }
            }
            set result [lsort [r sdiff {*}$args]]
            assert_equal [lsort [array names s]] $result
        }
    }

    test {SINTER, SUNION, SDIFF with a single key return the set} {
        r del a{t}
        r sadd a{t} 3 1 2
        list [r sinter a{t}] [r sunion a{t}] [r sdiff a{t}]
    } {{1 2 3} {1 2 3} {1 2 3}}

    test {SINTERCARD errors} {
        r del a{t}
        r sadd a{t} 1
        assert_error {ERR wrong number of arguments for 'sintercard' command} {r sintercard 1}
        assert_error {ERR numkeys*} {r sintercard 0 a{t}}
        assert_error {ERR numkeys*} {r sintercard a a{t}}
        assert_error {ERR Number of keys*} {r sintercard 2 a{t}}
        assert_error {ERR syntax error*} {r sintercard 1 a{t} bar_arg}
        assert_error {ERR syntax error*} {r sintercard 1 a{t} LIMIT}
        assert_error {ERR LIMIT*} {r sintercard 1 a{t} LIMIT -1}
        assert_error {ERR LIMIT*} {r sintercard 1 a{t} LIMIT a}
    }

    test {SINTERCARD against non-existing key} {
        assert_equal 0 [r sintercard 1 non-existing-key]
        assert_equal 0 [r sintercard 1 non-existing-key limit 0]
        assert_equal 0 [r sintercard 1 non-existing-key limit 10]
    }

    # --------------------------------------------------------------------
    # SPOP, SRANDMEMBER
    # --------------------------------------------------------------------

    foreach {type content} {intset {1 2 3 4 5} listpack {a b c d e}} {
        test "SPOP basics - $type" {
            create_set myset $content
            set got {}
            for {set i 0} {$i < 5} {incr i} { lappend got [r spop myset] }
            assert_equal [lsort $content] [lsort $got]
            assert_equal 0 [r scard myset]
            r exists myset
        } {0}

        test "SPOP with <count>=1 - $type" {
            create_set myset $content
            set got {}
            for {set i 0} {$i < 5} {incr i} { lappend got {*}[r spop myset 1] }
            assert_equal [lsort $content] [lsort $got]
            r exists myset
        } {0}

        test "SRANDMEMBER - $type" {
            create_set myset $content
            unset -nocomplain seen
            array set seen {}
            for {set i 0} {$i < 100} {incr i} { set seen([r srandmember myset]) 1 }
            assert_equal 5 [r scard myset]
            lsort [array names seen]
        } [lsort $content]
    }

    test {SPOP integer from listpack set} {
        create_set myset {a 1 2 3 4 5 6 7}
        set a [r spop myset]
        set b [r spop myset]
        assert {[string is digit $a] || [string is digit $b]}
    }

    foreach {type content} {
        intset {1 10 11 12 13 14 15 16 17 18 19 2 20 21 22 23 24 25 26 3 4 5 6 7 8 9}
        listpack {a b c d e f g h i j k l m n o p q r s t u v w x y z}
    } {
        test "SPOP with <count> - $type" {
            create_set myset $content
            set got {}
            lappend got {*}[r spop myset 11]
            lappend got {*}[r spop myset 9]
            lappend got {*}[r spop myset 0]
            lappend got {*}[r spop myset 4]
            lappend got {*}[r spop myset 1]
            lappend got {*}[r spop myset 10]
            assert_equal [lsort $content] [lsort $got]
            r exists myset
        } {0}
    }

    test {SPOP using integers, testing Knuth's and Floyd's algorithm} {
        r del myset
        r sadd myset 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
        assert_equal 20 [r scard myset]
        r spop myset 1
        assert_equal 19 [r scard myset]
        r spop myset 2
        assert_equal 17 [r scard myset]
        r spop myset 3
        assert_equal 14 [r scard myset]
        r spop myset 10
        assert_equal 4 [r scard myset]
        r spop myset 10
        r scard myset
    } {0}

    test {SPOP using integers with Knuth's algorithm} {
        r spop nonexisting_key 100
    } {}

    test {SPOP new implementation: code path #1, #2, #3 keep the rest} {
        foreach {n count} {30 5 30 20 30 29 300 100 300 290} {
            r del myset
            set all {}
            for {set i 0} {$i < $n} {incr i} { lappend all "m$i" }
            r sadd myset {*}$all
            set popped [r spop myset $count]
            assert_equal $count [llength [lsort -unique $popped]]
            set rest [r smembers myset]
            assert_equal [expr {$n - $count}] [llength $rest]
            assert_equal [lsort $all] [lsort [concat $popped $rest]]
        }
    }

    test {SPOP with count against errors} {
        r del myset
        r sadd myset a
        assert_error {ERR value is out of range*} {r spop myset -1}
        assert_error {ERR value is out of range*} {r spop myset notanumber}
        assert_error {ERR syntax error} {r spop myset 1 2}
        r del mylist
        r xadd mylist * f v
        assert_error {WRONGTYPE*} {r spop mylist}
        assert_error {WRONGTYPE*} {r spop mylist 1}
    }

    test {SPOP against a missing key} {
        r del nokey
        list [r spop nokey] [r spop nokey 0] [r spop nokey 3]
    } {{} {} {}}

    test {SRANDMEMBER count of 0 is handled correctly} {
        r srandmember myset 0
    } {}

    test {SRANDMEMBER with <count> against non existing key} {
        r srandmember nonexisting_key 100
    } {}

    test {SRANDMEMBER count overflow} {
        r del myset
        r sadd myset a
        assert_error {*value is out of range*} {r srandmember myset -9223372036854775808}
    }

    test {SRANDMEMBER with a count not smaller than the set returns it all, in order} {
        r del myset
        r sadd myset 3 1 2
        list [r srandmember myset 3] [r srandmember myset 10]
    } {{1 2 3} {1 2 3}}

    test {SRANDMEMBER with <count> - listpack order} {
        r del myset
        r sadd myset c a b
        r srandmember myset 5
    } {c a b} {redis7.2}

    foreach {type contents} {
        intset {1 5 10 50 125 50000 33959417 4775547 65434162 12098459 427716 483706 2726473884 72615637475 0}
        hashtable {
            1 5 10 50 125 MARY PATRICIA LINDA BARBARA ELIZABETH JENNIFER MARIA SUSAN MARGARET DOROTHY LISA NANCY
            KAREN BETTY HELEN SANDRA DONNA CAROL RUTH SHARON MICHELLE LAURA SARAH KIMBERLY DEBORAH JESSICA SHIRLEY
            CYNTHIA ANGELA MELISSA BRENDA AMY ANNA REBECCA VIRGINIA KATHLEEN
        }
    } {
        test "SRANDMEMBER with <count> - $type" {
            r del myset
            r sadd myset {*}$contents
            unset -nocomplain myset
            array set myset {}
            foreach ele [r smembers myset] { set myset($ele) 1 }
            assert_equal [lsort $contents] [lsort [array names myset]]

            # Make sure that a count of 0 is handled correctly.
            assert_equal [r srandmember myset 0] {}

            # We'll stress different parts of the code, see the implementation
            # of SRANDMEMBER for more information, but basically there are
            # four different code paths.
            #
            # PATH 1: Use negative count.
            #
            # 1) Check that it returns repeated elements.
            set res [r srandmember myset -100]
            assert_equal [llength $res] 100
            # 2) Check that all the elements actually belong to the original set.
            foreach ele $res { assert {[info exists myset($ele)]} }
            # 3) Check that eventually all the elements are returned.
            unset -nocomplain auxset
            set iterations 1000
            while {$iterations != 0} {
                incr iterations -1
                set res [r srandmember myset -10]
                foreach ele $res { set auxset($ele) 1 }
                if {[lsort [array names myset]] eq [lsort [array names auxset]]} { break }
            }
            assert {$iterations != 0}

            # PATH 2: positive count (unique behavior) with requested size
            # equal or greater than set size.
            foreach size {50 100} {
                set res [r srandmember myset $size]
                assert_equal [llength $res] [llength $contents]
                assert_equal [lsort $res] [lsort [array names myset]]
            }

            # PATH 3: Ask almost as elements as there are in the set.
            # PATH 4: Ask a number of elements definitely smaller than
            # the set size.
            foreach size {1 2 5 8 10 13} {
                set res [r srandmember myset $size]
                assert_equal [llength $res] $size
                assert_equal [llength [lsort -unique $res]] $size
                foreach ele $res { assert {[info exists myset($ele)]} }
            }
        }
    }

    proc chi_square_value {l} {
        foreach e $l { dict incr counts $e }
        set n [llength $l]
        set k [dict size $counts]
        set expected [expr {double($n) / $k}]
        set chi 0.0
        dict for {_ c} $counts { set chi [expr {$chi + ($c - $expected) * ($c - $expected) / $expected}] }
        return $chi
    }

    foreach {type contents} {
        intset {0 1 2 3 4 5 6 7 8 9}
        hashtable {ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 1 5 10 50 125 MARY PATRICIA LINDA BARBARA}
    } {
        test "SRANDMEMBER histogram distribution - $type" {
            r del myset
            r sadd myset {*}$contents
            # df = 9, 40 means 0.00001 probability
            assert_lessthan [chi_square_value [r srandmember myset -1000]] 40
            foreach size {8 2} {
                set all {}
                for {set i 0} {$i < 1000 / $size} {incr i} { lappend all {*}[r srandmember myset $size] }
                assert_lessthan [chi_square_value $all] 40
            }
        }
    }

    # --------------------------------------------------------------------
    # SMOVE
    # --------------------------------------------------------------------

    proc setup_move {} {
        r del myset3{t} myset4{t}
        create_set myset1{t} {1 a b}
        create_set myset2{t} {2 3 4}
    }

    test {SMOVE basics - from regular set to intset} {
        # move a non-integer element to an intset should convert encoding
        setup_move
        assert_equal 1 [r smove myset1{t} myset2{t} a]
        assert_equal {1 b} [lsort [r smembers myset1{t}]]
        assert_equal {2 3 4 a} [lsort [r smembers myset2{t}]]

        # move an integer element should not convert the encoding
        setup_move
        assert_equal 1 [r smove myset1{t} myset2{t} 1]
        assert_equal {a b} [lsort [r smembers myset1{t}]]
        assert_equal {1 2 3 4} [lsort [r smembers myset2{t}]]
        assert_encoding intset myset2{t}
    }

    test {SMOVE basics - from intset to regular set} {
        setup_move
        assert_equal 1 [r smove myset2{t} myset1{t} 2]
        assert_equal {1 2 a b} [lsort [r smembers myset1{t}]]
        assert_equal {3 4} [lsort [r smembers myset2{t}]]
    }

    test {SMOVE non existing key} {
        setup_move
        assert_equal 0 [r smove myset1{t} myset2{t} foo]
        assert_equal 0 [r smove myset1{t} myset1{t} foo]
        assert_equal {1 a b} [lsort [r smembers myset1{t}]]
        assert_equal {2 3 4} [lsort [r smembers myset2{t}]]
    }

    test {SMOVE non existing src set} {
        setup_move
        r del nosrc{t}
        assert_equal 0 [r smove nosrc{t} myset2{t} foo]
        assert_equal {2 3 4} [lsort [r smembers myset2{t}]]
    }

    test {SMOVE from regular set to non existing destination set} {
        setup_move
        assert_equal 1 [r smove myset1{t} myset3{t} a]
        assert_equal {1 b} [lsort [r smembers myset1{t}]]
        assert_equal {a} [lsort [r smembers myset3{t}]]
    }

    test {SMOVE from intset to non existing destination set} {
        setup_move
        assert_equal 1 [r smove myset2{t} myset3{t} 2]
        assert_equal {3 4} [lsort [r smembers myset2{t}]]
        assert_equal {2} [lsort [r smembers myset3{t}]]
        assert_encoding intset myset3{t}
    }

    test {SMOVE wrong src key type} {
        r del x{t}
        r xadd x{t} * f v
        assert_error {WRONGTYPE*} {r smove x{t} myset2{t} foo}
    }

    test {SMOVE wrong dst key type} {
        r del x{t}
        r xadd x{t} * f v
        assert_error {WRONGTYPE*} {r smove myset2{t} x{t} foo}
    }

    test {SMOVE with a missing source and a wrong-type destination is 0} {
        r del x{t} nosrc{t}
        r xadd x{t} * f v
        r smove nosrc{t} x{t} foo
    } {0}

    test {SMOVE with identical source and destination} {
        r del set{t}
        r sadd set{t} a b c
        r smove set{t} set{t} b
        lsort [r smembers set{t}]
    } {a b c}

    test {SMOVE only notify dstset when the addition is successful} {
        r del src{t} dst{t}
        r sadd src{t} a b
        r sadd dst{t} a
        assert_equal 1 [r smove src{t} dst{t} a]
        list [r smembers src{t}] [r smembers dst{t}]
    } {b a}

    test {SMOVE of the last member deletes the source} {
        r del src{t} dst{t}
        r sadd src{t} only
        r smove src{t} dst{t} only
        list [r exists src{t}] [r smembers dst{t}]
    } {0 only}

    # --------------------------------------------------------------------
    # SSCAN
    # --------------------------------------------------------------------

    test {SSCAN of a small set returns everything with cursor 0} {
        r del myset
        r sadd myset 1 2 3
        r sscan myset 0
    } {0 {1 2 3}}

    test {SSCAN with MATCH} {
        r del myset
        r sadd myset foo1 foo2 bar1 2
        lsort [lindex [r sscan myset 0 match foo*] 1]
    } {foo1 foo2}

    test {SSCAN of a large set visits every member} {
        r del myset
        set all {}
        for {set i 0} {$i < 500} {incr i} { lappend all "member:$i" }
        r sadd myset {*}$all
        assert_encoding hashtable myset
        set cur 0
        set got {}
        while 1 {
            set res [r sscan myset $cur count 20]
            set cur [lindex $res 0]
            lappend got {*}[lindex $res 1]
            if {$cur == 0} break
        }
        assert_equal [lsort $all] [lsort -unique $got]
    }

    test {SSCAN errors} {
        r del myset
        r sadd myset a
        assert_error {ERR invalid cursor} {r sscan myset foo}
        assert_error {ERR syntax error} {r sscan myset 0 count 0}
        assert_error {ERR syntax error} {r sscan myset 0 type set}
        assert_error {ERR value is not an integer*} {r sscan myset 0 count x}
        r del mylist
        r xadd mylist * f v
        assert_error {WRONGTYPE*} {r sscan mylist 0}
        r sscan nokey 0
    } {0 {}}

    # --------------------------------------------------------------------
    # RESP3, types, MULTI, COPY, RENAME
    # --------------------------------------------------------------------

    test {RESP3: SMEMBERS, SINTER, SUNION, SDIFF, SPOP count reply sets} {
        r del a{t} b{t}
        r sadd a{t} 1 2
        r sadd b{t} 2 3
        r hello 3
        r readraw 1
        set res {}
        foreach cmd {{smembers a{t}} {sinter a{t} b{t}} {sunion a{t} b{t}} {sdiff a{t} b{t}} {smembers nokey{t}}} {
            lappend res [r {*}$cmd]
            # drain the rest of the reply
            set n [string range [lindex $res end] 1 end]
            for {set i 0} {$i < 2*$n} {incr i} { r read }
        }
        lappend res [r srandmember a{t} 2]
        for {set i 0} {$i < 4} {incr i} { r read }
        lappend res [r spop nokey{t} 2]
        lappend res [r smismember a{t} 1]
        r read
        r readraw 0
        r hello 2
        set res
    } {~2 ~1 ~3 ~1 ~0 *2 ~0 *1}

    test {SADD, SPOP and SREM inside MULTI/EXEC} {
        r del myset
        r multi
        r sadd myset a b c
        r srem myset b
        r scard myset
        r exec
    } {3 1 2}

    test {COPY of a set is a deep copy} {
        r del s1{t} s2{t}
        r sadd s1{t} a b c
        r copy s1{t} s2{t}
        r sadd s2{t} d
        list [lsort [r smembers s1{t}]] [lsort [r smembers s2{t}]]
    } {{a b c} {a b c d}}

    test {RENAME of a set} {
        r del s1{t} s2{t}
        r sadd s1{t} 1 2
        r rename s1{t} s2{t}
        list [r exists s1{t}] [r smembers s2{t}] [r type s2{t}]
    } {0 {1 2} set}

    test {Binary-safe members} {
        r del myset
        r sadd myset "a\x00b" "\xff\xfe" ""
        assert_equal 3 [r scard myset]
        assert_equal {1 1 1 0} [r smismember myset "a\x00b" "\xff\xfe" "" "a"]
    }

    test {SADD arity errors} {
        assert_error {ERR wrong number of arguments for 'sadd' command} {r sadd myset}
        assert_error {ERR wrong number of arguments for 'srem' command} {r srem myset}
        assert_error {ERR wrong number of arguments for 'smove' command} {r smove a b}
        assert_error {ERR wrong number of arguments for 'sinterstore' command} {r sinterstore a}
    }

    # --------------------------------------------------------------------
    # Persistence (casq: the state document)
    # --------------------------------------------------------------------

    test {Sets survive a restart with their members and encodings} {
        r del si sl sh sb
        r sadd si 3 1 2
        r sadd sl c a b
        for {set i 0} {$i < 300} {incr i} { r sadd sh "m$i" }
        r sadd sb "a\x00b" "\xff" "plain"
        r expire sl 1000
        restart_server 0 kill
        assert_equal {1 2 3} [r smembers si]
        assert_encoding intset si
        assert_equal {c a b} [r smembers sl]
        assert_encoding listpack sl
        assert_equal 300 [r scard sh]
        assert_encoding hashtable sh
        assert_equal {1 1 1} [r smismember sb "a\x00b" "\xff" "plain"]
        assert_range [r ttl sl] 900 1000
    } {} {needs:persistence redis7.2}
}
