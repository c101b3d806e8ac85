import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../core/errors.js';
import type { BrandProvider } from '../modules/branding/brand.js';
import { addVisitorPageHeaders, sendPage } from './render.js';
import type { StripeConnect } from '../modules/payments/connect.service.js';

const ReturnQuery = Type.Object({
  account: Type.Optional(Type.String({ maxLength: 255 })),
  check: Type.Optional(Type.String({ maxLength: 64 })),
});
const STRIPE_ACCOUNT_ID = /^acct_[A-Za-z0-9]{1,255}$/;

/** The pages Stripe's onboarding sends the owner back to (its refresh_url and return_url). */
export const stripePagesRoutes: FastifyPluginAsyncTypebox<{
  connect: Pick<StripeConnect, 'refreshReturning'>;
  brandFor: BrandProvider;
  paymentsConfigured: boolean;
}> = async (app, { connect, brandFor, paymentsConfigured }) => {
  addVisitorPageHeaders(app);

  async function message(reply: FastifyReply, accountId: number, heading: string, text: string, status = 200) {
    return sendPage(reply, { template: 'message', status, title: heading, brand: await brandFor(accountId), data: { heading, text } });
  }

  /** The account's status fresh from Stripe; null when unknown or Stripe cannot say right now (the page still renders). */
  async function returning(account: string | undefined, check: string | undefined) {
    if (!account || !STRIPE_ACCOUNT_ID.test(account) || check === undefined) return null;
    try {
      return await connect.refreshReturning(account, check);
    } catch (error) {
      if (error instanceof AppError) return null;
      throw error;
    }
  }

  app.get('/return', { schema: { hide: true, querystring: ReturnQuery } }, async (request, reply) => {
    if (!paymentsConfigured) {
      return message(reply, 0, 'Payments are not configured', 'This server has no Stripe key, so it cannot connect Stripe accounts.', 503);
    }
    const status = await returning(request.query.account, request.query.check);
    if (status?.chargesEnabled) {
      return message(
        reply,
        status.accountId,
        'Your Stripe account is connected',
        'It accepts payments: links with requirePaymentToDownload=1 can be created now.',
      );
    }
    if (status) {
      return message(
        reply,
        status.accountId,
        'Stripe onboarding is not finished',
        'Stripe has not enabled charges on this account yet. It may still be checking your details: look again later with ' +
          'GET /api/stripe/connect-status, or continue with a new link from POST /api/stripe/connect.',
      );
    }
    return message(reply, 0, 'Back from Stripe', 'Check your account with GET /api/stripe/connect-status.');
  });

  app.get('/refresh', { schema: { hide: true } }, async (_request, reply) =>
    message(
      reply,
      0,
      'This onboarding link has expired',
      'Stripe onboarding links work once and only for a few minutes. Ask for a fresh one with POST /api/stripe/connect and open it right away.',
    ),
  );
};
