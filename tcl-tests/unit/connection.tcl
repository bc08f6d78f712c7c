# Connection commands: PING, ECHO, QUIT, RESET, AUTH, HELLO, SELECT, SWAPDB
# and CLIENT subcommands.

start_server {tags {"connection"}} {
    test {PING without argument} {
        r ping
    } {PONG}

    test {PING with an argument returns it as a bulk string} {
        r readraw 1
        set a [r ping hello]
        set b [r read]
        r readraw 0
        list $a $b
    } {{$5} hello}

    test {ECHO} {
        list [r echo hello] [r echo ""] [r echo "a b c"]
    } {hello {} {a b c}}

    test {ECHO arity} {
        assert_error {ERR wrong number of arguments for 'echo' command} {r echo}
        assert_error {ERR wrong number of arguments for 'echo' command} {r echo a b}
    }

    test {SELECT switches database} {
        r select 9
        r flushdb
        r xadd dbkey * f v
        r select 10
        set a [r exists dbkey]
        r select 9
        set b [r exists dbkey]
        list $a $b
    } {0 1}

    test {SELECT out of range} {
        assert_error {ERR DB index is out of range} {r select 16}
        assert_error {ERR DB index is out of range} {r select -1}
        assert_error {ERR DB index is out of range} {r select 100000}
    }

    test {SELECT with a non integer} {
        assert_error {ERR value is not an integer or out of range} {r select abc}
        assert_error {ERR value is not an integer or out of range} {r select 1.5}
    }

    test {SELECT arity} {
        assert_error {ERR wrong number of arguments for 'select' command} {r select 0 1}
    }

    test {SWAPDB swaps two databases} {
        r select 9
        r flushdb
        r xadd in9 * f v
        r select 10
        r flushdb
        r xadd in10a * f v
        r xadd in10b * f v
        assert_equal OK [r swapdb 9 10]
        set a [lsort [r keys *]]
        r select 9
        set b [lsort [r keys *]]
        r swapdb 9 10
        list $a $b [r keys *]
    } {in9 {in10a in10b} in9}

    test {SWAPDB errors} {
        assert_error {ERR DB index is out of range} {r swapdb 0 16}
        assert_error {ERR invalid first DB index} {r swapdb a 1}
        assert_error {ERR invalid second DB index} {r swapdb 1 b}
        assert_error {ERR wrong number of arguments for 'swapdb' command} {r swapdb 1}
    }

    test {SWAPDB of a db with itself is OK} {
        r swapdb 9 9
    } {OK}

    test {SWAPDB is seen by a client selected on the other db} {
        r select 9
        r flushdb
        r select 11
        r flushdb
        r xadd swapped * f v
        r select 9
        set c [redis_client]
        $c select 11
        r swapdb 9 11
        set res [list [r exists swapped] [$c exists swapped]]
        $c close
        r swapdb 9 11
        set res
    } {1 0}

    test {QUIT} {
        set c [redis_client]
        assert_equal OK [$c quit]
        assert_conn_closed $c
        $c close
    }

    test {RESET replies RESET and resets the connection state} {
        set c [redis_client]
        $c client setname resetme
        $c select 3
        $c multi
        assert_equal RESET [$c reset]
        set info [client_fields [$c client info]]
        set res [list [$c client getname] [dict get $info db] [dict get $info multi] [dict get $info resp]]
        $c close
        set res
    } {{} 0 -1 2}

    test {RESET goes back to RESP2} {
        set c [redis_client]
        $c hello 3
        $c reset
        $c readraw 1
        set reply [$c hello]
        $c close
        set reply
    } {*14}

    test {RESET discards a transaction} {
        set c [redis_client]
        $c multi
        $c ping
        $c reset
        assert_error {ERR EXEC without MULTI} {$c exec}
        $c close
    }

    test {RESET clears WATCHed keys} {
        r del w
        set c [redis_client]
        $c watch w
        $c reset
        $c select 9
        r xadd w * f v
        $c multi
        $c ping
        set res [$c exec]
        $c close
        set res
    } {PONG}

    test {CLIENT ID is a positive integer, unique per connection} {
        set c [redis_client]
        set a [r client id]
        set b [$c client id]
        $c close
        assert_morethan $a 0
        assert_not_equal $a $b
    }

    test {CLIENT ID grows for newer connections} {
        set c1 [redis_client]
        set c2 [redis_client]
        set a [$c1 client id]
        set b [$c2 client id]
        $c1 close
        $c2 close
        assert_morethan $b $a
    }

    test {CLIENT GETNAME of an unnamed client is null} {
        set c [redis_client]
        $c readraw 1
        set reply [$c client getname]
        $c close
        set reply
    } {$-1}

    test {CLIENT SETNAME and GETNAME} {
        r client setname myname
        set a [r client getname]
        r client setname ""
        set b [r client getname]
        list $a $b
    } {myname {}}

    test {CLIENT SETNAME rejects spaces and newlines} {
        assert_error {ERR Client names cannot contain spaces, newlines or special characters.} {r client setname "a b"}
        assert_error {ERR Client names cannot contain spaces, newlines or special characters.} {r client setname "a\nb"}
    }

    test {CLIENT INFO describes the current connection} {
        r client setname infoname
        set f [client_fields [r client info]]
        r client setname ""
        list [dict get $f id] [dict get $f name] [dict get $f db] [dict get $f cmd] \
            [dict get $f flags] [dict get $f resp] [dict get $f multi]
    } "[r client id] infoname 9 client|info N 2 -1"

    test {CLIENT INFO addr and laddr} {
        set f [client_fields [r client info]]
        assert_match {127.0.0.1:*} [dict get $f addr]
        assert_equal "127.0.0.1:[srv port]" [dict get $f laddr]
    }

    test {CLIENT INFO ends with a newline} {
        string index [r client info] end
    } "\n"

    test {CLIENT LIST lists every client, one line each} {
        set c [redis_client]
        $c client setname listed
        set lines [split [string trim [r client list]] \n]
        set names {}
        foreach l $lines {lappend names [dict get [client_fields $l] name]}
        $c close
        assert_morethan_equal [llength $lines] 2
        assert {[lsearch $names listed] >= 0}
    }

    test {CLIENT LIST ID} {
        set c [redis_client]
        set id [$c client id]
        set out [r client list id $id]
        $c close
        assert_equal 1 [llength [split [string trim $out] \n]]
        dict get [client_fields $out] id
    } {*}

    test {CLIENT LIST ID with several and unknown ids} {
        set id [r client id]
        set out [r client list id $id 999999999]
        llength [split [string trim $out] \n]
    } {1}

    test {CLIENT LIST ID errors} {
        assert_error {ERR Invalid client ID} {r client list id abc}
    }

    test {CLIENT LIST TYPE} {
        assert_match {*cmd=client|list*} [r client list type normal]
        assert_error {ERR Unknown client type 'foo'} {r client list type foo}
        assert_error {ERR syntax error} {r client list foo}
    }

    test {CLIENT KILL ID kills the other connection} {
        set c [redis_client]
        set id [$c client id]
        assert_equal 1 [r client kill id $id]
        assert_conn_closed $c
        $c close
    }

    test {CLIENT KILL ADDR} {
        set c [redis_client]
        set addr [dict get [client_fields [$c client info]] addr]
        assert_equal 1 [r client kill addr $addr]
        assert_conn_closed $c
        $c close
    }

    test {CLIENT KILL old form: address only} {
        set c [redis_client]
        set addr [dict get [client_fields [$c client info]] addr]
        assert_equal OK [r client kill $addr]
        assert_conn_closed $c
        $c close
    }

    test {CLIENT KILL old form: unknown address} {
        assert_error {ERR No such client} {r client kill 1.2.3.4:5}
    }

    test {CLIENT KILL ID of an unknown client returns 0} {
        r client kill id 999999999
    } {0}

    test {CLIENT KILL of myself is skipped by default (SKIPME yes)} {
        set id [r client id]
        list [r client kill id $id] [r ping]
    } {0 PONG}

    test {CLIENT KILL ID myself with SKIPME no} {
        set c [redis_client]
        set id [$c client id]
        $c deferred 1
        $c client kill id $id skipme no
        assert_equal 1 [$c read]
        assert_conn_closed $c
        $c close
    }

    test {CLIENT KILL TYPE normal kills the other normal clients} {
        set c1 [redis_client]
        set c2 [redis_client]
        set n [r client kill type normal]
        assert_conn_closed $c1
        assert_conn_closed $c2
        $c1 close
        $c2 close
        list [expr {$n >= 2}] [r ping]
    } {1 PONG}

    test {CLIENT KILL with several filters (all must match)} {
        set c [redis_client]
        set id [$c client id]
        set a [r client kill id $id type pubsub]
        set b [r client kill id $id type normal]
        assert_conn_closed $c
        $c close
        list $a $b
    } {0 1}

    test {Subcommand arity error} {
        catch {r client setname} e
        set e
    } {ERR wrong number of arguments for 'client|setname' command}

    test {RESET inside MULTI runs at once} {
        set c [redis_client]
        $c multi
        set a [$c reset]
        catch {$c exec} e
        $c close
        list $a $e
    } {RESET {ERR EXEC without MULTI}}

    test {CLIENT KILL syntax errors} {
        assert_error {ERR syntax error} {r client kill id 1 skipme maybe}
        assert_error {ERR syntax error} {r client kill foo bar}
        assert_error {ERR wrong number of arguments for 'client|kill' command} {r client kill}
    }

    test {CLIENT KILL ID with a non numeric id} {
        catch {r client kill id abc} e
        set e
    } {ERR *}

    test {CLIENT REPLY OFF and ON} {
        set c [redis_client]
        $c deferred 1
        $c client reply off
        $c ping
        $c echo notreplied
        $c client reply on
        assert_equal OK [$c read]
        $c ping
        assert_equal PONG [$c read]
        $c close
    }

    test {CLIENT REPLY SKIP skips the next reply only} {
        set c [redis_client]
        $c deferred 1
        $c client reply skip
        $c echo skipped
        $c echo seen
        assert_equal seen [$c read]
        $c close
    }

    test {CLIENT REPLY syntax error} {
        assert_error {ERR syntax error} {r client reply foo}
    }

    test {CLIENT UNBLOCK of a client that is not blocked returns 0} {
        set c [redis_client]
        set id [$c client id]
        set res [r client unblock $id]
        $c close
        set res
    } {0}

    test {CLIENT UNBLOCK errors} {
        assert_error {ERR value is not an integer or out of range} {r client unblock abc}
        assert_error {ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR} {r client unblock 1 foo}
    }

    test {CLIENT UNBLOCK a client blocked in XREAD (TIMEOUT)} {
        r del blockedstream
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams blockedstream $
        wait_for_blocked_client
        assert_equal 1 [r client unblock $id]
        set reply [$rd read]
        $rd close
        set reply
    } {}

    test {CLIENT UNBLOCK a client blocked in XREAD (ERROR)} {
        r del blockedstream
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams blockedstream $
        wait_for_blocked_client
        assert_equal 1 [r client unblock $id error]
        catch {$rd read} e
        $rd close
        set e
    } {UNBLOCKED client unblocked via CLIENT UNBLOCK}

    test {A blocked client shows flags=b and cmd=xread in CLIENT LIST} {
        r del blockedstream
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams blockedstream $
        wait_for_blocked_client
        set f [client_fields [r client list id $id]]
        r client unblock $id
        $rd read
        $rd close
        list [dict get $f flags] [dict get $f cmd]
    } {b xread}

    test {A blocked client that disconnects is no longer blocked} {
        r del blockedstream
        set rd [redis_deferring_client]
        $rd xread block 0 streams blockedstream $
        wait_for_blocked_client
        $rd close
        wait_for_blocked_clients_count 0
        s blocked_clients
    } {0}

    test {CLIENT KILL of a blocked client unblocks it} {
        r del blockedstream
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams blockedstream $
        wait_for_blocked_client
        assert_equal 1 [r client kill id $id]
        assert_conn_closed $rd
        $rd close
        wait_for_blocked_clients_count 0
        s blocked_clients
    } {0}

    test {connected_clients goes down when a client disconnects} {
        set before [s connected_clients]
        set c [redis_client]
        assert_equal [expr {$before + 1}] [s connected_clients]
        $c close
        wait_for_condition 100 10 {
            [s connected_clients] == $before
        } else {
            fail "connected_clients stayed at [s connected_clients]"
        }
    }

    test {CLIENT NO-EVICT} {
        list [r client no-evict on] [r client no-evict off]
    } {OK OK}

    test {CLIENT NO-EVICT syntax error} {
        catch {r client no-evict maybe} e
        set e
    } {ERR syntax error}

    test {SELECT inside MULTI applies at EXEC} {
        r select 9
        r multi
        r select 10
        r ping
        r exec
        set db [dict get [client_fields [r client info]] db]
        r select 9
        set db
    } {10}

    test {HELLO 3 shows resp=3 in CLIENT INFO} {
        set c [redis_client]
        $c hello 3
        set f [client_fields [$c client info]]
        $c close
        dict get $f resp
    } {3}

    test {CLIENT unknown subcommand} {
        catch {r client foo} e
        set e
    } {ERR unknown subcommand 'foo'. Try CLIENT HELP.}

    test {CLIENT HELP} {
        set help [r client help]
        assert_match {CLIENT <subcommand> *} [lindex $help 0]
        llength $help
    } {*}

    # CLIENT SETINFO is new in Redis 7.2.
    test {CLIENT SETINFO lib-name and lib-ver show in CLIENT INFO} {
        set c [redis_client]
        assert_equal OK [$c client setinfo lib-name mylib]
        assert_equal OK [$c client setinfo LIB-VER 1.2.3]
        set f [client_fields [$c client info]]
        $c close
        list [dict get $f lib-name] [dict get $f lib-ver]
    } {mylib 1.2.3} {redis7.2}

    # Redis 7.2: lib-name/lib-ver survive RESET.
    test {CLIENT SETINFO attributes are not cleared by RESET} {
        set c [redis_client]
        $c client setinfo lib-name keptlib
        $c reset
        set f [client_fields [$c client info]]
        $c close
        dict get $f lib-name
    } {keptlib} {redis7.2}

    # Redis 7.2: CLIENT SETINFO validation.
    test {CLIENT SETINFO errors} {
        assert_error {ERR*foo*} {r client setinfo foo bar}
        assert_error {ERR*cannot contain spaces*} {r client setinfo lib-name "a b"}
        assert_error {ERR wrong number of arguments for 'client|setinfo' command} {r client setinfo lib-name}
    } {} {redis7.2}

    # Redis 7.2: CLIENT INFO/LIST always carry lib-name= and lib-ver=.
    test {CLIENT INFO has empty lib-name and lib-ver by default} {
        set c [redis_client]
        set f [client_fields [$c client info]]
        $c close
        list [dict exists $f lib-name] [dict get $f lib-name] [dict exists $f lib-ver]
    } {1 {} 1} {redis7.2}
}

start_server {tags {"connection" "auth"}} {
    test {AUTH without a configured password} {
        catch {r auth foo} e
        set e
    } {ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?}

    test {AUTH with an unknown user without a configured password} {
        catch {r auth nobody foo} e
        set e
    } {WRONGPASS invalid username-password pair or user is disabled.}

    test {AUTH default <anything> without a configured password (nopass user)} {
        r auth default whatever
    } {OK}
}

start_server {tags {"connection" "auth"} overrides {requirepass foobar}} {
    test {Commands need AUTH: NOAUTH} {
        catch {r ping} e
        set e
    } {NOAUTH Authentication required.}

    test {NOAUTH for any command, even unknown ones} {
        set res {}
        foreach cmd {{select 1} {client id} {xlen s}} {
            catch {r {*}$cmd} e
            lappend res $e
        }
        set res
    } {{NOAUTH Authentication required.} {NOAUTH Authentication required.} {NOAUTH Authentication required.}}

    test {AUTH with a wrong password} {
        catch {r auth wrong!} e
        set e
    } {WRONGPASS invalid username-password pair or user is disabled.}

    test {AUTH with a wrong user} {
        catch {r auth nobody foobar} e
        set e
    } {WRONGPASS invalid username-password pair or user is disabled.}

    test {AUTH arity and syntax} {
        assert_error {ERR wrong number of arguments for 'auth' command} {r auth}
        assert_error {ERR syntax error} {r auth a b c}
    }

    test {AUTH with the right password} {
        list [r auth foobar] [r ping]
    } {OK PONG}

    test {AUTH default <password>} {
        set c [redis_client]
        set res [list [$c auth default foobar] [$c ping]]
        $c close
        set res
    } {OK PONG}

    test {QUIT works without AUTH} {
        set c [redis_client]
        set res [$c quit]
        $c close
        set res
    } {OK}

    test {HELLO without AUTH is refused} {
        set c [redis_client]
        catch {$c hello 3} e
        $c close
        set e
    } {NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO *AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time}

    # Redis 7.2 (PR #11809) added "<proto>" to the suggested syntax.
    test {HELLO without AUTH: 7.2 error text} {
        set c [redis_client]
        catch {$c hello} e
        $c close
        set e
    } {NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time} {redis7.2}

    test {HELLO AUTH with a wrong password} {
        set c [redis_client]
        catch {$c hello 2 auth default wrong} e
        $c close
        set e
    } {WRONGPASS invalid username-password pair or user is disabled.}

    test {HELLO 3 AUTH SETNAME authenticates, switches protocol and names} {
        set c [redis_client]
        set h [$c hello 3 auth default foobar setname helloname]
        set res [list [dict get $h proto] [$c client getname] [$c ping]]
        $c close
        set res
    } {3 helloname PONG}

    test {RESET makes the client unauthenticated again} {
        set c [redis_client]
        $c auth foobar
        assert_equal PONG [$c ping]
        $c reset
        catch {$c ping} e
        $c close
        set e
    } {NOAUTH Authentication required.}
}

start_server {tags {"connection" "hello"}} {
    test {HELLO without arguments: RESP2 map as a flat array} {
        set h [r hello]
        list [dict get $h server] [dict get $h proto] [dict get $h id] [dict get $h mode] \
            [dict get $h role] [dict get $h modules] [llength $h]
    } "redis 2 [r client id] standalone master {} 14"

    test {HELLO reports a 7.x version} {
        dict get [r hello] version
    } {7.*}

    test {HELLO 3 replies with a RESP3 map} {
        set c [redis_client]
        $c readraw 1
        set first [$c hello 3]
        $c close
        set first
    } {%7}

    test {HELLO 3 switches the connection to RESP3} {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set a [$c client getname]
        $c close
        set a
    } {_}

    test {HELLO 2 switches back to RESP2} {
        set c [redis_client]
        $c hello 3
        $c hello 2
        $c readraw 1
        set a [$c client getname]
        $c close
        set a
    } {$-1}

    test {HELLO with an unsupported protocol version} {
        set res {}
        foreach v {1 4 0 -1} {
            catch {r hello $v} e
            lappend res $e
        }
        set res
    } {{NOPROTO unsupported protocol version} {NOPROTO unsupported protocol version} {NOPROTO unsupported protocol version} {NOPROTO unsupported protocol version}}

    test {HELLO with a non integer protocol version} {
        catch {r hello abc} e
        set e
    } {ERR Protocol version is not an integer or out of range}

    test {HELLO option syntax errors} {
        set res {}
        foreach args {{3 setname} {3 auth default} {3 foo} {2 AUTH default x SETNAME}} {
            catch {r hello {*}$args} e
            lappend res $e
        }
        set res
    } {{ERR Syntax error in HELLO option 'setname'} {ERR Syntax error in HELLO option 'auth'} {ERR Syntax error in HELLO option 'foo'} {ERR Syntax error in HELLO option 'SETNAME'}}

    test {HELLO SETNAME with a bad name} {
        set c [redis_client]
        catch {$c hello 3 setname "a b"} e
        set name [$c client getname]
        $c close
        list $e $name
    } {{ERR Client names cannot contain spaces, newlines or special characters.} {}}

    test {HELLO SETNAME names the connection} {
        set c [redis_client]
        $c hello 2 setname viahello
        set n [$c client getname]
        $c close
        set n
    } {viahello}

    test {HELLO 2 AUTH without requirepass: any password of the nopass default user} {
        set c [redis_client]
        set h [$c hello 2 auth default whatever]
        $c close
        dict get $h proto
    } {2}
}

start_server {tags {"connection" "external:skip"}} {
    test {maxclients: one client too many gets an error and is closed} {
        set n [s connected_clients]
        r config set maxclients [expr {$n + 1}]
        set c2 [redis_client]
        set c3 [redis [srv host] [srv port]]
        $c3 readraw 1
        # The error is sent at accept time, before any command.
        set rc [catch {$c3 read} line]
        catch {assert_conn_closed $c3}
        $c3 close
        $c2 close
        r config set maxclients 10000
        set line
    } {-ERR max number of clients reached}

    test {timeout: idle clients are disconnected} {
        r config set timeout 1
        set c [redis_client]
        $c ping
        # Wait for EOF without sending anything (that would reset idle).
        $c timeout 100
        wait_for_condition 50 1 {
            [catch {$c read} e] && [string match "*connection closed*" $e]
        } else {
            fail "idle client was not disconnected ($e)"
        }
        $c close
        # The default client was idle as well.
        r reconnect
        r select 9
        r config set timeout 0
        r ping
    } {PONG}
}

# Protected mode (Redis's clientAcceptHandler): on by default; with no
# password for the default user, clients that are not on the loopback
# interface get -DENIED at accept time and are disconnected. The server
# listens on every interface and a client connects to this machine's own
# non-loopback address (its source address is then that address too).
proc non_loopback_ipv4 {} {
    if {[catch {exec hostname -I} out]} {return ""}
    foreach a [split [string trim $out]] {
        if {[regexp {^\d+\.\d+\.\d+\.\d+$} $a] && ![string match 127.* $a]} {return $a}
    }
    return ""
}

start_server {tags {"connection protected-mode"} overrides {bind 0.0.0.0}} {
    set ext_ip [non_loopback_ipv4]
    set saved_skip $::th::skip_reason
    if {$ext_ip eq ""} {set ::th::skip_reason "this machine has no non-loopback IPv4 address"}

    proc ext_client_first_line {ip} {
        set c [redis $ip [srv port]]
        $c readraw 1
        $c write "PING\r\n"
        $c flush
        set rc [catch {$c read} line]
        $c close
        return $line
    }

    test {protected-mode: CONFIG GET reports yes by default} {
        r config get protected-mode
    } {protected-mode yes}

    test {protected-mode: a non-loopback client gets DENIED and is disconnected} {
        set before [s rejected_connections]
        set c [redis $ext_ip [srv port]]
        $c readraw 1
        set rc [catch {$c read} line]
        catch {assert_conn_closed $c}
        $c close
        assert_match {-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so.*} $line
        assert_equal [expr {$before + 1}] [s rejected_connections]
        r ping
    } {PONG}

    test {protected-mode: CONFIG SET protected-mode no lets the client in} {
        r config set protected-mode no
        set line [ext_client_first_line $ext_ip]
        r config set protected-mode yes
        list $line [r config get protected-mode]
    } {+PONG {protected-mode yes}}

    test {protected-mode: a password set for the default user lets the client in (to authenticate)} {
        r config set requirepass secret
        set c [redis $ext_ip [srv port]]
        set e [catch {$c ping} err]
        set ok [$c auth secret]
        set p [$c ping]
        $c close
        r auth secret
        r config set requirepass ""
        list $err $ok $p
    } {{NOAUTH Authentication required.} OK PONG}

    set ::th::skip_reason $saved_skip
}

# CVE-2025-21605 (Redis >= 7.2.8): a client that never authenticates may not
# make the server hold its unread replies; it is disconnected instead.
start_server {tags {"connection" "redis7.2"} overrides {requirepass secret}} {
    r auth secret

    test {An unauthenticated client flooding commands without reading is disconnected} {
        set before [s client_output_buffer_limit_disconnections]
        set mem_before [s used_memory]
        set rd [redis_deferring_client]
        set chunk [string repeat "PING\r\n" 10000]
        catch {
            for {set i 0} {$i < 100} {incr i} {
                $rd write $chunk
                $rd flush
            }
        }
        wait_for_condition 100 50 {
            [s client_output_buffer_limit_disconnections] > $before
        } else {
            fail "the unauthenticated client was not disconnected"
        }
        catch {$rd close}
        wait_for_condition 100 50 {
            [s connected_clients] == 1
        } else {
            fail "the unauthenticated client is still connected"
        }
        # What it sent and what it was answered are not kept.
        assert_lessthan [s used_memory] [expr {$mem_before + 4*1024*1024}]
        r ping
    } {PONG}

    test {An authenticated client may pipeline many commands without the limit} {
        set rd [redis_deferring_client]
        $rd auth secret
        assert_equal OK [$rd read]
        $rd write [string repeat "PING\r\n" 5000]
        $rd flush
        set n 0
        for {set i 0} {$i < 5000} {incr i} {
            if {[$rd read] eq "PONG"} {incr n}
        }
        $rd close
        set n
    } {5000}
}

start_server {tags {"connection"}} {
    test {timeout: an idle client with unread replies is disconnected} {
        r xadd bigval * f [string repeat x 1000000]
        r config set timeout 1
        set rd [redis_deferring_client]
        # 20 MB of replies it never reads: more than the socket buffers hold.
        for {set i 0} {$i < 20} {incr i} {$rd xrange bigval - +}
        $rd flush
        wait_for_condition 100 100 {
            [s connected_clients] == 1
        } else {
            fail "the idle client with unread replies was not disconnected"
        }
        catch {$rd close}
        r config set timeout 0
        r ping
    } {PONG}

    test {timeout: Pub/Sub clients are not disconnected when idle} {
        r config set timeout 1
        set rd [redis_deferring_client]
        $rd subscribe somechannel
        $rd read
        after 2500
        # The main client was idle too and is gone: ask from a new one.
        set c [redis_client]
        set n [status $c connected_clients]
        $c config set timeout 0
        $c close
        catch {$rd close}
        r reconnect
        r select 9
        set n
    } {2}
}
