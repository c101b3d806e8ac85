import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './request-log.js';

test('the log keeps no credential of a URL: query tokens, sign-up confirmations, invitation paths', () => {
  const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg';
  for (const [url, expected] of [
    [`/setup?token=${token}`, '/setup?token=[redacted]'],
    [`/setup?signup=${token}`, '/setup?signup=[redacted]'],
    [`/sign-in/link?token=${token}&x=1`, '/sign-in/link?token=[redacted]&x=1'],
    [`/reset-password?token=${token}`, '/reset-password?token=[redacted]'],
    [`/invite/${token}`, '/invite/[redacted]'],
    [`/invite/${token}?lang=fr`, '/invite/[redacted]?lang=fr'],
    ['/api/links?page=2', '/api/links?page=2'],
    ['/v/AbCdEf0123456789', '/v/AbCdEf0123456789'],
  ]) {
    assert.equal(redactUrl(url!), expected);
  }
});
