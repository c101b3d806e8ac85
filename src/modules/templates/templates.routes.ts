import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, IntegerIdParams, OkBody, authErrors } from '../../core/schemas.js';
import { EXPIRATIONS, type Expiration } from '../links/link-settings.js';
import type { TemplatesService } from './templates.service.js';

const tags = ['Templates'];
const errors = { ...authErrors, 404: ErrorBody, 422: ErrorBody } as const;
const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

/** The upload settings a template may state, in JSON types; the ranges are upload's own. */
const TemplateSettings = {
  expiration: Type.Optional(Type.Enum(Object.keys(EXPIRATIONS) as Expiration[])),
  hasWatermark: flag('burn the viewer\'s identity into every page'),
  requiresApproval: flag('the owner approves each viewer'),
  requiresOtp: flag('an e-mailed one-time code from allowedEmails / allowedDomains'),
  allowedEmails: Type.Optional(Type.Array(Type.String({ maxLength: 254 }), { maxItems: 1000 })),
  allowedDomains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 1000 })),
  bookingUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  previewPages: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()])),
  viewSessionTtlSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400 })),
  maxViews: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: '0 = unlimited' })),
  requirePaymentToDownload: flag('sell the original file (needs payments configured)'),
  downloadPrice: Type.Optional(Type.Union([Type.Integer({ minimum: 50, maximum: 100_000_000, description: 'integer cents' }), Type.Null()])),
  downloadCurrency: Type.Optional(Type.String({ pattern: '^[a-z]{3}$', description: 'lowercase currency code' })),
};

const TemplateName = Type.String({ minLength: 1, maxLength: 200 });
// Unknown fields (a password among them) are dropped by the validator, never stored.
const CreateBody = Type.Object({ name: TemplateName, ...TemplateSettings }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(TemplateName), ...TemplateSettings }, { additionalProperties: false });
/** Only the settings the template states are listed: the others come from the upload or the defaults. */
const Template = Type.Object({ id: Type.Integer(), name: Type.String(), ...TemplateSettings });

export const templatesRoutes: FastifyPluginAsyncTypebox<{ templates: TemplatesService }> = async (app, { templates }) => {
  app.get('', {
    schema: { tags, summary: 'List the account\'s link templates', response: { 200: Type.Object({ templates: Type.Array(Template) }), ...authErrors } },
  }, async (request) => ({ templates: await templates.list(principalOf(request).accountId) }));

  app.post('', {
    schema: {
      tags,
      summary: 'Create a template; POST /api/upload applies it with the form field templateId',
      body: CreateBody,
      response: { 200: Type.Object({ ok: Type.Boolean(), id: Type.Integer() }), ...errors },
    },
  }, async (request) => ({ ok: true, id: await templates.create(principalOf(request).accountId, request.body) }));

  app.get('/:id', {
    schema: { tags, summary: 'One template', params: IntegerIdParams, response: { 200: Type.Object({ template: Template }), ...errors } },
  }, async (request) => ({ template: await templates.get(principalOf(request).accountId, request.params.id) }));

  app.route({
    method: ['PATCH', 'PUT', 'POST'],
    url: '/:id',
    schema: {
      tags,
      summary: 'Change a template\'s name or settings; the fields sent replace the stored ones',
      params: IntegerIdParams,
      body: UpdateBody,
      response: { 200: OkBody, ...errors },
    },
    handler: async (request) => {
      await templates.update(principalOf(request).accountId, request.params.id, request.body);
      return { ok: true };
    },
  });

  app.delete('/:id', {
    schema: { tags, summary: 'Delete a template (links made from it keep their settings)', params: IntegerIdParams, response: { 200: OkBody, ...errors } },
  }, async (request) => {
    await templates.remove(principalOf(request).accountId, request.params.id);
    return { ok: true };
  });
};
