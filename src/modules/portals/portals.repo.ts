import type { Insertable, Updateable } from 'kysely';
import { isUniqueViolation, type Executor } from '../../db/executor.js';
import type { PortalSessionsTable, PortalsTable } from '../../db/types.js';

export function listPortals(db: Executor, accountId: number) {
  return db.selectFrom('portals').select(['id', 'name', 'slug']).where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}

export function findPortal(db: Executor, accountId: number, id: string) {
  return db.selectFrom('portals').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** A portal by its public slug alone: for clients, who know only its address. */
export function findPortalBySlug(db: Executor, slug: string) {
  return db.selectFrom('portals').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** False when the slug is taken (by any account). */
export async function insertPortal(db: Executor, portal: Insertable<PortalsTable>): Promise<boolean> {
  try {
    await db.insertInto('portals').values(portal).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export async function updatePortal(
  db: Executor,
  accountId: number,
  id: string,
  patch: Updateable<PortalsTable>,
): Promise<'updated' | 'not-found' | 'slug-taken'> {
  try {
    const result = await db.updateTable('portals').set(patch).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return result.numUpdatedRows > 0n ? 'updated' : 'not-found';
  } catch (error) {
    if (isUniqueViolation(error)) return 'slug-taken';
    throw error;
  }
}

export async function deletePortal(db: Executor, accountId: number, id: string): Promise<boolean> {
  const result = await db.deleteFrom('portals').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Assigns links; one already assigned stays as it was. */
export async function insertPortalLinks(db: Executor, portalId: string, linkIds: readonly string[], now: number): Promise<void> {
  await db
    .insertInto('portal_links')
    .values(linkIds.map((linkId) => ({ portal_id: portalId, link_id: linkId, created_at: now })))
    .onConflict((conflict) => conflict.columns(['portal_id', 'link_id']).doNothing())
    .execute();
}

export async function deletePortalLink(db: Executor, portalId: string, linkId: string): Promise<boolean> {
  const result = await db.deleteFrom('portal_links').where('portal_id', '=', portalId).where('link_id', '=', linkId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The portal's links, in the order they were assigned. */
export function listPortalLinks(db: Executor, portalId: string) {
  return db
    .selectFrom('portal_links')
    .innerJoin('links', 'links.id', 'portal_links.link_id')
    .selectAll('links')
    .where('portal_links.portal_id', '=', portalId)
    .orderBy('portal_links.created_at')
    .orderBy('links.name')
    .execute();
}

export async function insertPortalSession(db: Executor, session: Insertable<PortalSessionsTable>): Promise<void> {
  await db.insertInto('portal_sessions').values(session).execute();
}

export function findLivePortalSession(db: Executor, tokenHash: string, portalId: string, now: number) {
  return db
    .selectFrom('portal_sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('portal_id', '=', portalId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function updatePortalSession(db: Executor, id: number, patch: Updateable<PortalSessionsTable>): Promise<void> {
  await db.updateTable('portal_sessions').set(patch).where('id', '=', id).execute();
}

export async function deletePortalSession(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('portal_sessions').where('id', '=', id).execute();
}

/** Deletes up to `limit` portal sessions that expired before `before`. */
export async function deleteExpiredPortalSessions(db: Executor, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('portal_sessions')
    .where('id', 'in', (eb) => eb.selectFrom('portal_sessions').select('id').where('expires_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
