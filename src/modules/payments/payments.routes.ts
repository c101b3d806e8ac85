import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, NullableString, StringId, authErrors } from '../../core/schemas.js';
import { readVisitToken } from '../../core/web/visit-cookie.js';
import type { CheckoutService } from './checkout.service.js';
import type { StripeConnect } from './connect.service.js';
import type { StripeWebhook } from './stripe-webhook.service.js';

const tags = ['Payments'];
const UrlBody = Type.Object({ url: Type.String() });
const upstreamErrors = { 422: ErrorBody, 502: ErrorBody, 503: ErrorBody } as const;

/** /api/stripe: Connect onboarding for owners, checkout for visitors, and Stripe's webhook. */
export const paymentsRoutes: FastifyPluginAsyncTypebox<{
  connect: Pick<StripeConnect, 'connect' | 'status'>;
  checkout: Pick<CheckoutService, 'checkoutForVisitor'>;
  webhook: StripeWebhook;
}> = async (app, { connect, checkout, webhook }) => {
  app.post(
    '/connect',
    {
      config: { area: 'payments' },
      schema: {
        tags,
        operationId: 'connectStripe',
        summary: "Create the account's Stripe Express account if needed, and return a fresh onboarding link",
        response: { 200: UrlBody, ...authErrors, ...upstreamErrors },
      },
    },
    async (request) => connect.connect(principalOf(request)),
  );

  app.get(
    '/connect-status',
    {
      schema: {
        tags,
        operationId: 'getStripeConnectStatus',
        summary: 'Whether a Stripe account is connected and can accept charges (checked with Stripe at most once a minute)',
        response: {
          200: Type.Object({
            connected: Type.Boolean(),
            charges_enabled: Type.Union([Type.Boolean(), Type.Null()]),
            account_id: NullableString(),
          }),
          ...authErrors,
          ...upstreamErrors,
        },
      },
    },
    async (request) => connect.status(principalOf(request).accountId),
  );

  app.post(
    '/checkout-download/:linkId',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'createCheckoutDownload',
        summary: 'Start a Stripe Checkout for the original file of a paid link',
        description:
          'Needs no API key, but the caller must hold a view session of the link: its visit cookie is scoped to ' +
          '/v/{linkId}, so browsers do not send it here and the viewer page posts to /v/{linkId}/checkout instead, ' +
          'which starts the same checkout. Without the cookie this answers 403.',
        security: [],
        params: Type.Object({ linkId: StringId }),
        body: Type.Object({ email: Type.String({ maxLength: 254 }) }),
        response: { 200: UrlBody, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody, ...upstreamErrors },
      },
    },
    async (request) => {
      const visitor = { token: readVisitToken(request), ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
      return checkout.checkoutForVisitor(request.params.linkId, visitor, request.body.email);
    },
  );

  // Stripe signs the exact bytes it sent: this scope keeps the body as a Buffer.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
    raw.post(
      '/webhook',
      {
        config: { public: true },
        schema: {
          tags,
          operationId: 'handleStripeWebhook',
          summary: 'Stripe webhook (checkout.session.completed, checkout.session.async_payment_succeeded, account.updated)',
          description: 'Verified with STRIPE_WEBHOOK_SECRET against the raw body; each event id is handled once.',
          security: [],
          response: { 200: Type.Object({ received: Type.Boolean() }), 400: ErrorBody, 503: ErrorBody },
        },
      },
      async (request) => {
        await webhook.receive(request.body as Buffer | undefined, request.headers['stripe-signature']);
        return { received: true };
      },
    );
  });
};
