import { createCipheriv, createDecipheriv } from 'node:crypto';
import { NONCE_PREFIX_SIZE, type FileKey } from './envelope.js';

/*
 * The blob format: plaintext cut into 64 KiB segments, each sealed on its own with
 * AES-256-GCM and stored as ciphertext || tag. Nonce = prefix (7) || index (uint32 BE)
 * || last flag (1), as in Tink's streaming AEAD and age's STREAM: segments cannot be
 * reordered, and dropping the tail is caught because no other segment carries the flag.
 * Only a 0-byte file has an empty segment (its only one). No header: key and prefix live
 * in the database.
 */
export const SEGMENT_SIZE = 65536;
export const TAG_SIZE = 16;
export const CIPHER_SEGMENT_SIZE = SEGMENT_SIZE + TAG_SIZE;
const MAX_SEGMENTS = 2 ** 32;

export class SegmentIntegrityError extends Error {
  override name = 'SegmentIntegrityError';
}

/** Segments in the blob of a plaintext of this size (at least one). */
export function segmentCount(plainSize: number): number {
  if (!Number.isSafeInteger(plainSize) || plainSize < 0) throw new RangeError(`invalid plaintext size ${plainSize}`);
  const count = Math.max(1, Math.ceil(plainSize / SEGMENT_SIZE));
  if (count > MAX_SEGMENTS) throw new RangeError(`plaintext of ${plainSize} bytes is too large`);
  return count;
}

export function ciphertextSize(plainSize: number): number {
  return plainSize + segmentCount(plainSize) * TAG_SIZE;
}

export function plaintextSize(cipherSize: number): number {
  if (!Number.isSafeInteger(cipherSize) || cipherSize < TAG_SIZE) throw new RangeError(`invalid ciphertext size ${cipherSize}`);
  const count = Math.ceil(cipherSize / CIPHER_SEGMENT_SIZE);
  const finalSegment = cipherSize - (count - 1) * CIPHER_SEGMENT_SIZE;
  if (finalSegment < TAG_SIZE + (count > 1 ? 1 : 0)) throw new RangeError(`no plaintext encrypts to ${cipherSize} bytes`);
  return cipherSize - count * TAG_SIZE;
}

export interface SegmentRange {
  firstSegment: number;
  lastSegment: number;
  /** The bytes of the blob to fetch. */
  cipherStart: number;
  cipherEndInclusive: number;
  /** Plaintext bytes to drop from the first segment, then bytes to send. */
  skip: number;
  take: number;
  /** Index of the file's final segment, the one sealed with the last flag. */
  lastSegmentIndex: number;
}

/** Maps a plaintext byte range (as in HTTP Range) to the whole segments holding it. */
export function segmentRangeFor(plainSize: number, start: number, endInclusive: number): SegmentRange {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(endInclusive) || start < 0 || endInclusive < start || endInclusive >= plainSize) {
    throw new RangeError(`range ${start}-${endInclusive} is not within a ${plainSize}-byte file`);
  }
  const firstSegment = Math.floor(start / SEGMENT_SIZE);
  const lastSegment = Math.floor(endInclusive / SEGMENT_SIZE);
  return {
    firstSegment,
    lastSegment,
    cipherStart: firstSegment * CIPHER_SEGMENT_SIZE,
    cipherEndInclusive: Math.min((lastSegment + 1) * CIPHER_SEGMENT_SIZE, ciphertextSize(plainSize)) - 1,
    skip: start - firstSegment * SEGMENT_SIZE,
    take: endInclusive - start + 1,
    lastSegmentIndex: segmentCount(plainSize) - 1,
  };
}

function segmentNonce(noncePrefix: Uint8Array, index: number, last: boolean): Buffer {
  if (noncePrefix.length !== NONCE_PREFIX_SIZE) throw new Error('the nonce prefix must be 7 bytes');
  if (!Number.isInteger(index) || index < 0 || index >= MAX_SEGMENTS) throw new RangeError(`invalid segment index ${index}`);
  const nonce = Buffer.allocUnsafe(12);
  nonce.set(noncePrefix, 0);
  nonce.writeUInt32BE(index, NONCE_PREFIX_SIZE);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/**
 * Seals one segment given as pieces, so callers never join them first; returns the
 * ciphertext pieces followed by the tag.
 */
export function sealSegment(key: FileKey, index: number, last: boolean, plaintext: readonly Uint8Array[]): Buffer[] {
  const cipher = createCipheriv('aes-256-gcm', key.dataKey, segmentNonce(key.noncePrefix, index, last));
  const sealed = plaintext.map((piece) => cipher.update(piece));
  cipher.final();
  sealed.push(cipher.getAuthTag());
  return sealed;
}

/** Opens one segment; throws SegmentIntegrityError unless it is this key's segment `index` with this flag. */
export function openSegment(key: FileKey, index: number, last: boolean, ciphertext: readonly Uint8Array[], tag: Uint8Array): Buffer[] {
  const decipher = createDecipheriv('aes-256-gcm', key.dataKey, segmentNonce(key.noncePrefix, index, last));
  decipher.setAuthTag(tag);
  const opened = ciphertext.map((piece) => decipher.update(piece));
  try {
    decipher.final();
  } catch {
    throw new SegmentIntegrityError(`segment ${index} failed authentication`);
  }
  return opened;
}
