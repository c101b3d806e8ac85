import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { burst } from '../helpers/burst.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { runCli } from '../helpers/process.js';
import { startSmtp, type ReceivedMail } from '../helpers/smtp.js';
import { waitFor } from '../helpers/wait.js';
import { listJobs } from '../../src/infra/jobs/index.js';
import { SIGN_IN_MAIL_JOB } from '../../src/modules/auth/auth.service.js';

const tokenIn = (mail: ReceivedMail, page: string) => {
  const match = new RegExp(`${page.replace('?', '\\?')}[?=](?:token=)?([0-9A-Za-z]{43})`).exec(mail.text);
  if (!match) throw new Error(`no ${page} link in: ${mail.text}`);
  return match[1]!;
};

async function setUp(app: TestApp, input: { email: string; companyName?: string }) {
  const token = new URL(await app.runtime.services.auth.setupLink()).searchParams.get('token')!;
  const browser = createSessionClient(app.url);
  const answer = await browser.post('/api/auth/setup', {
    token,
    name: 'First Owner',
    email: input.email,
    password: TEST_PASSWORD,
    companyName: input.companyName ?? 'Acme',
  });
  return { token, browser, answer };
}

test('first run: the setup link makes the owner of a new account on DEFAULT_PLAN, once', async (t) => {
  const app = await startApp(t);
  assert.equal(await app.runtime.services.auth.needsSetup(), true);
  const tooShort = await createSessionClient(app.url).post('/api/auth/setup', {
    token: new URL(await app.runtime.services.auth.setupLink()).searchParams.get('token'),
    name: 'Y',
    email: 'y@example.com',
    password: 'short',
    companyName: 'Y',
  });
  assert.equal(tooShort.status, 400);

  const { token, browser, answer } = await setUp(app, { email: 'Founder@Example.com', companyName: 'Founders Inc' });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.deepEqual(answer.body.account.plan, 'business');
  assert.equal(answer.body.user.email, 'founder@example.com');
  assert.equal(answer.body.role, 'owner');
  assert.equal((await browser.get('/api/links')).status, 200);
  assert.equal(await app.runtime.services.auth.needsSetup(), false);

  const again = await createSessionClient(app.url).post('/api/auth/setup', {
    token,
    name: 'X',
    email: 'x@example.com',
    password: TEST_PASSWORD,
    companyName: 'X',
  });
  assert.equal(again.status, 404, 'single use');
});

test('first run: the links printed before it are spent with the one used, and no new one is made', async (t) => {
  const app = await startApp(t);
  const links = await Promise.all([1, 2, 3].map(async () => new URL(await app.runtime.services.auth.setupLink()).searchParams.get('token')!));
  const setUpWith = (token: string, email: string) =>
    createSessionClient(app.url).post('/api/auth/setup', { token, name: 'Someone', email, password: TEST_PASSWORD, companyName: 'Co' });
  assert.equal((await setUpWith(links[0]!, 'first@example.com')).status, 200);
  for (const [n, token] of links.slice(1).entries()) {
    assert.equal((await setUpWith(token, `late${n}@example.com`)).status, 404, 'a link printed at an earlier start');
    assert.equal((await fetch(`${app.url}/setup?token=${token}`)).status, 404);
  }
  await assert.rejects(app.runtime.services.auth.setupLink(), /set up already/, 'no new link is made once someone has signed up');
});

test('first run: two setup links used at once make one owner', async (t) => {
  const app = await startApp(t);
  const tokens = await Promise.all([1, 2].map(async () => new URL(await app.runtime.services.auth.setupLink()).searchParams.get('token')!));
  const answers = await burst(
    app.url,
    tokens.map((token, n) => ({
      method: 'POST',
      path: '/api/auth/setup',
      headers: { 'content-type': 'application/json', origin: app.url },
      body: JSON.stringify({ token, name: 'Owner', email: `owner${n}@example.com`, password: TEST_PASSWORD, companyName: `Co ${n}` }),
    })),
  );
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 404]);
  assert.equal((await app.runtime.database.db.selectFrom('users').select('id').execute()).length, 1);
});

test('first run: setting up with the e-mail of an account made with the CLI makes its owner, not a new account', async (t) => {
  const app = await startApp(t);
  const cli = await app.runtime.services.accounts.create({ email: 'ops@example.com', plan: 'professional', name: 'Ops Co' });
  const joined = await setUp(app, { email: 'OPS@example.com' });
  assert.equal(joined.answer.status, 200);
  assert.equal(joined.answer.body.account.id, cli.accountId, 'the account made with the CLI, not a new one');
  assert.equal(joined.answer.body.account.plan, 'professional');
});

test('DEFAULT_PLAN decides the plan of a set-up account', async (t) => {
  const app = await startApp(t, { env: { DEFAULT_PLAN: 'free' } });
  const { answer, browser } = await setUp(app, { email: 'free@example.com' });
  assert.equal(answer.body.account.plan, 'free');
  assert.equal((await browser.get('/api/links')).status, 200, 'a signed-in person of any plan uses the API');
  assert.equal((await browser.get('/api/branding')).status, 403, 'business endpoints stay business');
});

test('sign-in: e-mail in any case; the same answer for an unknown e-mail and a wrong password; throttled per e-mail and per address', async (t) => {
  // The app's clock, not this machine's, tells how long to wait: here it runs two hours behind.
  const app = await startApp(t, { clock: () => Date.now() - 2 * 3_600_000 });
  const { accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'member');
  const browser = createSessionClient(app.url);
  assert.equal((await browser.post('/api/auth/sign-in', { email: person.email.toUpperCase(), password: TEST_PASSWORD })).status, 200);

  const wrong = await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: 'not the password' });
  const unknown = await createSessionClient(app.url).post('/api/auth/sign-in', { email: 'nobody@example.com', password: 'not the password' });
  assert.equal(wrong.status, 401);
  assert.deepEqual([unknown.status, unknown.body], [wrong.status, wrong.body]);

  for (let attempt = 2; attempt <= 5; attempt++) {
    assert.equal((await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: 'still wrong!' })).status, 401);
  }
  const locked = await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD });
  assert.equal(locked.status, 429, 'the sixth try is refused, even with the right password');
  const retryAfter = Number(locked.headers.get('retry-after'));
  assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}: the rest of the 15-minute window`);

  // Twenty failures from one address, each for another e-mail, close that address too.
  let status = 0;
  for (let attempt = 0; attempt < 25 && status !== 429; attempt++) {
    status = (await createSessionClient(app.url).post('/api/auth/sign-in', { email: `guess${attempt}@example.com`, password: 'guessing!!' })).status;
  }
  assert.equal(status, 429);
});

test('magic link and password reset go through the mail; their requests answer the same for any e-mail; each link works once, for 15 minutes', async (t) => {
  const smtp = await startSmtp(t);
  let now = Date.now();
  const app = await startApp(t, { env: { SMTP_URL: smtp.url }, clock: () => now });
  const { accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'admin');

  const known = await createSessionClient(app.url).post('/api/auth/magic-link', { email: person.email });
  const unknown = await createSessionClient(app.url).post('/api/auth/magic-link', { email: 'nobody@example.com' });
  assert.equal(known.status, 202);
  assert.deepEqual([unknown.status, unknown.body], [known.status, known.body]);
  const token = tokenIn(await smtp.waitFor(person.email, (mail) => mail.text.includes('/sign-in/link')), '/sign-in/link');
  const browser = createSessionClient(app.url);
  assert.equal((await browser.post('/api/auth/magic-link/confirm', { token })).status, 200);
  assert.equal((await browser.get('/api/me')).body.user.email, person.email);
  assert.equal((await createSessionClient(app.url).post('/api/auth/magic-link/confirm', { token })).status, 404, 'once');

  await createSessionClient(app.url).post('/api/auth/magic-link', { email: person.email });
  const late = tokenIn(
    await smtp.waitFor(person.email, (mail) => mail.text.includes('/sign-in/link') && !mail.text.includes(token)),
    '/sign-in/link',
  );
  now += 16 * 60_000;
  assert.equal((await createSessionClient(app.url).post('/api/auth/magic-link/confirm', { token: late })).status, 404, 'not after 15 minutes');

  const resetKnown = await createSessionClient(app.url).post('/api/auth/password-reset', { email: person.email });
  const resetUnknown = await createSessionClient(app.url).post('/api/auth/password-reset', { email: 'nobody@example.com' });
  assert.deepEqual([resetUnknown.status, resetUnknown.body], [resetKnown.status, resetKnown.body]);
  const resetToken = tokenIn(await smtp.waitFor(person.email, (mail) => mail.text.includes('/reset-password')), '/reset-password');
  const newPassword = 'a brand new password';
  assert.equal(
    (await createSessionClient(app.url).post('/api/auth/password-reset/confirm', { token: resetToken, password: newPassword })).status,
    204,
  );
  assert.equal((await browser.get('/api/me')).status, 401, 'every session of the person ended');
  assert.equal((await person.client.get('/api/me')).status, 401);
  assert.equal((await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: newPassword })).status, 200);
  assert.equal(
    (await createSessionClient(app.url).post('/api/auth/password-reset/confirm', { token: resetToken, password: newPassword })).status,
    404,
  );

  // The answer does the same work for any e-mail (its time must not tell them apart): it queues
  // the mail's job, which looks the person up; a known e-mail's link is made by the job.
  const requested = (await listJobs(app.runtime.database.db, { kind: SIGN_IN_MAIL_JOB })).map((job) => JSON.parse(job.payload));
  assert.deepEqual(requested, [
    { email: person.email, purpose: 'magic-link' },
    { email: 'nobody@example.com', purpose: 'magic-link' },
    { email: person.email, purpose: 'magic-link' },
    { email: person.email, purpose: 'password-reset' },
    { email: 'nobody@example.com', purpose: 'password-reset' },
  ]);
  await app.runtime.mailer.drain();
  assert.ok(!smtp.received.some((mail) => mail.to.includes('nobody@example.com')), 'nothing is mailed to an unknown e-mail');
});

/** A person who reads their mail from `smtp`, and what someone who glimpsed it could try. */
async function mailReader(t: TestContext) {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'owner');
  const seen: string[] = [];
  /** The token of the next link mailed for `endpoint` (each counts against the person's sign-in limit: five in 15 minutes). */
  const mailed = async (path: string, endpoint: string) => {
    await createSessionClient(app.url).post(endpoint, { email: person.email });
    const mail = await smtp.waitFor(
      person.email,
      (candidate) => candidate.text.includes(path) && !seen.some((token) => candidate.text.includes(token)),
    );
    seen.push(tokenIn(mail, path));
    return seen.at(-1)!;
  };
  const tried = async (endpoint: string, body: object) => (await createSessionClient(app.url).post(endpoint, body)).status;
  return { app, person, mailed, tried };
}

test('a password reset spends every link mailed before it: whoever glimpsed one cannot get back in, nor reset the password again', async (t) => {
  const { mailed, tried } = await mailReader(t);
  const overheardSignIn = await mailed('/sign-in/link', '/api/auth/magic-link');
  const overheardReset = await mailed('/reset-password', '/api/auth/password-reset');
  const ownReset = await mailed('/reset-password', '/api/auth/password-reset');
  assert.equal(await tried('/api/auth/password-reset/confirm', { token: ownReset, password: 'a brand new password' }), 204);
  assert.equal(await tried('/api/auth/magic-link/confirm', { token: overheardSignIn }), 404, 'the sign-in link went with the old password');
  assert.equal(await tried('/api/auth/password-reset/confirm', { token: overheardReset, password: 'the intruder’s pick' }), 404);
});

test('a change of password spends every link mailed before it; the session that made it stays', async (t) => {
  const { app, person, mailed, tried } = await mailReader(t);
  const overheardSignIn = await mailed('/sign-in/link', '/api/auth/magic-link');
  const overheardReset = await mailed('/reset-password', '/api/auth/password-reset');
  assert.equal((await person.client.post('/api/me/password', { currentPassword: person.password, newPassword: 'a brand new password' })).status, 204);
  assert.equal(await tried('/api/auth/magic-link/confirm', { token: overheardSignIn }), 404);
  assert.equal(await tried('/api/auth/password-reset/confirm', { token: overheardReset, password: 'the intruder’s pick' }), 404);
  assert.equal((await person.client.get('/api/me')).status, 200);
  assert.equal((await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: 'a brand new password' })).status, 200);
});

test('sign-up: open lets anyone open an account after confirming the e-mail; invite refuses it; closed refuses newcomers an invitation', async (t) => {
  const smtp = await startSmtp(t);
  const open = await startApp(t, { env: { SMTP_URL: smtp.url, SIGNUP: 'open' } });
  assert.equal((await createSessionClient(open.url).post('/api/auth/sign-up', { email: 'new@example.com' })).status, 202);
  const token = tokenIn(await smtp.waitFor('new@example.com'), '/setup?signup');
  const browser = createSessionClient(open.url);
  const done = await browser.post('/api/auth/sign-up/confirm', { token, name: 'New Person', password: TEST_PASSWORD, companyName: 'New Co' });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.role, 'owner');
  assert.equal(done.body.account.name, 'New Co');

  const invite = await startApp(t);
  assert.equal((await createSessionClient(invite.url).post('/api/auth/sign-up', { email: 'new@example.com' })).status, 403);

  const closed = await startApp(t, { env: { SMTP_URL: smtp.url, SIGNUP: 'closed' } });
  const owner = await closed.createAccount('business');
  assert.equal((await owner.http.post('/api/invitations', { email: 'newcomer@example.com', role: 'member' })).status, 201);
  const invitation = /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor('newcomer@example.com')).text)![1]!;
  const refused = await createSessionClient(closed.url).post('/api/invitations/accept', {
    token: invitation,
    name: 'Newcomer',
    password: TEST_PASSWORD,
  });
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /closed sign-up/);
});

test("a new person's address must be one every mail server takes: invitations, sign-up and the command line refuse others with a 400", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url, SIGNUP: 'open' } });
  const owner = await app.createAccount('business');
  const member = await signedInPerson(app, owner.accountId, 'member');
  // A list, a display-name form, the existing member's address with a trailing dot, and a non-ASCII local part.
  for (const email of ['x,attacker@evil.example', '<attacker@evil.example>', `${member.email}.`, 'mémber@example.com']) {
    const invited = await owner.http.post('/api/invitations', { email, role: 'member' });
    assert.equal(invited.status, 400, `${email}: ${JSON.stringify(invited.body)}`);
    assert.match(invited.body.error, /not an e-mail address that can be used here/);
    assert.equal((await createSessionClient(app.url).post('/api/auth/sign-up', { email })).status, 400, email);
    const cli = await runCli(['users', 'create', '--email', email, '--account-email', owner.email, '--role', 'member'], app.env);
    assert.equal(cli.code, 1, `${email}: ${cli.stdout}`);
  }
  assert.deepEqual((await owner.http.get('/api/invitations')).body.invitations, []);
  assert.equal((await owner.http.post('/api/invitations', { email: 'New.Person+deals@Example.com', role: 'member' })).status, 201);
});

test('the CLI prints a setup link and a one-time sign-in link that work', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount('business');
  const setup = await runCli(['setup-link'], app.env);
  assert.equal(setup.code, 0, setup.stderr);
  assert.match(setup.stdout.trim(), /\/setup\?token=[0-9A-Za-z]{43}$/);

  const created = await runCli(['users', 'create', '--email', 'Helper@Example.com', '--account-email', owner.email, '--role', 'admin'], app.env);
  assert.equal(created.code, 0, created.stderr);
  const token = new URL(JSON.parse(created.stdout).signInLink).searchParams.get('token')!;
  const browser = createSessionClient(app.url);
  const signedIn = await browser.post('/api/auth/magic-link/confirm', { token });
  assert.equal(signedIn.status, 200);
  assert.equal(signedIn.body.user.email, 'helper@example.com');
  assert.equal(signedIn.body.role, 'admin');
  assert.equal((await browser.get('/api/api-keys')).status, 200);

  // Once someone signs in, no setup link would work: the command says so instead of printing a dead one.
  const late = await runCli(['setup-link'], app.env);
  assert.equal(late.code, 1);
  assert.match(late.stderr, /set up already: sign in, and add people with invitations or `linkvault users create`/);
  assert.equal(late.stdout, '');

  // Someone already in the account keeps the role they hold: the link signs them in, nothing else changes.
  const again = await runCli(['users', 'create', '--email', 'helper@example.com', '--account-email', owner.email, '--role', 'owner'], app.env);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).role, 'admin');
  assert.equal((await browser.get('/api/me')).body.role, 'admin');
  const added = (await app.http(owner.apiKey).get('/api/audit-log?action=member.added')).body.entries as Array<{ details: { role: string } }>;
  assert.deepEqual(
    added.map((entry) => entry.details.role),
    ['admin'],
  );

  const badRole = await runCli(['users', 'create', '--email', 'x@example.com', '--account-email', owner.email, '--role', 'boss'], app.env);
  assert.equal(badRole.code, 1);
  assert.match(badRole.stderr, /--role must be one of/);
});

test('expired sign-in, reset, sign-up and setup links are deleted by the hourly token sweep; live ones stay', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now, env: { SIGNUP: 'open' } });
  const tokens = () => app.runtime.database.db.selectFrom('sign_in_tokens').select('purpose').execute();
  for (let n = 0; n < 3; n++) {
    assert.equal((await createSessionClient(app.url).post('/api/auth/sign-up', { email: `stranger${n}@example.com` })).status, 202);
  }
  await app.runtime.services.auth.setupLink();
  // A sign-up's link is made by its mail job, which runs apart from the request.
  assert.equal((await waitFor(tokens, (rows) => rows.length === 4)).length, 4);
  assert.equal(await app.runtime.tokenSweeps.signIn.sweep(), 0, 'none has expired');

  now += 2 * 86_400_000;
  await app.runtime.services.auth.setupLink();
  assert.equal(await app.runtime.tokenSweeps.signIn.sweep(), 4);
  assert.deepEqual(
    (await tokens()).map((token) => token.purpose),
    ['setup'],
    'the one made since stays',
  );
});
