import { Type } from 'typebox';

export const ErrorBody = Type.Object({ error: Type.String() }, { description: 'Every error response' });
export const OkBody = Type.Object({ ok: Type.Boolean() });

/**
 * A string or null, as a type list rather than anyOf: fast-json-stringify serialises a type
 * list directly, while for anyOf it runs the validator on every value to pick a branch.
 */
export const NullableString = (options: { format?: 'date-time'; description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

export const IntegerIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
/** Link, room and portal ids: random base62. */
export const StringId = Type.String({ pattern: '^[0-9A-Za-z]{16,64}$' });

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
});

/** The error statuses any authenticated /api route can answer, for the OpenAPI document. */
export const authErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
} as const;
