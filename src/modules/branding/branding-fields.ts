import { badRequest, unprocessable } from '../../core/errors.js';
import { plainLine } from '../../core/text.js';
import { canonicalHost, isIpLiteral } from '../../infra/http/address-policy.js';
import { isEmail } from '../../core/email-address.js';
import type { BrandingPatch } from './branding.repo.js';

export const EMAIL_LOCALES = ['en', 'es', 'fr', 'pt', 'it'] as const;
export const SMTP_ENCRYPTIONS = ['none', 'ssl', 'starttls'] as const;

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const CSS_LENGTH = /^(?:0|\d{1,4}(?:\.\d{1,3})?(?:px|rem|em|%))$/;
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const COLOR_FIELDS = ['primary_color', 'bg_color', 'btn_text_color', 'card_bg_color', 'card_border_color', 'text_color'] as const;

/** The settings fields that are plain text with a length cap; "" clears them. */
const TEXT_FIELDS = { company_name: 200, smtp_username: 320, from_name: 200 } as const;
/** Names shown on one line (the visitor page, a mail's From): kept as `plainLine` keeps a typed name. */
const NAME_FIELDS: ReadonlySet<string> = new Set(['company_name', 'from_name']);

/** Accepts what JSON or a multipart form sends: a string, or a number where a number is meant. */
function asText(value: unknown, field: string): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw badRequest(`field "${field}" must be a string`);
}

function integerIn(value: unknown, field: string, min: number, max: number): number | null {
  const text = asText(value, field);
  if (text === '') return null;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw badRequest(`field "${field}" must be an integer from ${min} to ${max}`);
  }
  return Number(text);
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | null {
  const text = asText(value, field);
  if (text === '') return null;
  if (!(allowed as readonly string[]).includes(text)) throw badRequest(`field "${field}" must be one of: ${allowed.join(', ')}`);
  return text as T;
}

export interface BrandingFields {
  patch: BrandingPatch;
  /** Sealed before it reaches a column. */
  smtpPassword?: string | null;
  /** A claim the service turns into pending-verification columns. */
  customDomain?: string | null;
}

/**
 * Validates the branding fields present in a request (JSON or form) into a column patch.
 * Absent fields stay as they are; an empty string resets a field to its default.
 * The SMTP password and the custom domain are returned apart.
 */
export function parseBrandingFields(raw: Record<string, unknown>): BrandingFields {
  const patch: BrandingPatch = {};
  const fields: BrandingFields = { patch };
  const has = (field: string) => raw[field] !== undefined && raw[field] !== null;

  for (const [field, max] of Object.entries(TEXT_FIELDS)) {
    if (!has(field)) continue;
    const typed = asText(raw[field], field);
    const text = NAME_FIELDS.has(field) ? plainLine(typed) : typed;
    if (text.length > max) throw badRequest(`field "${field}" must be at most ${max} characters`);
    (patch as Record<string, string | null>)[field] = text === '' ? null : text;
  }
  for (const field of COLOR_FIELDS) {
    if (!has(field)) continue;
    const text = asText(raw[field], field);
    if (text !== '' && !HEX_COLOR.test(text)) throw badRequest(`field "${field}" must be a hex colour such as #1a2b3c or #abc`);
    patch[field] = text === '' ? null : text.toLowerCase();
  }
  if (has('btn_radius')) {
    const text = asText(raw.btn_radius, 'btn_radius');
    if (text !== '' && !CSS_LENGTH.test(text)) throw badRequest('field "btn_radius" must be a CSS length such as 0, 8px, 0.5rem or 50%');
    patch.btn_radius = text === '' ? null : text;
  }
  if (has('logo_size')) patch.logo_size = integerIn(raw.logo_size, 'logo_size', 16, 512);
  if (has('custom_domain')) {
    const text = asText(raw.custom_domain, 'custom_domain').toLowerCase();
    const host = text === '' ? null : canonicalHost(text);
    if (host !== null && isIpLiteral(host)) throw unprocessable('The custom domain must be a domain name, not an IP address');
    if (text !== '' && !HOSTNAME.test(text)) throw badRequest('field "custom_domain" must be a hostname such as docs.example.com');
    fields.customDomain = text === '' ? null : text;
  }
  if (has('smtp_host')) {
    const text = asText(raw.smtp_host, 'smtp_host');
    const host = text === '' ? null : canonicalHost(text);
    if (text !== '' && (host === null || host.length > 253)) throw badRequest('field "smtp_host" must be a host name or an IP address');
    // Stored as read (2130706433 becomes 127.0.0.1): the host checked is the host connected to.
    patch.smtp_host = host;
  }
  if (has('smtp_port')) patch.smtp_port = integerIn(raw.smtp_port, 'smtp_port', 1, 65535);
  if (has('smtp_encryption')) patch.smtp_encryption = oneOf(raw.smtp_encryption, 'smtp_encryption', SMTP_ENCRYPTIONS);
  if (has('email_locale')) patch.email_locale = oneOf(raw.email_locale, 'email_locale', EMAIL_LOCALES);
  if (has('from_email')) {
    const text = asText(raw.from_email, 'from_email').toLowerCase();
    if (text !== '' && !isEmail(text)) throw badRequest('field "from_email" must be an e-mail address');
    patch.from_email = text === '' ? null : text;
  }
  if (has('smtp_password')) {
    const password = asText(raw.smtp_password, 'smtp_password');
    if (password.length > 1024) throw badRequest('field "smtp_password" must be at most 1024 characters');
    fields.smtpPassword = password === '' ? null : password;
  }
  return fields;
}
