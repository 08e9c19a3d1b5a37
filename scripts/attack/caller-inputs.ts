/**
 * Attack: requests built to make Freeway fail before any provider answers, so
 * that the failure lands on the keys everyone shares: tool and response_format
 * schemas nested 5,000 levels deep (the stack runs out), and image URLs that the
 * AI SDK's Gemini mapping refuses without a full media type; and Gemini API bodies
 * whose parts check one another (20,000 declarations, allowed names, calls and their
 * responses, and hosted tools named with a line break), which a check that pairs
 * them by scanning makes quadratic. Holds when each is answered (a 400 for the
 * schemas, an answer for the images, the Gemini bodies mapped in full and refused as
 * too large for any model, each within `geminiBudgetMs`), nothing
 * deep reaches a provider, and /health of every key is unchanged.
 *
 *   node scripts/attack/caller-inputs.ts [requests]
 */
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { healthLine, keyHeaders, startUpstream } from './upstreams.ts';
import { geminiSSE, openAIText } from '../../test/support/upstream.ts';

export interface CallerInputsOptions {
  /** Requests of each kind (10). */
  readonly requests: number;
  /** Nesting of the schemas (5,000). */
  readonly depth: number;
  /** Function declarations, calls and responses in each Gemini body (20,000). */
  readonly geminiParts: number;
  /** The longest a Gemini body may take to be answered (3,000 ms). */
  readonly geminiBudgetMs: number;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: CallerInputsOptions = { requests: 10, depth: 5000, geminiParts: 20_000, geminiBudgetMs: 3000 };

/** A Gemini body whose declarations, allowed names, calls and responses all pair with one another. */
function pairedGeminiBody(parts: number): string {
  const names = Array.from({ length: parts }, (_, i) => `tool_${i}`);
  return JSON.stringify({
    contents: [
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: names.map((name) => ({ functionCall: { name, args: {} } })) },
      { role: 'user', parts: names.map((name) => ({ functionResponse: { name, response: { ok: true } } })) },
    ],
    tools: [{ functionDeclarations: names.map((name) => ({ name })) }, { 'line\nbreak': {}, googleSearch: {} }],
    toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: names } },
  });
}

/** A schema nested `depth` objects deep, as JSON text (JSON.stringify would run out of stack). */
const nested = (depth: number): string => `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;

async function post(url: string, body: string, headers: Record<string, string>, path = '/v1/chat/completions'): Promise<number> {
  try {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

const tally = (statuses: readonly number[]): string => {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status}:${n}`).join(' ');
};

export async function run(options: Partial<CallerInputsOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const [openai, google] = await Promise.all([startUpstream((req, res) => openAIText(res, 'fine', req)), startUpstream((_req, res) => geminiSSE(res, 'a cat'))]);
  const freeway = await startFreewayChild(
    { GROQ_BASE_URL: openai.url, CEREBRAS_BASE_URL: openai.url, GOOGLE_BASE_URL: google.url, RATE_LIMIT_MAX: '1000000' },
    opts.root,
  );
  const headers = keyHeaders('groq', 'cerebras', 'google');
  try {
    const healthBefore = await healthLine(freeway.url, headers);
    freeway.resetPeak();
    const schema = nested(opts.depth);
    const tools = `{"model":"free:auto","messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":${schema}}}]}`;
    const format = `{"model":"free:auto","messages":[{"role":"user","content":"Hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":${schema}}}}`;
    const image = JSON.stringify({
      model: 'free:vision',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }],
    });
    const deep: number[] = [];
    for (let i = 0; i < opts.requests; i++) {
      deep.push(await post(freeway.url, tools, headers));
      deep.push(await post(freeway.url, format, headers));
    }
    const images: number[] = [];
    for (let i = 0; i < opts.requests; i++) images.push(await post(freeway.url, image, keyHeaders('google')));
    const gemini = pairedGeminiBody(opts.geminiParts);
    const geminiStatuses: number[] = [];
    let geminiSlowestMs = 0;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      geminiStatuses.push(await post(freeway.url, gemini, keyHeaders('cerebras'), '/v1beta/models/cerebras/gpt-oss-120b:generateContent'));
      geminiSlowestMs = Math.max(geminiSlowestMs, performance.now() - started);
    }
    const healthAfter = await healthLine(freeway.url, headers);
    const deepReachedProviders = openai.requests.filter((req) => JSON.stringify(req.body ?? {}).includes('"deep"')).length;
    const survived = freeway.alive();
    return {
      name: 'caller-inputs',
      held:
        survived &&
        deep.every((status) => status === 400) &&
        images.every((status) => status === 200) &&
        // Mapped and estimated in full, the body fits no model: Request too large, at once.
        geminiStatuses.every((status) => status === 400) &&
        geminiSlowestMs <= opts.geminiBudgetMs &&
        deepReachedProviders === 0 &&
        healthAfter === healthBefore,
      figures: {
        deepSchemaRequests: deep.length,
        deepSchemaStatuses: tally(deep),
        deepSchemasSentUpstream: deepReachedProviders,
        imageUrlRequests: images.length,
        imageUrlStatuses: tally(images),
        geminiPairedBodyMb: Number((gemini.length / 1e6).toFixed(1)),
        geminiPairedStatuses: tally(geminiStatuses),
        geminiSlowestMs: Math.round(geminiSlowestMs),
        healthBefore,
        healthAfter,
        peakRssMb: Math.round(freeway.peakRssMb()),
      },
    };
  } finally {
    await freeway.stop();
    await Promise.all([openai.close(), google.close()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const requests = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await run(requests ? { requests } : {});
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
