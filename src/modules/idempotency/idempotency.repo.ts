import type { Executor } from '../../db/executor.js';

export function findIdempotentRequest(db: Executor, accountId: number, key: string) {
  return db
    .selectFrom('idempotent_requests')
    .select(['purpose', 'response', 'created_at'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Fails with a unique violation when the key was used already (a concurrent twin committed first). */
export async function insertIdempotentRequest(
  db: Executor,
  row: { account_id: number; key: string; purpose: string; response: string; created_at: number },
): Promise<void> {
  await db.insertInto('idempotent_requests').values(row).execute();
}

export async function deleteIdempotentRequest(db: Executor, accountId: number, key: string): Promise<void> {
  await db.deleteFrom('idempotent_requests').where('account_id', '=', accountId).where('key', '=', key).execute();
}

export async function deleteIdempotentRequestsBefore(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('idempotent_requests').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
