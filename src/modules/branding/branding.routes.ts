import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { principalOf } from '../../core/auth.js';
import { asClientError } from '../files/multipart-upload.js';
import { badRequest, notFound } from '../../core/errors.js';
import { ErrorBody, NullableString, OkBody, authErrors } from '../../core/schemas.js';
import type { BrandingService } from './branding.service.js';
import { MAX_LOGO_BYTES } from './logo.js';
import { EMAIL_LOCALES, SMTP_ENCRYPTIONS } from './branding-fields.js';

const tags = ['Branding'];

const BrandingSettings = Type.Object({
  company_name: NullableString(),
  logo_url: NullableString({ description: 'path of the logo' }),
  primary_color: Type.String(),
  bg_color: Type.String(),
  btn_text_color: Type.String(),
  btn_radius: Type.String(),
  card_bg_color: Type.String(),
  card_border_color: Type.String(),
  text_color: Type.String(),
  logo_size: Type.Integer(),
  custom_domain: NullableString({ description: 'the domain claimed, verified or not' }),
  custom_domain_status: Type.Unsafe<'pending' | 'verified' | null>({
    type: ['string', 'null'],
    enum: ['pending', 'verified', null],
    description: 'pending until POST /api/branding/domain/verify finds the TXT record; only a verified domain serves visitors and appears in links',
  }),
  custom_domain_verification: Type.Union(
    [
      Type.Object({
        name: Type.String({ description: '_linkvault.<domain>' }),
        type: Type.Literal('TXT'),
        value: Type.String(),
      }),
      Type.Null(),
    ],
    { description: 'the DNS record to create while the domain is pending; null when verified or without a domain' },
  ),
  smtp_host: NullableString(),
  smtp_port: Type.Union([Type.Integer(), Type.Null()]),
  smtp_encryption: Type.Union([Type.String({ enum: [...SMTP_ENCRYPTIONS] }), Type.Null()]),
  smtp_username: NullableString(),
  smtp_password_set: Type.Boolean({ description: 'the password itself is never returned' }),
  from_email: NullableString(),
  from_name: NullableString(),
  email_locale: Type.String({ enum: [...EMAIL_LOCALES] }),
});

const UPDATE_DESCRIPTION = `JSON, or multipart/form-data when a logo is sent (field "logo": PNG, JPEG or WebP, at most 2 MB).
Every field is optional; an empty string resets a field. Colours #rgb or #rrggbb; btn_radius a CSS length (0, 8px, 0.5rem, 50%);
logo_size 16-512; custom_domain a hostname (pending until verified; not an IP address nor PUBLIC_URL's host);
smtp_host a public host name or address (checked again when connecting); smtp_port 1-65535; smtp_encryption none|ssl|starttls; email_locale en|es|fr|pt|it;
smtp_password is stored sealed and never returned.`;

/** The form's fields and its logo, read with a 2 MB cap on the logo. */
async function readBrandingForm(request: FastifyRequest): Promise<{ fields: Record<string, unknown>; logo?: Buffer }> {
  if (!request.isMultipart()) {
    if (request.body !== undefined && (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body))) {
      throw badRequest('body must be a JSON object');
    }
    return { fields: (request.body as Record<string, unknown> | undefined) ?? {} };
  }
  const fields: Record<string, unknown> = {};
  let logo: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_LOGO_BYTES + 1 } })) {
      if (part.type === 'field') fields[part.fieldname] = String(part.value);
      else if (part.fieldname === 'logo') logo = await part.toBuffer();
      else throw badRequest(`multipart file part must be named "logo", not "${part.fieldname}"`);
    }
  } catch (error) {
    throw asClientError(error);
  }
  return { fields, logo };
}

/** Branding is a business-plan feature (core/plans.ts: AREA_PLAN). */
const businessOnly = { area: 'branding' } as const;

export const brandingRoutes: FastifyPluginAsyncTypebox<{ branding: BrandingService }> = async (app, { branding }) => {
  app.get(
    '',
    {
      config: businessOnly,
      schema: { tags, operationId: 'getBranding', summary: 'Branding and mail-sending settings', response: { 200: BrandingSettings, ...authErrors } },
    },
    async (request) => branding.get(principalOf(request).accountId),
  );

  app.post(
    '',
    {
      config: businessOnly,
      schema: {
        tags,
        operationId: 'updateBranding',
        summary: 'Update branding and mail-sending settings',
        description: UPDATE_DESCRIPTION,
        consumes: ['application/json', 'multipart/form-data'],
        response: { 200: Type.Object({ ok: Type.Boolean(), ...BrandingSettings.properties }), ...authErrors, 413: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => {
      const { fields, logo } = await readBrandingForm(request);
      return { ok: true, ...(await branding.update(principalOf(request), fields, logo)) };
    },
  );

  app.post(
    '/domain/verify',
    {
      config: businessOnly,
      schema: {
        tags,
        operationId: 'verifyCustomDomain',
        summary: 'Verify the custom domain by its DNS TXT record',
        description: `Looks up the TXT record named in custom_domain_verification (_linkvault.<domain>); when it holds the value
shown, the domain is verified: visitors are served on it and viewer URLs and e-mail links use it. 422 when the record is
missing or holds another value, or when another account verified the domain first.`,
        response: { 200: Type.Object({ ok: Type.Boolean(), ...BrandingSettings.properties }), ...authErrors, 422: ErrorBody },
      },
    },
    async (request) => ({ ok: true, ...(await branding.verifyDomain(principalOf(request))) }),
  );

  app.post(
    '/smtp/test',
    {
      config: { ...businessOnly, sessionOnly: true },
      schema: {
        tags,
        operationId: 'testBrandingSmtp',
        summary: "Send a test e-mail to the signed-in person through the account's own SMTP server",
        description:
          "Sent at once, not queued: 200 when the server accepted it, 422 with the server's error when it did not (or when no SMTP host is saved).",
        response: { 200: Type.Object({ ok: Type.Boolean(), to: Type.String() }), ...authErrors, 422: ErrorBody },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      await branding.sendTestMail(principal, principal.actor.label);
      return { ok: true, to: principal.actor.label };
    },
  );

  app.delete(
    '/logo',
    {
      config: businessOnly,
      schema: { tags, operationId: 'deleteBrandingLogo', summary: 'Remove the custom logo', response: { 200: OkBody, ...authErrors } },
    },
    async (request) => {
      await branding.removeLogo(principalOf(request));
      return { ok: true };
    },
  );
};

/** Logos are public: visitor pages and e-mails show them. The TLS proxy's question lives here too (no API key). */
export const brandingAssetRoutes: FastifyPluginAsyncTypebox<{ branding: BrandingService }> = async (app, { branding }) => {
  // Caddy's on_demand_tls `ask`: a certificate is obtained only for a verified custom domain. No per-IP
  // limit: every question comes from the proxy's own address, and the answer is one indexed lookup.
  app.get(
    '/tls/ask',
    {
      schema: {
        hide: true,
        querystring: Type.Object({ domain: Type.String({ minLength: 1, maxLength: 253 }) }),
        response: { 200: OkBody, 400: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      if ((await branding.accountForDomain(request.query.domain)) === undefined) throw notFound('Domain');
      return { ok: true };
    },
  );

  app.get(
    '/branding/:accountId/:file',
    {
      schema: {
        hide: true,
        params: Type.Object({
          accountId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
          file: Type.String({ pattern: '^logo-[0-9A-Za-z]{12}\\.png$' }),
        }),
      },
    },
    async (request, reply) =>
      reply
        .type('image/png')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('content-security-policy', "default-src 'none'")
        .send(await branding.openLogo(request.params.accountId, request.params.file)),
  );
};
