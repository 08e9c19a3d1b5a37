import type { LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { TokenLogprob } from '../../../providers/openai-compatible.ts';
import { systemContext, type EncoderContext, type WholeAnswer } from '../encoding.ts';
import type { FinishReason, FunctionCall, ToolCall, Usage } from './types.ts';

export function completionId(context: EncoderContext): string {
  return context.newId('chatcmpl-', 32);
}

export function toFinishReason(reason: LanguageModelV4FinishReason): FinishReason {
  switch (reason.unified) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/**
 * OpenAI's usage fields, and camelCase copies of the three counts, from what the
 * upstream reported and nothing else: an unreported count is left out (the
 * total too, unless both of its parts were reported), and an upstream that
 * reported nothing gives no usage at all.
 */
export function toUsage(usage: LanguageModelV4Usage): Usage | undefined {
  const prompt = usage.inputTokens.total;
  const completion = usage.outputTokens.total;
  const cached = usage.inputTokens.cacheRead;
  const reasoning = usage.outputTokens.reasoning;
  if (prompt === undefined && completion === undefined && cached === undefined && reasoning === undefined) return undefined;
  const total = prompt === undefined || completion === undefined ? undefined : prompt + completion;
  const out: Usage = {};
  if (prompt !== undefined) out.prompt_tokens = prompt;
  if (completion !== undefined) out.completion_tokens = completion;
  if (total !== undefined) out.total_tokens = total;
  if (cached !== undefined) out.prompt_tokens_details = { cached_tokens: cached };
  if (reasoning !== undefined) out.completion_tokens_details = { reasoning_tokens: reasoning };
  if (prompt !== undefined) out.promptTokens = prompt;
  if (completion !== undefined) out.completionTokens = completion;
  if (total !== undefined) out.totalTokens = total;
  return out;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: ToolCall[]; function_call?: FunctionCall };
    finish_reason: FinishReason;
    logprobs: ChoiceLogprobs | null;
  }>;
  usage?: Usage;
}

/** OpenAI's `choices[].logprobs`. */
export interface ChoiceLogprobs {
  content: TokenLogprob[];
  refusal: null;
}

/**
 * AI SDK result -> OpenAI chat.completion. `model` is the id the caller asked
 * for; `legacy` answers a legacy function-calling request in its form: the
 * first call as `message.function_call`, finish reason `function_call`.
 */
export function toChatCompletion(result: WholeAnswer, model: string, legacy = false, context: EncoderContext = systemContext): ChatCompletion {
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else toolCalls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: part.input } });
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (reasoning !== '') message.reasoning_content = reasoning;
  let finishReason = toFinishReason(result.finishReason);
  if (toolCalls.length > 0 && finishReason === 'stop') finishReason = 'tool_calls';
  if (legacy) {
    const [first] = toolCalls;
    if (first) message.function_call = first.function;
    if (finishReason === 'tool_calls') finishReason = 'function_call';
  } else if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const completion: ChatCompletion = {
    id: completionId(context),
    object: 'chat.completion',
    created: context.now(),
    model,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: result.logprobs ? { content: result.logprobs, refusal: null } : null }],
  };
  const usage = toUsage(result.usage);
  if (usage) completion.usage = usage;
  return completion;
}
