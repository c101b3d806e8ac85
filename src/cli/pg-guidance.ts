/** Quotes a value for a POSIX shell unless it is plainly safe. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * pg_dump / pg_restore connection flags for DATABASE_URL, never its password (pg reads it from
 * PGPASSWORD or ~/.pgpass). A `search_path` given in `options` becomes `--schema`.
 */
export function pgConnectionFlags(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const flags = [`--host=${shellQuote(decodeURIComponent(url.hostname) || 'localhost')}`, `--port=${url.port || '5432'}`];
  if (url.username) flags.push(`--username=${shellQuote(decodeURIComponent(url.username))}`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database) flags.push(`--dbname=${shellQuote(database)}`);
  return flags.join(' ');
}

function schemaOf(databaseUrl: string): string | undefined {
  const options = new URL(databaseUrl).searchParams.get('options') ?? '';
  return /search_path=([A-Za-z0-9_]+)/.exec(options)?.[1];
}

export function pgDumpCommand(databaseUrl: string, dumpFile: string): string {
  const schema = schemaOf(databaseUrl);
  return `pg_dump --format=custom --no-owner ${pgConnectionFlags(databaseUrl)}${schema ? ` --schema=${schema}` : ''} --file=${shellQuote(dumpFile)}`;
}

export function pgRestoreCommand(databaseUrl: string, dumpFile: string): string {
  return `pg_restore --no-owner --exit-on-error ${pgConnectionFlags(databaseUrl)} ${shellQuote(dumpFile)}`;
}

/** Whether the URL carries a password: the guidance then says where pg_dump takes it from. */
export const hasPassword = (databaseUrl: string) => new URL(databaseUrl).password !== '';
