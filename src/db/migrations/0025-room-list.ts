import type { Kysely } from 'kysely';

// Issue 21: the dashboard lists an account's data rooms newest first; the rooms are read by key
// among however many file links the account has.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('links_account_kind_created_idx').on('links').columns(['account_id', 'kind', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_account_kind_created_idx').execute();
}
