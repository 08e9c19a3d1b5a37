/**
 * What a key's live model list costs a request once it is cached: planning a
 * `free:auto` request with one Groq key, (a) with MODELS_LIVE=off, (b) with the
 * key's list cached (no upstream call), (c) with the list cached and one model
 * quarantined for the key. In-process, memory stores, so the figures are
 * Freeway's own CPU per request.
 *
 *   node scripts/bench/live-lists.ts
 */
import { buildCatalog, isAlias } from '../../catalog/catalog.ts';
import { kindFromId, openAIModelListing } from '../../providers/openai-compatible.ts';
import { loadProviderPlugins } from '../../providers/loader.ts';
import type { FetchFunction, ProviderPlugin } from '../../providers/types.ts';
import { loadConfig } from '../../server/config/index.ts';
import { createRedactor } from '../../server/core/redact.ts';
import { createModelKnowledge } from '../../server/models/model-knowledge.ts';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { createLatencyTracker } from '../../server/routing/latency.ts';
import { createRouter } from '../../server/routing/router.ts';
import { createMemoryKnowledgeStore } from '../../server/state/knowledge.ts';

const found = (await loadProviderPlugins()).find((plugin) => plugin.id === 'groq');
if (!found) throw new Error('the groq plugin is missing');
// The listing of the live-model tests, so that the figure does not depend on the plugin's own.
const groq: ProviderPlugin = {
  ...found,
  listing: openAIModelListing('bench', (entry) => ({ id: entry.id, kind: kindFromId(entry.id), free: true })),
};
const listed = [...groq.models.filter((model) => !model.deprecated).map((model) => model.id), 'live-only-a', 'live-only-b', 'whisper-large-v3'];
const listingBody = JSON.stringify({ object: 'list', data: listed.map((id) => ({ id, object: 'model' })) });
let listingCalls = 0;
const fetch = (async () => {
  listingCalls += 1;
  return new Response(listingBody, { status: 200, headers: { 'content-type': 'application/json' } });
}) as FetchFunction;

const catalog = buildCatalog([groq]);
const auto = catalog.byId.get('free:auto');
if (!auto || !isAlias(auto)) throw new Error('free:auto is missing');
const hashKey = createKeyHasher('bench-secret-0123456789abcdef');
const keys = new Map([['groq', ['gsk_benchLiveListKey0123456789abcdefABCD']]]);

function routerWith(live: 'on' | 'off') {
  const config = loadConfig({ MODELS_LIVE: live }, [groq]);
  const health = createMemoryHealthStore();
  const knowledge = createModelKnowledge({
    config,
    catalog,
    store: createMemoryKnowledgeStore(config.models.maxKeys, config.models.maxBytes),
    health,
    fetch,
    now: Date.now,
  });
  const router = createRouter({ config, health, hashKey, latency: createLatencyTracker(), redact: createRedactor([groq]), knowledge, providers: catalog.providers });
  return { router, knowledge };
}

async function perPlan(router: ReturnType<typeof routerWith>['router'], rounds = 200_000): Promise<number> {
  for (let i = 0; i < 20_000; i++) await router.plan({ entry: auto as never, keys: keys, needs: [] });
  const started = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await router.plan({ entry: auto as never, keys: keys, needs: [] });
  const used = process.cpuUsage(started);
  return (used.user + used.system) / rounds;
}

const off = routerWith('off');
const on = routerWith('on');
await on.router.plan({ entry: auto, keys: keys, needs: [] });
const callsAfterFirst = listingCalls;
const quarantined = routerWith('on');
await quarantined.router.plan({ entry: auto, keys: keys, needs: [] });
await quarantined.knowledge.quarantines.add({ healthId: hashKey('groq', keys.get('groq')?.[0] as string), modelId: 'live-only-a', reason: '404 model not found', scope: 'key' });

const results: Array<[string, number]> = [];
for (let round = 0; round < 3; round++) {
  results.push(['MODELS_LIVE=off', await perPlan(off.router)]);
  results.push(['list cached', await perPlan(on.router)]);
  results.push(['list cached, one model quarantined', await perPlan(quarantined.router)]);
}
const median = (name: string): number => {
  const values = results.filter(([label]) => label === name).map(([, value]) => value).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] as number;
};
const base = median('MODELS_LIVE=off');
console.log(`CPU per free:auto plan with one Groq key (median of 3 rounds of 200000):`);
for (const name of ['MODELS_LIVE=off', 'list cached', 'list cached, one model quarantined']) {
  const value = median(name);
  console.log(`- ${name}: ${value.toFixed(2)} µs${name === 'MODELS_LIVE=off' ? '' : ` (+${(value - base).toFixed(2)} µs)`}`);
}
console.log(`- listing calls: ${listingCalls} (${callsAfterFirst} by the first plan of a router, one more by the other router with a list; none by the ${6 * 220_000} cached plans)`);
on.knowledge.close();
off.knowledge.close();
quarantined.knowledge.close();
process.exit(0);
