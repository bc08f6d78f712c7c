// ioredis_client.js -- a pusher/worker session with ioredis against a
// server on 127.0.0.1:PORT (started by ioredis_client.py, which also
// installs ioredis when it is missing).
//
//   node tests/integration/ioredis_client.js PORT
//
// XADD -> XREADGROUP BLOCK -> XACK with two workers, a blocked worker woken
// by a pusher, XAUTOCLAIM of a dead worker's jobs, pipelines, MULTI/EXEC,
// binary values through the *Buffer commands, exact error strings.
// Prints [ok]/[err] per check and ends with `N passed, N failed`.
'use strict';
const path = require('path');
const Redis = require(path.join(__dirname, 'node_modules', 'ioredis'));

const port = parseInt(process.argv[2], 10);
const { check, eq, finish } = require(path.join(__dirname, 'checks.js'));

function client() {
  return new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, lazyConnect: false });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function errorOf(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return e.message;
  }
}

async function basics(r) {
  eq('PING', 'PONG', await r.ping());
  await r.del('s');
  const id = await r.xadd('s', '*', 'job', '1');
  check('XADD * returns an ID', /^\d+-\d+$/.test(id), id);
  eq('XLEN', 1, await r.xlen('s'));
  eq('XRANGE', [[id, ['job', '1']]], await r.xrange('s', '-', '+'));
  const bin = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]);
  const bid = await r.xadd(Buffer.from('s'), '*', Buffer.from([0xff, 0x00]), bin);
  const back = await r.xrangeBuffer('s', bid, bid);
  check('binary field and value round trip',
    back.length === 1 && Buffer.compare(back[0][1][0], Buffer.from([0xff, 0x00])) === 0 &&
      Buffer.compare(back[0][1][1], bin) === 0, JSON.stringify(back));
  eq('TYPE', 'stream', await r.type('s'));
  eq('unknown command error', "ERR unknown command 'NOSUCH', with args beginning with: 'x' ",
    await errorOf(r.call('NOSUCH', 'x')));
  eq('XGROUP CREATE on a missing key',
    'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.',
    await errorOf(r.xgroup('CREATE', 'nokey', 'g', '$')));
  eq('DEL', 1, await r.del('s'));
}

async function worker(name, got, state) {
  const w = client();
  while (!state.stop) {
    const res = await w.xreadgroup('GROUP', 'workers', name, 'COUNT', 10, 'BLOCK', 200, 'STREAMS', 'jobs', '>');
    if (!res) continue;
    for (const [, entries] of res) {
      for (const [id, fields] of entries) {
        got.push([id, fields[1]]);
        await w.xack('jobs', 'workers', id);
      }
    }
  }
  w.disconnect();
}

async function pushWork(r) {
  await r.del('jobs');
  eq('XGROUP CREATE MKSTREAM', 'OK', await r.xgroup('CREATE', 'jobs', 'workers', '$', 'MKSTREAM'));
  // A worker blocked with BLOCK 0 is woken by the pusher's XADD.
  const blocked = client();
  const pending = blocked.xreadgroup('GROUP', 'workers', 'w0', 'COUNT', 1, 'BLOCK', 0, 'STREAMS', 'jobs', '>');
  for (let i = 0; i < 2000; i++) {
    const info = await r.info('clients');
    if (/blocked_clients:1\r?\n/.test(info)) break;
    await sleep(10);
  }
  const first = await r.xadd('jobs', '*', 'n', 'first');
  const woke = await pending;
  eq('XADD wakes the blocked worker', [['jobs', [[first, ['n', 'first']]]]], woke);
  blocked.disconnect();
  eq('XACK', 1, await r.xack('jobs', 'workers', first));

  const n = 300;
  const got1 = [];
  const got2 = [];
  const stopAt = Date.now() + 60000;
  const state = { stop: false };
  const workers = [worker('w1', got1, state), worker('w2', got2, state)];
  const pushed = [];
  for (let i = 0; i < n; i++) pushed.push(await r.xadd('jobs', '*', 'n', String(i)));
  // The workers stop once the pair has seen everything (or at the deadline).
  while (got1.length + got2.length < n && Date.now() < stopAt) await sleep(20);
  state.stop = true;
  await Promise.all(workers);
  const done = got1.concat(got2).map((e) => e[0]).sort();
  eq('every job delivered exactly once', pushed.slice().sort(), done);
  const pend = await r.xpending('jobs', 'workers');
  eq('nothing pending after XACK', 0, pend[0]);
}

async function deadWorker(r) {
  await r.del('q');
  await r.xgroup('CREATE', 'q', 'g', '0', 'MKSTREAM');
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push(await r.xadd('q', '*', 'job', String(i)));
  const dead = client();
  const taken = await dead.xreadgroup('GROUP', 'g', 'dead', 'COUNT', 3, 'STREAMS', 'q', '>');
  eq('dead worker took 3 jobs', ids.slice(0, 3), taken[0][1].map((e) => e[0]));
  dead.disconnect();
  await sleep(30);
  const [next, claimed, deleted] = await r.xautoclaim('q', 'g', 'alive', 10, '0-0', 'COUNT', 10);
  eq('XAUTOCLAIM takes the dead worker\'s jobs', ids.slice(0, 3), claimed.map((e) => e[0]));
  eq('XAUTOCLAIM cursor and deleted list', ['0-0', []], [next, deleted]);
  const detail = await r.xpending('q', 'g', '-', '+', 10);
  eq('owner and delivery count after the claim', ids.slice(0, 3).map((id) => [id, 'alive', 2]),
    detail.map((d) => [d[0], d[1], d[3]]));
  eq('XACK', 3, await r.xack('q', 'g', ...ids.slice(0, 3)));
}

async function pipelines(r) {
  await r.del('p');
  const p = r.pipeline();
  for (let i = 0; i < 1000; i++) p.xadd('p', '*', 'i', String(i));
  p.xlen('p');
  const res = await p.exec();
  eq('pipeline of 1000 XADD: no errors', 0, res.filter(([e]) => e).length);
  eq('pipeline XLEN', 1000, res[1000][1]);
  const tx = await r.multi().xadd('p', '*', 'i', 'tx').xtrim('p', 'MAXLEN', 5).xlen('p').exec();
  eq('MULTI/EXEC: XTRIM and XLEN results', [996, 5], [tx[1][1], tx[2][1]]);
  const w = client();
  await w.watch('p');
  await r.xadd('p', '*', 'i', 'intruder');
  const aborted = await w.multi().xadd('p', '*', 'i', 'mine').exec();
  eq('WATCH aborts EXEC after a concurrent XADD', null, aborted);
  w.disconnect();
  eq('the aborted XADD did not happen', 6, await r.xlen('p'));
}

async function main() {
  const r = client();
  r.on('error', () => {});
  const steps = [['basics', basics], ['push/work', pushWork], ['dead worker', deadWorker],
    ['pipelines', pipelines]];
  for (const [name, fn] of steps) {
    try {
      await fn(r);
    } catch (e) {
      check(`${name} (raised)`, false, e.stack);
    }
  }
  r.disconnect();
  finish();
}

setTimeout(() => {
  check('finished within 300 s', false);
  finish();
}, 300000).unref();
main();
