import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/core/permissions.js';
import type { TestApp } from './app.js';
import type { HttpClient, HttpResponse } from './http.js';

/**
 * A browser's view of the API: keeps the session cookie it is given, and sends the CSRF token
 * (from the sign-in answer or GET /api/me) and our Origin with every change, as the dashboard does.
 */
export interface SessionClient extends HttpClient {
  /** the raw cookie value, for tests that look at what ended */
  readonly sessionId: string | undefined;
  csrfToken: string | undefined;
  /** replaces the session (e.g. a cookie captured elsewhere) */
  setSession(sessionId: string | undefined): void;
}

const SESSION_COOKIE = /(?:^|,\s*)(?:__Host-)?lv_session=([^;]*)/;

export function createSessionClient(baseUrl: string): SessionClient {
  let sessionId: string | undefined;
  let csrfToken: string | undefined;
  async function request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResponse<T>> {
    const sent: Record<string, string> = { ...headers };
    if (sessionId) sent.cookie = `lv_session=${sessionId}`;
    if (!['GET', 'HEAD'].includes(method)) {
      sent.origin ??= baseUrl;
      if (csrfToken && sent['x-csrf-token'] === undefined) sent['x-csrf-token'] = csrfToken;
    }
    const init: RequestInit = { method, headers: sent };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      sent['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(baseUrl + path, init);
    const setCookie = response.headers.get('set-cookie');
    const match = setCookie ? SESSION_COOKIE.exec(setCookie) : null;
    if (match) sessionId = match[1] || undefined;
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text;
    if (json && typeof json === 'object' && 'csrfToken' in json && typeof json.csrfToken === 'string') csrfToken = json.csrfToken;
    return { status: response.status, headers: response.headers, body: json as T };
  }
  return {
    get sessionId() {
      return sessionId;
    },
    get csrfToken() {
      return csrfToken;
    },
    set csrfToken(value) {
      csrfToken = value;
    },
    setSession(value) {
      sessionId = value;
    },
    request,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body),
    put: (path, body) => request('PUT', path, body),
    patch: (path, body) => request('PATCH', path, body),
    delete: (path) => request('DELETE', path),
  };
}

export const TEST_PASSWORD = 'correct horse battery staple';

/** A person with a password in an account (straight through the services), and a client signed in as them. */
export async function signedInPerson(app: TestApp, accountId: number, role: Role, password = TEST_PASSWORD) {
  const { users, members } = app.runtime.services;
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const userId = await users.create({ email, name: `Test ${role}`, password });
  await members.join(userId, accountId, role);
  const client = createSessionClient(app.url);
  const signIn = await client.post('/api/auth/sign-in', { email, password });
  if (signIn.status !== 200) throw new Error(`sign-in as ${email} failed: ${signIn.status} ${JSON.stringify(signIn.body)}`);
  return { userId, email, password, client };
}
