import { sql, type RawBuilder, type Updateable } from 'kysely';
import { isPostgres, type Executor } from '../../db/executor.js';
import type { LinkRow, LinksTable, NewLink } from '../../db/types.js';

export type LinkTab = 'active' | 'expired';
export type LinkPatch = Updateable<LinksTable>;

/** Keeps the account's link counts (all, and filed under the expired tab) in step with an insert or a delete. */
async function countLinkChange(db: Executor, accountId: number, change: 1 | -1, inExpiredTab: boolean): Promise<void> {
  const expired = inExpiredTab ? change : 0;
  await db
    .insertInto('link_counts')
    .values({ account_id: accountId, links: change, expired })
    .onConflict((conflict) =>
      conflict.column('account_id').doUpdateSet((eb) => ({
        links: eb('link_counts.links', '+', change),
        expired: eb('link_counts.expired', '+', expired),
      })),
    )
    .execute();
}

/** Inserts the link and counts it: call it in a transaction, so the counts commit with the row. */
export async function insertLink(db: Executor, link: NewLink): Promise<void> {
  await db.insertInto('links').values(link).execute();
  await countLinkChange(db, link.account_id, 1, false);
}

const linkOf = (db: Executor, accountId: number, id: string) =>
  db.selectFrom('links').selectAll().where('id', '=', id).where('account_id', '=', accountId);

export function findLink(db: Executor, accountId: number, id: string) {
  return linkOf(db, accountId, id).executeTakeFirst();
}

/**
 * The link, held until the transaction ends, to be changed from what it is now: a change made at
 * the same time waits for this one and then reads its result (a row lock on PostgreSQL; SQLite's
 * transactions begin IMMEDIATE, so they hold its one write lock already).
 */
export function lockLink(db: Executor, accountId: number, id: string) {
  return linkOf(db, accountId, id)
    .$if(isPostgres(db), (query) => query.forNoKeyUpdate())
    .executeTakeFirst();
}

export function findLinksByIds(db: Executor, accountId: number, ids: readonly string[]) {
  return db.selectFrom('links').select(['id', 'kind']).where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

/**
 * The links among `ids`, kept from being deleted until the transaction ends (a key-share lock on
 * PostgreSQL): a room taking them as children locks them before anything else, in the order a
 * deletion does (the link, then the account's counts), so the two wait for each other instead of
 * deadlocking.
 */
export function holdLinksByIds(db: Executor, accountId: number, ids: readonly string[]) {
  return db
    .selectFrom('links')
    .select(['id', 'kind'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .$if(isPostgres(db), (query) => query.forKeyShare())
    .execute();
}

/** The tab's links, once `fileExpiredLinks` has run at `now` (the active tab is right without it). */
function inTab(db: Executor, accountId: number, tab: LinkTab, now: number) {
  const query = db.selectFrom('links').where('account_id', '=', accountId);
  return tab === 'active' ? query.where('in_expired_tab', '=', 0).where('expires_at', '>', now) : query.where('in_expired_tab', '=', 1);
}

/**
 * Links per tab, without counting them (ADR 0015): the kept total and the kept number filed
 * under the expired tab, plus the links whose expiry has passed since the account's last
 * filing (`unfiled`, counted exactly on links_unfiled_expiry_idx).
 */
export async function countLinks(db: Executor, accountId: number, now: number): Promise<Record<LinkTab | 'unfiled', number>> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('link_counts').select('links').where('account_id', '=', accountId).as('total'),
      eb.selectFrom('link_counts').select('expired').where('account_id', '=', accountId).as('filed'),
      eb
        .selectFrom('links')
        .select((inner) => inner.fn.countAll<number>().as('links'))
        .where('account_id', '=', accountId)
        .where('in_expired_tab', '=', 0)
        .where('expires_at', '<=', now)
        .as('unfiled'),
    ])
    .executeTakeFirstOrThrow();
  const unfiled = Number(row.unfiled ?? 0);
  const expired = Number(row.filed ?? 0) + unfiled;
  return { active: Number(row.total ?? 0) - expired, expired, unfiled };
}

/**
 * Files the account's links whose expiry has passed by `now` under the expired tab, and
 * counts them: call it in a transaction. On PostgreSQL a concurrent filing waits on the rows
 * and re-checks `in_expired_tab`, so each link is counted once.
 */
export async function fileExpiredLinks(db: Executor, accountId: number, now: number): Promise<number> {
  const filed = await db
    .updateTable('links')
    .set({ in_expired_tab: 1 })
    .where('account_id', '=', accountId)
    .where('in_expired_tab', '=', 0)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  const count = Number(filed.numUpdatedRows);
  if (count > 0) {
    await db
      .updateTable('link_counts')
      .set((eb) => ({ expired: eb('expired', '+', count) }))
      .where('account_id', '=', accountId)
      .execute();
  }
  return count;
}

/**
 * Gives the link a new expiry: out of the expired tab if it was filed there, and noticed
 * again when the new expiry passes. Call it in a transaction.
 */
export async function changeLinkExpiry(db: Executor, accountId: number, id: string, expiresAt: number): Promise<void> {
  const reopened = await db
    .updateTable('links')
    .set({ in_expired_tab: 0 })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('in_expired_tab', '=', 1)
    .executeTakeFirst();
  if (reopened.numUpdatedRows > 0n) {
    await db
      .updateTable('link_counts')
      .set((eb) => ({ expired: eb('expired', '-', 1) }))
      .where('account_id', '=', accountId)
      .execute();
  }
  await db
    .updateTable('links')
    .set({ expires_at: expiresAt, expiry_noticed_at: null })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
}

export type LinkSort = 'created' | 'name' | 'views' | 'lastViewed';
/** The orders the list offers, each read from its own index per tab (links_account_tab_*_idx); names whatever their case. */
const SORT_KEYS: Record<LinkSort, RawBuilder<string | number>> = {
  created: sql`${sql.ref('created_at')}`,
  name: sql`lower(${sql.ref('name')})`,
  views: sql`${sql.ref('views')}`,
  lastViewed: sql`${sql.ref('last_viewed_at')}`,
};
export type SortDirection = 'asc' | 'desc';
export interface LinkOrder {
  sort: LinkSort;
  direction: SortDirection;
}
export const NEWEST_FIRST: LinkOrder = { sort: 'created', direction: 'desc' };

/** Where a page of the list stopped, in any order: its last link's sort value and id. */
export interface SortPosition {
  value: string | number;
  id: string;
}

/** `lower(name) like %text%`, with the text's own % and _ taken literally: the same on SQLite and PostgreSQL. */
function nameContains(text: string) {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return sql<boolean>`lower(${sql.ref('name')}) like ${pattern} escape '\\'`;
}

/** The tab's links, or those whose name contains `search` (case-insensitive). */
function inTabMatching(db: Executor, accountId: number, tab: LinkTab, now: number, search: string | undefined) {
  return inTab(db, accountId, tab, now).$if(search !== undefined, (query) => query.where(nameContains(search!)));
}

/** How many of the tab's links have `search` in their name (the kept counts serve the unsearched list). */
export async function countMatchingLinks(db: Executor, accountId: number, tab: LinkTab, now: number, search: string): Promise<number> {
  const row = await inTabMatching(db, accountId, tab, now, search)
    .select((eb) => eb.fn.countAll<number>().as('links'))
    .executeTakeFirstOrThrow();
  return Number(row.links);
}

/**
 * A page of the tab in `order` (newest first unless told), ties broken by id in the same
 * direction: after `after` (keyset, on the sort key each row comes with), else past `offset` links. With `fromTheEnd` the same order
 * is read from its other end (deep pages), and given back in `order`. Ids come from the tab's
 * covering index for that order, then the rows by id.
 */
export async function listLinks(
  db: Executor,
  accountId: number,
  tab: LinkTab,
  now: number,
  page: { limit: number; offset?: number; after?: SortPosition; fromTheEnd?: boolean; order?: LinkOrder; search?: string },
) {
  const { after, offset = 0, order = NEWEST_FIRST } = page;
  const sortKey = SORT_KEYS[order.sort];
  const reversed = order.direction === 'asc' ? 'desc' : 'asc';
  const direction = page.fromTheEnd ? reversed : order.direction;
  const ids = await inTabMatching(db, accountId, tab, now, page.search)
    .select(['id', sortKey.as('sort_key')])
    .$if(after !== undefined, (query) =>
      query.where((eb) => eb(eb.tuple(sortKey, eb.ref('id')), order.direction === 'desc' ? '<' : '>', eb.tuple(after!.value, after!.id))),
    )
    .orderBy(sortKey, direction)
    .orderBy('id', direction)
    .limit(page.limit)
    .$if(offset > 0, (query) => query.offset(offset))
    .execute();
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('links')
    .selectAll()
    .where(
      'id',
      'in',
      ids.map((row) => row.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  // Each row with its sort key as the database computed it: where a cursor resumes.
  const ordered = ids.flatMap(({ id, sort_key: sortKey }) => {
    const row = byId.get(id);
    return row ? [{ ...row, sortKey: sortKey as string | number }] : [];
  });
  return page.fromTheEnd ? ordered.reverse() : ordered;
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
    .where('kind', '=', 'file')
    .where('version', '=', fromVersion)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The bytes of the account's stored files: each file link's current version, until its file is purged. */
export async function storedBytesOf(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('links')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size'), eb.val(0)).as('bytes'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'file')
    .where('blob_purged_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.bytes);
}

/**
 * Deletes up to `limit` of the account's links, for the account's own deletion: they are not
 * uncounted (`link_counts` goes with the account). Answers how many went, and the ids of the
 * file links among them, whose folders hold blobs (a room owns none).
 */
export async function deleteLinksOfAccount(db: Executor, accountId: number, limit: number): Promise<{ deleted: number; fileIds: string[] }> {
  const some = db.selectFrom('links').select('id').where('account_id', '=', accountId).limit(limit);
  const rows = await db.deleteFrom('links').where('id', 'in', some).returning(['id', 'kind']).execute();
  return { deleted: rows.length, fileIds: rows.filter((row) => row.kind === 'file').map((row) => row.id) };
}

/** Deletes the link and uncounts it (call it in a transaction, as `insertLink`); answers what it was, undefined when none. */
export async function deleteLink(db: Executor, accountId: number, id: string): Promise<Pick<LinkRow, 'kind' | 'name'> | undefined> {
  const deleted = await db
    .deleteFrom('links')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returning(['in_expired_tab', 'kind', 'name'])
    .executeTakeFirst();
  if (!deleted) return undefined;
  await countLinkChange(db, accountId, -1, deleted.in_expired_tab === 1);
  return { kind: deleted.kind, name: deleted.name };
}

export async function insertRoomLinks(db: Executor, roomId: string, linkIds: readonly string[]): Promise<void> {
  await db
    .insertInto('room_links')
    .values(linkIds.map((linkId, position) => ({ room_id: roomId, link_id: linkId, position })))
    .execute();
}

/** One file link whose blob is still stored, any account's (the doctor opens it to test the master key). */
export function findAnyStoredFile(db: Executor) {
  return db
    .selectFrom('links')
    .select(['id', 'blob_key', 'wrapped_key', 'size'])
    .where('kind', '=', 'file')
    .where('blob_key', 'is not', null)
    .where('wrapped_key', 'is not', null)
    .where('blob_purged_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
}

/** The blob keys that links among `ids` still point at: the file and the preview picture (any account's; by primary key, for the orphan sweep). */
export async function findStoredBlobKeys(db: Executor, ids: readonly string[]) {
  const rows = await db.selectFrom('links').select(['blob_key', 'blob_purged_at', 'preview_image_key']).where('id', 'in', ids).execute();
  return rows.flatMap((row) => [
    ...(row.blob_purged_at === null && row.blob_key !== null ? [row.blob_key] : []),
    ...(row.preview_image_key === null ? [] : [row.preview_image_key]),
  ]);
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

/**
 * Claims an expired link's file for deletion, before anything is deleted: false when it was
 * revived meanwhile (a new expiry, written under its row lock) or claimed by another replica.
 * A claimed link cannot be revived any more (`blob_purged_at` is read under that lock).
 */
export async function claimBlobPurge(db: Executor, id: string, expiredBefore: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('links')
    .set({ blob_purged_at: now })
    .where('id', '=', id)
    .where('blob_purged_at', 'is', null)
    .where('expires_at', '<', expiredBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives a claim back when deleting the file failed: the next sweep tries again. */
export async function releaseBlobPurge(db: Executor, id: string): Promise<void> {
  await db.updateTable('links').set({ blob_purged_at: null }).where('id', '=', id).execute();
}

/**
 * Marks up to `limit` links whose expiry has passed and was not noticed yet, and returns
 * them: each link is claimed once, by one replica (SKIP LOCKED on PostgreSQL, and the outer
 * WHERE re-checked on the winner's row version).
 */
export function claimNewlyExpiredLinks(db: Executor, now: number, limit: number) {
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
        .$if(isPostgres(db), (query) => query.forUpdate().skipLocked()),
    )
    .where('expiry_noticed_at', 'is', null)
    .returning(['id', 'account_id', 'name'])
    .execute();
}

/** A link by id alone: for visitors, who reach it by its unguessable id, not by account. */
export function findLinkById(db: Executor, id: string) {
  return db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The account's data rooms, newest first, with how many links each holds (on links_account_kind_created_idx). */
export function listRooms(db: Executor, accountId: number, page: { limit: number; offset: number }) {
  return db
    .selectFrom('links')
    .selectAll('links')
    .select((eb) =>
      eb
        .selectFrom('room_links')
        .select((inner) => inner.fn.countAll<number>().as('n'))
        .whereRef('room_links.room_id', '=', 'links.id')
        .as('child_count'),
    )
    .where('account_id', '=', accountId)
    .where('kind', '=', 'room')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countRooms(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('links')
    .select((eb) => eb.fn.countAll<number>().as('rooms'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'room')
    .executeTakeFirstOrThrow();
  return Number(row.rooms);
}

/** The room holds exactly `linkIds`, in that order: call it in a transaction. */
export async function replaceRoomLinks(db: Executor, roomId: string, linkIds: readonly string[]): Promise<void> {
  await db.deleteFrom('room_links').where('room_id', '=', roomId).execute();
  await insertRoomLinks(db, roomId, linkIds);
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

/** Counts one view at `now` unless the link's cap is reached, in one statement: racing visitors cannot overshoot. */
export async function countViewUnderCap(db: Executor, linkId: string, now: number): Promise<boolean> {
  const row = await db
    .updateTable('links')
    .set((eb) => ({ views: eb('views', '+', 1), last_viewed_at: now }))
    .where('id', '=', linkId)
    .where((eb) => eb.or([eb('max_views', '=', 0), eb('views', '<', eb.ref('max_views'))]))
    .returning('views')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countBlockedAttempt(db: Executor, linkId: string): Promise<void> {
  await db
    .updateTable('links')
    .set((eb) => ({ blocked_attempts: eb('blocked_attempts', '+', 1) }))
    .where('id', '=', linkId)
    .execute();
}
