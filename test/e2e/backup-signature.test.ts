import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { masterKeyFingerprint } from '../../src/infra/crypto/master-key.js';
import { testEnv } from '../helpers/app.js';
import { downloadThrough, emptyDir, restoreTargetOf, rewriteManifest, serverWithOneFile } from '../helpers/backups.js';
import { sha256 } from '../helpers/files.js';
import { runCli, startServerProcess } from '../helpers/process.js';

const onPostgres = process.env.TEST_DATABASE_URL !== undefined;
const NOT_OURS = /this backup's manifest is not signed by this server's master key: it was changed after it was made, or made by another server/;

/** The review's case: an API key planted in the backed-up database (on PostgreSQL, a changed dump). */
async function plantKey(copy: string): Promise<void> {
  if (onPostgres) return fs.appendFile(path.join(copy, 'database.pgdump'), randomBytes(64));
  const key = `lvk_${randomBytes(20).toString('hex')}`;
  const database = new Database(path.join(copy, 'database.sqlite'));
  database
    .prepare(
      `insert into api_keys (account_id, name, key_hash, key_prefix, active, created_at) select id, 'planted', ?, ?, 1, 0 from accounts limit 1`,
    )
    .run(sha256(Buffer.from(key)), key.slice(0, 8));
  database.close();
}

test('restore refuses a backup changed with its manifest, one signed under another key, and an unsigned one unless --accept-unsigned', async (t) => {
  const env = await testEnv(t);
  const { server, apiKey, linkId, content } = await serverWithOneFile(t, env);
  const root = await emptyDir(t, 'linkvault-signature-');
  const backupDir = path.join(root, 'nightly');
  const made = await runCli(['backup', '--to', backupDir], env);
  assert.equal(made.code, 0, made.stderr);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);

  const copyOf = async (name: string, change: (copy: string) => Promise<void>) => {
    const copy = path.join(root, name);
    await fs.cp(backupDir, copy, { recursive: true });
    await change(copy);
    return copy;
  };
  const otherKey = randomBytes(32).toString('base64');
  const tampered = await copyOf('tampered', async (copy) => {
    await plantKey(copy);
    await rewriteManifest(copy, undefined); // sizes and checksums made to match; the tag is the backup's own
  });
  const resigned = await copyOf('resigned', async (copy) => {
    await plantKey(copy);
    // Signed under a key of the tamperer's own, naming this server's key: the tag gives it away.
    await rewriteManifest(copy, otherKey, (manifest) => {
      manifest.masterKey.fingerprint = masterKeyFingerprint(Buffer.from(env.MASTER_KEY!, 'base64'));
    });
  });
  // As an earlier release wrote it: no signature.
  const unsigned = await copyOf('unsigned', (copy) =>
    rewriteManifest(copy, undefined, (manifest) => {
      delete manifest.signature;
    }),
  );

  // Unsigned and without the sections restore reads: refused in one line, not a TypeError.
  const sectionless = await copyOf('sectionless', (copy) =>
    rewriteManifest(copy, undefined, (manifest) => {
      delete manifest.signature;
      delete (manifest as Partial<typeof manifest>).database;
    }),
  );

  // One target for every refusal, then for the restore that is let through: it must find the target empty.
  const target = await restoreTargetOf(t, env, { MASTER_KEY: env.MASTER_KEY! });
  const refusals: Array<[string, string[], RegExp]> = [
    ['tampered', ['--from', tampered], NOT_OURS],
    ['tampered, with --accept-unsigned', ['--from', tampered, '--accept-unsigned'], NOT_OURS],
    ['signed under another key', ['--from', resigned], NOT_OURS],
    [
      'unsigned',
      ['--from', unsigned],
      /this backup's manifest is not signed \(it was made by a linkvault release before backups were signed, or its signature was removed\), .*run restore again with --accept-unsigned$/m,
    ],
    [
      'without its database section',
      ['--from', sectionless, '--accept-unsigned'],
      /lacks the database, storage or master key section of a backup manifest/,
    ],
  ];
  for (const [name, args, message] of refusals) {
    const refused = await runCli(['restore', ...args], target);
    assert.equal(refused.code, 1, `${name}: ${refused.stdout}`);
    assert.match(refused.stderr, message, name);
    assert.equal(refused.stderr.trim().split('\n').length, 1, `${name}: one line`);
    assert.deepEqual(await fs.readdir(target.DATA_DIR!), [], `${name}: nothing was written`);
  }

  const anotherServer = await restoreTargetOf(t, env, { MASTER_KEY: otherKey });
  const keyless = await restoreTargetOf(t, env);
  delete keyless.MASTER_KEY;
  const [elsewhere, withoutKey] = await Promise.all([
    runCli(['restore', '--from', backupDir], anotherServer),
    runCli(['restore', '--from', backupDir], keyless),
  ]);
  assert.equal(elsewhere.code, 1, elsewhere.stdout);
  assert.match(elsewhere.stderr, NOT_OURS);
  assert.match(elsewhere.stderr, /it names the master key of fingerprint [0-9a-f]{16}: if the backup is yours, set MASTER_KEY to that key/);
  assert.equal(withoutKey.code, 1, withoutKey.stdout);
  assert.match(
    withoutKey.stderr,
    /no master key is configured here and this backup holds none, so its manifest's signature cannot be checked: set MASTER_KEY/,
  );
  for (const refusedInto of [anotherServer, keyless]) assert.deepEqual(await fs.readdir(refusedInto.DATA_DIR!), []);

  const accepted = await runCli(['restore', '--from', unsigned, '--accept-unsigned'], target);
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /restore finished: 1 links, 1 blobs/);
  const revived = await startServerProcess(t, target);
  assert.equal(sha256(await downloadThrough(revived.url, apiKey, linkId)), sha256(content), 'an unsigned backup restores whole with the flag');
});
