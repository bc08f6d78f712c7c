# MONITOR: every executed command, in Redis's line format.

# Reads monitor lines until one matches pattern (other clients of the
# harness may show up in between); fails after 20 lines.
proc read_monitor_until {rd pattern} {
    for {set i 0} {$i < 20} {incr i} {
        set line [$rd read]
        if {[string match $pattern $line]} {return $line}
    }
    fail "no monitor line matching $pattern"
}

start_server {tags {"monitor"}} {
    test {MONITOR replies OK and then shows commands} {
        set rd [redis_deferring_client]
        $rd monitor
        assert_equal OK [$rd read]
        r del mon
        r xadd mon 1 f v
        r xlen mon
        set a [$rd read]
        set b [$rd read]
        set c [$rd read]
        $rd close
        list [string match {*"del" "mon"} $a] [string match {*"xadd" "mon" "1" "f" "v"} $b] \
            [string match {*"xlen" "mon"} $c]
    } {1 1 1}

    test {MONITOR line format: +<sec>.<usec> [<db> <addr>] "args"} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        r ping
        $rd readraw 1
        set line [$rd read]
        $rd close
        set addr [dict get [client_fields [r client info]] addr]
        assert_match "+*" $line
        assert {[regexp {^\+([0-9]+)\.([0-9]{6}) \[9 ([^\]]+)\] "ping"$} $line -> sec usec peer]}
        assert_range $sec [expr {[clock seconds] - 10}] [expr {[clock seconds] + 1}]
        expr {$peer eq $addr}
    } {1}

    test {MONITOR escapes arguments like sdscatrepr} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        r echo "a\x00b\"c\\d\n\r\t\x07\x08\xff é"
        set line [$rd read]
        $rd close
        string range $line [string first {"echo"} $line] end
    } {"echo" "a\x00b\"c\\d\n\r\t\a\b\xff \xe9"}

    test {MONITOR shows the db after SELECT} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        r select 5
        r select 9
        set a [$rd read]
        set b [$rd read]
        $rd close
        list [regexp {\[5 [^\]]+\] "select" "5"} $a] [regexp {\[9 [^\]]+\] "select" "9"} $b]
    } {1 1}

    test {MONITOR orders MULTI/EXEC, and shows no refused command} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        r multi
        r xadd mon * f v
        r exec
        r multi
        catch {r syntax error} e
        catch {r exec} e
        catch {r xadd} e
        r ping
        set lines {}
        for {set i 0} {$i < 6} {incr i} {
            set l [$rd read]
            lappend lines [lindex [regexp -inline {\] "([^"]*)"} $l] 1]
        }
        $rd close
        set lines
    } {multi xadd exec multi exec ping}

    test {MONITOR does not show admin commands} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        r config get port
        r slowlog len
        r echo after-admin
        set line [$rd read]
        $rd close
        string match {*"echo" "after-admin"} $line
    } {1}

    test {MONITOR redacts AUTH and HELLO AUTH arguments} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        catch {r auth not-real} e
        catch {r auth not-real not-a-password} e
        catch {r hello 2 AUTH not-real not-a-password} e
        set a [$rd read]
        set b [$rd read]
        set c [$rd read]
        $rd close
        list [string match {*"auth" "(redacted)"} $a] [string match {*"auth" "(redacted)" "(redacted)"} $b] \
            [string match {*"hello" "2" "AUTH" "(redacted)" "(redacted)"} $c]
    } {1 1 1}

    test {MONITOR shows a blocked command once} {
        r del blk
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        set bl [redis_deferring_client]
        $bl xread block 0 streams blk $
        wait_for_blocked_clients_count 1
        r xadd blk * f v
        $bl read
        $bl close
        r echo end-of-test
        set n 0
        for {set i 0} {$i < 20} {incr i} {
            set l [$rd read]
            if {[string match {*"xread"*} $l]} {incr n}
            if {[string match {*"echo" "end-of-test"} $l]} break
        }
        $rd close
        set n
    } {1}

    test {MONITOR twice is ignored without a reply} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        $rd monitor
        $rd ping
        set a [$rd read]
        set b [$rd read]
        $rd close
        list $a [string match {*"ping"} $b]
    } {PONG 1}

    test {A monitor sees its own commands after their replies} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        $rd echo mine
        set a [$rd read]
        set b [$rd read]
        $rd close
        list $a [string match {*"echo" "mine"} $b]
    } {mine 1}

    test {RESET ends MONITOR} {
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        $rd reset
        assert_equal RESET [$rd read]
        r echo not-for-you
        $rd select 9
        $rd ping
        set a [$rd read]
        set b [$rd read]
        $rd close
        list $a $b
    } {OK PONG}

    test {MONITOR in RESP3 sends the same status lines} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd monitor
        assert_equal OK [$rd read]
        r echo resp3
        $rd readraw 1
        set line [$rd read]
        $rd close
        list [string index $line 0] [string match {*"echo" "resp3"} $line]
    } {+ 1}

    test {MONITOR inside MULTI is refused at EXEC} {
        set c [redis_client]
        $c multi
        $c monitor
        assert_error {ERR MONITOR isn't allowed for DENY BLOCKING client} {$c exec}
        $c close
    }

    test {CLIENT LIST shows a monitor with flag O} {
        set rd [redis_deferring_client]
        $rd client setname themonitor
        $rd read
        $rd monitor
        $rd read
        set flags {}
        foreach line [split [string trim [r client list]] "\n"] {
            set f [client_fields $line]
            if {[dict get $f name] eq "themonitor"} {set flags [dict get $f flags]}
        }
        $rd close
        set flags
    } {O}

    test {MONITOR arity} {
        assert_error {ERR wrong number of arguments for 'monitor' command} {r monitor x}
    }
}

# casq (design.md §4): a monitor line shows a command's arguments, so it is
# released only once the change it describes is durable. The hidden
# commit-debug-delay makes the commit slow enough to see it.
# The delay is set at run time: on the command line the server's start-up
# commit would wait it out too, before the test could begin.
start_server {tags {"monitor" "needs:casq"} casq_overrides {enable-debug-command yes}} {
    test {A monitor line waits for the commit of the change it shows} {
        r config set commit-debug-delay 800
        set rd [redis_deferring_client]
        $rd monitor
        $rd read
        set wr [redis_deferring_client]
        $wr xadd held * f v
        $wr flush
        # The deferring client's SELECT comes first (it changes nothing).
        set line [read_monitor_until $rd {*"xadd"*}]
        set pending [s rdb_changes_since_last_save]
        assert_match {*-*} [$wr read]
        $wr close
        $rd close
        list [string match {*"xadd" "held" "\*" "f" "v"} $line] $pending
    } {1 0}
}
