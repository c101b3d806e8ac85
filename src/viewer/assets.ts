import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const here = path.dirname(fileURLToPath(import.meta.url));
/** This file is the build output (dist/…/assets.js), not the TypeScript source run through tsx. */
const runningCompiled = import.meta.url.endsWith('.js');
/** The viewer's browser script, and where `npm run build` writes its bundle: beside this file's compiled copy. */
export const VIEWER_SCRIPT = { source: path.join(here, 'client', 'viewer.ts'), prebuilt: path.join(here, 'assets', 'viewer.js') };
const bundles = new Map<string, Promise<string>>();

/**
 * A browser script and what it imports, bundled by esbuild in memory. `npm run build` writes
 * each to its `prebuilt` place; from source (tsx: tests, `npm run dev`) it runs once per process
 * and entry point, so there is no stale copy.
 */
export function bundleBrowserScript(entryPoint: string): Promise<string> {
  let bundle = bundles.get(entryPoint);
  if (!bundle) {
    bundle = import('esbuild')
      .then(({ build }) =>
        build({ entryPoints: [entryPoint], bundle: true, format: 'esm', target: 'es2020', minify: true, write: false, logLevel: 'silent' }),
      )
      .then((result) => result.outputFiles[0]!.text);
    bundles.set(entryPoint, bundle);
  }
  return bundle;
}

/**
 * A family of pages' stylesheet and browser script, served as /assets/<file name> from our
 * origin. The stylesheet may be kept in several files, served as one under the first's name.
 * The script is the bundle `npm run build` wrote beside the compiled code, or, from source,
 * bundled now.
 */
export async function servePageAssets(
  app: FastifyInstance,
  files: { stylesheet: string | readonly [string, ...string[]]; script: { source: string; prebuilt: string } },
) {
  const stylesheets = typeof files.stylesheet === 'string' ? [files.stylesheet] : files.stylesheet;
  const css = stylesheets.map((file) => readFileSync(file, 'utf8')).join('\n');
  const script = runningCompiled ? readFileSync(files.script.prebuilt, 'utf8') : await bundleBrowserScript(files.script.source);
  const cacheControl = 'public, max-age=3600';

  app.get(`/assets/${path.basename(stylesheets[0]!)}`, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', cacheControl).send(css),
  );
  app.get(`/assets/${path.basename(files.script.prebuilt)}`, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', cacheControl).send(script),
  );
}

/** The visitor pages' own stylesheet (the paged viewer's rules in a file of their own) and script, from our origin. */
export async function registerViewerAssets(app: FastifyInstance): Promise<void> {
  await servePageAssets(app, {
    stylesheet: [path.join(here, 'assets', 'viewer.css'), path.join(here, 'assets', 'paged-viewer.css')],
    script: VIEWER_SCRIPT,
  });
}
