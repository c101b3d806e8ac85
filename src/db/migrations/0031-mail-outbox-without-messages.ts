import type { Kysely } from 'kysely';

interface Outbox {
  mail_outbox: { status: string; text_body: string; html_body: string | null };
}

// An outbox row keeps its message (the text, the HTML, and a subject that carries a one-time code)
// only until the mail is sent or has failed for good: the message holds live sign-in links, codes
// and download tokens, which the database otherwise keeps only as hashes. `kind` (the template)
// says what a row was afterwards; rows are deleted by age (the index) after MAIL_RETENTION_DAYS.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('kind', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('secret_subject', 'text').execute();
  await db.schema.createIndex('mail_outbox_created_idx').on('mail_outbox').column('created_at').execute();
  await (db as Kysely<Outbox>).updateTable('mail_outbox').set({ text_body: '', html_body: null }).where('status', '!=', 'pending').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('mail_outbox_created_idx').execute();
  await db.schema.alterTable('mail_outbox').dropColumn('secret_subject').execute();
  await db.schema.alterTable('mail_outbox').dropColumn('kind').execute();
}
