import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { pdfPageTexts } from '../../../test/helpers/pdf.js';
import { writeOfflineProfile } from './offline-office.js';
import { ConversionError, createOfficeConverter, isConvertible, type OfficeConverterOptions } from './office-converter.js';

const SOFFICE = process.env.SOFFICE_PATH ?? '/usr/bin/soffice';
const execFileAsync = promisify(execFile);
const FIXTURES = path.join(import.meta.dirname, '../../../test/fixtures/documents');
// Only the tests that run LibreOffice are skipped without it; the others need no binary.
const needsSoffice = { skip: existsSync(SOFFICE) ? false : `LibreOffice is not installed at ${SOFFICE} (set SOFFICE_PATH to run these tests)` };

/**
 * A converter whose jobs go to a temp root of this test, removed afterwards, with every started
 * group recorded along with the names and modes of the job directories at that moment; `afterSpawn` runs next.
 */
async function converterFor(t: TestContext, options: Partial<OfficeConverterOptions> = {}, afterSpawn?: (pid: number) => void) {
  const tempRoot = await realpath(await mkdtemp(path.join(os.tmpdir(), 'office-converter-test-')));
  const spawned: Array<{ pid: number; jobDirs: string[]; jobDirModes: number[] }> = [];
  const converter = createOfficeConverter({
    sofficePath: SOFFICE,
    timeoutMs: 60_000,
    memoryLimitMb: 2048,
    tempRoot,
    ...options,
    onSpawn: (pid) => {
      const jobDirs = readdirSync(tempRoot);
      spawned.push({ pid, jobDirs, jobDirModes: jobDirs.map((entry) => statSync(path.join(tempRoot, entry)).mode & 0o777) });
      afterSpawn?.(pid);
    },
  });
  t.after(async () => {
    // A safety net: a group the converter failed to end would otherwise outlive the test run.
    for (const { pid } of spawned) if (liveGroupMembers(pid).length > 0) process.kill(-pid, 'SIGKILL');
    await rm(tempRoot, { recursive: true, force: true });
  });
  return { converter, tempRoot, spawned };
}

/** The pids of the processes of group `pgid` that still run (zombies waiting for their parent have already died). */
function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
  }
  return members;
}

/** Waits, at most `ms`, for group `pgid` to have no running process; returns what still runs. */
async function waitForGroupGone(pgid: number, ms = 5000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let members = liveGroupMembers(pgid);
  while (members.length > 0 && Date.now() < deadline) {
    await sleep(50);
    members = liveGroupMembers(pgid);
  }
  return members;
}

/** Where LibreOffice, running as `uid`, puts the single-instance socket of the job in `jobDir` (see sal/osl pipe naming). */
function ipcSocketOf(jobDir: string, uid: number): string {
  const hash = [...createHash('md5').update(`file://${jobDir}/profile`, 'utf16le').digest()].map((byte) => byte.toString(16)).join('');
  return `/tmp/OSL_PIPE_${uid}_SingleOfficeIPC_${hash}`;
}

async function pageCount(pdf: Buffer): Promise<number> {
  return (await PDFDocument.load(pdf)).getPageCount();
}

async function rejection(promise: Promise<unknown>): Promise<ConversionError> {
  const error = await promise.then(
    () => assert.fail('the conversion should have failed'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ConversionError, `expected a ConversionError, got ${String(error)}`);
  return error;
}

test('which files are converted: by lower-cased extension, extensionless plain text and CSV by MIME type', () => {
  for (const name of ['report.docx', 'Deck.PPTX', 'old.doc', 'sheet.xlsx', 'notes.txt', 'data.csv', 'plan.key', 'a.b.odt', 'memo.RTF'])
    assert.equal(isConvertible(name, 'application/octet-stream'), true, name);
  for (const name of ['paper.pdf', 'photo.jpg', 'archive.tar.gz', 'docx', 'script.sh', 'page.html'])
    assert.equal(isConvertible(name, 'application/octet-stream'), false, name);
  assert.equal(isConvertible('README', 'text/plain; charset=utf-8'), true);
  assert.equal(isConvertible('export', 'text/csv'), true);
  assert.equal(isConvertible('export', 'application/octet-stream'), false);
  // A name's own extension decides, whatever MIME type the browser sent.
  assert.equal(isConvertible('page.html', 'text/plain'), false);
});

test('a missing binary: available() is false and a conversion is refused as unavailable', async (t) => {
  const { converter, spawned } = await converterFor(t, { sofficePath: path.join(os.tmpdir(), 'no-such-dir', 'soffice') });
  assert.equal(await converter.available(), false);
  const error = await rejection(converter.toPdf(Buffer.from('hello'), 'txt'));
  assert.equal(error.reason, 'unavailable');
  assert.equal(spawned.length, 0);
});

test('an extension outside the list is refused before anything runs', async (t) => {
  const { converter, spawned } = await converterFor(t);
  const error = await rejection(converter.toPdf(Buffer.from('%PDF-1.4'), 'pdf'));
  assert.equal(error.reason, 'failed');
  assert.equal(spawned.length, 0);
});

test('each fixture converts with its page count and text, in a 0700 directory removed afterwards', needsSoffice, async (t) => {
  const { converter, tempRoot, spawned } = await converterFor(t);
  assert.equal(await converter.available(), true);
  const fixtures = [
    { file: 'three-pages.docx', pages: 3, texts: ['Page one', 'Page two', 'Page three'] },
    { file: 'five-slides.pptx', pages: 5, texts: ['Slide 1', 'Slide 2', 'Slide 3', 'Slide 4', 'Slide 5'] },
    { file: 'two-sheets.xlsx', pages: 2, texts: ['Quarterly revenue', 'Head count'] },
    { file: 'notes.txt', pages: 1, texts: ['Meeting notes'] },
    { file: 'table.csv', pages: 1, texts: ['Grace'] },
  ];
  for (const [index, fixture] of fixtures.entries()) {
    const source = path.join(FIXTURES, fixture.file);
    // Both input kinds: a stream (as from storage) and a Buffer.
    const input = index % 2 === 0 ? createReadStream(source) : await readFile(source);
    const started = performance.now();
    const pdf = await converter.toPdf(input, path.extname(fixture.file).slice(1));
    t.diagnostic(`${fixture.file}: ${Math.round(performance.now() - started)} ms`);

    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', fixture.file);
    assert.equal(await pageCount(pdf), fixture.pages, fixture.file);
    const pageTexts = await pdfPageTexts(pdf);
    fixture.texts.forEach((text, page) => assert.match(pageTexts[Math.min(page, pageTexts.length - 1)]!, new RegExp(text), fixture.file));
    assert.deepEqual(spawned[index]?.jobDirModes, [0o700], `${fixture.file}: the job directory while LibreOffice ran`);
    // Named after its process, so that a start after a crash can tell it was left behind.
    assert.ok(spawned[index]?.jobDirs[0]?.startsWith(`linkvault-convert-${process.pid}@${os.hostname()}-`), spawned[index]?.jobDirs[0]);
    assert.deepEqual(await readdir(tempRoot), [], `${fixture.file}: the job directory is removed`);
    assert.deepEqual(await waitForGroupGone(spawned[index]!.pid), [], `${fixture.file}: no process of the group is left`);
  }
});

test('a damaged DOCX fails as failed, with a message that names no path, and its directory is removed', needsSoffice, async (t) => {
  const { converter, tempRoot, spawned } = await converterFor(t);
  const error = await rejection(converter.toPdf(createReadStream(path.join(FIXTURES, 'corrupt.docx')), 'docx'));
  assert.equal(error.reason, 'failed');
  assert.equal(error.message, 'LibreOffice could not convert this file');
  assert.doesNotMatch(error.message, /\//);
  assert.doesNotMatch(error.detail, new RegExp(tempRoot));
  assert.deepEqual(spawned[0]?.jobDirModes, [0o700]);
  assert.deepEqual(await readdir(tempRoot), []);
  assert.deepEqual(await waitForGroupGone(spawned[0]!.pid), []);
});

test('a PDF larger than maxPdfBytes is refused as too large, without being read, and its directory is removed', needsSoffice, async (t) => {
  const { converter, tempRoot } = await converterFor(t, { maxPdfBytes: 100 * 1024 });
  // About 300 pages of text: some 220 KB of PDF.
  const lines = Array.from({ length: 15_000 }, (_, n) => `Row ${n}: a line of a long export nobody will read page by page.`).join('\n');
  const error = await rejection(converter.toPdf(Buffer.from(lines), 'txt'));
  assert.equal(error.reason, 'too-large');
  assert.equal(error.message, 'Converted to PDF, this file would be larger than 100 KB');
  assert.deepEqual(await readdir(tempRoot), []);
});

test('a conversion past its time limit is killed with its whole process group', needsSoffice, async (t) => {
  const { converter, tempRoot, spawned } = await converterFor(t, { timeoutMs: 300 });
  const started = performance.now();
  const error = await rejection(converter.toPdf(await readFile(path.join(FIXTURES, 'three-pages.docx')), 'docx'));
  assert.equal(error.reason, 'timeout');
  assert.ok(performance.now() - started < 10_000, 'the timeout ended the conversion early');
  assert.equal(spawned.length, 1);
  assert.deepEqual(await waitForGroupGone(spawned[0]!.pid), [], 'no process of the group is left');
  assert.deepEqual(await readdir(tempRoot), []);
});

test('an aborted conversion is killed the same way, and the IPC socket LibreOffice left in /tmp is removed', needsSoffice, async (t) => {
  const controller = new AbortController();
  let socket = '';
  let socketSeen = false;
  let uid = 0;
  const { converter, tempRoot, spawned } = await converterFor(t, {}, () => {
    // Abort once LibreOffice has made its single-instance socket: the kill leaves it behind.
    socket = ipcSocketOf(path.join(tempRoot, readdirSync(tempRoot)[0]!), uid);
    const deadline = Date.now() + 20_000;
    const poll = setInterval(() => {
      socketSeen ||= existsSync(socket);
      if (socketSeen || Date.now() > deadline) {
        clearInterval(poll);
        controller.abort();
      }
    }, 20);
  });
  uid = (await converter.isolation()).uid;
  const error = await rejection(converter.toPdf(await readFile(path.join(FIXTURES, 'notes.txt')), 'txt', { signal: controller.signal }));
  assert.equal(error.reason, 'timeout');
  assert.ok(socketSeen, 'LibreOffice made its socket where expected');
  assert.deepEqual(await waitForGroupGone(spawned[0]!.pid), []);
  assert.deepEqual(await readdir(tempRoot), []);
  assert.equal(existsSync(socket), false, 'the socket is removed');
});

/** A text document (flat ODF XML, which LibreOffice reads under an .odt name) whose image is only a link to `url`. */
const linkedImageDocument = (url: string) => `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:body><office:text>
<text:p>Quarterly report <draw:frame draw:name="chart" svg:width="12cm" svg:height="3cm"><draw:image xlink:href="${url}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>
</office:text></office:body></office:document>`;

/** An HTTP server on loopback (an "internal service") that answers every request with a PNG and counts them. */
async function internalService(t: TestContext) {
  const png = await sharp({ create: { width: 64, height: 16, channels: 3, background: '#c00' } })
    .png()
    .toBuffer();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.setHeader('content-type', 'image/png');
    response.end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/internal/admin.png`, requests };
}

const imagesIn = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Subtype\s*\/Image/g) ?? []).length;

test('a document linking to an internal address converts without LibreOffice fetching it', needsSoffice, async (t) => {
  const internal = await internalService(t);
  const { converter } = await converterFor(t);
  const pdf = await converter.toPdf(Buffer.from(linkedImageDocument(internal.url)), 'odt');
  assert.equal(internal.requests.length, 0, `no request left LibreOffice: ${internal.requests.join(', ')}`);
  assert.equal(imagesIn(pdf), 0, 'the linked image is not drawn');
  assert.match((await pdfPageTexts(pdf))[0]!, /Quarterly report/);
  const canIsolate = spawnSync('unshare', ['--user', '--map-root-user', '--net', '--', 'true']).status === 0;
  if (canIsolate) assert.equal((await converter.isolation()).kind, 'user-namespace', 'and it ran without a network');
});

test('the offline profile alone keeps LibreOffice from fetching (where no network namespace can be made)', needsSoffice, async (t) => {
  const internal = await internalService(t);
  const job = await mkdtemp(path.join(os.tmpdir(), 'offline-profile-test-'));
  t.after(() => rm(job, { recursive: true, force: true }));
  await writeFile(path.join(job, 'document.odt'), linkedImageDocument(internal.url));
  // Not spawnSync: the internal service answers from this process's event loop.
  const convert = (profile: string) =>
    execFileAsync(
      SOFFICE,
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${job}/${profile}`,
        '--convert-to',
        'pdf',
        '--outdir',
        path.join(job, profile),
        'document.odt',
      ],
      { cwd: job, env: { PATH: process.env.PATH, HOME: job }, timeout: 60_000 },
    );
  await writeOfflineProfile(path.join(job, 'offline'));
  await convert('offline');
  assert.equal(internal.requests.length, 0, `fetched: ${internal.requests.join(', ')}`);
  assert.equal(imagesIn(await readFile(path.join(job, 'offline', 'document.pdf'))), 0);
  // The same document with a profile of LibreOffice's defaults does fetch it: the test can see a fetch.
  await convert('defaults');
  assert.ok(
    internal.requests.some((request) => request.startsWith('GET /internal/admin.png')),
    `fetched: ${internal.requests.join(', ')}`,
  );
  assert.equal(imagesIn(await readFile(path.join(job, 'defaults', 'document.pdf'))), 1);
});
