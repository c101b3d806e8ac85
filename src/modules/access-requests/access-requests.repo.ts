import type { Executor } from '../../db/executor.js';
import type { AccessRequestStatus } from '../../db/types.js';

export interface NewAccessRequest {
  linkId: string;
  email: string;
  /** a one-time code proved `email` */
  emailVerified: boolean;
  visitorIp: string;
  now: number;
}

export async function insertAccessRequest(db: Executor, request: NewAccessRequest): Promise<number> {
  const row = await db
    .insertInto('access_requests')
    .values({
      link_id: request.linkId,
      email: request.email,
      email_verified: Number(request.emailVerified),
      visitor_ip: request.visitorIp,
      status: 'pending',
      created_at: request.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function findAccessRequest(db: Executor, id: number) {
  return db.selectFrom('access_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listAccessRequests(db: Executor, linkId: string) {
  return db.selectFrom('access_requests').selectAll().where('link_id', '=', linkId).orderBy('id', 'desc').execute();
}

/** Decides a request of this link; false when the link has no such request. */
/** Sets the decision unless it is the request's already; false when nothing changed. */
export async function decideAccessRequest(db: Executor, linkId: string, id: number, status: AccessRequestStatus, now: number): Promise<boolean> {
  const result = await db
    .updateTable('access_requests')
    .set({ status, decided_at: now })
    .where('id', '=', id)
    .where('link_id', '=', linkId)
    .where('status', '!=', status)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countPendingRequests(db: Executor, accountId: number, now: number): Promise<number> {
  const row = await db
    .selectFrom('access_requests')
    .innerJoin('links', 'links.id', 'access_requests.link_id')
    .where('links.account_id', '=', accountId)
    .where('access_requests.status', '=', 'pending')
    .where('links.requires_approval', '=', 1)
    .where('links.expires_at', '>', now)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The account's requests waiting for an answer, newest first, with the name of the link each asks for. */
export function listPendingRequests(db: Executor, accountId: number, now: number, limit: number) {
  return db
    .selectFrom('access_requests')
    .innerJoin('links', 'links.id', 'access_requests.link_id')
    .where('links.account_id', '=', accountId)
    .where('access_requests.status', '=', 'pending')
    .where('links.requires_approval', '=', 1)
    .where('links.expires_at', '>', now)
    .select([
      'access_requests.id',
      'access_requests.link_id',
      'links.name as link_name',
      'access_requests.email',
      'access_requests.email_verified',
      'access_requests.visitor_ip',
      'access_requests.created_at',
    ])
    .orderBy('access_requests.id', 'desc')
    .limit(limit)
    .execute();
}
