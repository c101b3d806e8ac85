import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const VISIT_COOKIE = 'lv_visit';

/** The cookie is scoped to the link's own path, so each link (or room) has its own visit. */
export function readVisitToken(request: FastifyRequest): string | undefined {
  const raw = request.cookies[VISIT_COOKIE];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

export function setVisitCookie(reply: FastifyReply, base: string, token: string, secure: boolean, maxAgeSeconds: number): void {
  reply.setCookie(VISIT_COOKIE, token, {
    path: base,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    signed: true,
    maxAge: Math.max(1, Math.floor(maxAgeSeconds)),
  });
}
