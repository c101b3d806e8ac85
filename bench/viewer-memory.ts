/**
 * Memory and latency under many watermarked visitors: a 200-page PDF of about 95 MB (a noisy
 * photo on every page, the worst case for image size) is drawn, then BENCH_VISITORS (20)
 * visitors page through it at once, each its own visit, every BENCH_STRIDE-th (5th) page, so
 * each page they receive is stamped for them. The server's RSS growth over its idle RSS after
 * drawing, and each page's latency, are measured; the floor is the idle RSS itself.
 * Budget: growth < 300 MB, p95 per page < 1 s.
 *
 *   npm run bench -- viewer-memory
 */
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { documentReady, openVisit, timedVisitorGet, upload } from './lib/documents.js';
import { median, percentile, startLinkvaultProcess } from './lib/files.js';
import { formatValue, measureRss, printResult, runBench, sampleRss } from './lib/harness.js';

const PAGES = 200;
const VISITORS = Number(process.env.BENCH_VISITORS || 20);
const STRIDE = Number(process.env.BENCH_STRIDE || 5);

/** 200 pages, each a distinct noisy JPEG of about 470 KB. */
async function heavyPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let n = 0; n < PAGES; n++) {
    const jpeg = await sharp({
      create: { width: 760, height: 760, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 + (n % 7) } },
    })
      .jpeg({ quality: 88 })
      .toBuffer();
    const image = await doc.embedJpg(jpeg);
    doc.addPage([595, 842]).drawImage(image, { x: 20, y: 100, width: 555, height: 555 });
  }
  return Buffer.from(await doc.save());
}

runBench(async () => {
  const pdf = await heavyPdf();
  const server = await startLinkvaultProcess({ account: { plan: 'professional' } });
  try {
    const drawStarted = performance.now();
    const id = await upload(server, pdf, 'heavy.pdf', { hasWatermark: '1' });
    await documentReady(server, id, 900_000, 500);
    const drawSeconds = (performance.now() - drawStarted) / 1000;
    const idle = measureRss(server.pid).rssKiB;
    const peak = sampleRss(server.pid);
    const latencies: number[] = [];
    const clientCpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: VISITORS }, async (_, visitorIndex) => {
        const visitor = await openVisit(server, id);
        for (let page = 1 + (visitorIndex % STRIDE); page <= PAGES; page += STRIDE)
          latencies.push(await timedVisitorGet(visitor, `/v/${id}/pages/${page}`));
      }),
    );
    const { user, system } = process.cpuUsage(clientCpu);
    const growthMb = (peak.stop() - idle) / 1024;
    const p95 = percentile(latencies, 95);
    printResult(
      'viewer-memory',
      growthMb,
      `MB RSS growth, ${VISITORS} watermarked visitors`,
      (idle / 1024 + growthMb) / (idle / 1024),
      'idle RSS after drawing',
      [
        `${(pdf.length / 1024 / 1024).toFixed(0)} MiB PDF of ${PAGES} pages drawn in ${formatValue(drawSeconds)} s; idle RSS ${formatValue(idle / 1024)} MiB`,
        `${latencies.length} stamped pages: p50 ${formatValue(median(latencies))} ms, p95 ${formatValue(p95)} ms, max ${formatValue(Math.max(...latencies))} ms`,
        `the visitors' own CPU (this process, on the server's machine): ${formatValue((user + system) / 1e6)} s`,
      ],
    );
    const ok = growthMb < 300 && p95 < 1000;
    console.log(`budget: < 300 MB growth and p95 < 1000 ms (measured ${formatValue(growthMb)} MB, ${formatValue(p95)} ms) ${ok ? 'ok' : 'MISSED'}`);
    if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    await server.close();
  }
});
