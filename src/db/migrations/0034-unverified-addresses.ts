import type { Kysely } from 'kysely';

// A link's analytics and its access requests say "(not verified)" of an address a visitor only typed,
// as alerts do: link_visitors counts such views, access_requests records whether a code proved the
// address. Rows made before this migration hold NULL: how their views were opened is not known.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('link_visitors').addColumn('unverified_views', 'integer').execute();
  await db.schema.alterTable('access_requests').addColumn('email_verified', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('access_requests').dropColumn('email_verified').execute();
  await db.schema.alterTable('link_visitors').dropColumn('unverified_views').execute();
}
