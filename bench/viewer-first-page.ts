/**
 * A visitor's first page in the browser: from the navigation to /v/{id} until the viewer shows
 * page 1, in Debian's Chromium (a new browser context per visit: cold cache, new view), for a
 * 12-page PDF with a watermark against the same PDF without one, p50 over BENCH_RUNS (15) visits
 * each after 2 warm-ups. Printed beside it, for each: when page 1 was asked for and received
 * (the page preloads it while the viewer's script loads) and its request's own time (what the
 * server spent stamping it shows there). No budget: the issue's budget on a stamped page is
 * `page-watermark`'s.
 *
 *   npm run bench -- viewer-first-page
 */
import type { Browser } from 'playwright-core';
import { launchChromium } from '../test/helpers/browser.js';
import { makePdf } from '../test/helpers/pdf.js';
import { documentReady, upload } from './lib/documents.js';
import { median, startLinkvaultProcess, type LinkvaultProcess } from './lib/files.js';
import { formatValue, printResult, runBench } from './lib/harness.js';

const RUNS = Number(process.env.BENCH_RUNS || 15);
const WARMUPS = 2;
const PAGES = 12;

interface FirstPage {
  /** navigation start to page 1 asked for */
  askedMs: number;
  /** navigation start to page 1's last byte */
  arrivedMs: number;
  /** navigation start to page 1 drawn in the viewer */
  shownMs: number;
  /** page 1's request, first byte sent to last byte received */
  requestMs: number;
}

/** One visit in a fresh context: when the browser asked for page 1, received it, and the viewer showed it. */
async function visit(browser: Browser, server: LinkvaultProcess, id: string): Promise<FirstPage> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/v/${id}`, { waitUntil: 'commit' });
    // Checked at each frame until the viewer's first page has loaded. The bench is compiled without
    // the DOM's types; a function rather than a string, which the viewer's CSP would refuse to evaluate.
    const shown = await page.waitForFunction(
      () => {
        const dom = globalThis as any;
        const image = dom.document.querySelector('.viewer-page-image');
        return image?.complete && image.naturalWidth > 0 && (dom.performance.now() as number);
      },
      undefined,
      { polling: 'raf', timeout: 60_000 },
    );
    const timing = await page.evaluate((pattern) => {
      const dom = globalThis as any;
      const image = dom.performance.getEntriesByType('resource').find((entry: any) => new RegExp(pattern).test(entry.name));
      return {
        askedMs: image.requestStart as number,
        arrivedMs: image.responseEnd as number,
        requestMs: (image.responseEnd - image.requestStart) as number,
      };
    }, `/v/${id}/pages/1\\?`);
    return { ...timing, shownMs: (await shown.jsonValue()) as number };
  } finally {
    await context.close();
  }
}

runBench(async () => {
  const pdf = await makePdf(PAGES);
  const server = await startLinkvaultProcess({ account: { plan: 'professional' } });
  const browser = await launchChromium();
  try {
    const clean = await upload(server, pdf, 'clean.pdf');
    const marked = await upload(server, pdf, 'marked.pdf', { hasWatermark: '1' });
    await Promise.all([documentReady(server, clean), documentReady(server, marked)]);
    for (let warm = 0; warm < WARMUPS; warm++) await Promise.all([visit(browser, server, clean), visit(browser, server, marked)]);

    const runs = { clean: [] as FirstPage[], marked: [] as FirstPage[] };
    for (let run = 0; run < RUNS; run++) {
      runs.clean.push(await visit(browser, server, clean));
      runs.marked.push(await visit(browser, server, marked));
    }
    const p50 = (of: FirstPage[], part: keyof FirstPage) => median(of.map((timing) => timing[part]));
    printResult(
      'viewer-first-page',
      p50(runs.marked, 'shownMs'),
      'ms p50, navigation to page 1 shown, watermarked',
      p50(runs.marked, 'shownMs') / p50(runs.clean, 'shownMs'),
      'the same without a watermark',
      (['clean', 'marked'] as const).map(
        (kind) =>
          `${kind === 'marked' ? 'watermarked' : 'without a watermark'}: page 1 asked for at ${formatValue(p50(runs[kind], 'askedMs'))} ms, ` +
          `received at ${formatValue(p50(runs[kind], 'arrivedMs'))} ms (its request ${formatValue(p50(runs[kind], 'requestMs'))} ms), ` +
          `shown at ${formatValue(p50(runs[kind], 'shownMs'))} ms`,
      ),
    );
  } finally {
    await browser.close();
    await server.close();
  }
});
