import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { signedManifest, type Manifest } from '../../src/cli/backup-manifest.js';
import { emptyDatabaseBeside, testEnv } from './app.js';
import { downloadOriginal, downloadToken, createLink, sha256 } from './files.js';
import { createHttpClient } from './http.js';
import { runCli, startServerProcess } from './process.js';

/** A new empty folder under the system's temporary folder, removed after the test. */
export async function emptyDir(t: TestContext, name: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), name));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An account made by the CLI, a server process, and one file uploaded through the HTTP API. */
export async function serverWithOneFile(t: TestContext, env: Record<string, string>) {
  const created = await runCli(['accounts', 'create', '--email', `backup-${randomBytes(3).toString('hex')}@example.com`, '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const server = await startServerProcess(t, env);
  const http = createHttpClient(server.url, apiKey);
  const content = Buffer.from(randomBytes(100_000).toString('hex')); // more than one 64 KiB segment
  const linkId = await createLink(http, content, 'report.txt');
  return { server, apiKey, linkId, content };
}

export async function downloadThrough(url: string, apiKey: string, linkId: string): Promise<Buffer> {
  const token = await downloadToken(createHttpClient(url, apiKey), linkId);
  const { response, body } = await downloadOriginal(url, linkId, token);
  assert.equal(response.status, 200);
  return body;
}

/**
 * The environment of a restore of `source`'s backup. On PostgreSQL a backup holds the source's
 * schema, so the target is a database of its own whose search_path names that schema.
 */
export async function restoreTargetOf(t: TestContext, source: Record<string, string>, overrides: Record<string, string> = {}) {
  const ownDatabase: Record<string, string> =
    process.env.TEST_DATABASE_URL && source.DATABASE_URL ? { DATABASE_URL: await emptyDatabaseBeside(t, source.DATABASE_URL) } : {};
  return testEnv(t, { ...ownDatabase, ...overrides });
}

/**
 * Rewrites the manifest of the backup in `dir` as `edit` changes it (and the files), with every
 * listed file's size and SHA-256 made to match again, then signed under `masterKey` (base64) as a
 * backup made under that key is, or, without one, with whatever signature `edit` left.
 */
export async function rewriteManifest(
  dir: string,
  masterKey: string | undefined,
  edit: (manifest: Manifest) => Promise<void> | void = () => {},
): Promise<void> {
  const file = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(await fs.readFile(file, 'utf8')) as Manifest;
  await edit(manifest);
  for (const listed of manifest.files) {
    const bytes = await fs.readFile(path.join(dir, listed.path)).catch(() => undefined);
    if (bytes) Object.assign(listed, { size: bytes.length, sha256: sha256(bytes) });
  }
  const { format: _format, formatVersion: _version, signature: _signature, ...fields } = manifest;
  await fs.writeFile(file, JSON.stringify(masterKey ? signedManifest(fields, Buffer.from(masterKey, 'base64')) : manifest));
}
