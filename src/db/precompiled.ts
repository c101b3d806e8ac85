import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/**
 * Builds and compiles a query once, then runs it with fresh parameters on each call. Only
 * for per-request hot paths, where Kysely's build-and-compile costs as much as SQLite's
 * work. `build` receives marker values; the compiled query must use each exactly once, in
 * order, which is checked here so a wrong build fails at start-up rather than at run time.
 */
export function precompile<Row, Args extends readonly unknown[]>(
  db: Kysely<any>,
  arity: Args['length'],
  build: (...markers: string[]) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  const markers = Array.from({ length: arity }, (_, index) => `\u0000precompiled-parameter-${index}`);
  const compiled = build(...markers).compile();
  if (compiled.parameters.length !== arity || compiled.parameters.some((parameter, index) => parameter !== markers[index])) {
    throw new Error(`precompiled query must use its ${arity} parameters once each, in order: ${compiled.sql}`);
  }
  return async (...args) => (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, [...args]))).rows;
}
