import type { Kysely } from 'kysely';

// Expired download tokens are deleted by an hourly sweep, which finds them by their expiry.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('download_tokens_expires').on('download_tokens').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('download_tokens_expires').execute();
}
