import type { Kysely } from 'kysely';

// The last time step at which a person's authenticator code was accepted, kept with the person
// rather than in each process's memory: another replica, or the same one after a restart, would
// otherwise accept an overheard code once more within its 90 seconds.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('totp_last_step', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('totp_last_step').execute();
}
