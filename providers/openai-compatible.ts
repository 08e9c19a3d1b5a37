import type { OpenAICompatibleProviderSettings } from '@ai-sdk/openai-compatible';
import type { JSONObject, JSONValue, LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelFactoryOptions, RequestExtras } from './types.ts';

/** Per-provider departures from the OpenAI wire format, for providers whose "compatible" API differs. */
export type OpenAICompatibleQuirks = Pick<OpenAICompatibleProviderSettings, 'includeUsage' | 'transformRequestBody' | 'supportsStructuredOutputs'>;

/** `Authorization: Bearer <key>`, how most providers take a key. */
export function bearerAuth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The factory shared by every provider that speaks OpenAI's chat/completions wire format. */
export async function openAICompatibleModel(name: string, options: ModelFactoryOptions, quirks: OpenAICompatibleQuirks = {}): Promise<LanguageModelV4> {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({
    name,
    baseURL: options.baseURL,
    fetch: options.fetch,
    includeUsage: true,
    ...quirks,
  }).chatModel(options.modelId);
}

/**
 * A request's extras as OpenAI body fields, for @ai-sdk/openai-compatible, which
 * copies unknown `providerOptions[<name>]` entries into the body as they are
 * (`user` is one of its own options and ends up as `user` too).
 */
export function openAICompatibleOptions(extras: RequestExtras, logprobs: boolean): JSONObject | undefined {
  const options: JSONObject = {};
  let any = false;
  if (extras.user !== undefined) {
    options.user = extras.user;
    any = true;
  }
  if (extras.parallelToolCalls !== undefined) {
    options.parallel_tool_calls = extras.parallelToolCalls;
    any = true;
  }
  if (logprobs && extras.logprobs) {
    options.logprobs = true;
    if (extras.topLogprobs !== undefined) options.top_logprobs = extras.topLogprobs;
    any = true;
  }
  return any ? options : undefined;
}

/** An OpenAI token log probability, `choices[].logprobs.content[]`, as the upstream sent it. */
export type TokenLogprob = JSONObject;

/**
 * The token log probabilities of one raw OpenAI-format chunk or answer
 * (`choices[0].logprobs.content`); undefined when it has none.
 */
export function tokenLogprobs(raw: unknown): TokenLogprob[] | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const choices = (raw as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return undefined;
  const logprobs = (choices[0] as { logprobs?: { content?: JSONValue } } | undefined)?.logprobs;
  const content = logprobs?.content;
  return Array.isArray(content) && content.length > 0 ? (content as TokenLogprob[]) : undefined;
}
