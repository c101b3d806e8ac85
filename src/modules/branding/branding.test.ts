import assert from 'node:assert/strict';
import http_ from 'node:http';
import { test } from 'node:test';
import sharp from 'sharp';
import { startApp } from '../../../test/helpers/app.js';
import { claimVerifiedDomain, startDnsServer } from '../../../test/helpers/dns-server.js';
import { createLink } from '../../../test/helpers/files.js';
import { startSmtp } from '../../../test/helpers/smtp.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

const png = (width = 64, height = 32) =>
  sharp({ create: { width, height, channels: 4, background: { r: 200, g: 30, b: 60, alpha: 1 } } })
    .png()
    .toBuffer();

function logoForm(logo: Buffer, fileName: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('logo', new Blob([new Uint8Array(logo)]), fileName);
  return form;
}

test('defaults until set; every field round-trips; the SMTP password is never returned', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const defaults = await http.get('/api/branding');
  assert.equal(defaults.status, 200);
  assert.equal(defaults.body.company_name, null);
  assert.equal(defaults.body.email_locale, 'en');
  assert.equal(defaults.body.smtp_password_set, false);
  assert.match(defaults.body.primary_color, /^#[0-9a-f]{6}$/);
  assert.equal('smtp_password' in defaults.body, false);

  const settings = {
    company_name: 'Acme Capital',
    primary_color: '#112233',
    bg_color: '#fff',
    btn_text_color: '#FFFFFF',
    btn_radius: '0.5rem',
    card_bg_color: '#fafafa',
    card_border_color: '#ddd',
    text_color: '#222222',
    logo_size: 64,
    custom_domain: 'Docs.Acme.example',
    smtp_host: 'smtp.acme.example',
    smtp_port: 2525,
    smtp_encryption: 'starttls',
    smtp_username: 'mailer',
    smtp_password: 'hunter2-secret',
    from_email: 'deals@acme.example',
    from_name: 'Acme Deals',
    email_locale: 'fr',
  };
  const updated = await http.post('/api/branding', settings);
  assert.equal(updated.status, 200);
  assert.equal(updated.body.ok, true);
  assert.equal(updated.body.company_name, 'Acme Capital');
  assert.equal(updated.body.btn_text_color, '#ffffff');
  assert.equal(updated.body.custom_domain, 'docs.acme.example');
  assert.equal(updated.body.custom_domain_status, 'pending', 'a domain waits for its TXT record');
  assert.equal(updated.body.smtp_host, 'smtp.acme.example');
  assert.equal(updated.body.smtp_port, 2525);
  assert.equal(updated.body.smtp_password_set, true);
  assert.equal(updated.body.email_locale, 'fr');
  for (const response of [updated, await http.get('/api/branding')]) {
    assert.ok(!JSON.stringify(response.body).includes('hunter2-secret'), 'password never in a response');
  }
  const stored = await app.runtime.database.db.selectFrom('branding').selectAll().executeTakeFirstOrThrow();
  assert.ok(stored.smtp_password_sealed && !stored.smtp_password_sealed.includes('hunter2'), 'stored sealed');

  const partial = await http.post('/api/branding', { company_name: 'Acme II', smtp_password: '' });
  assert.equal(partial.body.company_name, 'Acme II');
  assert.equal(partial.body.primary_color, '#112233', 'absent fields stay');
  assert.equal(partial.body.smtp_password_set, false, 'an empty password clears it');
});

test('each invalid field is a 400 naming it', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ primary_color: 'red' }, 'primary_color'],
    [{ bg_color: '#12345' }, 'bg_color'],
    [{ btn_radius: '8 px' }, 'btn_radius'],
    [{ btn_radius: 'calc(1px)' }, 'btn_radius'],
    [{ logo_size: 15 }, 'logo_size'],
    [{ logo_size: 513 }, 'logo_size'],
    [{ custom_domain: 'not a host' }, 'custom_domain'],
    [{ smtp_port: 0 }, 'smtp_port'],
    [{ smtp_port: 70000 }, 'smtp_port'],
    [{ smtp_encryption: 'tls13' }, 'smtp_encryption'],
    [{ email_locale: 'de' }, 'email_locale'],
    [{ from_email: 'nobody' }, 'from_email'],
    [{ company_name: { nested: true } }, 'company_name'],
  ];
  for (const [body, field] of cases) {
    const response = await http.post('/api/branding', body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.match(response.body.error, new RegExp(field), JSON.stringify(body));
  }
  for (const radius of ['0', '8px', '0.5rem', '50%']) assert.equal((await http.post('/api/branding', { btn_radius: radius })).status, 200, radius);
});

test('a custom domain belongs to one account once verified', async (t) => {
  const dns = await startDnsServer(t);
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address } });
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  await claimVerifiedDomain(alice.http, dns, 'docs.alice.example');
  const taken = await bob.http.post('/api/branding', { custom_domain: 'DOCS.alice.example' });
  assert.equal(taken.status, 422);
  assert.match(taken.body.error, /already used/);
});

test('smtp_host: private, loopback, link-local and unspecified addresses in any notation, and localhost names, are 422', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const refused = [
    '127.0.0.1',
    '[::1]',
    '::1',
    '0.0.0.0',
    '0',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    '127.0.0.1.',
    'localhost',
    'LOCALHOST.',
    'mail.localhost',
    '10.0.0.1',
    '172.16.0.9',
    '192.168.1.20',
    '100.64.0.1',
    '169.254.169.254',
    '[::ffff:127.0.0.1]',
    '::ffff:a9fe:a9fe',
    'fe80::1',
    'fd00:ec2::254',
    '[::]',
  ];
  for (const host of refused) {
    const response = await http.post('/api/branding', { smtp_host: host });
    assert.equal(response.status, 422, host);
    assert.match(response.body.error, /SMTP host is refused/, host);
  }
  assert.equal((await http.get('/api/branding')).body.smtp_host, null, 'nothing was stored');
  for (const host of ['not a host', 'smtp.example.com:25', 'user@smtp.example.com', 'smtp.example.com/x']) {
    const response = await http.post('/api/branding', { smtp_host: host });
    assert.equal(response.status, 400, host);
    assert.match(response.body.error, /smtp_host/);
  }
  // Names pass here and are checked on their addresses when mail is sent.
  for (const [host, stored] of [
    ['Smtp.Acme.example', 'smtp.acme.example'],
    ['8.8.8.8', '8.8.8.8'],
    ['[2606:4700:4700::1111]', '2606:4700:4700::1111'],
  ]) {
    const response = await http.post('/api/branding', { smtp_host: host });
    assert.equal(response.status, 200, host);
    assert.equal(response.body.smtp_host, stored);
  }
});

test('ALLOW_PRIVATE_SMTP=1 lets accounts relay through private servers', async (t) => {
  const app = await startApp(t, { env: { ALLOW_PRIVATE_SMTP: '1' } });
  const { http } = await app.createAccount('business');
  for (const host of ['10.0.0.1', 'localhost', '::1']) assert.equal((await http.post('/api/branding', { smtp_host: host })).status, 200, host);
  const decimal = await http.post('/api/branding', { smtp_host: '2130706433' });
  assert.equal(decimal.body.smtp_host, '127.0.0.1', 'stored as the address it connects to');
});

test('logo: re-encoded PNG, served at logo_url, replaceable and removable; SVG and big files refused', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const original = await sharp(await png(80, 40))
    .jpeg()
    .withMetadata({ exif: { IFD0: { Copyright: 'secret-metadata' } } })
    .toBuffer();
  const uploaded = await http.post('/api/branding', logoForm(original, 'logo.jpg', { company_name: 'Logo Co' }));
  assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
  assert.equal(uploaded.body.company_name, 'Logo Co');
  assert.match(uploaded.body.logo_url, /^\/branding\/\d+\/logo-[0-9A-Za-z]{12}\.png$/);

  const served = await fetch(app.url + uploaded.body.logo_url);
  assert.equal(served.status, 200);
  assert.equal(served.headers.get('content-type'), 'image/png');
  assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
  const bytes = Buffer.from(await served.arrayBuffer());
  const metadata = await sharp(bytes).metadata();
  assert.equal(metadata.format, 'png');
  assert.equal(metadata.width, 80);
  assert.ok(!bytes.includes('secret-metadata'), 're-encoded: metadata dropped');

  const replaced = await http.post('/api/branding', logoForm(await png(), 'new.png'));
  assert.notEqual(replaced.body.logo_url, uploaded.body.logo_url);
  assert.equal((await fetch(app.url + uploaded.body.logo_url)).status, 404, 'the old logo is gone');

  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const refused = await http.post('/api/branding', logoForm(svg, 'logo.png'));
  assert.equal(refused.status, 422);
  assert.match(refused.body.error, /SVG/);
  const empty = await http.post('/api/branding', logoForm(Buffer.alloc(0), 'empty.png'));
  assert.equal(empty.status, 422, JSON.stringify(empty.body));
  assert.equal(empty.body.error, 'The logo is an empty file: choose a PNG, JPEG or WebP image');
  const tooBig = await http.post('/api/branding', logoForm(Buffer.alloc(2 * 1024 * 1024 + 10, 1), 'big.png'));
  assert.equal(tooBig.status, 413);

  assert.deepEqual((await http.delete('/api/branding/logo')).body, { ok: true });
  assert.equal((await http.get('/api/branding')).body.logo_url, null);
  assert.equal((await fetch(app.url + replaced.body.logo_url)).status, 404);
});

test('the brand dresses the visitor pages of the account', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  await http.post('/api/branding', { company_name: 'Northwind', primary_color: '#aa0011', btn_radius: '0' });
  const id = await createLink(http, 'x', 'x.txt', { addPassword: '1', password: 'pw' });
  const page = await new VisitorClient(app.url).get(`/v/${id}`);
  assert.match(page.text, /Northwind/);
  assert.match(page.text, /--primary: #aa0011;/);
  assert.match(page.text, /--btn-radius: 0;/);
});

test("custom domain: once verified, viewer URLs use it; it serves only its own account's links", async (t) => {
  const dns = await startDnsServer(t);
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address } });
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  await claimVerifiedDomain(alice.http, dns, 'docs.alice.example');
  const uploaded = await alice.http.post(
    '/api/upload',
    (() => {
      const f = new FormData();
      f.append('file', new Blob(['hi']), 'hi.txt');
      return f;
    })(),
  );
  assert.equal(uploaded.body.viewer_url, `https://docs.alice.example/v/${uploaded.body.id}`);
  assert.equal((await alice.http.get('/api/links')).body.links[0].viewer_url, `https://docs.alice.example/v/${uploaded.body.id}`);
  const bobsLink = await createLink(bob.http, 'bob', 'b.txt');

  // fetch() will not send another Host: ask with node:http, as a reverse proxy would.
  const statusOnAlicesDomain = (path: string) =>
    new Promise<number>((resolve, reject) => {
      http_
        .get(`${app.url}${path}`, { headers: { host: 'docs.alice.example' } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        })
        .on('error', reject);
    });
  assert.equal(await statusOnAlicesDomain(`/v/${uploaded.body.id}`), 200);
  assert.equal(await statusOnAlicesDomain(`/v/${bobsLink}`), 404, "another account's link does not exist there");
  assert.equal((await new VisitorClient(app.url).get(`/v/${bobsLink}`)).status, 200, 'PUBLIC_URL serves every account');
});

test('share e-mails the viewer link to each recipient', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'pitch.pdf');
  const shared = await http.post(`/api/links/${id}/share`, {
    emails: ['ann@example.com', 'Bob@Example.com'],
    message: 'Here is the deck.\nTalk soon.',
  });
  assert.deepEqual(shared.body, { ok: true });
  const outbox = await app.runtime.database.db.selectFrom('mail_outbox').select('to_address').orderBy('id').execute();
  assert.deepEqual(
    outbox.map((m) => m.to_address),
    ['ann@example.com', 'bob@example.com'],
  );
  for (const mail of [await smtp.waitFor('ann@example.com'), await smtp.waitFor('bob@example.com')]) {
    assert.ok(mail.text.includes(`/v/${id}`));
    assert.ok(mail.text.includes('Here is the deck.'));
  }
  assert.equal((await http.post(`/api/links/${id}/share`, { emails: [] })).status, 400);
  assert.equal((await http.post(`/api/links/${id}/share`, { emails: Array.from({ length: 51 }, (_, i) => `r${i}@example.com`) })).status, 400);
  assert.equal((await http.post(`/api/links/${id}/share`, { emails: ['not-an-address'] })).status, 400);
  assert.equal((await http.post(`/api/links/${id}/share`, { emails: ['a@example.com'], message: 'x'.repeat(2001) })).status, 400);
  const other = await app.createAccount('professional');
  assert.equal((await other.http.post(`/api/links/${id}/share`, { emails: ['a@example.com'] })).status, 404);
});
