import type { Request, RequestHandler, Response } from 'express';
import { isAlias, type Catalog } from '../../catalog/catalog.ts';
import type { RequestExtras } from '../../providers/types.ts';
import { routingStrategies, type RoutingStrategy } from '../config/index.ts';
import { freewayError, invalidField, type HttpError } from '../core/errors.ts';
import type { TextHasher } from '../state/key-hash.ts';
import type { ShutdownGate } from '../http/shutdown.ts';
import type { Redactor } from '../core/redact.ts';
import {
  StreamFailed,
  classifyFailure,
  conversationOf,
  routedModel,
  type AttemptLog,
  type Collected,
  type ModelSource,
  type RoutedFinish,
  type RoutedPartsResult,
  type Router,
} from '../routing/index.ts';
import { cachedTurn, type CachedTurn } from './cached.ts';
import { replayParts, streamRecorder, type ResponseCache, type StreamRecorder } from '../cache/index.ts';
import type { KeyReader, KeySet } from '../core/keys.ts';
import type { ClientApi, StreamEncoder } from './client-api.ts';
import { lookUpModel } from './lookup.ts';
import { callerController, maxWaitOf, routeFailed, setRoutingHeaders, SHUTDOWN_REASON } from './routed-call.ts';
import type { RequestTrace } from '../tracing/index.ts';

/*
 * The completion pipeline every client API's routed endpoint shares: validate, resolve
 * the model (the API's model map, then the catalog), plan, the routed model, the API's
 * encoder, written at the pace the caller reads.
 */

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
  /** The HMAC that names a conversation (routing/conversation.ts); absent with STICKY=off. */
  readonly conversations?: TextHasher;
  /** The response cache; absent with CACHE=off. */
  readonly cache?: ResponseCache;
  /** MAX_WAIT_MS: the most a request may ask to be held with X-Freeway-Max-Wait; 0 (no waiting) when absent. */
  readonly maxWaitMs?: number;
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

/**
 * Resolves true when the socket can take more (or is gone), false when the caller took nothing for `stallMs`.
 * Only the event loop's idle time counts: while Freeway's own loop is busy, the caller's reads may not have been seen yet.
 */
function drained(res: Response, stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (took: boolean): void => {
      clearTimeout(stall);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(took);
    };
    const onDrain = (): void => done(true);
    const loopIdleAtStart = performance.eventLoopUtilization().idle;
    const onStall = (): void => {
      const waitedMs = performance.eventLoopUtilization().idle - loopIdleAtStart;
      if (waitedMs >= stallMs) done(false);
      else stall = setTimeout(onStall, stallMs - waitedMs);
    };
    let stall = setTimeout(onStall, stallMs);
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
  readonly routed: RoutedPartsResult;
  readonly encoder: StreamEncoder;
  readonly attempts: readonly AttemptLog[];
  readonly keys: KeySet;
  /** The request's trace, when it records the answer's content. */
  readonly capture?: RequestTrace;
  /** The response cache's recorder, on a miss it may keep. */
  readonly record?: StreamRecorder;
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

/**
 * Writes a routed stream as this API's server-sent events, at the pace the caller reads.
 * Parts that arrive together (one read from the provider often holds several events) go out as
 * one write at the end of the current turn of the microtask queue (`process.nextTick`): each
 * `res.write` costs a chunk's framing and a pass through the socket's buffer, and waiting for
 * the turn to end waits for no network.
 */
async function sendStream(answer: StreamAnswer, deps: CompletionDeps): Promise<void> {
  const { res, routed, encoder } = answer;
  const reader = routed.parts;
  setRoutingHeaders(res, routed.candidate, answer.attempts);
  res.writeHead(200, encoder.contentType === undefined ? EVENT_STREAM_HEADERS : { ...EVENT_STREAM_HEADERS, 'Content-Type': encoder.contentType });
  let out = encoder.start(routed.candidate.model.id);
  let flushQueued = false;
  /** Set while the caller has not taken the last write: output waits in `out`, and no part is read. */
  let backlog: Promise<boolean> | undefined;
  const write = (): void => {
    if (out === '' || backlog !== undefined || res.destroyed) return;
    if (!res.write(out)) backlog = drained(res, deps.clientStallTimeoutMs);
    out = '';
  };
  const flush = (): void => {
    flushQueued = false;
    write();
  };
  /** Waits until the caller took every write; false when it stopped reading: it is cut, its own problem, not the provider's, and health stays as it is. */
  const caughtUp = async (): Promise<boolean> => {
    while (backlog !== undefined) {
      const took = await backlog;
      backlog = undefined;
      if (!took) {
        res.locals.cut = { status: 499, reason: `the caller read nothing for CLIENT_STALL_TIMEOUT_MS (${deps.clientStallTimeoutMs} ms)` };
        await reader.cancel();
        res.destroy();
        return false;
      }
      write();
    }
    return true;
  };
  // The routed stream's last part; routing closes a stream only after it.
  let finish: RoutedFinish | undefined;
  try {
    for (;;) {
      if (backlog !== undefined && !(await caughtUp())) return;
      const { done, value } = await reader.read();
      if (done) break;
      answer.record?.take(value);
      if (value.type === 'finish') {
        finish = value;
        continue;
      }
      answer.capture?.outputPart(value);
      out += encoder.part(value);
      if (out !== '' && !flushQueued) {
        flushQueued = true;
        process.nextTick(flush);
      }
    }
    if (backlog !== undefined && !(await caughtUp())) return;
    res.locals.trace?.output({ finishReason: (finish as RoutedFinish).finishReason });
    const last = out + encoder.end(finish as RoutedFinish);
    out = '';
    res.end(last);
    answer.record?.ended();
  } catch (error) {
    if (!(error instanceof StreamFailed)) await reader.cancel().catch(() => {});
    // What was read before the failure goes out before the failure's event.
    if (out !== '' && !res.destroyed) res.write(out);
    out = '';
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
    await sendStream({ res, routed: { parts: replayParts(answer), candidate }, encoder: api.openStream(request), attempts: [], keys }, deps);
    return;
  }
  setRoutingHeaders(res, candidate, []);
  res.json(api.respond({ ...answer, candidate }, request));
}

/** The route handler of one client API: validate, resolve, plan, the routed model, the encoder. */
export function completionRoute<Req>(api: ClientApi<Req>, deps: CompletionDeps): RequestHandler {
  const { catalog, readKeys, router, models } = deps;
  return async (req: Request, res: Response) => {
    const locals = res.locals;
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const request = api.parse(req.body, req);
    noteDroppedTools(res, api.droppedTools?.(request));
    const sent = api.model(request);
    const target = api.resolveModel(sent);
    const trace = locals.trace;
    trace?.requested({ operation: api.operation ?? 'chat', model: target, sentModel: sent, stream: api.stream(request) });
    const callOptions = api.callOptions(request);
    if (trace?.capturesContent) trace.input(callOptions.prompt);
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
    const maxWaitMs = maxWaitOf(req, deps.maxWaitMs);
    const alias = isAlias(entry);
    const conversation = alias && deps.conversations ? conversationOf(deps.conversations, { target: entry.id, keys, prompt: callOptions.prompt }) : undefined;
    const label = sent !== target ? `${sent} (mapped to ${target})` : undefined;
    const plan = await router.plan({ entry, keys, needs: alias ? api.needs(request) : [], client, strategy, conversation: conversation?.laterTurn ? conversation.id : undefined, label });
    const attempts: AttemptLog[] = [];
    locals.attempts = attempts;
    const model = routedModel(router, { plan, keys, models, extras, attempts, maxResponseBytes: deps.maxResponseBytes, conversation: conversation?.id, maxWaitMs, trace });
    const options = { ...callOptions, abortSignal: callerController(res, deps.shutdown).signal };
    try {
      if (api.stream(request)) {
        const capture = trace?.capturesContent ? trace : undefined;
        const routed = await model.streamParts(options);
        const record = turn.state === 'miss' ? streamRecorder(turn.maxBytes, (answer) => turn.keep(answer, routed.candidate)) : undefined;
        await sendStream({ res, routed, encoder: api.openStream(request), attempts, keys, capture, record }, deps);
        return;
      }
      const result = await model.doGenerate(options);
      trace?.output(result);
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

