import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const VISIT_COOKIE = 'lv_visit';
/**
 * The visit of a link opened inside a data room, scoped to /v/{room}/d/{link}. Its own name:
 * the room's lv_visit (scoped to /v/{room}) is sent there too, and a cookie parser keeps one value per name.
 */
export const ROOM_VISIT_COOKIE = 'lv_room_visit';

/** The token a signed session cookie carries, or undefined when absent or tampered with. */
export function readSessionToken(request: FastifyRequest, name: string): string | undefined {
  const raw = request.cookies[name];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

/** Signed, HttpOnly, SameSite=Lax and scoped to `path`, so each link or portal has a session of its own. */
export function setSessionCookie(reply: FastifyReply, name: string, path: string, token: string, secure: boolean, maxAgeSeconds: number): void {
  reply.setCookie(name, token, {
    path,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    signed: true,
    maxAge: Math.max(1, Math.floor(maxAgeSeconds)),
  });
}

export const readVisitToken = (request: FastifyRequest) => readSessionToken(request, VISIT_COOKIE);

export function setVisitCookie(reply: FastifyReply, base: string, token: string, secure: boolean, maxAgeSeconds: number): void {
  setSessionCookie(reply, VISIT_COOKIE, base, token, secure, maxAgeSeconds);
}
