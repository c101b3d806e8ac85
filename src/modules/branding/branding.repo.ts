import type { Updateable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { BrandingTable } from '../../db/types.js';

export type BrandingPatch = Omit<Updateable<BrandingTable>, 'account_id'>;

export function findBranding(db: Executor, accountId: number) {
  return db.selectFrom('branding').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Inserts the account's row or updates the given columns of it. */
export async function upsertBranding(db: Executor, accountId: number, patch: BrandingPatch, now: number): Promise<void> {
  await db
    .insertInto('branding')
    .values({ ...patch, account_id: accountId, updated_at: now })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ ...patch, updated_at: now }))
    .execute();
}

export async function accountIdForDomain(db: Executor, domain: string): Promise<number | undefined> {
  const row = await db.selectFrom('branding').select('account_id').where('custom_domain', '=', domain).executeTakeFirst();
  return row?.account_id;
}
