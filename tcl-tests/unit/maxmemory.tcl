# maxmemory and maxmemory-policy. casq never evicts (a queue must not drop
# jobs to make room): its only policy is noeviction, under which Redis, over
# maxmemory, refuses the commands that may grow memory (flag denyoom) and,
# inside MULTI, the queueing of any command.

start_server {tags {"maxmemory"}} {
    proc oom_error {} { return {OOM command not allowed when used memory > 'maxmemory'.} }

    test {maxmemory and maxmemory-policy defaults} {
        list [r config get maxmemory] [r config get maxmemory-policy] [s maxmemory] [s maxmemory_policy]
    } {{maxmemory 0} {maxmemory-policy noeviction} 0 noeviction}

    test {CONFIG SET maxmemory takes units and shows in INFO} {
        r config set maxmemory 100mb
        set res [list [r config get maxmemory] [s maxmemory] [s maxmemory_human]]
        r config set maxmemory 0
        set res
    } {{maxmemory 104857600} 104857600 100.00M}

    test {Over maxmemory, XADD is refused with OOM and changes nothing} {
        r del s
        r xadd s * f v
        r xgroup create s g 0
        r config set maxmemory 1
        catch {r xadd s * f v2} err
        r config set maxmemory 0
        list $err [r xlen s]
    } [list [oom_error] 1]

    test {Over maxmemory, reads and the commands that free memory still run} {
        r del s
        r xadd s * f v
        set id [r xadd s * f v]
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        r config set maxmemory 1
        set res [list [r xlen s] [llength [r xrange s - +]] [r xack s g $id] [r xdel s $id] [r xtrim s maxlen 0] [r del s] [r ping]]
        r config set maxmemory 0
        set res
    } {2 2 1 1 1 1 PONG}

    test {Over maxmemory, XGROUP CREATE and XSETID are refused too} {
        r del s
        r xadd s * f v
        r config set maxmemory 1
        catch {r xgroup create s g2 0} e1
        catch {r xgroup create s2 g 0 mkstream} e2
        r config set maxmemory 0
        list $e1 $e2 [r exists s2]
    } [list [oom_error] [oom_error] 0]

    test {Under maxmemory again, XADD works} {
        r config set maxmemory 1
        catch {r xadd s * f v} err
        r config set maxmemory 0
        list [string match OOM* $err] [string match *-* [r xadd s * f v]]
    } {1 1}

    test {Over maxmemory inside MULTI: queueing is refused, EXEC aborts} {
        r del s
        set rc [redis_client]
        r multi
        $rc config set maxmemory 1
        catch {r xlen s} e1
        catch {r exec} e2
        $rc config set maxmemory 0
        $rc close
        list $e1 $e2
    } [list [oom_error] {EXECABORT Transaction discarded because of previous errors.}]

    test {Over maxmemory, EXEC of a queued XADD is refused (EXECABORT)} {
        r del s
        set rc [redis_client]
        r multi
        r xadd s * f v
        $rc config set maxmemory 1
        catch {r exec} err
        $rc config set maxmemory 0
        set len [$rc xlen s]
        $rc close
        list $err $len [r ping]
    } [list "EXECABORT Transaction discarded because of: [oom_error]" 0 PONG]

    test {Over maxmemory, EXEC of reads only runs, and DISCARD works} {
        r del s
        r xadd s * f v
        set rc [redis_client]
        r multi
        r xlen s
        $rc config set maxmemory 1
        set res [r exec]
        r multi
        catch {r xlen s}
        set d [r discard]
        $rc config set maxmemory 0
        $rc close
        list $res $d
    } {1 OK}

    test {casq has no eviction policy but noeviction} {
        catch {r config set maxmemory-policy allkeys-lru} err
        list [string match {*argument(s) must be one of the following: noeviction*} $err] [r config get maxmemory-policy]
    } {1 {maxmemory-policy noeviction}} {needs:casq}
}
