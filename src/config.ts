import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

/** A value in the environment that the service cannot start with. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  /** `statementTimeoutSeconds`: how long one statement may run, waiting for locks included (0: no limit). */
  | { kind: 'postgres'; url: string; statementTimeoutSeconds?: number };

export type StorageConfig =
  { kind: 'local'; dir: string } | { kind: 's3'; bucket: string; endpoint?: string; region: string; forcePathStyle: boolean };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  database: DatabaseConfig;
  storage: StorageConfig;
  redisUrl: string | undefined;
  redisPrefix: string;
  /** base64 or hex of 32 bytes; undefined means "use or create the key file in dataDir" */
  masterKey: Buffer | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
  stripeApiBase: URL | undefined;
  platformFeePercent: number;
  logLevel: LogLevel;
  /** false, the number of proxies in front (the client is the address the farthest one saw), or the proxies' addresses */
  trustProxy: false | number | string[];
  rateLimitPerMinute: number;
  /** views one client network may open of one link in a minute (a reload inside a live session opens none) */
  viewsPerClientPerMinute: number;
  expiredRetentionDays: number;
  allowPrivateWebhooks: boolean;
  /** PEM certificates (from WEBHOOK_CA_FILE) trusted beside the system's for outgoing webhooks (a receiver behind a private CA). */
  webhookCa: string | undefined;
  /** Lets an account's SMTP host be a private or loopback address (a single-company install, tests). */
  allowPrivateSmtp: boolean;
  /** Resolvers for custom-domain verification, as host:port; empty means the system's. */
  dnsServers: string[];
  /** Bearer token that /metrics requires; unset, /metrics does not exist. */
  metricsToken: string | undefined;
  /** A connection on which nothing moves for this long is closed (a client that stops sending its request or reading its answer). */
  idleTimeoutSeconds: number;
  /** What one account's files may take in all, in bytes; null: no limit. */
  accountStorageBytes: number | null;
  /** Open connections one client network may hold; 0: no cap (behind a proxy, which caps them). */
  maxConnectionsPerClient: number;
  /** A request whose headers and body have not all arrived after this long is answered 408 and its connection closed. */
  requestTimeoutSeconds: number;
  /** After SIGTERM: how long /readyz answers 503 while requests are still served, so a balancer can notice. */
  shutdownDrainSeconds: number;
  /** Then: how long requests in flight may take to finish before they are cut. */
  shutdownGraceSeconds: number;
  /** How often the event dispatcher looks for due deliveries. */
  eventPollMs: number;
  /** Delay before the first retry of a failed delivery; doubled after each further failure. */
  eventRetryBaseMs: number;
  /** Tries before a delivery is given up and kept as failed. */
  eventMaxAttempts: number;
  /** Deliveries one process sends at once; 1 keeps each channel's messages in the order of their events. */
  eventConcurrency: number;
  /** LibreOffice's `soffice`, which turns Office documents into PDF; undefined: looked up on PATH; `none`: conversion off. */
  sofficePath: string | undefined;
  /** A conversion still running after this long is killed with its whole process group. */
  convertTimeoutSeconds: number;
  /** A page still being drawn after this long fails its document (PDFium's thread is ended). */
  pageDrawTimeoutSeconds: number;
  /** A document of more pages is not drawn (it ends failed) nor copied for a visitor (stamped or cut). */
  maxDocumentPages: number;
  /** What a document's page images may take beyond 100 times its PDF, in MiB (past it, the document ends failed). */
  documentImagesBaseMb: number;
  /** The address space LibreOffice may use (ulimit -v), in MiB. */
  convertMemoryMb: number;
  /** Documents one process converts or renders at once. */
  jobConcurrency: number;
  /** The plan of an account created at first run or by sign-up: a self-hosted install owns every feature. */
  defaultPlan: 'free' | 'professional' | 'business';
  /** Who may create a new account: nobody, people with an invitation (to an existing one), or anyone who confirms an e-mail. */
  signup: 'closed' | 'invite' | 'open';
  /** A session unused this long ends. */
  sessionIdleDays: number;
  /** A session ends this long after sign-in, used or not. */
  sessionAbsoluteDays: number;
  /** Owners and admins must turn on two-factor sign-in before they can do anything else. */
  require2fa: boolean;
  /** OpenID Connect single sign-on; undefined when OIDC_ISSUER is unset. */
  oidc: { issuer: string; clientId: string; clientSecret: string; autoJoinDomains: string[] } | undefined;
  auditRetentionDays: number;
  /** An outbox row (a mail's recipient, subject, kind and outcome; its message goes once sent) is deleted this long after it was written. */
  mailRetentionDays: number;
  /** Events (recent activity, chat deliveries) and webhook deliveries are deleted this long after they happened; totals stay. */
  eventRetentionDays: number;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A limit in MB as bytes; 0 means none. */
const megabytesOrUnlimited = (megabytes: number): number | null => (megabytes === 0 ? null : megabytes * 1024 * 1024);

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 0, 1, true or false (got "${raw}")`);
}

function url(env: Env, name: string, protocols: readonly string[]): URL | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')}`);
  }
  return parsed;
}

/** The base of every link the service gives out: scheme, host, port and path, nothing a browser would drop or misread. */
function publicUrl(env: Env): URL | undefined {
  const parsed = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  if (!parsed) return undefined;
  const raw = env.PUBLIC_URL ?? '';
  if (parsed.username !== '' || parsed.password !== '')
    throw new ConfigError('PUBLIC_URL must not carry a user or password: remove the "user:pass@"');
  // A "?" or "#" always starts the query or the fragment, even an empty one that the parsed URL would not show.
  if (raw.includes('?')) throw new ConfigError('PUBLIC_URL must not carry a query: remove the "?" and what follows it');
  if (raw.includes('#')) throw new ConfigError('PUBLIC_URL must not carry a fragment: remove the "#" and what follows it');
  // Viewer pages, their assets and the cookies scoped to them live at /v, /assets, /app and /api of the host.
  if (parsed.pathname !== '/') {
    throw new ConfigError(
      `PUBLIC_URL must be the root of its host, without a path ("${parsed.pathname}"): serve linkvault on a host name of its own`,
    );
  }
  return parsed;
}

/** What the server listens on: an IP address, or a host name that resolves to one (underscores allowed, as container names have them). */
function listenHost(env: Env): string {
  const host = env.HOST || '127.0.0.1';
  const hostName = /^(?=.{1,253}$)[\w]([\w-]{0,61}[\w])?(\.[\w]([\w-]{0,61}[\w])?)*$/;
  if (isIP(host) === 0 && (!hostName.test(host) || /^[\d.]+$/.test(host))) {
    throw new ConfigError(`HOST must be an IP address or a host name to listen on, such as 127.0.0.1, 0.0.0.0 or :: (got "${host}")`);
  }
  return host;
}

/** A path that cannot be looked at is no folder here: opening it later says why. */
function isFolder(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** The SQLite file DATABASE_URL names: never a folder, which the server would take for its database file. */
function sqliteFile(raw: string): string {
  const named = raw.slice('sqlite:'.length).replace(/^\/\//, '');
  if (named === '') throw new ConfigError('DATABASE_URL must name the database file after sqlite:, such as sqlite:/var/lib/linkvault/linkvault.db');
  const file = path.resolve(named);
  if (isFolder(file)) {
    throw new ConfigError(`DATABASE_URL names the folder ${file}: name the database file in it, such as sqlite:${path.join(file, 'linkvault.db')}`);
  }
  return file;
}

function databaseConfig(env: Env, dataDir: string): DatabaseConfig {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return { kind: 'sqlite', file: path.join(dataDir, 'linkvault.db') };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    return { kind: 'postgres', url: raw, statementTimeoutSeconds: integer(env, 'DATABASE_STATEMENT_TIMEOUT_SECONDS', 30, 0, 3600) };
  }
  if (raw.startsWith('sqlite:')) return { kind: 'sqlite', file: sqliteFile(raw) };
  throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
/** Far above any CA bundle (Debian's whole ca-certificates.crt is about 200 KB). */
const MAX_PEM_BYTES = 4 * 1024 * 1024;

/**
 * The certificates of a readable PEM file (a CA bundle), read and checked now: a wrong file would
 * otherwise show only later, as every delivery to the private endpoint failing its TLS handshake.
 */
function certificatesFile(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const file = path.resolve(raw);
  const refuse = (why: string) => new ConfigError(`${name} ${file} ${why}: name a readable PEM file or leave ${name} unset`);
  let text: string;
  try {
    if (isFolder(file)) throw refuse('is a folder');
    if (fs.statSync(file).size > MAX_PEM_BYTES) throw refuse(`is larger than ${MAX_PEM_BYTES / 1024 / 1024} MB`);
    text = fs.readFileSync(file, 'latin1');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const { code } = error as NodeJS.ErrnoException;
    throw refuse(code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read by this user' : `cannot be opened (${code})`);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw refuse('holds no certificate (-----BEGIN CERTIFICATE-----)');
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch {
      throw refuse(`holds a certificate that cannot be read (number ${index + 1} of ${blocks.length})`);
    }
  });
  return blocks.join('\n');
}

function storageConfig(env: Env, dataDir: string): StorageConfig {
  const parsed = url(env, 'STORAGE_URL', ['s3:', 'file:']);
  if (!parsed) return { kind: 'local', dir: path.join(dataDir, 'blobs') };
  if (parsed.protocol === 'file:') return { kind: 'local', dir: path.resolve(decodeURIComponent(parsed.pathname)) };
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(parsed.hostname)) {
    throw new ConfigError('STORAGE_URL must name a bucket of 3-63 characters: s3://bucket?region=…&endpoint=…');
  }
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !URL.canParse(endpoint)) {
    throw new ConfigError('STORAGE_URL endpoint= must be a URL');
  }
  return {
    kind: 's3',
    bucket: parsed.hostname,
    endpoint,
    region: parsed.searchParams.get('region') ?? env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: parsed.searchParams.get('forcePathStyle') === 'true',
  };
}

function masterKey(env: Env): Buffer | undefined {
  const raw = env.MASTER_KEY;
  if (raw === undefined || raw === '') return undefined;
  const text = raw.trim();
  // Strictly: Node's base64 decoder skips what it cannot read, so a key with stray characters would pass as another key.
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(text)) return Buffer.from(text, 'base64');
  throw new ConfigError('MASTER_KEY must be 32 bytes written as 64 hex characters or base64');
}

/**
 * Whom to believe about the client's address. Never "every proxy": X-Forwarded-For's first
 * entries are whatever the client wrote, so the address is read from the right, skipping only
 * the proxies counted (a number of hops) or named (their addresses).
 */
function trustProxy(env: Env): Config['trustProxy'] {
  const raw = env.TRUST_PROXY;
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === 'true') return 1;
  if (/^[1-9]$/.test(raw)) return Number(raw);
  const addresses = raw.split(',').map((part) => part.trim());
  if (addresses.every(isProxyAddress)) return addresses;
  throw new ConfigError(
    `TRUST_PROXY must be 0, the number of proxies in front (1-9), or a comma-separated list of proxy addresses (CIDR allowed); got "${raw}"`,
  );
}

/** An IP address, or a CIDR range of one: "10" or "1.5" are neither (proxy-addr would read them as 0.0.0.10 and 1.0.0.5). */
function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function dnsServers(env: Env): string[] {
  const raw = env.DNS_SERVERS;
  if (raw === undefined || raw.trim() === '') return [];
  const servers = raw.split(',').map((part) => part.trim());
  // An IPv4 address or a bracketed IPv6 one, each with an optional port: what dns.Resolver#setServers takes.
  const valid = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\])(:\d{1,5})?$/;
  if (!servers.every((server) => valid.test(server))) {
    throw new ConfigError('DNS_SERVERS must be a comma-separated list of IP addresses with optional ports (1.1.1.1:53, [::1]:5353)');
  }
  return servers;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
  return raw as T;
}

function oidc(env: Env): Config['oidc'] {
  const issuer = url(env, 'OIDC_ISSUER', ['http:', 'https:']);
  if (!issuer) return undefined;
  const clientId = env.OIDC_CLIENT_ID;
  const clientSecret = env.OIDC_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw new ConfigError('OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
  const autoJoinDomains = (env.OIDC_AUTO_JOIN_DOMAINS ?? '')
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter((domain) => domain !== '');
  if (!autoJoinDomains.every((domain) => /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain))) {
    throw new ConfigError('OIDC_AUTO_JOIN_DOMAINS must be a comma-separated list of domain names (example.com,example.org)');
  }
  return { issuer: issuer.href, clientId, clientSecret, autoJoinDomains };
}

function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16 || /\s/.test(raw)) throw new ConfigError('METRICS_TOKEN must be at least 16 characters without spaces');
  return raw;
}

/** DATA_DIR as loadConfig reads it; the CLI looks there for an interrupted restore before reading the rest. */
export const dataDirOf = (env: Env): string => path.resolve(env.DATA_DIR || './data');

/** Reads the whole configuration at once; the first bad value throws a ConfigError naming it. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = listenHost(env);
  const dataDir = dataDirOf(env);
  const base = publicUrl(env);
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }
  const mailFrom = env.MAIL_FROM || 'linkvault <no-reply@localhost>';
  if (!/^[^<>]*<?[^\s@<>]+@[^\s@<>]+>?$/.test(mailFrom)) {
    throw new ConfigError('MAIL_FROM must be an e-mail address, optionally as "Name <address>"');
  }
  return {
    port,
    host,
    publicUrl: (base?.href ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    dataDir,
    database: databaseConfig(env, dataDir),
    storage: storageConfig(env, dataDir),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:'])?.href,
    redisPrefix: env.REDIS_PREFIX || 'linkvault:',
    masterKey: masterKey(env),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:'])?.href,
    mailFrom,
    stripeSecretKey: env.STRIPE_SECRET_KEY || undefined,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
    stripeApiBase: url(env, 'STRIPE_API_BASE', ['http:', 'https:']),
    platformFeePercent: integer(env, 'PLATFORM_FEE_PERCENT', 0, 0, 100),
    logLevel,
    trustProxy: trustProxy(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    viewsPerClientPerMinute: integer(env, 'VIEWS_PER_CLIENT_PER_MINUTE', 30, 1, 1_000_000),
    expiredRetentionDays: integer(env, 'EXPIRED_RETENTION_DAYS', 30, 0, 36500),
    allowPrivateWebhooks: flag(env, 'ALLOW_PRIVATE_WEBHOOKS'),
    webhookCa: certificatesFile(env, 'WEBHOOK_CA_FILE'),
    allowPrivateSmtp: flag(env, 'ALLOW_PRIVATE_SMTP'),
    dnsServers: dnsServers(env),
    metricsToken: metricsToken(env),
    idleTimeoutSeconds: integer(env, 'IDLE_TIMEOUT_SECONDS', 60, 1, 3600),
    maxConnectionsPerClient: integer(env, 'MAX_CONNECTIONS_PER_CLIENT', 500, 0, 1_000_000),
    accountStorageBytes: megabytesOrUnlimited(integer(env, 'ACCOUNT_STORAGE_MB', 0, 0, 1_000_000_000)),
    requestTimeoutSeconds: integer(env, 'REQUEST_TIMEOUT_SECONDS', 1800, 1, 86_400),
    shutdownDrainSeconds: integer(env, 'SHUTDOWN_DRAIN_SECONDS', 5, 0, 600),
    shutdownGraceSeconds: integer(env, 'SHUTDOWN_GRACE_SECONDS', 30, 1, 3600),
    eventPollMs: integer(env, 'EVENT_POLL_MS', 1_000, 10, 600_000),
    eventRetryBaseMs: integer(env, 'EVENT_RETRY_BASE_MS', 10_000, 10, 3_600_000),
    eventMaxAttempts: integer(env, 'EVENT_MAX_ATTEMPTS', 8, 1, 50),
    sofficePath: env.SOFFICE_PATH || undefined,
    convertTimeoutSeconds: integer(env, 'CONVERT_TIMEOUT_SECONDS', 120, 5, 3600),
    convertMemoryMb: integer(env, 'CONVERT_MEMORY_MB', 2048, 512, 65536),
    pageDrawTimeoutSeconds: integer(env, 'PAGE_DRAW_TIMEOUT_SECONDS', 30, 1, 3600),
    maxDocumentPages: integer(env, 'MAX_DOCUMENT_PAGES', 2000, 1, 100_000),
    documentImagesBaseMb: integer(env, 'DOCUMENT_IMAGES_BASE_MB', 256, 0, 1_048_576),
    jobConcurrency: integer(env, 'JOB_CONCURRENCY', 1, 1, 16),
    eventConcurrency: integer(env, 'EVENT_CONCURRENCY', 4, 1, 32),
    defaultPlan: oneOf(env, 'DEFAULT_PLAN', ['free', 'professional', 'business'] as const, 'business'),
    signup: oneOf(env, 'SIGNUP', ['closed', 'invite', 'open'] as const, 'invite'),
    sessionIdleDays: integer(env, 'SESSION_IDLE_DAYS', 7, 1, 365),
    sessionAbsoluteDays: integer(env, 'SESSION_ABSOLUTE_DAYS', 30, 1, 365),
    require2fa: flag(env, 'REQUIRE_2FA'),
    oidc: oidc(env),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36500),
    mailRetentionDays: integer(env, 'MAIL_RETENTION_DAYS', 30, 1, 36500),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 90, 1, 36500),
  };
}
