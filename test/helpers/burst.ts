import net from 'node:net';

export interface BurstRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface BurstAnswer {
  status: number;
  head: string;
  text: string;
}

/**
 * Requests that reach the server at the same moment: each on its own connection, written whole
 * but for its last byte, and those last bytes sent together once every connection holds the rest.
 * `fetch` calls started together arrive milliseconds apart and are served one after another, so
 * they cannot show a race between a read and a write.
 */
export async function burst(baseUrl: string, requests: BurstRequest[], timeoutMs = 30_000): Promise<BurstAnswer[]> {
  const { hostname, port, host } = new URL(baseUrl);
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(Number(port), hostname, () => resolve(socket));
          socket.setNoDelay(true);
          socket.once('error', reject);
        }),
    ),
  );
  const answers = sockets.map(
    (socket) =>
      new Promise<BurstAnswer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('error', reject);
        socket.once('close', () => {
          clearTimeout(timer);
          const raw = Buffer.concat(chunks).toString('utf8');
          const split = raw.indexOf('\r\n\r\n');
          const head = split < 0 ? raw : raw.slice(0, split);
          resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, text: split < 0 ? '' : raw.slice(split + 4) });
        });
      }),
  );
  const lastBytes = requests.map((request, index) => {
    // A browser's name, as the requests of the tests that burst are a visitor's (no agent at all is no person to the viewer).
    const headers: Record<string, string> = { host, connection: 'close', 'user-agent': 'Mozilla/5.0 (linkvault tests)', ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    const whole = Buffer.concat([
      Buffer.from(`${request.method} ${request.path} HTTP/1.1\r\n${lines.join('')}\r\n`),
      Buffer.from(request.body ?? ''),
    ]);
    sockets[index]!.write(whole.subarray(0, -1));
    return whole.subarray(-1);
  });
  // Long enough for the server to have read every head; the request stays unfinished until its last byte.
  await new Promise((resolve) => setTimeout(resolve, 200));
  sockets.forEach((socket, index) => socket.write(lastBytes[index]!));
  return Promise.all(answers);
}
