/**
 * Attack: upstreams that never finish a non-streaming request. One drips a few
 * bytes every 20 ms (each chunk resets the idle timer, so only the request's
 * deadline can end it); the other pours 4 MB a second (the collected answer
 * would grow without end). Holds when every request is answered within
 * REQUEST_TIMEOUT_MS plus `slackMs`, RSS stays under `maxRssMb`, and the key
 * of the slow drip, which kept answering, is not blamed in /health.
 *
 *   node scripts/attack/endless-drip.ts [requests]
 */
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { endlessDrip, healthLine, keyHeaders, startUpstream } from './upstreams.ts';

export interface EndlessDripOptions {
  /** Requests to each upstream, all at once (4 and 4). */
  readonly requests: number;
  readonly requestTimeoutMs: number;
  readonly slackMs: number;
  /** How long the attack waits for an answer before giving up on it (20 s). */
  readonly waitMs: number;
  /**
   * The bound that must hold; by default RSS before the attack plus, for each
   * pouring request, four times MAX_RESPONSE_BYTES (16 MB): the collected text and
   * the copies parsing makes of it until the garbage collector runs.
   */
  readonly maxRssMb?: number;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: EndlessDripOptions = { requests: 4, requestTimeoutMs: 8000, slackMs: 3000, waitMs: 20_000 };

interface Answer {
  readonly status: number | 'none';
  readonly ms: number;
}

async function ask(url: string, model: string, headers: Record<string, string>, waitMs: number): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Go on for ever' }] }),
      signal: AbortSignal.timeout(waitMs),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    return { status: 'none', ms: performance.now() - started };
  }
}

const statuses = (answers: readonly Answer[]): string => answers.map((a) => a.status).join(' ');
const slowest = (answers: readonly Answer[]): number => Math.round(Math.max(...answers.map((a) => a.ms)));

export async function run(options: Partial<EndlessDripOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const [groq, cerebras] = await Promise.all([startUpstream(endlessDrip(20, 200)), startUpstream(endlessDrip(4, 16 * 1024))]);
  const freeway = await startFreewayChild(
    { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, RATE_LIMIT_MAX: '1000000', REQUEST_TIMEOUT_MS: String(opts.requestTimeoutMs) },
    opts.root,
  );
  const headers = keyHeaders('groq', 'cerebras');
  try {
    const baselineMb = freeway.rssMb();
    const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + opts.requests * 16 * 4);
    const healthBefore = await healthLine(freeway.url, keyHeaders('groq'));
    freeway.resetPeak();
    const [drip, pour] = await Promise.all([
      Promise.all(Array.from({ length: opts.requests }, () => ask(freeway.url, 'groq/llama-3.3-70b-versatile', headers, opts.waitMs))),
      Promise.all(Array.from({ length: opts.requests }, () => ask(freeway.url, 'cerebras/llama-3.3-70b', headers, opts.waitMs))),
    ]);
    const peakMb = freeway.peakRssMb();
    const healthAfter = await healthLine(freeway.url, keyHeaders('groq'));
    const survived = freeway.alive();
    const limitMs = opts.requestTimeoutMs + opts.slackMs;
    const answeredInTime = [...drip, ...pour].filter((a) => a.status !== 'none' && a.ms <= limitMs).length;
    return {
      name: 'endless-drip',
      held: survived && answeredInTime === 2 * opts.requests && peakMb < maxRssMb && healthAfter === healthBefore,
      figures: {
        requests: 2 * opts.requests,
        answeredWithinLimit: answeredInTime,
        limitMs,
        dripStatuses: statuses(drip),
        dripSlowestMs: slowest(drip),
        pourStatuses: statuses(pour),
        pourSlowestMs: slowest(pour),
        dripKeyHealthBefore: healthBefore,
        dripKeyHealthAfter: healthAfter,
        baselineRssMb: Math.round(baselineMb),
        peakRssMb: Math.round(peakMb),
        maxRssMb,
      },
    };
  } finally {
    await freeway.stop();
    await Promise.all([groq.close(), cerebras.close()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const requests = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await run(requests ? { requests } : {});
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
