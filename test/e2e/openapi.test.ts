import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { watchedPage } from '../helpers/dashboard.js';

after(closeBrowser);

test('the OpenAPI document: every operation has its own camelCase operationId', async (t) => {
  const app = await startApp(t);
  const document = (await app.http().get('/api/openapi.json')).body as { paths: Record<string, Record<string, { operationId?: string }>> };
  const ids = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, id: operation.operationId })),
  );
  assert.ok(ids.length >= 60);
  for (const { where, id } of ids) assert.match(id ?? '', /^[a-z][A-Za-z]+$/, `${where} has an operationId`);
  assert.equal(new Set(ids.map(({ id }) => id)).size, ids.length, 'operationIds are unique');
  assert.equal(ids.find(({ where }) => where === 'PATCH /api/links/{id}/active')?.id, 'setLinkActive', 'the canonical method keeps the name');
  assert.equal(ids.find(({ where }) => where === 'PUT /api/links/{id}/active')?.id, 'setLinkActiveViaPut');
});

test("the OpenAPI document passes Redocly's recommended rules with no warning", async (t) => {
  const app = await startApp(t);
  const source = JSON.stringify((await app.http().get('/api/openapi.json')).body);
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  const described = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ''}`);
  assert.deepEqual(described, []);
});

test('the API reference at /docs runs under a policy that allows no inline script and no framing, and still shows every group', async (t) => {
  const app = await startApp(t);
  const answer = await fetch(`${app.url}/docs/static/index.html`);
  const policy = answer.headers.get('content-security-policy') ?? '';
  assert.match(policy, /script-src 'self'(;|$)/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.doesNotMatch(policy, /script-src[^;]*unsafe/);

  const reference = (await app.http().get('/api/openapi.json')).body as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const operationIds = Object.values(reference.paths).flatMap((item) => Object.values(item).map(({ operationId }) => operationId));

  const page = await watchedPage(t);
  await page.goto(`${app.url}/docs`);
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
  // Past 150 groups and operations, Swagger UI draws only those near the view: scroll through them
  // all, half a screen at a time, reading each position once what it draws there has stopped changing.
  const seen = { operations: new Set<string>(), groups: new Set<string>() };
  const drawn = async () => (await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id))).join(' ');
  const collectWhenSettled = async () => {
    let before = await drawn();
    for (let wait = 0; wait < 20; wait++) {
      await page.waitForTimeout(100);
      const now = await drawn();
      if (now === before) break;
      before = now;
    }
    for (const id of before.split(' ')) seen.operations.add(id);
    for (const name of await page.locator('.opblock-tag').allInnerTexts()) seen.groups.add(name.trim().split('\n')[0]!);
  };
  await collectWhenSettled();
  for (let step = 0; step < 400; step++) {
    await page.evaluate('scrollBy(0, innerHeight / 2)');
    await collectWhenSettled();
    if (await page.evaluate<boolean>('scrollY + innerHeight >= document.documentElement.scrollHeight - 1')) break;
  }
  assert.ok(seen.groups.has('Downloads'), [...seen.groups].join(', '));
  const missing = operationIds.filter((id) => ![...seen.operations].some((drawnId) => drawnId.endsWith(`-${id}`)));
  assert.deepEqual(missing, [], 'every operation is listed');
});
