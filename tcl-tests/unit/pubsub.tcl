# Pub/sub: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH, PUBSUB,
# the RESP2 subscribed context, RESP3 push messages (the shard channels
# are in pubsubshard.tcl). Every test must pass against
# redis-server too, except those tagged redis7.2 or casq-only.

source [file join [file dirname [info script]] .. support pubsub_util.tcl]

start_server {tags {"pubsub"}} {

    # --------------------------------------------------------------------
    # SUBSCRIBE, UNSUBSCRIBE, PUBLISH
    # --------------------------------------------------------------------

    test {PUBLISH/SUBSCRIBE basics} {
        set rd1 [redis_deferring_client]

        # subscribe to two channels
        assert_equal {1 2} [subscribe $rd1 {chan1 chan2}]
        assert_equal 1 [r publish chan1 hello]
        assert_equal 1 [r publish chan2 world]
        assert_equal {message chan1 hello} [$rd1 read]
        assert_equal {message chan2 world} [$rd1 read]

        # unsubscribe from one of the channels
        unsubscribe $rd1 {chan1}
        assert_equal 0 [r publish chan1 hello]
        assert_equal 1 [r publish chan2 world]
        assert_equal {message chan2 world} [$rd1 read]

        # unsubscribe from the remaining channel
        unsubscribe $rd1 {chan2}
        assert_equal 0 [r publish chan1 hello]
        assert_equal 0 [r publish chan2 world]

        # clean up clients
        $rd1 close
    }

    test {PUBLISH/SUBSCRIBE after UNSUBSCRIBE without arguments} {
        set rd1 [redis_deferring_client]
        assert_equal {1 2 3} [subscribe $rd1 {chan1 chan2 chan3}]
        unsubscribe $rd1
        assert_equal 0 [r publish chan1 hello]
        assert_equal 0 [r publish chan2 hello]
        assert_equal 0 [r publish chan3 hello]
        $rd1 close
    }

    test {SUBSCRIBE to one channel more than once} {
        set rd1 [redis_deferring_client]
        assert_equal {1 1 1} [subscribe $rd1 {chan1 chan1 chan1}]
        assert_equal 1 [r publish chan1 hello]
        assert_equal {message chan1 hello} [$rd1 read]
        $rd1 close
    }

    test {UNSUBSCRIBE from non-subscribed channels} {
        set rd1 [redis_deferring_client]
        assert_equal {0 0 0} [unsubscribe $rd1 {foo bar quux}]
        $rd1 close
    }

    test {UNSUBSCRIBE without arguments and without subscriptions} {
        set rd1 [redis_deferring_client]
        $rd1 unsubscribe
        set reply [$rd1 read]
        $rd1 close
        set reply
    } {unsubscribe {} 0}

    test {PUBLISH with several subscribers counts them all} {
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        subscribe $rd1 {news}
        subscribe $rd2 {news}
        assert_equal 2 [r publish news flash]
        assert_equal {message news flash} [$rd1 read]
        assert_equal {message news flash} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test {Binary-safe channel names and messages} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 [list "ch\x00\xff"]
        assert_equal 1 [r publish "ch\x00\xff" "m\r\n\x00"]
        assert_equal [list message "ch\x00\xff" "m\r\n\x00"] [$rd1 read]
        $rd1 close
    }

    test {A closed subscriber is unsubscribed} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {gone}
        assert_equal {gone 1} [r pubsub numsub gone]
        $rd1 close
        wait_for_condition 50 20 {[r pubsub numsub gone] eq {gone 0}} else {
            fail "the closed client is still subscribed"
        }
        r publish gone x
    } {0}

    # --------------------------------------------------------------------
    # PSUBSCRIBE, PUNSUBSCRIBE
    # --------------------------------------------------------------------

    test {PUBLISH/PSUBSCRIBE basics} {
        set rd1 [redis_deferring_client]

        # subscribe to two patterns
        assert_equal {1 2} [psubscribe $rd1 {foo.* bar.*}]
        assert_equal 1 [r publish foo.1 hello]
        assert_equal 1 [r publish bar.1 hello]
        assert_equal 0 [r publish foo1 hello]
        assert_equal 0 [r publish barfoo.1 hello]
        assert_equal 0 [r publish qux.1 hello]
        assert_equal {pmessage foo.* foo.1 hello} [$rd1 read]
        assert_equal {pmessage bar.* bar.1 hello} [$rd1 read]

        # unsubscribe from one of the patterns
        assert_equal {1} [punsubscribe $rd1 {foo.*}]
        assert_equal 0 [r publish foo.1 hello]
        assert_equal 1 [r publish bar.1 hello]
        assert_equal {pmessage bar.* bar.1 hello} [$rd1 read]

        # unsubscribe from the remaining pattern
        assert_equal {0} [punsubscribe $rd1 {bar.*}]
        assert_equal 0 [r publish foo.1 hello]
        assert_equal 0 [r publish bar.1 hello]

        $rd1 close
    }

    test {PUBLISH/PSUBSCRIBE after PUNSUBSCRIBE without arguments} {
        set rd1 [redis_deferring_client]
        assert_equal {1 2 3} [psubscribe $rd1 {chan1.* chan2.* chan3.*}]
        punsubscribe $rd1
        assert_equal 0 [r publish chan1.hi hello]
        assert_equal 0 [r publish chan2.hi hello]
        assert_equal 0 [r publish chan3.hi hello]
        $rd1 close
    }

    test {PUNSUBSCRIBE from non-subscribed channels} {
        set rd1 [redis_deferring_client]
        assert_equal {0 0 0} [punsubscribe $rd1 {foo.* bar.* quux.*}]
        $rd1 close
    }

    test {NUMPATs returns the number of unique patterns} {
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]

        # Three unique patterns and one that overlaps
        psubscribe $rd1 "foo*"
        psubscribe $rd2 "foo*"
        psubscribe $rd1 "bar*"
        psubscribe $rd2 "baz*"

        set patterns [r pubsub numpat]

        # clean up clients
        punsubscribe $rd1
        punsubscribe $rd2
        assert_equal 3 $patterns
        $rd1 close
        $rd2 close
    }

    test {Mix SUBSCRIBE and PSUBSCRIBE} {
        set rd1 [redis_deferring_client]
        assert_equal {1} [subscribe $rd1 {foo.bar}]
        assert_equal {2} [psubscribe $rd1 {foo.*}]

        assert_equal 2 [r publish foo.bar hello]
        assert_equal {message foo.bar hello} [$rd1 read]
        assert_equal {pmessage foo.* foo.bar hello} [$rd1 read]

        $rd1 close
    }

    test {PUNSUBSCRIBE and UNSUBSCRIBE should always reply} {
        # Make sure we are not subscribed to any channel at all.
        r punsubscribe
        r unsubscribe
        # Now check if the commands still reply correctly.
        set reply1 [r punsubscribe]
        set reply2 [r unsubscribe]
        concat $reply1 $reply2
    } {punsubscribe {} 0 unsubscribe {} 0}

    # --------------------------------------------------------------------
    # The RESP2 subscribed context
    # --------------------------------------------------------------------

    test {Only allowed commands run in the RESP2 subscribed context} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {ctx}
        $rd1 dbsize
        assert_error {ERR Can't execute 'dbsize': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} {$rd1 read}
        $rd1 config get maxmemory
        assert_error {ERR Can't execute 'config|get': only (P|S)SUBSCRIBE*} {$rd1 read}
        $rd1 sadd x y
        assert_error {ERR Can't execute 'sadd'*} {$rd1 read}
        # an unknown command is still unknown
        $rd1 notacommand
        assert_error {ERR unknown command*} {$rd1 read}
        $rd1 close
    }

    test {PING in the RESP2 subscribed context} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {somechannel}
        $rd1 ping
        assert_equal {pong {}} [$rd1 read]
        $rd1 ping hello
        assert_equal {pong hello} [$rd1 read]
        unsubscribe $rd1 {somechannel}
        # not subscribed any more: a plain PONG
        $rd1 ping
        assert_equal {PONG} [$rd1 read]
        $rd1 close
    }

    test {After UNSUBSCRIBE from everything, any command runs again} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {a}
        psubscribe $rd1 {b*}
        $rd1 unsubscribe
        assert_equal {unsubscribe a 1} [$rd1 read]
        $rd1 dbsize
        assert_error {ERR Can't execute*} {$rd1 read}
        $rd1 punsubscribe
        assert_equal {punsubscribe b* 0} [$rd1 read]
        $rd1 echo back
        set r [$rd1 read]
        $rd1 close
        set r
    } {back}

    test {RESET leaves the subscribed context} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {resetchan}
        psubscribe $rd1 {resetpat*}
        $rd1 reset
        assert_equal {RESET} [$rd1 read]
        $rd1 echo ok
        assert_equal {ok} [$rd1 read]
        assert_equal 0 [r publish resetchan x]
        assert_equal 0 [r publish resetpat1 x]
        $rd1 close
    }

    test {QUIT in the subscribed context} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {quitchan}
        $rd1 quit
        assert_equal {OK} [$rd1 read]
        assert_conn_closed $rd1
    }

    test {SUBSCRIBE inside MULTI/EXEC} {
        set rd1 [redis_deferring_client]
        $rd1 multi
        $rd1 read
        $rd1 subscribe txchan
        assert_equal QUEUED [$rd1 read]
        $rd1 exec
        assert_equal {{subscribe txchan 1}} [$rd1 read]
        assert_equal 1 [r publish txchan m]
        assert_equal {message txchan m} [$rd1 read]
        $rd1 close
    }

    test {CLIENT LIST shows the subscriptions} {
        set rd1 [redis_deferring_client]
        $rd1 client setname subber
        $rd1 read
        subscribe $rd1 {c1 c2}
        psubscribe $rd1 {p*}
        set line ""
        foreach l [split [r client list] "\n"] {
            if {[string match "*name=subber *" $l]} { set line $l }
        }
        set f [client_fields $line]
        $rd1 close
        list [dict get $f flags] [dict get $f sub] [dict get $f psub] [dict get $f ssub]
    } {P 2 1 0}

    test {CLIENT LIST TYPE pubsub / normal and CLIENT KILL TYPE pubsub} {
        set rd1 [redis_deferring_client]
        $rd1 client setname typesub
        $rd1 read
        subscribe $rd1 {typechan}
        set in_pubsub [string match "*name=typesub *" [r client list type pubsub]]
        set in_normal [string match "*name=typesub *" [r client list type normal]]
        set killed [r client kill type pubsub]
        assert_conn_closed $rd1
        list $in_pubsub $in_normal $killed [r pubsub numsub typechan]
    } {1 0 1 {typechan 0}}

    test {A subscriber over the pubsub output buffer limit is disconnected} {
        r config set client-output-buffer-limit {pubsub 100000 0 0}
        set rd1 [redis_deferring_client]
        subscribe $rd1 {slowchan}
        set payload [string repeat x 50000]
        set sent 0
        while {$sent < 2000} {
            if {[r publish slowchan $payload] == 0} break
            incr sent
        }
        r config set client-output-buffer-limit {pubsub 32mb 8mb 60}
        $rd1 close
        assert_range $sent 1 1999
        r publish slowchan x
    } {0}

    test {INFO pubsub_channels and pubsub_patterns} {
        set rd1 [redis_deferring_client]
        set before_c [s pubsub_channels]
        set before_p [s pubsub_patterns]
        subscribe $rd1 {infochan1 infochan2}
        psubscribe $rd1 {infopat*}
        set res [list [expr {[s pubsub_channels] - $before_c}] [expr {[s pubsub_patterns] - $before_p}]]
        $rd1 close
        set res
    } {2 1}

    # --------------------------------------------------------------------
    # PUBSUB
    # --------------------------------------------------------------------

    test {PUBSUB CHANNELS and NUMSUB} {
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        subscribe $rd1 {news.tech news.art}
        subscribe $rd2 {news.tech}
        psubscribe $rd2 {news.*}
        set chans [lsort [r pubsub channels news.*]]
        set all [lsort [r pubsub channels]]
        set none [r pubsub channels nomatch*]
        set numsub [r pubsub numsub news.tech news.art news.none]
        set empty [r pubsub numsub]
        $rd1 close
        $rd2 close
        assert {[lsearch $all news.tech] >= 0}
        list $chans $none $numsub $empty
    } {{news.art news.tech} {} {news.tech 2 news.art 1 news.none 0} {}}

    test {PUBSUB errors and HELP} {
        assert_error {ERR unknown subcommand 'foo'*} {r pubsub foo}
        assert_error {ERR wrong number of arguments for 'pubsub|numpat' command} {r pubsub numpat x}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'channels'*} {r pubsub channels a b}
        assert_error {ERR wrong number of arguments for 'pubsub' command} {r pubsub}
        assert_error {ERR wrong number of arguments for 'publish' command} {r publish onlychan}
        assert_error {ERR wrong number of arguments for 'subscribe' command} {r subscribe}
        assert_match {*NUMPAT*} [r pubsub help]
    }

    test {PUBSUB HELP text} {
        # (the last line, HELP's own, is worded differently before 7.2)
        lrange [r pubsub help] 0 end-2
    } {{PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} {CHANNELS [<pattern>]} {    Return the currently active channels matching a <pattern> (default: '*').} NUMPAT {    Return number of subscriptions to patterns.} {NUMSUB [<channel> ...]} {    Return the number of subscribers for the specified channels, excluding} {    pattern subscriptions(default: no channels).} {SHARDCHANNELS [<pattern>]} {    Return the currently active shard level channels matching a <pattern> (default: '*').} {SHARDNUMSUB [<shardchannel> ...]} {    Return the number of subscribers for the specified shard level channel(s)}}

    # --------------------------------------------------------------------
    # RESP3
    # --------------------------------------------------------------------

    test {RESP3: confirmations and messages are push messages, any command runs} {
        set rd1 [redis_deferring_client]
        $rd1 hello 3
        $rd1 read
        $rd1 readraw 1
        $rd1 subscribe r3chan
        assert_equal {>3} [$rd1 read]
        assert_equal {$9} [$rd1 read]
        assert_equal {subscribe} [$rd1 read]
        $rd1 read
        $rd1 read
        assert_equal {:1} [$rd1 read]
        $rd1 readraw 0
        # a RESP3 client may run anything while subscribed
        $rd1 ping
        assert_equal {PONG} [$rd1 read]
        $rd1 dbsize
        $rd1 read
        assert_equal 1 [r publish r3chan hi]
        $rd1 readraw 1
        assert_equal {>3} [$rd1 read]
        $rd1 readraw 0
        $rd1 close
    }

    test {RESP3: a client gets its own message before PUBLISH's reply} {
        set rd1 [redis_deferring_client]
        $rd1 hello 3
        $rd1 read
        $rd1 subscribe self
        $rd1 read
        $rd1 publish self hello
        set msg [$rd1 read]
        set count [$rd1 read]
        $rd1 close
        list $msg $count
    } {{message self hello} 1}

    test {RESP3: UNSUBSCRIBE without subscriptions replies a push with a null} {
        set rd1 [redis_deferring_client]
        $rd1 hello 3
        $rd1 read
        $rd1 readraw 1
        $rd1 unsubscribe
        set res [list [$rd1 read] [$rd1 read] [$rd1 read] [$rd1 read] [$rd1 read]]
        $rd1 close
        set res
    } {>3 {$11} unsubscribe _ :0}

    test {Messages reach a client in CLIENT REPLY OFF} {
        # Redis 7.2: push messages bypass CLIENT REPLY OFF
        set rd1 [redis_deferring_client]
        $rd1 hello 3
        $rd1 read
        $rd1 client reply off
        $rd1 subscribe quiet
        assert_equal {subscribe quiet 1} [$rd1 read]
        r publish quiet m
        assert_equal {message quiet m} [$rd1 read]
        $rd1 close
    } {} {redis7.2}

    # --------------------------------------------------------------------
    # casq: pub/sub is not state
    # --------------------------------------------------------------------

    test {Subscriptions are not state: a restart drops them, the document has none} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {durable_chan}
        r sadd marker{t} 1
        set doc [glob -nocomplain -directory [srv dir] *.json]
        assert {[llength $doc] >= 1}
        set fh [open [lindex $doc 0] rb]
        set text [read $fh]
        close $fh
        assert_equal -1 [string first durable_chan $text]
        $rd1 close
        restart_server 0 kill
        list [r pubsub numsub durable_chan] [r smembers marker{t}]
    } {{durable_chan 0} 1} {needs:persistence casq-only}
}
