import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig, type DatabaseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/kysely.js';
import type { Plan } from '../../src/core/plans.js';
import { findSoffice } from '../../src/infra/convert/locate-soffice.js';
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

async function onPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function dropDatabase(baseUrl: string, name: string): Promise<unknown> {
  return onPostgres(baseUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
}

/** `baseUrl` pointed at the database `name` on the same server. */
function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.href;
}

let processDatabase: Promise<string> | undefined;
let dropProcessDatabase: (() => Promise<unknown>) | undefined;
// Registered while the test file loads, so it runs once, after all of the file's tests.
after(() => dropProcessDatabase?.());

/**
 * A database of this test process's own, dropped when its tests end. Kysely's migrator looks
 * at every schema of its database, so a schema dropped by a test running in another process
 * could fail a migration here.
 */
function databaseOfThisProcess(baseUrl: string): Promise<string> {
  processDatabase ??= (async () => {
    const name = `linkvault_test_${process.pid}_${randomBytes(3).toString('hex')}`;
    await onPostgres(baseUrl, (client) => client.query(`create database ${name}`));
    dropProcessDatabase = () => dropDatabase(baseUrl, name);
    return databaseUrl(baseUrl, name);
  })();
  return processDatabase;
}

/**
 * A PostgreSQL schema of its own per test app (when TEST_DATABASE_URL is set), in a database
 * of the test process's own, so test files run in parallel against one server unseen. The schema
 * goes with that database, after the file's last test, not after its own: a file's tests may run
 * at once (`process.test.ts`), and a schema dropped while another test's migration reads every
 * schema of the database fails that migration ("schema … does not exist").
 */
async function isolatedPostgresUrl(baseUrl: string): Promise<string> {
  const databaseUrl = await databaseOfThisProcess(baseUrl);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await onPostgres(databaseUrl, (client) => client.query(`create schema ${schema}`));
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

/**
 * A new, empty PostgreSQL database on the server of `url`, dropped after the test: `url` pointed
 * at it, keeping its options (its search_path names a schema that is not there yet).
 */
export async function emptyDatabaseBeside(t: TestContext, url: string): Promise<string> {
  const name = `linkvault_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await onPostgres(url, (client) => client.query(`create database ${name}`));
  t.after(() => dropDatabase(url, name));
  return databaseUrl(url, name);
}

let template: Promise<string> | undefined;
let dropTemplate: (() => Promise<unknown>) | undefined;
/** The next app's PostgreSQL copy, made while the current test runs. */
let spareCopy: Promise<string> | undefined;
after(async () => {
  const spare = await spareCopy?.catch(() => undefined);
  if (spare) await dropDatabase(process.env.TEST_DATABASE_URL!, spare);
  await dropTemplate?.();
});

/**
 * A database this process migrated once: an SQLite file, or a PostgreSQL database named by the
 * answer. Each app copies it rather than running every migration again, which costs about
 * 0.15 s on SQLite and 1 s on PostgreSQL for each of the suite's several hundred apps.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const baseUrl = process.env.TEST_DATABASE_URL;
    if (!baseUrl) {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-template-'));
      dropTemplate = () => fs.rm(dir, { recursive: true, force: true });
      const file = path.join(dir, 'linkvault.db');
      await migrated({ kind: 'sqlite', file });
      return file;
    }
    const name = `linkvault_template_${process.pid}_${randomBytes(3).toString('hex')}`;
    await onPostgres(baseUrl, (client) => client.query(`create database ${name}`));
    dropTemplate = () => dropDatabase(baseUrl, name);
    await migrated({ kind: 'postgres', url: databaseUrl(baseUrl, name) });
    return name;
  })();
  return template;
}

async function migrated(config: DatabaseConfig): Promise<void> {
  const handle = openDatabase(config);
  try {
    await handle.migrate();
  } finally {
    await handle.close();
  }
}

/** A migrated database of the app's own, copied from the template: a file in its data dir, or a database dropped after the test. */
async function migratedCopy(t: TestContext, dataDir: string): Promise<string | undefined> {
  const source = await migratedTemplate();
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) {
    await fs.copyFile(source, path.join(dataDir, 'linkvault.db'));
    return undefined;
  }
  // A copy takes about 0.4 s of the server's time: each app takes the one made ahead and orders the next.
  const copy = spareCopy ?? postgresCopy(baseUrl, source);
  spareCopy = postgresCopy(baseUrl, source);
  spareCopy.catch(() => {}); // reported to the app that takes it
  const name = await copy;
  t.after(() => dropDatabase(baseUrl, name));
  return databaseUrl(baseUrl, name);
}

async function postgresCopy(baseUrl: string, template: string): Promise<string> {
  const name = `linkvault_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await onPostgres(baseUrl, (client) => client.query(`create database ${name} template ${template}`));
  return name;
}

const NO_LIBREOFFICE = 'none';
/** The env override that gives a test app this machine's LibreOffice (undefined when it has none). */
export const WITH_LIBREOFFICE: Record<string, string> | undefined = (() => {
  const found = findSoffice(process.env.SOFFICE_PATH, process.env.PATH);
  return found ? { SOFFICE_PATH: found } : undefined;
})();

/**
 * The environment of a test app: its own data dir, database and Redis prefix. The database is
 * empty (a schema of its own on PostgreSQL) unless `migrated`, for an app about to start.
 */
export async function testEnv(
  t: TestContext,
  overrides: Record<string, string> = {},
  options: { migrated?: boolean } = {},
): Promise<Record<string, string>> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-test-'));
  t.after(() => fs.rm(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    MASTER_KEY: randomBytes(32).toString('base64'),
    REDIS_PREFIX: `lvtest:${randomBytes(4).toString('hex')}:`,
    // A test server stops at once; the shutdown test sets its own drain.
    SHUTDOWN_DRAIN_SECONDS: '0',
    // LibreOffice costs seconds of CPU per file: the many tests that upload a .txt or .csv run
    // without it (their documents end failed, as on a server without it); the conversion tests
    // pass WITH_LIBREOFFICE.
    SOFFICE_PATH: NO_LIBREOFFICE,
  };
  if (options.migrated && overrides.DATABASE_URL === undefined) {
    const url = await migratedCopy(t, dataDir);
    if (url) env.DATABASE_URL = url;
  } else if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = await isolatedPostgresUrl(process.env.TEST_DATABASE_URL);
  if (process.env.TEST_REDIS_URL) env.REDIS_URL = process.env.TEST_REDIS_URL;
  return { ...env, ...overrides };
}

/** The real app over `env`, listening on a random loopback port; `close` ends it and its runtime. */
async function serve(env: Record<string, string>, clock?: () => number) {
  const runtime = await createRuntime(loadConfig(env), { clock });
  const app = await buildApp(runtime);
  const close = async () => {
    // The test is over: every connection goes now. Node does not always count a finished
    // keep-alive connection as idle (seen after a client left an answer unread): close() then
    // waited about 70 s for the server's timeouts to drop it.
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
    await runtime.close();
  };
  runtime.startBackgroundWork();
  await app.listen({ host: '127.0.0.1', port: Number(env.PORT) });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  return { url: `http://127.0.0.1:${address.port}`, app, runtime, close };
}

/**
 * Another replica of `of`: a second runtime on the same database, data folder, master key and
 * Redis prefix, as a second process behind a balancer would be; closed with it.
 */
export async function startReplica(of: TestApp): Promise<{ url: string; runtime: Runtime }> {
  const replica = await serve(of.env);
  // Closed with `of`, before its database goes.
  replicasOf.get(of)!.push(replica.close);
  return { url: replica.url, runtime: replica.runtime };
}

const replicasOf = new WeakMap<TestApp, Array<() => Promise<void>>>();

/** Builds the real app over a fresh database and listens on a random loopback port. */
export async function startApp(t: TestContext, options: { env?: Record<string, string>; clock?: () => number } = {}): Promise<TestApp> {
  // Registered before testEnv's hooks, which run after it (in order): the app flushes and
  // closes while its database schema still exists.
  let close = async () => {};
  t.after(() => close());
  const env = await testEnv(t, options.env, { migrated: true });
  const served = await serve(env, options.clock);
  const replicas: Array<() => Promise<void>> = [];
  close = async () => {
    for (const closeReplica of replicas) await closeReplica();
    await served.close();
  };
  const { url, app, runtime } = served;
  let accounts = 0;
  const testApp: TestApp = {
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
  replicasOf.set(testApp, replicas);
  return testApp;
}
