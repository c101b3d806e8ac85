import type { Principal } from '../../core/auth.js';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized, unprocessable } from '../../core/errors.js';
import { dashboardPath, nextQuery } from '../../core/web/dashboard-path.js';
import { mayAct, MINIMUM_ROLE, type Area, type Role } from '../../core/permissions.js';
import { planAtLeast, planOfArea, type Plan } from '../../core/plans.js';
import { takePlace, type WindowCounter } from '../../core/rate-limit.js';
import { isUniqueViolation, type Clock, type Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { UserRow } from '../../db/types.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { JobKind, JobQueue } from '../../infra/jobs/index.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { commandLineSource, type AuditLog, type AuditSource } from '../audit/audit.service.js';
import type { InvitationsService } from '../members/invitations.service.js';
import type { MembersService } from '../members/members.service.js';
import type { Client, SessionsService, StartedSession } from '../sessions/sessions.service.js';
import { newPersonEmail, normalizeEmail, type UsersService } from '../users/users.service.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import {
  consumeSignInToken,
  deleteExpiredSignInTokens,
  findUsableSignInToken,
  insertSignInToken,
  spendLiveSignInTokens,
  spendLiveSignInTokensOf,
  type TokenPurpose,
} from './sign-in-tokens.repo.js';

const MINUTE_MS = 60_000;
/** How long each kind of link stays usable. */
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  setup: 24 * 60 * MINUTE_MS,
  'magic-link': 15 * MINUTE_MS,
  'password-reset': 15 * MINUTE_MS,
  'sign-up': 24 * 60 * MINUTE_MS,
  'email-change': 60 * MINUTE_MS,
};
/** A magic link printed by the CLI for a person it just created: they may not read it within 15 minutes. */
const CLI_LINK_TTL_MS = 24 * 60 * MINUTE_MS;
/** A person may send a new address's link this often: each goes to an address of their choosing, perhaps not theirs. */
const EMAIL_CHANGES_PER_HOUR = 5;
const TOKEN = /^[0-9A-Za-z]{43}$/;

export interface SignInMailer {
  magicLink(to: string, data: { accountId: number | null; url: string; minutes: number }, executor: Executor): Promise<void>;
  passwordReset(to: string, data: { accountId: number | null; url: string; minutes: number }, executor: Executor): Promise<void>;
  signUp(to: string, data: { url: string; hours: number }, executor: Executor): Promise<void>;
  /** To the new address: the link that makes it the person's sign-in. */
  emailChange(to: string, data: { accountId: number | null; url: string; minutes: number }, executor: Executor): Promise<void>;
  /** To the address given up: that the sign-in moved, and to which address. */
  emailChanged(to: string, data: { accountId: number | null; newEmail: string }, executor: Executor): Promise<void>;
  /** To the address of a deleted sign-in: that it is gone, and what to do if its person did not do it. */
  signInDeleted(to: string, data: { accountId: number | null }, executor: Executor): Promise<void>;
}

/** The second factor, when the person turned it on (`modules/two-factor`). */
export interface SecondFactor {
  /** A code from the authenticator app or an unused recovery code; a recovery code is spent. */
  verify(user: UserRow, code: string): Promise<boolean>;
}

/** The job that mails a requested link: the request only counts the try and queues it. */
export const SIGN_IN_MAIL_JOB = 'auth.link-mail';
interface LinkMailPayload {
  email: string;
  purpose: 'magic-link' | 'password-reset' | 'sign-up';
  /** A magic link's dashboard screen to go on to (`dashboardPath`); absent for /app. */
  next?: string;
}

export interface SignedIn extends StartedSession {
  userId: number;
  accountId: number;
}

const unusableLink = () => new AppError(404, 'This link has been used already or has expired');
const twoFactorRequired = () =>
  new AppError(401, 'Enter the six-digit code from your authenticator app, or a recovery code', { 'x-two-factor': 'required' });
const signInRefused = () => unauthorized('The e-mail or password is not right');
const existingSignIn = () => unauthorized('This e-mail already has a linkvault sign-in: enter its password to accept');
/** What a signed-in person gives to prove it is them before a change of consequence. */
export interface SelfProof {
  currentPassword?: string;
  code?: string;
}

const addressTaken = (email: string) => conflict(`${email} has a linkvault sign-in of its own; choose another address`);

/**
 * How people get in: first-run setup, e-mail and password (with the second factor when on),
 * magic links, password resets, invitations, open sign-up, switching accounts. Each ends in a
 * server-side session (`modules/sessions`); none reveals whether an e-mail has a sign-in.
 */
/** The areas of the permission table a role may act in, for a client to show only what it may use. */
const areasOf = (role: Role): Area[] => (Object.keys(MINIMUM_ROLE) as Area[]).filter((area) => mayAct(role, area));

/** Of the areas a role may manage, those the account's plan does not include, with the least plan that does. */
function areasAbovePlan(role: Role, plan: string): { area: Area; plan: Plan }[] {
  return areasOf(role).flatMap((area) => {
    const needed = planOfArea(area);
    return needed && !planAtLeast(plan, needed) ? [{ area, plan: needed }] : [];
  });
}

export function createAuthService(deps: {
  db: Db;
  clock: Clock;
  publicUrl: string;
  defaultPlan: Plan;
  signup: 'closed' | 'invite' | 'open';
  users: UsersService;
  members: MembersService;
  invitations: InvitationsService;
  sessions: SessionsService;
  accounts: Pick<AccountsService, 'open'> & Pick<AccountRecords, 'byEmail' | 'byId'>;
  audit: AuditLog;
  throttle: SignInThrottle;
  /** Bounds the links one person has mailed to addresses of their choosing (e-mail changes). */
  counter: WindowCounter;
  mail: SignInMailer;
  secondFactor: SecondFactor;
  jobs: Pick<JobQueue, 'enqueue'>;
}) {
  const { db, clock, publicUrl, users, members, invitations, sessions, accounts, audit, throttle, mail, secondFactor, jobs } = deps;

  async function issueToken(purpose: TokenPurpose, who: { email?: string; userId?: number }, executor: Executor = db, ttlMs = TOKEN_TTL_MS[purpose]) {
    const token = randomBase62(43);
    const now = clock();
    await insertSignInToken(executor, {
      tokenHash: sha256Hex(token),
      purpose,
      email: who.email ?? null,
      userId: who.userId ?? null,
      createdAt: now,
      expiresAt: now + ttlMs,
    });
    return token;
  }

  /** The token's row as it would be accepted now, without using it; undefined for a malformed, used or expired one. */
  const pending = (purpose: TokenPurpose, token: string) =>
    TOKEN.test(token) ? findUsableSignInToken(db, sha256Hex(token), purpose, clock()) : Promise.resolve(undefined);

  async function consume(purpose: TokenPurpose, token: string, executor: Executor) {
    const row = TOKEN.test(token) ? await consumeSignInToken(executor, sha256Hex(token), purpose, clock()) : undefined;
    if (!row) throw unusableLink();
    return row;
  }

  const sourceFor = (user: Pick<UserRow, 'id' | 'email'>, accountId: number | null, client: Client): AuditSource => ({
    accountId,
    actor: { type: 'user', id: user.id, label: user.email },
    ip: client.ip,
  });

  /** A session in the person's first account; refused when they belong to none. */
  async function startSession(user: Pick<UserRow, 'id' | 'email'>, client: Client, method: string, executor: Executor = db): Promise<SignedIn> {
    const [first] = await members.accountsOf(user.id, executor);
    if (!first) throw forbidden('Your access to every account has ended; ask an owner to invite you again');
    await users.recordSignIn(user.id, executor);
    const started = await sessions.start(user.id, first.id, client, executor);
    await audit.record(
      sourceFor(user, first.id, client),
      { action: 'sign_in.succeeded', target: { type: 'user', id: user.id }, details: { method } },
      executor,
    );
    return { ...started, userId: user.id, accountId: first.id };
  }

  async function recordFailure(email: string, client: Client, reason: string): Promise<void> {
    const user = await users.byEmail(email);
    const [first] = user ? await members.accountsOf(user.id) : [];
    await audit.record(
      {
        accountId: first?.id ?? null,
        actor: user ? { type: 'user', id: user.id, label: user.email } : { type: 'system', id: null, label: 'unknown person' },
        ip: client.ip,
      },
      { action: 'sign_in.failed', target: user ? { type: 'user', id: user.id } : undefined, details: { reason } },
    );
  }

  /**
   * A requested link (magic link, reset, sign-up confirmation) is counted, then queued: whether
   * the e-mail has a sign-in is looked up by the job, so the answer takes as long either way and
   * its timing says nothing. The job is durable: a crash loses no request.
   */
  async function requestLinkMail(email: string, client: Client, purpose: LinkMailPayload['purpose'], next?: string): Promise<void> {
    const normalized = purpose === 'sign-up' ? newPersonEmail(email) : normalizeEmail(email);
    await throttle.begin(normalized, client.ip);
    const goesOn = dashboardPath(next);
    await jobs.enqueue(SIGN_IN_MAIL_JOB, { email: normalized, purpose, ...(goesOn !== '/app' && { next: goesOn }) } satisfies LinkMailPayload);
  }

  /**
   * A single-use link mailed to a person who has a sign-in (magic link, reset), valid 15 minutes,
   * in their first account's language. Nothing is sent for an unknown e-mail.
   */
  async function mailLinkToPerson(email: string, purpose: 'magic-link' | 'password-reset', next = '/app'): Promise<void> {
    const user = await users.byEmail(email);
    if (!user || user.disabled_at !== null) return;
    const [first] = await members.accountsOf(user.id);
    const page = purpose === 'magic-link' ? '/sign-in/link' : '/reset-password';
    await db.transaction().execute(async (trx) => {
      const token = await issueToken(purpose, { userId: user.id }, trx);
      const data = {
        accountId: first?.id ?? null,
        url: `${publicUrl}${page}?token=${token}${nextQuery(dashboardPath(next), '&')}`,
        minutes: TOKEN_TTL_MS[purpose] / MINUTE_MS,
      };
      if (purpose === 'magic-link') await mail.magicLink(user.email, data, trx);
      else await mail.passwordReset(user.email, data, trx);
    });
  }

  /** Open sign-up's confirmation link, for an address without a sign-in; nothing for one that has one. */
  async function mailSignUpLink(email: string): Promise<void> {
    if (await users.byEmail(email)) return;
    await db.transaction().execute(async (trx) => {
      const token = await issueToken('sign-up', { email }, trx);
      await mail.signUp(email, { url: `${publicUrl}/setup?signup=${token}`, hours: 24 }, trx);
    });
  }

  const linkMailJob: JobKind<LinkMailPayload> = {
    run: ({ email, purpose, next }) => (purpose === 'sign-up' ? mailSignUpLink(email) : mailLinkToPerson(email, purpose, next)),
    maxAttempts: 5,
    backoffMs: (attempt) => 2_000 * 2 ** (attempt - 1),
  };

  /**
   * The second factor, when on: none given is a 401 that asks for it; a wrong one counts as a
   * failed sign-in. Callers count the try with the throttle first, so codes cannot be guessed.
   */
  async function assertSecondFactor(user: UserRow, code: string | undefined, client: Client): Promise<void> {
    if (user.totp_confirmed_at === null) return;
    if (code === undefined || code.trim() === '') throw twoFactorRequired();
    if (!(await secondFactor.verify(user, code.trim()))) {
      await recordFailure(user.email, client, 'two-factor code');
      throw unauthorized('The two-factor code is not right');
    }
  }

  /**
   * A person proves who they are with their password and, when on, their second factor; each
   * try counts in the sign-in throttle (429 past its limits) and is given back on success.
   */
  function provePerson(email: string, proof: { password: string; code?: string }, client: Client, refusal: () => AppError = signInRefused) {
    return throttle.counted(email, client.ip, async () => {
      const user = await users.withPassword(email, proof.password);
      if (!user) {
        await recordFailure(email, client, 'password');
        throw refusal();
      }
      await assertSecondFactor(user, proof.code, client);
      return user;
    });
  }

  /**
   * The signed-in person's current password, for a change of their own sign-in. A wrong one is a
   * 422, not a 401: their session stands. Callers count the try with the throttle.
   */
  async function assertCurrentPassword(person: UserRow, password: string | undefined, client: Client, reason: string): Promise<UserRow> {
    const proven = password === undefined ? null : await users.withPassword(person.email, password);
    if (!proven) {
      await recordFailure(person.email, client, reason);
      throw unprocessable(password === undefined ? 'Enter your current password' : 'The current password is not right');
    }
    return proven;
  }

  /**
   * What a sign-in would ask, asked again before a change that cannot be undone by the session
   * alone: the current password when the person has one, the second factor when it is on. A
   * wrong or missing answer is a 422, counted like a failed sign-in.
   */
  async function proveSelf(person: UserRow, proof: SelfProof, client: Client, reason: string): Promise<void> {
    await throttle.counted(person.email, client.ip, async () => {
      if (person.password_hash !== null) await assertCurrentPassword(person, proof.currentPassword, client, reason);
      if (person.totp_confirmed_at === null) return;
      const code = proof.code?.trim() ?? '';
      if (code === '') throw unprocessable('Enter the six-digit code from your authenticator app, or a recovery code');
      if (!(await secondFactor.verify(person, code))) {
        await recordFailure(person.email, client, 'two-factor code');
        throw unprocessable('The two-factor code is not right');
      }
    });
  }

  /** The person of a session, for what only a signed-in person may do to their own sign-in. */
  async function personOf(principal: Principal): Promise<UserRow> {
    if (principal.actor.type !== 'user') throw forbidden('This endpoint is for a signed-in person, not an API key');
    const person = await users.byId(principal.actor.id);
    if (!person) throw unauthorized('Your session has ended: sign in again');
    return person;
  }

  /**
   * Whether what `proven` proved still stands, read under the person's lock in the transaction that
   * starts their session: a password or second factor changed while the proof's scrypt ran has
   * ended every session already, and would miss one begun after it.
   */
  async function stillProven(proven: UserRow, trx: Executor): Promise<boolean> {
    const now = await users.held(proven.id, trx);
    return (
      now !== undefined &&
      now.disabled_at === null &&
      now.password_hash === proven.password_hash &&
      now.totp_confirmed_at === proven.totp_confirmed_at
    );
  }

  /** The account a new owner gets: the one created earlier with the CLI for the same e-mail, or a new one. */
  async function ownAccount(email: string, companyName: string, executor: Executor): Promise<number> {
    const existing = await accounts.byEmail(email, executor);
    return existing?.id ?? accounts.open({ email, name: companyName, plan: deps.defaultPlan }, executor);
  }

  /** A new person becomes the owner of an account (first run, open sign-up) and is signed in. */
  async function startAsOwner(
    person: { email: string; name: string; password: string },
    accountId: number,
    client: Client,
    method: 'setup' | 'sign-up',
    trx: Executor,
  ): Promise<SignedIn> {
    const userId = await users.create(person, trx);
    await members.join(userId, accountId, 'owner', trx);
    const action = method === 'setup' ? 'account.set_up' : 'account.signed_up';
    await audit.record(
      sourceFor({ id: userId, email: person.email }, accountId, client),
      { action, target: { type: 'account', id: accountId } },
      trx,
    );
    return startSession({ id: userId, email: person.email }, client, method, trx);
  }

  return {
    /** A fresh first-run link (the start-up log line, `linkvault setup-link`); 409 once someone has signed up, when none would work. */
    async setupLink(): Promise<string> {
      if (await users.anyExists()) {
        throw new AppError(409, 'This server has been set up already: sign in, and add people with invitations or `linkvault users create`');
      }
      return `${publicUrl}/setup?token=${await issueToken('setup', {})}`;
    },

    async setupTokenUsable(token: string): Promise<boolean> {
      return (await pending('setup', token)) !== undefined && !(await users.anyExists());
    },

    needsSetup: async () => !(await users.anyExists()),

    async setup(input: { token: string; name: string; email: string; password: string; companyName: string }, client: Client): Promise<SignedIn> {
      if (input.companyName.trim() === '') throw badRequest('A company name is required');
      return db.transaction().execute(async (trx) => {
        // Every first-run link is used with this one, in one UPDATE: two used at once make one
        // owner, not two, and none is left over to make another once the server is in use.
        const spent = TOKEN.test(input.token) ? await spendLiveSignInTokens(trx, 'setup', clock()) : [];
        if (!spent.includes(sha256Hex(input.token))) throw unusableLink();
        if (await users.anyExists(trx)) throw new AppError(404, 'This server has been set up already; sign in instead');
        const email = normalizeEmail(input.email);
        const accountId = await ownAccount(email, input.companyName.trim(), trx);
        return startAsOwner({ ...input, email }, accountId, client, 'setup', trx);
      });
    },

    async signIn(input: { email: string; password: string; code?: string }, client: Client): Promise<SignedIn> {
      const user = await provePerson(normalizeEmail(input.email), input, client);
      return db.transaction().execute(async (trx) => {
        if (!(await stillProven(user, trx))) throw signInRefused();
        return startSession(user, client, 'password', trx);
      });
    },

    linkMailJob,

    /** Always 202 to the caller: a link goes out only when the e-mail has a sign-in. */
    /** `next`: the dashboard screen the link goes on to once signed in. */
    sendMagicLink: (email: string, client: Client, next?: string) => requestLinkMail(email, client, 'magic-link', next),

    /**
     * `linkvault users create`: a person without a password joins an account (created with the CLI
     * or by setup) with a role, and gets a one-time sign-in link valid a day. Someone already in the
     * account keeps the role they hold (roles change in the dashboard), which is answered with the link.
     */
    async addPersonByOperator(input: {
      email: string;
      name?: string;
      accountEmail: string;
      role: Role;
    }): Promise<{ signInLink: string; role: Role }> {
      const account = await accounts.byEmail(input.accountEmail);
      if (!account) throw notFound(`Account ${input.accountEmail}`);
      const email = normalizeEmail(input.email);
      return db.transaction().execute(async (trx) => {
        const existing = await users.byEmail(email, trx);
        const userId = existing?.id ?? (await users.create({ email, name: input.name ?? email.split('@')[0]!, password: null }, trx));
        const held = await members.roleIn(userId, account.id, trx);
        if (held === null) {
          await members.join(userId, account.id, input.role, trx);
          await audit.record(
            commandLineSource(account.id),
            { action: 'member.added', target: { type: 'user', id: userId }, details: { email, role: input.role } },
            trx,
          );
        }
        const signInLink = `${publicUrl}/sign-in/link?token=${await issueToken('magic-link', { userId }, trx, CLI_LINK_TTL_MS)}`;
        return { signInLink, role: held ?? input.role };
      });
    },

    /**
     * Single sign-on (`oidc.service.ts`, which decides who may come in): the identity provider
     * vouched for the person, so neither password nor second factor is asked; its own factors stand in.
     */
    signInVerified: (user: Pick<UserRow, 'id' | 'email'>, client: Client, executor: Executor = db) => startSession(user, client, 'oidc', executor),
    recordSignInFailure: recordFailure,

    /**
     * The second factor is checked before the link is spent, so a try without the code can be
     * repeated with it; each try with a second factor counts in the sign-in throttle.
     */
    async signInWithLink(input: { token: string; code?: string }, client: Client): Promise<SignedIn> {
      const link = await pending('magic-link', input.token);
      const user = link?.user_id == null ? undefined : await users.byId(link.user_id);
      if (!user || user.disabled_at !== null) throw unusableLink();
      if (user.totp_confirmed_at !== null) await throttle.counted(user.email, client.ip, () => assertSecondFactor(user, input.code, client));
      return db.transaction().execute(async (trx) => {
        await consume('magic-link', input.token, trx);
        return startSession(user, client, 'magic link', trx);
      });
    },

    sendPasswordReset: (email: string, client: Client) => requestLinkMail(email, client, 'password-reset'),

    /**
     * Sets the new password and ends every session of the person, and every other link mailed to
     * them (whoever saw one must not get back in); they sign in again with it.
     */
    async resetPassword(input: { token: string; password: string }, client: Client): Promise<void> {
      const userId = await db.transaction().execute(async (trx) => {
        const row = await consume('password-reset', input.token, trx);
        const user = row.user_id === null ? undefined : await users.byId(row.user_id, trx);
        if (!user) throw unusableLink();
        await users.setPassword(user.id, input.password, trx);
        await sessions.endAllOf(user.id, trx);
        await spendLiveSignInTokensOf(trx, user.id, clock());
        const [first] = await members.accountsOf(user.id, trx);
        await audit.record(sourceFor(user, first?.id ?? null, client), { action: 'password.reset', target: { type: 'user', id: user.id } }, trx);
        return user.id;
      });
      sessions.forgetUser(userId);
    },

    /**
     * The signed-in person changes their password by giving the current one (counted like a failed
     * sign-in when wrong); their other sessions end, and the links mailed to them, this session stays.
     */
    async changePassword(
      principal: Principal,
      input: { currentPassword: string; newPassword: string },
      sessionId: string | undefined,
      client: Client,
    ) {
      const person = await personOf(principal);
      const user = await throttle.counted(person.email, client.ip, () =>
        assertCurrentPassword(person, input.currentPassword, client, 'password change'),
      );
      await db.transaction().execute(async (trx) => {
        await users.setPassword(user.id, input.newPassword, trx);
        await sessions.endAllOf(user.id, trx, sessionId);
        await spendLiveSignInTokensOf(trx, user.id, clock());
        await audit.record(sourceFor(user, principal.accountId, client), { action: 'password.changed', target: { type: 'user', id: user.id } }, trx);
      });
      sessions.forgetUser(user.id);
    },

    /**
     * The signed-in person's own settings: their name (as members, invitations and the audit log
     * show it), and whether they hear of views of their links.
     */
    async updateMe(principal: Principal, changes: { name?: string; viewAlerts?: boolean }, client: Client) {
      const person = await personOf(principal);
      const trimmed = changes.name?.trim();
      if (trimmed === '') throw unprocessable('A name cannot be blank');
      const source = sourceFor(person, principal.accountId, client);
      const target = { type: 'user', id: person.id } as const;
      await db.transaction().execute(async (trx) => {
        if (trimmed !== undefined && trimmed !== person.name) {
          await users.rename(person.id, trimmed, trx);
          await audit.record(source, { action: 'user.renamed', target, details: { from: person.name, to: trimmed } }, trx);
        }
        if (changes.viewAlerts !== undefined && changes.viewAlerts !== (person.view_alerts_muted === 0)) {
          await users.setViewAlerts(person.id, changes.viewAlerts, trx);
          await audit.record(source, { action: 'user.view_alerts_changed', target, details: { viewAlerts: changes.viewAlerts } }, trx);
        }
      });
      return this.me(principal);
    },

    /**
     * The signed-in person asks to sign in with another address. They prove it with their current
     * password when they have one and their second factor when it is on (each try counted like a
     * sign-in); then a link valid an hour goes to the new address, and nothing changes until it is
     * opened. A newer request spends the link of an older one. Answers the address written to.
     */
    async requestEmailChange(principal: Principal, input: SelfProof & { email: string }, client: Client) {
      const person = await personOf(principal);
      const email = newPersonEmail(input.email);
      if (email === person.email) throw conflict('This is already the address you sign in with');
      await proveSelf(person, input, client, 'e-mail change');
      if (await users.byEmail(email)) throw addressTaken(email);
      await takePlace(deps.counter, {
        key: `email-change:${person.id}`,
        limit: EMAIL_CHANGES_PER_HOUR,
        windowMs: 60 * MINUTE_MS,
        message: `At most ${EMAIL_CHANGES_PER_HOUR} new addresses an hour: wait a while and ask again`,
      });
      await db.transaction().execute(async (trx) => {
        await spendLiveSignInTokensOf(trx, person.id, clock(), 'email-change');
        const token = await issueToken('email-change', { userId: person.id, email }, trx);
        const url = `${publicUrl}/confirm-email?token=${token}`;
        await mail.emailChange(email, { accountId: principal.accountId, url, minutes: TOKEN_TTL_MS['email-change'] / MINUTE_MS }, trx);
        const target = { type: 'user', id: person.id } as const;
        await audit.record(
          sourceFor(person, principal.accountId, client),
          { action: 'user.email_change_requested', target, details: { to: email } },
          trx,
        );
      });
      return email;
    },

    /** The new address of a usable e-mail change link, for its page to name; undefined when the link cannot be used. */
    async emailChangeFor(token: string): Promise<string | undefined> {
      return (await pending('email-change', token))?.email ?? undefined;
    },

    /**
     * The new address's link was opened: it becomes the person's sign-in. Every other link mailed
     * to them is spent (the old address must not sign in any more), each of their accounts' audit
     * logs records it, and the old address is told. Their sessions stay.
     */
    async confirmEmailChange(token: string, client: Client): Promise<void> {
      const userId = await db.transaction().execute(async (trx) => {
        const row = await consume('email-change', token, trx);
        const person = row.user_id === null ? undefined : await users.held(row.user_id, trx);
        if (!person || person.disabled_at !== null || row.email === null) throw unusableLink();
        const email = row.email;
        if (await users.byEmail(email, trx)) throw addressTaken(email);
        try {
          await users.changeEmail(person.id, email, trx);
        } catch (error) {
          // PostgreSQL: another person took the address in the instant since the read above.
          throw isUniqueViolation(error) ? addressTaken(email) : error;
        }
        await spendLiveSignInTokensOf(trx, person.id, clock());
        const accountsOfPerson = await members.accountsOf(person.id, trx);
        for (const account of accountsOfPerson) {
          await audit.record(
            sourceFor({ id: person.id, email }, account.id, client),
            { action: 'user.email_changed', target: { type: 'user', id: person.id }, details: { from: person.email, to: email } },
            trx,
          );
        }
        await mail.emailChanged(person.email, { accountId: accountsOfPerson[0]?.id ?? null, newEmail: email }, trx);
        return person.id;
      });
      sessions.forgetUser(userId);
    },

    /**
     * The person deletes their sign-in: proved like a sign-in, they leave every account (each
     * records `member.left`; their keys are revoked, their invitations withdrawn), then the row
     * goes with their sessions and links. Refused while they are the last owner of an account.
     */
    async deleteSelf(principal: Principal, proof: SelfProof, client: Client): Promise<void> {
      const person = await personOf(principal);
      await proveSelf(person, proof, client, 'sign-in deletion');
      const accountIds = await db.transaction().execute(async (trx) => {
        // In the language and brand of the account they were signed in to, read before they leave it.
        await mail.signInDeleted(person.email, { accountId: principal.accountId }, trx);
        const left = await members.leaveAll(principal, person.id, trx);
        await users.remove([person.id], trx);
        return left;
      });
      members.forgetLeaving(person.id, accountIds);
    },

    /** The signed-in person, once they have proved it is them (`proveSelf`), for another module's change of consequence. */
    async provenPerson(principal: Principal, proof: SelfProof, client: Client, reason: string): Promise<UserRow> {
      const person = await personOf(principal);
      await proveSelf(person, proof, client, reason);
      return person;
    },

    async invitationFor(token: string) {
      const invitation = await invitations.peek(token);
      if (!invitation) return null;
      const account = await accounts.byId(invitation.accountId);
      const user = await users.byEmail(invitation.email);
      return { ...invitation, accountName: account?.name ?? account?.email ?? '', hasSignIn: user !== undefined };
    },

    /**
     * Joins the invitation's account. A new person gives a name and password (unless sign-up is
     * closed); a person who already signs in proves it as at sign-in: password, second factor
     * when on, each try counted by the throttle.
     */
    async acceptInvitation(input: { token: string; name?: string; password: string; code?: string }, client: Client): Promise<SignedIn> {
      const invited = await invitations.peek(input.token);
      const known = invited && (await users.byEmail(invited.email));
      const proven = known ? await provePerson(known.email, input, client, existingSignIn) : undefined;
      return db.transaction().execute(async (trx) => {
        const invitation = await invitations.claim(input.token, trx);
        const existing = await users.byEmail(invitation.email, trx);
        let user: Pick<UserRow, 'id' | 'email'>;
        if (existing) {
          // Proven above; or the sign-in was made or changed since, and the next try proves it.
          if (existing.id !== proven?.id || !(await stillProven(proven, trx))) throw existingSignIn();
          user = existing;
        } else {
          if (deps.signup === 'closed') throw forbidden('New people cannot join this linkvault: the administrator has closed sign-up');
          const userId = await users.create({ email: invitation.email, name: input.name ?? '', password: input.password }, trx);
          user = { id: userId, email: invitation.email };
        }
        const role = await members.join(user.id, invitation.accountId, invitation.role, trx);
        const source = sourceFor(user, invitation.accountId, client);
        await audit.record(source, { action: 'invitation.accepted', target: { type: 'user', id: user.id }, details: { role } }, trx);
        const started = await sessions.start(user.id, invitation.accountId, client, trx);
        await users.recordSignIn(user.id, trx);
        return { ...started, userId: user.id, accountId: invitation.accountId };
      });
    },

    /** Open sign-up, step one: a confirmation link to the address (always 202). */
    async startSignUp(email: string, client: Client): Promise<void> {
      if (deps.signup !== 'open') throw forbidden('Sign-up is by invitation only on this linkvault');
      await requestLinkMail(email, client, 'sign-up');
    },

    /** Open sign-up, step two: the confirmed address becomes the owner of a new account. */
    async completeSignUp(input: { token: string; name: string; password: string; companyName: string }, client: Client): Promise<SignedIn> {
      if (deps.signup !== 'open') throw forbidden('Sign-up is by invitation only on this linkvault');
      if (input.companyName.trim() === '') throw badRequest('A company name is required');
      return db.transaction().execute(async (trx) => {
        const row = await consume('sign-up', input.token, trx);
        const email = row.email ?? '';
        const accountId = await accounts.open({ email, name: input.companyName.trim(), plan: deps.defaultPlan }, trx);
        return startAsOwner({ ...input, email }, accountId, client, 'sign-up', trx);
      });
    },

    /** Moves the session to another of the person's accounts, under a new id. */
    async switchAccount(principal: Principal, sessionId: string, accountId: number, client: Client): Promise<StartedSession> {
      if (principal.actor.type !== 'user') throw forbidden('This endpoint is for a signed-in person, not an API key');
      const userId = principal.actor.id;
      if (!(await members.roleIn(userId, accountId))) throw notFound(`Account ${accountId}`);
      return sessions.rotate(sessionId, userId, accountId, client);
    },

    async signOut(sessionId: string | undefined): Promise<void> {
      if (sessionId !== undefined) await sessions.end(sessionId);
    },

    /** Who is asking, in which account, with which role, and the CSRF token their changes must carry. */
    async me(principal: Principal) {
      const account = await accounts.byId(principal.accountId);
      if (principal.actor.type !== 'user') {
        const name = account?.name ?? account?.email ?? '';
        return {
          user: null,
          account: { id: principal.accountId, name, plan: principal.plan },
          role: principal.role,
          accounts: [{ id: principal.accountId, name, role: principal.role }],
          csrfToken: null,
          areas: areasOf(principal.role),
          areasAbovePlan: areasAbovePlan(principal.role, principal.plan),
        };
      }
      const user = await users.byId(principal.actor.id);
      if (!user) throw unauthorized('Your session has ended: sign in again');
      return {
        user: {
          id: user.id,
          email: user.email,
          name: user.name,
          twoFactor: user.totp_confirmed_at !== null,
          hasPassword: user.password_hash !== null,
          viewAlerts: user.view_alerts_muted === 0,
        },
        account: { id: principal.accountId, name: account?.name ?? account?.email ?? '', plan: principal.plan },
        role: principal.role,
        accounts: await members.accountsOf(user.id),
        csrfToken: principal.session?.csrfToken ?? null,
        areas: areasOf(principal.role),
        areasAbovePlan: areasAbovePlan(principal.role, principal.plan),
      };
    },

    /** GET /api/me for a session just started (the answer of sign-in). */
    async meForSession(sessionId: string, ip: string) {
      const identity = await sessions.authenticate(sessionId);
      if (!identity) throw unauthorized('Your session has ended: sign in again');
      return this.me({ ...identity, ip });
    },

    /** For the token sweep: setup, sign-up, sign-in and reset links that expired before `before`. */
    deleteTokensExpiredBefore: (before: number, limit: number) => deleteExpiredSignInTokens(db, before, limit),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
