import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per account that has changed anything; absent means the defaults.
  await db.schema
    .createTable('branding')
    .addColumn('account_id', 'integer', (column) => column.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('company_name', 'text')
    .addColumn('logo_key', 'text')
    .addColumn('primary_color', 'text')
    .addColumn('bg_color', 'text')
    .addColumn('btn_text_color', 'text')
    .addColumn('btn_radius', 'text')
    .addColumn('card_bg_color', 'text')
    .addColumn('card_border_color', 'text')
    .addColumn('text_color', 'text')
    .addColumn('logo_size', 'integer')
    .addColumn('custom_domain', 'text', (column) => column.unique())
    .addColumn('smtp_host', 'text')
    .addColumn('smtp_port', 'integer')
    .addColumn('smtp_encryption', 'text')
    .addColumn('smtp_username', 'text')
    // AES-256-GCM under the master key, bound to the account (infra/crypto/sealed.ts).
    .addColumn('smtp_password_sealed', 'text')
    .addColumn('from_email', 'text')
    .addColumn('from_name', 'text')
    .addColumn('email_locale', 'text')
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('branding').execute();
}
