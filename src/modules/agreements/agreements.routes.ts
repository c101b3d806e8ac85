import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { sendCsv } from '../../core/file-response.js';
import { ErrorBody, IntegerIdParams, OkBody, StringId, authErrors } from '../../core/schemas.js';
import type { AgreementsService } from './agreements.service.js';

const tags = ['Agreements'];
const errors = { ...authErrors, 404: ErrorBody, 422: ErrorBody } as const;

const Agreement = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  text: Type.Union([Type.String(), Type.Null()], { description: 'Markdown' }),
  pdfLinkId: Type.Union([Type.String(), Type.Null()]),
  html: Type.Union([Type.String(), Type.Null()], { description: 'the text as visitors see it: Markdown rendered, raw HTML shown as text' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const ListedAgreement = Type.Omit(Agreement, ['html']);
const Content = {
  text: Type.Optional(Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()], { description: 'Markdown; or pdfLinkId' })),
  pdfLinkId: Type.Optional(Type.Union([StringId, Type.Null()], { description: 'one of your links holding a PDF; or text' })),
};
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Acceptance = Type.Object({
  id: Type.Integer(),
  agreementId: Type.Integer(),
  agreementName: Type.String(),
  name: Type.String(),
  email: Type.String(),
  ip: Type.String(),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  textSha256: Type.String({ description: 'SHA-256 of the exact text accepted (the Markdown, or the PDF)' }),
  acceptedAt: Type.String({ format: 'date-time' }),
});

/** Agreements (NDAs) and, per link, who accepted them. */
export const agreementsRoutes: FastifyPluginAsyncTypebox<{ agreements: AgreementsService }> = async (app, { agreements }) => {
  app.get(
    '/agreements',
    {
      schema: {
        tags,
        operationId: 'listAgreements',
        summary: "The account's agreements (without `html`: GET one agreement for it)",
        response: { 200: Type.Object({ agreements: Type.Array(ListedAgreement) }), ...authErrors },
      },
    },
    async (request) => ({ agreements: await agreements.list(principalOf(request).accountId) }),
  );

  app.post(
    '/agreements',
    {
      schema: {
        tags,
        operationId: 'createAgreement',
        summary: 'Create an agreement: a Markdown text or a PDF link; links ask for it with agreementId',
        body: Type.Object({ name: Name, ...Content }),
        response: { 200: Agreement, ...errors },
      },
    },
    async (request) => agreements.create(principalOf(request), request.body),
  );

  app.get(
    '/agreements/:id',
    { schema: { tags, operationId: 'getAgreement', summary: 'One agreement', params: IntegerIdParams, response: { 200: Agreement, ...errors } } },
    async (request) => agreements.get(principalOf(request).accountId, request.params.id),
  );

  app.patch(
    '/agreements/:id',
    {
      schema: {
        tags,
        operationId: 'updateAgreement',
        summary: 'Change its name or content (acceptances keep the hash of the text they accepted)',
        params: IntegerIdParams,
        body: Type.Object({ name: Type.Optional(Name), ...Content }),
        response: { 200: Agreement, ...errors },
      },
    },
    async (request) => agreements.update(principalOf(request), request.params.id, request.body),
  );

  app.delete(
    '/agreements/:id',
    {
      schema: {
        tags,
        operationId: 'deleteAgreement',
        summary: 'Delete it: links stop asking for it',
        params: IntegerIdParams,
        response: { 200: OkBody, ...errors },
      },
    },
    async (request) => {
      await agreements.remove(principalOf(request), request.params.id);
      return { ok: true };
    },
  );

  app.get(
    '/links/:id/agreements',
    {
      schema: {
        tags,
        operationId: 'listLinkAgreementAcceptances',
        summary: 'Who accepted the agreement of this link, newest first (the JSON lists 1000 at most); ?format=csv lists every one',
        params: Type.Object({ id: StringId }),
        querystring: Type.Object({ format: Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' }) }),
        response: {
          200: {
            content: {
              'application/json': { schema: Type.Object({ acceptances: Type.Array(Acceptance) }) },
              'text/csv': { schema: Type.String({ description: 'accepted_at,name,email,ip,user_agent,agreement,text_sha256' }) },
            },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      if (request.query.format === 'json') return { acceptances: await agreements.acceptances(accountId, request.params.id) };
      return sendCsv(reply, `agreements-${request.params.id}.csv`, await agreements.acceptancesCsv(accountId, request.params.id));
    },
  );
};
