import type { Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Precompile } from '../../db/precompiled.js';
import type { Database } from '../../db/types.js';

export interface LiveSession {
  public_id: string;
  user_id: number;
  /** when the person signed in: kept when the session moves to another account */
  created_at: number;
  account_id: number;
  last_seen_at: number;
  email: string;
  totp_confirmed_at: number | null;
  role: string;
  plan: string;
}

/**
 * The session with this hash, its person and their role in its account: compiled once, run per
 * request. A disabled person or a membership that has ended finds nothing; expiry is the caller's.
 */
export function sessionLookup(db: Kysely<Database>, precompile: Precompile) {
  return precompile<LiveSession & { expires_at: number }, [idHash: string]>(1, (idHash) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .innerJoin('memberships', (join) =>
        join.onRef('memberships.user_id', '=', 'sessions.user_id').onRef('memberships.account_id', '=', 'sessions.account_id'),
      )
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .select([
        'sessions.public_id',
        'sessions.user_id',
        'sessions.account_id',
        'sessions.created_at',
        'sessions.last_seen_at',
        'sessions.expires_at',
        'users.email',
        'users.totp_confirmed_at',
        'memberships.role',
        'accounts.plan',
      ])
      .where('sessions.id_hash', '=', idHash)
      .where('users.disabled_at', 'is', null),
  );
}

export function insertSession(
  db: Executor,
  session: {
    idHash: string;
    publicId: string;
    userId: number;
    accountId: number;
    signedInAt: number;
    now: number;
    expiresAt: number;
    ip: string;
    userAgent: string;
  },
) {
  return db
    .insertInto('sessions')
    .values({
      id_hash: session.idHash,
      public_id: session.publicId,
      user_id: session.userId,
      account_id: session.accountId,
      created_at: session.signedInAt,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
      ip: session.ip,
      user_agent: session.userAgent,
    })
    .execute();
}

export async function deleteSessionByHash(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

export async function touchSession(db: Executor, idHash: string, at: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
}

export function listSessionsOf(db: Executor, userId: number, liveAfter: number, now: number) {
  return db
    .selectFrom('sessions')
    .select(['id_hash', 'public_id', 'account_id', 'created_at', 'last_seen_at', 'expires_at', 'ip', 'user_agent'])
    .where('user_id', '=', userId)
    .where('last_seen_at', '>', liveAfter)
    .where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc')
    .execute();
}

/** Ends the person's session of this hash and answers when it was signed in and when it would have ended. */
export function takeSession(db: Executor, userId: number, idHash: string) {
  return db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('id_hash', '=', idHash)
    .returning(['created_at', 'expires_at'])
    .executeTakeFirst();
}

/** Deletes the person's sessions and answers the hashes that ended (to forget them in caches). */
export async function deleteSessions(db: Executor, where: { userId: number; publicId?: string; idHash?: string; exceptHash?: string }) {
  let query = db.deleteFrom('sessions').where('user_id', '=', where.userId);
  if (where.publicId !== undefined) query = query.where('public_id', '=', where.publicId);
  if (where.idHash !== undefined) query = query.where('id_hash', '=', where.idHash);
  if (where.exceptHash !== undefined) query = query.where('id_hash', '!=', where.exceptHash);
  const rows = await query.returning('id_hash').execute();
  return rows.map((row) => row.id_hash);
}

export async function deleteSessionsOfMembership(db: Executor, userId: number, accountId: number) {
  const rows = await db.deleteFrom('sessions').where('user_id', '=', userId).where('account_id', '=', accountId).returning('id_hash').execute();
  return rows.map((row) => row.id_hash);
}

export async function deleteLapsedSessions(db: Executor, idleBefore: number, now: number): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('expires_at', '<', now)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
