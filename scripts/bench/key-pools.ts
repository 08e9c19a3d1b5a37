/**
 * What several keys per header cost before the first upstream byte: reading the
 * headers and planning a `free:auto` request with a key pool for every provider,
 * 1, 4 and 16 keys each (one HMAC and one health record per key). In-process,
 * with the memory health store, so the figures are Freeway's own CPU.
 *
 *   node scripts/bench/key-pools.ts
 */
import { isAlias, buildCatalog } from '../../catalog/catalog.ts';
import { loadProviderPlugins } from '../../providers/loader.ts';
import { loadConfig } from '../../server/config/index.ts';
import { createRedactor } from '../../server/core/redact.ts';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { createKeyReader } from '../../server/http/key-headers.ts';
import { createLatencyTracker } from '../../server/routing/latency.ts';
import { createRouter } from '../../server/routing/router.ts';

const plugins = await loadProviderPlugins();
const catalog = buildCatalog(plugins);
const health = createMemoryHealthStore();
const router = createRouter({
  config: loadConfig({}, plugins),
  health,
  hashKey: createKeyHasher('bench-secret-0123456789abcdef'),
  latency: createLatencyTracker(),
  redact: createRedactor(plugins),
});
const readKeys = createKeyReader(plugins);
const auto = catalog.byId.get('free:auto');
if (!auto || !isAlias(auto)) throw new Error('free:auto is missing from the catalog');

/** Keys of the right shape for each provider (Cloudflare's is account_id:api_token). */
function headersWith(perProvider: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const plugin of plugins) {
    const keys = Array.from({ length: perProvider }, (_, i) =>
      plugin.id === 'cloudflare' ? `${'0123456789abcdef0123456789abcd'}${String(i).padStart(2, '0')}:CFbenchToken${i}abcdefghij` : `bench${i}${plugin.id}Key0123456789abcdefghij`,
    );
    headers[plugin.header.toLowerCase()] = keys.join(',');
  }
  return headers;
}

const rounds = 3_000;
for (const perProvider of [1, 4, 16]) {
  const headers = headersWith(perProvider);
  for (let i = 0; i < 300; i++) await router.plan({ entry: auto, keys: readKeys(headers), needs: [] });
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await router.plan({ entry: auto, keys: readKeys(headers), needs: [] });
  const us = ((performance.now() - started) / rounds) * 1000;
  console.log(`${plugins.length} providers x ${String(perProvider).padStart(2)} keys: ${us.toFixed(0).padStart(5)} µs to read the headers and plan free:auto`);
}
await health.close();
