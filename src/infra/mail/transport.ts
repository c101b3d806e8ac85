import type Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { ConfigError } from '../../config.js';
import { sha256Hex } from '../crypto/tokens.js';
import { loadOnFirstUse } from '../load-on-first-use.js';

const nodemailer = loadOnFirstUse<typeof Nodemailer>('nodemailer');

export interface MailTransportSettings {
  host: string;
  port: number;
  /** implicit TLS from the first byte (smtps, usually port 465) */
  secure: boolean;
  /** refuse to send unless the server upgrades with STARTTLS; otherwise STARTTLS is used when offered */
  requireTLS: boolean;
  user?: string;
  pass?: string;
  /** the From header: a bare address, "Name <address>", or a name and address for nodemailer to quote */
  from: string | { name: string; address: string };
  /** `servername`: the name the certificate must carry when `host` is the address it was resolved to. */
  tls?: { rejectUnauthorized?: boolean; ca?: string; servername?: string };
}

/** No single step of an SMTP exchange may take longer than this, so a hanging server only holds one message. */
export const SMTP_TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 15_000,
  dnsTimeout: 10_000,
} as const;

/**
 * Reads SMTP_URL:
 * - `smtp://user:pass@host[:587]`: plain connection upgraded with STARTTLS whenever the server offers it;
 *   add `?starttls=required` to refuse sending without it;
 * - `smtps://user:pass@host[:465]`: TLS from the first byte;
 * - `?tls=insecure` accepts any server certificate (self-signed test servers only: it allows interception).
 * User and password are URL-encoded in the URL (`p%40ss` for `p@ss`).
 */
export function transportSettingsFromUrl(smtpUrl: string, from: string): MailTransportSettings {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new ConfigError('SMTP_URL must be a URL such as smtp://user:pass@host:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new ConfigError('SMTP_URL must name a host');
  for (const name of url.searchParams.keys()) {
    if (name !== 'tls' && name !== 'starttls') throw new ConfigError(`SMTP_URL has an unknown option "${name}"`);
  }
  const tls = url.searchParams.get('tls');
  if (tls !== null && tls !== 'insecure') throw new ConfigError('SMTP_URL tls= accepts only "insecure"');
  const starttls = url.searchParams.get('starttls');
  if (starttls !== null && starttls !== 'required') throw new ConfigError('SMTP_URL starttls= accepts only "required"');
  const secure = url.protocol === 'smtps:';
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const pass = url.password === '' ? undefined : decodeURIComponent(url.password);
  return {
    host,
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    requireTLS: starttls === 'required',
    ...(user !== undefined ? { user, pass: pass ?? '' } : {}),
    from,
    ...(tls === 'insecure' ? { tls: { rejectUnauthorized: false } } : {}),
  };
}

function transporterOptions(settings: MailTransportSettings): SMTPTransport.Options {
  return {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTLS,
    ...(settings.user !== undefined ? { auth: { user: settings.user, pass: settings.pass ?? '' } } : {}),
    tls: {
      rejectUnauthorized: settings.tls?.rejectUnauthorized ?? true,
      ...(settings.tls?.ca !== undefined ? { ca: settings.tls.ca } : {}),
      ...(settings.tls?.servername !== undefined ? { servername: settings.tls.servername } : {}),
    },
    ...SMTP_TIMEOUTS,
    // Message parts are ours, but never let content make nodemailer read a local file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  };
}

export interface TransportCache {
  get(settings: MailTransportSettings): Transporter<SMTPTransport.SentMessageInfo>;
  closeAll(): void;
}

/**
 * One transporter per distinct server settings (the From header is per message and not part
 * of the key). Connections are not pooled: each message opens its own, so nothing stays open
 * between messages. Keys are hashed so the map holds no password in clear.
 */
export function createTransportCache(maxEntries = 32): TransportCache {
  const transporters = new Map<string, Transporter<SMTPTransport.SentMessageInfo>>();
  return {
    get(settings) {
      const { from: _from, ...server } = settings;
      const key = sha256Hex(JSON.stringify(server));
      let transporter = transporters.get(key);
      if (transporter) {
        // Re-inserting keeps the map in least-recently-used order for eviction.
        transporters.delete(key);
      } else {
        transporter = nodemailer().createTransport(transporterOptions(settings));
        if (transporters.size >= maxEntries) {
          const [oldestKey, oldest] = transporters.entries().next().value!;
          transporters.delete(oldestKey);
          oldest.close();
        }
      }
      transporters.set(key, transporter);
      return transporter;
    },
    closeAll() {
      for (const transporter of transporters.values()) transporter.close();
      transporters.clear();
    },
  };
}
