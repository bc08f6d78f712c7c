"""casqtest.py -- shared helpers of casq's Python integration tests.

Starts a throw-away server (casq, or redis-server to prove that a test
asserts Redis behaviour), counts checks and prints the closing
`N passed, N failed` line every suite of the project ends with.

Environment:
  CASQ_SERVER   casq (default) or redis
  CASQ_BIN      casq binary (default src/casq-server; the sanitizer run
                points it at build/san/casq-server)
  CASQ_HOST/CASQ_PORT   use an already running server, start nothing
  CASQ_PORT_BASE        first port to try (default 28000; range 28000-28999)

Runs with Debian's /usr/bin/python3 (its python3-redis is what the client
tests use); only the standard library is needed here.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What a sanitizer or an assertion writes into the server log.
BAD_LOG = re.compile(r"ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|"
                     r"ASSERTION FAILED|PANIC|SUMMARY: (Address|Leak|Undefined)")


def port_is_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


class Server:
    """A casq (or redis-server) process on a free port of our range, in a
    temporary directory. stop() checks that it exits cleanly and that its
    log holds no sanitizer or assertion report."""

    def __init__(self, args=(), kind=None, port_base=None, wrapper=()):
        self.kind = kind or os.environ.get("CASQ_SERVER", "casq")
        self.args = list(args)
        self.wrapper = list(wrapper)  # e.g. valgrind and its options
        self.port_base = port_base or int(os.environ.get("CASQ_PORT_BASE", "28000"))
        self.external = bool(os.environ.get("CASQ_PORT")) and kind is None
        self.proc = None
        self.dir = None
        self.host = os.environ.get("CASQ_HOST", "127.0.0.1")
        self.port = int(os.environ.get("CASQ_PORT", "0"))
        self.logpath = None

    def command_line(self, port):
        if self.kind == "redis":
            return ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", self.dir,
                    "--save", "", "--appendonly", "no", "--daemonize", "no"] + self.redis_args()
        binary = os.environ.get("CASQ_BIN", os.path.join(ROOT, "src", "casq-server"))
        return self.wrapper + [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", self.dir] + self.args

    def redis_args(self):
        # casq-only directives are dropped for redis-server.
        out, skip = [], False
        for i, a in enumerate(self.args):
            if skip:
                skip = False
                continue
            if a in ("--stream-id-mode", "--store", "--commit-timeout"):
                skip = True
                continue
            out.append(a)
        return out

    def start(self):
        if self.external:
            return self
        self.dir = tempfile.mkdtemp(prefix="casq-it.")
        self.logpath = os.path.join(self.dir, "server.log")
        port = self.port_base + (os.getpid() % 200)
        for attempt in range(60):
            port = self.port_base + (port - self.port_base + 7) % 1000
            if not port_is_free(port):
                continue
            log = open(self.logpath, "ab")
            self.proc = subprocess.Popen(self.command_line(port), stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=self.dir)
            log.close()
            if self.wait_ready(port, timeout=120 if self.wrapper else 20):
                self.port = port
                return self
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            if not re.search(r"already in use|Failed listening|Could not create server TCP", self.log()):
                break  # not a port collision: retrying would not help
        raise RuntimeError("could not start %s; log:\n%s" % (self.kind, self.log()))

    def wait_ready(self, port, timeout=20.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def log(self):
        if not self.logpath or not os.path.exists(self.logpath):
            return ""
        with open(self.logpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def alive(self):
        return self.external or (self.proc is not None and self.proc.poll() is None)

    def kill_and_restart(self):
        """SIGKILL, then the same server again on the same port and
        directory; whether it answers."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        log = open(self.logpath, "ab")
        self.proc = subprocess.Popen(self.command_line(self.port), stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=self.dir)
        log.close()
        return self.wait_ready(self.port, timeout=30)

    def stop(self, results=None, how="term"):
        """Stops the server (SIGTERM, or SHUTDOWN via a raw socket). With
        results, records whether it exited cleanly. Keeps the directory of
        a server that did not."""
        if self.external or self.proc is None:
            return True
        if self.proc.poll() is None:
            if how == "shutdown":
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                        s.sendall(b"SHUTDOWN\r\n")
                        s.recv(64)
                except OSError:
                    pass
            else:
                self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=300 if self.wrapper else 30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            rc = "hung (killed)"
        log = self.log()
        self.last_log = log
        bad = BAD_LOG.search(log)
        ok = rc in (0, -signal.SIGTERM) and not bad
        if results is not None:
            results.check("%s exits cleanly (rc=%s)" % (self.kind, rc), ok,
                          "log %s:\n%s" % (self.logpath, tail(log)))
        if ok:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            sys.stdout.write("# server directory kept: %s\n" % self.dir)
        self.proc = None
        return ok


def tail(text, lines=30):
    return "\n".join(text.splitlines()[-lines:])


class Results:
    """Counts checks; each prints [ok] or [err] like the Tcl suite."""

    def __init__(self, suite):
        self.suite = suite
        self.passed = 0
        self.failed = 0
        self.failures = []

    def check(self, name, cond, detail=""):
        if cond:
            self.passed += 1
            print("[ok]: %s" % name)
        else:
            self.failed += 1
            self.failures.append(name)
            print("[err]: %s" % name)
            if detail:
                for line in str(detail).splitlines()[:40]:
                    print("    " + line)
        sys.stdout.flush()
        return cond

    def eq(self, name, expected, actual):
        return self.check(name, expected == actual, "expected: %r\n  actual: %r" % (expected, actual))

    def run(self, name, fn, *args):
        """Runs fn(*args); an exception is a failed check named `name`."""
        try:
            fn(*args)
        except Exception as e:  # a test that raised is a failure, never a crash of the suite
            import traceback
            self.check(name + " (raised)", False, traceback.format_exc())
            return False
        return True

    def finish(self):
        if self.failures:
            print("Failed in %s:" % self.suite)
            for f in self.failures:
                print("  [err] " + f)
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.stdout.flush()
        return 1 if self.failed else 0


def raw_connect(port, host="127.0.0.1", timeout=10):
    s = socket.create_connection((host, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_until_closed(s, limit=1 << 24):
    """Reads until EOF (or limit bytes / timeout); returns (bytes, closed)."""
    data = b""
    try:
        while len(data) < limit:
            chunk = s.recv(65536)
            if not chunk:
                return data, True
            data += chunk
    except socket.timeout:
        return data, False
    except ConnectionResetError:
        return data, True
    return data, False


def read_exact_replies(s, n):
    """Reads n complete RESP2/RESP3 replies from a raw socket; returns the
    list of raw reply byte strings."""
    buf = bytearray()
    out = []
    pos = 0
    while len(out) < n:
        end = _reply_end(buf, pos)
        if end is None:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed after %d of %d replies" % (len(out), n))
            buf += chunk
            continue
        out.append(bytes(buf[pos:end]))
        pos = end
    return out


def _reply_end(buf, pos):
    """Offset just past the reply starting at pos, None if incomplete."""
    nl = buf.find(b"\r\n", pos)
    if nl < 0:
        return None
    t = buf[pos:pos + 1]
    line = bytes(buf[pos + 1:nl])
    after = nl + 2
    if t in (b"+", b"-", b":", b"_", b",", b"#", b"("):
        return after
    if t in (b"$", b"=", b"!"):
        n = int(line)
        if n < 0:
            return after
        return after + n + 2 if len(buf) >= after + n + 2 else None
    if t in (b"*", b"~", b">", b"%", b"|"):
        n = int(line)
        if n < 0:
            return after
        if t in (b"%", b"|"):
            n *= 2
        p = after
        for _ in range(n):
            p = _reply_end(buf, p)
            if p is None:
                return None
        if t == b"|":  # an attribute is followed by the real reply
            return _reply_end(buf, p)
        return p
    raise ValueError("bad reply type %r at %d" % (t, pos))
