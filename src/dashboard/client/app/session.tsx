import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { api, ApiError, ok, signInAgainHref, useCsrfToken } from './api/client.js';
import { useQuery } from './api/query.js';
import { QueryState } from './ui/feedback.js';

export type Me = Awaited<ReturnType<typeof fetchMe>>;
/** An area of the permission table (GET /api/me lists those the role may manage). */
export type Area =
  'content' | 'api-keys' | 'integrations' | 'webhooks' | 'branding' | 'sharing-policy' | 'payments' | 'members' | 'audit-log' | 'owners' | 'account';

async function fetchMe() {
  try {
    const me = await ok(api.GET('/api/me'));
    useCsrfToken(me.csrfToken, `${me.user?.id}:${me.account.id}`);
    return me;
  } catch (error) {
    // Ended before the app showed anything: there is nothing here to keep.
    if (error instanceof ApiError && error.status === 401) location.assign(signInAgainHref());
    throw error;
  }
}

const MeContext = createContext<Me | null>(null);

/** Who is signed in; the frame renders nothing of the app until it is known. */
export function SessionProvider({ children }: { children: ComponentChildren }) {
  const me = useQuery('me', fetchMe);
  return <QueryState query={me}>{(data) => <MeContext.Provider value={data}>{children}</MeContext.Provider>}</QueryState>;
}

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside SessionProvider');
  return me;
}

/** Whether the signed-in role may manage an area: screens it may not use are hidden (and the API refuses them anyway). */
export function useCan(): (area: Area) => boolean {
  const me = useMe();
  return (area) => me.areas.includes(area);
}
