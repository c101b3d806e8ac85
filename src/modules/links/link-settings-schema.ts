import { Type, type TOptional, type TSchema } from 'typebox';
import { EXPIRATIONS, SETTING_LIST_MAX, type Expiration } from './link-settings.js';

/** One setting: its JSON type (templates) and its text form (upload fields), under one description. */
interface SettingSchema<Json extends TSchema, Form extends TSchema> {
  json: Json;
  form: Form;
}

const setting = <Json extends TSchema, Form extends TSchema>(json: Json, form: Form): SettingSchema<Json, Form> => ({ json, form });

/** A 0/1 form field. */
export const formFlag = (description: string) => Type.Union([Type.Literal('0'), Type.Literal('1')], { description, default: '0' });

const flag = (description: string) => setting(Type.Boolean({ description }), formFlag(description));

const integerText = (description: string, fallback?: number) =>
  Type.String({ pattern: '^\\d+$', description, ...(fallback === undefined ? {} : { default: String(fallback) }) });

/** An integer in JSON; in a form, text that is parsed and range-checked as it arrives. */
const integer = (description: string, minimum: number, maximum: number, fallback?: number) => {
  const described = `${description} (integer ${minimum}-${maximum})`;
  return setting(Type.Integer({ minimum, maximum, description: described }), integerText(described, fallback));
};

/** An integer or null (none) in JSON; in a form, text as `integer`'s. */
const integerOrNone = (description: string, minimum: number, maximum: number) => {
  const described = `${description} (integer ${minimum}-${maximum})`;
  return setting(Type.Union([Type.Integer({ minimum, maximum }), Type.Null()], { description: described }), integerText(described));
};

const list = (description: string, maxLength: number) =>
  setting(
    Type.Array(Type.String({ maxLength }), { maxItems: SETTING_LIST_MAX, description }),
    Type.String({ description: `${description}, comma-separated, at most ${SETTING_LIST_MAX}` }),
  );

const expiration = (options: { default?: string }) =>
  Type.Enum(Object.keys(EXPIRATIONS) as Expiration[], { description: 'how long the link works', ...options });
const currency = (options: { default?: string }) => Type.String({ pattern: '^[a-z]{3}$', description: 'lowercase currency code', ...options });

// Defaults are shown on the form fields only: on a JSON body Ajv would write them into every template.

/**
 * Every link setting, described once. Upload fields (`modules/upload/upload-form.ts`) take the
 * text forms, templates the JSON types; the rules and messages are `link-settings.ts`'s.
 */
export const LINK_SETTINGS = {
  expiration: setting(expiration({}), expiration({ default: '7d' })),
  expiresAt: setting(
    Type.Union([Type.String({ maxLength: 40 }), Type.Null()], {
      description: 'when the link stops working (ISO 8601 with offset), null for never; wins over expiration',
    }),
    Type.String({ maxLength: 40, description: 'when the link stops working (ISO 8601 with offset), or "never"; wins over expiration' }),
  ),
  hasWatermark: flag("burn the visitor's identity into every page"),
  requiresApproval: flag('the owner approves each visitor'),
  requiresOtp: flag('an e-mailed one-time code, for allowedEmails / allowedDomains'),
  allowedEmails: list('addresses let through the one-time code gate', 254),
  allowedDomains: list('domains let through the one-time code gate', 253),
  requireEmail: flag('each visitor gives an e-mail address (not verified) before viewing'),
  allowDownload: flag('the viewer offers a download: the original, or a copy stamped for the visitor when the link watermarks'),
  agreementId: integerOrNone('an agreement the visitor accepts before viewing (GET /api/agreements)', 1, 2_147_483_647),
  previewTitle: setting(
    Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'the title link previews show (default: the name)' }),
    Type.String({ maxLength: 1000, description: 'the title link previews show (default: the name)' }),
  ),
  previewDescription: setting(
    Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'the description link previews show' }),
    Type.String({ maxLength: 2000, description: 'the description link previews show' }),
  ),
  notifyOnView: setting(
    Type.Boolean({ description: "e-mail the link's maker when a visitor opens it (default true)" }),
    Type.Union([Type.Literal('0'), Type.Literal('1')], { description: "e-mail the link's maker when a visitor opens it", default: '1' }),
  ),
  blockedEmails: list('addresses refused, beside the account block list', 254),
  blockedDomains: list('domains refused, subdomains included, beside the account block list', 253),
  bookingUrl: setting(
    Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], { description: 'an http(s) URL shown in the viewer' }),
    Type.String({ maxLength: 2048, description: 'an http(s) URL shown in the viewer' }),
  ),
  previewPages: integerOrNone('visitors see only the first N pages of a PDF', 1, 100_000),
  viewSessionTtlSeconds: integer('how long a view session lasts, in seconds', 60, 86_400, 3600),
  maxViews: integer('views allowed, 0 = unlimited', 0, 1_000_000_000, 0),
  requirePaymentToDownload: flag('sell the original file (needs payments configured)'),
  downloadPrice: integerOrNone('the price in cents, with requirePaymentToDownload', 50, 100_000_000),
  downloadCurrency: setting(currency({}), currency({ default: 'usd' })),
};

type Settings = typeof LINK_SETTINGS;

function optionalEach<K extends keyof Settings, S extends TSchema>(pick: (schema: Settings[K]) => S) {
  return Object.fromEntries(Object.entries(LINK_SETTINGS).map(([name, schema]) => [name, Type.Optional(pick(schema as Settings[K]))]));
}

/** The settings as JSON properties, each optional (a template states only some). */
export const jsonSettingProperties = optionalEach((schema) => schema.json) as { [K in keyof Settings]: TOptional<Settings[K]['json']> };
/** The settings as form fields, each optional (absent fields take the template's or the default). */
export const formSettingProperties = optionalEach((schema) => schema.form) as { [K in keyof Settings]: TOptional<Settings[K]['form']> };

const { expiration: _atUploadOnly, ...changeableSettings } = jsonSettingProperties;

/** `PATCH /api/links/{id}`: any subset of the settings, the name, the password (null removes it) and isActive. */
export const LinkChangesBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'the name visitors see; a file keeps the upload name rules' })),
  isActive: Type.Optional(Type.Boolean({ description: 'false turns the link off without deleting it' })),
  password: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()], { description: 'the visitor password; null removes it' }),
  ),
  ...changeableSettings,
});

/** Every setting of a link as it stands (`settings` of `GET /api/links/{id}`). */
export const LinkSettingsView = Type.Object({
  isActive: Type.Boolean(),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null: never expires' }),
  hasPassword: Type.Boolean(),
  hasWatermark: Type.Boolean(),
  requiresApproval: Type.Boolean(),
  requiresOtp: Type.Boolean(),
  allowedEmails: Type.Array(Type.String()),
  allowedDomains: Type.Array(Type.String()),
  requireEmail: Type.Boolean(),
  allowDownload: Type.Boolean(),
  notifyOnView: Type.Boolean(),
  previewTitle: Type.Union([Type.String(), Type.Null()]),
  previewDescription: Type.Union([Type.String(), Type.Null()]),
  hasPreviewImage: Type.Boolean(),
  agreementId: Type.Union([Type.Integer(), Type.Null()]),
  blockedEmails: Type.Array(Type.String()),
  blockedDomains: Type.Array(Type.String()),
  bookingUrl: Type.Union([Type.String(), Type.Null()]),
  previewPages: Type.Union([Type.Integer(), Type.Null()]),
  viewSessionTtlSeconds: Type.Integer(),
  maxViews: Type.Integer(),
  requirePaymentToDownload: Type.Boolean(),
  downloadPrice: Type.Union([Type.Integer(), Type.Null()]),
  downloadCurrency: Type.String(),
});
