import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testEnv } from '../../test/helpers/app.js';
import { loadConfig } from '../config.js';
import { insertAccount } from '../modules/accounts/accounts.repo.js';
import { openDatabase } from './kysely.js';

test("a precompiled read never sees another request's uncommitted writes, and sees them once committed", async (t) => {
  const handle = openDatabase(loadConfig(await testEnv(t)).database);
  t.after(() => handle.close());
  await handle.migrate();
  const { db } = handle;
  const emailsOf = handle.precompile<{ email: string }, [plan: string]>(1, (plan) =>
    db.selectFrom('accounts').select('email').where('plan', '=', plan).orderBy('id'),
  );
  await insertAccount(db, { email: 'committed@example.com', name: null, plan: 'business', createdAt: 1 });

  let insideTransaction!: () => void;
  let finishTransaction!: () => void;
  const inserted = new Promise<void>((resolve) => (insideTransaction = resolve));
  const transaction = db.transaction().execute(async (trx) => {
    await insertAccount(trx, { email: 'pending@example.com', name: null, plan: 'business', createdAt: 2 });
    insideTransaction();
    await new Promise<void>((resolve) => (finishTransaction = resolve));
  });
  await inserted;
  let committed = false;
  // SQLite's single connection makes the read wait for the commit; PostgreSQL reads from another connection at once.
  const duringTransaction = emailsOf('business').then((rows) => ({ rows, afterCommit: committed }));
  // Give the read every chance to run inside the open transaction before it ends.
  await new Promise((resolve) => setTimeout(resolve, 20));
  committed = true;
  finishTransaction();
  await transaction;

  const { rows, afterCommit } = await duringTransaction;
  const emails = rows.map((row) => row.email);
  if (handle.kind === 'sqlite') {
    assert.ok(afterCommit, 'the read waited for the commit');
    assert.deepEqual(emails, ['committed@example.com', 'pending@example.com']);
  } else {
    // PostgreSQL's read may take its snapshot before the commit yet answer after it (a slow
    // connection under load): what it must never do is show the row before the commit.
    assert.ok(emails.includes('committed@example.com'));
    if (!afterCommit) assert.deepEqual(emails, ['committed@example.com'], 'no uncommitted row');
  }
  assert.deepEqual(
    (await emailsOf('business')).map((row) => row.email),
    ['committed@example.com', 'pending@example.com'],
  );
  assert.deepEqual(await emailsOf('free'), []);
});

test('a precompiled query must use each parameter once, in order', async (t) => {
  const handle = openDatabase(loadConfig(await testEnv(t)).database);
  t.after(() => handle.close());
  const { db } = handle;
  assert.throws(
    () =>
      handle.precompile<{ email: string }, [a: string, b: string]>(2, (a, b) =>
        db.selectFrom('accounts').select('email').where('plan', '=', b).where('email', '=', a),
      ),
    /must use its 2 parameters once each, in order/,
  );
});

test('a precompiled read answers plain rows keyed by column name, joins included', async (t) => {
  const handle = openDatabase(loadConfig(await testEnv(t)).database);
  t.after(() => handle.close());
  await handle.migrate();
  const { db } = handle;
  const accountId = await insertAccount(db, { email: 'rows@example.com', name: 'Rows "quoted"', plan: 'professional', createdAt: 1234 });
  const accountsOf = handle.precompile<{ id: number; email: string; name: string | null; plan: string; created_at: number }, [id: number]>(1, (id) =>
    db
      .selectFrom('accounts')
      .select(['id', 'email', 'name', 'plan', 'created_at'])
      .where('id', '=', id as unknown as number),
  );
  const [row] = await accountsOf(accountId);
  assert.deepEqual(
    { ...row, created_at: Number(row!.created_at) },
    { id: accountId, email: 'rows@example.com', name: 'Rows "quoted"', plan: 'professional', created_at: 1234 },
  );
  assert.deepEqual(Object.keys(row!), ['id', 'email', 'name', 'plan', 'created_at']);
  assert.deepEqual(await accountsOf(accountId + 1), []);
});
