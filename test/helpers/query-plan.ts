import assert from 'node:assert/strict';
import { CompiledQuery, PostgresAdapter, sql, type KyselyPlugin } from 'kysely';
import type { Executor } from '../../src/db/executor.js';
import type { Db } from '../../src/db/kysely.js';

/**
 * The plan of every statement `run` sends (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN),
 * one text per statement. SQLite plans without statistics, as the app runs it (no ANALYZE). PostgreSQL
 * plans on fresh statistics and is told to avoid sequential scans and sorts: a test table is too
 * small for its planner to prefer an index otherwise, so one that remains has no index to use.
 */
export async function queryPlans(db: Db, run: (executor: Executor) => Promise<unknown>): Promise<string[]> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.transaction().execute(async (trx) => {
    if (postgres) {
      await sql`analyze`.execute(trx);
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
    }
    const sent: CompiledQuery[] = [];
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(trx.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    await run(trx.withPlugin(capture));
    const plans: string[] = [];
    for (const query of sent) {
      const explain = CompiledQuery.raw(`${postgres ? 'explain' : 'explain query plan'} ${query.sql}`, [...query.parameters]);
      const { rows } = await trx.executeQuery<{ detail?: string; 'QUERY PLAN'?: string }>(explain);
      plans.push(rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n'));
    }
    return plans;
  });
}

/** Each plan reads through `indexes` only: no full scan of a table or an index, no sort. */
export function assertIndexedPlans(plans: string[], indexes: RegExp): void {
  assert.ok(plans.length > 0, 'no statement was sent');
  for (const plan of plans) {
    assert.match(plan, indexes, plan);
    assert.doesNotMatch(plan, /Seq Scan|^SCAN (?!CONSTANT ROW)|TEMP B-TREE|\bSort\b/m, plan);
  }
}
