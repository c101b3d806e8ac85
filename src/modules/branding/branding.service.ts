import { Readable } from 'node:stream';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { BrandingTable } from '../../db/types.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { AREA_PLAN } from '../../core/plans.js';
import { seal, unseal } from '../../infra/crypto/sealed.js';
import { randomBase62 } from '../../infra/crypto/tokens.js';
import { TxtLookupError, type TxtLookup } from '../../infra/dns/txt-lookup.js';
import { createTransportCache, pinToPublicAddress, smtpHostRefusal, type MailTransportSettings } from '../../infra/mail/index.js';
import type { BlobStore } from '../../infra/storage/index.js';
import type { AccountRecords } from '../accounts/account-records.js';
import { changedFields, type AuditEvent, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import { DEFAULT_BRAND, type Brand } from './brand.js';
import { accentOn, textOn } from './contrast.js';
import { parseBrandingFields } from './branding-fields.js';
import { accountIdForDomain, findBranding, findLogoKeys, markDomainVerified, upsertBranding, type BrandingPatch } from './branding.repo.js';
import { reencodeLogo } from './logo.js';

type BrandingRow = Partial<BrandingTable> | undefined;

const passwordContext = (accountId: number) => `branding.smtp_password:${accountId}`;
const logoPath = (accountId: number, logoKey: string) => `/branding/${accountId}/${logoKey.slice(logoKey.lastIndexOf('/') + 1)}`;
/** Where the owner of a claimed domain proves it: a TXT record only someone controlling its DNS can create. */
const verificationRecordName = (domain: string) => `_linkvault.${domain}`;

/** The fields of the account's own mail server and sender, audited as `smtp.updated`; the rest is `branding.updated`. */
const MAIL_FIELDS = new Set(['smtp_host', 'smtp_port', 'smtp_encryption', 'smtp_username', 'smtp_password', 'from_email', 'from_name']);

/**
 * Where the saved SMTP password is sent and for whom. Changing any of them forgets the password unless
 * the same request gives it again: whoever may edit the settings (an admin, a key) must not be able to
 * send the owner's password to a server of their choosing.
 */
type SmtpDestinationField = 'smtp_host' | 'smtp_port' | 'smtp_encryption' | 'smtp_username';
const SMTP_DESTINATION_DEFAULTS: Record<SmtpDestinationField, string | null> = {
  smtp_host: null,
  smtp_port: null,
  smtp_encryption: 'starttls',
  smtp_username: null,
};

function movesSmtpPassword(patch: BrandingPatch, previous: BrandingRow): boolean {
  return (Object.keys(SMTP_DESTINATION_DEFAULTS) as SmtpDestinationField[]).some((field) => {
    const fallback = SMTP_DESTINATION_DEFAULTS[field];
    return patch[field] !== undefined && (patch[field] ?? fallback) !== (previous?.[field] ?? fallback);
  });
}

/** What an update changes, for the audit log: the fields sent with their new values (the SMTP password only as set or not). */
function settingsChanges(patch: BrandingPatch, smtpPassword: string | null | undefined, logo: boolean): AuditEvent[] {
  const brand: Record<string, unknown> = logo ? { logo: 'uploaded' } : {};
  const mail: Record<string, unknown> = smtpPassword === undefined ? {} : { smtp_password: smtpPassword };
  for (const [field, value] of Object.entries(patch)) (MAIL_FIELDS.has(field) ? mail : brand)[field] = value;
  const events: AuditEvent[] = [];
  if (Object.keys(brand).length > 0) events.push({ action: 'branding.updated', details: changedFields(brand) });
  if (Object.keys(mail).length > 0) events.push({ action: 'smtp.updated', details: changedFields(mail, ['smtp_password']) });
  return events;
}

/** The account's choices over the defaults; what was not chosen follows the brand colour so that it reads. */
function brandOf(row: BrandingRow, accountId: number): Brand {
  const primaryColor = row?.primary_color ?? DEFAULT_BRAND.primaryColor;
  const bgColor = row?.bg_color ?? DEFAULT_BRAND.bgColor;
  const cardBgColor = row?.card_bg_color ?? DEFAULT_BRAND.cardBgColor;
  const textColor = row?.text_color ?? DEFAULT_BRAND.textColor;
  return {
    companyName: row?.company_name ?? DEFAULT_BRAND.companyName,
    logoUrl: row?.logo_key ? logoPath(accountId, row.logo_key) : null,
    logoSize: row?.logo_size ?? DEFAULT_BRAND.logoSize,
    primaryColor,
    accentColor: accentOn(primaryColor, [cardBgColor, bgColor], textColor),
    bgColor,
    btnTextColor: row?.btn_text_color ?? textOn(primaryColor),
    btnRadius: row?.btn_radius ?? DEFAULT_BRAND.btnRadius,
    cardBgColor,
    cardBorderColor: row?.card_border_color ?? DEFAULT_BRAND.cardBorderColor,
    textColor,
  };
}

/** Branding and mail-sending settings of an account, with their defaults filled in. */
function viewOf(row: BrandingRow, accountId: number) {
  const brand = brandOf(row, accountId);
  return {
    company_name: brand.companyName,
    logo_url: brand.logoUrl,
    primary_color: brand.primaryColor,
    bg_color: brand.bgColor,
    btn_text_color: brand.btnTextColor,
    btn_radius: brand.btnRadius,
    card_bg_color: brand.cardBgColor,
    card_border_color: brand.cardBorderColor,
    text_color: brand.textColor,
    logo_size: brand.logoSize,
    custom_domain: row?.custom_domain ?? row?.custom_domain_pending ?? null,
    custom_domain_status: row?.custom_domain ? ('verified' as const) : row?.custom_domain_pending ? ('pending' as const) : null,
    // What to create before calling verify; null once verified (or without a domain).
    custom_domain_verification:
      !row?.custom_domain && row?.custom_domain_pending && row.custom_domain_token
        ? { name: verificationRecordName(row.custom_domain_pending), type: 'TXT' as const, value: row.custom_domain_token }
        : null,
    smtp_host: row?.smtp_host ?? null,
    smtp_port: row?.smtp_port ?? null,
    smtp_encryption: row?.smtp_encryption ?? null,
    smtp_username: row?.smtp_username ?? null,
    smtp_password_set: Boolean(row?.smtp_password_sealed),
    from_email: row?.from_email ?? null,
    from_name: row?.from_name ?? null,
    email_locale: row?.email_locale ?? 'en',
  };
}

export type BrandingView = ReturnType<typeof viewOf>;

/** A request's host as custom domains are stored: lower case, without the root's trailing dot. */
const domainOfHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

export function createBrandingService(deps: {
  db: Db;
  clock: Clock;
  blobs: Pick<BlobStore, 'put' | 'get' | 'delete' | 'deletePrefix'>;
  masterKey: Buffer;
  publicUrl: string;
  systemFrom: string;
  /** ALLOW_PRIVATE_SMTP: an account's SMTP host may be a private or loopback address. */
  allowPrivateSmtp: boolean;
  /** Reads the TXT record that proves a custom domain. */
  lookupTxt: TxtLookup;
  audit: Pick<AuditLog, 'record'>;
  accounts: Pick<AccountRecords, 'hasPlan'>;
}) {
  const { db, clock, blobs, masterKey, publicUrl, systemFrom, allowPrivateSmtp, lookupTxt, audit, accounts } = deps;
  const publicHost = new URL(publicUrl).hostname;

  /**
   * The branding that acts (on visitor pages, in mail, on the custom domain): only on the business
   * plan, which branding is. An account moved lower keeps its settings, at rest until it is back.
   */
  async function brandingInEffect(accountId: number, executor: Executor = db): Promise<BrandingRow> {
    return (await accounts.hasPlan(accountId, AREA_PLAN.branding, executor)) ? findBranding(executor, accountId) : undefined;
  }

  /** The account whose verified domain `host` is; PUBLIC_URL's host, which no account may claim, is asked nothing. */
  const domainOwner = async (host: string): Promise<number | undefined> => {
    const domain = domainOfHost(host);
    return domain === publicHost ? undefined : accountIdForDomain(db, domain);
  };

  /** Where the account's viewer links live: its verified custom domain (TLS at the proxy) or PUBLIC_URL. */
  const viewerBaseOf = (row: BrandingRow) => (row?.custom_domain ? `https://${row.custom_domain}` : publicUrl);

  /** A domain an account may claim and verify: not the service's own address, not another account's verified domain. */
  async function assertClaimableDomain(accountId: number, domain: string): Promise<void> {
    if (domain === publicHost || domain.endsWith(`.${publicHost}`)) {
      throw unprocessable(`The domain ${domain} belongs to this service's own address (PUBLIC_URL) and cannot be a custom domain`);
    }
    const owner = await accountIdForDomain(db, domain);
    if (owner !== undefined && owner !== accountId) throw unprocessable(`The domain ${domain} is already used by another account`);
  }

  /**
   * The columns for a requested custom domain: a new name is pending with a fresh verification
   * value (and the previous domain stops routing); the domain already held is left as it is.
   */
  async function customDomainPatch(accountId: number, requested: string | null, row: BrandingRow): Promise<BrandingPatch> {
    if (requested === null) return { custom_domain: null, custom_domain_pending: null, custom_domain_token: null };
    if (requested === row?.custom_domain) return {};
    await assertClaimableDomain(accountId, requested);
    if (requested === row?.custom_domain_pending && row.custom_domain_token) return {};
    return { custom_domain: null, custom_domain_pending: requested, custom_domain_token: `linkvault-verify=${randomBase62(32)}` };
  }

  async function storeLogo(accountId: number, upload: Buffer): Promise<string> {
    const png = await reencodeLogo(upload);
    const key = `branding/${accountId}/logo-${randomBase62(12)}.png`;
    await blobs.put(key, Readable.from([png]));
    return key;
  }

  async function smtpFor(accountId: number): Promise<MailTransportSettings | null> {
    const row = await brandingInEffect(accountId);
    if (!row?.smtp_host) return null;
    const encryption = row.smtp_encryption ?? 'starttls';
    const address = row.from_email ?? row.smtp_username ?? '';
    return {
      host: row.smtp_host,
      port: row.smtp_port ?? (encryption === 'ssl' ? 465 : 587),
      secure: encryption === 'ssl',
      requireTLS: encryption === 'starttls',
      user: row.smtp_username ?? undefined,
      pass: row.smtp_password_sealed ? unseal(masterKey, row.smtp_password_sealed, passwordContext(accountId)) : undefined,
      // nodemailer quotes the name itself: a name of ours in quotes broke on a trailing backslash.
      from: address.includes('@') ? (row.from_name ? { name: row.from_name, address } : address) : systemFrom,
    };
  }
  // Not pooled: each test message opens and closes its own connection.
  const testTransports = createTransportCache(8);

  return {
    /** Of the accounts `ids` (as in their blob keys, `branding/<id>/…`), the logo blobs their rows point at. */
    async storedLogoKeys(ids: readonly string[]): Promise<Set<string>> {
      const accountIds = ids.map(Number).filter(Number.isSafeInteger);
      if (accountIds.length === 0) return new Set();
      const rows = await findLogoKeys(db, accountIds);
      return new Set(rows.flatMap((row) => (row.logo_key === null ? [] : [row.logo_key])));
    },

    /** Deletes the stored logos of an account that is gone. */
    purgeFiles: (accountId: number) => blobs.deletePrefix(`branding/${accountId}/`),

    async get(accountId: number): Promise<BrandingView> {
      return viewOf(await findBranding(db, accountId), accountId);
    },

    /** Applies the fields present (and a new logo, if sent); answers the settings as they now are. */
    async update(source: ChangeSource, fields: Record<string, unknown>, logo?: Buffer): Promise<BrandingView> {
      const { accountId } = source;
      const { patch, smtpPassword: givenPassword, customDomain } = parseBrandingFields(fields);
      const previous = await findBranding(db, accountId);
      const forgetsPassword = givenPassword === undefined && Boolean(previous?.smtp_password_sealed) && movesSmtpPassword(patch, previous);
      const smtpPassword = forgetsPassword ? null : givenPassword;
      const changes = settingsChanges(patch, smtpPassword, logo !== undefined);
      if (patch.smtp_host && !allowPrivateSmtp) {
        const refusal = smtpHostRefusal(patch.smtp_host);
        if (refusal) throw unprocessable(`The SMTP host is refused: ${refusal}. The account's mail server must be reachable at a public address`);
      }
      if (smtpPassword !== undefined) {
        patch.smtp_password_sealed = smtpPassword === null ? null : seal(masterKey, smtpPassword, passwordContext(accountId));
      }
      if (customDomain !== undefined) Object.assign(patch, await customDomainPatch(accountId, customDomain, previous));
      if (patch.custom_domain_pending) changes.push({ action: 'custom_domain.claimed', details: { domain: patch.custom_domain_pending } });
      const previousDomain = previous?.custom_domain ?? previous?.custom_domain_pending;
      if (customDomain === null && previousDomain) changes.push({ action: 'custom_domain.removed', details: { domain: previousDomain } });
      if (logo) patch.logo_key = await storeLogo(accountId, logo);
      try {
        await db.transaction().execute(async (trx) => {
          await upsertBranding(trx, accountId, patch, clock());
          for (const change of changes) await audit.record(source, { ...change, target: { type: 'account', id: accountId } }, trx);
        });
      } catch (error) {
        if (patch.logo_key) await blobs.delete(patch.logo_key);
        throw error;
      }
      if (logo && previous?.logo_key) await blobs.delete(previous.logo_key);
      return viewOf(await findBranding(db, accountId), accountId);
    },

    /**
     * Verifies the account's pending custom domain by its TXT record and makes it the account's
     * domain; 422 naming the record expected when it is not there.
     */
    async verifyDomain(source: ChangeSource): Promise<BrandingView> {
      const { accountId } = source;
      const row = await findBranding(db, accountId);
      const domain = row?.custom_domain_pending;
      const token = row?.custom_domain_token;
      if (!domain || !token) {
        if (row?.custom_domain) return viewOf(row, accountId);
        throw unprocessable('There is no custom domain to verify: set custom_domain first');
      }
      await assertClaimableDomain(accountId, domain);
      const recordName = verificationRecordName(domain);
      let values: string[];
      try {
        values = await lookupTxt(recordName);
      } catch (error) {
        if (!(error instanceof TxtLookupError)) throw error;
        throw unprocessable(`The DNS lookup of the TXT record ${recordName} failed (${error.message}); try again in a few minutes`);
      }
      if (!values.some((value) => value.trim() === token)) {
        const found = values.length === 0 ? 'there is no TXT record at that name' : 'the TXT records there hold other values';
        throw unprocessable(
          `The domain ${domain} is not verified: create a DNS TXT record named ${recordName} with the value ${token} (${found}), then verify again`,
        );
      }
      const outcome = await markDomainVerified(db, accountId, { domain, token }, clock());
      if (outcome === 'taken') throw unprocessable(`The domain ${domain} is already used by another account`);
      if (outcome === 'changed') throw unprocessable('The custom domain changed while it was being verified: verify again');
      // Recorded after the change: a unique violation inside a transaction would end it on PostgreSQL.
      await audit.record(source, { action: 'custom_domain.verified', target: { type: 'account', id: accountId }, details: { domain } });
      return viewOf(await findBranding(db, accountId), accountId);
    },

    async removeLogo(source: ChangeSource): Promise<void> {
      const { accountId } = source;
      const row = await findBranding(db, accountId);
      if (!row?.logo_key) return;
      await db.transaction().execute(async (trx) => {
        await upsertBranding(trx, accountId, { logo_key: null }, clock());
        await audit.record(
          source,
          { action: 'branding.updated', target: { type: 'account', id: accountId }, details: changedFields({ logo: null }) },
          trx,
        );
      });
      await blobs.delete(row.logo_key);
    },

    /** The logo bytes behind a logo_url, for the public asset route. */
    async openLogo(accountId: number, fileName: string): Promise<Readable> {
      const row = await findBranding(db, accountId);
      if (!row?.logo_key || logoPath(accountId, row.logo_key) !== `/branding/${accountId}/${fileName}`) throw notFound('Logo');
      return blobs.get(row.logo_key);
    },

    /** The brand dressing visitor pages and e-mails. */
    async brandFor(accountId: number): Promise<Brand> {
      return brandOf(await brandingInEffect(accountId), accountId);
    },

    /** The brand with an absolute logo URL (mail clients need one) and the mail language; `executor` when queued inside a transaction. */
    async mailBrandFor(accountId: number, executor: Executor = db) {
      const row = await brandingInEffect(accountId, executor);
      const brand = brandOf(row, accountId);
      return { brand: { ...brand, logoUrl: brand.logoUrl && `${viewerBaseOf(row)}${brand.logoUrl}` }, locale: row?.email_locale ?? 'en' };
    },

    /** A visitor page's brand and where the account's links live (its link card's URLs), from one read. */
    async pageLookFor(accountId: number): Promise<{ brand: Brand; viewerBase: string }> {
      const row = await brandingInEffect(accountId);
      return { brand: brandOf(row, accountId), viewerBase: viewerBaseOf(row) };
    },

    /** The account's own SMTP server, when it has set one. */
    smtpFor,

    /**
     * Sends one message now, outside the outbox, through the account's own SMTP server, so the
     * person setting it up sees at once whether it works: 422 with the server's answer when it does not.
     */
    async sendTestMail(source: ChangeSource, to: string): Promise<void> {
      const own = await smtpFor(source.accountId);
      if (!own) throw unprocessable('Set an SMTP host and save before sending a test e-mail');
      try {
        const settings = allowPrivateSmtp ? own : await pinToPublicAddress(own);
        await testTransports.get(settings).sendMail({
          from: settings.from,
          to,
          subject: 'linkvault: test e-mail',
          text: `This test e-mail was sent through ${own.host}:${own.port}. Your account's mail settings work.`,
        });
      } catch (error) {
        // nodemailer's messages carry the server's reply, never the credentials.
        throw unprocessable(`The test e-mail could not be sent: ${error instanceof Error ? error.message : String(error)}`);
      }
    },

    /**
     * The account a request's Host belongs to, when the host is someone's verified custom domain;
     * a fully qualified name's trailing dot names the same host.
     */
    async accountForDomain(host: string): Promise<number | undefined> {
      const accountId = await domainOwner(host);
      return accountId !== undefined && (await accounts.hasPlan(accountId, AREA_PLAN.branding)) ? accountId : undefined;
    },

    /** Whether `host` is an account's verified domain, whatever the account's plan now: a name whose DNS a customer controls. */
    async isAccountDomain(host: string): Promise<boolean> {
      return (await domainOwner(host)) !== undefined;
    },

    /**
     * Whether `host` is an account's verified domain that its plan no longer serves links on. Such a
     * domain rests: it must not act as PUBLIC_URL does, for every account's links and portals.
     */
    async isRestingDomain(host: string): Promise<boolean> {
      const accountId = await domainOwner(host);
      return accountId !== undefined && !(await accounts.hasPlan(accountId, AREA_PLAN.branding));
    },

    /** Where the account's viewer links live: its verified custom domain (TLS at the proxy) or PUBLIC_URL. */
    async viewerBase(accountId: number, executor: Executor = db): Promise<string> {
      return viewerBaseOf(await brandingInEffect(accountId, executor));
    },
  };
}

export type BrandingService = ReturnType<typeof createBrandingService>;
