/**
 * Failing dependencies, each against the real service: Redis stopped and started again,
 * PostgreSQL connections terminated, the blob storage full. The server runs as its own process
 * (a fault that escaped would end it) and logs at info, read back to check the levels.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { testEnv } from '../helpers/app.js';
import { createHttpClient, type HttpClient } from '../helpers/http.js';
import { listFiles, uploadFile } from '../helpers/files.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { requirePeer } from '../helpers/requirements.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { freePort } from '../helpers/ports.js';

interface LogLine {
  level: number;
  msg: string;
}

/** A server process with an account, its client, and its log lines so far. */
async function startServer(t: TestContext, env: Record<string, string>) {
  const created = await runCli(['accounts', 'create', '--email', `deps-${randomBytes(3).toString('hex')}@example.com`, '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const server = await startServerProcess(t, env);
  let output = '';
  server.child.stdout.on('data', (chunk) => (output += chunk));
  const logLines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  return { ...server, api: createHttpClient(server.url, apiKey), logLines };
}

const readiness = async (url: string) => {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { ok?: boolean; degraded?: string[] } };
};

/** A redis-server of the test's own on `port`, stopped with SIGKILL after the test. */
async function startRedis(t: TestContext, port: number): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  t.after(() => redis.kill('SIGKILL'));
  const up = await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.end(() => resolve(true)));
        socket.on('error', () => resolve(false));
      }),
    Boolean,
  );
  assert.ok(up, 'redis-server did not start');
  return redis;
}

const keysStatus = async (api: HttpClient) => (await api.get('/api/api-keys')).status;

/** A server process counting `perMinute` requests per key in a redis-server of the test's own; undefined (skipped) without one. */
async function serverWithOwnRedis(t: TestContext, perMinute: number) {
  const installed = spawnSync('redis-server', ['--version']).status === 0;
  if (!requirePeer(t, installed, 'redis-server is not installed: apt-get install redis-server')) return undefined;
  const port = await freePort();
  const redis = await startRedis(t, port);
  const env = await testEnv(t, { REDIS_URL: `redis://127.0.0.1:${port}/0`, RATE_LIMIT_PER_MINUTE: String(perMinute) });
  const server = await startServer(t, env);
  assert.equal(await keysStatus(server.api), 200);
  return { port, redis, server };
}

test('Redis gone: the service keeps serving with per-process limits, warns once, says degraded, and shares limits again when Redis is back', async (t) => {
  const started = await serverWithOwnRedis(t, 8);
  if (!started) return;
  const { port, server } = started;
  let { redis } = started;
  assert.deepEqual((await readiness(server.url)).body, { ok: true });

  redis.kill('SIGKILL');
  await new Promise((resolve) => redis.once('exit', resolve));
  const whileAway: number[] = [];
  for (let i = 0; i < 9; i++) whileAway.push(await keysStatus(server.api));
  assert.deepEqual(whileAway, [200, 200, 200, 200, 200, 200, 200, 200, 429], 'served, and still limited (8 a minute, counted here)');
  assert.deepEqual(await readiness(server.url), { status: 200, body: { ok: true, degraded: ['redis'] } });

  redis = await startRedis(t, port);
  const back = await waitFor(
    () => readiness(server.url),
    (ready) => ready.body.degraded === undefined,
    15_000,
  );
  assert.deepEqual(back.body, { ok: true }, 'recovers alone');
  assert.equal(await keysStatus(server.api), 200, 'a fresh window in the restarted Redis');

  // The note is written before the answer that showed the recovery, but its pipe may be read after it.
  await server.waitForOutput(/Redis is back/, 5_000);
  const lines = server.logLines();
  assert.equal(lines.filter((line) => /Redis is unreachable/.test(line.msg)).length, 1, 'one warning per outage');
  assert.ok(lines.some((line) => line.level === 40 && /Redis is unreachable/.test(line.msg)));
  assert.deepEqual(
    lines.filter((line) => line.level >= 50),
    [],
    'nothing at error level',
  );
});

test('Redis hung with its connection open: checks are counted here after one command timeout, not each after its own, and limits are shared again once it answers', async (t) => {
  const started = await serverWithOwnRedis(t, 1000);
  if (!started) return;
  const { port, redis, server } = started;
  // What Redis ran: a command sent while it was stopped still runs once it goes on.
  const evalCalls = () =>
    Number(/cmdstat_eval:calls=(\d+)/.exec(spawnSync('redis-cli', ['-p', String(port), 'info', 'commandstats']).stdout.toString())?.[1] ?? 0);
  const before = evalCalls();

  redis.kill('SIGSTOP');
  t.after(() => redis.kill('SIGCONT'));
  const statuses: number[] = [];
  for (let n = 0; n < 20; n++) statuses.push(await keysStatus(server.api));
  assert.deepEqual(new Set(statuses), new Set([200]), 'served throughout');
  assert.deepEqual((await readiness(server.url)).body, { ok: true, degraded: ['redis'] });

  redis.kill('SIGCONT');
  const back = await waitFor(
    async () => (await keysStatus(server.api), await readiness(server.url)),
    (ready) => ready.body.degraded === undefined,
    20_000,
  );
  assert.deepEqual(back.body, { ok: true }, 'shared again without a reconnection');
  const tried = evalCalls() - before;
  assert.ok(tried < 10, `20 checks while it hung sent ${tried} commands to Redis: one, and a retry every few seconds, not one each`);
  await server.waitForOutput(/Redis is back/, 5_000);
});

test('PostgreSQL connections terminated: requests answer 503 with a sentence at worst, the next ones succeed, the process lives on', async (t) => {
  if (!process.env.TEST_DATABASE_URL) return t.skip('runs on PostgreSQL: set TEST_DATABASE_URL');
  const application = `lv_${randomBytes(4).toString('hex')}`;
  const env = await testEnv(t);
  const url = new URL(env.DATABASE_URL!);
  url.searchParams.set('application_name', application);
  env.DATABASE_URL = url.href;
  const server = await startServer(t, env);
  for (let i = 0; i < 3; i++) assert.equal(await keysStatus(server.api), 200);

  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  t.after(() => admin.end());
  const terminateAll = () =>
    admin.query('select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1', [application]);

  for (let round = 0; round < 3; round++) {
    const inFlight = Array.from({ length: 8 }, () => server.api.get('/api/links'));
    const { rows } = await terminateAll();
    assert.ok(rows[0].n >= 1, 'the server had connections to terminate');
    for (const answer of await Promise.all(inFlight)) {
      if (answer.status === 200) continue;
      const errors = server.logLines().filter((line) => line.level >= 50);
      assert.equal(answer.status, 503, JSON.stringify({ answer: answer.body, errors }));
      assert.match(answer.body.error, /database is unavailable/);
      assert.equal(answer.headers.get('retry-after'), '1');
    }
    await sleep(300);
    const after: number[] = [];
    for (let i = 0; i < 5; i++) after.push((await server.api.get('/api/links')).status);
    assert.deepEqual(after, [200, 200, 200, 200, 200], 'the next requests succeed');
  }
  assert.equal(server.child.exitCode, null, 'the server is still running');
  assert.deepEqual(
    server.logLines().filter((line) => line.level >= 50),
    [],
    'a lost connection is not a fault of ours',
  );
});

test('storage full: an upload answers 507 with a sentence, stores no link and leaves no temporary data', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]).status === 0;
  t.after(async () => {
    if (mounted) spawnSync('umount', [dir]);
    await fs.rm(dir, { recursive: true, force: true });
  });
  if (!requirePeer(t, mounted, 'cannot mount a small tmpfs to fill (needs root): the storage-full test runs as root')) return;
  const env = await testEnv(t, { STORAGE_URL: `file://${dir}` });
  const server = await startServer(t, env);

  const full = await uploadFile(server.api, randomBytes(3 * 1024 * 1024), 'too-big.txt');
  assert.equal(full.status, 507, JSON.stringify(full.body));
  assert.match(full.body.error, /storage is full: nothing was stored/);
  assert.equal((await server.api.get('/api/links')).body.pagination.total, 0, 'no link');
  assert.deepEqual(await listFiles(dir), [], 'no blob and no temporary file');

  const fits = await uploadFile(server.api, randomBytes(10 * 1024), 'small.txt');
  assert.equal(fits.status, 200, 'space again, uploads again');
  assert.ok(
    server.logLines().some((line) => line.level === 50 && /request failed/.test(line.msg)),
    'a full disk is logged for the operator',
  );
});
