import type { Executor } from '../../db/executor.js';
import type { AccountRow } from '../../db/types.js';

export async function insertAccount(db: Executor, account: { email: string; name: string | null; plan: string; createdAt: number }) {
  const row = await db
    .insertInto('accounts')
    .values({ email: account.email, name: account.name, plan: account.plan, created_at: account.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function findAccountByEmail(db: Executor, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

/** A new name or address; false when the account is gone. */
export async function updateAccount(db: Executor, id: number, changes: Partial<Pick<AccountRow, 'name' | 'email'>>): Promise<boolean> {
  const result = await db.updateTable('accounts').set(changes).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function updateAccountPlan(db: Executor, email: string, plan: string): Promise<boolean> {
  const result = await db.updateTable('accounts').set({ plan }).where('email', '=', email).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Serialises writers on one account until the transaction ends (a row lock on
 * PostgreSQL, the write lock on SQLite), for rules such as "at most 5 keys".
 */
export async function lockAccount(db: Executor, accountId: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', accountId)
    .execute();
}

export function findAccountById(db: Executor, id: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The first account made on this install (the one auto-joined by single sign-on). */
export async function findFirstAccountId(db: Executor): Promise<number | undefined> {
  const row = await db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

/** Deletes the account; every row that belongs to it goes with it (foreign keys cascade). */
export async function deleteAccount(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('accounts').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
