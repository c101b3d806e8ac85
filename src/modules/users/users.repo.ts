import { isPostgres, type Executor } from '../../db/executor.js';
import type { UserRow } from '../../db/types.js';

export async function insertUser(db: Executor, user: { email: string; name: string; passwordHash: string | null; createdAt: number }) {
  const row = await db
    .insertInto('users')
    .values({ email: user.email, name: user.name, password_hash: user.passwordHash, created_at: user.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The person, held until the transaction ends: a change of their password or second factor made
 * meanwhile waits for it, or is read by it once committed (a row lock on PostgreSQL; SQLite's
 * transactions begin IMMEDIATE and hold its one write lock already).
 */
export function lockUser(db: Executor, id: number): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .$if(isPostgres(db), (query) => query.forUpdate())
    .executeTakeFirst();
}

export async function anyUserExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export async function updateUser(
  db: Executor,
  id: number,
  changes: Partial<
    Pick<UserRow, 'email' | 'name' | 'password_hash' | 'totp_secret' | 'totp_confirmed_at' | 'last_sign_in_at' | 'disabled_at' | 'view_alerts_muted'>
  >,
): Promise<boolean> {
  const result = await db.updateTable('users').set(changes).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records `step` as the person's last accepted code; false if that step or a later one was accepted before. */
export async function claimTotpStep(db: Executor, id: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes these people's sign-ins; their sessions, links mailed to them and recovery codes go with them. */
export async function deleteUsers(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('users').where('id', 'in', ids).execute();
}
