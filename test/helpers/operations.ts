import type { HttpClient } from './http.js';

export interface Operation {
  method: string;
  template: string;
  /** the path with an id no account has in each parameter, integer or base62 as its schema says */
  path: string;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; schema?: { type?: string } }>;
}

/** Every operation of the OpenAPI document, as the spec's clients would call it. */
export async function operationsOf(http: HttpClient): Promise<Operation[]> {
  const document = (await http.get('/api/openapi.json')).body as { paths: Record<string, Record<string, OpenApiOperation>> };
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => {
        const types = new Map((operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.schema?.type]));
        const path = template.replace(/\{(\w+)\}/g, (_match, name: string) =>
          types.get(name) === 'integer' ? '2147483000' : 'Zq9Zq9Zq9Zq9Zq9Zq9Zq9Z',
        );
        return { method: method.toUpperCase(), template, path };
      }),
  );
}
