#!/usr/bin/python3
"""Randomised differential test: casq against redis-server on lists and
sorted sets.

Starts a redis-server and a casq (fresh data directory) on free local
ports, sends both the same random sequence of list and sorted-set commands
mixed with a few stream, set and generic ones (WRONGTYPE, DEL, RENAME,
COPY, MULTI/EXEC), from a fixed, printed seed, and compares every reply in
RESP2 and RESP3.

Blocking pops are sent with a short timeout: on a non-empty key they reply
at once, on an empty one both servers time out with a null.

The oracle is Debian's redis-server 7.0.15 while casq implements Redis 7.2;
what 7.2 changed is not generated or is normalised:
  - ZRANK/ZREVRANK WITHSCORE (new in 7.2) is not generated;
  - OBJECT ENCODING of lists (7.0 has no listpack lists) is not generated;
  - ZADD with more pairs than zset-max-listpack-entries (7.2 sizes the
    encoding from the arguments) is not generated, so zset encodings and
    hence ZSCAN replies agree;
  - ZRANDMEMBER replies are random: only their length (and, when they must
    hold the whole set, their sorted content) is compared;
  - lex ranges are asked of keys whose scores are all 0 (with mixed scores
    the answer depends on the skip list's random levels in Redis);
  - ZADD's score -0 is not generated: 7.2 picks the encoding from all of a
    ZADD's arguments before adding (a listpack turns -0 into 0, a skiplist
    keeps it), 7.0 converts on the way;
  - ZSCAN of a set encoded as a hash table returns members in hash order:
    ZSCAN is sent with COUNT 1000 (one call covers the set) and its pairs
    are compared sorted.

Usage: tests/listzset_diff.py [--seed N] [--count N] [--casq PATH]
                              [--redis PATH] [--base-port N] [--verbose]
The casq binary defaults to $CASQ_BIN, else src/casq-server. Ports: redis
gets a free one in [base, base+100), casq in [base+100, base+200); the base
is --base-port, else $DIFF_BASE_PORT, else 23200.
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

from stream_diff import Conn, Err, free_port, wait_ready  # noqa: E402

LISTS = ['l1', 'l2', 'l3']
ZSETS = ['z1', 'z2', 'z3']
LEXKEYS = ['lex1', 'lex2']      # scores always 0: lex ranges are well defined
OTHERS = ['s1', 'set1']          # a stream and a plain set
ELEMS = ['a', 'b', 'c', 'd', 'e', '1', '-2', '10', '', 'x' * 70, 'bin\x00\xff', 'hello world', '3.5']
SCORES = ['0', '1', '2', '-1', '1.5', '2.5', '10', '-inf', '+inf', '0.1', '100', '3', '1e2', '-0.5']


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def lkey(self):
        r = self.r
        return r.choice(LISTS) if r.random() < 0.93 else r.choice(ZSETS + OTHERS + ['nokey'])

    def zkey(self):
        r = self.r
        return r.choice(ZSETS) if r.random() < 0.93 else r.choice(LISTS + OTHERS + ['nokey'])

    def elem(self):
        return self.r.choice(ELEMS)

    def idx(self):
        return str(self.r.choice([0, 1, 2, -1, -2, 3, 5, 10, -10, 100, -100]))

    def timeout(self):
        return self.r.choice(['0.01', '0.01', '0.02'])

    # --- lists ---

    def lists(self):
        r = self.r
        c = r.randint(0, 22)
        k = self.lkey()
        if c <= 4:
            cmd = r.choice(['LPUSH', 'RPUSH', 'RPUSH', 'LPUSHX', 'RPUSHX'])
            return [cmd, k] + [self.elem() for _ in range(r.randint(1, 4))]
        if c == 5:
            args = [r.choice(['LPOP', 'RPOP']), k]
            if r.random() < 0.4:
                args.append(str(r.choice([0, 1, 2, 5, -1])))
            return args
        if c == 6:
            return ['LLEN', k]
        if c == 7:
            return ['LRANGE', k, self.idx(), self.idx()]
        if c == 8:
            return ['LINDEX', k, self.idx()]
        if c == 9:
            return ['LSET', k, self.idx(), self.elem()]
        if c == 10:
            return ['LINSERT', k, r.choice(['BEFORE', 'AFTER', 'before']), self.elem(), self.elem()]
        if c == 11:
            return ['LREM', k, str(r.choice([0, 1, 2, -1, -2])), self.elem()]
        if c == 12:
            return ['LTRIM', k, self.idx(), self.idx()]
        if c == 13:
            args = ['LPOS', k, self.elem()]
            for opt in r.sample(['RANK', 'COUNT', 'MAXLEN'], r.randint(0, 2)):
                args += [opt, str(r.choice([1, 2, -1, -2, 0, 3]))]
            return args
        if c == 14:
            return ['LMOVE', k, self.lkey(), r.choice(['LEFT', 'RIGHT']), r.choice(['LEFT', 'RIGHT'])]
        if c == 15:
            return ['RPOPLPUSH', k, self.lkey()]
        if c == 16:
            keys = r.sample(LISTS, r.randint(1, 3))
            args = ['LMPOP', str(len(keys))] + keys + [r.choice(['LEFT', 'RIGHT'])]
            if r.random() < 0.5:
                args += ['COUNT', str(r.choice([1, 2, 10]))]
            return args
        if c == 17:
            keys = r.sample(LISTS, r.randint(1, 2))
            return [r.choice(['BLPOP', 'BRPOP'])] + keys + [self.timeout()]
        if c == 18:
            return ['BLMOVE', k, self.lkey(), r.choice(['LEFT', 'RIGHT']), r.choice(['LEFT', 'RIGHT']), self.timeout()]
        if c == 19:
            return ['BRPOPLPUSH', k, self.lkey(), self.timeout()]
        if c == 20:
            keys = r.sample(LISTS, r.randint(1, 2))
            args = ['BLMPOP', self.timeout(), str(len(keys))] + keys + [r.choice(['LEFT', 'RIGHT'])]
            if r.random() < 0.5:
                args += ['COUNT', str(r.choice([1, 3]))]
            return args
        if c == 21:
            # errors
            return r.choice([['LPOS', k, 'a', 'RANK', '0'], ['LMPOP', '0', k, 'LEFT'], ['LINSERT', k, 'MIDDLE', 'a', 'b'],
                             ['LRANGE', k, 'x', '1'], ['LPOP', k, '-3'], ['BLPOP', k, '-1'], ['LMOVE', k, k, 'UP', 'LEFT']])
        # long lists with big elements: several chunks, byte limits, splits
        big = lambda: r.choice(['B' * 3000, 'C' * 9000, self.elem()]) if r.random() < 0.1 else self.elem()
        return [r.choice(['RPUSH', 'LPUSH']), r.choice(LISTS)] + [big() for _ in range(r.randint(5, 80))]

    # --- sorted sets ---

    def pairs(self, n):
        out = []
        for _ in range(n):
            out += [self.r.choice(SCORES), self.elem()]
        return out

    def score_bound(self):
        r = self.r
        b = r.choice(SCORES + ['-inf', '+inf', 'abc'] if r.random() < 0.05 else SCORES + ['-inf', '+inf'])
        if r.random() < 0.25 and b not in ('abc',):
            b = '(' + b
        return b

    def lexkey(self):
        return self.r.choice(LEXKEYS) if self.r.random() < 0.95 else 'nolex'

    def lex_bound(self):
        r = self.r
        c = r.random()
        if c < 0.2:
            return r.choice(['-', '+'])
        if c < 0.23:
            return 'bad'
        return r.choice(['[', '(']) + self.elem()

    def zsets(self):
        r = self.r
        c = r.randint(0, 30)
        k = self.zkey()
        if c <= 5:
            args = ['ZADD', k]
            for opt in r.sample(['NX', 'XX', 'GT', 'LT', 'CH', 'INCR'], r.choice([0, 0, 0, 1, 1, 2])):
                args.append(opt)
            n = 1 if 'INCR' in args and r.random() < 0.9 else r.randint(1, 5)
            return args + self.pairs(n)
        if c == 6:
            return ['ZINCRBY', k, r.choice(SCORES), self.elem()]
        if c == 7:
            return ['ZREM', k] + [self.elem() for _ in range(r.randint(1, 3))]
        if c == 8:
            return r.choice([['ZCARD', k], ['ZSCORE', k, self.elem()], ['ZMSCORE', k, self.elem(), self.elem()]])
        if c == 9:
            return [r.choice(['ZRANK', 'ZREVRANK']), k, self.elem()]
        if c == 10:
            return ['ZCOUNT', k, self.score_bound(), self.score_bound()]
        if c == 11:
            lk = self.lexkey()
            if r.random() < 0.5:
                return ['ZADD', lk] + sum([['0', self.elem()] for _ in range(r.randint(1, 4))], [])
            if r.random() < 0.3:
                return ['ZREM', lk, self.elem()]
            return ['ZLEXCOUNT', lk, self.lex_bound(), self.lex_bound()]
        if c in (12, 13):
            kind = r.choice(['rank', 'score', 'lex'])
            rev = r.random() < 0.3
            if kind == 'rank':
                args = ['ZRANGE', k, self.idx(), self.idx()]
            elif kind == 'score':
                args = ['ZRANGE', k, self.score_bound(), self.score_bound(), 'BYSCORE']
            else:
                args = ['ZRANGE', self.lexkey(), self.lex_bound(), self.lex_bound(), 'BYLEX']
            if rev:
                args.append('REV')
            if kind != 'rank' and r.random() < 0.4:
                args += ['LIMIT', str(r.choice([0, 1, 2, -1])), str(r.choice([1, 2, 5, -1, 0]))]
            if kind != 'lex' and r.random() < 0.5:
                args.append('WITHSCORES')
            if r.random() < 0.03:
                args.append(r.choice(['LIMIT', 'FOO']))
            return args
        if c == 14:
            cmd = r.choice(['ZRANGEBYSCORE', 'ZREVRANGEBYSCORE'])
            args = [cmd, k, self.score_bound(), self.score_bound()]
            if r.random() < 0.4:
                args.append('WITHSCORES')
            if r.random() < 0.3:
                args += ['LIMIT', str(r.choice([0, 1, 2])), str(r.choice([1, 3, -1]))]
            return args
        if c == 15:
            cmd = r.choice(['ZRANGEBYLEX', 'ZREVRANGEBYLEX'])
            args = [cmd, self.lexkey(), self.lex_bound(), self.lex_bound()]
            if r.random() < 0.3:
                args += ['LIMIT', str(r.choice([0, 1, 2])), str(r.choice([1, 3, -1]))]
            return args
        if c == 16:
            args = ['ZREVRANGE', k, self.idx(), self.idx()]
            if r.random() < 0.4:
                args.append('WITHSCORES')
            return args
        if c == 17:
            kind = r.choice(['rank', 'score', 'lex'])
            dst = r.choice(ZSETS + ['zdst'])
            if kind == 'rank':
                return ['ZRANGESTORE', dst, k, self.idx(), self.idx()]
            if kind == 'score':
                return ['ZRANGESTORE', dst, k, self.score_bound(), self.score_bound(), 'BYSCORE']
            return ['ZRANGESTORE', dst, self.lexkey(), self.lex_bound(), self.lex_bound(), 'BYLEX']
        if c == 18:
            return ['ZREMRANGEBYRANK', k, self.idx(), self.idx()]
        if c == 19:
            return ['ZREMRANGEBYSCORE', k, self.score_bound(), self.score_bound()]
        if c == 20:
            return ['ZREMRANGEBYLEX', self.lexkey(), self.lex_bound(), self.lex_bound()]
        if c == 21:
            args = [r.choice(['ZPOPMIN', 'ZPOPMAX']), k]
            if r.random() < 0.5:
                args.append(str(r.choice([0, 1, 2, 10])))
            return args
        if c == 22:
            keys = r.sample(ZSETS, r.randint(1, 3))
            args = ['ZMPOP', str(len(keys))] + keys + [r.choice(['MIN', 'MAX'])]
            if r.random() < 0.5:
                args += ['COUNT', str(r.choice([1, 2, 10]))]
            return args
        if c == 23:
            keys = r.sample(ZSETS, r.randint(1, 2))
            return [r.choice(['BZPOPMIN', 'BZPOPMAX'])] + keys + [self.timeout()]
        if c == 24:
            keys = r.sample(ZSETS, r.randint(1, 2))
            args = ['BZMPOP', self.timeout(), str(len(keys))] + keys + [r.choice(['MIN', 'MAX'])]
            if r.random() < 0.5:
                args += ['COUNT', str(r.choice([1, 3]))]
            return args
        if c in (25, 26):
            op = r.choice(['ZUNION', 'ZINTER', 'ZDIFF', 'ZUNIONSTORE', 'ZINTERSTORE', 'ZDIFFSTORE', 'ZINTERCARD'])
            keys = r.sample(ZSETS + ['set1', 'nokey'], r.randint(1, 3))
            if r.random() < 0.05:
                keys.append(r.choice(LISTS + ['s1']))
            args = [op]
            if op.endswith('STORE'):
                args.append(r.choice(ZSETS + ['zdst']))
            args += [str(len(keys))] + keys
            if op in ('ZUNION', 'ZINTER', 'ZUNIONSTORE', 'ZINTERSTORE'):
                if r.random() < 0.4:
                    args += ['WEIGHTS'] + [r.choice(['1', '2', '0', '-1', '0.5']) for _ in keys]
                if r.random() < 0.4:
                    args += ['AGGREGATE', r.choice(['SUM', 'MIN', 'MAX'])]
            if op in ('ZUNION', 'ZINTER', 'ZDIFF') and r.random() < 0.5:
                args.append('WITHSCORES')
            if op == 'ZINTERCARD' and r.random() < 0.5:
                args += ['LIMIT', str(r.choice([0, 1, 2]))]
            return args
        if c == 27:
            args = ['ZRANDMEMBER', k]
            if r.random() < 0.7:
                args.append(str(r.choice([1, 2, 5, 100, -3, 0])))
                if r.random() < 0.5:
                    args.append('WITHSCORES')
            return args
        if c == 28:
            args = ['ZSCAN', k, '0']
            if r.random() < 0.3:
                args += ['MATCH', r.choice(['*', 'a*', '?', 'm*'])]
            return args + ['COUNT', '1000']
        if c == 29:
            return r.choice([['ZADD', k, 'NX', 'XX', '1', 'a'], ['ZRANGEBYLEX', k, 'a', 'b'], ['ZADD', k, 'GT', 'LT', '1', 'a'], ['ZADD', k, 'x', 'a'],
                             ['ZADD', k, 'INCR', '1', 'a', '2', 'b'], ['ZRANGE', k, '0', '1', 'LIMIT', '0', '1'],
                             ['ZCOUNT', k, 'a', 'b'], ['ZLEXCOUNT', k, '[a', 'b'], ['ZMPOP', '0', k, 'MIN'],
                             ['ZUNIONSTORE', 'zdst', '0', k], ['ZINCRBY', k, 'nan', 'a'], ['ZPOPMIN', k, '-1']])
        # a bigger set, to reach the skiplist encoding now and then
        args = ['ZADD', k]
        for i in range(r.randint(10, 40)):
            args += [str(r.randint(-50, 50)), 'm%d' % r.randint(0, 150)]
        return args

    # --- others ---

    def other(self):
        r = self.r
        k = r.choice(LISTS + ZSETS + OTHERS)
        c = r.randint(0, 8)
        if c == 0:
            return ['DEL', k]
        if c == 1:
            return ['EXISTS'] + r.sample(LISTS + ZSETS, 2)
        if c == 2:
            return ['TYPE', k]
        if c == 3:
            return ['XADD', 's1', '*', 'f', 'v'] if r.random() < 0.7 else ['XADD', r.choice(LISTS + ZSETS), '*', 'f', 'v']
        if c == 4:
            return ['SADD', 'set1'] + [self.elem() for _ in range(r.randint(1, 3))]
        if c == 5:
            return ['RENAME', r.choice(LISTS + ZSETS), r.choice(LISTS + ZSETS)]
        if c == 6:
            return ['COPY', r.choice(LISTS + ZSETS), r.choice(LISTS + ZSETS), 'REPLACE']
        if c == 7:
            return ['OBJECT', 'ENCODING', r.choice(LEXKEYS)]
        return ['XLEN', 's1']

    def command(self):
        c = self.r.random()
        if c < 0.45:
            return self.lists()
        if c < 0.92:
            return self.zsets()
        return self.other()


def strip_stream_ids(args, reply):
    """XADD * replies carry time-based IDs."""
    if args[0] == 'XADD' and isinstance(reply, bytes) and not isinstance(reply, Err):
        return b'<id>'
    return reply


def flat_pairs(reply):
    """ZSCAN/ZRANDMEMBER pairs as a sorted list (RESP2 flat or RESP3 nested)."""
    if not isinstance(reply, list):
        return reply
    if reply and isinstance(reply[0], list):
        return sorted(tuple(map(repr, p)) for p in reply)
    return sorted((repr(reply[i]), repr(reply[i + 1])) for i in range(0, len(reply) - 1, 2))


def normalise(args, reply, card):
    cmd = args[0]
    reply = strip_stream_ids(args, reply)
    if cmd == 'ZRANDMEMBER' and isinstance(reply, list):
        count = int(args[2])
        if count > 0 and card is not None and count >= card:
            return ('whole', flat_pairs(reply) if len(args) > 3 else sorted(reply))
        return ('len', len(reply))
    if cmd == 'ZRANDMEMBER' and isinstance(reply, bytes) and not isinstance(reply, Err):
        return 'member'
    if cmd == 'OBJECT' and reply == b'quicklist':
        return 'a list'  # 7.0 has no listpack lists
    if cmd == 'ZSCAN' and isinstance(reply, list) and len(reply) == 2:
        return (reply[0], flat_pairs(reply[1]))
    return reply


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=20261201)
    ap.add_argument('--count', type=int, default=8000)
    ap.add_argument('--casq', default=os.environ.get('CASQ_BIN') or os.path.join(ROOT, 'src', 'casq-server'))
    ap.add_argument('--redis', default=shutil.which('redis-server') or '/usr/bin/redis-server')
    ap.add_argument('--base-port', type=int, default=int(os.environ.get('DIFF_BASE_PORT', '23200')))
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--max-report', type=int, default=30, help='mismatches printed in full')
    opts = ap.parse_args()

    print('listzset_diff: seed %d, %d commands' % (opts.seed, opts.count), flush=True)
    rport = free_port(opts.base_port, opts.base_port + 100)
    cport = free_port(opts.base_port + 100, opts.base_port + 200)
    tmp = tempfile.mkdtemp(prefix='casq-listzset-diff-')
    procs = []
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
        if os.environ.get('KEEP'):
            print('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(0 if result else 1)


def run(opts, rport, cport):
    rnd = random.Random(opts.seed)
    gen = Gen(rnd)
    conns = {2: (Conn(rport, 2), Conn(cport, 2)), 3: (Conn(rport, 3), Conn(cport, 3))}
    passed = failed = 0
    i = 0
    while i < opts.count:
        proto = 3 if rnd.random() < 0.3 else 2
        ra_conn, ca_conn = conns[proto]
        if rnd.random() < 0.03:
            # a transaction of a few commands
            batch = [gen.command() for _ in range(rnd.randint(2, 5))]
            batch = [['MULTI']] + batch + [['EXEC']]
        else:
            batch = [gen.command()]
        for args in batch:
            i += 1
            card = None
            if args[0] == 'ZRANDMEMBER' and len(batch) == 1:
                cr = ra_conn.cmd('ZCARD', args[1])
                card = cr if isinstance(cr, int) else None
            ra = ra_conn.cmd(*args)
            ca = ca_conn.cmd(*args)
            if args[0] == 'EXEC' and isinstance(ra, list) and isinstance(ca, list):
                sub = batch[1:-1]
                na = [normalise(a, x, None) for a, x in zip(sub, ra)]
                nc = [normalise(a, x, None) for a, x in zip(sub, ca)]
            else:
                na, nc = normalise(args, ra, card), normalise(args, ca, card)
            if na == nc:
                passed += 1
                if opts.verbose:
                    print('ok   #%d RESP%d %r' % (i, proto, args))
            else:
                failed += 1
                if failed <= opts.max_report:
                    print('MISMATCH #%d RESP%d %s' % (i, proto, ' '.join(repr(a) for a in args)))
                    if args[0] == 'EXEC':
                        print('    transaction: %r' % (batch[1:-1],))
                    print('    redis: %r' % (ra,))
                    print('    casq : %r' % (ca,))
    # The final contents must agree too.
    c2r, c2c = conns[2]
    for k in LISTS:
        a, b = c2r.cmd('LRANGE', k, '0', '-1'), c2c.cmd('LRANGE', k, '0', '-1')
        if a == b:
            passed += 1
        else:
            failed += 1
            print('FINAL MISMATCH %s\n    redis: %r\n    casq : %r' % (k, a, b))
    for k in ZSETS + LEXKEYS + ['zdst']:
        a, b = c2r.cmd('ZRANGE', k, '0', '-1', 'WITHSCORES'), c2c.cmd('ZRANGE', k, '0', '-1', 'WITHSCORES')
        if a == b:
            passed += 1
        else:
            failed += 1
            print('FINAL MISMATCH %s\n    redis: %r\n    casq : %r' % (k, a, b))
    print('%d passed, %d failed' % (passed, failed))
    return failed == 0


if __name__ == '__main__':
    main()
