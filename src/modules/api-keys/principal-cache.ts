import type { Identity } from '../../core/auth.js';

const MAX_ENTRIES = 10_000;

/**
 * Resolved keys, kept for at most `ttlMs`, so a burst of requests with one key reads the
 * database once. Changes made in this process (toggle, revoke, plan) drop entries at once;
 * a change made by another replica or the CLI is seen within `ttlMs`. Only valid keys are
 * kept, so random keys cannot fill it.
 */
export function createPrincipalCache(clock: () => number, ttlMs = 1000) {
  const entries = new Map<string, { principal: Identity; until: number }>();
  const forgetWhere = (matches: (principal: Identity) => boolean) => {
    for (const [hash, entry] of entries) if (matches(entry.principal)) entries.delete(hash);
  };
  return {
    get(keyHash: string): Identity | undefined {
      const entry = entries.get(keyHash);
      if (!entry) return undefined;
      if (entry.until > clock()) return entry.principal;
      entries.delete(keyHash);
      return undefined;
    },
    set(keyHash: string, principal: Identity): void {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(keyHash, { principal, until: clock() + ttlMs });
    },
    forgetKey: (apiKeyId: number) => forgetWhere((principal) => principal.actor.id === apiKeyId),
    forgetAccount: (accountId: number) => forgetWhere((principal) => principal.accountId === accountId),
  };
}
