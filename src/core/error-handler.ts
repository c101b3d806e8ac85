import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseFull, isDatabaseUnavailable, isForeignKeyViolation, isStatementCancelled, isUnstorableText } from '../db/executor.js';
import { StorageUnavailableError } from '../infra/storage/index.js';
import { AppError, badRequest, insufficientStorage, serviceUnavailable } from './errors.js';

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** "body field \"name\" must NOT have more than 100 characters" from ajv's first complaint. */
function describeValidation(issues: ValidationIssue[], context: string | undefined): string {
  const issue = issues[0];
  if (!issue) return 'Invalid request';
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : `${context ?? 'request'} field`;
  if (issue.keyword === 'required') return `${where} "${String(issue.params.missingProperty)}" is required`;
  if (issue.keyword === 'additionalProperties') {
    return `${where} "${String(issue.params.additionalProperty)}" is not allowed`;
  }
  const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (!field) return `${context ?? 'request'} ${issue.message ?? 'is invalid'}`;
  if (issue.keyword === 'enum') {
    const allowed = (issue.params.allowedValues as unknown[] | undefined)?.join(', ');
    return `${where} "${field}" must be one of: ${allowed}`;
  }
  return `${where} "${field}" ${issue.message ?? 'is invalid'}`;
}

/** Fastify's own client errors, mapped onto the statuses DESIGN §4 fixes. */
function statusOfFastifyError(error: FastifyError): number {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return 400;
    default:
      return error.statusCode ?? 500;
  }
}

/** Would this error be answered with a 5xx and logged as ours? */
function isOurFault(error: FastifyError | AppError | Error): boolean {
  if (error instanceof AppError) return error.status >= 500;
  const fastifyError = error as FastifyError;
  return !fastifyError.validation && statusOfFastifyError(fastifyError) >= 500;
}

/** The client closed its connection before the request body had all arrived (Node destroys the request then). */
function abandonedByClient(request: FastifyRequest): boolean {
  return !request.raw.complete && request.raw.destroyed;
}

/** A failure that is not ours: the request's text, or a dependency the client should hear about as such (and may retry). */
function knownFailure(error: Error): AppError | undefined {
  // JSON bodies are checked as they are parsed (refuseNulInJson); this catches text from anywhere else.
  if (isUnstorableText(error)) return badRequest('Text in the request must not contain the NUL character (U+0000)');
  // Services check what a request names before writing; only a delete landing in between (another
  // request of the owner's, a sweep) leaves a row pointing at nothing: what it named is gone.
  if (isForeignKeyViolation(error)) return new AppError(404, 'Not found: something this request refers to was deleted while it ran');
  if (isDatabaseUnavailable(error)) return serviceUnavailable('The database is unavailable right now; try again in a moment', 1);
  if (isStatementCancelled(error)) return serviceUnavailable('The database took too long to answer; try again in a moment', 1);
  if (error instanceof StorageUnavailableError) return serviceUnavailable('File storage cannot be reached right now; try again in a moment', 1);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || isDatabaseFull(error)) {
    return insufficientStorage("The server's storage is full: nothing was stored. Try again once space has been freed");
  }
  return undefined;
}

/**
 * One error handler and one not-found handler for the whole app: every error leaves as
 * `{"error": "<sentence>"}`; 4xx keep their message, 5xx are masked and logged.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (isOurFault(error) && abandonedByClient(request)) {
      // Whatever broke once the client hung up mid-body (the stream's "aborted", an upload's own abort) is not ours.
      request.log.info({ err: error }, 'request abandoned: the client closed the connection before its body arrived');
      return reply.code(400).send({ error: 'The connection closed before the whole request body arrived' });
    }
    const known = error instanceof AppError ? error : knownFailure(error);
    if (known) {
      // A 503 (a feature not configured, a dependency away) is a known state, not a fault of ours.
      if (known.status === 503) request.log.warn({ err: error }, 'request refused: service unavailable');
      else if (known.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(known.status).headers(known.headers).send({ error: known.message });
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      return reply.code(400).send({ error: describeValidation(fastifyError.validation as ValidationIssue[], fastifyError.validationContext) });
    }
    const status = statusOfFastifyError(fastifyError);
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: fastifyError.message });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: `Internal server error (request ${request.id})` });
  });

  app.setNotFoundHandler(routeNotFound);
}

const MAX_ECHOED_PATH = 200;

export function routeNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0]!;
  const shown = path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
  reply.code(404).send({ error: `Route ${request.method} ${shown} not found` });
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route runs, in the same
 * `{error}` shape. The sentence never echoes the URL, which may carry a token.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      reply.code(400).send({ error: 'The URL is malformed: a percent-encoded character is not valid' });
      return;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      reply.code(414).send({ error: 'A path parameter of the URL is too long' });
      return;
    default:
      request.log.error({ err: error }, 'request failed before routing');
      reply.code(500).send({ error: `Internal server error (request ${request.id})` });
  }
}

/** Node's `clientError` (unparsable HTTP, headers too large, a request that never finishes arriving), as `{error}`. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, sentence] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request line or headers are too large']
        : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify({ error: sentence });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
