import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { DocumentPagesTable, DocumentsTable } from '../../db/types.js';

export type DocumentRow = Selectable<DocumentsTable>;
export type PageRow = Selectable<DocumentPagesTable>;
export type DocumentPatch = Partial<Pick<DocumentsTable, 'status' | 'page_count' | 'error' | 'pdf_blob_key' | 'pdf_wrapped_key' | 'pdf_size'>>;

/** The document of one version of a link, made once: a second call finds the first one's row. */
export async function insertDocument(
  db: Executor,
  document: { accountId: number; linkId: string; version: number; now: number },
): Promise<{ id: number; created: boolean }> {
  const inserted = await db
    .insertInto('documents')
    .values({
      account_id: document.accountId,
      link_id: document.linkId,
      version: document.version,
      status: 'processing',
      created_at: document.now,
      updated_at: document.now,
    })
    .onConflict((conflict) => conflict.columns(['link_id', 'version']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, created: true };
  const existing = await db
    .selectFrom('documents')
    .select('id')
    .where('link_id', '=', document.linkId)
    .where('version', '=', document.version)
    .executeTakeFirstOrThrow();
  return { id: existing.id, created: false };
}

export function findDocument(db: Executor, id: number) {
  return db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The link's documents, newest version first. */
export function findDocumentsOfLink(db: Executor, linkId: string) {
  return db.selectFrom('documents').selectAll().where('link_id', '=', linkId).orderBy('version', 'desc').execute();
}

/** The status of every document of `linkIds` (a page of the link list), to be matched to their current versions. */
export async function findStatusesOfLinks(db: Executor, linkIds: readonly string[]) {
  if (linkIds.length === 0) return [];
  return db.selectFrom('documents').select(['id', 'link_id', 'version', 'status', 'page_count', 'error']).where('link_id', 'in', linkIds).execute();
}

/** How many pages of each of `documentIds` are drawn so far (documents without any are absent). */
export async function countRenderedPages(db: Executor, documentIds: readonly number[]): Promise<Map<number, number>> {
  if (documentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('document_pages')
    .select(['document_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('document_id', 'in', documentIds)
    .groupBy('document_id')
    .execute();
  return new Map(rows.map((row) => [row.document_id, Number(row.count)]));
}

export async function updateDocument(db: Executor, id: number, patch: DocumentPatch, now: number): Promise<void> {
  await db
    .updateTable('documents')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** A page rendered twice (a retried job, an on-demand render racing the job) keeps the first. */
export async function insertPage(db: Executor, page: PageRow): Promise<boolean> {
  const inserted = await db
    .insertInto('document_pages')
    .values(page)
    .onConflict((conflict) => conflict.columns(['document_id', 'page']).doNothing())
    .returning('page')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findPage(db: Executor, documentId: number, page: number) {
  return db.selectFrom('document_pages').selectAll().where('document_id', '=', documentId).where('page', '=', page).executeTakeFirst();
}

export async function hasPage(db: Executor, documentId: number, page: number): Promise<boolean> {
  const row = await db.selectFrom('document_pages').select('page').where('document_id', '=', documentId).where('page', '=', page).executeTakeFirst();
  return row !== undefined;
}

/** The bytes a document's page images (pages, thumbnails, stamp bases) take so far. */
export async function renditionBytes(db: Executor, documentId: number): Promise<number> {
  const row = await db
    .selectFrom('document_pages')
    .select((eb) =>
      eb.fn.sum<number | string | null>(eb('image_size', '+', eb('thumbnail_size', '+', eb.fn.coalesce('stamp_base_size', eb.lit(0))))).as('bytes'),
    )
    .where('document_id', '=', documentId)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** Pages 1..`upTo` that exist, in order, without their keys. */
export function listPages(db: Executor, documentId: number, upTo: number) {
  return db
    .selectFrom('document_pages')
    .select(['page', 'width', 'height', 'text'])
    .where('document_id', '=', documentId)
    .where('page', '<=', upTo)
    .orderBy('page')
    .execute();
}

export async function renderedPageNumbers(db: Executor, documentId: number): Promise<Set<number>> {
  const rows = await db.selectFrom('document_pages').select('page').where('document_id', '=', documentId).execute();
  return new Set(rows.map((row) => row.page));
}

/** Every blob key the documents of `ids` hold (their converted PDFs, page images, thumbnails and stamp bases). */
export async function findBlobKeysOfDocuments(db: Executor, ids: readonly number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const [documents, pages] = await Promise.all([
    db.selectFrom('documents').select('pdf_blob_key').where('id', 'in', ids).where('pdf_blob_key', 'is not', null).execute(),
    db.selectFrom('document_pages').select(['image_key', 'thumbnail_key', 'stamp_base_key']).where('document_id', 'in', ids).execute(),
  ]);
  return [
    ...documents.map((row) => row.pdf_blob_key!),
    ...pages.flatMap((row) => [row.image_key, row.thumbnail_key, ...(row.stamp_base_key === null ? [] : [row.stamp_base_key])]),
  ];
}

export async function findDocumentIdsOfLinks(db: Executor, linkIds: readonly string[]): Promise<number[]> {
  if (linkIds.length === 0) return [];
  const rows = await db.selectFrom('documents').select('id').where('link_id', 'in', linkIds).execute();
  return rows.map((row) => row.id);
}

/** Deletes the documents of `ids` (their pages go with them). */
export async function deleteDocuments(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('document_pages').where('document_id', 'in', ids).execute();
  await db.deleteFrom('documents').where('id', 'in', ids).execute();
}
