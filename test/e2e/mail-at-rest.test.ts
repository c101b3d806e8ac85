import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Every byte the database keeps of the outbox, live or not: on SQLite the file, its WAL and a
 * backup's copy (freed space and old page versions included); on PostgreSQL the table's pages as
 * stored, dead tuples included (read with pageinspect).
 */
async function storedBytes(app: TestApp): Promise<Map<string, Buffer>> {
  const { database } = app.runtime;
  const stored = new Map<string, Buffer>();
  if (database.kind === 'sqlite') {
    const file = path.join(app.dataDir, 'linkvault.db');
    const backup = path.join(app.dataDir, 'backup.sqlite');
    await database.snapshotTo(backup);
    for (const name of [file, `${file}-wal`, backup]) stored.set(path.basename(name), await fs.readFile(name));
    return stored;
  }
  await sql`create extension if not exists pageinspect`.execute(database.db);
  const { rows } = await sql<{ block: number; page: Buffer }>`
    select block, get_raw_page('mail_outbox', block::int) as page
    from generate_series(0, pg_relation_size('mail_outbox') / current_setting('block_size')::int - 1) as block`.execute(database.db);
  for (const { block, page } of rows) stored.set(`mail_outbox page ${block}`, page);
  return stored;
}

test('the tokens and codes mails carry are never stored in clear: not in the database file, its WAL, a backup or dead tuples', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http, accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'member');

  assert.equal((await http.post('/api/invitations', { email: 'new.admin@example.net', role: 'admin' })).status, 201);
  const invitation = /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor('new.admin@example.net')).text)![1]!;
  assert.equal((await createSessionClient(app.url).post('/api/auth/password-reset', { email: person.email })).status, 202);
  const reset = /token=([0-9A-Za-z]{43})/.exec((await smtp.waitFor(person.email)).text)![1]!;
  const link = await createLink(http, 'doc', 'Plan.txt', { requiresOtp: '1', allowedDomains: 'example.org' });
  const visitor = new VisitorClient(app.url);
  await visitor.post(`/v/${link}/otp`, { email: 'guest@example.org' });
  const otp = await smtp.waitFor('guest@example.org');
  const code = otpCodeIn(otp);
  // Six digits alone could turn up anywhere in a file by chance: the code is looked for as it was written.
  const codeLine = new RegExp(`^.*${code}.*$`, 'm').exec(otp.text)![0].trim();
  assert.ok(otp.subject.includes(code), 'the subject sent carries the code');

  const outbox = () => app.runtime.database.db.selectFrom('mail_outbox').select('status').execute();
  const sent = await waitFor(outbox, (rows) => rows.every((row) => row.status === 'sent'));
  assert.deepEqual(
    sent.map((row) => row.status),
    ['sent', 'sent', 'sent'],
  );
  const secrets = {
    'invitation token': invitation,
    'password reset token': reset,
    'subject with the one-time code': otp.subject,
    'line with the one-time code': codeLine,
  };
  const found: string[] = [];
  for (const [where, bytes] of await storedBytes(app)) {
    for (const [name, secret] of Object.entries(secrets)) if (bytes.includes(secret)) found.push(`${name} in ${where}`);
  }
  assert.deepEqual(found, []);

  // What the mails carried still works.
  const joined = await createSessionClient(app.url).post('/api/invitations/accept', {
    token: invitation,
    name: 'New Admin',
    password: TEST_PASSWORD,
  });
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  const newPassword = `${TEST_PASSWORD} again`;
  assert.equal((await createSessionClient(app.url).post('/api/auth/password-reset/confirm', { token: reset, password: newPassword })).status, 204);
  assert.equal((await visitor.post(`/v/${link}/otp/verify`, { code })).status, 303);
});
