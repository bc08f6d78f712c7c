# pubsub_util.tcl -- helpers shared by the pub/sub test files
# (tcl-tests/unit/pubsub.tcl, pubsubshard.tcl). Sourced by those files:
#
#   source [file join [file dirname [info script]] .. support pubsub_util.tcl]
#
# (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE on a deferring client, reading the
# confirmations; each returns the subscription counts they reported. With
# no channels, the UNSUBSCRIBE forms read nothing (the replies' number is
# not known in advance).

proc __consume_subscribe_messages {client type channels} {
    set numsub -1
    set counts {}
    for {set i [llength $channels]} {$i > 0} {incr i -1} {
        set msg [$client read]
        assert_equal $type [lindex $msg 0]
        # when receiving subscribe messages the channels names
        # are ordered. when receiving unsubscribe messages
        # they are unordered
        if {[string match "*un*" $type]} {
            set idx [lsearch -exact $channels [lindex $msg 1]]
            set channels [lreplace $channels $idx $idx]
        } else {
            assert_equal [lindex $channels 0] [lindex $msg 1]
            set channels [lrange $channels 1 end]
        }
        lappend counts [lindex $msg 2]
    }
    return $counts
}

proc subscribe {client channels} {
    $client subscribe {*}$channels
    __consume_subscribe_messages $client subscribe $channels
}

proc ssubscribe {client channels} {
    $client ssubscribe {*}$channels
    __consume_subscribe_messages $client ssubscribe $channels
}

proc unsubscribe {client {channels {}}} {
    $client unsubscribe {*}$channels
    __consume_subscribe_messages $client unsubscribe $channels
}

proc sunsubscribe {client {channels {}}} {
    $client sunsubscribe {*}$channels
    __consume_subscribe_messages $client sunsubscribe $channels
}

proc psubscribe {client channels} {
    $client psubscribe {*}$channels
    __consume_subscribe_messages $client psubscribe $channels
}

proc punsubscribe {client {channels {}}} {
    $client punsubscribe {*}$channels
    __consume_subscribe_messages $client punsubscribe $channels
}
