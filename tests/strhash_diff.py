#!/usr/bin/python3
"""Randomised differential test: casq against redis-server on strings and
hashes.

Starts a redis-server and a casq (a fresh data directory) on free local
ports, sends both the same random sequence of string and hash commands,
mixed with generic ones (TYPE, EXISTS, DEL, UNLINK, RENAME, COPY, EXPIRE,
TTL, PERSIST, SCAN TYPE, OBJECT ENCODING) and a few stream commands (so
that WRONGTYPE and SET-over-another-type are exercised), from a fixed,
printed seed, and compares every reply, in RESP2 and RESP3, after
normalising what depends on time, on randomness or on dict internals:

  - TTL/PTTL: a positive value compares as "positive";
  - XADD "*" IDs compare as "an ID";
  - replies whose order is the hashtable's (HGETALL, HKEYS, HVALS, HSCAN,
    HRANDFIELD of a hash that Redis reports as "hashtable") are sorted;
    a listpack hash's order is compared exactly (before each such read the
    key's OBJECT ENCODING on both servers is compared as well);
  - HRANDFIELD: random picks compare by shape (count, distinctness, and
    that every field belongs to the hash), a count >= the hash's size as
    the whole hash;
  - SCAN TYPE replies are sorted (few keys: one call returns them all).

The oracle is Debian's redis-server 7.0.15 while casq implements Redis
7.2: HSET is never sent more field/value pairs than
hash-max-listpack-entries (7.2 converts such a hash up front).

Usage: tests/strhash_diff.py [--seed N] [--count N] [--casq PATH]
                             [--redis PATH] [--base-port N] [--verbose]
The casq binary defaults to $CASQ_BIN, else src/casq-server. Ports: redis
gets a free one in [base, base+100), casq in [base+100, base+200); the base
is --base-port, else $DIFF_BASE_PORT, else 23400.
Prints mismatches; the last line is "N passed, N failed"; exits non-zero on
any mismatch.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from stream_diff import Conn, Err, Map, Simple, free_port, wait_ready  # noqa: E402

STR_KEYS = ['k1', 'k2', 'k3', 'k\x00bin']
HASH_KEYS = ['h1', 'h2', 'h3', 'hb']
OTHER_KEYS = ['x1', 'nokey']
ALL_KEYS = STR_KEYS + HASH_KEYS + OTHER_KEYS
FIELDS = ['f', 'g', 'name', '1', '-7', '00', '\xe9t\xe9', 'b\x00in', 'z' * 70]
VALUES = ['v', '', '12345', '-12', '3.5', 'hello world', '\x00\x01\xff', '9223372036854775807',
          '-9223372036854775808', '0', 'y' * 100, '1e3', ' 7', '007', 'x' * 44, 'x' * 45]
NUMS = ['0', '1', '-1', '17', '-100', '9223372036854775807', '-9223372036854775808', '1.5', 'abc', '']
FLOATS = ['0', '1', '-1', '0.5', '2.25', '-3.75', '1e2', '5.0e3', 'abc', 'inf', '0x10', '']
ORDERED = {'HGETALL', 'HKEYS', 'HVALS', 'HSCAN', 'HRANDFIELD'}


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def key(self, pool):
        # Mostly a key of the command's type, sometimes any key (WRONGTYPE).
        return self.r.choice(pool if self.r.random() < 0.85 else ALL_KEYS)

    def val(self):
        return self.r.choice(VALUES)

    def field(self):
        if self.r.random() < 0.1:
            return 'bf%d' % self.r.randrange(600)
        return self.r.choice(FIELDS)

    def ttl_opts(self):
        c = self.r.random()
        if c < 0.2:
            return ['EX', str(self.r.randrange(1000, 100000))]
        if c < 0.3:
            return ['PX', str(self.r.randrange(1000000, 100000000))]
        if c < 0.35:
            return ['EXAT', self.r.choice(['1', '4000000000'])]
        if c < 0.4:
            return ['PXAT', self.r.choice(['1', '4000000000000'])]
        if c < 0.45:
            return ['EX', self.r.choice(['0', '-5', 'x', '9223372036854775807'])]
        return []

    def string_cmd(self):
        r = self.r
        k = self.key(STR_KEYS)
        c = r.randrange(26)
        if c < 4:
            args = ['SET', k, self.val()]
            opts = []
            if r.random() < 0.3:
                opts.append(r.choice(['NX', 'XX', 'nx']))
            if r.random() < 0.3:
                opts.append('GET')
            t = self.ttl_opts()
            if not t and r.random() < 0.2:
                t = ['KEEPTTL']
            opts += t
            if r.random() < 0.03:
                opts.append(r.choice(['XX', 'EX', 'PERSIST', 'BAD']))
            r.shuffle(opts) if r.random() < 0.1 else None
            return args + opts
        if c < 7:
            return ['GET', k]
        if c == 7:
            return ['GETDEL', k]
        if c == 8:
            o = r.choice([[], ['PERSIST'], self.ttl_opts(), ['NX'], ['EX', '10', 'PX', '10']])
            return ['GETEX', k] + o
        if c == 9:
            return ['GETSET', k, self.val()]
        if c == 10:
            return ['SETNX', k, self.val()]
        if c == 11:
            return ['SETEX', k, r.choice(['100', '0', '-1', '5000', 'x']), self.val()]
        if c == 12:
            return ['PSETEX', k, r.choice(['100000', '0', '5000000']), self.val()]
        if c == 13:
            return ['MGET'] + [self.key(STR_KEYS) for _ in range(r.randrange(1, 5))]
        if c == 14:
            n = r.randrange(1, 4)
            args = ['MSET'] + [x for _ in range(n) for x in (self.key(STR_KEYS), self.val())]
            if r.random() < 0.05:
                args.append('odd')
            return args
        if c == 15:
            n = r.randrange(1, 3)
            return ['MSETNX'] + [x for _ in range(n) for x in (self.key(STR_KEYS), self.val())]
        if c == 16:
            return [r.choice(['INCR', 'DECR']), k]
        if c == 17:
            return [r.choice(['INCRBY', 'DECRBY']), k, r.choice(NUMS)]
        if c == 18:
            return ['INCRBYFLOAT', k, r.choice(FLOATS)]
        if c == 19:
            return ['APPEND', k, self.val()]
        if c == 20:
            return ['STRLEN', k]
        if c == 21:
            return ['GETRANGE', k, str(r.randrange(-12, 12)), str(r.randrange(-12, 12))]
        if c == 22:
            return ['SETRANGE', k, r.choice(['0', '1', '3', '10', '-1', 'x']), r.choice(['', 'ab', 'xyz'])]
        if c == 23:
            return ['OBJECT', 'ENCODING', k]
        if c == 24:
            return ['STRLEN', k]
        return ['INCRBYFLOAT', k, r.choice(['0.1', '-0.1', '10.5', '3'])]

    def hash_cmd(self):
        r = self.r
        k = self.key(HASH_KEYS)
        c = r.randrange(24)
        if c < 4:
            n = r.randrange(1, 4)
            args = [r.choice(['HSET', 'HSET', 'HMSET']), k] + [x for _ in range(n) for x in (self.field(), self.val())]
            if r.random() < 0.03:
                args.append('odd')
            return args
        if c == 4:
            return ['HSETNX', k, self.field(), self.val()]
        if c < 7:
            return ['HGET', k, self.field()]
        if c == 7:
            return ['HMGET', k] + [self.field() for _ in range(r.randrange(1, 4))]
        if c == 8:
            return ['HGETALL', k]
        if c == 9:
            return ['HDEL', k] + [self.field() for _ in range(r.randrange(1, 3))]
        if c == 10:
            return ['HEXISTS', k, self.field()]
        if c == 11:
            return ['HLEN', k]
        if c == 12:
            return [r.choice(['HKEYS', 'HVALS']), k]
        if c == 13:
            return ['HSTRLEN', k, self.field()]
        if c == 14:
            return ['HINCRBY', k, self.field(), r.choice(NUMS)]
        if c == 15:
            return ['HINCRBYFLOAT', k, self.field(), r.choice(FLOATS)]
        if c == 16:
            a = ['HRANDFIELD', k]
            if r.random() < 0.8:
                a.append(str(r.choice([0, 1, 2, 3, 5, 50, 500, -1, -3, -10])))
                if r.random() < 0.5:
                    a.append('WITHVALUES')
            return a
        if c == 17:
            a = ['HSCAN', k, '0', 'COUNT', '1000']
            if r.random() < 0.3:
                a += ['MATCH', r.choice(['f*', '*a*', 'bf1*', 'nomatch'])]
            return a
        if c == 18:
            return ['OBJECT', 'ENCODING', k]
        if c == 19:
            return ['HDEL', k, 'bf%d' % r.randrange(600), 'bf%d' % r.randrange(600)]
        return ['HSET', k, 'bf%d' % r.randrange(600), self.val()]

    def generic_cmd(self):
        r = self.r
        k = r.choice(ALL_KEYS)
        c = r.randrange(16)
        if c == 0:
            return ['TYPE', k]
        if c == 1:
            return ['EXISTS'] + [r.choice(ALL_KEYS) for _ in range(r.randrange(1, 4))]
        if c == 2:
            return [r.choice(['DEL', 'UNLINK']), k]
        if c == 3:
            return ['RENAME', k, r.choice(ALL_KEYS)]
        if c == 4:
            a = ['COPY', k, r.choice(ALL_KEYS)]
            if r.random() < 0.5:
                a.append('REPLACE')
            return a
        if c == 5:
            return ['EXPIRE', k, r.choice(['1000', '100000'])]
        if c == 6:
            return [r.choice(['TTL', 'PTTL']), k]
        if c == 7:
            return ['PERSIST', k]
        if c == 8:
            return ['SCAN', '0', 'TYPE', r.choice(['string', 'hash', 'stream', 'list']), 'COUNT', '1000']
        if c == 9:
            return ['XADD', 'x1', '*', 'f', self.val()]
        if c == 10:
            return ['XLEN', r.choice(['x1', 'k1', 'h1'])]
        if c == 11:
            return ['OBJECT', 'ENCODING', k]
        if c == 12:
            return ['DBSIZE']
        if c == 13:
            return ['EXPIRETIME', k]
        if c == 14:
            return ['RENAMENX', k, r.choice(ALL_KEYS)]
        return ['GETRANGE', k, '0', '-1']

    def command(self):
        c = self.r.random()
        if c < 0.45:
            return self.string_cmd()
        if c < 0.85:
            return self.hash_cmd()
        return self.generic_cmd()


# ---------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------

def flat(reply):
    """A RESP3 map or a flat RESP2 array as a list of items."""
    if isinstance(reply, Map):
        return [x for kv in reply for x in kv]
    return reply


def pairs_of(items):
    return [(items[i], items[i + 1]) for i in range(0, len(items), 2)]


def normalise(args, reply, enc):
    """enc: the hash's encoding as Redis reports it, for order-dependent
    hash replies (None otherwise)."""
    cmd = args[0].upper()
    if isinstance(reply, Err):
        return reply
    if cmd in ('TTL', 'PTTL') and isinstance(reply, int) and reply > 0:
        return 'positive'
    if cmd == 'EXPIRETIME' and isinstance(reply, int) and reply > 0:
        return 'positive'
    if cmd == 'XADD' and isinstance(reply, bytes):
        return 'an-id'
    if cmd == 'SCAN' and isinstance(reply, list) and len(reply) == 2:
        return [reply[0], sorted(reply[1])]
    if cmd not in ORDERED or not isinstance(reply, (list, Map)):
        return reply
    ht = enc == b'hashtable'
    if cmd == 'HGETALL':
        p = pairs_of(flat(reply))
        return ('map' if isinstance(reply, Map) else 'arr', sorted(p) if ht else p)
    if cmd in ('HKEYS', 'HVALS'):
        return sorted(reply) if ht else reply
    if cmd == 'HSCAN':
        p = pairs_of(reply[1])
        return [reply[0], sorted(p) if ht else p]
    return reply  # HRANDFIELD: checked in check_hrandfield


def hrandfield_shape(args, reply, allfields, resp):
    """HRANDFIELD's reply as something comparable: the whole hash when the
    count covers it, else the count and distinctness, and whether every
    field belongs to the hash."""
    if isinstance(reply, Err) or reply is None or not isinstance(reply, list):
        return reply
    withvalues = len(args) == 4
    count = int(args[2])
    items = reply
    if withvalues:
        if resp == 3:
            items = [x for p in reply for x in p]
        fields = items[0::2]
    else:
        fields = items
    belongs = all(f in allfields for f in fields)
    if count >= len(allfields) and count > 0:
        return ('whole', sorted(fields), len(items), belongs)
    distinct = len(set(fields)) == len(fields)
    return ('part', len(items), distinct if count > 0 else None, belongs)


def run(opts, rport, cport):
    rnd = random.Random(opts.seed)
    gen = Gen(rnd)
    conns = {2: (Conn(rport, 2), Conn(cport, 2)), 3: (Conn(rport, 3), Conn(cport, 3))}
    passed = failed = 0

    def report(i, proto, args, ra, ca):
        nonlocal failed
        failed += 1
        if failed <= opts.max_report:
            print('MISMATCH #%d RESP%d %s' % (i, proto, ' '.join(repr(a) for a in args)))
            print('    redis: %r' % (ra,))
            print('    casq : %r' % (ca,))

    # A hash past hash-max-listpack-entries (in pairs <= the limit per call).
    for base in (0, 100, 200, 300, 400, 500):
        setup = ['HSET', 'hb'] + [x for i in range(base, base + 100) for x in ('bf%d' % i, 'v%d' % i)]
        for rc, cc in (conns[2],):
            ra, ca = rc.cmd(*setup), cc.cmd(*setup)
            if ra != ca:
                report(-1, 2, setup[:4], ra, ca)

    for i in range(opts.count):
        args = gen.command()
        proto = 3 if rnd.random() < 0.25 else 2
        ra_conn, ca_conn = conns[proto]
        cmd = args[0].upper()
        enc = None
        if cmd in ORDERED:
            # The order of a hash's replies depends on its encoding:
            # compare the encodings first.
            er = conns[2][0].cmd('OBJECT', 'ENCODING', args[1])
            ec = conns[2][1].cmd('OBJECT', 'ENCODING', args[1])
            if er != ec:
                report(i, 2, ['OBJECT', 'ENCODING', args[1]], er, ec)
            else:
                passed += 1
            enc = er
        ra = ra_conn.cmd(*args)
        ca = ca_conn.cmd(*args)
        if cmd == 'HRANDFIELD':
            if len(args) == 2:
                hk = conns[2][0].cmd('HKEYS', args[1])
                fields = set(hk) if isinstance(hk, list) else set()
                na = ra if not isinstance(ra, bytes) or isinstance(ra, Err) else ('field', ra in fields)
                nc = ca if not isinstance(ca, bytes) or isinstance(ca, Err) else ('field', ca in fields)
            else:
                hk = conns[2][0].cmd('HKEYS', args[1])
                fields = set(hk) if isinstance(hk, list) else set()
                na = hrandfield_shape(args, ra, fields, proto)
                nc = hrandfield_shape(args, ca, fields, proto)
        else:
            na, nc = normalise(args, ra, enc), normalise(args, ca, enc)
        if na == nc:
            passed += 1
            if opts.verbose:
                print('ok   #%d RESP%d %r' % (i, proto, args))
        else:
            report(i, proto, args, ra, ca)

    # The final state, key by key.
    for k in ALL_KEYS:
        for q in (['TYPE', k], ['OBJECT', 'ENCODING', k], ['GET', k], ['HLEN', k]):
            ra, ca = conns[2][0].cmd(*q), conns[2][1].cmd(*q)
            if ra == ca:
                passed += 1
            else:
                report(-2, 2, q, ra, ca)
        ra, ca = conns[2][0].cmd('HGETALL', k), conns[2][1].cmd('HGETALL', k)
        ra = sorted(pairs_of(ra)) if isinstance(ra, list) else ra
        ca = sorted(pairs_of(ca)) if isinstance(ca, list) else ca
        if ra == ca:
            passed += 1
        else:
            report(-2, 2, ['HGETALL', k], ra, ca)
    print('%d passed, %d failed' % (passed, failed))
    return failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=20261201)
    ap.add_argument('--count', type=int, default=10000)
    ap.add_argument('--casq', default=os.environ.get('CASQ_BIN') or os.path.join(ROOT, 'src', 'casq-server'))
    ap.add_argument('--redis', default=shutil.which('redis-server') or '/usr/bin/redis-server')
    ap.add_argument('--base-port', type=int, default=int(os.environ.get('DIFF_BASE_PORT', '23400')))
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--max-report', type=int, default=30, help='mismatches printed in full')
    opts = ap.parse_args()

    print('strhash_diff: seed %d, %d commands' % (opts.seed, opts.count), flush=True)
    rport = free_port(opts.base_port, opts.base_port + 100)
    cport = free_port(opts.base_port + 100, opts.base_port + 200)
    tmp = tempfile.mkdtemp(prefix='casq-strhash-diff-')
    procs = []
    result = False
    try:
        rp = subprocess.Popen([opts.redis, '--port', str(rport), '--bind', '127.0.0.1', '--save', '',
                               '--appendonly', 'no', '--daemonize', 'no', '--dir', tmp],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(rp)
        cp = subprocess.Popen([opts.casq, '--port', str(cport), '--bind', '127.0.0.1', '--dir', tmp],
                              stdout=open(os.path.join(tmp, 'casq.log'), 'w'), stderr=subprocess.STDOUT)
        procs.append(cp)
        wait_ready(rport, rp, 'redis-server')
        wait_ready(cport, cp, 'casq')
        result = run(opts, rport, cport)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(0 if result else 1)


if __name__ == '__main__':
    main()
