import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { FileKey } from './envelope.js';
import { PieceQueue } from './piece-queue.js';
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

export interface EncryptStream extends Transform {
  /** SHA-256 (hex) of the plaintext, known once the stream has ended. */
  digest(): string;
  readonly plaintextBytes: number;
}

/**
 * Seals plaintext of any chunking into the segment format and hashes it, on the calling
 * thread. (A worker-thread pool was measured here: on two cores it was no faster and its
 * per-thread allocations added ~70 MiB of RSS per upload, so sealing stays inline.)
 */
class SegmentEncryptStream extends Transform implements EncryptStream {
  readonly #hash = createHash('sha256');
  readonly #received = new PieceQueue();
  #plaintextBytes = 0;
  #nextIndex = 0;
  #digest: string | undefined;

  constructor(private readonly key: FileKey) {
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
    // A full segment is sealed only once a byte beyond it arrived: until then it may be the last.
    while (this.#received.bytes > SEGMENT_SIZE) this.#seal(this.#received.take(SEGMENT_SIZE), false);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.#seal(this.#received.take(this.#received.bytes), true);
    this.#digest = this.#hash.digest('hex');
    callback();
  }

  #seal(plaintext: Buffer[], last: boolean): void {
    for (const piece of plaintext) this.#hash.update(piece);
    for (const piece of sealSegment(this.key, this.#nextIndex++, last, plaintext)) this.push(piece);
  }
}

export function createEncryptStream(key: FileKey): EncryptStream {
  return new SegmentEncryptStream(key);
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
