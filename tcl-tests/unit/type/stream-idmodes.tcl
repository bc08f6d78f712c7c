# casq's XADD ID modes (design.md §2, setting stream-id-mode):
#   strict       '*' or a milliseconds-only ID; the server picks the seq
#   semi-strict  like strict, full ms-seq IDs accepted too
#   liberal      Redis: any increasing ID, "ms" means ms-0, "ms-*" allowed
# casq only: redis-server has no such setting.

source [file join [file dirname [info script]] .. .. support stream_util.tcl]

set strict_full_err {ERR stream-id-mode is strict: only '*' or a milliseconds-only ID is accepted (set stream-id-mode to semi-strict or liberal to use full IDs)}
set strict_star_err {ERR stream-id-mode is strict: only '*' or a milliseconds-only ID is accepted (set stream-id-mode to liberal to use '<ms>-*' IDs)}
set semi_star_err {ERR stream-id-mode is semi-strict: only '*', a milliseconds-only ID or a full ID is accepted (set stream-id-mode to liberal to use '<ms>-*' IDs)}
set top_err {ERR The ID specified in XADD is equal or smaller than the target stream top item}

# Default configuration: strict.
start_server {tags {"stream" "casq-only"}} {
    test {stream-id-mode defaults to strict} {
        r config get stream-id-mode
    } {stream-id-mode strict}

    test {strict: * is accepted} {
        r del s
        set id [r xadd s * f v]
        list [regexp {^[0-9]+-[0-9]+$} $id] [r xlen s]
    } {1 1}

    test {strict: a milliseconds-only ID picks the sequence} {
        r del s
        list [r xadd s 5 f v] [r xadd s 5 f v] [r xadd s 5 f v] [r xadd s 6 f v] [r xadd s 6 f v]
    } {5-0 5-1 5-2 6-0 6-1}

    test {strict: 0 on an empty stream picks 0-1} {
        r del s
        r xadd s 0 f v
    } {0-1}

    test {strict: a full ID is rejected with an error naming the setting} {
        r del s
        r xadd s 5 f v
        catch {r xadd s 5-3 f v} e
        list $e [r xlen s]
    } [list $strict_full_err 1]

    test {strict: a full ID is rejected even on a new stream} {
        r del s
        catch {r xadd s 1-1 f v} e
        list $e [r exists s]
    } [list $strict_full_err 0]

    test {strict: ms-* is rejected} {
        r del s
        catch {r xadd s 5-* f v} e
        list $e [r exists s]
    } [list $strict_star_err 0]

    test {strict: a milliseconds ID lower than the top item gets Redis's error} {
        r del s
        r xadd s 10 f v
        catch {r xadd s 9 f v} e
        list $e [r xrange s - +]
    } [list $top_err {{10-0 {f v}}}]

    test {strict: * after a milliseconds ID in the future continues its sequence} {
        r del s
        r xadd s 99999999999999 f v
        r xadd s * f v
    } {99999999999999-1}

    test {strict: invalid IDs still get Redis's error} {
        r del s
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s abc f v}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s 5-x f v}
        r exists s
    } {0}

    test {strict: NOMKSTREAM and trimming options work with milliseconds IDs} {
        r del s
        set a [r xadd s NOMKSTREAM 1 f v]
        r xadd s 1 f v
        r xadd s 2 f v
        r xadd s 3 f v
        list $a [r xadd s MAXLEN 2 3 f v] [stream_ids [r xrange s - +]]
    } {{} 3-1 {3-0 3-1}}

    test {strict: an error in MULTI does not stop the other commands} {
        r del s
        r multi
        r xadd s 1 f v
        r xadd s 1-5 f v
        r xadd s 1 f v
        set c [srv client]
        $c errors_inline 1
        set res [r exec]
        $c errors_inline 0
        set res
    } [list 1-0 $strict_full_err 1-1]

    test {strict: commands other than XADD take full IDs} {
        r del s
        r xadd s 1 f v
        r xadd s 1 f v
        r xadd s 2 f v
        r xgroup create s g 1-0
        set read [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s >] 0 1]]
        list $read [stream_ids [r xrange s 1-1 2-0]] [stream_ids [lindex [r xread STREAMS s 1-0] 0 1]] \
             [r xack s g 1-1] [r xclaim s g c2 0 2-0 JUSTID] [r xdel s 1-0] [r xtrim s MINID 1-1]
    } {{1-1 2-0} {1-1 2-0} {1-1 2-0} 1 2-0 1 0}

    test {strict: XSETID is not affected by the mode} {
        r del s
        r xadd s 1 f v
        list [r xsetid s 5-7] [stream_field [r xinfo stream s] last-generated-id] [r xadd s 5 f v] [r xadd s 6 f v]
    } {OK 5-7 5-8 6-0}

    test {strict: XSETID ENTRIESADDED / MAXDELETEDID and their errors} {
        r del s
        r xadd s 1 f v
        r xadd s 2 f v
        assert_equal OK [r xsetid s 9-3 ENTRIESADDED 10 MAXDELETEDID 9-1]
        assert_error {ERR The ID specified in XSETID is smaller than current max_deleted_entry_id} {r xsetid s 1-5}
        assert_error {ERR entries_added must be positive} {r xsetid s 10-0 ENTRIESADDED -1}
        assert_error {ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id} {r xsetid s 10-0 MAXDELETEDID 10-1}
        set info [r xinfo stream s]
        list [stream_field $info last-generated-id] [stream_field $info entries-added] [stream_field $info max-deleted-entry-id]
    } {9-3 10 9-1}

    test {strict: XGROUP CREATE / SETID are not affected by the mode} {
        r del s
        r xadd s 3 f v
        r xadd s 3 f v
        r xadd s 3 f v
        r xgroup create s g 3-1
        set a [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s >] 0 1]]
        r xgroup setid s g 3-0 ENTRIESREAD 1
        set b [stream_ids [lindex [r xreadgroup GROUP g c STREAMS s >] 0 1]]
        r xgroup create s g2 0-5 MKSTREAM
        list $a $b [dict get [lindex [r xinfo groups s] 1] last-delivered-id]
    } {3-2 {3-1 3-2} 0-5}

    test {CONFIG SET stream-id-mode at runtime} {
        r del s
        r xadd s 1 f v
        assert_error {ERR stream-id-mode is strict*} {r xadd s 1-5 f v}
        assert_equal OK [r config set stream-id-mode semi-strict]
        assert_equal {stream-id-mode semi-strict} [r config get stream-id-mode]
        assert_equal 1-5 [r xadd s 1-5 f v]
        assert_equal OK [r config set stream-id-mode liberal]
        assert_equal 2-0 [r xadd s 2-* f v]
        assert_equal OK [r config set stream-id-mode strict]
        assert_error {ERR stream-id-mode is strict*} {r xadd s 3-0 f v}
        stream_ids [r xrange s - +]
    } {1-0 1-5 2-0}

    test {CONFIG SET stream-id-mode is case insensitive and checks its value} {
        assert_equal OK [r config set stream-id-mode LIBERAL]
        assert_equal {stream-id-mode liberal} [r config get stream-id-mode]
        catch {r config set stream-id-mode loose} e
        r config set stream-id-mode strict
        set e
    } {ERR CONFIG SET failed (possibly related to argument 'stream-id-mode') - argument(s) must be one of the following: strict, semi-strict, liberal}

    test {A mode change keeps existing streams as they are} {
        r del s
        r config set stream-id-mode liberal
        r xadd s 7-7 f v
        r config set stream-id-mode strict
        list [r xadd s 7 f v] [r xadd s 8 f v] [stream_ids [r xrange s - +]]
    } {7-8 8-0 {7-7 7-8 8-0}}
}

start_server {tags {"stream" "casq-only"} casq_overrides {stream-id-mode semi-strict}} {
    test {semi-strict: * and milliseconds-only IDs behave as in strict} {
        r del s
        set id [r xadd s * f v]
        r del s
        list [regexp {^[0-9]+-[0-9]+$} $id] [r xadd s 5 f v] [r xadd s 5 f v]
    } {1 5-0 5-1}

    test {semi-strict: full IDs are accepted} {
        r del s
        list [r xadd s 5-3 f v] [r xadd s 5 f v] [r xadd s 6-0 f v] [r xadd s 6 f v]
    } {5-3 5-4 6-0 6-1}

    test {semi-strict: ms-* is rejected} {
        r del s
        catch {r xadd s 5-* f v} e
        list $e [r exists s]
    } [list $semi_star_err 0]

    test {semi-strict: Redis's errors for full IDs} {
        r del s
        r xadd s 5-3 f v
        assert_error $top_err {r xadd s 5-3 f v}
        assert_error $top_err {r xadd s 5-2 f v}
        assert_error $top_err {r xadd s 4 f v}
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s2 0-0 f v}
        r xlen s
    } {1}
}

start_server {tags {"stream" "casq-only"} casq_overrides {stream-id-mode liberal}} {
    test {liberal: Redis behaviour, a milliseconds ID means ms-0} {
        r del s
        list [r xadd s 5 f v] [catch {r xadd s 5 f v} e] $e [r xadd s 5-* f v] [r xadd s 5-7 f v] [r xadd s 6 f v]
    } [list 5-0 1 $top_err 5-1 5-7 6-0]

    test {liberal: 0 is 0-0 and rejected} {
        r del s
        catch {r xadd s 0 f v} e
        set e
    } {ERR The ID specified in XADD must be greater than 0-0}
}
