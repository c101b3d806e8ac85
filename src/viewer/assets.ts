import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { build } from 'esbuild';
import type { FastifyInstance } from 'fastify';

const here = path.dirname(fileURLToPath(import.meta.url));
let viewerScript: Promise<string> | undefined;

/** viewer.ts bundled once per process by esbuild, in memory: no build step before `npm start`. */
function bundleViewerScript(): Promise<string> {
  viewerScript ??= build({
    entryPoints: [path.join(here, 'client', 'viewer.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  return viewerScript;
}

/** The visitor pages' own assets and pdf.js, all from our origin. */
export async function registerViewerAssets(app: FastifyInstance): Promise<void> {
  const css = readFileSync(path.join(here, 'assets', 'viewer.css'), 'utf8');
  const script = await bundleViewerScript();
  const cacheControl = 'public, max-age=3600';

  app.get('/assets/viewer.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', cacheControl).send(css),
  );
  app.get('/assets/viewer.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', cacheControl).send(script),
  );

  const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: pdfjsRoot,
      prefix: '/assets/pdfjs/',
      allowedPath: (pathName) => /^\/(build\/pdf(\.worker)?\.min\.mjs|standard_fonts\/[\w.-]+|cmaps\/[\w.-]+)$/.test(pathName),
      decorateReply: false,
      maxAge: 86_400_000,
      index: false,
      list: false,
    });
  });
}
