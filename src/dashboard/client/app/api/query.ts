import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './client.js';

/**
 * A small query cache: one entry per key, shared by every screen that shows it, fetched once
 * while in flight, kept after a screen closes (shown at once when it opens again, refreshed
 * behind), and refetched when a change invalidates its key or a prefix of it.
 */
interface Entry {
  data?: unknown;
  error?: ApiError;
  /** the fetch in flight */
  promise?: Promise<void>;
  /** a fetch asked for by a change while another was in flight: it starts when that one ends */
  queued?: Promise<void>;
  /** raised by each such change: an answer fetched before it is dropped, not shown */
  generation: number;
  fetcher: () => Promise<unknown>;
  listeners: Set<() => void>;
}

const entries = new Map<string, Entry>();

function entryFor(key: string, fetcher: () => Promise<unknown>): Entry {
  let entry = entries.get(key);
  if (!entry) {
    entry = { generation: 0, fetcher, listeners: new Set() };
    entries.set(key, entry);
  }
  entry.fetcher = fetcher;
  return entry;
}

function fetchInto(entry: Entry): Promise<void> {
  const generation = entry.generation;
  const current = () => generation === entry.generation;
  entry.promise = entry
    .fetcher()
    .then(
      (data) => {
        if (!current()) return;
        entry.data = data;
        entry.error = undefined;
      },
      (error: unknown) => {
        if (current()) entry.error = error instanceof ApiError ? error : new ApiError(0, String(error));
      },
    )
    .finally(() => {
      entry.promise = undefined;
      if (current()) entry.listeners.forEach((listener) => listener());
    });
  return entry.promise;
}

/**
 * The entry's data, fetched unless a fetch is already on its way. `fresh`: the answer must be
 * begun after now (a change was just made); one already in flight may predate the change, so
 * its answer is dropped and another fetch follows it.
 */
function load(entry: Entry, fresh = false): Promise<void> {
  if (fresh && entry.promise) {
    entry.generation++;
    entry.queued ??= entry.promise.then(() => {
      entry.queued = undefined;
      return fetchInto(entry);
    });
    return entry.queued;
  }
  return entry.queued ?? entry.promise ?? fetchInto(entry);
}

/** Refetches every cached query whose key starts with one of the prefixes (e.g. 'links' after a change to a link). */
export async function invalidate(...prefixes: string[]): Promise<void> {
  const reloads: Array<Promise<void>> = [];
  for (const [key, entry] of [...entries.entries()]) {
    if (!prefixes.some((prefix) => key === prefix || key.startsWith(`${prefix}:`))) continue;
    // A query no screen shows is dropped; it is fetched afresh when one shows it again.
    if (entry.listeners.size > 0) reloads.push(load(entry, true));
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

/**
 * The data under `key`, fetched by `fetcher`; `refreshMs` polls while the screen is open (new
 * views appear without a reload), or, as a function of the data, while the data says to.
 * `keepWithin`: when the key changes but this stays the same (the same link, more of its rows
 * asked for), the last key's data stays shown until the new key's arrives, rather than loading
 * placeholders; another link's data is never shown in its place.
 */
export function useQuery<T>(
  key: string | null,
  fetcher: () => Promise<T>,
  options: { refreshMs?: number | ((data: T | undefined) => number | undefined); keepWithin?: string } = {},
): Query<T> {
  const [, rerender] = useState(0);
  const entry = key === null ? undefined : entryFor(key, fetcher);
  // Without `keepWithin`, each key keeps only its own data.
  const within = options.keepWithin ?? key;
  const shown = useRef<{ within: string | null; data?: T }>({ within });
  if (entry?.data !== undefined || shown.current.within !== within) shown.current = { within, data: entry?.data as T | undefined };
  const data = shown.current.data;
  const refreshMs = typeof options.refreshMs === 'function' ? options.refreshMs(data) : options.refreshMs;

  // A layout effect: the request leaves as soon as the screen has rendered, not after the next paint.
  useLayoutEffect(() => {
    if (!key || !entry) return;
    const listener = () => rerender((n) => n + 1);
    entry.listeners.add(listener);
    void load(entry);
    const timer = refreshMs ? setInterval(() => document.visibilityState === 'visible' && void load(entry), refreshMs) : undefined;
    return () => {
      entry.listeners.delete(listener);
      if (timer) clearInterval(timer);
    };
  }, [key, refreshMs]);

  const refetch = useCallback(() => (entry ? load(entry, true) : Promise.resolve()), [key]);
  return {
    data,
    error: entry?.error,
    loading: entry !== undefined && data === undefined && entry.error === undefined,
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
