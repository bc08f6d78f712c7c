# Shard channels: SSUBSCRIBE SUNSUBSCRIBE SPUBLISH, PUBSUB SHARDCHANNELS
# and SHARDNUMSUB, on a server that is not a cluster (a name space of
# their own). Every test must pass against redis-server too, except those
# tagged redis7.2.

source [file join [file dirname [info script]] .. support pubsub_util.tcl]

start_server {tags {"pubsubshard"}} {
    test {SPUBLISH/SSUBSCRIBE basics} {
        set rd1 [redis_deferring_client]
        assert_equal {1 2} [ssubscribe $rd1 {chan1 chan2}]
        assert_equal 1 [r spublish chan1 hello]
        assert_equal 1 [r spublish chan2 world]
        assert_equal {smessage chan1 hello} [$rd1 read]
        assert_equal {smessage chan2 world} [$rd1 read]
        # shard channels and channels are separate
        assert_equal 0 [r publish chan1 hello]
        sunsubscribe $rd1 {chan1}
        assert_equal 0 [r spublish chan1 hello]
        assert_equal 1 [r spublish chan2 world]
        assert_equal {smessage chan2 world} [$rd1 read]
        sunsubscribe $rd1 {chan2}
        assert_equal 0 [r spublish chan2 world]
        $rd1 close
    }

    test {SSUBSCRIBE counts only shard subscriptions} {
        set rd1 [redis_deferring_client]
        subscribe $rd1 {a b}
        assert_equal {1} [ssubscribe $rd1 {s}]
        assert_equal {0} [sunsubscribe $rd1 {s}]
        $rd1 close
    }

    test {SUNSUBSCRIBE without arguments and without subscriptions} {
        r sunsubscribe
    } {sunsubscribe {} 0}

    test {PUBSUB SHARDCHANNELS and SHARDNUMSUB} {
        set rd1 [redis_deferring_client]
        ssubscribe $rd1 {sh.one sh.two}
        set chans [lsort [r pubsub shardchannels sh.*]]
        set numsub [r pubsub shardnumsub sh.one sh.none]
        $rd1 close
        list $chans $numsub
    } {{sh.one sh.two} {sh.one 1 sh.none 0}}

    test {COMMAND GETKEYS: shard channels are not keys outside a cluster} {
        assert_error {ERR The command has no key arguments} {r command getkeys ssubscribe a b}
        assert_error {ERR The command has no key arguments} {r command getkeys spublish ch msg}
        assert_error {ERR The command has no key arguments} {r command getkeys publish ch msg}
    }

    test {SSUBSCRIBE is refused inside MULTI/EXEC} {
        r multi
        r ssubscribe x
        assert_error {ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client} {r exec}
    } {} {redis7.2}

    test {SPUBLISH/SSUBSCRIBE after UNSUBSCRIBE without arguments} {
        set rd1 [redis_deferring_client]
        assert_equal {1 2 3} [ssubscribe $rd1 {chan1 chan2 chan3}]
        $rd1 sunsubscribe
        for {set i 0} {$i < 3} {incr i} { assert_equal sunsubscribe [lindex [$rd1 read] 0] }
        assert_equal 0 [r spublish chan1 hello]
        assert_equal 0 [r spublish chan2 hello]
        assert_equal 0 [r spublish chan3 hello]
        $rd1 close
    }

    test {SSUBSCRIBE to one channel more than once} {
        set rd1 [redis_deferring_client]
        assert_equal {1 1 1} [ssubscribe $rd1 {chan1 chan1 chan1}]
        assert_equal 1 [r spublish chan1 hello]
        assert_equal {smessage chan1 hello} [$rd1 read]
        $rd1 close
    }

    test {SUNSUBSCRIBE from non-subscribed channels} {
        set rd1 [redis_deferring_client]
        assert_equal {0 0 0} [sunsubscribe $rd1 {foo bar quux}]
        $rd1 close
    }

    test {SPUBLISH/SSUBSCRIBE with two clients} {
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        assert_equal {1} [ssubscribe $rd1 {chan1}]
        assert_equal {1} [ssubscribe $rd2 {chan1}]
        assert_equal 2 [r spublish chan1 hello]
        assert_equal {smessage chan1 hello} [$rd1 read]
        assert_equal {smessage chan1 hello} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test {SPUBLISH/SSUBSCRIBE with PUBLISH/SUBSCRIBE} {
        set rd1 [redis_deferring_client]
        assert_equal {1} [ssubscribe $rd1 {chan1}]
        assert_equal {1} [subscribe $rd1 {chan1}]
        assert_equal 1 [r spublish chan1 hello]
        assert_equal 1 [r publish chan1 hello]
        assert_equal {smessage chan1 hello} [$rd1 read]
        assert_equal {message chan1 hello} [$rd1 read]
        $rd1 close
    }

    test {A pattern does not match shard channels} {
        set rd1 [redis_deferring_client]
        psubscribe $rd1 {*}
        assert_equal 0 [r spublish chan1 hello]
        $rd1 close
    }

    test {The RESP2 subscribed context holds with shard subscriptions only} {
        set rd1 [redis_deferring_client]
        ssubscribe $rd1 {ctx}
        $rd1 dbsize
        assert_error {ERR Can't execute 'dbsize'*} {$rd1 read}
        $rd1 ping
        assert_equal {pong {}} [$rd1 read]
        $rd1 close
    }

    test {RESP3: smessage is a push} {
        set rd1 [redis_deferring_client]
        $rd1 hello 3
        $rd1 read
        $rd1 ssubscribe r3
        $rd1 read
        r spublish r3 m
        $rd1 readraw 1
        set head [$rd1 read]
        $rd1 readraw 0
        $rd1 close
        set head
    } {>3}

    test {SPUBLISH errors} {
        assert_error {ERR wrong number of arguments for 'spublish' command} {r spublish onlychan}
        assert_error {ERR wrong number of arguments for 'ssubscribe' command} {r ssubscribe}
        r pubsub shardnumsub
    } {}

    test {PUBSUB SHARDCHANNELS without a pattern and with many arguments} {
        set rd1 [redis_deferring_client]
        ssubscribe $rd1 {all.one}
        set res [lsearch [r pubsub shardchannels] all.one]
        assert_error {ERR unknown subcommand or wrong number of arguments for 'shardchannels'*} {r pubsub shardchannels a b}
        $rd1 close
        expr {$res >= 0}
    } {1}
}
