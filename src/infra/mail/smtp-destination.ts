import { lookup } from 'node:dns/promises';
import { canonicalHost, isIpLiteral, isLocalhostName, isPublicAddress } from '../http/address-policy.js';
import { PermanentJobError } from '../jobs/index.js';
import type { MailTransportSettings } from './transport.js';

/** Every address a host name resolves to (the connection could use any of them). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: HostLookup = (hostname) => lookup(hostname, { all: true });

/**
 * An account's SMTP server that the SSRF policy refuses (a private, loopback, link-local or
 * unspecified address). Retrying cannot help: a permanent failure, the message fails at once.
 */
export class RefusedSmtpHostError extends PermanentJobError {
  override name = 'RefusedSmtpHostError';
}

/**
 * Why an account may not send through `host`, or null when it may. Decides IP literals (in
 * any notation) and localhost names; any other name is decided when connecting, on the
 * addresses it resolves to then (pinToPublicAddress).
 */
export function smtpHostRefusal(host: string): string | null {
  const canonical = canonicalHost(host);
  if (canonical === null) return `${host} is not a host name or IP address`;
  if (isIpLiteral(canonical)) return isPublicAddress(canonical) ? null : `${canonical} is not a public address`;
  if (isLocalhostName(canonical)) return `${canonical} names this server`;
  return null;
}

/**
 * The settings, made to connect to a checked address of the account's server: the name is
 * resolved here, every address must be public, and nodemailer gets the chosen IP as its host
 * (so it does not resolve again: a DNS answer cannot change between check and connect)
 * with the name as the TLS server name (the certificate is still verified against it).
 */
export async function pinToPublicAddress(settings: MailTransportSettings, lookupHost: HostLookup = systemLookup): Promise<MailTransportSettings> {
  const refusal = smtpHostRefusal(settings.host);
  if (refusal !== null) throw new RefusedSmtpHostError(`the account's SMTP host is refused: ${refusal}`);
  const host = canonicalHost(settings.host)!;
  if (isIpLiteral(host)) return { ...settings, host };
  const addresses = await lookupHost(host);
  const refused = addresses.find((candidate) => !isPublicAddress(candidate.address));
  if (refused) throw new RefusedSmtpHostError(`the account's SMTP host is refused: ${host} resolves to an address that is not public`);
  // No address is a DNS problem that may go away: an ordinary failure, retried.
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  // IPv4 first, as nodemailer itself prefers: a host without IPv6 routes still gets through.
  const chosen = addresses.find((candidate) => candidate.family === 4) ?? addresses[0]!;
  return { ...settings, host: chosen.address, tls: { ...settings.tls, servername: host } };
}
