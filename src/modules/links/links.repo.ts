import { PostgresAdapter, type Updateable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { LinksTable, NewLink } from '../../db/types.js';

export type LinkTab = 'active' | 'expired';
export type LinkPatch = Updateable<LinksTable>;

export async function insertLink(db: Executor, link: NewLink): Promise<void> {
  await db.insertInto('links').values(link).execute();
}

export function findLink(db: Executor, accountId: number, id: string) {
  return db.selectFrom('links').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function findLinksByIds(db: Executor, accountId: number, ids: readonly string[]) {
  return db.selectFrom('links').select(['id', 'kind']).where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

function inTab(db: Executor, accountId: number, tab: LinkTab, now: number) {
  return db
    .selectFrom('links')
    .where('account_id', '=', accountId)
    .where('expires_at', tab === 'active' ? '>' : '<=', now);
}

export async function countLinks(db: Executor, accountId: number, tab: LinkTab, now: number): Promise<number> {
  const row = await inTab(db, accountId, tab, now)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Newest first. Ids are paged on the covering index first, so deep pages skip index entries only. */
export async function listLinks(db: Executor, accountId: number, tab: LinkTab, now: number, limit: number, offset: number) {
  const page = await inTab(db, accountId, tab, now)
    .select('id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  if (page.length === 0) return [];
  const rows = await db
    .selectFrom('links')
    .selectAll()
    .where(
      'id',
      'in',
      page.map((row) => row.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return page.flatMap((row) => byId.get(row.id) ?? []);
}

export async function updateLink(db: Executor, accountId: number, id: string, patch: LinkPatch): Promise<boolean> {
  const result = await db.updateTable('links').set(patch).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Points the link at a new file version, only if it still is at `fromVersion` (two
 * concurrent replacements cannot both win). Returns whether it did.
 */
export async function replaceLinkFile(db: Executor, accountId: number, id: string, fromVersion: number, patch: LinkPatch): Promise<boolean> {
  const result = await db
    .updateTable('links')
    .set({ ...patch, version: fromVersion + 1 })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('version', '=', fromVersion)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteLink(db: Executor, accountId: number, id: string): Promise<boolean> {
  const result = await db.deleteFrom('links').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertRoomLinks(db: Executor, roomId: string, linkIds: readonly string[]): Promise<void> {
  await db
    .insertInto('room_links')
    .values(linkIds.map((linkId, position) => ({ room_id: roomId, link_id: linkId, position })))
    .execute();
}

/** Links whose expiry is older than `before` and whose blob is still stored. */
export function findExpiredWithBlobs(db: Executor, before: number, limit: number) {
  return db
    .selectFrom('links')
    .select(['id', 'account_id'])
    .where('expires_at', '<', before)
    .where('blob_purged_at', 'is', null)
    .where('kind', '=', 'file')
    .limit(limit)
    .execute();
}

export async function markBlobPurged(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('links').set({ blob_purged_at: now }).where('id', '=', id).execute();
}

/**
 * Marks up to `limit` links whose expiry has passed and was not noticed yet, and returns
 * them: each link is claimed once, by one replica (SKIP LOCKED on PostgreSQL, and the outer
 * WHERE re-checked on the winner's row version).
 */
export function claimNewlyExpiredLinks(db: Executor, now: number, limit: number) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db
    .updateTable('links')
    .set({ expiry_noticed_at: now })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('links')
        .select('id')
        .where('expires_at', '<=', now)
        .where('expiry_noticed_at', 'is', null)
        .limit(limit)
        .$if(postgres, (query) => query.forUpdate().skipLocked()),
    )
    .where('expiry_noticed_at', 'is', null)
    .returning(['id', 'account_id', 'name'])
    .execute();
}

/** A link by id alone: for visitors, who reach it by its unguessable id, not by account. */
export function findLinkById(db: Executor, id: string) {
  return db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listRoomChildren(db: Executor, roomId: string) {
  return db
    .selectFrom('room_links')
    .innerJoin('links', 'links.id', 'room_links.link_id')
    .selectAll('links')
    .where('room_links.room_id', '=', roomId)
    .orderBy('room_links.position')
    .execute();
}

/** Counts one view unless the link's cap is reached, in one statement: racing visitors cannot overshoot. */
export async function countViewUnderCap(db: Executor, linkId: string): Promise<boolean> {
  const row = await db
    .updateTable('links')
    .set((eb) => ({ views: eb('views', '+', 1) }))
    .where('id', '=', linkId)
    .where((eb) => eb.or([eb('max_views', '=', 0), eb('views', '<', eb.ref('max_views'))]))
    .returning('views')
    .executeTakeFirst();
  return row !== undefined;
}
