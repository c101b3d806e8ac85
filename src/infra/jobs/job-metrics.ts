import type { Registry } from 'prom-client';
import { loadOnFirstUse } from '../load-on-first-use.js';

const promClient = loadOnFirstUse<typeof import('prom-client')>('prom-client');

/**
 * The runner's Prometheus series, on the registry /metrics serves (the runtime passes it when
 * METRICS_TOKEN is set). Labels are job kinds only: never ids or payloads.
 */
export function createJobMetrics(registry: Registry, countUnfinished: () => Promise<{ kind: string; status: string; count: number | string }[]>) {
  const { Counter, Gauge, Histogram } = promClient();
  return {
    unfinished: new Gauge({
      name: 'jobs',
      help: 'Jobs not finished, by kind and status (pending: waiting for their time or a runner; running: under a lease), read at each scrape',
      labelNames: ['kind', 'status'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await countUnfinished()) this.set({ kind: row.kind, status: row.status }, Number(row.count));
      },
    }),
    run: new Counter({
      name: 'jobs_run_total',
      help: 'Job attempts started, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    failed: new Counter({
      name: 'jobs_failed_total',
      help: 'Job attempts that failed, by kind and outcome (retry: tried again later; failed: given up)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'job_duration_seconds',
      help: 'Time a job attempt took, by kind',
      labelNames: ['kind'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
  };
}

export type JobMetrics = ReturnType<typeof createJobMetrics>;
