import type { Executor } from '../../db/executor.js';

/** `email-change`: a link to a person's new address (`email`) that makes it their sign-in. */
export type TokenPurpose = 'setup' | 'magic-link' | 'password-reset' | 'sign-up' | 'email-change';

export function insertSignInToken(
  db: Executor,
  token: { tokenHash: string; purpose: TokenPurpose; email: string | null; userId: number | null; createdAt: number; expiresAt: number },
) {
  return db
    .insertInto('sign_in_tokens')
    .values({
      token_hash: token.tokenHash,
      purpose: token.purpose,
      email: token.email,
      user_id: token.userId,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    })
    .execute();
}

/**
 * Uses the token: marks it used and answers it, once. A second use, an expired token or one
 * made for another purpose finds nothing.
 */
export async function consumeSignInToken(db: Executor, tokenHash: string, purpose: TokenPurpose, now: number) {
  const row = await db
    .updateTable('sign_in_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['email', 'user_id'])
    .executeTakeFirst();
  return row;
}

/** Uses every live token of `purpose` at once; the hashes of those it used. */
export async function spendLiveSignInTokens(db: Executor, purpose: TokenPurpose, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('sign_in_tokens')
    .set({ used_at: now })
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('token_hash')
    .execute();
  return rows.map((row) => row.token_hash);
}

/**
 * Uses every live link mailed to the person at once (or those of one `purpose`): their password or
 * address changed, and none may outlive it.
 */
export async function spendLiveSignInTokensOf(db: Executor, userId: number, now: number, purpose?: TokenPurpose): Promise<void> {
  await db
    .updateTable('sign_in_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .$if(purpose !== undefined, (query) => query.where('purpose', '=', purpose!))
    .execute();
}

/** The token as it would be accepted now, without using it (a page shows its form only then). */
export function findUsableSignInToken(db: Executor, tokenHash: string, purpose: TokenPurpose, now: number) {
  return db
    .selectFrom('sign_in_tokens')
    .select(['email', 'user_id'])
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Deletes up to `limit` tokens that expired before `before`; answers how many went. */
export async function deleteExpiredSignInTokens(db: Executor, before: number, limit: number): Promise<number> {
  const expired = db.selectFrom('sign_in_tokens').select('token_hash').where('expires_at', '<', before).limit(limit);
  const result = await db.deleteFrom('sign_in_tokens').where('token_hash', 'in', expired).executeTakeFirst();
  return Number(result.numDeletedRows);
}
