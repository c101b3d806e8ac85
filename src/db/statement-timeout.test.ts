import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { startApp, testEnv } from '../../test/helpers/app.js';
import { loadConfig } from '../config.js';
import { openDatabase } from './kysely.js';

/** Connected; a test that fails before ending it leaves it to be cut by its database's drop (with force), which is not an error of the test. */
async function endsBeforeItsDatabase(t: TestContext, client: pg.Client): Promise<void> {
  await client.connect();
  let ended = false;
  client.on('end', () => (ended = true));
  client.on('error', (error) => {
    if (!ended) t.diagnostic(`the second client failed: ${error.message}`);
  });
  t.after(() => (ended ? undefined : client.end()));
}

const onPostgres = process.env.TEST_DATABASE_URL ? {} : { skip: 'PostgreSQL only (TEST_DATABASE_URL)' };

test(
  'a request stuck behind a lock that a stalled transaction holds answers 503 after DATABASE_STATEMENT_TIMEOUT_SECONDS, and works once it ends',
  onPostgres,
  async (t) => {
    const app = await startApp(t, { env: { DATABASE_STATEMENT_TIMEOUT_SECONDS: '1' } });
    const { accountId, http } = await app.createAccount();

    // Another client of the same database (an operator's session, a stuck replica) holds the account's row.
    const stalled = new pg.Client({ connectionString: app.env.DATABASE_URL });
    await endsBeforeItsDatabase(t, stalled);
    await stalled.query('begin');
    await stalled.query('select id from accounts where id = $1 for update', [accountId]);

    const started = performance.now();
    const refused = await http.post('/api/api-keys', { name: 'while locked' });
    const waitedMs = performance.now() - started;
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.match(String(refused.body.error), /took too long/);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.ok(waitedMs >= 900 && waitedMs < 10_000, `answered after ${Math.round(waitedMs)} ms`);

    await stalled.query('rollback');
    const made = await http.post('/api/api-keys', { name: 'after the lock' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    await stalled.end();
  },
);

test('migrations run without the statement timeout: one that waits longer for its lock still completes', onPostgres, async (t) => {
  const env = await testEnv(t, { DATABASE_STATEMENT_TIMEOUT_SECONDS: '1' });
  const handle = openDatabase(loadConfig(env).database);
  t.after(() => handle.close());
  assert.equal((await (await handle.migrator()).migrateTo('0034-unverified-addresses')).error, undefined);

  // A reader of the jobs table (a long report) keeps 0035's ALTER TABLE waiting for 2 s.
  const reader = new pg.Client({ connectionString: env.DATABASE_URL });
  await endsBeforeItsDatabase(t, reader);
  await reader.query('begin');
  await reader.query('lock table jobs in access share mode');
  const released = delay(2000).then(() => reader.query('rollback'));

  await handle.migrate();
  await released;
  await reader.end();
  assert.deepEqual((await handle.migrationStatus()).pending, []);
  // Requests still have their limit on the connection the migrations used.
  const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(handle.db);
  assert.equal(rows[0]?.statement_timeout, '1s');
});
