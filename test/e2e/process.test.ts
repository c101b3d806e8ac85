import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { describe, test } from 'node:test';
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig, ConfigError } from '../../src/config.js';
import { openDatabase } from '../../src/db/kysely.js';
import { migrationNames } from '../../src/db/migrations/index.js';
import { testEnv } from '../helpers/app.js';
import { runCli, startServerProcess } from '../helpers/process.js';

// The tests spawn processes and mostly wait on them: they run side by side.
describe('the process: configuration, CLI and shutdown', { concurrency: true }, () => {
  test('a bad configuration value, or an address the server cannot listen on, stops the start with one line naming it', async (t) => {
    const env = await testEnv(t);
    const holder = net.createServer().listen(0, '127.0.0.1');
    t.after(() => holder.close());
    await once(holder, 'listening');
    const taken = (holder.address() as net.AddressInfo).port;
    // A PostgreSQL that accepts connections and never answers (a stopped VM, a firewall that drops), and a port nobody listens on.
    const silent = net.createServer(() => undefined).listen(0, '127.0.0.1');
    t.after(() => silent.close());
    await once(silent, 'listening');
    const closed = net.createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const refusing = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const postgresAt = (port: number) => `postgres://linkvault:hunter2@127.0.0.1:${port}/linkvault`;
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'eighty' }, /^linkvault: PORT must be an integer from 0 to 65535/],
      [{ DATABASE_URL: 'mysql://x' }, /^linkvault: DATABASE_URL must start with postgres:\/\//],
      [{ MASTER_KEY: 'short' }, /^linkvault: MASTER_KEY must be 32 bytes/],
      [{ LOG_LEVEL: 'loud' }, /^linkvault: LOG_LEVEL must be one of/],
      [{ STORAGE_URL: 'ftp://x' }, /^linkvault: STORAGE_URL must be a URL starting with s3: or file:/],
      [{ DATABASE_URL: `sqlite:${env.DATA_DIR}` }, /^linkvault: DATABASE_URL names the folder .*: name the database file in it/],
      [{ HOST: 'not a host' }, /^linkvault: HOST must be an IP address or a host name/],
      [{ WEBHOOK_CA_FILE: `${env.DATA_DIR}/missing.pem` }, /^linkvault: WEBHOOK_CA_FILE .* does not exist/],
      [{ HOST: 'no-such-host.invalid' }, /^linkvault: cannot listen on no-such-host\.invalid port 0: the host name does not resolve/],
      [{ PORT: String(taken) }, /^linkvault: cannot listen on 127\.0\.0\.1 port \d+: another process uses that port/],
      [{ DATABASE_URL: postgresAt(refusing) }, /^linkvault: cannot connect to the database: connect ECONNREFUSED .*; check DATABASE_URL/],
      [
        { DATABASE_URL: postgresAt((silent.address() as net.AddressInfo).port) },
        /^linkvault: cannot connect to the database: it did not answer within 10 s; check DATABASE_URL/,
      ],
    ];
    // Each case is a process of its own: they start side by side. One that waits instead of stopping is killed after a minute.
    const results = await Promise.all(cases.map(([bad]) => runCli(['serve'], { ...env, ...bad }, 60_000)));
    for (const [index, [bad, message]] of cases.entries()) {
      const result = results[index]!;
      assert.equal(result.code, 1, JSON.stringify(bad));
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /hunter2/);
    }
  });

  test('a DATA_DIR that cannot be used, and a database a newer release migrated, stop the start with one line saying so', async (t) => {
    const env = await testEnv(t);
    assert.equal((await runCli(['migrate'], env)).code, 0);
    const database = openDatabase(loadConfig(env).database);
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-a-newer-release', '2030-01-01')`.execute(database.db);
    await database.close();
    const newer = await runCli(['serve'], env, 60_000);
    assert.equal(newer.code, 1);
    assert.equal(
      newer.stderr.trim(),
      `linkvault: the database records migration 9999-from-a-newer-release, which this linkvault (latest migration ${migrationNames().at(-1)}) does not know: it was used by a newer release; run that release or a later one`,
    );

    const file = path.join(env.DATA_DIR!, 'a-file');
    await fs.writeFile(file, '');
    const underFile = await runCli(['serve'], { ...env, DATA_DIR: path.join(file, 'data'), DATABASE_URL: '' }, 60_000);
    assert.equal(underFile.code, 1);
    assert.match(
      underFile.stderr,
      /^linkvault: cannot use .*a-file\/data.*: part of that path is a file, not a folder; DATA_DIR \(.*\) must be a folder that the user running linkvault may write\n$/,
    );
  });

  test('loadConfig applies defaults and rejects every malformed variable', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
    assert.equal(config.database.kind, 'sqlite');
    assert.equal(config.storage.kind, 'local');
    assert.equal(config.rateLimitPerMinute, 600);
    assert.deepEqual(loadConfig({ STORAGE_URL: 's3://bucket-one?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true' }).storage, {
      kind: 's3',
      bucket: 'bucket-one',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    for (const env of [
      { PUBLIC_URL: 'not a url' },
      { REDIS_URL: 'http://x' },
      { SMTP_URL: 'smtp' },
      { PLATFORM_FEE_PERCENT: '101' },
      { TRUST_PROXY: 'maybe' },
      { RATE_LIMIT_PER_MINUTE: '0' },
      { MAIL_FROM: 'nobody' },
      { STORAGE_URL: 's3://x' },
      { ALLOW_PRIVATE_WEBHOOKS: 'yes' },
      { STRIPE_API_BASE: 'ftp://stripe' },
    ]) {
      assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    }
  });

  test('CLI: accounts create, set-plan, keys create and migrate', async (t) => {
    const env = await testEnv(t);
    const created = await runCli(['accounts', 'create', '--email', 'Owner@Example.com', '--plan', 'business', '--name', 'Owner'], env);
    assert.equal(created.code, 0, created.stderr);
    const lines = created.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const account = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(account).sort(), ['accountId', 'apiKey']);
    assert.match(account.apiKey, /^lvk_[0-9A-Za-z]{40}$/);

    const duplicate = await runCli(['accounts', 'create', '--email', 'owner@example.com', '--plan', 'free'], env);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /already exists/);

    const badPlan = await runCli(['accounts', 'create', '--email', 'x@example.com', '--plan', 'gold'], env);
    assert.equal(badPlan.code, 1);
    assert.match(badPlan.stderr, /--plan must be one of free, professional, business/);

    const setPlan = await runCli(['accounts', 'set-plan', '--email', 'owner@example.com', '--plan', 'free'], env);
    assert.equal(setPlan.code, 0, setPlan.stderr);
    const missing = await runCli(['accounts', 'set-plan', '--email', 'ghost@example.com', '--plan', 'free'], env);
    assert.equal(missing.code, 1);

    const key = await runCli(['keys', 'create', '--email', 'owner@example.com', '--name', 'laptop'], env);
    assert.equal(key.code, 0, key.stderr);
    assert.match(JSON.parse(key.stdout).apiKey, /^lvk_/);

    const migrate = await runCli(['migrate'], env);
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.equal((await runCli(['frobnicate'], env)).code, 1);

    // The CLI's changes are what the server sees.
    const server = await startServerProcess(t, env);
    const response = await fetch(`${server.url}/api/api-keys`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    assert.equal(response.status, 403, 'the account was moved to the free plan');
  });

  test('CLI: accounts delete takes --yes, then deletes the account, its keys and its files; another account stays', async (t) => {
    const env = await testEnv(t);
    const create = async (email: string) => JSON.parse((await runCli(['accounts', 'create', '--email', email, '--plan', 'business'], env)).stdout);
    const doomed = await create('doomed@example.com');
    const kept = await create('kept@example.com');
    const server = await startServerProcess(t, env);
    const asKey = (key: string) => ({ authorization: `Bearer ${key}` });
    const form = new FormData();
    form.append('file', new Blob(['terms of the deal']), 'terms.txt');
    const uploaded = await fetch(`${server.url}/api/upload`, { method: 'POST', headers: asKey(doomed.apiKey), body: form });
    assert.equal(uploaded.status, 200);
    const { id } = (await uploaded.json()) as { id: string };
    const folder = path.join(env.DATA_DIR!, 'blobs', 'links', id);
    assert.equal((await fs.readdir(folder)).length, 1);

    const unconfirmed = await runCli(['accounts', 'delete', '--email', 'doomed@example.com'], env);
    assert.equal(unconfirmed.code, 1);
    assert.match(unconfirmed.stderr, /deleting an account cannot be undone: add --yes/);
    assert.equal((await runCli(['accounts', 'delete', '--email', 'ghost@example.com', '--yes'], env)).code, 1);

    const deleted = await runCli(['accounts', 'delete', '--email', 'doomed@example.com', '--yes'], env);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(JSON.parse(deleted.stdout), { ok: true, files: 1 });
    await assert.rejects(fs.readdir(folder), { code: 'ENOENT' }, 'the file went with it, no server needed');
    // The server knows a key it resolved for up to a second more.
    let status = 0;
    for (let tries = 0; tries < 30 && status !== 401; tries++) {
      status = (await fetch(`${server.url}/api/links`, { headers: asKey(doomed.apiKey) })).status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 401, 'its keys are gone');
    assert.equal((await fetch(`${server.url}/api/links`, { headers: asKey(kept.apiKey) })).status, 200);
  });

  test('SIGTERM lets an in-flight request finish, then exits 0', async (t) => {
    const env = await testEnv(t);
    const account = JSON.parse((await runCli(['accounts', 'create', '--email', 'drain@example.com', '--plan', 'business'], env)).stdout);
    const server = await startServerProcess(t, env);
    const body = JSON.stringify({ name: 'made during shutdown' });

    const response = new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
      const request = http.request(
        `${server.url}/api/api-keys`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 5));
      // The request is in flight (headers and part of the body sent) when the signal arrives.
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(5)), 300);
      }, 200);
    });

    const answered = await response;
    assert.equal(answered.status, 200, answered.body);
    assert.equal(JSON.parse(answered.body).api_key.name, 'made during shutdown');
    assert.equal(answered.connection, 'close', 'the answer closes its keep-alive connection');
    assert.equal(await server.exited, 0);
  });

  test('SIGTERM drains (readyz 503, requests still served), cuts an upload slower than the grace period, leaves nothing of it, and exits 0 with a warning', async (t) => {
    const env = await testEnv(t, { SHUTDOWN_DRAIN_SECONDS: '1', SHUTDOWN_GRACE_SECONDS: '1' });
    const account = JSON.parse((await runCli(['accounts', 'create', '--email', 'slow@example.com', '--plan', 'professional'], env)).stdout);
    const server = await startServerProcess(t, env);
    let log = '';
    server.child.stdout.on('data', (chunk) => (log += chunk));

    const boundary = 'linkvault-slow-upload';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.pdf"\r\n\r\n`;
    const upload = http.request(`${server.url}/api/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.apiKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': Buffer.byteLength(head) + 10 * 1024 * 1024,
      },
    });
    const cut = new Promise<string>((resolve) => {
      upload.on('error', (error) => resolve(error.message));
      upload.on('response', (response) => resolve(`answered ${response.statusCode}`));
    });
    upload.write(head);
    upload.write(Buffer.alloc(64 * 1024, 0x61)); // and never the rest: slower than any grace period
    await new Promise((resolve) => setTimeout(resolve, 300));

    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await fetch(`${server.url}/readyz`)).status, 503, 'draining: the balancer is told to stop sending work');
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'draining: requests are still served');

    assert.match(await cut, /socket hang up|ECONNRESET|closed/i, 'the upload is cut');
    assert.equal(await server.exited, 0);
    assert.deepEqual(await fs.readdir(path.join(env.DATA_DIR!, 'blobs', '.tmp')), [], 'the cut upload left no temporary file behind it');
    const lines = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    assert.ok(
      lines.some((line) => line.level === 40 && /grace period over/.test(line.msg)),
      'cutting is a warning',
    );
    assert.deepEqual(
      lines.filter((line) => line.level >= 50),
      [],
      'nothing at error level',
    );
  });
});
