/**
 * Runs at most `limit` tasks at once; the rest wait their turn in order. For work that holds
 * a lot of memory per task (a whole document being stamped), so that load queues instead of
 * exhausting the process.
 */
export function createConcurrencyLimit(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
