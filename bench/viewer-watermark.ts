/**
 * Watermark cost: producing the marked copy of a 50-page PDF for one visitor
 * (`preparePdf` with a stamp: load, stamp every page, save) against serving it unmarked
 * (copying the stored bytes into the response buffer), both measured in this run.
 * Medians over BENCH_RUNS runs after 3 warm-ups; the first, cold call (font read and
 * parse, JIT) is printed apart. Budget: watermarking adds < 300 ms.
 *
 *   npm run bench -- viewer-watermark
 *   BENCH_RUNS=40 npm run bench -- viewer-watermark
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { formatValue, printResult, runBench } from './lib/harness.js';
import { preparePdf, type WatermarkStamp } from '../src/modules/documents/watermark/index.js';

const BUDGET_MS = 300;
const PAGES = 50;
const RUNS = Number(process.env.BENCH_RUNS || 15);
const WARMUP_RUNS = 3;

const stamp: WatermarkStamp = { identity: 'zoë.müller@example.com', at: new Date(), viewId: '7F3K9Q' };

/** A text-heavy deck: 45 lines a page, a few KB of content stream per page. */
async function makeDeck(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Quarterly review — page ${n}`, { x: 40, y: 800, size: 18, font });
    for (let line = 0; line < 45; line++) {
      const figures = `${(n * 37 + line * 11) % 97}% against plan, ${(n * line) % 1000} units, ref ${n}-${line}`;
      page.drawText(`Line ${line + 1}: revenue in region ${line % 7} grew ${figures}`, { x: 40, y: 770 - line * 16, size: 10, font });
    }
  }
  return doc.save();
}

async function timeMs(work: () => unknown): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function medianMs(work: () => unknown): Promise<{ median: number; min: number; max: number }> {
  for (let run = 0; run < WARMUP_RUNS; run++) await work();
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) samples.push(await timeMs(work));
  samples.sort((a, b) => a - b);
  const middle = samples.length >> 1;
  const median = samples.length % 2 === 1 ? samples[middle]! : (samples[middle - 1]! + samples[middle]!) / 2;
  return { median, min: samples[0]!, max: samples[samples.length - 1]! };
}

runBench(async () => {
  const original = await makeDeck(PAGES);

  const coldMs = await timeMs(() => preparePdf(original, { stamp }));
  const unmarked = await medianMs(() => Buffer.from(original));
  let markedSize = 0;
  const marked = await medianMs(async () => {
    markedSize = (await preparePdf(original, { stamp })).bytes.length;
  });
  const preview = await medianMs(() => preparePdf(original, { stamp, previewPages: 5 }));

  const addedMs = marked.median - unmarked.median;
  printResult('viewer-watermark', addedMs, `ms added for ${PAGES} pages`, marked.median / Math.max(unmarked.median, 1e-6), 'unmarked', [
    `marked: median ${formatValue(marked.median)} ms (min ${formatValue(marked.min)}, max ${formatValue(marked.max)}) over ${RUNS} runs; ` +
      `cold first call ${formatValue(coldMs)} ms`,
    `unmarked: median ${unmarked.median.toFixed(3)} ms (copy of ${(original.length / 1024).toFixed(0)} KiB)`,
    `marked copy: ${(markedSize / 1024).toFixed(0)} KiB; marked 5-page preview of the same deck: median ${formatValue(preview.median)} ms`,
  ]);
  // printBudget checks ratios from below; this budget is an upper bound in ms.
  const ok = addedMs < BUDGET_MS;
  console.log(`budget: < ${BUDGET_MS} ms added (measured ${formatValue(addedMs)}) ${ok ? 'ok' : 'MISSED'}`);
  if (!ok && process.env.BENCH_STRICT === '1') process.exitCode = 1;
});
