import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const here = path.dirname(fileURLToPath(import.meta.url));
/** This file is the build output (dist/…/assets.js), not the TypeScript source run through tsx. */
const runningCompiled = import.meta.url.endsWith('.js');
/** Where `npm run build` writes the bundled viewer script, relative to this file's folder. */
export const PREBUILT_VIEWER_SCRIPT = path.join('assets', 'viewer.js');
let viewerScript: Promise<string> | undefined;

/**
 * viewer.ts bundled by esbuild, in memory. `npm run build` writes this to PREBUILT_VIEWER_SCRIPT;
 * from source (tsx: tests, `npm run dev`) it runs once per process, so there is no stale copy.
 */
export function bundleViewerScript(): Promise<string> {
  viewerScript ??= import('esbuild')
    .then(({ build }) =>
      build({
        entryPoints: [path.join(here, 'client', 'viewer.ts')],
        bundle: true,
        format: 'esm',
        target: 'es2020',
        minify: true,
        write: false,
        logLevel: 'silent',
      }),
    )
    .then((result) => result.outputFiles[0]!.text);
  return viewerScript;
}

/** The visitor pages' own assets and pdf.js, all from our origin. */
export async function registerViewerAssets(app: FastifyInstance): Promise<void> {
  const css = readFileSync(path.join(here, 'assets', 'viewer.css'), 'utf8');
  const script = runningCompiled ? readFileSync(path.join(here, PREBUILT_VIEWER_SCRIPT), 'utf8') : await bundleViewerScript();
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
