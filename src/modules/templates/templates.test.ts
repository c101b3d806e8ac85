import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp, type TestApp } from '../../../test/helpers/app.js';
import { listFiles, uploadFile } from '../../../test/helpers/files.js';

async function linkRow(app: TestApp, id: string) {
  return app.runtime.database.db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

test('create, list, read, change, delete; only the stated settings are listed', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');

  const created = await http.post('/api/templates', { name: 'Watermarked', hasWatermark: true });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.deepEqual(Object.keys(created.body).sort(), ['id', 'ok']);
  assert.equal(created.body.ok, true);
  assert.ok(Number.isInteger(created.body.id));
  const id = created.body.id;

  const full = {
    name: 'Partners',
    expiration: '24h',
    hasWatermark: false,
    requiresApproval: true,
    requiresOtp: true,
    allowedEmails: ['Ann@Example.com', 'ann@example.com'],
    allowedDomains: ['@Partner.io'],
    bookingUrl: 'https://cal.example.com/me',
    previewPages: 3,
    viewSessionTtlSeconds: 600,
    maxViews: 5,
  };
  const second = (await http.post('/api/templates', full)).body.id;

  assert.deepEqual((await http.get('/api/templates')).body, {
    templates: [
      { id, name: 'Watermarked', hasWatermark: true },
      { ...full, id: second, allowedEmails: ['ann@example.com'], allowedDomains: ['partner.io'] },
    ],
  });
  assert.deepEqual((await http.get(`/api/templates/${id}`)).body, { template: { id, name: 'Watermarked', hasWatermark: true } });

  for (const method of ['PATCH', 'PUT', 'POST']) {
    const changed = await http.request(method, `/api/templates/${id}`, { name: `Renamed ${method}` });
    assert.deepEqual([changed.status, changed.body], [200, { ok: true }], method);
  }
  await http.patch(`/api/templates/${id}`, { maxViews: 10, bookingUrl: '' });
  assert.deepEqual(
    (await http.get(`/api/templates/${id}`)).body.template,
    {
      id,
      name: 'Renamed POST',
      hasWatermark: true,
      maxViews: 10,
      bookingUrl: null,
    },
    'stated fields replace, the others stay',
  );

  assert.deepEqual((await http.delete(`/api/templates/${id}`)).body, { ok: true });
  assert.equal((await http.get(`/api/templates/${id}`)).status, 404);
  assert.equal((await http.delete(`/api/templates/${id}`)).status, 404);
  assert.equal((await http.patch(`/api/templates/${id}`, { name: 'x' })).status, 404);
  assert.deepEqual(
    (await http.get('/api/templates')).body.templates.map((tpl: any) => tpl.id),
    [second],
  );
});

test('400 for each malformed field, naming it; unknown fields (a password) are not kept', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{}, /name/],
    [{ name: '' }, /name/],
    [{ name: 'x'.repeat(201) }, /name/],
    [{ name: 42 }, /name/],
    [{ name: 'x', hasWatermark: 1 }, /hasWatermark/],
    [{ name: 'x', hasWatermark: 'true' }, /hasWatermark/],
    [{ name: 'x', expiration: '2d' }, /expiration/],
    [{ name: 'x', viewSessionTtlSeconds: 59 }, /viewSessionTtlSeconds/],
    [{ name: 'x', viewSessionTtlSeconds: 86_401 }, /viewSessionTtlSeconds/],
    [{ name: 'x', maxViews: -1 }, /maxViews/],
    [{ name: 'x', maxViews: 1.5 }, /maxViews/],
    [{ name: 'x', previewPages: 0 }, /previewPages/],
    [{ name: 'x', allowedEmails: ['nope'] }, /allowedEmails/],
    [{ name: 'x', allowedEmails: 'a@b.com' }, /allowedEmails/],
    [{ name: 'x', allowedDomains: ['not a domain'] }, /allowedDomains/],
    [{ name: 'x', bookingUrl: 'javascript:alert(1)' }, /bookingUrl/],
    [{ name: 'x', downloadPrice: 49 }, /downloadPrice/],
    [{ name: 'x', downloadCurrency: 'USD' }, /downloadCurrency/],
    [{ name: 'x', requirePaymentToDownload: true }, /downloadPrice/],
  ];
  for (const [body, message] of cases) {
    const response = await http.post('/api/templates', body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.match(response.body.error, message, JSON.stringify(body));
  }
  const id = (await http.post('/api/templates', { name: 'x', password: 'secret', nonsense: 1 })).body.id;
  const stored = await app.runtime.database.db.selectFrom('link_templates').select('settings').where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal(stored.settings, '{}');
  assert.equal((await http.patch(`/api/templates/${id}`, { maxViews: 'many' })).status, 400);
  assert.equal((await http.get('/api/templates/abc')).status, 400);
});

test('422 for rules across fields, on creation and on change; paid settings need payments, as for upload', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const otpWithoutLists = await http.post('/api/templates', { name: 'x', requiresOtp: true });
  assert.equal(otpWithoutLists.status, 422);
  assert.match(otpWithoutLists.body.error, /requiresOtp/);
  const otpCleared = await http.post('/api/templates', { name: 'x', requiresOtp: true, allowedEmails: [] });
  assert.equal(otpCleared.status, 422);

  const paid = await http.post('/api/templates', { name: 'x', requirePaymentToDownload: true, downloadPrice: 1200, downloadCurrency: 'eur' });
  const paidUpload = await uploadFile(http, 'x', 'x.txt', { requirePaymentToDownload: '1', downloadPrice: '1200', downloadCurrency: 'eur' });
  assert.equal(paid.status, 422);
  assert.deepEqual(paid.body, paidUpload.body, 'the same rule, the same answer');

  const id = (await http.post('/api/templates', { name: 'x', requiresOtp: true, allowedDomains: ['partner.io'] })).body.id;
  const emptied = await http.patch(`/api/templates/${id}`, { allowedDomains: [] });
  assert.equal(emptied.status, 422, 'a change is checked against what the template keeps');
  assert.equal((await http.patch(`/api/templates/${id}`, { requirePaymentToDownload: true, downloadPrice: 500 })).status, 422);
  assert.deepEqual((await http.get(`/api/templates/${id}`)).body.template.allowedDomains, ['partner.io'], 'a refused change changes nothing');
  assert.equal((await http.patch(`/api/templates/${id}`, { requiresOtp: false, allowedDomains: [] })).status, 200);
});

test('upload with templateId: the template applies, fields sent with the upload win', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const template = (
    await http.post('/api/templates', {
      name: 'Partners',
      expiration: '1h',
      hasWatermark: true,
      requiresOtp: true,
      allowedDomains: ['partner.io'],
      previewPages: 2,
      maxViews: 7,
      bookingUrl: 'https://cal.example.com/me',
    })
  ).body.id;

  const plain = await uploadFile(http, 'x', 'x.txt', { templateId: String(template) });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  const applied = await linkRow(app, plain.body.id);
  assert.equal(applied.has_watermark, 1);
  assert.equal(applied.requires_otp, 1);
  assert.deepEqual(JSON.parse(applied.allowed_domains), ['partner.io']);
  assert.equal(applied.preview_pages, 2);
  assert.equal(applied.max_views, 7);
  assert.equal(applied.booking_url, 'https://cal.example.com/me');
  assert.equal(applied.expires_at - applied.created_at, 3_600_000);
  assert.equal(applied.requires_approval, 0, 'unstated: the default');

  const overridden = await uploadFile(http, 'x', 'x.txt', {
    templateId: String(template),
    hasWatermark: '0',
    maxViews: '0',
    allowedEmails: 'ann@solo.com',
    addPassword: '1',
    password: 'pw',
  });
  assert.equal(overridden.status, 200, JSON.stringify(overridden.body));
  const row = await linkRow(app, overridden.body.id);
  assert.equal(row.has_watermark, 0, 'template says watermark on, upload says off → off');
  assert.equal(row.max_views, 0);
  assert.deepEqual(JSON.parse(row.allowed_emails), ['ann@solo.com']);
  assert.deepEqual(JSON.parse(row.allowed_domains), ['partner.io'], 'what the upload does not state still comes from the template');
  assert.ok(row.password_hash);
  assert.equal((await http.get(`/api/links/${overridden.body.id}`)).body.has_watermark, false);

  const cleared = await uploadFile(http, 'x', 'x.txt', { templateId: String(template), allowedDomains: '' });
  assert.equal(cleared.status, 422, 'the layered settings obey the same rules: OTP without any list');

  assert.equal((await uploadFile(http, 'x', 'x.txt', { templateId: '' })).status, 200, 'an empty templateId means none');
});

test('upload with an unknown, foreign or malformed templateId is refused and leaves nothing behind', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount('professional');
  const stranger = await app.createAccount('professional');
  const foreign = (await owner.http.post('/api/templates', { name: 'mine', hasWatermark: true })).body.id;

  for (const [templateId, status] of [
    [String(foreign), 404],
    ['999999', 404],
    ['abc', 400],
    ['1.5', 400],
    ['-1', 400],
    ['0', 400],
  ] as const) {
    const response = await uploadFile(stranger.http, 'x', 'x.txt', { templateId });
    assert.equal(response.status, status, templateId);
    assert.match(response.body.error, status === 404 ? /Template .* not found/ : /templateId/);
  }
  assert.equal((await stranger.http.get('/api/links')).body.pagination.total, 0, 'no link was made');
  assert.deepEqual(await listFiles(`${app.dataDir}/blobs`), [], 'no blob outlives a refused upload');
});

test('tenancy: another account gets 404 on every template route', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount('professional');
  const stranger = await app.createAccount('professional');
  const id = (await owner.http.post('/api/templates', { name: 'Private', hasWatermark: true })).body.id;
  const attempts: Array<[string, unknown?]> = [
    ['GET'],
    ['PATCH', { name: 'stolen' }],
    ['PUT', { name: 'stolen' }],
    ['POST', { name: 'stolen' }],
    ['DELETE'],
  ];
  for (const [method, body] of attempts) {
    const response = await stranger.http.request(method, `/api/templates/${id}`, body);
    assert.equal(response.status, 404, method);
    assert.match(response.body.error, /Template .* not found/);
  }
  assert.deepEqual((await stranger.http.get('/api/templates')).body, { templates: [] });
  assert.deepEqual((await owner.http.get(`/api/templates/${id}`)).body.template, { id, name: 'Private', hasWatermark: true });
  assert.equal((await app.http().get('/api/templates')).status, 401);
  assert.equal((await (await app.createAccount('free')).http.get('/api/templates')).status, 403);
});
