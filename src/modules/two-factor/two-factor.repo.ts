import type { Executor } from '../../db/executor.js';

export async function replaceRecoveryCodes(db: Executor, userId: number, codeHashes: string[]): Promise<void> {
  await deleteRecoveryCodes(db, userId);
  await db
    .insertInto('recovery_codes')
    .values(codeHashes.map((codeHash) => ({ user_id: userId, code_hash: codeHash, used_at: null })))
    .execute();
}

export async function deleteRecoveryCodes(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/** Spends an unused recovery code, once: two requests with the same code cannot both succeed. */
export async function spendRecoveryCode(db: Executor, userId: number, codeHash: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
