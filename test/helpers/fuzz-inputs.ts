import type { Rng } from './fuzz.js';
import { INVALID_UTF8, deepJson } from './fuzz.js';

/** What the fuzz generates requests from: the app's operations, and values for their parameters and bodies. */
export interface Operation {
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query'; schema: Schema }[];
  body?: Schema;
  multipart?: Schema;
  /** public pages and forms: no API key */
  visitor?: boolean;
  form?: boolean;
}

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
}

export const ID: Schema = { type: 'string', pattern: '^[0-9A-Za-z]{16,64}$' };

/** Every operation of the app's own OpenAPI document, with its parameters and JSON or multipart body schema. */
export function operationsOf(document: { paths: Record<string, Record<string, any>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: (op.parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query'),
      body: op.requestBody?.content?.['application/json']?.schema,
      multipart:
        op.requestBody?.content?.['multipart/form-data']?.schema ??
        (path === '/api/branding' && method === 'post' ? { type: 'object', properties: {} } : undefined),
    })),
  );
}

export interface Pools {
  port: number;
  apiKey: string;
  accountId: number;
  linkIds: string[];
  roomId: string;
  portalIds: string[];
  slugs: string[];
  /** integer ids that exist: templates, a spare API key, access requests */
  intIds: number[];
  /** the fuzz's own key: never toggled or deleted by it */
  ownKeyId: number;
}

export const HUGE_NUMBERS = ['1e400', '-1e400', '123456789012345678901234567890', '9007199254740993', '-0', '1e-400', '2147483648', '0.5', '1E3'];

/** A value of the schema's own shape (respecting its bounds), so that the other mutations get past validation. */
export function validValue(rng: Rng, schema: Schema | undefined, pools: Pools, name = ''): unknown {
  if (!schema) return null;
  if (schema.anyOf) return validValue(rng, rng.pick(schema.anyOf), pools, name);
  if (schema.enum) return rng.pick(schema.enum);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(() => rng.chance(0.8))
          .map(([key, sub]) => [key, validValue(rng, sub, pools, key)]),
      );
    case 'array':
      return Array.from({ length: rng.int(4) }, () => validValue(rng, schema.items, pools, name));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 0, Math.min(schema.maximum ?? 1000, rng.int(1000)));
    case 'boolean':
      return rng.chance(0.5);
    default:
      if (schema.pattern?.includes('16,64') || /ids?$/i.test(name)) return rng.pick([...pools.linkIds, pools.roomId]);
      if (/email/i.test(name)) return `someone${rng.int(100)}@example.com`;
      // Outgoing addresses stay in .invalid: the fuzz must not send mail or webhooks anywhere.
      if (/url|host|domain/i.test(name)) return rng.pick([`https://hooks.example.invalid/${rng.alnum(8)}`, `mail${rng.int(9)}.example.invalid`]);
      return rng.alnum(rng.int(Math.min(schema.maxLength ?? 40, 40)) + 1);
  }
}

/** A value of the wrong kind for `schema`, as JSON text (some of them only writable as text). */
export function wrongValue(rng: Rng, schema: Schema | undefined): string {
  const candidates = [
    'null',
    'true',
    '[]',
    '{}',
    '""',
    '"x"',
    '42',
    '[1,"a",{}]',
    '{"__proto__":{"polluted":1}}',
    JSON.stringify('x'.repeat(70_000)),
    JSON.stringify('\u0000\ud800\uffff'),
    ...HUGE_NUMBERS,
  ];
  if (schema?.type === 'string') candidates.push('1e400', '{"$gt":""}');
  return rng.pick(candidates);
}

/** A JSON body: a valid one with one field of the wrong type, or broken as a whole. */
export function jsonBody(rng: Rng, schema: Schema | undefined, pools: Pools): Buffer {
  const value = validValue(rng, schema ?? { type: 'object', properties: {} }, pools) as Record<string, unknown>;
  const text = JSON.stringify(value ?? {});
  const fields = Object.keys(schema?.properties ?? {});
  switch (rng.int(10)) {
    case 0:
      return Buffer.from(deepJson(10_000, rng.chance(0.5) ? 'array' : 'object'));
    case 1: {
      // invalid UTF-8 inside a string of the body
      const cut = text.lastIndexOf('"') > 0 ? text.lastIndexOf('"') : 1;
      return Buffer.concat([Buffer.from(text.slice(0, cut)), rng.pick(INVALID_UTF8), Buffer.from(text.slice(cut))]);
    }
    case 2:
      return Buffer.from(text.slice(0, rng.int(text.length)));
    case 3:
      return Buffer.from(
        rng.pick(['', ' ', '\ufeff{}', 'nul', '[', '{"a":1,"a":2}', '"just a string"', '[{}]', '{"constructor":{"prototype":{"x":1}}}']),
      );
    case 4:
      return Buffer.from(`{"pad":"${'y'.repeat(1_100_000)}"}`);
    default: {
      if (fields.length === 0) return Buffer.from(`{"${rng.alnum(5)}":${wrongValue(rng, undefined)}}`);
      const field = rng.pick(fields);
      const rest = JSON.stringify({ ...value, [field]: undefined }).slice(1, -1);
      return Buffer.from(`{${rest}${rest ? ',' : ''}"${field}":${wrongValue(rng, schema?.properties?.[field])}}`);
    }
  }
}

/** A path segment for a parameter: an id that exists, one that could, or one that is broken. */
export function pathValue(rng: Rng, name: string, schema: Schema, pools: Pools, path: string): string {
  const broken = [
    '%FF',
    '%C0%AF',
    '%E2%82',
    '%',
    '%zz',
    '%00',
    '%2F',
    '%2e%2e',
    '..',
    '%F0%9F%92%A9',
    'a'.repeat(101),
    'A'.repeat(5000),
    '%20',
    '-',
    '@',
  ];
  if (rng.chance(0.25)) return rng.pick(broken);
  if (schema.type === 'integer') {
    const ints = [...pools.intIds, 0, -1, 2_147_483_648, '99999999999999999999999', '1e3', '0x1', '1.5', '%201', rng.int(50) + 1];
    let value = String(rng.pick(ints));
    // The fuzz's own key stays active: without it every later request would be a 401.
    if (path.startsWith('/api/api-keys') && value === String(pools.ownKeyId)) value = String(pools.ownKeyId + 1000);
    return value;
  }
  if (name === 'slug') return rng.pick([...pools.slugs, rng.alnum(8).toLowerCase(), 'Ä', 'x'.repeat(64)]);
  if (name === 'file') return rng.pick([`logo-${rng.alnum(12)}.png`, 'logo.png', '..%2F..%2Fetc']);
  if (name === 'id' && path.startsWith('/api/client-portals')) return rng.pick([...pools.portalIds, rng.alnum(20)]);
  return rng.pick([...pools.linkIds, pools.roomId, rng.alnum(16 + rng.int(49)), rng.alnum(15), rng.alnum(65)]);
}

export function queryString(rng: Rng, op: Operation, pools: Pools): string {
  const parts: string[] = [];
  for (const param of op.params.filter((p) => p.in === 'query')) {
    if (rng.chance(0.3)) continue;
    const value = rng.chance(0.5)
      ? String(validValue(rng, param.schema, pools, param.name))
      : rng.pick([...HUGE_NUMBERS, '%FF', '', 'a'.repeat(400), '%', '0x10']);
    parts.push(`${param.name}=${value}`);
    if (rng.chance(0.15)) parts.push(`${param.name}=${value}`); // duplicated: the value becomes an array
  }
  if (rng.chance(0.1)) parts.push(rng.pick(['__proto__=1', 'constructor[prototype][x]=1', 'a[b][c]=1', `junk=${'q'.repeat(10_000)}`, '%FF=%FE']));
  return parts.length ? `?${parts.join('&')}` : '';
}

export function urlOf(rng: Rng, op: Operation, pools: Pools): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    pathValue(rng, name, op.params.find((p) => p.name === name)?.schema ?? ID, pools, op.path),
  );
  return path + queryString(rng, op, pools);
}

/** A multipart form for an upload, a new version or a logo: fields of the route (some broken) and one file. */
export function multipartBody(rng: Rng, op: Operation, boundary: string, pools: Pools): Buffer {
  const parts: Buffer[] = [];
  const part = (headers: string, value: Buffer) => parts.push(Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), value, Buffer.from('\r\n'));
  const fields = Object.entries(op.multipart?.properties ?? {}).filter(([name]) => name !== 'file');
  for (const [name, schema] of fields) {
    if (!rng.chance(0.3)) continue;
    const value = rng.chance(0.7)
      ? Buffer.from(String(validValue(rng, schema, pools, name)))
      : Buffer.concat([Buffer.from('v'), rng.pick(INVALID_UTF8)]);
    part(`Content-Disposition: form-data; name="${name}"`, value);
  }
  if (rng.chance(0.1)) part('Content-Disposition: form-data; name="__proto__"', Buffer.from('x'));
  if (rng.chance(0.05)) part('Content-Disposition: form-data; name="big"', Buffer.alloc(70 * 1024, 'b'));
  if (rng.chance(0.05)) for (let i = 0; i < 61; i += 1) part(`Content-Disposition: form-data; name="f${i}"`, Buffer.from('1'));
  const fileField = op.path === '/api/branding' ? 'logo' : rng.chance(0.95) ? 'file' : 'other';
  const fileName = rng.pick([
    Buffer.from('notes.txt'),
    Buffer.from('report.pdf'),
    Buffer.from('tool.exe'),
    Buffer.from('../../etc/passwd'),
    Buffer.concat([Buffer.from('n'), rng.pick(INVALID_UTF8), Buffer.from('.txt')]),
    Buffer.from('x'.repeat(300)),
  ]);
  const content = rng.chance(0.1) ? Buffer.concat([Buffer.from('MZ'), rng.bytes(200)]) : rng.bytes(rng.int(20_000));
  const disposition = Buffer.concat([
    Buffer.from(`Content-Disposition: form-data; name="${fileField}"; filename="`),
    fileName,
    Buffer.from('"\r\nContent-Type: application/octet-stream'),
  ]);
  parts.push(Buffer.from(`--${boundary}\r\n`), disposition, Buffer.from('\r\n\r\n'), content, Buffer.from('\r\n'));
  if (rng.chance(0.05)) part('Content-Disposition: form-data; name="file"; filename="second.txt"', Buffer.from('again'));
  if (rng.chance(0.05)) parts.push(Buffer.from(`--${boundary}\r\nthis is not a header\r\n\r\nx\r\n`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

export function formBody(rng: Rng, op: Operation, pools: Pools): Buffer {
  const pairs = Object.keys(op.body?.properties ?? {}).map((name) =>
    Buffer.from(`${name}=${encodeURIComponent(String(validValue(rng, { type: 'string' }, pools, name)))}`),
  );
  switch (rng.int(6)) {
    case 0:
      pairs.push(Buffer.concat([Buffer.from('email='), rng.pick(INVALID_UTF8)]));
      break;
    case 1:
      pairs.push(Buffer.from(rng.pick(['email=%FF%FE', 'code=%', 'password=%zz', 'email[a]=1', 'email=1&email=2', '__proto__[x]=1'])));
      break;
    case 2:
      pairs.push(Buffer.from(`password=${'p'.repeat(20_000)}`));
      break;
  }
  return Buffer.concat(pairs.flatMap((pair, i) => (i ? [Buffer.from('&'), pair] : [pair])));
}

export const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/xml',
  'application/octet-stream',
  '*/*',
  'application/json, text/plain',
  'image/png',
];
