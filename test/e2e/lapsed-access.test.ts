import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLapsedAccessSweeper, LAPSED_ACCESS_GRACE_MS } from '../../src/modules/visits/lapsed-access-sweeper.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';

const DAY = 86_400_000;

async function rowCounts(app: TestApp) {
  const { db } = app.runtime.database;
  const count = async (table: 'visits' | 'otp_codes' | 'portal_sessions') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { visits: await count('visits'), otpCodes: await count('otp_codes'), portalSessions: await count('portal_sessions') };
}

/** A visitor who asked for a link's code and never came back: one visit, one code. */
async function abandonOtpGate(app: TestApp, linkId: string, email: string): Promise<void> {
  assert.equal((await new VisitorClient(app.url).post(`/v/${linkId}/otp`, { email })).status, 303);
}

test('lapsed access: gate visits, codes and portal sessions go a day after they expire; viewed visits and their analytics stay', async (t) => {
  let now = Date.now();
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url }, clock: () => now });
  const { http: owner } = await app.createAccount('professional');

  const gated = await createLink(owner, 'secret', 'Gated.txt', { requiresOtp: '1', allowedEmails: 'dana@acme.com' });
  await abandonOtpGate(app, gated, 'dana@acme.com');
  const open = await createLink(owner, 'hello', 'Open.txt');
  assert.equal((await new VisitorClient(app.url).get(`/v/${open}`)).status, 200);
  assert.equal((await owner.post('/api/client-portals', { name: 'Acme', slug: 'acme', allowedEmails: ['lee@acme.com'] })).status, 200);
  assert.equal((await new VisitorClient(app.url).post('/p/acme/email', { email: 'lee@acme.com' })).status, 303);
  assert.deepEqual(await rowCounts(app), { visits: 2, otpCodes: 2, portalSessions: 1 });

  const start = now;
  // Codes last 10 minutes and portal sessions 12 hours: a day on, both have expired, but not a day ago.
  now = start + DAY;
  assert.deepEqual(await app.runtime.accessSweeper.sweep(), { visits: 0, otpCodes: 0, portalSessions: 0 });
  now = start + 1.5 * DAY + 60_000;
  assert.deepEqual(await app.runtime.accessSweeper.sweep(), { visits: 0, otpCodes: 2, portalSessions: 1 });
  // The abandoned gate's window is 7 days; the viewed visit stays whatever its age.
  now = start + 8 * DAY - 60_000;
  assert.deepEqual(await app.runtime.accessSweeper.sweep(), { visits: 0, otpCodes: 0, portalSessions: 0 });
  now = start + 8 * DAY + 60_000;
  assert.deepEqual(await app.runtime.accessSweeper.sweep(), { visits: 1, otpCodes: 0, portalSessions: 0 });
  assert.deepEqual(await rowCounts(app), { visits: 1, otpCodes: 0, portalSessions: 0 });
  const analytics = await owner.get(`/api/links/${open}/analytics`);
  assert.equal(analytics.status, 200);
  assert.equal(analytics.body.views, 1);
  assert.equal(analytics.body.visitors.length, 1);
});

test('lapsed access: a backlog is deleted in batches until none is left', async (t) => {
  let now = Date.now();
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url }, clock: () => now });
  const { http: owner } = await app.createAccount('professional');
  const emails = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}@acme.com`);
  const gated = await createLink(owner, 'secret', 'Gated.txt', { requiresOtp: '1', allowedEmails: emails.join(',') });
  for (const email of emails) await abandonOtpGate(app, gated, email);
  assert.deepEqual(await rowCounts(app), { visits: 5, otpCodes: 5, portalSessions: 0 });

  now += 7 * DAY + LAPSED_ACCESS_GRACE_MS + 60_000;
  const sweeper = createLapsedAccessSweeper({
    db: app.runtime.database.db,
    clock: () => now,
    log: app.runtime.log,
    portalSessions: app.runtime.services.portalAccess,
    batchSize: 2,
  });
  assert.deepEqual(await sweeper.sweep(), { visits: 5, otpCodes: 5, portalSessions: 0 });
  assert.deepEqual(await rowCounts(app), { visits: 0, otpCodes: 0, portalSessions: 0 });
});
