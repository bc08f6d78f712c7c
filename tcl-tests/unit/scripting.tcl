# Scripting: EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT LOAD/EXISTS/FLUSH/KILL,
# the conversions between Lua and replies, errors and their text, the
# read-only globals, shebang flags, and (casq-only) a script's reply held
# until what it changed is durable. Every test must pass against
# redis-server too, except those tagged needs:casq.

start_server {tags {"scripting"}} {

    test {EVAL - Return _G} {
        r eval {return _G} 0
    } {}

    test {EVAL - Lua integer -> Redis protocol type conversion} {
        r eval {return 100.5} 0
    } {100}

    test {EVAL - Lua string -> Redis protocol type conversion} {
        r eval {return 'hello world'} 0
    } {hello world}

    test {EVAL - Lua true boolean -> Redis protocol type conversion} {
        r eval {return true} 0
    } {1}

    test {EVAL - Lua false boolean -> Redis protocol type conversion} {
        r eval {return false} 0
    } {}

    test {EVAL - Lua status code reply -> Redis protocol type conversion} {
        r eval {return {ok='fine'}} 0
    } {fine}

    test {EVAL - Lua error reply -> Redis protocol type conversion} {
        catch {r eval {return {err='ERR this is an error'}} 0} e
        set e
    } {ERR this is an error}

    test {EVAL - Lua table -> Redis protocol type conversion} {
        r eval {return {1,2,3,'ciao',{1,2}}} 0
    } {1 2 3 ciao {1 2}}

    test {EVAL - An array stops at its first nil} {
        r eval {return {1,2,nil,4}} 0
    } {1 2}

    test {EVAL - Are the KEYS and ARGV arrays populated correctly?} {
        r eval {return {KEYS[1],KEYS[2],ARGV[1],ARGV[2]}} 2 a{t} b{t} c{t} d{t}
    } {a{t} b{t} c{t} d{t}}

    test {EVAL - is Lua able to call Redis API?} {
        r set mykey myval
        r eval {return redis.call('get',KEYS[1])} 1 mykey
    } {myval}

    test {EVAL - Redis integer -> Lua type conversion} {
        r set x 0
        r eval {
            local foo = redis.pcall('incr',KEYS[1])
            return {type(foo),foo}
        } 1 x
    } {number 1}

    test {EVAL - Redis bulk -> Lua type conversion} {
        r set mykey myval
        r eval {
            local foo = redis.pcall('get',KEYS[1])
            return {type(foo),foo}
        } 1 mykey
    } {string myval}

    test {EVAL - Redis multi bulk -> Lua type conversion} {
        r del mylist
        r rpush mylist a
        r rpush mylist b
        r rpush mylist c
        r eval {
            local foo = redis.pcall('lrange',KEYS[1],0,-1)
            return {type(foo),foo[1],foo[2],foo[3],# foo}
        } 1 mylist
    } {table a b c 3}

    test {EVAL - Redis status reply -> Lua type conversion} {
        r eval {
            local foo = redis.pcall('set',KEYS[1],'myval')
            return {type(foo),foo['ok']}
        } 1 mykey
    } {table OK}

    test {EVAL - Redis error reply -> Lua type conversion} {
        r set mykey myval
        r eval {
            local foo = redis.pcall('incr',KEYS[1])
            return {type(foo),foo['err']}
        } 1 mykey
    } {table {ERR value is not an integer or out of range}}

    test {EVAL - Redis nil bulk reply -> Lua type conversion} {
        r del mykey
        r eval {
            local foo = redis.pcall('get',KEYS[1])
            return {type(foo),foo == false}
        } 1 mykey
    } {boolean 1}

    test {EVAL - Numbers are passed to commands as integers or shortest doubles} {
        r del n
        r eval {return {redis.call('set',KEYS[1],3), redis.call('get',KEYS[1]),
                        redis.call('set',KEYS[1],2.5), redis.call('get',KEYS[1])}} 1 n
    } {OK 3 OK 2.5}

    # Redis 7.2 (#11568) lets scripts run blocking commands: they do not
    # block there (7.0 refused them as "not allowed from script").
    test {EVAL - A script's BLPOP does not block (Redis 7.2)} {
        r del blk
        set r1 [r eval {return redis.pcall('blpop','blk',0)} 0]
        r rpush blk v
        set r2 [r eval {return redis.pcall('blpop','blk',0)} 0]
        list $r1 $r2
    } {{} {blk v}} {redis7.2}

    test {EVAL - Scripts can't run SUBSCRIBE, MULTI or EVAL} {
        foreach cmd {{'subscribe','x'} {'multi'} {'eval','return 1','0'}} {
            catch {r eval "return redis.call($cmd)" 0} e
            assert_match {ERR This Redis command is not allowed from script script: *} $e
        }
    }

    test {EVAL - Unknown command and wrong arity} {
        catch {r eval {return redis.call('nosuchcommand')} 0} e
        assert_match {ERR Unknown Redis command called from script script: *, on @user_script:1.} $e
        catch {r eval {return redis.call('get')} 0} e
        assert_match {ERR Wrong number of args calling Redis command from script script: *} $e
        catch {r eval {return redis.call()} 0} e
        assert_match {ERR Please specify at least one argument for this redis lib call script: *} $e
        catch {r eval {return redis.call('get', {})} 0} e
        assert_match {ERR Lua redis lib command arguments must be strings or integers script: *} $e
    }

    test {EVAL - redis.call error is raised with its code and the script line} {
        r set foo bar
        catch {r eval "\n\nreturn redis.call('lpush', KEYS\[1\], 'x')" 1 foo} e
        set e
    } {WRONGTYPE Operation against a key holding the wrong kind of value script: *, on @user_script:3.}

    test {EVAL - error() with a string and with a table} {
        catch {r eval {error('boom')} 0} e
        assert_match {ERR user_script:1: boom script: *, on @user_script:1.} $e
        catch {r eval {error({err='MYCODE custom'})} 0} e
        assert_match {MYCODE custom script: *, on @user_script:1.} $e
    }

    test {EVAL - redis.error_reply and redis.status_reply} {
        catch {r eval {return redis.error_reply('MY_ERR_CODE custom msg')} 0} e
        assert_equal {MY_ERR_CODE custom msg} $e
        r eval {return redis.status_reply('MYSTATUS')} 0
    } {MYSTATUS}

    test {EVAL - Compile errors} {
        catch {r eval {retur 1} 0} e
        set e
    } {ERR Error compiling script (new function): user_script:1: '=' expected near '1'}

    test {EVAL - Globals are read-only} {
        catch {r eval {a = 1} 0} e
        assert_match {ERR user_script:1: Attempt to modify a readonly table script: *} $e
        catch {r eval {return a} 0} e
        assert_match {*Script attempted to access nonexistent global variable 'a'*} $e
    }

    test {EVAL - Numkeys errors} {
        catch {r eval {return 1} -1} e
        assert_equal {ERR Number of keys can't be negative} $e
        catch {r eval {return 1} 2 a} e
        assert_equal {ERR Number of keys can't be greater than number of args} $e
        catch {r eval {return 1} x} e
        set e
    } {ERR value is not an integer or out of range}

    test {EVAL - redis.sha1hex} {
        list [r eval {return redis.sha1hex('')} 0] [r eval {return redis.sha1hex('Pizza & Mandolino')} 0]
    } {da39a3ee5e6b4b0d3255bfef95601890afd80709 74822d82031af7493c20eefa13bd07ec4fada82f}

    test {EVAL - redis.sha1hex around the SHA-1 padding boundaries} {
        set got {}
        foreach n {55 56 63 64 65 119 120 1000} {
            lappend got [r eval {return redis.sha1hex(string.rep('a', tonumber(ARGV[1])))} 0 $n]
        }
        set got
    } {c1c8bbdc22796e28c0e15163d20899b65621d65a c2db330f6083854c99d4b5bfb6e8f29f201be699 03f09f5b158a7a8cdad920bddc29b81c18a551f5 0098ba824b5c16427bd7a1122a5a442a25ec644d 11655326c708d70319be2610e8a57d9a5b959d3b ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56 f34c1488385346a55709ba056ddd08280dd4c6d6 291e9a6c66994949b57ba5e650361e98fc36b1ba}

    test {EVAL - A self-referencing table hits the nesting limit} {
        # The reply nests ~1000 arrays around the error (too deep for the
        # Tcl client): its first lines are arrays of one, and the server
        # still answers.
        set c [redis_client]
        $c readraw 1
        $c write [format_command eval {local t = {}; t[1] = t; return t} 0]
        $c flush
        set first [list [$c read] [$c read]]
        $c close
        list $first [r ping]
    } {{*1 *1} PONG}

    test {EVAL - Stack overflow, error(nil) and error(123)} {
        catch {r eval {local function f(n) return f(n+1)+1 end return f(1)} 0} e
        assert_match {ERR user_script:1: stack overflow script: *} $e
        catch {r eval {error(nil)} 0} e
        assert_match {ERR nil script: *} $e
        catch {r eval {error(123)} 0} e
        assert_match {ERR user_script:1: 123 script: *} $e
    }

    test {EVAL - An error inside a returned array} {
        r readraw 1
        set res [r eval {return {1, {err='E1 inner'}, 3}} 0]
        set lines [list $res [r read] [r read] [r read]]
        r readraw 0
        set lines
    } {*3 :1 {-E1 inner} :3}

    test {EVALSHA - Can we call a SHA1 if already defined?} {
        r eval {return 'hello'} 0
        r evalsha [r eval {return redis.sha1hex([[return 'hello']])} 0] 0
    } {hello}

    test {EVALSHA - Can we call a SHA1 in uppercase?} {
        r evalsha [string toupper [r script load {return 'upper'}]] 0
    } {upper}

    test {EVALSHA - Do we get an error on invalid SHA1?} {
        catch {r evalsha NotValidShaSUM 0} e
        set e
    } {NOSCRIPT*}

    test {EVALSHA - Do we get an error on non defined SHA1?} {
        catch {r evalsha ffffffffffffffffffffffffffffffffffffffff 0} e
        set e
    } {NOSCRIPT No matching script. Please use EVAL.}

    test {SCRIPT LOAD, EXISTS and FLUSH} {
        set sha [r script load {return 'loaded'}]
        assert_equal [r eval {return redis.sha1hex([[return 'loaded']])} 0] $sha
        assert_equal {1 0} [r script exists $sha ffffffffffffffffffffffffffffffffffffffff]
        assert_equal loaded [r evalsha $sha 0]
        assert_equal OK [r script flush]
        assert_equal {0} [r script exists $sha]
        assert_equal OK [r script flush async]
        catch {r script flush wrong} e
        assert_match {ERR SCRIPT FLUSH only support SYNC|ASYNC option} $e
        catch {r script load {retur 1}} e
        assert_match {ERR Error compiling script*} $e
    }

    test {SCRIPT KILL with no script running} {
        catch {r script kill} e
        set e
    } {NOTBUSY No scripts in execution right now.}

    test {EVAL_RO - Successful case} {
        r set foo bar
        assert_equal bar [r eval_ro {return redis.call('get', KEYS[1]);} 1 foo]
        assert_equal bar [r evalsha_ro [r script load {return redis.call('get', KEYS[1]);}] 1 foo]
    }

    test {EVAL_RO - Cannot run write commands} {
        r set foo bar
        catch {r eval_ro {redis.call('del', KEYS[1]);} 1 foo} e
        assert_match {ERR Write commands are not allowed from read-only scripts. script: *} $e
        r get foo
    } {bar}

    test {Shebang: no-writes, unknown flags and engines} {
        r set foo bar
        catch {r eval "#!lua flags=no-writes\nreturn redis.call('set','foo','x')" 0} e
        assert_match {ERR Write commands are not allowed from read-only scripts.*} $e
        assert_equal bar [r eval "#!lua flags=no-writes\nreturn redis.call('get','foo')" 0]
        assert_equal 1 [r eval "#!lua\nreturn 1" 0]
        catch {r eval "#!lua flags=no-such-flag\nreturn 1" 0} e
        assert_match {*Unexpected flag in script shebang: no-such-flag*} $e
        catch {r eval "#!notlua\nreturn 1" 0} e
        assert_match {*Unexpected engine in script shebang*} $e
    }

    test {A script runs atomically and its writes are visible to the next command} {
        r del counter list
        r eval {
            for i = 1, 100 do redis.call('incr', KEYS[1]) end
            redis.call('rpush', KEYS[2], redis.call('get', KEYS[1]))
            return redis.call('lrange', KEYS[2], 0, -1)
        } 2 counter list
    } {100}

    test {SELECT inside a script does not change the caller's database} {
        r select 9
        r del a
        r eval {redis.call('select', 10); redis.call('set', 'a', 'in10'); return 1} 0
        set here [r exists a]
        r select 10
        set there [r get a]
        r del a
        r select 9
        list $here $there
    } {0 in10}

    test {Scripts wake clients blocked on the keys they push to} {
        r del q
        set rd [redis_deferring_client]
        $rd blpop q 5
        wait_for_blocked_clients_count 1
        r eval {redis.call('rpush', KEYS[1], 'a'); redis.call('rpush', KEYS[1], 'b'); return 1} 1 q
        assert_equal {q a} [$rd read]
        $rd close
        r lrange q 0 -1
    } {b}

    test {WATCH sees a key changed by a script} {
        r set w 1
        r watch w
        r eval {return redis.call('incr', KEYS[1])} 1 w
        r multi
        r get w
        set res [r exec]
        set res
    } {}

    test {redis.pcall with a wrong type keeps the script running} {
        r set s x
        r eval {
            local e = redis.pcall('lpush', KEYS[1], 'x')
            return {e['err'], redis.call('get', KEYS[1])}
        } 1 s
    } {{WRONGTYPE Operation against a key holding the wrong kind of value} x}

    test {EVAL in MULTI runs at EXEC} {
        r del m
        r multi
        r eval {return redis.call('incr', KEYS[1])} 1 m
        r eval {return redis.call('incr', KEYS[1])} 1 m
        r exec
    } {1 2}

    test {EVAL replies in RESP3 with the caller's protocol} {
        r hello 3
        set res [list [r eval {return false} 0] [r eval {return {1,'a'}} 0]]
        r hello 2
        set res
    } {{} {1 a}}

    test {INFO memory reports cached scripts} {
        r script flush
        r script load {return 'one'}
        r script load {return 'two'}
        getInfoProperty [r info memory] number_of_cached_scripts
    } {2}

    test {COMMAND INFO of EVAL and SCRIPT} {
        set info [lindex [r command info eval] 0]
        assert_equal {eval -3} [lrange $info 0 1]
        assert_equal {a b c} [r command getkeys eval {return 1} 3 a b c d]
        r command count
        lindex [lindex [r command info script] 0] 1
    } {-2}
}

# design.md §4: a script's reply, like any reply, is held until what it
# changed is durable; a script that only reads waits for what it read.
# The delay is set at run time: on the command line the server's start-up
# commit would wait it out too, before the tests could begin.
start_server {tags {"scripting" "needs:casq"} casq_overrides {enable-debug-command yes}} {
    test {A script's reply waits for the commit of its writes} {
        r config set commit-debug-delay 300
        set start [clock milliseconds]
        r eval {return redis.call('set', KEYS[1], 'v')} 1 durable
        assert_morethan_equal [expr {[clock milliseconds] - $start}] 250
        r get durable
    } {v}

    test {A read-only script that reads an uncommitted change waits for it} {
        r config set commit-debug-delay 300
        set rd [redis_deferring_client]
        $rd set pending v2
        $rd flush
        after 50
        set start [clock milliseconds]
        set got [r eval {return redis.call('get', KEYS[1])} 1 pending]
        set waited [expr {[clock milliseconds] - $start}]
        assert_equal OK [$rd read]
        $rd close
        assert_morethan_equal $waited 150
        set got
    } {v2}
}
