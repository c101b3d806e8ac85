import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { operationsOf } from '../helpers/operations.js';

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
  // Signing in: nobody is signed in yet.
  'POST /api/auth/setup',
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-out',
  'POST /api/auth/magic-link',
  'POST /api/auth/magic-link/confirm',
  'POST /api/auth/password-reset',
  'POST /api/auth/password-reset/confirm',
  'POST /api/auth/sign-up',
  'POST /api/auth/sign-up/confirm',
  'POST /api/auth/email-change/confirm',
  'POST /api/invitations/accept',
  'GET /auth/oidc/start',
  'GET /auth/oidc/callback',
]);
/** A signed-in person's own things: a key (of a plan the API admits) is refused with 403. */
const SESSION_ONLY_OPERATIONS = new Set([
  'POST /api/auth/switch-account',
  'GET /api/sessions',
  'DELETE /api/sessions/{id}',
  'POST /api/me/two-factor',
  'POST /api/me/two-factor/confirm',
  'DELETE /api/me/two-factor',
  'POST /api/me/password',
  'POST /api/me/email',
  'DELETE /api/me/membership',
  'DELETE /api/account',
  'PATCH /api/me',
  'DELETE /api/me',
  'PUT /api/me', // PATCH's aliases (DESIGN §4)
  'POST /api/me',
  'POST /api/branding/smtp/test',
]);
function requiredPlan(path: string): Plan {
  return /^\/api\/(integrations|branding)(\/|$)/.test(path) ? 'business' : 'professional';
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
        if (!shouldRefuse && SESSION_ONLY_OPERATIONS.has(operation)) {
          assert.equal(response.status, 403, label);
          assert.match(String(response.body?.error), /signed-in person, not an API key/, label);
          checked += 1;
          continue;
        }
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
