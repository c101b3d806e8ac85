/**
 * Shared helpers for the benchmarks in bench/*.ts.
 *
 * Servers (linkvault and the bare floor) run in the benchmark's own process; the load
 * generator always runs in a child process (load-child.ts), so on a 2-core machine the
 * server and autocannon each get a core and never share an event loop. Only ratios
 * against a floor measured in the same run mean anything on a noisy machine.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AutocannonOptions, AutocannonResult } from 'autocannon';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Plan } from '../../src/core/plans.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

export type { AutocannonOptions, AutocannonResult } from 'autocannon';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** `--import <tsx>` for child processes that run TypeScript, whatever their cwd. */
export const TSX_EXEC_ARGV = ['--import', import.meta.resolve('tsx')];

export interface RunningLinkvault {
  url: string;
  apiKey: string;
  accountId: number;
  dataDir: string;
  /** the services, for set-up a benchmark cannot do over HTTP (a person with a password) */
  services: Runtime['services'];
  close(): Promise<void>;
}

/**
 * Starts the real app (config → runtime → buildApp) in this process on 127.0.0.1, port 0,
 * over a fresh temporary DATA_DIR (embedded SQLite unless env says DATABASE_URL), and
 * creates one account with an API key. Only `env` is read, never process.env, so a stray
 * DATABASE_URL in the shell cannot change what is measured.
 */
export async function startLinkvault(
  env: Record<string, string | undefined> = {},
  account: { email?: string; plan?: Plan } = {},
): Promise<RunningLinkvault> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-bench-'));
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env });
  const runtime = await createRuntime(config);
  let app: FastifyInstance | undefined;
  try {
    const { accountId, apiKey } = await runtime.services.accounts.create({
      email: account.email ?? `bench-${process.pid}-${Date.now()}@example.com`,
      plan: account.plan ?? 'business',
    });
    app = await buildApp(runtime);
    await app.listen({ host: config.host, port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const started = app;
    return {
      url: `http://127.0.0.1:${port}`,
      apiKey,
      accountId,
      dataDir,
      services: runtime.services,
      async close() {
        await started.close();
        await runtime.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.close();
    await runtime.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** A bare Fastify (no logger, no plugins) with the routes `register` adds: the usual floor. */
export async function startBareFastify(register: (app: FastifyInstance) => void): Promise<RunningServer> {
  const app = Fastify({ logger: false });
  register(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/**
 * Runs autocannon in a child process and resolves with its result. Defaults: 50
 * connections, 10 s. The child gets its own core; this process only serves.
 */
export function autocannonRun(options: AutocannonOptions): Promise<AutocannonResult> {
  const child = fork(fileURLToPath(new URL('./load-child.ts', import.meta.url)), [], {
    cwd: REPO_ROOT,
    execArgv: TSX_EXEC_ARGV,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<AutocannonResult>((resolve, reject) => {
    let settled = false;
    child.once('message', (message: { ok: true; result: AutocannonResult } | { ok: false; error: string }) => {
      settled = true;
      if (message.ok) resolve(message.result);
      else reject(new Error(`autocannon failed: ${message.error}`));
    });
    child.once('error', (error) => {
      if (!settled) reject(error);
      settled = true;
    });
    child.once('exit', (code, signal) => {
      if (!settled) reject(new Error(`autocannon child exited (${signal ?? code}) without a result`));
      settled = true;
    });
    child.send({ connections: 50, duration: 10, ...options });
  });
}

/** Throws unless every response was a 2xx and nothing errored or timed out. */
export function assertClean(name: string, result: AutocannonResult): void {
  const problems: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, { count }]) => `${code}×${count}`)
      .join(', ');
    problems.push(`${result.non2xx} non-2xx responses (${codes})`);
  }
  if (result.errors > 0) problems.push(`${result.errors} errors`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (result.requests.total === 0) problems.push('no request completed');
  if (problems.length > 0) throw new Error(`${name}: ${problems.join('; ')}`);
}

/** Requests per second of a run: completed requests over the run's duration. */
export function requestsPerSecond(result: AutocannonResult): number {
  return result.duration > 0 ? result.requests.total / result.duration : result.requests.average;
}

/**
 * A short warm-up (JIT, caches, connection pools), then the measured run. Returns the
 * measured result, checked with assertClean.
 */
export async function warmAndMeasure(
  name: string,
  options: AutocannonOptions,
  { warmupSeconds = 2, seconds = 10 }: { warmupSeconds?: number; seconds?: number } = {},
): Promise<AutocannonResult> {
  if (warmupSeconds > 0) assertClean(`${name} (warm-up)`, await autocannonRun({ ...options, duration: warmupSeconds }));
  const result = await autocannonRun({ ...options, duration: seconds });
  assertClean(name, result);
  return result;
}

export interface LoadTarget {
  name: string;
  options: AutocannonOptions;
}

export interface PairedRound {
  floorRps: number;
  subjectRps: number;
  ratio: number;
}

export interface PairedMeasurement {
  /** requests/s over all measured rounds */
  floorRps: number;
  subjectRps: number;
  /** median of the per-round ratios subject/floor */
  ratio: number;
  rounds: PairedRound[];
  floorResults: AutocannonResult[];
  subjectResults: AutocannonResult[];
  /**
   * CPU time (user + system) this process spent per request during the measured rounds.
   * Valid because the servers run in this process and the load generator does not: less
   * sensitive to other load on the machine than requests/s.
   */
  floorCpuUsPerRequest: number;
  subjectCpuUsPerRequest: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Measures a subject against its floor side by side: both warmed up, then `rounds`
 * alternating pairs (floor/subject, subject/floor, ...) of seconds/rounds each, so that
 * each side gets `seconds` in all and a burst of load from elsewhere on the machine
 * lands on both sides rather than on one. The ratio is the median of the rounds' ratios.
 */
export async function measurePaired(
  floor: LoadTarget,
  subject: LoadTarget,
  { warmupSeconds = 2, seconds = 10, rounds = 5 }: { warmupSeconds?: number; seconds?: number; rounds?: number } = {},
): Promise<PairedMeasurement> {
  const roundSeconds = seconds / rounds;
  const cpuUs = new Map<LoadTarget, number>();
  const run = async (target: LoadTarget, duration: number, label: string) => {
    const before = process.cpuUsage();
    const result = await autocannonRun({ ...target.options, duration });
    const used = process.cpuUsage(before);
    if (label !== 'warm-up') cpuUs.set(target, (cpuUs.get(target) ?? 0) + used.user + used.system);
    assertClean(`${target.name} (${label})`, result);
    return result;
  };
  if (warmupSeconds > 0) {
    await run(floor, warmupSeconds, 'warm-up');
    await run(subject, warmupSeconds, 'warm-up');
  }
  const floorResults: AutocannonResult[] = [];
  const subjectResults: AutocannonResult[] = [];
  const pairs: PairedRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const label = `round ${round + 1}`;
    let floorResult: AutocannonResult;
    let subjectResult: AutocannonResult;
    if (round % 2 === 0) {
      floorResult = await run(floor, roundSeconds, label);
      subjectResult = await run(subject, roundSeconds, label);
    } else {
      subjectResult = await run(subject, roundSeconds, label);
      floorResult = await run(floor, roundSeconds, label);
    }
    floorResults.push(floorResult);
    subjectResults.push(subjectResult);
    const floorRps = requestsPerSecond(floorResult);
    const subjectRps = requestsPerSecond(subjectResult);
    pairs.push({ floorRps, subjectRps, ratio: subjectRps / floorRps });
  }
  const requests = (results: AutocannonResult[]) => results.reduce((sum, r) => sum + r.requests.total, 0);
  const overall = (results: AutocannonResult[]) => requests(results) / results.reduce((sum, r) => sum + r.duration, 0);
  return {
    floorCpuUsPerRequest: (cpuUs.get(floor) ?? 0) / Math.max(1, requests(floorResults)),
    subjectCpuUsPerRequest: (cpuUs.get(subject) ?? 0) / Math.max(1, requests(subjectResults)),
    floorRps: overall(floorResults),
    subjectRps: overall(subjectResults),
    ratio: median(pairs.map((pair) => pair.ratio)),
    rounds: pairs,
    floorResults,
    subjectResults,
  };
}

/** One line per round: `round 1: 15234 vs 30120 req/s = 0.51x`. */
export function describeRounds(measurement: PairedMeasurement, unit = 'req/s'): string[] {
  return measurement.rounds.map(
    (round, index) => `round ${index + 1}: ${formatValue(round.subjectRps)} vs ${formatValue(round.floorRps)} ${unit} = ${round.ratio.toFixed(2)}x`,
  );
}

/** Latency summary over several runs (mean of means, worst p99). */
export function describeLatency(label: string, results: AutocannonResult[]): string {
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const mean = results.reduce((sum, r) => sum + r.latency.average * r.requests.total, 0) / Math.max(1, total);
  const p99 = Math.max(...results.map((r) => r.latency.p99));
  return `${label}: latency avg ${mean.toFixed(2)} ms, worst p99 ${p99} ms, ${total} requests`;
}

/** Rounds for display: integers from 100 up, 1 decimal from 10, else 2 decimals. */
export function formatValue(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 100) return String(Math.round(value));
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/**
 * Prints the one result line every benchmark prints:
 *   `name: <value> <unit> (<ratio>x vs <floorName>)`
 * then each `extra` line indented below it (details that are not the result).
 */
export function printResult(name: string, value: number, unit: string, ratio: number, floorName: string, extra?: string | string[]): void {
  console.log(`${name}: ${formatValue(value)} ${unit} (${ratio.toFixed(2)}x vs ${floorName})`);
  for (const line of typeof extra === 'string' ? [extra] : (extra ?? [])) console.log(`  ${line}`);
}

/**
 * Prints `budget: >= <min> (measured <ratio>) ok|MISSED` and says whether it was met.
 * A miss sets a non-zero exit code only with BENCH_STRICT=1: the machine is noisy.
 */
export function printBudget(ratio: number, min: number, what = 'ratio'): boolean {
  const ok = ratio >= min;
  console.log(`budget: >= ${min} ${what} (measured ${ratio.toFixed(2)}) ${ok ? 'ok' : 'MISSED'}`);
  if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  return ok;
}

/** A one-line summary of a run's latency, for printResult's extra lines. */
export function describeRun(label: string, result: AutocannonResult): string {
  return (
    `${label}: ${Math.round(result.requests.average)} req/s avg (±${Math.round(result.requests.stddev)}), ` +
    `latency avg ${result.latency.average.toFixed(2)} ms p99 ${result.latency.p99} ms, ${result.requests.total} requests`
  );
}

/** Resident set size of a process in KiB, now (VmRSS) and at its peak (VmHWM); Linux only. */
export function measureRss(pid: number = process.pid): { rssKiB: number; peakKiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

/** Samples a process's RSS every `intervalMs` until stop(); returns the largest seen, in KiB. */
export function sampleRss(pid: number = process.pid, intervalMs = 50): { stop(): number } {
  let max = 0;
  const take = () => {
    try {
      max = Math.max(max, measureRss(pid).rssKiB);
    } catch {
      // the process is gone
    }
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return max;
    },
  };
}

/** Runs a benchmark's main function, prints a failure, and exits (servers may hold handles). */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    },
  );
}
