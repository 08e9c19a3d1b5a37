/**
 * Attack: the stores a request adds to. Many clients (each its own loopback address) send
 * chat requests through free:auto, each one a new conversation (a random first turn) with a
 * new random Groq key, and the fake Groq states a per-request token limit in every answer
 * (x-ratelimit-limit-tokens). So each request adds a conversation's model (STICKY), a key's
 * usage record (USAGE), a key's health record and a key's learnt request limit. Meanwhile an
 * honest client holds one conversation with its own key.
 *
 * Holds when: every request is answered, the honest client's all with 200 and its later turns
 * on the model of its first (kept or, once evicted, routed as usual: still a 200); peak RSS stays
 * within `maxRssMb` although the flood made many times more conversations and keys than
 * STICKY_MAX_ENTRIES, USAGE_MAX_RECORDS and HEALTH_MAX_RECORDS hold.
 *
 *   node scripts/attack/conversation-flood.ts [attackers] [requestsPerAttacker]
 */
import { openAIText } from '../../test/support/upstream.ts';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { agentFrom, alnum, send, sleep, startUpstream, type Answer } from './upstreams.ts';

export interface ConversationFloodOptions {
  /** Flooding clients, each from its own address 127.0.3.x (40). */
  readonly attackers: number;
  /** Requests per flooding client, each a new conversation with a new key (400). */
  readonly requestsPerAttacker: number;
  /** Requests a flooding client has under way at once (4). */
  readonly concurrency: number;
  /** Characters of each made-up first turn (2000): a conversation's id is its HMAC, so the size must not matter. */
  readonly promptChars: number;
  /** The bounds under attack: small, so that they are reached many times over. */
  readonly stickyMaxEntries: number;
  readonly usageMaxRecords: number;
  readonly healthMaxRecords: number;
  /** V8's old generation for the child, in MB (128): garbage is collected rather than kept, so RSS follows what Freeway holds. */
  readonly heapMb: number;
  /** The bound that must hold; by default RSS before the flood plus 96 MB. */
  readonly maxRssMb?: number;
  readonly env: Record<string, string>;
  readonly root?: string;
}

const defaults: ConversationFloodOptions = {
  attackers: 40,
  requestsPerAttacker: 400,
  concurrency: 4,
  promptChars: 2_000,
  stickyMaxEntries: 1_000,
  usageMaxRecords: 1_000,
  healthMaxRecords: 1_000,
  heapMb: 128,
  env: {},
};

const groqKey = (): string => `gsk_${alnum(32)}`;
const chatBody = (messages: ReadonlyArray<{ role: string; content: string }>): string => JSON.stringify({ model: 'free:auto', messages });

export async function run(options: Partial<ConversationFloodOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  let calls = 0;
  const upstream = await startUpstream((req, res) => {
    calls += 1;
    // Groq's own header: the key's tokens per minute, learnt as its per-request limit for the model.
    res.setHeader('x-ratelimit-limit-tokens', '6000');
    openAIText(res, 'Hello', req);
  });
  const freeway = await startFreewayChild(
    {
      GROQ_BASE_URL: upstream.url,
      STICKY_MAX_ENTRIES: String(opts.stickyMaxEntries),
      USAGE_MAX_RECORDS: String(opts.usageMaxRecords),
      HEALTH_MAX_RECORDS: String(opts.healthMaxRecords),
      RATE_LIMIT_MAX: '1000000',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${opts.heapMb}`.trim(),
      ...opts.env,
    },
    opts.root,
  );

  // The honest client: one conversation, one key, a turn after another.
  const honestKey = groqKey();
  const honestAgent = agentFrom('127.0.0.2', 1);
  const honestTurns: Array<Answer & { model: string }> = [];
  let honestRunning = true;
  const honest = (async () => {
    const messages = [{ role: 'user', content: 'Plan a week in Lisbon.' }];
    while (honestRunning) {
      const answer = await send(honestAgent, freeway.port, 'POST', '/v1/chat/completions', { 'content-type': 'application/json', 'x-groq-key': honestKey }, chatBody(messages));
      honestTurns.push({ ...answer, model: String(answer.headers?.['x-freeway-model'] ?? '') });
      messages.push({ role: 'assistant', content: 'Hello' }, { role: 'user', content: `And day ${messages.length}?` });
      if (messages.length > 40) messages.splice(1, 2);
    }
  })();
  await sleep(1_000);

  const baselineMb = freeway.rssMb();
  const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + 96);
  freeway.resetPeak();
  const statuses = new Map<number, number>();
  const floodStarted = performance.now();
  const filler = 'x'.repeat(opts.promptChars);
  await Promise.all(
    Array.from({ length: opts.attackers }, async (_, client) => {
      const agent = agentFrom(`127.0.3.${client + 1}`, opts.concurrency);
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (next < opts.requestsPerAttacker) {
            next += 1;
            const body = chatBody([{ role: 'user', content: `${alnum(16)} ${filler}` }]);
            const answer = await send(agent, freeway.port, 'POST', '/v1/chat/completions', { 'content-type': 'application/json', 'x-groq-key': groqKey() }, body);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          }
        }),
      );
      agent.destroy();
    }),
  );
  const floodSeconds = (performance.now() - floodStarted) / 1000;
  const peakMb = freeway.peakRssMb();
  honestRunning = false;
  await honest;
  honestAgent.destroy();
  const afterMb = freeway.rssMb();
  const survived = freeway.alive();
  await freeway.stop();
  await upstream.close();

  const floodRequests = opts.attackers * opts.requestsPerAttacker;
  const honestNot200 = honestTurns.filter((turn) => turn.status !== 200).length;
  const honestModels = new Set(honestTurns.map((turn) => turn.model));
  const unanswered = statuses.get(0) ?? 0;
  const held = survived && unanswered === 0 && honestNot200 === 0 && honestTurns.length > 0 && peakMb < maxRssMb && floodRequests > 5 * opts.stickyMaxEntries;
  return {
    name: 'conversation-flood',
    held,
    figures: {
      settings: `--max-old-space-size=${opts.heapMb} STICKY_MAX_ENTRIES=${opts.stickyMaxEntries} USAGE_MAX_RECORDS=${opts.usageMaxRecords} HEALTH_MAX_RECORDS=${opts.healthMaxRecords}`,
      floodClients: opts.attackers,
      floodRequests,
      newConversationsAndKeys: floodRequests,
      promptChars: opts.promptChars,
      answers: [...statuses].map(([status, n]) => `${status}:${n}`).join(' '),
      floodSeconds: floodSeconds.toFixed(1),
      upstreamCalls: calls,
      honestTurns: honestTurns.length,
      honestNot200,
      honestModels: [...honestModels].join(' '),
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      rssAfterMb: Math.round(afterMb),
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
