/** One queue of tasks: how many run, and who waits. A finishing task hands its place to the next. */
class Lane {
  running = 0;
  readonly waiting: Array<() => void> = [];

  /** Waits for a place (or takes a free one at once). */
  async enter(limit: number): Promise<void> {
    if (this.running < limit) {
      this.running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands the place to the first waiting task, or frees it; true when the lane is then idle. */
  leave(): boolean {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
    return this.running === 0;
  }
}

/**
 * Runs at most `limit` tasks at once; the rest wait their turn in order. For work that holds
 * a lot of memory per task (a whole document being stamped), so that load queues instead of
 * exhausting the process. With `maxWaiting`, a task that would wait behind that many others is
 * refused at once with `full()`, so a burst cannot queue work without end.
 */
export function createConcurrencyLimit(limit: number, bound?: { maxWaiting: number; full: () => Error }) {
  const lane = new Lane();
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (bound && lane.running >= limit && lane.waiting.length >= bound.maxWaiting) throw bound.full();
    await lane.enter(limit);
    try {
      return await task();
    } finally {
      lane.leave();
    }
  };
}

/**
 * At most `limit` tasks at once for each key (one visit's pages, say): a client's burst waits
 * behind itself instead of in front of everyone else's work.
 */
export function createKeyedConcurrencyLimit(limit: number) {
  const lanes = new Map<string, Lane>();
  return async function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = new Lane()));
    await lane.enter(limit);
    try {
      return await task();
    } finally {
      if (lane.leave()) lanes.delete(key);
    }
  };
}

/** The answer of `make` for `key`, made once for every caller that asks while it is being made. */
export function once<T>(inFlight: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let pending = inFlight.get(key);
  if (!pending) {
    pending = make().finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}
