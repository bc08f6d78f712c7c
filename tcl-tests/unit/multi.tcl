# Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.

start_server {tags {"multi"}} {
    test {MULTI / EXEC basics} {
        r del s
        r multi
        set q1 [r xadd s * f v]
        set q2 [r xlen s]
        set res [r exec]
        list $q1 $q2 [llength $res] [lindex $res 1]
    } {QUEUED QUEUED 2 1}

    test {QUEUED is a status reply} {
        r multi
        r readraw 1
        set a [r ping]
        r readraw 0
        r discard
        set a
    } {+QUEUED}

    test {EXEC of an empty transaction is an empty array} {
        r multi
        r readraw 1
        set a [r exec]
        r readraw 0
        set a
    } {*0}

    test {Commands are not executed before EXEC} {
        r del s
        set c [redis_client]
        r multi
        r xadd s * f v
        set before [$c exists s]
        r exec
        set after [$c exists s]
        $c close
        list $before $after
    } {0 1}

    test {DISCARD drops the queued commands} {
        r del s
        r multi
        r xadd s * f v
        list [r discard] [r exists s]
    } {OK 0}

    test {After DISCARD the client is no longer in MULTI} {
        r multi
        r discard
        r ping
    } {PONG}

    test {EXEC without MULTI} {
        catch {r exec} e
        set e
    } {ERR EXEC without MULTI}

    test {DISCARD without MULTI} {
        catch {r discard} e
        set e
    } {ERR DISCARD without MULTI}

    test {Nested MULTI is an error that does not abort the transaction} {
        r multi
        catch {r multi} e
        r ping
        set res [r exec]
        list $e $res
    } {{ERR MULTI calls can not be nested} PONG}

    test {Arity error while queueing: EXECABORT} {
        r del s
        r multi
        r xadd s * f v
        catch {r xlen} e1
        catch {r exec} e2
        list $e1 $e2 [r exists s]
    } {{ERR wrong number of arguments for 'xlen' command} {EXECABORT Transaction discarded because of previous errors.} 0}

    test {Unknown command while queueing: EXECABORT} {
        r multi
        catch {r nosuchcommand a} e1
        catch {r exec} e2
        list $e1 $e2
    } {{ERR unknown command 'nosuchcommand', with args beginning with: 'a' } {EXECABORT Transaction discarded because of previous errors.}}

    test {After EXECABORT the client is no longer in MULTI} {
        r multi
        catch {r xlen}
        catch {r exec}
        catch {r exec} e
        set e
    } {ERR EXEC without MULTI}

    test {DISCARD after a queueing error} {
        r multi
        catch {r xlen}
        list [r discard] [r ping]
    } {OK PONG}

    test {Runtime errors do not stop the other commands of EXEC} {
        r del s nokey
        r multi
        r xadd s * f v
        r xgroup create nokey g $
        r xlen s
        r errors_inline 1
        set res [r exec]
        r errors_inline 0
        list [llength $res] [string match {ERR The XGROUP subcommand requires the key to exist*} [lindex $res 1]] [lindex $res 2]
    } {3 1 1}

    test {A runtime error in EXEC is an error element (raw)} {
        r del nokey
        r multi
        r xgroup create nokey g $
        r readraw 1
        set a [r exec]
        set b [r read]
        r readraw 0
        list $a [string range $b 0 3]
    } {*1 -ERR}

    test {WATCH inside MULTI is not allowed} {
        r multi
        catch {r watch x} e
        r ping
        set res [r exec]
        list $e $res
    } {{ERR WATCH inside MULTI is not allowed} PONG}

    test {WATCH arity} {
        assert_error {ERR wrong number of arguments for 'watch' command} {r watch}
    }

    test {EXEC fails if a WATCHed key was modified by another client} {
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c xadd w * f v2
        $c close
        r multi
        r ping
        r exec
    } {}

    test {An aborted EXEC is a null array in RESP2 (*-1)} {
        r del w
        r watch w
        set c [redis_client]
        $c xadd w * f v
        $c close
        r multi
        r ping
        r readraw 1
        set a [r exec]
        r readraw 0
        set a
    } {*-1}

    test {An aborted EXEC is null in RESP3 (_)} {
        r hello 3
        r del w
        r watch w
        set c [redis_client]
        $c xadd w * f v
        $c close
        r multi
        r ping
        r readraw 1
        set a [r exec]
        r readraw 0
        r hello 2
        set a
    } {_}

    test {EXEC fails if a WATCHed missing key was created} {
        r del w
        r watch w
        set c [redis_client]
        $c xadd w * f v
        $c close
        r multi
        r ping
        r exec
    } {}

    test {EXEC fails if a WATCHed key was deleted} {
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c del w
        $c close
        r multi
        r ping
        r exec
    } {}

    test {EXEC fails if the client itself modified the WATCHed key} {
        r del w
        r watch w
        r xadd w * f v
        r multi
        r ping
        r exec
    } {}

    test {EXEC succeeds if the WATCHed key was not touched} {
        r del w
        r xadd w * f v
        r watch w
        r multi
        r ping
        r exec
    } {PONG}

    test {Reading a WATCHed key does not abort EXEC} {
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c xlen w
        $c xrange w - +
        $c close
        r multi
        r ping
        r exec
    } {PONG}

    test {DEL of a missing WATCHed key does not abort EXEC} {
        r del w
        r watch w
        set c [redis_client]
        $c del w
        $c close
        r multi
        r ping
        r exec
    } {PONG}

    test {WATCH of the same name in another db is not affected} {
        r del w
        r watch w
        set c [redis_client]
        $c select 10
        $c xadd w * f v
        $c del w
        $c close
        r multi
        r ping
        r exec
    } {PONG}

    test {UNWATCH forgets the WATCHed keys} {
        r del w
        r watch w
        set c [redis_client]
        $c xadd w * f v
        $c close
        assert_equal OK [r unwatch]
        r multi
        r ping
        r exec
    } {PONG}

    test {UNWATCH without WATCH is OK} {
        r unwatch
    } {OK}

    test {EXEC forgets the WATCHed keys} {
        r del w
        r watch w
        r multi
        r ping
        r exec
        set c [redis_client]
        $c xadd w * f v
        $c close
        r multi
        r ping
        r exec
    } {PONG}

    test {DISCARD forgets the WATCHed keys} {
        r del w
        r watch w
        r multi
        r discard
        set c [redis_client]
        $c xadd w * f v
        $c close
        r multi
        r ping
        r exec
    } {PONG}

    test {An aborted EXEC forgets the WATCHed keys too} {
        r del w
        r watch w
        r xadd w * f v
        r multi
        r ping
        assert_equal {} [r exec]
        r xadd w * f v
        r multi
        r ping
        r exec
    } {PONG}

    test {WATCH of several keys: any change aborts} {
        r del w1 w2 w3
        r watch w1 w2 w3
        set c [redis_client]
        $c xadd w3 * f v
        $c close
        r multi
        r ping
        r exec
    } {}

    test {WATCH can be called several times before MULTI} {
        r del w1 w2
        r watch w1
        r watch w2
        set c [redis_client]
        $c xadd w1 * f v
        $c close
        r multi
        r ping
        r exec
    } {}

    test {FLUSHDB aborts a transaction WATCHing an existing key} {
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c flushdb
        $c close
        r multi
        r ping
        r exec
    } {}

    test {FLUSHALL aborts a transaction WATCHing an existing key} {
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c flushall
        $c close
        r multi
        r ping
        r exec
    } {}

    test {SWAPDB aborts a transaction WATCHing a key that changes} {
        r select 10
        r flushdb
        r select 9
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c swapdb 9 10
        $c swapdb 9 10
        $c close
        r multi
        r ping
        r exec
    } {}

    test {EXPIRE on a WATCHed key aborts EXEC} {
        r del w
        r xadd w * f v
        r watch w
        set c [redis_client]
        $c expire w 100
        $c close
        r multi
        r ping
        r exec
    } {}

    test {A WATCHed key that expires aborts EXEC} {
        r del w
        r xadd w * f v
        r pexpire w 200
        r watch w
        set c [redis_client]
        wait_for_condition 200 10 {
            [$c exists w] == 0
        } else {
            fail "key did not expire"
        }
        $c close
        r multi
        r ping
        r exec
    } {}

    test {A WATCHed key that expires without anybody touching it aborts EXEC} {
        r del w
        r xadd w * f v
        r pexpire w 200
        r watch w
        after 400
        r multi
        r ping
        r exec
    } {}

    # Which stream commands abort a transaction WATCHing their key: Redis
    # signals a key as modified when entries change (XADD, XDEL, XTRIM
    # that removes something) or when XGROUP CREATE MKSTREAM makes the key;
    # consumer-group bookkeeping and XSETID do not.
    proc watch_outcome {setup cmd} {
        r del w
        set id1 [r xadd w * f v1]
        set id2 [r xadd w * f v2]
        r xgroup create w g 0
        if {$setup ne ""} { r {*}$setup }
        r watch w
        set c [redis_client]
        catch {$c {*}[string map [list ID1 $id1 ID2 $id2] $cmd]}
        $c close
        r multi
        r ping
        if {[r exec] eq {PONG}} { return kept } else { return aborted }
    }
    foreach {setup cmd outcome} {
        {} {xadd w * f v3} aborted
        {} {xdel w ID1} aborted
        {} {xdel w 1-99} kept
        {} {xtrim w MAXLEN = 1} aborted
        {} {xtrim w MAXLEN = 10} kept
        {} {xreadgroup group g alice count 1 streams w >} kept
        {} {xreadgroup group g alice streams w 0} kept
        {xreadgroup group g alice streams w >} {xack w g ID1} kept
        {xreadgroup group g alice streams w >} {xclaim w g bob 0 ID1} kept
        {xreadgroup group g alice streams w >} {xautoclaim w g bob 0 0} kept
        {} {xgroup createconsumer w g carol} kept
        {xgroup createconsumer w g carol} {xgroup delconsumer w g carol} kept
        {} {xgroup setid w g $} kept
        {} {xgroup create w g2 0} kept
        {} {xgroup destroy w g} kept
        {} {xsetid w 99999999999999-0} kept
    } {
        test "WATCH and $cmd (after '$setup'): EXEC $outcome" {
            watch_outcome $setup $cmd
        } $outcome
    }

    test {XGROUP CREATE MKSTREAM aborts a transaction WATCHing the missing key} {
        r del w
        r watch w
        set c [redis_client]
        $c xgroup create w g $ mkstream
        $c close
        r multi
        r ping
        r exec
    } {}

    test {EXEC replies in order, with XADD IDs} {
        r del s
        r multi
        r xadd s * a 1
        r xadd s * b 2
        r xlen s
        set res [r exec]
        set ids [lrange $res 0 1]
        list [lindex $res 2] [expr {[lindex $ids 0] ne [lindex $ids 1]}] \
            [lmap e [r xrange s - +] {lindex $e 0}]
    } {2 1 *}

    test {MULTI / EXEC in RESP3} {
        r hello 3
        r del s
        r multi
        r xadd s * f v
        r xlen s
        set res [r exec]
        r hello 2
        lindex $res 1
    } {1}

    test {MULTI arity} {
        assert_error {ERR wrong number of arguments for 'multi' command} {r multi x}
        r ping
    } {PONG}

    test {EXEC with wrong arity is an EXECABORT (even outside MULTI)} {
        catch {r exec x} e
        set e
    } {EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command}

    test {EXEC with wrong arity inside MULTI discards the transaction} {
        r multi
        r ping
        catch {r exec x} e1
        catch {r exec} e2
        list $e1 $e2
    } {{EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command} {ERR EXEC without MULTI}}

    test {DISCARD with wrong arity inside MULTI flags the transaction} {
        r multi
        catch {r discard x} e1
        catch {r exec} e2
        list $e1 $e2
    } {{ERR wrong number of arguments for 'discard' command} {EXECABORT Transaction discarded because of previous errors.}}
}
