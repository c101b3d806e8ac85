import type { Kysely } from 'kysely';
import { randomBytes } from 'node:crypto';

/** The columns this migration reads and writes, as they are at this point of the history. */
interface BrandingClaims {
  branding: { account_id: number; custom_domain: string | null; custom_domain_pending: string | null; custom_domain_token: string | null };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // branding.custom_domain keeps its unique index and from now on holds only verified domains,
  // so the index is what lets exactly one account verify a name. A claim waiting for its DNS
  // TXT record lives beside it, without an index: several accounts may claim the same name.
  // (One column per statement: SQLite's ALTER TABLE adds one at a time.)
  await db.schema.alterTable('branding').addColumn('custom_domain_pending', 'text').execute();
  await db.schema.alterTable('branding').addColumn('custom_domain_token', 'text').execute();

  // Domains set before verification existed were never proven: they wait for it like new claims.
  // (A migration keeps to node:crypto rather than the app's token helper, so that it never changes
  // once run; 32 hex characters hold the 128 random bits of the app's own tokens.)
  const claims = db as Kysely<BrandingClaims>;
  const claimed = await claims.selectFrom('branding').select(['account_id', 'custom_domain']).where('custom_domain', 'is not', null).execute();
  for (const row of claimed) {
    await claims
      .updateTable('branding')
      .set({
        custom_domain: null,
        custom_domain_pending: row.custom_domain,
        custom_domain_token: `linkvault-verify=${randomBytes(16).toString('hex')}`,
      })
      .where('account_id', '=', row.account_id)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('branding').dropColumn('custom_domain_token').execute();
  await db.schema.alterTable('branding').dropColumn('custom_domain_pending').execute();
}
