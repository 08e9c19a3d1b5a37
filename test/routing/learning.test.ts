import { expect } from 'chai';
import type { CatalogModel } from '../../catalog/catalog.ts';
import { createLearning } from '../../server/models/learning.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';

/** A catalog model as learning reads it: its ids, and its provider's reading of rate-limit headers. */
const modelOf = (id: string): CatalogModel =>
  ({
    id: `groq/${id}`,
    spec: { id },
    provider: { id: 'groq', readQuota: (headers: Readonly<Record<string, string>>) => (headers['x-ratelimit-limit-tokens'] ? { limitTokens: Number(headers['x-ratelimit-limit-tokens']) } : undefined) },
  }) as unknown as CatalogModel;

describe('what attempts teach, kept by the models layer (models/learning.ts)', () => {
  let clock = 1_000_000;
  const now = (): number => clock;

  it('keeps a per-request limit for its key and model for LEARNED_LIMIT_MS, and no longer', async () => {
    const learning = createLearning({ health: createMemoryHealthStore(), limitKeepMs: 60_000, maxLimits: 10, now });
    const model = modelOf('m');
    await learning.failed({ healthId: 'groq:a', model }, { requestLimit: 6_000, reason: 'Request too large' });
    expect(learning.requestLimit('groq:a', model)).to.equal(6_000);
    expect(learning.requestLimit('groq:b', model)).to.equal(undefined);
    clock += 60_000;
    expect(learning.requestLimit('groq:a', model)).to.equal(undefined);
  });

  it('holds at most HEALTH_MAX_RECORDS per-request limits: past it the least recently learnt goes', async () => {
    const learning = createLearning({ health: createMemoryHealthStore(), limitKeepMs: 60_000, maxLimits: 3, now });
    const model = modelOf('m');
    for (let key = 0; key < 1_000; key++) await learning.failed({ healthId: `groq:${key}`, model }, { requestLimit: 1_000 + key, reason: 'too large' });
    const kept = Array.from({ length: 1_000 }, (_, key) => learning.requestLimit(`groq:${key}`, model)).filter((limit) => limit !== undefined);
    expect(kept).to.deep.equal([1_997, 1_998, 1_999]);
  });

  it('an answer records the key healthy and learns its per-request limit from its rate-limit headers; an output maximum is per model', async () => {
    const health = createMemoryHealthStore();
    const learning = createLearning({ health, limitKeepMs: 60_000, maxLimits: 10, now });
    const model = modelOf('m');
    await learning.failed({ healthId: 'groq:a', model }, { health: { kind: 'invalid_key', reason: '401' }, outputLimit: 8_192, reason: '401' });
    expect((await health.get(['groq:a']))[0]?.state).to.not.equal('healthy');
    expect(learning.outputLimit(model)).to.equal(8_192);
    expect(learning.outputLimit(modelOf('other'))).to.equal(undefined);
    await learning.answered({ healthId: 'groq:a', model }, { 'x-ratelimit-limit-tokens': '12000' });
    expect((await health.get(['groq:a']))[0]?.state).to.equal('healthy');
    expect(learning.requestLimit('groq:a', model)).to.equal(12_000);
  });
});
