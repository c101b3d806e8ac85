import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { createSessionClient, signedInPerson } from '../helpers/people.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

/** Every outbox row to `to`, once none of them is pending any more. */
async function settledMailTo(app: TestApp, to: string) {
  const rowsTo = () => app.runtime.database.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('id').execute();
  return waitFor(rowsTo, (rows) => rows.length > 0 && rows.every((row) => row.status !== 'pending'));
}

/** A word each message's subject must carry in each language. */
const SUBJECT_WORDS = {
  en: { otp: /your code/, shared: /shared .* with you/, requested: /is asking to view/, approved: /You can now view/, denied: /was declined/ },
  es: { otp: /tu código/, shared: /ha compartido .* contigo/, requested: /solicita acceso/, approved: /Ya puedes ver/, denied: /denegado/ },
  fr: { otp: /votre code/, shared: /a partagé .* avec vous/, requested: /demande l’accès/, approved: /pouvez maintenant/, denied: /refusée/ },
  pt: { otp: /seu código/, shared: /compartilhou .* com você/, requested: /pediu acesso/, approved: /já pode acessar/, denied: /recusada/ },
  it: {
    otp: /il tuo codice/,
    shared: /ha condiviso .* con te/,
    requested: /chiede di accedere/,
    approved: /Ora puoi visualizzare/,
    denied: /rifiutata/,
  },
} as const;

test('every e-mail in every locale reaches a real SMTP server, in the brand and language of the account', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'linkvault <noreply@linkvault.example>' } });
  const { http, email: ownerEmail } = await app.createAccount('business');

  for (const [locale, words] of Object.entries(SUBJECT_WORDS)) {
    await http.post('/api/branding', { email_locale: locale, company_name: `Acme ${locale}`, primary_color: '#aa3300' });
    const tag = `${locale}-${Date.now()}`;
    const link = await createLink(http, 'doc', `Plan ${tag}.txt`, { requiresOtp: '1', allowedDomains: 'example.org', requiresApproval: '1' });
    const forTag = (mail: { subject: string }) => mail.subject.includes(tag);

    await http.post(`/api/links/${link}/share`, { emails: [`reader-${locale}@example.net`], message: 'Ciao!' });
    const shared = await smtp.waitFor(`reader-${locale}@example.net`, forTag);
    assert.match(shared.subject, words.shared);
    assert.ok(shared.text.includes(`/v/${link}`));
    assert.ok(shared.html && shared.html.includes('#aa3300'), 'branded HTML part');
    assert.ok(shared.html && shared.html.includes(`Acme ${locale}`));

    const visitor = new VisitorClient(app.url);
    await visitor.post(`/v/${link}/otp`, { email: `guest-${locale}@example.org` });
    const otp = await smtp.waitFor(`guest-${locale}@example.org`, forTag);
    assert.match(otp.subject, words.otp);
    assert.equal((await visitor.post(`/v/${link}/otp/verify`, { code: otpCodeIn(otp) })).status, 303);

    await visitor.post(`/v/${link}/access`, { email: `guest-${locale}@example.org` });
    const requested = await smtp.waitFor(ownerEmail, (mail) => forTag(mail) && words.requested.test(mail.subject));
    assert.ok(requested.text.includes(`/api/links/${link}/requests/`));
    assert.ok(
      requested.html && requested.html.includes(`href="${app.runtime.config.publicUrl}/app/requests"`),
      'a button to the requests on the dashboard',
    );

    const [request] = (await http.get(`/api/links/${link}/requests`)).body.requests;
    await http.patch(`/api/links/${link}/requests/${request.id}`, { status: 'approved' });
    const approved = await smtp.waitFor(`guest-${locale}@example.org`, (mail) => forTag(mail) && words.approved.test(mail.subject));
    assert.ok(approved.text.includes(`/v/${link}`));

    const refused = new VisitorClient(app.url);
    await refused.post(`/v/${link}/otp`, { email: `other-${locale}@example.org` });
    const code = otpCodeIn(await smtp.waitFor(`other-${locale}@example.org`, forTag));
    await refused.post(`/v/${link}/otp/verify`, { code });
    await refused.post(`/v/${link}/access`, { email: `other-${locale}@example.org` });
    const second = (await http.get(`/api/links/${link}/requests`)).body.requests.find((r: any) => r.email === `other-${locale}@example.org`);
    await http.patch(`/api/links/${link}/requests/${second.id}`, { status: 'denied' });
    const denied = await smtp.waitFor(`other-${locale}@example.org`, (mail) => forTag(mail) && words.denied.test(mail.subject));
    assert.equal(denied.from, 'noreply@linkvault.example');
  }
});

test("an account's own SMTP server is used instead of the system one", async (t) => {
  const system = await startSmtp(t);
  const own = await startSmtp(t);
  // The test server listens on loopback, which only ALLOW_PRIVATE_SMTP lets an account use.
  const app = await startApp(t, { env: { SMTP_URL: system.url, ALLOW_PRIVATE_SMTP: '1' } });
  const { http } = await app.createAccount('business');
  const port = Number(new URL(own.url).port);
  const configured = await http.post('/api/branding', {
    smtp_host: '127.0.0.1',
    smtp_port: port,
    smtp_encryption: 'none',
    from_email: 'deals@acme.example',
    from_name: 'Acme Deals',
  });
  assert.equal(configured.status, 200);
  const link = await createLink(http, 'x', 'Terms.pdf');
  await http.post(`/api/links/${link}/share`, { emails: ['client@example.com'] });
  const mail = await own.waitFor('client@example.com');
  assert.equal(mail.from, 'deals@acme.example');
  assert.equal(system.received.length, 0, 'nothing went through the system server');
});

test('a sender name with quotes, a trailing backslash or a line break reaches the server as typed, on one line', async (t) => {
  const own = await startSmtp(t);
  const app = await startApp(t, { env: { ALLOW_PRIVATE_SMTP: '1' } });
  const { http } = await app.createAccount('business');
  const link = await createLink(http, 'x', 'Terms.pdf');
  const names: Array<[typed: string, shown: string]> = [
    ['Acme Deals \\', 'Acme Deals \\'],
    ['"Acme" <boss@evil.example> \\', '"Acme" <boss@evil.example> \\'],
    ['Acme\r\nBcc: victim@evil.example', 'Acme Bcc: victim@evil.example'],
  ];
  for (const [index, [typed, shown]] of names.entries()) {
    const configured = await http.post('/api/branding', {
      smtp_host: '127.0.0.1',
      smtp_port: Number(new URL(own.url).port),
      smtp_encryption: 'none',
      from_email: 'deals@acme.example',
      from_name: typed,
    });
    assert.equal(configured.status, 200);
    const to = `client-${index}@example.com`;
    await http.post(`/api/links/${link}/share`, { emails: [to] });
    const mail = await own.waitFor(to);
    assert.equal(mail.from, 'deals@acme.example', typed);
    assert.equal(mail.fromName, shown, typed);
    assert.deepEqual(mail.to, [to], 'no other recipient');
  }
});

test("without ALLOW_PRIVATE_SMTP an account's loopback server gets nothing: the mail fails, and does not go through SMTP_URL either", async (t) => {
  const system = await startSmtp(t);
  const own = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: system.url } });
  const { http, accountId } = await app.createAccount('business');
  const port = Number(new URL(own.url).port);
  const refused = await http.post('/api/branding', {
    smtp_host: '127.0.0.1',
    smtp_port: port,
    smtp_encryption: 'none',
    smtp_password: 'hunter2-secret',
  });
  assert.equal(refused.status, 422);
  // As a row saved before the policy existed would be: the check when connecting refuses it too.
  await http.post('/api/branding', { smtp_host: 'smtp.acme.example', smtp_port: port, smtp_encryption: 'none', smtp_password: 'hunter2-secret' });
  await app.runtime.database.db.updateTable('branding').set({ smtp_host: '2130706433' }).where('account_id', '=', accountId).execute();
  const link = await createLink(http, 'x', 'Terms.pdf');
  await http.post(`/api/links/${link}/share`, { emails: ['client@example.com'] });
  const deadline = Date.now() + 10_000;
  let mail;
  do {
    await new Promise((resolve) => setTimeout(resolve, 50));
    mail = await app.runtime.database.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'client@example.com').executeTakeFirst();
  } while (mail?.status === 'pending' && Date.now() < deadline);
  assert.equal(mail?.status, 'failed', 'failed at once, not retried');
  assert.equal(mail?.attempts, 1);
  assert.match(mail?.last_error ?? '', /127\.0\.0\.1 is not a public address/);
  assert.equal(own.received.length + system.received.length, 0, 'sent nowhere');
  assert.deepEqual([mail?.text_body, mail?.html_body], ['', null], 'a mail failed for good keeps no message');
});

test('a sent mail keeps who, what and when in the outbox, never its message: no sign-in link or one-time code stays in the database', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http, accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'admin');

  assert.equal((await createSessionClient(app.url).post('/api/auth/magic-link', { email: person.email })).status, 202);
  const magicLink = await smtp.waitFor(person.email, (mail) => mail.text.includes('/sign-in/link'));
  const token = /token=([0-9A-Za-z]{43})/.exec(magicLink.text)![1]!;
  const link = await createLink(http, 'doc', 'Plan.txt', { requiresOtp: '1', allowedDomains: 'example.org' });
  const visitor = new VisitorClient(app.url);
  await visitor.post(`/v/${link}/otp`, { email: 'guest@example.org' });
  const code = otpCodeIn(await smtp.waitFor('guest@example.org'));

  const [signInRow] = await settledMailTo(app, person.email);
  const [codeRow] = await settledMailTo(app, 'guest@example.org');
  for (const row of [signInRow!, codeRow!]) {
    assert.equal(row.status, 'sent');
    assert.deepEqual([row.text_body, row.html_body, row.secret_subject], ['', null, null], 'the message is gone');
    assert.ok(row.sent_at! >= row.created_at);
  }
  assert.deepEqual([signInRow!.kind, signInRow!.subject], ['magicLink', magicLink.subject]);
  assert.equal(codeRow!.kind, 'otpCode');
  assert.match(codeRow!.subject, /^•+ is your code to view “Plan\.txt”$/, 'the code is masked in the subject kept');
  const outbox = JSON.stringify(await app.runtime.database.db.selectFrom('mail_outbox').selectAll().execute());
  assert.ok(!outbox.includes(token), 'no sign-in token in the outbox');
  assert.ok(!outbox.includes(code), 'no one-time code in the outbox');

  // What the mails carried still works: the link signs in, the code opens the document.
  assert.equal((await createSessionClient(app.url).post('/api/auth/magic-link/confirm', { token })).status, 200);
  assert.equal((await visitor.post(`/v/${link}/otp/verify`, { code })).status, 303);
});
