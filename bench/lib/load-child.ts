/**
 * The load generator, in a process of its own so that it never competes with the server
 * for the event loop: the parent forks it, sends one set of autocannon options, and gets
 * the result back over IPC. See autocannonRun() in harness.ts.
 */
import autocannon, { type AutocannonOptions } from 'autocannon';

process.once('message', (options: AutocannonOptions) => {
  autocannon(options).then(
    (result) => process.send!({ ok: true, result }, () => process.exit(0)),
    (error: unknown) =>
      process.send!({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () => process.exit(1)),
  );
});
