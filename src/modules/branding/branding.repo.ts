import type { Updateable } from 'kysely';
import { isUniqueViolation, type Executor } from '../../db/executor.js';
import type { BrandingTable } from '../../db/types.js';

export type BrandingPatch = Omit<Updateable<BrandingTable>, 'account_id'>;

export function findBranding(db: Executor, accountId: number) {
  return db.selectFrom('branding').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Inserts the account's row or updates the given columns of it. */
/** The logo blobs the accounts `accountIds` point at (the orphan sweep keeps those). */
export function findLogoKeys(db: Executor, accountIds: readonly number[]) {
  return db.selectFrom('branding').select('logo_key').where('account_id', 'in', accountIds).where('logo_key', 'is not', null).execute();
}

export async function upsertBranding(db: Executor, accountId: number, patch: BrandingPatch, now: number): Promise<void> {
  await db
    .insertInto('branding')
    .values({ ...patch, account_id: accountId, updated_at: now })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ ...patch, updated_at: now }))
    .execute();
}

/** The account whose verified custom domain this is (pending claims route nothing). */
export async function accountIdForDomain(db: Executor, domain: string): Promise<number | undefined> {
  const row = await db.selectFrom('branding').select('account_id').where('custom_domain', '=', domain).executeTakeFirst();
  return row?.account_id;
}

/**
 * Turns the account's pending claim into its verified domain, if the claim is still the one
 * that was checked. 'taken' when another account verified the name first: the unique index
 * on custom_domain decides a race between two verifications.
 */
export async function markDomainVerified(
  db: Executor,
  accountId: number,
  claim: { domain: string; token: string },
  now: number,
): Promise<'verified' | 'taken' | 'changed'> {
  try {
    const result = await db
      .updateTable('branding')
      .set({ custom_domain: claim.domain, custom_domain_pending: null, custom_domain_token: null, updated_at: now })
      .where('account_id', '=', accountId)
      .where('custom_domain_pending', '=', claim.domain)
      .where('custom_domain_token', '=', claim.token)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? 'verified' : 'changed';
  } catch (error) {
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
}
