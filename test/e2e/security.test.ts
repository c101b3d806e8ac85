import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import sharp from 'sharp';
import { startApp, testEnv } from '../helpers/app.js';
import { createLink, downloadOriginal, downloadToken, limitsReached, uploadFile, uploadForm } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';

const HOUR = 3_600_000;

test('download tokens obey the link: 403 once it is deactivated, 410 once it has expired', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'quarterly numbers', 'q3.txt', { expiration: '1h' });
  const token = await downloadToken(http, linkId, 10);
  assert.equal((await downloadOriginal(app.url, linkId, token)).response.status, 200);

  assert.equal((await http.patch(`/api/links/${linkId}/active`, { isActive: false })).status, 200);
  const deactivated = await downloadOriginal(app.url, linkId, token);
  assert.equal(deactivated.response.status, 403);
  assert.match(JSON.parse(deactivated.body.toString()).error, /deactivated/);

  assert.equal((await http.patch(`/api/links/${linkId}/active`, { isActive: true })).status, 200);
  assert.equal((await downloadOriginal(app.url, linkId, token)).response.status, 200, 'turned back on, the token works again');

  now += 2 * HOUR;
  const expired = await downloadOriginal(app.url, linkId, token);
  assert.equal(expired.response.status, 410);
  assert.deepEqual(Object.keys(JSON.parse(expired.body.toString())), ['error']);

  // A stranger with a made-up token still learns nothing about the link's state.
  const stranger = await downloadOriginal(app.url, linkId, `lvd_${'A'.repeat(40)}`);
  assert.equal(stranger.response.status, 403);
  assert.doesNotMatch(JSON.parse(stranger.body.toString()).error, /deactivated|expired/);
});

test('API answers, errors included, are not stored by browser or proxy caches, unless the route says how', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'board minutes', 'minutes.txt');
  for (const response of [
    await http.get('/api/links'),
    await http.get(`/api/links/${linkId}`),
    await http.get('/api/links/999999'),
    await createHttpClient(app.url).get('/api/links'),
  ]) {
    assert.equal(response.headers.get('cache-control'), 'no-store', `status ${response.status}`);
  }
  // Routes that set their own keep it: a file download is private and never stored.
  const token = await downloadToken(http, linkId, 1);
  assert.equal((await downloadOriginal(app.url, linkId, token)).response.headers.get('cache-control'), 'private, no-store');
});

test('one-time codes: at most 10 per client per link in 10 minutes, 100 per link in an hour, across addresses', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'board deck', 'deck.txt', { requiresOtp: '1', allowedDomains: 'customer.example' });

  const visitor = new VisitorClient(app.url);
  for (let i = 1; i <= 10; i += 1) {
    const sent = await visitor.post(`/v/${linkId}/otp`, { email: `person${i}@customer.example` });
    assert.equal(sent.status, 303, `code ${i}: ${sent.text.slice(0, 200)}`);
  }
  const refused = await visitor.post(`/v/${linkId}/otp`, { email: 'person11@customer.example' });
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.match(refused.text, /too many codes/i);
  assert.match(refused.text, /<form method="post" action="\/v\/[0-9A-Za-z]+\/otp"/, 'the gate page, with its form');

  // Other clients (distinct addresses, as a proxy reports them) share the link's hourly budget.
  const proxied = await startApp(t, { env: { SMTP_URL: smtp.url, TRUST_PROXY: '1' } });
  const owner = await proxied.createAccount('professional');
  const busyLink = await createLink(owner.http, 'board deck', 'deck.txt', { requiresOtp: '1', allowedDomains: 'customer.example' });
  const statuses: number[] = [];
  for (let i = 0; i < 101; i += 1) {
    const client = new VisitorClient(proxied.url, { 'x-forwarded-for': `203.0.113.${(i % 50) + 1}` });
    statuses.push((await client.post(`/v/${busyLink}/otp`, { email: `p${i}@customer.example` })).status);
  }
  assert.equal(statuses.filter((status) => status === 303).length, 100);
  assert.equal(statuses[100], 429);
  assert.equal((await new VisitorClient(proxied.url).post(`/v/${busyLink}/otp`, { email: 'late@customer.example' })).status, 429);
  assert.deepEqual(await limitsReached(owner.http, busyLink), ['code'], 'the owner is told once, when the limit is first reached');
  assert.deepEqual(await limitsReached(http, linkId), [], 'one client at its own limit is not the link at its');
  // Codes went out for the accepted requests, none for the refused ones.
  assert.match(otpCodeIn(await smtp.waitFor('p99@customer.example')), /^\d{6}$/);
  assert.match(otpCodeIn(await smtp.waitFor('person10@customer.example')), /^\d{6}$/);
  await app.runtime.mailer.drain();
  await proxied.runtime.mailer.drain();
  const mailedTo = smtp.received.flatMap((mail) => mail.to);
  assert.ok(!mailedTo.includes('p100@customer.example') && !mailedTo.includes('person11@customer.example'), 'no code for a refused request');
});

test('/metrics needs METRICS_TOKEN as a bearer token, and does not exist without one', async (t) => {
  const closed = await startApp(t);
  assert.equal((await fetch(`${closed.url}/metrics`)).status, 404);

  const metricsToken = 'scrape-' + 'x'.repeat(24);
  const app = await startApp(t, { env: { METRICS_TOKEN: metricsToken } });
  const anonymous = await fetch(`${app.url}/metrics`);
  assert.equal(anonymous.status, 404);
  assert.deepEqual(Object.keys((await anonymous.json()) as object), ['error']);
  assert.equal((await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status, 404);
  const scraped = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  assert.equal(scraped.status, 200);
  assert.match(await scraped.text(), /http_request_duration_seconds_count/);
});

test('file names are checked as Windows saves them: trailing dots and spaces, scripts and installers, 255 bytes', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const refused = ['x.bat.', 'x.cmd. . ', 'setup.msi', 'run.ps1', 'screen.scr', 'tool.jar', 'macro.vbs', 'notes.txt.exe...'];
  // Scripts, shortcuts and containers Windows opens on a double click, and one shown as a PDF by a right-to-left override.
  refused.push('invoice.js', 'help.chm', 'portal.url', 'disk.vhdx', 'bundle.7z', 'addin.xll', 'Invoice\u202Efdp.js');
  for (const name of refused) {
    const response = await uploadFile(http, 'echo hi', name);
    assert.equal(response.status, 422, `${name}: ${JSON.stringify(response.body)}`);
  }
  const reordered = await createLink(http, 'plain text', 'Report\u202Etxt.pdf\u2066.txt');
  assert.equal((await http.get(`/api/links/${reordered}`)).body.name, 'Reporttxt.pdf.txt', 'stored without bidirectional controls');
  // A name stored before they were dropped leaves without them.
  await app.runtime.database.db.updateTable('links').set({ name: 'Old\u202Efdp.txt', allow_download: 1 }).where('id', '=', reordered).execute();
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.get(`/v/${reordered}`)).status, 200);
  const download = await visitor.get(`/v/${reordered}/download`);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-disposition'), `attachment; filename="Oldfdp.txt"; filename*=UTF-8''Oldfdp.txt`);

  const longName = `${'ü'.repeat(2_500)}.pdf`;
  const id = await createLink(http, 'plain text', longName);
  const { name } = (await http.get(`/api/links/${id}`)).body;
  assert.ok(Buffer.byteLength(name) <= 255, `${Buffer.byteLength(name)} bytes`);
  assert.ok(name.endsWith('.pdf'), 'the extension is kept');
  assert.equal(name, `${'ü'.repeat(125)}.pdf`, 'cut between characters');

  const trimmed = await createLink(http, 'plain text', 'minutes.txt. ');
  assert.equal((await http.get(`/api/links/${trimmed}`)).body.name, 'minutes.txt');

  // FormData sends a quote as %22, as browsers do: the name keeps its quotes. A typed name is taken as typed.
  const quoted = await createLink(http, 'plain text', 'Term sheet "draft" v2.txt');
  assert.equal((await http.get(`/api/links/${quoted}`)).body.name, 'Term sheet "draft" v2.txt');
  assert.equal((await http.patch(`/api/links/${quoted}`, { name: 'Rate 100%22.txt' })).body.name, 'Rate 100%22.txt');
  const controls = await createLink(http, 'plain text', 'a\u009bb\u0085c\u2028d\u2029e.txt');
  assert.equal((await http.get(`/api/links/${controls}`)).body.name, 'abcde.txt', 'C1 controls and line separators go too');
  const oneCluster = await createLink(http, 'plain text', `a${'\u0301'.repeat(200)}.txt`);
  const clusterName: string = (await http.get(`/api/links/${oneCluster}`)).body.name;
  assert.ok(clusterName.startsWith('a\u0301') && clusterName.endsWith('.txt') && Buffer.byteLength(clusterName) <= 255, clusterName.slice(0, 20));
});

test('names of data rooms, portals, templates and agreements are kept on one line, and one must show something', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const child = await createLink(http, 'plain text', 'inside.txt');
  const makers = {
    room: (name: string) => http.post('/api/links/room', { name, children_ids: [child] }),
    portal: (name: string) => http.post('/api/client-portals', { name, slug: `p-${Math.random().toString(36).slice(2, 10)}`, allowedEmails: [] }),
    template: (name: string) => http.post('/api/templates', { name }),
    agreement: (name: string) => http.post('/api/agreements', { name, text: 'Keep it to yourself.' }),
  };
  const readers = {
    room: async (id: string) => (await http.get(`/api/links/${id}`)).body.name,
    portal: async (id: string) => (await http.get(`/api/client-portals/${id}`)).body.portal.name,
    template: async (id: string) => (await http.get(`/api/templates/${id}`)).body.template.name,
    agreement: async (id: string) => (await http.get(`/api/agreements/${id}`)).body.name,
  };
  for (const [kind, make] of Object.entries(makers) as Array<[keyof typeof makers, (name: string) => Promise<{ status: number; body: any }>]>) {
    for (const blank of ['   ', '\u200b', '\u0085\u009b', '\u202e \u2066']) {
      const refused = await make(blank);
      assert.equal(refused.status, 422, `${kind} ${JSON.stringify(blank)}: ${JSON.stringify(refused.body)}`);
    }
    const made = await make('  Acme\u202Efdp.exe\nQ3\u0085 ');
    assert.ok(made.status < 300, `${kind}: ${JSON.stringify(made.body)}`);
    assert.equal(await readers[kind](String(made.body.id)), 'Acmefdp.exe Q3', kind);
  }
});

test('errors the router raises are {error} too; integer path parameters accept decimal digits only', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const created = await http.post('/api/templates', { name: 'Board' });
  assert.equal(created.status, 200);
  assert.equal(created.body.id, 1);

  for (const path of ['/api/templates/0x1', '/api/templates/1e0', '/api/templates/%201', '/api/templates/+1', '/api/templates/1.0']) {
    const response = await http.get(path);
    assert.equal(response.status, 400, path);
    assert.deepEqual(Object.keys(response.body), ['error'], path);
  }
  assert.equal((await http.get('/api/templates/1')).status, 200);
  assert.equal((await http.get('/api/links?page=0x2')).status, 400);

  const badUrl = await http.get('/api/links/%E0%A4%A');
  assert.equal(badUrl.status, 400);
  assert.deepEqual(Object.keys(badUrl.body), ['error']);
  const longParam = await http.get(`/api/links/${'a'.repeat(300)}`);
  assert.equal(longParam.status, 414);
  assert.deepEqual(Object.keys(longParam.body), ['error']);

  // Unparsable HTTP and oversized headers are answered by the socket handler, in the same shape.
  for (const [raw, status] of [
    ['NOT HTTP AT ALL\r\n\r\n', 400],
    [`GET /v/${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
  ] as const) {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(new URL(app.url).port as unknown as number, '127.0.0.1', () => socket.write(raw));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
    });
    assert.match(answer, new RegExp(`^HTTP/1.1 ${status} `));
    assert.deepEqual(Object.keys(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))), ['error']);
  }
});

test('the request log keeps no download token or checkout session id', async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'log-owner@example.com', '--plan', 'professional'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const server = await startServerProcess(t, env);
  let log = '';
  server.child.stdout.on('data', (chunk) => (log += chunk));

  const http = createHttpClient(server.url, apiKey);
  const linkId = await createLink(http, 'the figures', 'figures.txt');
  const token = await downloadToken(http, linkId, 5);
  assert.equal((await downloadOriginal(server.url, linkId, token)).response.status, 200);
  const sessionId = `cs_test_${'S'.repeat(40)}`;
  await fetch(`${server.url}/api/links/${linkId}/download-original?session_id=${sessionId}`);
  await fetch(`${server.url}/v/${linkId}?session_id=${sessionId}`);

  // pino writes asynchronously: wait (5 s at most) for the three request lines.
  const redactedLines = () => log.split('\n').filter((line) => line.includes('[redacted]')).length;
  const deadline = Date.now() + 5_000;
  while (redactedLines() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(log.includes('download-original?token=[redacted]'), 'the request is logged, without its token');
  assert.ok(log.includes('session_id=[redacted]'));
  assert.ok(!log.includes(token), 'no download token in the log');
  assert.ok(!log.includes(token.slice(4)), 'not even without its prefix');
  assert.ok(!log.includes(sessionId), 'no checkout session id in the log');
  assert.ok(!log.includes(apiKey), 'no API key in the log');
});

test('even at LOG_LEVEL=trace no key, cookie or CSRF token reaches the log: plugins log request headers of their own there', async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'trace-owner@example.com', '--plan', 'professional'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const server = await startServerProcess(t, env, undefined, 'trace');
  let log = '';
  server.child.stdout.on('data', (chunk) => (log += chunk));

  const [cookie, csrf] = [`lv_session=${'C'.repeat(43)}`, 'X'.repeat(43)];
  const upload = await fetch(`${server.url}/api/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, cookie, 'x-csrf-token': csrf },
    body: uploadForm('the figures', 'figures.txt'),
  });
  assert.equal(upload.status, 200, await upload.text());
  const deadline = Date.now() + 5_000;
  while (!log.includes('"responseTime"') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.match(log, /busboy/, "the multipart plugin's trace line, headers and all, is written");
  assert.ok(!log.includes(apiKey), 'no API key in the log');
  assert.ok(!log.includes(cookie), 'no session cookie');
  assert.ok(!log.includes(csrf), 'no CSRF token');
});

test('a multipart body cut short is a 400 on every file route, never a 500, and stores nothing', async (t) => {
  const app = await startApp(t);
  const { http, apiKey } = await app.createAccount('business');
  const linkId = await createLink(http, 'first version', 'v1.txt');
  const boundary = 'linkvault-cut-body';
  const form = (fieldName: string, fileName: string) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="expiration"\r\n\r\n24h\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${fieldName}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.alloc(96 * 1024, 0x61),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
  const routes = [
    { method: 'POST', path: '/api/upload', body: form('file', 'cut.txt') },
    { method: 'PUT', path: `/api/links/${linkId}/file`, body: form('file', 'cut.txt') },
    { method: 'POST', path: '/api/branding', body: form('logo', 'logo.png') },
  ];
  for (const { method, path, body } of routes) {
    // Cut inside the first field, inside the file part's headers, in its content, and just before the end.
    for (const cut of [40, 150, 260, 20_000, body.length - 10]) {
      const response = await fetch(`${app.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: body.subarray(0, cut),
      });
      const answer = (await response.json()) as { error: string };
      assert.equal(response.status, 400, `${method} ${path} cut at ${cut}: ${answer.error}`);
      assert.deepEqual(Object.keys(answer), ['error']);
    }
  }
  assert.equal((await http.get('/api/links')).body.pagination.total, 1, 'no link was made');
  assert.equal((await http.get(`/api/links/${linkId}`)).body.name, 'v1.txt', 'the link kept its version');
  assert.equal((await http.get('/api/branding')).body.logo_url, null, 'no logo was stored');
});

test('the password throttle counts wrong tries only: right passwords never lock a client out', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'the plan', 'plan.txt', { addPassword: '1', password: 'open sesame' });
  for (let i = 0; i < 12; i += 1) {
    const visitor = new VisitorClient(app.url);
    assert.equal((await visitor.post(`/v/${linkId}/password`, { password: 'open sesame' })).status, 303, `right try ${i + 1}`);
  }
  const guesser = new VisitorClient(app.url);
  for (let i = 0; i < 10; i += 1) {
    assert.equal((await guesser.post(`/v/${linkId}/password`, { password: `guess ${i}` })).status, 422, `wrong try ${i + 1}`);
  }
  const locked = await guesser.post(`/v/${linkId}/password`, { password: 'open sesame' });
  assert.equal(locked.status, 429, 'the 11th try, right or wrong, waits');
  assert.ok(Number(locked.headers.get('retry-after')) > 0);
});

test('an expected 503 (payments not configured) is logged as a warning, not as an error', async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'no-stripe@example.com', '--plan', 'professional'], env);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const server = await startServerProcess(t, env);
  let log = '';
  server.child.stdout.on('data', (chunk) => (log += chunk));
  const response = await fetch(`${server.url}/api/stripe/connect-status`, { headers: { authorization: `Bearer ${apiKey}` } });
  assert.equal(response.status, 503);
  const deadline = Date.now() + 5_000;
  while (!log.includes('service unavailable') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const lines = log.split('\n').filter((line) => line.includes('payments are not configured'));
  assert.ok(lines.length > 0, 'the refusal is logged');
  for (const line of lines) assert.equal((JSON.parse(line) as { level: number }).level, 40, line);
});

test("a visitor page's forms are taken from its own pages only: another site's form cannot begin a visit in its visitor's browser", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'terms', 'terms.txt', { requireEmail: '1' });
  const post = (headers: Record<string, string>) =>
    fetch(`${app.url}/v/${linkId}/email`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: 'email=framed%40victim.example',
    });

  const crossSites: Record<string, string>[] = [
    { origin: 'http://attacker.test' },
    { origin: 'null' },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
  ];
  for (const crossSite of crossSites) {
    const refused = await post(crossSite);
    assert.equal(refused.status, 403, JSON.stringify(crossSite));
    assert.equal(refused.headers.getSetCookie().length, 0, 'no visit begins');
  }
  const ours = await post({ origin: app.url, 'sec-fetch-site': 'same-origin' });
  assert.equal(ours.status, 303, 'the page itself posts it');
  const sentByChromium = await post({ origin: 'null', 'sec-fetch-site': 'same-origin' });
  assert.equal(sentByChromium.status, 303, 'as Chromium posts it from a page without a referrer: the origin hidden, the site same-origin');
  assert.equal((await post({})).status, 303, 'a client that names no origin (curl, an older browser) is not a cross-site form');
});

test('a saved file keeps its type only when no browser runs it: scripts, stylesheets, HTML and SVG leave as bytes', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const saved = async (content: string, name: string, fields: Record<string, string> = {}) => {
    const linkId = await createLink(http, content, name, { allowDownload: '1', ...fields });
    const { response } = await downloadOriginal(app.url, linkId, await downloadToken(http, linkId, 2));
    assert.equal(response.status, 200, name);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', name);
    const visitor = new VisitorClient(app.url);
    assert.equal((await visitor.get(`/v/${linkId}`)).status, 200);
    const shown = await visitor.get(`/v/${linkId}/download`);
    assert.equal(shown.status, 200, name);
    return [response.headers.get('content-type'), shown.headers.get('content-type')];
  };
  for (const [content, name] of [
    ['window.stolen = document.cookie', 'widget.mjs'],
    ['body { background: url(//attacker.test) }', 'theme.css'],
    ['<script>alert(1)</script>', 'page.html'],
    ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'logo.svg'],
  ]) {
    assert.deepEqual(await saved(content!, name!), ['application/octet-stream', 'application/octet-stream'], name);
  }
  assert.deepEqual(await saved('plain words', 'notes.txt'), ['text/plain', 'text/plain'], 'an inert type is kept');
});

test('access requests: at most 5 per client per link in an hour and 50 per link, each one mail to the owner, none past the limit', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'board deck', 'deck.txt', { requiresApproval: '1' });
  const mailsToOwner = async () =>
    (await app.runtime.database.db.selectFrom('mail_outbox').select('id').where('subject', 'like', '%is asking to view%').execute()).length;

  const statuses: number[] = [];
  for (let i = 0; i < 6; i += 1) {
    // No cookie: a new visit each time, as a script would make them.
    const stranger = new VisitorClient(app.url, { 'x-forwarded-for': '198.51.100.7' });
    statuses.push((await stranger.post(`/v/${linkId}/access`, { email: `someone${i}@example.net` })).status);
  }
  assert.deepEqual(statuses, [303, 303, 303, 303, 303, 429]);

  for (let i = 0; i < 50; i += 1) {
    const client = new VisitorClient(app.url, { 'x-forwarded-for': `203.0.113.${(i % 10) + 1}` });
    const answer = await client.post(`/v/${linkId}/access`, { email: `p${i}@example.net` });
    assert.equal(answer.status, i < 45 ? 303 : 429, `request ${i}`);
  }
  assert.equal((await http.get(`/api/links/${linkId}/requests`)).body.requests.length, 50);
  assert.equal(await mailsToOwner(), 50, 'one mail per request taken, none for a refused one');
  assert.deepEqual(await limitsReached(http, linkId), ['access-request'], 'the owner is told once, when the limit is first reached');
});

test("a visitor's copies are bounded: no picture over 40 megapixels is decoded for one, and a client gets 120 a minute", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  // 45 megapixels of white: a few kilobytes to upload, a gigabyte-scale decode per view if it were made.
  const huge = await sharp({ create: { width: 9000, height: 5000, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  const hugeId = await createLink(http, huge, 'poster.png', { hasWatermark: '1' });
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.get(`/v/${hugeId}`)).status, 200);
  const refused = await visitor.get(`/v/${hugeId}/content`);
  assert.equal(refused.status, 422);
  assert.match(JSON.parse(refused.text).error, /too large to be shown here \(over 40 megapixels\)/);

  const small = await createLink(http, 'the memo', 'memo.txt', { allowDownload: '1' });
  assert.equal((await visitor.get(`/v/${small}`)).status, 200);
  const statuses: number[] = [];
  for (let i = 0; i < 119; i += 1) statuses.push((await visitor.get(`/v/${small}/download`)).status);
  assert.ok(
    statuses.every((status) => status === 200),
    'the poster and 119 downloads: 120 this minute',
  );
  const limited = await visitor.get(`/v/${small}/download`);
  assert.equal(limited.status, 429, 'the 121st of this minute');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
});

/** Opens a raw connection, writes `head`, then feeds `drip` bytes every `everyMs` until the server answers or closes. */
function slowClient(url: string, head: string, everyMs?: number): Promise<{ answer: string; afterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(head));
    const drip = everyMs === undefined ? undefined : setInterval(() => socket.write('a'), everyMs);
    const giveUp = setTimeout(() => socket.destroy(new Error('the server kept the connection open for 15 s')), 15_000);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ answer, afterMs: Date.now() - started });
    });
    socket.on('error', (error) => {
      clearInterval(drip);
      clearTimeout(giveUp);
      if (error.message.includes('15 s')) reject(error);
    });
  });
}

test('a client cannot hold a connection: by stopping its body, by sending it a byte at a time, or by sending it after a refusal', async (t) => {
  const app = await startApp(t, { env: { IDLE_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '2' } });
  const { apiKey } = await app.createAccount('professional');
  const upload = (authorization: string) =>
    `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}Content-Type: multipart/form-data; boundary=b\r\n` +
    'Content-Length: 100000\r\n\r\n--b\r\n';

  const silent = await slowClient(app.url, upload(`Authorization: Bearer ${apiKey}\r\n`));
  assert.equal(silent.answer, '');
  assert.ok(silent.afterMs < 5_000, `closed after ${silent.afterMs} ms of silence`);

  const dripping = await slowClient(app.url, upload(`Authorization: Bearer ${apiKey}\r\n`), 200);
  assert.match(dripping.answer, /^HTTP\/1\.1 408 /);
  assert.match(dripping.answer, /took too long to arrive/);
  assert.ok(dripping.afterMs >= 2_000 && dripping.afterMs < 6_000, `cut after ${dripping.afterMs} ms`);

  // Refused before its body arrived: the answer is the connection's last, the rest is not awaited.
  const refused = await slowClient(app.url, upload(''), 200);
  assert.match(refused.answer, /^HTTP\/1\.1 401 /);
  assert.match(refused.answer, /\r\nconnection: close\r\n/i);
  assert.ok(refused.afterMs < 1_000, `closed after ${refused.afterMs} ms`);

  const healthy = await fetch(`${app.url}/healthz`);
  assert.equal(healthy.status, 200, 'others are still served');
  assert.match(healthy.headers.get('keep-alive') ?? '', /timeout=/, 'and a whole request keeps its connection');
});

test('a visitor gives an address as people type them: none that reads as a link or turns its line around in an alert', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'terms', 'terms.txt', { requireEmail: '1' });
  const give = (email: string) => new VisitorClient(app.url).post(`/v/${linkId}/email`, { email });
  for (const email of ['https://evil.example/reset?u=@evil.example', '\u202egpj.exe\u2066@example.com', 'zoë@example.com', 'a b@example.com']) {
    const refused = await give(email);
    assert.equal(refused.status, 400, email);
    assert.match(refused.text, /Enter a valid e-mail address/);
  }
  for (const email of ["o'brien+deals@example.co.uk", 'First.Last@Example.com', 'a_b-c@sub.example.org'])
    assert.equal((await give(email)).status, 303, email);
});
