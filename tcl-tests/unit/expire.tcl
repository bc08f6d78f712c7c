# Key expiry: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (NX|XX|GT|LT), TTL,
# PTTL, EXPIRETIME, PEXPIRETIME, PERSIST, lazy and active expiry.

proc newkey {k} {
    r del $k
    r xadd $k * f v
}

start_server {tags {"expire"}} {
    test {EXPIRE sets a TTL} {
        newkey x
        list [r expire x 100] [r ttl x]
    } {1 100}

    test {EXPIRE of a missing key returns 0} {
        r del nosuch
        r expire nosuch 100
    } {0}

    test {TTL and PTTL of missing and persistent keys} {
        r del nosuch
        newkey p
        list [r ttl nosuch] [r pttl nosuch] [r ttl p] [r pttl p]
    } {-2 -2 -1 -1}

    test {PEXPIRE and PTTL} {
        newkey x
        assert_equal 1 [r pexpire x 100000]
        assert_range [r pttl x] 99000 100000
        assert_range [r ttl x] 99 100
    }

    test {EXPIREAT and EXPIRETIME} {
        newkey x
        set at [expr {[clock seconds] + 1000}]
        assert_equal 1 [r expireat x $at]
        assert_equal $at [r expiretime x]
        assert_equal [expr {$at * 1000}] [r pexpiretime x]
        assert_range [r ttl x] 990 1000
    }

    test {PEXPIREAT and PEXPIRETIME} {
        newkey x
        set at [expr {[clock milliseconds] + 1000000}]
        assert_equal 1 [r pexpireat x $at]
        assert_equal $at [r pexpiretime x]
        # EXPIRETIME rounds the millisecond time to the nearest second.
        assert_equal [expr {($at + 500) / 1000}] [r expiretime x]
    }

    test {EXPIRETIME and PEXPIRETIME of missing and persistent keys} {
        r del nosuch
        newkey p
        list [r expiretime nosuch] [r pexpiretime nosuch] [r expiretime p] [r pexpiretime p]
    } {-2 -2 -1 -1}

    test {EXPIRE with a negative TTL deletes the key} {
        newkey x
        list [r expire x -1] [r exists x]
    } {1 0}

    test {EXPIRE 0 deletes the key} {
        newkey x
        list [r expire x 0] [r exists x]
    } {1 0}

    test {PEXPIRE with a negative TTL deletes the key} {
        newkey x
        list [r pexpire x -100] [r exists x]
    } {1 0}

    test {EXPIREAT in the past deletes the key} {
        newkey x
        list [r expireat x [expr {[clock seconds] - 100}]] [r exists x]
    } {1 0}

    test {PEXPIREAT in the past deletes the key} {
        newkey x
        list [r pexpireat x 1] [r exists x]
    } {1 0}

    test {EXPIRE on an already expired TTL of a missing key} {
        r del nosuch
        r expire nosuch -1
    } {0}

    test {PERSIST removes the TTL} {
        newkey x
        r expire x 100
        list [r persist x] [r ttl x] [r persist x]
    } {1 -1 0}

    test {PERSIST of a missing key} {
        r del nosuch
        r persist nosuch
    } {0}

    test {EXPIRE NX: only when the key has no TTL} {
        newkey x
        set a [r expire x 100 nx]
        set b [r expire x 200 nx]
        list $a $b [r ttl x]
    } {1 0 100}

    test {EXPIRE XX: only when the key has a TTL} {
        newkey x
        set a [r expire x 100 xx]
        set b [r ttl x]
        r expire x 100
        set c [r expire x 200 xx]
        list $a $b $c [r ttl x]
    } {0 -1 1 200}

    test {EXPIRE GT: only when the new TTL is greater} {
        newkey x
        set a [r expire x 100 gt]
        r expire x 100
        set b [r expire x 50 gt]
        set c [r expire x 200 gt]
        list $a $b $c [r ttl x]
    } {0 0 1 200}

    test {EXPIRE LT: only when the new TTL is smaller (no TTL = infinite)} {
        newkey x
        set a [r expire x 100 lt]
        set b [r expire x 200 lt]
        set c [r expire x 50 lt]
        list $a $b $c [r ttl x]
    } {1 0 1 50}

    test {EXPIRE XX GT together} {
        newkey x
        set a [r expire x 100 xx gt]
        r expire x 100
        set b [r expire x 200 xx gt]
        list $a $b [r ttl x]
    } {0 1 200}

    test {EXPIRE options are case insensitive} {
        newkey x
        list [r expire x 100 NX] [r expire x 200 Gt]
    } {1 1}

    test {PEXPIRE, EXPIREAT, PEXPIREAT accept NX|XX|GT|LT too} {
        newkey x
        set now [clock seconds]
        list [r pexpire x 100000 nx] [r pexpire x 200000 nx] \
            [r expireat x [expr {$now + 50}] lt] \
            [r pexpireat x [expr {($now + 10) * 1000}] gt] \
            [r pexpireat x [expr {($now + 500) * 1000}] xx]
    } {1 0 1 0 1}

    test {EXPIRE option conflicts: NX with XX, GT or LT} {
        newkey x
        set errs {}
        foreach opts {{nx xx} {nx gt} {nx lt} {xx nx}} {
            catch {r expire x 100 {*}$opts} e
            lappend errs $e
        }
        lsort -unique $errs
    } {{ERR NX and XX, GT or LT options at the same time are not compatible}}

    test {EXPIRE option conflicts: GT with LT} {
        newkey x
        catch {r expire x 100 gt lt} e
        set e
    } {ERR GT and LT options at the same time are not compatible}

    test {EXPIRE with an unknown option} {
        newkey x
        catch {r expire x 100 foo} e
        set e
    } {ERR Unsupported option foo}

    test {EXPIRE with a non integer TTL} {
        newkey x
        set errs {}
        foreach v {abc 1.5 {}} {
            catch {r expire x $v} e
            lappend errs $e
        }
        lsort -unique $errs
    } {{ERR value is not an integer or out of range}}

    test {EXPIRE with an invalid (overflowing) expire time} {
        newkey x
        set errs {}
        catch {r expire x 9999999999999999} e
        lappend errs $e
        catch {r pexpire x 9223372036854775807} e
        lappend errs $e
        catch {r expireat x 9223372036854775807} e
        lappend errs $e
        list $errs [r ttl x]
    } {{{ERR invalid expire time in 'expire' command} {ERR invalid expire time in 'pexpire' command} {ERR invalid expire time in 'expireat' command}} -1}

    test {EXPIRE arity} {
        assert_error {ERR wrong number of arguments for 'expire' command} {r expire x}
        assert_error {ERR wrong number of arguments for 'ttl' command} {r ttl}
        assert_error {ERR wrong number of arguments for 'persist' command} {r persist}
    }

    test {Writing to a key (XADD) keeps its TTL} {
        newkey x
        r expire x 100
        r xadd x * f v2
        r ttl x
    } {100}

    test {DEL and re-create drops the TTL} {
        newkey x
        r expire x 100
        newkey x
        r ttl x
    } {-1}

    test {A key past its TTL does not exist (lazy expiry)} {
        newkey lazy
        r pexpire lazy 20
        wait_for_condition 200 10 {
            [r exists lazy] == 0
        } else {
            fail "key did not expire"
        }
        list [r exists lazy] [r type lazy] [r ttl lazy] [r xlen lazy]
    } {0 none -2 0}

    test {An expired key is not returned by KEYS or SCAN} {
        r flushdb
        newkey keep
        newkey gone
        r pexpire gone 20
        wait_for_condition 200 10 {
            [r pttl gone] == -2
        } else {
            fail "key did not expire"
        }
        list [r keys *] [lindex [r scan 0] 1]
    } {keep keep}

    test {Active expiry removes keys nobody touches} {
        r flushdb
        # One transaction, so that no key can expire before DBSIZE runs
        # however slow each write's commit is.
        r multi
        for {set i 0} {$i < 20} {incr i} {
            r xadd active:$i * f v
            r pexpire active:$i 100
        }
        r xadd persistent * f v
        r dbsize
        set res [r exec]
        assert_equal 21 [lindex $res end]
        wait_for_condition 500 10 {
            [r dbsize] == 1
        } else {
            fail "keys were not actively expired (dbsize [r dbsize])"
        }
        r keys *
    } {persistent}

    test {INFO stats expired_keys counts expired keys} {
        set before [s expired_keys]
        newkey counted
        r pexpire counted 10
        wait_for_condition 200 10 {
            [r dbsize] == 1 && [r exists counted] == 0
        } else {
            fail "key did not expire"
        }
        assert_morethan [s expired_keys] $before
    }

    test {Expiry in one database does not touch another} {
        r select 10
        r flushdb
        r xadd samename * f v
        r select 9
        newkey samename
        r pexpire samename 10
        wait_for_condition 200 10 {
            [r exists samename] == 0
        } else {
            fail "key did not expire"
        }
        r select 10
        set res [list [r exists samename] [r ttl samename]]
        r flushdb
        r select 9
        set res
    } {1 -1}

    test {A key with TTL survives SWAPDB with its TTL} {
        r select 10
        r flushdb
        r select 9
        newkey swapttl
        r expire swapttl 1000
        r swapdb 9 10
        r select 10
        set t [r ttl swapttl]
        r swapdb 9 10
        r select 9
        assert_range $t 990 1000
    }
}

start_server {tags {"expire" "needs:persistence"}} {
    test {TTL survives a restart} {
        newkey durable
        r pexpireat durable [expr {[clock milliseconds] + 1000000}]
        set at [r pexpiretime durable]
        restart_server
        list [r exists durable] [expr {[r pexpiretime durable] == $at}]
    } {1 1}

    test {A key that expired while the server was down is gone after restart} {
        newkey shortlived
        r pexpire shortlived 300
        restart_server
        wait_for_condition 200 10 {
            [r exists shortlived] == 0
        } else {
            fail "key did not expire after restart"
        }
        r exists shortlived
    } {0}
}
