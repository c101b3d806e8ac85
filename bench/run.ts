/**
 * npm run bench [-- name ...]
 *
 * Runs every bench/*.ts (sorted; run.ts itself and bench/lib/ are not benchmarks), or only
 * those named (`api` or `api.ts`), one after another, each in its own Node process so no
 * benchmark inherits another's heap, JIT state or open handles. Output streams through.
 * Exits non-zero if a benchmark fails or a name is unknown.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '..');
const tsxLoader = import.meta.resolve('tsx');

const available = fs
  .readdirSync(benchDir, { withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && entry.name !== 'run.ts')
  .map((entry) => entry.name.slice(0, -'.ts'.length))
  .sort();

const requested = process.argv.slice(2).map((arg) => path.basename(arg).replace(/\.ts$/, ''));
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`bench: no benchmark named ${unknown.join(', ')}; available: ${available.join(', ') || '(none)'}`);
  process.exit(2);
}
const selected = requested.length > 0 ? available.filter((name) => requested.includes(name)) : available;
if (selected.length === 0) {
  console.error('bench: no benchmarks found in bench/');
  process.exit(2);
}

function runOne(name: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, path.join(benchDir, `${name}.ts`)], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    child.once('error', (error) => {
      console.error(`bench ${name}: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

const failed: string[] = [];
for (const name of selected) {
  console.log(`# bench ${name}`);
  const started = Date.now();
  const code = await runOne(name);
  console.log(`# bench ${name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`bench: failed: ${failed.join(', ')}`);
  process.exit(1);
}
