import { randomInt } from 'node:crypto';
import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { tooManyRequests, unprocessable } from '../../core/errors.js';
import type { WindowCounter } from '../../core/rate-limit.js';
import { safeEqual, sha256Hex } from '../../infra/crypto/tokens.js';
import { consumeOtpCode, findLatestOtpCode, insertOtpCode, recordOtpAttempt } from './visits.repo.js';

export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_TRIES = 5;
export const OTP_CODES_PER_WINDOW = 3;

const hashCode = (scope: string, email: string, code: string) => sha256Hex(`${scope}\n${email}\n${code}`);

/**
 * One-time passcodes by e-mail, for links and portals alike (`scope` says which).
 * 6 digits, valid 10 minutes, burnt after 5 wrong tries, at most 3 per address per 10 minutes.
 */
export function createOtpService(deps: { db: Db; clock: Clock; counter: WindowCounter }) {
  const { db, clock, counter } = deps;
  return {
    /** Creates a code and returns it for the caller to mail; 429 past the per-address limit. */
    async issue(scope: string, email: string): Promise<string> {
      const { count, resetAt } = await counter.hit(`otp:${scope}:${email}`, OTP_TTL_MS);
      if (count > OTP_CODES_PER_WINDOW) {
        throw tooManyRequests((resetAt - clock()) / 1000, 'Too many codes requested for this address; wait a few minutes');
      }
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const now = clock();
      await insertOtpCode(db, { scope, email, codeHash: hashCode(scope, email, code), now, expiresAt: now + OTP_TTL_MS });
      return code;
    },

    /** Spends the code if it is right; a wrong one counts a try (422), the 5th burns it. */
    async verify(scope: string, email: string, code: string): Promise<void> {
      const now = clock();
      const stored = await findLatestOtpCode(db, scope, email, now);
      if (!stored || stored.attempts >= OTP_MAX_TRIES) throw unprocessable('This code has expired; ask for a new one');
      if (safeEqual(stored.code_hash, hashCode(scope, email, code.trim()))) {
        if (await consumeOtpCode(db, stored.id, now)) return;
        throw unprocessable('This code has already been used; ask for a new one');
      }
      const tries = await recordOtpAttempt(db, stored.id);
      if (tries >= OTP_MAX_TRIES) {
        await consumeOtpCode(db, stored.id, now);
        throw unprocessable('Too many wrong codes; ask for a new one');
      }
      throw unprocessable(`That code is not right; ${OTP_MAX_TRIES - tries} tries left`);
    },
  };
}

export type OtpService = ReturnType<typeof createOtpService>;
