import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Registry } from 'prom-client';
import { failureLevel, type Clock, type Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { JobRow } from '../../db/types.js';
import { createJobMetrics } from './job-metrics.js';
import {
  claimDueJob,
  completeJob,
  countUnfinishedJobs,
  deleteFinishedJobs,
  failJob,
  hasWaitingJob,
  insertJobs,
  lastTurnOf,
  releaseJob,
  retryJob,
} from './jobs.repo.js';

/** A failure that retrying cannot fix: the job fails at once, whatever attempts it has left. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/** The owner of an account's jobs, for the kinds that take turns between accounts (`EnqueueOptions.fairKey`). */
export const fairKeyOfAccount = (accountId: number) => `account:${accountId}`;

export interface RunningJob {
  id: number;
  kind: string;
  /** 1 on the first try */
  attempt: number;
  /** True once the runner is stopping: a job that works in turns ends its turn and queues the rest. */
  stopping(): boolean;
  /**
   * Aborted when the runner stops and no longer waits for the job: work that holds something
   * outside this process (a LibreOffice process, its decrypted input) ends it. The job is then
   * due again at once, for another runner or the next start; what it threw is not its outcome.
   */
  signal: AbortSignal;
  /**
   * Whether another job of this kind is due and waiting for a runner, so a long job can give way
   * to it. The database is asked at most once a second per job; in between the last answer holds.
   */
  othersWaiting(): Promise<boolean>;
}

export interface JobFailure {
  attempt: number;
  /** what the handler threw */
  error: unknown;
  /** its message, cut to the length every kind keeps */
  message: string;
  /** when the job runs again, or null: it failed for good */
  retry: { at: number; inMs: number } | null;
}

/** How a kind that keeps its own record of each attempt (the mail and event outboxes) writes down a failure. */
export type FailedAttemptRecord = { attempts: number; last_error: string } & ({ next_attempt_at: number } | { status: 'failed' });

export const failedAttemptRecord = (failure: JobFailure): FailedAttemptRecord => ({
  attempts: failure.attempt,
  last_error: failure.message,
  ...(failure.retry ? { next_attempt_at: failure.retry.at } : { status: 'failed' as const }),
});

/** A kind of job: what runs it and how it is retried. Registered on the runner by name. */
export interface JobKind<P> {
  /**
   * Does the work; throws to have it retried, or a PermanentJobError to fail it now. A job may
   * run twice (a runner that lost its lease, a crash before its outcome was written): be idempotent.
   */
  run(payload: P, job: RunningJob): Promise<void>;
  /**
   * Keeps the kind's own record of a failed attempt and reports it, in the transaction that
   * records the failure on the job, and only while this runner still holds the job. Without
   * it the runner logs the failure itself.
   */
  onFailure?(trx: Executor, payload: P, failure: JobFailure): Promise<void>;
  /** Attempts before the job fails for good, unless its row says otherwise. */
  maxAttempts: number;
  /** The delay after the n-th failed attempt. */
  backoffMs(attempt: number): number;
  /** How often this process looks for due jobs of the kind (default 1 s). */
  pollMs?: number;
  /** Jobs of the kind this process runs at once (default 4): one slow job holds only its slot. */
  concurrency?: number;
  /** How long a claimed job stays reserved to its runner; must outlast one run (default 1 min). */
  leaseMs?: number;
  /** Look for a job as soon as this process enqueues it (default); false leaves it to the poll. */
  runOnEnqueue?: boolean;
  /**
   * What a job of the kind is reckoned to take, for the kinds whose jobs are enqueued with an
   * owner (`fairKey`): an owner's job waits this long of turns after their previous one still
   * waiting, so a burst of one owner's jobs is taken in turn with the others' (default 10 s).
   */
  turnMs?: number;
}

export interface EnqueueOptions {
  /** The caller's transaction: the job exists if and only if the change it belongs to commits. */
  executor?: Executor;
  /** Not before (default: now). */
  runAt?: number;
  /** Overrides the kind's maxAttempts for this job. */
  maxAttempts?: number;
  /**
   * Whose job it is (`account:<id>`): due jobs are taken in turns between owners, each owner's
   * jobs a `turnMs` of the kind apart, so one owner's hundred jobs do not keep the others waiting.
   */
  fairKey?: string;
}

export interface JobLog {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface JobRunnerDeps {
  db: Db;
  clock: Clock;
  log: JobLog;
  /** Where the jobs_* metrics go: the registry /metrics serves (none: not counted). */
  registry?: Registry;
  /** How long stop() waits for running jobs (default 30 s) before it aborts them. */
  stopTimeoutMs?: number;
  /** How long stop() then waits for the jobs it aborted to end (default 5 s). */
  abortedGraceMs?: number;
}

const MAX_ERROR_LENGTH = 1000;
const OTHERS_WAITING_CHECK_MS = 1_000;
// On SQLite the first look already waits for the caller's commit (one connection); on PostgreSQL it may come too early.
const AFTER_COMMIT_LOOK_MS = 50;
/** Finished jobs are kept this long (the kinds keep their own records), then deleted hourly in batches. */
const FINISHED_RETENTION_MS = 7 * 86_400_000;
const PRUNE_INTERVAL_MS = 3_600_000;
const PRUNE_BATCH = 1_000;
const DEFAULT_TURN_MS = 10_000;

export const describeJobError = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);

interface KindState {
  name: string;
  kind: JobKind<unknown>;
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  workers: Set<Promise<void>>;
  /** Set when a wake-up found every slot busy: the next worker to finish looks again. */
  lookAgain: boolean;
  poller?: NodeJS.Timeout;
}

/**
 * Runs every kind of background work from the durable `jobs` table: claims due jobs with a
 * lease (so with several replicas each runs on one of them, and a job whose runner died goes
 * to another once its lease has passed), retries with each kind's backoff, and fails a job for
 * good after its attempts or at once on a PermanentJobError.
 */
export function createJobRunner(deps: JobRunnerDeps) {
  const { db, clock, log } = deps;
  const stopTimeoutMs = deps.stopTimeoutMs ?? 30_000;
  const abortedGraceMs = deps.abortedGraceMs ?? 5_000;
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const metrics = deps.registry && createJobMetrics(deps.registry, () => countUnfinishedJobs(db));
  const kinds = new Map<string, KindState>();
  const executions = new Set<Promise<void>>();
  /** One per job running here: stop() aborts those it stops waiting for. */
  const aborters = new Set<AbortController>();
  let running = false;
  // Bumped by stop(): loops started before it end after their current job, even one that outlasts the wait.
  let generation = 0;
  let pruner: NodeJS.Timeout | undefined;
  let pruning: Promise<unknown> | undefined;

  function kindNamed(name: string): KindState {
    const state = kinds.get(name);
    if (!state) throw new Error(`no job kind ${JSON.stringify(name)} is registered`);
    return state;
  }

  async function recordFailure(state: KindState, job: JobRow, payload: unknown, error: unknown, maxAttempts: number): Promise<void> {
    const now = clock();
    const message = describeJobError(error);
    const final = error instanceof PermanentJobError || job.attempts >= maxAttempts;
    const delay = final ? 0 : state.kind.backoffMs(job.attempts);
    const retry = final ? null : { at: now + delay, inMs: delay };
    metrics?.failed.inc({ kind: state.name, outcome: retry ? 'retry' : 'failed' });
    await db.transaction().execute(async (trx) => {
      const held = retry ? await retryJob(trx, job, retry.at, message, now) : await failJob(trx, job, message, now);
      // The lease ran out and another runner took the job: this outcome is no longer ours to record.
      if (!held) return;
      const failure: JobFailure = { attempt: job.attempts, error, message, retry };
      if (state.kind.onFailure && payload !== undefined) return state.kind.onFailure(trx, payload, failure);
      const context = { jobId: job.id, kind: state.name, attempt: job.attempts, error: message };
      if (retry) log.warn({ ...context, retryInMs: retry.inMs }, 'job failed, will retry');
      else log.error(context, 'job failed for good');
    });
  }

  /** What a running job may ask of the runner: whether to end its turn early. */
  function runningJob(state: KindState, job: JobRow, signal: AbortSignal): RunningJob {
    const started = generation;
    let asked: { at: number; answer: Promise<boolean> } | undefined;
    return {
      id: job.id,
      kind: state.name,
      attempt: job.attempts,
      stopping: () => generation !== started,
      signal,
      othersWaiting() {
        const now = clock();
        if (!asked || now - asked.at >= OTHERS_WAITING_CHECK_MS) {
          asked = { at: now, answer: hasWaitingJob(db, { kind: state.name, now, excluding: job.id }) };
        }
        return asked.answer;
      },
    };
  }

  async function execute(state: KindState, job: JobRow): Promise<void> {
    const maxAttempts = job.max_attempts ?? state.kind.maxAttempts;
    let payload: unknown;
    let failure: { error: unknown } | undefined;
    metrics?.run.inc({ kind: state.name });
    const endTimer = metrics?.duration.startTimer({ kind: state.name });
    const aborter = new AbortController();
    aborters.add(aborter);
    try {
      payload = JSON.parse(job.payload);
      // Taken again after its last attempt's lease ran out: that attempt never ended (a crash, or it hung).
      if (job.attempts > maxAttempts) throw new PermanentJobError('abandoned during its last attempt (its lease ran out)');
      await state.kind.run(payload, runningJob(state, job, aborter.signal));
    } catch (error) {
      failure = { error };
    } finally {
      endTimer?.();
      aborters.delete(aborter);
    }
    if (failure && aborter.signal.aborted) {
      // Cut short by stop(), not failed: due again now, the attempt given back, without the kind's backoff or its failure record.
      await releaseJob(db, job, 'the server stopped during this attempt', clock());
      return;
    }
    // Outside the try: a database error while recording success must not count as a failed run.
    if (failure) await recordFailure(state, job, payload, failure.error, maxAttempts);
    else await completeJob(db, job, clock());
  }

  /** Claims and runs jobs of one kind until none is due; `onClaim` lets the loop open another slot. */
  async function work(state: KindState, onClaim?: () => void): Promise<number> {
    let handled = 0;
    const started = generation;
    while (generation === started) {
      const job = await claimDueJob(db, { kind: state.name, now: clock(), leaseMs: state.leaseMs, owner });
      if (!job) break;
      onClaim?.();
      const execution = execute(state, job);
      executions.add(execution);
      await execution.finally(() => executions.delete(execution));
      handled++;
    }
    return handled;
  }

  /**
   * Starts a worker in a free slot. Each worker that claims a job offers the next one to another
   * slot, so a job stuck on a slow peer holds one slot and the rest keep flowing.
   */
  function pump(state: KindState): void {
    if (!running) return;
    if (state.workers.size >= state.concurrency) {
      state.lookAgain = true;
      return;
    }
    state.lookAgain = false;
    const worker: Promise<void> = work(state, () => pump(state))
      .then(
        () => undefined,
        (error: unknown) =>
          log[failureLevel(error)]({ kind: state.name, error: describeJobError(error) }, 'job runner failed to claim or record a job'),
      )
      .finally(() => {
        state.workers.delete(worker);
        if (state.lookAgain) pump(state);
      });
    state.workers.add(worker);
  }

  function startPolling(state: KindState): void {
    // The timer alone must not keep the process alive; the HTTP server does that.
    state.poller = setInterval(() => pump(state), state.pollMs).unref();
    pump(state);
  }

  function nudge(kindName: string, inTransaction: boolean): void {
    const state = kinds.get(kindName);
    if (!running || !state || state.kind.runOnEnqueue === false) return;
    setImmediate(() => pump(state));
    // Inside the caller's transaction the job shows once it commits, out of our sight: look again shortly after.
    if (inTransaction) setTimeout(() => pump(state), AFTER_COMMIT_LOOK_MS).unref();
  }

  /** Deletes jobs finished more than the retention ago; resolves with how many went. */
  async function pruneFinished(): Promise<number> {
    const before = clock() - FINISHED_RETENTION_MS;
    const started = generation;
    let deleted = 0;
    for (;;) {
      const batch = await deleteFinishedJobs(db, before, PRUNE_BATCH);
      deleted += batch;
      if (batch < PRUNE_BATCH || generation !== started) return deleted;
    }
  }

  function prune(): void {
    pruning ??= pruneFinished()
      .catch((error: unknown) => log[failureLevel(error)]({ error: describeJobError(error) }, 'job runner failed to delete finished jobs'))
      .finally(() => {
        pruning = undefined;
      });
  }

  /** The turns of an owner's new jobs: after their jobs still waiting, each a turn apart, none before it is due. */
  async function turnsOf(executor: Executor, kind: string, fairKey: string, due: number, count: number): Promise<number[]> {
    const turnMs = kinds.get(kind)?.kind.turnMs ?? DEFAULT_TURN_MS;
    const last = await lastTurnOf(executor, kind, fairKey);
    const first = last === null ? due : Math.max(due, last + turnMs);
    return Array.from({ length: count }, (_, index) => first + index * turnMs);
  }

  async function enqueueMany(kind: string, payloads: readonly unknown[], options: EnqueueOptions = {}): Promise<number[]> {
    if (payloads.length === 0) return [];
    const { executor = db, runAt, maxAttempts = null, fairKey } = options;
    const now = clock();
    const due = runAt ?? now;
    const turns = fairKey === undefined ? undefined : await turnsOf(executor, kind, fairKey, due, payloads.length);
    const jobs = payloads.map((payload, index) => ({
      kind,
      payload: JSON.stringify(payload),
      runAt: due,
      maxAttempts,
      ...(fairKey !== undefined && { fairKey, turnAt: turns![index]! }),
    }));
    const ids = await insertJobs(executor, jobs, now);
    if (ids.length > 0) nudge(kind, executor.isTransaction);
    return ids;
  }

  return {
    /** Adds a kind of job; its jobs run once start() is called (or on drain). */
    register<P>(name: string, kind: JobKind<P>): void {
      if (kinds.has(name)) throw new Error(`job kind ${JSON.stringify(name)} is already registered`);
      const state: KindState = {
        name,
        kind: kind as JobKind<unknown>,
        concurrency: kind.concurrency ?? 4,
        leaseMs: kind.leaseMs ?? 60_000,
        pollMs: kind.pollMs ?? 1_000,
        workers: new Set(),
        lookAgain: false,
      };
      kinds.set(name, state);
      if (running) startPolling(state);
    },

    /** Writes one job (with `executor`, in the caller's transaction); resolves with its id. */
    async enqueue(kind: string, payload: unknown, options?: EnqueueOptions): Promise<number> {
      const [id] = await enqueueMany(kind, [payload], options);
      return id!;
    },

    /** Writes one job of `kind` per payload, in one statement. */
    enqueueMany,

    /**
     * Runs every due job of `kind` (or of every registered kind) here and now, whether or not the
     * runner is started (tests, one-shot commands). Resolves with how many ran.
     */
    async drain(kind?: string): Promise<number> {
      const states = kind === undefined ? [...kinds.values()] : [kindNamed(kind)];
      let handled = 0;
      for (const state of states) {
        // allSettled: one worker's database error must not return while the others are still running jobs.
        const results = await Promise.allSettled(Array.from({ length: state.concurrency }, () => work(state)));
        const failure = results.find((result) => result.status === 'rejected');
        if (failure) throw failure.reason;
        handled += results.reduce((sum, result) => sum + (result.status === 'fulfilled' ? result.value : 0), 0);
      }
      return handled;
    },

    pruneFinished,

    /** Polls every registered kind, and deletes old finished jobs hourly. */
    start(): void {
      if (running) return;
      running = true;
      for (const state of kinds.values()) startPolling(state);
      pruner = setInterval(prune, PRUNE_INTERVAL_MS).unref();
      prune();
    },

    /**
     * Stops polling and waits for the jobs running here, up to stopTimeoutMs; then aborts them
     * (`RunningJob.signal`) and waits a few seconds more. An aborted job is due again at once; one
     * that ignores its signal keeps its lease, and another runner takes it once the lease has passed.
     */
    async stop(): Promise<void> {
      running = false;
      generation++;
      for (const state of kinds.values()) clearInterval(state.poller);
      clearInterval(pruner);
      const workers = [...kinds.values()].flatMap((state) => [...state.workers]);
      const settled = Promise.allSettled([...executions, ...workers, pruning]).then(() => true);
      const within = async (ms: number) => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), ms);
        });
        const finished = await Promise.race([settled, timedOut]);
        clearTimeout(timer);
        return finished;
      };
      if (await within(stopTimeoutMs)) return;
      for (const aborter of aborters) aborter.abort();
      if (await within(abortedGraceMs)) {
        log.warn({}, 'job runner stopped jobs still running; they are due again');
        return;
      }
      log.warn({ running: executions.size }, 'job runner stopped while jobs were still running; they resume when their lease has passed');
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
/** What a service that only queues work depends on. */
export type JobQueue = Pick<JobRunner, 'enqueue' | 'enqueueMany'>;
