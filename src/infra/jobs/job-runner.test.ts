import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Registry } from 'prom-client';
import { openTestDatabase } from '../../../test/helpers/database.js';
import type { Db } from '../../db/kysely.js';
import { createJobRunner, PermanentJobError, type JobKind, type JobLog, type JobRunner, type JobRunnerDeps } from './job-runner.js';
import { claimDueJob, completeJob, failJob, insertJobs, listJobs, retryJob } from './jobs.repo.js';

interface LogEntry {
  level: 'warn' | 'error';
  obj: Record<string, unknown>;
  msg?: string;
}

function recordingLog(): JobLog & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    warn: (obj, msg) => entries.push({ level: 'warn', obj: obj as LogEntry['obj'], msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj: obj as LogEntry['obj'], msg }),
  };
}

/** A kind that records what it ran; `run` decides each run's fate (default: success). */
function recordingKind(overrides: Partial<JobKind<{ n: number }>> = {}) {
  const ran: Array<{ n: number; attempt: number }> = [];
  const kind: JobKind<{ n: number }> = {
    maxAttempts: 3,
    backoffMs: () => 1_000,
    pollMs: 5,
    ...overrides,
    async run(payload, job) {
      ran.push({ n: payload.n, attempt: job.attempt });
      await overrides.run?.(payload, job);
    },
  };
  return { ran, kind };
}

async function setup(t: TestContext) {
  const { handle, reopen } = await openTestDatabase(t);
  const clock = { now: 1_700_000_000_000 };
  const log = recordingLog();
  const runner = (deps: Partial<JobRunnerDeps> = {}) => {
    const jobs = createJobRunner({ db: handle.db, clock: () => clock.now, log, ...deps });
    t.after(() => jobs.stop());
    return jobs;
  };
  return { db: handle.db, reopen, clock, log, runner };
}

const jobRows = (db: Db) => listJobs(db).then((rows) => rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as unknown })));

/** Resolves once `check` holds, polling the database (5 s at most). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a job enqueued in a transaction that rolls back does not exist; a committed one runs once', async (t) => {
  const { db, runner } = await setup(t);
  const jobs = runner();
  const { ran, kind } = recordingKind();
  jobs.register('test.kind', kind);
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await jobs.enqueue('test.kind', { n: 1 }, { executor: trx });
      throw new Error('abort');
    }),
    /abort/,
  );
  assert.deepEqual(await listJobs(db), []);

  const id = await db.transaction().execute((trx) => jobs.enqueue('test.kind', { n: 2 }, { executor: trx }));
  assert.equal(await jobs.drain(), 1);
  assert.equal(await jobs.drain(), 0);
  assert.deepEqual(ran, [{ n: 2, attempt: 1 }]);
  const [row] = await jobRows(db);
  assert.deepEqual(
    [row?.id, row?.kind, row?.payload, row?.status, row?.attempts, row?.lease_until, row?.lease_owner],
    [id, 'test.kind', { n: 2 }, 'done', 1, null, null],
  );
});

test('a runner claims only the kinds registered on it', async (t) => {
  const { db, runner } = await setup(t);
  const jobs = runner();
  jobs.register('test.kind', recordingKind().kind);
  await jobs.enqueue('other.kind', { n: 1 });
  assert.equal(await jobs.drain(), 0);
  assert.equal((await listJobs(db))[0]?.status, 'pending');
  await assert.rejects(jobs.drain('other.kind'), /no job kind "other\.kind" is registered/);
});

test('two runners on one database (two connections) run each job exactly once', async (t) => {
  const { db, reopen, log } = await setup(t);
  const ran: number[] = [];
  const kind: JobKind<{ n: number }> = {
    maxAttempts: 3,
    backoffMs: () => 1_000,
    pollMs: 5,
    async run({ n }) {
      ran.push(n);
      await new Promise((resolve) => setTimeout(resolve, 2));
    },
  };
  // Both on the real clock: runners whose clocks differ by more than the lease would take over each other's jobs.
  const runners = [createJobRunner({ db, clock: Date.now, log }), createJobRunner({ db: reopen().db, clock: Date.now, log })];
  for (const jobs of runners) {
    jobs.register('test.kind', kind);
    t.after(() => jobs.stop());
  }
  const count = 40;
  for (let n = 0; n < count; n++) await runners[n % 2]!.enqueue('test.kind', { n });
  runners.forEach((jobs) => jobs.start());
  const drained = await Promise.all(runners.flatMap((jobs) => [jobs.drain(), jobs.drain()]));
  await until(async () => (await listJobs(db, { status: 'done' })).length === count);
  assert.ok(drained.every((handled) => handled <= count));
  assert.deepEqual(
    [...ran].sort((a, b) => a - b),
    Array.from({ length: count }, (_, n) => n),
    'each job ran once',
  );
  assert.ok((await listJobs(db)).every((row) => row.status === 'done' && row.attempts === 1));
  assert.deepEqual(log.entries, []);
});

test('concurrent claims from two connections never hand out one job twice; a late holder cannot record an outcome', async (t) => {
  const { db, reopen } = await setup(t);
  const other = reopen().db;
  await insertJobs(
    db,
    Array.from({ length: 10 }, (_, n) => ({ kind: 'test.kind', payload: JSON.stringify({ n }), runAt: 1_000, maxAttempts: null })),
    1_000,
  );
  await insertJobs(db, [{ kind: 'later.kind', payload: '{}', runAt: 1_000, maxAttempts: null }], 1_000);
  const claim = (executor: Db, now: number) => claimDueJob(executor, { kind: 'test.kind', now, leaseMs: 60_000, owner: executor === db ? 'a' : 'b' });
  const claims = await Promise.all(Array.from({ length: 30 }, (_, index) => claim(index % 2 === 0 ? db : other, 2_000)));
  const ids = claims.flatMap((row) => (row ? [row.id] : []));
  assert.equal(ids.length, 10);
  assert.equal(new Set(ids).size, 10);
  assert.equal(await claim(other, 2_000 + 60_000), undefined, 'leased jobs stay taken until the lease has passed');
  const takenOver = await claim(other, 2_000 + 60_001);
  assert.ok(takenOver, 'an expired lease is taken over');
  assert.equal(takenOver.attempts, 2);
  assert.equal(takenOver.lease_owner, 'b');

  const firstClaim = claims.find((row) => row?.id === takenOver.id)!;
  assert.equal(await failJob(db, firstClaim, 'late failure from the first holder', 70_000), false);
  assert.equal(await retryJob(db, firstClaim, 80_000, 'late retry from the first holder', 70_000), false);
  assert.equal(await completeJob(db, firstClaim, 70_000), false);
  let row = (await listJobs(db)).find((job) => job.id === takenOver.id);
  assert.deepEqual([row?.status, row?.attempts, row?.lease_until, row?.last_error], ['running', 2, takenOver.lease_until, null]);
  assert.equal(await completeJob(other, takenOver, 70_000), true, 'the holder can');
  row = (await listJobs(db)).find((job) => job.id === takenOver.id);
  assert.equal(row?.status, 'done');
  assert.equal((await listJobs(db, { kind: 'later.kind' }))[0]?.status, 'pending', 'other kinds are left alone');
});

test('a job abandoned by a runner that died is resumed once its lease has passed; the first runner cannot record its late failure', async (t) => {
  const { db, clock, runner } = await setup(t);
  let failFirst: (error: Error) => void = () => {};
  let finishSecond: () => void = () => {};
  const failures: unknown[] = [];
  const attempts: number[] = [];
  const kindWith = (run: () => Promise<void>): JobKind<{ n: number }> => ({
    maxAttempts: 3,
    backoffMs: () => 1_000,
    leaseMs: 60_000,
    async run(_payload, job) {
      attempts.push(job.attempt);
      await run();
    },
    async onFailure(_trx, _payload, failure) {
      failures.push(failure);
    },
  });
  // Its stop gives up waiting at once: the first attempt is still out when the test ends.
  const crashed = runner({ stopTimeoutMs: 10 });
  crashed.register(
    'test.kind',
    kindWith(() => new Promise<void>((_resolve, reject) => (failFirst = reject))),
  );
  const survivor = runner();
  survivor.register(
    'test.kind',
    kindWith(() => new Promise<void>((resolve) => (finishSecond = resolve))),
  );

  await survivor.enqueue('test.kind', { n: 1 });
  const abandoned = crashed.drain(); // hangs in the run, as a killed process never finishes it
  await until(async () => (await listJobs(db))[0]?.status === 'running');
  assert.equal(await survivor.drain(), 0, 'still leased');

  clock.now += 60_001;
  const resumed = survivor.drain();
  await until(async () => (await listJobs(db))[0]?.attempts === 2);
  failFirst(new Error('the first runner woke up late'));
  await abandoned;
  assert.deepEqual(failures, [], 'the late failure was not recorded');
  let [row] = await listJobs(db);
  assert.deepEqual([row?.status, row?.attempts, row?.last_error], ['running', 2, null]);

  finishSecond();
  assert.equal(await resumed, 1);
  [row] = await listJobs(db);
  assert.deepEqual([row?.status, row?.attempts], ['done', 2]);
  assert.deepEqual(attempts, [1, 2]);
});

test("failures back off with the kind's policy, capped, and fail for good after maxAttempts; the error is kept and cut", async (t) => {
  const { db, clock, log, runner } = await setup(t);
  const jobs = runner();
  const backoff = (attempt: number) => Math.min(100 * 2 ** (attempt - 1), 250);
  const { ran, kind } = recordingKind({
    maxAttempts: 4,
    backoffMs: backoff,
    run: async () => {
      throw new Error(`refused ${'x'.repeat(5_000)}`);
    },
  });
  jobs.register('test.kind', kind);
  const id = await jobs.enqueue('test.kind', { n: 7 });

  const expectedDelays = [100, 200, 250];
  for (const delay of expectedDelays) {
    assert.equal(await jobs.drain(), 1);
    const [row] = await listJobs(db);
    assert.deepEqual([row?.status, Number(row?.run_at), row?.lease_until], ['pending', clock.now + delay, null]);
    clock.now += delay - 1;
    assert.equal(await jobs.drain(), 0, 'not due before its backoff');
    clock.now += 1;
  }
  assert.equal(await jobs.drain(), 1);
  clock.now += 3_600_000;
  assert.equal(await jobs.drain(), 0, 'given up');

  const [row] = await listJobs(db);
  assert.deepEqual([row?.status, row?.attempts], ['failed', 4]);
  assert.equal(row?.last_error?.length, 1_000);
  assert.match(row?.last_error ?? '', /^refused x+$/);
  assert.deepEqual(
    ran.map((run) => run.attempt),
    [1, 2, 3, 4],
  );
  // Without an onFailure of its own, the kind's failures are logged by the runner.
  assert.deepEqual(
    log.entries.map((entry) => [entry.level, entry.msg]),
    [
      ['warn', 'job failed, will retry'],
      ['warn', 'job failed, will retry'],
      ['warn', 'job failed, will retry'],
      ['error', 'job failed for good'],
    ],
  );
  assert.deepEqual(log.entries[3]?.obj, { jobId: id, kind: 'test.kind', attempt: 4, error: row?.last_error });

  // A job's own maxAttempts overrides the kind's.
  await jobs.enqueue('test.kind', { n: 8 }, { maxAttempts: 1 });
  assert.equal(await jobs.drain(), 1);
  assert.equal((await listJobs(db))[1]?.status, 'failed');
});

test('a PermanentJobError fails the job at once; onFailure records it in the same transaction', async (t) => {
  const { db, log, runner } = await setup(t);
  const jobs = runner();
  const failures: Array<{ attempt: number; message: string; retry: unknown; permanent: boolean }> = [];
  const { kind } = recordingKind({
    maxAttempts: 5,
    run: async () => {
      throw new PermanentJobError('the peer is gone');
    },
    async onFailure(trx, payload, failure) {
      // Written in the failure's transaction: visible only with it.
      await insertJobs(trx, [{ kind: 'audit.kind', payload: JSON.stringify(payload), runAt: 0, maxAttempts: null }], 0);
      failures.push({
        attempt: failure.attempt,
        message: failure.message,
        retry: failure.retry,
        permanent: failure.error instanceof PermanentJobError,
      });
    },
  });
  jobs.register('test.kind', kind);
  await jobs.enqueue('test.kind', { n: 1 });
  assert.equal(await jobs.drain(), 1);
  assert.equal(await jobs.drain(), 0);
  const [row, audit] = await listJobs(db);
  assert.deepEqual([row?.status, row?.attempts, row?.last_error], ['failed', 1, 'the peer is gone']);
  assert.equal(audit?.kind, 'audit.kind');
  assert.deepEqual(failures, [{ attempt: 1, message: 'the peer is gone', retry: null, permanent: true }]);
  assert.deepEqual(log.entries, [], 'onFailure reports it: the runner logs nothing more');
});

test('a job taken again after its last attempt was abandoned fails without running', async (t) => {
  const { db, clock, runner } = await setup(t);
  await insertJobs(db, [{ kind: 'test.kind', payload: JSON.stringify({ n: 1 }), runAt: clock.now, maxAttempts: 1 }], clock.now);
  // The only attempt starts and its runner dies.
  assert.ok(await claimDueJob(db, { kind: 'test.kind', now: clock.now, leaseMs: 1_000, owner: 'gone' }));
  clock.now += 1_001;
  const jobs = runner();
  const { ran, kind } = recordingKind();
  jobs.register('test.kind', kind);
  assert.equal(await jobs.drain(), 1);
  assert.deepEqual(ran, []);
  const [row] = await listJobs(db);
  assert.deepEqual([row?.status, row?.attempts], ['failed', 2]);
  assert.match(row?.last_error ?? '', /abandoned during its last attempt/);
});

test('a started runner runs a job right after enqueue, and stop waits for the jobs it is running', async (t) => {
  const { db, runner } = await setup(t);
  const jobs = runner({ clock: Date.now });
  let release: () => void = () => {};
  const started: number[] = [];
  jobs.register<{ n: number }>('test.kind', {
    maxAttempts: 3,
    backoffMs: () => 1_000,
    pollMs: 600_000, // only the nudge after enqueue can run it in time
    async run({ n }) {
      started.push(n);
      if (n === 2) await new Promise<void>((resolve) => (release = resolve));
    },
  });
  jobs.start();
  await jobs.enqueue('test.kind', { n: 1 });
  await until(async () => (await listJobs(db, { status: 'done' })).length === 1);
  // Inside a transaction it shows only after the commit: the runner looks again then.
  await db.transaction().execute((trx) => jobs.enqueue('test.kind', { n: 2 }, { executor: trx }));
  await until(async () => started.includes(2));

  let stopped = false;
  const stopping = jobs.stop().then(() => (stopped = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(stopped, false, 'waits for the running job');
  release();
  await stopping;
  assert.deepEqual(
    (await listJobs(db)).map((row) => row.status),
    ['done', 'done'],
  );
});

test('a job that works in turns sees the runner stopping, ends its turn, and stop does not wait out the turn', async (t) => {
  const { db, runner } = await setup(t);
  const jobs = runner({ clock: Date.now, stopTimeoutMs: 10_000 });
  const seen: boolean[] = [];
  jobs.register(
    'test.kind',
    recordingKind({
      async run(_payload, job) {
        seen.push(job.stopping());
        for (let turn = 0; turn < 1_000 && !job.stopping(); turn++) await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(job.stopping());
      },
    }).kind,
  );
  jobs.start();
  await jobs.enqueue('test.kind', { n: 1 });
  await until(async () => seen.length === 1);
  await jobs.stop();
  assert.deepEqual(seen, [false, true], 'ended because the runner stopped, not after its 1 000 turns');
  assert.equal((await listJobs(db))[0]?.status, 'done');
});

test('a running job learns whether another job of its kind is due and waiting, itself and later jobs not counted', async (t) => {
  const { db, runner } = await setup(t);
  const jobs = runner({ clock: Date.now });
  const answers: Array<{ n: number; waiting: boolean }> = [];
  let asked = 0;
  jobs.register(
    'test.kind',
    recordingKind({
      concurrency: 1,
      async run({ n }, job) {
        answers.push({ n, waiting: await job.othersWaiting() });
        asked++;
        if (n !== 1) return;
        // The first job gives way once the second is waiting (bounded: 1 000 turns of 5 ms).
        for (let turn = 0; turn < 1_000 && !(await job.othersWaiting()); turn++) await new Promise((resolve) => setTimeout(resolve, 5));
        answers.push({ n, waiting: await job.othersWaiting() });
      },
    }).kind,
  );
  await jobs.enqueue('test.kind', { n: 3 }, { runAt: Date.now() + 3_600_000 });
  jobs.start();
  await jobs.enqueue('test.kind', { n: 1 });
  await until(async () => asked === 1);
  await jobs.enqueue('test.kind', { n: 2 });
  // Done once its run has returned and the runner has recorded it.
  await until(async () => (await listJobs(db, { status: 'done' })).length === 2);
  assert.deepEqual(answers, [
    { n: 1, waiting: false },
    { n: 1, waiting: true },
    { n: 2, waiting: false },
  ]);
  assert.deepEqual(
    (await listJobs(db)).map((row) => row.status),
    ['pending', 'done', 'done'],
  );
});

/** Starts `jobs` on one job, and stops it while that job runs: stop returns within its bounds. */
async function stopWhileRunning(db: Db, jobs: JobRunner): Promise<void> {
  jobs.start();
  await jobs.enqueue('test.kind', { n: 1 });
  await until(async () => (await listJobs(db))[0]?.status === 'running');
  const before = Date.now();
  await jobs.stop();
  assert.ok(Date.now() - before < 2_000);
}

test('stop aborts a job still running after its bound; one that ignores its signal keeps its lease', async (t) => {
  const { db, log, runner } = await setup(t);
  const jobs = runner({ clock: Date.now, stopTimeoutMs: 50, abortedGraceMs: 50 });
  jobs.register('test.kind', recordingKind({ run: () => new Promise<void>(() => {}) }).kind);
  await stopWhileRunning(db, jobs);
  assert.equal((await listJobs(db))[0]?.status, 'running');
  assert.equal(log.entries[0]?.level, 'warn');
  assert.match(log.entries[0]?.msg ?? '', /resume when their lease has passed/);
});

test('a job aborted by stop is due again at once, without a failure: what it threw is not its outcome', async (t) => {
  const { db, log, runner } = await setup(t);
  const jobs = runner({ clock: Date.now, stopTimeoutMs: 50 });
  const aborted: boolean[] = [];
  jobs.register(
    'test.kind',
    recordingKind({
      run: (_payload, job) =>
        new Promise<void>((_resolve, reject) => {
          job.signal.addEventListener('abort', () => {
            aborted.push(true);
            reject(new Error('cut short'));
          });
        }),
      backoffMs: () => 3_600_000,
    }).kind,
  );
  await stopWhileRunning(db, jobs);
  assert.deepEqual(aborted, [true]);
  const [job] = await listJobs(db);
  assert.equal(job?.status, 'pending');
  assert.equal(job?.attempts, 0, 'the attempt cut short is given back: stops never fail a job');
  assert.equal(job?.last_error, 'the server stopped during this attempt');
  assert.ok(job!.run_at <= Date.now(), "due at once, not after the kind's backoff");
  assert.match(log.entries.at(-1)?.msg ?? '', /stopped jobs still running; they are due again/);
});

test('runs, failures, durations and unfinished jobs are counted by kind on the registry /metrics serves', async (t) => {
  const { runner } = await setup(t);
  const registry = new Registry();
  const jobs = runner({ registry });
  await jobs.enqueue('test.later', { n: 0 }, { runAt: Date.now() + 3_600_000 });
  assert.match(await registry.metrics(), /^jobs\{kind="test\.later",status="pending"\} 1$/m, 'a queued job is seen before any runs');
  let calls = 0;
  jobs.register(
    'test.kind',
    recordingKind({
      run: async () => {
        if (++calls === 1) throw new Error('once');
      },
      backoffMs: () => 0,
    }).kind,
  );
  await jobs.enqueue('test.kind', { n: 1 });
  await jobs.enqueue('test.kind', { n: 2 });
  await jobs.drain();
  await jobs.drain();
  const text = await registry.metrics();
  assert.match(text, /^jobs_run_total\{kind="test\.kind"\} 3$/m);
  assert.match(text, /^jobs_failed_total\{kind="test\.kind",outcome="retry"\} 1$/m);
  assert.match(text, /^job_duration_seconds_count\{kind="test\.kind"\} 3$/m);
  assert.doesNotMatch(text, /^jobs\{kind="test\.kind"/m, 'finished jobs are not counted as unfinished');
});

test('finished jobs are deleted a week after they finished; pending and running ones stay', async (t) => {
  const { db, clock, runner } = await setup(t);
  const jobs = runner();
  jobs.register(
    'test.kind',
    recordingKind({
      run: async ({ n }) => {
        if (n === 2) throw new PermanentJobError('no');
      },
    }).kind,
  );
  for (const n of [1, 2]) await jobs.enqueue('test.kind', { n });
  await jobs.drain();
  await jobs.enqueue('test.kind', { n: 3 }, { runAt: clock.now + 30 * 86_400_000 });
  clock.now += 7 * 86_400_000;
  assert.equal(await jobs.pruneFinished(), 0, 'not a week old yet');
  clock.now += 1;
  assert.equal(await jobs.pruneFinished(), 2);
  assert.deepEqual(
    (await jobRows(db)).map((row) => row.payload),
    [{ n: 3 }],
  );
});

test("an owner's jobs take turns with other owners': a burst of one account's jobs does not keep another's waiting", async (t) => {
  const { runner, db } = await setup(t);
  const jobs = runner();
  const { ran, kind } = recordingKind({ concurrency: 1, turnMs: 1_000 });
  jobs.register('fair', kind);
  await jobs.enqueueMany('fair', [{ n: 1 }, { n: 2 }, { n: 3 }], { fairKey: 'account:1' });
  await jobs.enqueue('fair', { n: 10 }, { fairKey: 'account:2' });
  await jobs.enqueue('fair', { n: 4 }, { fairKey: 'account:1' });
  await jobs.enqueue('fair', { n: 20 });
  assert.deepEqual(
    (await listJobs(db)).map((row) => [JSON.parse(row.payload).n, row.fair_key, row.turn_at - row.run_at]),
    [
      [1, 'account:1', 0],
      [2, 'account:1', 1_000],
      [3, 'account:1', 2_000],
      [10, 'account:2', 0],
      [4, 'account:1', 3_000],
      [20, null, 0],
    ],
  );
  await jobs.drain('fair');
  assert.deepEqual(
    ran.map((run) => run.n),
    [1, 10, 20, 2, 3, 4],
    "the second account's job and the job of no one run before the first account's second",
  );
});
