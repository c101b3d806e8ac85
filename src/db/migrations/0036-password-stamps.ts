import type { Kysely } from 'kysely';

// A visit's pass of a link's password names the password it passed (a stamp of its hash) instead of
// a flag: a new password then holds back every visit that passed the old one. Passes made before this
// migration are forgotten: their visitors enter the password once more.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('visits').addColumn('password_stamp', 'text').execute();
  await db.schema.alterTable('visits').dropColumn('password_passed').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('visits')
    .addColumn('password_passed', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('visits').dropColumn('password_stamp').execute();
}
