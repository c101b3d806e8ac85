/**
 * Analytics dashboard latency: GET /api/analytics/global for an account with 1 000 links and
 * 100 000 view events (beside another account's 1 000 links and 20 000 views), seeded straight
 * into the database, against its floor: a bare Fastify route returning the same JSON. One
 * request in flight at a time, sent from a child process (this file, forked with --client),
 * timed to the microsecond: autocannon's whole-millisecond histogram cannot time the floor.
 * Warm-up, then BENCH_ROUNDS alternating rounds of BENCH_REQUESTS requests per side.
 * Budget: p50 < 50 ms on SQLite.
 *
 *   npm run bench -- analytics-global
 *   BENCH_DATABASE_URL=postgres://… npm run bench -- analytics-global
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Insertable } from 'kysely';
import { openDatabase, type Db } from '../src/db/kysely.js';
import type { DatabaseConfig } from '../src/config.js';
import type { EventsTable, VisitsTable } from '../src/db/types.js';
import { randomBase62 } from '../src/infra/crypto/tokens.js';
import { formatValue, printResult, runBench, startBareFastify, startLinkvault, TSX_EXEC_ARGV } from './lib/harness.js';

const BUDGET_MS = 50;
const REQUESTS = Number(process.env.BENCH_REQUESTS || 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 4);
const WARMUP_REQUESTS = 20;
const DAY = 86_400_000;

interface SeedShape {
  links: number;
  views: number;
  /** distinct visitors known by e-mail, and by IP only */
  emails: number;
  ips: number;
}

/** Rows as the app writes them for each view: visit (session), counter, link.viewed event, and the analytics tallies. */
async function seedAccount(db: Db, accountId: number, shape: SeedShape, now: number): Promise<void> {
  const links = Array.from({ length: shape.links }, (_, index) => ({
    id: randomBase62(22),
    name: `report-${String(index).padStart(4, '0')}.pdf`,
    created_at: now - (index + 1) * 60_000,
    views: 0,
  }));
  const visits: Insertable<VisitsTable>[] = [];
  const events: Insertable<EventsTable>[] = [];
  const firstSeen = new Map<string, number>();
  const viewsOnDay = new Map<number, number>();
  for (let view = 0; view < shape.views; view++) {
    // A few links get most of the views, as in real accounts.
    const link = links[Math.floor(shape.links * Math.random() ** 2)]!;
    link.views++;
    const email = Math.random() < 0.4 ? `visitor${Math.floor(Math.random() * shape.emails)}@example.com` : null;
    const ipNumber = Math.floor(Math.random() * shape.ips);
    const ip = `10.${accountId % 256}.${ipNumber >> 8}.${ipNumber & 255}`;
    const at = now - Math.floor(Math.random() * 60 * DAY);
    visits.push({
      token_hash: `bench-${accountId}-${view}`,
      link_id: link.id,
      email,
      ip,
      created_at: at,
      expires_at: at + 3_600_000,
      session_started_at: at,
    });
    events.push({
      account_id: accountId,
      type: 'link.viewed',
      link_id: link.id,
      payload: JSON.stringify({ linkName: link.name, email, ip }),
      created_at: at,
    });
    const key = email ?? ip;
    firstSeen.set(key, Math.min(firstSeen.get(key) ?? at, at));
    const day = Math.floor(at / DAY);
    viewsOnDay.set(day, (viewsOnDay.get(day) ?? 0) + 1);
  }
  for (let download = 0; download < shape.views / 50; download++) {
    const link = links[download % links.length]!;
    events.push({
      account_id: accountId,
      type: 'link.downloaded',
      link_id: link.id,
      payload: JSON.stringify({ linkName: link.name }),
      created_at: now - download * 1000,
    });
  }
  const batches = <T>(rows: T[], size: number) =>
    Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
  await db.transaction().execute(async (trx) => {
    for (const batch of batches(links, 200)) {
      await trx
        .insertInto('links')
        .values(
          batch.map((link, index) => ({
            ...link,
            account_id: accountId,
            kind: 'file' as const,
            mime: 'application/pdf',
            is_active: index % 10 === 0 ? 0 : 1,
            expires_at: now + (link.views % 3 === 0 ? -DAY : 7 * DAY),
          })),
        )
        .execute();
    }
    for (const batch of batches(visits, 500)) await trx.insertInto('visits').values(batch).execute();
    for (const batch of batches(events, 500)) await trx.insertInto('events').values(batch).execute();
    const visitors = [...firstSeen].map(([visitor_key, first_seen_at]) => ({ account_id: accountId, visitor_key, first_seen_at }));
    for (const batch of batches(visitors, 1000)) await trx.insertInto('account_visitors').values(batch).execute();
    await trx
      .insertInto('account_daily_views')
      .values([...viewsOnDay].map(([day, views]) => ({ account_id: accountId, day, views })))
      .execute();
    const requests = links
      .slice(0, 50)
      .map((link) => ({ link_id: link.id, email: 'asker@example.com', visitor_ip: '10.9.9.9', status: 'pending' as const, created_at: now }));
    await trx.insertInto('access_requests').values(requests).execute();
  });
}

/** The child: times sequential GETs over one keep-alive connection and sends the samples (ms) back. */
function runClient(): void {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (url: string, headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (response) => {
          if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}`));
          response.resume().on('end', resolve);
        })
        .on('error', reject);
    });
  process.on('message', async ({ url, headers, count }: { url: string; headers: Record<string, string>; count: number }) => {
    try {
      const samples: number[] = [];
      for (let i = 0; i < count; i++) {
        const started = process.hrtime.bigint();
        await get(url, headers);
        samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      process.send!({ ok: true, samples });
    } catch (error) {
      process.send!({ ok: false, error: String(error) });
    }
  });
}

function startClient() {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--client'], {
    execArgv: TSX_EXEC_ARGV,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    measure(url: string, headers: Record<string, string>, count: number): Promise<number[]> {
      return new Promise((resolve, reject) => {
        child.once('message', (reply: { ok: true; samples: number[] } | { ok: false; error: string }) =>
          reply.ok ? resolve(reply.samples) : reject(new Error(reply.error)),
        );
        child.send({ url, headers, count });
      });
    },
    close: () => child.kill(),
  };
}

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const linkvault = await startLinkvault({ RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_URL: databaseUrl, REDIS_URL: process.env.BENCH_REDIS_URL });
  const database: DatabaseConfig = databaseUrl
    ? { kind: 'postgres', url: databaseUrl }
    : { kind: 'sqlite', file: path.join(linkvault.dataDir, 'linkvault.db') };
  const seeding = openDatabase(database);
  const client = startClient();
  let neighbour: number | undefined;
  try {
    const now = Date.now();
    const seedStarted = Date.now();
    await seedAccount(seeding.db, linkvault.accountId, { links: 1000, views: 100_000, emails: 8000, ips: 12_000 }, now);
    neighbour = (
      await seeding.db
        .insertInto('accounts')
        .values({ email: `bench-neighbour-${now}@example.com`, name: null, plan: 'business', created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await seedAccount(seeding.db, neighbour, { links: 1000, views: 20_000, emails: 2000, ips: 3000 }, now);
    const seedSeconds = (Date.now() - seedStarted) / 1000;

    const url = `${linkvault.url}/api/analytics/global`;
    const headers = { authorization: `Bearer ${linkvault.apiKey}` };
    const body = (await (await fetch(url, { headers })).json()) as {
      metrics: { totalViews: number };
      topLinks: unknown[];
      charts: { viewsByDay: unknown[] };
    };
    if (body.metrics.totalViews !== 100_000 || body.topLinks.length !== 10 || body.charts.viewsByDay.length !== 30) {
      throw new Error(`unexpected analytics: ${JSON.stringify(body.metrics)}`);
    }
    const floor = await startBareFastify((app) => {
      app.get('/api/analytics/global', async () => body);
    });
    try {
      const floorUrl = `${floor.url}/api/analytics/global`;
      await client.measure(floorUrl, headers, WARMUP_REQUESTS);
      await client.measure(url, headers, WARMUP_REQUESTS);
      const subjectSamples: number[] = [];
      const floorSamples: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [floorUrl, url] : [url, floorUrl];
        for (const target of order) (target === url ? subjectSamples : floorSamples).push(...(await client.measure(target, headers, REQUESTS)));
      }
      const p50 = percentile(subjectSamples, 50);
      const floorP50 = percentile(floorSamples, 50);
      printResult('analytics-global', p50, 'ms p50', p50 / floorP50, 'bare fastify', [
        `linkvault p50 ${formatValue(p50)} ms, p90 ${formatValue(percentile(subjectSamples, 90))} ms, p99 ${formatValue(percentile(subjectSamples, 99))} ms over ${subjectSamples.length} sequential requests`,
        `bare fastify (same ${JSON.stringify(body).length}-byte JSON) p50 ${floorP50.toFixed(3)} ms, p99 ${percentile(floorSamples, 99).toFixed(3)} ms`,
        `seeded 1 000 links and 100 000 views (+ 1 000 links and 20 000 views of another account) in ${seedSeconds.toFixed(1)} s on ${database.kind}`,
      ]);
      // An upper bound in ms (printBudget checks ratios from below).
      const ok = p50 < BUDGET_MS;
      console.log(`budget: < ${BUDGET_MS} ms p50 on ${database.kind} (measured ${formatValue(p50)}) ${ok ? 'ok' : 'MISSED'}`);
      if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
    } finally {
      await floor.close();
    }
  } finally {
    client.close();
    // On a shared PostgreSQL, leave nothing behind (the SQLite file goes with its directory).
    if (databaseUrl)
      await seeding.db
        .deleteFrom('accounts')
        .where('id', 'in', [linkvault.accountId, ...(neighbour ? [neighbour] : [])])
        .execute();
    await seeding.close();
    await linkvault.close();
  }
}

if (process.argv[2] === '--client') runClient();
else runBench(main);
