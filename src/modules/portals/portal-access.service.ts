import type { Selectable } from 'kysely';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { PortalSessionsTable, PortalsTable } from '../../db/types.js';
import { badRequest, notFound, unprocessable } from '../../core/errors.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import { isEmail } from '../../core/email-address.js';
import { isListedForVisitors } from '../links/links.service.js';
import type { OtpService } from '../visits/otp.service.js';
import type { Visitor } from '../visits/visitor.js';
import type { VisitsService } from '../visits/visits.service.js';
import type { BlockListService } from '../block-list/block-list.service.js';
import {
  deleteExpiredPortalSessions,
  deletePortalSession,
  findLivePortalSession,
  findPortalBySlug,
  insertPortalSession,
  listPortalLinks,
  updatePortalSession,
} from './portals.repo.js';
import { portalAllowedEmails } from './portals.service.js';

export const PORTAL_SESSION_TTL_MS = 12 * 3_600_000;
/** Time to fetch a code and type it in (a code lives 10 minutes; new ones may be asked for). */
const SIGN_IN_WINDOW_MS = 3_600_000;

export type PortalRow = Selectable<PortalsTable>;
type PortalSessionRow = Selectable<PortalSessionsTable>;

/** Where a client stands on a portal. */
export type PortalStep = { step: 'email' } | { step: 'code'; email: string } | { step: 'signed-in'; email: string };

/** A portal's page: the portal, where the client stands, and the links a signed-in client sees (none before). */
export interface PortalPage {
  portal: { name: string; slug: string; accountId: number };
  state: PortalStep;
  links: Array<{ id: string; name: string; mime: string }>;
}

/** The client as a request shows it: the portal cookie's token, and the account whose custom domain it came in on. */
export interface PortalClient {
  token: string | undefined;
  /** the client's address, for the per-client limit on codes */
  ip: string;
  /** Set on an account's custom domain: only that account's portals exist there. */
  hostAccountId?: number;
}

export interface PortalCodeNotifier {
  /** Queues the mail on `executor`, the transaction that stores the code. */
  portalCode(portal: PortalRow, email: string, code: string, executor: Executor): Promise<void>;
}

/** What the portal's session cookie carries, and until when. */
export interface PortalCookie {
  token: string;
  expiresAt: number;
}

const NOT_ALLOWED = 'This e-mail address is not allowed into this portal';

function stepOf(portal: PortalRow, session: PortalSessionRow | undefined): PortalStep {
  // Checked on every request: an address the owner removes loses its sessions at once.
  const allowed = portalAllowedEmails(portal);
  if (session?.verified_at && session.email && allowed.includes(session.email)) return { step: 'signed-in', email: session.email };
  if (session?.otp_email && !session.verified_at && allowed.includes(session.otp_email)) return { step: 'code', email: session.otp_email };
  return { step: 'email' };
}

/**
 * The client's side of a portal: an allowed address proves itself with an e-mailed code
 * (the links' OTP rules, scope `portal:<id>`), then sees the portal's live links and opens
 * them with that address already verified.
 */
export function createPortalAccessService(deps: {
  db: Db;
  clock: Clock;
  otp: Pick<OtpService, 'admit' | 'issue' | 'verify'>;
  visits: Pick<VisitsService, 'trustVerifiedEmail'>;
  blockList: Pick<BlockListService, 'refusesInAccount'>;
  notify: PortalCodeNotifier;
}) {
  const { db, clock, otp, visits, blockList, notify } = deps;
  const scopeOf = (portal: PortalRow) => `portal:${portal.id}`;

  async function portalFor(slug: string, client: PortalClient): Promise<PortalRow | undefined> {
    const portal = await findPortalBySlug(db, slug);
    return portal && (client.hostAccountId === undefined || portal.account_id === client.hostAccountId) ? portal : undefined;
  }

  async function sessionOf(portal: PortalRow, client: PortalClient) {
    return client.token ? findLivePortalSession(db, sha256Hex(client.token), portal.id, clock()) : undefined;
  }

  /** Where the client stands; an address the account blocks, even after it signed in, is back at the first step. */
  async function stateOf(portal: PortalRow, session: PortalSessionRow | undefined): Promise<PortalStep> {
    const state = stepOf(portal, session);
    return state.step !== 'email' && (await blockList.refusesInAccount(portal.account_id, state.email)) ? { step: 'email' } : state;
  }

  async function load(slug: string, client: PortalClient) {
    const portal = await portalFor(slug, client);
    if (!portal) throw notFound('Portal');
    const session = await sessionOf(portal, client);
    return { portal, session, state: await stateOf(portal, session) };
  }

  /** The links a signed-in client sees: assigned, active and not expired. */
  async function visibleLinks(portal: PortalRow) {
    const now = clock();
    return (await listPortalLinks(db, portal.id)).filter((link) => isListedForVisitors(link, now));
  }

  return {
    /** Deletes up to `limit` sessions that expired before `before` (the lapsed-access sweeper's batch). */
    deleteExpiredSessions: (before: number, limit: number) => deleteExpiredPortalSessions(db, before, limit),

    /** The portal's page for this client, changing nothing; undefined when no portal has this slug. */
    async inspect(slug: string, client: PortalClient): Promise<PortalPage | undefined> {
      const portal = await portalFor(slug, client);
      if (!portal) return undefined;
      const state = await stateOf(portal, await sessionOf(portal, client));
      const links = state.step === 'signed-in' ? await visibleLinks(portal) : [];
      return {
        portal: { name: portal.name, slug: portal.slug, accountId: portal.account_id },
        state,
        links: links.map((link) => ({ id: link.id, name: link.name, mime: link.mime })),
      };
    },

    /** E-mails a code to an allowed address. Returns the session cookie to set (none when already signed in). */
    async requestCode(slug: string, client: PortalClient, rawEmail: string): Promise<PortalCookie | undefined> {
      const { portal, session, state } = await load(slug, client);
      if (state.step === 'signed-in') return undefined;
      const email = rawEmail.trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      // A blocked address is told what any address off the list is: nothing of the block list shows.
      if (!portalAllowedEmails(portal).includes(email) || (await blockList.refusesInAccount(portal.account_id, email))) {
        throw unprocessable(NOT_ALLOWED);
      }
      const now = clock();
      const expiresAt = now + SIGN_IN_WINDOW_MS;
      // The code, the session's step and the mail that carries the code commit together.
      await otp.admit(scopeOf(portal), email, client.ip);
      return db.transaction().execute(async (trx) => {
        const code = await otp.issue(scopeOf(portal), email, trx);
        let cookie: PortalCookie;
        if (session && client.token) {
          await updatePortalSession(trx, session.id, { otp_email: email, email: null, verified_at: null, expires_at: expiresAt });
          cookie = { token: client.token, expiresAt };
        } else {
          // The session row exists only once an allowed address asked for a code.
          cookie = { token: randomBase62(32), expiresAt };
          await insertPortalSession(trx, {
            token_hash: sha256Hex(cookie.token),
            portal_id: portal.id,
            otp_email: email,
            created_at: now,
            expires_at: expiresAt,
          });
        }
        await notify.portalCode(portal, email, code, trx);
        return cookie;
      });
    },

    /** Spends the code and signs the session in for 12 hours, under a new token. */
    async verifyCode(slug: string, client: PortalClient, code: string): Promise<PortalCookie> {
      const { portal, session, state } = await load(slug, client);
      if (state.step !== 'code' || !session) throw unprocessable('This step is not available any more; reload the page');
      await otp.verify(scopeOf(portal), state.email, code);
      // A token seen before the code was typed is worth nothing after it.
      const now = clock();
      const cookie = { token: randomBase62(32), expiresAt: now + PORTAL_SESSION_TTL_MS };
      await updatePortalSession(db, session.id, {
        token_hash: sha256Hex(cookie.token),
        email: state.email,
        verified_at: now,
        expires_at: cookie.expiresAt,
      });
      return cookie;
    },

    async signOut(slug: string, client: PortalClient): Promise<void> {
      const portal = await portalFor(slug, client);
      const session = portal && (await sessionOf(portal, client));
      if (session) await deletePortalSession(db, session.id);
    },

    /**
     * Lets a signed-in client into one of the portal's visible links. The link's own gates
     * still apply, but its OTP gate counts as passed for the portal's address; the visit
     * token returned (if the gate applied) belongs in the link's visit cookie.
     */
    async openLink(
      slug: string,
      client: PortalClient,
      linkId: string,
      visitor: Visitor,
    ): Promise<{ signedIn: false } | { signedIn: true; visitToken: string | undefined }> {
      const { portal, state } = await load(slug, client);
      if (state.step !== 'signed-in') return { signedIn: false };
      const link = (await visibleLinks(portal)).find((candidate) => candidate.id === linkId);
      if (!link) throw notFound('Document');
      const portalSession = sha256Hex(client.token!);
      return { signedIn: true, visitToken: await visits.trustVerifiedEmail(link.id, { ...visitor, portalSession }, state.email) };
    },
  };
}

export type PortalAccessService = ReturnType<typeof createPortalAccessService>;
