import type { Readable } from 'node:stream';

/** Inclusive on both ends, like an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  endInclusive: number;
}

/**
 * Where file contents live, behind one interface: local disk or an S3-compatible bucket.
 * A link row may only point at a key whose `put` has resolved.
 */
export interface BlobStore {
  /**
   * Streams `body` into the blob `key`; resolves once durable. On error or abort (body errors /
   * signal aborts before `put` resolves) nothing remains under `key` nor any temp file / pending
   * multipart upload. Resolves the byte count written.
   */
  put(key: string, body: Readable, options?: { signal?: AbortSignal }): Promise<{ size: number }>;
  /**
   * Reads the blob (or a byte range of it). Rejects with BlobNotFoundError if absent, and with a
   * RangeError if the range is malformed or starts at or past the end of the blob; an end past
   * the blob is clamped to its last byte.
   */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Rejects with BlobNotFoundError if absent. */
  size(key: string): Promise<number>;
  /** No error if absent. */
  delete(key: string): Promise<void>;
  /** Deletes every blob whose key starts with prefix (used when a link with many versions is deleted). */
  deletePrefix(prefix: string): Promise<void>;
  /** Every blob's key, in no promised order (backups and health checks walk the whole store). */
  keys(): AsyncIterable<string>;
  /**
   * The blobs under `prefix` (a key prefix ending in "/", e.g. `links/`) with when each was last
   * written, in no promised order: the orphan sweep leaves blobs too young to judge alone.
   */
  entries(prefix: string): AsyncIterable<BlobEntry>;
  /** Waits for the puts still settling (a cut upload removing its temporary data), then lets go. */
  close(): Promise<void>;
}

/**
 * The puts under way in a store, for its close(): at shutdown a put cut with its request is still
 * removing its temporary file (or multipart upload) when the process would exit.
 */
export function trackedPuts() {
  const settling = new Set<Promise<unknown>>();
  return {
    track<T>(put: Promise<T>): Promise<T> {
      settling.add(put);
      void put.then(
        () => settling.delete(put),
        () => settling.delete(put),
      );
      return put;
    },
    settled: () => Promise.allSettled([...settling]),
  };
}

export interface BlobEntry {
  key: string;
  /** epoch ms of the last write (a local file's mtime, an object's LastModified) */
  modifiedAt: number;
}

/** The storage service could not be reached or answered with its own failure: worth a retry. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}

export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError';

  constructor(readonly key: string) {
    super(`Blob ${key} not found`);
  }
}

/** S3's own limit; the local store keeps it too so a key valid on one backend is valid on both. */
const MAX_KEY_LENGTH = 1024;
// A segment may not start with a dot: that rules out `.` and `..`, and keeps the local store's
// `.tmp` folder out of reach of any key.
const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._~@+=-]*$/;

/** Keys look like `links/<id>/v1`: relative, slash-separated, no empty, dot-led or odd-character segment. */
export function assertValidBlobKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new TypeError(`Blob key must be 1-${MAX_KEY_LENGTH} characters`);
  }
  for (const segment of key.split('/')) {
    if (!KEY_SEGMENT.test(segment)) {
      throw new TypeError(`Invalid blob key ${JSON.stringify(key)}: segments are [A-Za-z0-9._~@+=-], not empty, not starting with "."`);
    }
  }
}

/**
 * A prefix is a key, optionally with a trailing slash (`links/<id>/`). The empty prefix is refused
 * on purpose: it would delete every blob.
 */
export function assertValidBlobPrefix(prefix: string): void {
  assertValidBlobKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

export function assertValidByteRange(range: ByteRange): void {
  const { start, endInclusive } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(endInclusive) || start < 0 || endInclusive < start) {
    throw new RangeError(`Invalid byte range ${start}-${endInclusive}`);
  }
}

/** What `put` rejects with when its signal aborts, whichever backend. */
export function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The upload was aborted', { cause: signal.reason }), { name: 'AbortError' });
}
