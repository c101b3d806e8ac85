import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink, limitsReached, uploadFile } from '../../../test/helpers/files.js';
import { makePdf } from '../../../test/helpers/pdf.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

const NDA = '# Mutual NDA\n\nThe **recipient** keeps this secret.\n\n<script>alert(1)</script> [click](javascript:alert(1))';

test('agreements: Markdown shown as safe HTML; a visitor accepts with name and e-mail before viewing; each acceptance kept with the hash of the text', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const created = await http.post('/api/agreements', { name: 'Mutual NDA', text: NDA });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const agreementId: number = created.body.id;
  assert.match(created.body.html, /<h1>Mutual NDA<\/h1>/);
  assert.match(created.body.html, /<strong>recipient<\/strong>/);
  assert.doesNotMatch(created.body.html, /<script>|href="javascript:/, 'raw HTML is text, script links are not links');

  const id = await createLink(http, await makePdf(1), 'Deal memo.pdf', { agreementId: String(agreementId) });
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.agreementId, agreementId);

  const visitor = new VisitorClient(app.url, { 'user-agent': 'Agreement test browser' });
  const gate = await visitor.get(`/v/${id}`);
  assert.equal(gate.status, 200);
  assert.match(gate.text, /class="agreement-text"[^>]*><h1>Mutual NDA<\/h1>/);
  assert.match(gate.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.equal((await visitor.get(`/v/${id}/pages.json`)).status, 403, 'nothing before accepting');

  const unticked = await visitor.post(`/v/${id}/agreement`, { name: 'Ana Lima', email: 'ana@example.org' });
  assert.equal(unticked.status, 400);
  assert.match(unticked.text, /Tick &quot;I agree&quot;|Tick "I agree"/);
  assert.equal((await visitor.post(`/v/${id}/agreement`, { name: ' ', email: 'ana@example.org', agree: 'yes' })).status, 400);
  assert.equal((await visitor.post(`/v/${id}/agreement`, { name: 'Ana Lima', email: 'Ana@Example.org', agree: 'yes' })).status, 303);
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);
  assert.equal((await visitor.get(`/v/${id}/pages.json`)).status, 200);

  const { acceptances } = (await http.get(`/api/links/${id}/agreements`)).body;
  assert.equal(acceptances.length, 1);
  assert.deepEqual(
    { ...acceptances[0], id: undefined, acceptedAt: undefined },
    {
      id: undefined,
      acceptedAt: undefined,
      agreementId,
      agreementName: 'Mutual NDA',
      name: 'Ana Lima',
      email: 'ana@example.org',
      ip: '127.0.0.1',
      userAgent: 'Agreement test browser',
      textSha256: createHash('sha256').update(NDA).digest('hex'),
    },
  );
  const csvText = (await http.get(`/api/links/${id}/agreements?format=csv`)).body as string;
  assert.match(csvText, /^accepted_at,name,email,ip,user_agent,agreement,text_sha256\r?\n/);
  assert.match(csvText, /Ana Lima,ana@example\.org,127\.0\.0\.1,Agreement test browser,Mutual NDA,[0-9a-f]{64}/);
  assert.equal(
    (await http.get('/api/analytics/global')).body.recentActivity.some((event: any) => event.type === 'agreement.accepted'),
    true,
  );

  // Changing the text later keeps what was accepted: the hash is of the old text.
  await http.patch(`/api/agreements/${agreementId}`, { text: 'New terms' });
  assert.equal((await http.get(`/api/links/${id}/agreements`)).body.acceptances[0].textSha256, acceptances[0].textSha256);
});

test("agreements: a client network accepts a link's agreement at most 10 times an hour, all together 300; the owner hears when the link's limit is reached", async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const agreementId = (await http.post('/api/agreements', { name: 'NDA', text: 'Keep it secret.' })).body.id as number;
  const id = await createLink(http, await makePdf(1), 'Deal.pdf', { agreementId: String(agreementId) });
  const accept = (address: string, n: number) =>
    new VisitorClient(app.url, { 'x-forwarded-for': address }).post(`/v/${id}/agreement`, {
      name: `Signer ${n}`,
      email: `s${n}@example.org`,
      agree: 'yes',
    });

  const fromOne: number[] = [];
  for (let n = 0; n < 11; n++) fromOne.push((await accept('198.51.100.7', n)).status);
  assert.deepEqual(fromOne, [...Array<number>(10).fill(303), 429]);

  for (let n = 10; n < 300; n++) assert.equal((await accept(`203.0.${Math.floor(n / 250)}.${(n % 250) + 1}`, n)).status, 303);
  const refused = await accept('192.0.2.1', 300);
  assert.equal(refused.status, 429);
  assert.match(refused.text, /accepted this agreement in the last hour/);
  assert.deepEqual(await limitsReached(http, id), ['agreement']);
  assert.equal((await http.get(`/api/links/${id}/agreements`)).body.acceptances.length, 300, 'no acceptance kept past the limits');
});

test('agreements: a PDF one is read in the gate; content and ownership are checked', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const pdfLink = await createLink(http, await makePdf(2), 'NDA.pdf');
  const textLink = await createLink(http, 'plain', 'notes.txt');
  assert.equal((await http.post('/api/agreements', { name: 'Both', text: 'x', pdfLinkId: pdfLink })).status, 422);
  assert.equal((await http.post('/api/agreements', { name: 'Neither' })).status, 422);
  assert.equal((await http.post('/api/agreements', { name: 'Not a PDF', pdfLinkId: textLink })).status, 422);
  assert.equal((await other.http.post('/api/agreements', { name: 'Theirs', pdfLinkId: pdfLink })).status, 404);
  const pdfAgreement = await http.post('/api/agreements', { name: 'Standard NDA', pdfLinkId: pdfLink });
  assert.equal(pdfAgreement.status, 200);

  const foreign = await other.http.post('/api/agreements', { name: 'Foreign', text: 'x' });
  assert.equal((await uploadFile(http, 'y', 'y.txt', { agreementId: String(foreign.body.id) })).status, 422);
  const id = await createLink(http, 'deck', 'deck.txt');
  assert.equal((await http.patch(`/api/links/${id}`, { agreementId: foreign.body.id })).status, 422);
  assert.equal((await http.patch(`/api/links/${id}`, { agreementId: pdfAgreement.body.id })).status, 200);

  const visitor = new VisitorClient(app.url);
  const gate = await visitor.get(`/v/${id}`);
  assert.match(gate.text, new RegExp(`href="/v/${id}/agreement.pdf"`));
  const pdf = await visitor.get(`/v/${id}/agreement.pdf`);
  assert.equal(pdf.status, 200);
  assert.equal(pdf.headers.get('content-type'), 'application/pdf');
  await visitor.post(`/v/${id}/agreement`, { name: 'Bo', email: 'bo@example.org', agree: 'yes' });
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);
  assert.equal((await visitor.get(`/v/${id}/agreement.pdf`)).status, 404, 'only while being asked');

  // Deleting the agreement's PDF leaves an agreement no one can read: its links let no one past.
  const later = await createLink(http, 'deck', 'deck.txt', { agreementId: String(pdfAgreement.body.id) });
  assert.equal((await http.delete(`/api/links/${pdfLink}`)).status, 200);
  const shut = await new VisitorClient(app.url).get(`/v/${later}`);
  assert.equal(shut.status, 403);
  assert.match(shut.text, /agreement whose text is no longer available/);
  assert.doesNotMatch(shut.text, /class="document"/);
  assert.equal((await visitor.get(`/v/${id}`)).status, 200, 'a visitor who accepted it before goes on');

  // Deleting the agreement: links stop asking for it.
  assert.equal((await http.delete(`/api/agreements/${pdfAgreement.body.id}`)).status, 200);
  assert.match((await new VisitorClient(app.url).get(`/v/${later}`)).text, /class="document"/);
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.agreementId, null);
});

test('agreements: the CSV lists every acceptance of a link, newest first; the JSON the latest 1000', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const agreementId: number = (await http.post('/api/agreements', { name: 'NDA', text: 'Keep it secret.' })).body.id;
  const id = await createLink(http, await makePdf(1), 'Data room index.pdf', { agreementId: String(agreementId) });
  // More than a page of reading, written as the gate writes them, a thousand rows at a time.
  const signed = 2500;
  for (let from = 0; from < signed; from += 1000) {
    await app.runtime.database.db
      .insertInto('agreement_acceptances')
      .values(
        Array.from({ length: Math.min(1000, signed - from) }, (_, k) => ({
          agreement_id: agreementId,
          link_id: id,
          name: `Signer ${from + k}`,
          email: `signer${from + k}@example.org`,
          ip: '192.0.2.1',
          user_agent: null,
          text_sha256: createHash('sha256').update('Keep it secret.').digest('hex'),
          accepted_at: Date.UTC(2026, 0, 1) + (from + k) * 1000,
        })),
      )
      .execute();
  }

  const csv = await http.get(`/api/links/${id}/agreements?format=csv`);
  assert.equal(csv.status, 200);
  const lines = (csv.body as string).trimEnd().split('\r\n');
  assert.equal(lines[0], 'accepted_at,name,email,ip,user_agent,agreement,text_sha256');
  assert.deepEqual(
    lines.slice(1).map((line) => line.split(',')[1]),
    Array.from({ length: signed }, (_, n) => `Signer ${signed - 1 - n}`),
  );
  assert.equal((await http.get(`/api/links/${id}/agreements`)).body.acceptances.length, 1000);
  assert.equal((await (await app.createAccount('professional')).http.get(`/api/links/${id}/agreements?format=csv`)).status, 404);
});

test("agreements: the name is kept as the signer's line reads, without reordering or control characters; joiners stay", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const agreementId = (await http.post('/api/agreements', { name: 'NDA', text: 'Keep it secret.' })).body.id as number;
  const id = await createLink(http, await makePdf(1), 'Deal.pdf', { agreementId: String(agreementId) });
  for (const [typed, email] of [
    ['\u202EAna\u0007 Lima\u2066', 'ana@example.org'],
    ['Mehr\u200Cnaz Tehrani', 'mehrnaz@example.org'],
  ] as const) {
    const accepted = await new VisitorClient(app.url).post(`/v/${id}/agreement`, { name: typed, email, agree: 'yes' });
    assert.equal(accepted.status, 303);
  }
  const names = (await http.get(`/api/links/${id}/agreements`)).body.acceptances.map((acceptance: { name: string }) => acceptance.name);
  assert.deepEqual(names.sort(), ['Ana Lima', 'Mehr\u200Cnaz Tehrani']);
});

test('agreements: an account keeps at most 100; the list leaves out the rendered HTML, which one agreement gives', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const text = '*terms* [site](https://example.com) '.repeat(2000);
  const made = await Promise.all(Array.from({ length: 100 }, (_, n) => http.post('/api/agreements', { name: `NDA ${n}`, text })));
  assert.deepEqual(new Set(made.map((response) => response.status)), new Set([200]));
  const refused = await http.post('/api/agreements', { name: 'one more', text });
  assert.equal(refused.status, 422);
  assert.match(refused.body.error, /at most 100 agreements/);

  const { agreements } = (await http.get('/api/agreements')).body;
  assert.equal(agreements.length, 100);
  assert.ok(agreements.every((agreement: Record<string, unknown>) => !('html' in agreement) && agreement.text === text));
  const one = (await http.get(`/api/agreements/${agreements[0].id}`)).body;
  assert.match(one.html, /<em>terms<\/em>/);
});
