/**
 * pg_dump and pg_restore for DATABASE_URL: the arguments and environment backup and restore run
 * them with, and the same commands as an operator would type them. Neither ever carries the
 * password (pg reads it from PGPASSWORD or ~/.pgpass).
 */

/**
 * The URL's libpq TLS settings and the variable each travels in: the tools' flags name only host,
 * port, user and database, and without these libpq would fall back to sslmode=prefer.
 */
const TLS_VARIABLES = new Map([
  ['sslmode', 'PGSSLMODE'],
  ['sslrootcert', 'PGSSLROOTCERT'],
  ['sslcert', 'PGSSLCERT'],
  ['sslkey', 'PGSSLKEY'],
  ['sslcrl', 'PGSSLCRL'],
  ['sslcrldir', 'PGSSLCRLDIR'],
  ['sslsni', 'PGSSLSNI'],
  ['ssl_min_protocol_version', 'PGSSLMINPROTOCOLVERSION'],
  ['ssl_max_protocol_version', 'PGSSLMAXPROTOCOLVERSION'],
  ['channel_binding', 'PGCHANNELBINDING'],
]);

function tlsEnvironment(databaseUrl: string): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [parameter, value] of new URL(databaseUrl).searchParams) {
    const variable = TLS_VARIABLES.get(parameter);
    if (variable) environment[variable] = value;
  }
  return environment;
}

/** The environment pg_dump and pg_restore run with, over the process's own: the URL's TLS settings and its password. */
export function pgEnvironment(databaseUrl: string): Record<string, string> {
  const { password } = new URL(databaseUrl);
  return { ...tlsEnvironment(databaseUrl), ...(password ? { PGPASSWORD: decodeURIComponent(password) } : {}) };
}

/** Quotes a value for a POSIX shell unless it is plainly safe. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A command as it would be typed into a shell, after the URL's TLS settings (never its password) as assignments. */
const asTyped = (databaseUrl: string, argv: readonly string[]) =>
  [...Object.entries(tlsEnvironment(databaseUrl)).map(([variable, value]) => `${variable}=${shellQuote(value)}`), ...argv.map(shellQuote)].join(' ');

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

export const pgDumpCommand = (databaseUrl: string, dumpFile: string) => asTyped(databaseUrl, ['pg_dump', ...pgDumpArguments(databaseUrl, dumpFile)]);

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

export const pgRestoreCommand = (databaseUrl: string, dumpFile: string) =>
  asTyped(databaseUrl, ['pg_restore', ...pgRestoreArguments(databaseUrl, dumpFile)]);
