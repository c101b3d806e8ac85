import { sql, type Kysely } from 'kysely';

// Jobs take turns between their owners (accounts): `fair_key` names the owner, `turn_at` orders the
// due jobs of a kind (run_at, as before, for a job of no owner). A job waiting before this migration
// keeps its place.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('fair_key', 'text').execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('turn_at', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE jobs SET turn_at = run_at`.execute(db);
  await db.schema.createIndex('jobs_turn_idx').on('jobs').columns(['kind', 'status', 'turn_at']).execute();
  await db.schema.createIndex('jobs_fair_idx').on('jobs').columns(['kind', 'fair_key', 'status', 'turn_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_fair_idx').execute();
  await db.schema.dropIndex('jobs_turn_idx').execute();
  await db.schema.alterTable('jobs').dropColumn('turn_at').execute();
  await db.schema.alterTable('jobs').dropColumn('fair_key').execute();
}
