/**
 * Upload throughput: a 100 MiB random file sent by curl (`-F file=@…`, multipart) to
 * `POST /api/upload` of the real app (child process `node bin/linkvault.js serve`, embedded
 * SQLite, local blobs: parse, check, encrypt + hash, write, fsync, insert)
 * against its floor, a bare Node http server in a child process piping the same request
 * (the same curl command, the same multipart bytes, written raw, unparsed) to a file.
 * One warm-up upload each, then BENCH_ROUNDS (5) alternating pairs; the ratio is the
 * median of the rounds' ratios. The server's RSS is sampled from /proc every 20 ms
 * during each upload. Budgets: ratio >= 0.6 and RSS growth during an upload < 64 MB.
 *
 *   npm run bench -- upload
 *   BENCH_ROUNDS=9 npm run bench -- upload
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatValue, measureRss, printResult, runBench, sampleRss } from './lib/harness.js';
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
const RATIO_BUDGET = 0.6;
const RSS_BUDGET_MB = 64;
const RSS_SAMPLE_MS = 20;

interface Upload {
  seconds: number;
  mbPerSecond: number;
  /** peak RSS during the upload minus RSS just before it, KiB */
  rssGrowthKiB: number;
  rssBeforeKiB: number;
  cpuSeconds: number;
}

runBench(async () => {
  const work = makeTempDir('linkvault-bench-upload-');
  const source = path.join(work, 'random.dat');
  writeRandomFile(source, FILE_BYTES);
  const floorDir = path.join(work, 'floor');
  fs.mkdirSync(floorDir);

  const linkvault = await startLinkvaultProcess();
  let floor: FloorProcess | undefined;
  try {
    floor = await startFloorProcess({ mode: 'upload', dir: floorDir });
    const auth = `authorization: Bearer ${linkvault.apiKey}`;
    // `Expect:` off: curl would otherwise wait for "100 Continue" before a large body.
    const curlUpload = (url: string) =>
      runCurl(['-H', 'Expect:', '-H', auth, '-F', `file=@${source};filename=random.dat;type=application/octet-stream`, '--max-time', '120', url]);

    async function measured(pid: number, send: () => ReturnType<typeof runCurl>) {
      const rssBeforeKiB = measureRss(pid).rssKiB;
      const cpuBefore = processCpuSeconds(pid);
      const sampler = sampleRss(pid, RSS_SAMPLE_MS);
      let result: Awaited<ReturnType<typeof runCurl>>;
      let peakKiB: number;
      try {
        result = await send();
      } finally {
        peakKiB = sampler.stop();
      }
      const upload: Upload = {
        seconds: result.seconds,
        mbPerSecond: FILE_BYTES / MB / result.seconds,
        rssGrowthKiB: Math.max(0, peakKiB - rssBeforeKiB),
        rssBeforeKiB,
        cpuSeconds: processCpuSeconds(pid) - cpuBefore,
      };
      return { result, upload };
    }

    async function uploadToApp(): Promise<Upload> {
      const { result, upload } = await measured(linkvault.pid, () => curlUpload(`${linkvault.url}/api/upload`));
      if (result.status !== 200)
        throw new Error(`POST /api/upload answered ${result.status}: ${result.body.slice(0, 300)}\n${linkvault.recentOutput()}`);
      const { id } = JSON.parse(result.body) as { id: string };
      if (result.uploaded < FILE_BYTES) throw new Error(`curl sent ${result.uploaded} bytes, fewer than the file`);
      // Untimed: the link and its blob go, so rounds do not fill the disk.
      const removed = await fetch(`${linkvault.url}/api/links/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${linkvault.apiKey}` } });
      if (removed.status !== 200) throw new Error(`DELETE /api/links/${id} answered ${removed.status}: ${await removed.text()}`);
      return upload;
    }

    const floorFsyncMs: number[] = [];
    async function uploadToFloor(): Promise<Upload> {
      const { result, upload } = await measured(floor!.pid, () => curlUpload(`${floor!.url}/`));
      const { bytes } = JSON.parse(result.body) as { bytes: number };
      if (result.status !== 200 || bytes !== result.uploaded) throw new Error(`the floor answered ${result.status}: ${result.body}`);
      // Untimed: fsync (the app does it before answering; this says what that costs here) and remove.
      const synced = await fetch(`${floor!.url}/sync`, { method: 'POST' });
      floorFsyncMs.push(((await synced.json()) as { fsyncMs: number }).fsyncMs);
      return upload;
    }

    const coldApp = await uploadToApp();
    const coldFloor = await uploadToFloor();
    floorFsyncMs.length = 0;

    const appRuns: Upload[] = [];
    const floorRuns: Upload[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let app: Upload;
      let bare: Upload;
      if (round % 2 === 0) {
        bare = await uploadToFloor();
        app = await uploadToApp();
      } else {
        app = await uploadToApp();
        bare = await uploadToFloor();
      }
      appRuns.push(app);
      floorRuns.push(bare);
      ratios.push(app.mbPerSecond / bare.mbPerSecond);
    }

    const ratio = median(ratios);
    const appMBps = median(appRuns.map((run) => run.mbPerSecond));
    const floorMBps = median(floorRuns.map((run) => run.mbPerSecond));
    const mib = (kib: number) => kib / 1024;
    const worstGrowthKiB = Math.max(coldApp.rssGrowthKiB, ...appRuns.map((run) => run.rssGrowthKiB));
    const fsyncMs = median(floorFsyncMs);
    const floorWithFsync = median(floorRuns.map((run, index) => FILE_BYTES / MB / (run.seconds + (floorFsyncMs[index] ?? 0) / 1000)));

    printResult('upload-100mb', appMBps, 'MB/s', ratio, 'bare req.pipe(fs)', [
      `100 MiB random file, curl -F (multipart) from its own process to 127.0.0.1; MB = 10^6 bytes; values are medians of ${ROUNDS} rounds`,
      `floor: bare node:http in a child process, the same curl multipart body piped raw (unparsed) to a file, no fsync; median ${formatValue(floorMBps)} MB/s`,
      ...ratios.map(
        (r, i) =>
          `round ${i + 1}: ${formatValue(appRuns[i]!.mbPerSecond)} vs ${formatValue(floorRuns[i]!.mbPerSecond)} MB/s = ${r.toFixed(2)}x ` +
          `(server CPU ${appRuns[i]!.cpuSeconds.toFixed(2)} vs ${floorRuns[i]!.cpuSeconds.toFixed(2)} s)`,
      ),
      `cold first upload: linkvault ${formatValue(coldApp.mbPerSecond)} MB/s, floor ${formatValue(coldFloor.mbPerSecond)} MB/s`,
      `server CPU per upload (all threads, median): linkvault ${median(appRuns.map((run) => run.cpuSeconds)).toFixed(2)} s, ` +
        `floor ${median(floorRuns.map((run) => run.cpuSeconds)).toFixed(2)} s`,
      `server RSS growth during an upload: linkvault cold ${formatValue(mib(coldApp.rssGrowthKiB))} MiB (from ${formatValue(mib(coldApp.rssBeforeKiB))} MiB), ` +
        `warm max ${formatValue(mib(Math.max(...appRuns.map((run) => run.rssGrowthKiB))))} MiB; ` +
        `floor max ${formatValue(mib(Math.max(coldFloor.rssGrowthKiB, ...floorRuns.map((run) => run.rssGrowthKiB))))} MiB`,
      `the app fsyncs its blob before answering, the floor does not: fsync of the floor's 100 MiB took median ${formatValue(fsyncMs)} ms; ` +
        `floor + that fsync ${formatValue(floorWithFsync)} MB/s (linkvault ${(appMBps / floorWithFsync).toFixed(2)}x of it)`,
    ]);

    const ratioOk = ratio >= RATIO_BUDGET;
    const rssOk = mib(worstGrowthKiB) < RSS_BUDGET_MB;
    console.log(
      `budget: >= ${RATIO_BUDGET} of bare req.pipe(fs) (measured ${ratio.toFixed(2)}) ${ratioOk ? 'ok' : 'MISSED'}; ` +
        `server RSS growth < ${RSS_BUDGET_MB} MiB (measured ${formatValue(mib(worstGrowthKiB))} MiB, worst upload incl. cold) ${rssOk ? 'ok' : 'MISSED'}`,
    );
    if ((!ratioOk || !rssOk) && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    await floor?.close();
    await linkvault.close();
    removeTempDir(work);
  }
});
