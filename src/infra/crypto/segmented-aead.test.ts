import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { Readable, type Transform } from 'node:stream';
import { test } from 'node:test';
import { sha256 } from '../../../test/helpers/files.js';
import { newFileKey, type FileKey } from './envelope.js';
import {
  CIPHER_SEGMENT_SIZE,
  ciphertextSize,
  createDecryptStream,
  createEncryptStream,
  plaintextSize,
  SEGMENT_SIZE,
  segmentCount,
  SegmentIntegrityError,
  segmentRangeFor,
  type DecryptOptions,
} from './segmented-aead.js';

const S = SEGMENT_SIZE;
const EDGE_SIZES = [0, 1, S - 1, S, S + 1, 3 * S];

/** Feeds chunks through a transform; resolves with what it emitted and the error it raised, if any. */
function run(transform: Transform, chunks: Buffer[]): Promise<{ output: Buffer; error: Error | undefined }> {
  return new Promise((resolve) => {
    const output: Buffer[] = [];
    transform.on('data', (chunk: Buffer) => output.push(chunk));
    transform.on('end', () => resolve({ output: Buffer.concat(output), error: undefined }));
    transform.on('error', (error) => resolve({ output: Buffer.concat(output), error }));
    Readable.from(chunks).pipe(transform);
  });
}

function randomChunks(data: Buffer, maxChunk = 200_000): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < data.length;) {
    const size = randomInt(1, maxChunk + 1);
    chunks.push(data.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

async function encrypt(key: FileKey, plaintext: Buffer, chunks = randomChunks(plaintext)) {
  const stream = createEncryptStream(key);
  const { output, error } = await run(stream, chunks);
  assert.ifError(error);
  return { ciphertext: output, digest: stream.digest(), plaintextBytes: stream.plaintextBytes };
}

function wholeFile(plainSize: number): DecryptOptions {
  return { firstSegment: 0, lastSegmentIndex: segmentCount(plainSize) - 1 };
}

async function decrypt(key: FileKey, ciphertext: Buffer, options: DecryptOptions): Promise<Buffer> {
  const { output, error } = await run(createDecryptStream(key, options), randomChunks(ciphertext));
  if (error) throw error;
  return output;
}

test('sizes: one tag per 64 KiB segment, one empty segment for an empty file', () => {
  assert.equal(CIPHER_SEGMENT_SIZE, 65552);
  const expected: [number, number][] = [
    [0, 16],
    [1, 17],
    [S - 1, S + 15],
    [S, S + 16],
    [S + 1, S + 33],
    [3 * S, 3 * S + 48],
  ];
  for (const [plain, cipher] of expected) {
    assert.equal(ciphertextSize(plain), cipher);
    assert.equal(plaintextSize(cipher), plain);
  }
  for (const impossible of [-1, 0, 15, 1.5, S + 16 + 1, S + 16 + 16, 2 * (S + 16) + 10]) {
    assert.throws(() => plaintextSize(impossible), RangeError, `ciphertext of ${impossible} bytes`);
  }
  assert.throws(() => ciphertextSize(-1), RangeError);
});

test('round trips at segment edges and for 1 MB in random chunks, inline', async () => {
  for (const size of [...EDGE_SIZES, 1_000_003]) {
    const key = newFileKey();
    const plaintext = randomBytes(size);
    const sealed = await encrypt(key, plaintext);
    assert.equal(sealed.ciphertext.length, ciphertextSize(size), `size ${size}`);
    assert.equal(sealed.plaintextBytes, size);
    assert.equal(sealed.digest, sha256(plaintext));
    assert.deepEqual(await decrypt(key, sealed.ciphertext, wholeFile(size)), plaintext, `size ${size}`);
  }
});

test('the same plaintext under the same key gives the same bytes, however it is chunked', async () => {
  for (const size of [...EDGE_SIZES, 16 * S + 1, randomInt(2_000_000, 4_000_000)]) {
    const key = newFileKey();
    const plaintext = randomBytes(size);
    const coarse = await encrypt(key, plaintext, randomChunks(plaintext, 1_000_000));
    const fine = await encrypt(key, plaintext, randomChunks(plaintext, 1_000));
    assert.ok(coarse.ciphertext.equals(fine.ciphertext), `size ${size}`);
    assert.equal(coarse.digest, fine.digest);
  }
});

test('every kind of range decrypts to the plaintext slice from only its segments', async () => {
  for (const size of [1, S - 1, S, S + 1, 3 * S, 3 * S + 777]) {
    const key = newFileKey();
    const plaintext = randomBytes(size);
    const { ciphertext } = await encrypt(key, plaintext);
    const last = size - 1;
    const ranges: [number, number][] = [
      [0, 0],
      [last, last],
      [0, last],
      [10, 100],
      [S - 6, S + 9],
      [S - 1, S],
      [S, 2 * S - 1],
      [S, S],
      [2 * S - 1, 2 * S],
      [1, 3 * S - 2],
      [2 * S, last],
      [randomInt(0, size), last],
    ];
    for (const [start, end] of ranges.filter(([start, end]) => start <= end && end <= last)) {
      const range = segmentRangeFor(size, start, end);
      assert.equal(range.take, end - start + 1);
      assert.ok(range.skip < S);
      const fetched = ciphertext.subarray(range.cipherStart, range.cipherEndInclusive + 1);
      assert.equal(fetched.length, Math.min((range.lastSegment + 1) * CIPHER_SEGMENT_SIZE, ciphertext.length) - range.cipherStart);
      const expected = plaintext.subarray(start, end + 1);
      assert.deepEqual(await decrypt(key, fetched, range), expected, `${start}-${end} of ${size}`);
      // Handed the rest of the blob instead, it stops after `take` bytes.
      assert.deepEqual(await decrypt(key, ciphertext.subarray(range.cipherStart), range), expected);
    }
  }
});

test('a range outside the file is refused', () => {
  assert.throws(() => segmentRangeFor(0, 0, 0), RangeError);
  assert.throws(() => segmentRangeFor(10, 5, 10), RangeError);
  assert.throws(() => segmentRangeFor(10, 6, 5), RangeError);
  assert.throws(() => segmentRangeFor(10, -1, 5), RangeError);
});

test('one flipped byte anywhere fails decryption, after only the segments before it', async () => {
  const key = newFileKey();
  const plaintext = randomBytes(3 * S + 100);
  const { ciphertext } = await encrypt(key, plaintext);
  const positions = [
    0,
    5000,
    CIPHER_SEGMENT_SIZE - 1,
    CIPHER_SEGMENT_SIZE,
    2 * CIPHER_SEGMENT_SIZE + 17,
    ciphertext.length - 17,
    ciphertext.length - 1,
  ];
  for (const position of positions) {
    const tampered = Buffer.from(ciphertext);
    tampered[position]! ^= 0x01;
    const { output, error } = await run(createDecryptStream(key, wholeFile(plaintext.length)), randomChunks(tampered));
    assert.ok(error instanceof SegmentIntegrityError, `byte ${position}`);
    const intact = Math.floor(position / CIPHER_SEGMENT_SIZE) * S;
    assert.deepEqual(output, plaintext.subarray(0, intact), `only whole verified segments before byte ${position}`);
  }
});

test('a truncated blob fails: final segment dropped, cut inside a segment, or range cut short', async () => {
  for (const size of [2 * S, 2 * S + 10]) {
    const key = newFileKey();
    const { ciphertext } = await encrypt(key, randomBytes(size));
    const withoutFinal = ciphertext.subarray(0, (segmentCount(size) - 1) * CIPHER_SEGMENT_SIZE);
    await assert.rejects(decrypt(key, withoutFinal, wholeFile(size)), SegmentIntegrityError, `size ${size}`);
    await assert.rejects(decrypt(key, ciphertext.subarray(0, ciphertext.length - 1), wholeFile(size)), SegmentIntegrityError);
    await assert.rejects(decrypt(key, Buffer.alloc(0), wholeFile(size)), SegmentIntegrityError);
    const range = segmentRangeFor(size, S - 1, size - 1);
    await assert.rejects(decrypt(key, ciphertext.subarray(0, CIPHER_SEGMENT_SIZE), range), SegmentIntegrityError);
  }
});

test('a file cannot be passed off as a shorter one: a middle segment never opens as the final one', async () => {
  const key = newFileKey();
  const { ciphertext } = await encrypt(key, randomBytes(3 * S));
  await assert.rejects(decrypt(key, ciphertext.subarray(0, 2 * CIPHER_SEGMENT_SIZE), wholeFile(2 * S)), SegmentIntegrityError);
});

test('swapped segments, extra bytes, or the wrong key fail decryption', async () => {
  const key = newFileKey();
  const size = 3 * S;
  const { ciphertext } = await encrypt(key, randomBytes(size));
  const segment = (i: number) => ciphertext.subarray(i * CIPHER_SEGMENT_SIZE, (i + 1) * CIPHER_SEGMENT_SIZE);
  const swapped = Buffer.concat([segment(1), segment(0), segment(2)]);
  await assert.rejects(decrypt(key, swapped, wholeFile(size)), SegmentIntegrityError);
  await assert.rejects(decrypt(key, Buffer.concat([ciphertext, Buffer.from([0])]), wholeFile(size)), SegmentIntegrityError);
  await assert.rejects(decrypt(newFileKey(), ciphertext, wholeFile(size)), SegmentIntegrityError);
  await assert.rejects(decrypt({ ...key, noncePrefix: randomBytes(7) }, ciphertext, wholeFile(size)), SegmentIntegrityError);
});
