import { Resolver } from 'node:dns/promises';

/** The TXT records of a name, each record's strings joined; [] when the name or the record does not exist. */
export type TxtLookup = (name: string) => Promise<string[]>;

/** The lookup itself failed (timeout, server failure): the record may well exist. */
export class TxtLookupError extends Error {
  override name = 'TxtLookupError';
}

const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * TXT lookups through `servers` (DNS_SERVERS, host:port) or the system's resolvers, given up
 * after `timeoutMs` whatever the resolver's own retries.
 */
export function createTxtLookup(options: { servers: string[]; timeoutMs?: number }): TxtLookup {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (name) => {
    // A resolver per lookup: cancel() stops every query of its resolver, not just this one.
    const resolver = new Resolver({ timeout: Math.min(timeoutMs, 2_000), tries: 2 });
    if (options.servers.length > 0) resolver.setServers(options.servers);
    const timer = setTimeout(() => resolver.cancel(), timeoutMs);
    try {
      const records = await resolver.resolveTxt(name);
      return records.map((strings) => strings.join(''));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      if (NO_RECORD.has(code)) return [];
      throw new TxtLookupError(code === 'ECANCELLED' ? 'no answer in time' : `DNS error ${code}`);
    } finally {
      clearTimeout(timer);
    }
  };
}
