import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4StreamPart, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import type { RequestExtras } from '../../providers/types.ts';
import { reportedUsage } from '../../providers/usage.ts';
import { assertFinished } from '../core/parts.ts';
import type { AttemptLog } from './attempt.ts';
import type { KeySet } from './keys.ts';
import type { Candidate, Plan } from './plan.ts';
import type { Router, Routed } from './router.ts';
import { collect, openStream, type Collected, type ModelSource, type OpenedStream, type UpstreamCall } from './upstream.ts';
import type { Failure } from './upstream-errors.ts';

/**
 * A planned request as an AI SDK `LanguageModelV4`. `doStream` resolves once a
 * candidate produced its first output (failover before it is invisible), and its
 * parts are normalised: usage as the upstream reported it, and a stream that
 * ends unfinished or with an error part fails as `StreamFailed`, already
 * classified and recorded against the key.
 */

export interface RoutedSetup {
  readonly models: ModelSource;
  /** What else the request asks of the provider (`user`, `parallelToolCalls`, `logprobs`). */
  readonly extras: RequestExtras;
  /** Every attempt is appended here; the caller owns it (X-Freeway-Attempts, the log line). */
  readonly attempts: AttemptLog[];
  /** MAX_RESPONSE_BYTES: the most answer collected by `doGenerate`. */
  readonly maxResponseBytes: number;
}

export interface RoutedStreamResult extends LanguageModelV4StreamResult {
  /** The model and key that answered. */
  readonly candidate: Candidate;
}

export type RoutedGenerateResult = LanguageModelV4GenerateResult & Collected & { readonly candidate: Candidate };

export interface RoutedModel extends LanguageModelV4 {
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

/** The finish part with the usage the upstream really reported (see `reportedUsage`). */
function normalised(part: LanguageModelV4StreamPart): LanguageModelV4StreamPart {
  if (part.type === 'error') throw part.error;
  if (part.type !== 'finish') return part;
  assertFinished(part.finishReason);
  return { ...part, usage: reportedUsage(part.usage) };
}

/**
 * The answer's parts, read from the upstream only when the caller pulls: the
 * idle timer runs only while a read waits on the upstream, so the time a slow
 * caller takes is never counted as upstream silence.
 */
export function routedStream(routed: Routed<OpenedStream>): ReadableStream<LanguageModelV4StreamPart> {
  const { reader, head } = routed.value;
  let next = 0;
  let finished = false;
  const take = (part: LanguageModelV4StreamPart): LanguageModelV4StreamPart => {
    const out = normalised(part);
    if (out.type === 'finish') finished = true;
    return out;
  };
  return new ReadableStream<LanguageModelV4StreamPart>(
    {
      async pull(controller) {
        try {
          if (next < head.length) {
            controller.enqueue(take(head[next++] as LanguageModelV4StreamPart));
            return;
          }
          const { done, value } = await routed.attempt.read(reader);
          if (!done) {
            controller.enqueue(take(value));
            return;
          }
          if (!finished) throw new Error('the upstream stream ended without a finish reason');
          await routed.finish();
          controller.close();
        } catch (error) {
          const failure = await routed.finish(error);
          reader.cancel().catch(() => {});
          controller.error(new StreamFailed(failure));
        }
      },
      async cancel() {
        // The caller stopped reading: its own doing, not the provider's. Health stays as it is.
        await routed.finish();
        reader.cancel().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

const neverAborted = new AbortController().signal;

function upstreamCall(options: LanguageModelV4CallOptions, setup: RoutedSetup): UpstreamCall {
  const { abortSignal: _signal, ...rest } = options;
  return { options: rest, models: setup.models, extras: setup.extras };
}

export function routedModel(router: Pick<Router, 'run'>, plan: Plan, keys: KeySet, setup: RoutedSetup): RoutedModel {
  return {
    specificationVersion: 'v4',
    provider: 'freeway',
    modelId: plan.target,
    supportedUrls: {},
    async doStream(options) {
      const call = upstreamCall(options, setup);
      const signal = options.abortSignal ?? neverAborted;
      const routed = await router.run(plan, keys, (candidate, attempt) => openStream(call, candidate, attempt), signal, setup.attempts, options.maxOutputTokens);
      return { stream: routedStream(routed), candidate: routed.candidate };
    },
    async doGenerate(options) {
      const call = upstreamCall(options, setup);
      const signal = options.abortSignal ?? neverAborted;
      const routed = await router.run(plan, keys, (candidate, attempt) => collect(call, candidate, attempt, setup.maxResponseBytes), signal, setup.attempts, options.maxOutputTokens);
      await routed.finish();
      return { ...routed.value, warnings: [], candidate: routed.candidate };
    },
  };
}
