import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { startApp, WITH_LIBREOFFICE, type TestApp } from '../../../test/helpers/app.js';
import { createLink, listFiles, uploadForm } from '../../../test/helpers/files.js';
import { HAS_TESSERACT, readMark } from '../../../test/helpers/ocr.js';
import type { HttpClient } from '../../../test/helpers/http.js';
import { BANDS, makeBandsPdf, makePdf, makeSlowPdf } from '../../../test/helpers/pdf.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { listJobs } from '../../infra/jobs/index.js';
import { DOCUMENT_JOB } from './renditions.js';

interface Manifest {
  status: string;
  error: string | null;
  totalPages: number | null;
  visiblePages: number | null;
  pages: { number: number; width: number; height: number; text: string | null; imageUrl: string; thumbnailUrl: string }[];
}

const fixture = (name: string) => readFile(new URL(`../../../test/fixtures/documents/${name}`, import.meta.url));

async function documentOf(http: HttpClient, id: string, until: (status: string) => boolean = (status) => status !== 'processing') {
  const read = await waitFor(
    async () =>
      (await http.get(`/api/links/${id}`)).body.document as { status: string; pages: number | null; rendered: number | null; error: string | null },
    (document) => until(document.status),
    60_000,
  );
  return read;
}

async function viewing(app: TestApp, id: string) {
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);
  const manifest = async () => JSON.parse((await visitor.get(`/v/${id}/pages.json`)).text) as Manifest;
  return { visitor, manifest };
}

test('a PDF is rendered page by page: status in the API, page images and text for the viewer, thumbnails for the owner', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(3), 'Deck.pdf');
  const document = await documentOf(http, id);
  assert.deepEqual(document, { status: 'ready', pages: 3, rendered: 3, error: null });
  const listed = (await http.get('/api/links')).body.links.find((link: { id: string }) => link.id === id);
  assert.deepEqual(listed.document, document);

  const { visitor, manifest } = await viewing(app, id);
  const pages = await manifest();
  assert.equal(pages.status, 'ready');
  assert.equal(pages.totalPages, 3);
  assert.equal(pages.visiblePages, 3);
  assert.deepEqual(
    pages.pages.map((page) => page.number),
    [1, 2, 3],
  );
  assert.equal(pages.pages[0]!.width, 1600);
  assert.match(pages.pages[1]!.text ?? '', /PAGE 2/);
  const image = await visitor.get(pages.pages[0]!.imageUrl);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/webp');
  assert.equal((await visitor.get(pages.pages[0]!.thumbnailUrl)).status, 200);
  assert.equal((await visitor.get(`/v/${id}/content`)).status, 404, 'a paged document leaves as page images only');
  assert.equal((await new VisitorClient(app.url).get(`/v/${id}/pages/1`)).status, 403, 'no session, no page');

  const thumbnail = await http.get(`/api/links/${id}/pages/2/thumbnail`);
  assert.equal(thumbnail.status, 200);
  assert.equal(thumbnail.headers.get('content-type'), 'image/webp');
  assert.equal((await http.get(`/api/links/${id}/pages/9/thumbnail`)).status, 404);
});

/** The strongest channel (0 red, 1 green, 2 blue) in the middle of each of the image's bands, top to bottom. */
async function bandChannels(image: Buffer): Promise<number[]> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const bandHeight = height / BANDS.length;
  return Promise.all(
    BANDS.map(async (_band, index) => {
      const area = {
        left: Math.round(width / 3),
        top: Math.round((index + 1 / 3) * bandHeight),
        width: Math.round(width / 3),
        height: Math.round(bandHeight / 3),
      };
      // stats() reads its input whole: the area is cut out first.
      const cut = await sharp(image).extract(area).png().toBuffer();
      const means = (await sharp(cut).stats()).channels.slice(0, 3).map((channel) => channel.mean);
      return means.indexOf(Math.max(...means));
    }),
  );
}

test("a page's image, thumbnail and stamped copy keep the PDF's colours", async (t) => {
  const app = await startApp(t);
  const { http, apiKey } = await app.createAccount('professional');
  const pdf = await makeBandsPdf();
  const clean = await createLink(http, pdf, 'Colours.pdf');
  const stamped = await createLink(http, pdf, 'Colours, watermarked.pdf', { hasWatermark: '1' });
  await documentOf(http, clean);
  await documentOf(http, stamped);
  const expected = BANDS.map((_color, index) => index);

  const owner = await fetch(`${app.url}/api/links/${clean}/pages/1/thumbnail`, { headers: { authorization: `Bearer ${apiKey}` } });
  assert.deepEqual(await bandChannels(Buffer.from(await owner.arrayBuffer())), expected, "the owner's thumbnail");
  const { visitor } = await viewing(app, clean);
  assert.deepEqual(await bandChannels((await visitor.get(`/v/${clean}/pages/1`)).bytes), expected, 'the page image');
  assert.deepEqual(await bandChannels((await visitor.get(`/v/${clean}/pages/1/thumbnail`)).bytes), expected, "the visitor's thumbnail");
  const watermarked = await viewing(app, stamped);
  assert.deepEqual(await bandChannels((await watermarked.visitor.get(`/v/${stamped}/pages/1`)).bytes), expected, 'the stamped page');
});

test(
  "a page's mark names the time its view began, on every page however late it is asked for",
  { skip: !HAS_TESSERACT && 'tesseract-ocr is not installed' },
  async (t) => {
    let now = Date.UTC(2026, 10, 24, 10, 0);
    const app = await startApp(t, { clock: () => now });
    const { http } = await app.createAccount('professional');
    const id = await createLink(http, await makePdf(2), 'Board minutes.pdf', { hasWatermark: '1' });
    await documentOf(http, id);
    const { visitor } = await viewing(app, id);
    now += 20 * 60_000;
    const first = await readMark((await visitor.get(`/v/${id}/pages/1`)).bytes);
    now += 20 * 60_000;
    const second = await readMark((await visitor.get(`/v/${id}/pages/2`)).bytes);
    // The view's id is read exactly by the legibility test, whose id is fixed: a random one's
    // glyphs can come back misread ("2J" as "2)J"), so here only its label is looked for.
    for (const text of [first, second]) {
      assert.match(text, /2026-11-24 10:00 UTC/, text);
      assert.match(text, /\bview \S/, text);
    }
  },
);

test('preview pages: only pages 1..N exist for visitors; a watermark hides the text and stamps every image', async (t) => {
  const app = await startApp(t);
  const { http, apiKey } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(4), 'Terms.pdf', { previewPages: '2', hasWatermark: '1' });
  await documentOf(http, id);
  const { visitor, manifest } = await viewing(app, id);
  const pages = await manifest();
  assert.equal(pages.totalPages, 4);
  assert.equal(pages.visiblePages, 2);
  assert.equal(pages.pages.length, 2);
  assert.equal(pages.pages[0]!.text, null, 'no selectable text under a watermark');
  assert.equal((await visitor.get(`/v/${id}/pages/3`)).status, 404);
  assert.equal((await visitor.get(`/v/${id}/pages/3/thumbnail`)).status, 404);
  const stamped = await visitor.get(`/v/${id}/pages/1`);
  assert.equal(stamped.status, 200);
  const again = await visitor.get(`/v/${id}/pages/1`);
  assert.deepEqual(again.bytes, stamped.bytes, 'stamped once per visit');
  const clean = await fetch(`${app.url}/api/links/${id}/pages/1/thumbnail`, { headers: { authorization: `Bearer ${apiKey}` } });
  const cleanThumbnail = Buffer.from(await clean.arrayBuffer());
  assert.ok(cleanThumbnail.length > 100);
  assert.notDeepEqual((await visitor.get(`/v/${id}/pages/1/thumbnail`)).bytes, cleanThumbnail, 'thumbnails are stamped too');
});

test('a page asked for many times at once is stamped once for the view; a visit asking for every page at once gets them all', async (t) => {
  const metricsToken = 'scrape-' + 'p'.repeat(24);
  const app = await startApp(t, { env: { METRICS_TOKEN: metricsToken } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(6), 'Deck.pdf', { hasWatermark: '1' });
  await documentOf(http, id);
  const stampsMade = async () => {
    const text = await (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    return Number(/^page_stamps_total (\d+)$/m.exec(text)?.[1]);
  };
  const { visitor } = await viewing(app, id);
  const before = await stampsMade();

  const same = await Promise.all(Array.from({ length: 8 }, () => visitor.get(`/v/${id}/pages/1`)));
  assert.deepEqual(
    same.map((answer) => answer.status),
    Array(8).fill(200),
  );
  assert.equal((await stampsMade()) - before, 1, 'eight requests, one stamp');

  // Every page and thumbnail at once: the view's stamps wait their turn, two at a time, and all arrive.
  const everything = await Promise.all(
    [1, 2, 3, 4, 5, 6].flatMap((number) => [visitor.get(`/v/${id}/pages/${number}`), visitor.get(`/v/${id}/pages/${number}/thumbnail`)]),
  );
  assert.deepEqual(
    everything.map((answer) => answer.status),
    Array(12).fill(200),
  );
  assert.equal((await stampsMade()) - before, 12, 'page 1 was already stamped; eleven more');
});

test("a watermarked visit's page URLs name its view, so a browser's cache never shows one visit's stamps in another", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const pdf = await makePdf(2);
  const clean = await createLink(http, pdf, 'Clean.pdf');
  const marked = await createLink(http, pdf, 'Marked.pdf', { hasWatermark: '1' });
  await documentOf(http, clean);
  await documentOf(http, marked);
  const urlsOfVisit = async (id: string) => {
    const pages = (await (await viewing(app, id)).manifest()).pages;
    return pages.flatMap((page) => [page.imageUrl, page.thumbnailUrl]);
  };

  const [first, second] = [await urlsOfVisit(marked), await urlsOfVisit(marked)];
  assert.match(first[0]!, new RegExp(`^/v/${marked}/pages/1\\?v=1&view=[0-9A-Z]{6}$`));
  for (const [index, url] of first.entries()) assert.notEqual(url, second[index], 'each visit has URLs of its own');
  assert.deepEqual(await urlsOfVisit(clean), await urlsOfVisit(clean), 'clean pages keep one URL, cached across visits');
});

test("two visits whose short view ids happen to match never get each other's stamped pages", async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const marked = await createLink(http, await makePdf(1), 'Marked.pdf', { hasWatermark: '1' });
  await documentOf(http, marked);
  const visitFrom = async (ip: string) => {
    const visitor = new VisitorClient(app.url, { 'x-forwarded-for': ip });
    assert.equal((await visitor.get(`/v/${marked}`)).status, 200);
    return visitor;
  };
  const [ana, bob] = [await visitFrom('203.0.113.1'), await visitFrom('203.0.113.2')];
  // 36^6 ids: rare, but two live views can draw the same one; here the second is given the first's.
  const db = app.runtime.database.db;
  const [first] = await db.selectFrom('visits').select('view_id').where('ip', '=', '203.0.113.1').execute();
  await db.updateTable('visits').set({ view_id: first!.view_id }).where('ip', '=', '203.0.113.2').execute();

  const pageOf = async (visitor: VisitorClient) => {
    const path = `/v/${marked}/pages/1?v=1&view=${first!.view_id}`;
    const response = await fetch(`${app.url}${path}`, { headers: visitor.headersFor(path) });
    assert.equal(response.status, 200);
    return Buffer.from(await response.arrayBuffer());
  };
  const anasPage = await pageOf(ana);
  const bobsPage = await pageOf(bob);
  assert.notDeepEqual(bobsPage, anasPage, "the second visit's page is stamped for it, not taken from the first's");
});

test('a replacement is rendered while visitors still see the old pages; a corrupt file ends failed and the link still answers', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(2), 'Report.pdf');
  await documentOf(http, id);
  assert.equal((await http.put(`/api/links/${id}/file`, uploadForm(await makePdf(5), 'Report.pdf'))).status, 200);
  assert.deepEqual(await documentOf(http, id), { status: 'ready', pages: 5, rendered: 5, error: null });
  const { manifest } = await viewing(app, id);
  assert.equal((await manifest()).totalPages, 5);

  const broken = await createLink(http, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]), 'Broken.pdf');
  const failed = await documentOf(http, broken);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error ?? '', /could not be read/);
  const { visitor, manifest: brokenManifest } = await viewing(app, broken);
  assert.equal((await brokenManifest()).status, 'failed');
  assert.equal((await visitor.get(`/v/${broken}`)).status, 200);
});

test("a link's page images, thumbnails and stamp bases go with its file: when the link is deleted, and when an expired link's file is purged", async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const renditionsOf = (id: string) => listFiles(path.join(app.dataDir, 'blobs', 'documents', id));
  const deleted = await createLink(http, await makePdf(2), 'Deleted.pdf');
  const expiring = await createLink(http, await makePdf(2), 'Expiring.pdf', { expiration: '1h' });
  await documentOf(http, deleted);
  await documentOf(http, expiring);
  assert.equal((await renditionsOf(deleted)).length, 6, 'two pages, each an image, a thumbnail and a stamp base');
  assert.equal((await renditionsOf(expiring)).length, 6);

  assert.equal((await http.delete(`/api/links/${deleted}`)).status, 200);
  assert.deepEqual(await renditionsOf(deleted), [], 'gone at once, not at the next orphan sweep');

  now += 31 * 86_400_000;
  assert.equal(await app.runtime.services.links.purgeExpiredBlobs(30 * 86_400_000), 1);
  assert.deepEqual(await renditionsOf(expiring), []);
  assert.equal((await http.get(`/api/links/${expiring}/pages/1/thumbnail`)).status, 404, 'the owner sees no page of a purged file either');
});

test('a document whose page images would take more than its budget ends failed; a very tall page is drawn smaller, in proportion', async (t) => {
  // No base: the budget is 100 times the PDF, which a few pages of text pass.
  const app = await startApp(t, { env: { DOCUMENT_IMAGES_BASE_MB: '0' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(12), 'Long.pdf');
  const failed = await documentOf(http, id);
  assert.equal(failed.status, 'failed');
  assert.match(
    failed.error ?? '',
    /^Its pages would take more than 0\.\d MB as images \(the same large picture drawn on many pages, say\), so it is not shown page by page$/,
  );
  assert.ok(failed.rendered! < 12, `${failed.rendered} pages drawn before the budget ran out`);
  const { visitor, manifest } = await viewing(app, id);
  assert.equal((await manifest()).status, 'failed');
  assert.equal((await visitor.get(`/v/${id}`)).status, 200, 'the link still answers');

  // A page ten times as tall as wide, asked for 1600 px wide, would be 16 000 px tall: it is drawn at 6 megapixels.
  const roomy = await startApp(t);
  const owner = await roomy.createAccount('professional');
  const tall = await createLink(owner.http, await makePdf(1, { height: 5950 }), 'Banner.pdf');
  assert.equal((await documentOf(owner.http, tall)).status, 'ready');
  const [page] = (await (await viewing(roomy, tall)).manifest()).pages;
  assert.ok(page!.width * page!.height <= 6_000_000, `${page!.width} × ${page!.height}`);
  assert.ok(Math.abs(page!.height / page!.width - 10) < 0.05, `its proportions kept: ${page!.width} × ${page!.height}`);
});

test("one account's many documents are drawn in turn with another account's: the other's one is not kept waiting behind them", async (t) => {
  const app = await startApp(t, { env: { JOB_CONCURRENCY: '1' } });
  const busy = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const long = await makePdf(30);
  const many: string[] = [];
  for (let n = 1; n <= 3; n++) many.push(await createLink(busy.http, long, `Report ${n}.pdf`));
  const one = await createLink(other.http, await makePdf(1), 'Memo.pdf');
  assert.equal((await documentOf(other.http, one)).status, 'ready');
  // The busy account's third document waits its turn behind the other account's, drawn second.
  assert.equal((await documentOf(busy.http, many[2]!, () => true)).status, 'processing');
  for (const id of many) assert.equal((await documentOf(busy.http, id)).status, 'ready');
});

test('a page that takes too long to draw ends its document failed with the page named; the link still answers', async (t) => {
  const app = await startApp(t, { env: { PAGE_DRAW_TIMEOUT_SECONDS: '1' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makeSlowPdf(3, 2), 'Plan.pdf');
  // Page 1 was drawn before page 2 ran out of time; its image stays counted.
  assert.deepEqual(await documentOf(http, id), { status: 'failed', pages: 3, rendered: 1, error: 'Page 2 took longer than 1 s to draw' });
  const { visitor, manifest } = await viewing(app, id);
  assert.equal((await manifest()).status, 'failed');
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);
  const fine = await createLink(http, await makePdf(2), 'Fine.pdf');
  assert.deepEqual(await documentOf(http, fine), { status: 'ready', pages: 2, rendered: 2, error: null }, 'the next document is drawn');
});

test('a PDF longer than MAX_DOCUMENT_PAGES ends failed before a page is drawn, is not stamped for download, and the link still answers', async (t) => {
  const app = await startApp(t, { env: { MAX_DOCUMENT_PAGES: '4' } });
  const { http } = await app.createAccount('professional');
  const long = await createLink(http, await makePdf(5), 'Long.pdf', { hasWatermark: '1', allowDownload: '1' });
  assert.deepEqual(await documentOf(http, long), {
    status: 'failed',
    pages: 5,
    rendered: 0,
    error: 'This document has 5 pages; this server shows documents of at most 4 pages (MAX_DOCUMENT_PAGES)',
  });
  const { visitor, manifest } = await viewing(app, long);
  const shown = await manifest();
  assert.equal(shown.status, 'failed');
  assert.deepEqual(shown.pages, [], 'no page is drawn for a visitor either');
  const download = await visitor.get(`/v/${long}/download`);
  assert.equal(download.status, 422, 'a stamped copy would hold every page in memory');
  assert.match(download.text, /at most 4 pages/);
  assert.notEqual(download.headers.get('content-type'), 'application/pdf');

  const short = await createLink(http, await makePdf(4), 'Short.pdf', { hasWatermark: '1', allowDownload: '1' });
  assert.deepEqual(await documentOf(http, short), { status: 'ready', pages: 4, rendered: 4, error: null });
  const { visitor: reader } = await viewing(app, short);
  const stamped = await reader.get(`/v/${short}/download`);
  assert.equal(stamped.status, 200);
  assert.equal(stamped.headers.get('content-type'), 'application/pdf');
});

test(
  'a conversion that runs out of time ends its document failed at once: the same file is not converted again',
  { skip: !WITH_LIBREOFFICE && 'LibreOffice is not installed' },
  async (t) => {
    const app = await startApp(t, { env: { ...WITH_LIBREOFFICE, CONVERT_TIMEOUT_SECONDS: '5' } });
    const { http } = await app.createAccount('professional');
    // About 1 500 pages of text: LibreOffice takes far longer than five seconds over it.
    const lines = Array.from({ length: 100_000 }, (_, n) => `Line ${n} of a long plain-text report, kept for the record.`).join('\n');
    const id = await createLink(http, lines, 'Log.txt');
    assert.deepEqual(await documentOf(http, id), { status: 'failed', pages: null, rendered: 0, error: 'Converting the file took too long' });
    const [job] = await listJobs(app.runtime.database.db, { kind: DOCUMENT_JOB });
    assert.deepEqual([job!.status, job!.attempts], ['failed', 1]);
  },
);

test(
  'Office files made by other producers convert to the right pages, their text in the pages',
  { skip: !WITH_LIBREOFFICE && 'LibreOffice is not installed' },
  async (t) => {
    const app = await startApp(t, { env: WITH_LIBREOFFICE });
    const { http } = await app.createAccount('professional');
    const cases = [
      { name: 'three-pages.docx', pages: 3, text: /Page two/ },
      { name: 'five-slides.pptx', pages: 5, text: /Slide 2/ },
      { name: 'two-sheets.xlsx', pages: 2, text: /Quarterly revenue/ },
    ];
    const ids = await Promise.all(cases.map(async (entry) => createLink(http, await fixture(entry.name), entry.name)));
    for (const [index, entry] of cases.entries()) {
      const document = await documentOf(http, ids[index]!);
      assert.deepEqual(document, { status: 'ready', pages: entry.pages, rendered: entry.pages, error: null }, entry.name);
      const { manifest } = await viewing(app, ids[index]!);
      const texts = (await manifest()).pages.map((page) => page.text).join('\n');
      assert.match(texts, entry.text, entry.name);
    }
    const corrupt = await createLink(http, await fixture('corrupt.docx'), 'corrupt.docx');
    const failed = await documentOf(http, corrupt);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /LibreOffice could not convert/);
    assert.equal((await new VisitorClient(app.url).get(`/v/${corrupt}`)).status, 200, 'the link still answers');
  },
);

test(
  "an Office file that links a picture on the server's disk is drawn without it: LibreOffice loads nothing a document only links to",
  { skip: !WITH_LIBREOFFICE && 'LibreOffice is not installed' },
  async (t) => {
    // The file the fixtures link to (see make-linked.py): a red square anyone could recognise in a page.
    const linked = '/tmp/linkvault-linked-picture.png';
    await sharp({ create: { width: 200, height: 200, channels: 3, background: { r: 255, g: 0, b: 0 } } })
      .png()
      .toFile(linked);
    t.after(() => rm(linked, { force: true }));
    const app = await startApp(t, { env: WITH_LIBREOFFICE });
    const { http } = await app.createAccount('professional');
    for (const name of ['linked-picture.odt', 'linked-picture.docx']) {
      const id = await createLink(http, await fixture(name), name);
      assert.deepEqual(await documentOf(http, id), { status: 'ready', pages: 1, rendered: 1, error: null }, name);
      const { visitor, manifest } = await viewing(app, id);
      const [page] = (await manifest()).pages;
      assert.match(page!.text ?? '', /Image below[\s\S]*After/, `${name}: converted, with its own text`);
      const image = await visitor.get(page!.imageUrl);
      assert.equal(image.status, 200);
      const { data, info } = await sharp(image.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      let red = 0;
      for (let at = 0; at < data.length; at += info.channels) if (data[at]! > 200 && data[at + 1]! < 60 && data[at + 2]! < 60) red++;
      assert.equal(red, 0, `${name}: the linked picture is not in the page`);
    }
  },
);

test('without LibreOffice an Office upload still succeeds; its document says why it is not shown', async (t) => {
  const app = await startApp(t, { env: { SOFFICE_PATH: '/nonexistent/soffice' } });
  assert.deepEqual(await (await fetch(`${app.url}/readyz`)).json(), { ok: true, missing: ['converter'] }, 'ready, with the converter missing');
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await fixture('three-pages.docx'), 'three-pages.docx', { allowDownload: '1' });
  const document = await documentOf(http, id);
  assert.equal(document.status, 'failed');
  assert.match(document.error ?? '', /need LibreOffice/);
  const { visitor, manifest } = await viewing(app, id);
  assert.equal((await manifest()).status, 'failed');
  const download = await visitor.get(`/v/${id}/download`);
  assert.equal(download.status, 200, 'what the link allows is still offered');
  assert.deepEqual(download.bytes, await fixture('three-pages.docx'));
});
