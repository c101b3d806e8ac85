import type { FastifyReply } from 'fastify';

/**
 * The signed-in person's cookie. Behind https it takes the `__Host-` prefix, which the browser
 * accepts only with Secure, Path=/ and no Domain, so no subdomain can set or shadow it.
 */
export function ownerSessionCookieName(publicUrl: string): string {
  return publicUrl.startsWith('https:') ? '__Host-lv_session' : 'lv_session';
}

export interface OwnerSessionCookie {
  name: string;
  secure: boolean;
}

export function ownerSessionCookie(publicUrl: string): OwnerSessionCookie {
  return { name: ownerSessionCookieName(publicUrl), secure: publicUrl.startsWith('https:') };
}

function serialize(cookie: OwnerSessionCookie, value: string, maxAgeSeconds: number): string {
  return `${cookie.name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Lax${cookie.secure ? '; Secure' : ''}`;
}

export function setOwnerSession(reply: FastifyReply, cookie: OwnerSessionCookie, sessionId: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', serialize(cookie, sessionId, maxAgeSeconds));
}

export function clearOwnerSession(reply: FastifyReply, cookie: OwnerSessionCookie): void {
  reply.header('set-cookie', serialize(cookie, '', 0));
}
