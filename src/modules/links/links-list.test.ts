import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink } from '../../../test/helpers/files.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

const MINUTE = 60_000;
const namesOf = (body: any) => body.links.map((link: any) => link.name);

test('the list searches names, sorts by name, views and last view both ways, and counts each tab', async (t) => {
  let now = Date.UTC(2026, 0, 10, 9, 0);
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('business');
  const ids: Record<string, string> = {};
  for (const name of ['Board deck.pdf', 'budget 2026.txt', 'Contract.txt', '100%_sure.txt']) {
    now += MINUTE;
    ids[name] = await createLink(http, `content of ${name}`, name);
  }
  now += MINUTE;
  const shortLived = await createLink(http, 'soon gone', 'short.txt', { expiration: '1h' });
  for (const [name, views] of [
    ['Contract.txt', 3],
    ['budget 2026.txt', 1],
  ] as const) {
    for (let view = 0; view < views; view++) {
      now += MINUTE;
      // Each visitor's first open is a view.
      assert.equal((await new VisitorClient(app.url).get(`/v/${ids[name]}`)).status, 200);
    }
  }
  now += 2 * 60 * MINUTE; // short.txt has expired

  const newestFirst = await http.get('/api/links');
  assert.equal(newestFirst.status, 200);
  assert.deepEqual(newestFirst.body.counts, { active: 4, expired: 1 });
  assert.deepEqual(namesOf(newestFirst.body), ['100%_sure.txt', 'Contract.txt', 'budget 2026.txt', 'Board deck.pdf']);
  const contract = newestFirst.body.links[1];
  assert.equal(contract.views, 3);
  assert.equal(contract.last_viewed_at, new Date(Date.UTC(2026, 0, 10, 9, 8)).toISOString());
  assert.equal(newestFirst.body.links[3].last_viewed_at, null, 'never viewed');
  for (const gate of ['requires_password', 'requires_otp', 'requires_approval', 'has_watermark', 'has_expiry']) {
    assert.equal(typeof contract[gate], 'boolean', gate);
  }
  assert.equal(contract.has_expiry, true, 'an upload lives 7 days unless told');

  const expired = await http.get('/api/links?tab=expired');
  assert.deepEqual(namesOf(expired.body), ['short.txt']);
  assert.equal(expired.body.links[0].id, shortLived);
  assert.deepEqual(expired.body.counts, { active: 4, expired: 1 });

  const byName = async (query: string) => namesOf((await http.get(`/api/links?${query}`)).body);
  assert.deepEqual(
    await byName('sort=name'),
    ['100%_sure.txt', 'Board deck.pdf', 'budget 2026.txt', 'Contract.txt'],
    'A to Z by default, whatever the case',
  );
  assert.deepEqual(await byName('sort=name&order=desc'), ['Contract.txt', 'budget 2026.txt', 'Board deck.pdf', '100%_sure.txt']);
  assert.deepEqual((await byName('sort=views')).slice(0, 2), ['Contract.txt', 'budget 2026.txt']);
  assert.deepEqual((await byName('sort=views&order=asc')).slice(2), ['budget 2026.txt', 'Contract.txt']);
  assert.deepEqual((await byName('sort=lastViewed')).slice(0, 2), ['budget 2026.txt', 'Contract.txt'], 'most recently viewed first');
  assert.deepEqual(await byName('sort=created&order=asc'), ['Board deck.pdf', 'budget 2026.txt', 'Contract.txt', '100%_sure.txt']);

  // Search: case-insensitive substring; % and _ are plain characters; totals are the matches, counts stay the tabs'.
  const search = await http.get('/api/links?q=B');
  assert.deepEqual(namesOf(search.body), ['budget 2026.txt', 'Board deck.pdf']);
  assert.deepEqual(search.body.pagination, { page: 1, limit: 20, total: 2, totalPages: 1 });
  assert.deepEqual(search.body.counts, { active: 4, expired: 1 });
  assert.deepEqual(await byName('q=%25_'), ['100%_sure.txt']);
  assert.deepEqual(await byName('q=_s'), ['100%_sure.txt']);
  assert.deepEqual(await byName('q=nothing-like-this'), []);
  assert.deepEqual(await byName('q=DECK&sort=name'), ['Board deck.pdf']);

  for (const query of ['sort=size', 'order=up', `q=${'x'.repeat(201)}`]) {
    assert.equal((await http.get(`/api/links?${query}`)).status, 400, query);
  }
});

test('a cursor walks any order and search, and holds to the order it was given for', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const names = Array.from({ length: 7 }, (_, n) => `report-${String.fromCharCode(103 - n)}.txt`); // report-g … report-a
  for (const name of names) await createLink(http, name, name);
  await createLink(http, 'other', 'other.txt');

  const walk = async (query: string) => {
    const seen: string[] = [];
    let answer = await http.get(`/api/links?limit=3&${query}`);
    for (;;) {
      assert.equal(answer.status, 200, query);
      seen.push(...namesOf(answer.body));
      if (answer.body.nextCursor === null) return { seen, last: answer.body };
      answer = await http.get(`/api/links?limit=3&${query}&cursor=${answer.body.nextCursor}`);
    }
  };
  const aToZ = await walk('sort=name&q=report');
  assert.deepEqual(aToZ.seen, [...names].sort());
  assert.equal(aToZ.last.pagination.page, 3);
  assert.deepEqual((await walk('sort=name&order=desc')).seen, [...[...names].sort().reverse(), 'other.txt']);

  const first = await http.get('/api/links?limit=3&sort=name');
  assert.equal((await http.get(`/api/links?limit=3&cursor=${first.body.nextCursor}`)).status, 400, 'a name cursor is not a newest-first one');
  assert.equal((await http.get(`/api/links?limit=3&sort=name&order=desc&cursor=${first.body.nextCursor}`)).status, 400);
  const newest = await http.get('/api/links?limit=3');
  assert.equal((await http.get(`/api/links?limit=3&sort=views&cursor=${newest.body.nextCursor}`)).status, 400);
});
