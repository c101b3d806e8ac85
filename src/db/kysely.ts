import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, sql, type DialectAdapter, type Dialect, type SqliteDatabase } from 'kysely';
import { Migrator } from 'kysely/migration';
import type pg from 'pg';
import { ConfigError, type DatabaseConfig } from '../config.js';
import { migrationNames, migrationProvider } from './migrations/index.js';
import { createPrecompile, type Precompile } from './precompiled.js';
import type { Database } from './types.js';
import { DatabaseUnreachableError } from './executor.js';
import { createOwnerOnlyFile, narrowToOwner, octal, OWNER_ONLY_FOLDER, type OpenFile } from './owner-only.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: DatabaseConfig['kind'];
  /** Compiles a hot-path read once; see precompiled.ts. */
  precompile: Precompile;
  migrate(): Promise<void>;
  /** The migrator over this database (an upgrade test steps it to one migration, then on). */
  migrator(): Promise<Migrator>;
  /**
   * Which of this code's migrations the database has run and which it has not, and those it has
   * run that this code does not know (a newer linkvault's). Read only: nothing is created.
   */
  migrationStatus(): Promise<MigrationStatus>;
  /** SQLite only: a consistent copy of the live database through SQLite's online backup API, owner-only (0600). */
  snapshotTo(file: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  unknown: string[];
}

/** The migrations the database records as run, whether or not this code knows them. */
async function recordedMigrations(db: Db, kind: DatabaseConfig['kind']): Promise<string[]> {
  const bookkeeping =
    kind === 'postgres'
      ? sql`to_regclass('kysely_migration') is not null`
      : sql`exists (select 1 from sqlite_master where type = 'table' and name = 'kysely_migration')`;
  const { rows } = await sql<{ present: boolean | number }>`select ${bookkeeping} as present`.execute(db);
  if (!rows[0]?.present) return [];
  return (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows.map((row) => row.name);
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/** The files of an SQLite database in WAL mode: SQLite gives the other two the database file's mode. */
export const sqliteFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`];

/**
 * The database holds every account's data: its folder, when made here, and its files are the
 * owner's alone, whatever the umask; files left open to others by an earlier release are narrowed.
 */
function makeOwnerOnly(file: string, log: DatabaseLog | undefined): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: OWNER_ONLY_FOLDER });
  const { narrowed, notOwned } = narrowToOwner(sqliteFiles(file));
  const described = (files: OpenFile[]) => files.map(({ file, mode }) => ({ file, mode: octal(mode) }));
  if (narrowed.length > 0) log?.info({ files: described(narrowed) }, 'the database was readable by group or others: narrowed to 0600');
  // Another user's files: starting stays possible, and the operator is told (the doctor fails it too).
  if (notOwned.length > 0) {
    log?.warn(
      { files: described(notOwned) },
      'the database is readable by group or others and owned by another user: run chmod 600 on it as its owner',
    );
  }
  createOwnerOnlyFile(file);
}

function openSqlite(file: string, options: OpenOptions): SQLite.Database {
  if (!options.keepModes) makeOwnerOnly(file, options.log);
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can drop the last commits.
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Deleted rows and cleared columns are overwritten with zeros, not left in free space where a copy of the file finds them.
  database.pragma('secure_delete = ON');
  return database;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it. Kysely's SQLite driver prepares every query afresh,
 * which costs more than running it; reuse statements by SQL text instead (queries are
 * parameterised, so the set is small). A cached statement is safe to share because
 * better-sqlite3 runs each call to completion. The connection itself is left as it is, so
 * statements prepared elsewhere (precompiled.ts) are their own. Transactions begin IMMEDIATE.
 */
function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      // A deferred transaction that reads, then writes, fails at once (SQLITE_BUSY, no busy
      // wait) when another process (the CLI beside the server) wrote in between; taking the
      // write lock at BEGIN makes it wait its turn under busy_timeout instead.
      if (sqlText === 'begin') sqlText = 'begin immediate';
      let statement = statements.get(sqlText);
      if (!statement) {
        statement = database.prepare(sqlText);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
}

const SOCKET_FAILURES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED']);

function asConnectionBroken(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !SOCKET_FAILURES.has(code)) return error;
  return new DatabaseUnreachableError(`the database connection broke: ${(error as Error).message}`, { cause: error });
}

/** Told when the pool drops an idle connection that the server closed (a restart, a failover, pg_terminate_backend). */
export type ConnectionLost = (error: Error) => void;

export interface DatabaseLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface OpenOptions {
  onConnectionLost?: ConnectionLost;
  /** Told when an SQLite database that group or others could read is narrowed to 0600. */
  log?: DatabaseLog;
  /** SQLite: leave the files' modes as they are (the doctor reports them; it changes nothing). */
  keepModes?: boolean;
  /** PostgreSQL: connecting, and each query, fail after this long (the doctor must report a server that never answers). */
  timeoutMs?: number;
}

/**
 * PostgreSQL: how long a connection may take to open, or a query wait for one from the pool. A
 * peer that accepts and never answers (a stopped VM, a firewall that drops) then fails the start,
 * or the request, with a sentence, instead of leaving it waiting forever.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/** pg-pool's words for its two timeouts, as an operator would want them. */
function connectFailure(message: string, seconds: number): string {
  if (/due to connection timeout/.test(message)) return `it did not answer within ${seconds} s`;
  if (/timeout exceeded when trying to connect/.test(message)) return `every pooled connection stayed busy for ${seconds} s`;
  return message;
}

function postgresDialect(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  onConnectionLost: ConnectionLost,
  timeoutMs: number | undefined,
): PostgresDialect {
  // pg loads with the first connection, so an SQLite install never pays for it.
  const pool = async (): Promise<pg.Pool> => {
    const { default: pgClient } = await import('pg');
    const created = new pgClient.Pool({
      connectionString: config.url,
      max: 10,
      // A statement stuck behind a lock that a stalled transaction holds, or a plan gone wrong,
      // fails after this long (answered 503) instead of holding its pooled connection for ever.
      ...(config.statementTimeoutSeconds ? { statement_timeout: config.statementTimeoutSeconds * 1000 } : {}),
      connectionTimeoutMillis: timeoutMs ?? CONNECT_TIMEOUT_MS,
      // A connection whose peer vanished without a word is found by TCP keepalive, not by the next query hanging on it.
      keepAlive: true,
      ...(timeoutMs !== undefined ? { query_timeout: timeoutMs } : {}),
      // Times and counters are bigint columns holding values far below 2^53: read them as numbers.
      types: {
        getTypeParser: (oid: number, format?: 'text' | 'binary') =>
          oid === PG_INT8 || oid === PG_NUMERIC ? Number : pgClient.types.getTypeParser(oid, format),
      },
    });
    // The pool discards such a connection and the next query opens another. Unheard, the
    // 'error' event would end the process: the pool's for an idle connection, the client's own
    // for one that is checked out (a query in flight fails with its own error as well).
    created.on('error', onConnectionLost);
    created.on('connect', (client) => {
      client.on('error', onConnectionLost);
      // A socket that breaks under a query surfaces as a bare `read ECONNRESET`: name it, so
      // that it is told apart from the same code on a client's connection to us.
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        const result = query(...args);
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(asConnectionBroken(error))) : result;
      }) as typeof client.query;
    });
    const connect = created.connect.bind(created);
    const seconds = (timeoutMs ?? CONNECT_TIMEOUT_MS) / 1000;
    created.connect = (async () => {
      try {
        return await connect();
      } catch (error) {
        throw new DatabaseUnreachableError(`cannot connect to the database: ${connectFailure((error as Error).message, seconds)}`, { cause: error });
      }
    }) as typeof created.connect;
    return created;
  };
  return new PostgresDialect({ pool });
}

/**
 * SQLite's schema changes are transactional, which Kysely's SQLite adapter does not claim: its
 * migrator then ran migrations without a transaction, and one cut short (a stopped process, a
 * failed statement) left a half-changed schema that no later run could migrate. Saying so makes
 * a run of migrations commit whole or not at all, as on PostgreSQL.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class MigratableSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): DatabaseHandle {
  let sqlite: SQLite.Database | undefined;
  let dialect: Dialect;
  if (config.kind === 'sqlite') {
    sqlite = openSqlite(config.file, options);
    dialect = new MigratableSqliteDialect({ database: withStatementCache(sqlite) });
  } else {
    dialect = postgresDialect(config, options.onConnectionLost ?? (() => undefined), options.timeoutMs);
  }
  const db = new Kysely<Database>({ dialect });
  async function migrator(on: Db = db): Promise<Migrator> {
    // Kysely looks for its bookkeeping tables in every schema; pin them to ours so two
    // deployments (or test runs) sharing a PostgreSQL database never see each other's.
    const migrationTableSchema =
      config.kind === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(on)).rows[0]?.schema : undefined;
    return new Migrator({ db: on, provider: migrationProvider, migrationTableSchema });
  }
  /** Migrations rewrite whole tables: on PostgreSQL they run on one connection without the statement timeout. */
  function unhurried<T>(work: (on: Db) => Promise<T>): Promise<T> {
    if (config.kind !== 'postgres' || !config.statementTimeoutSeconds) return work(db);
    return db.connection().execute(async (connection) => {
      await sql`set statement_timeout = 0`.execute(connection);
      try {
        return await work(connection);
      } finally {
        await sql`reset statement_timeout`.execute(connection);
      }
    });
  }
  return {
    db,
    kind: config.kind,
    precompile: createPrecompile(db, sqlite),
    migrator,
    async migrate() {
      // Kysely calls a database of a newer release "corrupted": an operator rolling back needs to hear what it is.
      const known = new Set(migrationNames());
      const newer = (await recordedMigrations(db, config.kind)).filter((name) => !known.has(name));
      if (newer.length > 0) {
        throw new ConfigError(
          `the database records migration ${newer.join(', ')}, which this linkvault (latest migration ${[...known].at(-1)}) does not know: it was used by a newer release; run that release or a later one`,
        );
      }
      const { error, results } = await unhurried(async (on) => (await migrator(on)).migrateToLatest());
      const failed = results?.find((result) => result.status === 'Error');
      if (error) {
        throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`, {
          cause: error,
        });
      }
    },
    async migrationStatus() {
      const migrations = await (await migrator()).getMigrations();
      const known = new Set(migrations.map((migration) => migration.name));
      return {
        applied: migrations.filter((migration) => migration.executedAt !== undefined).map((migration) => migration.name),
        pending: migrations.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name),
        unknown: (await recordedMigrations(db, config.kind)).filter((name) => !known.has(name)),
      };
    },
    async snapshotTo(file: string) {
      if (!sqlite) throw new Error('a PostgreSQL database is copied with pg_dump, not snapshotTo');
      // Made owner-only first: SQLite writes the copy into the file as it finds it.
      createOwnerOnlyFile(file);
      await sqlite.backup(file);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
