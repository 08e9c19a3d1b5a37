/**
 * Attack: streaming callers that read slowly or not at all. Time Freeway spends
 * waiting for a caller to take more must not count as the upstream's silence
 * (which marks a shared key down for everyone), and a caller that takes nothing
 * must not hold a stream open for ever. Half the callers pause for longer than
 * STREAM_IDLE_TIMEOUT_MS and then read to the end; the other half never read
 * (they look again after several CLIENT_STALL_TIMEOUT_MS). Holds when every slow
 * reader gets its whole stream, every non-reader was cut off, the key's /health
 * is unchanged and RSS stays under `maxRssMb`.
 *
 *   node scripts/attack/slow-readers.ts [callers]
 */
import { request, type IncomingMessage } from 'node:http';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { bulkStream, healthLine, keyHeaders, startUpstream } from './upstreams.ts';

export interface SlowReadersOptions {
  /** Callers of each kind (30 slow, 30 never reading). */
  readonly callers: number;
  readonly streamIdleTimeoutMs: number;
  readonly clientStallTimeoutMs: number;
  /** How long a slow reader pauses (3 s, above STREAM_IDLE_TIMEOUT_MS). */
  readonly pauseMs: number;
  /** How long a non-reader waits before it looks (9 s, above CLIENT_STALL_TIMEOUT_MS). */
  readonly neverMs: number;
  readonly maxRssMb: number;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: SlowReadersOptions = { callers: 30, streamIdleTimeoutMs: 2000, clientStallTimeoutMs: 4000, pauseMs: 3000, neverMs: 9000, maxRssMb: 512 };

type Ending = 'done' | 'error event' | 'cut';

/** Streams one completion; reads the first bytes, pauses `pauseMs`, then reads on. */
function caller(url: string, headers: Record<string, string>, pauseMs: number): Promise<Ending> {
  return new Promise((resolve) => {
    let text = '';
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res: IncomingMessage) => {
      let paused = false;
      res.setEncoding('utf8');
      res.on('data', (piece: string) => {
        // Only the end matters; keep a tail so memory stays small.
        text = (text + piece).slice(-4096);
        if (paused) return;
        paused = true;
        res.pause();
        setTimeout(() => res.resume(), pauseMs);
      });
      res.on('error', () => {});
      res.once('close', () => {
        if (process.env.ATTACK_DEBUG && !text.includes('[DONE]')) console.error(text.slice(-300));
        resolve(text.includes('data: [DONE]') ? 'done' : text.includes('"error"') && res.complete ? 'error event' : 'cut');
      });
    });
    req.on('error', () => resolve('cut'));
    req.end(JSON.stringify({ model: 'groq/llama-3.3-70b-versatile', stream: true, messages: [{ role: 'user', content: 'Write a lot' }] }));
  });
}

const count = (endings: readonly Ending[], ending: Ending): number => endings.filter((e) => e === ending).length;

export async function run(options: Partial<SlowReadersOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  // About 10 MB per stream: far more than the socket buffers hold, so a paused caller pushes back.
  const groq = await startUpstream(bulkStream(320, 32 * 1024));
  const freeway = await startFreewayChild(
    {
      GROQ_BASE_URL: groq.url,
      RATE_LIMIT_MAX: '1000000',
      STREAM_IDLE_TIMEOUT_MS: String(opts.streamIdleTimeoutMs),
      CLIENT_STALL_TIMEOUT_MS: String(opts.clientStallTimeoutMs),
    },
    opts.root,
  );
  const headers = keyHeaders('groq');
  try {
    const healthBefore = await healthLine(freeway.url, headers);
    freeway.resetPeak();
    const started = performance.now();
    const [slow, never] = await Promise.all([
      Promise.all(Array.from({ length: opts.callers }, () => caller(freeway.url, headers, opts.pauseMs))),
      Promise.all(Array.from({ length: opts.callers }, () => caller(freeway.url, headers, opts.neverMs))),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const healthAfter = await healthLine(freeway.url, headers);
    const peakMb = freeway.peakRssMb();
    const survived = freeway.alive();
    const held =
      survived && count(slow, 'done') === opts.callers && count(never, 'cut') === opts.callers && healthAfter === healthBefore && peakMb < opts.maxRssMb;
    return {
      name: 'slow-readers',
      held,
      figures: {
        slowReaders: opts.callers,
        slowReadersCompleted: count(slow, 'done'),
        slowReadersEndedByErrorEvent: count(slow, 'error event'),
        nonReaders: opts.callers,
        nonReadersCutOff: count(never, 'cut'),
        nonReadersEndedByErrorEvent: count(never, 'error event'),
        healthBefore,
        healthAfter,
        peakRssMb: Math.round(peakMb),
        maxRssMb: opts.maxRssMb,
        seconds: Math.round(seconds * 10) / 10,
      },
    };
  } finally {
    await freeway.stop();
    await groq.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const callers = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await run(callers ? { callers } : {});
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
