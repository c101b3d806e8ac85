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
    // A statement of its own (Kysely's are cached apart, in kysely.ts): raw mode stays here.
    const statement = sqlite.prepare<unknown[], unknown[]>(compiled.sql);
    if (!statement.reader) throw new Error(`precompiled queries are reads: ${compiled.sql}`);
    statement.raw(true);
    const toRow = rowBuilder<Row>(statement.columns().map((column) => column.name));
    return async (...args: Args) => {
      if (sqlite.inTransaction) return viaKysely(args);
      return statement.all(...args).map(toRow);
    };
  };
}

/**
 * Turns a raw row (values in column order) into an object with the columns' names, as
 * better-sqlite3 would. Its own objects are built key by key through the native API, which
 * cost a third of the query; a generated object literal gives every row of a query the
 * same shape for a fraction of that. Duplicate names keep the last value, as there.
 */
function rowBuilder<Row>(names: string[]): (values: unknown[]) => Row {
  const fields = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Row;
}
