import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makeOwnerOnlyFolder } from '../db/owner-only.js';
import { masterKeyFingerprint } from '../infra/crypto/master-key.js';
import { derivedKey } from '../infra/crypto/tokens.js';
import { assertValidBlobKey } from '../infra/storage/blob-store.js';
import { CommandError } from './command-error.js';

export const MANIFEST_FILE = 'manifest.json';
export const DATABASE_FILE = 'database.sqlite';
export const PG_DUMP_FILE = 'database.pgdump';
export const KEY_FILE = 'master.key';
export const BLOBS_DIR = 'blobs';
const FORMAT = 'linkvault-backup';
const FORMAT_VERSION = 1;
const SIGNING_PURPOSE = 'linkvault backup manifest';

export interface BackupFile {
  /** Relative to the backup folder, with forward slashes: `database.sqlite`, `master.key`, `blobs/<key>`. */
  path: string;
  size: number;
  sha256: string;
}

/** What a backup holds and how to check it: written last, so a folder without it is an unfinished backup. */
export interface Manifest {
  format: typeof FORMAT;
  formatVersion: typeof FORMAT_VERSION;
  createdAt: string;
  database: { kind: 'sqlite' | 'postgres'; migrations: string[]; latestMigration: string | null; rows: Record<string, number> };
  storage: { kind: 'local' | 's3'; blobs: number; bytes: number };
  /** The fingerprint names the key the blobs were sealed with, without revealing it. */
  masterKey: { fingerprint: string | null; included: boolean };
  files: BackupFile[];
  /** HMAC-SHA256 of the rest (see `signatureOf`); absent from the backups of earlier releases. */
  signature?: string;
}

/**
 * The tag of a manifest: HMAC-SHA256, under a key derived from the master key, of the manifest's
 * JSON without `signature`, as JSON.stringify writes the parsed object, so what is checked is what
 * restore reads, whatever the file's spacing. The tag sits in manifest.json rather than a file
 * beside it: the manifest stays the one file written last, and a backup cannot lose its tag alone.
 */
function signatureOf(manifest: Manifest, masterKey: Buffer): Buffer {
  const { signature: _signature, ...signed } = manifest;
  return createHmac('sha256', derivedKey(masterKey, SIGNING_PURPOSE)).update(JSON.stringify(signed)).digest();
}

export function signedManifest(fields: Omit<Manifest, 'format' | 'formatVersion' | 'signature'>, masterKey: Buffer): Manifest {
  const manifest: Manifest = { format: FORMAT, formatVersion: FORMAT_VERSION, ...fields };
  return { ...manifest, signature: signatureOf(manifest, masterKey).toString('hex') };
}

/**
 * Refuses a manifest not signed under `signer.key`, the master key a restore checks it with: one
 * changed after the backup was made (its files' checksums with it), or made under another key. A
 * manifest without a tag, from a release before signing, passes only with --accept-unsigned.
 */
export function assertSignedManifest(manifest: Manifest, signer: { key: Buffer; whose: string } | undefined, acceptUnsigned: boolean): void {
  if (manifest.signature === undefined) {
    if (acceptUnsigned) return;
    throw new CommandError(
      `this backup's manifest is not signed (it was made by a linkvault release before backups were signed, or its signature was removed), so nothing shows that it was not changed after it was made; if you know where it has been, run restore again with --accept-unsigned`,
    );
  }
  if (!signer) {
    throw new CommandError(
      `no master key is configured here and this backup holds none, so its manifest's signature cannot be checked: set MASTER_KEY to the master key the backup was made with (or put its master.key in DATA_DIR) and run restore again`,
    );
  }
  const tag = Buffer.from(typeof manifest.signature === 'string' ? manifest.signature : '', 'hex');
  const expected = signatureOf(manifest, signer.key);
  if (tag.length === expected.length && timingSafeEqual(tag, expected)) return;
  const named = manifest.masterKey?.fingerprint;
  const otherKey = typeof named === 'string' && named !== masterKeyFingerprint(signer.key);
  throw new CommandError(
    `this backup's manifest is not signed by ${signer.whose}: it was changed after it was made, or made by another server${otherKey ? ` (it names the master key of fingerprint ${named}: if the backup is yours, set MASTER_KEY to that key)` : ''}; nothing was restored`,
  );
}

/** Streams `source` into `file` and answers its size and SHA-256, read as it is written. */
export async function writeHashed(source: Readable, file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  await makeOwnerOnlyFolder(path.dirname(file));
  await pipeline(source, tap, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  return { size, sha256: hash.digest('hex') };
}

export async function describeFile(folder: string, relative: string): Promise<BackupFile> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(path.join(folder, relative)) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { path: relative, size, sha256: hash.digest('hex') };
}

/** The backup's own files only: no absolute path, no `..`, nothing outside the known names. */
function isSafeEntry(relative: string): boolean {
  if (relative === DATABASE_FILE || relative === PG_DUMP_FILE || relative === KEY_FILE) return true;
  const segments = relative.split('/');
  if (segments[0] !== BLOBS_DIR || segments.length < 2) return false;
  // A key the store refuses would stop the restore after its marker, and every rerun with it.
  try {
    assertValidBlobKey(segments.slice(1).join('/'));
    return true;
  } catch {
    return false;
  }
}

/** What restore reads besides the files, before the signature vouches for it (`--accept-unsigned`): shaped as written, or refused. */
function hasSectionsRestoreReads(manifest: Manifest): boolean {
  const { database, storage, masterKey } = manifest as Partial<Manifest>;
  return (
    (database?.kind === 'sqlite' || database?.kind === 'postgres') &&
    Array.isArray(database.migrations) &&
    database.migrations.every((name) => typeof name === 'string') &&
    (storage?.kind === 'local' || storage?.kind === 's3') &&
    typeof masterKey?.included === 'boolean'
  );
}

/** Reads the manifest and checks that this linkvault reads its format; its signature and files are checked apart. */
export async function readManifest(folder: string): Promise<Manifest> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fsp.readFile(path.join(folder, MANIFEST_FILE), 'utf8')) as Manifest;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandError(
      code === 'ENOENT'
        ? `${folder} holds no ${MANIFEST_FILE}: it is not a linkvault backup, or the backup did not finish`
        : `${path.join(folder, MANIFEST_FILE)} is not readable JSON: ${(error as Error).message}`,
    );
  }
  if (manifest?.format !== FORMAT || !Array.isArray(manifest.files)) {
    throw new CommandError(`${path.join(folder, MANIFEST_FILE)} is not a linkvault backup manifest`);
  }
  if (!hasSectionsRestoreReads(manifest)) {
    throw new CommandError(`${path.join(folder, MANIFEST_FILE)} lacks the database, storage or master key section of a backup manifest`);
  }
  if (manifest.formatVersion !== FORMAT_VERSION) {
    throw new CommandError(`this backup has format version ${manifest.formatVersion}; this linkvault reads version ${FORMAT_VERSION}`);
  }
  return manifest;
}

/** The folder holds the files the manifest lists, and only those, each of its size and SHA-256: any mismatch refuses the whole restore. */
export async function assertFilesIntact(folder: string, manifest: Manifest): Promise<void> {
  for (const entry of manifest.files) {
    if (typeof entry?.path !== 'string' || !isSafeEntry(entry.path)) {
      throw new CommandError(`the manifest names a file outside the backup: ${JSON.stringify(entry?.path)}`);
    }
  }
  await assertFilesAsListed(folder, manifest);
  const damaged: string[] = [];
  for (const entry of manifest.files) {
    const actual = await describeFile(folder, entry.path).catch(() => undefined);
    if (!actual || actual.size !== entry.size || actual.sha256 !== entry.sha256) damaged.push(entry.path);
  }
  if (damaged.length > 0) {
    const shown = damaged.slice(0, 5).join(', ') + (damaged.length > 5 ? `, and ${damaged.length - 5} more` : '');
    throw new CommandError(
      `the backup is damaged: ${damaged.length} file(s) missing or not matching their checksum (${shown}); nothing was restored`,
    );
  }
}

/**
 * The backup's files, walked without following links: anything but a folder or a regular file (a
 * symlink above all, which could point anywhere) is refused, naming it.
 */
async function regularFilesIn(folder: string): Promise<Set<string>> {
  const files = new Set<string>();
  const folders = [''];
  for (let relative = folders.pop(); relative !== undefined; relative = folders.pop()) {
    for (const entry of await fsp.readdir(path.join(folder, relative), { withFileTypes: true })) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) folders.push(name);
      else if (entry.isFile()) files.add(name);
      else {
        const kind = entry.isSymbolicLink() ? 'a symlink' : 'not a regular file';
        throw new CommandError(`${path.join(folder, name)} is ${kind}: a backup holds only regular files; nothing was restored`);
      }
    }
  }
  return files;
}

/**
 * The manifest and the folder must agree: a SQLite backup lists its database and a backup with
 * the key lists the key (else they would be restored unchecked), and the folder holds no file the
 * manifest does not list but the manifest itself and a pg_dump written after it.
 */
async function assertFilesAsListed(folder: string, manifest: Manifest): Promise<void> {
  const listed = new Set(manifest.files.map((entry) => entry.path));
  const required = [...(manifest.database.kind === 'sqlite' ? [DATABASE_FILE] : []), ...(manifest.masterKey.included ? [KEY_FILE] : [])];
  const unlisted = required.find((file) => !listed.has(file));
  if (unlisted)
    throw new CommandError(
      `the manifest does not list ${unlisted}, which this backup must hold: it was edited or is incomplete; nothing was restored`,
    );
  const root = await fsp.realpath(folder);
  const stray = [...(await regularFilesIn(root))].find(
    (file) => !listed.has(file) && file !== MANIFEST_FILE && !(file === PG_DUMP_FILE && manifest.database.kind === 'postgres'),
  );
  if (stray)
    throw new CommandError(
      `${path.join(folder, stray)} is not listed in the manifest: a backup holds only the files its manifest names; nothing was restored`,
    );
  for (const relative of listed) {
    const real = await fsp.realpath(path.join(root, ...relative.split('/'))).catch(() => undefined);
    if (real && !real.startsWith(root + path.sep))
      throw new CommandError(`${path.join(folder, relative)} leads outside the backup folder; nothing was restored`);
  }
}
