/**
 * How soon a visitor sees page 1: from the upload's answer to page 1's image of a 300-page PDF,
 * against the same for a 3-page PDF, measured in this run (the real server in a child process,
 * embedded SQLite). The visitor polls the page list every 20 ms as the viewer would, then fetches
 * the image. One warm-up, then BENCH_ROUNDS (3) alternating pairs; the ratio is the median of
 * the rounds' ratios. Budget: ratio <= 1.5.
 *
 *   npm run bench -- document-first-page
 */
import { makePdf } from '../test/helpers/pdf.js';
import { sleep } from '../test/helpers/wait.js';
import { openVisit, timedVisitorGet, upload } from './lib/documents.js';
import { median, startLinkvaultProcess, type LinkvaultProcess } from './lib/files.js';
import { formatValue, printResult, runBench } from './lib/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const BUDGET = 1.5;

async function toFirstPage(server: LinkvaultProcess, pdf: Buffer, name: string): Promise<number> {
  const id = await upload(server, pdf, name);
  const started = performance.now();
  const visitor = await openVisit(server, id);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const list = JSON.parse((await visitor.get(`/v/${id}/pages.json`)).text) as { pages: { number: number; imageUrl: string }[] };
    const first = list.pages.find((page) => page.number === 1);
    if (first) {
      await timedVisitorGet(visitor, first.imageUrl);
      return performance.now() - started;
    }
    if (Date.now() > deadline) throw new Error(`page 1 of ${name} not shown within 120 s`);
    await sleep(20);
  }
}

runBench(async () => {
  const [long, short] = await Promise.all([makePdf(300), makePdf(3)]);
  const server = await startLinkvaultProcess({ account: { plan: 'professional' } });
  try {
    await toFirstPage(server, short, 'warm-up.pdf');
    const longMs: number[] = [];
    const shortMs: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      shortMs.push(await toFirstPage(server, short, `short-${round}.pdf`));
      longMs.push(await toFirstPage(server, long, `long-${round}.pdf`));
      ratios.push(longMs.at(-1)! / shortMs.at(-1)!);
      // The long one's other 299 pages are still being drawn: let them finish before the next pair.
      await sleep(1000);
    }
    const ratio = median(ratios);
    printResult('document-first-page', median(longMs), 'ms from upload to page 1 of 300 pages', ratio, '3-page PDF', [
      `300 pages: ${longMs.map(formatValue).join(', ')} ms; 3 pages: ${shortMs.map(formatValue).join(', ')} ms`,
    ]);
    const ok = ratio <= BUDGET;
    console.log(`budget: <= ${BUDGET} ratio (measured ${ratio.toFixed(2)}) ${ok ? 'ok' : 'MISSED'}`);
    if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    await server.close();
  }
});
