#!/usr/bin/python3
"""Randomised differential test: casq against redis-server on sets.

Starts a redis-server and a casq (a fresh data directory) on free local
ports, sends both the same random sequence of set commands (SADD SREM SMOVE
SISMEMBER SMISMEMBER SCARD SMEMBERS SPOP SRANDMEMBER SINTER SINTERCARD
SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN OBJECT ENCODING) mixed
with a few generic and stream commands (DEL EXISTS TYPE RENAME COPY EXPIRE
TTL XADD XLEN), from a fixed, printed seed, in RESP2 and RESP3, and
compares every reply after normalising what Redis leaves unspecified:

  - the members of a set reply (SMEMBERS, SINTER, SUNION, SDIFF) are
    compared sorted: a hashtable's order is its hash function's;
  - SPOP and SRANDMEMBER are random: casq runs them first, its reply is
    checked against the oracle's state (every member belongs to the set,
    counts and uniqueness as Redis defines them, same reply type), then
    the oracle removes exactly what casq popped, so both stay equal;
  - XADD's generated IDs (each server's clock) are not compared;
  - SSCAN is iterated to the end on both sides and the members compared;
  - OBJECT ENCODING: the oracle is Debian's redis-server 7.0.15, which has
    no listpack sets (7.2 does): where redis says "hashtable", casq may say
    "listpack"; "intset" must be "intset". The listpack limits are checked
    against 7.2's rules directly (at most set-max-listpack-entries members
    of at most set-max-listpack-value bytes).

Both servers run with set-max-intset-entries 20 so the conversions happen
often.

Usage: tests/set_diff.py [--seed N] [--count N] [--casq PATH]
                         [--redis PATH] [--base-port N] [--verbose]
Ports: redis gets a free one in [base, base+100), casq in
[base+100, base+200); the base is --base-port, else $DIFF_BASE_PORT, else
23400. Prints mismatches; the last line is "N passed, N failed"; exits
non-zero on any mismatch.
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
from stream_diff import Conn, Err, Simple, free_port, wait_ready  # noqa: E402

INTSET_MAX = 20
LISTPACK_MAX_ENTRIES = 128
LISTPACK_MAX_VALUE = 64

SETKEYS = ['a', 'b', 'c', 'd', 'big']
STREAMKEY = 'st'
MEMBERS = (['%d' % i for i in range(-5, 30)] + ['9223372036854775807', '-9223372036854775808',
           '9223372036854775808', '01', '+1', '-0', ' 1', '1.5', 'a', 'b', 'c', 'foo', 'bar', 'x' * 64,
           'y' * 65, '', '\x00', '\xff\xfe', 'caf\xe9', 'm:1', 'm:2', 'm:3'])


def enc(s):
    return s.encode('latin-1') if isinstance(s, str) else s


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def key(self):
        r = self.r.random()
        if r < 0.05:
            return STREAMKEY
        if r < 0.08:
            return 'missing'
        return self.r.choice(SETKEYS)

    def member(self):
        if self.r.random() < 0.15:
            return 'm:%d' % self.r.randrange(300)
        return self.r.choice(MEMBERS)

    def members(self, lo=1, hi=6):
        return [self.member() for _ in range(self.r.randint(lo, hi))]

    def keys(self, lo=1, hi=4):
        return [self.key() for _ in range(self.r.randint(lo, hi))]

    def command(self):
        r = self.r
        c = r.choices(
            ['SADD', 'SADDBULK', 'SREM', 'SMOVE', 'SISMEMBER', 'SMISMEMBER', 'SCARD', 'SMEMBERS', 'SPOP',
             'SRANDMEMBER', 'SINTER', 'SINTERCARD', 'SINTERSTORE', 'SUNION', 'SUNIONSTORE', 'SDIFF', 'SDIFFSTORE',
             'SSCAN', 'ENCODING', 'GENERIC', 'STREAM', 'BAD'],
            [14, 2, 8, 5, 5, 4, 4, 5, 5, 5, 4, 3, 3, 3, 3, 3, 3, 3, 4, 4, 2, 3])[0]
        if c == 'SADD':
            return ['SADD', self.key()] + self.members()
        if c == 'SADDBULK':
            k = r.choice(SETKEYS)
            if r.random() < 0.5:
                return ['SADD', k] + ['%d' % r.randrange(-1000, 1000) for _ in range(r.randint(10, 40))]
            return ['SADD', k] + ['m:%d' % r.randrange(300) for _ in range(r.randint(20, 150))]
        if c == 'SREM':
            return ['SREM', self.key()] + self.members(1, 8)
        if c == 'SMOVE':
            return ['SMOVE', self.key(), self.key(), self.member()]
        if c == 'SISMEMBER':
            return ['SISMEMBER', self.key(), self.member()]
        if c == 'SMISMEMBER':
            return ['SMISMEMBER', self.key()] + self.members()
        if c == 'SCARD':
            return ['SCARD', self.key()]
        if c == 'SMEMBERS':
            return ['SMEMBERS', self.key()]
        if c == 'SPOP':
            if r.random() < 0.4:
                return ['SPOP', self.key()]
            return ['SPOP', self.key(), str(r.choice([0, 1, 2, 3, 5, 10, 50, 200]))]
        if c == 'SRANDMEMBER':
            if r.random() < 0.3:
                return ['SRANDMEMBER', self.key()]
            return ['SRANDMEMBER', self.key(), str(r.choice([0, 1, 2, 5, 10, 100, -1, -3, -20]))]
        if c in ('SINTER', 'SUNION', 'SDIFF'):
            return [c] + self.keys()
        if c in ('SINTERSTORE', 'SUNIONSTORE', 'SDIFFSTORE'):
            return [c, self.key()] + self.keys()
        if c == 'SINTERCARD':
            ks = self.keys()
            cmd = ['SINTERCARD', str(len(ks))] + ks
            if r.random() < 0.4:
                cmd += ['LIMIT', str(r.choice([0, 1, 2, 5]))]
            return cmd
        if c == 'SSCAN':
            cmd = ['SSCAN', self.key(), '0']
            if r.random() < 0.4:
                cmd += ['MATCH', r.choice(['m:1*', '*a*', '1*', '*'])]
            if r.random() < 0.4:
                cmd += ['COUNT', str(r.choice([1, 5, 100]))]
            return cmd
        if c == 'ENCODING':
            return ['OBJECT', 'ENCODING', r.choice(SETKEYS)]
        if c == 'GENERIC':
            g = r.choice(['DEL', 'EXISTS', 'TYPE', 'RENAME', 'COPY', 'EXPIRE', 'TTL'])
            if g == 'DEL':
                return ['DEL'] + self.keys(1, 2)
            if g == 'EXISTS':
                return ['EXISTS'] + self.keys()
            if g == 'TYPE':
                return ['TYPE', self.key()]
            if g == 'RENAME':
                return ['RENAME', self.key(), self.key()]
            if g == 'COPY':
                return ['COPY', self.key(), self.key(), 'REPLACE']
            if g == 'EXPIRE':
                return ['EXPIRE', self.key(), '1000']
            return ['TTL', self.key()]
        if c == 'STREAM':
            if r.random() < 0.5:
                return ['XADD', self.key(), '*', 'f', 'v']
            return ['XLEN', self.key()]
        # errors
        return r.choice([
            ['SADD', self.key()],
            ['SPOP', self.key(), '-1'],
            ['SPOP', self.key(), 'x'],
            ['SPOP', self.key(), '1', '2'],
            ['SRANDMEMBER', self.key(), 'x'],
            ['SRANDMEMBER', self.key(), '1', '2'],
            ['SINTERCARD', '0', 'a'],
            ['SINTERCARD', '3', 'a'],
            ['SINTERCARD', '1', 'a', 'LIMIT', '-1'],
            ['SINTERCARD', '1', 'a', 'FOO'],
            ['SSCAN', self.key(), 'x'],
            ['SSCAN', self.key(), '0', 'COUNT', '0'],
            ['SMOVE', 'a', 'b'],
            ['SMISMEMBER', 'a'],
        ])


SET_REPLY = {'SMEMBERS', 'SINTER', 'SUNION', 'SDIFF'}


def sort_members(x):
    if isinstance(x, tuple) and x and x[0] == 'set':
        return ('set', sorted(x[1]))
    if isinstance(x, list):
        return sorted(x)
    return x


def members_of(x):
    if isinstance(x, tuple) and x and x[0] == 'set':
        return list(x[1])
    if isinstance(x, list):
        return list(x)
    return None


def scan_all(conn, args):
    """Iterates SSCAN from cursor 0 to the end; the sorted members, or the
    error/first reply if it is not a scan reply."""
    out = []
    cursor = b'0'
    for _ in range(10000):
        a = list(args)
        a[2] = cursor
        rep = conn.cmd(*a)
        if not isinstance(rep, list) or len(rep) != 2:
            return rep
        cursor = rep[0]
        out.extend(rep[1])
        if cursor == b'0':
            break
    return ('scan', sorted(set(out)))


class Checker:
    def __init__(self, rconn, cconn):
        self.rc, self.cc = rconn, cconn
        self.problems = []

    def fail(self, why):
        self.problems.append(why)

    def random_cmd(self, args):
        """SPOP / SRANDMEMBER: casq first, its reply checked against the
        oracle's state; the oracle then pops the same members."""
        key = args[1]
        rtype = self.rc.cmd('TYPE', key)
        ctype = self.cc.cmd('TYPE', key)
        before = self.rc.cmd('SMEMBERS', key) if rtype == Simple(b'set') else None
        before = set(members_of(before) or [])
        ca = self.cc.cmd(*args)
        pop = args[0] == 'SPOP'
        bad_args = len(args) > 3 or (len(args) == 3 and not args[2].lstrip('-').isdigit()) or \
            (pop and len(args) == 3 and args[2].startswith('-'))
        if bad_args or rtype not in (Simple(b'set'), Simple(b'none')):
            # errors: the oracle must say the same
            ra = self.rc.cmd(*args)
            return ra, ca
        if rtype != ctype:
            self.fail('types differ before %s: %r %r' % (args[0], rtype, ctype))
        if len(args) == 2:
            if not before:
                ra = self.rc.cmd(*args)  # nil
                return ra, ca
            if not isinstance(ca, bytes) or isinstance(ca, (Err, Simple)) or ca not in before:
                self.fail('%s returned %r, not a member' % (args[0], ca))
            if pop and isinstance(ca, bytes):
                self.rc.cmd('SREM', key, ca)
            return ca, ca
        count = int(args[2])
        got = members_of(ca)
        if got is None:
            self.fail('%s count returned %r' % (args[0], ca))
            return ca, ca
        if pop or count >= 0:
            want = min(count if pop else count, len(before))
            if len(got) != want or len(set(got)) != len(got):
                self.fail('%s %d: %d members (%d distinct), expected %d distinct' %
                          (args[0], count, len(got), len(set(got)), want))
        else:
            if len(got) != (-count if before else 0):
                self.fail('SRANDMEMBER %d: %d members' % (count, len(got)))
        if not set(got) <= before:
            self.fail('%s returned non-members %r' % (args[0], sorted(set(got) - before)[:5]))
        # the reply's type must be Redis's: a set for SPOP, an array for SRANDMEMBER
        expect_set = pop and self.cc.resp == 3
        if expect_set != (isinstance(ca, tuple) and ca[0] == 'set'):
            self.fail('%s reply type %r' % (args[0], type(ca)))
        if pop and got:
            self.rc.cmd('SREM', key, *got)
        return ca, ca


def check_encoding(conn, key):
    """7.2's listpack rule, on casq's own answers."""
    enc_ = conn.cmd('OBJECT', 'ENCODING', key)
    if enc_ != b'listpack':
        return None
    ms = members_of(conn.cmd('SMEMBERS', key)) or []
    if len(ms) > LISTPACK_MAX_ENTRIES or any(len(m) > LISTPACK_MAX_VALUE for m in ms):
        return 'listpack with %d members, longest %d' % (len(ms), max(len(m) for m in ms))
    return None


def run(opts, rport, cport):
    rnd = random.Random(opts.seed)
    gen = Gen(rnd)
    conns = {}
    for proto in (2, 3):
        rc, cc = Conn(rport, proto), Conn(cport, proto)
        rc.resp = cc.resp = proto
        conns[proto] = (rc, cc)
    for c in (conns[2][0], conns[2][1]):
        c.cmd('CONFIG', 'SET', 'set-max-intset-entries', str(INTSET_MAX))
    passed = failed = 0

    def report(i, proto, args, ra, ca, why=''):
        nonlocal failed
        failed += 1
        if failed <= opts.max_report:
            print('MISMATCH #%d RESP%d %s %s' % (i, proto, ' '.join(repr(a) for a in args), why))
            print('    redis: %r' % (ra,))
            print('    casq : %r' % (ca,))

    for i in range(opts.count):
        args = [enc(a) if isinstance(a, str) and any(ord(ch) > 127 for ch in a) else a
                for a in gen.command()]
        proto = 3 if rnd.random() < 0.3 else 2
        rc, cc = conns[proto]
        name = args[0]
        if name in ('SPOP', 'SRANDMEMBER'):
            ch = Checker(rc, cc)
            ra, ca = ch.random_cmd(args)
            if ch.problems:
                report(i, proto, args, ra, ca, '; '.join(ch.problems))
                continue
        elif name == 'SSCAN':
            ra, ca = scan_all(rc, args), scan_all(cc, args)
        else:
            ra = rc.cmd(*args)
            ca = cc.cmd(*args)
        if name in SET_REPLY:
            ra, ca = sort_members(ra), sort_members(ca)
        if name == 'XADD' and not isinstance(ra, Err) and not isinstance(ca, Err):
            ra = ca = 'an ID'  # generated from each server's clock
        if args[:2] == ['OBJECT', 'ENCODING']:
            if ra == b'hashtable' and ca == b'listpack':
                ca = ra
            why = check_encoding(cc, args[2])
            if why:
                report(i, proto, args, ra, ca, why)
                continue
        if ra == ca:
            passed += 1
            if opts.verbose:
                print('ok   #%d RESP%d %r' % (i, proto, args))
        else:
            report(i, proto, args, ra, ca)
    # Final state: every key equal.
    rc, cc = conns[2]
    for k in SETKEYS + [STREAMKEY]:
        rt, ct = rc.cmd('TYPE', k), cc.cmd('TYPE', k)
        rm = sort_members(rc.cmd('SMEMBERS', k)) if rt == Simple(b'set') else None
        cm = sort_members(cc.cmd('SMEMBERS', k)) if ct == Simple(b'set') else None
        if (rt, rm) == (ct, cm):
            passed += 1
        else:
            report(-1, 2, ['final state', k], (rt, rm), (ct, cm))
    print('%d passed, %d failed' % (passed, failed))
    return failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=20261201)
    ap.add_argument('--count', type=int, default=8000)
    ap.add_argument('--casq', default=os.environ.get('CASQ_BIN') or os.path.join(ROOT, 'src', 'casq-server'))
    ap.add_argument('--redis', default=shutil.which('redis-server') or '/usr/bin/redis-server')
    ap.add_argument('--base-port', type=int, default=int(os.environ.get('DIFF_BASE_PORT', '23400')))
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--max-report', type=int, default=30, help='mismatches printed in full')
    opts = ap.parse_args()

    print('set_diff: seed %d, %d commands' % (opts.seed, opts.count), flush=True)
    rport = free_port(opts.base_port, opts.base_port + 100)
    cport = free_port(opts.base_port + 100, opts.base_port + 200)
    tmp = tempfile.mkdtemp(prefix='casq-set-diff-')
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
