/**
 * npm run build (also run by `prepare`, so `npm install && npm start` works on a fresh clone).
 * `tsx scripts/build.ts DIR` writes to DIR instead of dist/ (the build test does).
 *
 * Writes dist/ from src/, keeping the layout so that paths relative to a module (templates,
 * mail templates, the viewer's CSS) resolve the same way in both trees:
 *   - every src/**\/*.ts except tests and browser code, compiled file by file by esbuild
 *     (ESM, Node 20, source maps); imports of our own files stay as written;
 *   - the pure-ESM packages in BUNDLED (kysely and typebox: over 600 small files between
 *     them, a third of the start-up) bundled into shared chunks under dist/vendor/, only
 *     what we use of them; every other package is imported from node_modules as usual
 *     (native code, files read beside their modules, or loaded only when configured);
 *   - every other file under src/ (templates, CSS, …), copied as is: a new one needs no
 *     change here;
 *   - each browser script (src/viewer/client/viewer.ts, src/dashboard/client/owner-pages.ts)
 *     bundled once, where its compiled assets module serves it from;
 *   - the dashboard (src/dashboard/client/app/) bundled to dist/dashboard/app-assets/,
 *     content-hashed and pre-compressed (app-bundle.ts).
 * dist/ is emptied first, so a file moved or deleted in src/ cannot linger in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { bundleDashboard, PREBUILT_DIR_IN_DIST, writeDashboardBundle } from '../src/dashboard/app-bundle.js';
import { OWNER_PAGES_SCRIPT } from '../src/dashboard/assets.js';
import { bundleBrowserScript, VIEWER_SCRIPT } from '../src/viewer/assets.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.resolve(ROOT, process.argv[2] ?? 'dist');
/** The browser scripts: each names its source and where (under src/, so under dist/) its bundle belongs. */
const BROWSER_SCRIPTS = [VIEWER_SCRIPT, OWNER_PAGES_SCRIPT];

/** Packages bundled into dist/vendor/ (see above); their own imports must be bundled or external too. */
const BUNDLED = ['kysely', 'typebox', '@fastify/type-provider-typebox'];
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const EXTERNAL = Object.keys(PACKAGE.dependencies)
  .filter((name) => !BUNDLED.includes(name))
  .flatMap((name) => [name, `${name}/*`]);

/** Our own modules stay one output file each: a relative import from src/ is left as written. */
const ownModulesStayFiles: Plugin = {
  name: 'own-modules-stay-files',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => (args.importer.startsWith(SRC + path.sep) ? { path: args.path, external: true } : undefined));
  },
};

/** Browser code lives in folders named client/ (bundled, never run by Node); tests never ship. */
function isShipped(relative: string): boolean {
  const segments = relative.split(path.sep);
  if (segments.includes('client') || segments.includes('fixtures')) return false;
  return !/\.test\.[^.]+$/.test(relative) && !relative.endsWith('.d.ts');
}

const started = performance.now();
const files = fs
  .readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => path.relative(SRC, path.join(entry.parentPath, entry.name)))
  .filter(isShipped)
  .sort();
const modules = files.filter((file) => file.endsWith('.ts'));
const assets = files.filter((file) => !file.endsWith('.ts'));

fs.rmSync(DIST, { recursive: true, force: true });
await build({
  entryPoints: modules.map((file) => path.join(SRC, file)),
  outdir: DIST,
  outbase: SRC,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  bundle: true,
  splitting: true,
  chunkNames: 'vendor/[name]-[hash]',
  external: EXTERNAL,
  plugins: [ownModulesStayFiles],
  logLevel: 'warning',
});
for (const file of assets) {
  fs.mkdirSync(path.dirname(path.join(DIST, file)), { recursive: true });
  fs.copyFileSync(path.join(SRC, file), path.join(DIST, file));
}
const bundled: string[] = [];
for (const script of BROWSER_SCRIPTS) {
  const bundle = path.join(DIST, path.relative(SRC, script.prebuilt));
  fs.mkdirSync(path.dirname(bundle), { recursive: true });
  fs.writeFileSync(bundle, await bundleBrowserScript(script.source));
  bundled.push(path.relative(ROOT, bundle));
}
// The dashboard: content-hashed files beside their .gz and .br, and the manifest the server reads.
const dashboardDir = path.join(DIST, PREBUILT_DIR_IN_DIST);
await writeDashboardBundle(await bundleDashboard(), dashboardDir);
bundled.push(path.relative(ROOT, dashboardDir));

console.log(
  `build: ${modules.length} modules compiled, ${assets.length} files copied, ` +
    `${bundled.join(', ')} bundled, in ${Math.round(performance.now() - started)} ms`,
);
