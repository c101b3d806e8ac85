import http from 'node:http';

/**
 * Milliseconds one GET takes, its body read and dropped; fails on anything but 200. node:http
 * rather than fetch: the load generator shares the measured server's machine, and gathering
 * each body with fetch took twice the CPU (viewer-memory's 800 page images: 10.8 s against 5.1 s).
 */
export function timedGet(url: string, headers: Record<string, string> = {}, agent?: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(url, { agent, headers }, (response) => {
      response.resume();
      response.on('end', () =>
        response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${url} answered ${response.statusCode}`)),
      );
    });
    request.setTimeout(30_000, () => request.destroy(new Error(`${url} timed out`)));
    request.on('error', reject);
  });
}
