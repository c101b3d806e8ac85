/**
 * A rolling restart under load (issue 17, item 4): HAProxy (Debian's package) in front of two
 * replicas of the built server (`npm run build` first, then `node dist/main.js serve`, as
 * `npm start` runs it) sharing one PostgreSQL schema, one Redis prefix, one blob directory and
 * one MASTER_KEY. Six keep-alive clients mix `GET /api/links`, viewer pages of a few links and
 * 256 KB uploads through HAProxy for BENCH_SECONDS (70); meanwhile replica A gets SIGTERM, is
 * waited for (exit code 0), restarted and waited for until HAProxy sees it up; then the same
 * for B. Printed: requests, failures (5xx or network error) by kind and by phase, exit codes.
 * Budget: 0 failed of 20,000+ requests.
 *
 *   npm run bench -- rolling-restart
 *   BENCH_SECONDS=30 BENCH_DATABASE_URL=postgres://… npm run bench -- rolling-restart
 *   BENCH_LOG_DIR=/tmp/rr npm run bench -- rolling-restart   # keeps haproxy.cfg and every log
 *   BENCH_DRAIN_SECONDS=0 npm run bench -- rolling-restart     # no drain: what it protects from
 *
 * Every child (haproxy, the replicas) runs in a process group of its own and is killed with it
 * at the end, also when the bench fails; the schema, the Redis keys and temp dirs go too.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { REPO_ROOT, TSX_EXEC_ARGV, runBench } from './lib/harness.js';
import { freePort } from '../test/helpers/ports.js';

const HAPROXY = '/usr/sbin/haproxy';
const SECONDS = Number(process.env.BENCH_SECONDS || 70);
const DATABASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://root@127.0.0.1:5432/test';
const REDIS_URL = 'redis://127.0.0.1:6379/0';
const CLIENTS = 6;
const UPLOAD_BYTES = 256 * 1024;
const VIEWER_LINKS = 3;
const BUDGET_REQUESTS = 20_000;
const REQUEST_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 60_000;
/** SHUTDOWN_DRAIN_SECONDS (5) + SHUTDOWN_GRACE_SECONDS (30) + slack. */
const EXIT_TIMEOUT_MS = 45_000;
/** Whatever happens, the bench ends within this. */
const OVERALL_TIMEOUT_MS = (SECONDS + 240) * 1000;

// ---------------------------------------------------------------- children and cleanup

const groups = new Set<ChildProcess>();
const cleanups: (() => Promise<void> | void)[] = [];
/** Removed synchronously even on a hard exit (the overall timeout, a signal). */
const tempDirs = new Set<string>();
/** What a hard exit cannot remove: named in its message. */
const leftovers: string[] = [];

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGKILL to the child's whole process group (it was spawned detached, so it leads one). */
function killGroup(child: ChildProcess): void {
  if (!running(child) || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

process.on('exit', () => {
  for (const child of groups) killGroup(child);
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

function spawnGroup(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; logFile: string }): ChildProcess {
  const log = fs.openSync(options.logFile, 'a');
  try {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: options.env, detached: true, stdio: ['ignore', log, log] });
    groups.add(child);
    child.once('exit', () => groups.delete(child));
    return child;
  } finally {
    fs.closeSync(log);
  }
}

function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | string> {
  if (!running(child)) return Promise.resolve(child.exitCode ?? child.signalCode!);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pid ${child.pid} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal!);
    });
  });
}

function run(command: string, args: string[], env?: NodeJS.ProcessEnv, timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${path.basename(command)} ${args.join(' ')} exited with ${code}: ${output.trim().slice(-2000)}`));
    });
  });
}

// ---------------------------------------------------------------- HTTP client

interface Answer {
  status: number;
  body: string;
  setCookie: string[];
}

function request(
  agent: http.Agent,
  port: number,
  method: string,
  urlPath: string,
  headers: http.OutgoingHttpHeaders = {},
  body?: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent, headers, timeout: REQUEST_TIMEOUT_MS }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve({ status: response.statusCode!, body: text, setCookie: response.headers['set-cookie'] ?? [] }));
      response.once('error', reject);
    });
    outgoing.once('timeout', () => outgoing.destroy(Object.assign(new Error('request timed out'), { code: 'TIMEOUT' })));
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

function multipartUpload(): { body: Buffer; contentType: string } {
  const boundary = `rolling-${randomBytes(8).toString('hex')}`;
  const file = randomBytes(UPLOAD_BYTES);
  file[0] = 0; // no magic number may make it an "executable"
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="expiration"\r\n\r\n24h\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rolling.dat"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

// ---------------------------------------------------------------- HAProxy

function haproxyConfig(ports: { front: number; stats: number; a: number; b: number }): string {
  return `global
    log stdout format raw local0
    maxconn 1000

defaults
    mode http
    log global
    option httplog
    option dontlognull
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout http-request 30s
    timeout http-keep-alive 10s
    timeout queue 30s
    timeout check 2s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout

frontend web
    bind 127.0.0.1:${ports.front}
    default_backend linkvault

backend linkvault
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fall 1 rise 2
    server a 127.0.0.1:${ports.a} check
    server b 127.0.0.1:${ports.b} check

frontend stats
    bind 127.0.0.1:${ports.stats}
    stats enable
    stats uri /stats
`;
}

/** The server's status as HAProxy sees it ("UP", "DOWN", "UP 1/2"…), from the stats CSV. */
async function haproxyStatus(statsPort: number, server: string): Promise<string> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    const { body } = await request(agent, statsPort, 'GET', '/stats;csv');
    const header = body.split('\n', 1)[0]!.replace(/^# /, '').split(',');
    const at = { proxy: header.indexOf('pxname'), server: header.indexOf('svname'), status: header.indexOf('status') };
    const row = body
      .split('\n')
      .map((line) => line.split(','))
      .find((fields) => fields[at.proxy] === 'linkvault' && fields[at.server] === server);
    return row?.[at.status] ?? 'missing';
  } finally {
    agent.destroy();
  }
}

async function waitForStatus(statsPort: number, server: string, wanted: string, timeoutMs: number): Promise<void> {
  const started = performance.now();
  let status = '';
  while (performance.now() - started < timeoutMs) {
    status = await haproxyStatus(statsPort, server).catch(() => 'unreachable');
    if (status === wanted) return;
    await sleep(100);
  }
  throw new Error(`HAProxy did not see server ${server} ${wanted} within ${timeoutMs} ms (last status: ${status})`);
}

// ---------------------------------------------------------------- the load

type Kind = 'list' | 'viewer' | 'upload';

interface Tally {
  requests: number;
  byKind: Record<Kind, number>;
  /** `kind phase reason` → count */
  failures: Map<string, number>;
  /** other non-2xx answers: not failures by the budget's definition, but worth seeing */
  unexpected: Map<string, number>;
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

async function runClient(
  client: number,
  target: { port: number; apiKey: string; viewerIds: string[] },
  upload: { body: Buffer; contentType: string },
  phase: () => string,
  until: () => boolean,
  tally: Tally,
): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const auth = { authorization: `Bearer ${target.apiKey}` };
  // Each client is one browser: it keeps the visit cookie of each link (a returning visitor),
  // and every 10th viewer page it comes as a new visitor, whose first view is written.
  const visitCookies = new Map<string, string>();
  let viewerPages = 0;
  try {
    for (let n = client; !until(); n++) {
      // 10% uploads, 40% viewer pages, 50% link lists, interleaved the same way for every client.
      const slot = n % 20;
      const kind: Kind = slot < 2 ? 'upload' : slot < 10 ? 'viewer' : 'list';
      tally.requests++;
      tally.byKind[kind]++;
      try {
        let answer: Answer;
        if (kind === 'upload') {
          answer = await request(
            agent,
            target.port,
            'POST',
            '/api/upload',
            { ...auth, 'content-type': upload.contentType, 'content-length': upload.body.length },
            upload.body,
          );
        } else if (kind === 'viewer') {
          if (viewerPages++ % 10 === 0) visitCookies.clear();
          const linkId = target.viewerIds[n % target.viewerIds.length]!;
          const cookie = visitCookies.get(linkId);
          answer = await request(agent, target.port, 'GET', `/v/${linkId}`, cookie ? { cookie } : {});
          if (answer.setCookie.length > 0) visitCookies.set(linkId, answer.setCookie.map((header) => header.split(';', 1)[0]).join('; '));
        } else {
          answer = await request(agent, target.port, 'GET', '/api/links?limit=20', auth);
        }
        if (answer.status >= 500) count(tally.failures, `${kind}\t${phase()}\t${answer.status} ${answer.body.slice(0, 80).replace(/\s+/g, ' ')}`);
        else if (answer.status >= 300) count(tally.unexpected, `${kind}\t${answer.status} ${answer.body.slice(0, 80)}`);
      } catch (error) {
        count(tally.failures, `${kind}\t${phase()}\t${describeError(error)}`);
      }
    }
  } finally {
    agent.destroy();
  }
}

// ---------------------------------------------------------------- the bench

async function main(): Promise<void> {
  if (!fs.existsSync(HAPROXY)) {
    console.log(`rolling-restart: ${HAPROXY} not found: apt-get install haproxy`);
    process.exitCode = 1;
    return;
  }
  const deadline = setTimeout(() => {
    console.error(
      `rolling-restart: still running after ${OVERALL_TIMEOUT_MS / 1000} s, giving up; left behind: ${leftovers.join(', ') || 'nothing'}`,
    );
    process.exit(1);
  }, OVERALL_TIMEOUT_MS);
  deadline.unref();

  const keepLogs = process.env.BENCH_LOG_DIR;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-rolling-'));
  tempDirs.add(work);
  cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));
  const logDir = keepLogs ? path.resolve(keepLogs) : work;
  fs.mkdirSync(logDir, { recursive: true });

  try {
    await bench(work, logDir);
  } finally {
    for (const child of groups) killGroup(child);
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`rolling-restart: cleanup failed: ${describeError(error)}`);
      }
    }
  }
}

async function bench(work: string, logDir: string): Promise<void> {
  const buildStarted = performance.now();
  await run(process.execPath, [...TSX_EXEC_ARGV, path.join(REPO_ROOT, 'scripts/build.ts')], process.env, 180_000);
  const buildMs = performance.now() - buildStarted;

  // One fresh schema for both replicas, dropped at the end.
  const schema = `bench_rolling_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL, statement_timeout: 30_000 });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  leftovers.push(`PostgreSQL schema ${schema}`);
  cleanups.push(async () => {
    try {
      await admin.query(`drop schema if exists ${schema} cascade`);
    } finally {
      await admin.end();
    }
  });
  const databaseUrl = new URL(DATABASE_URL);
  databaseUrl.searchParams.set('options', `-c search_path=${schema}`);

  const redisPrefix = `lvbench:${randomBytes(4).toString('hex')}:`;
  leftovers.push(`Redis keys ${redisPrefix}*`);
  cleanups.push(async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  const blobs = path.join(work, 'blobs');
  fs.mkdirSync(blobs);
  const shared: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl.href,
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    STORAGE_URL: `file://${blobs}`,
    MASTER_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_PER_MINUTE: '1000000',
    VIEWS_PER_CLIENT_PER_MINUTE: '1000000',
  };
  // Unset: the server's default drain. Set lower to see what a drain too short for the balancer costs.
  if (process.env.BENCH_DRAIN_SECONDS) shared.SHUTDOWN_DRAIN_SECONDS = process.env.BENCH_DRAIN_SECONDS;
  if (process.env.TMPDIR) shared.TMPDIR = process.env.TMPDIR;

  const ports = { front: await freePort(), stats: await freePort(), a: await freePort(), b: await freePort() };
  const replicaEnv = (name: 'a' | 'b'): NodeJS.ProcessEnv => {
    const dataDir = path.join(work, `data-${name}`);
    fs.mkdirSync(dataDir, { recursive: true });
    return { ...shared, PORT: String(ports[name]), DATA_DIR: dataDir };
  };

  const cli = [path.join(REPO_ROOT, 'dist/main.js')];
  const created = await run(
    process.execPath,
    [...cli, 'accounts', 'create', '--email', `rolling-${process.pid}@example.com`, '--plan', 'business'],
    replicaEnv('a'),
    START_TIMEOUT_MS,
  );
  const { apiKey } = JSON.parse(created.split('\n').find((line) => line.includes('"apiKey"'))!) as { apiKey: string };

  const replicas = new Map<'a' | 'b', ChildProcess>();
  const startReplica = async (name: 'a' | 'b'): Promise<void> => {
    const child = spawnGroup(process.execPath, ['--enable-source-maps', ...cli, 'serve'], {
      env: replicaEnv(name),
      logFile: path.join(logDir, `replica-${name}.log`),
    });
    replicas.set(name, child);
    const started = performance.now();
    const agent = new http.Agent({ keepAlive: false });
    try {
      for (;;) {
        if (!running(child)) throw new Error(`replica ${name} exited (${child.exitCode ?? child.signalCode}) before answering /readyz; see its log`);
        if (performance.now() - started > START_TIMEOUT_MS) throw new Error(`replica ${name}: no /readyz 200 within ${START_TIMEOUT_MS} ms`);
        const answer = await request(agent, ports[name], 'GET', '/readyz').catch(() => undefined);
        if (answer?.status === 200) return;
        await sleep(50);
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all([startReplica('a'), startReplica('b')]);

  const haproxyCfg = path.join(logDir, 'haproxy.cfg');
  fs.writeFileSync(haproxyCfg, haproxyConfig(ports));
  await run(HAPROXY, ['-c', '-q', '-f', haproxyCfg]);
  const haproxyLog = path.join(logDir, 'haproxy.log');
  const haproxy = spawnGroup(HAPROXY, ['-db', '-f', haproxyCfg], { logFile: haproxyLog });
  await Promise.all([waitForStatus(ports.stats, 'a', 'UP', 10_000), waitForStatus(ports.stats, 'b', 'UP', 10_000)]);

  // A few links for the viewer pages, made through HAProxy.
  const upload = multipartUpload();
  const setupAgent = new http.Agent({ keepAlive: true });
  const viewerIds: string[] = [];
  for (let i = 0; i < VIEWER_LINKS; i++) {
    const answer = await request(
      setupAgent,
      ports.front,
      'POST',
      '/api/upload',
      { authorization: `Bearer ${apiKey}`, 'content-type': upload.contentType, 'content-length': upload.body.length },
      upload.body,
    );
    if (answer.status !== 200) throw new Error(`setup upload answered ${answer.status}: ${answer.body}`);
    viewerIds.push((JSON.parse(answer.body) as { id: string }).id);
  }
  setupAgent.destroy();

  // ---- the load, and the rolling restart beside it
  const tally: Tally = { requests: 0, byKind: { list: 0, viewer: 0, upload: 0 }, failures: new Map(), unexpected: new Map() };
  let phase = 'before';
  let restartsDone = false;
  const loadStarted = performance.now();
  const elapsed = () => (performance.now() - loadStarted) / 1000;
  const until = () => restartsDone && elapsed() >= SECONDS;
  const clients = Array.from({ length: CLIENTS }, (_, client) =>
    runClient(client, { port: ports.front, apiKey, viewerIds }, upload, () => phase, until, tally),
  );

  const exitCodes: Record<string, number | string> = {};
  const timeline: string[] = [];
  const mark = (what: string) => timeline.push(`${elapsed().toFixed(1)} s ${what}`);
  const roll = async (name: 'a' | 'b') => {
    const replica = replicas.get(name)!;
    phase = `${name.toUpperCase()} stopping`;
    mark(`SIGTERM ${name.toUpperCase()}`);
    const exited = exitOf(replica, EXIT_TIMEOUT_MS);
    replica.kill('SIGTERM');
    exitCodes[name.toUpperCase()] = await exited;
    mark(`${name.toUpperCase()} exited (${exitCodes[name.toUpperCase()]})`);
    phase = `${name.toUpperCase()} restarting`;
    await startReplica(name);
    mark(`${name.toUpperCase()} answers /readyz`);
    await waitForStatus(ports.stats, name, 'UP', START_TIMEOUT_MS);
    mark(`HAProxy sees ${name.toUpperCase()} UP`);
    phase = `after ${name.toUpperCase()}`;
  };
  const rolling = (async () => {
    try {
      await sleep(Math.min(10, SECONDS * 0.15) * 1000);
      await roll('a');
      await sleep(Math.max(0, SECONDS * 0.5 - elapsed()) * 1000);
      await roll('b');
    } finally {
      restartsDone = true;
    }
  })();
  const [rolled] = await Promise.allSettled([rolling, Promise.all(clients)]);
  const loadSeconds = elapsed();
  if (rolled.status === 'rejected') throw rolled.reason;
  if (!running(haproxy)) throw new Error(`haproxy exited (${haproxy.exitCode ?? haproxy.signalCode}) during the bench`);

  // ---- results
  const failed = [...tally.failures.values()].reduce((sum, n) => sum + n, 0);
  console.log(
    `rolling-restart: ${tally.requests} requests in ${loadSeconds.toFixed(1)} s (${(tally.requests / loadSeconds).toFixed(0)}/s; ` +
      `list ${tally.byKind.list}, viewer ${tally.byKind.viewer}, upload ${tally.byKind.upload}), ${failed} failed`,
  );
  console.log(
    `  ${CLIENTS} keep-alive clients through HAProxy ${execFileSync(HAPROXY, ['-v'], { encoding: 'utf8' }).split('\n', 1)[0]!.replace(/ - .*/, '')}; build took ${(buildMs / 1000).toFixed(1)} s`,
  );
  console.log(`  timeline: ${timeline.join('; ')}`);
  console.log(
    `  replica exit codes after SIGTERM: ${Object.entries(exitCodes)
      .map(([name, code]) => `${name} ${code}`)
      .join(', ')}`,
  );
  for (const [key, n] of [...tally.failures].sort()) {
    const [kind, when, reason] = key.split('\t');
    console.log(`  failed: ${n} × ${kind} during "${when}": ${reason}`);
  }
  for (const [key, n] of tally.unexpected) console.log(`  unexpected answer (not counted as failed): ${n} × ${key.replace('\t', ' ')}`);
  // HAProxy retried (or redispatched) these behind the clients' backs: near misses worth knowing.
  const haproxyLines = fs.readFileSync(haproxyLog, 'utf8').split('\n');
  const retried = haproxyLines.filter((line) => / \d+\/\d+\/\d+\/\d+\/\+?[1-9]\d* \d+\/\d+ /.test(line)).length;
  console.log(
    `  HAProxy: ${retried} requests retried or redispatched, ${haproxyLines.filter((line) => /^Server linkvault\/\w+ is (UP|DOWN)/.test(line)).length} server state changes`,
  );
  if (failed > 0) {
    // HAProxy's log lines of the failures: termination state other than "--" or a 5xx.
    const lines = haproxyLines
      .filter((line) => / web linkvault\//.test(line) && (/ 5\d\d \d+ /.test(line) || / [sSCPRIDLUK][CHDLQRTc-]-- /.test(line)))
      .slice(0, 20);
    if (lines.length > 0) console.log(`  HAProxy log of the failures:\n    ${lines.join('\n    ')}`);
  }
  const exitOk = Object.values(exitCodes).every((code) => code === 0);
  const ok = failed === 0 && tally.requests >= BUDGET_REQUESTS && exitOk && Object.keys(exitCodes).length === 2;
  console.log(
    `budget: 0 failed of ${BUDGET_REQUESTS}+ requests, replicas exit 0 (measured ${failed} failed of ${tally.requests}; ` +
      `exit codes ${Object.values(exitCodes).join(', ')}) ${ok ? 'ok' : 'MISSED'}`,
  );
  if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
}

runBench(main);
