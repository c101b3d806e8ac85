import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import type { HttpClient } from '../helpers/http.js';

type Plan = 'free' | 'professional' | 'business';
const RANK: Record<Plan, number> = { free: 0, professional: 1, business: 2 };

/**
 * The permission table as the spec states it, written independently of the routes' own
 * options: the API needs professional, integrations and branding need business, and a few
 * operations are called by visitors without a key.
 */
const PUBLIC_OPERATIONS = new Set([
  'GET /api/links/{id}/download-original',
  'POST /api/stripe/checkout-download/{linkId}',
  'POST /api/stripe/webhook',
]);
function requiredPlan(path: string): Plan {
  return /^\/api\/(integrations|branding)(\/|$)/.test(path) ? 'business' : 'professional';
}

interface Operation {
  method: string;
  template: string;
  /** the path with an id no account has in each parameter, integer or base62 as its schema says */
  path: string;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; schema?: { type?: string } }>;
}

/** Every operation of the OpenAPI document, as the spec's clients would call it. */
async function operationsOf(http: HttpClient): Promise<Operation[]> {
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

/** The same path with the first letter of every literal segment percent-encoded (`/api/%69ntegrations`). */
function percentEncoded(path: string): string {
  return path
    .split('/')
    .map((segment, index) => (index < 2 || !/^[a-z]/.test(segment) ? segment : `%${segment.charCodeAt(0).toString(16)}${segment.slice(1)}`))
    .join('/');
}

test('permission walk: every OpenAPI operation, every plan, plain and percent-encoded paths', async (t) => {
  const app = await startApp(t);
  const accounts = {
    free: await app.createAccount('free'),
    professional: await app.createAccount('professional'),
    business: await app.createAccount('business'),
  };
  const operations = await operationsOf(accounts.business.http);
  assert.ok(operations.length >= 60, `the OpenAPI document lists the API (${operations.length} operations)`);
  assert.ok(
    operations.some((op) => op.template === '/api/integrations'),
    'integrations are in the walk',
  );
  assert.ok(
    operations.some((op) => op.template.startsWith('/api/branding')),
    'branding is in the walk',
  );

  let checked = 0;
  for (const { method, template, path: plain } of operations) {
    const operation = `${method} ${template}`;
    for (const path of [plain, percentEncoded(plain)]) {
      for (const plan of ['free', 'professional', 'business'] as const) {
        const response = await accounts[plan].http.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
        const label = `${plan} ${method} ${path}`;
        assert.notEqual(response.status, 500, `${label}: ${JSON.stringify(response.body)}`);
        if (PUBLIC_OPERATIONS.has(operation)) {
          assert.notEqual(response.status, 401, label);
          checked += 1;
          continue;
        }
        const refusedForPlan = response.status === 403 && /plan or higher/.test(String(response.body?.error));
        const shouldRefuse = RANK[plan] < RANK[requiredPlan(template)];
        assert.equal(refusedForPlan, shouldRefuse, `${label} answered ${response.status} ${JSON.stringify(response.body)}`);
        if (!shouldRefuse) assert.ok(![401, 403].includes(response.status), `${label} answered ${response.status}`);
        checked += 1;
      }
    }
  }
  assert.equal(checked, operations.length * 2 * 3);
});

test('permission walk: without a key every non-public operation is 401, encoded or not', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const anonymous = app.http();
  for (const { method, template, path: plain } of await operationsOf(http)) {
    if (PUBLIC_OPERATIONS.has(`${method} ${template}`)) continue;
    for (const path of [plain, percentEncoded(plain)]) {
      const response = await anonymous.request(method, path);
      assert.equal(response.status, 401, `${method} ${path}`);
    }
  }
});
