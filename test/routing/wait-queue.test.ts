/**
 * The wait queue on its own: arrival order per key, one request let go at a time, the budget,
 * a caller that leaves, WAIT_QUEUE_MAX, shutdown; and the concurrency slots it waits for, in
 * memory, through the cluster primary, with leases that expire.
 */
import { expect } from 'chai';
import { createWaitQueue, type HoldOutcome, type WaitQueue } from '../../server/routing/wait-queue.ts';
import { createMemorySlotStore } from '../../server/state/slots.ts';
import { createPrimaryStores } from '../../server/state/cluster/primary-stores.ts';
import { createWorkerStores } from '../../server/state/cluster/worker-stores.ts';
import { loadConfig } from '../../server/config/index.ts';
import { healthPolicy } from '../../server/routing/health-policy.ts';
import { providerPlugins } from '../support/plugins.ts';
import { Writable } from 'node:stream';
import { createLogger } from '../../server/http/process-logger.ts';

const never = new AbortController().signal;

/** Holds a request for `keys` (ready at `readyAt`), and records the order in which requests are let go. */
function holder(queue: WaitQueue, released: string[]) {
  return (name: string, keys: ReadonlyArray<{ id: string; readyAt?: number }>, options: { deadline?: number; signal?: AbortSignal } = {}): Promise<HoldOutcome> =>
    queue.hold({ keys, deadline: options.deadline ?? Date.now() + 10_000, signal: options.signal ?? never, order: queue.nextOrder() }).then((outcome) => {
      if (outcome.kind === 'ready') released.push(name);
      return outcome;
    });
}

describe('the wait queue', () => {
  it('lets one request of a key go at a time, in arrival order, the next only once the one before has had its turn', async () => {
    const queue = createWaitQueue(10);
    const released: string[] = [];
    const hold = holder(queue, released);
    const at = Date.now() + 50;
    const held = ['a', 'b', 'c'].map((name) => hold(name, [{ id: 'groq:k' }].map((key) => ({ ...key, readyAt: at }))));
    const first = await held[0];
    expect(released).to.deep.equal(['a']);
    expect(queue.held()).to.equal(2);
    // Nothing else goes while `a` has its turn.
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(released).to.deep.equal(['a']);
    if (first?.kind === 'ready') first.release();
    const second = await held[1];
    expect(released).to.deep.equal(['a', 'b']);
    if (second?.kind === 'ready') second.release();
    const third = await held[2];
    if (third?.kind === 'ready') third.release();
    expect(released).to.deep.equal(['a', 'b', 'c']);
    expect(queue.held()).to.equal(0);
    expect(queue.queuedUntil('groq:k')).to.equal(undefined);
  });

  it('a request held again after its turn goes back to its place, before those that came after it', async () => {
    const queue = createWaitQueue(10);
    const released: string[] = [];
    const first = queue.nextOrder();
    const second = queue.nextOrder();
    const later = queue.hold({ keys: [{ id: 'k', readyAt: Date.now() + 30 }], deadline: Date.now() + 5_000, signal: never, order: second });
    const again = queue.hold({ keys: [{ id: 'k', readyAt: Date.now() + 30 }], deadline: Date.now() + 5_000, signal: never, order: first });
    void later.then((outcome) => outcome.kind === 'ready' && released.push('second'));
    const outcome = await again;
    released.push('first');
    expect(released).to.deep.equal(['first']);
    if (outcome.kind === 'ready') outcome.release();
    expect((await later).kind).to.equal('ready');
  });

  it('a request held for two keys goes with whichever opens first, and leaves the other lane', async () => {
    const queue = createWaitQueue(10);
    const outcome = await queue.hold({ keys: [{ id: 'slow', readyAt: Date.now() + 5_000 }, { id: 'fast', readyAt: Date.now() + 20 }], deadline: Date.now() + 10_000, signal: never, order: queue.nextOrder() });
    expect(outcome).to.deep.include({ kind: 'ready', key: 'fast' });
    expect(queue.queuedUntil('slow')).to.equal(undefined);
    if (outcome.kind === 'ready') outcome.release();
  });

  it('a key whose slot is given back here wakes its lane at once', async () => {
    const queue = createWaitQueue(10);
    const held = queue.hold({ keys: [{ id: 'zai:k', readyAt: Date.now() + 60_000 }], deadline: Date.now() + 120_000, signal: never, order: queue.nextOrder() });
    queue.wake('zai:k');
    const outcome = await held;
    expect(outcome.kind).to.equal('ready');
    if (outcome.kind === 'ready') outcome.release();
  });

  it('its budget ends a wait: expired, and the next in line is not held up', async () => {
    const queue = createWaitQueue(10);
    const outcome = await queue.hold({ keys: [{ id: 'k', readyAt: Date.now() + 60_000 }], deadline: Date.now() + 30, signal: never, order: queue.nextOrder() });
    expect(outcome.kind).to.equal('expired');
    expect(queue.held()).to.equal(0);
    expect(queue.queuedUntil('k')).to.equal(undefined);
  });

  it('a caller that goes away leaves at once; one already gone is never held', async () => {
    const queue = createWaitQueue(10);
    const leaving = new AbortController();
    const held = queue.hold({ keys: [{ id: 'k', readyAt: Date.now() + 60_000 }], deadline: Date.now() + 120_000, signal: leaving.signal, order: queue.nextOrder() });
    expect(queue.held()).to.equal(1);
    leaving.abort();
    expect((await held).kind).to.equal('aborted');
    expect(queue.held()).to.equal(0);
    expect((await queue.hold({ keys: [{ id: 'k', readyAt: 0 }], deadline: Date.now() + 1_000, signal: leaving.signal, order: 1 })).kind).to.equal('aborted');
  });

  it('holds at most WAIT_QUEUE_MAX requests: the next is answered `full` at once', async () => {
    const queue = createWaitQueue(2);
    const later = Date.now() + 60_000;
    const held = [1, 2].map(() => queue.hold({ keys: [{ id: 'k', readyAt: later }], deadline: later + 1_000, signal: never, order: queue.nextOrder() }));
    expect((await queue.hold({ keys: [{ id: 'k', readyAt: later }], deadline: later + 1_000, signal: never, order: queue.nextOrder() })).kind).to.equal('full');
    queue.close();
    for (const outcome of await Promise.all(held)) expect(outcome.kind).to.equal('closed');
  });

  it('close answers every held request and every later one `closed`, and leaves no timer', async () => {
    const queue = createWaitQueue(10);
    const held = queue.hold({ keys: [{ id: 'k', readyAt: Date.now() + 60_000 }], deadline: Date.now() + 120_000, signal: never, order: queue.nextOrder() });
    queue.close();
    expect((await held).kind).to.equal('closed');
    expect((await queue.hold({ keys: [{ id: 'k', readyAt: 0 }], deadline: Date.now() + 1_000, signal: never, order: 9 })).kind).to.equal('closed');
    expect(queue.held()).to.equal(0);
  });
});

describe('concurrency slots', () => {
  it('in memory: at most the limit per key, given back, and a lease that is not renewed expires', async () => {
    let clock = 1_000;
    const slots = createMemorySlotStore(100, () => clock);
    const one = await slots.take('zai:a', 1, 30_000);
    expect(one).to.be.a('string');
    expect(await slots.take('zai:a', 1, 30_000)).to.equal(undefined);
    expect(await slots.take('zai:b', 1, 30_000), 'another key has its own').to.be.a('string');
    await slots.give('zai:a', one as string);
    const two = await slots.take('zai:a', 1, 30_000);
    expect(two).to.be.a('string');
    // A crashed worker never gives its slot back: it is free again once its lease runs out.
    clock += 20_000;
    await slots.renew('zai:a', two as string, 30_000);
    clock += 20_000;
    expect(await slots.take('zai:a', 1, 30_000), 'renewed: still held').to.equal(undefined);
    clock += 30_001;
    expect(await slots.take('zai:a', 1, 30_000), 'expired').to.be.a('string');
  });

  it('in memory: bounded by the keys it keeps', async () => {
    const slots = createMemorySlotStore(3);
    for (let i = 0; i < 10; i++) expect(await slots.take(`zai:${i}`, 1, 30_000)).to.be.a('string');
    // The oldest keys were forgotten (one request more could go, never one held): the newest are still counted.
    expect(await slots.take('zai:9', 1, 30_000)).to.equal(undefined);
    expect(await slots.take('zai:0', 1, 30_000)).to.be.a('string');
  });

  it('through the cluster primary: two workers share the same slots', async () => {
    const config = loadConfig({}, await providerPlugins());
    const primary = createPrimaryStores(config, healthPolicy);
    const ask = <T>(call: unknown): Promise<T> => primary.run(call as Parameters<typeof primary.run>[0]) as Promise<T>;
    const logger = createLogger('warn', new Writable({ write: (_chunk, _encoding, done) => done() }));
    const a = createWorkerStores(logger, healthPolicy, { ask }).slotStore;
    const b = createWorkerStores(logger, healthPolicy, { ask }).slotStore;
    const lease = await a.take('zai:k', 1, 30_000);
    expect(lease).to.be.a('string');
    expect(await b.take('zai:k', 1, 30_000)).to.equal(undefined);
    await a.give('zai:k', lease as string);
    expect(await b.take('zai:k', 1, 30_000)).to.be.a('string');
    await primary.close();
  });
});
