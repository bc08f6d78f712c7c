# SLOWLOG GET | LEN | RESET | HELP, slowlog-log-slower-than, slowlog-max-len.
#
# casq has no DEBUG SLEEP: the tests set slowlog-log-slower-than to 0 so
# that every command is logged. In casq the duration is the command's
# execution only, never the wait for its commit.

start_server {tags {"slowlog"}} {
    test {SLOWLOG defaults} {
        set d [r config get slowlog-*]
        list [dict get $d slowlog-log-slower-than] [dict get $d slowlog-max-len]
    } {10000 128}

    test {SLOWLOG starts empty, fast commands are not logged by default} {
        r slowlog reset
        r xadd s * f v
        r xlen s
        r slowlog len
    } {0}

    test {SLOWLOG logs every command with slowlog-log-slower-than 0} {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r xlen s
        r ping
        # reset, xlen, ping
        r slowlog len
    } {3}

    test {SLOWLOG GET entry: id, time, duration, arguments, address, name} {
        r client setname slowclient
        r slowlog reset
        r xlen s
        set e [lindex [r slowlog get] 0]
        set addr [dict get [client_fields [r client info]] addr]
        r client setname ""
        assert_equal 6 [llength $e]
        lassign $e id time duration argv peer name
        assert_range $time [expr {[clock seconds] - 10}] [expr {[clock seconds] + 1}]
        assert_morethan_equal $duration 0
        list $argv [expr {$peer eq $addr}] $name
    } {{xlen s} 1 slowclient}

    test {SLOWLOG entry ids increase by one, newest first} {
        r slowlog reset
        r ping
        r ping
        set log [r slowlog get 3]
        lassign $log a b c
        list [expr {[lindex $a 0] - [lindex $b 0]}] [expr {[lindex $b 0] - [lindex $c 0]}] \
            [lindex $a 3] [lindex $c 3]
    } {1 1 ping {slowlog reset}}

    test {SLOWLOG GET count: default 10, -1 for all, 0 for none} {
        r slowlog reset
        for {set i 0} {$i < 20} {incr i} {r ping}
        list [llength [r slowlog get]] [llength [r slowlog get 5]] [llength [r slowlog get -1]] \
            [llength [r slowlog get 0]]
    } {10 5 23 0}

    test {SLOWLOG GET count errors} {
        assert_error {ERR count should be greater than or equal to -1} {r slowlog get -2}
        assert_error {ERR count should be greater than or equal to -1} {r slowlog get abc}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.} {r slowlog get 1 2}
    }

    test {SLOWLOG - commands with too many arguments are trimmed} {
        r slowlog reset
        r xadd many * f1 v1 f2 v2 f3 v3 f4 v4 f5 v5 f6 v6 f7 v7 f8 v8 f9 v9 f10 v10 f11 v11 f12 v12 f13 v13 f14 v14 f15 v15
        set e [lindex [r slowlog get] end-1]
        lindex $e 3
    } {xadd many * f1 v1 f2 v2 f3 v3 f4 v4 f5 v5 f6 v6 f7 v7 f8 v8 f9 v9 f10 v10 f11 v11 f12 v12 f13 v13 f14 v14 {... (2 more arguments)}}

    test {SLOWLOG - exactly 32 arguments are kept} {
        r slowlog reset
        set keys {}
        for {set i 1} {$i <= 31} {incr i} {lappend keys k$i}
        r exists {*}$keys
        set e [lindex [r slowlog get] end-1]
        list [llength [lindex $e 3]] [lindex $e 3 end]
    } {32 k31}

    test {SLOWLOG - too long arguments are trimmed} {
        r slowlog reset
        r xadd long * f [string repeat A 129]
        set e [lindex [r slowlog get] end-1]
        lindex $e 3
    } "xadd long * f {[string repeat A 128]... (1 more bytes)}"

    test {SLOWLOG - 128 bytes is not trimmed} {
        r slowlog reset
        r xadd long * f [string repeat B 128]
        set e [lindex [r slowlog get] end-1]
        lindex $e 3 end
    } [string repeat B 128]

    test {SLOWLOG - AUTH and HELLO AUTH arguments are redacted} {
        r slowlog reset
        catch {r auth secret} e
        catch {r auth user secret} e
        catch {r hello 2 auth default secret} e
        set log [r slowlog get -1]
        list [lindex $log 2 3] [lindex $log 1 3] [lrange [lindex $log 0 3] 0 4]
    } {{auth (redacted)} {auth (redacted) (redacted)} {hello 2 auth (redacted) (redacted)}}

    test {SLOWLOG - CONFIG SET of a secret is redacted} {
        r slowlog reset
        r config set requirepass ""
        r config set slowlog-max-len 128
        set log [r slowlog get 2]
        list [lindex $log 1 3] [lindex $log 0 3]
    } {{config set requirepass (redacted)} {config set slowlog-max-len 128}}

    test {SLOWLOG - EXEC is not logged, the commands it runs are} {
        r slowlog reset
        r multi
        r xlen s
        r exec
        set names {}
        foreach e [r slowlog get -1] {lappend names [lindex $e 3 0]}
        set names
    } {xlen multi slowlog}

    test {SLOWLOG - a blocked command is logged once, when it is served} {
        r del blk
        r slowlog reset
        set rd [redis_deferring_client]
        $rd xread block 0 streams blk $
        wait_for_blocked_clients_count 1
        r xadd blk * f v
        $rd read
        $rd close
        set names {}
        foreach e [r slowlog get -1] {
            set name [lindex $e 3 0]
            if {$name in {xread xadd}} {lappend names $name}
        }
        set names
    } {xread xadd}

    test {SLOWLOG - slowlog-max-len keeps the newest entries} {
        r config set slowlog-max-len 5
        r slowlog reset
        for {set i 0} {$i < 10} {incr i} {r echo $i}
        set log [r slowlog get -1]
        r config set slowlog-max-len 128
        list [llength $log] [lindex $log 0 3] [lindex $log 4 3]
    } {5 {echo 9} {echo 5}}

    test {SLOWLOG - slowlog-max-len 0 logs nothing} {
        r config set slowlog-max-len 0
        r slowlog reset
        r ping
        set n [r slowlog len]
        r config set slowlog-max-len 128
        set n
    } {0}

    test {SLOWLOG - slowlog-log-slower-than -1 disables the log} {
        r config set slowlog-log-slower-than -1
        r slowlog reset
        r ping
        r ping
        r slowlog len
    } {0}

    test {SLOWLOG - a high threshold logs nothing fast} {
        r config set slowlog-log-slower-than 100000000
        r slowlog reset
        r ping
        r slowlog len
    } {0}

    test {SLOWLOG config bounds} {
        assert_error {*argument must be between -1 and 9223372036854775807 inclusive*} {r config set slowlog-log-slower-than -2}
        assert_error {*argument must be between 0 and 9223372036854775807 inclusive*} {r config set slowlog-max-len -1}
        r config set slowlog-log-slower-than 10000
        r config get slowlog-log-slower-than
    } {slowlog-log-slower-than 10000}

    test {SLOWLOG RESET} {
        r config set slowlog-log-slower-than 0
        r ping
        set reply [r slowlog reset]
        r config set slowlog-log-slower-than 10000
        list $reply [r slowlog len]
    } {OK 1}

    test {SLOWLOG HELP} {
        r slowlog help
    } {{SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} {GET [<count>]} {    Return top <count> entries from the slowlog (default: 10, -1 mean all).} {    Entries are made of:} {    id, timestamp, time in microseconds, arguments array, client IP and port,} {    client name} LEN {    Return the length of the slowlog.} RESET {    Reset the slowlog.} HELP {    Prints this help.}}

    test {SLOWLOG errors: unknown subcommand, arity} {
        assert_error {ERR unknown subcommand 'foo'. Try SLOWLOG HELP.} {r slowlog foo}
        assert_error {ERR wrong number of arguments for 'slowlog|len' command} {r slowlog len x}
        assert_error {ERR wrong number of arguments for 'slowlog|reset' command} {r slowlog reset x}
        assert_error {ERR wrong number of arguments for 'slowlog' command} {r slowlog}
    }

    test {SLOWLOG GET in RESP3} {
        r hello 3
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r ping
        set e [lindex [r slowlog get 1] 0]
        r config set slowlog-log-slower-than 10000
        r hello 2
        list [llength $e] [lindex $e 3]
    } {6 ping}

    test {COMMAND INFO slowlog|get} {
        lrange [lindex [r command info slowlog|get] 0] 0 6
    } {slowlog|get -2 {admin loading stale} 0 0 0 {@admin @slow @dangerous}}
}
