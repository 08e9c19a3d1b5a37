import { AggregatorRegistry, type Registry } from 'prom-client';
import type { AskOptions, AskPrimary } from '../state/cluster/channel.ts';

/*
 * WORKERS > 1: the primary sums the workers' registries (prom-client's
 * AggregatorRegistry, which asks each worker over its own IPC messages), for a
 * worker whose /metrics is asked (over the channel) and for a METRICS_PORT
 * listener in the primary.
 */

/** The call a worker makes for the whole cluster's metrics text. */
export const scrapeCall = { op: 'metrics.scrape' } as const;

/** prom-client gives up on silent workers after 5 s; this bounds the wait for the primary too. Never "quiet": stores do not wait on it. */
const scrapeOptions: AskOptions = { timeoutMs: 6_000, failFast: false };

/** In a worker: answer the primary's aggregation requests from this registry. */
export function offerToPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's worker-side listener.
  new AggregatorRegistry();
}

/** In a worker: the whole cluster's metrics text, asked of the primary. */
export const askPrimaryForMetrics = (ask: AskPrimary): (() => Promise<string>) => async () =>
  (await ask<string | null>(scrapeCall, scrapeOptions)) ?? '';

/** In the primary: the workers' metrics, summed. */
export function aggregateWorkers(): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  return () => aggregator.clusterMetrics();
}
