#!/usr/bin/python3
"""valgrind_session.py -- a scripted session against casq running under
valgrind (memcheck, --leak-check=full). The server is stopped with
SHUTDOWN, so it exits through its normal path and valgrind checks for
leaks: any memory error or leak makes valgrind exit 1 and the run fail.

    /usr/bin/python3 tests/integration/valgrind_session.py    (make valgrind-test)

The session reuses the redis-py and raw-protocol checks of the other
integration tests (streams, consumer groups, blocking reads, MULTI/WATCH,
protocol errors, partial requests) and adds clients that vanish while
blocked, inside MULTI or WATCHing, and segments sealed, rewritten and
deleted. Ends with `N passed, N failed`.
"""
import os
import re
import shutil
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casqtest  # noqa: E402
import bad_input  # noqa: E402
import python_client  # noqa: E402
import tls  # noqa: E402

import redis  # noqa: E402

VALGRIND = ["valgrind", "--error-exitcode=1", "--leak-check=full",
            "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind.supp"),
            "--show-leak-kinds=definite,indirect,possible",
            "--errors-for-leak-kinds=definite,indirect,possible", "--track-fds=no", "--num-callers=30"]


def vanishing_clients(port, t):
    r = redis.Redis(port=port)
    r.delete("vq")
    r.xgroup_create("vq", "g", id="$", mkstream=True)
    # Blocked in XREADGROUP and XREAD, then gone.
    for cmd in (b"XREADGROUP GROUP g c1 BLOCK 0 STREAMS vq >\r\n", b"XREAD BLOCK 0 STREAMS vq $\r\n"):
        s = casqtest.raw_connect(port)
        s.sendall(cmd)
        for _ in range(1000):
            if r.info("clients")["blocked_clients"] >= 1:
                break
        s.close()
    # Inside MULTI with queued commands, and WATCHing, then gone.
    s = casqtest.raw_connect(port)
    s.sendall(b"WATCH vq\r\nMULTI\r\nXADD vq * a b\r\nXLEN vq\r\n")
    casqtest.read_exact_replies(s, 4)
    s.close()
    # Half a request, then gone.
    s = casqtest.raw_connect(port)
    s.sendall(b"*3\r\n$4\r\nXADD\r\n$2\r\nvq\r\n$100\r\nabc")
    s.close()
    # CLIENT KILL of a blocked client.
    s = casqtest.raw_connect(port)
    s.sendall(b"CLIENT ID\r\n")
    victim = int(casqtest.read_exact_replies(s, 1)[0][1:])
    s.sendall(b"XREAD BLOCK 0 STREAMS vq $\r\n")
    for _ in range(1000):
        if r.info("clients")["blocked_clients"] >= 1:
            break
    t.eq("CLIENT KILL ID of a blocked client", 1, r.execute_command("CLIENT", "KILL", "ID", victim))
    s.close()
    r.xadd("vq", {"after": "1"})
    t.eq("stream intact after the vanishing clients", 1, r.xlen("vq"))
    t.eq("nobody blocked", 0, r.info("clients")["blocked_clients"])
    r.close()


def expire_and_config(port, t):
    r = redis.Redis(port=port)
    r.xadd("tmp", {"a": "b"})
    r.pexpire("tmp", 1)
    r.xadd("tmp2", {"a": "b"})
    r.expire("tmp2", 1000)
    r.config_set("hz", "50")
    t.check("INFO all", "redis_version" in r.info("all"))
    s = casqtest.raw_connect(port, timeout=300)
    s.sendall(b"COMMAND DOCS\r\nCOMMAND\r\nCOMMAND GETKEYS XREAD STREAMS a b 0 0\r\n")
    docs, cmds, keys = casqtest.read_exact_replies(s, 3)
    s.close()
    t.check("COMMAND DOCS / COMMAND / GETKEYS", docs.startswith(b"*") and cmds.startswith(b"*") and
            keys == b"*2\r\n$1\r\na\r\n$1\r\nb\r\n", keys)
    t.check("CLIENT LIST", b"cmd=client|list" in r.execute_command("CLIENT", "LIST"))
    r.swapdb(0, 1)
    r.swapdb(0, 1)
    r.close()


def scripting(port, t):
    """Lua (script_lua.c, eval.c, functions.c): the libraries, RESP3
    conversions, errors raised from C and Lua, FUNCTION LOAD / REPLACE /
    DUMP / RESTORE / DELETE / FLUSH and both interpreters thrown away
    (SCRIPT FLUSH, FUNCTION FLUSH), so that every path frees what it holds."""
    r = redis.Redis(port=port)
    body = ("redis.setresp(3) redis.call('hset', KEYS[1], 'a', '1') local m = redis.call('hgetall', KEYS[1]) "
            "local p = cmsgpack.pack({1, 'x', {k = 2.5}}) local u = cmsgpack.unpack(p) "
            "return {cjson.encode(u), struct.pack('>I4', 7), bit.tohex(255), m.map.a, {double = 1.5}}")
    t.check("EVAL with every library and RESP3", len(r.eval(body, 1, "vgh")) == 5)
    for bad in ("return foo", "error('x')", "error({err='MY e'})", "return redis.call('nosuch')",
                "string.x = 1", "rawset(_G, 'x', 1)", "return cmsgpack.unpack('\\220\\255')", "syntax error"):
        try:
            r.eval(bad, 0)
            t.check("script error: " + bad, False)
        except redis.ResponseError:
            t.check("script error: " + bad, True)
    lib = ("#!lua name=vglib\n"
           "redis.register_function('vgf', function(keys, args) return redis.call('incr', keys[1]) end)\n"
           "redis.register_function{function_name='vgro', callback=function() return 1 end, flags={'no-writes'},"
           " description='d'}")
    t.eq("FUNCTION LOAD", b"vglib", r.execute_command("FUNCTION", "LOAD", lib))
    t.eq("FUNCTION LOAD REPLACE", b"vglib", r.execute_command("FUNCTION", "LOAD", "REPLACE", lib))
    t.eq("FCALL", 1, r.execute_command("FCALL", "vgf", 1, "vgcount"))
    payload = r.execute_command("FUNCTION", "DUMP")
    for bad in ("#!lua name=vglib\nredis.register_function('vgf', function() end)", "#!lua name=e\nsyntax error",
                "#!lua name=e\nredis.register_function('a', function() end) redis.register_function('a', 1)"):
        try:
            r.execute_command("FUNCTION", "LOAD", bad)
            t.check("FUNCTION LOAD refused", False)
        except redis.ResponseError:
            t.check("FUNCTION LOAD refused", True)
    try:
        r.execute_command("FUNCTION", "RESTORE", payload)
        t.check("FUNCTION RESTORE conflict refused", False)
    except redis.ResponseError:
        t.check("FUNCTION RESTORE conflict refused", True)
    t.eq("FUNCTION RESTORE REPLACE", b"OK", r.execute_command("FUNCTION", "RESTORE", payload, "REPLACE"))
    t.check("FUNCTION LIST WITHCODE", len(r.execute_command("FUNCTION", "LIST", "WITHCODE")) == 1)
    t.eq("FUNCTION DELETE", b"OK", r.execute_command("FUNCTION", "DELETE", "vglib"))
    t.eq("FUNCTION RESTORE FLUSH", b"OK", r.execute_command("FUNCTION", "RESTORE", payload, "FLUSH"))
    t.eq("FUNCTION FLUSH", b"OK", r.execute_command("FUNCTION", "FLUSH"))
    t.eq("FUNCTION RESTORE again", b"OK", r.execute_command("FUNCTION", "RESTORE", payload))
    t.eq("SCRIPT FLUSH", True, r.script_flush())
    r.close()


def acl_users(port, t):
    """ACL users (acl.c): made, used, refused, logged, described, replaced
    and deleted while connected, so that every path frees what it holds."""
    r = redis.Redis(port=port)
    r.execute_command("ACL", "SETUSER", "vg", "on", ">pw", "+@stream", "+ping", "~jobs:*", "&news",
                      "(~other:* +xlen)")
    r.execute_command("ACL", "SETUSER", "vg", "<pw", ">pw2", "-xdel")
    u = redis.Redis(port=port, username="vg", password="pw2")
    t.check("ACL user writes its keys", bool(u.xadd("jobs:1", {"f": "v"})))
    for bad in (lambda: u.xadd("other", {"f": "v"}), lambda: u.execute_command("GET", "x"),
                lambda: u.publish("weather", "x"), lambda: redis.Redis(port=port, username="vg", password="no").ping()):
        try:
            bad()
        except redis.RedisError:
            pass
    t.check("ACL LOG has entries", len(r.execute_command("ACL", "LOG")) >= 3)
    t.check("ACL GETUSER / LIST / DRYRUN / CAT",
            r.execute_command("ACL", "GETUSER", "vg") is not None and len(r.execute_command("ACL", "LIST")) == 2 and
            r.execute_command("ACL", "DRYRUN", "vg", "xlen", "other:1") == b"OK" and
            len(r.execute_command("ACL", "CAT", "stream")) > 5)
    r.execute_command("ACL", "DELUSER", "vg")
    try:
        u.ping()
    except redis.RedisError:
        pass
    r.execute_command("ACL", "LOG", "RESET")
    r.execute_command("ACL", "SETUSER", "vg2", "on", "nopass", "+@all", "~*")
    u.close()
    r.close()


def segments(port, t):
    """Sealing, rewriting and deleting segments (docs/state-format.md)."""
    import time
    r = redis.Redis(port=port, socket_timeout=300)
    for k, v in (("segment-seal-bytes", "4kb"), ("segment-max-bytes", "16kb"), ("segment-gc-grace", "0"),
                 ("broker-timeout", "1000"), ("key-seal-quiet", "0")):
        # broker-timeout 1000, not less: under valgrind a shorter one can
        # leave the broker's state unconfirmed (-TRYAGAIN) between probes.
        r.config_set(k, v)
    # A lower broker-timeout applies at once: wait for the broker's next
    # confirmation (probes every 250 ms now) before the first command.
    deadline = time.time() + 30
    while time.time() < deadline and int(r.info("persistence")["broker_confirmed_ms_ago"]) > 500:
        time.sleep(0.05)
    r.delete("vseg")
    p = r.pipeline(transaction=False)
    for i in range(400):
        p.set("vk:%d" % i, "value-%d" % i)
        p.hset("vh:%d" % i, mapping={"a": i, "b": "x" * 20})
    p.execute()
    p = r.pipeline(transaction=False)
    for i in range(1500):
        p.xadd("vseg", {"n": i, "p": "payload-%d" % i})
    # A big list and sorted set: their middles go to chunk segments.
    p.rpush("vlist", *["job-%06d-payload" % i for i in range(6000)])
    p.zadd("vzset", {"member-%06d" % i: i for i in range(4000)})
    p.execute()
    r.xtrim("vseg", maxlen=700)
    ids = [eid for eid, _ in r.xrange("vseg", "-", "+")][::5]
    r.xdel("vseg", *ids)
    deadline = time.time() + 60
    info = {}
    while time.time() < deadline:
        info = r.info("persistence")
        if (int(info["segments_sealed"]) > 0 and int(info["segments_deleted"]) > 0
                and int(info["key_segments_sealed"]) > 0 and int(info["chunk_segments_sealed"]) > 0):
            break
        time.sleep(0.2)
    t.check("segments sealed (%s) and garbage deleted (%s) under valgrind"
            % (info.get("segments_sealed"), info.get("segments_deleted")),
            int(info.get("segments_sealed", 0)) > 0 and int(info.get("segments_deleted", 0)) > 0)
    t.check("the stream reads back whole", r.xlen("vseg") == 700 - len(ids))
    t.check("keys sealed into key segments (%s) under valgrind" % info.get("key_segments_sealed"),
            int(info.get("key_segments_sealed", 0)) > 0)
    t.check("list and sorted set chunks sealed into chunk segments (%s) under valgrind"
            % info.get("chunk_segments_sealed"), int(info.get("chunk_segments_sealed", 0)) > 0)
    r.lpop("vlist", 2000)
    r.lset("vlist", 2000, "changed")
    r.zrem("vzset", "member-002000")
    r.zadd("vzset", {"member-001000": -1})
    t.check("sealed chunks change and read back",
            r.llen("vlist") == 4000 and r.lindex("vlist", 2000) == b"changed"
            and r.lindex("vlist", 0) == b"job-002000-payload" and r.zcard("vzset") == 3999
            and r.zrange("vzset", 0, 0) == [b"member-001000"])
    r.set("vk:3", "changed")
    r.delete("vh:4")
    t.check("sealed keys change and read back", r.get("vk:3") == b"changed" and not r.exists("vh:4")
            and r.hget("vh:5", "a") == b"5")
    r.delete("vseg", "vlist", "vzset", *["vk:%d" % i for i in range(400)], *["vh:%d" % i for i in range(400)])
    r.config_set("broker-timeout", "5000")


def commit_log_replay(srv, t):
    """Records in the commit log (docs/state-format.md), SIGKILL, and the
    same server started again replays them: the process whose exit
    valgrind checks is one that loaded through the log."""
    r = redis.Redis(port=srv.port, socket_timeout=300)
    r.set("log:s", "v")
    r.hset("log:h", mapping={"a": "1", "b": "2"})
    ids = [r.xadd("log:jobs", {"n": str(i)}, maxlen=3, approximate=False) for i in range(5)]
    r.xgroup_create("log:jobs", "g", id="0")
    r.xreadgroup("g", "c", {"log:jobs": ">"}, count=2)
    r.xack("log:jobs", "g", ids[2])
    r.delete("log:s")
    r.zadd("log:z", {"m": 1})
    r.close()
    t.check("commit log: the changes are records", os.path.getsize(os.path.join(srv.dir, "queue.json.log")) > 0)
    t.check("commit log: SIGKILL and a restart under valgrind", srv.kill_and_restart())
    r = redis.Redis(port=srv.port, socket_timeout=300)
    t.check("commit log: replayed", r.hgetall("log:h") == {b"a": b"1", b"b": b"2"} and not r.exists("log:s")
            and [e[0] for e in r.xrange("log:jobs")] == ids[2:] and r.xpending("log:jobs", "g")["pending"] == 1)
    r.close()


def main():
    t = casqtest.Results("valgrind")
    # TLS too: handshakes, refusals, reloading the certificates.
    certs = tls.Certs()
    tport = tls.free_port(int(os.environ.get("CASQ_PORT_BASE", "28000")))
    srv = casqtest.Server(wrapper=VALGRIND, args=["--tls-port", str(tport),
                                                  "--tls-cert-file", certs.path("server.crt"),
                                                  "--tls-key-file", certs.path("server.key"),
                                                  "--tls-ca-cert-file", certs.path("ca.crt")]).start()
    try:
        port = srv.port
        print("# casq under valgrind on port %d (TLS %d)" % (port, tport))
        pool = redis.ConnectionPool(host="127.0.0.1", port=port, socket_timeout=300)
        r = redis.Redis(connection_pool=pool)
        steps = [("commit log replay", commit_log_replay, (srv, t)),
                 ("basics", python_client.session_basics, (r, t)),
                 ("errors", python_client.session_errors, (r, t)),
                 ("dead worker", python_client.session_dead_worker, (pool, t)),
                 ("pipelines", python_client.session_pipelines, (pool, t)),
                 ("resp3", python_client.session_resp3, (port, t)),
                 ("protocol errors", bad_input.protocol_errors, (port, t)),
                 ("empty and partial", bad_input.empty_and_partial, (port, t)),
                 ("vanishing clients", vanishing_clients, (port, t)),
                 ("expire and config", expire_and_config, (port, t)),
                 ("acl users", acl_users, (port, t)),
                 ("scripting", scripting, (port, t)),
                 ("tls redis-cli", tls.session_redis_cli, (certs, srv, tport, t)),
                 ("tls redis-py", tls.session_redis_py, (certs, srv, tport, t)),
                 ("tls slow reader", tls.session_slow_reader, (certs, srv, tport, t)),
                 ("tls refusals", tls.session_refusals, (certs, srv, tport, t)),
                 ("tls config", tls.session_config, (certs, srv, tport, t)),
                 ("segments", segments, (port, t))]
        for name, fn, args in steps:
            t.run(name, fn, *args)
        pool.disconnect()
        t.check("server still alive", srv.alive())
    finally:
        ok = srv.stop(t, how="shutdown")
    summary = [line for line in srv.last_log.splitlines()
               if re.search(r"ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|in use at exit", line)]
    shutil.rmtree(certs.dir, ignore_errors=True)
    print("\n".join(summary) if summary else "(no valgrind summary in the log)")
    t.check("valgrind printed its summary", bool(summary))
    if not ok:
        print(casqtest.tail(srv.last_log, 80))
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
