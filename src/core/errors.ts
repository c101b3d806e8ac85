/**
 * The one error type services throw. `status` is the HTTP status the error handler
 * answers with; `message` is a sentence safe to show the client.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new AppError(400, message);
export const unauthorized = (message = 'A valid API key is required: send "Authorization: Bearer <key>"') => new AppError(401, message);
export const forbidden = (message: string) => new AppError(403, message);
/** Absent and "belongs to someone else" look the same on purpose. */
export const notFound = (what: string) => new AppError(404, `${what} not found`);
export const gone = (message = 'This link has expired') => new AppError(410, message);
export const payloadTooLarge = (message: string) => new AppError(413, message);
export const conflict = (message: string) => new AppError(409, message);
export const methodNotAllowed = (allow: string, message: string) => new AppError(405, message, { allow });
export const unprocessable = (message: string) => new AppError(422, message);
export const tooManyRequests = (retryAfterSeconds: number, message = 'Too many requests, slow down') =>
  new AppError(429, message, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
export const serviceUnavailable = (message: string, retryAfterSeconds?: number) =>
  new AppError(503, message, retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
export const insufficientStorage = (message: string) => new AppError(507, message);
