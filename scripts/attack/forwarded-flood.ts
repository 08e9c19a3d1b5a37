/**
 * Attack: a flood of requests, each from a new client address that Freeway
 * believes (a trusted loopback peer forwarding it), each also carrying a
 * forged 14 KB first X-Forwarded-For entry that is new every time. Freeway
 * keeps a rate-limit window per client, so without bounds every request adds
 * one (and with the forged entry as the key, 14 KB each) until the process
 * runs out of memory. Holds when RSS stays under `maxRssMb` and every request
 * is answered.
 *
 * 300,000 requests by default (three times RATE_LIMIT_MAX_CLIENTS, so eviction
 * runs for most of them; about 80 s on 2 cores); a count on the command line
 * sends that many instead.
 *
 *   node scripts/attack/forwarded-flood.ts [requests]
 */
import { Agent, request } from 'node:http';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';

export interface ForwardedFloodOptions {
  /** Requests to send, each with a client address of its own (300,000). */
  readonly requests: number;
  /** Requests in flight at once (64). */
  readonly concurrency: number;
  /** Size of the forged first X-Forwarded-For entry (14,000 bytes). */
  readonly padBytes: number;
  /** The bound that must hold (250 MB). */
  readonly maxRssMb: number;
  /** Extra environment for Freeway. */
  readonly env: Record<string, string>;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: ForwardedFloodOptions = { requests: 300_000, concurrency: 64, padBytes: 14_000, maxRssMb: 250, env: {} };

/**
 * The i-th of a million public IPv4 addresses, 11.100.100.100 to 11.199.199.199:
 * 14 characters each, as long as most real addresses (V8 keeps a substring of 13 or
 * more characters as a view into the whole header, so a short address would not show
 * a key that holds on to its 14 KB X-Forwarded-For header).
 */
const address = (i: number): string => `11.${100 + (Math.floor(i / 10_000) % 100)}.${100 + (Math.floor(i / 100) % 100)}.${100 + (i % 100)}`;

export async function run(options: Partial<ForwardedFloodOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const freeway = await startFreewayChild(opts.env, opts.root);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const pad = 'f'.repeat(Math.max(0, opts.padBytes - 8));
  const statuses = new Map<number, number>();
  let errors = 0;
  let next = 0;
  const baselineMb = freeway.rssMb();
  freeway.resetPeak();
  const started = performance.now();

  function send(i: number): Promise<void> {
    return new Promise((resolve) => {
      const req = request(
        `${freeway.url}/v1/nope`,
        { agent, headers: { 'x-forwarded-for': `${pad}${i.toString(16).padStart(8, '0')}, ${address(i)}` } },
        (res) => {
          statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
          res.resume();
          res.on('end', resolve);
          res.on('error', () => resolve());
        },
      );
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end();
    });
  }

  /** RSS after every tenth of the flood, to show where it levels off. */
  const timeline: number[] = [];
  const step = Math.max(1, Math.floor(opts.requests / 10));
  async function worker(): Promise<void> {
    while (next < opts.requests && freeway.alive()) {
      const i = next++;
      await send(i);
      if (i % step === step - 1) timeline.push(Math.round(freeway.rssMb()));
    }
  }
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const peakMb = freeway.peakRssMb();
  const finalMb = freeway.rssMb();
  const survived = freeway.alive();
  agent.destroy();
  await freeway.stop();

  const answered = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  return {
    name: 'forwarded-flood',
    held: survived && errors === 0 && answered === opts.requests && peakMb < opts.maxRssMb,
    figures: {
      requests: opts.requests,
      answered,
      connectionErrors: errors,
      statuses: [...statuses].map(([status, count]) => `${status}:${count}`).join(' '),
      seconds: Math.round(seconds * 10) / 10,
      requestsPerSecond: Math.round(answered / seconds),
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      finalRssMb: Math.round(finalMb),
      maxRssMb: opts.maxRssMb,
      processSurvived: survived ? 'yes' : 'no',
      rssTimelineMb: timeline.join(' '),
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run(process.argv[2] ? { requests: Number(process.argv[2]) } : {});
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
