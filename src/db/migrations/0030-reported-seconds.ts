import type { Kysely } from 'kysely';

// The reading time a visit's viewer has reported, summed: a visit may report no more time than it
// has lasted (see the visits service), so a beacon cannot invent hours of reading nor write rows
// without end. Visits from before start at 0.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('visits')
    .addColumn('reported_seconds', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('visits').dropColumn('reported_seconds').execute();
}
