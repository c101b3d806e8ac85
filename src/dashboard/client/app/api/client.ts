import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

/** An answer of the API other than 2xx, with its own sentence (written for people) as the message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

/** GET /api/me gives the session's token; every change made through the session carries it. */
export function useCsrfToken(token: string | null): void {
  csrfToken = token;
}

const session: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ response }) {
    // The session ended (signed out elsewhere, expired): back to sign-in, then here again.
    if (response.status === 401 && !location.pathname.startsWith('/sign-in')) location.assign('/sign-in');
    return response;
  },
};

/** The REST API, typed from its own OpenAPI document (api/schema.d.ts), with this browser's session. */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(session);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

const errorSentence = (error: unknown, status: number): string => {
  if (error && typeof error === 'object' && 'error' in error && typeof error.error === 'string' && error.error !== '') return error.error;
  return status === 429 ? 'Too many requests: wait a moment and try again.' : 'Something went wrong; try again.';
};

/** The answer's body, or an ApiError carrying the API's sentence. */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch {
    throw new ApiError(0, 'linkvault could not be reached. Check your connection and try again.');
  }
  if (answer.response.ok) return answer.data as T;
  throw new ApiError(answer.response.status, errorSentence(answer.error, answer.response.status));
}
