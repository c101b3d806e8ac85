import { randomInt } from 'node:crypto';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { unprocessable } from '../../core/errors.js';
import { takePlace, type WindowCounter } from '../../core/rate-limit.js';
import { clientNetworkOf } from '../../infra/http/address-policy.js';
import { safeEqual, sha256Hex } from '../../infra/crypto/tokens.js';
import { consumeOtpCode, findLatestOtpCode, insertOtpCode, takeOtpTry } from './visits.repo.js';

export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_TRIES = 5;
export const OTP_CODES_PER_WINDOW = 3;
/** Codes one client (IP) may have sent for one link or portal, whatever the addresses. */
export const OTP_CODES_PER_CLIENT = { limit: 10, windowMs: 10 * 60_000 } as const;
/** Codes one link or portal may send in all: a bound on mail sent to the customer's people. */
export const OTP_CODES_PER_SCOPE = { limit: 100, windowMs: 60 * 60_000 } as const;
/**
 * Codes across every link and portal: to one mailbox (so a stranger cannot fill someone's inbox by
 * asking on each link that admits them), and from one client network.
 */
export const OTP_CODES_PER_MAILBOX = { limit: 10, windowMs: 60 * 60_000 } as const;
export const OTP_CODES_PER_NETWORK = { limit: 30, windowMs: 10 * 60_000 } as const;

/** The mailbox an address delivers to, as far as every mail server agrees: `ann+deal@x.com` is `ann@x.com`'s. */
const mailboxOf = (email: string) => email.replace(/\+[^@]*@/, '@');

const hashCode = (scope: string, email: string, code: string) => sha256Hex(`${scope}\n${email}\n${code}`);

/**
 * One-time passcodes by e-mail, for links and portals alike (`scope` says which).
 * 6 digits, valid 10 minutes, burnt after 5 wrong tries. Of one scope, at most 3 per mailbox per
 * 10 minutes, 10 per client network per 10 minutes and 100 per hour in all; of all scopes, 10 per
 * mailbox an hour and 30 per client network per 10 minutes; counted in the shared throttle store
 * so replicas agree.
 */
export function createOtpService(deps: { db: Db; clock: Clock; counter: WindowCounter }) {
  const { db, clock, counter } = deps;

  const assertUnder = (key: string, window: { limit: number; windowMs: number }, message: string, filled?: () => Promise<void>) =>
    takePlace(counter, { key, ...window, message }, filled);

  return {
    /**
     * Counts a code about to be sent against its limits (429 past any), before the transaction
     * that stores and mails it. `scopeFilled` runs once per hour, for the request that first
     * finds the scope's own limit reached.
     */
    async admit(scope: string, email: string, clientIp: string, scopeFilled?: () => Promise<void>): Promise<void> {
      const network = clientNetworkOf(clientIp);
      const mailbox = mailboxOf(email);
      // The client's own limits first, so one client cannot spend the whole scope's allowance.
      await assertUnder(`otp-client:${scope}:${network}`, OTP_CODES_PER_CLIENT, 'You have asked for too many codes; wait a few minutes');
      await assertUnder(`otp-network:${network}`, OTP_CODES_PER_NETWORK, 'You have asked for too many codes; wait a few minutes');
      await assertUnder(`otp-scope:${scope}`, OTP_CODES_PER_SCOPE, 'Too many codes have been sent for this document; try again later', scopeFilled);
      await assertUnder(
        `otp:${scope}:${mailbox}`,
        { limit: OTP_CODES_PER_WINDOW, windowMs: OTP_TTL_MS },
        'Too many codes requested for this address; wait a few minutes',
      );
      await assertUnder(
        `otp-mailbox:${mailbox}`,
        OTP_CODES_PER_MAILBOX,
        'Too many codes have been sent to this address in the last hour; try again later',
      );
    },

    /** Creates a code admitted just before (on `executor`: the caller's transaction, which mails it) and returns it. */
    async issue(scope: string, email: string, executor: Executor = db): Promise<string> {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const now = clock();
      await insertOtpCode(executor, { scope, email, codeHash: hashCode(scope, email, code), now, expiresAt: now + OTP_TTL_MS });
      return code;
    },

    /** Spends the code if it is right; every try is counted before the comparison, a wrong one is a 422, the 5th burns it. */
    async verify(scope: string, email: string, code: string): Promise<void> {
      const now = clock();
      const stored = await findLatestOtpCode(db, scope, email, now);
      const tries = stored && (await takeOtpTry(db, stored.id, OTP_MAX_TRIES, now));
      if (!stored || tries === undefined) throw unprocessable('This code has expired; ask for a new one');
      if (safeEqual(stored.code_hash, hashCode(scope, email, code.trim()))) {
        if (await consumeOtpCode(db, stored.id, now)) return;
        throw unprocessable('This code has already been used; ask for a new one');
      }
      if (tries >= OTP_MAX_TRIES) {
        await consumeOtpCode(db, stored.id, now);
        throw unprocessable('Too many wrong codes; ask for a new one');
      }
      throw unprocessable(`That code is not right; ${OTP_MAX_TRIES - tries} tries left`);
    },
  };
}

export type OtpService = ReturnType<typeof createOtpService>;
