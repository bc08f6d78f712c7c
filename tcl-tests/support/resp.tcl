# resp.tcl -- a small RESP2/RESP3 client in pure Tcl for casq's test suite.
#
# Written for casq (no code taken from Redis's test client), but with the
# same calling conventions so people who know Redis's tests feel at home:
#
#   set r [redis 127.0.0.1 6379]      ;# connect (third arg 1 = deferring)
#   $r xadd s * f v                   ;# send a command, return its reply
#   $r read                           ;# read one reply (deferring clients)
#   $r write $bytes; $r flush         ;# raw protocol / pipelining
#   $r readraw 1                      ;# each read returns one protocol line
#   $r close
#
# Reply mapping (same as Redis's test client):
#   simple/bulk string, double, big number, verbatim -> Tcl string
#     (verbatim strings lose their "txt:" prefix)
#   integer -> number, boolean -> 1/0
#   null bulk, null array, RESP3 null -> {} (empty string)
#   array, set, push -> list;  map -> flat key/value list
#   error -> Tcl error whose message is the error line without "-"
#   an error nested in an array: the whole reply is read, then the first
#     nested error is raised (or, with `$r errors_inline 1`, the error text
#     is kept as the element and nothing is raised)
#   attributes (|) are stored and can be fetched with `$r attributes`;
#     the value that follows them is returned.
#
# Arguments are byte strings: each character 0..255 is sent as one byte.
# An argument containing a character above U+00FF is sent UTF-8 encoded.
# Replies are returned as byte strings (use `encoding convertfrom utf-8`
# when a test wants characters).
#
# Every read has a timeout (default 10 s, `$r timeout ms` to change it) so
# a server that never answers fails the test instead of hanging the suite.

namespace eval ::resp {
    variable next_id 0
    variable fd          ;# id -> channel
    variable addr        ;# id -> {host port}
    variable buf         ;# id -> bytes read, not yet parsed
    variable pos         ;# id -> parse offset into buf
    variable deferred    ;# id -> 1 if commands do not read their reply
    variable raw         ;# id -> 1 in readraw mode
    variable inline_err  ;# id -> 1 if nested errors are returned inline
    variable timeout_ms  ;# id -> read timeout
    variable attrs       ;# id -> last attributes received
    variable errs        ;# id -> nested errors seen while reading a reply
    variable wake        ;# id -> vwait target
}

# redis ?host? ?port? ?defer? -- connect and return the client command.
proc redis {{host 127.0.0.1} {port 6379} {defer 0}} {
    set id [incr ::resp::next_id]
    set ::resp::addr($id) [list $host $port]
    set ::resp::deferred($id) $defer
    set ::resp::raw($id) 0
    set ::resp::inline_err($id) 0
    set ::resp::timeout_ms($id) 10000
    set ::resp::attrs($id) {}
    ::resp::connect $id
    set cmd ::resp::client$id
    interp alias {} $cmd {} ::resp::dispatch $id
    return $cmd
}

proc ::resp::connect {id} {
    lassign $::resp::addr($id) host port
    set ch [socket $host $port]
    fconfigure $ch -translation binary -buffering full -blocking 0
    set ::resp::fd($id) $ch
    set ::resp::buf($id) {}
    set ::resp::pos($id) 0
}

# Encode a command as a RESP multi-bulk request.
proc format_command {args} {
    set out "*[llength $args]\r\n"
    foreach a $args {
        if {[regexp {[^\x00-\xff]} $a]} {
            set a [encoding convertto utf-8 $a]
        }
        append out "\$[string length $a]\r\n$a\r\n"
    }
    return $out
}

proc ::resp::dispatch {id method args} {
    switch -exact -- $method {
        read       { return [::resp::read_reply $id] }
        rawread    { return [::resp::read_bytes $id [lindex $args 0]] }
        write      { ::resp::send $id [lindex $args 0] 0; return }
        flush      { ::resp::send $id {} 1; return }
        close      { ::resp::close_client $id; return }
        channel    { return $::resp::fd($id) }
        deferred   { set ::resp::deferred($id) [lindex $args 0]; return }
        readraw    { set ::resp::raw($id) [lindex $args 0]; return }
        errors_inline { set ::resp::inline_err($id) [lindex $args 0]; return }
        timeout    { set ::resp::timeout_ms($id) [lindex $args 0]; return }
        attributes { return $::resp::attrs($id) }
        reconnect  {
            catch {close $::resp::fd($id)}
            ::resp::connect $id
            return
        }
        default {
            ::resp::send $id [format_command $method {*}$args] 1
            if {$::resp::deferred($id)} return
            return [::resp::read_reply $id]
        }
    }
}

proc ::resp::close_client {id} {
    catch {close $::resp::fd($id)}
    interp alias {} ::resp::client$id {}
    foreach v {fd addr buf pos deferred raw inline_err timeout_ms attrs errs wake toperr} {
        unset -nocomplain ::resp::${v}($id)
    }
}

# Writes are done in blocking mode so that errors (EPIPE, reset) surface at
# the call that caused them; reads are non-blocking with a timeout.
proc ::resp::send {id bytes doflush} {
    set ch $::resp::fd($id)
    fconfigure $ch -blocking 1
    set code [catch {
        if {$bytes ne {}} {puts -nonewline $ch $bytes}
        if {$doflush} {flush $ch}
    } err]
    fconfigure $ch -blocking 0
    if {$code} {error "I/O error writing to server: $err"}
}

# ------------------------------------------------------------------------
# Low level input: a buffer filled from the socket with a timeout.
# ------------------------------------------------------------------------

# Read more bytes into the buffer, waiting up to the client's timeout.
proc ::resp::fill {id} {
    set ch $::resp::fd($id)
    # Compact the buffer once the consumed prefix gets large.
    if {$::resp::pos($id) > 65536} {
        set ::resp::buf($id) [string range $::resp::buf($id) $::resp::pos($id) end]
        set ::resp::pos($id) 0
    }
    while 1 {
        if {[catch {read $ch} data]} {
            error "I/O error reading reply: $data"
        }
        if {$data ne {}} {
            append ::resp::buf($id) $data
            return
        }
        if {[eof $ch]} {
            error "I/O error reading reply: connection closed by server"
        }
        set ::resp::wake($id) {}
        fileevent $ch readable [list set ::resp::wake($id) readable]
        set t [after $::resp::timeout_ms($id) [list set ::resp::wake($id) timeout]]
        vwait ::resp::wake($id)
        after cancel $t
        fileevent $ch readable {}
        if {$::resp::wake($id) eq "timeout"} {
            error "I/O error reading reply: timeout after $::resp::timeout_ms($id) ms"
        }
    }
}

proc ::resp::read_line {id} {
    while 1 {
        set i [string first "\r\n" $::resp::buf($id) $::resp::pos($id)]
        if {$i >= 0} {
            set line [string range $::resp::buf($id) $::resp::pos($id) [expr {$i-1}]]
            set ::resp::pos($id) [expr {$i+2}]
            return $line
        }
        ::resp::fill $id
    }
}

# Read exactly n bytes (no trailing CRLF handling).
proc ::resp::read_bytes {id n} {
    while {[string length $::resp::buf($id)] - $::resp::pos($id) < $n} {
        ::resp::fill $id
    }
    set p $::resp::pos($id)
    set ::resp::pos($id) [expr {$p+$n}]
    return [string range $::resp::buf($id) $p [expr {$p+$n-1}]]
}

# Read a bulk payload of n bytes followed by CRLF.
proc ::resp::read_payload {id n} {
    set data [::resp::read_bytes $id $n]
    set crlf [::resp::read_bytes $id 2]
    if {$crlf ne "\r\n"} {
        error "protocol error: bulk of $n bytes not followed by CRLF"
    }
    return $data
}

# ------------------------------------------------------------------------
# Reply parsing
# ------------------------------------------------------------------------

proc ::resp::read_reply {id} {
    if {$::resp::raw($id)} {return [::resp::read_line $id]}
    set ::resp::errs($id) {}
    unset -nocomplain ::resp::toperr($id)
    set v [::resp::parse $id]
    if {[info exists ::resp::toperr($id)]} {
        set e $::resp::toperr($id)
        unset ::resp::toperr($id)
        return -code error $e
    }
    if {[llength $::resp::errs($id)] && !$::resp::inline_err($id)} {
        return -code error [lindex $::resp::errs($id) 0]
    }
    return $v
}

proc ::resp::parse {id {depth 0}} {
    set line [::resp::read_line $id]
    set type [string index $line 0]
    set rest [string range $line 1 end]
    switch -exact -- $type {
        + { return $rest }
        : { return $rest }
        , { return $rest }
        ( { return $rest }
        - { return [::resp::got_error $id $rest $depth] }
        ! { return [::resp::got_error $id [::resp::read_payload $id $rest] $depth] }
        # {
            if {$rest eq "t"} {return 1}
            if {$rest eq "f"} {return 0}
            error "protocol error: bad boolean '$line'"
        }
        _ { return {} }
        $ {
            if {$rest < 0} {return {}}
            return [::resp::read_payload $id $rest]
        }
        = {
            if {$rest < 0} {return {}}
            return [string range [::resp::read_payload $id $rest] 4 end]
        }
        * - ~ - > {
            if {$rest < 0} {return {}}
            set l {}
            for {set i 0} {$i < $rest} {incr i} {
                lappend l [::resp::parse $id [expr {$depth+1}]]
            }
            return $l
        }
        % {
            set l {}
            for {set i 0} {$i < 2*$rest} {incr i} {
                lappend l [::resp::parse $id [expr {$depth+1}]]
            }
            return $l
        }
        | {
            set a {}
            for {set i 0} {$i < 2*$rest} {incr i} {
                lappend a [::resp::parse $id [expr {$depth+1}]]
            }
            set ::resp::attrs($id) $a
            return [::resp::parse $id $depth]
        }
        default {
            error "protocol error: unexpected reply line '$line'"
        }
    }
}

proc ::resp::got_error {id msg depth} {
    if {$depth == 0} {
        set ::resp::toperr($id) $msg
    } else {
        lappend ::resp::errs($id) $msg
    }
    return $msg
}
