import type { Kysely } from 'kysely';

// Issue 20: the owner lets visitors download what they view (off by default).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('allow_download', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('links').dropColumn('allow_download').execute();
}
