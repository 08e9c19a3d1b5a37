/**
 * CPU per request of counting usage per key, without HTTP: what the router adds to one answered
 * request (an attempt, its answer, its tokens: three `count` calls) and the writes the counter
 * makes every 100 ms into the memory store, for requests spread over KEYS keys (1000 by default)
 * and two models. The stream's finish costs nothing more: the normaliser hands its usage over
 * once, when the stream ends, so nothing runs per part.
 *
 *   node scripts/bench/usage-counting.ts
 *   KEYS=1 node scripts/bench/usage-counting.ts
 */
import { ANSWER_EVENT, REQUEST_EVENT, createMemoryUsageStore, createUsageCounter, type UsageStore } from '../../server/state/usage-records.ts';

const keys = Number(process.env.KEYS ?? 1000);
const ids = Array.from({ length: keys }, (_, i) => `groq:${i.toString(16).padStart(64, '0')}`);
const models = ['groq/openai/gpt-oss-120b', 'groq/openai/gpt-oss-20b'];
/** Requests between two writes: what a process serving 10,000 requests a second counts in 100 ms. */
const perFlush = 1_000;

interface Counted {
  readonly store: UsageStore;
  readonly counter: ReturnType<typeof createUsageCounter>;
}

function counting(): Counted {
  const store = createMemoryUsageStore(100_000);
  // Never flushed on a timer here: the loop writes every `perFlush` requests, as the timer would.
  return { store, counter: createUsageCounter({ store, warn: () => {}, flushMs: 3_600_000 }) };
}

async function measure(name: string, requests: number, { counter }: Counted): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) {
    const id = ids[i % ids.length] as string;
    const model = models[i & 1] as string;
    counter.count(id, model, REQUEST_EVENT);
    counter.count(id, model, ANSWER_EVENT);
    counter.count(id, model, { kind: 'tokens', input: 7, output: 20 });
    // The write a timer would make, and the read before GET /v1/providers answers.
    if (i % perFlush === perFlush - 1) await counter.read([]);
  }
  await counter.read([]);
  const micros = Number(process.hrtime.bigint() - started) / 1000 / requests;
  console.log(`${name.padEnd(36)} ${micros.toFixed(3).padStart(7)} µs per request`);
  return micros;
}

const warm = counting();
await measure('warm-up', 200_000, warm);
const runs: number[] = [];
for (let run = 0; run < 5; run++) {
  const fresh = counting();
  runs.push(await measure(`${keys} keys, run ${run + 1}`, 500_000, fresh));
  await fresh.counter.close();
  await fresh.store.close();
}
runs.sort((a, b) => a - b);
console.log(`median ${runs[2]?.toFixed(3)} µs per request (three counts and the share of a write into memory)`);
await warm.counter.close();
await warm.store.close();
