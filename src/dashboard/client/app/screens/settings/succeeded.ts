import { ok } from '../../api/client.js';

/**
 * `ok` for a call answered with no body (204): resolves to true, so a mutation's result tells
 * success (true) from failure (undefined).
 */
export async function succeeded(call: Parameters<typeof ok>[0]): Promise<true> {
  await ok(call);
  return true;
}
