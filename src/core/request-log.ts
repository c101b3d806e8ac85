import type { FastifyRequest } from 'fastify';

/** Query parameters whose value is a credential: download tokens, checkout sessions, codes, keys. */
const SECRET_PARAMETER = /token|secret|session|passw|key|code|sig|auth|credential|signup/i;
/** Paths that carry a credential: an invitation's token. */
const SECRET_PATH = /^(\/invite\/)[^/?#]+/;
const REDACTED = '[redacted]';

/**
 * What pino blanks wherever a log line carries request headers: our request serializer keeps none,
 * but plugins log their own objects at debug and trace (@fastify/multipart its busboy options, the
 * request's headers among them).
 */
export const LOG_REDACTION = {
  paths: [
    ...['headers', '*.headers'].flatMap((headers) => [`${headers}.authorization`, `${headers}.cookie`, `${headers}["x-csrf-token"]`]),
    '*.headers["set-cookie"]',
  ],
  censor: REDACTED,
};

function parameterName(pair: string): string {
  const raw = pair.split('=', 1)[0]!.replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The URL as the log may keep it: the value of every secret-looking query parameter, and a token in the path, replaced. */
export function redactUrl(rawUrl: string): string {
  const url = rawUrl.replace(SECRET_PATH, `$1${REDACTED}`);
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return url;
  const pairs = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => (pair.includes('=') && SECRET_PARAMETER.test(parameterName(pair)) ? `${pair.split('=', 1)[0]}=${REDACTED}` : pair));
  return `${url.slice(0, queryAt)}?${pairs.join('&')}`;
}

/**
 * The `req` of every request log line (Fastify's own fields), with the URL redacted: the
 * database keeps only hashes of download tokens, so the log must not keep them either.
 */
export function requestLogView(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
