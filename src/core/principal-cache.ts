import type { Identity } from './auth.js';

const MAX_ENTRIES = 10_000;

/**
 * Resolved API keys or sessions, kept for at most `ttlMs`, so a burst of requests with one reads
 * the database once. Changes made in this process (a key revoked, a session ended, a role
 * changed) drop entries at once; a change made by another replica or the CLI is seen within
 * `ttlMs`. Only what resolved is kept, so random keys cannot fill it.
 *
 * A lookup still under way when entries are dropped may have read what was just ended, before
 * the end was committed: `set` keeps nothing whose read began before the last drop (`readBegins`).
 */
export function createPrincipalCache(clock: () => number, ttlMs = 1000) {
  const entries = new Map<string, { principal: Identity; until: number }>();
  let drops = 0;
  return {
    get(hash: string): Identity | undefined {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.until > clock()) return entry.principal;
      entries.delete(hash);
      return undefined;
    },
    /** A mark to take before reading what is then `set`. */
    readBegins: () => drops,
    set(hash: string, principal: Identity, readBegan: number): void {
      if (readBegan !== drops) return;
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(hash, { principal, until: clock() + ttlMs });
    },
    forget(hashes: string[]): void {
      drops++;
      for (const hash of hashes) entries.delete(hash);
    },
    forgetWhere(matches: (principal: Identity) => boolean): void {
      drops++;
      for (const [hash, entry] of entries) if (matches(entry.principal)) entries.delete(hash);
    },
  };
}
