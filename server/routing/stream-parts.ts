import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4StreamPart, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { reportedUsage } from '../../providers/usage.ts';

/**
 * The stream vocabulary every client API is handed (the AI SDK's `wrapStream`
 * idea): an upstream's parts, normalised once, here, so that no encoder checks
 * them again. A routed stream has
 * - no `error` parts: an upstream error part fails the stream (see `partNormaliser`);
 * - no provider-executed tool calls, results or approvals: Freeway's callers run their own tools;
 * - every tool call as `tool-input-start`, its `tool-input-delta`s (maybe none) and one
 *   `tool-input-end` carrying the whole arguments, also when the provider sent the call
 *   whole (Gemini);
 * - exactly one `finish`, last, with the usage the upstream really reported, never an
 *   interrupted one (that fails the stream, as a stream without a finish does).
 */

type SdkPart<T extends LanguageModelV4StreamPart['type']> = Extract<LanguageModelV4StreamPart, { type: T }>;

/** A tool call's end, with its whole arguments (JSON text) and the metadata the provider gave the call (Gemini's thought signature). */
export interface ToolCallEnd {
  readonly type: 'tool-input-end';
  readonly id: string;
  readonly toolName: string;
  readonly input: string;
  readonly providerMetadata?: SharedV4ProviderMetadata;
}

/** A tool call's start: never a provider-executed one. */
export type ToolCallStart = SdkPart<'tool-input-start'>;

/** The last part of every routed stream. */
export type RoutedFinish = SdkPart<'finish'>;

/** Every part of a routed stream but its finish. */
export type RoutedContentPart =
  | SdkPart<'text-start' | 'text-delta' | 'text-end' | 'reasoning-start' | 'reasoning-delta' | 'reasoning-end' | 'tool-input-delta' | 'raw' | 'stream-start' | 'response-metadata'>
  | ToolCallStart
  | ToolCallEnd;

export type RoutedPart = RoutedContentPart | RoutedFinish;

/** A whole answer's content as client APIs are handed it: text, reasoning and the caller's own tool calls. */
export type RoutedContent = Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' | 'tool-call' }>;

export class StreamInterrupted extends Error {
  override readonly name = 'StreamInterrupted';
}

export const NO_FINISH = 'the upstream stream ended without a finish reason';

/** A stream that stopped without the provider's end marker is a failure, never a silent truncation. */
export function assertFinished(reason: LanguageModelV4FinishReason): void {
  if (reason.unified === 'interrupted') throw new StreamInterrupted('the upstream stream ended before it finished');
}

/** True for parts that show the upstream has really started answering. */
export function isFirstOutput(part: RoutedPart): boolean {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return part.delta !== '';
    case 'tool-input-start':
    case 'finish':
      return true;
    default:
      return false;
  }
}

/** Turns one upstream's parts into a routed stream's, as they come. */
export interface PartNormaliser {
  /**
   * One upstream part in; each routed part it makes goes to `emit`: none, one, or the
   * start, delta and end of a tool call sent whole. Throws the upstream's error for an
   * error part, and `StreamInterrupted` for a finish that says the stream was cut.
   */
  take(part: LanguageModelV4StreamPart, emit: (part: RoutedPart) => void): void;
  /** The upstream stream ended: throws unless its finish came; returns the usage its finish reported. */
  end(): LanguageModelV4Usage;
}

/** A tool call started and not ended yet: its name and the arguments streamed so far. */
interface OpenCall {
  readonly toolName: string;
  input: string;
}

export function partNormaliser(): PartNormaliser {
  let finished: LanguageModelV4Usage | undefined;
  // Created on a stream's first tool call: most streams have none.
  let open: Map<string, OpenCall> | undefined;
  let providerExecuted: Set<string> | undefined;

  function toolCall(part: SdkPart<'tool-call'>, emit: (part: RoutedPart) => void): void {
    if (part.providerExecuted) return;
    const started = open?.get(part.toolCallId);
    if (started) open?.delete(part.toolCallId);
    else {
      // A call sent whole (Gemini): its start and its arguments in one delta first.
      emit({ type: 'tool-input-start', id: part.toolCallId, toolName: part.toolName });
      if (part.input !== '') emit({ type: 'tool-input-delta', id: part.toolCallId, delta: part.input });
    }
    const end: ToolCallEnd = { type: 'tool-input-end', id: part.toolCallId, toolName: part.toolName, input: part.input };
    emit(part.providerMetadata ? { ...end, providerMetadata: part.providerMetadata } : end);
  }

  /** A call the upstream never ended ends with what it streamed, before the finish. */
  function endOpenCalls(emit: (part: RoutedPart) => void): void {
    if (!open) return;
    for (const [id, call] of open) emit({ type: 'tool-input-end', id, toolName: call.toolName, input: call.input });
    open.clear();
  }

  return {
    take(part, emit) {
      // Nothing after the finish: it is the last part a client API sees.
      if (finished) return;
      switch (part.type) {
        case 'text-start':
        case 'text-delta':
        case 'text-end':
        case 'reasoning-start':
        case 'reasoning-delta':
        case 'reasoning-end':
        case 'raw':
        case 'stream-start':
        case 'response-metadata':
          emit(part);
          return;
        case 'tool-input-start':
          if (part.providerExecuted) (providerExecuted ??= new Set()).add(part.id);
          else {
            (open ??= new Map()).set(part.id, { toolName: part.toolName, input: '' });
            emit(part);
          }
          return;
        case 'tool-input-delta': {
          const call = open?.get(part.id);
          if (!call) return;
          call.input += part.delta;
          emit(part);
          return;
        }
        case 'tool-call':
          toolCall(part, emit);
          return;
        case 'finish':
          assertFinished(part.finishReason);
          endOpenCalls(emit);
          finished = reportedUsage(part.usage);
          emit({ ...part, usage: finished });
          return;
        case 'error':
          throw part.error;
        default:
          // `tool-input-end` (the `tool-call` after it carries the whole arguments), tool results and
          // approvals, files, sources, custom content, pings: nothing a client API sends on.
          return;
      }
    },
    end() {
      if (!finished) throw new Error(NO_FINISH);
      return finished;
    },
  };
}

/** A whole answer as client APIs are handed it: the counterpart of `partNormaliser` for an upstream's `doGenerate`. */
export interface RoutedAnswer {
  readonly content: RoutedContent[];
  readonly finishReason: LanguageModelV4FinishReason;
  /** As the upstream reported it (`reportedUsage`). */
  readonly usage: LanguageModelV4Usage;
}

/** Keeps the text, reasoning and the caller's tool calls of a whole answer; throws when the answer was cut. */
export function normaliseAnswer(answer: { readonly content: readonly LanguageModelV4Content[]; readonly finishReason: LanguageModelV4FinishReason; readonly usage: LanguageModelV4Usage }): RoutedAnswer {
  assertFinished(answer.finishReason);
  const content: RoutedContent[] = [];
  for (const part of answer.content) {
    if (part.type === 'text' || part.type === 'reasoning' || (part.type === 'tool-call' && !part.providerExecuted)) content.push(part);
  }
  return { content, finishReason: answer.finishReason, usage: reportedUsage(answer.usage) };
}
