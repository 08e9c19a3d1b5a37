import { errorBody } from '../../core/errors.ts';
import type { RoutedContentPart, RoutedFinish } from '../../routing/index.ts';
import type { StreamEncoder } from '../client-api.ts';
import { systemContext, type EncoderContext } from '../encoding.ts';
import { tokenLogprobs, type TokenLogprob } from '../../../providers/openai-compatible.ts';
import { isLegacy } from './request.ts';
import { completionId, toFinishReason, toUsage } from './response.ts';
import type { ChatRequest, FinishReason, Usage } from './types.ts';

export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * Writes `chat.completion.chunk` events. Everything but the delta is the same
 * for every chunk of a completion, so it is serialized once per stream and each
 * chunk costs one JSON.stringify of the new text.
 */
export interface ChunkEncoder {
  role(): string;
  content(text: string): string;
  /** A content chunk with the log probabilities of its tokens. */
  contentWithLogprobs(text: string, logprobs: readonly TokenLogprob[]): string;
  /** Log probabilities that came without content. */
  logprobs(logprobs: readonly TokenLogprob[]): string;
  reasoning(text: string): string;
  toolCallStart(index: number, id: string, name: string, args: string): string;
  toolCallArguments(index: number, args: string): string;
  finish(reason: FinishReason): string;
  usage(usage: Usage): string;
}

/**
 * `legacy` writes tool calls as legacy function calling does: the first call
 * as `delta.function_call`, any further ones not at all (that form has room for one).
 */
export function createChunkEncoder(id: string, created: number, model: string, legacy = false): ChunkEncoder {
  const head = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"choices":[`;
  const open = `${head}{"index":0,"delta":`;
  const streaming = ',"finish_reason":null}]}\n\n';
  const withLogprobs = (logprobs: readonly TokenLogprob[]): string => `,"logprobs":{"content":${JSON.stringify(logprobs)},"refusal":null}${streaming}`;
  return {
    role: () => `${open}{"role":"assistant","content":""}${streaming}`,
    content: (text) => `${open}{"content":${JSON.stringify(text)}}${streaming}`,
    contentWithLogprobs: (text, logprobs) => `${open}{"content":${JSON.stringify(text)}}${withLogprobs(logprobs)}`,
    logprobs: (logprobs) => `${open}{}${withLogprobs(logprobs)}`,
    reasoning: (text) => `${open}{"reasoning_content":${JSON.stringify(text)}}${streaming}`,
    toolCallStart: legacy
      ? (index, _callId, name, args) =>
          index === 0 ? `${open}{"function_call":{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}}${streaming}` : ''
      : (index, callId, name, args) =>
          `${open}{"tool_calls":[{"index":${index},"id":${JSON.stringify(callId)},"type":"function","function":{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}}]}${streaming}`,
    toolCallArguments: legacy
      ? (index, args) => (index === 0 ? `${open}{"function_call":{"arguments":${JSON.stringify(args)}}}${streaming}` : '')
      : (index, args) => `${open}{"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(args)}}}]}${streaming}`,
    finish: (reason) => `${open}{},"finish_reason":"${reason}"}]}\n\n`,
    usage: (usage) => `${head}],"usage":${JSON.stringify(usage)}}\n\n`,
  };
}

/** What a stream has told so far that the last chunks need. */
export interface StreamState {
  readonly toolIndexes: Map<string, number>;
  /** Token log probabilities read from raw chunks, waiting for the content they belong to. */
  logprobs: TokenLogprob[] | undefined;
}

export function createStreamState(): StreamState {
  return { toolIndexes: new Map(), logprobs: undefined };
}

/**
 * Raw chunks only come when the caller asked for logprobs; each comes just
 * before the text delta it carries. Kept out of `encodePart`, the per-chunk path.
 */
function takeLogprobs(raw: unknown, state: StreamState): void {
  const tokens = tokenLogprobs(raw);
  if (tokens) state.logprobs = state.logprobs ? state.logprobs.concat(tokens) : tokens;
}

function contentWithLogprobs(text: string, state: StreamState, encoder: ChunkEncoder): string {
  const logprobs = state.logprobs as TokenLogprob[];
  state.logprobs = undefined;
  return encoder.contentWithLogprobs(text, logprobs);
}

/** One routed stream part -> the SSE text to send for it ('' for none). */
export function encodePart(part: RoutedContentPart, state: StreamState, encoder: ChunkEncoder): string {
  switch (part.type) {
    case 'text-delta':
      if (part.delta === '') return '';
      return state.logprobs === undefined ? encoder.content(part.delta) : contentWithLogprobs(part.delta, state, encoder);
    case 'raw':
      takeLogprobs(part.rawValue, state);
      return '';
    case 'reasoning-delta':
      return part.delta === '' ? '' : encoder.reasoning(part.delta);
    case 'tool-input-start': {
      const index = state.toolIndexes.size;
      state.toolIndexes.set(part.id, index);
      return encoder.toolCallStart(index, part.id, part.toolName, '');
    }
    case 'tool-input-delta': {
      const index = state.toolIndexes.get(part.id);
      return index === undefined || part.delta === '' ? '' : encoder.toolCallArguments(index, part.delta);
    }
    default:
      // A call's end says nothing new here: its arguments went out as deltas.
      return '';
  }
}

/** The finish reason to report: a stream that made tool calls ends with `tool_calls`. */
export function finalFinishReason(finish: RoutedFinish, state: StreamState): FinishReason {
  const reason = toFinishReason(finish.finishReason);
  return reason === 'stop' && state.toolIndexes.size > 0 ? 'tool_calls' : reason;
}

/** The chat-completions stream of one answer: a role chunk, content chunks, the finish chunk, usage if asked, `[DONE]`. */
export function chatStream(request: ChatRequest, context: EncoderContext = systemContext): StreamEncoder {
  const legacy = isLegacy(request);
  const encoder = createChunkEncoder(completionId(context), context.now(), request.model, legacy);
  const state = createStreamState();
  return {
    start: () => encoder.role(),
    part: (part) => encodePart(part, state, encoder),
    end(finish) {
      let out = state.logprobs ? encoder.logprobs(state.logprobs) : '';
      const reason = finalFinishReason(finish, state);
      out += encoder.finish(legacy && reason === 'tool_calls' ? 'function_call' : reason);
      const usage = request.stream_options?.include_usage ? toUsage(finish.usage) : undefined;
      if (usage) out += encoder.usage(usage);
      return out + SSE_DONE;
    },
    fail: (status, type, message) => `data: ${JSON.stringify(errorBody(status, type, message))}\n\n`,
  };
}
