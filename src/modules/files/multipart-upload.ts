import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { badRequest } from '../../core/errors.js';
import type { FileIntake, StoredFile } from './file-intake.js';

export interface ReceivedUpload {
  file: StoredFile;
  /** every non-file form field, as sent */
  fields: Record<string, string>;
}

const MAX_NAME_LENGTH = 255;

/**
 * Reads a multipart form whose fields may come before or after its one `file` part,
 * streaming the file into `blobKey` as it arrives. On any failure nothing stays stored.
 */
export async function receiveUpload(request: FastifyRequest, intake: FileIntake, blobKey: string): Promise<ReceivedUpload> {
  const fields: Record<string, string> = {};
  let file: StoredFile | undefined;
  const abort = new AbortController();
  const onClose = () => {
    if (!request.raw.complete) abort.abort(new Error('the client closed the connection mid-upload'));
  };
  request.raw.once('close', onClose);
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file') throw badRequest(`multipart file part must be named "file", not "${part.fieldname}"`);
      const name = (part.filename || 'file').slice(-MAX_NAME_LENGTH);
      file = await intake.store(blobKey, name, part.file, abort.signal);
    }
  } catch (error) {
    if (file) await intake.discard(file);
    throw error;
  } finally {
    request.raw.off('close', onClose);
  }
  if (!file) throw badRequest('multipart field "file" is required');
  return { file, fields };
}
