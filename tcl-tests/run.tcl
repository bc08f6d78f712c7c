#!/usr/bin/env tclsh
# run.tcl -- casq's Tcl compatibility suite runner.
#
#   tclsh tcl-tests/run.tcl [options] [test-file-names...]
#
# See tcl-tests/README.md. Each test file runs in an interpreter of its own
# (so helper procs of one file cannot leak into another), sequentially.

set ::testdir [file dirname [file normalize [info script]]]
set ::repo [file dirname $::testdir]

proc usage {} {
    puts {Usage: tclsh tcl-tests/run.tcl [options] [test-file-names...]
  --server casq|redis   server to start per start_server block (default casq)
  --casq-bin PATH       casq binary (default src/casq-server under the repo)
  --host H --port P     use an existing server, start nothing
  --tags "a -b"         run tests with tag a (if any given), skip tag b
  --only PATTERN        run tests whose name matches the glob (repeatable)
  --baseport N          first port for servers (default 21000)
  --portcount N         size of the port range (default 1000)
  --start-timeout MS    how long a server may take to answer PING (10000)
  --keep                keep server dirs and logs (default: only of failures)
  --redis-aof           run redis-server with appendonly yes/appendfsync always
                        and run needs:persistence tests against it too
  --verbose             show skipped tests and server command lines
  --list                list the tests, run nothing
Test files: unit/*.tcl and unit/*/*.tcl (all by default). Names may be
given as "keyspace", "unit/keyspace", "type/stream" or a path.}
}

set opts [dict create server casq casq_bin [file join $::repo src casq-server] \
              host {} port 6379 allow_tags {} deny_tags {} only {} \
              baseport 21000 portcount 1000 start_timeout 10000 \
              keep 0 verbose 0 list 0 redis_aof 0]
set files {}
for {set i 0} {$i < $argc} {incr i} {
    set a [lindex $argv $i]
    set next [lindex $argv [expr {$i+1}]]
    switch -exact -- $a {
        --server {
            if {$next ni {casq redis}} {puts "--server must be casq or redis"; exit 2}
            dict set opts server $next; incr i
        }
        --casq-bin {dict set opts casq_bin [file normalize $next]; incr i}
        --host {dict set opts host $next; incr i}
        --port {dict set opts port $next; incr i}
        --tags {
            foreach t $next {
                if {[string index $t 0] eq "-"} {
                    dict lappend opts deny_tags [string range $t 1 end]
                } else {
                    dict lappend opts allow_tags $t
                }
            }
            incr i
        }
        --only {dict lappend opts only $next; incr i}
        --baseport {dict set opts baseport $next; incr i}
        --portcount {dict set opts portcount $next; incr i}
        --start-timeout {dict set opts start_timeout $next; incr i}
        --keep {dict set opts keep 1}
        --redis-aof {dict set opts redis_aof 1}
        --verbose {dict set opts verbose 1}
        --list {dict set opts list 1}
        --help - -h {usage; exit 0}
        default {
            if {[string match -* $a]} {puts "unknown option $a"; usage; exit 2}
            lappend files $a
        }
    }
}

# Resolve test files.
proc resolve_file {name} {
    foreach cand [list $name [file join $::testdir $name] \
                      [file join $::testdir unit $name] \
                      [file join $::testdir unit $name.tcl] \
                      [file join $::testdir $name.tcl]] {
        if {[file isfile $cand]} {return [file normalize $cand]}
    }
    puts "no such test file: $name"
    exit 2
}
if {[llength $files] == 0} {
    # unit/*.tcl and the files of its subdirectories (unit/type/...).
    set paths [lsort [concat \
        [glob -nocomplain -directory [file join $::testdir unit] *.tcl] \
        [glob -nocomplain -directory [file join $::testdir unit] */*.tcl]]]
} else {
    set paths {}
    foreach f $files {lappend paths [resolve_file $f]}
}

if {[dict get $opts host] eq "" && ![dict get $opts list]} {
    if {[dict get $opts server] eq "casq" && ![file executable [dict get $opts casq_bin]]} {
        puts "casq binary not found: [dict get $opts casq_bin] (build it, or use --casq-bin / --server redis)"
        exit 2
    }
    if {[dict get $opts server] eq "redis" && [auto_execok redis-server] eq ""} {
        puts "redis-server not found on PATH"
        exit 2
    }
}

set tmproot [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] "casq-tcl-tests.[pid]"]
file mkdir $tmproot
dict set opts tmproot $tmproot

set t0 [clock milliseconds]
set results {}
foreach path $paths {
    if {[string first $::testdir/ $path] == 0} {
        set rel [string range $path [expr {[string length $::testdir] + 1}] end]
    } else {
        set rel $path
    }
    set ip [interp create]
    $ip eval [list namespace eval ::th [list set opts $opts]]
    foreach f {resp.tcl util.tcl harness.tcl} {
        $ip eval [list source [file join $::testdir support $f]]
    }
    if {[catch {$ip eval [list run_test_file $path $rel]} err]} {
        lappend results [dict create status err name "(file $rel)" file $rel msg $err]
    }
    catch {lappend results {*}[$ip eval {set ::th::results}]}
    interp delete $ip
}
set elapsed [expr {([clock milliseconds] - $t0) / 1000.0}]

if {[dict get $opts list]} {
    file delete -force $tmproot
    exit 0
}

set passed 0; set failed 0; set skipped 0
set failures {}; set skips {}
foreach r $results {
    switch [dict get $r status] {
        ok   {incr passed}
        err  {incr failed; lappend failures $r}
        skip {incr skipped; lappend skips $r}
    }
}

puts ""
puts "=== Summary ([dict get $opts server][expr {[dict get $opts host] ne "" ? " at [dict get $opts host]:[dict get $opts port]" : ""}], $elapsed s)"
if {$skipped} {
    puts "Skipped tests:"
    foreach r $skips {
        puts "  [dict get $r file]: [dict get $r name] -- [dict get $r msg]"
    }
}
if {$failed} {
    puts "Failed tests:"
    foreach r $failures {
        puts "  \[err\] [dict get $r name] ([dict get $r file])"
        set lines [split [dict get $r msg] \n]
        foreach line [lrange $lines 0 7] {puts "      $line"}
        if {[llength $lines] > 8} {puts "      ... (full output above)"}
    }
}
if {!$failed && ![dict get $opts keep]} {file delete -force $tmproot}
if {$failed} {puts "(server dirs and logs kept under $tmproot)"}
puts "$passed passed, $failed failed, $skipped skipped"
exit [expr {$failed ? 1 : 0}]
