import { sql } from 'kysely';
import { openDatabase, type Db } from './kysely.js';

/** SQLite's own check of a database file: undefined when it answers ok, else its first complaint. */
export async function integrityProblem(db: Db): Promise<string | undefined> {
  const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
  const first = rows[0]?.integrity_check ?? 'no answer';
  return first === 'ok' ? undefined : first;
}

/** Every table, index, trigger and view by `<type> <name>`, with the SQL that made it (its columns). */
async function schemaOf(db: Db): Promise<Map<string, string | null>> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`select type, name, sql from sqlite_master
    where name not like 'sqlite_%' order by type, name`.execute(db);
  return new Map(rows.map((row) => [`${row.type} ${row.name}`, row.sql]));
}

/**
 * The first difference between the schema of `db` and that of a new SQLite database at
 * `referenceFile` migrated up to `migration`; undefined when they are the same. A trigger or a
 * view added to a copied database would act on every later write, unseen by linkvault.
 */
export async function schemaDifference(db: Db, migration: string, referenceFile: string): Promise<string | undefined> {
  const reference = openDatabase({ kind: 'sqlite', file: referenceFile });
  let expected: Map<string, string | null>;
  try {
    const { error } = await (await reference.migrator()).migrateTo(migration);
    if (error) throw error;
    expected = await schemaOf(reference.db);
  } finally {
    await reference.close();
  }
  const actual = await schemaOf(db);
  for (const [object, definition] of actual) {
    if (!expected.has(object)) return `${object} is not part of linkvault's schema at migration ${migration}`;
    if (expected.get(object) !== definition) return `${object} differs from linkvault's schema at migration ${migration}`;
  }
  const missing = [...expected.keys()].find((object) => !actual.has(object));
  return missing && `${missing} of linkvault's schema at migration ${migration} is missing`;
}
