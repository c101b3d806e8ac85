import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './address-policy.js';

/** The request was not made (or its answer not followed) because of the destination policy. */
export class RefusedDestinationError extends Error {
  override name = 'RefusedDestinationError';
}

/** Resolves a host name to every address it has (the connection may use any of them). */
export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, family) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, family }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/**
 * A `lookup` for net.connect that refuses a host when any of its addresses is not public.
 * It runs at connect time, on the very addresses the socket will use: a name that resolved
 * to a public address when it was checked and to 127.0.0.1 now (DNS rebinding) is refused.
 */
export function guardedLookup(resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options.family === 'number' ? options.family : options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : 0;
    resolver(hostname, family).then(
      (addresses) => {
        const refused = addresses.find((candidate) => !isPublicAddress(candidate.address));
        if (refused) {
          callback(new RefusedDestinationError(`${hostname} resolves to an address that is not public`), '');
        } else if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0]!.address, addresses[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

export interface SafeResponse {
  status: number;
  /** the start of the body (at most maxResponseBytes), for error messages */
  body: string;
}

export interface SafeHttpClient {
  postJson(url: string, payload: unknown): Promise<SafeResponse>;
  /** Posts `body` (JSON text) as it is, with extra headers (a signature over these exact bytes). */
  post(url: string, body: string, headers?: Record<string, string>): Promise<SafeResponse>;
}

export interface SafeHttpOptions {
  /** ALLOW_PRIVATE_WEBHOOKS (tests only): http and any address are allowed. */
  allowPrivateAddresses: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  resolver?: Resolver;
  /** Certificates trusted beside the system's (WEBHOOK_CA_FILE: receivers behind a private CA). */
  ca?: string;
}

/**
 * The only way the service calls a URL a user gave it: https to a public address, checked
 * on the resolved IP at connect time; redirects are never followed (a 3xx is refused, so a
 * public host cannot bounce the request inward); bounded time and response size.
 */
export function createSafeHttpClient(options: SafeHttpOptions): SafeHttpClient {
  const { allowPrivateAddresses } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 4096;
  const lookup = allowPrivateAddresses ? undefined : guardedLookup(options.resolver);

  /** The URL, if policy lets a request go to it; host names are checked again when connecting. */
  function checkedUrl(raw: string): URL {
    if (!URL.canParse(raw)) throw new RefusedDestinationError('not a URL');
    const url = new URL(raw);
    const schemes = allowPrivateAddresses ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) throw new RefusedDestinationError(`${url.protocol} URLs are not allowed, only https:`);
    if (url.username || url.password) throw new RefusedDestinationError('URLs with credentials are not allowed');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is never looked up, so the connect-time check would not see it.
    if (!allowPrivateAddresses && isIP(host) !== 0 && !isPublicAddress(host)) {
      throw new RefusedDestinationError(`${host} is not a public address`);
    }
    return url;
  }

  // Node's own roots plus the operator's: `ca` alone would replace the system's trust.
  const ca = options.ca === undefined ? undefined : [...tls.rootCertificates, options.ca];

  async function post(raw: string, text: string, headers: Record<string, string> = {}): Promise<SafeResponse> {
    const url = checkedUrl(raw);
    const body = Buffer.from(text);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<SafeResponse>((resolve, reject) => {
      const request = transport.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'linkvault-webhooks' },
        lookup,
        agent: false,
        ...(ca && url.protocol === 'https:' && { ca }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      request.on('error', reject);
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.destroy();
          reject(new RefusedDestinationError(`answered ${status} (a redirect); redirects are not followed`));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        const finish = () => resolve({ status, body: Buffer.concat(chunks).toString('utf8').slice(0, maxResponseBytes) });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (received >= maxResponseBytes) {
            response.destroy();
            finish();
          }
        });
        response.on('end', finish);
        response.on('error', reject);
      });
      request.end(body);
    });
  }

  return { post, postJson: (raw, payload) => post(raw, JSON.stringify(payload)) };
}
