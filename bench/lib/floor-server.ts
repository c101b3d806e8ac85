/**
 * The bare floors of the file benchmarks, run as a child process (see startFloorProcess in
 * files.ts): the same I/O as the app with none of its work. The parent passes the mode as
 * JSON in argv[2] and gets `{ url }` over IPC once listening on 127.0.0.1:0. The process
 * exits when the parent goes away.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FloorMode } from './files.js';

const floor = JSON.parse(process.argv[2] ?? '{}') as FloorMode;
process.on('disconnect', () => process.exit(0));

function announce(address: AddressInfo | string | null): void {
  process.send!({ url: `http://127.0.0.1:${(address as AddressInfo).port}` });
}

function uploadFloor(dir: string): http.Server {
  let count = 0;
  let last: { file: string; fd: number } | undefined;
  return http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/sync') {
      // Outside the timed upload: makes the last file durable (as the app does before it
      // answers), reports how long that took, and removes it so rounds do not pile up.
      req.resume();
      const started = process.hrtime.bigint();
      let fsyncMs = 0;
      if (last) {
        fs.fsyncSync(last.fd);
        fsyncMs = Number(process.hrtime.bigint() - started) / 1e6;
        fs.closeSync(last.fd);
        fs.rmSync(last.file, { force: true });
        last = undefined;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ fsyncMs }));
      return;
    }
    if (req.method !== 'POST') {
      res.statusCode = 405;
      res.end();
      return;
    }
    // The bare floor: the request body, as received (multipart framing and all), to a file.
    const file = path.join(dir, `upload-${++count}`);
    const fd = fs.openSync(file, 'w', 0o600);
    const out = fs.createWriteStream(file, { fd, autoClose: false });
    req.pipe(out);
    out.once('finish', () => {
      if (last) {
        fs.closeSync(last.fd);
        fs.rmSync(last.file, { force: true });
      }
      last = { file, fd };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ bytes: out.bytesWritten }));
    });
    out.once('error', (error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
}

function downloadFloor(file: string, highWaterMark?: number): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    const { size } = fs.statSync(file);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
    fs.createReadStream(file, { highWaterMark }).pipe(res);
  });
}

switch (floor.mode) {
  case 'upload': {
    const server = uploadFloor(floor.dir);
    server.listen(0, '127.0.0.1', () => announce(server.address()));
    break;
  }
  case 'download': {
    const server = downloadFloor(floor.file, floor.highWaterMark);
    server.listen(0, '127.0.0.1', () => announce(server.address()));
    break;
  }
  case 'json': {
    const body: unknown = JSON.parse(fs.readFileSync(floor.file, 'utf8'));
    const app = Fastify({ logger: false });
    app.get(floor.route, async () => body);
    await app.listen({ host: '127.0.0.1', port: 0 });
    announce(app.server.address());
    break;
  }
  default:
    throw new Error(`unknown floor ${JSON.stringify(floor)}`);
}
