import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import sharp from 'sharp';
import { startApp } from '../../../test/helpers/app.js';
import { createLink } from '../../../test/helpers/files.js';
import type { HttpClient } from '../../../test/helpers/http.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

const SLACK = { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' };

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();

function imageForm(bytes: Buffer, field = 'image', type = 'image/png'): FormData {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type }), 'picture');
  return form;
}

/** The content of `<meta property|name="key">` in the page, or undefined. */
function meta(html: string, key: string): string | undefined {
  return new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)">`).exec(html)?.[1];
}

/** The page at `path` asked with other request headers (a Host of its own), as a reverse proxy might pass them: fetch() sends no Host of ours. */
const pageWithHeaders = (baseUrl: string, path: string, headers: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    http
      .get(`${baseUrl}${path}`, { headers: { ...SLACK, ...headers } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      })
      .on('error', reject);
  });

const viewsOf = async (http: HttpClient, id: string): Promise<number> => (await http.get(`/api/links/${id}`)).body.views;

test('link previews: unfurling apps get the card (title, description, picture) and open no view; people get the same tags', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'numbers', 'q3.txt', {
    previewTitle: 'Q3 results <for the board>',
    previewDescription: 'Revenue, margins\\nand the plan for Q4',
    addPassword: '1',
    password: 'open sesame',
  });
  const set = await http.put(`/api/links/${id}/preview-image`, imageForm(await png(2400, 1260)));
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.equal(set.body.settings.hasPreviewImage, true);
  assert.equal(set.body.settings.previewTitle, 'Q3 results <for the board>');

  const bot = new VisitorClient(app.url, SLACK);
  const card = await bot.get(`/v/${id}`);
  assert.equal(card.status, 200);
  assert.equal(meta(card.text, 'og:title'), 'Q3 results &lt;for the board&gt;');
  assert.equal(meta(card.text, 'og:description'), 'Revenue, margins\\nand the plan for Q4');
  const publicUrl = app.runtime.config.publicUrl;
  assert.equal(meta(card.text, 'og:url'), `${publicUrl}/v/${id}`);
  assert.equal(meta(card.text, 'twitter:card'), 'summary_large_image');
  assert.doesNotMatch(card.text, /action="[^"]*\/password"/, 'the card, not the gate');
  assert.equal(meta(card.text, 'og:image'), `${publicUrl}/v/${id}/preview.png`);
  const image = await fetch(`${app.url}/v/${id}/preview.png`);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/png');
  const { width, height } = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
  assert.deepEqual([width, height], [1200, 630], 'scaled to 1200 px a side at most');

  // A person's page carries the same tags; only the bot opened no view.
  const person = await new VisitorClient(app.url).get(`/v/${id}`);
  assert.equal(meta(person.text, 'og:title'), 'Q3 results &lt;for the board&gt;');
  const open = await createLink(http, 'open', 'Open deck.txt');
  await new VisitorClient(app.url, SLACK).get(`/v/${open}`);
  assert.equal(await viewsOf(http, open), 0, 'an unfurl is not a view');
  const plain = await new VisitorClient(app.url).get(`/v/${open}`);
  assert.equal(await viewsOf(http, open), 1);
  assert.equal(meta(plain.text, 'og:title'), 'Open deck.txt', 'the name by default');
  assert.equal(meta(plain.text, 'twitter:card'), 'summary');
  assert.equal(meta(plain.text, 'og:image'), undefined);
  assert.equal((await fetch(`${app.url}/v/${open}/preview.png`)).status, 404);

  assert.equal((await http.delete(`/api/links/${id}/preview-image`)).status, 200);
  assert.equal((await fetch(`${app.url}/v/${id}/preview.png`)).status, 404);
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.hasPreviewImage, false);
});

test("crawlers, programs that name themselves, a request naming no agent and a browser's prefetch get the card: they spend no view of a link of one", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'once', 'once.txt', { maxViews: '1' });
  const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
  const unattended: Array<Record<string, string>> = [
    { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
    { 'user-agent': 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)' },
    { 'user-agent': 'Mozilla/5.0 (compatible; Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/))' },
    { 'user-agent': 'http.rb/5.1.1 (Mastodon/4.2.0; +https://mastodon.social/)' },
    { 'user-agent': 'curl/8.5.0' },
    { 'user-agent': '' },
    { 'user-agent': browser, 'sec-purpose': 'prefetch' },
    { 'user-agent': browser, purpose: 'prefetch' },
  ];
  for (const headers of unattended) {
    const card = await new VisitorClient(app.url, headers).get(`/v/${id}`);
    assert.equal(card.status, 200, JSON.stringify(headers));
  }
  assert.equal(await viewsOf(http, id), 0, 'none of them is a view');
  assert.equal((await new VisitorClient(app.url, { 'user-agent': browser }).get(`/v/${id}`)).status, 200, 'the person it was sent to');
  assert.equal(await viewsOf(http, id), 1);
});

test("a card's URLs are where the account's links live, whatever Host or X-Forwarded-Host the request names", async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http: owner } = await app.createAccount('professional');
  const id = await createLink(owner, 'numbers', 'q3.txt');
  await owner.put(`/api/links/${id}/preview-image`, imageForm(await png(120, 63)));
  const publicUrl = app.runtime.config.publicUrl;
  const forged: Array<Record<string, string>> = [{ host: 'evil.example' }, { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }];
  for (const headers of forged) {
    const card = await pageWithHeaders(app.url, `/v/${id}`, headers);
    assert.equal(meta(card, 'og:url'), `${publicUrl}/v/${id}`, JSON.stringify(headers));
    assert.equal(meta(card, 'og:image'), `${publicUrl}/v/${id}/preview.png`, JSON.stringify(headers));
  }
});

test('preview settings are checked: texts on one line and bounded, pictures PNG/JPEG/WebP of 2 MB at most', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'x.txt');
  assert.equal((await http.patch(`/api/links/${id}`, { previewTitle: 'x'.repeat(201) })).status, 400);
  assert.equal((await http.patch(`/api/links/${id}`, { previewTitle: '  Line one\nline two  ' })).body.settings.previewTitle, 'Line one line two');
  assert.equal((await http.patch(`/api/links/${id}`, { previewTitle: '   ' })).body.settings.previewTitle, null);
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const refusedSvg = await http.put(`/api/links/${id}/preview-image`, imageForm(svg, 'image', 'image/svg+xml'));
  assert.equal(refusedSvg.status, 422);
  assert.match(refusedSvg.body.error, /PNG, JPEG or WebP/);
  assert.equal((await http.put(`/api/links/${id}/preview-image`, imageForm(Buffer.alloc(2 * 1024 * 1024 + 10)))).status, 413);
  // 25.5 megapixels of one colour compress to a few kilobytes: refused before anything is decoded.
  const vast = await http.put(`/api/links/${id}/preview-image`, imageForm(await png(5100, 5000)));
  assert.equal(vast.status, 422);
  assert.equal(vast.body.error, 'The preview image is 5100 × 5000 pixels; it may have at most 25 megapixels: make it smaller and upload it again');
  assert.equal((await http.put(`/api/links/${id}/preview-image`, imageForm(await png(10, 10), 'logo'))).status, 400);
  assert.equal((await http.put(`/api/links/${id}/preview-image`, { image: 'x' })).status, 400);
});
