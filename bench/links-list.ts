/**
 * Listing latency at two account sizes: `GET /api/links?limit=100` for an account of 100 links
 * (one page) and one of 1 000 000, whose first page, last page by number (`page=N`) and last
 * page by cursor (the `nextCursor` of page N-1) must each stay within 3x of the small account's
 * page (ADR 0011). Both run on the real app (child processes `node bin/linkvault.js serve`,
 * embedded SQLite, LOG_LEVEL=info as in production), beside the floor: a bare Fastify route in
 * a child process returning the same JSON (the large account's first page, 100 items). Links
 * are seeded straight into each app's SQLite file, with the counts the app keeps, before the
 * server starts: created over the last 8 days with a 7-day expiry, so 7/8 are active and the
 * current hour's expiries are counted exactly. This process is the client: one keep-alive
 * connection per target, one request at a time. After 50 warm-up requests per target,
 * BENCH_REQUESTS (200) per target in 5 rounds, the targets' order rotating each round. p50 of
 * each; the server's own responseTime (from its request log) is printed too.
 *
 *   npm run bench -- links-list
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { formatValue, runBench } from './lib/harness.js';
import { seedLinks } from './lib/links.js';
import {
  makeTempDir,
  median,
  percentile,
  removeTempDir,
  startFloorProcess,
  startLinkvaultProcess,
  type FloorProcess,
  watchResponseTimes,
} from './lib/files.js';

const SMALL = 100;
const LARGE = Number(process.env.BENCH_LINKS || 1_000_000);
const LIMIT = 100;
const REQUESTS = Number(process.env.BENCH_REQUESTS || 200);
const WARMUP_REQUESTS = 50;
const ROUNDS = 5;
const BUDGET_RATIO = 3;
const DEADLINE_MS = 300_000;

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
  nextCursor: string | null;
}

/** A server holding one account of `count` links; the number of them active when seeded. */
async function startSeeded(count: number) {
  let seedMs = 0;
  let active = 0;
  const server = await startLinkvaultProcess({
    prepare: ({ dataDir, accountId }) => {
      const started = Date.now();
      active = seedLinks(path.join(dataDir, 'linkvault.db'), accountId, count, Date.now());
      seedMs = Date.now() - started;
    },
  });
  return { server, seedMs, active };
}

runBench(async () => {
  const small = await startSeeded(SMALL);
  const large = await startSeeded(LARGE);
  const work = makeTempDir('linkvault-bench-links-list-');
  let floor: FloorProcess | undefined;
  const agents: http.Agent[] = [];
  try {
    const target = (name: string, url: string, apiKey: string): Target & { headers: Record<string, string> } => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      return { name, url, agent, samples: [], headers: { authorization: `Bearer ${apiKey}` } };
    };
    const list = (server: typeof small.server, query: string) => `${server.url}/api/links?limit=${LIMIT}&${query}`;
    const read = async (subject: ReturnType<typeof target>): Promise<{ raw: string; body: ListBody }> => {
      const response = await get(subject, subject.headers);
      if (response.status !== 200) throw new Error(`${subject.name} answered ${response.status}: ${response.body.slice(0, 300)}`);
      return { raw: response.body, body: JSON.parse(response.body) as ListBody };
    };
    const smallPage = target(`${SMALL} links, page 1`, list(small.server, 'page=1'), small.server.apiKey);
    const first = target(`${LARGE} links, first page`, list(large.server, 'page=1'), large.server.apiKey);
    const { raw: firstRaw, body: firstBody } = await read(first);
    // Links expire while the bench runs (about 1.5 a second here): totals are checked loosely.
    if (firstBody.links.length !== LIMIT || Math.abs(firstBody.pagination.total - large.active) > LARGE / 100) {
      throw new Error(
        `first page: ${firstBody.links.length} links, pagination ${JSON.stringify(firstBody.pagination)}, ${large.active} active seeded`,
      );
    }
    const lastPage = firstBody.pagination.totalPages;
    const last = target(`${LARGE} links, last page (page=${lastPage})`, list(large.server, `page=${lastPage}`), large.server.apiKey);
    const { body: beforeLast } = await read(target('page before the last', list(large.server, `page=${lastPage - 1}`), large.server.apiKey));
    if (!beforeLast.nextCursor) throw new Error('the page before the last gave no nextCursor');
    const lastByCursor = target(`${LARGE} links, last page by cursor`, list(large.server, `cursor=${beforeLast.nextCursor}`), large.server.apiKey);
    for (const subject of [smallPage, last, lastByCursor]) {
      const { body } = await read(subject);
      if (body.links.length === 0) throw new Error(`${subject.name}: no links`);
    }

    const floorFile = path.join(work, 'first-page.json');
    fs.writeFileSync(floorFile, firstRaw);
    floor = await startFloorProcess({ mode: 'json', route: '/api/links', file: floorFile });
    const bare = target('bare fastify', `${floor.url}/api/links?limit=${LIMIT}&page=1`, large.server.apiKey);
    const floorBody = await get(bare, bare.headers);
    if (floorBody.status !== 200 || floorBody.body.length !== firstRaw.length) throw new Error('the floor does not answer the same JSON');

    // Each server's own view of each request.
    const serverMs = new Map<string, number[]>();
    let recording = false;
    const stopLogs = [small.server, large.server].map((server) =>
      watchResponseTimes(server, (url, ms) => {
        const key = `${server.url}${url}`;
        if (recording) serverMs.set(key, [...(serverMs.get(key) ?? []), ms]);
      }),
    );

    const deadline = Date.now() + DEADLINE_MS;
    const targets = [bare, smallPage, first, last, lastByCursor];
    const run = async (subject: ReturnType<typeof target>, count: number, keep: boolean) => {
      for (let n = 0; n < count; n++) {
        if (Date.now() > deadline) throw new Error(`links-list: over ${DEADLINE_MS / 1000} s, stopped`);
        const response = await get(subject, subject.headers);
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
    for (const stop of stopLogs) stop();

    const p50 = (t: Target) => median(t.samples);
    const floorMs = p50(bare);
    const smallMs = p50(smallPage);
    const ratio = (t: Target) => p50(t) / smallMs;
    const describe = (t: Target) => {
      const server = serverMs.get(t.url);
      return (
        `${t.name}: p50 ${formatValue(p50(t))} ms, p90 ${formatValue(percentile(t.samples, 90))} ms, p99 ${formatValue(percentile(t.samples, 99))} ms, ` +
        `max ${formatValue(Math.max(...t.samples))} ms over ${t.samples.length} requests` +
        (server ? `; server responseTime p50 ${formatValue(median(server))} ms` : '')
      );
    };

    const large3 = [first, last, lastByCursor];
    console.log(
      `links-list: at ${LARGE} links first ${formatValue(p50(first))} ms, last ${formatValue(p50(last))} ms, last by cursor ${formatValue(p50(lastByCursor))} ms p50 ` +
        `vs ${formatValue(smallMs)} ms at ${SMALL} links (${large3.map((t) => `${ratio(t).toFixed(2)}x`).join(', ')}); bare fastify ${formatValue(floorMs)} ms`,
    );
    for (const line of [
      `seeded ${SMALL} links in ${(small.seedMs / 1000).toFixed(1)} s and ${LARGE} in ${(large.seedMs / 1000).toFixed(1)} s (${large.active} active), limit ${LIMIT}, sqlite, LOG_LEVEL=info`,
      `floor: bare Fastify in a child process returning the large account's first page (${firstRaw.length} bytes of JSON, ${LIMIT} items)`,
      ...targets.map(describe),
      `vs bare fastify: ${targets
        .slice(1)
        .map((t) => `${t.name} ${(p50(t) / floorMs).toFixed(1)}x`)
        .join(', ')}`,
    ])
      console.log(`  ${line}`);

    const ok = large3.every((t) => ratio(t) <= BUDGET_RATIO);
    console.log(
      `budget: each page at ${LARGE} links <= ${BUDGET_RATIO}x the page at ${SMALL} links (measured ${large3.map((t) => ratio(t).toFixed(2)).join(', ')}) ${ok ? 'ok' : 'MISSED'}`,
    );
    if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    for (const agent of agents) agent.destroy();
    await floor?.close();
    await large.server.close();
    await small.server.close();
    removeTempDir(work);
  }
});
