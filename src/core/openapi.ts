const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  operationId?: string;
  description?: string;
}
type PathItem = Partial<Record<(typeof METHODS)[number], Operation>>;

/**
 * A route registered for several methods (PATCH canonical, PUT and POST as aliases) shares one
 * schema, so @fastify/swagger gives every method the same operationId. The first method keeps
 * it; each alias gets its own (`setLinkActiveViaPut`), as OpenAPI requires ids to be unique.
 */
export function withUniqueOperationIds<T extends { paths?: object }>(document: T): T {
  const seen = new Set<string>();
  for (const pathItem of Object.values(document.paths ?? {}) as PathItem[]) {
    // In registration order: a route's first method is its canonical one.
    for (const method of Object.keys(pathItem).filter((key): key is (typeof METHODS)[number] => (METHODS as readonly string[]).includes(key))) {
      const operation = pathItem[method];
      if (!operation?.operationId) continue;
      if (!seen.has(operation.operationId)) {
        seen.add(operation.operationId);
        continue;
      }
      const aliasId = `${operation.operationId}Via${method[0]!.toUpperCase()}${method.slice(1)}`;
      pathItem[method] = { ...operation, operationId: aliasId, description: `Alias of the canonical method. ${operation.description ?? ''}`.trim() };
      seen.add(aliasId);
    }
  }
  return document;
}
