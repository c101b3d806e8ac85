/**
 * What the crash tests (test/e2e/crash*.test.ts) and the crash bench (bench/crash.ts) share:
 * seeded file contents, an upload or replacement the server is killed under, and the audit of
 * what a crash left once the server is back: rows against blobs, downloads, temporary files
 * and SQLite's integrity check.
 */
import { createCipheriv, createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/kysely.js';
import type { Db } from '../../src/db/kysely.js';

import { sleep } from './wait.js';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** `size` bytes that depend only on `seed`: AES-CTR over zeros, fast enough for tens of MB. */
export function seededBytes(seed: string, size: number): Buffer {
  const key = createHash('sha256').update(seed).digest().subarray(0, 16);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

/** mulberry32: a small seeded PRNG for the rounds' sizes and kill points. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pollUntil = async (check: () => Promise<boolean>, ms: number, everyMs = 2) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return false;
};

export interface KilledRequest {
  /** the answer's status, when the server answered before it died */
  status?: number;
  body?: string;
  /** bytes of the request body written before the kill */
  sent: number;
}

export interface KillTarget {
  url: string;
  child: { kill(signal: NodeJS.Signals): boolean };
  exited: Promise<unknown>;
}

/**
 * Sends a multipart file (`POST /api/upload`, or `PUT /api/links/{id}/file` with `replace`) and
 * kills the server with SIGKILL: after `killAfter` bytes of the body, or, when `killAfter` is
 * 'stored', as soon as a new blob of the link shows under `blobsDir` (the window between a durable
 * blob and its committed row), or once the whole body is sent and `graceMs` have passed.
 */
export async function killDuringUpload(
  server: KillTarget,
  options: {
    apiKey: string;
    fileName: string;
    content: Buffer;
    replace?: string;
    blobsDir: string;
    killAfter: number | 'stored';
    graceMs?: number;
  },
): Promise<KilledRequest> {
  const { apiKey, fileName, content, replace, blobsDir, killAfter, graceMs = 0 } = options;
  const boundary = `crash-${Math.random().toString(36).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, content, tail]);
  const linksDir = path.join(blobsDir, 'links');
  const blobsNow = async () => new Set(await listTree(linksDir));
  const before = killAfter === 'stored' ? await blobsNow() : new Set<string>();
  const result: KilledRequest = { sent: 0 };
  const request = http.request(`${server.url}${replace ? `/api/links/${replace}/file` : '/api/upload'}`, {
    method: replace ? 'PUT' : 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': body.length,
    },
  });
  const answered = new Promise<void>((resolve) => {
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        result.status = response.statusCode;
        result.body = text;
        resolve();
      });
      response.on('error', () => resolve());
    });
    request.on('error', () => resolve()); // the server dies under it
  });
  const limit = typeof killAfter === 'number' ? Math.min(killAfter, body.length) : body.length;
  const CHUNK = 256 * 1024;
  while (result.sent < limit && !request.destroyed) {
    const chunk = body.subarray(result.sent, Math.min(limit, result.sent + CHUNK));
    result.sent += chunk.length;
    if (!request.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          request.off('drain', done).off('close', done);
          resolve();
        };
        request.on('drain', done).on('close', done);
      });
    }
  }
  if (killAfter === 'stored') {
    request.end();
    // A new blob of this link (or a new link): kill at once, before or just after its row commits.
    await pollUntil(async () => [...(await blobsNow())].some((key) => !before.has(key)), 30_000, 1);
  } else if (limit === body.length) {
    request.end();
    await sleep(graceMs);
  } else {
    // Give the server a moment to take in what was sent before it dies.
    await sleep(graceMs);
  }
  server.child.kill('SIGKILL');
  await server.exited;
  request.destroy();
  await Promise.race([answered, sleep(1_000)]);
  return result;
}

/** Files under `dir` as slash-separated relative paths ([] when it does not exist). */
export async function listTree(dir: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Total bytes of the files directly in `dir` (the temp area), 0 when it does not exist. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    total += (await fs.stat(path.join(dir, name)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/** Sets every link blob's modification time `ageMs` into the past: what an hour of waiting would do, for the orphan sweep. */
export async function ageBlobs(blobsDir: string, ageMs: number): Promise<void> {
  const when = new Date(Date.now() - ageMs);
  for (const key of await listTree(path.join(blobsDir, 'links'))) await fs.utimes(path.join(blobsDir, 'links', key), when, when);
}

export interface CrashAudit {
  links: number;
  rowsWithoutBlob: string[];
  orphanBlobs: string[];
  downloadedIntact: number;
  /** links whose download failed or whose bytes differ from the row's SHA-256 or from what was sent under that name */
  damaged: string[];
  /** 'ok', or SQLite's complaint; 'skipped' on PostgreSQL */
  integrity: string;
  tempFiles: string[];
}

/**
 * Compares the database with the blob store after a crash and a restart (and the sweep): each
 * file link's blob exists and each blob under links/ has its row, every link downloads with the
 * SHA-256 of its row (and of `sent`, what was uploaded under that file name, when given).
 */
export async function auditAfterCrash(
  env: Record<string, string>,
  server: { url: string; apiKey: string },
  sent: ReadonlyMap<string, string> = new Map(),
): Promise<CrashAudit> {
  const config = loadConfig(env);
  if (config.storage.kind !== 'local') throw new Error('the crash audit reads a local blob store');
  const blobsDir = config.storage.dir;
  const handle = openDatabase(config.database);
  let rows: Array<{ id: string; name: string; blob_key: string | null; sha256: string | null }>;
  try {
    rows = await handle.db.selectFrom('links').select(['id', 'name', 'blob_key', 'sha256']).where('kind', '=', 'file').execute();
  } finally {
    await handle.close();
  }
  const blobs = new Set((await listTree(path.join(blobsDir, 'links'))).map((key) => `links/${key}`));
  const referenced = new Set(rows.map((row) => row.blob_key));
  const audit: CrashAudit = {
    links: rows.length,
    rowsWithoutBlob: rows.filter((row) => row.blob_key === null || !blobs.has(row.blob_key)).map((row) => row.id),
    orphanBlobs: [...blobs].filter((key) => !referenced.has(key)),
    downloadedIntact: 0,
    damaged: [],
    integrity: config.database.kind === 'sqlite' ? integrityCheck(config.database.file) : 'skipped',
    tempFiles: await fs.readdir(path.join(blobsDir, '.tmp')).catch(() => [] as string[]),
  };
  const auth = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' };
  for (const row of rows) {
    const tokenAnswer = await fetch(`${server.url}/api/links/${row.id}/download-tokens`, { method: 'POST', headers: auth, body: '{"uses":1}' });
    const { token } = (await tokenAnswer.json()) as { token?: string };
    const download = token ? await fetch(`${server.url}/api/links/${row.id}/download-original?token=${encodeURIComponent(token)}`) : undefined;
    const bytes = download?.ok ? Buffer.from(await download.arrayBuffer()) : undefined;
    const digest = bytes && sha256(bytes);
    const expected = sent.get(row.name);
    if (digest !== undefined && digest === row.sha256 && (expected === undefined || digest === expected)) audit.downloadedIntact++;
    else audit.damaged.push(row.id);
  }
  return audit;
}

/** SQLite's `PRAGMA integrity_check`, read-only: 'ok' or its first complaints. */
export function integrityCheck(file: string): string {
  const sqlite = new Database(file, { readonly: true });
  try {
    return (sqlite.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check).join('; ');
  } finally {
    sqlite.close();
  }
}

/** Ends the leases of jobs whose runner was killed, as their lapse (a minute or more) would: the next runner takes them. */
export async function lapseRunningLeases(db: Db): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ lease_until: Date.now() - 1 })
    .where('status', '=', 'running')
    .execute();
}
