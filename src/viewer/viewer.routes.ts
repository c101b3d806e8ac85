import type { Readable } from 'node:stream';
import formbody from '@fastify/formbody';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden } from '../core/errors.js';
import { contentDisposition, refuseHeadOfSpendingDownload, sendFile } from '../core/file-response.js';
import { limitByClientIp, type WindowCounter } from '../core/rate-limit.js';
import { StringId } from '../core/schemas.js';
import type { DocumentView } from '../modules/documents/document-view.js';
import type { DocumentContent, DocumentsService } from '../modules/documents/documents.service.js';
import type { PageImageKind, PageManifest, PagesService } from '../modules/documents/pages.service.js';
import { DownloadProof, limitDownloads } from '../modules/downloads/downloads.routes.js';
import type { DownloadsService } from '../modules/downloads/downloads.service.js';
import { viewerPathOf } from '../modules/links/links.service.js';
import type { CheckoutService } from '../modules/payments/checkout.service.js';
import type { Visitor } from '../modules/visits/visitor.js';
import type { Gate, GateState, LinkPreview, RoomView, VisitorPage, VisitsService } from '../modules/visits/visits.service.js';
import type { Brand, BrandProvider } from '../modules/branding/brand.js';
import { addVisitorPageHeaders, pathNamesNothing, sendPage, type PageOptions } from './render.js';
import { readSessionToken, ROOM_VISIT_COOKIE, setSessionCookie, VISIT_COOKIE } from '../core/web/visit-cookie.js';
import { sizeLabel } from '../core/sizes.js';

interface ViewerDeps {
  visits: Pick<
    VisitsService,
    'enter' | 'page' | 'giveEmail' | 'acceptAgreement' | 'sendOtp' | 'verifyOtp' | 'checkPassword' | 'requestAccess' | 'trackPage'
  >;
  documents: Pick<DocumentsService, 'contentFor' | 'downloadFor' | 'agreementPdfFor'>;
  pages: Pick<PagesService, 'manifestFor' | 'pageImageFor' | 'openingPage' | 'shownPageCount'>;
  brandFor: BrandProvider;
  /** The account whose custom domain a Host is, if any. */
  accountForHost: (host: string) => Promise<number | undefined>;
  purchases: Pick<CheckoutService, 'checkoutOnPage'>;
  downloads: Pick<DownloadsService, 'redeem'>;
  /** Counts download attempts per client, shared with the API's download-original. */
  counter: WindowCounter;
  /** The preview picture of a live link, for unfurling apps. */
  previewImageOf: (linkId: string, roomId?: string, hostAccountId?: number) => Promise<Readable>;
  /** A page's brand and where the account's links live (its verified custom domain, or PUBLIC_URL): the origin of a link card's URLs. */
  pageLookFor: (accountId: number) => Promise<{ brand: Brand; viewerBase: string }>;
  publicUrl: string;
  clock: () => number;
}

const CONTENT_PER_MINUTE_PER_CLIENT = 120;

const MESSAGES: Partial<Record<GateState['step'], { status: number; heading: string; text: string }>> = {
  'not-found': { status: 404, heading: 'Document not found', text: 'This link does not exist or has been removed.' },
  expired: { status: 410, heading: 'This link has expired', text: 'Ask the sender for a new link.' },
  inactive: { status: 403, heading: 'This link has been deactivated', text: 'The sender turned this link off. Ask them if you need access.' },
  // Neutral on purpose: it does not say that a list refused the address.
  blocked: { status: 403, heading: 'Access denied', text: 'You do not have access to this document.' },
  'view-limit': { status: 410, heading: 'View limit reached', text: 'This link has been opened as many times as its sender allowed.' },
  'agreement-unavailable': {
    status: 403,
    heading: 'This document cannot be opened right now',
    text: 'It asks you to accept an agreement whose text is no longer available. Ask the sender to fix the link.',
  },
};

/** /v/{id}/… is a link on its own; /v/{id}/d/{childId}/… is one of data room {id}'s links, opened inside the room. */
const PlaceParams = Type.Object({ id: StringId, childId: Type.Optional(StringId) });
const FormBody = Type.Object({
  email: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  agree: Type.Optional(Type.String()),
});
/** Stripe Checkout sends the buyer back with the session it paid. */
const ReturnQuery = Type.Object({ session_id: Type.Optional(Type.String({ maxLength: 300 })) });

/** Where a link is visited: on its own, or inside data room `roomId`; `base` is the path of its page. */
interface Place {
  linkId: string;
  roomId?: string;
  base: string;
}

const GATE_ASKS: Record<Exclude<Gate, 'view-limit'>, string> = {
  email: 'your e-mail address',
  otp: 'an e-mailed code',
  password: 'a password',
  agreement: 'accepting an agreement',
  approval: "the owner's approval",
};

/** What the room page says of a link's lock ("Protected: asks for a password"), or null for an open link. */
function lockLabel(gates: Gate[]): string | null {
  if (gates.includes('view-limit')) return 'View limit reached';
  const asks = gates.map((gate) => GATE_ASKS[gate as Exclude<Gate, 'view-limit'>]);
  if (asks.length === 0) return null;
  return `Protected: asks for ${asks.length > 1 ? `${asks.slice(0, -1).join(', ')} and ${asks.at(-1)}` : asks[0]}`;
}

/** The apps that fetch a shared address to draw its card: they get the card, and open no view. */
const LINK_PREVIEW_AGENTS =
  /Slackbot|Slack-ImgProxy|facebookexternalhit|Facebot|Twitterbot|LinkedInBot|WhatsApp|TelegramBot|Discordbot|SkypeUriPreview|MicrosoftPreview|Iframely|redditbot|Applebot/i;
/** Crawlers and programs that say what they are (Googlebot, bingbot, Google Chat's renderer, Mastodon, curl): no person reads there. */
const AUTOMATED_AGENTS = /bot\b|bot\/|crawler|spider|Mastodon|Google-PageRenderer|curl\/|Wget\/|python-requests|Go-http-client|okhttp/i;

/**
 * A fetch that is not a person opening the link, which gets the card like an unfurling app: those
 * apps, crawlers, programs that name themselves, a request naming no agent, and a browser's
 * prefetch of an address it may never show (`Sec-Purpose: prefetch`, `Purpose: prefetch`).
 */
function isUnattendedFetch(request: FastifyRequest): boolean {
  const agent = request.headers['user-agent'] ?? '';
  const purpose = `${request.headers['sec-purpose'] ?? ''} ${request.headers.purpose ?? ''}`;
  return agent.trim() === '' || LINK_PREVIEW_AGENTS.test(agent) || AUTOMATED_AGENTS.test(agent) || /\bprefetch\b/i.test(purpose);
}

/** Visitor pages: /v/{id} and its forms, the document bytes and the tracking beacon. */
export const viewerRoutes: FastifyPluginAsyncTypebox<ViewerDeps> = async (app, deps) => {
  const { visits, documents, pages, brandFor, accountForHost, purchases, downloads, counter, publicUrl, clock, previewImageOf, pageLookFor } = deps;
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  addVisitorPageHeaders(app);

  // Inside a room, `childId` is the name the room gives the link (`roomChildName`); the path
  // stays as asked, since the visit's cookie is scoped to it.
  const placeOf = ({ id, childId }: { id: string; childId?: string }): Place =>
    childId ? { linkId: childId, roomId: id, base: `/v/${id}/d/${childId}` } : { linkId: id, base: viewerPathOf(id) };
  /**
   * A page's image or thumbnail as pages.json and the page's preload name it: of a version (a
   * replacement gets new URLs), and of the view a watermarked visit's images are stamped for.
   */
  const pageUrl = (place: Place, number: number, kind: PageImageKind, { version, stampedFor }: Pick<PageManifest, 'version' | 'stampedFor'>) =>
    `${place.base}/pages/${number}${kind === 'thumbnail' ? '/thumbnail' : ''}?v=${version}${stampedFor ? `&view=${stampedFor}` : ''}`;
  /** Every visitor route exists for a link on its own and for a link inside a room: one handler, two paths. */
  const onLinkAndInRoom = (suffix = '') => [`/:id${suffix}`, `/:id/d/:childId${suffix}`];

  const visitorAt = async (request: FastifyRequest, place: Place): Promise<Visitor> => ({
    token: readSessionToken(request, place.roomId ? ROOM_VISIT_COOKIE : VISIT_COOKIE),
    ip: request.ip,
    userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
    hostAccountId: await accountForHost(request.hostname),
    // The room's own visit cookie (scoped to /v/{room}) comes along on its links' paths.
    ...(place.roomId && { room: { id: place.roomId, token: readSessionToken(request, VISIT_COOKIE) } }),
  });
  const remember = (request: FastifyRequest, reply: FastifyReply, place: Place, token: string, maxAgeSeconds: number) =>
    setSessionCookie(
      reply,
      place.roomId ? ROOM_VISIT_COOKIE : VISIT_COOKIE,
      place.base,
      token,
      publicUrl.startsWith('https:') || request.protocol === 'https',
      maxAgeSeconds,
    );

  async function renderNotFound(reply: FastifyReply) {
    const { status, heading, text } = MESSAGES['not-found']!;
    return sendPage(reply, { template: 'message', status, title: heading, brand: await brandFor(0), data: { heading, text } });
  }

  /**
   * The link's card for apps that unfurl its address. Its absolute URLs are where the account's links
   * live, never the request's Host (nor X-Forwarded-Host, which not every proxy overwrites).
   */
  function previewTags(place: Place, preview: LinkPreview, origin: string) {
    return {
      title: preview.title,
      description: preview.description,
      image: preview.hasImage ? `${origin}${place.base}/preview.png` : null,
      url: `${origin}${place.base}`,
    };
  }

  async function renderState(
    reply: FastifyReply,
    place: Place,
    { link, state, shown }: VisitorPage,
    { error, firstPageUrl }: { error?: AppError; firstPageUrl?: string } = {},
  ) {
    if (state.step === 'outside-room') return reply.redirect(viewerPathOf(place.roomId ?? place.linkId), 303);
    const { brand, viewerBase } = await pageLookFor(link?.accountId ?? 0);
    const message = MESSAGES[state.step];
    if (!link) return renderNotFound(reply);
    if (message) {
      const { status, heading, text } = message;
      return sendPage(reply, { template: 'message', status, title: heading, brand, data: { heading, text } });
    }
    const preview = previewTags(place, link.preview, viewerBase);
    if (shown) {
      return shown.kind === 'room'
        ? renderRoom(reply, shown.room, brand, preview)
        : renderDocument(reply, place, shown.document, brand, preview, firstPageUrl);
    }
    return sendPage(reply, {
      template: 'gate',
      status: error?.status ?? (state.step === 'approval-denied' ? 403 : 200),
      title: link.name,
      brand,
      preview,
      script: state.step === 'approval-pending',
      data: {
        linkName: link.name,
        step: state.step,
        base: place.base,
        email: 'email' in state ? state.email : undefined,
        agreement: state.step === 'agreement' ? state.agreement : undefined,
        error: error?.message,
      },
    });
  }

  /** A visit refused for now (too many from the client's network): the message, and when to come back. */
  async function renderTooMany(reply: FastifyReply, place: Place, visitor: Visitor, refusal: AppError) {
    const { link } = await visits.page(place.linkId, visitor);
    const heading = 'Please wait a minute';
    reply.headers(refusal.headers);
    return sendPage(reply, {
      template: 'message',
      status: 429,
      title: heading,
      brand: await brandFor(link?.accountId ?? 0),
      data: { heading, text: refusal.message },
    });
  }

  /** What an unfurling app gets: the link's card and nothing of the document; no view is opened or counted. */
  async function renderCard(reply: FastifyReply, place: Place, { link, state }: VisitorPage) {
    if (!link || MESSAGES[state.step]) return renderState(reply, place, { link, state });
    const { title, description } = link.preview;
    const { brand, viewerBase } = await pageLookFor(link.accountId);
    return sendPage(reply, {
      template: 'message',
      title,
      brand,
      preview: previewTags(place, link.preview, viewerBase),
      data: { heading: title, text: description ?? 'Open the link to view this document.' },
    });
  }

  /** The room's live links, each gated one marked with a lock saying what it will ask for. */
  function renderRoom(reply: FastifyReply, room: RoomView, brand: Brand, preview: PageOptions['preview']) {
    const children = room.children.map((child) => ({
      name: child.name,
      mime: child.mime,
      url: viewerPathOf(child.id, room.id),
      lock: lockLabel(child.gates),
    }));
    return sendPage(reply, { template: 'room', title: room.name, brand, preview, data: { name: room.name, children } });
  }

  function renderDocument(
    reply: FastifyReply,
    place: Place,
    document: DocumentView,
    brand: Brand,
    preview: PageOptions['preview'],
    firstPageUrl: string | undefined,
  ) {
    return sendPage(reply, {
      template: 'document',
      title: document.name,
      brand,
      preview,
      script: true,
      preloadImage: firstPageUrl,
      data: {
        name: document.name,
        mime: document.mime,
        sizeLabel: sizeLabel(document.size),
        presentation: document.presentation,
        contentUrl: `${place.base}/content`,
        manifestUrl: `${place.base}/pages.json`,
        trackUrl: `${place.base}/track`,
        previewPages: document.previewPages,
        bookingUrl: document.bookingUrl,
        downloadUrl: document.downloadable ? `${place.base}/download` : null,
        backUrl: document.room && viewerPathOf(document.room.id),
        backLabel: document.room?.name ?? document.name,
        purchase: document.purchase,
      },
    });
  }

  for (const url of onLinkAndInRoom()) {
    app.get(url, { schema: { hide: true, params: PlaceParams, querystring: ReturnQuery }, attachValidation: true }, async (request, reply) => {
      if (pathNamesNothing(request)) return renderNotFound(reply);
      const place = placeOf(request.params);
      const visitor = await visitorAt(request, place);
      // HEAD (a link checker) and fetches no person asked for get what an unfurling app gets: opening the view would count it, and spend a view cap.
      if (request.method === 'HEAD' || isUnattendedFetch(request)) return renderCard(reply, place, await visits.page(place.linkId, visitor));
      // A refusal while the visit begins shows the page as it now stands (the link deleted meanwhile), or says to wait.
      const entered = await visits.enter(place.linkId, visitor, { checkoutSessionId: request.query.session_id }).catch(async (error) => {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        if (error.status === 429) return error;
        return visits.page(place.linkId, visitor);
      });
      if (entered instanceof AppError) return renderTooMany(reply, place, visitor, entered);
      if (entered.token && entered.state.step === 'session')
        remember(request, reply, place, entered.token, (entered.state.session.expiresAt - clock()) / 1000);
      const shown = entered.shown?.kind === 'document' ? entered.shown.document : undefined;
      // The page names its first page's image for the browser to fetch while it loads the viewer; without it the page still works.
      const opening =
        shown?.presentation === 'pages'
          ? await pages.openingPage(place.linkId, { ...visitor, token: entered.token ?? visitor.token }).catch((err: unknown) => {
              request.log.warn({ err }, 'could not tell the first page of a paged document');
              return undefined;
            })
          : undefined;
      return renderState(reply, place, entered, { firstPageUrl: opening && pageUrl(place, 1, 'page', opening) });
    });
  }

  /** Runs a gate form; success redirects back to the page (POST-redirect-GET), a refusal re-renders it. */
  function gateForm(
    path: string,
    action: (
      linkId: string,
      visitor: Visitor,
      body: { email?: string; code?: string; password?: string; name?: string; agree?: string },
    ) => Promise<string | void>,
  ) {
    for (const url of onLinkAndInRoom(`/${path}`)) {
      app.post(url, { schema: { hide: true, params: PlaceParams, body: FormBody } }, async (request, reply) => {
        const place = placeOf(request.params);
        const visitor = await visitorAt(request, place);
        try {
          const token = await action(place.linkId, visitor, request.body ?? {});
          if (token) remember(request, reply, place, token, 7 * 86_400);
          return reply.redirect(place.base, 303);
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) throw error;
          reply.headers(error.headers);
          return renderState(reply, place, await visits.page(place.linkId, visitor), { error });
        }
      });
    }
  }

  gateForm('email', (linkId, visitor, body) => visits.giveEmail(linkId, visitor, body.email ?? ''));
  gateForm('otp', (linkId, visitor, body) => visits.sendOtp(linkId, visitor, body.email ?? ''));
  gateForm('otp/verify', (linkId, visitor, body) => visits.verifyOtp(linkId, visitor, body.code ?? ''));
  gateForm('password', (linkId, visitor, body) => visits.checkPassword(linkId, visitor, body.password ?? ''));
  gateForm('agreement', (linkId, visitor, body) => visits.acceptAgreement(linkId, visitor, body));
  gateForm('access', (linkId, visitor, body) => visits.requestAccess(linkId, visitor, body.email ?? ''));

  for (const url of onLinkAndInRoom('/status')) {
    app.get(url, { schema: { hide: true, params: PlaceParams } }, async (request) => {
      const place = placeOf(request.params);
      const { state } = await visits.page(place.linkId, await visitorAt(request, place));
      return { step: state.step === 'ready' ? 'approved' : state.step };
    });
  }

  /** Document bytes as HTTP: the stored original with Range, or the copy made for this visit. */
  function sendContent(request: FastifyRequest, reply: FastifyReply, content: DocumentContent) {
    if (content.kind === 'stream') return sendFile(request, reply, content, content.disposition);
    if (content.totalPages !== undefined) reply.header('x-total-pages', String(content.totalPages));
    return reply
      .type(content.mime)
      .header('content-disposition', contentDisposition(content.disposition, content.name))
      .header('cache-control', 'private, no-store')
      .send(content.bytes);
  }

  /** The agreement's PDF, for a visitor asked to accept it. */
  for (const url of onLinkAndInRoom('/agreement.pdf')) {
    app.get(url, { schema: { hide: true, params: PlaceParams } }, async (request, reply) => {
      const place = placeOf(request.params);
      return sendContent(request, reply, await documents.agreementPdfFor(place.linkId, await visitorAt(request, place)));
    });
  }

  /** The preview picture unfurling apps fetch: public, as the owner chose to show it beside the link. */
  for (const url of onLinkAndInRoom('/preview.png')) {
    app.get(url, { schema: { hide: true, params: PlaceParams } }, async (request, reply) => {
      const place = placeOf(request.params);
      const image = await previewImageOf(place.linkId, place.roomId, await accountForHost(request.hostname));
      return reply.type('image/png').header('cache-control', 'public, max-age=300').header('content-disposition', 'inline').send(image);
    });
  }

  // A copy made for the visit (stamped, cut, a sold picture made smaller) costs up to seconds of CPU:
  // ample for a player's range requests and reloads, too few for one client to keep the server busy.
  const limitCopies = limitByClientIp(
    counter,
    'visitor-content',
    CONTENT_PER_MINUTE_PER_CLIENT,
    'Too many requests for this document; try again in a minute',
  );

  for (const url of onLinkAndInRoom('/content')) {
    app.get(url, { onRequest: limitCopies, schema: { hide: true, params: PlaceParams } }, async (request, reply) => {
      const place = placeOf(request.params);
      return sendContent(request, reply, await documents.contentFor(place.linkId, await visitorAt(request, place)));
    });
  }

  /** The Download button's target, when the owner allows it: a file to save, stamped for the visitor when watermarked. */
  for (const url of onLinkAndInRoom('/download')) {
    app.get(url, { onRequest: [refuseHeadOfSpendingDownload, limitCopies], schema: { hide: true, params: PlaceParams } }, async (request, reply) => {
      const place = placeOf(request.params);
      const { range } = request.headers;
      const continuing = typeof range === 'string' && !/^bytes=0-/.test(range.trim());
      return sendContent(request, reply, await documents.downloadFor(place.linkId, await visitorAt(request, place), { continuing }));
    });
  }

  /**
   * The API's download-original on the viewer page's own path, which the page's "Download the original"
   * links to after a purchase: inside a data room the path names the file by its room name, so the page
   * never shows the link's own id (which opens it past the room's gates).
   */
  for (const url of onLinkAndInRoom('/download-original')) {
    app.get(
      url,
      { onRequest: [refuseHeadOfSpendingDownload, limitDownloads(counter)], schema: { hide: true, params: PlaceParams, querystring: DownloadProof } },
      async (request, reply) => {
        const place = placeOf(request.params);
        const { token, session_id: sessionId } = request.query;
        const where = { linkId: place.linkId, roomId: place.roomId, hostAccountId: await accountForHost(request.hostname) };
        return sendFile(request, reply, await downloads.redeem(where, { token, sessionId }), 'attachment');
      },
    );
  }

  /** The pages of a paged document the visitor may see so far, with where to fetch each (the version in the URL: a replacement gets new ones). */
  for (const url of onLinkAndInRoom('/pages.json')) {
    app.get(url, { schema: { hide: true, params: PlaceParams } }, async (request, reply) => {
      const place = placeOf(request.params);
      const manifest = await pages.manifestFor(place.linkId, await visitorAt(request, place));
      reply.header('cache-control', 'private, no-store');
      return {
        ...manifest,
        pages: manifest.pages.map((page) => ({
          ...page,
          imageUrl: pageUrl(place, page.number, 'page', manifest),
          thumbnailUrl: pageUrl(place, page.number, 'thumbnail', manifest),
        })),
      };
    });
  }

  const PageParams = Type.Object({ ...PlaceParams.properties, page: Type.Integer({ minimum: 1, maximum: 100_000 }) });
  /** The version the viewer's list named (`?v=`): a page of another one would be mixed into it. */
  const PageQuery = Type.Object({ v: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: true });

  /** A page image (or its thumbnail): stamped for this visit when the link watermarks; 404 past a preview. */
  for (const [suffix, kind] of [
    ['/pages/:page', 'page'],
    ['/pages/:page/thumbnail', 'thumbnail'],
  ] as const) {
    for (const url of onLinkAndInRoom(suffix)) {
      app.get(url, { schema: { hide: true, params: PageParams, querystring: PageQuery } }, async (request, reply) => {
        const place = placeOf(request.params);
        const { page } = request.params;
        const image = await pages.pageImageFor(place.linkId, await visitorAt(request, place), page, kind, request.query.v);
        return reply.type(image.mime).header('cache-control', 'private, no-store').header('content-disposition', 'inline').send(image.bytes);
      });
    }
  }

  const CheckoutBody = Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })) });

  /**
   * Starts buying a paid file. The visit cookie is scoped to /v/{id}, so the page's form posts
   * here rather than to /api/stripe/checkout-download. CSP form-action 'self' also governs the
   * redirect after a form post, so the page's script asks for JSON and navigates itself; the
   * 303 serves clients without it.
   */
  for (const url of onLinkAndInRoom('/checkout')) {
    app.post(url, { schema: { hide: true, params: PlaceParams, body: CheckoutBody } }, async (request, reply) => {
      const place = placeOf(request.params);
      const checkout = await purchases.checkoutOnPage(place.linkId, await visitorAt(request, place), request.body.email ?? '');
      return request.headers.accept?.includes('application/json') ? reply.send(checkout) : reply.redirect(checkout.url, 303);
    });
  }

  // Up to the longest view session: one beacon may carry a long read of one page (the view's budget cuts it).
  const TrackBody = Type.Object({ page: Type.Integer({ minimum: 1, maximum: 100_000 }), seconds: Type.Integer({ minimum: 1, maximum: 86_400 }) });

  /** Seconds per page from the viewer's beacon, recorded on the visit of the link shown (inside a room too). */
  for (const url of onLinkAndInRoom('/track')) {
    app.post(url, { schema: { hide: true, params: PlaceParams, body: TrackBody } }, async (request, reply) => {
      const place = placeOf(request.params);
      const tracked = await visits.trackPage(place.linkId, await visitorAt(request, place), request.body, (link) => pages.shownPageCount(link));
      if (!tracked) throw forbidden('No view session for this link');
      return reply.code(204).send();
    });
  }
};
