import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { IdempotencyService } from '../idempotency/idempotency.service.js';
import { badRequest, notFound } from '../../core/errors.js';
import { recordName } from '../../core/text.js';
import {
  assertPaymentsPossible,
  normalizeBookingUrl,
  normalizeDomains,
  normalizeEmails,
  normalizeExpiresAt,
  normalizePreviewText,
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_TITLE_MAX,
  resolveSettings,
  type LinkSettings,
  type PaymentsPolicy,
  type AgreementPolicy,
} from '../links/link-settings.js';
import { deleteTemplate, findTemplate, insertTemplate, listTemplates, lockTemplate, updateTemplate } from './templates.repo.js';

/**
 * Every upload setting but the password: a template would have to keep it readable to
 * hand it to each new link, and visitor passwords are only ever stored as scrypt hashes.
 */
export const TEMPLATE_SETTING_KEYS = [
  'expiration',
  'expiresAt',
  'hasWatermark',
  'requiresApproval',
  'requiresOtp',
  'allowedEmails',
  'allowedDomains',
  'requireEmail',
  'allowDownload',
  'notifyOnView',
  'previewTitle',
  'previewDescription',
  'agreementId',
  'blockedEmails',
  'blockedDomains',
  'bookingUrl',
  'previewPages',
  'viewSessionTtlSeconds',
  'maxViews',
  'requirePaymentToDownload',
  'downloadPrice',
  'downloadCurrency',
] as const satisfies ReadonlyArray<keyof LinkSettings>;

/** What a template states; whatever it leaves out comes from the upload form or the defaults. */
export type TemplateSettings = Partial<Pick<LinkSettings, (typeof TEMPLATE_SETTING_KEYS)[number]>>;

const MAX_TEMPLATE_ID = 2_147_483_647;

/** Upload's `templateId` form field as an id (absent or empty: none); 400 when it cannot be one. */
export function templateIdOf(field: string | undefined): number | undefined {
  const text = field?.trim() ?? '';
  if (text === '') return undefined;
  const id = Number(text);
  if (!/^\d+$/.test(text) || id < 1 || id > MAX_TEMPLATE_ID) throw badRequest('field "templateId" must be the integer id of one of your templates');
  return id;
}

/** The stated settings, normalised as upload normalises its fields (lists lower-cased, the URL checked): 400 naming a bad field. */
function normalizeStated(input: TemplateSettings): TemplateSettings {
  const stated: Record<string, unknown> = {};
  for (const key of TEMPLATE_SETTING_KEYS) if (input[key] !== undefined) stated[key] = input[key];
  const settings = stated as TemplateSettings;
  if (settings.allowedEmails) settings.allowedEmails = normalizeEmails(settings.allowedEmails, 'allowedEmails');
  if (settings.allowedDomains) settings.allowedDomains = normalizeDomains(settings.allowedDomains, 'allowedDomains');
  if (settings.blockedEmails) settings.blockedEmails = normalizeEmails(settings.blockedEmails, 'blockedEmails');
  if (settings.blockedDomains) settings.blockedDomains = normalizeDomains(settings.blockedDomains, 'blockedDomains');
  if (settings.expiresAt !== undefined) settings.expiresAt = normalizeExpiresAt(settings.expiresAt, 'expiresAt');
  if (settings.previewTitle !== undefined) settings.previewTitle = normalizePreviewText(settings.previewTitle, 'previewTitle', PREVIEW_TITLE_MAX);
  if (settings.previewDescription !== undefined) {
    settings.previewDescription = normalizePreviewText(settings.previewDescription, 'previewDescription', PREVIEW_DESCRIPTION_MAX);
  }
  if (typeof settings.bookingUrl === 'string') settings.bookingUrl = normalizeBookingUrl(settings.bookingUrl, 'bookingUrl');
  return settings;
}

const parseStated = (json: string) => JSON.parse(json) as TemplateSettings;

const templateName = (typed: string) => recordName(typed, 'A template name');

/** Link templates: named sets of upload settings that `POST /api/upload` applies with `templateId`. */
export function createTemplatesService(deps: {
  db: Db;
  clock: Clock;
  payments: PaymentsPolicy;
  agreements: AgreementPolicy;
  idempotency: Pick<IdempotencyService, 'once'>;
}) {
  const { db, clock, payments, agreements, idempotency } = deps;

  /** A template must make a valid link on its own: the same rules as an upload stating these fields. */
  async function assertUsable(accountId: number, stated: TemplateSettings): Promise<void> {
    await assertPaymentsPossible(resolveSettings(stated), accountId, payments);
    if (stated.agreementId) await agreements.assertUsable(accountId, stated.agreementId);
  }

  async function ownTemplate(accountId: number, id: number) {
    const row = await findTemplate(db, accountId, id);
    if (!row) throw notFound(`Template ${id}`);
    return row;
  }

  const present = (row: { id: number; name: string; settings: string }) => ({ id: row.id, name: row.name, ...parseStated(row.settings) });

  return {
    async list(accountId: number) {
      return (await listTemplates(db, accountId)).map(present);
    },

    async get(accountId: number, id: number) {
      return present(await ownTemplate(accountId, id));
    },

    /** A new template; with an `Idempotency-Key`, a retry within 24 hours answers the first one's id instead of making another. */
    create(accountId: number, input: { name: string } & TemplateSettings, idempotencyKey?: string) {
      return idempotency.once<{ ok: boolean; id: number }>(accountId, idempotencyKey, 'template:create', async (recordAnswer) => {
        const name = templateName(input.name);
        const stated = normalizeStated(input);
        await assertUsable(accountId, stated);
        return db.transaction().execute(async (trx) => {
          const created = {
            ok: true,
            id: await insertTemplate(trx, { accountId, name, settings: JSON.stringify(stated), now: clock() }),
          };
          await recordAnswer?.(trx, created);
          return created;
        });
      });
    },

    /**
     * Stated fields replace the template's; the others stay as they are when the change is written
     * (read held, so changes sent together all hold). What payments and agreements answer is asked
     * first, outside the transaction: on SQLite it holds the one connection.
     */
    async update(accountId: number, id: number, input: { name?: string } & TemplateSettings): Promise<void> {
      const name = input.name === undefined ? undefined : templateName(input.name);
      const changes = normalizeStated(input);
      await assertUsable(accountId, { ...parseStated((await ownTemplate(accountId, id)).settings), ...changes });
      await db.transaction().execute(async (trx) => {
        const current = await lockTemplate(trx, accountId, id);
        if (!current) throw notFound(`Template ${id}`);
        const stated = { ...parseStated(current.settings), ...changes };
        resolveSettings(stated); // the rules between fields, on the template as it is now
        await updateTemplate(trx, accountId, id, { name: name ?? current.name, settings: JSON.stringify(stated), now: clock() });
      });
    },

    async remove(accountId: number, id: number): Promise<void> {
      if (!(await deleteTemplate(db, accountId, id))) throw notFound(`Template ${id}`);
    },

    /** The settings named by upload's `templateId` form field (absent or empty: none); 404 for another account's. */
    async settingsForUpload(accountId: number, templateId: string | undefined): Promise<TemplateSettings> {
      const id = templateIdOf(templateId);
      return id === undefined ? {} : parseStated((await ownTemplate(accountId, id)).settings);
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
