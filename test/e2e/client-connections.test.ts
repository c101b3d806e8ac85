import assert from 'node:assert/strict';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { startApp } from '../helpers/app.js';

/** A TCP connection to the app, held open until the test ends. */
async function connection(t: TestContext, url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  t.after(() => socket.destroy());
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** Whether the server closes the connection within `ms` (a held one stays open). */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

test('one client holds at most MAX_CONNECTIONS_PER_CLIENT connections: one more is closed unread, and one closed makes room', async (t) => {
  const app = await startApp(t, { env: { MAX_CONNECTIONS_PER_CLIENT: '3' } });
  const held = [await connection(t, app.url), await connection(t, app.url), await connection(t, app.url)];
  const extra = await connection(t, app.url);
  assert.equal(await closedWithin(extra, 5_000), true, 'the fourth connection is closed');
  assert.equal(await closedWithin(held[0]!, 300), false, 'the first three stay');
  await assert.rejects(fetch(`${app.url}/healthz`), 'a request on a fourth connection is not answered');

  held[0]!.destroy();
  // The server hears of the close a moment later: bounded retries until there is room again.
  let status = 0;
  for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
    status = await fetch(`${app.url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(status, 200, 'a connection closed makes room for another');
});

test('behind a proxy (TRUST_PROXY) every connection is the proxy’s: no cap here', async (t) => {
  const app = await startApp(t, { env: { MAX_CONNECTIONS_PER_CLIENT: '2', TRUST_PROXY: '1' } });
  const held = [await connection(t, app.url), await connection(t, app.url), await connection(t, app.url)];
  assert.equal(await closedWithin(held[2]!, 300), false);
  assert.equal((await fetch(`${app.url}/healthz`)).status, 200);
});
