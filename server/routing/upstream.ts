import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { CatalogModel } from '../../catalog/catalog.ts';
import { providerOptionsFor, tokenLogprobs, type TokenLogprob } from '../../providers/request-extras.ts';
import type { FetchFunction, ModelFactoryOptions, ProviderPlugin, RequestExtras } from '../../providers/types.ts';
import type { Attempt, AttemptControl } from './attempt.ts';
import type { Candidate } from './plan.ts';
import { isFirstOutput, normaliseAnswer, partNormaliser, type PartNormaliser, type RoutedAnswer, type RoutedContent, type RoutedFinish, type RoutedPart } from './stream-parts.ts';
import { BeforeRequest, ResponseTooLarge } from './upstream-errors.ts';
import { authHeadersFor } from '../core/keys.ts';
import { dropPastBound } from '../state/bounded-map.ts';

/** Everything an attempt needs except the abort signal, built once per request by a client API's mapping. */
export type CallOptions = Omit<LanguageModelV4CallOptions, 'abortSignal'>;

export type PartReader = ReadableStreamDefaultReader<LanguageModelV4StreamPart>;

/** An upstream stream that has produced its first output. */
export interface OpenedStream {
  /** The upstream's own parts, read on through `normaliser`. */
  readonly reader: PartReader;
  readonly normaliser: PartNormaliser;
  /** The routed parts made so far, up to the first output. */
  readonly head: readonly RoutedPart[];
}

/** The AI SDK model behind a catalog model; built once, on first use, and shared by every request. */
export type ModelSource = (model: CatalogModel) => Promise<LanguageModelV4>;

/**
 * The abort signals of attempts whose HTTP request has been started. An error
 * raised before that (the AI SDK refusing the prompt, a bug in a mapping) says
 * nothing about the provider, and must not count against its key.
 */
const requested = new WeakSet<AbortSignal>();

/**
 * A body that is not an event stream (a whole JSON answer, an error body) is read
 * whole by the AI SDK: more than `maxBytes` of it fails the read instead.
 */
function boundBody(response: Response, maxBytes: number): Response {
  const body = response.body;
  if (!body || (response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
  let bytes = 0;
  const bounded = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) controller.error(new ResponseTooLarge(`the answer is larger than MAX_RESPONSE_BYTES (${maxBytes} bytes)`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function trackRequests(fetch: FetchFunction | undefined, maxBodyBytes: number): FetchFunction {
  return (async (input: Parameters<FetchFunction>[0], init?: RequestInit) => {
    if (init?.signal) requested.add(init.signal);
    return boundBody(await (fetch ?? globalThis.fetch)(input, init), maxBodyBytes);
  }) as FetchFunction;
}

/** Runs `start` (building and sending the upstream request); what it throws before the request left is wrapped in BeforeRequest. */
export async function beginCall<T>(control: AttemptControl, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw requested.has(control.signal) ? error : new BeforeRequest(error);
  }
}

/** The most AI SDK models kept built at once. */
const MAX_BUILT_MODELS = 10_000;

/**
 * Builds a catalog model's SDK model once, on first use, and shares it between requests.
 * Every upstream call goes through `upstreamFetch`, and `maxBodyBytes` (MAX_RESPONSE_BYTES)
 * bounds every upstream body that is read whole.
 */
export function cachedModels<M>(
  baseURLs: ReadonlyMap<string, string>,
  upstreamFetch: FetchFunction | undefined,
  maxBodyBytes: number,
  build: (entry: CatalogModel, options: ModelFactoryOptions) => M | Promise<M>,
): (entry: CatalogModel) => Promise<M> {
  const models = new Map<string, Promise<M>>();
  const fetch = trackRequests(upstreamFetch, maxBodyBytes);
  return (entry) => {
    let model = models.get(entry.id);
    if (!model) {
      const { provider } = entry;
      model = Promise.resolve().then(() => build(entry, { modelId: entry.spec.id, baseURL: baseURLs.get(provider.id) ?? provider.baseURL, fetch }));
      // A factory that failed is tried again by the next request.
      model.catch(() => models.delete(entry.id));
      models.set(entry.id, model);
      // Live lists can name models the catalog does not: the oldest built goes first past the bound.
      dropPastBound(models, MAX_BUILT_MODELS);
    }
    return model;
  };
}

export function createModelSource(baseURLs: ReadonlyMap<string, string>, upstreamFetch: FetchFunction | undefined, maxBodyBytes: number): ModelSource {
  return cachedModels(baseURLs, upstreamFetch, maxBodyBytes, (entry, options) => entry.provider.createModel(options));
}

export interface UpstreamCall {
  readonly options: CallOptions;
  readonly models: ModelSource;
  readonly extras: RequestExtras;
}

/** True when this attempt asks for token log probabilities and its provider returns them. */
const wantsLogprobs = (call: UpstreamCall, provider: ProviderPlugin): boolean => call.extras.logprobs === true && provider.logprobs === true;

function callOptions(call: UpstreamCall, candidate: Candidate, control: AttemptControl): LanguageModelV4CallOptions {
  const { provider } = candidate.model;
  const extras = providerOptionsFor(provider, call.extras);
  const options: LanguageModelV4CallOptions = {
    ...call.options,
    reasoning: candidate.model.spec.reasoningEffort === true ? call.options.reasoning : undefined,
    // The model's maximum when it takes less than the caller's budget (an upper bound).
    maxOutputTokens: candidate.maxOutputTokens ?? call.options.maxOutputTokens,
    headers: authHeadersFor(provider, candidate.key),
    abortSignal: control.signal,
    providerOptions: extras === undefined ? undefined : { [provider.id]: extras },
  };
  // Log probabilities are not part of the AI SDK's stream parts: they are read from the raw chunks.
  if (wantsLogprobs(call, provider)) options.includeRawChunks = true;
  return options;
}

/**
 * Starts the provider's streaming call and reads until the first real output,
 * so a provider that fails or stays silent is still invisible to the caller.
 * Calls stream upstream, also for non-streaming callers (except to providers
 * whose streams carry no usage, see `collect`): that way time to first token
 * and stream silence bound every attempt alike. The parts are normalised as they
 * are read (`partNormaliser`): an error part or a cut stream fails the attempt here.
 */
export async function openStream(call: UpstreamCall, candidate: Candidate, control: Attempt): Promise<OpenedStream> {
  const { stream, response } = await beginCall(control, async () => (await call.models(candidate.model)).doStream(callOptions(call, candidate, control)));
  if (response?.headers) control.responseHeaders(response.headers);
  const reader = stream.getReader();
  const normaliser = partNormaliser();
  const head: RoutedPart[] = [];
  let started = false;
  const keep = (part: RoutedPart): void => {
    head.push(part);
    if (!started && isFirstOutput(part)) started = true;
  };
  try {
    while (!started) {
      const { done, value } = await control.read(reader);
      if (done) throw new Error('the upstream stream ended without any output');
      normaliser.take(value, keep);
    }
    control.firstOutput();
    return { reader, normaliser, head };
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
}

/** A whole answer as a client API is handed it, with OpenAI-format token log probabilities when the caller asked and the upstream sent them. */
export interface Collected extends RoutedAnswer {
  readonly logprobs?: TokenLogprob[];
}

/**
 * Reads a whole stream into one answer, for callers that did not ask to stream.
 * More than `maxBytes` of answer (UTF-8 text, reasoning and tool-call arguments)
 * fails the attempt as a bad upstream response.
 */
export async function collectStream(opened: OpenedStream, control: Attempt, maxBytes: number): Promise<Collected> {
  let bytes = 0;
  const grow = (piece: string): void => {
    bytes += Buffer.byteLength(piece);
    if (bytes > maxBytes) throw new ResponseTooLarge(`the answer is larger than MAX_RESPONSE_BYTES (${maxBytes} bytes)`);
  };
  let text = '';
  let reasoning = '';
  // The last metadata a provider gave text and reasoning (Gemini's thought signature): the whole answer carries it on that part.
  let textMetadata: SharedV4ProviderMetadata | undefined;
  let reasoningMetadata: SharedV4ProviderMetadata | undefined;
  const toolCalls: RoutedContent[] = [];
  let finish: RoutedFinish | undefined;
  let logprobs: TokenLogprob[] | undefined;
  const take = (part: RoutedPart): void => {
    switch (part.type) {
      case 'raw': {
        const tokens = tokenLogprobs(part.rawValue);
        if (tokens) logprobs = logprobs ? logprobs.concat(tokens) : tokens;
        break;
      }
      case 'text-delta':
        grow(part.delta);
        text += part.delta;
        if (part.providerMetadata) textMetadata = part.providerMetadata;
        break;
      case 'reasoning-delta':
        grow(part.delta);
        reasoning += part.delta;
        if (part.providerMetadata) reasoningMetadata = part.providerMetadata;
        break;
      case 'text-start':
      case 'text-end':
        if (part.providerMetadata) textMetadata = part.providerMetadata;
        break;
      case 'reasoning-start':
      case 'reasoning-end':
        if (part.providerMetadata) reasoningMetadata = part.providerMetadata;
        break;
      case 'tool-input-delta':
        // The normaliser gathers these into the call's end: they take memory before it arrives.
        grow(part.delta);
        break;
      case 'tool-input-end': {
        const call: RoutedContent = { type: 'tool-call', toolCallId: part.id, toolName: part.toolName, input: part.input };
        toolCalls.push(part.providerMetadata ? { ...call, providerMetadata: part.providerMetadata } : call);
        break;
      }
      case 'finish':
        finish = part;
        break;
    }
  };
  try {
    for (const part of opened.head) take(part);
    for (;;) {
      const { done, value } = await control.read(opened.reader);
      if (done) break;
      opened.normaliser.take(value, take);
    }
    opened.normaliser.end();
  } catch (error) {
    opened.reader.cancel().catch(() => {});
    throw error;
  }
  const { finishReason, usage } = finish as RoutedFinish;
  const content: RoutedContent[] = [];
  if (reasoning !== '') content.push(reasoningMetadata ? { type: 'reasoning', text: reasoning, providerMetadata: reasoningMetadata } : { type: 'reasoning', text: reasoning });
  if (text !== '') content.push(textMetadata ? { type: 'text', text, providerMetadata: textMetadata } : { type: 'text', text });
  content.push(...toolCalls);
  return logprobs ? { content, finishReason, usage, logprobs } : { content, finishReason, usage };
}

/**
 * One non-streaming upstream call, for a caller that did not ask to stream,
 * to a provider whose streams carry no usage (`usageInStreams: false`), so
 * that the answer reports the usage the provider does send. There is no first
 * token to wait for: the request's deadline bounds the attempt.
 */
export async function generate(call: UpstreamCall, candidate: Candidate, control: AttemptControl): Promise<Collected> {
  control.awaitWholeAnswer();
  const result = await beginCall(control, async () => (await call.models(candidate.model)).doGenerate(callOptions(call, candidate, control)));
  if (result.response?.headers) control.responseHeaders(result.response.headers);
  const answer = normaliseAnswer(result);
  const logprobs = wantsLogprobs(call, candidate.model.provider) ? tokenLogprobs(result.response?.body) : undefined;
  return logprobs ? { ...answer, logprobs } : answer;
}

/** The whole answer of one attempt, for a caller that did not ask to stream. */
export async function collect(call: UpstreamCall, candidate: Candidate, control: Attempt, maxBytes: number): Promise<Collected> {
  if (candidate.model.provider.usageInStreams === false) return generate(call, candidate, control);
  return collectStream(await openStream(call, candidate, control), control, maxBytes);
}
