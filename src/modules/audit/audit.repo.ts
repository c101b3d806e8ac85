import type { Executor } from '../../db/executor.js';
import type { AuditLogRow } from '../../db/types.js';

export type NewAuditEntry = Omit<AuditLogRow, 'id'>;

export async function insertAuditEntry(db: Executor, entry: NewAuditEntry): Promise<void> {
  await db.insertInto('audit_log').values(entry).execute();
}

export function listAuditEntries(db: Executor, accountId: number, options: { action?: string; limit: number; offset: number }) {
  let query = db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
  if (options.action) query = query.where('action', '=', options.action);
  return query.orderBy('id', 'desc').limit(options.limit).offset(options.offset).execute();
}

export async function countAuditEntries(db: Executor, accountId: number, action?: string): Promise<number> {
  let query = db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId);
  if (action) query = query.where('action', '=', action);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

export async function deleteAuditEntriesBefore(db: Executor, before: number, limit: number): Promise<number> {
  const ids = db.selectFrom('audit_log').select('id').where('at', '<', before).limit(limit);
  const result = await db.deleteFrom('audit_log').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
