import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../test/helpers/app.js';
import { burst } from '../../test/helpers/burst.js';
import { createLink } from '../../test/helpers/files.js';
import type { HttpClient } from '../../test/helpers/http.js';
import { makePdf } from '../../test/helpers/pdf.js';
import { otpCodeIn, startSmtp } from '../../test/helpers/smtp.js';
import { VisitorClient } from '../../test/helpers/visitor.js';
import { waitFor } from '../../test/helpers/wait.js';

// Kept apart from viewer.test.ts: each file runs within one time bound, and these wait for drawn pages and bursts.

type TestSmtp = Awaited<ReturnType<typeof startSmtp>>;

/** The code of the first mail to `email`. */
async function codeFor(smtp: TestSmtp, email: string): Promise<string> {
  await smtp.waitFor(email);
  return otpCodeIn(smtp.received.find((mail) => mail.to.includes(email))!);
}

/** A link of a `pages`-page PDF, drawn. */
async function pagedLink(http: HttpClient, pages: number, fields: Record<string, string> = {}): Promise<string> {
  const id = await createLink(http, await makePdf(pages), 'deck.pdf', fields);
  await waitFor(
    async () => (await http.get(`/api/links/${id}`)).body.document.status,
    (status) => status === 'ready',
    60_000,
  );
  return id;
}

test('a view reports no more reading time than twice what it has lasted, plus a minute', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const id = await pagedLink(http, 3);
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  const reported = async () => (await http.get(`/api/links/${id}/analytics`)).body.totalSeconds as number;

  // Just opened: the minute's grace, the hour claimed cut to it; then nothing more.
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 3600 })).status, 204);
  assert.equal(await reported(), 60);
  const refused = await visitor.postJson(`/v/${id}/track`, { page: 2, seconds: 1 });
  assert.equal(refused.status, 429);
  assert.match(refused.text, /More reading time was reported than this view has lasted/);

  // Ten minutes on, two tabs' worth of them.
  now += 600_000;
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 2, seconds: 900 })).status, 204);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 3, seconds: 900 })).status, 204);
  assert.equal(await reported(), 60 + 1200);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 3, seconds: 1 })).status, 429);
  const rows = await app.runtime.database.db.selectFrom('page_views').select(['page', 'seconds']).orderBy('id').execute();
  assert.deepEqual(
    rows.map((row) => [row.page, row.seconds]),
    [
      [1, 60],
      [2, 900],
      [3, 300],
    ],
  );

  // Each report is kept EVENT_RETENTION_DAYS (90); the link's totals stay.
  now += 91 * 86_400_000;
  const pageReads = app.runtime.eventRetention.find((sweep) => sweep.rows === 'page reads')!;
  assert.equal(await pageReads.sweep(), 3);
  assert.deepEqual(await app.runtime.database.db.selectFrom('page_views').select('id').execute(), []);
  assert.equal(await reported(), 60 + 1200);
});

test('a long read of one page in one report is kept, up to what the view has lasted', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const id = await pagedLink(http, 3);
  assert.equal((await http.patch(`/api/links/${id}`, { viewSessionTtlSeconds: 14_400 })).status, 200);
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  now += 2 * 3_600_000;
  assert.equal(
    (await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 7200 })).status,
    204,
    'two hours on page 1, reported when the tab is hidden',
  );
  assert.equal((await http.get(`/api/links/${id}/analytics`)).body.totalSeconds, 7200);
});

test('reading time counts from when the view began, not from the gate the visitor waited at', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const id = await pagedLink(http, 2, { addPassword: '1', password: 'pw' });
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.post(`/v/${id}/password`, { password: 'pw' })).status, 303);
  now += 86_400_000;
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 3600 })).status, 204);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 2, seconds: 3600 })).status, 429);
  assert.equal((await http.get(`/api/links/${id}/analytics`)).body.totalSeconds, 60, "a minute's grace, not a day's");
});

test("time is reported only on a page the visitor is shown: the document's, up to a preview", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await pagedLink(http, 5, { previewPages: '2' });
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 2, seconds: 5 })).status, 204);
  for (const page of [3, 5, 100_000]) {
    const refused = await visitor.postJson(`/v/${id}/track`, { page, seconds: 5 });
    assert.equal(refused.status, 422, `page ${page}`);
    assert.match(refused.text, new RegExp(`Page ${page} is not a page this document shows`));
  }
  const video = await createLink(http, Buffer.from('\x00\x00\x00\x18ftypmp42'), 'clip.mp4');
  const watcher = new VisitorClient(app.url);
  await watcher.get(`/v/${video}`);
  assert.equal((await watcher.postJson(`/v/${video}/track`, { page: 2, seconds: 5 })).status, 422, 'a file without pages has one');
  assert.equal((await watcher.postJson(`/v/${video}/track`, { page: 1, seconds: 5 })).status, 204);
  const analytics = (await http.get(`/api/links/${id}/analytics`)).body;
  assert.deepEqual(
    analytics.pages.map((page: { page: number }) => page.page),
    [2],
  );
});

test("a visitor's requests sent at once open one view, not one each: the view cap is left to others", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'numbers', 'q3.txt', { addPassword: '1', password: 'pw', maxViews: '3' });
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.post(`/v/${id}/password`, { password: 'pw' })).status, 303);

  const answers = await burst(
    app.url,
    Array.from({ length: 8 }, () => ({ method: 'GET', path: `/v/${id}`, headers: visitor.headersFor(`/v/${id}`) })),
  );
  assert.deepEqual(
    answers.map((answer) => answer.status),
    Array(8).fill(200),
  );
  const link = (await http.get(`/api/links/${id}`)).body;
  assert.equal(link.views, 1);
  const events = (await http.get('/api/analytics/global')).body.recentActivity as Array<{ type: string }>;
  assert.equal(events.filter((event) => event.type === 'link.viewed').length, 1);

  const other = new VisitorClient(app.url);
  await other.post(`/v/${id}/password`, { password: 'pw' });
  assert.equal((await other.get(`/v/${id}`)).status, 200, 'another visitor still gets in');
});

test('codes sent at once each take one of the 5 tries before they are compared: a burst cannot guess more', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'for partners', 'p.txt', { requiresOtp: '1', allowedDomains: 'partner.io' });
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.post(`/v/${id}/otp`, { email: 'bob@partner.io' })).status, 303);
  const code = await codeFor(smtp, 'bob@partner.io');
  const guesses = Array.from({ length: 30 }, (_, n) => String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0'));
  const path = `/v/${id}/otp/verify`;
  const headers = { ...visitor.headersFor(path), 'content-type': 'application/x-www-form-urlencoded' };
  const answers = await burst(
    app.url,
    guesses.map((guess) => ({ method: 'POST', path, headers, body: new URLSearchParams({ code: guess }).toString() })),
  );
  const compared = answers.filter((answer) => /not right|Too many wrong codes/.test(answer.text));
  assert.equal(compared.length, 5, answers.map((answer) => answer.status).join(' '));
  assert.ok(answers.every((answer) => answer.status === 422));
  const [row] = await app.runtime.database.db.selectFrom('otp_codes').select('attempts').execute();
  assert.equal(row!.attempts, 5);
  assert.equal((await visitor.post(path, { code })).status, 422, 'the right code came too late: it is burnt');
});
