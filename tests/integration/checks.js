// checks.js -- the [ok]/[err] checks the node integration tests print
// (ioredis_client.js, bullmq.js), counted for their closing
// `N passed, N failed` line (finish()).
'use strict';

const counts = { passed: 0, failed: 0 };

function check(name, cond, detail) {
  if (cond) {
    counts.passed++;
    console.log(`[ok]: ${name}`);
  } else {
    counts.failed++;
    console.log(`[err]: ${name}`);
    if (detail !== undefined) console.log('    ' + String(detail).split('\n').slice(0, 20).join('\n    '));
  }
  return cond;
}

// Compared as JSON: key order counts, as in the replies it checks.
function eq(name, expected, actual) {
  const e = JSON.stringify(expected);
  const a = JSON.stringify(actual);
  return check(name, e === a, `expected: ${e}\n  actual: ${a}`);
}

// Prints the summary line and exits non-zero if a check failed.
function finish() {
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}

module.exports = { check, eq, finish, counts };
