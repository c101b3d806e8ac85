import type { Registry } from 'prom-client';
import { promClient } from '../../core/metrics.js';

/** The stamper's Prometheus series, on the registry /metrics serves (the runtime passes it when METRICS_TOKEN is set). */
export function createStampMetrics(registry: Registry) {
  const { Counter } = promClient();
  return {
    made: new Counter({
      name: 'page_stamps_total',
      help: "Page images and thumbnails stamped with a visit's mark (each once per view)",
      registers: [registry],
    }),
    refused: new Counter({
      name: 'page_stamps_refused_total',
      help: 'Stamps refused with 503 because too many were already waiting',
      registers: [registry],
    }),
  };
}

export type StampMetrics = ReturnType<typeof createStampMetrics>;
