import { api, ok } from '../../api/client.js';
import { invalidate } from '../../api/query.js';

export type Branding = Awaited<ReturnType<typeof fetchBranding>>;
export const fetchBranding = () => ok(api.GET('/api/branding'));

/** POST /api/branding takes JSON or, with a logo, multipart; it answers the settings as stored. */
export async function saveBranding(fields: Record<string, string | number> | FormData): Promise<Branding> {
  const multipart = fields instanceof FormData ? { bodySerializer: (body: unknown) => body as FormData } : {};
  const saved = await ok(api.POST('/api/branding', { body: fields as never, ...multipart }));
  await invalidate('branding');
  return saved;
}
