# stream_util.tcl -- helpers shared by the stream test files
# (tcl-tests/unit/type/stream*.tcl). Sourced by those files, not by the
# harness:
#
#   source [file join [file dirname [info script]] .. .. support stream_util.tcl]
#
# Only things the harness (support/util.tcl) does not already offer live
# here; everything builds on its documented API (r, srv, redis_client ...).

# ------------------------------------------------------------------------
# Versions
# ------------------------------------------------------------------------

# 1 if the server of `level` reports a redis_version >= v. Used by tests
# whose expected reply depends on a version the harness has no tag for
# (e.g. XREAD's "+" ID, new in Redis 7.4: see the test's comment).
proc stream_version_at_least {v {level 0}} {
    set have [srv $level version]
    if {$have eq ""} {return 0}
    expr {[package vcompare $have $v] >= 0}
}

# The server's clock in milliseconds (TIME).
proc stream_time_ms {{level 0}} {
    lassign [r $level time] sec usec
    expr {$sec * 1000 + $usec / 1000}
}

# ------------------------------------------------------------------------
# Building streams
# ------------------------------------------------------------------------

# Add entries with explicit IDs: stream_add key id f v ?id f v ...?
# (one field each). Returns the IDs XADD replied.
proc stream_add {key args} {
    set ids {}
    foreach {id f v} $args {
        lappend ids [r xadd $key $id $f $v]
    }
    return $ids
}

# Add entries ms-0 for ms = from..to, each with field "i" = ms.
proc stream_fill {key from to} {
    set c [redis_client]
    set buf {}
    for {set i $from} {$i <= $to} {incr i} {
        append buf [format_command xadd $key $i-0 i $i]
    }
    $c write $buf
    $c flush
    for {set i $from} {$i <= $to} {incr i} {$c read}
    $c close
}

# 1 if stream ID a sorts before b (IDs are "ms-seq", 64 bit each).
proc stream_id_less {a b} {
    lassign [split $a -] ams aseq
    lassign [split $b -] bms bseq
    if {$ams != $bms} {return [expr {$ams < $bms}]}
    expr {$aseq < $bseq}
}

# IDs of a list of entries as returned by XRANGE / XREAD.
proc stream_ids {entries} {
    set ids {}
    foreach e $entries {lappend ids [lindex $e 0]}
    return $ids
}

# The value of a field in a flat key/value reply (XINFO ...), failing
# clearly when it is absent.
proc stream_field {reply name} {
    if {![dict exists $reply $name]} {
        fail "no field '$name' in reply: $reply"
    }
    dict get $reply $name
}

# ------------------------------------------------------------------------
# Raw RESP shapes
# ------------------------------------------------------------------------

# Read one complete reply of a client in readraw mode and return its
# shape as one string of tokens, so tests can tell a map from an array:
#   %1 s *1 *2 1-0 *2 f v
# Aggregates keep their header (*N %N ~N >N |N), bulk strings show only
# their payload (the "$len" line is dropped, "$-1" stays), every other
# line (+OK :1 _ ,1.5 #t -ERR ...) is kept verbatim.
proc stream_read_shape {c} {
    set out {}
    stream_read_shape_into $c out
    join $out " "
}

proc stream_read_shape_into {c outvar} {
    upvar 1 $outvar out
    set line [$c read]
    set type [string index $line 0]
    set n [string range $line 1 end]
    switch -- $type {
        * - ~ - > {
            lappend out $line
            for {set i 0} {$i < $n} {incr i} {stream_read_shape_into $c out}
        }
        % - | {
            lappend out $line
            for {set i 0} {$i < 2*$n} {incr i} {stream_read_shape_into $c out}
            # An attribute is followed by the value it describes.
            if {$type eq "|"} {stream_read_shape_into $c out}
        }
        $ - = - ! {
            if {$n < 0} {
                lappend out $line
            } else {
                lappend out [$c read]
            }
        }
        default {lappend out $line}
    }
}

# Send a command on client c and return the shape of its reply
# (see stream_read_shape).
proc stream_shape {c args} {
    $c readraw 1
    set rc [catch {
        $c write [format_command {*}$args]
        $c flush
        stream_read_shape $c
    } res]
    $c readraw 0
    if {$rc} {error $res}
    return $res
}

# ------------------------------------------------------------------------
# Clients
# ------------------------------------------------------------------------

# The CLIENT ID of a (deferring or not) client.
proc stream_client_id {c {deferring 0}} {
    set id [$c client id]
    if {$deferring} {set id [$c read]}
    return $id
}

# Number of connected clients (CLIENT LIST lines).
proc stream_client_count {} {
    llength [split [string trim [r client list]] "\n"]
}

# ------------------------------------------------------------------------
# Deferring clients of blocking tests
# ------------------------------------------------------------------------

# A test that fails half-way leaves its deferring clients blocked, and
# every later test would then see one blocked client too many. Clients
# made with stream_deferring_client are remembered and closed before the
# next test starts (see stream_close_clients_between_tests).
set ::stream_clients {}

proc stream_deferring_client {{level 0}} {
    set rd [redis_deferring_client $level]
    lappend ::stream_clients $rd
    return $rd
}

proc stream_close_clients {} {
    if {[llength $::stream_clients] == 0} return
    foreach rd $::stream_clients {catch {$rd close}}
    set ::stream_clients {}
    catch {wait_for_blocked_clients_count 0}
}

# Wrap `test` so that every test starts without deferring clients left
# over from the previous one (closing an already closed client is fine).
proc stream_close_clients_between_tests {} {
    if {[info procs ::stream_harness_test] ne ""} return
    rename ::test ::stream_harness_test
    proc ::test {name code args} {
        stream_close_clients
        uplevel 1 [list ::stream_harness_test $name $code {*}$args]
    }
}

# ------------------------------------------------------------------------
# Tag needs:other-types
# ------------------------------------------------------------------------

# Tests that need a key of another type (SET, LPUSH ...) are tagged
# needs:other-types. casq once stored streams only and skipped them; it now
# has every type those tests use, so the tag only documents the need.
