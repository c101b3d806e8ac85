import type { Kysely } from 'kysely';

// Issue 20: a link may ask each visitor's e-mail without verifying it, and refuse addresses and
// domains of its own or of the account's block list; refused attempts are counted on the link.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  const columns = [
    ['require_email', 'integer', 0],
    ['blocked_emails', 'text', '[]'],
    ['blocked_domains', 'text', '[]'],
    ['blocked_attempts', 'integer', 0],
  ] as const;
  for (const [name, type, fallback] of columns) {
    await db.schema
      .alterTable('links')
      .addColumn(name, type, (column) => column.notNull().defaultTo(fallback))
      .execute();
  }
  await db.schema
    .createTable('block_lists')
    .addColumn('account_id', 'integer', (column) => column.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('emails', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('domains', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('block_lists').execute();
  for (const column of ['blocked_attempts', 'blocked_domains', 'blocked_emails', 'require_email']) {
    await db.schema.alterTable('links').dropColumn(column).execute();
  }
}
