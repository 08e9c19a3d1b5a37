/**
 * Plays a golden case's upstream answer to the AI SDK model its provider plugin
 * builds, and returns what the encoders are given: the stream parts (the
 * finish part's usage as the upstream reported it, as the pipeline hands it on)
 * and the whole answer of a non-streaming call. Used by scripts/record-golden.ts
 * to write the fixtures and by test/api/encoders.test.ts to check them.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { tokenLogprobs } from '../../../providers/openai-compatible.ts';
import type { ProviderPlugin } from '../../../providers/types.ts';
import { reportedUsage } from '../../../providers/usage.ts';
import { toCallOptions } from '../../../server/api/chat/request.ts';
import { parseChatRequest } from '../../../server/api/chat/validate.ts';
import type { WholeAnswer } from '../../../server/api/encoding.ts';
import { normaliseAnswer } from '../../../server/routing/stream-parts.ts';
import type { GoldenCase } from './cases.ts';

/** The upstream of one case: its SSE stream for a streaming call, its JSON body for any other. */
function upstream(golden: GoldenCase): typeof fetch {
  return async (url, init) => {
    const body = JSON.parse(String(init?.body ?? '{}')) as { stream?: boolean };
    if (body.stream === true || String(url).includes(':streamGenerateContent')) {
      const events = golden.chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
      const done = golden.provider !== 'google' && golden.done !== false ? 'data: [DONE]\n\n' : '';
      return new Response(events + done, { headers: { 'content-type': 'text/event-stream' } });
    }
    return Response.json(golden.whole);
  };
}

/** A part as JSON keeps it (an Error as its name and message, a Date as its ISO text), with the finish part's usage as reported. */
function storable(part: LanguageModelV4StreamPart): LanguageModelV4StreamPart {
  if (part.type === 'error' && part.error instanceof Error) return { ...part, error: { name: part.error.name, message: part.error.message } };
  const reported = part.type === 'finish' ? { ...part, usage: reportedUsage(part.usage) } : part;
  return JSON.parse(JSON.stringify(reported)) as LanguageModelV4StreamPart;
}

export interface Recorded {
  readonly parts: LanguageModelV4StreamPart[];
  readonly whole: WholeAnswer | undefined;
}

export async function recordCase(golden: GoldenCase): Promise<Recorded> {
  const plugin = ((await import(`../../../providers/${golden.provider}/index.ts`)) as { default: ProviderPlugin }).default;
  const model = await plugin.createModel({ modelId: golden.modelId, baseURL: `https://${golden.provider}.upstream.test/v1`, fetch: upstream(golden) });
  const options: LanguageModelV4CallOptions = { ...toCallOptions(parseChatRequest(structuredClone(golden.requests.chat))), includeRawChunks: golden.logprobs === true };
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of (await model.doStream(options)).stream) {
    if (!(golden.dropFinish && part.type === 'finish')) parts.push(storable(part));
  }
  if (golden.whole === undefined) return { parts, whole: undefined };
  const result = await model.doGenerate({ ...options, includeRawChunks: undefined });
  // What the routed model's doGenerate hands a client API (see normaliseAnswer).
  const answer: WholeAnswer = normaliseAnswer(result);
  const logprobs = golden.logprobs ? tokenLogprobs(result.response?.body) : undefined;
  return { parts, whole: JSON.parse(JSON.stringify(logprobs ? { ...answer, logprobs } : answer)) as WholeAnswer };
}
