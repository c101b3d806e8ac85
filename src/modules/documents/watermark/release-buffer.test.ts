import assert from 'node:assert/strict';
import { test } from 'node:test';
import { releaseBuffer } from './release-buffer.js';

test('a buffer that owns its memory is emptied, and the memory counted outside the heap falls', () => {
  const bytes = Buffer.alloc(32 * 1024 * 1024, 1);
  const before = process.memoryUsage().arrayBuffers;
  releaseBuffer(bytes);
  assert.equal(bytes.length, 0);
  assert.ok(before - process.memoryUsage().arrayBuffers >= 32 * 1024 * 1024);
});

test('a slice of shared memory is left as it is', () => {
  const pooled = Buffer.from('a few pooled bytes');
  const whole = Buffer.alloc(1024, 2);
  const slice = whole.subarray(10, 20);
  releaseBuffer(pooled);
  releaseBuffer(slice);
  assert.equal(pooled.toString(), 'a few pooled bytes');
  assert.equal(slice.length, 10);
  assert.equal(whole[0], 2);
});
