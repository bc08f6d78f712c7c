# Self test of the suite's RESP client (support/resp.tcl) against a fake
# server written here, which sends canned replies: every RESP3 type must be
# decoded as documented in README.md. No casq or redis involved.

proc fake_accept {ch addr port} {
    fconfigure $ch -translation binary -buffering none
    set ::fake_conn $ch
}

# Returns {client server-side-channel listener}.
proc fake_pair {} {
    set l [socket -server fake_accept -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $l -sockname] 2]
    unset -nocomplain ::fake_conn
    set c [redis 127.0.0.1 $port 1]
    if {![info exists ::fake_conn]} {vwait ::fake_conn}
    return [list $c $::fake_conn $l]
}

proc fake_close {pair} {
    lassign $pair c s l
    catch {$c close}
    catch {close $s}
    catch {close $l}
}

# Decode `bytes` with a fresh client.
proc decode {bytes {raw 0}} {
    set p [fake_pair]
    lassign $p c s
    if {$raw} {$c readraw 1}
    puts -nonewline $s $bytes
    set rc [catch {$c read} v]
    fake_close $p
    if {$rc} {return [list ERROR $v]}
    return $v
}

tags {"harness"} {
    test {RESP client: simple string, integer, bulk} {
        list [decode "+OK\r\n"] [decode ":-42\r\n"] [decode "\$5\r\nhello\r\n"]
    } {OK -42 hello}

    test {RESP client: binary bulk with CRLF inside} {
        decode "\$6\r\na\r\nb\x00\xff\r\n"
    } "a\r\nb\x00\xff"

    test {RESP client: nulls are empty strings} {
        list [decode "\$-1\r\n"] [decode "*-1\r\n"] [decode "_\r\n"]
    } {{} {} {}}

    test {RESP client: arrays, nested} {
        decode "*3\r\n:1\r\n*2\r\n+a\r\n\$1\r\nb\r\n\$-1\r\n"
    } {1 {a b} {}}

    test {RESP client: map is a flat key/value list} {
        decode "%2\r\n+k1\r\n:1\r\n\$2\r\nk2\r\n*1\r\n+x\r\n"
    } {k1 1 k2 x}

    test {RESP client: set and push are lists} {
        list [decode "~2\r\n+a\r\n+b\r\n"] [decode ">2\r\n+message\r\n+x\r\n"]
    } {{a b} {message x}}

    test {RESP client: double, big number, boolean} {
        list [decode ",3.14\r\n"] [decode ",inf\r\n"] [decode "(3492890328409238509324850943850943825024385\r\n"] \
            [decode "#t\r\n"] [decode "#f\r\n"]
    } {3.14 inf 3492890328409238509324850943850943825024385 1 0}

    test {RESP client: verbatim string loses its format prefix} {
        decode "=15\r\ntxt:Some string\r\n"
    } {Some string}

    test {RESP client: error and blob error raise Tcl errors} {
        list [decode "-ERR something bad\r\n"] [decode "!21\r\nSYNTAX invalid syntax\r\n"]
    } {{ERROR {ERR something bad}} {ERROR {SYNTAX invalid syntax}}}

    test {RESP client: nested error raises after the whole reply} {
        set p [fake_pair]
        lassign $p c s
        puts -nonewline $s "*3\r\n:1\r\n-ERR inner\r\n:3\r\n+NEXT\r\n"
        set rc [catch {$c read} e]
        set next [$c read]
        fake_close $p
        list $rc $e $next
    } {1 {ERR inner} NEXT}

    test {RESP client: errors_inline keeps nested errors as elements} {
        set p [fake_pair]
        lassign $p c s
        $c errors_inline 1
        puts -nonewline $s "*2\r\n-ERR inner\r\n:2\r\n"
        set v [$c read]
        fake_close $p
        set v
    } {{ERR inner} 2}

    test {RESP client: attributes are stored, the value is returned} {
        set p [fake_pair]
        lassign $p c s
        puts -nonewline $s "|1\r\n+key-popularity\r\n%1\r\n\$1\r\na\r\n,0.19\r\n*1\r\n:2\r\n"
        set v [$c read]
        set a [$c attributes]
        fake_close $p
        list $v $a
    } {2 {key-popularity {a 0.19}}}

    test {RESP client: readraw returns lines verbatim} {
        set p [fake_pair]
        lassign $p c s
        $c readraw 1
        puts -nonewline $s "*2\r\n\$-1\r\n_\r\n"
        set v [list [$c read] [$c read] [$c read]]
        fake_close $p
        set v
    } {*2 {$-1} _}

    test {RESP client: a reply split in tiny pieces} {
        set p [fake_pair]
        lassign $p c s
        foreach ch [split "*2\r\n\$3\r\nabc\r\n:7\r\n" ""] {
            puts -nonewline $s $ch
        }
        set v [$c read]
        fake_close $p
        set v
    } {abc 7}

    test {RESP client: commands are encoded as multi-bulk, UTF-8 above U+00FF} {
        set p [fake_pair]
        lassign $p c s
        $c echo "a b" "\xff" "\u20ac"
        after 50
        fconfigure $s -blocking 0
        set got [read $s]
        fake_close $p
        set got
    } "*4\r\n\$4\r\necho\r\n\$3\r\na b\r\n\$1\r\n\xff\r\n\$3\r\n\xe2\x82\xac\r\n"

    test {RESP client: read timeout} {
        set p [fake_pair]
        lassign $p c s
        $c timeout 100
        catch {$c read} e
        fake_close $p
        set e
    } {I/O error reading reply: timeout after 100 ms}

    test {RESP client: connection closed by the server} {
        set p [fake_pair]
        lassign $p c s
        close $s
        catch {$c read} e
        fake_close $p
        set e
    } {I/O error reading reply: connection closed by server}
}
