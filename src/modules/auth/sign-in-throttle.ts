import { clientNetworkOf } from '../../infra/http/address-policy.js';
import { tooManyRequests } from '../../core/errors.js';
import type { WindowCounter } from '../../core/rate-limit.js';

const WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_IP = 20;

/**
 * Failed sign-ins per e-mail (5) and per client address (20) in 15 minutes, counted in the
 * shared window counter (Redis when configured). Each try is counted before the password is
 * checked, so parallel guesses cannot slip past, and given back when it succeeds.
 */
export function createSignInThrottle(counter: WindowCounter) {
  const keys = (email: string, ip: string) => [`signin:email:${email}`, `signin:ip:${clientNetworkOf(ip)}`] as const;
  /** Counts a try; 429 with Retry-After once either window is full. */
  async function begin(email: string, ip: string): Promise<void> {
    const [byEmail, byIp] = keys(email, ip);
    const [emailHit, ipHit] = await Promise.all([counter.hit(byEmail, WINDOW_MS), counter.hit(byIp, WINDOW_MS)]);
    const over = [emailHit.count > FAILURES_PER_EMAIL ? emailHit : null, ipHit.count > FAILURES_PER_IP ? ipHit : null].filter((hit) => hit !== null);
    if (over.length > 0) {
      const resetInMs = Math.max(...over.map((hit) => hit.resetInMs));
      throw tooManyRequests(resetInMs / 1000, 'Too many failed sign-in attempts: wait a few minutes and try again');
    }
  }

  /** The try succeeded: it does not count as a failure. */
  async function succeeded(email: string, ip: string): Promise<void> {
    await Promise.all(keys(email, ip).map((key) => counter.release(key)));
  }

  return {
    /** Counts a try that cannot succeed here (a mailed link asked for): 429 past the limits. */
    begin,
    /** Runs `attempt` as a counted try: counted before it runs (429 past the limits), given back when it succeeds. */
    async counted<T>(email: string, ip: string, attempt: () => Promise<T>): Promise<T> {
      await begin(email, ip);
      const result = await attempt();
      await succeeded(email, ip);
      return result;
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
