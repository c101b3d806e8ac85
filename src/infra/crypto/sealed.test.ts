import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { seal, unseal } from './sealed.js';

const masterKey = randomBytes(32);

test('a sealed secret opens with the same key and context', () => {
  for (const secret of ['', 'hunter2', 'https://hooks.slack.com/services/T000/B000/XXXX', 'contraseña ✓ 密码']) {
    const sealed = seal(masterKey, secret, 'branding.smtp_password:acc_1');
    assert.match(sealed, /^v1\./);
    assert.ok(!sealed.includes(secret) || secret === '');
    assert.equal(unseal(masterKey, sealed, 'branding.smtp_password:acc_1'), secret);
  }
});

test('sealing twice gives different strings', () => {
  assert.notEqual(seal(masterKey, 'same', 'ctx'), seal(masterKey, 'same', 'ctx'));
});

test('a sealed secret moved to another column or account does not open', () => {
  const sealed = seal(masterKey, 'hunter2', 'branding.smtp_password:acc_1');
  assert.throws(() => unseal(masterKey, sealed, 'branding.smtp_password:acc_2'));
  assert.throws(() => unseal(masterKey, sealed, 'integration.webhook_url:acc_1'));
});

test('a sealed secret does not open under another master key', () => {
  assert.throws(() => unseal(randomBytes(32), seal(masterKey, 'hunter2', 'ctx'), 'ctx'));
});

test('any change to a sealed secret is detected', () => {
  const sealed = seal(masterKey, 'hunter2', 'ctx');
  const [version, nonce, body] = sealed.split('.') as [string, string, string];
  const bodyBytes = Buffer.from(body, 'base64url');
  for (let i = 0; i < bodyBytes.length; i++) {
    const flipped = Buffer.from(bodyBytes);
    flipped[i]! ^= 0x80;
    assert.throws(() => unseal(masterKey, `${version}.${nonce}.${flipped.toString('base64url')}`, 'ctx'), `byte ${i}`);
  }
  const nonceBytes = Buffer.from(nonce, 'base64url');
  nonceBytes[0]! ^= 1;
  assert.throws(() => unseal(masterKey, `${version}.${nonceBytes.toString('base64url')}.${body}`, 'ctx'));
  // 23 bytes take 31 characters with 2 spare bits: flipping one spells the same bytes differently.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const respelled = body.slice(0, -1) + alphabet[alphabet.indexOf(body.at(-1)!) ^ 1];
  assert.deepEqual(Buffer.from(respelled, 'base64url'), bodyBytes);
  assert.throws(() => unseal(masterKey, `${version}.${nonce}.${respelled}`, 'ctx'));
  assert.throws(() => unseal(masterKey, `${sealed}.extra`, 'ctx'));
  assert.throws(() => unseal(masterKey, sealed.replace(/^v1/, 'v0'), 'ctx'));
  assert.throws(() => unseal(masterKey, 'not a sealed value', 'ctx'));
});
