import type { LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider';
import { systemContext, type EncoderContext, type WholeAnswer } from '../encoding.ts';
import type { ResponsesRequest } from './types.ts';

/** OpenAI-style ids: a prefix and 32 hex digits (`resp_`, `msg_`, `fc_`, `rs_`). */
export function newId(context: EncoderContext, prefix: 'resp' | 'msg' | 'fc' | 'rs'): string {
  return context.newId(`${prefix}_`, 32);
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: [];
}

export type OutputItem =
  | { id: string; type: 'reasoning'; summary: Array<{ type: 'summary_text'; text: string }>; status: ItemStatus }
  | { id: string; type: 'message'; status: ItemStatus; role: 'assistant'; content: OutputText[] }
  | { id: string; type: 'function_call'; status: ItemStatus; call_id: string; name: string; namespace?: string; arguments: string };

/** A function call item as the model made it: the model's own name for the function (see `functionCall`). */
export interface ModelFunctionCall {
  /** The item's id, `fc_...`. */
  readonly id: string;
  readonly status: ItemStatus;
  readonly callId: string;
  /** The function's name as the model called it. */
  readonly name: string;
  readonly args: string;
}

/** A function call as the client knows it: a namespaced function under its own name, with its `namespace`. */
export function functionCall(request: ResponsesRequest, { id, status, callId, name, args }: ModelFunctionCall): OutputItem {
  const client = request.namespaced.get(name);
  return client === undefined
    ? { id, type: 'function_call', status, call_id: callId, name, arguments: args }
    : { id, type: 'function_call', status, call_id: callId, name: client.name, namespace: client.namespace, arguments: args };
}

/**
 * OpenAI's `ResponseUsage`, as far as the upstream reported it (the pipeline
 * hands over the counts the provider really sent; see `reportedUsage`): a
 * detail the provider did not report is left out rather than shown as 0.
 */
export interface Usage {
  input_tokens: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details?: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * `undefined` when the upstream did not report both token counts: `usage` is
 * optional in OpenAI's Response object, and leaving it out says "unknown",
 * where zeros would claim a free answer.
 */
export function toUsage(usage: LanguageModelV4Usage): Usage | undefined {
  const input = usage.inputTokens.total;
  const output = usage.outputTokens.total;
  if (input === undefined || output === undefined) return undefined;
  const result: Usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  const { cacheRead, cacheWrite } = usage.inputTokens;
  if (cacheRead !== undefined || cacheWrite !== undefined) {
    result.input_tokens_details = {};
    if (cacheRead !== undefined) result.input_tokens_details.cached_tokens = cacheRead;
    if (cacheWrite !== undefined) result.input_tokens_details.cache_write_tokens = cacheWrite;
  }
  const reasoning = usage.outputTokens.reasoning;
  if (reasoning !== undefined) result.output_tokens_details = { reasoning_tokens: reasoning };
  return result;
}

export interface Outcome {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

export function toOutcome(reason: LanguageModelV4FinishReason): Outcome {
  switch (reason.unified) {
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content-filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    default:
      return { status: 'completed', incomplete_details: null };
  }
}

/** The request's settings as every Response object repeats them; the same for every event of a stream. */
export function echoedFields(request: ResponsesRequest) {
  return {
    instructions: request.instructions,
    max_output_tokens: request.max_output_tokens,
    metadata: request.metadata,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    ...(request.reasoning_effort === undefined ? {} : { reasoning: { effort: request.reasoning_effort } }),
    store: false,
    temperature: request.temperature,
    text: request.text,
    tool_choice: request.tool_choice,
    tools: request.tools,
    top_p: request.top_p,
    access_programs: null,
  };
}

/** The parts of a Response object that change while it is made. */
export interface ResponseState {
  status: 'in_progress' | 'completed' | 'incomplete';
  completed_at?: number;
  error: null;
  incomplete_details: Outcome['incomplete_details'];
  output: OutputItem[];
  usage?: Usage;
}

/** `now` is read for a completed response's `completed_at`. */
export function finalState(outcome: Outcome, output: OutputItem[], usage: Usage | undefined, now: () => number): ResponseState {
  const state: ResponseState = { status: outcome.status, error: null, incomplete_details: outcome.incomplete_details, output };
  if (outcome.status === 'completed') state.completed_at = now();
  if (usage) state.usage = usage;
  return state;
}

/** A whole answer -> OpenAI's Response object. `model` is the id the caller asked for. */
export function toResponse(result: WholeAnswer, request: ResponsesRequest, context: EncoderContext = systemContext): Record<string, unknown> {
  const outcome = toOutcome(result.finishReason);
  const output: OutputItem[] = [];
  let text = '';
  for (const part of result.content) {
    if (part.type === 'reasoning' && part.text !== '') {
      output.push({ id: newId(context, 'rs'), type: 'reasoning', summary: [{ type: 'summary_text', text: part.text }], status: 'completed' });
    } else if (part.type === 'text') text += part.text;
  }
  const calls: OutputItem[] = [];
  for (const part of result.content) {
    if (part.type === 'tool-call') {
      calls.push(functionCall(request, { id: newId(context, 'fc'), status: 'completed', callId: part.toolCallId, name: part.toolName, args: part.input }));
    }
  }
  if (text !== '' || calls.length === 0) {
    output.push({ id: newId(context, 'msg'), type: 'message', status: outcome.status, role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
  }
  output.push(...calls);
  return {
    id: newId(context, 'resp'),
    object: 'response',
    created_at: context.now(),
    model: request.model,
    ...finalState(outcome, output, toUsage(result.usage), context.now),
    ...echoedFields(request),
  };
}
