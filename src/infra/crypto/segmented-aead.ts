import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { FileKey } from './envelope.js';
import { PieceQueue } from './piece-queue.js';
import { BATCH_BYTES, type SegmentCipherPool } from './segment-cipher-pool.js';
import { CIPHER_SEGMENT_SIZE, openSegment, SEGMENT_SIZE, SegmentIntegrityError, sealSegment, TAG_SIZE } from './segment-format.js';

export {
  CIPHER_SEGMENT_SIZE,
  ciphertextSize,
  plaintextSize,
  SEGMENT_SIZE,
  segmentCount,
  SegmentIntegrityError,
  segmentRangeFor,
  type SegmentRange,
} from './segment-format.js';

// Two batches in flight per thread keep every thread busy while bounding what an upload
// holds to a few MiB.
const BATCHES_IN_FLIGHT_PER_THREAD = 2;

export interface EncryptStream extends Transform {
  /** SHA-256 (hex) of the plaintext, known once the stream has ended. */
  digest(): string;
  readonly plaintextBytes: number;
}

/** Seals one batch of whole segments (only the file's last batch may end short) and hashes it. */
interface BatchSealer {
  seal(plaintext: Buffer[], bytes: number, firstIndex: number, last: boolean): Promise<Buffer[]>;
  digest(): Promise<string>;
  abandon(): void;
}

function inlineSealer(key: FileKey): BatchSealer {
  const hash = createHash('sha256');
  return {
    // Inline batches are a single segment: encrypted straight from the received chunks.
    async seal(plaintext, _bytes, index, last) {
      for (const piece of plaintext) hash.update(piece);
      return sealSegment(key, index, last, plaintext);
    },
    async digest() {
      return hash.digest('hex');
    },
    abandon() {},
  };
}

function pooledSealer(key: FileKey, pool: SegmentCipherPool): BatchSealer {
  const encryption = pool.startEncryption(key);
  return {
    seal: async (plaintext, bytes, firstIndex, last) => [await encryption.seal(plaintext, bytes, firstIndex, last)],
    digest: () => encryption.digest(),
    abandon: () => encryption.abandon(),
  };
}

class SegmentEncryptStream extends Transform implements EncryptStream {
  #plaintextBytes = 0;
  readonly #received = new PieceQueue();
  readonly #inFlight: Promise<Buffer[]>[] = [];
  #nextIndex = 0;
  #digest: string | undefined;

  constructor(
    private readonly sealer: BatchSealer,
    private readonly batchBytes: number,
    private readonly maxInFlight: number,
  ) {
    super();
  }

  get plaintextBytes(): number {
    return this.#plaintextBytes;
  }

  digest(): string {
    if (this.#digest === undefined) throw new Error('the plaintext digest is known only after the stream ends');
    return this.#digest;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#plaintextBytes += chunk.length;
    this.#received.add(chunk);
    // A full batch is sealed only once a byte beyond it arrived: until then it may be the last.
    if (this.#received.bytes <= this.batchBytes) return callback();
    this.#sealFullBatches().then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    this.#sealRest().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.#digest === undefined) this.sealer.abandon();
    callback(error);
  }

  async #sealFullBatches(): Promise<void> {
    // Once destroyed (an aborted upload), nothing more is sent: abandon() already freed the hash.
    while (this.#received.bytes > this.batchBytes && !this.destroyed) {
      await this.#submit(this.#received.take(this.batchBytes), this.batchBytes, false);
    }
  }

  async #sealRest(): Promise<void> {
    const bytes = this.#received.bytes;
    await this.#submit(this.#received.take(bytes), bytes, true);
    while (this.#inFlight.length > 0) await this.#pushOldest();
    this.#digest = await this.sealer.digest();
  }

  async #submit(plaintext: Buffer[], bytes: number, last: boolean): Promise<void> {
    const sealing = this.sealer.seal(plaintext, bytes, this.#nextIndex, last);
    // Awaited in order below; this only stops a rejection that lands early from being reported as unhandled.
    sealing.catch(() => {});
    this.#inFlight.push(sealing);
    this.#nextIndex += bytes / SEGMENT_SIZE;
    while (this.#inFlight.length >= this.maxInFlight) await this.#pushOldest();
  }

  async #pushOldest(): Promise<void> {
    for (const piece of await this.#inFlight.shift()!) this.push(piece);
  }
}

/**
 * Encrypts plaintext of any chunking into the segment format and hashes it. With a pool,
 * sealing and hashing run on its threads; without, inline. Both give the same bytes.
 */
export function createEncryptStream(key: FileKey, options: { workers?: SegmentCipherPool } = {}): EncryptStream {
  const pool = options.workers;
  if (!pool) return new SegmentEncryptStream(inlineSealer(key), SEGMENT_SIZE, 1);
  return new SegmentEncryptStream(pooledSealer(key, pool), BATCH_BYTES, pool.size * BATCHES_IN_FLIGHT_PER_THREAD);
}

export interface DecryptOptions {
  /** Index of the segment the input starts with. */
  firstSegment: number;
  /** Index of the file's final segment (segmentCount(size) - 1). */
  lastSegmentIndex: number;
  /** Plaintext bytes to drop from the start of the output. */
  skip?: number;
  /** Plaintext bytes to emit; input beyond them is not read. Without it, the input must reach the final segment. */
  take?: number;
}

class SegmentDecryptStream extends Transform {
  readonly #received = new PieceQueue();
  #index: number;
  #skip: number;
  #left: number;
  #finalOpened = false;

  constructor(
    private readonly key: FileKey,
    private readonly options: DecryptOptions,
  ) {
    super();
    const { firstSegment, lastSegmentIndex, skip = 0, take } = options;
    if (!Number.isInteger(firstSegment) || firstSegment < 0 || !Number.isInteger(lastSegmentIndex) || firstSegment > lastSegmentIndex) {
      throw new RangeError(`segments ${firstSegment}..${lastSegmentIndex} are not a valid span`);
    }
    if (!Number.isSafeInteger(skip) || skip < 0 || (take !== undefined && (!Number.isSafeInteger(take) || take < 0))) {
      throw new RangeError(`skip ${skip} and take ${take} must be byte counts`);
    }
    this.#index = firstSegment;
    this.#skip = skip;
    this.#left = take ?? Infinity;
  }

  get #rangeServed(): boolean {
    return this.#left === 0;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#rangeServed) return callback();
    if (this.#finalOpened) return callback(new SegmentIntegrityError('ciphertext continues past the final segment'));
    this.#received.add(chunk);
    try {
      while (this.#received.bytes >= CIPHER_SEGMENT_SIZE && !this.#finalOpened && !this.#rangeServed) {
        this.#openNext(CIPHER_SEGMENT_SIZE);
      }
    } catch (error) {
      return callback(error as Error);
    }
    if (this.#finalOpened && !this.#rangeServed && this.#received.bytes > 0) {
      return callback(new SegmentIntegrityError('ciphertext continues past the final segment'));
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    try {
      // Only the final segment may be short, and only it is known to end here.
      if (!this.#finalOpened && !this.#rangeServed && this.#index === this.options.lastSegmentIndex && this.#received.bytes >= TAG_SIZE) {
        this.#openNext(this.#received.bytes);
      }
    } catch (error) {
      return callback(error as Error);
    }
    if (this.#rangeServed || (this.options.take === undefined && this.#finalOpened)) return callback();
    callback(new SegmentIntegrityError(`ciphertext is truncated: segment ${this.#index} is missing or incomplete`));
  }

  /** Verifies a whole segment before any of its plaintext is pushed. */
  #openNext(cipherBytes: number): void {
    const last = this.#index === this.options.lastSegmentIndex;
    const ciphertext = this.#received.take(cipherBytes - TAG_SIZE);
    const tag = Buffer.concat(this.#received.take(TAG_SIZE));
    const plaintext = openSegment(this.key, this.#index, last, ciphertext, tag);
    this.#index++;
    this.#finalOpened = last;
    for (let piece of plaintext) {
      if (this.#skip >= piece.length) {
        this.#skip -= piece.length;
        continue;
      }
      piece = piece.subarray(this.#skip, this.#skip + Math.min(this.#left, piece.length - this.#skip));
      this.#skip = 0;
      this.#left -= piece.length;
      this.push(piece);
      if (this.#rangeServed) return;
    }
  }
}

/**
 * Decrypts ciphertext that starts at segment `firstSegment` (see segmentRangeFor). Errors,
 * never emits, on a segment that fails authentication, is out of place, or is missing.
 */
export function createDecryptStream(key: FileKey, options: DecryptOptions): Transform {
  return new SegmentDecryptStream(key, options);
}
