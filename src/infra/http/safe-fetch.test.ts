import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { clientNetworkOf, isPublicAddress } from './address-policy.js';
import { createSafeHttpClient, guardedLookup, RefusedDestinationError, type Resolver } from './safe-fetch.js';

/** A loopback server that counts the requests it gets and answers with `handler`. */
async function startServer(t: TestContext, handler: http.RequestListener) {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    hits.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

test('only public unicast addresses pass, IPv4 and IPv6 alike', () => {
  const refused = [
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.251',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '192.0.2.10',
    '203.0.113.9',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '2001:db8::1',
    '64:ff9b::7f00:1',
    '::7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '2002:7f00:1::1',
    'not an ip',
    'localhost',
  ];
  for (const address of refused) assert.equal(isPublicAddress(address), false, address);
  const allowed = [
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
  ];
  for (const address of allowed) assert.equal(isPublicAddress(address), true, address);
});

test('refused before any connection: http://, private and metadata IP literals, credentials', async () => {
  const client = createSafeHttpClient({ allowPrivateAddresses: false });
  for (const url of [
    'http://hooks.slack.com/services/x',
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://2130706433/hook', // 127.0.0.1 as one decimal number
    'https://user:secret@hooks.slack.com/services/x',
    'ftp://hooks.slack.com/x',
    'not a url',
  ]) {
    await assert.rejects(client.postJson(url, {}), RefusedDestinationError, url);
  }
});

test('a host name resolving to loopback is refused when connecting', async (t) => {
  const server = await startServer(t, (_request, response) => response.end('ok'));
  const port = new URL(server.url).port;
  const client = createSafeHttpClient({ allowPrivateAddresses: false });
  await assert.rejects(
    client.postJson(`https://localhost:${port}/hook`, {}),
    // The address itself stays out of the message, which reaches the account (a webhook's deliveries): no map of internal names.
    (error: Error) => /^localhost resolves to an address that is not public$/.test(error.message),
  );
  assert.equal(server.hits.length, 0);
});

test('the check runs on the addresses the socket will use (DNS rebinding fails)', async () => {
  // First answer public (as a check done at creation time would see), then loopback.
  const answers = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
  const rebinding: Resolver = async () => answers.shift() ?? [];
  const lookup = guardedLookup(rebinding);
  const resolve = (all: boolean) =>
    new Promise<unknown>((done, fail) => lookup('rebind.example', { all }, (error, address) => (error ? fail(error) : done(address))));
  assert.equal(await resolve(false), '93.184.216.34');
  await assert.rejects(resolve(true), RefusedDestinationError);

  // One private address among public ones is enough to refuse the name.
  const mixed: Resolver = async () => [
    { address: '8.8.8.8', family: 4 },
    { address: '10.1.2.3', family: 4 },
  ];
  await assert.rejects(
    new Promise((done, fail) => guardedLookup(mixed)('mixed.example', { all: true }, (error, address) => (error ? fail(error) : done(address)))),
    /mixed\.example resolves to an address that is not public$/,
  );
});

test('redirects are never followed', async (t) => {
  const inner = await startServer(t, (_request, response) => response.end('secret'));
  const bouncer = await startServer(t, (_request, response) => {
    response.writeHead(302, { location: `${inner.url}/internal` }).end();
  });
  // Private addresses allowed here only so the test can reach its loopback servers.
  const client = createSafeHttpClient({ allowPrivateAddresses: true });
  await assert.rejects(client.postJson(`${bouncer.url}/hook`, { text: 'hi' }), /redirect/);
  assert.deepEqual(bouncer.hits, ['/hook']);
  assert.equal(inner.hits.length, 0, 'the redirect target was not requested');
});

test('with private addresses allowed, a local receiver gets the JSON; slow answers time out; big ones are cut', async (t) => {
  const received: unknown[] = [];
  const server = await startServer(t, (request, response) => {
    if (request.url === '/slow') return void setTimeout(() => response.end('late'), 2_000);
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ type: request.headers['content-type'], body: JSON.parse(body) });
      response.end('x'.repeat(100_000));
    });
  });
  const client = createSafeHttpClient({ allowPrivateAddresses: true, timeoutMs: 300, maxResponseBytes: 10 });
  const response = await client.postJson(`${server.url}/hook`, { text: 'hello' });
  assert.equal(response.status, 200);
  assert.equal(response.body, 'x'.repeat(10));
  assert.deepEqual(received, [{ type: 'application/json', body: { text: 'hello' } }]);
  await assert.rejects(client.postJson(`${server.url}/slow`, {}), /abort|timeout/i);
});

test('a client address is counted as its IPv4 address or its IPv6 /64', () => {
  assert.equal(clientNetworkOf('203.0.113.7'), '203.0.113.7');
  assert.equal(clientNetworkOf('::ffff:203.0.113.7'), '203.0.113.7', 'an IPv4-mapped address is that IPv4 address');
  assert.equal(clientNetworkOf('2001:db8:7:1::5'), '2001:db8:7:1::/64');
  assert.equal(clientNetworkOf('2001:0db8:0007:0001:abcd:1:2:3'), '2001:db8:7:1::/64', 'written out in full, the same network');
  assert.equal(clientNetworkOf('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientNetworkOf('::1'), '0:0:0:0::/64');
});
