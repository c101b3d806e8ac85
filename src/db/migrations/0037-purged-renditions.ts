import { sql, type Kysely } from 'kysely';

// Before this version, purging an expired link's file left its renditions (converted PDF, page
// images, thumbnails, stamp bases) behind for good. Their rows go here; with no row naming them,
// the orphan sweep deletes their blobs within the hour.
export async function up(db: Kysely<unknown>): Promise<void> {
  const ofPurgedLinks = sql`select documents.id from documents join links on links.id = documents.link_id where links.blob_purged_at is not null`;
  await sql`delete from document_pages where document_id in (${ofPurgedLinks})`.execute(db);
  await sql`delete from documents where id in (${ofPurgedLinks})`.execute(db);
}

// What was deleted is not made again: a purged link has no file to draw pages from.
export async function down(): Promise<void> {}
