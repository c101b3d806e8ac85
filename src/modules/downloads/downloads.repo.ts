import type { Executor } from '../../db/executor.js';

export async function insertDownloadToken(
  db: Executor,
  token: {
    linkId: string;
    tokenHash: string;
    uses: number;
    expiresAt: number;
    createdAt: number;
    purchased: boolean;
    checkoutSessionHash?: string;
  },
): Promise<void> {
  await db
    .insertInto('download_tokens')
    .values({
      link_id: token.linkId,
      token_hash: token.tokenHash,
      uses_left: token.uses,
      expires_at: token.expiresAt,
      created_at: token.createdAt,
      purchased: Number(token.purchased),
      checkout_session_hash: token.checkoutSessionHash ?? null,
    })
    .execute();
}

/** A token of this link with a use left, not yet expired. */
export function findSpendableDownloadToken(db: Executor, linkId: string, tokenHash: string, now: number) {
  return db
    .selectFrom('download_tokens')
    .select(['id', 'purchased', 'checkout_session_hash'])
    .where('token_hash', '=', tokenHash)
    .where('link_id', '=', linkId)
    .where('uses_left', '>', 0)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Spends one use of a live token of this link, atomically; false if there was none to spend. */
export async function spendDownloadToken(db: Executor, linkId: string, tokenHash: string, now: number): Promise<boolean> {
  const row = await db
    .updateTable('download_tokens')
    .set((eb) => ({ uses_left: eb('uses_left', '-', 1) }))
    .where('token_hash', '=', tokenHash)
    .where('link_id', '=', linkId)
    .where('uses_left', '>', 0)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes up to `limit` tokens that expired before `before`: none can be spent again. */
export async function deleteExpiredDownloadTokens(db: Executor, before: number, limit: number): Promise<number> {
  const expired = db.selectFrom('download_tokens').select('id').where('expires_at', '<', before).limit(limit);
  const result = await db.deleteFrom('download_tokens').where('id', 'in', expired).executeTakeFirst();
  return Number(result.numDeletedRows);
}
