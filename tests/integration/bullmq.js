// bullmq.js -- BullMQ (all Lua: EVALSHA of its own scripts) end to end
// against a server on 127.0.0.1:PORT. Driven by bullmq.py, which runs the
// scenarios on redis-server and on casq and compares their outcomes.
//
//   node tests/integration/bullmq.js scenarios PORT
//       Queue + Worker with concurrency, delayed and prioritized jobs,
//       retries with exponential backoff, a job scheduler, flows
//       (FlowProducer, getChildrenValues), a rate limiter, QueueEvents and
//       the events stream, removeOnComplete / removeOnFail, pause and
//       getJobCounts. Prints [ok]/[err] per check, one `OUTCOME {json}` line
//       per scenario (what bullmq.py compares between the servers; nothing
//       timing-dependent in it) and ends with `N passed, N failed`.
//
//   node tests/integration/bullmq.js crash PORT
//       Jobs added and processed without a pause while bullmq.py kills the
//       server with SIGKILL and starts it again on the same data: prints
//       `PROGRESS {json}` lines, waits for `RESTARTED` on stdin, then checks
//       that every job whose Queue.add was acknowledged is there and
//       completes, and that no job whose completion was acknowledged is
//       processed again.
//
// No timing assertions: every wait polls with a deadline, and the only
// durations checked are lower bounds that BullMQ promises (a delayed job
// does not run early, backoff waits at least its delay, the limiter
// spaces jobs out).
'use strict';
const path = require('path');
const { Queue, Worker, QueueEvents, FlowProducer } = require(path.join(__dirname, 'node_modules', 'bullmq'));
const Redis = require(path.join(__dirname, 'node_modules', 'ioredis'));

const mode = process.argv[2];
const port = parseInt(process.argv[3], 10);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const { check, eq, finish } = require(path.join(__dirname, 'checks.js'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls fn() until it returns a truthy value; a timeout is an exception
// (the scenario fails and says what it waited for), never a hang.
async function waitFor(what, fn, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

function outcome(name, o) {
  console.log('OUTCOME ' + JSON.stringify({ scenario: name, ...o }));
}

// Every object a scenario opens, closed at its end even when it failed.
class Scope {
  constructor() { this.items = []; }
  add(x) { this.items.push(x); return x; }
  // A plain ioredis client, to look at BullMQ's keys (prefix `bull:`).
  raw() { const r = new Redis(connection); this.add({ close: () => r.quit() }); return r; }
  queue(name, opts) { return this.add(new Queue(name, { connection, ...opts })); }
  worker(name, fn, opts) {
    const w = this.add(new Worker(name, fn, { connection, ...opts }));
    w.on('error', (e) => console.log(`# worker ${name} error: ${e.message}`));
    return w;
  }
  async close() {
    for (const x of this.items.reverse()) await x.close().catch(() => undefined);
  }
}

// One job added and processed: when even that fails (a server that cannot
// run BullMQ's scripts), the other scenarios are not run, each one would
// only wait for its timeout.
async function smoke(s) {
  const q = s.queue('smoke');
  const errors = [];
  const w = s.worker('smoke', async (job) => job.data.v + 1);
  w.on('error', (e) => errors.push(e.message));
  const job = await q.add('one', { v: 41 });
  await waitFor('the first job to complete', async () => errors.length > 0 || (await job.getState()) === 'completed', 10000);
  eq('smoke: a job added and processed', [[], 42], [errors.slice(0, 1), (await q.getJob(job.id)).returnvalue]);
  return errors.length === 0;
}

async function concurrency(s) {
  const q = s.queue('conc');
  await q.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'n', data: { n: i } })));
  eq('concurrency: 30 jobs waiting before any worker', { waiting: 30, active: 0 }, await q.getJobCounts('waiting', 'active'));
  let active = 0;
  let maxActive = 0;
  const w = s.worker('conc', async (job) => {
    active++;
    maxActive = Math.max(maxActive, active);
    await sleep(40);
    active--;
    return job.data.n * 2;
  }, { concurrency: 5, metrics: { maxDataPoints: 60 } });
  let done = 0;
  w.on('completed', () => done++);
  await waitFor('30 completed jobs', () => done === 30);
  const jobs = await q.getCompleted(0, -1);
  const returns = jobs.map((j) => [j.data.n, j.returnvalue]).sort((a, b) => a[0] - b[0]);
  eq('concurrency: every job returned its value', Array.from({ length: 30 }, (_, i) => [i, 2 * i]), returns);
  check('concurrency: never more than 5 jobs at once', maxActive <= 5, maxActive);
  check('concurrency: jobs ran in parallel', maxActive >= 2, maxActive);
  const counts = await q.getJobCounts('waiting', 'active', 'completed', 'failed');
  eq('concurrency: getJobCounts after', { waiting: 0, active: 0, completed: 30, failed: 0 }, counts);
  const metrics = await q.getMetrics('completed');
  eq('concurrency: worker metrics count the completions', 30, metrics.meta.count);
  outcome('concurrency', { returns, counts, metricsCount: metrics.meta.count, within: maxActive <= 5 });
}

async function delayed(s) {
  const q = s.queue('delayed');
  const job = await q.add('later', { v: 1 }, { delay: 400 });
  const stateAfterAdd = await job.getState();
  eq('delayed: state right after add', 'delayed', stateAfterAdd);
  const counts = await q.getJobCounts('waiting', 'delayed');
  eq('delayed: counted as delayed', { waiting: 0, delayed: 1 }, counts);
  let ran = 0;
  s.worker('delayed', async () => { ran = Date.now(); return 'late'; });
  await waitFor('the delayed job to complete', async () => (await job.getState()) === 'completed');
  const j = await q.getJob(job.id);
  check('delayed: not processed before its delay', j.processedOn - j.timestamp >= 400 && ran - j.timestamp >= 400,
        `processedOn - timestamp = ${j.processedOn - j.timestamp}`);
  eq('delayed: return value', 'late', j.returnvalue);
  outcome('delayed', { stateAfterAdd, counts, returnvalue: j.returnvalue, notEarly: j.processedOn - j.timestamp >= 400 });
}

async function prioritized(s) {
  const q = s.queue('prio');
  await q.add('none', {});
  for (const p of [5, 1, 4, 2, 3]) await q.add(`p${p}`, {}, { priority: p });
  const counts = await q.getJobCounts('waiting', 'prioritized');
  eq('prioritized: counts before processing', { waiting: 1, prioritized: 5 }, counts);
  const perPriority = await q.getCountsPerPriority([0, 1, 2, 3, 4, 5]);
  const order = [];
  s.worker('prio', async (job) => { order.push(job.name); });
  await waitFor('6 prioritized jobs', () => order.length === 6);
  eq('prioritized: processed in priority order', ['none', 'p1', 'p2', 'p3', 'p4', 'p5'], order);
  outcome('prioritized', { counts, perPriority, order });
}

async function retries(s) {
  const q = s.queue('retry');
  const starts = {};
  s.worker('retry', async (job) => {
    (starts[job.name] = starts[job.name] || []).push(Date.now());
    if (job.name === 'doomed' || job.attemptsMade < 2) throw new Error(`attempt ${job.attemptsMade + 1} fails`);
    return 'third time lucky';
  });
  const flaky = await q.add('flaky', {}, { attempts: 3, backoff: { type: 'exponential', delay: 100 } });
  const doomed = await q.add('doomed', {}, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
  await waitFor('flaky to complete', async () => (await flaky.getState()) === 'completed');
  await waitFor('doomed to fail', async () => (await doomed.getState()) === 'failed');
  const f = await q.getJob(flaky.id);
  const d = await q.getJob(doomed.id);
  const gaps = starts.flaky.slice(1).map((t, i) => t - starts.flaky[i]);
  eq('retries: flaky ran 3 times', 3, starts.flaky.length);
  check('retries: exponential backoff waited >= 100 then >= 200 ms', gaps[0] >= 100 && gaps[1] >= 200, gaps);
  eq('retries: flaky completed after 3 attempts', [3, 'third time lucky'], [f.attemptsMade, f.returnvalue]);
  eq('retries: doomed failed after 2 attempts', [2, 'attempt 2 fails'], [d.attemptsMade, d.failedReason]);
  eq('retries: doomed keeps one stack trace per attempt', 2, d.stacktrace.length);
  const counts = await q.getJobCounts('completed', 'failed', 'delayed');
  eq('retries: counts', { completed: 1, failed: 1, delayed: 0 }, counts);
  outcome('retries', {
    flaky: [f.attemptsMade, f.returnvalue, starts.flaky.length, gaps[0] >= 100 && gaps[1] >= 200],
    doomed: [d.attemptsMade, d.failedReason, d.stacktrace.length, starts.doomed.length],
    counts,
  });
}

async function scheduler(s) {
  const q = s.queue('sched');
  const first = await q.upsertJobScheduler('tick', { every: 150, limit: 3 }, { name: 'tick', data: { k: 1 } });
  // Upserting the same scheduler again updates it: still one scheduler.
  await q.upsertJobScheduler('tick', { every: 150, limit: 3 }, { name: 'tick', data: { k: 2 } });
  const schedulers = await q.getJobSchedulers();
  eq('scheduler: one scheduler after two upserts', ['tick'], schedulers.map((x) => x.key));
  eq('scheduler: its options', [150, 3], [schedulers[0].every, schedulers[0].limit]);
  const ticks = [];
  s.worker('sched', async (job) => { ticks.push(job.data.k); return ticks.length; });
  await waitFor('3 scheduled jobs', () => ticks.length >= 3);
  await sleep(450); // three more periods: the limit must hold
  eq('scheduler: exactly `limit` jobs', 3, ticks.length);
  const removed = await q.removeJobScheduler('tick');
  const after = await q.getJobSchedulers();
  eq('scheduler: gone after removeJobScheduler', 0, after.length);
  outcome('scheduler', { firstIsJob: typeof first.id === 'string', keys: schedulers.map((x) => x.key), ticks, removed: typeof removed, after: after.length });
}

async function flows(s) {
  const fp = s.add(new FlowProducer({ connection }));
  const tree = await fp.add({
    name: 'parent', queueName: 'flowP', data: {},
    children: [
      { name: 'c1', queueName: 'flowC', data: { v: 1 }, children: [{ name: 'g1', queueName: 'flowC', data: { v: 10 } }] },
      { name: 'c2', queueName: 'flowC', data: { v: 2 } },
      { name: 'c3', queueName: 'flowP', data: { v: 3 } },
    ],
  });
  const parent = tree.job;
  const stateBefore = await parent.getState();
  eq('flows: parent waits for its children', 'waiting-children', stateBefore);
  const depsBefore = await parent.getDependenciesCount();
  eq('flows: 3 unprocessed children', 3, depsBefore.unprocessed);
  const finished = {};
  const run = async (job) => {
    if (job.name === 'parent') {
      const vals = await job.getChildrenValues();
      return Object.values(vals).reduce((a, b) => a + b, 0);
    }
    if (job.name === 'c1') {
      const vals = Object.values(await job.getChildrenValues());
      finished[job.name] = true;
      return job.data.v * 2 + vals[0];
    }
    finished[job.name] = true;
    return job.data.v * 2;
  };
  s.worker('flowP', run);
  s.worker('flowC', run);
  await waitFor('the parent to complete', async () => (await parent.getState()) === 'completed');
  const p = await (s.queue('flowP')).getJob(parent.id);
  const values = Object.values(await p.getChildrenValues()).sort((a, b) => a - b);
  eq('flows: getChildrenValues', [4, 6, 22], values);
  eq('flows: the parent summed its children', 32, p.returnvalue);
  eq('flows: every child finished before the parent ran', ['c1', 'c2', 'c3', 'g1'], Object.keys(finished).sort());
  const depsAfter = await p.getDependenciesCount();
  outcome('flows', { stateBefore, depsBefore, values, returnvalue: p.returnvalue, depsAfter });
}

async function limiter(s) {
  const q = s.queue('limited');
  await q.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'l', data: { i } })));
  const started = [];
  s.worker('limited', async (job) => { started.push(Date.now()); return job.data.i; }, { limiter: { max: 2, duration: 300 }, concurrency: 6 });
  await waitFor('6 rate-limited jobs', async () => (await q.getJobCounts('completed')).completed === 6);
  const span = started[5] - started[0];
  check('limiter: 6 jobs at 2 per 300 ms take at least 2 windows', span >= 550, `span ${span} ms`);
  const counts = await q.getJobCounts('completed', 'waiting', 'active');
  outcome('limiter', { started: started.length, counts, spaced: span >= 550 });
}

async function events(s) {
  const q = s.queue('ev');
  const qe = s.add(new QueueEvents('ev', { connection }));
  await qe.waitUntilReady();
  const seen = [];
  qe.on('completed', ({ jobId, returnvalue }) => seen.push(['completed', jobId, returnvalue]));
  qe.on('failed', ({ jobId, failedReason }) => seen.push(['failed', jobId, failedReason]));
  qe.on('progress', ({ jobId, data }) => seen.push(['progress', jobId, data]));
  s.worker('ev', async (job) => {
    await job.updateProgress(50);
    if (job.name === 'bad') throw new Error('nope');
    return 'yes';
  });
  const good = await q.add('good', {});
  await waitFor('the completed event', () => seen.some((e) => e[0] === 'completed'));
  const bad = await q.add('bad', {});
  await waitFor('the failed event', () => seen.some((e) => e[0] === 'failed'));
  const ofGood = await good.waitUntilFinished(qe, 5000);
  eq('events: waitUntilFinished', 'yes', ofGood);
  eq('events: QueueEvents saw progress, completed, failed in order', [
    ['progress', good.id, 50], ['completed', good.id, 'yes'], ['progress', bad.id, 50], ['failed', bad.id, 'nope']], seen);
  // The stream itself: event names in order, per job.
  const raw = await s.raw().xrange('bull:ev:events', '-', '+');
  const byJob = {};
  for (const [, fields] of raw) {
    const f = {};
    for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
    if (f.jobId) (byJob[f.jobId] = byJob[f.jobId] || []).push(f.event);
  }
  check('events: the stream has added, active, completed for the good job',
        ['added', 'active', 'completed'].every((e) => (byJob[good.id] || []).includes(e)), byJob[good.id]);
  outcome('events', { seen, byJob });
}

async function removal(s) {
  const q = s.queue('rm');
  const ids = [];
  s.worker('rm', async (job) => { if (job.data.fail) throw new Error('fail'); return job.name; });
  const a = await q.add('a', {}, { removeOnComplete: true });
  const b = await q.add('b', { fail: true }, { removeOnFail: true });
  for (let i = 0; i < 5; i++) ids.push((await q.add(`k${i}`, {}, { removeOnComplete: { count: 2 } })).id);
  const c = await q.add('c', { fail: true }, { removeOnFail: { count: 0 } });
  const kept = await q.add('kept', { fail: true });
  await waitFor('the kept failed job', async () => (await kept.getState()) === 'failed');
  await waitFor('the last job', async () => {
    const st = await q.getJobState(ids[4]);
    return st === 'completed' || st === 'unknown';
  });
  const gone = { a: await q.getJob(a.id), b: await q.getJob(b.id), c: await q.getJob(c.id) };
  eq('removal: removeOnComplete/removeOnFail removed the jobs', { a: null, b: null, c: null },
     { a: gone.a || null, b: gone.b || null, c: gone.c || null });
  const completed = (await q.getCompleted(0, -1)).map((j) => j.name).sort();
  eq('removal: removeOnComplete {count: 2} keeps the 2 newest', ['k3', 'k4'], completed);
  const counts = await q.getJobCounts('completed', 'failed');
  eq('removal: counts', { completed: 2, failed: 1 }, counts);
  const exists = await s.raw().exists(`bull:rm:${a.id}`, `bull:rm:${ids[0]}`, `bull:rm:${kept.id}`);
  eq('removal: the removed jobs\' hashes are deleted', 1, exists);
  outcome('removal', { completed, counts, exists });
}

async function pauseAndCounts(s) {
  const q = s.queue('pz');
  await q.pause();
  const pausedFlag = await q.isPaused();
  await q.add('w1', {});
  await q.add('w2', {}, { delay: 60000 });
  await q.add('w3', {}, { priority: 2 });
  const countsPaused = await q.getJobCounts();
  let ran = 0;
  s.worker('pz', async () => { ran++; });
  await sleep(300);
  eq('pause: a paused queue runs nothing', 0, ran);
  await q.resume();
  await waitFor('2 jobs after resume', () => ran === 2);
  const countsAfter = await q.getJobCounts();
  eq('pause: counts after resume', { completed: 2, delayed: 1 }, { completed: countsAfter.completed, delayed: countsAfter.delayed });
  await q.obliterate({ force: true });
  const countsObliterated = await q.getJobCounts();
  check('pause: obliterate leaves nothing', Object.values(countsObliterated).every((n) => n === 0), JSON.stringify(countsObliterated));
  outcome('pause', { pausedFlag, countsPaused, countsAfter, countsObliterated });
}

async function scenarios() {
  const first = new Scope();
  let ok = false;
  try {
    ok = await smoke(first);
  } catch (e) {
    check('smoke: ran to its end', false, e.stack);
  } finally {
    await first.close();
  }
  if (!ok) {
    check('smoke: BullMQ works at all on this server (the other scenarios are not run)', false);
    return;
  }
  const all = { concurrency, delayed, prioritized, retries, scheduler, flows, limiter, events, removal, pauseAndCounts };
  for (const [name, fn] of Object.entries(all)) {
    const s = new Scope();
    const t0 = Date.now();
    try {
      await fn(s);
    } catch (e) {
      check(`${name}: ran to its end`, false, e.stack);
    } finally {
      await s.close();
    }
    console.log(`# ${name}: ${Date.now() - t0} ms`);
  }
}

// ---------------------------------------------------------------------------
// crash: load through a SIGKILL of the server.

async function crash() {
  const acked = new Set();          // Queue.add resolved
  const completedAck = new Set();   // the worker's moveToFinished resolved
  const reprocessed = [];           // started again after an acknowledged completion
  const startsOf = new Map();
  let addErrors = 0;
  let restarted = false;
  let ackedAtRestart = 0;
  let completedAtRestart = 0;
  process.stdin.on('data', (d) => {
    if (String(d).includes('RESTARTED')) {
      restarted = true;
      ackedAtRestart = acked.size;
      completedAtRestart = completedAck.size;
    }
  });
  const q = new Queue('crash', { connection });
  const w = new Worker('crash', async (job) => {
    if (completedAck.has(job.id)) reprocessed.push(job.id);
    startsOf.set(job.id, (startsOf.get(job.id) || 0) + 1);
    await sleep(5);
    return { k: job.data.k };
  }, { connection, concurrency: 10, lockDuration: 3000, stalledInterval: 1000, maxStalledCount: 20 });
  w.on('completed', (job) => completedAck.add(job.id));
  w.on('error', () => undefined); // connection errors while the server is down
  let next = 0;
  const maxJobs = 3000;
  // Four producers, each awaiting its add: jobs are added at the server's
  // pace, before, during and after the kill.
  const adder = async () => {
    for (;;) {
      if (restarted && acked.size >= ackedAtRestart + 150) return;
      if (next >= maxJobs) return;
      const k = next++;
      try {
        await q.add('job', { k }, { jobId: `j-${k}` });
        acked.add(`j-${k}`);
      } catch (e) {
        addErrors++;
      }
    }
  };
  const progress = setInterval(() => {
    console.log('PROGRESS ' + JSON.stringify({ acked: acked.size, completed: completedAck.size }));
  }, 100);
  const deadline = Date.now() + 40000;
  await Promise.all([adder(), adder(), adder(), adder()]);
  clearInterval(progress);
  check('crash: the server was restarted while jobs were being added', restarted);
  check('crash: jobs were added and completed before the kill', ackedAtRestart > 0 && completedAtRestart > 0,
        `${ackedAtRestart} added, ${completedAtRestart} completed`);
  check('crash: jobs were added after the restart', acked.size > ackedAtRestart, `${acked.size} in all`);
  // Done when the queue holds nothing left to run. (Not "every job's
  // completed event": a completion the kill cut off is in the store but was
  // never acknowledged to this worker, and no event ever comes for it.)
  const idle = async () => {
    const c = await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return c.waiting + c.active + c.delayed + c.prioritized === 0;
  };
  try {
    await waitFor('every acknowledged job to complete', idle, Math.max(5000, deadline - Date.now()));
  } catch (e) {
    console.log('# ' + e.message);
  }
  await w.close();
  const states = {};
  const lost = [];
  const notCompleted = [];
  for (const id of acked) {
    const st = await q.getJobState(id);
    states[st] = (states[st] || 0) + 1;
    if (st === 'unknown') lost.push(id);
    else if (st !== 'completed') notCompleted.push(`${id}:${st}`);
  }
  const twice = [...startsOf.entries()].filter(([, n]) => n > 1).map(([id]) => id);
  console.log(`# crash: ${acked.size} jobs added (${ackedAtRestart} before the kill, ${addErrors} adds failed), ` +
              `${completedAck.size} completions acknowledged (${completedAtRestart} before the kill), ` +
              `${twice.length} jobs run twice after unacknowledged completions; states ${JSON.stringify(states)}`);
  eq('crash: no acknowledged job is lost', [], lost.slice(0, 20));
  eq('crash: every acknowledged job completed', [], notCompleted.slice(0, 20));
  eq('crash: no job whose completion was acknowledged ran again', [], reprocessed.slice(0, 20));
  const counts = await q.getJobCounts('completed', 'waiting', 'active', 'delayed', 'failed');
  eq('crash: getJobCounts sees them all completed', acked.size, counts.completed);
  await q.close();
}

(async () => {
  try {
    if (mode === 'scenarios') await scenarios();
    else if (mode === 'crash') await crash();
    else throw new Error(`usage: bullmq.js scenarios|crash PORT`);
  } catch (e) {
    check(`${mode}: ran to its end`, false, e.stack);
  }
  finish();
})();
