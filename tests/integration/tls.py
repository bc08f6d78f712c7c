#!/usr/bin/python3
"""tls.py -- TLS on tls-port: redis-cli --tls, redis-py ssl=True, Python's ssl.

    /usr/bin/python3 tests/integration/tls.py
    CASQ_SERVER=redis /usr/bin/python3 tests/integration/tls.py

Makes a throw-away CA, a server certificate, a client certificate and one
from a CA the server does not trust (the `openssl` command), starts the
server with a plain port and a TLS port, and checks: redis-cli --tls and
redis-py over TLS (PING, XADD, XRANGE, a durable XADD that is in the state
document when its reply arrives, XREADGROUP/XACK, a 1 MB value, a pipeline);
with tls-auth-clients yes a client without a certificate, or with an
untrusted one, is refused and the refusal is logged; a plain-text client and
a silent client on the TLS port are dropped/ignored without harming
established clients; AUTH, ACL users, maxclients and protected mode
(-DENIED readable over TLS) apply to TLS clients; a slow reader gets
megabytes of replies intact while the server's TLS writes stop and resume;
a TLS client of a follower is relayed to the broker; CONFIG SET of tls-*
reloads the certificates (a bad file is refused and changes nothing),
tls-auth-clients optional, tls-protocols; tls-port is immutable; INFO's
listener line; a TLS-only server (port 0); bad TLS files stop the start-up.
Ends with `N passed, N failed`.
"""
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casqtest  # noqa: E402

import redis  # noqa: E402

KIND = os.environ.get("CASQ_SERVER", "casq")


# ------------------------------------------------------------------------
# Certificates
# ------------------------------------------------------------------------

def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", name + ".key", "-out", name + ".crt",
            "-days", "2", "-subj", "/CN=casq test " + name, cwd=d)


def make_cert(d, ca, name, cn, server=False):
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
            "-subj", "/CN=" + cn, cwd=d)
    ext = os.path.join(d, name + ".ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n" if server else "extendedKeyUsage=clientAuth\n")
    openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key", "-CAcreateserial",
            "-out", name + ".crt", "-days", "2", "-extfile", ext, cwd=d)


class Certs:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="casq-tls.")
        make_ca(self.dir, "ca")
        make_ca(self.dir, "otherca")
        make_cert(self.dir, "ca", "server", "casq-server-one", server=True)
        make_cert(self.dir, "ca", "server2", "casq-server-two", server=True)
        make_cert(self.dir, "ca", "client", "casq-client")
        make_cert(self.dir, "otherca", "stranger", "casq-stranger")
        openssl("pkey", "-in", "server2.key", "-out", "server2.enc.key", "-aes256", "-passout", "pass:hunter2",
                cwd=self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)


def free_port(base, avoid=()):
    port = base + 500 + os.getpid() % 300
    for _ in range(200):
        port = base + (port - base + 11) % 1000
        if port not in avoid and casqtest.port_is_free(port):
            return port
    raise RuntimeError("no free port")


# ------------------------------------------------------------------------
# Clients
# ------------------------------------------------------------------------

def cli(certs, port, *args, cert=True, timeout=30):
    cmd = ["redis-cli", "--tls", "--cacert", certs.path("ca.crt"), "-p", str(port)]
    if cert:
        cmd += ["--cert", certs.path("client.crt"), "--key", certs.path("client.key")]
    p = subprocess.run(cmd + list(args), capture_output=True, timeout=timeout)
    return p.stdout + p.stderr


def ssl_context(certs, client="client", minv=None, maxv=None):
    ctx = ssl.create_default_context(cafile=certs.path("ca.crt"))
    if client:
        ctx.load_cert_chain(certs.path(client + ".crt"), certs.path(client + ".key"))
    if minv:
        ctx.minimum_version = minv
    if maxv:
        ctx.maximum_version = maxv
    return ctx


def tls_exchange(ctx, port, payload=b"PING\r\n"):
    """Connects with ctx, sends payload, returns what came back (b"" when
    the server closed), or the exception's text."""
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            s.sendall(payload)
            return s.recv(1024)
    except (OSError, ssl.SSLError) as e:
        return "error: %s" % e


def peer_cn(ctx, port):
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        subject = dict(x[0] for x in s.getpeercert()["subject"])
        s.sendall(b"PING\r\n")
        s.recv(64)
        return subject.get("commonName")


def tls_redis(certs, port, client="client", **kw):
    args = dict(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=certs.path("ca.crt"), socket_timeout=30)
    if client:
        args.update(ssl_certfile=certs.path(client + ".crt"), ssl_keyfile=certs.path(client + ".key"))
    args.update(kw)
    return redis.Redis(**args)


# ------------------------------------------------------------------------
# Sessions
# ------------------------------------------------------------------------

def session_redis_cli(certs, srv, tport, t):
    t.eq("redis-cli --tls PING", b"PONG\n", cli(certs, tport, "PING"))
    out = cli(certs, tport, "XADD", "clijobs", "*", "job", "1")
    t.check("redis-cli --tls XADD returns an id", out.strip()[:1].isdigit() and b"-" in out, out)
    t.eq("redis-cli --tls XRANGE", out + b"job\n1\n", cli(certs, tport, "XRANGE", "clijobs", "-", "+"))
    t.eq("the plain port sees the same stream", b"1\n",
         subprocess.run(["redis-cli", "-p", str(srv.port), "XLEN", "clijobs"], capture_output=True).stdout)


def session_redis_py(certs, srv, tport, t):
    r = tls_redis(certs, tport)
    t.check("redis-py ssl=True PING", r.ping() is True)
    eid = r.xadd("jobs", {"job": "durable-1"})
    if KIND == "casq":
        # The reply comes only after the group commit: the entry is stored
        # (in the commit log after the root, docs/state-format.md).
        doc = b""
        for name in ("queue.json", "queue.json.log"):
            if os.path.exists(os.path.join(srv.dir, name)):
                with open(os.path.join(srv.dir, name), "rb") as f:
                    doc += f.read()
        t.check("a TLS XADD is in the state document when its reply arrives", eid in doc, doc[:300])
    r.xgroup_create("jobs", "workers", id="0")
    got = r.xreadgroup("workers", "alice", {"jobs": ">"}, count=10)
    t.eq("XREADGROUP over TLS", [[b"jobs", [(eid, {b"job": b"durable-1"})]]], got)
    t.eq("XACK over TLS", 1, r.xack("jobs", "workers", eid))
    big = os.urandom(1 << 20)
    r.set("big", big)
    t.check("a 1 MB value goes both ways intact", r.get("big") == big)
    p = r.pipeline(transaction=False)
    for i in range(2000):
        p.xadd("piped", {"n": str(i)})
    ids = p.execute()
    t.check("a pipeline of 2000 XADDs over TLS", len(ids) == 2000 and r.xlen("piped") == 2000, len(ids))
    hello = tls_exchange(ssl_context(certs), tport, b"HELLO 3\r\n")
    t.check("RESP3 over TLS (HELLO 3)", isinstance(hello, bytes) and hello.startswith(b"%"), hello)
    r.close()


def session_slow_reader(certs, srv, tport, t):
    """A client that sends batches without reading: the server's TLS writes
    stop on a full socket and resume later with more replies queued behind
    (a retried SSL_write must start with the same bytes). Every reply must
    arrive intact and in order."""
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    val = os.urandom(100000)
    r.set("slowbig", val)
    raw = socket.create_connection(("127.0.0.1", tport), timeout=30)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    with ssl_context(certs).wrap_socket(raw, server_hostname="localhost") as s:
        batches, per = 8, 8
        for b in range(batches):
            s.sendall(b"GET slowbig\r\n" * per + b"XADD slowlog * n %d\r\n" % b)
            time.sleep(0.02)
        replies = casqtest.read_exact_replies(s, batches * (per + 1))
    get = b"$100000\r\n" + val + b"\r\n"
    shape = [get if i % (per + 1) < per else "id" for i in range(batches * (per + 1))]
    got = [x if x == get else ("id" if x.startswith(b"$") and b"-" in x else x[:60]) for x in replies]
    t.check("a slow TLS reader gets %d MB of replies intact and in order" % (batches * per // 10), got == shape,
            [g for g in got if g not in (get, "id")][:3])
    t.eq("...and its XADDs are there", batches, r.xlen("slowlog"))
    r.close()


def session_refusals(certs, srv, tport, t):
    survivor = tls_redis(certs, tport)
    survivor.ping()
    out = cli(certs, tport, "PING", cert=False)
    t.check("tls-auth-clients yes: redis-cli without a certificate is refused", b"PONG" not in out, out)
    try:
        tls_redis(certs, tport, client=None).ping()
        t.check("tls-auth-clients yes: redis-py without a certificate is refused", False)
    except redis.exceptions.ConnectionError:
        t.check("tls-auth-clients yes: redis-py without a certificate is refused", True)
    out = tls_exchange(ssl_context(certs, "stranger"), tport)
    t.check("a certificate from an untrusted CA is refused", b"PONG" not in (out if isinstance(out, bytes) else b""),
            out)
    if KIND == "casq":
        log = srv.log()
        t.check("the refusal is logged", "Error accepting a client connection" in log and
                "peer did not return a certificate" in log, casqtest.tail(log, 10))

    s = socket.create_connection(("127.0.0.1", tport), timeout=10)
    s.sendall(b"PING\r\n")
    data, closed = casqtest.read_until_closed(s)
    s.close()
    t.check("a plain-text client on the TLS port is dropped", closed and b"PONG" not in data, data)
    silent = socket.create_connection(("127.0.0.1", tport), timeout=10)  # never says hello
    garbage = socket.create_connection(("127.0.0.1", tport), timeout=10)
    garbage.sendall(os.urandom(4096))
    t.check("established TLS clients are unharmed", survivor.ping() is True and survivor.xlen("jobs") == 1)
    t.eq("new TLS clients are served while a handshake stalls", b"PONG\n", cli(certs, tport, "PING"))
    t.eq("the plain port still works", b"PONG\n",
         subprocess.run(["redis-cli", "-p", str(srv.port), "PING"], capture_output=True).stdout)
    garbage.close()
    if KIND == "casq":
        before = srv.log().count("Error accepting a client connection")
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", tport), timeout=10)
            s.sendall(b"GET / HTTP/1.0\r\n\r\n")
            casqtest.read_until_closed(s)
            s.close()
        logged = srv.log().count("Error accepting a client connection") - before
        t.check("40 refused handshakes in a burst log at most a few lines", 0 <= logged <= 3, logged)
        t.check("...and the server is fine", survivor.ping() is True)
    survivor.close()
    # `timeout` closes a client that never finishes its handshake (and
    # every other idle one: fresh connections below).
    redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30).config_set("timeout", "1")
    try:
        silent.settimeout(8)
        data, closed = casqtest.read_until_closed(silent)
        t.check("timeout closes a client stuck before its handshake", closed and data == b"", (data, closed))
    finally:
        redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30).config_set("timeout", "0")
        silent.close()


def session_auth(certs, srv, tport, t):
    plain = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    plain.config_set("requirepass", "s3cret")
    try:
        r = tls_redis(certs, tport)
        try:
            r.ping()
            t.check("requirepass applies to TLS clients", False)
        except redis.exceptions.AuthenticationError:
            t.check("requirepass applies to TLS clients", True)
        r.close()
        r = tls_redis(certs, tport, password="s3cret")
        t.check("AUTH over TLS", r.ping() is True)
        r.execute_command("ACL", "SETUSER", "tlsworker", "on", ">pw", "+ping", "+xlen", "~jobs")
        u = tls_redis(certs, tport, username="tlsworker", password="pw")
        t.check("an ACL user over TLS", u.ping() is True and u.xlen("jobs") == 1)
        try:
            u.xadd("jobs", {"x": "1"})
            t.check("...and its rules apply", False)
        except redis.exceptions.NoPermissionError:
            t.check("...and its rules apply", True)
        u.close()
        r.execute_command("ACL", "DELUSER", "tlsworker")
        r.config_set("requirepass", "")
        r.close()
    finally:
        plain.close()


def session_config(certs, srv, tport, t):
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    got = r.config_get("tls-*")
    t.eq("CONFIG GET tls-port", str(tport), got.get("tls-port"))
    t.eq("CONFIG GET tls-auth-clients default", "yes", got.get("tls-auth-clients"))
    t.check("CONFIG GET lists the tls directives",
            {"tls-cert-file", "tls-key-file", "tls-ca-cert-file", "tls-ca-cert-dir", "tls-protocols",
             "tls-ciphers", "tls-ciphersuites", "tls-prefer-server-ciphers", "tls-key-file-pass"} <= set(got),
            sorted(got))
    if KIND == "casq":
        try:
            r.config_set("tls-port", str(tport + 1))
            t.check("tls-port is immutable", False)
        except redis.exceptions.ResponseError as e:
            t.eq("tls-port is immutable",
                 "CONFIG SET failed (possibly related to argument 'tls-port') - can't set immutable config", str(e))
        info = r.info("server")
        listeners = {k: v for k, v in info.items() if k.startswith("listener")}
        t.check("INFO lists the TLS listener", any(isinstance(v, dict) and v.get("name") == "tls" and
                                                   v.get("port") == tport for v in listeners.values()), listeners)

    ctx = ssl_context(certs)
    t.eq("the server presents its certificate", "casq-server-one", peer_cn(ctx, tport))
    try:
        r.config_set("tls-cert-file", certs.path("nosuch.crt"))
        t.check("CONFIG SET of a missing certificate fails", False)
    except redis.exceptions.ResponseError as e:
        t.check("CONFIG SET of a missing certificate fails", "Unable to update TLS configuration" in str(e), str(e))
    t.eq("...and changes nothing", certs.path("server.crt"), r.config_get("tls-cert-file")["tls-cert-file"])
    t.eq("...TLS still works", "casq-server-one", peer_cn(ctx, tport))
    r.config_set("tls-cert-file", certs.path("server2.crt"), "tls-key-file", certs.path("server2.key"))
    t.eq("CONFIG SET tls-cert-file/tls-key-file: new connections get the new certificate", "casq-server-two",
         peer_cn(ctx, tport))
    try:
        r.config_set("tls-key-file", certs.path("server2.enc.key"), "tls-key-file-pass", "wrong")
        t.check("an encrypted key with the wrong tls-key-file-pass is refused", False)
    except redis.exceptions.ResponseError:
        t.check("an encrypted key with the wrong tls-key-file-pass is refused", True)
    r.config_set("tls-key-file", certs.path("server2.enc.key"), "tls-key-file-pass", "hunter2")
    t.eq("an encrypted key with its tls-key-file-pass", "casq-server-two", peer_cn(ctx, tport))
    try:
        r.config_set("tls-key-file", certs.path("server.key"))  # does not match server2.crt
        t.check("a key that does not match the certificate is refused", False)
    except redis.exceptions.ResponseError:
        t.check("a key that does not match the certificate is refused", True)

    r.config_set("tls-auth-clients", "optional")
    t.eq("tls-auth-clients optional: no certificate is fine", b"+PONG\r\n",
         tls_exchange(ssl_context(certs, client=None), tport))
    out = tls_exchange(ssl_context(certs, "stranger"), tport)
    t.check("tls-auth-clients optional: an untrusted certificate is still refused", out != b"+PONG\r\n", out)
    r.config_set("tls-auth-clients", "yes")

    r.config_set("tls-protocols", "TLSv1.2")
    t.eq("tls-protocols TLSv1.2: a TLSv1.2 client works", b"+PONG\r\n",
         tls_exchange(ssl_context(certs, maxv=ssl.TLSVersion.TLSv1_2), tport))
    out = tls_exchange(ssl_context(certs, minv=ssl.TLSVersion.TLSv1_3), tport)
    t.check("tls-protocols TLSv1.2: a TLSv1.3-only client is refused", out != b"+PONG\r\n", out)
    try:
        r.config_set("tls-protocols", "SSLv3")
        t.check("an unknown protocol is refused", False)
    except redis.exceptions.ResponseError:
        t.check("an unknown protocol is refused", True)
    r.config_set("tls-protocols", "")
    t.eq("tls-protocols default again: TLSv1.3 works", b"+PONG\r\n",
         tls_exchange(ssl_context(certs, minv=ssl.TLSVersion.TLSv1_3), tport))
    r.close()


def session_maxclients(certs, srv, tport, t):
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    before = r.info("stats")["rejected_connections"]
    r.config_set("maxclients", "1")  # r is that one client
    try:
        out = tls_exchange(ssl_context(certs), tport)
    finally:
        r.config_set("maxclients", "10000")
    t.check("over maxclients a TLS client is closed", out != b"+PONG\r\n", out)
    t.eq("...and counted in rejected_connections", before + 1, r.info("stats")["rejected_connections"])
    t.eq("...and the next one is served", b"+PONG\r\n", tls_exchange(ssl_context(certs), tport))
    r.close()


def non_loopback_ipv4():
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, timeout=10).stdout.decode()
    except OSError:
        return None
    for a in out.split():
        if a.count(".") == 3 and not a.startswith("127."):
            return a
    return None


def session_protected_mode(certs, t):
    """Protected mode applies to TLS clients; the -DENIED reply comes over
    TLS once the handshake is done."""
    ip = non_loopback_ipv4()
    if not ip:
        print("# skipped: this machine has no non-loopback IPv4 address")
        return
    base = int(os.environ.get("CASQ_PORT_BASE", "28000"))
    tport = free_port(base)
    srv = casqtest.Server(args=["--bind", "0.0.0.0", "--tls-port", str(tport),
                                "--tls-cert-file", certs.path("server.crt"), "--tls-key-file",
                                certs.path("server.key"), "--tls-ca-cert-file", certs.path("ca.crt")]).start()
    try:
        raw = socket.create_connection((ip, tport), timeout=10)
        with ssl_context(certs).wrap_socket(raw, server_hostname="localhost") as s:
            data = b""
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except (OSError, ssl.SSLError):
                pass
        t.check("protected mode: a non-loopback TLS client reads -DENIED and is closed",
                data.startswith(b"-DENIED Redis is running in protected mode"), data[:120])
        t.eq("protected mode: a loopback TLS client is served", b"+PONG\r\n",
             tls_exchange(ssl_context(certs), tport))
    finally:
        srv.stop(t)


def session_follower(certs, srv, tport, t):
    """A TLS client of a follower: its commands are relayed to the broker
    (over the broker's plain port, README "TLS")."""
    broker = casqtest.Server(args=["--dir", srv.dir]).start()  # takes the document over
    try:
        plain = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=5)
        role = None
        for _ in range(250):  # srv notices at its next write (a commit conflict)
            role = plain.info("broker").get("broker_role")
            if role == "follower":
                break
            try:
                plain.xadd("probe", {"p": "1"})
            except redis.exceptions.RedisError:
                pass
            plain.close()  # a connection that wrote through a follower is a relay
            plain = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=5)
            time.sleep(0.02)
        plain.close()
        t.eq("the TLS node became a follower", "follower", role)
        r = tls_redis(certs, tport)
        eid = r.xadd("relayed", {"via": "tls-follower"})
        p = r.pipeline(transaction=False)
        for i in range(500):
            p.xadd("relayed", {"n": str(i)})
        p.execute()
        big = os.urandom(300000)
        r.set("relayed-big", big)
        t.check("a TLS client of a follower reads through the relay", r.get("relayed-big") == big)
        r.close()
        b = redis.Redis(host="127.0.0.1", port=broker.port, socket_timeout=5)
        t.eq("its writes are the broker's", 501, b.xlen("relayed"))
        t.eq("...in order", eid, b.xrange("relayed", count=1)[0][0])
        b.close()
    finally:
        broker.stop(t)


def session_tls_only(certs, t):
    """--port 0: TLS only, as in Redis."""
    d = tempfile.mkdtemp(prefix="casq-tls-only.")
    base = int(os.environ.get("CASQ_PORT_BASE", "28000"))
    tport = free_port(base)
    binary = os.environ.get("CASQ_BIN", os.path.join(casqtest.ROOT, "src", "casq-server"))
    log = os.path.join(d, "server.log")
    args = ["--port", "0", "--bind", "127.0.0.1", "--dir", d, "--tls-port", str(tport),
            "--tls-cert-file", certs.path("server.crt"), "--tls-key-file", certs.path("server.key"),
            "--tls-ca-cert-file", certs.path("ca.crt")]
    cmd = [binary] + args if KIND == "casq" else ["redis-server", "--save", "", "--appendonly", "no"] + args
    with open(log, "ab") as lf:
        proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=d)
    try:
        got = None
        for _ in range(200):
            got = tls_exchange(ssl_context(certs), tport)
            if got == b"+PONG\r\n" or proc.poll() is not None:
                break
            time.sleep(0.05)
        t.eq("a TLS-only server (port 0) answers on tls-port", b"+PONG\r\n", got)
    finally:
        proc.terminate()
        rc = proc.wait(timeout=30)
        with open(log, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        t.check("the TLS-only server exits cleanly", rc in (0, -15) and not casqtest.BAD_LOG.search(text),
                casqtest.tail(text))
        shutil.rmtree(d, ignore_errors=True)


def session_bad_files(certs, t):
    """Bad TLS settings stop the start-up with a reason in the log."""
    binary = os.environ.get("CASQ_BIN", os.path.join(casqtest.ROOT, "src", "casq-server"))
    base = int(os.environ.get("CASQ_PORT_BASE", "28000"))
    cases = [
        ("a missing certificate", ["--tls-cert-file", certs.path("nosuch.crt"), "--tls-key-file",
                                   certs.path("server.key"), "--tls-ca-cert-file", certs.path("ca.crt")],
         "Failed to load certificate"),
        ("no tls-cert-file", ["--tls-key-file", certs.path("server.key")], "No tls-cert-file configured!"),
        ("tls-auth-clients yes without a CA", ["--tls-cert-file", certs.path("server.crt"), "--tls-key-file",
                                                certs.path("server.key")], "tls-ca-cert-file or tls-ca-cert-dir"),
    ]
    for name, extra, expect in cases:
        d = tempfile.mkdtemp(prefix="casq-tls-bad.")
        port = free_port(base)
        tport = free_port(base, avoid=(port,))
        p = subprocess.run([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", d, "--tls-port",
                            str(tport)] + extra, capture_output=True, timeout=30, cwd=d)
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
        t.check("start-up refused: %s" % name, p.returncode != 0 and expect in out and
                "Failed to configure TLS" in out and not casqtest.BAD_LOG.search(out), out[-800:])
        shutil.rmtree(d, ignore_errors=True)


def main():
    t = casqtest.Results("tls")
    certs = Certs()
    base = int(os.environ.get("CASQ_PORT_BASE", "28000"))
    tried = []
    for attempt in range(5):  # the TLS port may be taken between choosing and binding it
        tport = free_port(base, avoid=tried)
        tried.append(tport)
        args = ["--tls-port", str(tport), "--tls-cert-file", certs.path("server.crt"),
                "--tls-key-file", certs.path("server.key"), "--tls-ca-cert-file", certs.path("ca.crt")]
        try:
            srv = casqtest.Server(args=args).start()
            break
        except RuntimeError:
            if attempt == 4:
                raise
    try:
        print("# TLS against %s: plain port %d, TLS port %d" % (srv.kind, srv.port, tport))
        for name, fn in [("redis-cli", session_redis_cli), ("redis-py", session_redis_py),
                         ("slow reader", session_slow_reader),
                         ("refusals", session_refusals), ("auth", session_auth), ("config", session_config),
                         ("maxclients", session_maxclients)] + \
                        ([("follower", session_follower)] if KIND == "casq" else []):
            t.run(name, fn, certs, srv, tport, t)
        t.check("server still alive", srv.alive())
    finally:
        srv.stop(t)
    t.run("tls-only", session_tls_only, certs, t)
    t.run("protected mode", session_protected_mode, certs, t)
    if KIND == "casq":
        t.run("bad files", session_bad_files, certs, t)
    shutil.rmtree(certs.dir, ignore_errors=True)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
