import { useCallback, useLayoutEffect, useState } from 'preact/hooks';
import { ApiError } from './client.js';

/**
 * A small query cache: one entry per key, shared by every screen that shows it, fetched once
 * while in flight, kept after a screen closes (shown at once when it opens again, refreshed
 * behind), and refetched when a change invalidates its key or a prefix of it.
 */
interface Entry {
  data?: unknown;
  error?: ApiError;
  promise?: Promise<void>;
  fetcher: () => Promise<unknown>;
  listeners: Set<() => void>;
}

const entries = new Map<string, Entry>();

function entryFor(key: string, fetcher: () => Promise<unknown>): Entry {
  let entry = entries.get(key);
  if (!entry) {
    entry = { fetcher, listeners: new Set() };
    entries.set(key, entry);
  }
  entry.fetcher = fetcher;
  return entry;
}

function load(key: string, entry: Entry): Promise<void> {
  entry.promise ??= entry
    .fetcher()
    .then(
      (data) => {
        entry.data = data;
        entry.error = undefined;
      },
      (error: unknown) => {
        entry.error = error instanceof ApiError ? error : new ApiError(0, String(error));
      },
    )
    .finally(() => {
      entry.promise = undefined;
      entry.listeners.forEach((listener) => listener());
    });
  return entry.promise;
}

/** Refetches every cached query whose key starts with one of the prefixes (e.g. 'links' after a change to a link). */
export async function invalidate(...prefixes: string[]): Promise<void> {
  const reloads: Array<Promise<void>> = [];
  for (const [key, entry] of [...entries.entries()]) {
    if (!prefixes.some((prefix) => key === prefix || key.startsWith(`${prefix}:`))) continue;
    // A query no screen shows is dropped; it is fetched afresh when one shows it again.
    if (entry.listeners.size > 0) reloads.push(load(key, entry));
    else entries.delete(key);
  }
  await Promise.all(reloads);
}

export interface Query<T> {
  data: T | undefined;
  error: ApiError | undefined;
  /** true until the first answer for this key (a refresh behind cached data is not loading) */
  loading: boolean;
  refetch: () => Promise<void>;
}

/** The data under `key`, fetched by `fetcher`; `refreshMs` polls while the screen is open (new views appear without a reload). */
export function useQuery<T>(key: string | null, fetcher: () => Promise<T>, options: { refreshMs?: number } = {}): Query<T> {
  const [, rerender] = useState(0);
  const entry = key === null ? undefined : entryFor(key, fetcher);

  // A layout effect: the request leaves as soon as the screen has rendered, not after the next paint.
  useLayoutEffect(() => {
    if (!key || !entry) return;
    const listener = () => rerender((n) => n + 1);
    entry.listeners.add(listener);
    void load(key, entry);
    const timer = options.refreshMs
      ? setInterval(() => document.visibilityState === 'visible' && void load(key, entry), options.refreshMs)
      : undefined;
    return () => {
      entry.listeners.delete(listener);
      if (timer) clearInterval(timer);
    };
  }, [key, options.refreshMs]);

  const refetch = useCallback(() => (key && entry ? load(key, entry) : Promise.resolve()), [key]);
  return {
    data: entry?.data as T | undefined,
    error: entry?.error,
    loading: entry !== undefined && entry.data === undefined && entry.error === undefined,
    refetch,
  };
}

export interface Mutation<A extends unknown[], T> {
  run: (...args: A) => Promise<T | undefined>;
  busy: boolean;
  error: ApiError | undefined;
  reset: () => void;
}

/** A change: runs `action`, keeps its error for the form to show, and invalidates `affects` when it succeeds. */
export function useMutation<A extends unknown[], T>(action: (...args: A) => Promise<T>, affects: string[] = []): Mutation<A, T> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = async (...args: A): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await action(...args);
      if (affects.length > 0) await invalidate(...affects);
      return result;
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, String(caught)));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, reset: () => setError(undefined) };
}
