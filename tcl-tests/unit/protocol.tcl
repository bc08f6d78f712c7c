# Protocol: inline and multi-bulk requests, pipelining, malformed input,
# limits, RESP3 null/map encodings, unknown command and arity errors.

# Send raw bytes on a new connection; return the first reply line (raw).
proc send_raw_first_line {bytes} {
    set c [redis_client]
    $c readraw 1
    $c write $bytes
    $c flush
    set line [$c read]
    return [list $c $line]
}

# Bytes must make the server reply with an error line `expected` and then
# close the connection.
proc assert_protocol_error {bytes expected} {
    lassign [send_raw_first_line $bytes] c line
    assert_equal "-$expected" $line
    assert_conn_closed $c
    $c close
}

start_server {tags {"protocol"}} {
    test {Inline PING} {
        set c [redis_client]
        $c readraw 1
        $c write "PING\r\n"
        $c flush
        set reply [$c read]
        $c close
        set reply
    } {+PONG}

    test {Inline commands terminated by a bare LF} {
        set c [redis_client]
        $c write "ping\nping\n"
        $c flush
        set a [$c read]
        set b [$c read]
        $c close
        list $a $b
    } {PONG PONG}

    test {Inline: empty and blank lines are ignored} {
        set c [redis_client]
        $c write "\r\n   \r\nPING\r\n"
        $c flush
        set a [$c read]
        $c close
        set a
    } {PONG}

    test {Inline: double quotes with escapes, single quotes} {
        set c [redis_client]
        $c write "echo \"\\x41\\n\"\r\necho 'a\\'b'\r\necho \"a b\"\r\nECHO \"\"\r\n"
        $c flush
        set res {}
        for {set i 0} {$i < 4} {incr i} {lappend res [$c read]}
        $c close
        assert_equal [list "A\n" "a'b" "a b" ""] $res
    }

    test {Inline: unbalanced double quote is a protocol error} {
        assert_protocol_error "ping \"a\r\n" \
            {ERR Protocol error: unbalanced quotes in request}
    }

    test {Inline: unbalanced single quote is a protocol error} {
        assert_protocol_error "echo 'a\r\n" \
            {ERR Protocol error: unbalanced quotes in request}
    }

    test {Inline: closing quote followed by a character is a protocol error} {
        assert_protocol_error "echo \"a\"b\r\n" \
            {ERR Protocol error: unbalanced quotes in request}
    }

    test {Inline request larger than 64k without newline} {
        assert_protocol_error [string repeat a 70000] \
            {ERR Protocol error: too big inline request}
    }

    test {Inline request with a NUL byte: nothing runs, then too big inline request} {
        # As Redis (strchr finds no newline past the NUL): the truncated
        # command is not run, nor anything pipelined after it.
        r del nulkey
        set c [redis_client]
        $c readraw 1
        $c write "SET nulkey v\0junk\r\nPING\r\n"
        $c flush
        after 200
        set ran [r exists nulkey]
        # The server may close before it has read all of it.
        catch {
            $c write [string repeat a 70000]
            $c flush
        }
        set line [$c read]
        assert_conn_closed $c
        $c close
        list $ran $line [r exists nulkey]
    } {0 {-ERR Protocol error: too big inline request} 0}

    test {Inline "$-5" is just an unknown command} {
        lassign [send_raw_first_line "\$-5\r\nPING\r\n"] c line
        set next [$c read]
        $c close
        list $line $next
    } {{-ERR unknown command '$-5', with args beginning with: } +PONG}

    test {Multibulk: invalid multibulk length} {
        assert_protocol_error "*abc\r\n" {ERR Protocol error: invalid multibulk length}
    }

    test {Multibulk: invalid multibulk length after a valid command} {
        lassign [send_raw_first_line "*1\r\n\$4\r\nping\r\n*a\r\n"] c line
        assert_equal {+PONG} $line
        assert_equal {-ERR Protocol error: invalid multibulk length} [$c read]
        assert_conn_closed $c
        $c close
    }

    test {Multibulk: negative bulk length} {
        assert_protocol_error "*1\r\n\$-5\r\n" {ERR Protocol error: invalid bulk length}
    }

    test {Multibulk: non numeric bulk length} {
        assert_protocol_error "*1\r\n\$abc\r\n" {ERR Protocol error: invalid bulk length}
    }

    test {Multibulk: bulk header without '$'} {
        assert_protocol_error "*1\r\nfoo\r\n" {ERR Protocol error: expected '$', got 'f'}
    }

    test {Multibulk: too big bulk count string} {
        assert_protocol_error "*1\r\n[string repeat x 70000]" \
            {ERR Protocol error: too big bulk count string}
    }

    test {Multibulk: too long bulk length digits} {
        assert_protocol_error "*2\r\n\$4\r\necho\r\n\$[string repeat 9 70000]" \
            {ERR Protocol error: too big bulk count string}
    }

    test {Multibulk: bulk longer than the default proto-max-bulk-len (512mb)} {
        assert_protocol_error "*2\r\n\$4\r\necho\r\n\$536870913\r\n" \
            {ERR Protocol error: invalid bulk length}
    }

    test {Multibulk: bulk payload longer than announced: 2 bytes skipped} {
        # Redis does not check the CRLF after a bulk: it skips two bytes.
        # "abcd\r\n" as a 3 byte bulk runs "abc", then "\n" is an empty
        # inline line.
        lassign [send_raw_first_line "*1\r\n\$3\r\nabcd\r\nPING\r\n"] c line
        set next [$c read]
        $c close
        list $line $next
    } {{-ERR unknown command 'abc', with args beginning with: } +PONG}

    test {Multibulk: *0 and *-1 are ignored} {
        lassign [send_raw_first_line "*0\r\n*-1\r\nPING\r\n"] c line
        $c close
        set line
    } {+PONG}

    test {Multibulk: a request split across many writes} {
        set c [redis_client]
        set req [format_command echo "hello world"]
        foreach ch [split $req ""] {
            $c write $ch
            $c flush
        }
        set reply [$c read]
        $c close
        set reply
    } {hello world}

    test {Multibulk: binary safe arguments (NUL, CR, LF, 0xff)} {
        set v "a\x00b\r\nc\xff\xfe"
        assert_equal $v [r echo $v]
    }

    test {Multibulk: empty bulk argument} {
        set c [redis_client]
        $c readraw 1
        $c write "*2\r\n\$4\r\nECHO\r\n\$0\r\n\r\n"
        $c flush
        set a [$c read]
        set b [$c read]
        $c close
        list $a $b
    } {{$0} {}}

    test {Pipelining 10000 PINGs in one write} {
        set c [redis_client]
        $c write [string repeat "PING\r\n" 10000]
        $c flush
        set pongs 0
        for {set i 0} {$i < 10000} {incr i} {
            if {[$c read] eq "PONG"} {incr pongs}
        }
        $c close
        set pongs
    } {10000}

    test {Pipelining keeps reply order (1000 ECHOs)} {
        set c [redis_client]
        set buf {}
        for {set i 0} {$i < 1000} {incr i} {append buf [format_command echo "v$i"]}
        $c write $buf
        $c flush
        set bad 0
        for {set i 0} {$i < 1000} {incr i} {
            if {[$c read] ne "v$i"} {incr bad}
        }
        $c close
        set bad
    } {0}

    test {Large argument round trip (1 MB ECHO)} {
        set v [string repeat "0123456789abcdef" 65536]
        set got [r echo $v]
        assert_equal [string length $v] [string length $got]
        assert_equal $v $got
    }

    test {Unknown command error text with arguments} {
        assert_error {ERR unknown command 'foo', with args beginning with: 'a' 'b' } {r foo a b}
        catch {r foo a b} e
        set e
    } {ERR unknown command 'foo', with args beginning with: 'a' 'b' }

    test {Unknown command error text without arguments} {
        catch {r foo} e
        set e
    } {ERR unknown command 'foo', with args beginning with: }

    test {Unknown command keeps the command name's case} {
        catch {r FoO a} e
        set e
    } {ERR unknown command 'FoO', with args beginning with: 'a' }

    test {Unknown command: arguments are cut at 128 characters} {
        set long [string repeat x 200]
        catch {r foo $long b} e
        set e
    } "ERR unknown command 'foo', with args beginning with: '[string repeat x 128]' "

    test {Unknown command: CR and LF in arguments become spaces} {
        catch {r foo "a\r\nb" c} e
        set e
    } {ERR unknown command 'foo', with args beginning with: 'a  b' 'c' }

    test {Unknown command: the name is cut at 128 characters} {
        catch {r [string repeat n 200] a} e
        set e
    } "ERR unknown command '[string repeat n 128]', with args beginning with: 'a' "

    test {Unknown command: a NUL byte ends the name in the error} {
        catch {r "n\x00o" a} e
        set e
    } {ERR unknown command 'n', with args beginning with: 'a' }

    test {A subcommand full name is not a command} {
        catch {r config|get maxclients} e
        set e
    } {ERR unknown command 'config|get', with args beginning with: 'maxclients' }

    test {Unknown command does not close the connection} {
        catch {r nosuchcommand}
        r ping
    } {PONG}

    test {Command names are case insensitive} {
        list [r PiNg] [r PING] [r ECHO x]
    } {PONG PONG x}

    test {Wrong number of arguments: xlen, del, echo, ping} {
        set errs {}
        foreach cmd {{xlen} {xlen a b} {del} {echo} {ping a b}} {
            catch {r {*}$cmd} e
            lappend errs $e
        }
        set errs
    } {{ERR wrong number of arguments for 'xlen' command} {ERR wrong number of arguments for 'xlen' command} {ERR wrong number of arguments for 'del' command} {ERR wrong number of arguments for 'echo' command} {ERR wrong number of arguments for 'ping' command}}

    test {Wrong number of arguments of a subcommand} {
        catch {r config set timeout} e
        set e
    } {ERR wrong number of arguments for 'config|set' command}

    test {Unknown subcommand} {
        catch {r config foo} e
        set e
    } {ERR unknown subcommand 'foo'. Try CONFIG HELP.}

    test {Container command without subcommand} {
        catch {r client} e
        set e
    } {ERR wrong number of arguments for 'client' command}

    test {RESP2 null bulk is $-1} {
        r flushdb
        r readraw 1
        set a [r randomkey]
        r readraw 0
        set a
    } {$-1}

    test {RESP3 null is _} {
        r flushdb
        r hello 3
        r readraw 1
        set a [r randomkey]
        r readraw 0
        r hello 2
        set a
    } {_}

    test {RESP3 CONFIG GET is a map} {
        r hello 3
        r readraw 1
        set a [r config get maxclients]
        set rest [list [r read] [r read] [r read] [r read]]
        r readraw 0
        r hello 2
        list $a $rest
    } {%1 {{$10} maxclients {$5} 10000}}

    test {RESP2 CONFIG GET is a flat array} {
        r readraw 1
        set a [r config get maxclients]
        set rest [list [r read] [r read] [r read] [r read]]
        r readraw 0
        list $a $rest
    } {*2 {{$10} maxclients {$5} 10000}}

    test {RESP3: INFO is a verbatim string} {
        r hello 3
        r readraw 1
        set a [r info server]
        r readraw 0
        r reconnect
        r select 9
        set a
    } {=*}

    test {RESP3 reply types of generic commands} {
        r flushdb
        r xadd k * f v
        set res {}
        foreach {cmd expected} {
            {client info} =*  {client list} =*  {info server} =*
            {client getname} _  {command docs ping} %1
            {config get maxclients} %1  {command info ping} *1
            {time} *2  {scan 0} *2  {keys *} *1  {randomkey} $1
            {ttl k} :-1  {exists k} :1  {type k} +stream  {dbsize} :1
            {echo x} $1  {ping} +PONG  {client id} :*
            {command getkeys xadd s * f v} *1
        } {
            set c [redis_client]
            $c hello 3
            $c readraw 1
            set first [$c {*}$cmd]
            $c close
            if {![string match $expected $first]} {lappend res "$cmd: $first (expected $expected)"}
        }
        set res
    } {}

    test {Big bulk argument below a configured proto-max-bulk-len works} {
        r config set proto-max-bulk-len 1048576
        set v [string repeat x 1048576]
        set got [r echo $v]
        r config set proto-max-bulk-len 536870912
        string length $got
    } {1048576}

    test {Bulk above a configured proto-max-bulk-len is a protocol error} {
        r config set proto-max-bulk-len 1048576
        set c [redis_client]
        $c readraw 1
        $c write "*2\r\n\$4\r\necho\r\n\$1048577\r\n"
        $c flush
        set line [$c read]
        r config set proto-max-bulk-len 536870912
        assert_equal {-ERR Protocol error: invalid bulk length} $line
        assert_conn_closed $c
        $c close
    }

    test {Pipelined commands after QUIT are not executed} {
        r del afterquit
        set c [redis_client]
        $c readraw 1
        $c write "PING\r\nQUIT\r\n[format_command xadd afterquit * f v]"
        $c flush
        set a [$c read]
        set b [$c read]
        assert_conn_closed $c
        $c close
        list $a $b [r exists afterquit]
    } {+PONG +OK 0}

    test {QUIT replies OK and closes the connection} {
        set c [redis_client]
        assert_equal OK [$c quit]
        assert_conn_closed $c
        $c close
    }
}

start_server {tags {"protocol"} overrides {requirepass secret}} {
    test {Unauthenticated client: multibulk length above 10 closes the connection} {
        assert_protocol_error "*11\r\n" {ERR Protocol error: unauthenticated multibulk length}
    }

    test {Unauthenticated client: bulk length above 16384 closes the connection} {
        assert_protocol_error "*1\r\n\$16385\r\n" {ERR Protocol error: unauthenticated bulk length}
    }

    test {Unauthenticated client: limits are fine when respected} {
        set c [redis_client]
        set reply [catch {$c echo [string repeat x 16384]} e]
        $c close
        set e
    } {NOAUTH Authentication required.}

    test {Authenticated client: no unauthenticated limits} {
        set c [redis_client]
        $c auth secret
        set reply [$c echo [string repeat x 20000]]
        $c close
        string length $reply
    } {20000}
}
