/**
 * Start-up of the production server: builds dist/ (`npm run build`, so the sources are what
 * is measured), then starts what `npm start` runs, `node --enable-source-maps dist/main.js
 * serve`, over a fresh DATA_DIR (embedded SQLite, local disk), against a bare Fastify
 * answering /healthz (bench/lib/bare-fastify.mjs). Both are started the same way, one after
 * the other in alternating order, BENCH_RUNS times after one unmeasured start each (the
 * disk cache): a child process on a free loopback port, timed from spawn until /healthz
 * answers 200, then its RSS (VmRSS) once it has idled for SETTLE_MS. Medians. Last, one
 * more start of each idles for LONG_IDLE_MS, past V8's memory reducer (it shrinks the young
 * generation that start-up grew after about 30 s without allocation): printed, not budgeted.
 * Budgets (issue "Architecture", item 9): at most 3x the bare server's time to /healthz,
 * at most 110 MiB idle RSS (after SETTLE_MS).
 *
 *   npm run bench -- startup
 *   BENCH_RUNS=9 npm run bench -- startup
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processCpuSeconds } from './lib/files.js';
import { REPO_ROOT, TSX_EXEC_ARGV, formatValue, measureRss, printResult, runBench } from './lib/harness.js';
import { freePort } from '../test/helpers/ports.js';

const TIME_BUDGET_RATIO = 3;
const RSS_BUDGET_MIB = 110;
const RUNS = Number(process.env.BENCH_RUNS || 5);
const SETTLE_MS = 3000;
const LONG_IDLE_MS = 45_000;
const START_TIMEOUT_MS = 60_000;

interface Server {
  name: string;
  args: string[];
  env(port: number, dataDir: string): NodeJS.ProcessEnv;
}

interface Start {
  ms: number;
  /** CPU time the server used until /healthz answered: less sensitive to a busy machine than `ms`. */
  cpuMs: number;
  rssMiB: number;
}

/** Only what a server needs from this shell: a stray DATABASE_URL must not change what is measured. */
function baseEnv(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: String(port) };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}

const linkvault: Server = {
  name: 'linkvault',
  args: ['--enable-source-maps', path.join(REPO_ROOT, 'dist/main.js'), 'serve'],
  env: (port, dataDir) => ({ ...baseEnv(port), DATA_DIR: dataDir }),
};
const bareFastify: Server = {
  name: 'bare Fastify',
  args: [path.join(REPO_ROOT, 'bench/lib/bare-fastify.mjs')],
  env: (port) => baseEnv(port),
};

function run(args: string[]): Promise<void> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/** One GET /healthz; false while nothing listens yet. */
function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.once('error', () => resolve(false));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function startOnce(server: Server, settleMs = SETTLE_MS): Promise<Start> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-bench-startup-'));
  const port = await freePort();
  let stderr = '';
  const started = performance.now();
  const child = spawn(process.execPath, server.args, { cwd: REPO_ROOT, env: server.env(port, dataDir), stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4000)));
  try {
    while (!(await healthy(port))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${server.name} exited before /healthz answered: ${stderr}`);
      if (performance.now() - started > START_TIMEOUT_MS) throw new Error(`${server.name}: no /healthz within ${START_TIMEOUT_MS} ms: ${stderr}`);
      await sleep(5);
    }
    const ms = performance.now() - started;
    const cpuMs = processCpuSeconds(child.pid!) * 1000;
    await sleep(settleMs);
    return { ms, cpuMs, rssMiB: measureRss(child.pid).rssKiB / 1024 };
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function describe(name: string, values: number[], unit: string): string {
  return `${name}: median ${formatValue(median(values))} ${unit} (${values.map((value) => formatValue(value)).join(', ')})`;
}

runBench(async () => {
  const buildStarted = performance.now();
  await run([...TSX_EXEC_ARGV, path.join(REPO_ROOT, 'scripts/build.ts')]);
  const buildMs = performance.now() - buildStarted;

  await startOnce(bareFastify);
  await startOnce(linkvault);
  const starts = new Map<Server, Start[]>([
    [bareFastify, []],
    [linkvault, []],
  ]);
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? [bareFastify, linkvault] : [linkvault, bareFastify];
    for (const server of order) starts.get(server)!.push(await startOnce(server));
  }
  // Both at once: they only idle, and this saves LONG_IDLE_MS.
  const [bareLongIdle, linkvaultLongIdle] = await Promise.all([startOnce(bareFastify, LONG_IDLE_MS), startOnce(linkvault, LONG_IDLE_MS)]);
  const ms = (server: Server) => starts.get(server)!.map((start) => start.ms);
  const cpu = (server: Server) => starts.get(server)!.map((start) => start.cpuMs);
  const rss = (server: Server) => starts.get(server)!.map((start) => start.rssMiB);

  const timeRatio = median(ms(linkvault)) / median(ms(bareFastify));
  const rssMiB = median(rss(linkvault));
  printResult('startup-healthz', median(ms(linkvault)), 'ms to /healthz', timeRatio, 'bare Fastify', [
    describe('linkvault', ms(linkvault), 'ms'),
    describe('bare Fastify', ms(bareFastify), 'ms'),
    `CPU until /healthz: ${describe('linkvault', cpu(linkvault), 'ms')}; ${describe('bare Fastify', cpu(bareFastify), 'ms')}; ` +
      `ratio ${(median(cpu(linkvault)) / median(cpu(bareFastify))).toFixed(2)}x`,
    `${RUNS} starts each, alternating, after one unmeasured start each; build took ${formatValue(buildMs)} ms`,
  ]);
  printResult('startup-idle-rss', rssMiB, 'MiB idle RSS', rssMiB / median(rss(bareFastify)), 'bare Fastify', [
    describe('linkvault', rss(linkvault), 'MiB'),
    describe('bare Fastify', rss(bareFastify), 'MiB'),
    `VmRSS ${SETTLE_MS / 1000} s after /healthz first answered; after ${LONG_IDLE_MS / 1000} s idle: ` +
      `linkvault ${formatValue(linkvaultLongIdle.rssMiB)} MiB, bare Fastify ${formatValue(bareLongIdle.rssMiB)} MiB`,
  ]);
  // Both budgets are upper bounds (printBudget checks ratios from below).
  const timeOk = timeRatio <= TIME_BUDGET_RATIO;
  const rssOk = rssMiB <= RSS_BUDGET_MIB;
  console.log(`budget: <= ${TIME_BUDGET_RATIO}x bare Fastify to /healthz (measured ${timeRatio.toFixed(2)}) ${timeOk ? 'ok' : 'MISSED'}`);
  console.log(`budget: <= ${RSS_BUDGET_MIB} MiB idle RSS (measured ${formatValue(rssMiB)}) ${rssOk ? 'ok' : 'MISSED'}`);
  if ((!timeOk || !rssOk) && process.env.BENCH_STRICT === '1') process.exitCode = 1;
});
