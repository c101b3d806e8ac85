/**
 * Helpers for the benchmarks that move whole files or need the server in a process of its
 * own (upload, download, links-list): the real linkvault started through its CLI
 * (`node bin/linkvault.js serve`) as a child process, bare floor servers as child processes
 * (floor-server.ts), curl as the client, and the bookkeeping that makes sure every child is
 * killed and every temporary folder removed, even when a benchmark fails.
 *
 * Why child processes: the server's RSS and CPU time can then be read from /proc for that
 * process alone, and the client (curl, or this process for small requests) never shares
 * the server's event loop.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, TSX_EXEC_ARGV } from './harness.js';

export const MB = 1_000_000;

// ---------------------------------------------------------------- cleanup on any exit

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

// runBench() ends with process.exit(), which runs 'exit' listeners synchronously: the last
// chance to SIGKILL children that a failure left behind and to remove temp folders.
process.on('exit', () => {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

/** A fresh folder under the OS temp dir, removed by removeTempDir() or at exit. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (!alive(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (alive(child)) child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- files

/**
 * Writes `bytes` random bytes to `file`, 1 MiB at a time. The first byte is 0 so that no
 * magic number (MZ, ELF, Mach-O) can make the upload an "executable" by chance.
 */
export function writeRandomFile(file: string, bytes: number): void {
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    for (let written = 0; written < bytes;) {
      const chunk = randomBytes(Math.min(1024 * 1024, bytes - written));
      if (written === 0) chunk[0] = 0;
      fs.writeSync(fd, chunk);
      written += chunk.length;
    }
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------- numbers

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Nearest-rank percentile, p in 0..100. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

let clockTicks: number | undefined;

/** CPU time (user + system, all threads) a process has used so far, in seconds; Linux only. */
export function processCpuSeconds(pid: number): number {
  clockTicks ??= (() => {
    try {
      return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      return 100;
    }
  })();
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; fields after its closing parenthesis are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after "(comm) ".
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

// ---------------------------------------------------------------- curl

export interface CurlResult {
  status: number;
  /** seconds, curl's own %{time_total}: connect to last byte, without curl's start-up */
  seconds: number;
  uploaded: number;
  downloaded: number;
  /** what curl wrote to stdout before the -w line (the response body unless -o was given) */
  body: string;
}

const CURL_MARK = '\n__curl__';

let curlChecked = false;

/** Runs curl with `args` (plus -sS and a -w summary), killed after `timeoutMs`. */
export function runCurl(args: readonly string[], timeoutMs = 120_000): Promise<CurlResult> {
  if (!curlChecked) {
    try {
      execFileSync('curl', ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error('curl is needed as the client of this benchmark (apt-get install -y curl)');
    }
    curlChecked = true;
  }
  const child = track(
    spawn('curl', ['-sS', '-w', `${CURL_MARK} %{http_code} %{time_total} %{size_upload} %{size_download}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const at = stdout.lastIndexOf(CURL_MARK);
      if (code !== 0 || at === -1) {
        reject(new Error(`curl ${args.join(' ')} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || stdout.slice(0, 500)}`));
        return;
      }
      const [status, seconds, uploaded, downloaded] = stdout
        .slice(at + CURL_MARK.length)
        .trim()
        .split(/\s+/)
        .map(Number);
      resolve({ status: status!, seconds: seconds!, uploaded: uploaded!, downloaded: downloaded!, body: stdout.slice(0, at) });
    });
  });
}

// ---------------------------------------------------------------- linkvault in a child process

/** The environment of the linkvault CLI: nothing from this shell reaches its configuration. */
function linkvaultEnv(dataDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // bin/linkvault.js would run a dist/ build when one exists, which may predate the sources.
    LINKVAULT_FROM_SOURCE: '1',
    ...extra,
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}

const CLI = path.join(REPO_ROOT, 'bin/linkvault.js');

/** `linkvault accounts create` over `dataDir` (migrations run too); returns its JSON. */
export async function createAccountWithCli(
  dataDir: string,
  account: { email: string; plan: string },
  extraEnv: Record<string, string> = {},
): Promise<{ accountId: number; apiKey: string }> {
  const child = track(
    spawn(process.execPath, [CLI, 'accounts', 'create', '--email', account.email, '--plan', account.plan], {
      cwd: REPO_ROOT,
      env: linkvaultEnv(dataDir, extraEnv),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  const line = stdout.split('\n').find((text) => text.includes('"apiKey"'));
  if (code !== 0 || !line) throw new Error(`linkvault accounts create failed (exit ${code}): ${stderr.trim() || stdout.trim()}`);
  return JSON.parse(line) as { accountId: number; apiKey: string };
}

export interface LogLine {
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  level?: number;
  [field: string]: unknown;
}

export interface LinkvaultProcess {
  url: string;
  pid: number;
  apiKey: string;
  accountId: number;
  dataDir: string;
  /** Called with every JSON log line the server writes (LOG_LEVEL=info); returns an unsubscribe. */
  onLog(listener: (line: LogLine) => void): () => void;
  /** The last stderr and non-JSON stdout lines, for error messages. */
  recentOutput(): string;
  close(): Promise<void>;
}

/**
 * A fresh DATA_DIR (SQLite, local blobs), one account made with the CLI, `prepare` (e.g.
 * seeding the database) while no server runs, then `node bin/linkvault.js serve` on
 * 127.0.0.1:0. The URL comes from the "Server listening at" log line.
 */
export async function startLinkvaultProcess(
  options: {
    env?: Record<string, string>;
    account?: { email?: string; plan?: string };
    prepare?: (context: { dataDir: string; accountId: number; apiKey: string }) => Promise<void> | void;
  } = {},
): Promise<LinkvaultProcess> {
  const dataDir = makeTempDir('linkvault-bench-');
  // The bench's client is one address making many keys' calls and many visitors' views: no limit of either may decide its numbers.
  const env = { RATE_LIMIT_PER_MINUTE: '1000000', VIEWS_PER_CLIENT_PER_MINUTE: '1000000', ...options.env };
  try {
    const account = await createAccountWithCli(
      dataDir,
      {
        email: options.account?.email ?? `bench-${process.pid}@example.com`,
        plan: options.account?.plan ?? 'business',
      },
      env,
    );
    await options.prepare?.({ dataDir, ...account });

    const child = track(
      spawn(process.execPath, [CLI, 'serve'], {
        cwd: REPO_ROOT,
        env: linkvaultEnv(dataDir, env),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const listeners = new Set<(line: LogLine) => void>();
    const recent: string[] = [];
    const remember = (text: string) => {
      recent.push(text);
      if (recent.length > 20) recent.shift();
    };
    // Both streams are read to the end, always: a full pipe would block the server's logger.
    createInterface({ input: child.stderr! }).on('line', remember);
    createInterface({ input: child.stdout! }).on('line', (text) => {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        remember(text);
        return;
      }
      if (line.level !== undefined && line.level >= 40) remember(text);
      for (const listener of listeners) listener(line);
    });

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('linkvault serve did not log "Server listening at" within 60 s')), 60_000);
      const onLine = (line: LogLine) => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line.msg ?? '');
        if (match) done(() => resolve(match[1]!));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        fail(new Error(`linkvault serve exited (${signal ?? code}) before listening: ${recent.join('\n')}`));
      const done = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(onLine);
        child.off('exit', onExit);
        settle();
      };
      const fail = (error: Error) => done(() => reject(error));
      listeners.add(onLine);
      child.once('exit', onExit);
    }).catch(async (error: unknown) => {
      await stopChild(child);
      throw error;
    });

    return {
      url,
      pid: child.pid!,
      ...account,
      dataDir,
      onLog(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      recentOutput: () => recent.join('\n'),
      async close() {
        await stopChild(child);
        removeTempDir(dataDir);
      },
    };
  } catch (error) {
    removeTempDir(dataDir);
    throw error;
  }
}

/**
 * Calls `onTime` with the server's own responseTime of each request it completes (from its
 * request log: reqId → url from "incoming request", then "request completed"); returns an unsubscribe.
 */
export function watchResponseTimes(server: LinkvaultProcess, onTime: (url: string, ms: number) => void): () => void {
  const urlOf = new Map<string, string>();
  return server.onLog((line: LogLine) => {
    if (!line.reqId) return;
    if (line.req?.url) urlOf.set(line.reqId, line.req.url);
    else if (line.responseTime !== undefined) {
      const url = urlOf.get(line.reqId);
      urlOf.delete(line.reqId);
      if (url) onTime(url, line.responseTime);
    }
  });
}

// ---------------------------------------------------------------- floors in a child process

export type FloorMode =
  /** POST: req.pipe(fs.createWriteStream) into `dir`, 200 once written; POST /sync fsyncs and removes the last file. */
  | { mode: 'upload'; dir: string }
  /** GET: fs.createReadStream(file, { highWaterMark }).pipe(res), with Content-Length. */
  | { mode: 'download'; file: string; highWaterMark?: number }
  /** GET `route`: a bare Fastify (no logger, no plugins) returning the JSON read from `file`. */
  | { mode: 'json'; route: string; file: string };

export interface FloorProcess {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** Starts floor-server.ts in a child process on 127.0.0.1:0. */
export async function startFloorProcess(floor: FloorMode): Promise<FloorProcess> {
  const child = track(
    fork(fileURLToPath(new URL('./floor-server.ts', import.meta.url)), [JSON.stringify(floor)], {
      cwd: REPO_ROOT,
      execArgv: TSX_EXEC_ARGV,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the floor server did not start within 60 s')), 60_000);
      child.once('message', (message: { url: string }) => {
        clearTimeout(timer);
        resolve(message.url);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the floor server exited (${signal ?? code}) before listening`));
      });
    });
    return { url, pid: child.pid!, close: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}
