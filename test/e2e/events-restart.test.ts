import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { VisitorClient } from '../helpers/visitor.js';
import { sleep, startReceiver } from '../helpers/events-receiver.js';

test('events recorded before a kill -9 are delivered once the server is back', async (t) => {
  // The first server polls every 10 minutes: whatever it records stays undelivered when it dies.
  const env = await testEnv(t, { ALLOW_PRIVATE_WEBHOOKS: '1', EVENT_POLL_MS: '600000' });
  const created = await runCli(['accounts', 'create', '--email', 'restart@example.com', '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const receiver = await startReceiver(t);

  const first = await startServerProcess(t, env);
  const http = createHttpClient(first.url, apiKey);
  assert.equal((await http.post('/api/integrations', { type: 'slack', config: { webhook_url: receiver.url } })).status, 200);
  const id = await createLink(http, 'before the crash', 'crash.txt');
  for (let visitor = 0; visitor < 3; visitor++) assert.equal((await new VisitorClient(first.url).get(`/v/${id}`)).status, 200);
  await sleep(300);
  assert.equal(receiver.received.length, 0, 'nothing sent before the crash');

  first.child.kill('SIGKILL');
  assert.equal(await first.exited, null, 'killed, not exited');

  const second = await startServerProcess(t, { ...env, EVENT_POLL_MS: '50' });
  const received = await receiver.waitFor(3);
  await sleep(300);
  assert.equal(received.length, 3, 'each event once');
  assert.ok(received.every((hook) => hook.body.text === '127.0.0.x viewed "crash.txt"'));
  assert.equal((await createHttpClient(second.url, apiKey).get(`/api/links/${id}`)).body.views, 3);
});
