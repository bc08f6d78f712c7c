# Arguments at the edges of the 64-bit range (issue 14, fault 8): each is
# answered as Redis answers it (an error or a clamped value), with no signed
# overflow (the sanitizer build aborts on one) and no wrong value computed
# from one in a release build.

start_server {tags {"overflow"} casq_overrides {stream-id-mode liberal}} {
    test {XCLAIM IDLE -9223372036854775808 and 9223372036854775807 set the delivery time to now} {
        r del s
        r xadd s 1-0 f v
        r xgroup create s g 0
        r xreadgroup group g c1 streams s >
        r xclaim s g c2 0 1-0 IDLE -9223372036854775808
        set a [lindex [r xpending s g - + 10] 0]
        r xclaim s g c3 0 1-0 IDLE 9223372036854775807
        set b [lindex [r xpending s g - + 10] 0]
        assert_range [lindex $a 2] 0 5000
        assert_range [lindex $b 2] 0 5000
        list [lindex $a 1] [lindex $a 3] [lindex $b 1] [lindex $b 3]
    } {c2 2 c3 3}

    test {XCLAIM TIME at the edges is clamped to now} {
        r xclaim s g c1 0 1-0 TIME -9223372036854775808
        set a [lindex [lindex [r xpending s g - + 10] 0] 2]
        r xclaim s g c1 0 1-0 TIME 9223372036854775807
        set b [lindex [lindex [r xpending s g - + 10] 0] 2]
        assert_range $a 0 5000
        assert_range $b 0 5000
    }

    test {XPENDING and XAUTOCLAIM with min-idle-time 9223372036854775807} {
        set a [r xpending s g IDLE 9223372036854775807 - + 10]
        set b [lindex [r xautoclaim s g c1 9223372036854775807 0] 1]
        list $a $b
    } {{} {}}

    test {Keys expiring at 9223372036854775807 survive active expiry} {
        r flushdb
        r xadd k1 * f v
        r xadd k2 * f v
        r pexpireat k1 9223372036854775807
        r pexpireat k2 9223372036854775807
        # Let several active expiry cycles sample both keys.
        after 500
        list [r exists k1 k2] [r pexpiretime k1] [expr {[r pttl k2] > 9223370000000000000}]
    } {2 9223372036854775807 1}

    test {PEXPIRE / EXPIRE beyond the range are refused} {
        assert_error {*invalid expire time*} {r pexpire k1 9223372036854775807}
        assert_error {*invalid expire time*} {r expire k1 9223372036854775807}
        assert_error {*invalid expire time*} {r expireat k1 9223372036854775807}
        r exists k1
    } {1}

    test {client-output-buffer-limit soft seconds beyond an int are refused, as Redis} {
        assert_error {*Error in hard, soft or soft_seconds setting*} {
            r config set client-output-buffer-limit "normal 0 1 9223372036854775807"
        }
        lindex [r config get client-output-buffer-limit] 1
    } {normal 0 0 0 *}

    test {client-output-buffer-limit soft seconds 2147483647 never disconnects at once} {
        r config set client-output-buffer-limit "normal 0 1 2147483647"
        set c [redis_client]
        $c xadd big * f [string repeat x 100000]
        $c xrange big - +
        after 1200
        set r1 [llength [$c xrange big - +]]
        set r2 [$c ping]
        $c close
        r config set client-output-buffer-limit "normal 0 0 0"
        list $r1 $r2
    } {1 PONG}
}
