// A stand-in cluster worker for test/ops/cluster.test.ts and cluster-channel.test.ts: it uses
// the worker-side stores (server/state/cluster/worker-stores.ts) and asks for the cluster's metrics
// (server/cluster/summed-metrics.ts) over its one channel to the test, which plays the primary and may
// answer or stay silent. Commands arrive as {cmd}, results go back as {result}.
import type { Options } from 'express-rate-limit';
import { connectToPrimary } from '../../server/state/cluster/channel.ts';
import { askPrimaryForMetrics } from '../../server/cluster/summed-metrics.ts';
import { createWorkerStores } from '../../server/state/cluster/worker-stores.ts';
import { createLogger } from '../../server/http/process-logger.ts';
import { healthPolicy } from '../../server/routing/health-policy.ts';

const { rateLimitStore, healthStore } = createWorkerStores(createLogger('info'), healthPolicy);
rateLimitStore.init?.({ limit: 3, windowMs: 60_000 } as Options);
const scrapeMetrics = askPrimaryForMetrics(connectToPrimary());
const increment = async (): Promise<number> => (await rateLimitStore.increment('203.0.113.99')).totalHits;

process.on('message', async (message: { cmd?: string }) => {
  const started = Date.now();
  let result: unknown;
  if (message.cmd === 'increment') result = await increment();
  else if (message.cmd === 'metrics') result = await scrapeMetrics().catch((error: Error) => `failed: ${error.message}`);
  else if (message.cmd === 'both') result = await Promise.all([increment(), scrapeMetrics()]);
  else if (message.cmd === 'record') result = (await healthStore.record('groq:abc', { kind: 'rate_limited', retryAfterMs: 30_000, reason: '429' }, Date.now())).state;
  else if (message.cmd === 'get') result = (await healthStore.get(['groq:abc']))[0]?.state ?? 'none';
  else return;
  process.send?.({ result, ms: Date.now() - started });
});
process.send?.({ ready: true });
