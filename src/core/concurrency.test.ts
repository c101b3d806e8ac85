import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConcurrencyLimit } from './concurrency.js';

test('runs at most N tasks at once, in order, and a failing task frees its place', async () => {
  const run = createConcurrencyLimit(2);
  let active = 0;
  let peak = 0;
  const started: number[] = [];
  const task = (n: number) => async () => {
    started.push(n);
    active += 1;
    peak = Math.max(peak, active);
    await new Promise((resolve) => setTimeout(resolve, 10));
    active -= 1;
    if (n === 1) throw new Error('task 1 fails');
    return n;
  };
  const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => run(task(n))));
  assert.equal(peak, 2);
  assert.deepEqual(started, [1, 2, 3, 4, 5]);
  assert.equal(results[0]!.status, 'rejected');
  assert.deepEqual(
    results.slice(1).map((r) => (r as PromiseFulfilledResult<number>).value),
    [2, 3, 4, 5],
  );
});
