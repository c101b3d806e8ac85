import { createHash, randomBytes } from 'node:crypto';
import type { HttpClient, HttpResponse } from './http.js';

export const sha256 = (data: Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A multipart form with `file` and the given fields, in the order given (fields first unless `fileFirst`). */
export function uploadForm(content: Buffer | string, fileName: string, fields: Record<string, string> = {}, fileFirst = false): FormData {
  const form = new FormData();
  const addFile = () => form.append('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), fileName);
  if (fileFirst) addFile();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (!fileFirst) addFile();
  return form;
}

export async function uploadFile(
  http: HttpClient,
  content: Buffer | string = randomBytes(1000),
  fileName = 'notes.txt',
  fields: Record<string, string> = {},
): Promise<HttpResponse> {
  return http.post('/api/upload', uploadForm(content, fileName, fields));
}

/** Uploads and returns the new link id, failing loudly if the upload did not succeed. */
export async function createLink(http: HttpClient, content?: Buffer | string, fileName?: string, fields?: Record<string, string>): Promise<string> {
  const response = await uploadFile(http, content, fileName, fields);
  if (response.status !== 200) throw new Error(`upload failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id;
}

/** A download token for the link, good for `uses` downloads. */
export async function downloadToken(http: HttpClient, linkId: string, uses = 10): Promise<string> {
  const response = await http.post(`/api/links/${linkId}/download-tokens`, { uses });
  if (response.status !== 200) throw new Error(`token failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.token;
}

/** Which of the link's hourly limits the account's recent activity says were reached, one entry per time. */
export async function limitsReached(http: HttpClient, linkId: string): Promise<string[]> {
  const activity = (await http.get('/api/analytics/global')).body.recentActivity as Array<{ type: string; linkId: string; limit?: string }>;
  return activity.filter((event) => event.type === 'link.limit_reached' && event.linkId === linkId).map((event) => event.limit ?? '');
}

export async function downloadOriginal(baseUrl: string, linkId: string, token: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/api/links/${linkId}/download-original?token=${encodeURIComponent(token)}`, { headers });
  return { response, body: Buffer.from(await response.arrayBuffer()) };
}

/** Every file under a directory, recursively (relative paths). */
export async function listFiles(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => `${entry.parentPath ?? entry.path}/${entry.name}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Starts a multipart upload that announces `declaredBytes`, sends `sentBytes` of the file,
 * then drops the connection, as a client that goes away mid-upload would.
 */
export async function abortUploadMidway(baseUrl: string, apiKey: string, declaredBytes: number, sentBytes: number): Promise<void> {
  const { request } = await import('node:http');
  const { randomBytes } = await import('node:crypto');
  const boundary = 'linkvault-abort-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.dat"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  await new Promise<void>((resolve) => {
    const upload = request(`${baseUrl}/api/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + declaredBytes),
      },
    });
    upload.on('error', () => resolve());
    upload.write(head);
    upload.write(randomBytes(sentBytes), () =>
      setTimeout(() => {
        upload.destroy();
        resolve();
      }, 300),
    );
  });
}
