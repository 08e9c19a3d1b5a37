import { expect } from 'chai';
import {
  ANSWER_EVENT,
  REQUEST_EVENT,
  createMemoryUsageStore,
  createUsageCounter,
  usageDays,
  withUsageFallback,
  type UsageRecord,
  type UsageStore,
} from '../../server/state/usage-records.ts';

/*
 * The usage store keeps counts per key, model and UTC day, bounded like every store;
 * the counter adds them up on the request path without waiting on the store.
 */

const DAY = '2026-11-27';
const NOON = Date.parse(`${DAY}T12:00:00Z`);

const record = (id: string, model: string, counts: Partial<UsageRecord> = {}): UsageRecord => ({
  id,
  day: DAY,
  model,
  requests: 1,
  answers: 1,
  failures: {},
  inputTokens: 0,
  outputTokens: 0,
  ...counts,
});

const counts = (records: readonly UsageRecord[]): Array<[string, number]> => records.map((found) => [found.model, found.requests]);

/** A store whose every call fails, as a shared store that does not answer. */
const unreachable: UsageStore = {
  add: () => Promise.reject(new Error('connect ECONNREFUSED')),
  get: () => Promise.reject(new Error('connect ECONNREFUSED')),
  close: async () => {},
};

describe('usage per key: the memory store', function () {
  it('adds counts up per key, model and day, failures by kind', async function () {
    const store = createMemoryUsageStore();
    await store.add([record('groq:a', 'groq/m1', { failures: { timeout: 1 }, inputTokens: 7 })], NOON);
    await store.add([record('groq:a', 'groq/m1', { failures: { timeout: 2, server: 1 }, outputTokens: 3 }), record('groq:b', 'groq/m1')], NOON);
    const [a, b, none] = await store.get(['groq:a', 'groq:b', 'groq:c'], [DAY]);
    expect(a).to.deep.equal([{ id: 'groq:a', day: DAY, model: 'groq/m1', requests: 2, answers: 2, failures: { timeout: 3, server: 1 }, inputTokens: 7, outputTokens: 3 }]);
    expect(counts(b ?? [])).to.deep.equal([['groq/m1', 1]]);
    expect(none).to.deep.equal([]);
    await store.close();
  });

  it('filled past USAGE_MAX_RECORDS, drops the least recently written record first', async function () {
    const store = createMemoryUsageStore(3);
    await store.add([record('groq:a', 'groq/m1'), record('groq:a', 'groq/m2'), record('groq:b', 'groq/m1')], NOON);
    // Written again: now the most recent, so m2 is the oldest.
    await store.add([record('groq:a', 'groq/m1')], NOON);
    await store.add([record('groq:c', 'groq/m1')], NOON);
    const [a, b, c] = await store.get(['groq:a', 'groq:b', 'groq:c'], [DAY]);
    expect(counts(a ?? [])).to.deep.equal([['groq/m1', 2]]);
    expect(counts(b ?? [])).to.deep.equal([['groq/m1', 1]]);
    expect(counts(c ?? [])).to.deep.equal([['groq/m1', 1]]);
    await store.add([record('groq:d', 'groq/m1'), record('groq:e', 'groq/m1')], NOON);
    const after = await store.get(['groq:a', 'groq:b', 'groq:c', 'groq:d', 'groq:e'], [DAY]);
    expect(after.map((found) => found.length)).to.deep.equal([0, 0, 1, 1, 1]);
    await store.close();
  });

  it('forgets a day once it is seven days old (swept), and reads only the days asked for', async function () {
    let now = NOON;
    const store = createMemoryUsageStore(100, 10, () => now);
    await store.add([record('groq:a', 'groq/m1'), { ...record('groq:a', 'groq/m1'), day: '2026-11-26' }], now);
    expect(counts((await store.get(['groq:a'], ['2026-11-26']))[0] ?? [])).to.deep.equal([['groq/m1', 1]]);
    now = Date.parse('2026-12-03T00:00:00Z');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await store.get(['groq:a'], ['2026-11-26', DAY]))[0]?.map((found) => found.day)).to.deep.equal([DAY]);
    await store.close();
  });

  it('the days shown are today and the six before it, newest first', function () {
    expect(usageDays(NOON)).to.deep.equal(['2026-11-27', '2026-11-26', '2026-11-25', '2026-11-24', '2026-11-23', '2026-11-22', '2026-11-21']);
  });
});

describe('usage per key: the counter', function () {
  it('counts without touching the store, then writes everything pending in one call', async function () {
    const writes: UsageRecord[][] = [];
    const memory = createMemoryUsageStore();
    const store: UsageStore = { ...memory, add: (records, now) => (writes.push([...records]), memory.add(records, now)) };
    const counter = createUsageCounter({ store, warn: () => {}, now: () => NOON, flushMs: 60_000 });
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    counter.count('groq:a', 'groq/m1', { kind: 'failure', failure: 'rate_limited' });
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    counter.count('groq:a', 'groq/m1', ANSWER_EVENT);
    counter.count('groq:a', 'groq/m1', { kind: 'tokens', input: 12, output: undefined });
    counter.count('groq:b', 'groq/m2', REQUEST_EVENT);
    expect(writes).to.have.length(0);
    const [a, b] = await counter.read(['groq:a', 'groq:b']);
    expect(writes).to.have.length(1);
    expect(a).to.deep.equal([{ id: 'groq:a', day: DAY, model: 'groq/m1', requests: 2, answers: 1, failures: { rate_limited: 1 }, inputTokens: 12, outputTokens: 0 }]);
    expect(counts(b ?? [])).to.deep.equal([['groq/m2', 1]]);
    await counter.close();
    await memory.close();
  });

  it('writes on its own after flushMs, and counts nothing for calls without a key', async function () {
    const memory = createMemoryUsageStore();
    const counter = createUsageCounter({ store: memory, warn: () => {}, now: () => NOON, flushMs: 10 });
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    counter.count('ovhcloud:anonymous', 'ovhcloud/m', REQUEST_EVENT);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(counts((await memory.get(['groq:a'], [DAY]))[0] ?? [])).to.deep.equal([['groq/m1', 1]]);
    expect(await memory.get(['ovhcloud:anonymous'], [DAY])).to.deep.equal([[]]);
    await counter.close();
    await memory.close();
  });

  it('counts pending across midnight stay on the day they were made: the day before is written first', async function () {
    const memory = createMemoryUsageStore();
    let at = Date.parse(`${DAY}T23:59:59.900Z`);
    const counter = createUsageCounter({ store: memory, warn: () => {}, now: () => at, flushMs: 60_000 });
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    at += 200;
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    const [a] = await counter.read(['groq:a']);
    expect((a ?? []).map((found) => [found.day, found.requests])).to.have.deep.members([
      [DAY, 2],
      ['2026-11-28', 1],
    ]);
    await counter.close();
    await memory.close();
  });

  it('a store that fails is logged and its counts dropped; requests never see it', async function () {
    const warned: string[] = [];
    const counter = createUsageCounter({ store: unreachable, warn: (_topic, message) => warned.push(message), now: () => NOON });
    counter.count('groq:a', 'groq/m1', REQUEST_EVENT);
    await counter.close();
    expect(warned).to.deep.equal(['Usage per key not recorded: its store did not answer']);
  });

  it('a shared store that does not answer: counts go to this process\'s memory and reads add both', async function () {
    const warned: string[] = [];
    const shared = createMemoryUsageStore();
    await shared.add([record('groq:a', 'groq/m1', { requests: 3 })], NOON);
    let down = false;
    const flaky: UsageStore = { add: (records, now) => (down ? unreachable.add(records, now) : shared.add(records, now)), get: (ids, days) => shared.get(ids, days), close: async () => {} };
    const store = withUsageFallback(flaky, createMemoryUsageStore(), (_topic, message) => warned.push(message), 'Redis');
    down = true;
    await store.add([record('groq:a', 'groq/m1', { requests: 2, failures: { server: 1 } })], NOON);
    expect(warned).to.deep.equal(["Usage per key kept in this process's memory: Redis did not answer"]);
    const [a] = await store.get(['groq:a'], [DAY]);
    expect(a?.map((found) => [found.requests, found.failures])).to.deep.equal([[5, { server: 1 }]]);
    await store.close();
    await shared.close();
  });
});
