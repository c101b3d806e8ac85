import { failureLevel, type Clock, type CommitsWith } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { unprocessable } from '../../core/errors.js';
import { scheduledJob } from '../../core/periodic-job.js';
import * as repo from './idempotency.repo.js';

/** How long a key answers with its first result, as Stripe's API keeps them. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/** An answer, and whether it is the first one given again. */
export interface Outcome<T> {
  body: T;
  replayed: boolean;
}

/**
 * Idempotency-Key for requests that store something (uploads and replacements): the first
 * request's answer is written in the transaction of its change, so a client that retries after
 * any failure (a timeout, a crash of the server right at its commit) gets that answer instead
 * of a second copy. Keys are per account and last 24 hours.
 */
export function createIdempotencyService(deps: {
  db: Db;
  clock: Clock;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}) {
  const { db, clock, log } = deps;

  async function firstAnswer<T>(accountId: number, key: string, purpose: string): Promise<T | undefined> {
    const row = await repo.findIdempotentRequest(db, accountId, key);
    if (!row) return undefined;
    if (row.created_at <= clock() - IDEMPOTENCY_WINDOW_MS) {
      // Past its window but not yet swept: the key is free again.
      await repo.deleteIdempotentRequest(db, accountId, key);
      return undefined;
    }
    if (row.purpose !== purpose) throw unprocessable('This Idempotency-Key was used for another request: send a new key with each new request');
    return JSON.parse(row.response) as T;
  }

  async function sweep(): Promise<number> {
    const deleted = await repo.deleteIdempotentRequestsBefore(db, clock() - IDEMPOTENCY_WINDOW_MS);
    if (deleted > 0) log.info({ deleted }, 'deleted lapsed idempotency keys');
    return deleted;
  }

  return {
    /**
     * Runs `perform` at most once per key: a key used in the last 24 hours answers with its first
     * result. `perform` gets the step that records the answer, to run in its change's transaction
     * (none without a key). `purpose` names the request: a key sent again for another one is a 422.
     * A twin sent at the same time runs `perform` too, but only one can commit (the key is unique):
     * whichever fails once the other has committed answers its result.
     */
    async once<T>(
      accountId: number,
      key: string | undefined,
      purpose: string,
      perform: (recordAnswer: CommitsWith<T> | undefined) => Promise<T>,
    ): Promise<Outcome<T>> {
      if (key === undefined) return { body: await perform(undefined), replayed: false };
      const first = await firstAnswer<T>(accountId, key, purpose);
      if (first !== undefined) return { body: first, replayed: true };
      const recordAnswer: CommitsWith<T> = (trx, body) =>
        repo.insertIdempotentRequest(trx, { account_id: accountId, key, purpose, response: JSON.stringify(body), created_at: clock() });
      try {
        return { body: await perform(recordAnswer), replayed: false };
      } catch (error) {
        // A twin sent at the same time committed first and this change gave way to it (the key's
        // row, or the version a replacement switches from, was taken): its answer is this one's.
        const twin = await firstAnswer<T>(accountId, key, purpose).catch(() => undefined);
        if (twin === undefined) throw error;
        return { body: twin, replayed: true };
      }
    },

    sweep,
    ...scheduledJob(sweep, 3_600_000, (err) => log[failureLevel(err)]({ err }, 'idempotency-key sweep failed')),
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
