import type { Kysely } from 'kysely';

// Issue 19: each rendered page also keeps a JPEG that watermarked copies are made from; decoding
// it costs a fifth of decoding the WebP. Pages rendered before have none and are stamped from the WebP.
const COLUMNS = [
  ['stamp_base_key', 'text'],
  ['stamp_base_wrapped_key', 'text'],
  ['stamp_base_size', 'integer'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [column, type] of COLUMNS) await db.schema.alterTable('document_pages').addColumn(column, type).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [column] of COLUMNS.toReversed()) await db.schema.alterTable('document_pages').dropColumn(column).execute();
}
