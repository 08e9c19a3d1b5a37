import type { Request, RequestHandler, Response } from 'express';
import { isAlias, type Catalog } from '../../catalog/catalog.ts';
import type { Capability, RequestExtras } from '../../providers/types.ts';
import { routingStrategies, type RoutingStrategy } from '../config/index.ts';
import { freewayError, invalidField, type ErrorType, type HttpError } from '../core/errors.ts';
import type { TextHasher } from '../state/key-hash.ts';
import type { ShutdownGate } from '../http/shutdown.ts';
import type { Redactor } from '../core/redact.ts';
import {
  CallerGone,
  StreamFailed,
  classifyFailure,
  conversationOf,
  routedModel,
  type AttemptLog,
  type CallOptions,
  type Candidate,
  type Collected,
  type ModelSource,
  type RoutedContentPart,
  type RoutedFinish,
  type RoutedStreamResult,
  type Router,
} from '../routing/index.ts';
import { lookUpModel } from './lookup.ts';
import { cachedTurn, type CachedTurn } from './cached.ts';
import { recordStream, replayStream, type ResponseCache } from '../cache/index.ts';
import type { KeyReader, KeySet } from '../core/keys.ts';

/**
 * One client API (chat completions, Responses, Messages): how its request maps
 * into the AI SDK's call options and how the AI SDK's result and stream parts map
 * back. Everything between, catalog, routing, failover, health, timeouts, is the
 * same for every API and lives in `completionRoute`.
 */
export interface ClientApi<Req> {
  /** Validates the body; throws a 400 `HttpError` naming the field. */
  parse(body: unknown): Req;
  /** The catalog id or alias to route to. */
  target(request: Req): string;
  /** The model as the caller named it, where `target` maps it (a model map): messages name both. */
  sentModel?(request: Req): string;
  callOptions(request: Req): CallOptions;
  /** Capabilities a model must have to take the request at all (tools, images, ...). */
  needs(request: Req): Capability[];
  stream(request: Req): boolean;
  /** Passed to providers that take an end-user id. */
  user(request: Req): string | undefined;
  /** What else the request asks of the provider (`parallelToolCalls`, `logprobs`); passed where the provider takes it. */
  extras?(request: Req): Omit<RequestExtras, 'user'>;
  /** Tools of the request left out of the upstream call (hosted tools), by type: named in X-Freeway-Dropped-Tools and the log line. */
  droppedTools?(request: Req): readonly string[];
  /** The whole answer, for a caller that did not ask to stream; `result.candidate` is the model and key that answered. */
  respond(result: Answered, request: Req): unknown;
  /** A writer of this API's server-sent events for one answer. */
  openStream(request: Req): StreamEncoder;
}

/**
 * Turns a routed stream (routing's stream vocabulary: no error parts, no provider-executed
 * calls, every tool call as start, deltas and an end with its whole arguments, one finish,
 * last) into one API's server-sent events.
 */
export interface StreamEncoder {
  /** The answer's content type; server-sent events when absent (Gemini's streamGenerateContent without `alt=sse` is one JSON array). */
  readonly contentType?: string;
  /**
   * What is sent with the headers, before any part (a role chunk, `response.created`, `message_start`);
   * `model` is the catalog id of the model that answers.
   */
  start(model?: string): string;
  /** One part -> SSE text, '' for none. */
  part(part: RoutedContentPart): string;
  /** The closing events, for the stream's finish, once the stream has ended. */
  end(finish: RoutedFinish): string;
  /** A failure after the first byte: this API's error event, which ends the stream. */
  fail(status: number, type: ErrorType, message: string): string;
}

/** A whole answer, and the candidate (model and key) that gave it. */
export type Answered = Collected & { readonly candidate: Candidate };

export interface CompletionDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly router: Router;
  readonly redact: Redactor;
  readonly models: ModelSource;
  /** MAX_RESPONSE_BYTES: the most answer collected for a caller that did not stream. */
  readonly maxResponseBytes: number;
  /** CLIENT_STALL_TIMEOUT_MS, for the log line of a caller cut off. */
  readonly clientStallTimeoutMs: number;
  /** Interrupts running requests when SHUTDOWN_TIMEOUT_MS runs out, so that each still gets an answer. */
  readonly shutdown: ShutdownGate;
  /** The rate limit's client of a request, whose model listings LISTINGS_PER_MINUTE bounds. */
  readonly clientOf?: (req: Request) => string;
  /** The HMAC that names a conversation (routing/sticky.ts); absent with STICKY=off. */
  readonly conversations?: TextHasher;
  /** The response cache; absent with CACHE=off. */
  readonly cache?: ResponseCache;
}

/** The strategy a request asks for with `X-Freeway-Routing`, if it asks; any other value is a 400 naming the header. */
function routingOf(req: Request): RoutingStrategy | undefined {
  const raw = req.headers['x-freeway-routing'];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim().toLowerCase();
  const strategy = routingStrategies.find((name) => name === value);
  if (strategy === undefined) throw invalidField('X-Freeway-Routing', `must be one of ${routingStrategies.join(', ')}`);
  return strategy;
}

export function attemptsHeader(attempts: readonly AttemptLog[]): string {
  return attempts.map((a) => `${a.provider}/${a.model}${a.key === undefined ? '' : ` key ${a.key}`} ${a.status}${a.ms === undefined ? '' : ` ${a.ms}ms`}`).join(', ');
}

const SHUTDOWN_REASON = 'Freeway was shutting down and SHUTDOWN_TIMEOUT_MS ran out before the answer was complete';

export function setRoutingHeaders(res: Response, candidate: Candidate, attempts: readonly AttemptLog[]): void {
  const { model } = candidate;
  res.setHeader('X-Freeway-Provider', model.provider.id);
  res.setHeader('X-Freeway-Model', model.id);
  res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
}

/**
 * A whole answer still being written to a caller that has stopped reading: cut
 * it off (logged as 499) once the socket has taken nothing for a whole
 * CLIENT_STALL_TIMEOUT_MS, so that it does not hold the answer's memory for ever.
 */
function cutWhenStalled(res: Response, stallMs: number): void {
  const socket = res.socket;
  if (!socket) return;
  let written = socket.bytesWritten;
  const check = setInterval(() => {
    if (res.writableFinished || res.destroyed) {
      clearInterval(check);
      return;
    }
    if (socket.bytesWritten > written) {
      written = socket.bytesWritten;
      return;
    }
    clearInterval(check);
    res.locals.cut = { status: 499, reason: `the caller read nothing for CLIENT_STALL_TIMEOUT_MS (${stallMs} ms)` };
    res.destroy();
  }, stallMs);
  check.unref();
  res.once('close', () => clearInterval(check));
}

/** Resolves true when the socket can take more (or is gone), false when the caller took nothing for `stallMs`. */
function drained(res: Response, stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (took: boolean): void => {
      clearTimeout(stall);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(took);
    };
    const onDrain = (): void => done(true);
    const stall = setTimeout(() => done(false), stallMs);
    res.on('drain', onDrain);
    res.on('close', onDrain);
  });
}

const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

/** A routed stream being written to its caller as one API's server-sent events. */
interface StreamAnswer {
  readonly res: Response;
  readonly routed: RoutedStreamResult;
  readonly encoder: StreamEncoder;
  readonly attempts: readonly AttemptLog[];
  readonly keys: KeySet;
}

/** A routed stream that failed after its first byte: this API's error event, or the connection closed. */
function streamFailed({ res, routed, encoder, keys }: StreamAnswer, error: unknown, deps: CompletionDeps): void {
  const locals = res.locals;
  const end = (error: HttpError): void => {
    res.end(encoder.fail(error.status, error.type, error.message));
  };
  if (deps.shutdown.interrupted && !res.destroyed) {
    locals.cut = { reason: SHUTDOWN_REASON };
    end(freewayError('FREEWAY_SHUTTING_DOWN'));
    return;
  }
  // An error of the encoder's own is not the provider's: it is told as it is, and recorded nowhere.
  const failure = error instanceof StreamFailed ? error.failure : classifyFailure(error, { redact: deps.redact, keys });
  if (!failure || failure.kind === 'aborted' || res.destroyed) {
    res.destroy();
    return;
  }
  const streamError =
    failure.kind === 'deadline'
      ? freewayError('FREEWAY_STREAM_DEADLINE', { reason: failure.reason })
      : freewayError('FREEWAY_STREAM_FAILED', { provider: routed.candidate.model.provider.id, reason: deps.redact(failure.reason, keys) });
  locals.cut = { reason: streamError.message };
  end(streamError);
}

/** Writes a routed stream as this API's server-sent events, at the pace the caller reads. */
async function sendStream(answer: StreamAnswer, deps: CompletionDeps): Promise<void> {
  const { res, routed, encoder } = answer;
  const reader = routed.stream.getReader();
  setRoutingHeaders(res, routed.candidate, answer.attempts);
  res.writeHead(200, encoder.contentType === undefined ? EVENT_STREAM_HEADERS : { ...EVENT_STREAM_HEADERS, 'Content-Type': encoder.contentType });
  let out = encoder.start(routed.candidate.model.id);
  // The routed stream's last part; routing closes a stream only after it.
  let finish: RoutedFinish | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'finish') {
        finish = value;
        continue;
      }
      out += encoder.part(value);
      if (out === '') continue;
      const took = res.write(out);
      out = '';
      if (!took && !(await drained(res, deps.clientStallTimeoutMs))) {
        // The caller stopped reading: its own problem, not the provider's. Health stays as it is.
        res.locals.cut = { status: 499, reason: `the caller read nothing for CLIENT_STALL_TIMEOUT_MS (${deps.clientStallTimeoutMs} ms)` };
        await reader.cancel();
        res.destroy();
        return;
      }
    }
    res.end(out + encoder.end(finish as RoutedFinish));
  } catch (error) {
    if (!(error instanceof StreamFailed)) await reader.cancel().catch(() => {});
    streamFailed(answer, error, deps);
  }
}

/** A whole answer kept by the cache, or one being kept: the routed parts' whole form. */
type Kept = Collected;

const keptOf = ({ content, finishReason, usage, logprobs }: Collected): Kept => (logprobs ? { content, finishReason, usage, logprobs } : { content, finishReason, usage });

/** One request of a client API, parsed, with what its answer is written by. */
interface ApiCall<Req> {
  readonly api: ClientApi<Req>;
  readonly request: Req;
  readonly res: Response;
  readonly keys: KeySet;
}

/** Answers from the cache: streamed through the API's own encoder, or whole, as a routed answer would be. */
async function answerFromCache<Req>({ api, request, res, keys }: ApiCall<Req>, hit: NonNullable<CachedTurn<Kept>['hit']>, deps: CompletionDeps): Promise<void> {
  const { answer, candidate } = hit;
  if (api.stream(request)) {
    await sendStream({ res, routed: { stream: replayStream(answer), candidate }, encoder: api.openStream(request), attempts: [], keys }, deps);
    return;
  }
  setRoutingHeaders(res, candidate, []);
  res.json(api.respond({ ...answer, candidate }, request));
}

/** The route handler for one client API: validate, resolve, plan, the routed model, the encoder. */
export function completionRoute<Req>(api: ClientApi<Req>, deps: CompletionDeps): RequestHandler {
  const { catalog, readKeys, router, models } = deps;
  return async (req: Request, res: Response) => {
    const locals = res.locals;
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const request = api.parse(req.body);
    noteDroppedTools(res, api.droppedTools?.(request));
    const target = api.target(request);
    const callOptions = api.callOptions(request);
    const user = api.user(request);
    const extras: RequestExtras = api.extras ? { ...api.extras(request), user } : { user };
    const turn = await cachedTurn<Kept>({ cache: deps.cache, catalog, req, res, keys }, { kind: 'chat', target, callOptions, extras });
    if (turn.hit) {
      await answerFromCache({ api, request, res, keys }, turn.hit, deps);
      return;
    }
    const client = (): string => deps.clientOf?.(req) ?? '';
    // A pinned model the plugin does not know is served when a live list of the request's keys holds it.
    const entry = await lookUpModel({ catalog, target, kind: 'chat', findLive: (model) => router.findLive(model, keys, client) });
    const strategy = routingOf(req);
    const alias = isAlias(entry);
    const conversation = alias && deps.conversations ? conversationOf(deps.conversations, { target: entry.id, keys, prompt: callOptions.prompt }) : undefined;
    const sent = api.sentModel?.(request);
    const label = sent !== undefined && sent !== target ? `${sent} (mapped to ${target})` : undefined;
    const plan = await router.plan({ entry, keys, needs: alias ? api.needs(request) : [], client, strategy, conversation: conversation?.laterTurn ? conversation.id : undefined, label });
    const attempts: AttemptLog[] = [];
    locals.attempts = attempts;
    const model = routedModel(router, { plan, keys, models, extras, attempts, maxResponseBytes: deps.maxResponseBytes, conversation: conversation?.id });
    const options = { ...callOptions, abortSignal: callerController(res, deps.shutdown).signal };
    try {
      if (api.stream(request)) {
        const routed = await model.doStream(options);
        const stream = turn.state === 'miss' ? recordStream(routed.stream, turn.maxBytes, (answer) => turn.keep(answer, routed.candidate)) : routed.stream;
        await sendStream({ res, routed: { ...routed, stream }, encoder: api.openStream(request), attempts, keys }, deps);
        return;
      }
      const result = await model.doGenerate(options);
      setRoutingHeaders(res, result.candidate, attempts);
      res.json(api.respond(result, request));
      turn.keep(keptOf(result), result.candidate);
      // Only an answer the socket could not take at once needs watching.
      if (res.writableLength > 0) cutWhenStalled(res, deps.clientStallTimeoutMs);
    } catch (error) {
      routeFailed(error, res, attempts, deps.shutdown);
    }
  };
}

/** How many dropped tools are named, and how much of each name: a request may name thousands, of any length. */
const MAX_NAMED_TOOLS = 16;
const MAX_TOOL_NAME = 64;
/** What a header value may not hold (control and non-Latin-1 characters), and what a tool name needs no more of. */
const notNameCharacter = /[^\w.:-]/g;

const toolNameShown = (name: string): string =>
  (name.length > MAX_TOOL_NAME ? `${name.slice(0, MAX_TOOL_NAME)}...` : name).replace(notNameCharacter, '_');

/** Tools of the request left out of the upstream call, named in X-Freeway-Dropped-Tools and the log line. */
function noteDroppedTools(res: Response, dropped: readonly string[] | undefined): void {
  if (dropped === undefined || dropped.length === 0) return;
  const shown = dropped.slice(0, MAX_NAMED_TOOLS).map(toolNameShown).join(', ');
  const names = dropped.length > MAX_NAMED_TOOLS ? `${shown} and ${dropped.length - MAX_NAMED_TOOLS} more` : shown;
  res.setHeader('X-Freeway-Dropped-Tools', names);
  res.locals.note = `tools left out of the upstream call (hosted tools Freeway cannot run): ${names}`;
}

/** Aborted when the caller goes away before its answer is written, or when a shutdown interrupts running requests. */
export function callerController(res: Response, shutdown: ShutdownGate): AbortController {
  const caller = new AbortController();
  const untrack = shutdown.track(() => caller.abort());
  res.once('close', () => {
    untrack();
    if (!res.writableFinished) caller.abort();
  });
  return caller;
}

/**
 * What a route does with an error of its routed call: nothing for a caller that is gone
 * (its connection is closed), a 503 when a shutdown cut the request short, else the error
 * is thrown on to the error handler, with X-Freeway-Attempts when anything was tried.
 */
export function routeFailed(error: unknown, res: Response, attempts: readonly AttemptLog[], shutdown: ShutdownGate): void {
  if (error instanceof CallerGone) {
    if (shutdown.interrupted && !res.destroyed && !res.headersSent) {
      res.locals.cut = { reason: SHUTDOWN_REASON };
      throw freewayError('FREEWAY_SHUTTING_DOWN');
    }
    res.destroy();
    return;
  }
  if (attempts.length > 0 && !res.headersSent) res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
  throw error;
}
