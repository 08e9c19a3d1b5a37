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

export interface RoutedModel extends Omit<LanguageModelV4, 'doStream' | 'doGenerate'> {
  doStream(options: LanguageModelV4CallOptions): Promise<RoutedStreamResult>;
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

/**
 * The answer's parts, read from the upstream only when the caller pulls: the
 * idle timer runs only while a read waits on the upstream, so the time a slow
 * caller takes is never counted as upstream silence.
 */
function routedStream(router: Pick<Router, 'end'>, answer: Answer<OpenedStream>): ReadableStream<RoutedPart> {
  const { reader, normaliser, head } = answer.value;
  let next = 0;
  let controller!: ReadableStreamDefaultController<RoutedPart>;
  let enqueued = false;
  // Made once per stream, not per part: the hot path allocates nothing of its own.
  const enqueue = (part: RoutedPart): void => {
    controller.enqueue(part);
    enqueued = true;
  };
  return new ReadableStream<RoutedPart>(
    {
      start(streamController) {
        controller = streamController;
      },
      async pull() {
        try {
          if (next < head.length) {
            controller.enqueue(head[next++] as RoutedPart);
            return;
          }
          enqueued = false;
          // An upstream part may make no routed part (a tool result, a ping): read on until one comes.
          while (!enqueued) {
            const { done, value } = await answer.attempt.read(reader);
            if (done) {
              const { inputTokens, outputTokens } = normaliser.end();
              await router.end(answer, { kind: 'done', inputTokens: inputTokens.total, outputTokens: outputTokens.total });
              controller.close();
              return;
            }
            normaliser.take(value, enqueue);
          }
        } catch (error) {
          const failure = await router.end(answer, { kind: 'failed', error });
          reader.cancel().catch(() => {});
          controller.error(new StreamFailed(failure));
        }
      },
      async cancel() {
        // The caller stopped reading: its own doing, not the provider's. Health stays as it is.
        await router.end(answer, LEFT);
        reader.cancel().catch(() => {});
      },
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
  return {
    specificationVersion: 'v4',
    provider: 'freeway',
    modelId: request.plan.target,
    supportedUrls: {},
    async doStream(options) {
      const answer = await router.stream(routeRequest(options, request));
      return { stream: routedStream(router, answer), candidate: answer.candidate };
    },
    async doGenerate(options) {
      const answer = await router.collect({ ...routeRequest(options, request), maxBytes: request.maxResponseBytes });
      const { inputTokens, outputTokens } = answer.value.usage;
      await router.end(answer, { kind: 'done', inputTokens: inputTokens.total, outputTokens: outputTokens.total });
      return { ...answer.value, warnings: [], candidate: answer.candidate };
    },
  };
}
