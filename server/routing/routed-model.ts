import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import type { RequestExtras } from '../../providers/types.ts';
import type { AttemptLog } from './attempt.ts';
import type { KeySet } from '../core/keys.ts';
import type { Candidate, Plan } from './plan.ts';
import type { Answer, Router, RouteRequest } from './router.ts';
import { estimateInputTokens } from './estimate.ts';
import type { RoutedPart } from './stream-parts.ts';
import type { Collected, ModelSource, OpenedStream } from './upstream.ts';
import type { Failure } from './upstream-errors.ts';
import type { RequestTrace } from '../tracing/index.ts';

/**
 * A planned request as an AI SDK `LanguageModelV4` (as `wrapLanguageModel` takes
 * the model it wraps, this takes the router it runs on). `doStream` resolves once a
 * candidate produced its first output (failover before it is invisible), and its
 * stream is the routed vocabulary of stream-parts.ts; a stream that fails after its
 * first output fails as `StreamFailed`, already classified and recorded against the key.
 */

/** One planned request, and what its attempts are made with. */
export interface RoutedRequest {
  readonly plan: Plan;
  readonly keys: KeySet;
  readonly models: ModelSource;
  /** What else the request asks of the provider (`user`, `parallelToolCalls`, `logprobs`). */
  readonly extras: RequestExtras;
  /** Every attempt is appended here; the caller owns it (X-Freeway-Attempts, the log line). */
  readonly attempts: AttemptLog[];
  /** MAX_RESPONSE_BYTES: the most answer collected by `doGenerate`. */
  readonly maxResponseBytes: number;
  /** The request's conversation (routing/conversation.ts), whose model is kept after the answer. */
  readonly conversation?: string;
  /** The request's trace, when tracing is on. */
  readonly trace?: RequestTrace;
  /** X-Freeway-Max-Wait, in ms: the longest the request may be held for a window or a slot; MAX_WAIT_MS when absent. */
  readonly maxWaitMs?: number;
}

export interface RoutedStreamResult extends Omit<LanguageModelV4StreamResult, 'stream'> {
  readonly stream: ReadableStream<RoutedPart>;
  /** The model and key that answered. */
  readonly candidate: Candidate;
}

export type RoutedGenerateResult = Omit<LanguageModelV4GenerateResult, 'content'> & Collected & { readonly candidate: Candidate };

export interface RoutedPartsResult {
  readonly parts: RoutedParts;
  /** The model and key that answered. */
  readonly candidate: Candidate;
}

export interface RoutedModel extends Omit<LanguageModelV4, 'doStream' | 'doGenerate'> {
  doStream(options: LanguageModelV4CallOptions): Promise<RoutedStreamResult>;
  /** `doStream` without the web stream: the parts as `RoutedParts` reads them. */
  streamParts(options: LanguageModelV4CallOptions): Promise<RoutedPartsResult>;
  doGenerate(options: LanguageModelV4CallOptions): Promise<RoutedGenerateResult>;
}

/** A routed stream that failed after its first output; `failure` is undefined when the caller went away or the attempt had ended. */
export class StreamFailed extends Error {
  override readonly name = 'StreamFailed';
  readonly failure: Failure | undefined;
  constructor(failure: Failure | undefined) {
    super(failure?.reason ?? 'the stream ended');
    this.failure = failure;
  }
}

/** One read of routed parts: a part, or the end. */
export type PartRead = { readonly done: false; readonly value: RoutedPart } | { readonly done: true; readonly value: undefined };

/**
 * A routed answer's parts, read one at a time (a read waits for the one before
 * it): what `doStream`'s web stream reads, and what Freeway's own stream writer
 * reads without one (a web stream costs some promises and a pull a part).
 */
export interface RoutedParts {
  /** The next part, or done; after a failure, every read fails with the same `StreamFailed`. */
  read(): Promise<PartRead>;
  /** The caller stopped reading: its own doing, not the provider's. */
  cancel(): Promise<void>;
}

const DONE: PartRead = { done: true, value: undefined };

/**
 * The answer's parts, read from the upstream only when the caller reads: the
 * idle timer runs only while a read waits on the upstream, so the time a slow
 * caller takes is never counted as upstream silence.
 */
function routedParts(router: Pick<Router, 'end'>, answer: Answer<OpenedStream>): RoutedParts {
  const { reader, normaliser, head } = answer.value;
  // The parts made and not yet read: the head (read before the answer was handed over), then what each upstream part makes.
  const ready: Array<RoutedPart | undefined> = head.slice();
  let next = 0;
  let over = false;
  let failed: StreamFailed | undefined;
  // Made once per answer, not per part: the hot path allocates nothing of its own.
  const keep = (part: RoutedPart): void => {
    ready.push(part);
  };
  const take = (): PartRead => {
    const value = ready[next] as RoutedPart;
    ready[next++] = undefined;
    if (next === ready.length) ready.length = next = 0;
    return { done: false, value };
  };
  /** Reads the upstream until a part is made: an upstream part may make none (a tool result, a ping). */
  const readUpstream = async (): Promise<PartRead> => {
    try {
      while (next === ready.length) {
        const { done, value } = await answer.attempt.read(reader);
        if (done) {
          over = true;
          const { inputTokens, outputTokens } = normaliser.end();
          await router.end(answer, { kind: 'done', inputTokens: inputTokens.total, outputTokens: outputTokens.total });
          return DONE;
        }
        normaliser.take(value, keep);
      }
      return take();
    } catch (error) {
      over = true;
      failed = new StreamFailed(await router.end(answer, { kind: 'failed', error }));
      reader.cancel().catch(() => {});
      throw failed;
    }
  };
  return {
    read() {
      if (next < ready.length) return Promise.resolve(take());
      if (failed) return Promise.reject(failed);
      if (over) return Promise.resolve(DONE);
      return readUpstream();
    },
    async cancel() {
      if (over) return;
      over = true;
      await router.end(answer, LEFT);
      reader.cancel().catch(() => {});
    },
  };
}

/** Routed parts as a web stream, as `LanguageModelV4.doStream` answers. */
function partsStream(parts: RoutedParts): ReadableStream<RoutedPart> {
  return new ReadableStream<RoutedPart>(
    {
      async pull(controller) {
        try {
          const { done, value } = await parts.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: () => parts.cancel(),
    },
    { highWaterMark: 0 },
  );
}

const neverAborted = new AbortController().signal;
const LEFT = { kind: 'left' } as const;

/** What the router is asked for one call of a routed request. */
function routeRequest(options: LanguageModelV4CallOptions, request: RoutedRequest): RouteRequest {
  const { abortSignal, ...rest } = options;
  return {
    plan: request.plan,
    keys: request.keys,
    call: { options: rest, models: request.models, extras: request.extras },
    callerSignal: abortSignal ?? neverAborted,
    attempts: request.attempts,
    budget: options.maxOutputTokens,
    // The router asks for the input estimate when it first needs it, and keeps it for the rest of the request.
    inputTokens: () => estimateInputTokens(options),
    conversation: request.conversation,
    trace: request.trace,
    maxWaitMs: request.maxWaitMs,
  };
}

export function routedModel(router: Pick<Router, 'stream' | 'collect' | 'end'>, request: RoutedRequest): RoutedModel {
  const streamParts = async (options: LanguageModelV4CallOptions): Promise<RoutedPartsResult> => {
    const answer = await router.stream(routeRequest(options, request));
    return { parts: routedParts(router, answer), candidate: answer.candidate };
  };
  return {
    specificationVersion: 'v4',
    provider: 'freeway',
    modelId: request.plan.target,
    supportedUrls: {},
    async doStream(options) {
      const { parts, candidate } = await streamParts(options);
      return { stream: partsStream(parts), candidate };
    },
    streamParts,
    async doGenerate(options) {
      const answer = await router.collect({ ...routeRequest(options, request), maxBytes: request.maxResponseBytes });
      const { inputTokens, outputTokens } = answer.value.usage;
      await router.end(answer, { kind: 'done', inputTokens: inputTokens.total, outputTokens: outputTokens.total });
      return { ...answer.value, warnings: [], candidate: answer.candidate };
    },
  };
}
