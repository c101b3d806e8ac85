/**
 * Office documents to pages: the PPTX and DOCX fixtures uploaded to the real server (a child
 * process with this machine's LibreOffice), timed from the upload's answer to the document
 * ready (converted, every page drawn); printed as pages per second. The floor is LibreOffice
 * alone converting the same file on the command line, in this run. BENCH_ROUNDS (3) each.
 * Then the PPTX once more, uploaded while a 300-page PDF is being drawn (one document job at a
 * time, the default): its time against its own time alone.
 *
 *   npm run bench -- conversion
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { findSoffice } from '../src/infra/convert/locate-soffice.js';
import { makePdf } from '../test/helpers/pdf.js';
import { sleep } from '../test/helpers/wait.js';
import { documentReady, documentStatus, upload } from './lib/documents.js';
import { makeTempDir, median, removeTempDir, startLinkvaultProcess } from './lib/files.js';
import { REPO_ROOT, formatValue, printResult, runBench } from './lib/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const FIXTURES = ['five-slides.pptx', 'three-pages.docx'];

runBench(async () => {
  const soffice = findSoffice(process.env.SOFFICE_PATH, process.env.PATH);
  if (!soffice) {
    console.log('conversion: skipped, LibreOffice (soffice) is not installed');
    return;
  }
  const server = await startLinkvaultProcess({ account: { plan: 'professional' }, env: { SOFFICE_PATH: soffice } });
  const work = makeTempDir('linkvault-bench-conversion-');
  try {
    const aloneSeconds = new Map<string, number>();
    for (const name of FIXTURES) {
      const file = path.join(REPO_ROOT, 'test', 'fixtures', 'documents', name);
      const content = fs.readFileSync(file);
      const appSeconds: number[] = [];
      const bareSeconds: number[] = [];
      let pages = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        const id = await upload(server, content, name);
        pages = (await documentReady(server, id, 300_000, 50)).pages ?? 0;
        appSeconds.push((performance.now() - started) / 1000);

        const bareStarted = performance.now();
        await promisify(execFile)(
          soffice,
          [
            '--headless',
            `-env:UserInstallation=file://${work}/profile-${round}`,
            '--convert-to',
            'pdf',
            '--outdir',
            path.join(work, `out-${round}`),
            file,
          ],
          { timeout: 120_000 },
        );
        bareSeconds.push((performance.now() - bareStarted) / 1000);
      }
      const app = median(appSeconds);
      aloneSeconds.set(name, app);
      printResult(
        `conversion ${name}`,
        pages / app,
        'pages/s, upload to every page drawn',
        app / median(bareSeconds),
        'soffice --convert-to pdf alone',
        [`${pages} pages in ${appSeconds.map(formatValue).join(', ')} s; soffice alone ${bareSeconds.map(formatValue).join(', ')} s`],
      );
    }

    const [name] = FIXTURES as [string];
    const long = await upload(server, await makePdf(300), 'long.pdf');
    await sleep(2_000); // its job is drawing pages
    const started = performance.now();
    const id = await upload(server, fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'documents', name)), name);
    await documentReady(server, id, 300_000, 50);
    const behind = (performance.now() - started) / 1000;
    const longStatus = await documentStatus(server, long);
    printResult(`conversion ${name} behind a 300-page PDF`, behind, 's, upload to every page drawn', behind / aloneSeconds.get(name)!, 'alone', [
      `the 300-page PDF was still ${longStatus} then`,
    ]);
  } finally {
    removeTempDir(work);
    await server.close();
  }
});
