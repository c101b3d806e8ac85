/**
 * Crash safety under kill -9: builds the server (`npm run build`, into a scratch folder), then BENCH_ROUNDS (100) times
 * starts `node dist/main.js serve` over one DATA_DIR (embedded SQLite, local disk), sends an
 * upload (80 %: a new link; 20 %: a replacement of one link's file, `PUT /api/links/{id}/file`)
 * of 5-40 MB (a seeded PRNG: BENCH_SEED, default 17) and kills the server with SIGKILL at a
 * seeded point: mid-body, as the new blob lands (between a durable blob and its committed row),
 * or just after the whole body. Last, the blobs are aged past the orphan sweep's grace, `node
 * dist/main.js sweep` runs, and a last server is audited: rows without a blob, orphan blobs,
 * files downloaded intact (SHA-256 of what was sent under that name and of the row), SQLite's
 * integrity check, temp files left, and the temp area's peak while the rounds ran (sampled every
 * 20 ms, and before each restart, when a killed upload's temp file is at its largest).
 * Budget (issue "Reliability", item 3): 0 rows without blob, 0 orphans after the sweep.
 *
 *   npm run bench -- crash
 *   BENCH_ROUNDS=20 npm run bench -- crash
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTempDir, removeTempDir, stopChild } from './lib/files.js';
import { REPO_ROOT, TSX_EXEC_ARGV, formatValue, runBench } from './lib/harness.js';
import { ageBlobs, auditAfterCrash, folderBytes, killDuringUpload, seededBytes, seededRandom } from '../test/helpers/crash.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 100);
const SEED = Number(process.env.BENCH_SEED || 17);
const MIB = 1024 * 1024;

/**
 * `npm run build` into a scratch folder beside the repo's node_modules, as dist/ sits in the repo:
 * another `npm run build` in this working tree empties dist/, which would stop a run of minutes.
 */
async function buildScratch(): Promise<{ dir: string; main: string }> {
  const dir = makeTempDir('linkvault-bench-crash-build-');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await run([...TSX_EXEC_ARGV, path.join(REPO_ROOT, 'scripts/build.ts'), path.join(dir, 'dist')], process.env);
  return { dir, main: path.join(dir, 'dist/main.js') };
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<unknown>;
}

/** `node dist/main.js serve` on 127.0.0.1:0; resolves with the URL it logs. */
async function serve(main: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, [main, 'serve'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "Server listening at" within 60 s: ${output.slice(-2000)}`)), 60_000);
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output = (output + text).slice(-8000);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (output = (output + text).slice(-8000)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output.slice(-2000)}`));
    });
  });
  // Read to the end: a full pipe would block the server's logger.
  child.stdout!.resume();
  return { url, child, exited };
}

runBench(async () => {
  const buildStarted = performance.now();
  const build = await buildScratch();
  const MAIN = build.main;
  const buildMs = performance.now() - buildStarted;

  const dataDir = makeTempDir('linkvault-bench-crash-');
  const blobsDir = path.join(dataDir, 'blobs');
  const tmpDir = path.join(blobsDir, '.tmp');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  };
  let server: Server | undefined;
  try {
    const { apiKey } = JSON.parse(await run([MAIN, 'accounts', 'create', '--email', 'crash@example.com', '--plan', 'professional'], env)) as {
      apiKey: string;
    };
    const random = seededRandom(SEED);
    const sent = new Map<string, string>();
    const fileOf = (name: string) => {
      const content = seededBytes(`${SEED}:${name}`, Math.round((5 + 35 * random()) * MIB));
      sent.set(name, createHash('sha256').update(content).digest('hex'));
      return content;
    };

    server = await serve(MAIN, env);
    const base = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([fileOf('base.dat')]), 'base.dat');
        return form;
      })(),
    });
    if (!base.ok) throw new Error(`the base upload failed: ${base.status} ${await base.text()}`);
    const replaced = ((await base.json()) as { id: string }).id;

    let peakTempBytes = 0;
    const sampler = setInterval(() => {
      void folderBytes(tmpDir).then((bytes) => (peakTempBytes = Math.max(peakTempBytes, bytes)));
    }, 20);
    const started = performance.now();
    const outcomes = { answered: 0, cut: 0 };
    const killModes = { midBody: 0, asStored: 0, afterBody: 0 };
    // 80 % new links, 20 % replacements, in a seeded order.
    const replacements = new Set<number>();
    while (replacements.size < Math.round(ROUNDS / 5)) replacements.add(Math.floor(random() * ROUNDS));
    for (let round = 0; round < ROUNDS; round++) {
      const fileName = `round-${round}.dat`;
      const content = fileOf(fileName);
      const where = random();
      let killAfter: number | 'stored';
      if (where < 0.5) {
        killAfter = Math.floor(random() * content.length);
        killModes.midBody++;
      } else if (where < 0.8) {
        killAfter = 'stored';
        killModes.asStored++;
      } else {
        killAfter = Number.MAX_SAFE_INTEGER;
        killModes.afterBody++;
      }
      const result = await killDuringUpload(server, {
        apiKey,
        fileName,
        content,
        blobsDir,
        killAfter,
        // After the whole body: from at once to long enough for some uploads to be answered.
        graceMs: Math.floor(random() * 600),
        replace: replacements.has(round) ? replaced : undefined,
      });
      if (result.status === undefined) outcomes.cut++;
      else outcomes.answered++;
      peakTempBytes = Math.max(peakTempBytes, await folderBytes(tmpDir));
      server = await serve(MAIN, env);
    }
    clearInterval(sampler);
    const roundsMs = performance.now() - started;

    // As an hour later: the sweep judges every blob.
    await ageBlobs(blobsDir, 2 * 3_600_000);
    const sweepOutput = await run([MAIN, 'sweep'], env);
    const swept = JSON.parse(sweepOutput.split('\n').find((line) => line.startsWith('{"orphanBlobs"')) ?? '{}') as { orphanBlobs?: number };
    const audit = await auditAfterCrash(env as Record<string, string>, { url: server.url, apiKey }, sent);

    console.log(
      `crash: ${ROUNDS} kill -9 rounds (${ROUNDS - replacements.size} new, ${replacements.size} replacements, 5-40 MB, seed ${SEED}) in ${formatValue(roundsMs / 1000)} s`,
    );
    console.log(
      `  kill points: ${killModes.midBody} mid-body, ${killModes.asStored} as the blob landed, ${killModes.afterBody} after the whole body`,
    );
    console.log(`  requests answered before the kill: ${outcomes.answered}; cut: ${outcomes.cut}`);
    console.log(`  rows without blob: ${audit.rowsWithoutBlob.length}`);
    console.log(`  orphan blobs after sweep: ${audit.orphanBlobs.length} (the sweep deleted ${swept.orphanBlobs ?? '?'})`);
    console.log(
      `  files downloaded intact: ${audit.downloadedIntact} of ${audit.links}${audit.damaged.length ? ` (damaged: ${audit.damaged.join(', ')})` : ''}`,
    );
    console.log(`  integrity check: ${audit.integrity}`);
    console.log(`  temp files left: ${audit.tempFiles.length}`);
    console.log(`  temp area peak: ${formatValue(peakTempBytes / MIB)} MiB`);
    console.log(`  build took ${formatValue(buildMs / 1000)} s`);
    const ok = audit.rowsWithoutBlob.length === 0 && audit.orphanBlobs.length === 0 && audit.damaged.length === 0 && audit.integrity === 'ok';
    console.log(`budget: 0 rows without blob, 0 orphans after the sweep, all intact, integrity ok ${ok ? 'ok' : 'MISSED'}`);
    if (!ok) process.exitCode = 1;
  } finally {
    if (server) await stopChild(server.child);
    // Let the last server's file handles go before the folder does.
    await sleep(100);
    removeTempDir(dataDir);
    removeTempDir(build.dir);
  }
});
