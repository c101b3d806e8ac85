import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { payloadTooLarge } from '../../core/errors.js';
import { newFileKey, wrapFileKey } from '../../infra/crypto/envelope.js';
import { createEncryptStream } from '../../infra/crypto/segmented-aead.js';
import type { BlobStore } from '../../infra/storage/index.js';
import type { EncryptedFile } from './file-reader.js';
import { assertAllowedFileName, detectMime, executableRefused, isExecutable, SNIFF_BYTES, storedFileName } from './content-checks.js';

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** A file whose encrypted blob is durable, not yet referenced by any link row. */
export interface StoredFile {
  blobKey: string;
  wrappedKey: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
}

/**
 * Passes bytes through untouched while keeping the first few KiB for sniffing, refusing
 * executables as soon as their magic bytes arrive and failing the moment the size limit
 * is passed, so nothing past it is read or stored.
 */
class IntakeGuard extends Transform {
  private readonly headChunks: Buffer[] = [];
  private headBytes = 0;
  private total = 0;
  private executableChecked = false;

  constructor(private readonly maxBytes: number) {
    super();
  }

  head(): Buffer {
    return Buffer.concat(this.headChunks, this.headBytes);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.total += chunk.length;
    if (this.total > this.maxBytes) {
      callback(payloadTooLarge(`The file is larger than the ${this.maxBytes / 1024 / 1024} MB limit`));
      return;
    }
    if (this.headBytes < SNIFF_BYTES) {
      const needed = chunk.subarray(0, SNIFF_BYTES - this.headBytes);
      this.headChunks.push(Buffer.from(needed));
      this.headBytes += needed.length;
    }
    // Eight bytes decide every executable format refused; check as soon as they are here.
    if (!this.executableChecked && this.headBytes >= 8) {
      this.executableChecked = true;
      if (isExecutable(this.head())) {
        callback(executableRefused());
        return;
      }
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(!this.executableChecked && isExecutable(this.head()) ? executableRefused() : null);
  }
}

export function createFileIntake(deps: { blobs: BlobStore; masterKey: Buffer; maxBytes?: number }) {
  const { blobs, masterKey } = deps;
  const maxBytes = deps.maxBytes ?? MAX_UPLOAD_BYTES;

  return {
    maxBytes,

    /**
     * Streams one file through the checks and the cipher into `blobKey`. Resolves once the
     * blob is durable; on any failure (limit, executable, client abort) nothing remains.
     */
    async store(blobKey: string, sentName: string, content: Readable, signal?: AbortSignal): Promise<StoredFile> {
      const fileName = storedFileName(sentName);
      assertAllowedFileName(fileName);
      const fileKey = newFileKey();
      const guard = new IntakeGuard(maxBytes);
      const encrypt = createEncryptStream(fileKey);
      const stored = blobs.put(blobKey, encrypt, { signal });
      try {
        await Promise.all([pipeline(content, guard, encrypt, { signal }), stored]);
      } catch (error) {
        // put() removes its partial blob itself; this covers a put that had already finished.
        await stored.then(
          () => blobs.delete(blobKey),
          () => undefined,
        );
        throw error;
      }
      return {
        blobKey,
        wrappedKey: wrapFileKey(masterKey, fileKey),
        name: fileName,
        mime: await detectMime(guard.head(), fileName),
        size: encrypt.plaintextBytes,
        sha256: encrypt.digest(),
      };
    },

    /**
     * Seals bytes the server made itself (a converted PDF, a page image) into `blobKey` under a
     * fresh file key, as uploads are: no name or type checks, they never came from a visitor.
     */
    async seal(blobKey: string, bytes: Buffer): Promise<EncryptedFile> {
      const fileKey = newFileKey();
      const encrypt = createEncryptStream(fileKey);
      await Promise.all([blobs.put(blobKey, encrypt), pipeline(Readable.from([bytes]), encrypt)]);
      return { blobKey, wrappedKey: wrapFileKey(masterKey, fileKey), size: bytes.length };
    },

    /** Removes a stored file that will not be committed. */
    async discard(file: Pick<StoredFile, 'blobKey'>): Promise<void> {
      await blobs.delete(file.blobKey);
    },
  };
}

export type FileIntake = ReturnType<typeof createFileIntake>;
