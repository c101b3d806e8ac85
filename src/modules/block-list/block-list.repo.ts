import type { Executor } from '../../db/executor.js';

export function findBlockList(db: Executor, accountId: number) {
  return db.selectFrom('block_lists').select(['emails', 'domains']).where('account_id', '=', accountId).executeTakeFirst();
}

export async function saveBlockList(db: Executor, accountId: number, lists: { emails: string; domains: string }, now: number): Promise<void> {
  await db
    .insertInto('block_lists')
    .values({ account_id: accountId, ...lists, updated_at: now })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ ...lists, updated_at: now }))
    .execute();
}
