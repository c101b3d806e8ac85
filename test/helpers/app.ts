import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Plan } from '../../src/core/plans.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { createHttpClient, type HttpClient } from './http.js';

export interface TestApp {
  url: string;
  app: FastifyInstance;
  runtime: Runtime;
  dataDir: string;
  /** environment the app was configured with (for child processes that share its database) */
  env: Record<string, string>;
  /** A fresh account with its default key, and an HTTP client that sends that key. */
  createAccount(plan?: Plan): Promise<{ accountId: number; apiKey: string; email: string; http: HttpClient }>;
  http(apiKey?: string): HttpClient;
}

/**
 * A PostgreSQL schema of its own per test app (when TEST_DATABASE_URL is set), so tests
 * run in parallel against one server without seeing each other's rows.
 */
async function isolatedPostgresUrl(t: TestContext, baseUrl: string): Promise<string> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  t.after(async () => {
    const cleanup = new pg.Client({ connectionString: baseUrl });
    await cleanup.connect();
    await cleanup.query(`drop schema ${schema} cascade`);
    await cleanup.end();
  });
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

/** The environment of a test app: its own data dir, database schema and Redis prefix. */
export async function testEnv(t: TestContext, overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-test-'));
  t.after(() => fs.rm(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    MASTER_KEY: randomBytes(32).toString('base64'),
    REDIS_PREFIX: `lvtest:${randomBytes(4).toString('hex')}:`,
  };
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = await isolatedPostgresUrl(t, process.env.TEST_DATABASE_URL);
  if (process.env.TEST_REDIS_URL) env.REDIS_URL = process.env.TEST_REDIS_URL;
  return { ...env, ...overrides };
}

/** Builds the real app over a fresh database and listens on a random loopback port. */
export async function startApp(
  t: TestContext,
  options: { env?: Record<string, string>; clock?: () => number } = {},
): Promise<TestApp> {
  const env = await testEnv(t, options.env);
  const runtime = await createRuntime(loadConfig(env), { clock: options.clock });
  const app = await buildApp(runtime);
  runtime.startBackgroundWork();
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(async () => {
    await app.close();
    await runtime.close();
  });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  let accounts = 0;
  return {
    url,
    app,
    runtime,
    dataDir: env.DATA_DIR!,
    env,
    http: (apiKey) => createHttpClient(url, apiKey),
    async createAccount(plan = 'business') {
      const email = `owner${++accounts}-${randomBytes(3).toString('hex')}@example.com`;
      const { accountId, apiKey } = await runtime.services.accounts.create({ email, plan });
      return { accountId, apiKey, email, http: createHttpClient(url, apiKey) };
    },
  };
}
