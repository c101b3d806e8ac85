/**
 * API overhead: authenticated `GET /api/api-keys` on the real app (embedded SQLite by
 * default) against its floor, a bare Fastify route returning the same JSON without auth
 * or database. Both are measured in this run by autocannon (50 connections) from a
 * separate process: 2 s warm-up each, then 10 s each in 10 alternating rounds of 1 s, short
 * so that the two sides of a round meet the same machine; the ratio is the median of the
 * rounds' ratios. Budget: at least 0.5 of the floor's requests/s.
 *
 *   npm run bench -- api
 *   BENCH_SECONDS=5 BENCH_ROUNDS=1 npm run bench -- api      (quicker, noisier)
 *   BENCH_DATABASE_URL=postgres://… BENCH_REDIS_URL=redis://… npm run bench -- api
 */
import {
  describeLatency,
  describeRounds,
  measurePaired,
  printBudget,
  printResult,
  runBench,
  startBareFastify,
  startLinkvault,
} from './lib/harness.js';

const BUDGET = 0.5;
const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 10);
const WARMUP_SECONDS = 2;

runBench(async () => {
  const linkvault = await startLinkvault({
    RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    REDIS_URL: process.env.BENCH_REDIS_URL,
    REDIS_PREFIX: `linkvault-bench-${process.pid}:`,
  });
  try {
    const headers = { authorization: `Bearer ${linkvault.apiKey}` };
    const response = await fetch(`${linkvault.url}/api/api-keys`, { headers });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET /api/api-keys answered ${response.status}: ${text}`);
    const body = JSON.parse(text) as { api_keys: unknown[] };
    if (body.api_keys.length !== 1) throw new Error(`expected one key in ${text}`);

    // The floor: the same JSON from a bare Fastify route, no auth, no database. It gets
    // the same request (the header is ignored) so that only the server's work differs.
    const floor = await startBareFastify((app) => {
      app.get('/api/api-keys', async () => body);
    });
    try {
      const measured = await measurePaired(
        { name: 'bare fastify', options: { url: `${floor.url}/api/api-keys`, connections: CONNECTIONS, headers } },
        { name: 'linkvault', options: { url: `${linkvault.url}/api/api-keys`, connections: CONNECTIONS, headers } },
        { warmupSeconds: WARMUP_SECONDS, seconds: SECONDS, rounds: ROUNDS },
      );
      const database = process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite';
      printResult('api-keys-list', measured.subjectRps, 'req/s', measured.ratio, 'bare fastify');
      printBudget(measured.ratio, BUDGET, `of bare fastify (${database})`);
      for (const line of [
        `linkvault ${Math.round(measured.subjectRps)} req/s, bare fastify ${Math.round(measured.floorRps)} req/s over ${SECONDS} s each; ratio = median of rounds`,
        ...describeRounds(measured),
        `server CPU per request: linkvault ${measured.subjectCpuUsPerRequest.toFixed(1)} µs, bare fastify ${measured.floorCpuUsPerRequest.toFixed(1)} µs`,
        describeLatency('linkvault', measured.subjectResults),
        describeLatency('bare fastify', measured.floorResults),
      ])
        console.log(`  ${line}`);
    } finally {
      await floor.close();
    }
  } finally {
    await linkvault.close();
  }
});
