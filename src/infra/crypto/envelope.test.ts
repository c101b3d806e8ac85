import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { newFileKey, unwrapFileKey, wrapFileKey } from './envelope.js';
import { unseal } from './sealed.js';

const masterKey = randomBytes(32);

test('a file key is a 32-byte data key and a 7-byte nonce prefix, fresh each time', () => {
  const key = newFileKey();
  assert.equal(key.dataKey.length, 32);
  assert.equal(key.noncePrefix.length, 7);
  assert.notDeepEqual(newFileKey().dataKey, key.dataKey);
});

test('a wrapped file key unwraps to the same key under the same master key', () => {
  const key = newFileKey();
  const wrapped = wrapFileKey(masterKey, key);
  assert.match(wrapped, /^v1\.[\w-]{16}\.[\w-]+$/);
  assert.deepEqual(unwrapFileKey(masterKey, wrapped), key);
  assert.notEqual(wrapFileKey(masterKey, key), wrapped, 'each wrap uses a new nonce');
});

test('unwrapping fails under another master key, after any change, or for a sealed secret', () => {
  const wrapped = wrapFileKey(masterKey, newFileKey());
  assert.throws(() => unwrapFileKey(randomBytes(32), wrapped));
  const [version, nonce, body] = wrapped.split('.') as [string, string, string];
  const flipped = Buffer.from(body, 'base64url');
  flipped[3]! ^= 1;
  assert.throws(() => unwrapFileKey(masterKey, `${version}.${nonce}.${flipped.toString('base64url')}`));
  assert.throws(() => unwrapFileKey(masterKey, `v2.${nonce}.${body}`));
  assert.throws(() => unwrapFileKey(masterKey, `${version}.${nonce}`));
  assert.throws(() => unseal(masterKey, wrapped, ''), 'a file key never opens as a sealed secret');
});

test('a master key must be 32 bytes', () => {
  assert.throws(() => wrapFileKey(randomBytes(16), newFileKey()), /32 bytes/);
});
