import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { principalOf } from '../../core/auth.js';
import { badRequest } from '../../core/errors.js';
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
  custom_domain: NullableString(),
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
logo_size 16-512; custom_domain a hostname; smtp_port 1-65535; smtp_encryption none|ssl|starttls; email_locale en|es|fr|pt|it;
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
  for await (const part of request.parts({ limits: { fileSize: MAX_LOGO_BYTES + 1 } })) {
    if (part.type === 'field') fields[part.fieldname] = String(part.value);
    else if (part.fieldname === 'logo') logo = await part.toBuffer();
    else throw badRequest(`multipart file part must be named "logo", not "${part.fieldname}"`);
  }
  return { fields, logo };
}

export const brandingRoutes: FastifyPluginAsyncTypebox<{ branding: BrandingService }> = async (app, { branding }) => {
  app.get('', {
    schema: { tags, summary: 'Branding and mail-sending settings', response: { 200: BrandingSettings, ...authErrors } },
  }, async (request) => branding.get(principalOf(request).accountId));

  app.post('', {
    schema: {
      tags,
      summary: 'Update branding and mail-sending settings',
      description: UPDATE_DESCRIPTION,
      consumes: ['application/json', 'multipart/form-data'],
      response: { 200: Type.Object({ ok: Type.Boolean(), ...BrandingSettings.properties }), ...authErrors, 413: ErrorBody, 422: ErrorBody },
    },
  }, async (request) => {
    const { fields, logo } = await readBrandingForm(request);
    return { ok: true, ...(await branding.update(principalOf(request).accountId, fields, logo)) };
  });

  app.delete('/logo', {
    schema: { tags, summary: 'Remove the custom logo', response: { 200: OkBody, ...authErrors } },
  }, async (request) => {
    await branding.removeLogo(principalOf(request).accountId);
    return { ok: true };
  });
};

/** Logos are public: visitor pages and e-mails show them. */
export const brandingAssetRoutes: FastifyPluginAsyncTypebox<{ branding: BrandingService }> = async (app, { branding }) => {
  app.get('/branding/:accountId/:file', {
    schema: {
      hide: true,
      params: Type.Object({ accountId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), file: Type.String({ pattern: '^logo-[0-9A-Za-z]{12}\\.png$' }) }),
    },
  }, async (request, reply) =>
    reply
      .type('image/png')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('content-security-policy', "default-src 'none'")
      .send(await branding.openLogo(request.params.accountId, request.params.file)),
  );
};
