#!/usr/bin/python3
"""faultproxy.py -- an HTTP reverse proxy that injects object-store faults.

    /usr/bin/python3 tests/s3/faultproxy.py --listen 127.0.0.1:22481 \
        --upstream 127.0.0.1:22480

It sits between casq and an S3 server (Ceph RGW in the tests) and forwards
every request faithfully: method, path, every header as sent (Host too: SigV4
signs it, so the client signs for the proxy's address and RGW, path-style,
does not care), and the body. On top of that it can misbehave the way object
stores and networks do, mostly for PUTs (the commits):

  put_delay_ms        added latency before forwarding each PUT
  get_delay_ms        added latency before forwarding each GET
  max_writes_per_sec  per object: excess PUTs get 503 SlowDown (like GCS's
                      one-mutation-per-second limit), not forwarded
  fail_puts=N         the next N PUTs get `fail_status` (500 InternalError or
                      503 SlowDown) without being forwarded
  fail_gets=N         the next N GETs get 503 SlowDown, not forwarded
  pass_gets=N         the next N GETs are forwarded untouched before
                      fail_gets applies (to fail, say, a list's second page)
  fail_deletes=N      the next N DELETEs get 503 SlowDown, not forwarded
  drop_deletes=N      the next N DELETEs: forward, then reset the client
                      connection without replying
  reset_puts=N        the next N PUTs: read the request, then reset the
                      connection (TCP RST) without forwarding
  drop_puts=N         the next N PUTs: forward (the PUT is applied upstream),
                      then reset the client connection without replying --
                      the unknown-outcome case
  error_after_apply=N the next N PUTs: forward, then answer 500 anyway
  stall_puts=N        the next N PUTs: wait `stall_ms` before forwarding (the
                      client times out; the PUT may still land later)
  stall_gets=N        the next N GETs: wait `stall_ms` before forwarding
  only_path=S         the count-based faults above (fail_*, drop_*, reset_puts,
                      error_after_apply, stall_*) fire only on requests
                      whose path contains S (".segments/": segments only;
                      "" = every request), or ends with it if S ends with
                      "$" ("<key>$": the root object only); others pass
                      untouched

Control API, on the same port (no bucket can be named "__fault__"):

  POST /__fault__  JSON object: sets the given settings; {"reset": true}
                   first clears all faults and counters
  GET  /__fault__  JSON: current settings and counters

Counters: requests, puts, puts_forwarded, doc_puts_applied (the same, not
counting segments' PUTs: objects under a ".segments/" prefix), puts_applied (upstream answered
2xx), gets, deletes, seg_puts / seg_gets / seg_deletes (requests on segments),
and injected_<fault> for every fault fired.

Stdlib only; one thread per connection; HTTP/1.1 keep-alive both ways
(upstream: one connection per request, so the proxy never retries a request
by itself).
"""

import argparse
import collections
import http.client
import http.server
import json
import socket
import struct
import sys
import threading
import time

CONTROL_PATH = "/__fault__"

HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
    "trailer", "upgrade", "content-length",
}

DEFAULTS = {
    "put_delay_ms": 0,
    "get_delay_ms": 0,
    "max_writes_per_sec": 0,
    "fail_puts": 0,
    "fail_status": 503,
    "fail_gets": 0,
    "pass_gets": 0,
    "fail_deletes": 0,
    "drop_deletes": 0,
    "reset_puts": 0,
    "drop_puts": 0,
    "error_after_apply": 0,
    "stall_puts": 0,
    "stall_ms": 0,
    "stall_gets": 0,
    "only_path": "",
}


class FaultState:
    """Settings and counters, shared by all connection threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.settings = dict(DEFAULTS)
        self.counters = collections.Counter()
        self.recent_writes = collections.defaultdict(collections.deque)

    def update(self, changes):
        with self.lock:
            if changes.get("reset"):
                self.reset()
            for k, v in changes.items():
                if k == "reset":
                    continue
                if k not in DEFAULTS:
                    raise ValueError("unknown setting %r" % k)
                self.settings[k] = v

    def snapshot(self):
        with self.lock:
            return {"settings": dict(self.settings), "counters": dict(self.counters)}

    def count(self, name):
        with self.lock:
            self.counters[name] += 1

    def take(self, name, path=""):
        """Consumes one of the next-N fault `name`; True if it fires (on
        `path`, if only_path allows it there)."""
        with self.lock:
            only = self.settings["only_path"]
            if only.endswith("$") and not path.endswith(only[:-1]):
                return False
            if only and not only.endswith("$") and only not in path:
                return False
            if self.settings[name] > 0:
                self.settings[name] -= 1
                self.counters["injected_" + name] += 1
                return True
            return False

    def setting(self, name):
        with self.lock:
            return self.settings[name]

    def rate_limited(self, path):
        """True if a PUT on `path` now exceeds max_writes_per_sec."""
        with self.lock:
            limit = self.settings["max_writes_per_sec"]
            if not limit:
                return False
            now = time.monotonic()
            q = self.recent_writes[path]
            while q and now - q[0] >= 1.0:
                q.popleft()
            if len(q) >= limit:
                self.counters["injected_rate_limit"] += 1
                return True
            q.append(now)
            return False


STATE = FaultState()
UPSTREAM = ("127.0.0.1", 22480)


def s3_error_body(code, message):
    return ('<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code>'
            "<Message>%s</Message><RequestId>faultproxy</RequestId></Error>"
            % (code, message)).encode()


class ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultproxy"

    def log_message(self, fmt, *args):  # quiet; counters tell the story
        pass

    # -- plumbing --------------------------------------------------------

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise ValueError("chunked request bodies are not supported")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if len(body) != length:
            # The client died mid-upload: forwarding the short body under the
            # original Content-Length would leave the upstream waiting.
            raise ConnectionAbortedError("request body truncated")
        return body

    def reply(self, status, body, headers=(), reason=None):
        self.send_response_only(status, reason)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def reply_s3_error(self, status, code, message):
        self.reply(status, s3_error_body(code, message), [("Content-Type", "application/xml")])

    def reset_connection(self):
        """Closes the client connection with a TCP RST, replying nothing."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        # The fd closes (with RST) once finish() closes rfile/wfile.
        self.connection.close()

    def forward(self, body):
        """Sends the request upstream as received; returns (status, reason,
        headers, body), or None if upstream failed."""
        conn = http.client.HTTPConnection(*UPSTREAM, timeout=60)
        try:
            conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for k, v in self.headers.items():
                if k.lower() in ("connection", "keep-alive", "proxy-connection"):
                    continue
                conn.putheader(k, v)
            conn.endheaders(body if body or self.command in ("PUT", "POST") else None)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, resp.reason, resp.getheaders(), data
        except (OSError, http.client.HTTPException) as e:
            sys.stderr.write("faultproxy: upstream %s %s failed: %s\n" % (self.command, self.path, e))
            return None
        finally:
            conn.close()

    def relay(self, result):
        if result is None:
            self.reply_s3_error(502, "BadGateway", "upstream failed")
            return
        status, reason, headers, data = result
        self.send_response_only(status, reason)
        length = str(len(data))
        for k, v in headers:
            if k.lower() == "content-length" and self.command == "HEAD":
                length = v  # the object's size, without a body
            elif k.lower() not in HOP_BY_HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", length)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass

    # -- control API -----------------------------------------------------

    def control(self):
        body = self.read_body()
        if self.command == "POST":
            try:
                STATE.update(json.loads(body or b"{}"))
            except (ValueError, TypeError) as e:
                self.reply(400, (json.dumps({"error": str(e)}) + "\n").encode(),
                           [("Content-Type", "application/json")])
                return
        self.reply(200, (json.dumps(STATE.snapshot()) + "\n").encode(),
                   [("Content-Type", "application/json")])

    # -- methods ---------------------------------------------------------

    def do_PUT(self):
        if self.path.split("?")[0] == CONTROL_PATH:
            return self.control()
        STATE.count("requests")
        STATE.count("puts")
        path = self.path.split("?")[0]
        if ".segments/" in path:
            STATE.count("seg_puts")
        body = self.read_body()
        delay = STATE.setting("put_delay_ms")
        if delay:
            time.sleep(delay / 1000.0)
        if STATE.take("reset_puts", path):
            return self.reset_connection()
        if STATE.take("fail_puts", path):
            if STATE.setting("fail_status") == 500:
                return self.reply_s3_error(500, "InternalError", "injected by faultproxy")
            return self.reply_s3_error(503, "SlowDown", "Please reduce your request rate.")
        if STATE.rate_limited(self.path.split("?")[0]):
            return self.reply_s3_error(503, "SlowDown", "Please reduce your request rate.")
        if STATE.take("stall_puts", path):
            time.sleep(STATE.setting("stall_ms") / 1000.0)
        drop = STATE.take("drop_puts", path)
        error_after = not drop and STATE.take("error_after_apply", path)
        result = self.forward(body)
        STATE.count("puts_forwarded")
        if result is not None and 200 <= result[0] < 300:
            STATE.count("puts_applied")
            if ".segments/" not in self.path.split("?")[0]:
                STATE.count("doc_puts_applied")
        if drop:
            return self.reset_connection()
        if error_after:
            return self.reply_s3_error(500, "InternalError", "injected by faultproxy after applying")
        self.relay(result)

    def do_GET(self):
        if self.path.split("?")[0] == CONTROL_PATH:
            return self.control()
        STATE.count("requests")
        STATE.count("gets")
        path = self.path.split("?")[0]
        if ".segments/" in path:
            STATE.count("seg_gets")
        delay = STATE.setting("get_delay_ms")
        if delay:
            time.sleep(delay / 1000.0)
        passed = STATE.take("pass_gets", path)
        if not passed and STATE.take("fail_gets", path):
            return self.reply_s3_error(503, "SlowDown", "Please reduce your request rate.")
        if not passed and STATE.take("stall_gets", path):
            time.sleep(STATE.setting("stall_ms") / 1000.0)
        self.relay(self.forward(None))

    def do_DELETE(self):
        STATE.count("requests")
        STATE.count("deletes")
        path = self.path.split("?")[0]
        if ".segments/" in path:
            STATE.count("seg_deletes")
        body = self.read_body()
        if STATE.take("fail_deletes", path):
            return self.reply_s3_error(503, "SlowDown", "Please reduce your request rate.")
        drop = STATE.take("drop_deletes", path)
        result = self.forward(body)
        if drop:
            return self.reset_connection()
        self.relay(result)

    def do_POST(self):
        if self.path.split("?")[0] == CONTROL_PATH:
            return self.control()
        self.generic()

    def generic(self):
        STATE.count("requests")
        self.relay(self.forward(self.read_body()))

    do_HEAD = generic


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that went away (timed out, reset) is part of the game.
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def hostport(s):
    host, _, port = s.rpartition(":")
    return host or "127.0.0.1", int(port)


def main():
    global UPSTREAM
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listen", default="127.0.0.1:22481", help="host:port to listen on")
    ap.add_argument("--upstream", default="127.0.0.1:22480", help="host:port of the S3 server")
    args = ap.parse_args()
    UPSTREAM = hostport(args.upstream)
    srv = Server(hostport(args.listen), ProxyHandler)
    sys.stdout.write("faultproxy listening on %s:%d -> %s:%d\n" % (srv.server_address + UPSTREAM))
    sys.stdout.flush()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    srv.server_close()


if __name__ == "__main__":
    main()
