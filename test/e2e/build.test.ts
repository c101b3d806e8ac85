/**
 * The production build: scripts/build.ts into a scratch folder, then the compiled CLI and
 * server run by plain `node`, as `npm start` runs dist/main.js. Catches what only the
 * compiled tree can miss: a file read at run time but not copied, the viewer script not
 * bundled, a lazily loaded client (pdf-lib, fontkit, pg, ioredis) that resolves only from src/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { testEnv } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { makePdf } from '../helpers/pdf.js';
import { runNode, startServerProcess } from '../helpers/process.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const run = (args: string[], env: Record<string, string> = {}) => runNode(args, env, REPO);

/** A build beside the repo's node_modules and a package.json saying "module", as dist/ sits in the repo. */
async function buildInto(t: TestContext): Promise<string> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-build-'));
  t.after(() => fs.rm(scratch, { recursive: true, force: true }));
  await fs.writeFile(path.join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
  await fs.symlink(path.join(REPO, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  const out = path.join(scratch, 'dist');
  const build = await run(['--import', 'tsx', path.join(REPO, 'scripts/build.ts'), out]);
  assert.equal(build.code, 0, build.stderr);
  return out;
}

test('the build runs the CLI and serves the API, visitor pages and their assets without tsx', async (t) => {
  const out = await buildInto(t);
  const shipped = await fs.readdir(out, { recursive: true });
  assert.ok(!shipped.some((file) => /\.test\.|(^|\/)client(\/|$)/.test(file)), 'no tests and no browser sources in the build');
  assert.ok(!shipped.some((file) => file.endsWith('.ts')), 'no TypeScript in the build');

  const env = await testEnv(t);
  const created = await run([path.join(out, 'main.js'), 'accounts', 'create', '--email', 'build@example.com', '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };

  const server = await startServerProcess(t, env, ['--enable-source-maps', path.join(out, 'main.js'), 'serve']);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);

  const script = await fetch(`${server.url}/assets/viewer.js`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(await script.text(), await fs.readFile(path.join(out, 'viewer/assets/viewer.js'), 'utf8'));
  assert.equal((await fetch(`${server.url}/assets/viewer.css`)).status, 200);
  assert.equal((await fetch(`${server.url}/docs`)).status, 200);

  const unknown = await fetch(`${server.url}/v/NoSuchLink0123456789`);
  assert.equal(unknown.status, 404);
  assert.match(await unknown.text(), /<!doctype html>/i, 'a page rendered from the copied templates');

  // Validators and serializers, compiled on a route's first call.
  const owner = createHttpClient(server.url, apiKey);
  assert.equal((await owner.get('/api/links?page=x')).status, 400);
  const links = await owner.get('/api/links');
  assert.equal(links.status, 200);
  assert.deepEqual([links.body.links, links.body.pagination.total], [[], 0]);
  assert.equal((await fetch(`${server.url}/api/openapi.json`)).status, 200);

  // A watermarked PDF: the page template; PDFium renders its pages, sharp stamps them, loaded on first use.
  const linkId = await createLink(owner, await makePdf(2), 'deck.pdf', { hasWatermark: '1' });
  const visitor = new VisitorClient(server.url);
  assert.equal((await visitor.get(`/v/${linkId}`)).status, 200);
  await waitFor(
    async () => (await owner.get(`/api/links/${linkId}`)).body.document.status,
    (status) => status === 'ready',
    60_000,
  );
  const page = await visitor.get(`/v/${linkId}/pages/2`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'image/jpeg', 'a page stamped for the visit');
});
