import type { LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider';
import { systemContext, type EncoderContext, type WholeAnswer } from '../encoding.ts';
import { toToolUseId } from './request.ts';
import type { MessagesRequest, StopReason } from './types.ts';

export function messageId(context: EncoderContext): string {
  return context.newId('msg_', 24);
}

/**
 * The `stop_reason` for the AI SDK's finish reason. A stop sequence is only
 * reported when the provider said so; most providers call it a plain stop.
 */
export function toStopReason(reason: LanguageModelV4FinishReason, madeToolCalls: boolean): StopReason {
  switch (reason.unified) {
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    default:
      if (madeToolCalls) return 'tool_use';
      return reason.raw === 'stop_sequence' ? 'stop_sequence' : 'end_turn';
  }
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation: null;
  output_tokens_details: { thinking_tokens: number } | null;
  server_tool_use: null;
  service_tier: null;
  inference_geo: null;
  speed: null;
}

const orNull = (count: number | undefined): number | null => (count === undefined ? null : count);

/**
 * Anthropic's usage from what the upstream reported (the pipeline hands over
 * only counts the provider really sent). Anthropic counts cached input apart
 * from `input_tokens`, so cache reads and writes are taken out of it; they, and
 * thinking tokens, are null unless reported. An input or output count the
 * upstream did not report is 0: Anthropic never reports 0 input or output
 * tokens for a real answer, so it cannot pass for a measurement, while clients
 * that add the counts up keep working (null would break typed clients).
 */
export function toUsage(usage: LanguageModelV4Usage): Usage {
  const { total, cacheRead, cacheWrite } = usage.inputTokens;
  const input = total === undefined ? 0 : Math.max(0, total - (cacheRead ?? 0) - (cacheWrite ?? 0));
  const reasoning = usage.outputTokens.reasoning;
  return {
    input_tokens: input,
    output_tokens: usage.outputTokens.total ?? 0,
    cache_creation_input_tokens: orNull(cacheWrite),
    cache_read_input_tokens: orNull(cacheRead),
    cache_creation: null,
    output_tokens_details: reasoning === undefined ? null : { thinking_tokens: reasoning },
    server_tool_use: null,
    service_tier: null,
    inference_geo: null,
    speed: null,
  };
}

/** Tool input as an object: Anthropic's `input` is one, the AI SDK's is the JSON text. */
export function parseToolInput(input: string): Record<string, unknown> {
  if (input.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(input);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // An upstream's malformed arguments: the caller's tool sees an empty input and can report it.
  }
  return {};
}

/**
 * Freeway has no signature to give: the thinking comes from another provider's
 * model and nothing can verify it. The field is there because Anthropic's
 * clients expect it; Freeway ignores thinking blocks sent back to it.
 */
export const THINKING_SIGNATURE = '';

export type ContentBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; caller: { type: 'direct' } };

export interface MessageObject {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  stop_details: null;
  container: null;
  diagnostics: null;
  usage: Usage;
}

/** `thinking.display: "omitted"`: the caller does not want the thinking text, and Freeway has no signature to give instead. */
export const showsThinking = (request: MessagesRequest): boolean => {
  const thinking = request.thinking;
  return !(thinking && (thinking.type === 'enabled' || thinking.type === 'adaptive') && thinking.display === 'omitted');
};

/** The whole answer as Anthropic's `message`; `model` is the name the caller asked for. */
export function toMessage(result: WholeAnswer, request: MessagesRequest, context: EncoderContext = systemContext): MessageObject {
  const content: ContentBlock[] = [];
  const thinking = showsThinking(request);
  let toolCalls = false;
  for (const part of result.content) {
    if (part.type === 'reasoning') {
      if (thinking) content.push({ type: 'thinking', thinking: part.text, signature: THINKING_SIGNATURE });
    } else if (part.type === 'text') content.push({ type: 'text', text: part.text, citations: null });
    else {
      toolCalls = true;
      content.push({ type: 'tool_use', id: toToolUseId(part.toolCallId), name: part.toolName, input: parseToolInput(part.input), caller: { type: 'direct' } });
    }
  }
  return {
    id: messageId(context),
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: toStopReason(result.finishReason, toolCalls),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: toUsage(result.usage),
  };
}
