import type { Updateable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { VisitsTable } from '../../db/types.js';

export async function insertVisit(
  db: Executor,
  visit: {
    tokenHash: string;
    linkId: string;
    /** the data room the visit begins in, if any */
    roomId: string | null;
    ip: string;
    userAgent: string | null;
    now: number;
    expiresAt: number;
    email?: string | null;
    otpPassed?: boolean;
    portalSessionHash?: string;
  },
): Promise<void> {
  await db
    .insertInto('visits')
    .values({
      token_hash: visit.tokenHash,
      link_id: visit.linkId,
      room_id: visit.roomId,
      ip: visit.ip,
      user_agent: visit.userAgent,
      created_at: visit.now,
      expires_at: visit.expiresAt,
      email: visit.email ?? null,
      portal_session_hash: visit.portalSessionHash ?? null,
      otp_passed: visit.otpPassed ? 1 : 0,
    })
    .execute();
}

/** The visits of `linkId` the token stands for, begun in data room `roomId` (null: the link on its own). */
const visitsOfToken = (db: Executor, tokenHash: string, linkId: string, roomId: string | null) =>
  db
    .selectFrom('visits')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('link_id', '=', linkId)
    .where('room_id', roomId === null ? 'is' : '=', roomId);

/** The live visit of `linkId` the token stands for, begun in data room `roomId` (null: the link on its own). */
export function findLiveVisit(db: Executor, tokenHash: string, linkId: string, roomId: string | null, now: number) {
  return visitsOfToken(db, tokenHash, linkId, roomId).where('expires_at', '>', now).executeTakeFirst();
}

/** The token's latest visit whose view session of the link has ended, for the reading time reported after its end. */
export function findEndedSession(db: Executor, tokenHash: string, linkId: string, roomId: string | null, now: number) {
  return visitsOfToken(db, tokenHash, linkId, roomId)
    .where('session_started_at', 'is not', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at', 'desc')
    .executeTakeFirst();
}

/** The live visit of a link that a client portal session began, outside any data room. */
export function findPortalVisit(db: Executor, linkId: string, portalSessionHash: string, now: number) {
  return db
    .selectFrom('visits')
    .selectAll()
    .where('link_id', '=', linkId)
    .where('portal_session_hash', '=', portalSessionHash)
    .where('room_id', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function updateVisit(db: Executor, id: number, patch: Updateable<VisitsTable>): Promise<void> {
  await db.updateTable('visits').set(patch).where('id', '=', id).execute();
}

export async function insertOtpCode(db: Executor, code: { scope: string; email: string; codeHash: string; now: number; expiresAt: number }) {
  await db
    .insertInto('otp_codes')
    .values({ scope: code.scope, email: code.email, code_hash: code.codeHash, created_at: code.now, expires_at: code.expiresAt })
    .execute();
}

export function findLatestOtpCode(db: Executor, scope: string, email: string, now: number) {
  return db
    .selectFrom('otp_codes')
    .selectAll()
    .where('scope', '=', scope)
    .where('email', '=', email)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Takes one of the code's tries before it is compared; the tries taken so far, or undefined when
 * none is left (or the code was spent or has expired). One guarded UPDATE: requests sent at once
 * cannot all be compared against the code on the strength of one read of its count.
 */
export async function takeOtpTry(db: Executor, id: number, maxTries: number, now: number): Promise<number | undefined> {
  const row = await db
    .updateTable('otp_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxTries)
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

/** Spends the code once: false if another request already did. */
export async function consumeOtpCode(db: Executor, id: number, now: number): Promise<boolean> {
  const result = await db.updateTable('otp_codes').set({ consumed_at: now }).where('id', '=', id).where('consumed_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Adds `seconds` to the visit's reported reading time if the sum stays within `budget`; false, adding
 * nothing, if it would not. One guarded UPDATE, so beacons sent at once cannot both take the last of it.
 */
export async function addReportedSeconds(db: Executor, visitId: number, seconds: number, budget: number): Promise<boolean> {
  const result = await db
    .updateTable('visits')
    .set((eb) => ({ reported_seconds: eb('reported_seconds', '+', seconds) }))
    .where('id', '=', visitId)
    .where((eb) => eb(eb('reported_seconds', '+', seconds), '<=', budget))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Opens the visit's view session, once: false when another request opened it first (a visitor's
 * requests sent at once), so that only one of them counts the view.
 */
export async function startSession(
  db: Executor,
  visitId: number,
  session: { startedAt: number; expiresAt: number; viewId: string },
): Promise<boolean> {
  const result = await db
    .updateTable('visits')
    .set({ session_started_at: session.startedAt, expires_at: session.expiresAt, view_id: session.viewId })
    .where('id', '=', visitId)
    .where('session_started_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertPageView(db: Executor, view: { visitId: number; page: number; seconds: number; now: number }) {
  await db.insertInto('page_views').values({ visit_id: view.visitId, page: view.page, seconds: view.seconds, created_at: view.now }).execute();
}

/** Deletes up to `limit` page reads reported before `before`; answers how many went. */
export async function deletePageViewsBefore(db: Executor, before: number, limit: number): Promise<number> {
  const ids = db.selectFrom('page_views').select('id').where('created_at', '<', before).limit(limit);
  const result = await db.deleteFrom('page_views').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes up to `limit` visits whose gate window closed before `before` without a view
 * session. Visits that reached a session are the link's analytics and stay.
 */
export async function deleteLapsedVisits(db: Executor, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('visits')
    .where('id', 'in', (eb) =>
      eb.selectFrom('visits').select('id').where('session_started_at', 'is', null).where('expires_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes up to `limit` one-time codes that expired before `before`. */
export async function deleteExpiredOtpCodes(db: Executor, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('otp_codes')
    .where('id', 'in', (eb) => eb.selectFrom('otp_codes').select('id').where('expires_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
