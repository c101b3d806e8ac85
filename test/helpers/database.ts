import type { TestContext } from 'node:test';
import type { Migrator } from 'kysely/migration';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db, type DatabaseHandle } from '../../src/db/kysely.js';
import { testEnv } from './app.js';

/**
 * A migrated database of the test's own (an SQLite file, or a PostgreSQL database when
 * TEST_DATABASE_URL is set) and a way to open another connection to it, as another replica would.
 */
export async function openTestDatabase(t: TestContext): Promise<{ handle: DatabaseHandle; reopen(): DatabaseHandle }> {
  const handles: DatabaseHandle[] = [];
  // Registered before testEnv's own cleanup so connections close before the schema or file goes.
  t.after(() => Promise.all(handles.map((handle) => handle.close())));
  const config = loadConfig(await testEnv(t, {}, { migrated: true })).database;
  const reopen = () => {
    const handle = openDatabase(config);
    handles.push(handle);
    return handle;
  };
  const handle = reopen();
  await handle.migrate();
  return { handle, reopen };
}

/**
 * An empty database of the test's own with a migrator over it, for a test of an upgrade: it
 * migrates to the release before, writes that release's rows, then migrates to the latest.
 */
export async function openUnmigratedDatabase(t: TestContext): Promise<{ db: Db; migrator: Migrator; kind: DatabaseHandle['kind'] }> {
  const handle = openDatabase(loadConfig(await testEnv(t)).database);
  t.after(() => handle.close());
  return { db: handle.db, migrator: await handle.migrator(), kind: handle.kind };
}
