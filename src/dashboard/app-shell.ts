import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../core/errors.js';
import type { Brand } from '../modules/branding/brand.js';
import { dashboardBundle, type DashboardAsset, type DashboardBundle } from './app-bundle.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const AssetParams = Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9_-]+\\.(js|css)$', maxLength: 100 }) });

/**
 * The dashboard's page: no user value but the brand colour, which must be a plain hex colour
 * to be written at all; the app reads it from the meta tag (the CSP allows no inline style).
 */
function shellHtml(bundle: DashboardBundle, brand: Brand): string {
  const colour = HEX_COLOUR.test(brand.primaryColor) ? brand.primaryColor : '';
  const stylesheet = bundle.stylesheet ? `<link rel="stylesheet" href="/app/assets/${bundle.stylesheet}">` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="brand-color" content="${colour}">
<title>linkvault</title>
${stylesheet}
<script type="module" src="/app/assets/${bundle.script}"></script>
</head>
<body>
<div id="app"><p class="boot" role="status">Loading linkvault…</p></div>
<noscript><p class="boot">The linkvault dashboard needs JavaScript. Everything it does is also in the REST API: see <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>
`;
}

/** The dashboard's shell for any /app path: the browser's router takes it from there. */
export async function sendDashboardShell(reply: FastifyReply, brand: Brand): Promise<FastifyReply> {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'private, no-store')
    .send(shellHtml(await dashboardBundle(), brand));
}

/** br, else gzip, else none, as the client's Accept-Encoding allows (q=0 refuses). */
export function preferredEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...parameters] = part.trim().toLowerCase().split(';');
    const refused = parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter));
    if (name && !refused) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

function sendAsset(reply: FastifyReply, asset: DashboardAsset, encoding: 'br' | 'gzip' | null): FastifyReply {
  reply.type(asset.type).header('cache-control', IMMUTABLE).header('vary', 'accept-encoding');
  if (encoding === 'br') return reply.header('content-encoding', 'br').send(asset.brotli);
  if (encoding === 'gzip') return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

/** /app/assets/<name>-<hash>.(js|css): content-hashed, cached for a year, sent pre-compressed. */
export async function registerDashboardAssets(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { file: string } }>('/app/assets/:file', { schema: { hide: true, params: AssetParams } }, async (request, reply) => {
    const asset = (await dashboardBundle()).assets.get(request.params.file);
    if (!asset) throw notFound('Asset');
    return sendAsset(reply, asset, preferredEncoding(request.headers['accept-encoding']));
  });
}
