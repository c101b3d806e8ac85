import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink, uploadFile } from '../../../test/helpers/files.js';
import type { HttpClient } from '../../../test/helpers/http.js';
import { makePdf } from '../../../test/helpers/pdf.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NEVER = '9999-12-31T23:59:59.999Z';

const ids = (response: { body: { links: Array<{ id: string }> } }) => response.body.links.map((link) => link.id);

async function tabs(http: HttpClient) {
  const [active, expired] = [await http.get('/api/links?limit=100'), await http.get('/api/links?tab=expired&limit=100')];
  return { active: ids(active), expired: ids(expired), totals: [active.body.pagination.total, expired.body.pagination.total] };
}

test('GET shows every setting; PATCH changes any subset and the name in one go, audited without the password', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(2), 'deck.pdf');

  const before = await http.get(`/api/links/${id}`);
  assert.equal(before.status, 200);
  assert.deepEqual(Object.keys(before.body).sort(), [
    'document',
    'has_watermark',
    'id',
    'mime',
    'name',
    'requires_password',
    'settings',
    'viewer_url',
    'views',
  ]);
  assert.equal(before.body.settings.isActive, true);
  assert.equal(before.body.settings.hasPassword, false);
  assert.equal(before.body.settings.maxViews, 0);
  assert.equal(Date.parse(before.body.settings.expiresAt) - Date.now() > 6 * DAY, true, 'the upload default of 7 days');

  const expiresAt = new Date(Date.now() + 30 * DAY);
  const changed = await http.patch(`/api/links/${id}`, {
    name: 'Q3 board deck.pdf',
    password: 'open sesame',
    hasWatermark: true,
    requiresOtp: true,
    allowedDomains: ['Acme.COM'],
    blockedDomains: ['rival.example'],
    bookingUrl: 'https://cal.example/ana',
    previewPages: 1,
    viewSessionTtlSeconds: 600,
    maxViews: 5,
    expiresAt: expiresAt.toISOString().replace('Z', '+00:00'),
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(changed.body.name, 'Q3 board deck.pdf');
  assert.equal(changed.body.requires_password, true);
  assert.equal(changed.body.has_watermark, true);
  assert.deepEqual(changed.body.settings, {
    isActive: true,
    expiresAt: expiresAt.toISOString(),
    hasPassword: true,
    hasWatermark: true,
    requiresApproval: false,
    requiresOtp: true,
    allowedEmails: [],
    allowedDomains: ['acme.com'],
    requireEmail: false,
    allowDownload: false,
    notifyOnView: true,
    previewTitle: null,
    previewDescription: null,
    hasPreviewImage: false,
    agreementId: null,
    blockedEmails: [],
    blockedDomains: ['rival.example'],
    bookingUrl: 'https://cal.example/ana',
    previewPages: 1,
    viewSessionTtlSeconds: 600,
    maxViews: 5,
    requirePaymentToDownload: false,
    downloadPrice: null,
    downloadCurrency: 'usd',
  });
  // The pages may have become ready in between: everything else is as the change answered.
  const withoutDocument = ({ document: _document, ...rest }: Record<string, unknown>) => rest;
  assert.deepEqual(withoutDocument((await http.get(`/api/links/${id}`)).body), withoutDocument(changed.body));

  const audit = (await http.get('/api/audit-log?limit=5')).body.entries.find((entry: any) => entry.action === 'link.updated');
  assert.ok(audit, 'the change is in the audit log');
  assert.equal(audit.details.password_set, true);
  assert.ok(!JSON.stringify(audit).includes('open sesame'), 'the password is not in the audit log');
  assert.ok(audit.details.fields.includes('expiresAt') && audit.details.fields.includes('name'));

  // The new password is the gate's; switching the link off is seen by visitors at once.
  const visitor = new VisitorClient(app.url);
  await http.patch(`/api/links/${id}`, { requiresOtp: false, password: 'new words' });
  assert.match((await visitor.get(`/v/${id}`)).text, /protected by a password/);
  assert.equal((await visitor.post(`/v/${id}/password`, { password: 'open sesame' })).status, 422);
  assert.ok((await visitor.post(`/v/${id}/password`, { password: 'new words' })).status < 400);
  assert.equal((await http.patch(`/api/links/${id}`, { isActive: false, password: null })).body.settings.hasPassword, false);
  assert.equal((await new VisitorClient(app.url).get(`/v/${id}`)).status, 403);
});

test('a refused change changes nothing: unknown fields, bad values, rules between fields, blocked names, selling without payments', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'numbers', 'q3.txt');
  // A .txt is a paged document; without LibreOffice (the tests' default) it ends failed at once.
  await waitFor(
    async () => (await http.get(`/api/links/${id}`)).body.document.status,
    (status) => status !== 'processing',
  );
  const before = (await http.get(`/api/links/${id}`)).body;

  const refusals: Array<[Record<string, unknown>, number, RegExp]> = [
    [{ hasWatermak: true }, 400, /"hasWatermak" is not a link setting/],
    [{ expiration: '1h' }, 400, /"expiration" is not a link setting/],
    [{ toString: 'x' }, 400, /"toString" is not a link setting/],
    [{ maxViews: -1 }, 400, /maxViews/],
    [{ password: '' }, 400, /password/],
    [{ expiresAt: 'next tuesday' }, 400, /ISO 8601/],
    [{ expiresAt: '2027-01-01T00:00:00' }, 400, /with its offset/],
    [{ expiresAt: new Date(Date.now() - HOUR).toISOString() }, 422, /has passed/],
    [{ hasWatermark: true, requiresOtp: true }, 422, /requiresOtp needs at least one allowed e-mail or domain/],
    [{ allowedEmails: ['not an address'] }, 400, /invalid e-mail address/],
    [{ bookingUrl: 'javascript:alert(1)' }, 400, /http or https URL/],
    [{ name: 'q3.bat' }, 422, /\.bat are not accepted/],
    [{ name: 'q3.txt. . ' }, 200, /./],
    [{ requirePaymentToDownload: true }, 400, /downloadPrice/],
    [{ requirePaymentToDownload: true, downloadPrice: 500 }, 422, /payments|Stripe/i],
  ];
  for (const [body, status, message] of refusals) {
    const response = await http.patch(`/api/links/${id}`, body);
    assert.equal(response.status, status, `${JSON.stringify(body)} answered ${response.status} ${JSON.stringify(response.body)}`);
    if (status !== 200) assert.match(response.body.error, message, JSON.stringify(body));
  }
  // The one accepted change above is a rename to the same stored name: trailing dots and spaces go.
  assert.deepEqual((await http.get(`/api/links/${id}`)).body, before);
  assert.equal((await http.patch('/api/links/nosuchlink000000000000', { maxViews: 1 })).status, 404);
  const other = await app.createAccount('professional');
  assert.equal((await other.http.patch(`/api/links/${id}`, { maxViews: 1 })).status, 404, "another account's link");
});

test('expiresAt: never, any future time, and reviving an expired link while its file is kept; the tabs and totals follow', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now, env: { EXPIRED_RETENTION_DAYS: '30' } });
  const { http } = await app.createAccount('professional');
  const forever = await createLink(http, 'kept', 'forever.txt', { expiresAt: 'never' });
  now += 1;
  const shortLived = await createLink(http, 'soon', 'soon.txt', { expiration: '1h' });
  assert.equal((await http.get(`/api/links/${forever}`)).body.settings.expiresAt, null);
  const listed = (await http.get('/api/links')).body.links.find((link: any) => link.id === forever);
  assert.equal(listed.expires_at, NEVER, 'the list keeps its date-time field: the last one ISO 8601 writes');

  now += 2 * HOUR;
  assert.deepEqual(await tabs(http), { active: [forever], expired: [shortLived], totals: [1, 1] });
  assert.equal((await http.get(`/api/links/${shortLived}`)).status, 410);
  assert.equal((await http.patch(`/api/links/${shortLived}`, { maxViews: 3 })).status, 410, 'an expired link takes only a new expiry');

  const revived = await http.patch(`/api/links/${shortLived}`, { expiresAt: new Date(now + DAY).toISOString(), maxViews: 3 });
  assert.equal(revived.status, 200, JSON.stringify(revived.body));
  assert.equal(revived.body.settings.maxViews, 3);
  assert.deepEqual(await tabs(http), { active: [shortLived, forever], expired: [], totals: [2, 0] });
  assert.equal((await new VisitorClient(app.url).get(`/v/${shortLived}`)).status, 200, 'visitors reach it again');

  // Far past any of the spec's expirations: the never-expiring link is still active.
  now += 400 * DAY;
  assert.deepEqual(await tabs(http), { active: [forever], expired: [shortLived], totals: [1, 1] });
  assert.equal(await app.runtime.services.links.purgeExpiredBlobs(30 * DAY), 1);
  const purged = await http.patch(`/api/links/${shortLived}`, { expiresAt: null });
  assert.equal(purged.status, 422);
  assert.match(purged.body.error, /file of this expired link has been deleted/);
  assert.equal((await http.patch(`/api/links/${forever}`, { expiresAt: new Date(now + HOUR).toISOString() })).status, 200);
  now += 2 * HOUR;
  assert.deepEqual(await tabs(http), { active: [], expired: [shortLived, forever], totals: [0, 2] });
  assert.equal((await http.delete(`/api/links/${forever}`)).status, 200);
  assert.deepEqual((await tabs(http)).totals, [0, 1], 'deleting a filed link takes it off the expired count');
});

test('expiresAt at upload and in templates (with the e-mail and block settings); the stated time wins over expiration', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const at = new Date(Date.now() + 45 * DAY).toISOString();
  const uploaded = await createLink(http, 'a', 'a.txt', { expiresAt: at, expiration: '1h' });
  assert.equal((await http.get(`/api/links/${uploaded}`)).body.settings.expiresAt, at);
  const past = await uploadFile(http, 'b', 'b.txt', { expiresAt: new Date(Date.now() - DAY).toISOString() });
  assert.equal(past.status, 422);
  assert.equal((await uploadFile(http, 'c', 'c.txt', { expiresAt: 'soon' })).status, 400);
  // RFC 3339 as other languages write it: microseconds (Python), nanoseconds (Go), a lower-case t and z.
  const day = at.slice(0, 10);
  for (const [sent, stored] of [
    [`${day}T18:00:00.123456Z`, `${day}T18:00:00.123Z`],
    [`${day}T18:00:00.123456789+02:00`, `${day}T16:00:00.123Z`],
    [`${day}t18:00:00z`, `${day}T18:00:00.000Z`],
  ]) {
    const id = await createLink(http, 'd', 'd.txt', { expiresAt: sent! });
    assert.equal((await http.get(`/api/links/${id}`)).body.settings.expiresAt, stored, sent);
    assert.equal((await http.patch(`/api/links/${id}`, { expiresAt: sent })).body.settings.expiresAt, stored, sent);
  }

  const template = await http.post('/api/templates', {
    name: 'evergreen',
    expiresAt: null,
    hasWatermark: true,
    requireEmail: true,
    blockedEmails: ['Spy@Rival.example'],
  });
  assert.equal(template.status, 200, JSON.stringify(template.body));
  const templateId = String(template.body.id);
  assert.equal((await http.get(`/api/templates/${templateId}`)).body.template.expiresAt, null);
  const fromTemplate = await createLink(http, 'd', 'd.txt', { templateId });
  const settings = (await http.get(`/api/links/${fromTemplate}`)).body.settings;
  assert.equal(settings.expiresAt, null);
  assert.equal(settings.hasWatermark, true);
  assert.equal(settings.requireEmail, true);
  assert.deepEqual(settings.blockedEmails, ['spy@rival.example']);
});

test('a list setting holds at most 1000 entries whether it comes as JSON or as the comma-separated text of an upload form', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const addresses = (count: number) => Array.from({ length: count }, (_, n) => `person${n}@example.org`);
  const refused = await uploadFile(http, 'deck', 'deck.txt', { requiresOtp: '1', allowedEmails: addresses(1001).join(',') });
  assert.equal(refused.status, 400);
  assert.match(refused.body.error, /"allowedEmails" must have at most 1000 entries/);
  const id = (await uploadFile(http, 'deck', 'deck.txt', { requiresOtp: '1', allowedEmails: addresses(1000).join(',') })).body.id as string;
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.allowedEmails.length, 1000);
  assert.equal((await http.patch(`/api/links/${id}`, { allowedEmails: addresses(1001) })).status, 400);
});
