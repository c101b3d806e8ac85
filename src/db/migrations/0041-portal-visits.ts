import type { Kysely } from 'kysely';

// A link opened from a client portal takes up the visit that portal session began of it, rather
// than beginning one per click: each began a view (counted, and spending the link's view cap).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('visits').addColumn('portal_session_hash', 'text').execute();
  await db.schema.createIndex('visits_portal_session').on('visits').columns(['link_id', 'portal_session_hash']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('visits_portal_session').execute();
  await db.schema.alterTable('visits').dropColumn('portal_session_hash').execute();
}
