import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { Request, RequestHandler, Response } from 'express';
import { isAlias, kindOf, wrongKindMessage, type Catalog } from '../../catalog/catalog.ts';
import { unknownModelMessage } from '../../catalog/suggest.ts';
import type { Capability, RequestExtras } from '../../providers/types.ts';
import { reportedUsage } from '../../providers/usage.ts';
import { clip, HttpError, invalidRequest, type ErrorType } from '../core/errors.ts';
import { SHUTTING_DOWN_MESSAGE, type ShutdownGate } from '../http/shutdown.ts';
import type { Redactor } from '../core/redact.ts';
import type { KeyReader, KeySet } from '../routing/keys.ts';
import { CallerGone, type AttemptLog, type Routed, type Router } from '../routing/router.ts';
import { collect, openStream, type CallOptions, type Collected, type ModelSource, type OpenedStream, type UpstreamCall } from '../routing/upstream.ts';

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
  /** The whole answer, for a caller that did not ask to stream. */
  respond(result: Collected, request: Req): unknown;
  /** A writer of this API's server-sent events for one answer. */
  openStream(request: Req): StreamEncoder;
}

/** Turns the AI SDK's stream parts into one API's server-sent events. */
export interface StreamEncoder {
  /** What is sent with the headers, before any part (a role chunk, `response.created`, `message_start`). */
  start(): string;
  /** One part -> SSE text, '' for none. An `error` part is thrown. */
  part(part: LanguageModelV4StreamPart): string;
  /** After the upstream's last part: the closing events. Throws when the upstream never said it finished. */
  end(): string;
  /** A failure after the first byte: this API's error event, which ends the stream. */
  fail(status: number, type: ErrorType, message: string): string;
}

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
}

export function attemptsHeader(attempts: readonly AttemptLog[]): string {
  return attempts.map((a) => `${a.provider}/${a.model}${a.key === undefined ? '' : ` key ${a.key}`} ${a.status} ${a.ms}ms`).join(', ');
}

const SHUTDOWN_REASON = 'Freeway was shutting down and SHUTDOWN_TIMEOUT_MS ran out before the answer was complete';

export function setRoutingHeaders(res: Response, routed: Routed<unknown>, attempts: readonly AttemptLog[]): void {
  const { model } = routed.candidate;
  res.setHeader('X-Freeway-Provider', model.provider.id);
  res.setHeader('X-Freeway-Model', model.id);
  res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
}

/** The finish part with the usage the upstream really reported (see `reportedUsage`); once per stream. */
function withReportedUsage(part: LanguageModelV4StreamPart & { type: 'finish' }): LanguageModelV4StreamPart {
  return { ...part, usage: reportedUsage(part.usage) };
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

/** Resolves when the socket can take more, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function sendStream(
  res: Response,
  routed: Routed<OpenedStream>,
  encoder: StreamEncoder,
  attempts: readonly AttemptLog[],
  deps: CompletionDeps,
  keys: KeySet,
): Promise<void> {
  const { reader, head } = routed.value;
  const locals = res.locals;
  setRoutingHeaders(res, routed, attempts);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  try {
    let out = encoder.start();
    for (const part of head) out += encoder.part(part.type === 'finish' ? withReportedUsage(part) : part);
    res.write(out);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      routed.control.output();
      const text = encoder.part(value.type === 'finish' ? withReportedUsage(value) : value);
      if (text !== '' && !res.write(text) && !(await routed.control.waitForCaller(drained(res)))) {
        // The caller stopped reading: its own problem, not the provider's. Health stays as it is.
        locals.cut = { status: 499, reason: `the caller read nothing for CLIENT_STALL_TIMEOUT_MS (${deps.clientStallTimeoutMs} ms)` };
        await routed.finish();
        reader.cancel().catch(() => {});
        res.destroy();
        return;
      }
    }
    const tail = encoder.end();
    await routed.finish();
    res.end(tail);
  } catch (error) {
    const failure = await routed.finish(error);
    reader.cancel().catch(() => {});
    if (deps.shutdown.interrupted && !res.destroyed) {
      locals.cut = { reason: SHUTDOWN_REASON };
      res.end(encoder.fail(503, 'server_error', SHUTTING_DOWN_MESSAGE));
      return;
    }
    if (!failure || failure.kind === 'aborted' || res.destroyed) {
      res.destroy();
      return;
    }
    const provider = routed.candidate.model.provider.id;
    if (failure.kind === 'deadline') {
      const message = `The stream was ended: ${failure.reason}.`;
      locals.cut = { reason: message };
      res.end(encoder.fail(504, 'server_error', message));
      return;
    }
    const message = deps.redact(`The stream from ${provider} failed after it started: ${failure.reason}`, keys);
    locals.cut = { reason: message };
    res.end(encoder.fail(502, 'freeway_provider_error', message));
  }
}

/** The route handler for one client API: validate, resolve, route, call, map back. */
export function completionRoute<Req>(api: ClientApi<Req>, deps: CompletionDeps): RequestHandler {
  const { catalog, readKeys, router, redact, models } = deps;
  return async (req: Request, res: Response) => {
    const locals = res.locals;
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const request = api.parse(req.body);
    const dropped = api.droppedTools?.(request);
    if (dropped !== undefined && dropped.length > 0) {
      const names = dropped.join(', ');
      res.setHeader('X-Freeway-Dropped-Tools', names);
      locals.note = `tools left out of the upstream call (hosted tools Freeway cannot run): ${names}`;
    }
    const target = api.target(request);
    const client = (): string => deps.clientOf?.(req) ?? '';
    // A pinned model the plugin does not know is served when a live list of the request's keys holds it.
    const entry = catalog.byId.get(target) ?? (await router.findLive(target, keys, client));
    if (!entry) {
      throw new HttpError(404, 'invalid_request_error', unknownModelMessage(catalog, target, clip(target)));
    }
    const kind = kindOf(entry);
    if (kind !== 'chat') throw new HttpError(400, 'invalid_request_error', wrongKindMessage(entry.id, kind, 'chat'));
    const plan = await router.plan(entry, keys, isAlias(entry) ? api.needs(request) : [], client);
    const user = api.user(request);
    const extras: RequestExtras = api.extras ? { ...api.extras(request), user } : { user };
    const call: UpstreamCall = { options: api.callOptions(request), models, extras };
    const caller = callerController(res, deps.shutdown);
    const attempts: AttemptLog[] = [];
    locals.attempts = attempts;
    try {
      if (api.stream(request)) {
        const routed = await router.run(plan, keys, (candidate, control) => openStream(call, candidate, control), caller.signal, attempts, call.options.maxOutputTokens);
        await sendStream(res, routed, api.openStream(request), attempts, deps, keys);
        return;
      }
      const routed = await router.run(plan, keys, (candidate, control) => collect(call, candidate, control, deps.maxResponseBytes), caller.signal, attempts, call.options.maxOutputTokens);
      await routed.finish();
      setRoutingHeaders(res, routed, attempts);
      res.json(api.respond(routed.value, request));
      // Only an answer the socket could not take at once needs watching.
      if (res.writableLength > 0) cutWhenStalled(res, deps.clientStallTimeoutMs);
    } catch (error) {
      routeFailed(error, res, attempts, deps.shutdown);
    }
  };
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
      throw new HttpError(503, 'server_error', SHUTTING_DOWN_MESSAGE);
    }
    res.destroy();
    return;
  }
  if (attempts.length > 0 && !res.headersSent) res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
  throw error;
}
