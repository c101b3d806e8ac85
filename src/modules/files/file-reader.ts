import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { unwrapFileKey } from '../../infra/crypto/envelope.js';
import { createDecryptStream, segmentCount, segmentRangeFor } from '../../infra/crypto/segmented-aead.js';
import type { BlobStore, ByteRange } from '../../infra/storage/index.js';

export interface EncryptedFile {
  blobKey: string;
  wrappedKey: string;
  size: number;
}

/**
 * Plaintext of a stored file, or of one byte range of it: only the segments holding the
 * range are fetched and decrypted, and every segment is authenticated before any of its
 * bytes are emitted, so a tampered blob ends the stream with an error, never wrong bytes.
 */
export function createFileReader(deps: { blobs: BlobStore; masterKey: Buffer }) {
  const { blobs, masterKey } = deps;
  async function open(file: EncryptedFile, range?: ByteRange): Promise<Readable> {
    const key = unwrapFileKey(masterKey, file.wrappedKey);
    if (!range || file.size === 0) {
      const ciphertext = await blobs.get(file.blobKey);
      const lastSegmentIndex = segmentCount(file.size) - 1;
      return pipeline(ciphertext, createDecryptStream(key, { firstSegment: 0, lastSegmentIndex }), () => {});
    }
    const segments = segmentRangeFor(file.size, range.start, range.endInclusive);
    const ciphertext = await blobs.get(file.blobKey, { start: segments.cipherStart, endInclusive: segments.cipherEndInclusive });
    return pipeline(
      ciphertext,
      createDecryptStream(key, {
        firstSegment: segments.firstSegment,
        lastSegmentIndex: segments.lastSegmentIndex,
        skip: segments.skip,
        take: segments.take,
      }),
      () => {},
    );
  }

  return {
    open,
    /**
     * A whole file's plaintext in one buffer, copied once: `stream/consumers`' `buffer` gathers
     * the chunks in a Blob and copies them out again, a second file-sized allocation per read.
     */
    async read(file: EncryptedFile): Promise<Buffer> {
      const chunks: Buffer[] = [];
      for await (const chunk of await open(file)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
  };
}

export type FileReader = ReturnType<typeof createFileReader>;
