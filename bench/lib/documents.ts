/**
 * What the document benchmarks share: uploading a file to the real server (a child process),
 * waiting for its pages, and a visitor's session. Every wait is bounded.
 */
import { uploadForm } from '../../test/helpers/files.js';
import { VisitorClient } from '../../test/helpers/visitor.js';
import { sleep } from '../../test/helpers/wait.js';
import type { LinkvaultProcess } from './files.js';
import { timedGet } from './timed-get.js';

/** Uploads `content` as a new link; resolves with its id once the upload has answered. */
export async function upload(server: LinkvaultProcess, content: Buffer, name: string, fields: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${server.url}/api/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.apiKey}` },
    body: uploadForm(content, name, fields),
  });
  const body = (await response.json()) as { id?: string; error?: string };
  if (!response.ok || !body.id) throw new Error(`upload of ${name} answered ${response.status}: ${body.error}`);
  return body.id;
}

interface DocumentState {
  status: string;
  pages: number | null;
  error: string | null;
}

async function documentOf(server: LinkvaultProcess, id: string): Promise<DocumentState> {
  const response = await fetch(`${server.url}/api/links/${id}`, { headers: { authorization: `Bearer ${server.apiKey}` } });
  return ((await response.json()) as { document: DocumentState }).document;
}

/** The link's document status now: none, processing, ready or failed. */
export const documentStatus = async (server: LinkvaultProcess, id: string) => (await documentOf(server, id)).status;

/** Polls the link's `document` every `everyMs` until it is no longer processing; fails past `timeoutMs`. */
export async function documentReady(server: LinkvaultProcess, id: string, timeoutMs = 600_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const document = await documentOf(server, id);
    if (document.status === 'ready') return document;
    if (document.status !== 'processing') throw new Error(`document ${id} ended ${document.status}: ${document.error}`);
    if (Date.now() > deadline) throw new Error(`document ${id} not ready within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** A visitor holding a view session of the (ungated) link. */
export async function openVisit(server: LinkvaultProcess, id: string): Promise<VisitorClient> {
  const visitor = new VisitorClient(server.url);
  const page = await visitor.get(`/v/${id}`);
  if (page.status !== 200) throw new Error(`/v/${id} answered ${page.status}`);
  return visitor;
}

/** Milliseconds one GET of the visitor's takes (with their cookies), failing on anything but 200. */
export function timedVisitorGet(visitor: VisitorClient, path: string): Promise<number> {
  return timedGet(visitor.baseUrl + path, visitor.headersFor(path));
}
