import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The sweeper's lookup of visits whose gate window closed without a view session. Partial, so
  // the visits kept as analytics (the great majority) are not in it.
  await db.schema.createIndex('visits_lapsed_idx').on('visits').column('expires_at').where(sql.ref('session_started_at'), 'is', null).execute();
  await db.schema.createIndex('otp_codes_expiry_idx').on('otp_codes').column('expires_at').execute();
  await db.schema.createIndex('portal_sessions_expiry_idx').on('portal_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('portal_sessions_expiry_idx').execute();
  await db.schema.dropIndex('otp_codes_expiry_idx').execute();
  await db.schema.dropIndex('visits_lapsed_idx').execute();
}
