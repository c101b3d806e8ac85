import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded, synchronously, the first time the returned function is called
 * rather than at start-up: for packages that only some requests or configurations need
 * (mail, schema compilers), whose hundreds of files would otherwise load before the server
 * can answer (docs/adr/0012-start-up.md).
 */
export function loadOnFirstUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
