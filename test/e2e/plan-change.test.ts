import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { startReceiver } from '../helpers/events-receiver.js';
import { createLink } from '../helpers/files.js';
import { VisitorClient } from '../helpers/visitor.js';

const BRAND_COLOUR = '#14785a';

test('moved below business, branding, the custom domain and chat integrations rest, and act again once back', async (t) => {
  const dns = await startDnsServer(t);
  const app = await startApp(t, { env: { DNS_SERVERS: dns.address, ALLOW_PRIVATE_WEBHOOKS: '1', EVENT_POLL_MS: '20' } });
  const { http, email, accountId } = await app.createAccount('business');
  const slack = await startReceiver(t);
  assert.equal((await http.post('/api/integrations', { type: 'slack', config: { webhook_url: `${slack.url}/services/T/B/X` } })).status, 200);
  const claimed = await http.post('/api/branding', { company_name: 'Acme', primary_color: BRAND_COLOUR, custom_domain: 'docs.acme.example' });
  assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
  const record = claimed.body.custom_domain_verification;
  dns.txt.set(record.name, [record.value]);
  assert.equal((await http.post('/api/branding/domain/verify')).body.custom_domain_status, 'verified');
  const id = await createLink(http, 'numbers', 'q3.txt');

  const deliveries = async () => (await app.runtime.database.db.selectFrom('event_deliveries').select('id').execute()).length;
  const tlsAsk = async () => (await fetch(`${app.url}/tls/ask?domain=docs.acme.example`)).status;
  const viewerUrl = async () => (await http.get(`/api/links/${id}`)).body.viewer_url as string;
  const page = async () => (await new VisitorClient(app.url).get(`/v/${id}`)).text;

  // On business: all of it acts.
  assert.ok((await page()).includes(BRAND_COLOUR));
  await slack.waitFor(1);
  assert.equal(await tlsAsk(), 200);
  assert.equal(await viewerUrl(), `https://docs.acme.example/v/${id}`);

  await app.runtime.services.accounts.setPlan(email, 'professional');
  assert.equal((await http.get('/api/branding')).status, 403, 'the settings are a business feature, as the spec says');
  const before = await deliveries();
  const plain = await page();
  assert.ok(!plain.includes(BRAND_COLOUR), 'the visitor page wears no brand');
  assert.equal(await deliveries(), before, 'the view went to no chat integration');
  assert.equal(await tlsAsk(), 404, 'the proxy gets no certificate for the domain');
  assert.equal(await viewerUrl(), `${app.runtime.config.publicUrl}/v/${id}`);

  // Kept, not lost: back on business, it all acts again.
  await app.runtime.services.accounts.setPlan(email, 'business');
  assert.ok((await page()).includes(BRAND_COLOUR));
  await slack.waitFor(2);
  assert.equal(await tlsAsk(), 200);
  assert.equal(await viewerUrl(), `https://docs.acme.example/v/${id}`);
  assert.equal((await http.get('/api/branding')).body.company_name, 'Acme');
  const [integration] = await app.runtime.database.db.selectFrom('integrations').select('account_id').execute();
  assert.equal(integration?.account_id, accountId);
});
