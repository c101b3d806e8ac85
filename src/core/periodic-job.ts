/**
 * Runs `work` now and then every `intervalMs`, never two runs at once; a failed run is
 * reported and the next tick tries again. The timer alone does not keep the process alive
 * (the HTTP server does that).
 */
export function startPeriodicJob(work: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void) {
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running ??= work()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs).unref();
  tick();
  return {
    /** Stops the timer and waits for the run in progress, if any. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}

export type PeriodicJob = ReturnType<typeof startPeriodicJob>;

/**
 * A periodic job that runs only once `start()` is called (the CLI's one-shot commands never
 * call it), at most once however often it is started, and can be stopped and started again.
 */
export function scheduledJob(work: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void) {
  let job: PeriodicJob | undefined;
  return {
    start(): void {
      job ??= startPeriodicJob(work, intervalMs, onError);
    },
    async stop(): Promise<void> {
      await job?.stop();
      job = undefined;
    },
  };
}
