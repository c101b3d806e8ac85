import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  BlobNotFoundError,
  abortError,
  assertValidBlobKey,
  assertValidBlobPrefix,
  assertValidByteRange,
  trackedPuts,
  type BlobEntry,
  type BlobStore,
  type ByteRange,
} from './blob-store.js';
import { OWNER_ONLY_FOLDER } from '../../db/owner-only.js';
import { isGoneOwner, processOwner } from '../process-owner.js';

const TMP_DIR = '.tmp';
const STALE_TEMP_AGE_MS = 60 * 60 * 1000;
/** Temp files carry their writer, `<pid>@<host>~<uuid>`, so a restart can tell a dead process's leftovers. */
const TEMP_NAME = /^(\d+@.+)~[0-9a-f-]{36}$/;

/** A temp file whose writer, on this machine, is gone: no upload can still be writing it. */
function isAbandonedTemp(name: string): boolean {
  const owner = TEMP_NAME.exec(name)?.[1];
  return owner !== undefined && isGoneOwner(owner);
}
// Large buffers let fs.WriteStream gather many small request chunks into one writev call.
const WRITE_HIGH_WATER_MARK = 1024 * 1024;
const READ_HIGH_WATER_MARK = 256 * 1024;

const openFile = promisify(fs.open);
const fsyncFile = promisify(fs.fsync);
const closeFile = promisify(fs.close);

function hasCode(error: unknown, ...codes: string[]): boolean {
  const { code } = error as NodeJS.ErrnoException;
  return code !== undefined && codes.includes(code);
}

/**
 * Blobs as files under `dir`, one file per key (`links/<id>/v1` → `<dir>/links/<id>/v1`).
 * A put lands in `<dir>/.tmp` first and is renamed into place only once fsynced, so a key
 * never names a partial file, even after a crash.
 */
export function createLocalBlobStore(dir: string, options: { inspectOnly?: boolean } = {}): BlobStore {
  const root = path.resolve(dir);
  const tmpDir = path.join(root, TMP_DIR);
  if (!options.inspectOnly) {
    // Folder names are keys, and keys name links: the store's folder, when made here, is the owner's alone.
    fs.mkdirSync(tmpDir, { recursive: true, mode: OWNER_ONLY_FOLDER });
  }
  // Temp files left by a crash: at once when their process is gone (a crash loop must not fill
  // the disk), else after an hour of no writes (another machine's, or an old name).
  const sweepingStaleTemps = options.inspectOnly ? Promise.resolve() : removeStaleTempFiles(tmpDir).catch(() => undefined);

  function blobPath(key: string): string {
    assertValidBlobKey(key);
    return path.join(root, ...key.split('/'));
  }

  /** Removes now-empty folders between `from` and the root, so deleted links leave no folder behind. */
  async function pruneEmptyFolders(from: string): Promise<void> {
    for (let folder = from; folder !== root && folder.startsWith(root + path.sep); folder = path.dirname(folder)) {
      try {
        await fsp.rmdir(folder);
      } catch (error) {
        if (!hasCode(error, 'ENOENT')) return; // ENOTEMPTY: still in use, so are its parents
      }
    }
  }

  /**
   * Renames the synced temp file to `target`, then fsyncs every folder whose entries changed. The
   * folders it makes are owner-only like the root: their names are link ids, and the root may have
   * been made by an operator with a wider mode.
   */
  async function moveIntoPlace(tmp: string, target: string): Promise<void> {
    const folder = path.dirname(target);
    let firstCreated: string | undefined;
    // A concurrent delete may prune the folder between mkdir and rename, or while mkdir finds it
    // already there and checks it (which then fails with ENOENT too): make it again.
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await fsp.mkdir(folder, { recursive: true, mode: OWNER_ONLY_FOLDER });
        if (created !== undefined && (firstCreated === undefined || created.length < firstCreated.length)) {
          firstCreated = created;
        }
        await fsp.rename(tmp, target);
        break;
      } catch (error) {
        if (!hasCode(error, 'ENOENT') || attempt === 5) throw error;
      }
    }
    const changedFolders = [folder];
    if (firstCreated !== undefined) {
      for (let created = folder; created !== firstCreated && created !== root;) {
        created = path.dirname(created);
        changedFolders.push(created);
      }
      changedFolders.push(path.dirname(firstCreated));
    }
    await Promise.all(changedFolders.map(fsyncFolder));
  }

  /** Every file under the folder `start` (key segments), depth-first; dot entries (.tmp and its temp files) are never blobs. */
  async function* walk(start: string[]): AsyncIterable<{ key: string; path: string }> {
    const folders: string[][] = [start];
    for (let segments = folders.pop(); segments !== undefined; segments = folders.pop()) {
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(path.join(root, ...segments), { withFileTypes: true });
      } catch (error) {
        if (hasCode(error, 'ENOENT', 'ENOTDIR')) continue;
        throw error;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        if (entry.isDirectory()) folders.push([...segments, entry.name]);
        else if (entry.isFile()) yield { key: [...segments, entry.name].join('/'), path: path.join(root, ...segments, entry.name) };
      }
    }
  }

  const puts = trackedPuts();

  async function put(key: string, body: Readable, options: { signal?: AbortSignal } = {}): Promise<{ size: number }> {
    const { signal } = options;
    const tmp = path.join(tmpDir, `${processOwner()}~${randomUUID()}`);
    let target: string | undefined;
    let fd: number | undefined;
    let writer: fs.WriteStream | undefined;
    let renamed = false;
    try {
      target = blobPath(key);
      if (signal?.aborted) throw abortError(signal);
      // Our own fd, so that it outlives the stream's 'finish' for the fsync (autoClose: false);
      // from here on the stream owns it: destroying the stream closes it.
      fd = await openFile(tmp, 'wx', 0o600);
      writer = fs.createWriteStream(tmp, { fd, autoClose: false, highWaterMark: WRITE_HIGH_WATER_MARK });
      await pipeline(body, writer, { signal });
      await fsyncFile(fd);
      await closeWriter(writer);
      if (signal?.aborted) throw abortError(signal);
      await moveIntoPlace(tmp, target);
      renamed = true;
      return { size: writer.bytesWritten };
    } catch (error) {
      body.destroy();
      if (writer) await closeWriter(writer).catch(() => undefined);
      else if (fd !== undefined) await closeFile(fd).catch(() => undefined);
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      // Renamed but a folder fsync failed: the blob is not known durable, so it must not stay.
      if (renamed && target !== undefined) await fsp.rm(target, { force: true }).catch(() => undefined);
      throw signal?.aborted ? abortError(signal) : error;
    }
  }

  return {
    put: (key: string, body: Readable, options?: { signal?: AbortSignal }) => puts.track(put(key, body, options)),

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const file = blobPath(key);
      if (range) assertValidByteRange(range);
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(file, 'r');
      } catch (error) {
        if (hasCode(error, 'ENOENT', 'ENOTDIR', 'EISDIR')) throw new BlobNotFoundError(key);
        throw error;
      }
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) throw new BlobNotFoundError(key);
        if (range && range.start >= stat.size) {
          throw new RangeError(`Range starts at ${range.start}, past the end of a ${stat.size}-byte blob`);
        }
        return fs.createReadStream(file, {
          fd: handle,
          start: range?.start,
          end: range?.endInclusive,
          highWaterMark: READ_HIGH_WATER_MARK,
        });
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async size(key: string): Promise<number> {
      const file = blobPath(key);
      try {
        const stat = await fsp.stat(file);
        if (stat.isFile()) return stat.size;
      } catch (error) {
        if (!hasCode(error, 'ENOENT', 'ENOTDIR')) throw error;
      }
      throw new BlobNotFoundError(key);
    },

    async delete(key: string): Promise<void> {
      const file = blobPath(key);
      try {
        await fsp.unlink(file);
      } catch (error) {
        // EISDIR: the key names a folder of other keys, so no blob of its own.
        if (hasCode(error, 'ENOENT', 'ENOTDIR', 'EISDIR')) return;
        throw error;
      }
      await pruneEmptyFolders(path.dirname(file));
    },

    async deletePrefix(prefix: string): Promise<void> {
      assertValidBlobPrefix(prefix);
      // "links/ab" matches links/ab, links/abc/v1 and links/ab/v1: entries of links/ starting with "ab".
      const slash = prefix.lastIndexOf('/');
      const folder = slash === -1 ? root : path.join(root, ...prefix.slice(0, slash).split('/'));
      const namePrefix = prefix.slice(slash + 1);
      let names: string[];
      try {
        names = await fsp.readdir(folder);
      } catch (error) {
        if (hasCode(error, 'ENOENT', 'ENOTDIR')) return;
        throw error;
      }
      // Keys never have a segment starting with ".", so dot entries (.tmp) are never blobs.
      const matching = names.filter((name) => name.startsWith(namePrefix) && !name.startsWith('.'));
      // Retried: a page drawn meanwhile into a folder being removed makes its rmdir meet ENOTEMPTY.
      await Promise.all(matching.map((name) => fsp.rm(path.join(folder, name), { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })));
      await pruneEmptyFolders(folder);
    },

    async *keys(): AsyncIterable<string> {
      for await (const file of walk([])) yield file.key;
    },

    async *entries(prefix: string): AsyncIterable<BlobEntry> {
      assertValidBlobPrefix(prefix);
      if (!prefix.endsWith('/')) throw new TypeError(`entries() takes a folder prefix ending in "/", not ${JSON.stringify(prefix)}`);
      for await (const file of walk(prefix.slice(0, -1).split('/'))) {
        const stat = await fsp.stat(file.path).catch(() => undefined);
        // Deleted between the listing and the stat: nothing left to judge.
        if (stat) yield { key: file.key, modifiedAt: stat.mtimeMs };
      }
    },

    async close(): Promise<void> {
      await puts.settled();
      await sweepingStaleTemps;
    },
  };
}

/** Closes the stream's fd exactly once, after any write still in flight (never close it behind its back). */
async function closeWriter(writer: fs.WriteStream): Promise<void> {
  if (writer.closed) return;
  const closed = once(writer, 'close');
  writer.destroy();
  await closed;
}

async function fsyncFolder(folder: string): Promise<void> {
  const handle = await fsp.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function removeStaleTempFiles(tmpDir: string): Promise<void> {
  const staleBefore = Date.now() - STALE_TEMP_AGE_MS;
  for (const name of await fsp.readdir(tmpDir)) {
    const file = path.join(tmpDir, name);
    const stat = await fsp.stat(file).catch(() => undefined);
    if (stat && (isAbandonedTemp(name) || stat.mtimeMs < staleBefore)) await fsp.rm(file, { recursive: true, force: true }).catch(() => undefined);
  }
}
