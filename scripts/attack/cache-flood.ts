/**
 * Attack: the response cache's memory. With CACHE=memory, many clients send chat requests that
 * each differ (a random prompt) with a few Groq keys, and the fake Groq answers each with a large
 * text, so each answer is kept and the cache passes CACHE_MAX_BYTES many times over. Meanwhile an
 * honest client sends one request again and again.
 *
 * Holds when: every request is answered (all but a few with 200); the cache's bytes (`freeway_cache_bytes`,
 * sampled all along) never pass CACHE_MAX_BYTES and answers were evicted; peak RSS stays within
 * `maxRssMb`; the honest client's repeats are hits (its entry, used all along, is never the least
 * recently used) and the upstream saw it once.
 *
 *   node scripts/attack/cache-flood.ts [attackers] [requestsPerAttacker]
 */
import { openAIText } from '../../test/support/upstream.ts';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { agentFrom, alnum, send, sleep, startUpstream } from './upstreams.ts';

export interface CacheFloodOptions {
  /** Flooding clients, each from its own address 127.0.4.x (10). */
  readonly attackers: number;
  /** Requests per flooding client, each a new prompt (100). */
  readonly requestsPerAttacker: number;
  /** Requests a flooding client has under way at once (4). */
  readonly concurrency: number;
  /**
   * Characters of each answer (64000): each kept answer is about that size, sealed. The
   * flood's answers add up to 64 MB, so a cache that kept them all would pass `maxRssMb` by
   * far more than the run-to-run spread of the peak (with 16000 and a 2 MB cache, 16 MB in
   * all, the bound sat within that spread: it failed at random, and would hardly have told).
   */
  readonly answerChars: number;
  /** The bound under attack (8 MB, some 125 answers): the flood's answers add up to eight times more. */
  readonly cacheMaxBytes: number;
  /** V8's old generation for the child, in MB (128). */
  readonly heapMb: number;
  /**
   * The bound that must hold; by default RSS before the flood plus 140 MB. Measured on
   * 2026-12-02 with the defaults: the bounded cache peaked 92 to 126 MB above the RSS before
   * the flood in eleven runs (V8's young generation and the answers in flight; 128 MB, the bound
   * before, was passed by 2 MB less than once); the same flood into a cache of 128 MB, which
   * evicts nothing, 151 to 168 MB above.
   */
  readonly maxRssMb?: number;
  readonly root?: string;
}

const defaults: CacheFloodOptions = { attackers: 10, requestsPerAttacker: 100, concurrency: 4, answerChars: 64_000, cacheMaxBytes: 8 * 1024 * 1024, heapMb: 128 };

const chatBody = (prompt: string): string => JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: prompt }] });

/** The cache's figures from /metrics. */
async function cacheFigures(port: number): Promise<{ bytes: number; evictions: number; hits: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const read = (pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? 0);
  return { bytes: read(/^freeway_cache_bytes (\d+)/m), evictions: read(/^freeway_cache_evictions_total (\d+)/m), hits: read(/^freeway_cache_lookups_total\{result="hit"\} (\d+)/m) };
}

export async function run(options: Partial<CacheFloodOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  // One word, so that the fake upstream sends it in one chunk: the load is on the cache, not on the stream.
  const answer = 'word-'.repeat(Math.ceil(opts.answerChars / 5)).slice(0, opts.answerChars);
  let calls = 0;
  let honestCalls = 0;
  const honestPrompt = 'What is the capital of Portugal?';
  const upstream = await startUpstream((req, res) => {
    calls += 1;
    if (JSON.stringify(req.body).includes(honestPrompt)) honestCalls += 1;
    openAIText(res, answer, req);
  });
  const freeway = await startFreewayChild(
    {
      GROQ_BASE_URL: upstream.url,
      CACHE: 'memory',
      CACHE_MAX_BYTES: String(opts.cacheMaxBytes),
      RATE_LIMIT_MAX: '1000000',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${opts.heapMb}`.trim(),
    },
    opts.root,
  );
  const keys = Array.from({ length: 4 }, () => `gsk_${alnum(32)}`);
  const headers = (i: number): Record<string, string> => ({ 'content-type': 'application/json', 'x-groq-key': keys[i % keys.length] as string });

  const honestAgent = agentFrom('127.0.0.2', 1);
  let honestRunning = true;
  const honestStatuses: Array<[number, string]> = [];
  const honest = (async () => {
    while (honestRunning) {
      const reply = await send(honestAgent, freeway.port, 'POST', '/v1/chat/completions', headers(0), chatBody(honestPrompt));
      honestStatuses.push([reply.status, String(reply.headers['x-freeway-cache'] ?? '')]);
      await sleep(20);
    }
  })();
  await sleep(1_000);
  const baselineMb = freeway.rssMb();
  const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + 140);
  freeway.resetPeak();

  let flooding = true;
  let peakCacheBytes = 0;
  const sampler = (async () => {
    while (flooding) {
      peakCacheBytes = Math.max(peakCacheBytes, (await cacheFigures(freeway.port)).bytes);
      await sleep(100);
    }
  })();
  const statuses = new Map<number, number>();
  let firstRefusal = '';
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.attackers }, async (_, client) => {
      const agent = agentFrom(`127.0.4.${client + 1}`, opts.concurrency);
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (next < opts.requestsPerAttacker) {
            next += 1;
            const reply = await send(agent, freeway.port, 'POST', '/v1/chat/completions', headers(client), chatBody(`${alnum(24)} tell me more`));
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
            if (reply.status !== 200 && firstRefusal === '') firstRefusal = `${reply.status} ${reply.body.slice(0, 300)}`;
          }
        }),
      );
      agent.destroy();
    }),
  );
  const floodSeconds = (performance.now() - started) / 1000;
  flooding = false;
  await sampler;
  const figures = await cacheFigures(freeway.port);
  peakCacheBytes = Math.max(peakCacheBytes, figures.bytes);
  const peakMb = freeway.peakRssMb();
  honestRunning = false;
  await honest;
  honestAgent.destroy();
  const survived = freeway.alive();
  await freeway.stop();
  await upstream.close();

  const floodRequests = opts.attackers * opts.requestsPerAttacker;
  const keptIfUnbounded = floodRequests * opts.answerChars;
  const honestNot200 = honestStatuses.filter(([status]) => status !== 200).length;
  const honestHits = honestStatuses.filter(([, cache]) => cache === 'hit').length;
  const held =
    survived &&
    // Every request answered; a few 502s are the fake upstream resetting a kept-alive connection under load.
    (statuses.get(0) ?? 0) === 0 &&
    (statuses.get(200) ?? 0) >= floodRequests * 0.95 &&
    peakCacheBytes <= opts.cacheMaxBytes &&
    figures.evictions > 0 &&
    keptIfUnbounded > 5 * opts.cacheMaxBytes &&
    peakMb < maxRssMb &&
    honestNot200 === 0 &&
    honestCalls === 1 &&
    honestHits === honestStatuses.length - 1;
  return {
    name: 'cache-flood',
    held,
    figures: {
      settings: `CACHE=memory CACHE_MAX_BYTES=${opts.cacheMaxBytes} --max-old-space-size=${opts.heapMb}`,
      floodRequests,
      answerChars: opts.answerChars,
      answerBytesIfAllKept: keptIfUnbounded,
      answers: [...statuses].map(([status, n]) => `${status}:${n}`).join(' '),
      ...(firstRefusal === '' ? {} : { firstRefusal }),
      floodSeconds: floodSeconds.toFixed(1),
      upstreamCalls: calls,
      peakCacheBytes,
      cacheBytesAfter: figures.bytes,
      evictions: figures.evictions,
      honestRequests: honestStatuses.length,
      honestHits,
      honestUpstreamCalls: honestCalls,
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      maxRssMb,
      processSurvived: survived ? 'yes' : 'no',
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const attackers = process.argv[2] ? Number(process.argv[2]) : undefined;
  const requestsPerAttacker = process.argv[3] ? Number(process.argv[3]) : undefined;
  const result = await run({ ...(attackers ? { attackers } : {}), ...(requestsPerAttacker ? { requestsPerAttacker } : {}) });
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
