import type { Kysely } from 'kysely';

// A person may ask for no e-mail about the views of the links they made (1), whatever the
// account's view alert mode; access requests and sales still reach them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('view_alerts_muted', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('view_alerts_muted').execute();
}
