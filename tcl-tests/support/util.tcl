# util.tcl -- assertions and small helpers for casq's Tcl tests.
#
# Assertions raise a Tcl error whose message starts with "assertion:"; the
# test runner reports such failures with the message and the line of the
# failing assertion. Convention: the EXPECTED value comes first, the actual
# value second (assert_equal 3 [r dbsize]).

proc ::assert_fail_msg {msg detail} {
    if {$detail ne ""} {append msg " ($detail)"}
    append msg [::assert_context_from 3]
    error "assertion:$msg"
}

# Like assert_context but from an explicit frame depth relative to caller.
proc ::assert_context_from {depth} {
    if {[catch {info frame -$depth} f]} {return ""}
    set where ""
    if {[dict exists $f file] && [dict exists $f line]} {
        set where "[file tail [dict get $f file]]:[dict get $f line]"
    } elseif {[dict exists $f line] && [dict get $f type] eq "eval" &&
              [info exists ::th::cur_test_line] && $::th::cur_test_line > 0} {
        # Tcl only knows the line relative to the test body: add the line
        # where the test starts (found by name in the test file).
        set where "[file tail $::th::curfile]:[expr {$::th::cur_test_line + [dict get $f line] - 1}]"
    }
    set cmd ""
    if {[dict exists $f cmd]} {
        set cmd [string trim [dict get $f cmd]]
        regsub -all {\s+} $cmd { } cmd
        if {[string length $cmd] > 160} {set cmd "[string range $cmd 0 156]..."}
    }
    if {$where eq "" && $cmd eq ""} {return ""}
    return "\n    at $where: $cmd"
}

proc fail {msg} {
    error "assertion:$msg[::assert_context_from 2]"
}

proc assert {condition {detail ""}} {
    if {![uplevel 1 [list expr $condition]]} {
        ::assert_fail_msg "Expected \[$condition\] to be true" $detail
    }
}

proc assert_equal {expected value {detail ""}} {
    if {$expected ne $value} {
        ::assert_fail_msg "Expected '$expected' but got '$value'" $detail
    }
}

proc assert_not_equal {unexpected value {detail ""}} {
    if {$unexpected eq $value} {
        ::assert_fail_msg "Expected a value other than '$value'" $detail
    }
}

proc assert_match {pattern value {detail ""}} {
    if {![string match $pattern $value]} {
        ::assert_fail_msg "Expected '$value' to match '$pattern'" $detail
    }
}

proc assert_no_match {pattern value {detail ""}} {
    if {[string match $pattern $value]} {
        ::assert_fail_msg "Expected '$value' not to match '$pattern'" $detail
    }
}

proc assert_range {value min max {detail ""}} {
    if {!($value >= $min && $value <= $max)} {
        ::assert_fail_msg "Expected '$value' to be between $min and $max" $detail
    }
}

proc assert_morethan {value than {detail ""}} {
    if {!($value > $than)} {
        ::assert_fail_msg "Expected '$value' to be more than '$than'" $detail
    }
}

proc assert_morethan_equal {value than {detail ""}} {
    if {!($value >= $than)} {
        ::assert_fail_msg "Expected '$value' to be more than or equal to '$than'" $detail
    }
}

proc assert_lessthan {value than {detail ""}} {
    if {!($value < $than)} {
        ::assert_fail_msg "Expected '$value' to be less than '$than'" $detail
    }
}

proc assert_lessthan_equal {value than {detail ""}} {
    if {!($value <= $than)} {
        ::assert_fail_msg "Expected '$value' to be less than or equal to '$than'" $detail
    }
}

# assert_error pattern script: the script must raise an error matching
# the glob pattern (e.g. "ERR no such key*").
proc assert_error {pattern code {detail ""}} {
    if {[catch {uplevel 1 $code} err]} {
        if {![string match $pattern $err]} {
            ::assert_fail_msg "Expected an error matching '$pattern' but got '$err'" $detail
        }
    } else {
        ::assert_fail_msg "Expected an error matching '$pattern' but got '$err' (no error)" $detail
    }
}

# The client's connection must be closed by the server: the next read
# (of whatever is left) ends in EOF. Replies still buffered are skipped.
proc assert_conn_closed {client {detail ""}} {
    set ch [$client channel]
    $client readraw 1
    set got {}
    while {1} {
        if {[catch {$client read} line]} {
            if {[string match "*connection closed*" $line] ||
                [string match "*reset*" $line]} {
                $client readraw 0
                return
            }
            $client readraw 0
            ::assert_fail_msg "Expected the connection to be closed, got error '$line'" $detail
        }
        lappend got $line
        if {[llength $got] > 100} break
    }
    $client readraw 0
    ::assert_fail_msg "Expected the connection to be closed, still reading: [lrange $got 0 5]" $detail
}

# wait_for_condition maxtries delay_ms {condition} else {script}
proc wait_for_condition {maxtries delay e _else_ elsescript} {
    while {[incr maxtries -1] >= 0} {
        set errcode [catch {uplevel 1 [list expr $e]} result]
        if {$errcode == 0} {
            if {$result} break
        } else {
            return -code $errcode $result
        }
        after $delay
    }
    if {$maxtries == -1} {
        set errcode [catch {uplevel 1 $elsescript} result]
        return -code $errcode $result
    }
}

# The value of one field of an INFO reply ("field:value" lines).
proc getInfoProperty {infostr property} {
    foreach line [split $infostr "\n"] {
        set line [string trimright $line "\r"]
        if {[string equal -length [expr {[string length $property] + 1}] "$property:" $line]} {
            return [string range $line [expr {[string length $property] + 1}] end]
        }
    }
    return ""
}

proc status {r property} {
    return [getInfoProperty [$r info] $property]
}

# Wait until the server reports `count` blocked clients.
proc wait_for_blocked_clients_count {count {maxtries 200} {delay 10} {level 0}} {
    wait_for_condition $maxtries $delay {
        [s $level blocked_clients] == $count
    } else {
        fail "Timeout waiting for blocked clients (wanted $count, have [s $level blocked_clients])"
    }
}

proc wait_for_blocked_client {{level 0}} {
    wait_for_blocked_clients_count 1 200 10 $level
}

# Parse the INFO keyspace line of a db ("keys=1,expires=0,avg_ttl=0").
proc keyspace_info {r {db 9}} {
    set v [getInfoProperty [$r info keyspace] "db$db"]
    set d {}
    foreach kv [split $v ,] {
        lassign [split $kv =] k val
        dict set d $k $val
    }
    return $d
}

# Client fields from one CLIENT LIST / CLIENT INFO line as a dict.
proc client_fields {line} {
    set d {}
    foreach kv [split [string trim $line] " "] {
        set i [string first = $kv]
        if {$i < 0} continue
        dict set d [string range $kv 0 [expr {$i-1}]] [string range $kv [expr {$i+1}] end]
    }
    return $d
}

proc lsort_unique {l} {lsort -unique $l}

# Read until a full line ending; helper for raw protocol tests that
# write by hand to a plain socket.
proc raw_connect {{level 0}} {
    set ch [socket [srv $level host] [srv $level port]]
    fconfigure $ch -translation binary -buffering none
    return $ch
}

# Create `count` stream keys named prefix0..prefixN-1 (one entry each),
# pipelined so that a server with group commit does it in few commits.
proc create_stream_keys {count prefix {level 0}} {
    set c [redis_client $level]
    set buf {}
    for {set i 0} {$i < $count} {incr i} {
        append buf [format_command xadd $prefix$i * f v]
    }
    $c write $buf
    $c flush
    for {set i 0} {$i < $count} {incr i} {$c read}
    $c close
}

# The encoding a value gets back after restart_server: casq (like Redis
# loading an RDB file, or DEBUG RELOAD) encodes what it loads afresh;
# redis-server with AOF (--redis-aof) replays the commands, so the value
# ends as the commands left it.
proc reload_encoding {fresh replayed} {
    expr {[opt server] eq "redis" && [opt redis_aof] ? $replayed : $fresh}
}
