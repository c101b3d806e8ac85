import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';

/**
 * A test whose peer npm cannot bring (a Debian package, a privilege) skips with one line saying
 * what to install where the peer is missing; under CI=true that skip is a failure, so CI proves
 * everything. Returns whether the test may go on.
 */
export function requirePeer(t: TestContext, available: boolean, missing: string): boolean {
  if (available) return true;
  if (process.env.CI === 'true') assert.fail(`${missing} (CI must run this test)`);
  t.skip(missing);
  return false;
}
