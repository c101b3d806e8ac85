import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'FAIL';
  message: string;
}

/** A peer on loopback that accepts every connection and never sends a byte; closed, with its connections, after the test. */
async function silentPeer(t: { after(fn: () => unknown): void }): Promise<number> {
  const held = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

test('doctor: a PostgreSQL, S3 or SMTP peer that accepts and never answers fails its check within the bound, and the doctor exits 1', async (t) => {
  const env = await testEnv(t, {}, { migrated: true });
  const port = await silentPeer(t);
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    [
      'database',
      { DATABASE_URL: `postgres://linkvault@127.0.0.1:${port}/linkvault` },
      /^postgres does not answer: .*(did not answer within 10 s|timeout)/i,
    ],
    [
      'storage',
      {
        STORAGE_URL: `s3://linkvault-doctor?endpoint=http://127.0.0.1:${port}&forcePathStyle=true`,
        AWS_ACCESS_KEY_ID: 'doctor',
        AWS_SECRET_ACCESS_KEY: 'doctor-secret',
      },
      /s3:\/\/linkvault-doctor: .*(did not answer within 10 s|timeout)/i,
    ],
    [
      'smtp',
      { SMTP_URL: `smtp://127.0.0.1:${port}` },
      /^SMTP server 127\.0\.0\.1:\d+: .*(greeting never received|did not answer within 10 s|timeout)/i,
    ],
  ];
  // Each run is a process of its own: they wait side by side. A doctor still running after a minute hangs, and is killed.
  const runs = await Promise.all(cases.map(([, silent]) => runCli(['doctor', '--json'], { ...env, ...silent }, 60_000)));
  for (const [index, [name, silent, message]] of cases.entries()) {
    const run = runs[index]!;
    assert.equal(run.code, 1, `${JSON.stringify(silent)} (null: killed after a minute): ${run.stdout}${run.stderr}`);
    const checks = (JSON.parse(run.stdout) as { checks: Check[] }).checks;
    const failed = checks.filter((check) => check.status === 'FAIL');
    assert.deepEqual(
      failed.map((check) => check.check),
      [name],
      `only the silent peer's check fails: ${JSON.stringify(checks)}`,
    );
    assert.match(failed[0]!.message, message);
  }
});
