/**
 * pg_dump and pg_restore for DATABASE_URL: the arguments backup and restore run them with, and the
 * same commands as an operator would type them. Neither ever carries the password (pg reads it from
 * PGPASSWORD or ~/.pgpass).
 */

/** Quotes a value for a POSIX shell unless it is plainly safe. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A command as it would be typed into a shell. */
const asTyped = (argv: readonly string[]) => argv.map(shellQuote).join(' ');

/** Connection flags for DATABASE_URL; a `search_path` given in `options` becomes `--schema` where the tool takes it. */
function connectionFlags(databaseUrl: string): string[] {
  const url = new URL(databaseUrl);
  const flags = [`--host=${decodeURIComponent(url.hostname) || 'localhost'}`, `--port=${url.port || '5432'}`];
  if (url.username) flags.push(`--username=${decodeURIComponent(url.username)}`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database) flags.push(`--dbname=${database}`);
  return flags;
}

/** The schema a `search_path` in the URL's `options` names, if any. */
export function schemaOf(databaseUrl: string): string | undefined {
  const options = new URL(databaseUrl).searchParams.get('options') ?? '';
  return /search_path=([A-Za-z0-9_]+)/.exec(options)?.[1];
}

/** pg_dump's argv (without the program's name) for a custom-format dump of the database into `dumpFile`. */
export function pgDumpArguments(databaseUrl: string, dumpFile: string): string[] {
  const schema = schemaOf(databaseUrl);
  return ['--format=custom', '--no-owner', ...connectionFlags(databaseUrl), ...(schema ? [`--schema=${schema}`] : []), `--file=${dumpFile}`];
}

export const pgDumpCommand = (databaseUrl: string, dumpFile: string) => asTyped(['pg_dump', ...pgDumpArguments(databaseUrl, dumpFile)]);

/**
 * pg_restore's argv (without the program's name) that loads `dumpFile` in one transaction: a
 * failure or an interruption leaves the database as it was. `listFile` names the entries to load.
 */
export function pgRestoreArguments(databaseUrl: string, dumpFile: string, listFile?: string): string[] {
  return [
    '--no-owner',
    '--single-transaction',
    '--exit-on-error',
    ...connectionFlags(databaseUrl),
    ...(listFile ? [`--use-list=${listFile}`] : []),
    dumpFile,
  ];
}

export const pgRestoreCommand = (databaseUrl: string, dumpFile: string) => asTyped(['pg_restore', ...pgRestoreArguments(databaseUrl, dumpFile)]);

/** Whether the URL carries a password: the guidance then says where pg_dump takes it from. */
export const hasPassword = (databaseUrl: string) => new URL(databaseUrl).password !== '';
