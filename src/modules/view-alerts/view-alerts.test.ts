import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink, uploadForm } from '../../../test/helpers/files.js';
import { signedInPerson } from '../../../test/helpers/people.js';
import { startSmtp } from '../../../test/helpers/smtp.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';
import { sleep, waitFor } from '../../../test/helpers/wait.js';

const HOUR = 3_600_000;

/** A visitor who gives `email` at the link's e-mail gate and opens it. */
async function opens(url: string, linkId: string, email: string): Promise<void> {
  const visitor = new VisitorClient(url);
  await visitor.get(`/v/${linkId}`);
  await visitor.post(`/v/${linkId}/email`, { email });
  assert.equal((await visitor.get(`/v/${linkId}`)).status, 200);
}

test("view alerts: the link's maker hears of each visitor once an hour, through the account's mail; quiet links and keys' links", async (t) => {
  const smtp = await startSmtp(t);
  let now = Date.UTC(2026, 10, 24, 9, 0);
  const app = await startApp(t, { clock: () => now, env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail, http } = await app.createAccount('professional');
  const maker = await signedInPerson(app, accountId, 'member');
  const made = await maker.client.post('/api/upload', uploadForm('numbers', 'Q3 numbers.txt', { requireEmail: '1' }));
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const linkId: string = made.body.id;

  await opens(app.url, linkId, 'ana@example.org');
  const alert = await smtp.waitFor(maker.email);
  assert.match(alert.subject, /^ana@example\.org \(not verified\) opened “Q3 numbers\.txt”$/, 'an address typed at the e-mail gate is not proof');
  assert.match(alert.text, /2026-11-24 09:00 UTC/);
  const analytics = `/app/documents/${linkId}/analytics`;
  assert.ok(alert.text.includes(`${app.runtime.config.publicUrl}${analytics}`), 'the alert opens the link’s analytics on the dashboard');
  assert.equal((await maker.client.get(analytics)).status, 200);

  await opens(app.url, linkId, 'ana@example.org');
  await opens(app.url, linkId, 'bo@example.org');
  await smtp.waitFor(maker.email, (mail) => mail.subject.startsWith('bo@example.org'));
  now += HOUR + 60_000;
  await opens(app.url, linkId, 'ana@example.org');
  await smtp.waitFor(maker.email, (mail) => mail.subject.startsWith('ana@') && mail !== alert);
  await sleep(300);
  assert.equal(smtp.received.filter((mail) => mail.to.includes(maker.email)).length, 3, 'ana twice (an hour apart), bo once');

  // A link made with an API key tells the account's address; a quiet link tells nobody.
  const byKey = await createLink(http, 'k', 'Key made.txt', { requireEmail: '1' });
  const quiet = await createLink(http, 'q', 'Quiet.txt', { requireEmail: '1', notifyOnView: '0' });
  await opens(app.url, quiet, 'cy@example.org');
  await opens(app.url, byKey, 'cy@example.org');
  await smtp.waitFor(accountEmail, (mail) => mail.subject.includes('Key made.txt'));
  assert.ok(!smtp.received.some((mail) => mail.subject.includes('Quiet.txt')));
});

test("a maker who left the account, or was disabled, hears no more of their links' visitors: the account's address does", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail } = await app.createAccount('professional');
  const owner = await signedInPerson(app, accountId, 'owner');
  for (const leaves of ['removed', 'disabled'] as const) {
    const maker = await signedInPerson(app, accountId, 'member');
    const made = await maker.client.post('/api/upload', uploadForm('numbers', `Made by the ${leaves} one.txt`, { requireEmail: '1' }));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    if (leaves === 'removed') assert.equal((await owner.client.delete(`/api/members/${maker.userId}`)).status, 204);
    else await app.runtime.database.db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', maker.userId).execute();

    await opens(app.url, made.body.id, 'ana@example.org');
    await smtp.waitFor(accountEmail, (mail) => mail.subject.includes(`Made by the ${leaves} one.txt`));
    assert.ok(!smtp.received.some((mail) => mail.to.includes(maker.email)), `the ${leaves} maker is told nothing`);
  }
});

test("an access request is mailed to whoever hears of the link's visitors: its maker, else the account's address", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail, http } = await app.createAccount('professional');
  const maker = await signedInPerson(app, accountId, 'member');
  const made = await maker.client.post('/api/upload', uploadForm('terms', 'Member terms.txt', { requiresApproval: '1' }));
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const byKey = await createLink(http, 'k', 'Key terms.txt', { requiresApproval: '1' });

  for (const linkId of [made.body.id as string, byKey]) {
    const visitor = new VisitorClient(app.url);
    await visitor.get(`/v/${linkId}`);
    assert.equal((await visitor.post(`/v/${linkId}/access`, { email: 'ana@example.org' })).status, 303);
  }
  const request = await smtp.waitFor(maker.email, (mail) => mail.subject.includes('Member terms.txt'));
  assert.match(request.subject, /is asking to view/);
  await smtp.waitFor(accountEmail, (mail) => mail.subject.includes('Key terms.txt'));
  assert.ok(!smtp.received.some((mail) => mail.to.includes(accountEmail) && mail.subject.includes('Member terms.txt')), 'not the account too');
});

test('a person who asks for no view e-mails gets none, one by one or in a digest; access requests still reach them', async (t) => {
  const smtp = await startSmtp(t);
  let now = Date.UTC(2026, 10, 24, 9, 0);
  const app = await startApp(t, { clock: () => now, env: { SMTP_URL: smtp.url } });
  const { accountId, http } = await app.createAccount('professional');
  const maker = await signedInPerson(app, accountId, 'member');
  assert.equal((await maker.client.get('/api/me')).body.user.viewAlerts, true, 'on by default');
  assert.equal((await maker.client.patch('/api/me', {})).status, 400, 'nothing to change');
  const muted = await maker.client.patch('/api/me', { viewAlerts: false });
  assert.equal(muted.status, 200, JSON.stringify(muted.body));
  assert.equal(muted.body.user.viewAlerts, false);
  const made = await maker.client.post('/api/upload', uploadForm('deck', 'Muted deck.txt', { requireEmail: '1' }));
  const gated = await maker.client.post('/api/upload', uploadForm('terms', 'Gated terms.txt', { requiresApproval: '1' }));
  const linkId: string = made.body.id;

  await opens(app.url, linkId, 'ana@example.org');
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${gated.body.id}`);
  assert.equal((await visitor.post(`/v/${gated.body.id}/access`, { email: 'bo@example.org' })).status, 303);
  await smtp.waitFor(maker.email, (mail) => mail.subject.includes('Gated terms.txt'));
  await app.runtime.mailer.drain();
  assert.deepEqual(
    smtp.received.filter((mail) => mail.to.includes(maker.email)).map((mail) => mail.subject),
    ['bo@example.org (not verified) is asking to view “Gated terms.txt”'],
    'the access request only',
  );

  // Views waiting for a digest when the person asks for no more are not mailed, then or later.
  assert.deepEqual((await http.put('/api/view-alerts', { mode: 'daily' })).body, { mode: 'daily' });
  assert.equal((await maker.client.patch('/api/me', { viewAlerts: true })).body.user.viewAlerts, true);
  await opens(app.url, linkId, 'cy@example.org');
  assert.equal((await maker.client.patch('/api/me', { viewAlerts: false })).status, 200);
  now = Date.UTC(2026, 10, 25, 0, 5);
  assert.equal(await app.runtime.services.viewAlerts.sendDigests(), 0);
  assert.equal((await maker.client.patch('/api/me', { viewAlerts: true })).status, 200);
  assert.equal(await app.runtime.services.viewAlerts.sendDigests(), 0, 'those views were marked told');
  const audit = await app.runtime.database.db.selectFrom('audit_log').select('details').where('action', '=', 'user.view_alerts_changed').execute();
  assert.equal(audit.length, 4);
});

test("a link's views are mailed one by one up to 20 an hour; the rest wait for the daily digest, so invented addresses cannot flood the maker", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail, http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'numbers', 'Q3 numbers.txt', { requireEmail: '1' });
  for (let i = 0; i < 25; i += 1) await opens(app.url, linkId, `invented${i}@example.org`);
  for (let i = 0; i < 20; i += 1) await smtp.waitFor(accountEmail, (mail) => mail.subject.startsWith(`invented${i}@`));
  await app.runtime.mailer.drain();
  await sleep(300);
  assert.equal(smtp.received.filter((mail) => mail.to.includes(accountEmail)).length, 20, 'the first 20, and no more');
  const waiting = await app.runtime.database.db
    .selectFrom('view_alerts')
    .select('visitor')
    .where('account_id', '=', accountId)
    .where('in_digest', '=', 1)
    .execute();
  assert.deepEqual(
    waiting.map((row) => row.visitor),
    [20, 21, 22, 23, 24].map((i) => `invented${i}@example.org`),
    'nothing is lost: the digest tells the rest',
  );
});

test('daily digest: views wait for the next UTC day, one digest per recipient, sent once', async (t) => {
  const smtp = await startSmtp(t);
  let now = Date.UTC(2026, 10, 24, 9, 0);
  const app = await startApp(t, { clock: () => now, env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail, http } = await app.createAccount('professional');
  const member = await signedInPerson(app, accountId, 'member');
  assert.equal((await member.client.put('/api/view-alerts', { mode: 'daily' })).status, 403, 'an account setting: admins');
  assert.deepEqual((await http.put('/api/view-alerts', { mode: 'daily' })).body, { mode: 'daily' });
  assert.deepEqual((await member.client.get('/api/view-alerts')).body, { mode: 'daily' });
  assert.equal((await http.put('/api/view-alerts', { mode: 'hourly' })).status, 400);

  const deck = await createLink(http, 'd', 'Deck.pdf.txt', { requireEmail: '1' });
  const terms = await createLink(http, 't', 'Terms.txt', { requireEmail: '1' });
  await opens(app.url, deck, 'ana@example.org');
  now += HOUR;
  await opens(app.url, terms, 'bo@example.org');
  const alerts = app.runtime.services.viewAlerts;
  assert.equal(await alerts.sendDigests(), 0, 'the day is not over');
  await sleep(300);
  assert.equal(smtp.received.length, 0, 'no mail per view');

  now = Date.UTC(2026, 10, 25, 0, 5);
  assert.equal(await alerts.sendDigests(), 1);
  assert.equal(await alerts.sendDigests(), 0, 'sent once');
  const digest = await smtp.waitFor(accountEmail);
  assert.equal(digest.subject, '2 views of your documents on 2026-11-24');
  assert.match(digest.text, /ana@example\.org \(not verified\) opened “Deck\.pdf\.txt”/);
  assert.match(digest.text, /bo@example\.org \(not verified\) opened “Terms\.txt”/);
  assert.ok(digest.text.includes(`${app.runtime.config.publicUrl}/app/analytics`), 'the digest opens the analytics on the dashboard');
});

test('daily digest: one mail per recipient and day, counting every view of it however many there are', async (t) => {
  const smtp = await startSmtp(t);
  const day = Date.UTC(2026, 10, 24);
  let now = day + 9 * HOUR;
  const app = await startApp(t, { clock: () => now, env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail, http } = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const deck = await createLink(http, 'd', 'Deck.txt');
  // A busy day, seeded as the view path records them: more views than one read of the queue takes,
  // this account's between another's, and two more on the next day.
  const views = [
    ...Array.from({ length: 3000 }, (_, n) => ({ accountId: other.accountId, recipient: other.email, viewedAt: day + HOUR + n })),
    ...Array.from({ length: 5200 }, (_, n) => ({ accountId, recipient: accountEmail, viewedAt: day + 2 * HOUR + n })),
    ...Array.from({ length: 2 }, (_, n) => ({ accountId, recipient: accountEmail, viewedAt: day + 25 * HOUR + n })),
  ];
  await app.runtime.database.db.transaction().execute(async (trx) => {
    for (let at = 0; at < views.length; at += 500) {
      await trx
        .insertInto('view_alerts')
        .values(
          views.slice(at, at + 500).map((view, n) => ({
            account_id: view.accountId,
            link_id: deck,
            visitor: `visitor-${at + n}@example.org`,
            address_unverified: 1,
            recipient: view.recipient,
            document_name: 'Deck.txt',
            viewed_at: view.viewedAt,
            in_digest: 1,
          })),
        )
        .execute();
    }
  });

  now = day + 48 * HOUR + 5 * 60_000;
  assert.equal(await app.runtime.services.viewAlerts.sendDigests(), 3);
  await waitFor(
    async () => smtp.received.length,
    (count) => count >= 3,
  );
  const subjects = smtp.received.map((mail) => `${mail.to.join()}: ${mail.subject}`).sort();
  assert.deepEqual(subjects, [
    `${accountEmail}: 2 views of your documents on 2026-11-25`,
    `${accountEmail}: 5200 views of your documents on 2026-11-24`,
    `${other.email}: 3000 views of your documents on 2026-11-24`,
  ]);
  const busy = smtp.received.find((mail) => mail.subject.startsWith('5200'))!;
  assert.match(busy.text, /visitor-3000@example\.org/, 'the first views listed');
  assert.equal(await app.runtime.services.viewAlerts.sendDigests(), 0, 'sent once');
});

test("a maker who leaves before the daily digest goes out does not get it: the account's address gets their views", async (t) => {
  const smtp = await startSmtp(t);
  let now = Date.UTC(2026, 10, 24, 9, 0);
  const app = await startApp(t, { clock: () => now, env: { SMTP_URL: smtp.url } });
  const { accountId, email: accountEmail, http } = await app.createAccount('professional');
  assert.deepEqual((await http.put('/api/view-alerts', { mode: 'daily' })).body, { mode: 'daily' });
  const owner = await signedInPerson(app, accountId, 'owner');
  const maker = await signedInPerson(app, accountId, 'member');
  const made = await maker.client.post('/api/upload', uploadForm('numbers', 'Q3.txt', { requireEmail: '1' }));
  assert.equal(made.status, 200, JSON.stringify(made.body));
  await opens(app.url, made.body.id, 'ana@example.org');
  assert.equal((await owner.client.delete(`/api/members/${maker.userId}`)).status, 204);

  now = Date.UTC(2026, 10, 25, 0, 5);
  assert.equal(await app.runtime.services.viewAlerts.sendDigests(), 1);
  const digest = await smtp.waitFor(accountEmail);
  assert.match(digest.text, /ana@example\.org \(not verified\) opened “Q3\.txt”/);
  await app.runtime.mailer.drain();
  assert.ok(!smtp.received.some((mail) => mail.to.includes(maker.email)), 'the one who left is told nothing');
});
