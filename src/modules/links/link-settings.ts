import { isEmail } from '../../core/email-address.js';
import { badRequest, unprocessable } from '../../core/errors.js';

export const EXPIRATIONS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 604_800_000 } as const;
export type Expiration = keyof typeof EXPIRATIONS;

/** `expires_at` of a link that never expires: the last millisecond ISO 8601 writes with four digits (ADR 0015). */
export const NEVER_EXPIRES = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * When a link stops working: an ISO 8601 time, or null for never. Stated, it wins over
 * `expiration` (the spec's relative choices at upload).
 */
export type ExpiresAt = string | null;

/** Every setting a link can be created with (upload form fields, and templates). */
export interface LinkSettings {
  expiration: Expiration;
  expiresAt?: ExpiresAt;
  password: string | null;
  hasWatermark: boolean;
  requiresApproval: boolean;
  requiresOtp: boolean;
  allowedEmails: string[];
  allowedDomains: string[];
  requireEmail: boolean;
  allowDownload: boolean;
  notifyOnView: boolean;
  previewTitle: string | null;
  previewDescription: string | null;
  agreementId: number | null;
  blockedEmails: string[];
  blockedDomains: string[];
  bookingUrl: string | null;
  previewPages: number | null;
  viewSessionTtlSeconds: number;
  maxViews: number;
  requirePaymentToDownload: boolean;
  downloadPrice: number | null;
  downloadCurrency: string;
}

export const DEFAULT_SETTINGS: Readonly<LinkSettings> = {
  expiration: '7d',
  password: null,
  hasWatermark: false,
  requiresApproval: false,
  requiresOtp: false,
  allowedEmails: [],
  allowedDomains: [],
  requireEmail: false,
  allowDownload: false,
  notifyOnView: true,
  previewTitle: null,
  previewDescription: null,
  agreementId: null,
  blockedEmails: [],
  blockedDomains: [],
  bookingUrl: null,
  previewPages: null,
  viewSessionTtlSeconds: 3600,
  maxViews: 0,
  requirePaymentToDownload: false,
  downloadPrice: null,
  downloadCurrency: 'usd',
};

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Lower-cased, de-duplicated addresses; a malformed one is a 400 naming the field. */
export function normalizeEmails(values: readonly string[], field: string): string[] {
  const emails = values.map((value) => value.trim().toLowerCase()).filter(Boolean);
  const bad = emails.find((email) => !isEmail(email));
  if (bad !== undefined) throw badRequest(`field "${field}" holds an invalid e-mail address: "${bad}"`);
  return [...new Set(emails)];
}

export function normalizeDomains(values: readonly string[], field: string): string[] {
  const domains = values.map((value) => value.trim().toLowerCase().replace(/^@/, '')).filter(Boolean);
  const bad = domains.find((domain) => !DOMAIN.test(domain));
  if (bad !== undefined) throw badRequest(`field "${field}" holds an invalid domain: "${bad}"`);
  return [...new Set(domains)];
}

/** An http(s) URL, or "" meaning none. */
export function normalizeBookingUrl(value: string, field: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (trimmed.length > 2048 || !URL.canParse(trimmed) || !/^https?:$/.test(new URL(trimmed).protocol)) {
    throw badRequest(`field "${field}" must be an http or https URL, or empty to clear it`);
  }
  return new URL(trimmed).href;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether the digits name a day and time that exist: Date.parse takes 02-30 as 03-02, and 24:00 as the next day. */
function existsOnCalendar(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
}

/**
 * An ISO 8601 time with its offset, normalised to UTC; 400 naming the field otherwise. RFC 3339
 * allows any number of decimals (Python's isoformat gives 6, Go's RFC3339Nano 9) and a lower-case
 * t and z: they are read to the millisecond.
 */
export function normalizeExpiresAt(value: ExpiresAt, field: string): ExpiresAt {
  if (value === null) return null;
  const text = value
    .trim()
    .toUpperCase()
    .replace(/(\.\d{3})\d+/, '$1');
  const match = ISO_TIME.exec(text);
  const epochMs = match && existsOnCalendar(match) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(epochMs) || epochMs > NEVER_EXPIRES) {
    throw badRequest(`field "${field}" must be an ISO 8601 time with its offset, such as 2027-01-31T18:00:00Z, or null for never`);
  }
  return new Date(epochMs).toISOString();
}

/** The `expires_at` the settings give a link made at `now`: 422 when a stated time has passed. */
export function expiryOf(settings: Pick<LinkSettings, 'expiration' | 'expiresAt'>, now: number): number {
  if (settings.expiresAt === undefined) return now + EXPIRATIONS[settings.expiration];
  if (settings.expiresAt === null) return NEVER_EXPIRES;
  const epochMs = Date.parse(settings.expiresAt);
  if (epochMs <= now) throw unprocessable(`expiresAt (${settings.expiresAt}) has passed: choose a time in the future, or null for never`);
  return epochMs;
}

/** What `agreementId` needs from the agreements module: one of the account's own agreements. */
export interface AgreementPolicy {
  /** 422 unless agreement `id` belongs to the account. */
  assertUsable(accountId: number, id: number): Promise<void>;
}

/** What settings that sell the file need from payments (the Stripe Connect service answers it). */
export interface PaymentsPolicy {
  /** 422 unless the account can take payments through a connected account with charges enabled. */
  assertCanSell(accountId: number): Promise<void>;
}

/** Settings that sell the file (an upload's, a template's, a change's) need an account that can sell. */
export async function assertPaymentsPossible(
  settings: { requirePaymentToDownload: boolean },
  accountId: number,
  payments: PaymentsPolicy,
): Promise<void> {
  if (settings.requirePaymentToDownload) await payments.assertCanSell(accountId);
}

/** A preview text on one line, without control characters; "" or only spaces means none. */
export function normalizePreviewText(value: string | null, field: string, maxLength: number): string | null {
  if (value === null) return null;
  const text = value
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > maxLength) throw badRequest(`field "${field}" must be at most ${maxLength} characters`);
  return text === '' ? null : text;
}

export const PREVIEW_TITLE_MAX = 200;
export const PREVIEW_DESCRIPTION_MAX = 500;

type FormFields = Readonly<Record<string, string | undefined>>;

function flag(fields: FormFields, name: string): boolean | undefined {
  const raw = fields[name];
  if (raw === undefined) return undefined;
  if (raw === '0' || raw === '1') return raw === '1';
  throw badRequest(`field "${name}" must be 0 or 1`);
}

function integer(fields: FormFields, name: string, min: number, max: number): number | undefined {
  const raw = fields[name];
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`field "${name}" must be an integer from ${min} to ${max}`);
  }
  return Number(raw);
}

/** Entries a list setting holds at most (allowed and blocked addresses and domains), as JSON or as a form's comma-separated text. */
export const SETTING_LIST_MAX = 1000;

function commaList(raw: string, field: string): string[] {
  const entries = raw.split(',').filter((entry) => entry.trim() !== '');
  if (entries.length > SETTING_LIST_MAX) throw badRequest(`field "${field}" must have at most ${SETTING_LIST_MAX} entries`);
  return entries;
}

/**
 * The settings a form states, field by field (absent fields stay absent, so a template
 * can fill them). Type and range errors are 400s naming the field.
 */
export function parseSettingsForm(fields: FormFields): Partial<LinkSettings> {
  const settings: Partial<LinkSettings> = {};
  const set = <K extends keyof LinkSettings>(key: K, value: LinkSettings[K] | undefined) => {
    if (value !== undefined) settings[key] = value;
  };

  const expiration = fields.expiration;
  if (expiration !== undefined) {
    if (!Object.hasOwn(EXPIRATIONS, expiration)) throw badRequest('field "expiration" must be one of: 1h, 24h, 7d');
    settings.expiration = expiration as Expiration;
  }
  const expiresAt = fields.expiresAt?.trim();
  if (expiresAt) settings.expiresAt = normalizeExpiresAt(expiresAt === 'never' ? null : expiresAt, 'expiresAt');

  const addPassword = flag(fields, 'addPassword');
  const password = fields.password ?? '';
  if (addPassword === true) {
    if (password === '') throw unprocessable('addPassword=1 needs a non-empty password');
    settings.password = password;
  } else if (addPassword === false) settings.password = null;
  else if (password !== '') settings.password = password;
  if (settings.password && settings.password.length > 256) throw badRequest('field "password" must be at most 256 characters');

  set('hasWatermark', flag(fields, 'hasWatermark'));
  set('requiresApproval', flag(fields, 'requiresApproval'));
  set('requiresOtp', flag(fields, 'requiresOtp'));
  if (fields.allowedEmails !== undefined) settings.allowedEmails = normalizeEmails(commaList(fields.allowedEmails, 'allowedEmails'), 'allowedEmails');
  if (fields.allowedDomains !== undefined) {
    settings.allowedDomains = normalizeDomains(commaList(fields.allowedDomains, 'allowedDomains'), 'allowedDomains');
  }
  set('requireEmail', flag(fields, 'requireEmail'));
  set('allowDownload', flag(fields, 'allowDownload'));
  set('notifyOnView', flag(fields, 'notifyOnView'));
  if (fields.agreementId !== undefined)
    settings.agreementId = fields.agreementId.trim() === '' ? null : integer(fields, 'agreementId', 1, 2_147_483_647)!;
  if (fields.previewTitle !== undefined) settings.previewTitle = normalizePreviewText(fields.previewTitle, 'previewTitle', PREVIEW_TITLE_MAX);
  if (fields.previewDescription !== undefined) {
    settings.previewDescription = normalizePreviewText(fields.previewDescription, 'previewDescription', PREVIEW_DESCRIPTION_MAX);
  }
  if (fields.blockedEmails !== undefined) settings.blockedEmails = normalizeEmails(commaList(fields.blockedEmails, 'blockedEmails'), 'blockedEmails');
  if (fields.blockedDomains !== undefined) {
    settings.blockedDomains = normalizeDomains(commaList(fields.blockedDomains, 'blockedDomains'), 'blockedDomains');
  }
  if (fields.bookingUrl !== undefined) settings.bookingUrl = normalizeBookingUrl(fields.bookingUrl, 'bookingUrl');
  set('previewPages', integer(fields, 'previewPages', 1, 100_000));
  set('viewSessionTtlSeconds', integer(fields, 'viewSessionTtlSeconds', 60, 86_400));
  set('maxViews', integer(fields, 'maxViews', 0, 1_000_000_000));
  set('requirePaymentToDownload', flag(fields, 'requirePaymentToDownload'));

  const paid = settings.requirePaymentToDownload === true;
  if (fields.downloadPrice !== undefined && (paid || fields.downloadPrice !== '')) {
    settings.downloadPrice = integer(fields, 'downloadPrice', 50, 100_000_000);
  }
  if (fields.downloadCurrency !== undefined && (paid || fields.downloadCurrency !== '')) {
    if (!/^[a-z]{3}$/.test(fields.downloadCurrency)) {
      throw badRequest('field "downloadCurrency" must be a lowercase 3-letter currency code such as "usd"');
    }
    settings.downloadCurrency = fields.downloadCurrency;
  }
  return settings;
}

/**
 * Layers stated settings over a template's over the defaults, then checks the rules that
 * span fields (422: each field is fine on its own, the combination is not).
 */
export function resolveSettings(...layers: Array<Partial<LinkSettings>>): LinkSettings {
  const settings: LinkSettings = Object.assign({}, DEFAULT_SETTINGS, ...layers);
  assertConsistent(settings);
  return settings;
}

/** The rules between settings, for a new link and for a change alike (422, or 400 for a missing field). */
export function assertConsistent(
  settings: Pick<LinkSettings, 'requiresOtp' | 'allowedEmails' | 'allowedDomains' | 'requirePaymentToDownload' | 'downloadPrice' | 'allowDownload'>,
): void {
  if (settings.requiresOtp && settings.allowedEmails.length === 0 && settings.allowedDomains.length === 0) {
    throw unprocessable('requiresOtp needs at least one allowed e-mail or domain');
  }
  if (settings.requirePaymentToDownload && settings.downloadPrice === null) {
    throw badRequest('field "downloadPrice" is required when requirePaymentToDownload=1 (integer cents, at least 50)');
  }
  if (settings.allowDownload && settings.requirePaymentToDownload) {
    throw unprocessable('A file for sale is downloaded by buying it: turn allowDownload off, or stop selling the file');
  }
}
