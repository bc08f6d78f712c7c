# INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT.

proc roundFloat f {
    format "%.10g" $f
}

start_server {tags {"incr"}} {
    test {INCR against non existing key} {
        r del novar
        list [r incr novar] [r get novar]
    } {1 1}

    test {INCR against key created by incr itself} {
        r incr novar
    } {2}

    test {DECR against key created by incr} {
        r decr novar
    } {1}

    test {DECR against key is not exist and incr} {
        r del novar_not_exist
        assert_equal {-1} [r decr novar_not_exist]
        r incr novar_not_exist
    } {0}

    test {INCR against key originally set with SET} {
        r set novar 100
        r incr novar
    } {101}

    test {INCR over 32bit value} {
        r set novar 17179869184
        r incr novar
    } {17179869185}

    test {INCRBY over 32bit value with over 32bit increment} {
        r set novar 17179869184
        r incrby novar 17179869184
    } {34359738368}

    test {INCR fails against key with spaces (left)} {
        r set novar "    11"
        assert_error {ERR value is not an integer or out of range} {r incr novar}
    }

    test {INCR fails against key with spaces (right)} {
        r set novar "11    "
        assert_error {ERR value is not an integer or out of range} {r incr novar}
    }

    test {INCR fails against key with spaces (both)} {
        r set novar "    11    "
        assert_error {ERR value is not an integer or out of range} {r incr novar}
    }

    test {DECRBY negation overflow} {
        r set x 0
        assert_error {ERR decrement would overflow} {r decrby x -9223372036854775808}
    }

    test {INCR fails against a key holding a list-like type} {
        r del mylist
        r xadd mylist * a b
        assert_error {WRONGTYPE*} {r incr mylist}
    }

    test {DECRBY over 32bit value with over 32bit increment, negative res} {
        r set novar 17179869184
        r decrby novar 17179869185
    } {-1}

    test {DECRBY against key is not exist} {
        r del key_not_exist
        assert_equal {-1} [r decrby key_not_exist 1]
    }

    test {INCR overflow and underflow} {
        r set x 9223372036854775807
        assert_error {ERR increment or decrement would overflow} {r incr x}
        r set x -9223372036854775808
        assert_error {ERR increment or decrement would overflow} {r decr x}
        assert_error {ERR increment or decrement would overflow} {r incrby x -1}
        r get x
    } {-9223372036854775808}

    test {INCRBY with a non-integer increment} {
        assert_error {ERR value is not an integer or out of range} {r incrby x 1.5}
        assert_error {ERR value is not an integer or out of range} {r incrby x 9223372036854775808}
    }

    test {INCR keeps the TTL} {
        r set x 1 ex 100
        r incr x
        assert_range [r ttl x] 90 100
        r incrbyfloat x 1.5
        assert_range [r ttl x] 90 100
        r get x
    } {3.5}

    test {INCR against an integer encoded with leading zeroes fails} {
        r set x 007
        assert_error {*not an integer*} {r incr x}
    }

    test {INCRBYFLOAT against non existing key} {
        r del novar
        list [roundFloat [r incrbyfloat novar 1]] \
             [roundFloat [r get novar]] \
             [roundFloat [r incrbyfloat novar 0.25]] \
             [roundFloat [r get novar]]
    } {1 1 1.25 1.25}

    test {INCRBYFLOAT against key originally set with SET} {
        r set novar 1.5
        roundFloat [r incrbyfloat novar 1.5]
    } {3}

    test {INCRBYFLOAT over 32bit value} {
        r set novar 17179869184
        r incrbyfloat novar 1.5
    } {17179869185.5}

    test {INCRBYFLOAT over 32bit value with over 32bit increment} {
        r set novar 17179869184
        r incrbyfloat novar 17179869184
    } {34359738368}

    test {INCRBYFLOAT fails against key with spaces (left)} {
        set err {}
        r set novar "    11"
        catch {r incrbyfloat novar 1.0} err
        format $err
    } {ERR *valid*}

    test {INCRBYFLOAT fails against key with spaces (right)} {
        set err {}
        r set novar "11    "
        catch {r incrbyfloat novar 1.0} err
        format $err
    } {ERR *valid*}

    test {INCRBYFLOAT fails against a key holding another type} {
        r del mylist
        set err {}
        r xadd mylist * a b
        catch {r incrbyfloat mylist 1.0} err
        r del mylist
        format $err
    } {WRONGTYPE*}

    test {INCRBYFLOAT does not allow NaN or Infinity} {
        r set foo 0
        set err {}
        catch {r incrbyfloat foo +inf} err
        set err
    } {ERR *would produce*}

    test {INCRBYFLOAT rejects NaN and bad increments} {
        assert_error {ERR value is not a valid float} {r incrbyfloat foo nan}
        assert_error {ERR value is not a valid float} {r incrbyfloat foo abc}
        assert_error {ERR value is not a valid float} {r incrbyfloat foo ""}
        assert_error {ERR value is not a valid float} {r incrbyfloat foo " 1"}
    }

    test {INCRBYFLOAT decrement} {
        r set foo 1
        roundFloat [r incrbyfloat foo -1.1]
    } {-0.1}

    test {INCRBYFLOAT formatting} {
        r del f
        set res {}
        lappend res [r incrbyfloat f 10.5]
        lappend res [r incrbyfloat f -10.5]
        lappend res [r incrbyfloat f 5.0e3]
        lappend res [r incrbyfloat f 1e-5]
        lappend res [r incrbyfloat f -5000.00001]
        lappend res [r incrbyfloat f 0.1]
        lappend res [r incrbyfloat f 0x10]
        set res
    } {10.5 0 5000 5000.00001000000000007 0 0.1 16.1}

    test {string to double with null terminator} {
        r set foo 1
        r setrange foo 2 2
        catch {r incrbyfloat foo 1} err
        format $err
    } {ERR *valid*}

    test {No negative zero} {
        r del foo
        r incrbyfloat foo [expr double(1)/41]
        r incrbyfloat foo [expr double(-1)/41]
        r get foo
    } {0}

    test {INCR/DECR/INCRBY/DECRBY in RESP3 are integers} {
        r hello 3
        r del c
        set res [list [r incr c] [r incrby c 10] [r decrby c 2] [r decr c]]
        r hello 2
        set res
    } {1 11 9 8}
}

