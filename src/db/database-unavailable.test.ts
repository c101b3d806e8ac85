import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { sql } from 'kysely';
import { isDatabaseUnavailable } from './executor.js';
import { openDatabase } from './kysely.js';

test('a PostgreSQL server that cannot be reached is told apart from other errors, so requests answer 503', async (t) => {
  // A port that was free a moment ago: nothing listens on it.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));

  const handle = openDatabase({ kind: 'postgres', url: `postgres://nobody@127.0.0.1:${port}/none` });
  t.after(() => handle.close());
  const error = await sql`select 1`.execute(handle.db).then(
    () => assert.fail('the query should not run'),
    (err: unknown) => err,
  );
  assert.ok(isDatabaseUnavailable(error), String(error));
  assert.ok(!isDatabaseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), 'a client socket error is not the database');
});
