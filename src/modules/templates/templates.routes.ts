import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, IntegerIdParams, OkBody, authErrors } from '../../core/schemas.js';
import { jsonSettingProperties } from '../links/link-settings-schema.js';
import { answerOf, IdempotencyHeaders } from '../idempotency/idempotency-http.js';
import type { TemplatesService } from './templates.service.js';

const tags = ['Templates'];
const errors = { ...authErrors, 404: ErrorBody, 422: ErrorBody } as const;
/** The upload settings a template may state, in JSON types; ranges and descriptions are the settings' own. */
const TemplateSettings = jsonSettingProperties;

const TemplateName = Type.String({ minLength: 1, maxLength: 200 });
// Unknown fields (a password among them) are dropped by the validator, never stored.
const CreateBody = Type.Object({ name: TemplateName, ...TemplateSettings }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(TemplateName), ...TemplateSettings }, { additionalProperties: false });
/** Only the settings the template states are listed: the others come from the upload or the defaults. */
const Template = Type.Object({ id: Type.Integer(), name: Type.String(), ...TemplateSettings });

export const templatesRoutes: FastifyPluginAsyncTypebox<{ templates: TemplatesService }> = async (app, { templates }) => {
  app.get(
    '',
    {
      schema: {
        tags,
        operationId: 'listTemplates',
        summary: "List the account's link templates",
        response: { 200: Type.Object({ templates: Type.Array(Template) }), ...authErrors },
      },
    },
    async (request) => ({ templates: await templates.list(principalOf(request).accountId) }),
  );

  app.post(
    '',
    {
      schema: {
        tags,
        operationId: 'createTemplate',
        summary: 'Create a template; POST /api/upload applies it with the form field templateId',
        headers: IdempotencyHeaders,
        body: CreateBody,
        response: { 200: Type.Object({ ok: Type.Boolean(), id: Type.Integer() }), ...errors },
      },
    },
    async (request, reply) =>
      answerOf(reply, await templates.create(principalOf(request).accountId, request.body, request.headers['idempotency-key'])),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        operationId: 'getTemplate',
        summary: 'One template',
        params: IntegerIdParams,
        response: { 200: Type.Object({ template: Template }), ...errors },
      },
    },
    async (request) => ({ template: await templates.get(principalOf(request).accountId, request.params.id) }),
  );

  app.route({
    method: 'PATCH',
    url: '/:id',
    schema: {
      tags,
      operationId: 'updateTemplate',
      summary: "Change a template's name or settings; the fields sent replace the stored ones",
      params: IntegerIdParams,
      body: UpdateBody,
      response: { 200: OkBody, ...errors },
    },
    handler: async (request) => {
      await templates.update(principalOf(request).accountId, request.params.id, request.body);
      return { ok: true };
    },
  });

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        operationId: 'deleteTemplate',
        summary: 'Delete a template (links made from it keep their settings)',
        params: IntegerIdParams,
        response: { 200: OkBody, ...errors },
      },
    },
    async (request) => {
      await templates.remove(principalOf(request).accountId, request.params.id);
      return { ok: true };
    },
  );
};
