import { randomInt } from 'node:crypto';
import { loadOnFirstUse } from '../../infra/load-on-first-use.js';
import type { Principal } from '../../core/auth.js';
import { badRequest, conflict, forbidden, notFound, unauthorized, unprocessable } from '../../core/errors.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { UserRow } from '../../db/types.js';
import { seal, unseal } from '../../infra/crypto/sealed.js';
import { sha256Hex } from '../../infra/crypto/tokens.js';
import type { SignInThrottle } from '../auth/sign-in-throttle.js';
import { COMMAND_LINE, type AuditLog, type AuditSource } from '../audit/audit.service.js';
import type { MembersService } from '../members/members.service.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { UsersService } from '../users/users.service.js';
import { deleteRecoveryCodes, replaceRecoveryCodes, spendRecoveryCode } from './two-factor.repo.js';

// Loaded by the first two-factor request, not at start (docs/adr/0012-start-up.md).
const otpauth = loadOnFirstUse<typeof import('otpauth')>('otpauth');
const qrcode = loadOnFirstUse<typeof import('qrcode')>('qrcode');

const PERIOD_SECONDS = 30;
const RECOVERY_CODES = 10;
// No 0/o, 1/l/i: a code read from paper is typed back right.
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** How recent the sign-in of a person without a password must be to set up a factor. */
export const RECENT_SIGN_IN_MINUTES = 10;

const secretContext = (userId: number) => `users.totp_secret:${userId}`;
/** What a person types: spaces and dashes are theirs to add, letters in either case. */
const cleaned = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();

function recoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * Two-factor sign-in (RFC 6238 TOTP: SHA-1, six digits, 30 seconds, one step either side) with
 * ten single-use recovery codes. The secret is sealed under the master key in the person's row;
 * recovery codes are kept as SHA-256.
 */
export function createTwoFactorService(deps: {
  db: Db;
  clock: Clock;
  masterKey: Buffer;
  users: Pick<UsersService, 'byId' | 'byEmail' | 'setTwoFactor' | 'claimTotpStep' | 'withPassword' | 'held'>;
  members: Pick<MembersService, 'accountsOf'>;
  sessions: Pick<SessionsService, 'endAllOf' | 'forgetUser'>;
  /** With REQUIRE_2FA a key is judged by its maker's two-factor sign-in too. */
  apiKeys: Pick<ApiKeysService, 'forgetAccount'>;
  audit: Pick<AuditLog, 'record'>;
  /** The sign-in throttle: a wrong code or password here counts as one at sign-in, so a stolen session cannot guess its way through. */
  throttle: Pick<SignInThrottle, 'counted'>;
}) {
  const { db, clock, masterKey, users, members, sessions, apiKeys, audit, throttle } = deps;
  /** What this process remembers of the person's sessions and of the keys of their accounts goes with a change of their second factor. */
  async function forgetPrincipalsOf(userId: number): Promise<void> {
    sessions.forgetUser(userId);
    for (const account of await members.accountsOf(userId)) apiKeys.forgetAccount(account.id);
  }

  const totp = (secret: string, label: string) =>
    new (otpauth().TOTP)({
      issuer: 'linkvault',
      label,
      secret: otpauth().Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD_SECONDS,
    });

  /** The step of a current code of the person's secret, or null. */
  function matchingStep(user: UserRow, code: string): number | null {
    if (!user.totp_secret || !/^\d{6}$/.test(code)) return null;
    const now = clock();
    const delta = totp(unseal(masterKey, user.totp_secret, secretContext(user.id)), user.email).validate({ token: code, timestamp: now, window: 1 });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  }

  /** A current code (not used before) or an unused recovery code, which is spent. */
  async function verify(user: UserRow, rawCode: string, executor: Executor = db): Promise<boolean> {
    const code = cleaned(rawCode);
    const step = matchingStep(user, code);
    if (step !== null) return users.claimTotpStep(user.id, step, executor);
    return code.length === 10 && spendRecoveryCode(executor, user.id, sha256Hex(code), clock());
  }

  /** A wrong password or code given here, in the audit log as a failed sign-in is. */
  const recordFailure = (principal: Principal, user: UserRow, reason: string) =>
    audit.record(principal, { action: 'sign_in.failed', target: { type: 'user', id: user.id }, details: { reason } });

  /**
   * The person's current password, so that a session alone cannot put a factor of its own on them
   * (the person would then be locked out). Counted like a sign-in: 429 past its limits.
   */
  async function provePassword(principal: Principal, user: UserRow, password: string | undefined): Promise<void> {
    if (password === undefined) throw badRequest('Enter your current password to turn on two-factor sign-in');
    await throttle.counted(user.email, principal.ip, async () => {
      if (await users.withPassword(user.email, password)) return;
      await recordFailure(principal, user, 'password to turn on two-factor');
      throw unprocessable('The password is not right');
    });
  }

  /**
   * A person without a password proves who they are by having signed in moments ago (a magic link
   * or their identity provider), as a session taken from them later cannot.
   */
  function proveRecentSignIn(principal: Principal): void {
    const signedInAt = principal.session?.signedInAt ?? 0;
    if (clock() - signedInAt > RECENT_SIGN_IN_MINUTES * 60_000) {
      throw forbidden(
        `Sign in again to set up two-factor sign-in: without a password, it needs a sign-in from the last ${RECENT_SIGN_IN_MINUTES} minutes`,
      );
    }
  }

  async function personOf(principal: Principal): Promise<UserRow> {
    const user = principal.actor.type === 'user' ? await users.byId(principal.actor.id) : undefined;
    if (!user) throw unauthorized('Your session has ended: sign in again');
    return user;
  }

  return {
    verify,

    /** Starts (or starts over) enrolment: a fresh secret, as an otpauth URI and its QR code. */
    async enrol(principal: Principal) {
      const user = await personOf(principal);
      if (user.totp_confirmed_at !== null) throw conflict('Two-factor sign-in is already on; turn it off first to set it up again');
      if (user.password_hash === null) proveRecentSignIn(principal);
      const secret = new (otpauth().Secret)({ size: 20 }).base32;
      await users.setTwoFactor(user.id, seal(masterKey, secret, secretContext(user.id)), null);
      const otpauthUri = totp(secret, user.email).toString();
      return { otpauthUri, qrCodeSvg: await qrcode().toString(otpauthUri, { type: 'svg', margin: 1 }) };
    },

    /**
     * A code from the app turns two-factor on, with the person's password when they have one; the
     * recovery codes are shown this once; the person's other sessions end.
     */
    async confirm(principal: Principal, input: { code: string; password?: string }, currentSessionId: string | undefined): Promise<string[]> {
      const user = await personOf(principal);
      if (!user.totp_secret || user.totp_confirmed_at !== null) {
        throw conflict('No two-factor set-up is under way: start one with POST /api/me/two-factor');
      }
      if (user.password_hash === null) proveRecentSignIn(principal);
      else await provePassword(principal, user, input.password);
      const { code } = input;
      const step = matchingStep(user, cleaned(code));
      if (step === null || !(await users.claimTotpStep(user.id, step))) {
        throw badRequest('The code is not right: enter the six digits your authenticator app shows now');
      }
      const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
      await db.transaction().execute(async (trx) => {
        // Two confirmations sent together would each answer recovery codes, of which only the last set works.
        const now = await users.held(user.id, trx);
        if (now?.totp_confirmed_at !== null || now.totp_secret !== user.totp_secret) throw conflict('Two-factor sign-in was turned on meanwhile');
        await users.setTwoFactor(user.id, user.totp_secret, clock(), trx);
        await replaceRecoveryCodes(
          trx,
          user.id,
          codes.map((recovery) => sha256Hex(cleaned(recovery))),
        );
        await sessions.endAllOf(user.id, trx, currentSessionId);
        await audit.record(principal, { action: 'two_factor.enabled', target: { type: 'user', id: user.id } }, trx);
      });
      await forgetPrincipalsOf(user.id);
      return codes;
    },

    /** Turning it off takes a current code or a recovery code; each try counts as a sign-in (429 past its limits), a wrong one is audited as a failed one. */
    async disable(principal: Principal, code: string): Promise<void> {
      const user = await personOf(principal);
      if (user.totp_confirmed_at === null) throw conflict('Two-factor sign-in is not on');
      await throttle.counted(user.email, principal.ip, async () => {
        const disabled = await db.transaction().execute(async (trx) => {
          if (!(await verify(user, code, trx))) return false;
          await users.setTwoFactor(user.id, null, null, trx);
          await deleteRecoveryCodes(trx, user.id);
          await audit.record(principal, { action: 'two_factor.disabled', target: { type: 'user', id: user.id } }, trx);
          return true;
        });
        if (disabled) return;
        // Outside the transaction, which the refusal would otherwise roll back with it.
        await recordFailure(principal, user, 'two-factor code to turn it off');
        throw badRequest('The code is not right: enter a current code from your app or a recovery code');
      });
      await forgetPrincipalsOf(user.id);
    },

    /** `linkvault users reset-2fa`: for a person who lost their phone and their recovery codes. */
    async resetByOperator(email: string): Promise<void> {
      const user = await users.byEmail(email);
      if (!user) throw notFound(`Person ${email}`);
      const [first] = await members.accountsOf(user.id);
      const source: AuditSource = { accountId: first?.id ?? null, actor: COMMAND_LINE, ip: null };
      await db.transaction().execute(async (trx) => {
        await users.setTwoFactor(user.id, null, null, trx);
        await deleteRecoveryCodes(trx, user.id);
        await audit.record(source, { action: 'two_factor.reset', target: { type: 'user', id: user.id } }, trx);
      });
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
