import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/linkvault.js');
/** The CLI runs src/ through tsx, never a dist/ build that may predate the code under test. */
const FROM_SOURCE = { LINKVAULT_FROM_SOURCE: '1' };

/** Processes this test file started and that still run. */
const running = new Set<ChildProcess>();

function tracked<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

const killRunning = () => {
  for (const child of running) child.kill('SIGKILL');
};
// The test runner stops a file past its time bound with SIGTERM, which skips every t.after: the
// servers and commands it started go with it instead of living on as orphans.
process.once('exit', killRunning);
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  process.once(signal, () => {
    killRunning();
    process.exit(code);
  });
}

/** Runs `node <args>` to completion, with `env` over this process's environment; killed (code null) after `timeoutMs` when given. */
export function runNode(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
  timeoutMs?: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = tracked(spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, timeout: timeoutMs, killSignal: 'SIGKILL' }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI (from source) to completion, or until it is killed after `timeoutMs`. */
export const runCli = (args: string[], env: Record<string, string>, timeoutMs?: number) =>
  runNode([CLI, ...args], { ...env, ...FROM_SOURCE }, undefined, timeoutMs);

/** Starts `linkvault serve` (or `node ...args`) in a child process and resolves once it listens. Killed after the test. */
export async function startServerProcess(t: TestContext, env: Record<string, string>, args = [CLI, 'serve'], logLevel = 'info') {
  const child: ChildProcessWithoutNullStreams = tracked(
    spawn(process.execPath, args, {
      env: { ...process.env, ...env, LOG_LEVEL: logLevel, ...FROM_SOURCE },
    }),
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // Everything the server writes, kept from its first byte, so a line logged right after another is never missed.
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));

  /** The first match of `pattern` in what the server wrote, waiting for it up to `timeoutMs`. */
  function waitForOutput(pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (!match) return;
        stop();
        resolve(match);
      };
      const onExit = (code: number | null) => {
        stop();
        reject(new Error(`server exited with ${code}: ${output}`));
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no ${pattern} in the server's output within ${timeoutMs} ms: ${output}`));
      }, timeoutMs);
      const stop = () => {
        clearTimeout(timer);
        child.stdout.off('data', check);
        child.stderr.off('data', check);
        child.off('exit', onExit);
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.on('exit', onExit);
      check();
    });
  }

  const [, url] = await waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return { child, url: url!, exited, waitForOutput };
}
