/**
 * Sessions on the hot path: the same authenticated `GET /api/api-keys` on the real app, once
 * with the signed-in person's session cookie and once with an API key, both measured in this
 * run by autocannon (50 connections) in alternating rounds, as bench/api.ts does. The key is the
 * floor. Budget: the session reaches at least 0.8 of the key's requests/s.
 *
 *   npm run bench -- session-auth
 *   BENCH_DATABASE_URL=postgres://… BENCH_REDIS_URL=redis://… npm run bench -- session-auth
 */
import { describeLatency, describeRounds, measurePaired, printBudget, printResult, runBench, startLinkvault } from './lib/harness.js';

const BUDGET = 0.8;
const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 10);
const PASSWORD = 'a bench password of some length';

runBench(async () => {
  const linkvault = await startLinkvault({
    RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    REDIS_URL: process.env.BENCH_REDIS_URL,
    REDIS_PREFIX: `linkvault-bench-${process.pid}:`,
  });
  try {
    const email = `bench-owner-${process.pid}@example.com`;
    const userId = await linkvault.services.users.create({ email, name: 'Bench owner', password: PASSWORD });
    await linkvault.services.members.join(userId, linkvault.accountId, 'owner');
    const signIn = await fetch(`${linkvault.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const cookie = signIn.headers.get('set-cookie')?.split(';')[0];
    if (signIn.status !== 200 || !cookie) throw new Error(`sign-in answered ${signIn.status}: ${await signIn.text()}`);

    const url = `${linkvault.url}/api/api-keys`;
    const withKey = { authorization: `Bearer ${linkvault.apiKey}` };
    const withSession = { cookie };
    for (const headers of [withKey, withSession]) {
      const response = await fetch(url, { headers });
      if (response.status !== 200) throw new Error(`GET /api/api-keys answered ${response.status}: ${await response.text()}`);
    }

    const measured = await measurePaired(
      { name: 'api key', options: { url, connections: CONNECTIONS, headers: withKey } },
      { name: 'session', options: { url, connections: CONNECTIONS, headers: withSession } },
      { warmupSeconds: 2, seconds: SECONDS, rounds: ROUNDS },
    );
    const database = process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite';
    printResult('session-auth', measured.subjectRps, 'req/s', measured.ratio, 'api key');
    printBudget(measured.ratio, BUDGET, `of the same GET with an API key (${database})`);
    for (const line of [
      `session ${Math.round(measured.subjectRps)} req/s, api key ${Math.round(measured.floorRps)} req/s over ${SECONDS} s each; ratio = median of rounds`,
      ...describeRounds(measured),
      `server CPU per request: session ${measured.subjectCpuUsPerRequest.toFixed(1)} µs, api key ${measured.floorCpuUsPerRequest.toFixed(1)} µs`,
      describeLatency('session', measured.subjectResults),
      describeLatency('api key', measured.floorResults),
    ])
      console.log(`  ${line}`);
  } finally {
    await linkvault.close();
  }
});
