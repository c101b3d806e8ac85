import { sql } from 'kysely';
import type { Db } from './kysely.js';

/**
 * The tables of this deployment's own schema (PostgreSQL: `current_schema()`, so a database
 * shared by several schemas is not mistaken for ours; SQLite: the file's tables).
 */
export async function listTables(db: Db, kind: 'sqlite' | 'postgres'): Promise<string[]> {
  const { rows } =
    kind === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite_%' order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** Whether PostgreSQL has a schema of that name (a restore keeps one made beforehand). */
export async function schemaExists(db: Db, schema: string): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`select 1 as found from pg_namespace where nspname = ${schema}`.execute(db);
  return rows.length > 0;
}

/** Rows per table, for a backup's manifest: what an operator compares after a restore. */
export async function countRows(db: Db, kind: 'sqlite' | 'postgres'): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await listTables(db, kind)) {
    const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)}`.execute(db);
    counts[table] = Number(rows[0]?.count ?? 0);
  }
  return counts;
}

/**
 * Whether the database holds what an earlier master key sealed: an account (its secrets, its
 * sessions), a link (its file) or a mail (its message, waiting or not). A database with none is a fresh install.
 */
export async function holdsSealedData(db: Db): Promise<boolean> {
  for (const table of ['accounts', 'links', 'mail_outbox'] as const) {
    if (await db.selectFrom(table).select('id').limit(1).executeTakeFirst()) return true;
  }
  return false;
}
