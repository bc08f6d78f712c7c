# SAVE, BGSAVE, LASTSAVE, WAIT, WAITAOF.
#
# In casq every acknowledged change is already durable (the group commit):
# SAVE replies once everything changed so far is committed, BGSAVE replies
# like Redis, LASTSAVE is the time of the last commit. casq has no replicas:
# as Redis without any, WAIT n>0 waits out its timeout and replies 0, and
# WAITAOF replies [1 0] (see src/save.c).

proc wait_for_no_bgsave {} {
    wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else {
        fail "a background save is still running"
    }
}

start_server {tags {"save"}} {
    test {LASTSAVE is a recent unix time} {
        assert_range [r lastsave] [expr {[clock seconds] - 3600}] [expr {[clock seconds] + 5}]
    }

    test {SAVE replies OK and everything is saved} {
        r del k
        r xadd k * f v
        assert_equal OK [r save]
        list [s rdb_changes_since_last_save] [r xlen k]
    } {0 1}

    test {LASTSAVE after SAVE is at least the time before SAVE} {
        set before [clock seconds]
        r xadd k * f v2
        r save
        assert_range [r lastsave] [expr {$before - 1}] [expr {[clock seconds] + 1}]
    }

    test {BGSAVE} {
        wait_for_no_bgsave
        set reply [r bgsave]
        wait_for_no_bgsave
        set reply
    } {Background saving started}

    test {BGSAVE SCHEDULE with nothing else running starts at once} {
        wait_for_no_bgsave
        set reply [r bgsave schedule]
        wait_for_no_bgsave
        set reply
    } {Background saving started}

    test {BGSAVE inside MULTI/EXEC is scheduled} {
        wait_for_no_bgsave
        r multi
        r bgsave
        set reply [r exec]
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0 && [s rdb_last_bgsave_status] eq "ok"} else {
            fail "scheduled save did not finish"
        }
        set reply
    } {{Background saving scheduled}}

    test {BGSAVE syntax errors} {
        wait_for_no_bgsave
        assert_error {ERR syntax error} {r bgsave foo}
        assert_error {ERR syntax error} {r bgsave schedule x}
    }

    test {SAVE is refused inside MULTI} {
        r multi
        assert_error {ERR Command not allowed inside a transaction} {r save}
        r discard
    } {OK}

    test {SAVE and LASTSAVE arity} {
        assert_error {ERR wrong number of arguments for 'save' command} {r save x}
        assert_error {ERR wrong number of arguments for 'lastsave' command} {r lastsave x}
    }

    # ------------------------------------------------------------------ WAIT

    test {WAIT with no replicas} {
        list [r wait 0 0] [r wait 1 100] [r wait 5 1]
    } {0 0 0}

    test {WAIT after a write} {
        r xadd k * f v3
        r wait 0 0
    } {0}

    test {WAIT inside MULTI replies at once} {
        r multi
        r wait 1 0
        r exec
    } {0}

    test {WAIT for a replica that never comes: blocks for its timeout, then 0} {
        set start [clock milliseconds]
        set res [r wait 1 300]
        list $res [expr {[clock milliseconds] - $start >= 290}]
    } {0 1}

    test {WAIT 1 0 blocks until CLIENT UNBLOCK (TIMEOUT: 0)} {
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd wait 1 0
        wait_for_blocked_clients_count 1
        set u [r client unblock $id]
        set res [$rd read]
        $rd close
        list $u $res [s blocked_clients]
    } {1 0 0}

    test {WAIT 1 0 and CLIENT UNBLOCK ERROR: -UNBLOCKED} {
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd wait 1 0
        wait_for_blocked_clients_count 1
        set u [r client unblock $id error]
        catch {$rd read} res
        $rd close
        list $u $res
    } {1 {UNBLOCKED client unblocked via CLIENT UNBLOCK}}

    test {A client blocked in WAIT that disconnects leaves nothing behind} {
        set rd [redis_deferring_client]
        $rd wait 2 0
        wait_for_blocked_clients_count 1
        $rd close
        wait_for_blocked_clients_count 0
        r ping
    } {PONG}

    test {WAIT argument errors} {
        assert_error {ERR value is not an integer or out of range} {r wait x 0}
        assert_error {ERR timeout is negative} {r wait 0 -1}
        assert_error {ERR timeout is not an integer or out of range} {r wait 0 x}
        assert_error {ERR wrong number of arguments for 'wait' command} {r wait 0}
    }

    # --------------------------------------------------------------- WAITAOF
    # WAITAOF is new in Redis 7.2.

    test {WAITAOF argument errors} {
        assert_error {ERR value is out of range, value must between 0 and 1} {r waitaof 2 0 0}
        assert_error {ERR value is out of range, value must between 0 and 1} {r waitaof -1 0 0}
        assert_error {ERR value is out of range, must be positive} {r waitaof 0 -1 0}
        assert_error {ERR timeout is negative} {r waitaof 0 0 -1}
        assert_error {ERR wrong number of arguments for 'waitaof' command} {r waitaof 0 0}
    } {} {redis7.2}

    # Redis 7.2 with appendonly yes answers [1 0] here (the write is fsynced
    # locally, no replica); casq's writes are durable when acknowledged.
    test {WAITAOF: local durability is met, no replicas (casq)} {
        r xadd k * f v4
        list [r waitaof 1 0 0] [r waitaof 0 0 0]
    } {{1 0} {1 0}} {needs:casq}

    test {WAITAOF with replicas wanted blocks for its timeout, then [1 0] (casq)} {
        r xadd k * f v5
        set start [clock milliseconds]
        set res [r waitaof 1 1 300]
        list $res [expr {[clock milliseconds] - $start >= 290}]
    } {{1 0} 1} {needs:casq}

    test {COMMAND INFO of SAVE BGSAVE LASTSAVE WAIT} {
        set out {}
        foreach cmd {save bgsave lastsave wait} {
            lappend out [lrange [lindex [r command info $cmd] 0] 0 6]
        }
        set out
    } {{save 1 {admin noscript no_async_loading no_multi} 0 0 0 {@admin @slow @dangerous}} {bgsave -1 {admin noscript no_async_loading} 0 0 0 {@admin @slow @dangerous}} {lastsave 1 {loading stale fast} 0 0 0 {@admin @fast @dangerous}} {wait 3 noscript 0 0 0 {@slow @connection}}}

    test {COMMAND INFO waitaof} {
        lrange [lindex [r command info waitaof] 0] 0 6
    } {waitaof 4 noscript 0 0 0 {@slow @connection}} {redis7.2}
}

# casq: SAVE's reply waits for the commit of every change made before it,
# here slowed down by the hidden commit-debug-delay. Against Redis the
# override does not apply and the same assertions hold.
start_server {tags {"save"} casq_overrides {enable-debug-command yes commit-debug-delay 500}} {
    test {SAVE replies only once earlier changes are durable} {
        set rd [redis_deferring_client]
        $rd xadd pending * f v
        $rd flush
        after 50
        assert_equal OK [r save]
        set changes [s rdb_changes_since_last_save]
        assert_match {*-*} [$rd read]
        $rd close
        list $changes [r xlen pending]
    } {0 1}
}
