import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Brand } from '../modules/branding/brand.js';

const VIEWER_TEMPLATES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'templates');
/** The layout every page shares (brand colours, the nonce'd style block), from the viewer's templates. */
const layouts = new Eta({ views: VIEWER_TEMPLATES, autoEscape: true, cache: true });

type ViewerTemplate = 'message' | 'gate' | 'document' | 'room' | 'portal-access' | 'portal-links';

export interface PageOptions<Template extends string = ViewerTemplate> {
  template: Template;
  status?: number;
  title: string;
  brand: Brand;
  data: Record<string, unknown>;
  /** whether the page needs its renderer's script */
  script?: boolean;
  /** an image the page's script will show first, fetched while the script loads */
  preloadImage?: string;
  /** Open Graph / Twitter card tags, for apps that unfurl the page's address (absolute URLs) */
  preview?: { title: string; description: string | null; image: string | null; url: string };
}

/** What a family of pages loads from our origin besides the layout. */
export interface PageAssets {
  stylesheets: string[];
  script: string;
}

/**
 * A renderer of pages whose bodies are the templates in `views`, inside the shared layout.
 * Every value is escaped by the template engine; the one inline style block (the brand's
 * colours) is allowed by a per-response CSP nonce.
 */
export function createPageRenderer<Template extends string>(views: string, assets: PageAssets) {
  const bodies = views === VIEWER_TEMPLATES ? layouts : new Eta({ views, autoEscape: true, cache: true });
  return function sendPage(reply: FastifyReply, page: PageOptions<Template>): FastifyReply {
    const nonce = randomBytes(16).toString('base64');
    const body = bodies.render(`./${page.template}`, page.data);
    const html = layouts.render('./layout', {
      title: page.title,
      brand: page.brand,
      nonce,
      body,
      page: page.template,
      stylesheets: assets.stylesheets,
      script: page.script ? assets.script : null,
      preview: page.preview ?? null,
      preloadImage: page.preloadImage ?? null,
    });
    return reply
      .code(page.status ?? 200)
      .header('content-security-policy', contentSecurityPolicy(nonce))
      .type('text/html; charset=utf-8')
      .send(html);
  };
}

/** Renders a visitor page (/v, /p, the Stripe return pages). */
export const sendPage = createPageRenderer<ViewerTemplate>(VIEWER_TEMPLATES, { stylesheets: ['/assets/viewer.css'], script: '/assets/viewer.js' });

/**
 * Whether a visitor page's path names nothing that could exist (a mistyped or cut link): such a
 * page answers its own "not found" page rather than the API's JSON 400. The route sets
 * `attachValidation: true`; an invalid query string or body is still the 400 it always was.
 */
export function pathNamesNothing(request: FastifyRequest): boolean {
  const invalid = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (!invalid) return false;
  if (invalid.validationContext === 'params') return true;
  throw invalid;
}

/** The headers of every visitor page (/v, /p) and of what they load: a CSP, no framing by others, no referrer, no caching. */
export function addVisitorPageHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', contentSecurityPolicy());
    reply.header('x-frame-options', 'SAMEORIGIN');
    reply.header('referrer-policy', 'no-referrer');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-store');
  });
}

export function contentSecurityPolicy(nonce?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self'${nonce ? ` 'nonce-${nonce}'` : ''}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "media-src 'self'",
    "connect-src 'self'",
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}
