import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface ReceivedHook {
  path: string;
  body: any;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedHook[];
  /** Resolves once `count` requests have arrived; fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
}

/** A chat service stand-in on loopback; `status(n)` answers the n-th request (from 1). */
export async function startReceiver(t: TestContext, status: (n: number) => number = () => 200, port = 0): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: JSON.parse(body) });
      response.writeHead(status(received.length), { 'content-type': 'text/plain' }).end('ok');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    waitFor(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} webhook requests, got ${received.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
