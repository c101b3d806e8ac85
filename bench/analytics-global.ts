/**
 * Analytics dashboard latency: GET /api/analytics/global for an account of 1 000 links and
 * 1 000 000 view events against one of 1 000 links and 1 000 view events (each on its own
 * server; the large one beside another account's 1 000 links and 20 000 views), seeded straight
 * into the database as the app writes them, and against the floor: a bare Fastify route
 * returning the same JSON. One request in flight at a time, sent from a child process (this
 * file, forked with --client), timed to the microsecond: autocannon's whole-millisecond
 * histogram cannot time the floor. Warm-up, then BENCH_ROUNDS rotating rounds of
 * BENCH_REQUESTS requests per target. Budget: p50 at 1 000 000 events <= 3x at 1 000 (ADR 0011).
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

const BUDGET_RATIO = 3;
const LARGE_VIEWS = Number(process.env.BENCH_EVENTS || 1_000_000);
const SMALL_VIEWS = 1000;
const SEED_BATCH = 2000;
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

/**
 * Rows as the app writes them for each view: visit (session), counter, link.viewed event, and
 * the analytics tallies; generated and inserted a batch at a time, in one transaction.
 */
async function seedAccount(db: Db, accountId: number, shape: SeedShape, now: number): Promise<void> {
  const links = Array.from({ length: shape.links }, (_, index) => ({
    id: randomBase62(22),
    name: `report-${String(index).padStart(4, '0')}.pdf`,
    created_at: now - (index + 1) * 60_000,
    views: 0,
  }));
  const firstSeen = new Map<string, number>();
  const viewsOnDay = new Map<number, number>();
  const downloads = Math.floor(shape.views / 50);
  const batches = <T>(rows: T[], size: number) =>
    Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
  await db.transaction().execute(async (trx) => {
    // Links first (their visits refer to them); their view counters and expiry once the views are drawn.
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
            expires_at: now + 7 * DAY,
          })),
        )
        .execute();
    }
    for (let from = 0; from < shape.views; from += SEED_BATCH) {
      const visits: Insertable<VisitsTable>[] = [];
      const events: Insertable<EventsTable>[] = [];
      for (let view = from; view < Math.min(shape.views, from + SEED_BATCH); view++) {
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
      await trx.insertInto('visits').values(visits).execute();
      await trx.insertInto('events').values(events).execute();
    }
    for (let from = 0; from < downloads; from += SEED_BATCH) {
      const events = Array.from({ length: Math.min(SEED_BATCH, downloads - from) }, (_, index) => {
        const link = links[(from + index) % links.length]!;
        return {
          account_id: accountId,
          type: 'link.downloaded',
          link_id: link.id,
          payload: JSON.stringify({ linkName: link.name }),
          created_at: now - (from + index) * 1000,
        };
      });
      await trx.insertInto('events').values(events).execute();
    }
    for (const link of links) {
      await trx
        .updateTable('links')
        .set({ views: link.views, expires_at: now + (link.views % 3 === 0 ? -DAY : 7 * DAY) })
        .where('id', '=', link.id)
        .execute();
    }
    const visitors = [...firstSeen].map(([visitor_key, first_seen_at]) => ({ account_id: accountId, visitor_key, first_seen_at }));
    for (const batch of batches(visitors, 1000)) await trx.insertInto('account_visitors').values(batch).execute();
    await trx.insertInto('account_analytics_totals').values({ account_id: accountId, visitors: visitors.length, downloads }).execute();
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

interface GlobalBody {
  metrics: { totalViews: number; totalDownloads: number };
  topLinks: unknown[];
  charts: { viewsByDay: unknown[] };
}

/** A server whose account holds 1 000 links and `views` views; its database handle for seeding. */
async function startSeeded(views: number, databaseUrl: string | undefined, neighbourViews: number) {
  const linkvault = await startLinkvault({ RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_URL: databaseUrl, REDIS_URL: process.env.BENCH_REDIS_URL });
  const database: DatabaseConfig = databaseUrl
    ? { kind: 'postgres', url: databaseUrl }
    : { kind: 'sqlite', file: path.join(linkvault.dataDir, 'linkvault.db') };
  const seeding = openDatabase(database);
  const accounts = [linkvault.accountId];
  const now = Date.now();
  const started = Date.now();
  try {
    await seedAccount(seeding.db, linkvault.accountId, { links: 1000, views, emails: Math.ceil(views / 12), ips: Math.ceil(views / 8) }, now);
    if (neighbourViews > 0) {
      const { id } = await seeding.db
        .insertInto('accounts')
        .values({ email: `bench-neighbour-${now}@example.com`, name: null, plan: 'business', created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      accounts.push(id);
      await seedAccount(seeding.db, id, { links: 1000, views: neighbourViews, emails: 2000, ips: 3000 }, now);
    }
  } catch (error) {
    await seeding.close();
    await linkvault.close();
    throw error;
  }
  return {
    linkvault,
    kind: database.kind,
    seedSeconds: (Date.now() - started) / 1000,
    url: `${linkvault.url}/api/analytics/global`,
    headers: { authorization: `Bearer ${linkvault.apiKey}` },
    async close() {
      // On a shared PostgreSQL, leave nothing behind (the SQLite file goes with its directory).
      if (databaseUrl) await seeding.db.deleteFrom('accounts').where('id', 'in', accounts).execute();
      await seeding.close();
      await linkvault.close();
    },
  };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const client = startClient();
  const servers: Array<Awaited<ReturnType<typeof startSeeded>>> = [];
  try {
    const small = await startSeeded(SMALL_VIEWS, databaseUrl, 0);
    servers.push(small);
    const large = await startSeeded(LARGE_VIEWS, databaseUrl, 20_000);
    servers.push(large);
    let body: GlobalBody | undefined;
    for (const [server, views] of [
      [small, SMALL_VIEWS],
      [large, LARGE_VIEWS],
    ] as const) {
      body = (await (await fetch(server.url, { headers: server.headers })).json()) as GlobalBody;
      if (body.metrics.totalViews !== views || body.metrics.totalDownloads !== Math.floor(views / 50) || body.topLinks.length !== 10) {
        throw new Error(`unexpected analytics for ${views} views: ${JSON.stringify(body.metrics)}`);
      }
    }
    const floor = await startBareFastify((app) => {
      app.get('/api/analytics/global', async () => body);
    });
    try {
      const targets = [
        { name: 'bare fastify', url: `${floor.url}/api/analytics/global`, headers: large.headers, samples: [] as number[] },
        { name: `${SMALL_VIEWS} events`, url: small.url, headers: small.headers, samples: [] as number[] },
        { name: `${LARGE_VIEWS} events`, url: large.url, headers: large.headers, samples: [] as number[] },
      ];
      for (const target of targets) await client.measure(target.url, target.headers, WARMUP_REQUESTS);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < targets.length; k++) {
          const target = targets[(round + k) % targets.length]!;
          target.samples.push(...(await client.measure(target.url, target.headers, REQUESTS)));
        }
      }
      const [bare, smallTarget, largeTarget] = targets.map((target) => ({ ...target, p50: percentile(target.samples, 50) }));
      const ratio = largeTarget!.p50 / smallTarget!.p50;
      printResult('analytics-global', largeTarget!.p50, 'ms p50', ratio, `${SMALL_VIEWS} events`, [
        ...[largeTarget!, smallTarget!, bare!].map(
          (target) =>
            `${target.name}: p50 ${formatValue(target.p50)} ms, p90 ${formatValue(percentile(target.samples, 90))} ms, p99 ${formatValue(percentile(target.samples, 99))} ms over ${target.samples.length} sequential requests`,
        ),
        `vs bare fastify (same ${JSON.stringify(body).length}-byte JSON): ${SMALL_VIEWS} events ${(smallTarget!.p50 / bare!.p50).toFixed(1)}x, ${LARGE_VIEWS} events ${(largeTarget!.p50 / bare!.p50).toFixed(1)}x`,
        `seeded 1 000 links and ${SMALL_VIEWS} views in ${small.seedSeconds.toFixed(1)} s; 1 000 links and ${LARGE_VIEWS} views (+ 1 000 links and 20 000 views of another account) in ${large.seedSeconds.toFixed(1)} s, on ${large.kind}`,
      ]);
      const ok = ratio <= BUDGET_RATIO;
      console.log(
        `budget: p50 at ${LARGE_VIEWS} events <= ${BUDGET_RATIO}x at ${SMALL_VIEWS} on ${large.kind} (measured ${ratio.toFixed(2)}x) ${ok ? 'ok' : 'MISSED'}`,
      );
      if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
    } finally {
      await floor.close();
    }
  } finally {
    client.close();
    for (const server of servers.reverse()) await server.close();
  }
}

if (process.argv[2] === '--client') runClient();
else runBench(main);
