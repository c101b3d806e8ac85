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
/** Who the page shows: a token taken again for someone else means the page belongs to nobody signed in here. */
let signedInAs: string | null = null;

/** GET /api/me gives the session's token; every change made through the session carries it. */
export function useCsrfToken(token: string | null, who: string): void {
  csrfToken = token;
  signedInAs = who;
}

/** The API's refusal of a change without the session's current token (`assertCsrfToken` in core/auth.ts). */
const isCsrfRefusal = async (response: Response) =>
  response.status === 403 &&
  /X-CSRF-Token/.test(
    (
      (await response
        .clone()
        .json()
        .catch(() => ({}))) as { error?: string }
    ).error ?? '',
  );

/**
 * A new sign-in in another tab gives this browser a new session and token, which this page has not
 * seen: the change is refused. The token is taken again, so the same change sent once more goes
 * through, and the refusal says so in plain words (the request is not sent again by itself: its
 * body, read once, is gone); if another person or account is signed in now, the page starts again.
 */
async function takeNewToken(): Promise<Response | undefined> {
  const answer = await fetch('/api/me', { credentials: 'same-origin', cache: 'no-store' });
  if (!answer.ok) return undefined;
  const me = (await answer.json()) as { csrfToken: string; user: { id: number } | null; account: { id: number } };
  if (`${me.user?.id}:${me.account.id}` !== signedInAs) {
    location.reload();
    return undefined;
  }
  csrfToken = me.csrfToken;
  return Response.json({ error: SIGNED_IN_AGAIN }, { status: 403 });
}
const SIGNED_IN_AGAIN = 'You signed in again in another tab, so this change was not made: this page has caught up, try again.';

let sessionEnded = false;
const sessionListeners = new Set<() => void>();

/** Whether an answer said the session has ended (signed out elsewhere, revoked, expired). */
export const hasSessionEnded = () => sessionEnded;

/** Calls `listener` once the session has ended; answers the call that stops listening. */
export function onSessionEnded(listener: () => void): () => void {
  sessionListeners.add(listener);
  return () => void sessionListeners.delete(listener);
}

/** Where to sign in again and come back to this screen. */
export const signInAgainHref = () => `/sign-in?ended=1&next=${encodeURIComponent(location.pathname + location.search)}`;

const session: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  async onResponse({ request, response }) {
    if (request.method !== 'GET' && (await isCsrfRefusal(response))) return (await takeNewToken()) ?? response;
    // The page is not left on its own (a background refresh would take away what is being typed):
    // the frame says the session has ended and offers to sign in again (layout/session-ended.tsx).
    if (response.status === 401 && !sessionEnded) {
      sessionEnded = true;
      sessionListeners.forEach((listener) => listener());
    }
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
