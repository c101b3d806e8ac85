/**
 * The cost of the mark in the pixels: a page image stamped for a visit (the first request of
 * each new visit, so the visit's mark is drawn too) against the same page served clean from
 * storage (decrypted, already rendered), both p50 over BENCH_RUNS (20) requests on the real
 * server in a child process. The second page of a visit (mark already drawn) is printed too.
 * Budget: stamped <= 2x clean.
 *
 *   npm run bench -- page-watermark
 */
import { makePdf } from '../test/helpers/pdf.js';
import { documentReady, openVisit, timedVisitorGet, upload } from './lib/documents.js';
import { median, percentile, startLinkvaultProcess } from './lib/files.js';
import { formatValue, printResult, runBench } from './lib/harness.js';

const RUNS = Number(process.env.BENCH_RUNS || 20);
const BUDGET = 2;

runBench(async () => {
  const pdf = await makePdf(4);
  const server = await startLinkvaultProcess({ account: { plan: 'professional' } });
  try {
    const clean = await upload(server, pdf, 'clean.pdf');
    const marked = await upload(server, pdf, 'marked.pdf', { hasWatermark: '1' });
    await Promise.all([documentReady(server, clean), documentReady(server, marked)]);

    const reader = await openVisit(server, clean);
    for (let warm = 0; warm < 3; warm++) await timedVisitorGet(reader, `/v/${clean}/pages/1`);
    const cleanMs: number[] = [];
    for (let run = 0; run < RUNS; run++) cleanMs.push(await timedVisitorGet(reader, `/v/${clean}/pages/1`));

    await timedVisitorGet(await openVisit(server, marked), `/v/${marked}/pages/1`); // sharp and the font load once
    const firstMs: number[] = [];
    const nextMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const visitor = await openVisit(server, marked);
      firstMs.push(await timedVisitorGet(visitor, `/v/${marked}/pages/1`));
      nextMs.push(await timedVisitorGet(visitor, `/v/${marked}/pages/2`));
    }
    const ratio = median(firstMs) / median(cleanMs);
    printResult('page-watermark', median(firstMs), 'ms p50, first stamped page of a visit', ratio, 'clean page from storage', [
      `clean: p50 ${formatValue(median(cleanMs))} ms, p95 ${formatValue(percentile(cleanMs, 95))} ms`,
      `stamped, first of a visit: p95 ${formatValue(percentile(firstMs, 95))} ms; next page of the visit: p50 ${formatValue(median(nextMs))} ms`,
    ]);
    const ok = ratio <= BUDGET;
    console.log(`budget: <= ${BUDGET} ratio (measured ${ratio.toFixed(2)}) ${ok ? 'ok' : 'MISSED'}`);
    if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    await server.close();
  }
});
