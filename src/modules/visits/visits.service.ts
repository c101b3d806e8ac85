import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow, VisitRow } from '../../db/types.js';
import { badRequest, tooManyRequests, unprocessable } from '../../core/errors.js';
import type { WindowCounter } from '../../core/rate-limit.js';
import { verifyPassword } from '../../infra/crypto/passwords.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import { findAccessRequest, insertAccessRequest } from '../access-requests/access-requests.repo.js';
import type { EventRecorder } from '../events/events.service.js';
import { isEmail } from '../links/link-settings.js';
import { isExpired, type LinksService } from '../links/links.service.js';
import type { OtpService } from './otp.service.js';
import { countViewUnderCap, findLiveVisit, insertPageView, insertVisit, updateVisit } from './visits.repo.js';

/** How long a visit may take to pass its gates (waiting for approval included). */
const GATE_WINDOW_MS = 7 * 86_400_000;
const PASSWORD_TRIES = 10;
const PASSWORD_WINDOW_MS = 10 * 60_000;

export interface Visitor {
  /** the visit cookie's token, if the browser sent one */
  token: string | undefined;
  ip: string;
  userAgent: string | null;
  /** Set when the request came in on an account's custom domain: only that account's links exist there. */
  hostAccountId?: number;
}

/** Where a visitor stands on a link, in DESIGN's gate order. */
export type GateState =
  | { step: 'not-found' }
  | { step: 'expired' }
  | { step: 'inactive' }
  | { step: 'view-limit' }
  | { step: 'otp-email' }
  | { step: 'otp-code'; email: string }
  | { step: 'password' }
  | { step: 'approval-email' }
  | { step: 'approval-pending'; email: string }
  | { step: 'approval-denied' }
  /** every gate passed, no session yet: opening one counts a view */
  | { step: 'ready' }
  | { step: 'session'; visit: VisitRow; expiresAt: number };

export interface Notifications {
  otpCode(link: LinkRow, email: string, code: string): Promise<void>;
  accessRequested(link: LinkRow, request: { id: number; email: string; visitorIp: string }): Promise<void>;
}

const parseList = (json: string) => JSON.parse(json) as string[];

/** Is this address let through the link's OTP gate (by address or by domain)? */
export function isAllowedOtpEmail(link: Pick<LinkRow, 'allowed_emails' | 'allowed_domains'>, email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return parseList(link.allowed_emails).includes(email) || parseList(link.allowed_domains).includes(domain);
}

export function createVisitsService(deps: {
  db: Db;
  clock: Clock;
  counter: WindowCounter;
  links: Pick<LinksService, 'findForVisitor'>;
  otp: OtpService;
  notify: Notifications;
  events: EventRecorder;
}) {
  const { db, clock, counter, links, otp, notify, events } = deps;

  /** The link as this visitor may see it: on an account's custom domain, other accounts' links do not exist. */
  async function linkFor(linkId: string, visitor: Visitor): Promise<LinkRow | undefined> {
    const link = await links.findForVisitor(linkId);
    return link && (visitor.hostAccountId === undefined || link.account_id === visitor.hostAccountId) ? link : undefined;
  }

  async function visitOf(link: LinkRow, visitor: Visitor): Promise<VisitRow | undefined> {
    return visitor.token ? findLiveVisit(db, sha256Hex(visitor.token), link.id, clock()) : undefined;
  }

  async function gateState(link: LinkRow | undefined, visit: VisitRow | undefined): Promise<GateState> {
    const now = clock();
    if (!link) return { step: 'not-found' };
    if (isExpired(link, now)) return { step: 'expired' };
    if (link.is_active !== 1) return { step: 'inactive' };
    if (visit?.session_started_at) return { step: 'session', visit, expiresAt: visit.expires_at };
    if (link.max_views > 0 && link.views >= link.max_views) return { step: 'view-limit' };
    if (link.requires_otp === 1 && visit?.otp_passed !== 1) {
      return visit?.otp_email ? { step: 'otp-code', email: visit.otp_email } : { step: 'otp-email' };
    }
    if (link.password_hash !== null && visit?.password_passed !== 1) return { step: 'password' };
    if (link.requires_approval === 1) {
      const request = visit?.access_request_id ? await findAccessRequest(db, visit.access_request_id) : undefined;
      if (!request) return { step: 'approval-email' };
      if (request.status === 'pending') return { step: 'approval-pending', email: request.email };
      if (request.status === 'denied') return { step: 'approval-denied' };
    }
    return { step: 'ready' };
  }

  /** The visitor's live visit of this link, created (with a fresh token) when there is none. */
  async function ensureVisit(link: LinkRow, visitor: Visitor): Promise<{ visit: VisitRow; token: string }> {
    const existing = await visitOf(link, visitor);
    if (existing && visitor.token) return { visit: existing, token: visitor.token };
    const token = randomBase62(32);
    const now = clock();
    await insertVisit(db, { tokenHash: sha256Hex(token), linkId: link.id, ip: visitor.ip, userAgent: visitor.userAgent, now, expiresAt: now + GATE_WINDOW_MS });
    return { visit: (await findLiveVisit(db, sha256Hex(token), link.id, now))!, token };
  }

  /** Loads the link and the visit, and refuses a form for a step the visitor is not on. */
  async function atStep(linkId: string, visitor: Visitor, steps: GateState['step'][]) {
    const link = await linkFor(linkId, visitor);
    const visit = link ? await visitOf(link, visitor) : undefined;
    const state = await gateState(link, visit);
    if (!link || !steps.includes(state.step)) throw unprocessable('This step is not available any more; reload the page');
    return { link, state };
  }

  async function inspect(linkId: string, visitor: Visitor): Promise<{ link: LinkRow | undefined; state: GateState }> {
    const link = await linkFor(linkId, visitor);
    return { link, state: await gateState(link, link ? await visitOf(link, visitor) : undefined) };
  }

  return {
    /** Where the visitor stands, changing nothing. */
    inspect,

    /** Where the visitor stands; when every gate is passed, opens the session (one view). */
    async enter(linkId: string, visitor: Visitor): Promise<{ link: LinkRow | undefined; state: GateState; token?: string }> {
      const { link, state } = await inspect(linkId, visitor);
      if (!link || state.step !== 'ready') return { link, state };
      const { visit, token } = await ensureVisit(link, visitor);
      const now = clock();
      const opened = await db.transaction().execute(async (trx) => {
        if (!(await countViewUnderCap(trx, link.id))) return false;
        await updateVisit(trx, visit.id, { session_started_at: now, expires_at: now + link.view_session_ttl * 1000, view_id: randomBase62(6).toUpperCase() });
        await events.record(trx, {
          accountId: link.account_id,
          type: 'link.viewed',
          linkId: link.id,
          payload: { linkName: link.name, email: visit.email, ip: visit.ip },
        });
        return true;
      });
      if (!opened) return { link, state: { step: 'view-limit' } };
      const session = (await findLiveVisit(db, sha256Hex(token), link.id, now))!;
      return { link, state: { step: 'session', visit: session, expiresAt: session.expires_at }, token };
    },

    async sendOtp(linkId: string, visitor: Visitor, rawEmail: string): Promise<string> {
      const { link } = await atStep(linkId, visitor, ['otp-email', 'otp-code']);
      const email = rawEmail.trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      if (!isAllowedOtpEmail(link, email)) throw unprocessable('This e-mail address is not allowed to view this document');
      const { visit, token } = await ensureVisit(link, visitor);
      const code = await otp.issue(`link:${link.id}`, email);
      await updateVisit(db, visit.id, { otp_email: email });
      await notify.otpCode(link, email, code);
      return token;
    },

    async verifyOtp(linkId: string, visitor: Visitor, code: string): Promise<void> {
      const { link, state } = await atStep(linkId, visitor, ['otp-code']);
      if (state.step !== 'otp-code') return;
      await otp.verify(`link:${link.id}`, state.email, code);
      const { visit } = await ensureVisit(link, visitor);
      await updateVisit(db, visit.id, { otp_passed: 1, email: state.email });
    },

    /** Marks the OTP gate passed for an address verified elsewhere (a client portal). */
    async trustVerifiedEmail(linkId: string, visitor: Visitor, email: string): Promise<string | undefined> {
      const link = await linkFor(linkId, visitor);
      if (!link || link.requires_otp !== 1 || !isAllowedOtpEmail(link, email)) return undefined;
      const { visit, token } = await ensureVisit(link, visitor);
      await updateVisit(db, visit.id, { otp_passed: 1, email });
      return token;
    },

    async checkPassword(linkId: string, visitor: Visitor, password: string): Promise<string> {
      const { link } = await atStep(linkId, visitor, ['password']);
      const { count, resetAt } = await counter.hit(`pw:${link.id}:${visitor.ip}`, PASSWORD_WINDOW_MS);
      if (count > PASSWORD_TRIES) throw tooManyRequests((resetAt - clock()) / 1000, 'Too many wrong passwords; try again in a few minutes');
      if (!(await verifyPassword(password, link.password_hash!))) throw unprocessable('That password is not right');
      const { visit, token } = await ensureVisit(link, visitor);
      await updateVisit(db, visit.id, { password_passed: 1 });
      return token;
    },

    async requestAccess(linkId: string, visitor: Visitor, rawEmail: string): Promise<string> {
      const { link } = await atStep(linkId, visitor, ['approval-email']);
      const email = rawEmail.trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      const { visit, token } = await ensureVisit(link, visitor);
      const requestId = await db.transaction().execute(async (trx) => {
        const id = await insertAccessRequest(trx, { linkId: link.id, email, visitorIp: visitor.ip, now: clock() });
        await updateVisit(trx, visit.id, { access_request_id: id, email: visit.email ?? email });
        await events.record(trx, { accountId: link.account_id, type: 'access.requested', linkId: link.id, payload: { linkName: link.name, email, ip: visitor.ip } });
        return id;
      });
      await notify.accessRequested(link, { id: requestId, email, visitorIp: visitor.ip });
      return token;
    },

    /** Seconds spent on a page, reported by the viewer; only for the session's own link. */
    async trackPage(linkId: string, visitor: Visitor, page: number, seconds: number): Promise<boolean> {
      const link = await linkFor(linkId, visitor);
      const visit = link ? await visitOf(link, visitor) : undefined;
      if (!visit?.session_started_at) return false;
      await insertPageView(db, { visitId: visit.id, page, seconds, now: clock() });
      return true;
    },
  };
}

export type VisitsService = ReturnType<typeof createVisitsService>;
