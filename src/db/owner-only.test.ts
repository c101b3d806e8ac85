import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { narrowToOwner, openToGroupOrOthers } from './owner-only.js';

test('owner-only narrowing changes regular files only: a folder named where a file was expected keeps its mode', (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-owner-only-'));
  t.after(() => fs.rmSync(folder, { recursive: true }));
  const shared = path.join(folder, 'shared');
  fs.mkdirSync(shared, { mode: 0o755 });
  fs.chmodSync(shared, 0o755);
  const file = path.join(folder, 'linkvault.db');
  fs.writeFileSync(file, '', { mode: 0o644 });
  fs.chmodSync(file, 0o644);

  assert.deepEqual(openToGroupOrOthers([shared]), [], 'a folder is not reported open');
  const { narrowed, notOwned } = narrowToOwner([shared, file, path.join(folder, 'missing')]);
  assert.deepEqual(narrowed, [{ file, mode: 0o644 }]);
  assert.deepEqual(notOwned, []);
  assert.equal(fs.statSync(shared).mode & 0o777, 0o755);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});
