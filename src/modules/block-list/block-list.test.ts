import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink } from '../../../test/helpers/files.js';
import { makePdf } from '../../../test/helpers/pdf.js';
import { signedInPerson } from '../../../test/helpers/people.js';
import { otpCodeIn, startSmtp } from '../../../test/helpers/smtp.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

/** A visitor who gave `email` at the link's e-mail gate; answers the page they land on. */
async function giveEmail(url: string, linkId: string, email: string) {
  const visitor = new VisitorClient(url);
  const gate = await visitor.get(`/v/${linkId}`);
  assert.equal(gate.status, 200);
  assert.match(gate.text, /asks for your e-mail address/);
  const given = await visitor.post(`/v/${linkId}/email`, { email });
  assert.equal(given.status, 303, given.text);
  return { visitor, page: await visitor.get(`/v/${linkId}`) };
}

test('requireEmail: the address is asked, not verified, kept with the view; invalid ones are asked again', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(1), 'Deck.pdf', { requireEmail: '1' });
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.requireEmail, true);

  const stranger = new VisitorClient(app.url);
  assert.equal((await stranger.get(`/v/${id}/pages.json`)).status, 403, 'no document before the address');
  const invalid = await stranger.post(`/v/${id}/email`, { email: 'not an address' });
  assert.equal(invalid.status, 400);
  assert.match(invalid.text, /valid e-mail address/);

  const { visitor, page } = await giveEmail(app.url, id, ' Ana@Example.ORG ');
  assert.equal(page.status, 200);
  assert.match(page.text, /id="paged-viewer"|class="card document/);
  assert.equal((await visitor.get(`/v/${id}/pages.json`)).status, 200);
  const analytics = (await http.get(`/api/links/${id}/analytics`)).body;
  assert.equal(analytics.views, 1);
  assert.deepEqual(
    analytics.visitors.map((v: any) => [v.visitor, v.emailVerified]),
    [['ana@example.org (not verified)', false]],
  );
});

test("block lists: the link's and the account's refuse addresses and domains at every gate that takes one, neutrally, and count it", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http, accountId } = await app.createAccount('professional');
  const pdf = await makePdf(1);
  const asked = await createLink(http, pdf, 'Asked.pdf', { requireEmail: '1', blockedDomains: 'rival.example', blockedEmails: 'Eve@Example.org' });
  const coded = await createLink(http, pdf, 'Coded.pdf', { requiresOtp: '1', allowedDomains: 'example.org,rival.example' });
  const approved = await createLink(http, pdf, 'Approved.pdf', { requiresApproval: '1' });

  for (const email of ['eve@example.org', 'eve+view@example.org', 'mallory@rival.example', 'ceo@eu.rival.example']) {
    const { page } = await giveEmail(app.url, asked, email);
    assert.equal(page.status, 403, email);
    assert.match(page.text, /Access denied/);
    assert.doesNotMatch(page.text, /block|rival/i, 'the page does not say why');
  }
  assert.equal((await giveEmail(app.url, asked, 'ana@example.org')).page.status, 200);
  assert.equal((await http.get(`/api/links/${asked}/analytics`)).body.blockedAttempts, 4);

  // The account's list: an admin sets it; a member reads it but may not change it.
  const member = await signedInPerson(app, accountId, 'member');
  assert.equal((await member.client.put('/api/block-list', { emails: [], domains: ['x.example'] })).status, 403);
  const saved = await http.put('/api/block-list', { emails: ['Bob@Example.org', 'bob@example.org'], domains: ['@Rival.example'] });
  assert.deepEqual(saved.body, { emails: ['bob@example.org'], domains: ['rival.example'] });
  assert.deepEqual((await member.client.get('/api/block-list')).body, saved.body);
  assert.equal((await http.put('/api/block-list', { emails: ['nope'], domains: [] })).status, 400);

  // OTP: no code goes to a blocked address.
  const otpVisitor = new VisitorClient(app.url);
  await otpVisitor.get(`/v/${coded}`);
  assert.equal((await otpVisitor.post(`/v/${coded}/otp`, { email: 'bob@example.org' })).status, 303);
  assert.match((await otpVisitor.get(`/v/${coded}`)).text, /Access denied/);
  const retried = await otpVisitor.post(`/v/${coded}/otp`, { email: 'ana@example.org' });
  assert.equal(retried.status, 403, 'the blocked visit takes no other address');
  assert.match(retried.text, /Access denied/);
  const allowed = new VisitorClient(app.url);
  await allowed.get(`/v/${coded}`);
  await allowed.post(`/v/${coded}/otp`, { email: 'ana@example.org' });
  const mail = await smtp.waitFor('ana@example.org');
  assert.equal((await allowed.post(`/v/${coded}/otp/verify`, { code: otpCodeIn(mail) })).status, 303);
  assert.equal((await allowed.get(`/v/${coded}`)).status, 200, 'the view opens');
  assert.equal((await allowed.get(`/v/${coded}/pages.json`)).status, 200);
  assert.ok(!smtp.received.some((message) => message.to.includes('bob@example.org')), 'no code was sent to the blocked address');
  const tagged = new VisitorClient(app.url);
  await tagged.get(`/v/${coded}`);
  await tagged.post(`/v/${coded}/otp`, { email: 'bob+deal@example.org' });
  assert.match((await tagged.get(`/v/${coded}`)).text, /Access denied/, "a +tag reaches the same mailbox: it is the blocked person's address");
  assert.ok(!smtp.received.some((message) => message.to.includes('bob+deal@example.org')), 'no code was sent to it');

  // Approval: no request is opened for a blocked address.
  const approvalVisitor = new VisitorClient(app.url);
  await approvalVisitor.get(`/v/${approved}`);
  await approvalVisitor.post(`/v/${approved}/access`, { email: 'mallory@rival.example' });
  assert.match((await approvalVisitor.get(`/v/${approved}`)).text, /Access denied/);
  assert.deepEqual((await http.get(`/api/links/${approved}/requests`)).body.requests, []);

  // Blocking an address that already holds a session takes the document away at once.
  assert.equal((await http.put('/api/block-list', { emails: ['ana@example.org'], domains: [] })).status, 200);
  assert.equal((await allowed.get(`/v/${coded}/pages.json`)).status, 403);
  assert.match((await allowed.get(`/v/${coded}`)).text, /Access denied/);
  const audit = (await http.get('/api/audit-log?limit=10')).body.entries.filter((entry: any) => entry.action === 'block_list.updated');
  assert.equal(audit.length, 2);
});
