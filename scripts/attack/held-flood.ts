/**
 * Attack: requests held for a window. One Groq key rests (its fake upstream answers every call
 * with Groq's 429 and `retry-after: 15`, within MAX_WAIT_MS), and many clients send chat
 * requests with large bodies on that key at once, so that each would be held. WAIT_QUEUE_MAX
 * bounds how many are held; the rest must be answered at once with the 429, and `/health` must
 * keep answering throughout.
 *
 * Holds when: every request is answered; at most WAIT_QUEUE_MAX were held at once (the
 * freeway_requests_held gauge, sampled); those not held were answered at once (within 10 s, well
 * before the 15 s window opens, however loaded the machine); the upstream was called once per
 * window, not once per held request; `/health` answered every probe, in under a second at the
 * median; peak RSS stays within the bound docs/security.md states for held requests (baseline plus
 * WAIT_QUEUE_MAX x (body + 16 KB), plus the 96 MB every attack allows).
 *
 *   node scripts/attack/held-flood.ts [clients] [requestsPerClient]
 */
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { agentFrom, alnum, send, sleep, startUpstream } from './upstreams.ts';

export interface HeldFloodOptions {
  /** Clients, each from its own address 127.0.5.x (40). */
  readonly clients: number;
  /** Requests each client sends, all at once (10). */
  readonly requestsPerClient: number;
  /** WAIT_QUEUE_MAX under attack (100). */
  readonly waitQueueMax: number;
  /** Characters of each request's prompt (16 KB): a held request keeps its parsed body. */
  readonly promptChars: number;
  /** V8's old generation for the child, in MB (128). */
  readonly heapMb: number;
  readonly env: Record<string, string>;
  readonly root?: string;
}

const defaults: HeldFloodOptions = { clients: 40, requestsPerClient: 10, waitQueueMax: 100, promptChars: 16 * 1024, heapMb: 128, env: {} };

/** Groq's per-minute 429 body (providers/groq/fixtures.ts), with a window shorter than MAX_WAIT_MS. */
const limited = JSON.stringify({ error: { message: 'Rate limit reached for model `openai/gpt-oss-120b` on requests per minute (RPM): Limit 30, Used 30, Requested 1. Please try again in 15s.', type: 'requests', code: 'rate_limit_exceeded' } });

export async function run(options: Partial<HeldFloodOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  let calls = 0;
  const upstream = await startUpstream((_req, res) => {
    calls += 1;
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '15' });
    res.end(limited);
  });
  const freeway = await startFreewayChild(
    {
      GROQ_BASE_URL: upstream.url,
      MAX_WAIT_MS: '20000',
      WAIT_QUEUE_MAX: String(opts.waitQueueMax),
      RATE_LIMIT_MAX: '1000000',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${opts.heapMb}`.trim(),
      ...opts.env,
    },
    opts.root,
  );
  const key = { 'content-type': 'application/json', 'x-groq-key': `gsk_${alnum(32)}` };
  const chat = (text: string): string => JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: text }] });
  const probe = agentFrom('127.0.0.2', 2);
  // The first request meets the 429: the key now rests for 15 s.
  const first = await send(probe, freeway.port, 'POST', '/v1/chat/completions', key, chat('hello'));
  await sleep(200);

  const baselineMb = freeway.rssMb();
  const bodyBytes = opts.promptChars + 200;
  const boundMb = Math.round(baselineMb + 96 + (opts.waitQueueMax * (bodyBytes + 16 * 1024)) / 1024 ** 2);
  freeway.resetPeak();

  let flooding = true;
  let mostHeld = 0;
  const healthMs: number[] = [];
  const watch = (async () => {
    while (flooding) {
      const health = await send(probe, freeway.port, 'GET', '/health', {});
      healthMs.push(health.status === 200 ? health.ms : Infinity);
      const metrics = await send(probe, freeway.port, 'GET', '/metrics', {});
      const held = /^freeway_requests_held (\d+)$/m.exec(metrics.body);
      if (held) mostHeld = Math.max(mostHeld, Number(held[1]));
      await sleep(100);
    }
  })();

  const filler = 'x'.repeat(opts.promptChars);
  const answers = await Promise.all(
    Array.from({ length: opts.clients }, async (_, client) => {
      const agent = agentFrom(`127.0.5.${client + 1}`, opts.requestsPerClient);
      const sent = await Promise.all(Array.from({ length: opts.requestsPerClient }, () => send(agent, freeway.port, 'POST', '/v1/chat/completions', key, chat(`${alnum(8)} ${filler}`))));
      agent.destroy();
      return sent;
    }),
  );
  flooding = false;
  await watch;
  probe.destroy();
  const peakMb = freeway.peakRssMb();
  const survived = freeway.alive();
  await freeway.stop();
  await upstream.close();

  const all = answers.flat();
  const statuses = new Map<number, number>();
  for (const answer of all) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  // Held requests wait for the 15 s window; one answered in under 10 s was not held.
  const atOnce = all.filter((answer) => answer.status === 429 && answer.ms < 10_000).length;
  const slowestHealth = Math.max(...healthMs);
  const medianHealth = [...healthMs].sort((a, b) => a - b)[Math.floor(healthMs.length / 2)] ?? Infinity;
  const total = opts.clients * opts.requestsPerClient;
  const held =
    survived &&
    first.status === 429 &&
    (statuses.get(0) ?? 0) === 0 &&
    mostHeld <= opts.waitQueueMax &&
    atOnce >= total - opts.waitQueueMax &&
    calls <= 3 &&
    healthMs.length > 0 &&
    slowestHealth < Infinity &&
    medianHealth < 1_000 &&
    peakMb < boundMb;
  return {
    name: 'held-flood',
    held,
    figures: {
      settings: `WAIT_QUEUE_MAX=${opts.waitQueueMax} MAX_WAIT_MS=20000 --max-old-space-size=${opts.heapMb}`,
      requests: total,
      bodyKb: Math.round(bodyBytes / 1024),
      answers: [...statuses].map(([status, n]) => `${status}:${n}`).join(' '),
      answeredAtOnce: atOnce,
      mostHeldAtOnce: mostHeld,
      upstreamCalls: calls,
      healthProbes: healthMs.length,
      medianHealthMs: Math.round(medianHealth),
      slowestHealthMs: Math.round(slowestHealth),
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      boundMb,
      processSurvived: survived ? 'yes' : 'no',
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const clients = process.argv[2] ? Number(process.argv[2]) : undefined;
  const requestsPerClient = process.argv[3] ? Number(process.argv[3]) : undefined;
  const result = await run({ ...(clients ? { clients } : {}), ...(requestsPerClient ? { requestsPerClient } : {}) });
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
