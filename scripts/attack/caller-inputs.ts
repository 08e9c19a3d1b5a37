/**
 * Attack: requests built to make Freeway fail before any provider answers, so
 * that the failure lands on the keys everyone shares: tool and response_format
 * schemas nested 5,000 levels deep (the stack runs out), and image URLs that the
 * AI SDK's Gemini mapping refuses without a full media type. Holds when each is
 * answered (a 400 for the schemas, an answer for the images), nothing deep
 * reaches a provider, and /health of every key is unchanged.
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
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: CallerInputsOptions = { requests: 10, depth: 5000 };

/** A schema nested `depth` objects deep, as JSON text (JSON.stringify would run out of stack). */
const nested = (depth: number): string => `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;

async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  try {
    const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
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
    const healthAfter = await healthLine(freeway.url, headers);
    const deepReachedProviders = openai.requests.filter((req) => JSON.stringify(req.body ?? {}).includes('"deep"')).length;
    const survived = freeway.alive();
    return {
      name: 'caller-inputs',
      held:
        survived &&
        deep.every((status) => status === 400) &&
        images.every((status) => status === 200) &&
        deepReachedProviders === 0 &&
        healthAfter === healthBefore,
      figures: {
        deepSchemaRequests: deep.length,
        deepSchemaStatuses: tally(deep),
        deepSchemasSentUpstream: deepReachedProviders,
        imageUrlRequests: images.length,
        imageUrlStatuses: tally(images),
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
