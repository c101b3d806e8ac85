import type { FastifyInstance } from 'fastify';
import type { Runtime } from './runtime.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How the server stops on SIGTERM or SIGINT: first it drains (`/readyz` answers 503 while every
 * request is still served, so a balancer moves new work elsewhere), then it closes keep-alive
 * connections between requests (idle ones at once, busy ones with `Connection: close` on their
 * answer, so no request is refused on a reused connection) and the listener, lets requests in
 * flight finish within the grace period, cuts those still open after it
 * (a warning: the client retries, temporary data is removed), stops background work and closes
 * the database, and exits 0. A second signal, or a fault of ours, exits at once with 1.
 */
export function stopGracefully(app: FastifyInstance, runtime: Runtime): void {
  const { shutdownDrainSeconds, shutdownGraceSeconds } = runtime.config;
  const log = app.log;
  let stopping = false;

  async function stop(signal: string): Promise<void> {
    log.info({ signal, drainSeconds: shutdownDrainSeconds, graceSeconds: shutdownGraceSeconds }, 'shutting down: draining');
    runtime.readiness.draining = true;
    await sleep(shutdownDrainSeconds * 1000);
    runtime.readiness.closing = true;
    app.server.closeIdleConnections();
    const cut = setTimeout(() => {
      log.warn({ graceSeconds: shutdownGraceSeconds }, 'shutdown grace period over: cutting the requests still in flight');
      app.server.closeAllConnections();
    }, shutdownGraceSeconds * 1000);
    try {
      await app.close();
    } finally {
      clearTimeout(cut);
    }
    await runtime.close();
  }

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const onFault = (err: unknown) => {
    log.fatal({ err }, 'uncaught fault: exiting');
    process.exit(1);
  };
  process.on('uncaughtException', onFault);
  process.on('unhandledRejection', onFault);
}
