import { isForeignKeyViolation, type Clock, type Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow, VisitRow } from '../../db/types.js';
import { badRequest, forbidden, notFound, tooManyRequests, unprocessable } from '../../core/errors.js';
import { takePlace, type LimitedWindow, type WindowCounter } from '../../core/rate-limit.js';
import { plainLine } from '../../core/text.js';
import { verifyPassword } from '../../infra/crypto/passwords.js';
import { clientNetworkOf } from '../../infra/http/address-policy.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { AccessRequestRecords } from '../access-requests/access-requests.service.js';
import type { AgreementForVisitor, AgreementsService } from '../agreements/agreements.service.js';
import type { BlockListService } from '../block-list/block-list.service.js';
import type { ViewAlertsService } from '../view-alerts/view-alerts.service.js';
import type { EventRecorder } from '../events/events.service.js';
import type { LinkLimit } from '../events/event-types.js';
import { documentView, type DocumentView } from '../documents/document-view.js';
import { isEmail } from '../../core/email-address.js';
import { isExpired, isListedForVisitors, namesRoomChild, type LinksService } from '../links/links.service.js';
import type { OtpService } from './otp.service.js';
import {
  addReportedSeconds,
  deletePageViewsBefore,
  findEndedSession,
  findLiveVisit,
  findPortalVisit,
  insertPageView,
  insertVisit,
  startSession,
  updateVisit,
} from './visits.repo.js';
import type { ViewTallies } from './view-tallies.js';
import type { Visitor, VisitorSession } from './visitor.js';

/** How long a visit may take to pass its gates (waiting for approval included). */
const GATE_WINDOW_MS = 7 * 86_400_000;
/** Wrong passwords a client may try on one link in 10 minutes, and all clients together in an hour. */
const PASSWORD_TRIES_PER_CLIENT = { limit: 10, windowMs: 10 * 60_000 } as const;
const PASSWORD_TRIES_PER_LINK = { limit: 100, windowMs: 60 * 60_000 } as const;
// Each access request e-mails the owner and raises an event: a stranger must not be able to flood them.
const ACCESS_REQUESTS_PER_CLIENT = { limit: 5, windowMs: 60 * 60_000 } as const;
const ACCESS_REQUESTS_PER_LINK = { limit: 50, windowMs: 60 * 60_000 } as const;
// Each acceptance is kept for good as the agreement's record and told to chat integrations.
const ACCEPTANCES_PER_CLIENT = { limit: 10, windowMs: 60 * 60_000 } as const;
const ACCEPTANCES_PER_LINK = { limit: 300, windowMs: 60 * 60_000 } as const;
/**
 * A view reports at most twice the time it has lasted, plus a minute: someone may read in two tabs
 * at once, and a browser's clock runs a little apart from ours. More is invented, and would let one
 * visit write rows without end; a report past that is cut to what is left, then refused.
 */
const REPORTED_TIME_PER_SECOND_LASTED = 2;
const REPORTED_TIME_GRACE_SECONDS = 60;

/** Rolls back a view session opened past the link's view cap (reached by another visitor meanwhile). */
class ViewCapReached extends Error {}

/** The link was deleted while the visitor's request ran: from then on it is absent, as for anyone. */
const linkGone = () => notFound('Link');
/** Where a visit is begun and found: the data room the link is opened in, or null for the link on its own. */
const roomIdOf = (visitor: Visitor) => visitor.room?.id ?? null;

const visitorSessionOf = (visit: VisitRow): VisitorSession => ({
  visitId: visit.id,
  email: visit.email,
  ip: visit.ip,
  viewId: visit.view_id ?? '',
  startedAt: visit.session_started_at ?? 0,
  expiresAt: visit.expires_at,
});

/** Where a visitor stands on a link, in DESIGN's gate order. */
export type GateState =
  /** opened inside a data room without a live session of the room */
  | { step: 'outside-room' }
  | { step: 'not-found' }
  | { step: 'expired' }
  | { step: 'inactive' }
  /** the visitor's address is on the link's or the account's block list */
  | { step: 'blocked' }
  | { step: 'view-limit' }
  /** requireEmail: the visitor's address, not verified */
  | { step: 'email' }
  | { step: 'otp-email' }
  | { step: 'otp-code'; email: string }
  | { step: 'password' }
  /** the link's agreement, to accept with a name (and an e-mail unless one is known) */
  | { step: 'agreement'; agreement: AgreementForVisitor; email?: string }
  /** the link's agreement stands but its PDF was deleted: nothing to accept, no way past */
  | { step: 'agreement-unavailable' }
  | { step: 'approval-email' }
  | { step: 'approval-pending'; email: string }
  | { step: 'approval-denied' }
  /** every gate passed, no session yet: opening one counts a view */
  | { step: 'ready' }
  | { step: 'session'; session: VisitorSession };

export interface Notifications {
  /** Both queue their mail on `executor`, the transaction of the change they tell about. */
  otpCode(link: LinkRow, email: string, code: string, executor: Executor): Promise<void>;
  /** `to`: who hears of the link's visitors. */
  accessRequested(link: LinkRow, request: AccessRequestNotice, to: string, executor: Executor): Promise<void>;
}

/** An access request as its link's owner is told of it: `emailVerified` when a one-time code proved the address. */
export interface AccessRequestNotice {
  id: number;
  email: string;
  emailVerified: boolean;
  visitorIp: string;
}

const parseList = (json: string) => JSON.parse(json) as string[];

/** Is this address let through the link's OTP gate (by address or by domain)? */
export function isAllowedOtpEmail(link: Pick<LinkRow, 'allowed_emails' | 'allowed_domains'>, email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return parseList(link.allowed_emails).includes(email) || parseList(link.allowed_domains).includes(domain);
}

/** The address a visit proved it holds with an e-mailed code (its own, or a portal's), if any. */
export const verifiedEmailOf = (visit: Pick<VisitRow, 'otp_passed' | 'email'> | undefined): string | undefined =>
  visit?.otp_passed === 1 && visit.email ? visit.email : undefined;

/** Whether a one-time code proved `email`, in this visit or in the data room it was opened in. */
const provedBy = (email: string | null, ...visits: Array<VisitRow | undefined>) =>
  email !== null && visits.some((visit) => verifiedEmailOf(visit) === email);

const passesOtpWith = (link: LinkRow, verifiedEmail: string | undefined) => verifiedEmail !== undefined && isAllowedOtpEmail(link, verifiedEmail);

/** Names a link password (its hash, salted afresh each time one is set) without revealing it: what a visit passed. */
const passwordStampOf = (passwordHash: string) => sha256Hex(passwordHash).slice(0, 16);

export type Gate = 'email' | 'otp' | 'password' | 'agreement' | 'approval' | 'view-limit';

/** The gates a visitor meets on opening `link` afresh, an OTP gate the already verified address passes left out. */
export function gatesAhead(link: LinkRow, verifiedEmail: string | undefined): Gate[] {
  const gates: Gate[] = [];
  if (link.max_views > 0 && link.views >= link.max_views) gates.push('view-limit');
  if (link.require_email === 1 && link.requires_otp !== 1 && !verifiedEmail) gates.push('email');
  if (link.requires_otp === 1 && !passesOtpWith(link, verifiedEmail)) gates.push('otp');
  if (link.password_hash !== null) gates.push('password');
  if (link.agreement_id !== null) gates.push('agreement');
  if (link.requires_approval === 1) gates.push('approval');
  return gates;
}

/** A data room the visitor holds a live session of: the room and the visitor's visit of it. */
interface OpenedRoom {
  link: LinkRow;
  visit: VisitRow;
}

/** The link, the data room it was opened in (if any), and where the visitor stands on it. */
export interface Inspection {
  link: LinkRow | undefined;
  room?: LinkRow;
  state: GateState;
}

/** A data room's page: its live links, each with the gates it will ask the visitor to pass. */
export interface RoomView {
  id: string;
  name: string;
  children: Array<{ id: string; name: string; mime: string; gates: Gate[] }>;
}

/** What the visitor pages show of a link: no row, nothing of the visit but its session. */
export interface VisitorPage {
  /** the link's name, its account (for the brand) and what link previews show; undefined when it does not exist for this visitor */
  link?: { name: string; accountId: number; preview: LinkPreview };
  state: GateState;
  /** set once the visitor holds a session: the room's list, or the document */
  shown?: { kind: 'room'; room: RoomView } | { kind: 'document'; document: DocumentView };
  /** the new visit's token, when entering opened a session */
  token?: string;
}

/** What apps that unfurl a shared link show of it (Open Graph). */
export interface LinkPreview {
  title: string;
  description: string | null;
  hasImage: boolean;
}

const previewOf = (link: LinkRow): LinkPreview => ({
  title: link.preview_title ?? link.name,
  description: link.preview_description,
  hasImage: link.preview_image_key !== null,
});

/** What `look` finds: the inspection's parts, and the visitor's visit of the link. */
interface Standing {
  link: LinkRow | undefined;
  room?: OpenedRoom;
  visit?: VisitRow;
  state: GateState;
}

export function createVisitsService(deps: {
  db: Db;
  clock: Clock;
  counter: WindowCounter;
  links: Pick<LinksService, 'findForVisitor' | 'roomChildren' | 'countViewUnderCap' | 'countBlockedAttempt'>;
  otp: OtpService;
  notify: Notifications;
  events: EventRecorder;
  accessRequests: Pick<AccessRequestRecords, 'find' | 'open'>;
  blockList: Pick<BlockListService, 'refuses'>;
  viewAlerts: Pick<ViewAlertsService, 'viewOpened' | 'recipientOf'>;
  agreements: Pick<AgreementsService, 'forVisitor' | 'accept'>;
  tallies: ViewTallies;
  /**
   * Views one client network may open of one link in a minute, and visits it may begin. Each view is
   * counted, told to chat integrations and spends a view cap: a script must not make thousands of them.
   */
  viewsPerClientPerMinute: number;
}) {
  const { db, clock, counter, links, otp, notify, events, accessRequests, blockList, viewAlerts, agreements, tallies, viewsPerClientPerMinute } =
    deps;

  /** The link as this visitor may see it: on an account's custom domain, other accounts' links do not exist. */
  async function linkFor(linkId: string, visitor: Visitor): Promise<LinkRow | undefined> {
    const link = await links.findForVisitor(linkId);
    return link && (visitor.hostAccountId === undefined || link.account_id === visitor.hostAccountId) ? link : undefined;
  }

  /** The visitor's live visit of `link` where they stand: inside the data room they opened it in, or on its own. */
  async function visitOf(link: LinkRow, visitor: Visitor): Promise<VisitRow | undefined> {
    return visitor.token ? findLiveVisit(db, sha256Hex(visitor.token), link.id, roomIdOf(visitor), clock()) : undefined;
  }

  /** `verifiedEmail`: an address proved elsewhere (the room the link is opened in), which passes an OTP gate admitting it. */
  async function gateState(link: LinkRow | undefined, visit: VisitRow | undefined, verifiedEmail?: string): Promise<GateState> {
    const now = clock();
    if (!link) return { step: 'not-found' };
    if (isExpired(link, now)) return { step: 'expired' };
    if (link.is_active !== 1) return { step: 'inactive' };
    // Checked before the session too: a visitor whose address is blocked or taken off the OTP gate's
    // list, or who passed a password the owner has changed since, loses the document at once.
    const knownEmail = visit?.email ?? verifiedEmail;
    if (knownEmail && (await blockList.refuses(link, knownEmail))) return { step: 'blocked' };
    const otpPassed = link.requires_otp !== 1 || passesOtpWith(link, verifiedEmailOf(visit)) || passesOtpWith(link, verifiedEmail);
    const passwordPassed = link.password_hash === null || visit?.password_stamp === passwordStampOf(link.password_hash);
    if (visit?.session_started_at && otpPassed && passwordPassed) return { step: 'session', session: visitorSessionOf(visit) };
    if (link.max_views > 0 && link.views >= link.max_views) return { step: 'view-limit' };
    // An OTP gate asks for the address itself, verified.
    if (link.require_email === 1 && link.requires_otp !== 1 && !knownEmail) return { step: 'email' };
    if (!otpPassed) {
      const codeSentTo = visit?.otp_email && isAllowedOtpEmail(link, visit.otp_email) ? visit.otp_email : undefined;
      return codeSentTo ? { step: 'otp-code', email: codeSentTo } : { step: 'otp-email' };
    }
    if (!passwordPassed) return { step: 'password' };
    if (link.agreement_id !== null && visit?.agreement_accepted !== 1) {
      // An agreement deleted meanwhile asks for nothing; one whose PDF was deleted lets no one past.
      const agreement = await agreements.forVisitor(link.agreement_id);
      if (agreement === 'text-missing') return { step: 'agreement-unavailable' };
      if (agreement) return { step: 'agreement', agreement, ...(knownEmail && { email: knownEmail }) };
    }
    if (link.requires_approval === 1) {
      const request = visit?.access_request_id ? await accessRequests.find(visit.access_request_id) : undefined;
      if (!request) return { step: 'approval-email' };
      if (request.status === 'pending') return { step: 'approval-pending', email: request.email };
      if (request.status === 'denied') return { step: 'approval-denied' };
    }
    return { step: 'ready' };
  }

  /**
   * The visitor's live visit of this link, created (with a fresh token) when there is none.
   * A visit begun inside a data room starts as the room visit's visitor: its e-mail (for the
   * watermark), and a verified address's pass of an OTP gate admitting it.
   */
  async function ensureVisit(link: LinkRow, visitor: Visitor, roomVisit?: VisitRow): Promise<{ visit: VisitRow; token: string }> {
    const existing = await visitOf(link, visitor);
    if (existing && visitor.token) return { visit: existing, token: visitor.token };
    // Opened again from the same portal session: its visit, under a new token (the old one is only a hash here).
    const fromPortal = visitor.portalSession && (await findPortalVisit(db, link.id, visitor.portalSession, clock()));
    if (fromPortal) {
      const token = randomBase62(32);
      const tokenHash = sha256Hex(token);
      await updateVisit(db, fromPortal.id, { token_hash: tokenHash });
      return { visit: { ...fromPortal, token_hash: tokenHash }, token };
    }
    // Each gate form posted without the visit's cookie begins a visit, a row kept for the gates' week:
    // a client network begins them no faster than it may open views.
    await takePlace(counter, {
      key: `visit:${link.id}:${clientNetworkOf(visitor.ip)}`,
      limit: viewsPerClientPerMinute,
      windowMs: 60_000,
      message: 'Too many visits of this document have begun from your network in the last minute; try again in a minute',
    });
    const token = randomBase62(32);
    const now = clock();
    try {
      await insertVisit(db, {
        tokenHash: sha256Hex(token),
        linkId: link.id,
        roomId: roomIdOf(visitor),
        ip: visitor.ip,
        userAgent: visitor.userAgent,
        now,
        expiresAt: now + GATE_WINDOW_MS,
        email: roomVisit?.email ?? null,
        otpPassed: link.requires_otp === 1 && passesOtpWith(link, verifiedEmailOf(roomVisit)),
        portalSessionHash: visitor.portalSession,
      });
    } catch (error) {
      throw isForeignKeyViolation(error) ? linkGone() : error;
    }
    const visit = await findLiveVisit(db, sha256Hex(token), link.id, roomIdOf(visitor), now);
    if (!visit) throw linkGone();
    return { visit, token };
  }

  /**
   * Whether the link's or the account's block list refuses `email`; a refused address is kept
   * on the visit (which then stands at the blocked step) and counted on the link.
   */
  async function refused(link: LinkRow, visit: VisitRow, email: string): Promise<boolean> {
    if (!(await blockList.refuses(link, email))) return false;
    await db.transaction().execute(async (trx) => {
      await updateVisit(trx, visit.id, { email });
      await links.countBlockedAttempt(trx, link.id);
    });
    return true;
  }

  /**
   * The data room and the visitor's live session of it (or, with `findEndedSession`, the session
   * that has ended, if nothing the owner changed since would have ended it sooner), or undefined.
   */
  async function roomSessionOf(
    room: NonNullable<Visitor['room']>,
    visitor: Visitor,
    find: typeof findLiveVisit = findLiveVisit,
  ): Promise<OpenedRoom | undefined> {
    const link = await linkFor(room.id, visitor);
    const visit = link && room.token ? await find(db, sha256Hex(room.token), link.id, null, clock()) : undefined;
    const state = await gateState(link, visit);
    return link && visit && state.step === 'session' ? { link, visit } : undefined;
  }

  /** Where the visitor stands on `linkId` inside `room`: it must be one of the room's current links. */
  async function lookInRoom(room: OpenedRoom | undefined, linkId: string, visitor: Visitor): Promise<Standing> {
    if (!room) return { link: undefined, state: { step: 'outside-room' } };
    const link = (await links.roomChildren(room.link.id)).find((child) => namesRoomChild(room.link.id, child, linkId));
    const visit = link && (await visitOf(link, visitor));
    return { link, room, visit, state: await gateState(link, visit, verifiedEmailOf(room.visit)) };
  }

  /**
   * The link, the room it is opened in and where the visitor stands, changing nothing. Inside a
   * room the link is one of the room's current links, reached only with a live room session.
   */
  async function look(linkId: string, visitor: Visitor): Promise<Standing> {
    if (!visitor.room) {
      const link = await linkFor(linkId, visitor);
      const visit = link && (await visitOf(link, visitor));
      return { link, visit, state: await gateState(link, visit) };
    }
    return lookInRoom(await roomSessionOf(visitor.room, visitor), linkId, visitor);
  }

  /** As `look`, for a report that comes after the view's end: the room's session may have ended by then too. */
  async function lookAfterEnd(linkId: string, visitor: Visitor): Promise<Standing> {
    const standing = await look(linkId, visitor);
    if (standing.state.step !== 'outside-room' || !visitor.room) return standing;
    return lookInRoom(await roomSessionOf(visitor.room, visitor, findEndedSession), linkId, visitor);
  }

  /** The visitor's view session of `link` that has ended, if nothing the owner changed since would have ended it sooner. */
  async function endedSessionOf(link: LinkRow, visitor: Visitor, roomVisit: VisitRow | undefined): Promise<VisitRow | undefined> {
    if (!visitor.token) return undefined;
    const ended = await findEndedSession(db, sha256Hex(visitor.token), link.id, roomIdOf(visitor), clock());
    const state = ended && (await gateState(link, ended, roomVisit && verifiedEmailOf(roomVisit)));
    return state?.step === 'session' ? ended : undefined;
  }

  /**
   * The owner hears (chat integrations, recent activity) when one of the link's own limits is
   * reached: from then until the hour ends it holds every visitor, strangers or not.
   */
  const limitReached = (link: LinkRow, limit: LinkLimit) => async () => {
    await events.record(db, { accountId: link.account_id, type: 'link.limit_reached', linkId: link.id, payload: { linkName: link.name, limit } });
  };

  /** A place in each window, in order; a window of the whole link names its limit, which is told once reached. */
  async function takePlaces(link: LinkRow, windows: Array<LimitedWindow & { linkWide?: LinkLimit }>): Promise<void> {
    for (const window of windows) await takePlace(counter, window, window.linkWide && limitReached(link, window.linkWide));
  }

  /** Loads the link and the visit, and refuses a form for a step the visitor is not on. */
  async function atStep(linkId: string, visitor: Visitor, steps: GateState['step'][]) {
    const { link, room, state } = await look(linkId, visitor);
    if (!link || !steps.includes(state.step)) throw unprocessable('This step is not available any more; reload the page');
    return { link, roomVisit: room?.visit, state };
  }

  /** The room's listed links, each with the gates it will ask of the visitor holding `roomVisit`. */
  async function roomView(room: LinkRow, roomVisit: VisitRow): Promise<RoomView> {
    const now = clock();
    const verifiedEmail = verifiedEmailOf(roomVisit);
    const children = (await links.roomChildren(room.id))
      .filter((child) => isListedForVisitors(child, now))
      .map((child) => ({ id: child.id, name: child.name, mime: child.mime, gates: gatesAhead(child, verifiedEmail) }));
    return { id: room.id, name: room.name, children };
  }

  /** `checkoutSessionId`: the Stripe session a buyer came back with, which the document page offers to download with. */
  async function pageOf({ link, room, visit, state }: Standing, checkoutSessionId?: string): Promise<VisitorPage> {
    const page: VisitorPage = { link: link && { name: link.name, accountId: link.account_id, preview: previewOf(link) }, state };
    if (!link || !visit || state.step !== 'session') return page;
    const shown =
      link.kind === 'room'
        ? { kind: 'room' as const, room: await roomView(link, visit) }
        : { kind: 'document' as const, document: documentView(link, room?.link, state.session, checkoutSessionId) };
    return { ...page, shown };
  }

  return {
    /** For the retention sweep: each report of time on a page, whose sums the tallies keep. */
    deletePageViewsBefore: (before: number, limit: number) => deletePageViewsBefore(db, before, limit),

    /** Where the visitor stands, changing nothing: the link and room rows, for other services. */
    async inspect(linkId: string, visitor: Visitor): Promise<Inspection> {
      const { link, room, state } = await look(linkId, visitor);
      return { link, room: room?.link, state };
    },

    /** Where the visitor stands and what their page shows, changing nothing. */
    async page(linkId: string, visitor: Visitor): Promise<VisitorPage> {
      return pageOf(await look(linkId, visitor));
    },

    /** The link a visitor holds a live session of, and the room it is opened in, or 403: no document leaves without one. */
    async requireSession(linkId: string, visitor: Visitor): Promise<{ link: LinkRow; room?: LinkRow; session: VisitorSession }> {
      const { link, room, state } = await look(linkId, visitor);
      if (!link || state.step !== 'session') throw forbidden('Open the link and pass its checks first');
      return { link, room: room?.link, session: state.session };
    },

    /** Where the visitor stands and what their page shows; when every gate is passed, opens the session (one view). */
    async enter(linkId: string, visitor: Visitor, options: { checkoutSessionId?: string } = {}): Promise<VisitorPage> {
      const standing = await look(linkId, visitor);
      const { link, room, state } = standing;
      if (!link || state.step !== 'ready') return pageOf(standing, options.checkoutSessionId);
      await takePlaces(link, [
        {
          key: `views:${link.id}:${clientNetworkOf(visitor.ip)}`,
          limit: viewsPerClientPerMinute,
          windowMs: 60_000,
          message: 'This document has been opened too many times from your network in the last minute; try again in a minute',
        },
      ]);
      const { visit, token } = await ensureVisit(link, visitor, room?.visit);
      const now = clock();
      const visitorAddress = { email: visit.email, emailVerified: provedBy(visit.email, visit, room?.visit) };
      const opened = await db
        .transaction()
        .execute(async (trx) => {
          const session = { startedAt: now, expiresAt: now + link.view_session_ttl * 1000, viewId: randomBase62(6).toUpperCase() };
          if (!(await startSession(trx, visit.id, session))) return false;
          // One time for every record of the view: its day in each chart, its "last viewed" everywhere.
          if (!(await links.countViewUnderCap(trx, link.id, now))) throw new ViewCapReached();
          await events.record(trx, {
            accountId: link.account_id,
            type: 'link.viewed',
            linkId: link.id,
            payload: { linkName: link.name, ...visitorAddress, ip: visit.ip },
            at: now,
          });
          await viewAlerts.viewOpened(trx, link, { ...visitorAddress, ip: visit.ip });
          await tallies.viewOpened(trx, { linkId: link.id, ...visitorAddress, ip: visit.ip, userAgent: visit.user_agent, at: now });
          return true;
        })
        .catch((error: unknown) => {
          if (error instanceof ViewCapReached) return false;
          throw error;
        });
      // Opened by another of the visitor's requests, its cap reached meanwhile, or the link deleted: a fresh look says which.
      if (!opened) return pageOf(await look(linkId, visitor));
      const session = await findLiveVisit(db, sha256Hex(token), link.id, roomIdOf(visitor), now);
      if (!session) throw linkGone();
      const page = await pageOf(
        { link, room, visit: session, state: { step: 'session', session: visitorSessionOf(session) } },
        options.checkoutSessionId,
      );
      return { ...page, token };
    },

    async sendOtp(linkId: string, visitor: Visitor, rawEmail: string): Promise<string> {
      const { link, roomVisit } = await atStep(linkId, visitor, ['otp-email', 'otp-code']);
      const email = rawEmail.trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      if (!isAllowedOtpEmail(link, email)) throw unprocessable('This e-mail address is not allowed to view this document');
      const { visit, token } = await ensureVisit(link, visitor, roomVisit);
      if (await refused(link, visit, email)) return token;
      // The code, the visit's step and the mail that carries the code commit together.
      const scope = `link:${link.id}`;
      await otp.admit(scope, email, visitor.ip, limitReached(link, 'code'));
      await db.transaction().execute(async (trx) => {
        const code = await otp.issue(scope, email, trx);
        await updateVisit(trx, visit.id, { otp_email: email });
        await notify.otpCode(link, email, code, trx);
      });
      return token;
    },

    async verifyOtp(linkId: string, visitor: Visitor, code: string): Promise<void> {
      const { link, roomVisit, state } = await atStep(linkId, visitor, ['otp-code']);
      if (state.step !== 'otp-code') return;
      await otp.verify(`link:${link.id}`, state.email, code);
      const { visit } = await ensureVisit(link, visitor, roomVisit);
      await updateVisit(db, visit.id, { otp_passed: 1, email: state.email });
    },

    /**
     * A visit of the link by an address a one-time code proved elsewhere (a client portal): it is the
     * visit's proven address, so analytics, alerts and events name it as verified, the link's block
     * list and e-mail gate see it, and it passes an OTP gate whose list admits it (the gate checks the list).
     */
    async trustVerifiedEmail(linkId: string, visitor: Visitor, email: string): Promise<string | undefined> {
      const link = await linkFor(linkId, visitor);
      if (!link) return undefined;
      const { visit, token } = await ensureVisit(link, visitor);
      if (await refused(link, visit, email)) return token;
      await updateVisit(db, visit.id, { email, otp_passed: 1 });
      return token;
    },

    /** Accepts the link's agreement with the visitor's name and address (the known one when there is one), kept with a hash of the text. */
    async acceptAgreement(linkId: string, visitor: Visitor, form: { name?: string; email?: string; agree?: string }): Promise<string> {
      const { link, roomVisit, state } = await atStep(linkId, visitor, ['agreement']);
      if (state.step !== 'agreement') throw unprocessable('This step is not available any more; reload the page');
      const name = plainLine(form.name ?? '');
      if (name === '' || name.length > 200) throw badRequest('Enter your full name (at most 200 characters)');
      const email = state.email ?? (form.email ?? '').trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      if (form.agree !== 'yes') throw badRequest('Tick "I agree" to accept the agreement');
      await takePlaces(link, [
        {
          key: `accept:${link.id}:${clientNetworkOf(visitor.ip)}`,
          ...ACCEPTANCES_PER_CLIENT,
          message: 'Too many acceptances of this agreement from here; try again later',
        },
        {
          key: `accept-link:${link.id}`,
          ...ACCEPTANCES_PER_LINK,
          message: 'Too many visitors have accepted this agreement in the last hour; try again later',
          linkWide: 'agreement',
        },
      ]);
      const { visit, token } = await ensureVisit(link, visitor, roomVisit);
      if (await refused(link, visit, email)) return token;
      await db.transaction().execute(async (trx) => {
        const { agreement } = state;
        await agreements.accept(trx, {
          agreementId: agreement.id,
          linkId: link.id,
          name,
          email,
          ip: visitor.ip,
          userAgent: visitor.userAgent,
          textSha256: agreement.textSha256,
        });
        await updateVisit(trx, visit.id, { agreement_accepted: 1, email });
        await events.record(trx, {
          accountId: link.account_id,
          type: 'agreement.accepted',
          linkId: link.id,
          payload: { linkName: link.name, email, emailVerified: provedBy(email, visit, roomVisit), ip: visitor.ip },
        });
      });
      return token;
    },

    /** requireEmail: the visitor's address, kept with the visit and its view (not verified). */
    async giveEmail(linkId: string, visitor: Visitor, rawEmail: string): Promise<string> {
      const { link, roomVisit } = await atStep(linkId, visitor, ['email']);
      const email = rawEmail.trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      const { visit, token } = await ensureVisit(link, visitor, roomVisit);
      if (!(await refused(link, visit, email))) await updateVisit(db, visit.id, { email });
      return token;
    },

    async checkPassword(linkId: string, visitor: Visitor, password: string): Promise<string> {
      const { link, roomVisit } = await atStep(linkId, visitor, ['password']);
      // Every try takes a place in both windows before the (slow) check, so parallel guesses cannot
      // overtake the limits; a right password gives its places back: only wrong tries count. The
      // link's own window bounds guessing from many addresses (a botnet, an IPv6 network), so it
      // refuses the right password too once full: strangers can then keep new visitors waiting.
      // It counts the tries on this password (by its stamp), so the owner's remedy is a new password,
      // which starts with a window of its own.
      const windows = [
        {
          key: `pw:${link.id}:${clientNetworkOf(visitor.ip)}`,
          ...PASSWORD_TRIES_PER_CLIENT,
          message: 'Too many wrong passwords; try again in a few minutes',
        },
        {
          key: `pw-link:${link.id}:${passwordStampOf(link.password_hash!)}`,
          ...PASSWORD_TRIES_PER_LINK,
          message: 'Too many wrong passwords have been tried on this document; try again later, or ask the sender for a new password',
          linkWide: 'password' as const,
        },
      ];
      await takePlaces(link, windows);
      if (!(await verifyPassword(password, link.password_hash!))) throw unprocessable('That password is not right');
      await Promise.all(windows.map((window) => counter.release(window.key)));
      const { visit, token } = await ensureVisit(link, visitor, roomVisit);
      await updateVisit(db, visit.id, { password_stamp: passwordStampOf(link.password_hash!) });
      return token;
    },

    async requestAccess(linkId: string, visitor: Visitor, rawEmail: string): Promise<string> {
      const { link, roomVisit } = await atStep(linkId, visitor, ['approval-email']);
      const email = rawEmail.trim().toLowerCase();
      if (!isEmail(email)) throw badRequest('Enter a valid e-mail address');
      await takePlaces(link, [
        {
          key: `access:${link.id}:${clientNetworkOf(visitor.ip)}`,
          ...ACCESS_REQUESTS_PER_CLIENT,
          message: 'Too many access requests from here; try again later',
        },
        {
          key: `access-link:${link.id}`,
          ...ACCESS_REQUESTS_PER_LINK,
          message: 'Too many access requests for this document; try again later',
          linkWide: 'access-request',
        },
      ]);
      const { visit, token } = await ensureVisit(link, visitor, roomVisit);
      if (await refused(link, visit, email)) return token;
      const address = { email, emailVerified: provedBy(email, visit, roomVisit) };
      await db.transaction().execute(async (trx) => {
        const id = await accessRequests.open(trx, { linkId: link.id, ...address, visitorIp: visitor.ip, now: clock() });
        await updateVisit(trx, visit.id, { access_request_id: id, email: visit.email ?? email });
        await events.record(trx, {
          accountId: link.account_id,
          type: 'access.requested',
          linkId: link.id,
          payload: { linkName: link.name, ...address, ip: visitor.ip },
        });
        const to = await viewAlerts.recipientOf(link, trx);
        if (to) await notify.accessRequested(link, { id, ...address, visitorIp: visitor.ip }, to, trx);
      });
      return token;
    },

    /**
     * Seconds spent on a page, reported by the viewer: only for the session's own link, on a page
     * it shows (`pagesShown`: how many the link's document shows its visitors, from the module that
     * owns documents), and no more than the view has lasted. The viewer reports a page when the
     * visitor turns it or leaves, so the page read when the session ran out is reported after its
     * end: that session still counts, up to its end, unless the owner has withdrawn what it passed.
     */
    async trackPage(
      linkId: string,
      visitor: Visitor,
      { page, seconds }: { page: number; seconds: number },
      pagesShown: (link: LinkRow) => Promise<number>,
    ): Promise<boolean> {
      const { link, room, visit: live, state } = await lookAfterEnd(linkId, visitor);
      const visit = state.step === 'session' ? live : link && (await endedSessionOf(link, visitor, room?.visit));
      if (!link || !visit) return false;
      if (page > (await pagesShown(link))) throw unprocessable(`Page ${page} is not a page this document shows`);
      const now = clock();
      // From the view's start (a visit may wait at its gates for days before it is let in) to now or its end.
      const lastedSeconds = Math.floor((Math.min(now, visit.expires_at) - (visit.session_started_at ?? now)) / 1000);
      const budget = REPORTED_TIME_PER_SECOND_LASTED * lastedSeconds + REPORTED_TIME_GRACE_SECONDS;
      const granted = Math.min(seconds, budget - visit.reported_seconds);
      const tooMuch = () => tooManyRequests(1, 'More reading time was reported than this view has lasted');
      if (granted < 1) throw tooMuch();
      try {
        await db.transaction().execute(async (trx) => {
          if (!(await addReportedSeconds(trx, visit.id, granted, budget))) throw tooMuch();
          await insertPageView(trx, { visitId: visit.id, page, seconds: granted, now });
          await tallies.pageRead(trx, { linkId: visit.link_id, email: visit.email, ip: visit.ip, page, seconds: granted });
        });
      } catch (error) {
        // The link, and its visits with it, were deleted meanwhile: a session that no longer is.
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
      return true;
    },
  };
}

export type VisitsService = ReturnType<typeof createVisitsService>;
