import { type ExpressionBuilder, PostgresAdapter, type Updateable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Database, JobRow, JobStatus, JobsTable } from '../../db/types.js';

export interface NewJob {
  kind: string;
  /** JSON text */
  payload: string;
  runAt: number;
  maxAttempts: number | null;
  /** whose job it is (none: no one's), and its turn among the due jobs of its kind (default: runAt) */
  fairKey?: string;
  turnAt?: number;
}

export interface JobClaimRequest {
  kind: string;
  now: number;
  leaseMs: number;
  /** who takes the lease, recorded on the row */
  owner: string;
}

/** What a runner holds after a claim: the row and the attempt it started, which fences its writes. */
export type JobClaim = Pick<JobRow, 'id' | 'attempts'>;

export async function insertJobs(db: Executor, jobs: readonly NewJob[], now: number): Promise<number[]> {
  if (jobs.length === 0) return [];
  const rows = await db
    .insertInto('jobs')
    .values(
      jobs.map((job) => ({
        kind: job.kind,
        payload: job.payload,
        status: 'pending' as const,
        run_at: job.runAt,
        fair_key: job.fairKey ?? null,
        turn_at: job.turnAt ?? job.runAt,
        max_attempts: job.maxAttempts,
        created_at: now,
        updated_at: now,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** A row a runner may take: due and waiting, or running under a lease that has passed (its runner is gone). */
function claimable(eb: ExpressionBuilder<Database, 'jobs'>, kind: string, now: number) {
  return eb.and([
    eb('kind', '=', kind),
    eb.or([eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)])]),
  ]);
}

/**
 * Leases the next due job of one kind to a runner and counts the attempt, in one statement.
 * The outer WHERE repeats the subquery's conditions on purpose: when two PostgreSQL runners
 * race for a row, the loser re-checks them on the winner's version and gets nothing (the
 * subquery's result alone would still match by id); SKIP LOCKED sends it to other rows. SQLite
 * runs one writer at a time, which makes the statement atomic there. One row, compared with
 * `=`: PostgreSQL runs that subquery once, whereas `id IN (… LIMIT n FOR UPDATE SKIP LOCKED)`
 * may be run again for each row it scans and claim every due row.
 */
export function claimDueJob(db: Executor, request: JobClaimRequest): Promise<JobRow | undefined> {
  const { kind, now, leaseMs, owner } = request;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db
    .updateTable('jobs')
    .set((eb) => ({ status: 'running', lease_until: now + leaseMs, lease_owner: owner, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', '=', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where((inner) => claimable(inner, kind, now))
        .orderBy('turn_at')
        .orderBy('id')
        .limit(1)
        .$if(postgres, (query) => query.forUpdate().skipLocked()),
    )
    .where((eb) => claimable(eb, kind, now))
    .returningAll()
    .executeTakeFirst();
}

/** The last turn an owner's jobs of `kind` still waiting or running hold, or null when none does. */
export async function lastTurnOf(db: Executor, kind: string, fairKey: string): Promise<number | null> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.max<number | string | null>('turn_at').as('turn'))
    .where('kind', '=', kind)
    .where('fair_key', '=', fairKey)
    .where('status', 'in', ['pending', 'running'])
    .executeTakeFirst();
  return row?.turn === null || row?.turn === undefined ? null : Number(row.turn);
}

/** Whether a job of `kind` other than `excluding` is due and waiting for a runner (or its runner is gone). */
export async function hasWaitingJob(db: Executor, query: { kind: string; now: number; excluding: number }): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where((eb) => claimable(eb, query.kind, query.now))
    .where('id', '!=', query.excluding)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Ends an attempt. Only the runner still holding it may: once its lease passed and another
 * runner took the job (counting a new attempt), a late outcome from the first changes nothing.
 */
async function finishAttempt(db: Executor, claim: JobClaim, patch: Updateable<JobsTable> & { status: JobStatus }): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ ...patch, lease_until: null, lease_owner: null })
    .where('id', '=', claim.id)
    .where('status', '=', 'running')
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export const completeJob = (db: Executor, claim: JobClaim, now: number) =>
  finishAttempt(db, claim, { status: 'done', last_error: null, updated_at: now });

/** A retried job waits for its time and then takes its turn from then. */
export const retryJob = (db: Executor, claim: JobClaim, runAt: number, error: string, now: number) =>
  finishAttempt(db, claim, { status: 'pending', run_at: runAt, turn_at: runAt, last_error: error, updated_at: now });

/** A job its runner stopped, due again now: the attempt it was cut short in is given back, as it did not fail. */
export const releaseJob = (db: Executor, claim: JobClaim, error: string, now: number) =>
  finishAttempt(db, claim, { status: 'pending', attempts: claim.attempts - 1, run_at: now, turn_at: now, last_error: error, updated_at: now });

export const failJob = (db: Executor, claim: JobClaim, error: string, now: number) =>
  finishAttempt(db, claim, { status: 'failed', last_error: error, updated_at: now });

/** Deletes up to `limit` jobs that finished (done or failed) before `before`; how many went. */
export async function deleteFinishedJobs(db: Executor, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', (eb) =>
      eb.selectFrom('jobs').select('id').where('status', 'in', ['done', 'failed']).where('updated_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Jobs waiting (pending, due or not) and running, by kind: the gauges /metrics serves. */
export function countUnfinishedJobs(db: Executor) {
  return db
    .selectFrom('jobs')
    .select(['kind', 'status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('status', 'in', ['pending', 'running'])
    .groupBy(['kind', 'status'])
    .execute();
}

/** For tests and diagnostics: oldest first. */
export function listJobs(db: Executor, filter: { kind?: string; status?: JobStatus } = {}): Promise<JobRow[]> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .$if(filter.kind !== undefined, (query) => query.where('kind', '=', filter.kind!))
    .$if(filter.status !== undefined, (query) => query.where('status', '=', filter.status!))
    .orderBy('id')
    .execute();
}
