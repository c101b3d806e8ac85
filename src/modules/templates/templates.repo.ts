import { isPostgres, type Executor } from '../../db/executor.js';

export function listTemplates(db: Executor, accountId: number) {
  return db.selectFrom('link_templates').select(['id', 'name', 'settings']).where('account_id', '=', accountId).orderBy('id').execute();
}

const templateOf = (db: Executor, accountId: number, id: number) =>
  db.selectFrom('link_templates').select(['id', 'name', 'settings']).where('id', '=', id).where('account_id', '=', accountId);

export function findTemplate(db: Executor, accountId: number, id: number) {
  return templateOf(db, accountId, id).executeTakeFirst();
}

/** The template, held until the transaction ends to be changed from what it is now (as links.repo's `lockLink`). */
export function lockTemplate(db: Executor, accountId: number, id: number) {
  return templateOf(db, accountId, id)
    .$if(isPostgres(db), (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
}

export async function insertTemplate(db: Executor, template: { accountId: number; name: string; settings: string; now: number }): Promise<number> {
  const row = await db
    .insertInto('link_templates')
    .values({ account_id: template.accountId, name: template.name, settings: template.settings, created_at: template.now, updated_at: template.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateTemplate(
  db: Executor,
  accountId: number,
  id: number,
  patch: { name: string; settings: string; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('link_templates')
    .set({ name: patch.name, settings: patch.settings, updated_at: patch.now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteTemplate(db: Executor, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('link_templates').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
