# Introspection and server commands: TIME, CONFIG, INFO, COMMAND.

start_server {tags {"introspection"}} {
    test {TIME returns seconds and microseconds} {
        set t [r time]
        assert_equal 2 [llength $t]
        lassign $t sec usec
        assert_range $sec [expr {[clock seconds] - 5}] [expr {[clock seconds] + 5}]
        assert_range $usec 0 999999
    }

    test {TIME replies with two bulk strings} {
        r readraw 1
        set a [r time]
        set b [r read]
        r readraw 0
        r reconnect
        r select 9
        list $a [string index $b 0]
    } [list *2 {$}]

    test {TIME arity} {
        assert_error {ERR wrong number of arguments for 'time' command} {r time x}
    }

    # ---------------------------------------------------------------- CONFIG

    test {CONFIG GET of one parameter} {
        r config get maxclients
    } {maxclients 10000}

    test {CONFIG GET of several parameters} {
        set d [r config get port databases]
        list [dict size $d] [dict get $d port] [dict get $d databases]
    } "2 [srv port] 16"

    test {CONFIG GET of an unknown parameter is empty} {
        r config get no-such-parameter
    } {}

    test {CONFIG GET with a glob pattern} {
        set d [r config get *max-bulk*]
        dict get $d proto-max-bulk-len
    } {536870912}

    test {CONFIG GET with a pattern matching several parameters} {
        set d [r config get stream-node-max-*]
        list [dict get $d stream-node-max-entries] [dict get $d stream-node-max-bytes]
    } {100 4096}

    test {CONFIG GET * returns pairs} {
        set l [r config get *]
        assert_equal 0 [expr {[llength $l] % 2}]
        assert {[dict exists $l port] && [dict exists $l maxclients] && [dict exists $l dir]}
    }

    test {CONFIG GET dir is the absolute directory of the server} {
        file normalize [dict get [r config get dir] dir]
    } [file normalize [srv dir]] {external:skip}

    test {CONFIG GET arity} {
        assert_error {ERR wrong number of arguments for 'config|get' command} {r config get}
    }

    test {CONFIG SET and GET back} {
        assert_equal OK [r config set timeout 100]
        set v [dict get [r config get timeout] timeout]
        r config set timeout 0
        set v
    } {100}

    test {CONFIG SET of several parameters at once} {
        assert_equal OK [r config set timeout 7 hz 20]
        set d [r config get timeout hz]
        r config set timeout 0 hz 10
        list [dict get $d timeout] [dict get $d hz]
    } {7 20}

    test {CONFIG SET with a memory unit} {
        r config set proto-max-bulk-len 2mb
        set v [dict get [r config get proto-max-bulk-len] proto-max-bulk-len]
        r config set proto-max-bulk-len 512mb
        set v
    } {2097152}

    test {CONFIG SET parameter names are case insensitive} {
        r config set TIMEOUT 9
        set v [dict get [r config get timeout] timeout]
        r config set timeout 0
        set v
    } {9}

    test {CONFIG SET with a non integer value} {
        catch {r config set timeout abc} e
        set e
    } {ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer}

    test {CONFIG SET of an unknown parameter} {
        catch {r config set no-such-parameter 1} e
        set e
    } {ERR Unknown option or number of arguments for CONFIG SET - 'no-such-parameter'}

    test {CONFIG SET with a missing value} {
        catch {r config set timeout 1 hz} e
        set e
    } {ERR syntax error}

    test {CONFIG SET of the same parameter twice} {
        catch {r config set timeout 10 timeout 20} e
        set e
    } {ERR CONFIG SET failed (possibly related to argument 'timeout') - duplicate parameter}

    test {CONFIG SET of an immutable parameter} {
        catch {r config set databases 20} e
        set e
    } {ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config}

    test {CONFIG SET of an enum with a bad value} {
        catch {r config set loglevel foo} e
        set e
    } {ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning*}

    test {CONFIG SET of a yes/no parameter with a bad value} {
        catch {r config set lazyfree-lazy-user-flush maybe} e
        set e
    } {ERR CONFIG SET failed (possibly related to argument 'lazyfree-lazy-user-flush') - argument must be 'yes' or 'no'}

    test {CONFIG SET out of range} {
        set errs {}
        catch {r config set proto-max-bulk-len 10} e
        lappend errs $e
        catch {r config set maxclients -1} e
        lappend errs $e
        set errs
    } {{ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive} {ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive}}

    test {CONFIG SET of several parameters is atomic} {
        r config set timeout 0
        catch {r config set timeout 10 maxclients x} e
        list $e [dict get [r config get timeout] timeout]
    } {{ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer} 0}

    test {CONFIG SET arity} {
        assert_error {ERR wrong number of arguments for 'config|set' command} {r config set timeout}
    }

    test {CONFIG SET requirepass takes effect for new connections} {
        r config set requirepass cfgpass
        set c [redis [srv host] [srv port]]
        catch {$c ping} e
        set ok [$c auth cfgpass]
        $c close
        r config set requirepass ""
        list $e $ok
    } {{NOAUTH Authentication required.} OK}

    test {CONFIG RESETSTAT resets the statistics} {
        r ping
        r ping
        catch {r nosuchcommand}
        assert_equal OK [r config resetstat]
        set info [r info stats]
        list [getInfoProperty $info total_error_replies] [getInfoProperty $info expired_keys]
    } {0 0}

    test {CONFIG RESETSTAT resets INFO commandstats} {
        r ping
        r config resetstat
        getInfoProperty [r info commandstats] cmdstat_ping
    } {}

    test {CONFIG unknown subcommand} {
        catch {r config foo} e
        set e
    } {ERR unknown subcommand 'foo'. Try CONFIG HELP.}

    test {CONFIG HELP} {
        lindex [r config help] 0
    } {CONFIG <subcommand> *}

    # ---------------------------------------------------------------- INFO

    test {INFO has the default sections} {
        set info [r info]
        set missing {}
        foreach s {Server Clients Memory Persistence Stats Replication CPU Keyspace} {
            if {[string first "# $s\r\n" $info] < 0} {lappend missing $s}
        }
        set missing
    } {}

    test {INFO lines are CRLF terminated key:value pairs or section headers} {
        set bad {}
        r xadd infokey * f v
        set info [r info everything]
        assert_equal "\r\n" [string range $info end-1 end]
        foreach line [lrange [split $info "\n"] 0 end-1] {
            if {[string index $line end] ne "\r"} {lappend bad $line; continue}
            set line [string range $line 0 end-1]
            if {$line eq "" || [string match "# *" $line]} continue
            if {![regexp {^[^:\s]+:} $line]} {lappend bad $line}
        }
        set bad
    } {}

    test {INFO server: redis_version 7.x, mode, tcp_port, process_id} {
        set info [r info server]
        list [string match {7.*} [getInfoProperty $info redis_version]] \
            [getInfoProperty $info redis_mode] \
            [getInfoProperty $info tcp_port] \
            [getInfoProperty $info process_id]
    } [list 1 standalone [srv port] [srv pid]] {external:skip}

    test {INFO server has uptime_in_seconds and run_id} {
        set info [r info server]
        assert_range [getInfoProperty $info uptime_in_seconds] 0 100000
        assert_match {????????????????????????????????????????} [getInfoProperty $info run_id]
    }

    test {INFO with one section has only that section} {
        set info [r info server]
        list [string match "# Server\r\n*" $info] [string first "# Clients" $info] [string first "# Keyspace" $info]
    } {1 -1 -1}

    test {INFO with several sections} {
        set info [r info server clients]
        list [expr {[string first "# Server" $info] >= 0}] [expr {[string first "# Clients" $info] >= 0}] [string first "# Stats" $info]
    } {1 1 -1}

    test {INFO section names are case insensitive} {
        string match "# Server*" [r info SERVER]
    } {1}

    test {INFO of an unknown section is empty} {
        r info nosuchsection
    } {}

    test {INFO all and everything include commandstats} {
        r ping
        list [expr {[string first "# Commandstats" [r info all]] >= 0}] \
             [expr {[string first "# Commandstats" [r info everything]] >= 0}] \
             [expr {[string first "# Commandstats" [r info]] >= 0}]
    } {1 1 0}

    test {INFO clients: connected_clients and blocked_clients} {
        set c [redis_client]
        set info [r info clients]
        $c close
        assert_morethan_equal [getInfoProperty $info connected_clients] 2
        getInfoProperty $info blocked_clients
    } {0}

    test {INFO persistence: loading:0 (client libraries check it)} {
        getInfoProperty [r info persistence] loading
    } {0}

    test {INFO replication: role:master} {
        getInfoProperty [r info replication] role
    } {master}

    test {INFO stats: total_commands_processed grows} {
        set a [s total_commands_processed]
        r ping
        r ping
        assert_morethan [s total_commands_processed] $a
    }

    test {INFO stats: total_connections_received grows} {
        set a [s total_connections_received]
        set c [redis_client]
        $c close
        assert_morethan [s total_connections_received] $a
    }

    test {INFO keyspace: db line format} {
        r flushall
        r xadd k1 * f v
        r xadd k2 * f v
        r expire k2 1000
        getInfoProperty [r info keyspace] db9
    } {keys=2,expires=1,avg_ttl=*}

    test {INFO keyspace lists every non empty database} {
        r flushall
        r select 0
        r xadd k * f v
        r select 9
        r xadd k * f v
        set info [r info keyspace]
        r select 0
        r flushdb
        r select 9
        list [getInfoProperty $info db0] [getInfoProperty $info db9] [getInfoProperty $info db1]
    } {keys=1,expires=0,avg_ttl=0 keys=1,expires=0,avg_ttl=0 {}}

    test {INFO commandstats: calls, rejected_calls, failed_calls} {
        r config resetstat
        r ping
        r ping
        catch {r echo}
        r echo x
        r xadd cs * f v
        catch {r xgroup create cs g 1-1-1}
        set info [r info commandstats]
        set res {}
        foreach cmd {ping echo xgroup|create} {
            set l [getInfoProperty $info cmdstat_$cmd]
            regexp {calls=(\d+),usec=\d+,usec_per_call=[0-9.]+,rejected_calls=(\d+),failed_calls=(\d+)} $l -> calls rej failed
            lappend res $calls $rej $failed
        }
        set res
    } {2 0 0 1 1 0 1 0 1}

    test {INFO commandstats names subcommands with a pipe} {
        r config resetstat
        r config get maxclients
        getInfoProperty [r info commandstats] cmdstat_config|get
    } {calls=1,*}

    test {INFO errorstats counts errors by prefix} {
        r config resetstat
        catch {r nosuchcommand}
        catch {r nosuchcommand}
        catch {r select 1000}
        getInfoProperty [r info errorstats] errorstat_ERR
    } {count=3}

    test {INFO stats: keyspace_hits and keyspace_misses} {
        r config resetstat
        r del nosuch
        r xadd hit * f v
        r xrange hit - +
        r xrange nosuch - +
        set info [r info stats]
        list [getInfoProperty $info keyspace_hits] [getInfoProperty $info keyspace_misses]
    } {1 1}

    # ---------------------------------------------------------------- COMMAND

    test {COMMAND COUNT} {
        assert_morethan [r command count] 0
    }

    test {COMMAND returns one entry per command} {
        llength [r command]
    } [r command count]

    test {COMMAND INFO xadd} {
        set e [lindex [r command info xadd] 0]
        lrange $e 0 6
    } {xadd -5 {write denyoom fast} 1 1 1 {@write @stream @fast}}

    test {COMMAND INFO ping} {
        set e [lindex [r command info ping] 0]
        lrange $e 0 6
    } {ping -1 fast 0 0 0 {@fast @connection}}

    test {COMMAND INFO has 10 fields per command} {
        llength [lindex [r command info xadd] 0]
    } {10}

    test {COMMAND INFO of several commands, unknown ones are null} {
        set l [r command info xlen nosuchcommand del]
        list [llength $l] [lindex $l 0 0] [lindex $l 1] [lindex $l 2 0]
    } {3 xlen {} del}

    test {COMMAND INFO of an unknown command is a null in the array (raw)} {
        r readraw 1
        set a [r command info nosuchcommand]
        set b [r read]
        r readraw 0
        list $a $b
    } [list *1 {$-1}]

    test {COMMAND INFO of a container command lists subcommands} {
        set e [lindex [r command info xgroup] 0]
        set subs {}
        # casq adds xgroup|priority (docs/priority.md): Redis's own are compared.
        foreach s [lindex $e 9] {
            if {[lindex $s 0] ne "xgroup|priority"} {lappend subs [lindex $s 0]}
        }
        list [lindex $e 0] [lindex $e 1] [lsort $subs]
    } {xgroup -2 {xgroup|create xgroup|createconsumer xgroup|delconsumer xgroup|destroy xgroup|help xgroup|setid}}

    test {COMMAND INFO of a subcommand with a pipe} {
        lrange [lindex [r command info xgroup|create] 0] 0 1
    } {xgroup|create -5}

    test {COMMAND INFO is case insensitive} {
        lindex [r command info XADD] 0 0
    } {xadd}

    test {COMMAND DOCS ping} {
        set d [r command docs ping]
        set doc [dict get $d ping]
        assert_not_equal {} [dict get $doc summary]
        list [dict get $doc since] [dict get $doc group] [dict get $doc complexity]
    } {1.0.0 connection O(1)}

    # Redis 7.2 rewrote the command summaries (7.0: "Ping the server").
    test {COMMAND DOCS ping summary (7.2 text)} {
        dict get [dict get [r command docs ping] ping] summary
    } {Returns the server's liveliness response.} {redis7.2}

    test {COMMAND DOCS xadd has arguments} {
        set doc [dict get [r command docs xadd] xadd]
        list [dict get $doc group] [expr {[llength [dict get $doc arguments]] > 0}]
    } {stream 1}

    test {COMMAND DOCS of an unknown command is empty} {
        r command docs nosuchcommand
    } {}

    test {COMMAND LIST contains the commands} {
        set l [r command list]
        list [expr {"xadd" in $l}] [expr {"ping" in $l}] [expr {"xgroup" in $l}] \
            [expr {"xgroup|create" in $l}]
    } {1 1 1 1}

    test {COMMAND LIST FILTERBY PATTERN} {
        lsort [r command list filterby pattern {xa[du]*}]
    } {xadd xautoclaim}

    test {COMMAND LIST FILTERBY ACLCAT} {
        set l [r command list filterby aclcat stream]
        list [expr {"xadd" in $l}] [expr {"ping" in $l}]
    } {1 0}

    test {COMMAND LIST FILTERBY syntax error} {
        assert_error {ERR syntax error} {r command list filterby foo}
    }

    test {COMMAND GETKEYS xadd} {
        r command getkeys xadd s * f v
    } {s}

    test {COMMAND GETKEYS del with several keys} {
        r command getkeys del a b c
    } {a b c}

    test {COMMAND GETKEYS xread (movable keys)} {
        r command getkeys xread count 1 streams a b 0 0
    } {a b}

    test {COMMAND GETKEYS xreadgroup} {
        r command getkeys xreadgroup group g c streams s >
    } {s}

    test {COMMAND GETKEYS errors} {
        set errs {}
        foreach args {{nosuchcommand a} {xadd s} {ping x}} {
            catch {r command getkeys {*}$args} e
            lappend errs $e
        }
        set errs
    } {{ERR Invalid command specified} {ERR Invalid number of arguments specified for command} {ERR The command has no key arguments}}

    test {COMMAND GETKEYS arity} {
        assert_error {ERR wrong number of arguments for 'command|getkeys' command} {r command getkeys ping}
    }

    test {COMMAND COUNT arity} {
        assert_error {ERR wrong number of arguments for 'command|count' command} {r command count x}
    }

    test {COMMAND unknown subcommand} {
        catch {r command foo} e
        set e
    } {ERR unknown subcommand 'foo'. Try COMMAND HELP.}
}

# server_cpulist / bio_cpulist (Redis 6): which CPUs the main thread and the
# background threads may run on. The list names the first CPU this test may
# use itself, so that the kernel can honour it wherever the suite runs.
proc first_allowed_cpu {} {
    set fh [open /proc/self/status r]
    set status [read $fh]
    close $fh
    regexp {Cpus_allowed_list:\s*(\d+)} $status _ cpu
    return $cpu
}

# Cpus_allowed_list of each thread of process pid, but jemalloc's own
# thread in redis-server (neither directive covers it).
proc thread_cpu_lists {pid} {
    set lists {}
    foreach task [lsort [glob -nocomplain /proc/$pid/task/*]] {
        set fh [open $task/status r]
        set status [read $fh]
        close $fh
        if {[regexp {Name:\s*jemalloc_bg_thd} $status]} continue
        if {[regexp {Cpus_allowed_list:\s*(\S+)} $status _ l]} {lappend lists $l}
    }
    return $lists
}

start_server {tags {"introspection"}} {
    test {CONFIG GET server_cpulist and bio_cpulist: empty by default} {
        list [r config get server_cpulist] [r config get bio_cpulist]
    } {{server_cpulist {}} {bio_cpulist {}}}

    test {CONFIG SET server_cpulist and bio_cpulist: immutable} {
        set errs {}
        foreach d {server_cpulist bio_cpulist} {
            catch {r config set $d 0} e
            lappend errs $e
        }
        set errs
    } {{ERR CONFIG SET failed (possibly related to argument 'server_cpulist') - can't set immutable config} {ERR CONFIG SET failed (possibly related to argument 'bio_cpulist') - can't set immutable config}}
}

set cpu [first_allowed_cpu]
start_server [list tags {"introspection"} overrides [list server_cpulist "$cpu-$cpu:1" bio_cpulist $cpu]] {
    test {server_cpulist and bio_cpulist keep every thread on the CPUs listed} {
        # CONFIG GET shows the lists as written; the threads run where told.
        assert_equal [list server_cpulist "$cpu-$cpu:1"] [r config get server_cpulist]
        assert_equal [list bio_cpulist $cpu] [r config get bio_cpulist]
        r set k v
        set lists [thread_cpu_lists [srv 0 pid]]
        assert_morethan [llength $lists] 1
        lsort -unique $lists
    } $cpu
}
