import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { listTables, schemaExists } from '../db/inventory.js';
import { openDatabase } from '../db/kysely.js';
import { PG_DUMP_FILE, type Manifest } from './backup-manifest.js';
import { CommandError } from './command-error.js';
import { pgRestoreArguments, pgRestoreCommand, schemaOf } from './pg-guidance.js';
import { runPostgresTool } from './pg-tools.js';

/** A backup's PostgreSQL dump, read and checked against the target before the restore writes anything. */
export interface CheckedDump {
  file: string;
  /** pg_restore's table of contents of the dump, one entry a line. */
  contents: string[];
  /** The schema of linkvault's tables in the dump, which must be the target's. */
  schema: string;
}

const MIGRATIONS_TABLE = 'kysely_migration';
const schemaOfTable = (line: string, table: string) => new RegExp(`^\\d+; \\d+ \\d+ TABLE (\\S+) ${table} `).exec(line)?.[1];
const isSchemaEntry = (line: string, schema: string) => new RegExp(`^\\d+; \\d+ \\d+ SCHEMA - ${schema} `).test(line);

/**
 * The dump is there, pg_restore can read it (it is on PATH, and of a major version no older than
 * pg_dump's), it holds linkvault's tables, and in the schema DATABASE_URL names: a dump of schema
 * `a` loaded through a URL naming `b` would land in `a`, beside whatever is there.
 */
export async function checkPostgresDump(from: string, databaseUrl: string): Promise<CheckedDump> {
  const file = path.join(from, PG_DUMP_FILE);
  if (!fs.existsSync(file)) {
    throw new CommandError(
      `the backup holds no ${PG_DUMP_FILE}: put the dump that pg_dump wrote at backup time in ${from} as ${PG_DUMP_FILE}, then run restore again`,
    );
  }
  const listing = await runPostgresTool(
    'pg_restore',
    ['--list', file],
    undefined,
    (reason) =>
      `pg_restore cannot read the backup's database dump (${reason}): install PostgreSQL's client tools of the server's major version, or restore another backup`,
  );
  const contents = listing.split('\n').filter((line) => line && !line.startsWith(';'));
  const schema = contents.map((line) => schemaOfTable(line, MIGRATIONS_TABLE)).find((name) => name !== undefined);
  if (!schema)
    throw new CommandError(`the backup's database dump holds no linkvault database (no ${MIGRATIONS_TABLE} table): restore another backup`);
  const target = schemaOf(databaseUrl) ?? 'public';
  if (schema !== target) {
    throw new CommandError(
      `the backup's database is in the schema ${schema}, but DATABASE_URL names ${target}: restore into a DATABASE_URL whose search_path is ${schema}${schema === 'public' ? ' (or sets none)' : ''}`,
    );
  }
  return { file, contents, schema };
}

async function targetHasSchema(databaseUrl: string, schema: string): Promise<boolean> {
  const database = openDatabase({ kind: 'postgres', url: databaseUrl });
  try {
    return await schemaExists(database.db, schema);
  } finally {
    await database.close();
  }
}

/**
 * Loads the dump with pg_restore in one transaction, so that a failure or a kill leaves the
 * database empty. A schema already made for linkvault (empty: the restore checked its tables)
 * is kept rather than created again, which pg_restore would refuse.
 */
export async function loadPostgresDump(databaseUrl: string, dump: CheckedDump): Promise<string> {
  let scratch: string | undefined;
  try {
    let listFile: string | undefined;
    if (dump.contents.some((line) => isSchemaEntry(line, dump.schema)) && (await targetHasSchema(databaseUrl, dump.schema))) {
      scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'linkvault-restore-'));
      listFile = path.join(scratch, 'contents.list');
      await fsp.writeFile(listFile, dump.contents.filter((line) => !isSchemaEntry(line, dump.schema)).join('\n') + '\n');
    }
    await runPostgresTool(
      'pg_restore',
      pgRestoreArguments(databaseUrl, dump.file, listFile),
      databaseUrl,
      (reason) =>
        `pg_restore failed (${reason}); the database was left as it was: check DATABASE_URL and the PostgreSQL client tools' version, then run restore again`,
    );
    return pgRestoreCommand(databaseUrl, dump.file);
  } finally {
    if (scratch) await fsp.rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Whether an interrupted restore had already loaded the database: pg_restore is its last step and
 * commits all or nothing, so a database holding this backup's migrations, exactly, is that load.
 */
export async function holdsRestoredDump(databaseUrl: string, manifest: Manifest): Promise<boolean> {
  const database = openDatabase({ kind: 'postgres', url: databaseUrl });
  try {
    if ((await listTables(database.db, 'postgres')).length === 0) return false;
    const { applied, unknown } = await database.migrationStatus();
    const recorded = [...applied, ...unknown].sort();
    const backedUp = [...manifest.database.migrations].sort();
    return recorded.length === backedUp.length && recorded.every((name, index) => name === backedUp[index]);
  } finally {
    await database.close();
  }
}
