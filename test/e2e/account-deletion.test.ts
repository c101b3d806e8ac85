import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { ACCOUNT_FILES_JOB } from '../../src/modules/accounts/account-closure.service.js';
import { insertLink } from '../../src/modules/links/links.repo.js';
import { startApp } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';
import { createLink, listFiles } from '../helpers/files.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';

test('an owner deletes the account: everything in it goes, files after; people of no other account lose their sign-in; other accounts stay', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const doomed = await app.createAccount('business');
  const kept = await app.createAccount('business');
  const owner = await signedInPerson(app, doomed.accountId, 'owner');
  const admin = await signedInPerson(app, doomed.accountId, 'admin');
  const both = await signedInPerson(app, doomed.accountId, 'member');
  await app.runtime.services.members.join(both.userId, kept.accountId, 'member');

  const link = { id: await createLink(doomed.http, 'the deal in brief', 'deck.txt') };
  const keptLink = { id: await createLink(kept.http, 'still here', 'notes.txt') };
  const logo = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#36c' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('logo', new Blob([new Uint8Array(logo)]), 'logo.png');
  const branded = await doomed.http.post('/api/branding', form);
  assert.equal(branded.status, 200, JSON.stringify(branded.body));
  const blobsOf = (folder: string, id: string | number) => listFiles(path.join(app.dataDir, 'blobs', folder, String(id)));
  assert.equal((await blobsOf('links', link.id)).length, 1);
  assert.equal((await blobsOf('branding', doomed.accountId)).length, 1);

  const deletion = (client: typeof owner.client, body: Record<string, string>) => client.request('DELETE', '/api/account', body);
  const named = { accountName: doomed.email, currentPassword: TEST_PASSWORD };
  assert.equal((await deletion(admin.client, named)).status, 403, 'owners only');
  const byKey = await doomed.http.request('DELETE', '/api/account', named);
  assert.equal(byKey.status, 403, 'a signed-in person, not a key');
  const misnamed = await deletion(owner.client, { ...named, accountName: 'something else' });
  assert.equal(misnamed.status, 422);
  assert.equal(misnamed.body.error, `Type the account's name, ${doomed.email}, to delete it`);
  const unproved = await deletion(owner.client, { accountName: doomed.email });
  assert.equal(unproved.status, 422);
  assert.equal(unproved.body.error, 'Enter your current password');
  assert.equal((await deletion(owner.client, { ...named, currentPassword: 'not it at all' })).status, 422);
  assert.equal((await doomed.http.get(`/api/links/${link.id}`)).status, 200, 'refusals change nothing');

  const deleted = await deletion(owner.client, named);
  assert.equal(deleted.status, 204, JSON.stringify(deleted.body));

  for (const person of [owner, admin, both]) assert.equal((await person.client.get('/api/me')).status, 401, 'every session in it ended');
  assert.equal((await doomed.http.get('/api/links')).status, 401, 'its keys are gone');
  assert.equal((await fetch(`${app.url}/v/${link.id}`)).status, 404, 'its links answer no visitor');
  assert.equal((await kept.http.get(`/api/links/${keptLink.id}`)).status, 200, 'another account is untouched');

  for (const person of [owner, admin]) {
    const again = await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD });
    assert.equal(again.status, 401, 'no sign-in is left of a person whose only account it was');
  }
  const stays = createSessionClient(app.url);
  assert.equal((await stays.post('/api/auth/sign-in', { email: both.email, password: TEST_PASSWORD })).status, 200);
  assert.equal((await stays.get('/api/me')).body.account.id, kept.accountId, 'a person of another account signs in there');

  // Everyone else in it is told, in its language, and whether their sign-in went with it.
  const toAdmin = await smtp.waitFor(admin.email, (mail) => /was deleted/.test(mail.subject));
  assert.equal(toAdmin.subject, `The linkvault account ${doomed.email} was deleted`);
  assert.match(toAdmin.text, new RegExp(`Test owner deleted the account ${doomed.email}`));
  assert.match(toAdmin.text, /your linkvault sign-in was deleted with it/);
  const toBoth = await smtp.waitFor(both.email, (mail) => /was deleted/.test(mail.subject));
  assert.doesNotMatch(toBoth.text, /sign-in was deleted/, 'they still sign in elsewhere');
  assert.equal(smtp.received.filter((mail) => mail.to.includes(owner.email)).length, 0, 'not the owner who did it');

  await app.runtime.jobs.drain(ACCOUNT_FILES_JOB);
  assert.deepEqual(await blobsOf('links', link.id), [], "the link's file is deleted");
  assert.deepEqual(await blobsOf('branding', doomed.accountId), [], 'the logo too');
  assert.equal((await blobsOf('links', keptLink.id)).length, 1);

  const entries = await app.runtime.database.db
    .selectFrom('audit_log')
    .select(['action', 'actor_id', 'details'])
    .where('account_id', '=', doomed.accountId)
    .where('action', '=', 'account.deleted')
    .execute();
  assert.equal(entries.length, 1, "the server's audit log keeps the deletion");
  assert.equal(entries[0]!.actor_id, owner.userId);
  assert.deepEqual(JSON.parse(entries[0]!.details), { name: doomed.email, email: doomed.email, files: 1, people: 3, signInsDeleted: 2 });
});

test('a large account goes 500 links to a transaction, each batch with the job that deletes its files', async (t) => {
  const app = await startApp(t);
  const { accountId, email } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const { db } = app.runtime.database;
  const now = Date.now();
  await db.transaction().execute(async (trx) => {
    for (let n = 0; n < 1_100; n++) {
      await insertLink(trx, {
        id: `bulk${String(n).padStart(18, '0')}`,
        account_id: accountId,
        kind: 'file',
        name: `${n}.pdf`,
        mime: 'application/pdf',
        created_at: now,
        expires_at: now + 86_400_000,
      });
    }
    await insertLink(trx, {
      id: 'bulkroom00000000000000',
      account_id: accountId,
      kind: 'room',
      name: 'Room',
      mime: 'application/x-room',
      created_at: now,
      expires_at: now + 86_400_000,
    });
  });

  const deleted = await owner.client.request('DELETE', '/api/account', { accountName: email, currentPassword: TEST_PASSWORD });
  assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
  const left = await db.selectFrom('links').select('id').where('account_id', '=', accountId).execute();
  assert.deepEqual(left, []);
  const jobs = await db.selectFrom('jobs').select('payload').where('kind', '=', ACCOUNT_FILES_JOB).orderBy('id').execute();
  const batches = jobs.map((job) => (JSON.parse(job.payload) as { linkIds: string[] }).linkIds);
  // 1 101 links: two full batches, the last 101 (the room among them owns no file), then the account row's own job.
  assert.deepEqual(
    batches.map((ids) => ids.length),
    [500, 500, 100, 0],
  );
  assert.equal(new Set(batches.flat()).size, 1_100, 'each file link once');

  // Its owner was the server's only person: the server is as on its first run.
  const setup = new URL(await app.runtime.services.auth.setupLink());
  assert.equal((await fetch(`${app.url}${setup.pathname}${setup.search}`)).status, 200, 'a setup link works again');
});
