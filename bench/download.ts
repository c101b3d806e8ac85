/**
 * Download throughput: `GET /api/links/{id}/download-original?token=…` of a 100 MiB random
 * file (read from the local blob store and decrypted, AES-256-GCM per 64 KiB segment) on
 * the real app (child process `node bin/linkvault.js serve`, embedded SQLite) against its
 * floor, a bare Node http server in a child process streaming the same plaintext bytes
 * from disk (fs.createReadStream → res, in the 256 KiB reads the app's blob store makes;
 * with Node's default 64 KiB reads the bare server is slower than the app, so that one is
 * printed for reference only). The client is curl (`-o /dev/null`) in its own process.
 * The first download is checked byte for byte; then one warm-up each and
 * BENCH_ROUNDS (5) alternating pairs; the ratio is the median of the rounds' ratios.
 * Budget: ratio >= 0.6.
 *
 *   npm run bench -- download
 */
import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../src/infra/crypto/tokens.js';
import { formatValue, printBudget, printResult, runBench, sampleRss, measureRss } from './lib/harness.js';
import {
  MB,
  makeTempDir,
  median,
  processCpuSeconds,
  removeTempDir,
  runCurl,
  startFloorProcess,
  startLinkvaultProcess,
  writeRandomFile,
  type FloorProcess,
} from './lib/files.js';

const FILE_BYTES = 100 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const BUDGET = 0.6;
/** READ_HIGH_WATER_MARK of src/infra/storage/local-store.ts */
const READ_CHUNK_BYTES = 256 * 1024;

interface Download {
  mbPerSecond: number;
  cpuSeconds: number;
  rssGrowthKiB: number;
}

const sha256OfFile = (file: string) => sha256Hex(fs.readFileSync(file));

runBench(async () => {
  const work = makeTempDir('linkvault-bench-download-');
  const source = path.join(work, 'random.dat');
  writeRandomFile(source, FILE_BYTES);

  const linkvault = await startLinkvaultProcess();
  let floor: FloorProcess | undefined;
  let defaultFloor: FloorProcess | undefined;
  try {
    const authorization = `Bearer ${linkvault.apiKey}`;
    const uploaded = await runCurl([
      '-H',
      'Expect:',
      '-H',
      `authorization: ${authorization}`,
      '-F',
      `file=@${source};filename=random.dat`,
      '--max-time',
      '120',
      `${linkvault.url}/api/upload`,
    ]);
    if (uploaded.status !== 200) throw new Error(`POST /api/upload answered ${uploaded.status}: ${uploaded.body}`);
    const { id } = JSON.parse(uploaded.body) as { id: string };

    // One use per download: the check, the warm-up and every round, plus spare.
    const uses = ROUNDS + 4;
    const issued = await fetch(`${linkvault.url}/api/links/${id}/download-tokens`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ uses }),
    });
    const issuedText = await issued.text();
    if (issued.status !== 200) throw new Error(`POST download-tokens answered ${issued.status}: ${issuedText}`);
    const { token } = JSON.parse(issuedText) as { token: string };
    const appUrl = `${linkvault.url}/api/links/${id}/download-original?token=${encodeURIComponent(token)}`;

    // The floor reads in the chunks the app's local blob store reads in (256 KiB), so both do
    // the same I/O; a second, Node's default 64 KiB chunks, is printed for reference only.
    floor = await startFloorProcess({ mode: 'download', file: source, highWaterMark: READ_CHUNK_BYTES });
    defaultFloor = await startFloorProcess({ mode: 'download', file: source });
    const floorUrl = `${floor.url}/random.dat`;

    // The app must send the original bytes, not merely as many bytes.
    const copy = path.join(work, 'copy.dat');
    const checked = await runCurl(['-o', copy, '--max-time', '120', appUrl]);
    if (checked.status !== 200) throw new Error(`download-original answered ${checked.status}: ${fs.readFileSync(copy, 'utf8').slice(0, 300)}`);
    if (sha256OfFile(copy) !== sha256OfFile(source)) throw new Error('download-original sent bytes that differ from the upload');
    fs.rmSync(copy);

    async function download(url: string, pid: number): Promise<Download> {
      const rssBefore = measureRss(pid).rssKiB;
      const cpuBefore = processCpuSeconds(pid);
      const sampler = sampleRss(pid, 20);
      let result: Awaited<ReturnType<typeof runCurl>>;
      let peak: number;
      try {
        result = await runCurl(['-o', '/dev/null', '--max-time', '120', url]);
      } finally {
        peak = sampler.stop();
      }
      if (result.status !== 200 || result.downloaded !== FILE_BYTES) {
        throw new Error(`GET ${url.replace(/token=.*/, 'token=…')} answered ${result.status} with ${result.downloaded} bytes`);
      }
      return {
        mbPerSecond: FILE_BYTES / MB / result.seconds,
        cpuSeconds: processCpuSeconds(pid) - cpuBefore,
        rssGrowthKiB: Math.max(0, peak - rssBefore),
      };
    }
    const fromApp = () => download(appUrl, linkvault.pid);
    const fromFloor = () => download(floorUrl, floor!.pid);
    const fromDefaultFloor = () => download(`${defaultFloor!.url}/random.dat`, defaultFloor!.pid);

    await fromApp();
    await fromFloor();
    await fromDefaultFloor();
    const defaultFloorRuns: Download[] = [];
    const appRuns: Download[] = [];
    const floorRuns: Download[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let app: Download;
      let bare: Download;
      if (round % 2 === 0) {
        bare = await fromFloor();
        app = await fromApp();
      } else {
        app = await fromApp();
        bare = await fromFloor();
      }
      defaultFloorRuns.push(await fromDefaultFloor());
      appRuns.push(app);
      floorRuns.push(bare);
      ratios.push(app.mbPerSecond / bare.mbPerSecond);
    }

    const ratio = median(ratios);
    const appMBps = median(appRuns.map((run) => run.mbPerSecond));
    printResult('download-original', appMBps, 'MB/s', ratio, 'bare createReadStream → res', [
      `100 MiB random file, decrypted, to curl -o /dev/null in its own process over 127.0.0.1; MB = 10^6 bytes; medians of ${ROUNDS} rounds`,
      `floor: bare node:http in a child process streaming the same plaintext from disk in 256 KiB reads (as the app's blob store reads); ` +
        `median ${formatValue(median(floorRuns.map((run) => run.mbPerSecond)))} MB/s`,
      `for reference, the same bare server with Node's default 64 KiB reads: median ${formatValue(median(defaultFloorRuns.map((run) => run.mbPerSecond)))} MB/s`,
      ...ratios.map(
        (r, i) => `round ${i + 1}: ${formatValue(appRuns[i]!.mbPerSecond)} vs ${formatValue(floorRuns[i]!.mbPerSecond)} MB/s = ${r.toFixed(2)}x`,
      ),
      `server CPU per download (median): linkvault ${median(appRuns.map((run) => run.cpuSeconds)).toFixed(2)} s, floor ${median(floorRuns.map((run) => run.cpuSeconds)).toFixed(2)} s`,
      `server RSS growth during a download (max): linkvault ${formatValue(Math.max(...appRuns.map((run) => run.rssGrowthKiB)) / 1024)} MiB, ` +
        `floor ${formatValue(Math.max(...floorRuns.map((run) => run.rssGrowthKiB)) / 1024)} MiB`,
      'first download checked: SHA-256 equal to the uploaded file',
    ]);
    printBudget(ratio, BUDGET, 'of bare createReadStream → res');
  } finally {
    await defaultFloor?.close();
    await floor?.close();
    await linkvault.close();
    removeTempDir(work);
  }
});
