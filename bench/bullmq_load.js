// bullmq_load.js -- bench_bullmq.sh's driver: BullMQ jobs/s against a
// server on 127.0.0.1:PORT (bullmq and ioredis from
// tests/integration/node_modules, tests/install-deps.sh installs them).
//
//   node bench/bullmq_load.js PORT CONCURRENCY JOBS QUEUE
//
// Three phases on a fresh queue name, each timed from its first request to
// its last acknowledgement:
//   add      CONCURRENCY producers, each awaiting its Queue.add in turn
//            (the way a web app adds jobs: one add per request), JOBS in all
//   process  one Worker with `concurrency: CONCURRENCY` and a no-op
//            processor working through those JOBS (moveToActive +
//            moveToFinished scripts, with BullMQ's fetch-next)
//   both     producers and the Worker at once, JOBS more: jobs/s completed
// Prints one line: `add=N process=N both=N` (jobs/s).
'use strict';
const path = require('path');
const { Queue, Worker } = require(path.join(__dirname, '..', 'tests', 'integration', 'node_modules', 'bullmq'));

const [port, concurrency, jobs] = process.argv.slice(2, 5).map((x) => parseInt(x, 10));
const name = process.argv[5];
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };

async function produce(q, from, count) {
  let next = from;
  const end = from + count;
  const one = async () => {
    while (next < end) {
      const k = next++;
      await q.add('job', { k, payload: 'x'.repeat(100) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
}

function untilCompleted(w, count) {
  return new Promise((resolve) => {
    let n = 0;
    w.on('completed', () => { if (++n === count) resolve(); });
  });
}

function rate(count, t0) {
  return Math.round(count / ((Date.now() - t0) / 1000));
}

(async () => {
  const q = new Queue(name, { connection });
  await q.waitUntilReady();
  let t0 = Date.now();
  await produce(q, 0, jobs);
  const add = rate(jobs, t0);

  const w = new Worker(name, async () => 1, { connection, concurrency, autorun: false });
  w.on('error', (e) => console.error('worker error: ' + e.message));
  let done = untilCompleted(w, jobs);
  t0 = Date.now();
  w.run();
  await done;
  const processed = rate(jobs, t0);

  w.removeAllListeners('completed');
  done = untilCompleted(w, jobs);
  t0 = Date.now();
  await Promise.all([produce(q, jobs, jobs), done]);
  const both = rate(jobs, t0);

  await w.close();
  await q.obliterate({ force: true });
  await q.close();
  console.log(`add=${add} process=${processed} both=${both}`);
  process.exit(0);
})().catch((e) => {
  console.error(e.stack);
  process.exit(1);
});
