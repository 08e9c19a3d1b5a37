import type { JSONObject, JSONValue } from '@ai-sdk/provider';
import type { ProviderPlugin, RequestExtras } from './types.ts';

/**
 * What the contract does with a request's extras (`user`, `parallelToolCalls`,
 * `logprobs`): the `providerOptions` entry a plugin's call is given, and the token
 * log probabilities read back from its answer. Routing calls every plugin through
 * these, never through a provider family's module.
 */

/** The `providerOptions` entry (under the plugin's id) for one call: the plugin's own, or by default OpenAI's body fields. */
export function providerOptionsFor(plugin: Pick<ProviderPlugin, 'providerOptions' | 'logprobs'>, extras: RequestExtras): JSONObject | undefined {
  return plugin.providerOptions ? plugin.providerOptions(extras) : openAIBodyFields(extras, plugin.logprobs === true);
}

/**
 * A request's extras as OpenAI body fields, for @ai-sdk/openai-compatible, which
 * copies unknown `providerOptions[<name>]` entries into the body as they are
 * (`user` is one of its own options and ends up as `user` too).
 */
function openAIBodyFields(extras: RequestExtras, logprobs: boolean): JSONObject | undefined {
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
