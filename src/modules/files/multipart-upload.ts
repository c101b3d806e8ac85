import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { AppError, badRequest } from '../../core/errors.js';
import type { FileIntake, StoredFile } from './file-intake.js';

// What busboy says of a body that is not well-formed multipart or ends before its closing boundary.
const MALFORMED_MULTIPART = /unexpected end of multipart data|boundary not found|malformed part header/i;

/** A client's broken multipart body is a 400, never a 500; anything else passes through unchanged. */
export function asClientError(error: unknown): unknown {
  return error instanceof Error && !(error instanceof AppError) && MALFORMED_MULTIPART.test(error.message)
    ? badRequest('The multipart body is malformed or ends early: send the whole form again')
    : error;
}

export interface ReceivedUpload {
  file: StoredFile;
  /** every non-file form field, as sent */
  fields: Record<string, string>;
}

/**
 * Reads a multipart form whose fields may come before or after its one `file` part,
 * streaming the file into `blobKey` as it arrives. Each field goes through `checkField` as it
 * arrives, so a bad field sent before the file is refused before a byte of the file is
 * stored. On any failure nothing stays stored.
 */
/**
 * The file name a multipart part was sent with. Browsers send a name's quote, CR and LF as %22,
 * %0D and %0A (the HTML standard's form encoding; a literal % is sent as it is): the quote is
 * given back, the line breaks go, as control characters do in a stored name.
 */
const sentFileName = (filename: string | undefined) => (filename || 'file').replace(/%22/g, '"').replace(/%0[ad]/gi, '');

export async function receiveUpload(
  request: FastifyRequest,
  intake: FileIntake,
  blobKey: string,
  checkField: (name: string, value: string) => void = () => {},
): Promise<ReceivedUpload> {
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
        checkField(part.fieldname, fields[part.fieldname]!);
        continue;
      }
      if (part.fieldname !== 'file') throw badRequest(`multipart file part must be named "file", not "${part.fieldname}"`);
      file = await intake.store(blobKey, sentFileName(part.filename), part.file, abort.signal);
    }
  } catch (error) {
    if (file) await intake.discard(file);
    throw asClientError(error);
  } finally {
    request.raw.off('close', onClose);
  }
  if (!file) throw badRequest('multipart field "file" is required');
  return { file, fields };
}
