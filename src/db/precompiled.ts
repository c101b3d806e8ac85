import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/**
 * Builds and compiles a read query once, then runs it with fresh parameters on each call.
 * Only for per-request hot paths, where Kysely's build-and-compile and executor pipeline
 * cost as much as the database's own work. `build` receives marker values; the compiled
 * query must use each exactly once, in order, which is checked so that a wrong build fails
 * at start-up rather than at run time.
 */
export type Precompile = <Row, Args extends readonly unknown[]>(
  arity: Args['length'],
  build: (...markers: string[]) => Compilable<Row>,
) => (...args: Args) => Promise<Row[]>;

/**
 * On SQLite the compiled query runs straight on its prepared statement, skipping Kysely's
 * per-query pipeline (about half of the query's cost). While a Kysely transaction holds the
 * single connection it goes through Kysely instead, which waits for the transaction to end:
 * a read must never see another request's uncommitted writes.
 */
export function createPrecompile(db: Kysely<any>, sqlite?: SQLite.Database): Precompile {
  return <Row, Args extends readonly unknown[]>(arity: Args['length'], build: (...markers: string[]) => Compilable<Row>) => {
    const markers = Array.from({ length: arity }, (_, index) => `\u0000precompiled-parameter-${index}`);
    const compiled = build(...markers).compile();
    if (compiled.parameters.length !== arity || compiled.parameters.some((parameter, index) => parameter !== markers[index])) {
      throw new Error(`precompiled query must use its ${arity} parameters once each, in order: ${compiled.sql}`);
    }
    const viaKysely = async (args: Args) => (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, [...args]))).rows;
    if (!sqlite) return (...args: Args) => viaKysely(args);
    const statement = sqlite.prepare(compiled.sql);
    if (!statement.reader) throw new Error(`precompiled queries are reads: ${compiled.sql}`);
    return async (...args: Args) => (sqlite.inTransaction ? viaKysely(args) : (statement.all(...args) as Row[]));
  };
}
