/**
 * One link's analytics, the screen the dashboard refreshes every 5 s while it is open:
 * `GET /api/links/{id}/analytics` for a link of 100 000 views by 20 000 visitors (600 000 page
 * reads) against one of 5 000 views by 5 000 visitors (30 000 page reads). Both answers list
 * the 5 000 latest visitors, so they are about the same size and the ratio shows what the
 * views behind them cost. Seeded straight into the app's SQLite file before the server starts
 * (`node bin/linkvault.js serve` in a child process), beside the floor: a bare Fastify route
 * in a child process returning the large link's JSON. One keep-alive connection per target,
 * one request at a time; warm-up, then BENCH_REQUESTS (60) per target in rotating rounds. The
 * large link's call as the dashboard makes it (`?visitors=50`) is printed too.
 * Budget: p50 of the large link <= 2x the small one's.
 *
 *   npm run bench -- link-analytics
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { formatValue, printResult, runBench } from './lib/harness.js';
import { seedLinkViews, type ViewShape } from './lib/link-views.js';
import { makeTempDir, median, percentile, removeTempDir, startFloorProcess, startLinkvaultProcess, type FloorProcess } from './lib/files.js';
import { timedGet } from './lib/timed-get.js';

const SMALL: ViewShape = { views: 5_000, visitors: 5_000, pagesPerView: 6 };
const LARGE: ViewShape = { views: Number(process.env.BENCH_VIEWS || 100_000), visitors: 20_000, pagesPerView: 6 };
const REQUESTS = Number(process.env.BENCH_REQUESTS || 60);
const WARMUP_REQUESTS = 10;
const ROUNDS = 4;
const BUDGET_RATIO = 2;
const DEADLINE_MS = 300_000;

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  agent: http.Agent;
  samples: number[];
}

runBench(async () => {
  const links = { small: '', large: '' };
  let seedMs = 0;
  const server = await startLinkvaultProcess({
    prepare: ({ dataDir, accountId }) => {
      const started = Date.now();
      const file = path.join(dataDir, 'linkvault.db');
      links.small = seedLinkViews(file, accountId, 'Small deck.pdf', SMALL, started);
      links.large = seedLinkViews(file, accountId, 'Popular deck.pdf', LARGE, started);
      seedMs = Date.now() - started;
    },
  });
  const work = makeTempDir('linkvault-bench-link-analytics-');
  const agents: http.Agent[] = [];
  let floor: FloorProcess | undefined;
  try {
    const headers = { authorization: `Bearer ${server.apiKey}` };
    const target = (name: string, url: string): Target => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      return { name, url, headers, agent, samples: [] };
    };
    const analyticsOf = async (linkId: string, shape: ViewShape) => {
      const response = await fetch(`${server.url}/api/links/${linkId}/analytics`, { headers });
      const raw = await response.text();
      if (response.status !== 200) throw new Error(`analytics answered ${response.status}: ${raw.slice(0, 300)}`);
      const body = JSON.parse(raw) as { uniqueVisitors: number; visitors: unknown[]; pages: unknown[] };
      if (body.uniqueVisitors !== shape.visitors || body.visitors.length !== 5000 || body.pages.length !== 12) {
        throw new Error(`unexpected analytics: ${body.uniqueVisitors} visitors, ${body.visitors.length} listed, ${body.pages.length} pages`);
      }
      return raw;
    };
    const smallRaw = await analyticsOf(links.small, SMALL);
    const largeRaw = await analyticsOf(links.large, LARGE);
    const floorFile = path.join(work, 'analytics.json');
    fs.writeFileSync(floorFile, largeRaw);
    floor = await startFloorProcess({ mode: 'json', route: '/analytics', file: floorFile });

    const bare = target('bare fastify', `${floor.url}/analytics`);
    const small = target(`${SMALL.views} views`, `${server.url}/api/links/${links.small}/analytics`);
    const large = target(`${LARGE.views} views`, `${server.url}/api/links/${links.large}/analytics`);
    const latest = target(`${LARGE.views} views, latest 50 (the dashboard's call)`, `${large.url}?visitors=50`);
    const targets = [bare, small, large, latest];
    const deadline = Date.now() + DEADLINE_MS;
    const run = async (subject: Target, count: number, keep: boolean) => {
      for (let n = 0; n < count; n++) {
        if (Date.now() > deadline) throw new Error(`link-analytics: over ${DEADLINE_MS / 1000} s, stopped`);
        const ms = await timedGet(subject.url, subject.headers, subject.agent);
        if (keep) subject.samples.push(ms);
      }
    };
    for (const subject of targets) await run(subject, WARMUP_REQUESTS, false);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < targets.length; k++) await run(targets[(round + k) % targets.length]!, Math.ceil(REQUESTS / ROUNDS), true);
    }

    const p50 = (subject: Target) => median(subject.samples);
    const ratio = p50(large) / p50(small);
    printResult('link-analytics', p50(large), `ms p50 at ${LARGE.views} views`, ratio, `${SMALL.views} views`, [
      ...targets.map(
        (subject) =>
          `${subject.name}: p50 ${formatValue(p50(subject))} ms, p90 ${formatValue(percentile(subject.samples, 90))} ms over ${subject.samples.length} requests`,
      ),
      `answers: ${smallRaw.length} and ${largeRaw.length} bytes of JSON (5 000 visitors listed each); vs bare fastify: ${SMALL.views} views ${(p50(small) / p50(bare)).toFixed(1)}x, ${LARGE.views} views ${(p50(large) / p50(bare)).toFixed(1)}x`,
      `seeded ${SMALL.views + LARGE.views} views and ${(SMALL.views + LARGE.views) * SMALL.pagesPerView} page reads in ${(seedMs / 1000).toFixed(1)} s, sqlite`,
    ]);
    const ok = ratio <= BUDGET_RATIO;
    console.log(
      `budget: p50 at ${LARGE.views} views <= ${BUDGET_RATIO}x at ${SMALL.views} views (measured ${ratio.toFixed(2)}x) ${ok ? 'ok' : 'MISSED'}`,
    );
    if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    for (const agent of agents) agent.destroy();
    await floor?.close();
    await server.close();
    removeTempDir(work);
  }
});
