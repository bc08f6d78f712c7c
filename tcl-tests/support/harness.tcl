# harness.tcl -- start_server, test, r, srv and friends.
#
# Loaded into a fresh interpreter for every test file by run.tcl, which
# sets ::th::opts (a dict, see run.tcl) before sourcing this file. All
# harness state lives in the ::th namespace: test bodies run at global
# level and must be free to use any variable name. Results are
# collected in ::th::results, a list of dicts {status name file msg}, status
# being ok, err or skip.

namespace eval ::th {}
set ::th::results {}
set ::th::servers {}       ;# stack of server dicts, innermost last
set ::th::tags {}          ;# tags of the enclosing start_server/tags blocks
set ::th::skip_reason {}   ;# non empty: tests in this block are skipped
set ::th::dry 0            ;# 1 while listing or skipping: r & co do nothing
set ::th::curfile {}       ;# test file being run (relative name)
set ::th::server_seq 0     ;# servers started by this file (dir names)
set ::th::crashes 0        ;# crash logs kept aside

proc opt {name} {dict get $::th::opts $name}

# ------------------------------------------------------------------------
# Reporting
# ------------------------------------------------------------------------

proc record {status name msg} {
    lappend ::th::results [dict create status $status name $name file $::th::curfile msg $msg]
    switch $status {
        ok   {}
        err  {puts "\[err\]: $name in $::th::curfile\n$msg"}
        skip {if {[opt verbose]} {puts "\[skip\]: $name ($msg)"}}
    }
    flush stdout
}

proc count_failures {} {
    set n 0
    foreach r $::th::results {
        if {[dict get $r status] eq "err"} {incr n}
    }
    return $n
}

proc verbose {msg} {
    if {[opt verbose]} {puts "  - $msg"; flush stdout}
}

# ------------------------------------------------------------------------
# Tags and filters
# ------------------------------------------------------------------------

# Tags the user excluded with --tags "-x".
proc tags_denied {tags} {
    foreach t $tags {
        if {$t in [opt deny_tags]} {return 1}
    }
    return 0
}

# --tags "x": at least one of the test's tags must be included.
proc tags_allowed {tags} {
    if {[llength [opt allow_tags]] == 0} {return 1}
    foreach t $tags {
        if {$t in [opt allow_tags]} {return 1}
    }
    return 0
}

proc name_selected {name} {
    if {[llength [opt only]] == 0} {return 1}
    foreach p [opt only] {
        if {[string match $p $name]} {return 1}
    }
    return 0
}

proc has_any_tag {tags list} {
    foreach t $list {
        if {$t in $tags} {return 1}
    }
    return 0
}

# Why a test (or a block) with these tags cannot run here, or "".
# `srvversion` is the version the current server reports ("" if unknown).
proc auto_skip_reason {tags} {
    set external [expr {[opt host] ne ""}]
    if {[opt server] eq "redis" && [has_any_tag $tags {needs:casq casq-only}]} {
        return "casq-only test, running against redis-server"
    }
    if {[has_any_tag $tags {needs:persistence needs:restart}]} {
        if {$external} {return "needs a server of its own (restart/persistence), running against --host/--port"}
        if {[opt server] eq "redis" && "needs:persistence" in $tags && ![opt redis_aof]} {
            return "needs casq's persistence, redis-server runs with --save '' --appendonly no"
        }
    }
    if {$external && [has_any_tag $tags {external:skip needs:fresh}]} {
        return "needs a fresh server, running against --host/--port"
    }
    if {"redis7.2" in $tags} {
        set v [current_version]
        if {$v ne "" && [package vcompare $v 7.2] < 0} {
            return "Redis 7.2 behaviour, server is $v"
        }
    }
    return ""
}

proc current_version {} {
    if {[llength $::th::servers] == 0} {return ""}
    return [dict get [lindex $::th::servers end] version]
}

# ------------------------------------------------------------------------
# Access to servers and clients
# ------------------------------------------------------------------------

# srv ?level? property: property of the current server (level 0) or of an
# enclosing one (level -1, -2 ...). Properties: host port pid dir stdout
# stderr client version config external.
proc srv {args} {
    if {[llength $args] == 2} {
        lassign $args level property
    } else {
        set level 0
        set property [lindex $args 0]
    }
    if {$::th::dry} {return {}}
    set s [lindex $::th::servers end+$level]
    if {$s eq {}} {error "no server at level $level"}
    if {$property eq "pid"} {
        return [server_pid $s]
    }
    return [dict get $s $property]
}

# r ?level? command args... : call a command with the server's client.
proc r {args} {
    if {$::th::dry} {return {}}
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    [srv $level client] {*}$args
}

# s ?level? field: a field of the server's INFO.
proc s {args} {
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    if {$::th::dry} {return {}}
    status [srv $level client] [lindex $args 0]
}

# A new client of the server at `level`, in db 9 like the default client
# (unless the server has requirepass: then it is left unauthenticated).
proc redis_client {{level 0}} {
    if {$::th::dry} {return ::dry_client}
    set c [redis [srv $level host] [srv $level port] 0]
    if {![dict exists [srv $level config] requirepass]} {
        $c select 9
    }
    return $c
}

# Like redis_client, but commands are only sent: `$rd read` gets replies.
proc redis_deferring_client {{level 0}} {
    if {$::th::dry} {return ::dry_client}
    set c [redis [srv $level host] [srv $level port] 1]
    if {![dict exists [srv $level config] requirepass]} {
        $c select 9
        $c read
    }
    return $c
}

proc ::dry_client {args} {return {}}

# ------------------------------------------------------------------------
# Server processes
# ------------------------------------------------------------------------

proc find_free_port {} {
    set base [opt baseport]
    set count [opt portcount]
    for {set i 0} {$i < $count} {incr i} {
        set p [expr {$base + ($::th::opts_port_next + $i) % $count}]
        if {![catch {socket -server dummy_accept -myaddr 127.0.0.1 $p} s]} {
            close $s
            set ::th::opts_port_next [expr {($::th::opts_port_next + $i + 1) % $count}]
            return $p
        }
    }
    error "no free port in [opt baseport]..[expr {[opt baseport]+[opt portcount]-1}]"
}
set ::th::opts_port_next 0
proc dummy_accept {args} {}

proc server_pid {s} {
    set f [dict get $s pidfile]
    if {![file exists $f]} {return ""}
    set fh [open $f]
    set pid [string trim [read $fh]]
    close $fh
    # Never 0 or garbage: `kill -KILL 0` would kill our whole process group
    # (the test runner, make, ...).
    if {![string is digit -strict $pid] || $pid <= 1} {return ""}
    return $pid
}

# Exit status of the server process, or "" while it runs.
proc server_exit_status {s} {
    set f [dict get $s statusfile]
    if {![file exists $f]} {return ""}
    set fh [open $f]
    set st [string trim [read $fh]]
    close $fh
    return $st
}

proc describe_status {st} {
    if {$st eq ""} {return "running"}
    if {$st > 128} {
        set sig [expr {$st - 128}]
        set names {1 SIGHUP 2 SIGINT 3 SIGQUIT 4 SIGILL 6 SIGABRT 7 SIGBUS 8 SIGFPE 9 SIGKILL 11 SIGSEGV 13 SIGPIPE 15 SIGTERM}
        set n [expr {[dict exists $names $sig] ? [dict get $names $sig] : "signal $sig"}]
        return "killed by $n (status $st)"
    }
    return "exit status $st"
}

proc file_tail_lines {path n} {
    if {![file exists $path]} {return ""}
    set fh [open $path]
    fconfigure $fh -translation binary
    set data [read $fh]
    close $fh
    set lines [split [string trimright $data \n] \n]
    return [join [lrange $lines end-[expr {$n-1}] end] \n]
}

proc server_log_tail {s {n 30}} {
    set out ""
    foreach k {stdout stderr} {
        set t [file_tail_lines [dict get $s $k] $n]
        if {$t ne ""} {append out "  --- server $k (last $n lines) ---\n$t\n"}
    }
    return $out
}

# Sanitizer or assertion reports in the server's output.
proc server_log_problems {s} {
    set found {}
    foreach k {stdout stderr} {
        set f [dict get $s $k]
        if {![file exists $f]} continue
        set fh [open $f]
        fconfigure $fh -translation binary
        set data [read $fh]
        close $fh
        foreach pat {
            {ERROR: AddressSanitizer} {ERROR: LeakSanitizer}
            {runtime error:} {WARNING: ThreadSanitizer}
            {ASSERTION FAILED} {=== REDIS BUG REPORT} {=== CASQ BUG REPORT}
        } {
            if {[string first $pat $data] >= 0} {lappend found $pat}
        }
    }
    return $found
}

proc server_command {port dir config} {
    if {[opt server] eq "redis"} {
        set aof [expr {[opt redis_aof] ? {--appendonly yes --appendfsync always} : {--appendonly no}}]
        set cmd [list redis-server --port $port --bind 127.0.0.1 --dir $dir \
                     --save {} {*}$aof --daemonize no]
    } else {
        set cmd [list [opt casq_bin] --port $port --bind 127.0.0.1 --dir $dir]
    }
    dict for {k v} $config {
        lappend cmd --$k
        # A value given as a list ("save {900 1}") is several words.
        lappend cmd $v
    }
    return $cmd
}

# Spawn the server through sh so that we learn its exit status: sh writes
# the server's pid and, once it ends, its status into files in its dir.
# A watchdog kills the server if this tclsh goes away without stopping it
# (killed, Ctrl-C, output piped into `head`), so no server is left behind.
proc spawn_server {s} {
    set script {o=$1; e=$2; p=$3; st=$4; t=$5; shift 5; rm -f "$st"
        "$@" >>"$o" 2>>"$e" </dev/null & sp=$!; echo $sp >"$p"
        ( while kill -0 "$t" 2>/dev/null && kill -0 "$sp" 2>/dev/null; do sleep 1; done
          kill -9 "$sp" 2>/dev/null ) &
        wait $sp; echo $? >"$st"}
    file delete -force [dict get $s pidfile] [dict get $s statusfile]
    exec sh -c $script sh [dict get $s stdout] [dict get $s stderr] \
        [dict get $s pidfile] [dict get $s statusfile] [pid] {*}[dict get $s cmdline] \
        >/dev/null 2>/dev/null &
    # Wait for the pid file so that server_pid works.
    for {set i 0} {$i < 200} {incr i} {
        if {[file exists [dict get $s pidfile]] && [server_pid $s] ne ""} break
        after 10
    }
}

# Wait until the server answers PING (any reply, even -NOAUTH, but not
# -LOADING). Returns "" or an error description.
proc wait_server_ready {s} {
    set deadline [expr {[clock milliseconds] + [opt start_timeout]}]
    while {[clock milliseconds] < $deadline} {
        set st [server_exit_status $s]
        if {$st ne ""} {
            return "server exited during start-up: [describe_status $st]"
        }
        if {![catch {redis 127.0.0.1 [dict get $s port]} c]} {
            $c timeout 2000
            set ok [catch {$c ping} reply]
            $c close
            if {!$ok || (![string match "I/O error*" $reply] && ![string match "LOADING*" $reply])} {
                return ""
            }
        }
        # casq answers within a few ms of its start (a refused connect costs
        # nothing): a 50 ms step added ~40 ms to each of the suites' many
        # starts and restarts.
        after 10
    }
    return "server did not answer PING within [opt start_timeout] ms"
}

# Connect the server's main client: db 9 unless requirepass.
proc connect_main_client {sv} {
    upvar 1 $sv s
    set c [redis [dict get $s host] [dict get $s port] 0]
    set version ""
    if {[dict exists $s config requirepass]} {
        catch {
            set v [redis [dict get $s host] [dict get $s port] 0]
            $v auth [dict get $s config requirepass]
            set version [getInfoProperty [$v info server] redis_version]
            $v close
        }
    } else {
        catch {set version [getInfoProperty [$c info server] redis_version]}
        $c select 9
    }
    dict set s client $c
    dict set s version $version
}

# Stop the server; returns "" if all went well, else what went wrong.
# `how` is term (SIGTERM, graceful) or kill (SIGKILL).
proc stop_server_process {s {how term}} {
    set st [server_exit_status $s]
    if {$st ne ""} {
        return "server was not running at the end: [describe_status $st]"
    }
    set pid [server_pid $s]
    catch {exec kill -[expr {$how eq "kill" ? "KILL" : "TERM"}] $pid}
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[server_exit_status $s] eq "" && [clock milliseconds] < $deadline} {
        after 10
    }
    set st [server_exit_status $s]
    if {$st eq ""} {
        catch {exec kill -KILL $pid}
        after 100
        return "server did not exit within 10 s after SIG[string toupper $how]"
    }
    set expected [expr {$how eq "kill" ? {137} : {0 143}}]
    if {$st ni $expected} {
        return "server ended with [describe_status $st] after SIG[string toupper $how]"
    }
    return ""
}

proc new_server_dict {config} {
    incr ::th::server_seq
    set dir [file join [opt tmproot] "[file rootname [file tail $::th::curfile]]-$::th::server_seq"]
    file mkdir $dir
    set port [find_free_port]
    set s [dict create external 0 host 127.0.0.1 port $port dir $dir \
               stdout [file join $dir stdout] stderr [file join $dir stderr] \
               pidfile [file join $dir server.pid] statusfile [file join $dir exit.status] \
               config $config client {} version {}]
    dict set s cmdline [server_command $port $dir $config]
    return $s
}

# Start (or restart) the process of server dict s; returns the new dict
# with its client connected. Errors if it does not come up.
proc launch_server {s} {
    verbose "starting [join [dict get $s cmdline] { }]"
    spawn_server $s
    set err [wait_server_ready $s]
    if {$err ne ""} {
        catch {exec kill -KILL [server_pid $s]}
        error "$err\n  command: [join [dict get $s cmdline] { }]\n[server_log_tail $s]"
    }
    connect_main_client s
    return $s
}

# restart_server ?level? ?how? ?reconnect?: stop the server (how = term
# or kill) and start it again on the same port and dir. The main client is
# reconnected (other clients of that server are not).
proc restart_server {{level 0} {how term} {reconnect 1}} {
    if {$::th::dry} return
    set idx [expr {[llength $::th::servers] - 1 + $level}]
    set s [lindex $::th::servers $idx]
    if {[dict get $s external]} {error "restart_server: external server"}
    catch {[dict get $s client] close}
    set problem [stop_server_process $s $how]
    if {$problem ne ""} {
        error "restart_server: $problem\n[server_log_tail $s]"
    }
    set s [launch_server $s]
    if {!$reconnect} {
        catch {[dict get $s client] close}
    }
    lset ::th::servers $idx $s
}

# restart_exited_server ?level?: for a test that ends the server on purpose
# (SHUTDOWN NOSAVE): wait up to 10 s for its process to exit, then start it
# again on the same port and dir, reconnecting the default client, so that
# the check after the test and the block's shutdown find it running.
# Returns the exit status; an error if the server did not exit.
proc restart_exited_server {{level 0}} {
    if {$::th::dry} return
    set idx [expr {[llength $::th::servers] - 1 + $level}]
    set s [lindex $::th::servers $idx]
    if {[dict get $s external]} {error "restart_exited_server: external server"}
    catch {[dict get $s client] close}
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[server_exit_status $s] eq "" && [clock milliseconds] < $deadline} {
        after 10
    }
    set st [server_exit_status $s]
    if {$st eq ""} {error "restart_exited_server: the server did not exit within 10 s"}
    lset ::th::servers $idx [launch_server $s]
    return $st
}

# Reconnect the default client of every server (db 9 unless requirepass).
proc reset_main_clients {} {
    for {set i 0} {$i < [llength $::th::servers]} {incr i} {
        set s [lindex $::th::servers $i]
        catch {[dict get $s client] close}
        if {[catch {
            set c [redis [dict get $s host] [dict get $s port] 0]
            if {![dict exists $s config requirepass]} {$c select 9}
            dict set s client $c
            lset ::th::servers $i $s
        } err]} {
            puts "warning: could not reconnect to port [dict get $s port]: $err"
        }
    }
}

# After every test: any server of ours that died is a failure; start it
# again so the rest of the file can still run.
proc check_servers_alive {} {
    set problems ""
    for {set i 0} {$i < [llength $::th::servers]} {incr i} {
        set s [lindex $::th::servers $i]
        if {[dict get $s external]} continue
        set st [server_exit_status $s]
        if {$st eq ""} continue
        append problems "server on port [dict get $s port] died: [describe_status $st]\n[server_log_tail $s 20]"
        catch {[dict get $s client] close}
        # Keep the crash logs apart so the shutdown check does not
        # report the same crash again.
        foreach k {stdout stderr} {
            catch {file rename -force [dict get $s $k] "[dict get $s $k].crash[incr ::th::crashes]"}
        }
        if {[catch {launch_server $s} ns]} {
            append problems "and could not be restarted: $ns\n"
        } else {
            lset ::th::servers $i $ns
            append problems "(restarted it for the remaining tests)\n"
        }
    }
    return $problems
}

# ------------------------------------------------------------------------
# start_server and test
# ------------------------------------------------------------------------

# start_server {tags {...} overrides {directive value ...}
#               casq_overrides {...} redis_overrides {...}} {code}
#
# overrides go to both servers; casq_overrides only to casq, redis_overrides
# only to redis-server. An overrides directive spelled "casq:name" is also
# casq-only (and "redis:name" redis-only).
proc start_server {options code} {
    set btags [expr {[dict exists $options tags] ? [dict get $options tags] : {}}]
    set config {}
    foreach key {overrides casq_overrides redis_overrides} {
        if {![dict exists $options $key]} continue
        foreach {k v} [dict get $options $key] {
            set only [expr {$key eq "casq_overrides" ? "casq" :
                            $key eq "redis_overrides" ? "redis" : ""}]
            if {[regexp {^(casq|redis):(.*)$} $k _ only k]} {}
            if {$only ne "" && $only ne [opt server]} continue
            dict set config $k $v
        }
    }
    set saved_tags $::th::tags
    set saved_skip $::th::skip_reason
    set saved_dry $::th::dry
    set ::th::tags [concat $::th::tags $btags]
    try {
        # Blocks the user excluded by tag are not entered at all.
        if {[tags_denied $::th::tags]} return

        set reason $::th::skip_reason
        if {$reason eq ""} {set reason [auto_skip_reason $::th::tags]}
        if {$reason eq "" && [opt host] ne "" && [dict size $config] > 0} {
            set reason "needs server config ([dict keys $config]), running against --host/--port"
        }
        if {$reason ne "" || [opt list]} {
            set ::th::skip_reason $reason
            set ::th::dry 1
            catch {uplevel 1 $code} err
            return
        }

        if {[opt host] ne ""} {
            set s [dict create external 1 host [opt host] port [opt port] \
                       config {} client {} version {} dir {} stdout {} stderr {} \
                       pidfile {} statusfile {}]
            connect_main_client s
        } else {
            # A port found free can be taken by another process before the
            # server binds it: try again on another port.
            set tries 0
            while {[set failed [catch {launch_server [new_server_dict $config]} s]] &&
                   [incr tries] < 3 && [string match "*Address already in use*" $s]} {}
            if {$failed} {
                record err "start_server [list $btags]" "could not start the server: $s"
                set ::th::skip_reason "server failed to start (reported as a failure)"
                set ::th::dry 1
                catch {uplevel 1 $code}
                return
            }
        }
        lappend ::th::servers $s
        set failures_before [count_failures]
        set code_rc [catch {uplevel 1 $code} err opts]
        set s [lindex $::th::servers end]
        set ::th::servers [lrange $::th::servers 0 end-1]
        catch {[dict get $s client] close}
        if {$code_rc == 1} {
            record err "start_server block (tags: $btags)" \
                "error outside of a test: $err\n[dict get $opts -errorinfo]"
        }
        if {![dict get $s external]} {
            set problem [stop_server_process $s]
            set found [server_log_problems $s]
            if {$problem ne "" || [llength $found]} {
                if {[llength $found]} {append problem "\nserver log contains: [join $found {, }]"}
                record err "server shutdown (port [dict get $s port], tags: $btags)" \
                    "$problem\n[server_log_tail $s 40]"
            } elseif {![opt keep] && [count_failures] == $failures_before} {
                # Keep the dir (logs, state document) of blocks with failures.
                file delete -force [dict get $s dir]
            }
        }
    } finally {
        set ::th::tags $saved_tags
        set ::th::skip_reason $saved_skip
        set ::th::dry $saved_dry
    }
}

# tags {list} {code}: add tags to the tests in code.
proc tags {tags code} {
    set saved $::th::tags
    set ::th::tags [concat $::th::tags $tags]
    try {
        uplevel 1 $code
    } finally {
        set ::th::tags $saved
    }
}

# test name code ?expected? ?tags?: run one test. If `expected` is given,
# the result of code must equal it (or match it as a glob pattern).
proc test {name code {okpattern undefined} {tags {}}} {
    set alltags [concat $::th::tags $tags]
    if {![name_selected $name] || [tags_denied $alltags] || ![tags_allowed $alltags]} {
        return
    }
    if {[opt list]} {
        set r [expr {$::th::skip_reason ne "" ? "  (skipped: $::th::skip_reason)" : ""}]
        puts "$::th::curfile: $name$r"
        return
    }
    if {$::th::skip_reason ne ""} {
        record skip $name $::th::skip_reason
        return
    }
    set reason [auto_skip_reason $alltags]
    if {$reason ne ""} {
        record skip $name $reason
        return
    }
    set ::th::cur_test_line [find_test_line $name]
    set t0 [clock milliseconds]
    set rc [catch {uplevel 1 $code} ret opts]
    set ms [expr {[clock milliseconds] - $t0}]
    set msg ""
    if {$rc == 1} {
        if {[string match "assertion:*" $ret]} {
            set msg [string range $ret 10 end]
        } else {
            set info [dict get $opts -errorinfo]
            set msg "exception: $ret\n  [join [lrange [split $info \n] 0 12] "\n  "]"
        }
    } elseif {$rc == 0 && $okpattern ne "undefined" &&
              $ret ne $okpattern && ![string match $okpattern $ret]} {
        set msg "Expected '$okpattern' but got '$ret'"
    } elseif {$rc != 0 && $rc != 2} {
        set msg "test body ended with code $rc ($ret)"
    }
    set dead [check_servers_alive]
    if {$dead ne ""} {append msg [expr {$msg eq "" ? "" : "\n"}] $dead}
    # A failed test may leave replies unread or the connection in some
    # state (MULTI, RESP3, readraw): give the next test a fresh client.
    if {$msg ne "" && $dead eq ""} {reset_main_clients}
    if {$msg eq ""} {
        record ok $name ""
        puts "\[ok\]: $name ($ms ms)"
    } else {
        record err $name $msg
    }
    flush stdout
}

# Line of the test's definition in the current file (for messages: Tcl
# does not know file lines of nested script bodies), 0 if not found.
proc find_test_line {name} {
    if {![info exists ::th::file_lines]} {
        set ::th::file_lines {}
        catch {
            set fh [open $::th::curpath]
            set ::th::file_lines [split [read $fh] \n]
            close $fh
        }
    }
    set n 0
    foreach line $::th::file_lines {
        incr n
        set t [string trimleft $line]
        foreach prefix [list "test \{$name\}" "test \"$name\""] {
            if {[string first $prefix $t] == 0} {return $n}
        }
    }
    return 0
}

proc run_test_file {path relname} {
    set ::th::curfile $relname
    set ::th::curpath $path
    if {[opt verbose] || ![opt list]} {puts "=== $relname"}
    set rc [catch {uplevel #0 [list source $path]} err opts]
    # Servers left running after an error escaping start_server.
    foreach s $::th::servers {
        if {![dict get $s external]} {catch {stop_server_process $s kill}}
    }
    set ::th::servers {}
    if {$rc == 1} {
        record err "(file $relname)" "error: $err\n[dict get $opts -errorinfo]"
    }
}
