import { expect } from 'chai';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * The one worker-to-primary channel (server/state/cluster/channel.ts), seen from the
 * primary's side: the test forks a stand-in worker (test/support/worker-stores.ts)
 * and plays its primary.
 */

interface Asked {
  readonly freeway?: string;
  readonly seq?: number;
  readonly call?: { readonly op: string };
  readonly result?: unknown;
  readonly ready?: boolean;
}

interface Worker {
  readonly child: ChildProcess;
  /** The calls the worker made of its primary, in order. */
  readonly asked: Asked[];
  /** What the test (the primary) does with each call; nothing (silence) when it returns undefined. */
  answer: (asked: Asked) => unknown;
  command(cmd: string): Promise<unknown>;
}

async function startWorker(): Promise<Worker> {
  const child = fork(fileURLToPath(new URL('../support/worker-stores.ts', import.meta.url)), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const results: unknown[] = [];
  const wakers: Array<() => void> = [];
  const worker: Worker = {
    child,
    asked: [],
    answer: () => undefined,
    async command(cmd) {
      child.send({ cmd });
      while (results.length === 0) await new Promise<void>((resolve) => wakers.push(resolve));
      return results.shift();
    },
  };
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => (ready = resolve));
  child.on('message', (message: Asked) => {
    if (message.ready) return ready();
    if (message.freeway === 'store') {
      worker.asked.push(message);
      const value = worker.answer(message);
      if (value !== undefined) child.send({ freeway: 'store', seq: message.seq, value });
      return;
    }
    results.push(message.result);
    wakers.shift()?.();
  });
  await started;
  return worker;
}

describe('cluster channel: one request/reply channel from a worker to the primary, for stores and metrics', function () {
  this.timeout(20_000);
  let worker: Worker;
  beforeEach(async () => {
    worker = await startWorker();
  });
  afterEach(() => {
    worker.child.kill('SIGKILL');
  });

  it('a metrics scrape travels on the same channel as the store calls, each reply matched to its call by sequence', async () => {
    const held: Asked[] = [];
    // Holds both calls, then answers them in the reverse order of their asking.
    worker.answer = (asked) => {
      held.push(asked);
      if (held.length === 2) {
        for (const call of held.reverse()) {
          const value = call.call?.op === 'metrics.scrape' ? 'freeway_requests_in_flight 3\n' : { totalHits: 2, resetTime: Date.now() + 60_000 };
          worker.child.send({ freeway: 'store', seq: call.seq, value });
        }
      }
      return undefined;
    };
    expect(await worker.command('both')).to.deep.equal([2, 'freeway_requests_in_flight 3\n']);
    expect(worker.asked.map((asked) => asked.call?.op)).to.deep.equal(['rl.increment', 'metrics.scrape']);
    expect(new Set(worker.asked.map((asked) => asked.seq)).size).to.equal(2);
  });

  it('while store calls skip a primary that went silent, a metrics scrape still asks it', async () => {
    worker.answer = (asked) => (asked.call?.op === 'metrics.scrape' ? 'freeway_rate_limited_total 0\n' : undefined);
    // The primary does not answer the store call: the rate limit fails open (1 hit), and store calls go quiet.
    expect(await worker.command('increment')).to.equal(1);
    expect(await worker.command('increment')).to.equal(1);
    expect(worker.asked.map((asked) => asked.call?.op)).to.deep.equal(['rl.increment']);
    expect(await worker.command('metrics')).to.equal('freeway_rate_limited_total 0\n');
    expect(worker.asked.map((asked) => asked.call?.op)).to.deep.equal(['rl.increment', 'metrics.scrape']);
  });

  it('a primary that answers a call with an error fails that call alone', async () => {
    worker.answer = (asked) => {
      if (asked.call?.op === 'metrics.scrape') worker.child.send({ freeway: 'store', seq: asked.seq, error: 'metrics are off' });
      return asked.call?.op === 'rl.increment' ? { totalHits: 3, resetTime: Date.now() + 60_000 } : undefined;
    };
    expect(await worker.command('metrics')).to.equal('failed: metrics are off');
    expect(await worker.command('increment')).to.equal(3);
  });
});
