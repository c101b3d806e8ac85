import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { mailerOnJobRunner } from '../../../test/helpers/mailer.js';
import { startSmtp } from '../../../test/helpers/smtp.js';
import type { MailOutboxRow } from '../../db/types.js';
import { MAIL_JOB } from './mailer.js';
import { listMail } from './outbox.repo.js';
import { openMessage, sealMessage } from './sealed-message.js';
import { transportSettingsFromUrl } from './transport.js';

const masterKey = randomBytes(32);
const silent = { info: () => {}, warn: () => {}, error: () => {} };

test('a sealed message opens in its own row only: not for another recipient or time, nor in another column or under another key', () => {
  const message = { secretSubject: '123456 is your code', text: 'Code: 123456', html: '<b>123456</b>' };
  const sealed = sealMessage(masterKey, message, 'a@example.com', 1_000);
  assert.doesNotMatch(JSON.stringify(sealed), /123456/);
  const row: MailOutboxRow = {
    id: 1,
    account_id: null,
    to_address: 'a@example.com',
    kind: 'otpCode',
    subject: '•••••• is your code',
    ...sealed,
    status: 'pending',
    attempts: 0,
    next_attempt_at: 1_000,
    last_error: null,
    created_at: 1_000,
    sent_at: null,
  };
  assert.deepEqual(openMessage(masterKey, row), { subject: '123456 is your code', text: 'Code: 123456', html: '<b>123456</b>' });
  assert.throws(() => openMessage(masterKey, { ...row, to_address: 'b@example.com' }), /failed authentication/);
  assert.throws(() => openMessage(masterKey, { ...row, created_at: 1_001 }), /failed authentication/);
  assert.throws(() => openMessage(masterKey, { ...row, html_body: sealed.text_body }), /failed authentication/);
  assert.throws(() => openMessage(randomBytes(32), row), /failed authentication/);
});

async function setup(t: TestContext) {
  const smtp = await startSmtp(t);
  const { handle } = await openTestDatabase(t);
  const systemTransport = transportSettingsFromUrl(smtp.url, 'linkvault <no-reply@linkvault.test>');
  const { mailer, jobs } = mailerOnJobRunner(t, { db: handle.db, clock: Date.now, log: silent, masterKey, systemTransport });
  return { db: handle.db, smtp, mailer, jobs };
}

test('a message an earlier version queued in clear is still sent as it was, then cleared', async (t) => {
  const { db, smtp, mailer, jobs } = await setup(t);
  const { id } = await db
    .insertInto('mail_outbox')
    .values({
      account_id: null,
      to_address: 'viewer@example.com',
      kind: 'otpCode',
      subject: '•••••• is your code',
      secret_subject: '654321 is your code',
      text_body: 'Your code: 654321',
      html_body: '<p>654321</p>',
      status: 'pending',
      next_attempt_at: 0,
      created_at: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await jobs.enqueue(MAIL_JOB, { mailId: id });
  assert.equal(await mailer.drain(), 1);
  const [mail] = smtp.received;
  assert.deepEqual([mail?.subject, mail?.text.trim(), mail?.html], ['654321 is your code', 'Your code: 654321', '<p>654321</p>']);
  const [row] = await listMail(db);
  assert.deepEqual([row?.status, row?.secret_subject, row?.text_body, row?.html_body], ['sent', null, '', null]);
});

test('a sealed message moved to another address fails for good, sent to no one', async (t) => {
  const { db, smtp, mailer } = await setup(t);
  const id = await mailer.enqueue({ to: 'new.admin@example.com', subject: 'Join Acme', text: 'https://linkvault.test/invite/secret' });
  await db.updateTable('mail_outbox').set({ to_address: 'thief@example.net' }).where('id', '=', id).execute();
  assert.equal(await mailer.drain(), 1);
  assert.equal(smtp.received.length, 0);
  const [row] = await listMail(db);
  assert.deepEqual([row?.status, row?.attempts, row?.text_body], ['failed', 1, '']);
  assert.match(row?.last_error ?? '', /the message does not open/);
});
