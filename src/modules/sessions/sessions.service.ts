import { createHmac } from 'node:crypto';
import type { Identity } from '../../core/auth.js';
import { notFound, unauthorized } from '../../core/errors.js';
import { createPrincipalCache } from '../../core/principal-cache.js';
import { isRole } from '../../core/permissions.js';
import { scheduledJob } from '../../core/periodic-job.js';
import { isoTime } from '../../core/timestamps.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { Precompile } from '../../db/precompiled.js';
import { derivedKey, randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import {
  deleteLapsedSessions,
  deleteSessionByHash,
  deleteSessions,
  deleteSessionsOfMembership,
  insertSession,
  listSessionsOf,
  sessionLookup,
  takeSession,
  touchSession,
} from './sessions.repo.js';

const SESSION_ID = /^[0-9A-Za-z]{43}$/;
const DAY_MS = 86_400_000;
/** last_seen_at is written at most this often per session: the idle timeout counts in days. */
const TOUCH_EVERY_MS = 60_000;

export interface Client {
  ip: string;
  userAgent: string;
}

export interface StartedSession {
  /** the cookie's value; shown to no one else and never stored */
  sessionId: string;
  maxAgeSeconds: number;
}

/**
 * Server-side sessions of people signed in to the dashboard and the API. The cookie holds a
 * random id; the row is found by its SHA-256, so a copy of the database signs no one in. The
 * CSRF token is an HMAC of that hash under a key derived from the master key: stable for the
 * session, never stored, and useless without the cookie.
 */
export function createSessionsService(deps: {
  db: Db;
  precompile: Precompile;
  clock: Clock;
  masterKey: Buffer;
  idleDays: number;
  absoluteDays: number;
  log: { warn(obj: object, msg: string): void };
}) {
  const { db, clock, idleDays, absoluteDays } = deps;
  const idleMs = idleDays * DAY_MS;
  const absoluteMs = absoluteDays * DAY_MS;
  const csrfKey = derivedKey(deps.masterKey, 'linkvault session csrf tokens');
  const csrfTokenOf = (idHash: string) => createHmac('sha256', csrfKey).update(idHash).digest('base64url');
  const lookup = sessionLookup(db, deps.precompile);

  // Resolved sessions for a second, as API keys are: a burst of requests reads the database once.
  const cache = createPrincipalCache(clock);

  /** A new session; `signedIn` carries over a rotated session's sign-in, so that moving it renews neither its age nor its end. */
  async function start(
    userId: number,
    accountId: number,
    client: Client,
    executor: Executor = db,
    signedIn?: { at: number; endsAt: number },
  ): Promise<StartedSession> {
    const sessionId = randomBase62(43);
    const now = clock();
    const expiresAt = signedIn?.endsAt ?? now + absoluteMs;
    await insertSession(executor, {
      idHash: sha256Hex(sessionId),
      publicId: randomBase62(16),
      userId,
      accountId,
      signedInAt: signedIn?.at ?? now,
      now,
      expiresAt,
      ip: client.ip,
      userAgent: client.userAgent.slice(0, 300),
    });
    return { sessionId, maxAgeSeconds: Math.max(0, Math.floor((expiresAt - now) / 1000)) };
  }

  const sweeper = scheduledJob(
    () => deleteLapsedSessions(db, clock() - idleMs, clock()),
    3_600_000,
    (err) => deps.log.warn({ err }, 'could not delete lapsed sessions'),
  );

  return {
    start,

    async authenticate(sessionId: string): Promise<Identity | null> {
      if (!SESSION_ID.test(sessionId)) return null;
      const idHash = sha256Hex(sessionId);
      const now = clock();
      const cached = cache.get(idHash);
      if (cached) return cached;
      const readBegan = cache.readBegins();
      const [row] = await lookup(idHash);
      if (!row || row.expires_at <= now || row.last_seen_at <= now - idleMs || !isRole(row.role)) return null;
      if (now - row.last_seen_at > TOUCH_EVERY_MS) await touchSession(db, idHash, now);
      const identity: Identity = {
        accountId: row.account_id,
        plan: row.plan,
        role: row.role,
        via: 'session',
        actor: { type: 'user', id: row.user_id, label: row.email },
        twoFactor: row.totp_confirmed_at !== null,
        session: { publicId: row.public_id, csrfToken: csrfTokenOf(idHash), signedInAt: row.created_at },
      };
      cache.set(idHash, identity, readBegan);
      return identity;
    },

    /**
     * Ends this session and starts another for the same person (a new id at any change of rights),
     * signed in when the old one was and ending when it would have: switching accounts does not
     * keep a session alive past its absolute end, nor make its sign-in recent.
     */
    async rotate(sessionId: string, userId: number, accountId: number, client: Client, executor: Executor = db): Promise<StartedSession> {
      const idHash = sha256Hex(sessionId);
      const ended = await takeSession(executor, userId, idHash);
      cache.forget([idHash]);
      if (!ended || ended.expires_at <= clock()) throw unauthorized('Your session has ended: sign in again');
      return start(userId, accountId, client, executor, { at: ended.created_at, endsAt: ended.expires_at });
    },

    /** Signing out: the session of this cookie, whoever it belongs to. */
    async end(sessionId: string): Promise<void> {
      if (!SESSION_ID.test(sessionId)) return;
      const idHash = sha256Hex(sessionId);
      await deleteSessionByHash(db, idHash);
      cache.forget([idHash]);
    },

    async list(userId: number, currentPublicId: string | undefined) {
      const now = clock();
      const rows = await listSessionsOf(db, userId, now - idleMs, now);
      return rows.map((row) => ({
        id: row.public_id,
        accountId: row.account_id,
        current: row.public_id === currentPublicId,
        createdAt: isoTime(row.created_at),
        lastSeenAt: isoTime(row.last_seen_at),
        expiresAt: isoTime(Math.min(row.expires_at, row.last_seen_at + idleMs)),
        ip: row.ip,
        userAgent: row.user_agent,
      }));
    },

    async revoke(userId: number, publicId: string): Promise<void> {
      const ended = await deleteSessions(db, { userId, publicId });
      if (ended.length === 0) throw notFound(`Session ${publicId}`);
      cache.forget(ended);
    },

    /**
     * Every session of the person (password changed, disabled), but the one given. Inside a
     * transaction, `forgetUser` once it has committed: a request read meanwhile saw them still there.
     */
    async endAllOf(userId: number, executor: Executor = db, exceptSessionId?: string): Promise<void> {
      cache.forget(await deleteSessions(executor, { userId, exceptHash: exceptSessionId === undefined ? undefined : sha256Hex(exceptSessionId) }));
    },

    /** The person's sessions in one account (removed from it); inside a transaction, `forgetUser` after it as above. */
    async endIn(userId: number, accountId: number, executor: Executor = db): Promise<void> {
      cache.forget(await deleteSessionsOfMembership(executor, userId, accountId));
    },

    /** Drops what this process remembers of the person's sessions (their role changed). */
    forgetUser(userId: number): void {
      cache.forgetWhere((identity) => identity.actor.id === userId);
    },

    startSweeper: () => sweeper.start(),
    stopSweeper: () => sweeper.stop(),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
