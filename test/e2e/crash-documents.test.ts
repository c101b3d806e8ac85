import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/kysely.js';
import { testEnv } from '../helpers/app.js';
import { lapseRunningLeases } from '../helpers/crash.js';
import { createLink } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { makePdf } from '../helpers/pdf.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

const PAGES = 300;
/** Strips, not A4: the restart is under test, not the drawing, and a seventh of the pixels keeps CI short. */
const PAGE_HEIGHT = 120;

test(`a ${PAGES}-page PDF whose rendering is killed with kill -9 is finished after the restart, each page once`, { timeout: 420_000 }, async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'pages@example.com', '--plan', 'professional'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const database = openDatabase(loadConfig(env).database);
  t.after(() => database.close());
  const { db } = database;
  const renderedPages = async () =>
    Number(
      (
        await db
          .selectFrom('document_pages')
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirst()
      )?.count ?? 0,
    );

  let server = await startServerProcess(t, env);
  const id = await createLink(createHttpClient(server.url, apiKey), await makePdf(PAGES, { height: PAGE_HEIGHT }), 'Long report.pdf');
  await waitFor(renderedPages, (count) => count >= 3, 120_000);
  server.child.kill('SIGKILL');
  await server.exited;
  const before = await renderedPages();
  assert.ok(before < PAGES, `killed mid-way (${before} of ${PAGES} pages drawn)`);
  const job = await db.selectFrom('jobs').select(['status']).where('kind', '=', 'document.render').where('status', '!=', 'done').executeTakeFirst();
  assert.equal(job?.status, 'running', 'the job died under its lease');
  await lapseRunningLeases(db);

  server = await startServerProcess(t, env);
  const owner = createHttpClient(server.url, apiKey);
  const document = await waitFor(
    async () => (await owner.get(`/api/links/${id}`)).body.document as { status: string; pages: number },
    (current) => current.status !== 'processing',
    360_000,
  );
  assert.deepEqual(document, { status: 'ready', pages: PAGES, rendered: PAGES, error: null });
  assert.equal(await renderedPages(), PAGES, 'each page drawn once');
  const visitor = new VisitorClient(server.url);
  await visitor.get(`/v/${id}`);
  const manifest = JSON.parse((await visitor.get(`/v/${id}/pages.json`)).text) as { pages: { number: number }[] };
  assert.equal(manifest.pages.length, PAGES);
  const last = await visitor.get(`/v/${id}/pages/${PAGES}`);
  assert.equal(last.status, 200);
  assert.equal(last.headers.get('content-type'), 'image/webp');
});

/** The pid of a process of this machine that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

test("a start removes the conversion folders (decrypted documents) of a process that is gone, and keeps a live one's", async (t) => {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-tmpdir-'));
  t.after(() => fs.rm(tmp, { recursive: true, force: true }));
  const host = os.hostname();
  const dead = await deadPid();
  /** A conversion's folder as a process left it, with the decrypted input in it. */
  const leftover = async (name: string, ageMs = 0) => {
    const folder = path.join(tmp, name);
    await fs.mkdir(path.join(folder, 'in'), { recursive: true });
    await fs.writeFile(path.join(folder, 'in', 'document.docx'), 'the decrypted document');
    const at = new Date(Date.now() - ageMs);
    await fs.utimes(folder, at, at);
    return folder;
  };
  const crashed = await leftover(`linkvault-convert-${dead}@${host}-a1B2c3`);
  const beforeOwners = await leftover('linkvault-convert-Xy9Zq1', 2 * 86_400_000);
  const running = await leftover(`linkvault-convert-${process.pid}@${host}-d4E5f6`);
  const otherMachine = await leftover(`linkvault-convert-${dead}@another-${host}-g7H8i9`);
  const recentUnowned = await leftover('linkvault-convert-Qw3Er4');

  const env = await testEnv(t, { TMPDIR: tmp });
  await startServerProcess(t, env);
  const remaining = await waitFor(
    () => fs.readdir(tmp),
    (names) => !names.includes(path.basename(crashed)) && !names.includes(path.basename(beforeOwners)),
  );
  assert.deepEqual(
    remaining.filter((name) => name.startsWith('linkvault-convert-')).sort(),
    [running, otherMachine, recentUnowned].map((folder) => path.basename(folder)).sort(),
    "a dead process's folder and one older than any conversion go; a live process's, another machine's and a recent one stay",
  );
});

test('SIGTERM during an Office conversion: after the grace period the conversion is aborted, LibreOffice ends, its decrypted input goes, and the job is due again', async (t) => {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-stuck-soffice-'));
  t.after(() => fs.rm(scratch, { recursive: true, force: true }));
  // A LibreOffice stuck on a hostile document: it tells its pid and input, then never ends.
  const report = path.join(scratch, 'soffice.txt');
  const stuck = path.join(scratch, 'soffice');
  await fs.writeFile(stuck, `#!/bin/sh\nfor last; do :; done\necho "$$ $last" > ${report}\nexec sleep 600\n`, { mode: 0o755 });
  const env = await testEnv(t, { SOFFICE_PATH: stuck, CONVERT_TIMEOUT_SECONDS: '300', SHUTDOWN_GRACE_SECONDS: '1' });
  const account = JSON.parse((await runCli(['accounts', 'create', '--email', 'convert@example.com', '--plan', 'business'], env)).stdout);
  const server = await startServerProcess(t, env);
  const linkId = await createLink(createHttpClient(server.url, account.apiKey), 'board minutes, in confidence', 'board-minutes.txt');
  const [pidText, input] = (
    await waitFor(
      () => fs.readFile(report, 'utf8').catch(() => ''),
      (text) => text.includes(' '),
    )
  )
    .trim()
    .split(' ');
  const pid = Number(pidText);
  t.after(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ended, as it should be
    }
  });
  assert.equal(await fs.readFile(input!, 'utf8'), 'board minutes, in confidence', 'the stand-in holds the decrypted input');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  assert.equal(alive(), false, 'LibreOffice ended with the server');
  await assert.rejects(fs.stat(input!), { code: 'ENOENT' }, 'the decrypted input is removed');
  const database = openDatabase(loadConfig(env).database);
  t.after(() => database.close());
  const document = await database.db.selectFrom('documents').select(['id', 'status']).where('link_id', '=', linkId).executeTakeFirstOrThrow();
  assert.equal(document.status, 'processing', 'not failed: the conversion was cut short, not too slow');
  const job = await database.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'run_at', 'last_error'])
    .where('kind', '=', 'document.render')
    .executeTakeFirstOrThrow();
  assert.equal(job.status, 'pending');
  assert.equal(job.attempts, 0, 'a stop is not a failed attempt: rolling restarts never fail a document');
  assert.equal(job.last_error, 'the server stopped during this attempt');
  assert.ok(job.run_at <= Date.now(), 'due again at once');
});
