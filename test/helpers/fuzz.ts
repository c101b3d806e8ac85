import net from 'node:net';
import { pino } from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/** A small seeded PRNG (mulberry32): the same seed gives the same requests, whatever the timing. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Request `index`'s own generator: each request is reproducible on its own from (seed, index). */
  static forRequest(seed: number, index: number): Rng {
    return new Rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i += 1) out[i] = this.int(256);
    return out;
  }

  alnum(n: number): string {
    const chars = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let out = '';
    for (let i = 0; i < n; i += 1) out += chars[this.int(chars.length)];
    return out;
  }
}

/** Byte sequences that are not UTF-8: a lone continuation, an overlong slash, a cut sequence, a surrogate, 0xFF. */
export const INVALID_UTF8: readonly Buffer[] = [
  Buffer.from([0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
];

/** `depth` nested arrays or objects: a parser or validator that recurses per level meets its stack here. */
export function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

export interface RawOutcome {
  /** the final status line's code (after any 100 Continue), when the server answered */
  status?: number;
  /** the first bytes of the answer's body, for the report */
  body: string;
  timedOut: boolean;
}

/**
 * Writes `request` on a fresh TCP connection, then: `end` half-closes (the client has nothing
 * more to send), `destroy` drops the connection after `holdMs` (the client is gone), `wait`
 * keeps it open until the server answers and closes. Resolves when the server closes, or after
 * `timeoutMs` (a hang).
 */
export function sendRaw(
  port: number,
  request: Buffer,
  options: { after: 'end' | 'destroy' | 'wait'; holdMs?: number; timeoutMs: number },
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = net.connect({ port, host: '127.0.0.1' });
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const answer = Buffer.concat(chunks)
        .toString('latin1')
        .replace(/^HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n/, '');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4, answer.indexOf('\r\n\r\n') + 304);
      resolve({ status: status === undefined ? undefined : Number(status), body, timedOut });
    };
    const timer = setTimeout(() => finish(true), options.timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.write(request, () => {
      if (options.after === 'end') socket.end();
      else if (options.after === 'destroy') setTimeout(() => finish(false), options.holdMs ?? 0);
    });
  });
}

/** One HTTP/1.1 request as bytes; `target` and header values may hold any bytes. */
export function rawRequest(method: string, target: string | Buffer, headers: [string, string | Buffer][], body: Buffer = Buffer.alloc(0)): Buffer {
  const lines: Buffer[] = [Buffer.from(`${method} `), Buffer.from(target), Buffer.from(' HTTP/1.1\r\n')];
  for (const [name, value] of headers) lines.push(Buffer.from(`${name}: `), Buffer.from(value), Buffer.from('\r\n'));
  lines.push(Buffer.from('\r\n'), body);
  return Buffer.concat(lines);
}

export interface LogEntry {
  level: number;
  msg?: string;
  reqId?: string;
  err?: { type?: string; message?: string; code?: string };
  [key: string]: unknown;
}

/** Keeps every line the app logs (and writes none): the fuzz asserts what reached the error level. */
export function captureLog(log: FastifyBaseLogger): LogEntry[] {
  const entries: LogEntry[] = [];
  const stream = (log as unknown as Record<symbol, { write: (line: string) => boolean }>)[pino.symbols.streamSym]!;
  stream.write = (line: string) => {
    entries.push(JSON.parse(line) as LogEntry);
    return true;
  };
  return entries;
}
