# ACL users (acl.c; issue 14, "Access control"): AUTH <user> <pass>, ACL
# WHOAMI, ACL SETUSER rules for commands, categories, keys and channels,
# ACL DELUSER, ACL USERS, and the -NOPERM refusals. Same replies from casq
# and redis-server for the same rules.

start_server {tags {"acl"}} {
    # Users the tests below share (made here: some tests are skipped on
    # servers older than 7.2, for Redis 7.2's error texts).
    r acl setuser reader on >pw +@read -@write +select +multi +exec +acl|whoami +client|info ~*

    test {ACL WHOAMI is default for a new connection} {
        r acl whoami
    } {default}

    test {ACL SETUSER creates a user; AUTH user pass switches to it} {
        r acl setuser alice on >alicepw +@all ~*
        set c [redis_client]
        set a [$c auth alice alicepw]
        set b [$c acl whoami]
        $c close
        list $a $b
    } {OK alice}

    test {AUTH with a wrong password, an unknown or a disabled user: WRONGPASS} {
        r acl setuser bob off >bobpw +@all ~*
        set c [redis_client]
        set e1 [catch {$c auth alice wrong} m1]
        set e2 [catch {$c auth nobody x} m2]
        set e3 [catch {$c auth bob bobpw} m3]
        set who [$c acl whoami]
        $c close
        list $m1 $m2 $m3 $who
    } {{WRONGPASS invalid username-password pair or user is disabled.} {WRONGPASS invalid username-password pair or user is disabled.} {WRONGPASS invalid username-password pair or user is disabled.} default}

    test {A user without a command gets NOPERM} {
        set c [redis_client]
        $c auth reader pw
        $c select 9
        r del mystream
        r xadd mystream * f v
        set len [$c xlen mystream]
        catch {$c xadd mystream * f v} e
        $c close
        list $len $e
    } {1 {NOPERM User reader has no permissions to run the 'xadd' command}} {redis7.2}

    test {+command and -command, +command|subcommand} {
        r acl setuser limited on >pw -@all +xlen +ping +client|id +select ~*
        set c [redis_client]
        $c auth limited pw
        set a [$c ping]
        set id [$c client id]
        catch {$c client setname x} e1
        catch {$c xrange mystream - +} e2
        $c close
        list $a [string is integer $id] $e1 $e2
    } {PONG 1 {NOPERM User limited has no permissions to run the 'client|setname' command} {NOPERM User limited has no permissions to run the 'xrange' command}} {redis7.2}

    test {Key patterns: ~jobs:* allows jobs:* keys only} {
        r acl setuser jobsonly on >pw +@all resetkeys ~jobs:*
        set c [redis_client]
        $c auth jobsonly pw
        $c select 9
        r del jobs:1 other
        set id [$c xadd jobs:1 * f v]
        catch {$c xadd other * f v} e1
        catch {$c xread streams jobs:1 other 0 0} e2
        set ok [llength [$c xread streams jobs:1 0]]
        $c close
        list $e1 $e2 $ok [r exists other]
    } {{NOPERM No permissions to access a key} {NOPERM No permissions to access a key} 1 0} {redis7.2}

    test {Channels: a new user has none; &pattern allows matching ones} {
        r acl setuser pub on >pw +@all ~*
        set c [redis_client]
        $c auth pub pw
        catch {$c publish news hi} e1
        r acl setuser pub &news.*
        set n [$c publish news.sport hi]
        catch {$c publish weather hi} e2
        $c close
        list $e1 $n $e2
    } {{NOPERM No permissions to access a channel} 0 {NOPERM No permissions to access a channel}} {redis7.2}

    test {ACL SETUSER errors name the modifier and change nothing} {
        catch {r acl setuser alice +nosuchcommand} e1
        catch {r acl setuser alice bogus} e2
        catch {r acl setuser alice ~* ~foo} e3
        catch {r acl setuser alice <notapassword} e4
        catch {r acl setuser alice #abc} e5
        catch {r acl setuser alice -@all +@nosuchcat} e6
        # Still has +@all: the failed rules changed nothing.
        set c [redis_client]
        $c auth alice alicepw
        set p [$c ping]
        $c close
        list $e1 $e2 $e3 $e4 $e5 $e6 $p
    } {{ERR Error in ACL SETUSER modifier '+nosuchcommand': Unknown command or category name in ACL} {ERR Error in ACL SETUSER modifier 'bogus': Syntax error} {ERR Error in ACL SETUSER modifier '~foo': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns} {ERR Error in ACL SETUSER modifier '<notapassword': The password you are trying to remove from the user does not exist} {ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters} {ERR Error in ACL SETUSER modifier '+@nosuchcat': Unknown command or category name in ACL} PONG}

    test {Passwords: several, removed with <, given as #sha256, nopass} {
        r acl setuser multi on >one >two +@all ~*
        r acl setuser multi <one
        set c [redis_client]
        set e [catch {$c auth multi one}]
        set two [$c auth multi two]
        # sha256("three")
        r acl setuser multi #8b5b9db0c13db24256c829aa364aa90c6d2eba318b9232a4ab9313b954d3555f
        set three [$c auth multi three]
        r acl setuser multi nopass
        set any [$c auth multi whatever]
        $c close
        list $e $two $three $any
    } {1 OK OK OK}

    test {%R~ and %W~ key permissions} {
        r acl setuser rw on >pw +@all resetkeys %R~in:* %W~out:* ~both:*
        r del in:1 out:1 both:1
        r xadd in:1 * f v
        set c [redis_client]
        $c auth rw pw
        $c select 9
        set a [$c xlen in:1]
        catch {$c xadd in:1 * f v} e1
        set b [string length [$c xadd out:1 * f v]]
        catch {$c xrange out:1 - +} e2
        set d [string length [$c xadd both:1 * f v]]
        set f [llength [$c xrange both:1 - +]]
        $c close
        list $a $e1 [expr {$b > 0}] $e2 [expr {$d > 0}] $f
    } {1 {NOPERM No permissions to access a key} 1 {NOPERM No permissions to access a key} 1 1} {redis7.2}

    test {%X~ is a syntax error} {
        catch {r acl setuser rw %X~foo} e
        set e
    } {ERR Error in ACL SETUSER modifier '%X~foo': Syntax error}

    test {ACL CAT lists the categories, and the commands of one} {
        set cats [r acl cat]
        set stream [r acl cat stream]
        catch {r acl cat nosuchcategory} e
        list [expr {"stream" in $cats && "admin" in $cats && "dangerous" in $cats}] \
             [expr {"xadd" in $stream && "xgroup|create" in $stream && "xlen" in $stream}] \
             [expr {"ping" in $stream}] $e
    } {1 1 0 {ERR Unknown category 'nosuchcategory'}}

    test {ACL DRYRUN} {
        r acl setuser dry on >pw -@all +xadd +publish ~jobs:* &news
        list [r acl dryrun dry xadd jobs:1 * f v] \
             [r acl dryrun dry xadd other * f v] \
             [r acl dryrun dry xlen jobs:1] \
             [r acl dryrun dry publish weather hi] \
             [r acl dryrun default xlen anything] \
             [catch {r acl dryrun nosuchuser ping} e1] $e1 \
             [catch {r acl dryrun dry nosuchcmd} e2] $e2 \
             [catch {r acl dryrun dry xadd onlykey} e3] $e3
    } {OK {User dry has no permissions to access the 'other' key} {User dry has no permissions to run the 'xlen' command} {User dry has no permissions to access the 'weather' channel} OK 1 {ERR User 'nosuchuser' not found} 1 {ERR Command 'nosuchcmd' not found} 1 {ERR wrong number of arguments for 'xadd' command}} {redis7.2}

    test {CLIENT KILL USER closes that user's connections only} {
        set c1 [redis_client]
        $c1 auth reader pw
        set c2 [redis_client]
        set n [r client kill user reader]
        set e [catch {$c1 ping}]
        set p [$c2 ping]
        catch {$c1 close}
        $c2 close
        catch {r client kill user nosuchuser} e2
        list $n $e $p $e2
    } {1 1 PONG {ERR No such user 'nosuchuser'}}

    test {Scripts run as their caller's user} {
        r acl setuser scripter on >pw +@all -xadd resetkeys ~jobs:*
        set c [redis_client]
        $c auth scripter pw
        $c select 9
        r del jobs:s
        catch {$c eval {return redis.call('xadd', KEYS[1], '*', 'f', 'v')} 1 jobs:s} e1
        catch {$c eval {return redis.call('xlen', 'other')} 0} e2
        catch {$c eval {return redis.call('xlen', KEYS[1])} 1 other} e3
        set ok [$c eval {return redis.call('xlen', KEYS[1])} 1 jobs:s]
        $c close
        list [string match {ERR ACL failure in script: User scripter has no permissions to run the 'xadd' command*} $e1] \
             [string match {ERR ACL failure in script: No permissions to access a key*} $e2] $e3 $ok
    } {1 1 {NOPERM No permissions to access a key} 0} {redis7.2}

    test {ACL LOG records refused commands, keys, channels and authentications} {
        r acl log reset
        r acl setuser logged on >pw -@all +xlen +publish +select +multi +exec ~jobs:* &news
        set c [redis_client]
        catch {$c auth logged wrongpw}
        $c auth logged pw
        $c select 9
        catch {$c xadd jobs:1 * f v}
        catch {$c xadd jobs:1 * f v}
        catch {$c xlen other}
        catch {$c publish weather hi}
        $c close
        set log [r acl log]
        set out {}
        foreach e $log {
            lappend out [list [dict get $e reason] [dict get $e context] [dict get $e object] [dict get $e username] [dict get $e count]]
        }
        set first [lindex $log 0]
        list $out [expr {[dict get $first age-seconds] < 5}] [string match {id=*} [dict get $first client-info]] \
             [llength [r acl log 1]] [r acl log reset] [llength [r acl log]]
    } {{{channel toplevel weather logged 1} {key toplevel other logged 1} {command toplevel xadd logged 2} {auth toplevel auth logged 1}} 1 1 1 OK 0}

    test {ACL LOG in MULTI and INFO acl_access_denied_*} {
        r config resetstat
        set c [redis_client]
        $c auth logged pw
        $c multi
        catch {$c xadd jobs:1 * f v}
        catch {$c exec}
        $c close
        set e [lindex [r acl log] 0]
        list [dict get $e context] [dict get $e reason] [s acl_access_denied_cmd] [s acl_access_denied_auth]
    } {multi command 1 0} {redis7.2}

    # Redis 7.2 keeps the command rules in the order given (command_rules);
    # 7.0 computed them from the permissions.
    test {ACL GETUSER and ACL LIST describe users as given} {
        r acl setuser desc on >p +@all ~*
        r acl setuser desc2 on >p -@all +@read +xlen -xlen +ping %R~in:* ~x &ch
        r acl setuser desc3
        list [r acl getuser desc] [r acl getuser desc2] [r acl getuser desc3] [r acl getuser nosuchuser] \
             [lsearch -inline -glob [r acl list] {user desc *}] \
             [lsearch -inline -glob [r acl list] {user desc2 *}] \
             [lsearch -inline -glob [r acl list] {user desc3 *}]
    } {{flags on passwords 148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 commands +@all keys ~* channels {} selectors {}} {flags on passwords 148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 commands {-@all +@read -xlen +ping} keys {%R~in:* ~x} channels &ch selectors {}} {flags off passwords {} commands -@all keys {} channels {} selectors {}} {} {user desc on #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 ~* resetchannels +@all} {user desc2 on #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 %R~in:* ~x resetchannels &ch -@all +@read -xlen +ping} {user desc3 off resetchannels -@all}} {redis7.2}

    test {ACL GETUSER default} {
        r acl getuser default
    } {flags {on nopass} passwords {} commands +@all keys ~* channels &* selectors {}}

    test {Spaces in user names and patterns are refused} {
        catch {r acl setuser "a b" on} e1
        catch {r acl setuser sp "~a b"} e2
        catch {r acl setuser sp "&a b"} e3
        list $e1 $e2 $e3
    } {{ERR Usernames can't contain spaces or null characters} {ERR Error in ACL SETUSER modifier '~a b': Syntax error} {ERR Error in ACL SETUSER modifier '&a b': Syntax error}}

    test {ACL SETUSER arguments are redacted in SLOWLOG} {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r acl setuser secretive on >topsecret
        set entry [lindex [r slowlog get 1] 0]
        r config set slowlog-log-slower-than 10000
        lindex $entry 3
    } {acl setuser (redacted) (redacted) (redacted)}

    test {ACL GENPASS} {
        set a [r acl genpass]
        set b [r acl genpass]
        set c [r acl genpass 5]
        catch {r acl genpass 5000} e1
        catch {r acl genpass -1} e2
        list [string length $a] [regexp {^[0-9a-f]+$} $a] [expr {$a ne $b}] [string length $c] $e1 $e2
    } {64 1 1 2 {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096} {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096}}

    test {reset: sanitize-payload; skip-sanitize-payload is a flag} {
        r acl setuser fl reset
        set a [dict get [r acl getuser fl] flags]
        r acl setuser fl on skip-sanitize-payload
        set b [dict get [r acl getuser fl] flags]
        list $a $b [lsearch -inline -glob [r acl list] {user fl *}]
    } {{off sanitize-payload} {on skip-sanitize-payload} {user fl on skip-sanitize-payload resetchannels -@all}}

    test {acl-pubsub-default allchannels: new users get &*} {
        r config set acl-pubsub-default allchannels
        r acl setuser pubdef on
        set a [dict get [r acl getuser pubdef] channels]
        r config set acl-pubsub-default resetchannels
        r acl setuser pubdef2 on
        set b [dict get [r acl getuser pubdef2] channels]
        list $a $b [lindex [r config get acl-pubsub-default] 1]
    } {&* {} resetchannels}

    test {Selectors: described by GETUSER and LIST, errors} {
        r acl setuser s on >p ~a* +xlen {(~b*} {+xadd)} {(%R~c* &ch +@read)}
        set g [r acl getuser s]
        set l [lsearch -inline -glob [r acl list] {user s *}]
        catch {r acl setuser s2 {(~x}} e1
        catch {r acl setuser s3 {(on)}} e2
        catch {r acl setuser s4 {(~x +nosuchcmd)}} e3
        r acl setuser s5 on >p {(~x +xlen)} clearselectors
        list [dict get $g commands] [dict get $g keys] [dict get $g selectors] $l $e1 $e2 $e3 \
             [dict get [r acl getuser s5] selectors]
    } {{-@all +xlen} ~a* {{commands {-@all +xadd} keys ~b* channels {}} {commands {-@all +@read} keys %R~c* channels &ch}} {user s on #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 ~a* resetchannels -@all +xlen (~b* resetchannels -@all +xadd) (%R~c* resetchannels &ch -@all +@read)} {ERR Unmatched parenthesis in acl selector starting at '(~x'.} {ERR Error in ACL SETUSER modifier '(on)': Syntax error} {ERR Error in ACL SETUSER modifier '(~x +nosuchcmd)': Unknown command or category name in ACL} {}}

    test {Selectors: a command runs if the user or one selector allows all of it} {
        r acl setuser sel on >p resetkeys ~a* +xlen +select {(~b* +xadd)} {(%R~c* +@read)}
        r del a1 b1 c1
        r xadd c1 * f v
        set c [redis_client]
        $c auth sel p
        $c select 9
        set r1 [$c xlen a1]
        set r2 [string length [$c xadd b1 * f v]]
        catch {$c xadd a1 * f v} e1
        set r3 [$c xlen c1]
        catch {$c xadd c1 * f v} e2
        $c close
        list $r1 [expr {$r2 > 0}] $e1 $r3 $e2
    } {0 1 {NOPERM No permissions to access a key} 1 {NOPERM No permissions to access a key}} {redis7.2}

    test {ACL USERS lists the users, sorted} {
        r acl setuser zed
        r acl setuser abe
        set l [r acl users]
        list [expr {[lsearch $l zed] >= 0 && [lsearch $l abe] >= 0}] [expr {$l eq [lsort $l]}] [expr {"default" in $l}]
    } {1 1 1}

    test {ACL DELUSER removes users and closes their connections} {
        set c [redis_client]
        $c auth alice alicepw
        set n [r acl deluser alice nosuchuser]
        set e [catch {$c ping}]
        catch {$c close}
        catch {r acl deluser default} e2
        list $n $e [lsearch [r acl users] alice] $e2
    } {1 1 -1 {ERR The 'default' user cannot be removed}}

    test {RESET goes back to the default user} {
        set c [redis_client]
        $c auth reader pw
        set a [$c acl whoami]
        $c reset
        set b [$c acl whoami]
        $c close
        list $a $b
    } {reader default}

    test {HELLO AUTH with a user} {
        set c [redis_client]
        set h [$c hello 2 auth reader pw]
        set w [$c acl whoami]
        $c close
        set w
    } {reader}

    test {CLIENT LIST shows the user} {
        set c [redis_client]
        $c auth reader pw
        set l [$c client info]
        $c close
        regexp { user=reader } $l
    } {1}

    test {NOPERM inside MULTI aborts EXEC} {
        set c [redis_client]
        $c auth reader pw
        $c select 9
        $c multi
        catch {$c xadd mystream * f v} e
        catch {$c exec} e2
        $c close
        list $e $e2
    } {{NOPERM User reader has no permissions to run the 'xadd' command} {EXECABORT Transaction discarded because of previous errors.}} {redis7.2}
}

start_server {tags {"acl"} overrides {requirepass secret}} {
    test {AUTH default <requirepass> and ACL users when requirepass is set} {
        r auth secret
        r acl setuser worker on >wpw +@stream +ping ~jobs:*
        set c [redis_client]
        catch {$c ping} e
        set a [$c auth worker wpw]
        set b [$c ping]
        set d [$c auth default secret]
        set w [$c acl whoami]
        $c close
        list $e $a $b $d $w
    } {{NOAUTH Authentication required.} OK PONG OK default}
}
