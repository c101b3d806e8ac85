import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from './timestamps.js';

test('isoTime formats exactly as Date#toISOString', () => {
  const edges = [
    0,
    1,
    9,
    99,
    999,
    1000,
    951_782_400_000 /* 2000-02-29 */,
    Date.UTC(1999, 11, 31, 23, 59, 59, 999),
    Date.UTC(1000, 0, 1),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    -1,
    Date.UTC(999, 11, 31),
    Date.UTC(10000, 0, 1),
    -62_198_755_200_000,
  ];
  let state = 42;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const samples = Array.from({ length: 20_000 }, () => Math.floor((random() - 0.2) * 4e12));
  for (const epochMs of [...edges, ...samples]) assert.equal(isoTime(epochMs), new Date(epochMs).toISOString(), String(epochMs));
});

test('isoTime refuses an invalid time as Date#toISOString does', () => {
  assert.throws(() => isoTime(Number.NaN), RangeError);
});
