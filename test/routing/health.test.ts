import { expect } from 'chai';
import type { HealthRecord, Outcome } from '../../server/state/health-records.ts';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { createMemoryHealthStore, HEALTH_TIMINGS, nextHealth, viewHealth } from '../../server/routing/health-policy.ts';

const failure: Outcome = { kind: 'failure', reason: '500 boom' };
const t0 = 1_000_000;

function run(outcomes: Outcome[], start = t0): HealthRecord | undefined {
  let record: HealthRecord | undefined;
  outcomes.forEach((outcome, i) => (record = nextHealth(record, outcome, start + i)));
  return record;
}

describe('health state machine', () => {
  it('an unknown key is healthy and usable', () => {
    expect(viewHealth(undefined, t0)).to.deep.include({ state: 'healthy', consecutiveFailures: 0, tier: 0, retryAfter: undefined });
  });

  it('counts failures while staying healthy, and goes down on the third', () => {
    expect(viewHealth(run([failure, failure]), t0 + 2)).to.deep.include({ state: 'healthy', consecutiveFailures: 2, tier: 0 });
    const down = run([failure, failure, failure]);
    expect(down?.state).to.equal('down');
    expect(viewHealth(down, t0 + 2)).to.deep.include({ state: 'down', consecutiveFailures: 3, retryAfter: 30, tier: 2 });
  });

  it('a success anywhere resets to healthy with 0 failures', () => {
    for (const before of [
      [failure, failure],
      [failure, failure, failure],
      [{ kind: 'rate_limited', retryAfterMs: 5000, reason: '429' } as Outcome],
      [{ kind: 'invalid_key', reason: '401' } as Outcome],
    ]) {
      const record = run([...before, { kind: 'success' }]);
      expect(viewHealth(record, t0 + 10)).to.deep.include({ state: 'healthy', consecutiveFailures: 0, tier: 0 });
    }
  });

  it('rate_limited is skipped for its Retry-After, 60 s without one, then usable', () => {
    const given = nextHealth(undefined, { kind: 'rate_limited', retryAfterMs: 12_000, reason: '429' }, t0);
    expect(viewHealth(given, t0 + 1).retryAfter).to.equal(12);
    expect(viewHealth(given, t0 + 12_001)).to.deep.include({ state: 'healthy', tier: 0 });
    const fallback = nextHealth(undefined, { kind: 'rate_limited', retryAfterMs: undefined, reason: '429' }, t0);
    expect(viewHealth(fallback, t0).retryAfter).to.equal(HEALTH_TIMINGS.defaultRetryAfterMs / 1000);
  });

  it('down becomes half-open after its cooldown; failed probes double it up to 5 minutes', () => {
    let record = run([failure, failure, failure]) as HealthRecord;
    let at = t0 + 2;
    const cooldowns: number[] = [];
    for (let i = 0; i < 6; i++) {
      at += record.cooldownMs;
      expect(viewHealth(record, at)).to.deep.include({ state: 'half_open', tier: 1 });
      record = nextHealth(record, failure, at);
      cooldowns.push(record.cooldownMs / 1000);
    }
    expect(cooldowns).to.deep.equal([60, 120, 240, 300, 300, 300]);
  });

  it('a long Retry-After (a daily quota) is honoured, up to a day', () => {
    const daily = nextHealth(undefined, { kind: 'rate_limited', retryAfterMs: 5 * 3_600_000, reason: '429 tokens per day' }, t0);
    expect(viewHealth(daily, t0 + 4 * 3_600_000)).to.deep.include({ state: 'rate_limited', retryAfter: 3_600, tier: 2 });
    expect(viewHealth(daily, t0 + 5 * 3_600_000)).to.deep.include({ state: 'healthy', tier: 0 });
    const absurd = nextHealth(undefined, { kind: 'rate_limited', retryAfterMs: 400 * 86_400_000, reason: '429' }, t0);
    expect(absurd.until - t0).to.equal(HEALTH_TIMINGS.maxSkipMs);
  });

  it('a success reporting no requests or no tokens left sits the key out until that budget resets', () => {
    const spent = nextHealth(run([failure, failure]), { kind: 'success', quota: { remainingRequests: 0, requestsResetAt: t0 + 90_000, remainingTokens: 500 } }, t0);
    expect(viewHealth(spent, t0 + 1_000)).to.deep.include({
      state: 'rate_limited',
      consecutiveFailures: 0,
      retryAfter: 89,
      reason: 'no requests left until the quota resets',
      tier: 2,
    });
    expect(viewHealth(spent, t0 + 90_000)).to.deep.include({ state: 'healthy', tier: 0 });
    const tokens = nextHealth(undefined, { kind: 'success', quota: { remainingRequests: 3, requestsResetAt: t0 + 5_000, remainingTokens: 0, tokensResetAt: t0 + 7_000 } }, t0);
    expect(viewHealth(tokens, t0)).to.deep.include({ state: 'rate_limited', retryAfter: 7, reason: 'no tokens left until the quota resets' });
    // No reset time given: the default wait.
    const unknown = nextHealth(undefined, { kind: 'success', quota: { remainingRequests: 0 } }, t0);
    expect(viewHealth(unknown, t0).retryAfter).to.equal(HEALTH_TIMINGS.defaultRetryAfterMs / 1000);
    // Something left: healthy, with the figures kept.
    const plenty = nextHealth(undefined, { kind: 'success', quota: { remainingRequests: 14_370, requestsResetAt: t0 + 179_560 } }, t0);
    expect(viewHealth(plenty, t0)).to.deep.include({ state: 'healthy', tier: 0, quota: { remainingRequests: 14_370, requestsResetAt: t0 + 179_560 } });
  });

  it('invalid_key keeps its reason and is skipped for 10 minutes', () => {
    const record = nextHealth(undefined, { kind: 'invalid_key', reason: '401 Invalid API key' }, t0);
    expect(viewHealth(record, t0)).to.deep.include({ state: 'invalid_key', retryAfter: 600, reason: '401 Invalid API key', tier: 2 });
  });
});

describe('memory health store', () => {
  it('lets exactly one half-open probe through until it reports', async () => {
    const store = createMemoryHealthStore();
    for (let i = 0; i < 3; i++) await store.record('groq:a', failure, t0);
    const after = t0 + HEALTH_TIMINGS.downCooldownMs + 1;
    expect(await store.claimProbe('groq:a', after)).to.equal(true);
    expect(await store.claimProbe('groq:a', after + 1)).to.equal(false);
    const [record] = await store.get(['groq:a']);
    expect(viewHealth(record, after + 1)).to.deep.include({ state: 'half_open', tier: 2 });
    await store.record('groq:a', { kind: 'success' }, after + 2);
    expect(viewHealth((await store.get(['groq:a']))[0], after + 3)).to.deep.include({ state: 'healthy', tier: 0 });
    await store.close();
  });

  it('keeps at most HEALTH_MAX_RECORDS records and turns, dropping the least recently written', async () => {
    const store = createMemoryHealthStore(600_000, () => t0, 3);
    for (const id of ['groq:a', 'groq:b', 'groq:c']) await store.record(id, failure, t0);
    // Written again, so no longer the oldest.
    await store.record('groq:a', failure, t0 + 1);
    // A flood of made-up keys, each failing once.
    for (let i = 0; i < 1000; i++) await store.record(`groq:flood${i}`, failure, t0 + 2);
    const [a, b, c] = await store.get(['groq:a', 'groq:b', 'groq:c']);
    expect([a, b, c]).to.deep.equal([undefined, undefined, undefined]);
    const kept = await store.get(['groq:flood997', 'groq:flood998', 'groq:flood999']);
    expect(kept.every((record) => record?.consecutiveFailures === 1)).to.equal(true);

    await store.record('groq:real', failure, t0 + 3);
    await store.record('groq:x', failure, t0 + 4);
    await store.record('groq:y', failure, t0 + 4);
    expect((await store.get(['groq:real']))[0]?.consecutiveFailures).to.equal(1);
    await store.record('groq:z', failure, t0 + 4);
    expect((await store.get(['groq:real']))[0]).to.equal(undefined);

    for (let i = 0; i < 10; i++) await store.nextTurn(`pool${i}`, t0);
    expect(await store.nextTurn('pool9', t0)).to.equal(1);
    // pool0 was dropped: its turn starts again from 0.
    expect(await store.nextTurn('pool0', t0)).to.equal(0);
    await store.close();
  });

  it('forgets keys not seen for an hour', async () => {
    let now = t0;
    const store = createMemoryHealthStore(20, () => now);
    await store.record('groq:old', failure, t0);
    await store.record('groq:new', failure, t0 + HEALTH_TIMINGS.forgetAfterMs - 1000);
    now = t0 + HEALTH_TIMINGS.forgetAfterMs + 1;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const [old, recent] = await store.get(['groq:old', 'groq:new']);
    expect(old).to.equal(undefined);
    expect(recent?.consecutiveFailures).to.equal(1);
    await store.close();
  });
});

describe('memory health store: what it keeps', () => {
  it('keeps a record that is skipped for longer than an hour until its wait ends', async () => {
    let now = t0;
    const store = createMemoryHealthStore(20, () => now);
    await store.record('groq:daily', { kind: 'rate_limited', retryAfterMs: 3 * 3_600_000, reason: '429 tokens per day' }, t0);
    now = t0 + 2 * 3_600_000;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await store.get(['groq:daily']))[0]?.state).to.equal('rate_limited');
    now = t0 + 3 * 3_600_000 + 1;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await store.get(['groq:daily']))[0]).to.equal(undefined);
    await store.close();
  });

  it('keeps a success, with its quota figures or without: a key that answered is known to be healthy', async () => {
    const store = createMemoryHealthStore();
    await store.record('groq:a', { kind: 'success' }, t0);
    await store.record('groq:b', { kind: 'success', quota: { remainingTokens: 12 } }, t0);
    const [a, b] = await store.get(['groq:a', 'groq:b']);
    expect(a).to.include({ state: 'healthy', consecutiveFailures: 0, lastSeen: t0 });
    expect(b?.quota).to.deep.equal({ remainingTokens: 12 });
    await store.close();
  });

  it('hands out the turns of a pool in order, each pool its own, and forgets them after an hour', async () => {
    let now = t0;
    const store = createMemoryHealthStore(20, () => now);
    const turns = [];
    for (let i = 0; i < 3; i++) turns.push(await store.nextTurn('groq:pool|m', now), await store.nextTurn('groq:other|m', now));
    expect(turns).to.deep.equal([0, 0, 1, 1, 2, 2]);
    now = t0 + HEALTH_TIMINGS.forgetAfterMs + 1;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await store.nextTurn('groq:pool|m', now)).to.equal(0);
    await store.close();
  });
});

describe('key hashing', () => {
  it('is an HMAC: stable per secret, different across secrets and providers, never the key', () => {
    const a = createKeyHasher('secret-a');
    const b = createKeyHasher('secret-b');
    const key = 'gsk_abcdefghijklmnopqrstuvwxyz';
    expect(a('groq', key)).to.equal(a('groq', key));
    expect(a('groq', key)).to.not.equal(b('groq', key));
    expect(a('groq', key)).to.match(/^groq:[A-Za-z0-9_-]{43}$/);
    expect(a('groq', key)).to.not.include(key.slice(4));
    expect(a('groq', key)).to.not.equal(a('groq', `${key}x`));
  });
});
