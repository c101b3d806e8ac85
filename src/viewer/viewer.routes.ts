import formbody from '@fastify/formbody';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden, notFound } from '../core/errors.js';
import { StringId } from '../core/schemas.js';
import type { LinkRow, VisitRow } from '../db/types.js';
import type { LinksService } from '../modules/links/links.service.js';
import { isExpired } from '../modules/links/links.service.js';
import { isCheckoutSessionId, type CheckoutService } from '../modules/payments/checkout.service.js';
import { formatPrice } from '../modules/payments/price.js';
import type { GateState, Visitor, VisitsService } from '../modules/visits/visits.service.js';
import type { BrandProvider } from './brand.js';
import type { DocumentContent } from './document-content.js';
import { presentationOf } from './document-content.js';
import { addVisitorPageHeaders, sendPage } from './render.js';
import { readVisitToken, setVisitCookie } from './visit-cookie.js';

interface ViewerDeps {
  visits: VisitsService;
  links: Pick<LinksService, 'roomChildren' | 'findForVisitor'>;
  content: DocumentContent;
  brandFor: BrandProvider;
  /** The account whose custom domain a Host is, if any. */
  accountForHost: (host: string) => Promise<number | undefined>;
  purchases: Pick<CheckoutService, 'createCheckout'>;
  publicUrl: string;
  clock: () => number;
}

const MESSAGES: Partial<Record<GateState['step'], { status: number; heading: string; text: string }>> = {
  'not-found': { status: 404, heading: 'Document not found', text: 'This link does not exist or has been removed.' },
  expired: { status: 410, heading: 'This link has expired', text: 'Ask the sender for a new link.' },
  inactive: { status: 403, heading: 'This link has been deactivated', text: 'The sender turned this link off. Ask them if you need access.' },
  'view-limit': { status: 410, heading: 'View limit reached', text: 'This link has been opened as many times as its sender allowed.' },
};

const LinkParams = Type.Object({ id: StringId });
const FormBody = Type.Object({ email: Type.Optional(Type.String()), code: Type.Optional(Type.String()), password: Type.Optional(Type.String()) });
/** Stripe Checkout sends the buyer back with the session it paid. */
const ReturnQuery = Type.Object({ session_id: Type.Optional(Type.String({ maxLength: 300 })) });

function sizeLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Visitor pages: /v/{id} and its forms, the document bytes and the tracking beacon. */
export const viewerRoutes: FastifyPluginAsyncTypebox<ViewerDeps> = async (app, deps) => {
  const { visits, links, content, brandFor, accountForHost, purchases, publicUrl, clock } = deps;
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  addVisitorPageHeaders(app);

  const base = (linkId: string) => `/v/${linkId}`;
  const visitorOf = async (request: FastifyRequest): Promise<Visitor> => ({
    token: readVisitToken(request),
    ip: request.ip,
    userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
    hostAccountId: await accountForHost(request.hostname),
  });
  const remember = (request: FastifyRequest, reply: FastifyReply, linkId: string, token: string, maxAgeSeconds: number) =>
    setVisitCookie(reply, base(linkId), token, publicUrl.startsWith('https:') || request.protocol === 'https', maxAgeSeconds);

  async function renderState(reply: FastifyReply, link: LinkRow | undefined, state: GateState, error?: AppError, sessionId?: string) {
    const brand = link ? await brandFor(link.account_id) : await brandFor(0);
    const message = MESSAGES[state.step];
    if (message || !link) {
      const { status, heading, text } = message ?? MESSAGES['not-found']!;
      return sendPage(reply, { template: 'message', status, title: heading, brand, data: { heading, text } });
    }
    if (state.step === 'session') return renderOpened(reply, link, brand, state.visit, sessionId);
    return sendPage(reply, {
      template: 'gate',
      status: error?.status ?? (state.step === 'approval-denied' ? 403 : 200),
      title: link.name,
      brand,
      script: state.step === 'approval-pending',
      data: {
        linkName: link.name,
        step: state.step,
        base: base(link.id),
        email: 'email' in state ? state.email : undefined,
        error: error?.message,
      },
    });
  }

  async function renderOpened(reply: FastifyReply, link: LinkRow, brand: Awaited<ReturnType<BrandProvider>>, visit: VisitRow, sessionId?: string) {
    if (link.kind === 'room') {
      const now = clock();
      const children = (await links.roomChildren(link.id))
        .filter((child) => child.is_active === 1 && !isExpired(child, now))
        .map((child) => ({ name: child.name, mime: child.mime, url: `${base(link.id)}/d/${child.id}` }));
      return sendPage(reply, { template: 'room', title: link.name, brand, data: { name: link.name, children } });
    }
    return renderDocument(reply, link, link, brand, visit, sessionId);
  }

  /** The "buy the original" box of a paid file: price and checkout form, and once paid, the download. */
  function purchaseOffer(file: LinkRow, prefix: string, visit: VisitRow, sessionId: string | undefined) {
    if (file.require_payment !== 1 || file.download_price === null || !file.download_currency) return null;
    return {
      priceLabel: formatPrice(file.download_price, file.download_currency),
      checkoutUrl: `${prefix}/checkout`,
      email: visit.email ?? '',
      downloadUrl: sessionId && isCheckoutSessionId(sessionId) ? `/api/links/${file.id}/download-original?session_id=${sessionId}` : null,
    };
  }

  function renderDocument(reply: FastifyReply, opened: LinkRow, file: LinkRow, brand: Awaited<ReturnType<BrandProvider>>, visit: VisitRow, sessionId?: string) {
    const inRoom = opened.id !== file.id;
    const prefix = inRoom ? `${base(opened.id)}/d/${file.id}` : base(file.id);
    const watermark = file.has_watermark === 1 || opened.has_watermark === 1;
    return sendPage(reply, {
      template: 'document',
      title: file.name,
      brand,
      script: true,
      data: {
        name: file.name,
        mime: file.mime,
        sizeLabel: sizeLabel(file.size),
        presentation: presentationOf(file.mime, watermark),
        contentUrl: `${prefix}/content`,
        trackUrl: `${base(opened.id)}/track`,
        previewPages: file.preview_pages,
        bookingUrl: file.booking_url ?? (inRoom ? opened.booking_url : null),
        backUrl: inRoom ? base(opened.id) : null,
        backLabel: opened.name,
        purchase: purchaseOffer(file, prefix, visit, sessionId),
      },
    });
  }

  app.get('/:id', { schema: { hide: true, params: LinkParams, querystring: ReturnQuery } }, async (request, reply) => {
    const { link, state, token } = await visits.enter(request.params.id, await visitorOf(request));
    if (token && state.step === 'session') remember(request, reply, link!.id, token, (state.expiresAt - clock()) / 1000);
    return renderState(reply, link, state, undefined, request.query.session_id);
  });

  /** Runs a gate form; success redirects back to the page (POST-redirect-GET), a refusal re-renders it. */
  function gateForm(path: string, action: (linkId: string, visitor: Visitor, body: { email?: string; code?: string; password?: string }) => Promise<string | void>) {
    app.post(`/:id/${path}`, { schema: { hide: true, params: LinkParams, body: FormBody } }, async (request, reply) => {
      const linkId = request.params.id;
      const visitor = await visitorOf(request);
      try {
        const token = await action(linkId, visitor, request.body ?? {});
        if (token) remember(request, reply, linkId, token, 7 * 86_400);
        return reply.redirect(base(linkId), 303);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const { link, state } = await visits.inspect(linkId, visitor);
        reply.headers(error.headers);
        return renderState(reply, link, state, error);
      }
    });
  }

  gateForm('otp', (linkId, visitor, body) => visits.sendOtp(linkId, visitor, body.email ?? ''));
  gateForm('otp/verify', (linkId, visitor, body) => visits.verifyOtp(linkId, visitor, body.code ?? ''));
  gateForm('password', (linkId, visitor, body) => visits.checkPassword(linkId, visitor, body.password ?? ''));
  gateForm('access', (linkId, visitor, body) => visits.requestAccess(linkId, visitor, body.email ?? ''));

  app.get('/:id/status', { schema: { hide: true, params: LinkParams } }, async (request) => {
    const { state } = await visits.inspect(request.params.id, await visitorOf(request));
    return { step: state.step === 'ready' ? 'approved' : state.step };
  });

  /** The link's session, or 403: document bytes never leave without one. */
  async function session(request: FastifyRequest, linkId: string) {
    const { link, state } = await visits.inspect(linkId, await visitorOf(request));
    if (!link || state.step !== 'session') throw forbidden('Open the link and pass its checks first');
    return { link, visit: state.visit };
  }

  /** A file that can only be downloaded, not shown, is what a paid link sells: the viewer does not give it away. */
  function assertNotSoldOnly(file: LinkRow, watermark: boolean): void {
    if (file.require_payment === 1 && presentationOf(file.mime, watermark) === 'download') {
      throw forbidden('This file is for sale: buy the original to download it');
    }
  }

  app.get('/:id/content', { schema: { hide: true, params: LinkParams } }, async (request, reply) => {
    const { link, visit } = await session(request, request.params.id);
    if (link.kind !== 'file') throw notFound('Document');
    assertNotSoldOnly(link, link.has_watermark === 1);
    return content.send(request, reply, link, visit, link.has_watermark === 1);
  });

  async function roomChild(roomId: string, childId: string): Promise<LinkRow> {
    const child = (await links.roomChildren(roomId)).find((candidate) => candidate.id === childId);
    if (!child || child.is_active !== 1 || isExpired(child, clock())) throw notFound('Document');
    return child;
  }

  const ChildParams = Type.Object({ id: StringId, childId: StringId });

  app.get('/:id/d/:childId', { schema: { hide: true, params: ChildParams, querystring: ReturnQuery } }, async (request, reply) => {
    const opened = await session(request, request.params.id).catch(() => undefined);
    if (!opened) return reply.redirect(base(request.params.id), 303);
    const child = await roomChild(opened.link.id, request.params.childId);
    return renderDocument(reply, opened.link, child, await brandFor(opened.link.account_id), opened.visit, request.query.session_id);
  });

  app.get('/:id/d/:childId/content', { schema: { hide: true, params: ChildParams } }, async (request, reply) => {
    const { link: room, visit } = await session(request, request.params.id);
    const child = await roomChild(room.id, request.params.childId);
    const watermark = child.has_watermark === 1 || room.has_watermark === 1;
    assertNotSoldOnly(child, watermark);
    return content.send(request, reply, child, visit, watermark);
  });

  const CheckoutBody = Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })) });

  /**
   * Starts buying a paid file. The visit cookie is scoped to /v/{id}, so the page's form posts
   * here rather than to /api/stripe/checkout-download. CSP form-action 'self' also governs the
   * redirect after a form post, so the page's script asks for JSON and navigates itself; the
   * 303 serves clients without it.
   */
  async function startCheckout(request: FastifyRequest, reply: FastifyReply, file: LinkRow, prefix: string, email: string | undefined) {
    const { url } = await purchases.createCheckout(file, email ?? '', prefix);
    return request.headers.accept?.includes('application/json') ? reply.send({ url }) : reply.redirect(url, 303);
  }

  app.post('/:id/checkout', { schema: { hide: true, params: LinkParams, body: CheckoutBody } }, async (request, reply) => {
    const { link } = await session(request, request.params.id);
    return startCheckout(request, reply, link, base(link.id), request.body.email);
  });

  app.post('/:id/d/:childId/checkout', { schema: { hide: true, params: ChildParams, body: CheckoutBody } }, async (request, reply) => {
    const { link: room } = await session(request, request.params.id);
    const child = await roomChild(room.id, request.params.childId);
    return startCheckout(request, reply, child, `${base(room.id)}/d/${child.id}`, request.body.email);
  });

  app.post('/:id/track', {
    schema: {
      hide: true,
      params: LinkParams,
      body: Type.Object({ page: Type.Integer({ minimum: 1, maximum: 100_000 }), seconds: Type.Integer({ minimum: 1, maximum: 3600 }) }),
    },
  }, async (request, reply) => {
    const tracked = await visits.trackPage(request.params.id, await visitorOf(request), request.body.page, request.body.seconds);
    if (!tracked) throw forbidden('No view session for this link');
    return reply.code(204).send();
  });
};
