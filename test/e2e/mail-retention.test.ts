import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { createMailRetention } from '../../src/modules/notifications/mail-retention.js';

const DAY_MS = 86_400_000;

test('outbox rows older than MAIL_RETENTION_DAYS are deleted, in bounded batches', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const app = await startApp(t, { env: { MAIL_RETENTION_DAYS: '30' }, clock: () => now });
  const { http } = await app.createAccount('business');
  // A link of its own for each share: an upload lives 7 days, less than the retention.
  const share = async (emails: string[]) => http.post(`/api/links/${await createLink(http, 'x', 'Terms.pdf')}/share`, { emails });
  const addresses = async () =>
    (await app.runtime.database.db.selectFrom('mail_outbox').select('to_address').orderBy('id').execute()).map((row) => row.to_address);
  assert.equal((await share(['old1@example.com', 'old2@example.com', 'old3@example.com'])).status, 200);

  now += 29 * DAY_MS;
  assert.equal(await app.runtime.mailRetention.sweep(), 0, 'still within 30 days');
  assert.equal((await share(['new@example.com'])).status, 200);
  now += 2 * DAY_MS;
  const batches: number[] = [];
  const inTwos = createMailRetention({
    mailer: {
      async deleteMailBefore(before, limit) {
        const deleted = await app.runtime.mailer.deleteMailBefore(before, limit);
        batches.push(deleted);
        return deleted;
      },
    },
    clock: () => now,
    retentionDays: 30,
    log: app.runtime.log,
    batchSize: 2,
  });
  assert.equal(await inTwos.sweep(), 3);
  assert.deepEqual(batches, [2, 1]);
  assert.deepEqual(await addresses(), ['new@example.com']);
  now += 30 * DAY_MS;
  assert.equal(await app.runtime.mailRetention.sweep(), 1);
  assert.deepEqual(await addresses(), []);
});
