import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CommandError } from './command-error.js';
import { pgEnvironment } from './pg-guidance.js';

/** What a tool's failure says in one line: its first error line, or its first line. */
function firstError(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => /\berror:/i.test(line)) ?? lines[0] ?? '';
}

/**
 * Runs one of PostgreSQL's client tools with its arguments as an argv (no shell between), the
 * password and TLS settings of `databaseUrl` through PGPASSWORD and PGSSL…, never the command line.
 * Answers its standard output; a failure is a CommandError that `explain` words from the tool's own reason.
 */
export async function runPostgresTool(
  program: 'pg_dump' | 'pg_restore',
  args: string[],
  databaseUrl: string | undefined,
  explain: (reason: string) => string,
): Promise<string> {
  const connection = databaseUrl ? pgEnvironment(databaseUrl) : {};
  try {
    const { stdout } = await promisify(execFile)(program, args, { env: { ...process.env, ...connection }, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    const reason = failure.code === 'ENOENT' ? `${program} is not on PATH` : firstError(String(failure.stderr ?? '')) || failure.message;
    throw new CommandError(explain(reason));
  }
}
