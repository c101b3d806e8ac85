import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
/** This file is the build output (dist/dashboard/app-bundle.js), not the TypeScript source run through tsx. */
const runningCompiled = import.meta.url.endsWith('.js');

/** The dashboard's entry point, and where `npm run build` writes its files: beside this file's compiled copy. */
export const DASHBOARD_ENTRY = path.join(here, 'client', 'app', 'main.tsx');
const PREBUILT = path.join(here, 'app-assets');
const MANIFEST = 'manifest.json';

export interface DashboardAsset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

/** The dashboard's files by their content-hashed names, and which of them the shell loads. */
export interface DashboardBundle {
  script: string;
  stylesheet: string | null;
  assets: Map<string, DashboardAsset>;
}

interface Manifest {
  script: string;
  stylesheet: string | null;
  files: Array<{ name: string; type: string }>;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

async function compressed(body: Buffer, type: string): Promise<DashboardAsset> {
  const [gzipped, brotlied] = await Promise.all([
    gzip(body, { level: 9 }),
    brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  ]);
  return { type, body, gzip: gzipped, brotli: brotlied };
}

/**
 * Bundles the dashboard with esbuild in memory: one entry, a chunk per screen loaded on first
 * use, CSS gathered into one stylesheet, every name content-hashed so it can be cached forever.
 */
export async function bundleDashboard(): Promise<DashboardBundle> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [DASHBOARD_ENTRY],
    outdir: '/app/assets',
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  // Screens loaded on first use are entry points too: the one the shell loads is main.tsx.
  const entry = Object.entries(result.metafile.outputs).find(
    ([, output]) => output.entryPoint && path.resolve(output.entryPoint) === DASHBOARD_ENTRY,
  );
  if (!entry) throw new Error('the dashboard bundle has no entry point');
  const assets = new Map<string, DashboardAsset>();
  await Promise.all(
    result.outputFiles.map(async (file) => {
      const type = TYPES[path.extname(file.path)];
      if (type) assets.set(path.basename(file.path), await compressed(Buffer.from(file.contents), type));
    }),
  );
  return { script: path.basename(entry[0]), stylesheet: entry[1].cssBundle ? path.basename(entry[1].cssBundle) : null, assets };
}

/** `npm run build`: the bundle's files, each beside its .gz and .br, with a manifest naming the entry. */
export async function writeDashboardBundle(bundle: DashboardBundle, dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const files: Manifest['files'] = [];
  for (const [name, asset] of bundle.assets) {
    await fs.writeFile(path.join(dir, name), asset.body);
    await fs.writeFile(path.join(dir, `${name}.gz`), asset.gzip);
    await fs.writeFile(path.join(dir, `${name}.br`), asset.brotli);
    files.push({ name, type: asset.type });
  }
  const manifest: Manifest = { script: bundle.script, stylesheet: bundle.stylesheet, files };
  await fs.writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest, null, 2));
}

/** Where the compiled dashboard module expects its prebuilt files (relative to dist/). */
export const PREBUILT_DIR_IN_DIST = path.join('dashboard', 'app-assets');

async function readPrebuilt(): Promise<DashboardBundle> {
  const manifest = JSON.parse(await fs.readFile(path.join(PREBUILT, MANIFEST), 'utf8')) as Manifest;
  const assets = new Map<string, DashboardAsset>();
  for (const { name, type } of manifest.files) {
    const [body, gzipped, brotlied] = await Promise.all(['', '.gz', '.br'].map((suffix) => fs.readFile(path.join(PREBUILT, name + suffix))));
    assets.set(name, { type, body: body!, gzip: gzipped!, brotli: brotlied! });
  }
  return { script: manifest.script, stylesheet: manifest.stylesheet, assets };
}

let loaded: Promise<DashboardBundle> | undefined;

/**
 * The dashboard's files: those `npm run build` wrote, or, from source (tests, `npm run dev`),
 * bundled on first use, once per process, so a server that never serves /app never pays for it.
 */
export function dashboardBundle(): Promise<DashboardBundle> {
  loaded ??= (runningCompiled ? readPrebuilt() : bundleDashboard()).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}
