import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConcurrencyLimit, createKeyedConcurrencyLimit } from './concurrency.js';

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

test('with a bound on waiting, a task that would wait behind that many others is refused at once', async () => {
  const run = createConcurrencyLimit(1, { maxWaiting: 2, full: () => new Error('busy') });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = [1, 2, 3].map((n) => run(() => gate.then(() => n)));
  await assert.rejects(
    run(async () => 4),
    /busy/,
  );
  release();
  assert.deepEqual(await Promise.all(held), [1, 2, 3]);
  assert.equal(await run(async () => 5), 5, 'places free again once the queue drains');
});

test('a keyed limit holds each key to its own places: one key’s burst does not wait for another’s', async () => {
  const run = createKeyedConcurrencyLimit(1);
  const order: string[] = [];
  let releaseA!: () => void;
  const gateA = new Promise<void>((resolve) => (releaseA = resolve));
  const a1 = run('a', () => gateA.then(() => order.push('a1')));
  const a2 = run('a', async () => order.push('a2'));
  await run('b', async () => order.push('b1'));
  assert.deepEqual(order, ['b1'], 'b ran while a waited on its first task');
  releaseA();
  await Promise.all([a1, a2]);
  assert.deepEqual(order, ['b1', 'a1', 'a2']);
});
