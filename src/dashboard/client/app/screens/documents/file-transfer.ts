import { api, ApiError, ok } from '../../api/client.js';
import { t } from '../../i18n/index.js';

/** The session's CSRF token, read as the API client reads it (GET /api/me): an XMLHttpRequest does not pass through that client. */
export async function csrfToken(): Promise<string | null> {
  return (await ok(api.GET('/api/me'))).csrfToken;
}

export interface TransferProgress {
  loaded: number;
  total: number;
}

/** A file on its way to the API, which can be cancelled. */
export interface FileTransfer<T> {
  done: Promise<T>;
  cancel: () => void;
}

/** Thrown when the person cancelled the transfer (not an error to show as one). */
export class TransferCancelled extends Error {}

const errorOf = (request: XMLHttpRequest): ApiError => {
  let sentence: string | undefined;
  try {
    const body = JSON.parse(request.responseText) as { error?: unknown };
    if (typeof body.error === 'string' && body.error !== '') sentence = body.error;
  } catch {
    sentence = undefined;
  }
  return new ApiError(request.status, sentence ?? t('documents.transfer.failed'));
};

/**
 * Sends `file` as the multipart field "file", after `fields` (the API reads fields sent before
 * the file, so a template applies before the bytes arrive). XMLHttpRequest because fetch and
 * openapi-fetch report no upload progress.
 */
export function sendFile<T>(options: {
  method: 'POST' | 'PUT';
  url: string;
  file: File;
  fields?: Record<string, string>;
  onProgress: (progress: TransferProgress) => void;
}): FileTransfer<T> {
  const request = new XMLHttpRequest();
  let cancelled = false;
  const done = (async () => {
    const token = await csrfToken();
    if (cancelled) throw new TransferCancelled();
    const form = new FormData();
    for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
    form.append('file', options.file, options.file.name);
    return new Promise<T>((resolve, reject) => {
      request.open(options.method, options.url);
      if (token) request.setRequestHeader('x-csrf-token', token);
      request.upload.addEventListener('progress', (event) => options.onProgress({ loaded: event.loaded, total: event.total || options.file.size }));
      request.addEventListener('load', () => {
        if (request.status >= 200 && request.status < 300) resolve(JSON.parse(request.responseText) as T);
        else reject(errorOf(request));
      });
      request.addEventListener('error', () => reject(new ApiError(0, t('documents.transfer.unreachable'))));
      request.addEventListener('abort', () => reject(new TransferCancelled()));
      request.send(form);
    });
  })();
  return {
    done,
    cancel: () => {
      cancelled = true;
      request.abort();
    },
  };
}
