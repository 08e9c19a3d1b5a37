/**
 * Records the golden encoder fixtures (test/api/golden/): plays each case's
 * upstream answer (test/api/golden/cases.ts) to the AI SDK model its provider
 * plugin builds, saves the stream parts as the encoders receive them (the
 * finish part's usage as the upstream reported it) and the whole answer of a
 * non-streaming call, then what each API's encoder makes of them. Run it after
 * changing a case, an encoder on purpose, or the AI SDK, and read the diff.
 * Gemini's answers carry no tool-call ids and the AI SDK makes random ones, so
 * the gemini-tool-call files change with every recording; nothing else does.
 *
 *   node scripts/record-golden.ts
 */
import { writeFileSync } from 'node:fs';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { tokenLogprobs } from '../providers/openai-compatible.ts';
import type { ProviderPlugin } from '../providers/types.ts';
import { reportedUsage } from '../providers/usage.ts';
import { toCallOptions } from '../server/api/chat/request.ts';
import { parseChatRequest } from '../server/api/chat/validate.ts';
import type { WholeAnswer } from '../server/api/encoding.ts';
import { goldenCases, type GoldenApi, type GoldenCase } from '../test/api/golden/cases.ts';
import { answerFile, apiEncoders, encodeStream, goldenContext, partsFile, readJson, streamFile, toJsonText, wholeFile } from '../test/api/golden/encode.ts';

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

/** A part as JSON can keep it: an Error (a part's `error`) as its name and message. */
function storable(part: LanguageModelV4StreamPart): LanguageModelV4StreamPart {
  if (part.type === 'error' && part.error instanceof Error) return { ...part, error: { name: part.error.name, message: part.error.message } };
  return part.type === 'finish' ? { ...part, usage: reportedUsage(part.usage) } : part;
}

async function record(golden: GoldenCase): Promise<void> {
  const plugin = ((await import(`../providers/${golden.provider}/index.ts`)) as { default: ProviderPlugin }).default;
  const model = await plugin.createModel({ modelId: golden.modelId, baseURL: `https://${golden.provider}.upstream.test/v1`, fetch: upstream(golden) });
  const options: LanguageModelV4CallOptions = { ...toCallOptions(parseChatRequest(structuredClone(golden.requests.chat))), includeRawChunks: golden.logprobs === true };
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of (await model.doStream(options)).stream) parts.push(storable(part));
  writeFileSync(partsFile(golden.name), toJsonText(golden.dropFinish ? parts.filter((part) => part.type !== 'finish') : parts));
  if (golden.whole !== undefined) {
    const result = await model.doGenerate({ ...options, includeRawChunks: undefined });
    const answer: WholeAnswer = { content: result.content, finishReason: result.finishReason, usage: reportedUsage(result.usage) };
    const logprobs = golden.logprobs ? tokenLogprobs(result.response?.body) : undefined;
    writeFileSync(wholeFile(golden.name), toJsonText(logprobs ? { ...answer, logprobs } : answer));
  }
  const recorded = readJson<LanguageModelV4StreamPart[]>(partsFile(golden.name));
  for (const [api, body] of Object.entries(golden.requests) as Array<[GoldenApi, unknown]>) {
    writeFileSync(streamFile(golden.name, api), encodeStream(apiEncoders[api].stream(body, goldenContext()), recorded, golden.fail));
    if (golden.whole !== undefined) {
      const whole = apiEncoders[api].whole(readJson<WholeAnswer>(wholeFile(golden.name)), body, goldenContext());
      writeFileSync(answerFile(golden.name, api), toJsonText(whole));
    }
  }
  console.log(`${golden.name}: ${parts.length} parts, ${Object.keys(golden.requests).join(', ')}`);
}

for (const golden of goldenCases) await record(golden);
