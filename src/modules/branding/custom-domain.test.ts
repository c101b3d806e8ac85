import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { startApp, testEnv } from '../../../test/helpers/app.js';
import { startDnsServer } from '../../../test/helpers/dns-server.js';
import { createLink } from '../../../test/helpers/files.js';
import type { HttpClient } from '../../../test/helpers/http.js';
import { createSessionClient, signedInPerson } from '../../../test/helpers/people.js';
import { startSmtp } from '../../../test/helpers/smtp.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/kysely.js';
import { migrationProvider } from '../../db/migrations/index.js';
import { markDomainVerified, upsertBranding } from './branding.repo.js';

/** The status of `path` asked with another Host header, as a reverse proxy would pass it (fetch() will not send one). */
const statusOnHost = (baseUrl: string, host: string, path: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(`${baseUrl}${path}`, { headers: { host } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      })
      .on('error', reject);
  });

const viewerUrlOf = async (owner: HttpClient, linkId: string): Promise<string> =>
  (await owner.get('/api/links')).body.links.find((link: { id: string }) => link.id === linkId).viewer_url;

const tlsAsk = async (baseUrl: string, domain: string) => (await fetch(`${baseUrl}/tls/ask?domain=${encodeURIComponent(domain)}`)).status;

test('a claimed domain is pending and routes nothing until its TXT record is verified', async (t) => {
  const dns = await startDnsServer(t);
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address, SMTP_URL: smtp.url } });
  const publicUrl = app.runtime.config.publicUrl;
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  const alicesLink = await createLink(alice.http, 'a', 'a.txt');
  const bobsLink = await createLink(bob.http, 'b', 'b.txt');

  const claimed = await alice.http.post('/api/branding', { custom_domain: 'Docs.Alice.example' });
  assert.equal(claimed.status, 200);
  assert.equal(claimed.body.custom_domain, 'docs.alice.example');
  assert.equal(claimed.body.custom_domain_status, 'pending');
  const record = claimed.body.custom_domain_verification;
  assert.equal(record.name, '_linkvault.docs.alice.example');
  assert.equal(record.type, 'TXT');
  assert.match(record.value, /^linkvault-verify=[0-9A-Za-z]{32}$/);
  assert.deepEqual((await alice.http.get('/api/branding')).body.custom_domain_verification, record);

  // Pending: the host is not Alice's, her links stay on PUBLIC_URL, no certificate is asked for.
  assert.equal(await statusOnHost(app.url, 'docs.alice.example', `/v/${bobsLink}`), 200, 'the host is not bound to Alice');
  assert.equal(await viewerUrlOf(alice.http, alicesLink), `${publicUrl}/v/${alicesLink}`);
  assert.equal(await tlsAsk(app.url, 'docs.alice.example'), 404);
  await alice.http.post(`/api/links/${alicesLink}/share`, { emails: ['pending@example.com'] });

  const missing = await alice.http.post('/api/branding/domain/verify');
  assert.equal(missing.status, 422);
  assert.ok(missing.body.error.includes('_linkvault.docs.alice.example') && missing.body.error.includes(record.value), missing.body.error);
  assert.match(missing.body.error, /no TXT record/);
  dns.txt.set(record.name, ['linkvault-verify=somethingElse']);
  const wrong = await alice.http.post('/api/branding/domain/verify');
  assert.equal(wrong.status, 422);
  assert.match(wrong.body.error, /other values/);
  assert.equal((await alice.http.get('/api/branding')).body.custom_domain_status, 'pending');

  dns.txt.set(record.name, ['v=spf1 -all', record.value]);
  const verified = await alice.http.post('/api/branding/domain/verify');
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  assert.equal(verified.body.ok, true);
  assert.equal(verified.body.custom_domain, 'docs.alice.example');
  assert.equal(verified.body.custom_domain_status, 'verified');
  assert.equal(verified.body.custom_domain_verification, null);
  assert.ok(dns.queries.includes('_linkvault.docs.alice.example'), 'asked the configured DNS server');

  assert.equal(await statusOnHost(app.url, 'docs.alice.example', `/v/${alicesLink}`), 200);
  assert.equal(await statusOnHost(app.url, 'docs.alice.example', `/v/${bobsLink}`), 404, "now only Alice's links exist there");
  // The same host in capitals, or fully qualified with its trailing dot, is the same domain.
  for (const spelling of ['DOCS.ALICE.EXAMPLE', 'docs.alice.example.', 'docs.alice.example:443']) {
    assert.equal(await statusOnHost(app.url, spelling, `/v/${bobsLink}`), 404, `${spelling} is Alice's domain too`);
    assert.equal(await statusOnHost(app.url, spelling, `/v/${alicesLink}`), 200);
  }
  assert.equal(await viewerUrlOf(alice.http, alicesLink), `https://docs.alice.example/v/${alicesLink}`);
  assert.equal(await tlsAsk(app.url, 'docs.alice.example'), 200);
  assert.equal((await alice.http.post('/api/branding/domain/verify')).status, 200, 'verifying again changes nothing');
  await alice.http.post(`/api/links/${alicesLink}/share`, { emails: ['verified@example.com'] });
  const textTo = async (address: string) => (await smtp.waitFor(address)).text;
  assert.ok((await textTo('pending@example.com')).includes(`${publicUrl}/v/${alicesLink}`), 'a pending domain is not in mail links');
  assert.ok((await textTo('verified@example.com')).includes(`https://docs.alice.example/v/${alicesLink}`), 'a verified one is');

  // A new domain starts over: pending with a fresh value, and the old one stops routing.
  const moved = await alice.http.post('/api/branding', { custom_domain: 'share.alice.example' });
  assert.equal(moved.body.custom_domain_status, 'pending');
  assert.notEqual(moved.body.custom_domain_verification.value, record.value);
  assert.equal(await statusOnHost(app.url, 'docs.alice.example', `/v/${bobsLink}`), 200);
  assert.equal(await tlsAsk(app.url, 'docs.alice.example'), 404);
  assert.equal(await viewerUrlOf(alice.http, alicesLink), `${publicUrl}/v/${alicesLink}`);
  const again = await alice.http.post('/api/branding', { custom_domain: 'share.alice.example', company_name: 'Alice' });
  assert.deepEqual(again.body.custom_domain_verification, moved.body.custom_domain_verification, 'resending the same domain keeps its value');

  const cleared = await alice.http.post('/api/branding', { custom_domain: '' });
  assert.equal(cleared.body.custom_domain, null);
  assert.equal(cleared.body.custom_domain_status, null);
  assert.equal(cleared.body.custom_domain_verification, null);
  const nothing = await alice.http.post('/api/branding/domain/verify');
  assert.equal(nothing.status, 422);
  assert.match(nothing.body.error, /set custom_domain first/);
});

test('pending claims reserve nothing: the first account to verify a domain gets it', async (t) => {
  const dns = await startDnsServer(t);
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address } });
  type Account = Awaited<ReturnType<typeof app.createAccount>>;
  const [alice, bob, carol, dave, erin] = (await Promise.all(Array.from({ length: 5 }, () => app.createAccount('business')))) as [
    Account,
    Account,
    Account,
    Account,
    Account,
  ];
  const claim = async (account: Account, domain: string) => {
    const response = await account.http.post('/api/branding', { custom_domain: domain });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.custom_domain_verification.value as string;
  };

  const alicesValue = await claim(alice, 'deals.example');
  const bobsValue = await claim(bob, 'deals.example');
  assert.notEqual(alicesValue, bobsValue);
  dns.txt.set('_linkvault.deals.example', [bobsValue]);
  assert.equal((await bob.http.post('/api/branding/domain/verify')).status, 200, 'Bob controls the DNS: he verifies first');

  dns.txt.set('_linkvault.deals.example', [bobsValue, alicesValue]);
  const late = await alice.http.post('/api/branding/domain/verify');
  assert.equal(late.status, 422);
  assert.match(late.body.error, /already used by another account/);
  const resend = await alice.http.post('/api/branding', { custom_domain: 'deals.example' });
  assert.equal(resend.status, 422);
  const newcomer = await carol.http.post('/api/branding', { custom_domain: 'DEALS.example' });
  assert.equal(newcomer.status, 422);
  assert.match(newcomer.body.error, /already used by another account/);

  // Two verifications at once: the unique index lets exactly one through, the other is a 422 (never a 500).
  dns.txt.set('_linkvault.race.example', [await claim(dave, 'race.example'), await claim(erin, 'race.example')]);
  const racing = await Promise.all([dave, erin].map((account) => account.http.post('/api/branding/domain/verify')));
  assert.deepEqual(racing.map((response) => response.status).sort(), [200, 422], JSON.stringify(racing.map((r) => r.body)));
  const statuses = await Promise.all([dave, erin].map(async (account) => (await account.http.get('/api/branding')).body.custom_domain_status));
  assert.deepEqual(statuses.sort(), ['pending', 'verified']);
});

test("PUBLIC_URL's host, its subdomains and IP addresses are refused; /tls/ask answers only for verified domains", async (t) => {
  const dns = await startDnsServer(t);
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address, PUBLIC_URL: 'https://share.linkvault.example' } });
  const { http: owner } = await app.createAccount('business');
  for (const domain of ['share.linkvault.example', 'SHARE.linkvault.example', 'eu.share.linkvault.example']) {
    const response = await owner.post('/api/branding', { custom_domain: domain });
    assert.equal(response.status, 422, domain);
    assert.match(response.body.error, /PUBLIC_URL/, domain);
  }
  for (const domain of ['127.0.0.1', '8.8.8.8', '127.1', '2130706433', '0x7f000001', '::1', '[::1]', '[2606:4700:4700::1111]', '::ffff:127.0.0.1']) {
    const response = await owner.post('/api/branding', { custom_domain: domain });
    assert.equal(response.status, 422, domain);
    assert.match(response.body.error, /not an IP address/, domain);
  }
  assert.equal((await owner.get('/api/branding')).body.custom_domain, null, 'nothing was claimed');

  for (const domain of ['share.linkvault.example', 'unknown.example', '127.0.0.1', '']) assert.notEqual(await tlsAsk(app.url, domain), 200, domain);
  const claimed = await owner.post('/api/branding', { custom_domain: 'docs.customer.example' });
  dns.txt.set(claimed.body.custom_domain_verification.name, [claimed.body.custom_domain_verification.value]);
  assert.equal(await tlsAsk(app.url, 'docs.customer.example'), 404, 'pending');
  assert.equal((await owner.post('/api/branding/domain/verify')).status, 200);
  assert.equal(await tlsAsk(app.url, 'docs.customer.example'), 200);
  assert.equal(await tlsAsk(app.url, 'other.customer.example'), 404);
});

test('a DNS server that cannot answer is a 422 asking to try again', async (t) => {
  // A server that answers SERVFAIL, not a freed port: another test's DNS server may bind that port again.
  const dns = await startDnsServer(t);
  dns.failing = true;
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address } });
  const { http: owner } = await app.createAccount('business');
  await owner.post('/api/branding', { custom_domain: 'docs.acme.example' });
  const response = await owner.post('/api/branding/domain/verify');
  assert.equal(response.status, 422);
  assert.match(response.body.error, /DNS lookup of the TXT record _linkvault\.docs\.acme\.example failed .*try again/);
});

test('the unique index settles two verifications of one domain: the second is "taken", not an error', async (t) => {
  const app = await startApp(t);
  const db = app.runtime.database.db;
  const [first, second] = [await app.createAccount('business'), await app.createAccount('business')];
  for (const [account, token] of [
    [first, 'one'],
    [second, 'two'],
  ] as const) {
    await upsertBranding(db, account.accountId, { custom_domain_pending: 'same.example', custom_domain_token: token }, 1);
  }
  assert.equal(await markDomainVerified(db, first.accountId, { domain: 'same.example', token: 'one' }, 2), 'verified');
  assert.equal(await markDomainVerified(db, second.accountId, { domain: 'same.example', token: 'two' }, 2), 'taken');
  assert.equal(await markDomainVerified(db, second.accountId, { domain: 'same.example', token: 'stale' }, 2), 'changed');
});

test('domains set before verification existed are pending after the upgrade', async (t) => {
  const config = loadConfig(await testEnv(t)).database;
  const handle = openDatabase(config);
  t.after(() => handle.close());
  const migrationTableSchema =
    config.kind === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db: handle.db, provider: migrationProvider, migrationTableSchema });
  assert.equal((await migrator.migrateTo('0009-lapsed-access')).error, undefined);
  const { id } = await handle.db
    .insertInto('accounts')
    .values({ email: 'old@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`insert into branding (account_id, custom_domain, updated_at) values (${id}, 'docs.old.example', 1)`.execute(handle.db);

  assert.equal((await migrator.migrateToLatest()).error, undefined);
  const row = await handle.db.selectFrom('branding').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
  assert.equal(row.custom_domain, null, 'no longer routes');
  assert.equal(row.custom_domain_pending, 'docs.old.example');
  assert.match(row.custom_domain_token ?? '', /^linkvault-verify=[0-9A-Za-z]{32}$/);
  assert.equal((await migrator.migrateTo('0009-lapsed-access')).error, undefined, 'the migration goes down as well');
});

/** A request with another Host header, as a reverse proxy would pass it; its status, headers and body. */
const onHost = (baseUrl: string, host: string, method: string, path: string, body?: object) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const request = http.request(
      `${baseUrl}${path}`,
      {
        method,
        headers: { host, ...(body ? { 'content-type': 'application/json', origin: `http://${host}`, 'sec-fetch-site': 'same-origin' } : {}) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
      },
    );
    request.on('error', reject).end(body ? JSON.stringify(body) : undefined);
  });

test("people sign in only at PUBLIC_URL: on an account's verified domain the owner pages move there and sign-in is refused", async (t) => {
  const app = await startApp(t);
  const db = app.runtime.database.db;
  const publicUrl = app.runtime.config.publicUrl;
  const alice = await app.createAccount('business');
  await upsertBranding(db, alice.accountId, { custom_domain_pending: 'docs.alice.example', custom_domain_token: 'token' }, 1);
  assert.equal(await markDomainVerified(db, alice.accountId, { domain: 'docs.alice.example', token: 'token' }, 2), 'verified');
  const { email, password } = await signedInPerson(app, alice.accountId, 'owner');

  for (const path of [
    '/sign-in',
    '/sign-in/link?token=abc',
    '/setup?token=abc',
    '/invite/abc',
    '/reset-password',
    '/confirm-email?token=abc',
    '/app/links?tab=expired',
    '/',
  ]) {
    const page = await onHost(app.url, 'Docs.Alice.example.', 'GET', path);
    assert.equal(page.status, 308, path);
    assert.equal(page.headers.location, `${publicUrl}${path}`);
  }
  for (const [path, body] of [
    ['/api/auth/sign-in', { email, password }],
    ['/api/auth/magic-link', { email }],
    ['/api/auth/password-reset', { email }],
    ['/api/auth/email-change/confirm', { token: 'abc' }],
  ] as const) {
    const refused = await onHost(app.url, 'docs.alice.example', 'POST', path, body);
    assert.equal(refused.status, 403, `${path}: ${refused.body}`);
    assert.match(JSON.parse(refused.body).error, /Sign in at http:\/\/127\.0\.0\.1/);
    assert.equal(refused.headers['set-cookie'], undefined, 'no session is made there');
  }
  // Still so once the account's plan no longer serves its links there: the name is still its DNS to point.
  await app.runtime.services.accounts.setPlan(alice.email, 'free');
  assert.equal((await onHost(app.url, 'docs.alice.example', 'POST', '/api/auth/sign-in', { email, password })).status, 403);

  // Its visitor pages stay, and any other host serves the sign-in page as before.
  assert.equal((await onHost(app.url, 'other.example', 'GET', '/sign-in')).status, 200);
  assert.equal((await createSessionClient(app.url).post('/api/auth/sign-in', { email, password })).status, 200);
});

test("a verified domain whose account's plan lapsed serves no one's links or portals: its visitors go to PUBLIC_URL", async (t) => {
  const app = await startApp(t);
  const db = app.runtime.database.db;
  const publicUrl = app.runtime.config.publicUrl;
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  await upsertBranding(db, alice.accountId, { custom_domain_pending: 'docs.alice.example', custom_domain_token: 'token' }, 1);
  assert.equal(await markDomainVerified(db, alice.accountId, { domain: 'docs.alice.example', token: 'token' }, 2), 'verified');
  const alicesLink = await createLink(alice.http, 'a', 'a.txt');
  const bobsLink = await createLink(bob.http, 'b', 'b.txt');
  assert.equal((await bob.http.post('/api/client-portals', { name: 'Bob', slug: 'bob-clients', allowedEmails: ['c@example.com'] })).status, 200);
  assert.equal((await onHost(app.url, 'docs.alice.example', 'GET', `/v/${bobsLink}`)).status, 404, 'while it serves: only Alice');

  await app.runtime.services.accounts.setPlan(alice.email, 'professional');
  for (const path of [`/v/${bobsLink}`, `/v/${alicesLink}`, '/p/bob-clients', `/v/${bobsLink}/status`]) {
    const moved = await onHost(app.url, 'docs.alice.example', 'GET', path);
    assert.equal(moved.status, 308, path);
    assert.equal(moved.headers.location, `${publicUrl}${path}`);
    assert.equal(moved.headers['set-cookie'], undefined, `${path}: no cookie is set on her domain`);
  }
  const code = await onHost(app.url, 'docs.alice.example', 'POST', '/p/bob-clients/email', { email: 'c@example.com' });
  assert.equal(code.status, 308, 'no portal code is asked for there');
  assert.equal(await db.selectFrom('mail_outbox').select('id').executeTakeFirst(), undefined);

  // Back on business, the domain serves Alice's links again, and only hers.
  await app.runtime.services.accounts.setPlan(alice.email, 'business');
  assert.equal((await onHost(app.url, 'docs.alice.example', 'GET', `/v/${alicesLink}`)).status, 200);
  assert.equal((await onHost(app.url, 'docs.alice.example', 'GET', `/v/${bobsLink}`)).status, 404);
});
