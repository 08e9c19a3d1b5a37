import { randomUUID } from 'node:crypto';
import type { LanguageModelV4FinishReason, LanguageModelV4GenerateResult, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { FinishReason, ToolCall, Usage } from './types.ts';

export function completionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
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

/** OpenAI's snake_case fields, and SPEC.md's camelCase ones, with the same numbers. */
export function toUsage(usage: LanguageModelV4Usage): Usage {
  const prompt = usage.inputTokens.total ?? 0;
  const completion = usage.outputTokens.total ?? 0;
  const total = prompt + completion;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: total,
  };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: ToolCall[] };
    finish_reason: FinishReason;
    logprobs: null;
  }>;
  usage: Usage;
}

/** AI SDK generate result -> OpenAI chat.completion. `model` is the id the caller asked for. */
export function toChatCompletion(result: Pick<LanguageModelV4GenerateResult, 'content' | 'finishReason' | 'usage'>, model: string): ChatCompletion {
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      toolCalls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: part.input } });
    }
  }
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  let finishReason = toFinishReason(result.finishReason);
  if (toolCalls.length > 0 && finishReason === 'stop') finishReason = 'tool_calls';
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage: toUsage(result.usage),
  };
}
