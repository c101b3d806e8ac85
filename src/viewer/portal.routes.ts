import formbody from '@fastify/formbody';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { StringId } from '../core/schemas.js';
import { ROOM_MIME } from '../modules/links/links.service.js';
import type { PortalAccessService, PortalClient, PortalCookie, PortalPage } from '../modules/portals/portal-access.service.js';
import { PORTAL_SLUG_PATTERN } from '../modules/portals/portals.service.js';
import type { Visitor } from '../modules/visits/visitor.js';
import type { BrandProvider } from '../modules/branding/brand.js';
import { addVisitorPageHeaders, pathNamesNothing, sendPage } from './render.js';
import { readSessionToken, setSessionCookie, setVisitCookie } from '../core/web/visit-cookie.js';

interface PortalPagesDeps {
  portals: Pick<PortalAccessService, 'inspect' | 'requestCode' | 'verifyCode' | 'signOut' | 'openLink'>;
  brandFor: BrandProvider;
  accountForHost: (host: string) => Promise<number | undefined>;
  publicUrl: string;
  clock: () => number;
}

export const PORTAL_COOKIE = 'lv_portal';
/** How long the link's visit cookie set on opening it may last: the gate window of a visit. */
const VISIT_COOKIE_MAX_AGE_SECONDS = 7 * 86_400;

// Only a slug a portal could have: the slug becomes the path of the portal's cookie and redirects, which take no other characters.
const Slug = Type.String({ pattern: PORTAL_SLUG_PATTERN });
const SlugParams = Type.Object({ slug: Slug });
const OpenParams = Type.Object({ slug: Slug, linkId: StringId });
const FormBody = Type.Object({ email: Type.Optional(Type.String()), code: Type.Optional(Type.String()) });

const TYPE_LABELS: Array<[RegExp, string]> = [
  [/^application\/pdf$/, 'PDF'],
  [/^image\//, 'Image'],
  [/^video\//, 'Video'],
  [/^audio\//, 'Audio'],
  [/spreadsheet|excel|csv/, 'Spreadsheet'],
  [/presentation|powerpoint/, 'Presentation'],
  [/wordprocessing|msword|opendocument\.text|rtf/, 'Document'],
  [/^text\//, 'Text'],
];

const typeLabel = (mime: string) => (mime === ROOM_MIME ? 'Data room' : (TYPE_LABELS.find(([pattern]) => pattern.test(mime))?.[1] ?? 'File'));

/** Client portal pages: /p/{slug} (sign in by e-mailed code, then the list) and /p/{slug}/open/{linkId}. */
export const portalRoutes: FastifyPluginAsyncTypebox<PortalPagesDeps> = async (app, { portals, brandFor, accountForHost, publicUrl, clock }) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  addVisitorPageHeaders(app);

  const base = (slug: string) => `/p/${slug}`;
  const secure = (request: FastifyRequest) => publicUrl.startsWith('https:') || request.protocol === 'https';

  async function clientOf(request: FastifyRequest): Promise<PortalClient> {
    return { token: readSessionToken(request, PORTAL_COOKIE), ip: request.ip, hostAccountId: await accountForHost(request.hostname) };
  }

  function setPortalCookie(request: FastifyRequest, reply: FastifyReply, slug: string, cookie: PortalCookie) {
    setSessionCookie(reply, PORTAL_COOKIE, base(slug), cookie.token, secure(request), Math.ceil((cookie.expiresAt - clock()) / 1000));
  }

  async function sendMessage(reply: FastifyReply, accountId: number, heading: string, text: string) {
    return sendPage(reply, { template: 'message', status: 404, title: heading, brand: await brandFor(accountId), data: { heading, text } });
  }
  const portalNotFound = (reply: FastifyReply) => sendMessage(reply, 0, 'Portal not found', 'This portal does not exist or has been removed.');

  async function renderPortal(reply: FastifyReply, { portal, state, links }: PortalPage, error?: AppError) {
    const brand = await brandFor(portal.accountId);
    const common = { portalName: portal.name, base: base(portal.slug) };
    if (state.step === 'signed-in') {
      const shown = links.map((link) => ({ name: link.name, type: typeLabel(link.mime), url: `${base(portal.slug)}/open/${link.id}` }));
      return sendPage(reply, { template: 'portal-links', title: portal.name, brand, data: { ...common, email: state.email, links: shown } });
    }
    return sendPage(reply, {
      template: 'portal-access',
      status: error?.status ?? 200,
      title: portal.name,
      brand,
      data: { ...common, step: state.step, email: state.step === 'code' ? state.email : undefined, error: error?.message },
    });
  }

  app.get('/:slug', { schema: { hide: true, params: SlugParams }, attachValidation: true }, async (request, reply) => {
    if (pathNamesNothing(request)) return portalNotFound(reply);
    const found = await portals.inspect(request.params.slug, await clientOf(request));
    return found ? renderPortal(reply, found) : portalNotFound(reply);
  });

  /** Runs a sign-in form; success redirects back to the portal (POST-redirect-GET), a refusal re-renders it. */
  function signInForm(
    path: string,
    action: (slug: string, client: PortalClient, body: { email?: string; code?: string }) => Promise<PortalCookie | undefined>,
  ) {
    app.post(`/:slug/${path}`, { schema: { hide: true, params: SlugParams, body: FormBody } }, async (request, reply) => {
      const { slug } = request.params;
      const client = await clientOf(request);
      try {
        const cookie = await action(slug, client, request.body ?? {});
        if (cookie) setPortalCookie(request, reply, slug, cookie);
        return reply.redirect(base(slug), 303);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const found = await portals.inspect(slug, client);
        if (!found) return portalNotFound(reply);
        reply.headers(error.headers);
        return renderPortal(reply, found, error);
      }
    });
  }

  signInForm('email', (slug, client, body) => portals.requestCode(slug, client, body.email ?? ''));
  signInForm('verify', (slug, client, body) => portals.verifyCode(slug, client, body.code ?? ''));

  app.post('/:slug/sign-out', { schema: { hide: true, params: SlugParams } }, async (request, reply) => {
    const { slug } = request.params;
    await portals.signOut(slug, await clientOf(request));
    reply.clearCookie(PORTAL_COOKIE, { path: base(slug) });
    return reply.redirect(base(slug), 303);
  });

  app.get('/:slug/open/:linkId', { schema: { hide: true, params: OpenParams }, attachValidation: true }, async (request, reply) => {
    if (pathNamesNothing(request)) return portalNotFound(reply);
    const { slug, linkId } = request.params;
    const client = await clientOf(request);
    // The link's own visit cookie is scoped to /v/<id>, out of sight here: trusting the e-mail starts a visit.
    const visitor: Visitor = {
      token: undefined,
      ip: request.ip,
      userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
      hostAccountId: client.hostAccountId,
    };
    try {
      const opened = await portals.openLink(slug, client, linkId, visitor);
      if (!opened.signedIn) return reply.redirect(base(slug), 303);
      if (opened.visitToken) setVisitCookie(reply, `/v/${linkId}`, opened.visitToken, secure(request), VISIT_COOKIE_MAX_AGE_SECONDS);
      return reply.redirect(`/v/${linkId}`, 303);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 404) throw error;
      const found = await portals.inspect(slug, client);
      if (!found) return portalNotFound(reply);
      return sendMessage(reply, found.portal.accountId, 'Document not found', 'This document is no longer available in this portal.');
    }
  });
};
