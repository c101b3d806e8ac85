/**
 * Listing latency: `GET /api/links?limit=100&page=N` for the first page and the last
 * (page 1000) of an account holding 100 000 links, on the real app (child process
 * `node bin/linkvault.js serve`, embedded SQLite, LOG_LEVEL=info as in production) against
 * its floor, a bare Fastify route in a child process returning the same JSON (the app's
 * own first page, 100 items). Links are seeded straight into the app's SQLite file before
 * the server starts. This process is the client: one keep-alive connection per server,
 * one request at a time. After 50 warm-up requests per target, BENCH_REQUESTS (200) per
 * target in 5 rounds, the targets' order rotating each round. p50 of each; the server's
 * own responseTime (from its request log) is printed too. Budget: p50 < 25 ms for each page.
 *
 *   npm run bench -- links-list
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { formatValue, runBench } from './lib/harness.js';
import {
  makeTempDir,
  median,
  percentile,
  removeTempDir,
  startFloorProcess,
  startLinkvaultProcess,
  type FloorProcess,
  type LogLine,
} from './lib/files.js';

const LINKS = 100_000;
const LIMIT = 100;
const LAST_PAGE = Math.ceil(LINKS / LIMIT);
const REQUESTS = Number(process.env.BENCH_REQUESTS || 200);
const WARMUP_REQUESTS = 50;
const ROUNDS = 5;
const BUDGET_MS = 25;
const DEADLINE_MS = 300_000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 22 random base62 characters, like links.newLinkId() (rejection sampling, no bias). */
function linkId(): string {
  let id = '';
  while (id.length < 22) {
    for (const byte of randomBytes(32)) {
      if (byte < 248) id += BASE62[byte % 62];
      if (id.length === 22) break;
    }
  }
  return id;
}

/** 100 000 file links of one account, in transactions of 10 000, with realistic row sizes. */
function seedLinks(file: string, accountId: number): number {
  const started = Date.now();
  const db = new SQLite(file);
  try {
    const insert = db.prepare(
      `INSERT INTO links (id, account_id, kind, name, mime, version, blob_key, wrapped_key, size, sha256, created_at, expires_at)
       VALUES (?, ?, 'file', ?, 'application/pdf', 1, ?, ?, ?, ?, ?, ?)`,
    );
    const now = Date.now();
    const expiresAt = now + 30 * 86_400_000;
    const firstCreatedAt = now - LINKS * 1000;
    const batch = db.transaction((from: number, to: number) => {
      for (let n = from; n < to; n++) {
        const id = linkId();
        insert.run(
          id,
          accountId,
          `Quarterly report ${n + 1}.pdf`,
          `links/${id}/v1-${linkId().slice(0, 8)}`,
          randomBytes(60).toString('base64'),
          100_000 + n,
          randomBytes(32).toString('hex'),
          firstCreatedAt + n * 1000,
          expiresAt,
        );
      }
    });
    for (let from = 0; from < LINKS; from += 10_000) batch(from, Math.min(LINKS, from + 10_000));
  } finally {
    db.close();
  }
  return Date.now() - started;
}

interface Target {
  name: string;
  url: string;
  agent: http.Agent;
  samples: number[];
}

function get(target: Target, headers: Record<string, string>): Promise<{ ms: number; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.get(target.url, { agent: target.agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    request.setTimeout(30_000, () => request.destroy(new Error(`GET ${target.url} timed out`)));
    request.on('error', reject);
  });
}

interface ListBody {
  links: { id: string }[];
  pagination: { total: number; totalPages: number };
}

runBench(async () => {
  let seedMs = 0;
  const linkvault = await startLinkvaultProcess({
    prepare: ({ dataDir, accountId }) => {
      seedMs = seedLinks(path.join(dataDir, 'linkvault.db'), accountId);
    },
  });
  const work = makeTempDir('linkvault-bench-links-list-');
  let floor: FloorProcess | undefined;
  const agents: http.Agent[] = [];
  try {
    const headers = { authorization: `Bearer ${linkvault.apiKey}` };
    const target = (name: string, url: string): Target => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      return { name, url, agent, samples: [] };
    };
    const first = target('first page', `${linkvault.url}/api/links?limit=${LIMIT}&page=1`);
    const last = target('last page', `${linkvault.url}/api/links?limit=${LIMIT}&page=${LAST_PAGE}`);

    const firstBody = await get(first, headers);
    const lastBody = await get(last, headers);
    for (const [response, page] of [
      [firstBody, 1],
      [lastBody, LAST_PAGE],
    ] as const) {
      if (response.status !== 200) throw new Error(`page ${page} answered ${response.status}: ${response.body.slice(0, 300)}`);
      const body = JSON.parse(response.body) as ListBody;
      if (body.links.length !== LIMIT || body.pagination.total !== LINKS || body.pagination.totalPages !== LAST_PAGE) {
        throw new Error(`page ${page}: ${body.links.length} links, pagination ${JSON.stringify(body.pagination)}`);
      }
    }

    const floorFile = path.join(work, 'first-page.json');
    fs.writeFileSync(floorFile, firstBody.body);
    floor = await startFloorProcess({ mode: 'json', route: '/api/links', file: floorFile });
    const bare = target('bare fastify', `${floor.url}/api/links?limit=${LIMIT}&page=1`);
    const floorBody = await get(bare, headers);
    if (floorBody.status !== 200 || floorBody.body.length !== firstBody.body.length) throw new Error('the floor does not answer the same JSON');

    // The server's own view of each request: reqId → url from "incoming request", then its responseTime.
    const urlOf = new Map<string, string>();
    const serverMs = new Map<string, number[]>();
    let recording = false;
    const stopLog = linkvault.onLog((line: LogLine) => {
      if (!recording || !line.reqId) return;
      if (line.req?.url) urlOf.set(line.reqId, line.req.url);
      else if (line.responseTime !== undefined) {
        const url = urlOf.get(line.reqId);
        urlOf.delete(line.reqId);
        if (url) serverMs.set(url, [...(serverMs.get(url) ?? []), line.responseTime]);
      }
    });

    const deadline = Date.now() + DEADLINE_MS;
    const targets = [bare, first, last];
    const run = async (subject: Target, count: number, keep: boolean) => {
      for (let n = 0; n < count; n++) {
        if (Date.now() > deadline) throw new Error(`links-list: over ${DEADLINE_MS / 1000} s, stopped`);
        const response = await get(subject, headers);
        if (response.status !== 200) throw new Error(`${subject.name} answered ${response.status}: ${response.body.slice(0, 300)}`);
        if (keep) subject.samples.push(response.ms);
      }
    };
    for (const subject of targets) await run(subject, WARMUP_REQUESTS, false);
    recording = true;
    for (let round = 0; round < ROUNDS; round++) {
      const count = Math.ceil(REQUESTS / ROUNDS);
      for (let k = 0; k < targets.length; k++) await run(targets[(round + k) % targets.length]!, count, true);
    }
    recording = false;
    stopLog();

    const p50 = (t: Target) => median(t.samples);
    const floorMs = p50(bare);
    const firstMs = p50(first);
    const lastMs = p50(last);
    const serverP50 = (t: Target) => median(serverMs.get(new URL(t.url).pathname + new URL(t.url).search) ?? []);
    const describe = (t: Target) =>
      `${t.name}: p50 ${formatValue(p50(t))} ms, p90 ${formatValue(percentile(t.samples, 90))} ms, p99 ${formatValue(percentile(t.samples, 99))} ms, ` +
      `max ${formatValue(Math.max(...t.samples))} ms over ${t.samples.length} requests`;

    console.log(
      `links-list: first ${formatValue(firstMs)} ms, last ${formatValue(lastMs)} ms p50 ` +
        `(${(firstMs / floorMs).toFixed(1)}x, ${(lastMs / floorMs).toFixed(1)}x vs bare fastify ${formatValue(floorMs)} ms)`,
    );
    for (const line of [
      `${LINKS} links in one account (seeded in ${(seedMs / 1000).toFixed(1)} s), limit ${LIMIT}: page 1 and page ${LAST_PAGE}, sqlite, LOG_LEVEL=info`,
      `floor: bare Fastify in a child process returning the app's first page (${firstBody.body.length} bytes of JSON, 100 items)`,
      describe(first),
      describe(last),
      describe(bare),
      `server-side responseTime p50 (its request log): first ${formatValue(serverP50(first))} ms, last ${formatValue(serverP50(last))} ms`,
    ])
      console.log(`  ${line}`);

    const ok = firstMs < BUDGET_MS && lastMs < BUDGET_MS;
    console.log(
      `budget: < ${BUDGET_MS} ms p50 for each page on sqlite (measured first ${formatValue(firstMs)}, last ${formatValue(lastMs)}) ${ok ? 'ok' : 'MISSED'}`,
    );
    if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    for (const agent of agents) agent.destroy();
    await floor?.close();
    await linkvault.close();
    removeTempDir(work);
  }
});
