import type { Request, RequestHandler, Response } from 'express';
import { isAlias, type Catalog } from '../../../catalog/catalog.ts';
import { collectStream, openStream, type ModelSource, type OpenedStream, type UpstreamCall } from '../../routing/upstream.ts';
import { errorBody, HttpError } from '../../http/errors.ts';
import type { KeyReader } from '../../routing/keys.ts';
import { requiredCapabilities, toCallOptions } from './request.ts';
import { completionId, toChatCompletion } from './response.ts';
import { createChunkEncoder, createStreamState, encodePart, finalFinishReason, SSE_DONE } from './stream.ts';
import type { LogLocals } from '../../http/request-log.ts';
import type { ChatRequest } from './types.ts';
import type { Redactor } from '../../http/redact.ts';
import { CallerGone, type AttemptLog, type Routed, type Router } from '../../routing/router.ts';
import { parseChatRequest } from './validate.ts';

export interface ChatDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly router: Router;
  readonly redact: Redactor;
  readonly models: ModelSource;
}

export function attemptsHeader(attempts: readonly AttemptLog[]): string {
  return attempts.map((a) => `${a.provider}/${a.model} ${a.status} ${a.ms}ms`).join(', ');
}

function setRoutingHeaders(res: Response, routed: Routed<unknown>, attempts: readonly AttemptLog[]): void {
  const { model } = routed.candidate;
  res.setHeader('X-Freeway-Provider', model.provider.id);
  res.setHeader('X-Freeway-Model', model.id);
  res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
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

async function sendStream(res: Response, routed: Routed<OpenedStream>, request: ChatRequest, attempts: readonly AttemptLog[], redact: Redactor): Promise<void> {
  const encoder = createChunkEncoder(completionId(), Math.floor(Date.now() / 1000), request.model);
  const state = createStreamState();
  const { reader, head } = routed.value;
  setRoutingHeaders(res, routed, attempts);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  try {
    let out = encoder.role();
    for (const part of head) out += encodePart(part, state, encoder);
    res.write(out);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      routed.control.output();
      const text = encodePart(value, state, encoder);
      if (text !== '' && !res.write(text)) await drained(res);
    }
    if (state.finishReason === undefined) throw new Error('the upstream stream ended without a finish reason');
    await routed.finish();
    res.write(encoder.finish(finalFinishReason(state)));
    if (request.stream_options?.include_usage && state.usage) res.write(encoder.usage(state.usage));
    res.end(SSE_DONE);
  } catch (error) {
    const failure = await routed.finish(error);
    reader.cancel().catch(() => {});
    if (!failure || failure.kind === 'aborted' || res.destroyed) {
      res.destroy();
      return;
    }
    const provider = routed.candidate.model.provider.id;
    const message = redact(`The stream from ${provider} failed after it started: ${failure.reason}`);
    res.end(`data: ${JSON.stringify(errorBody(502, 'freeway_provider_error', message))}\n\n`);
  }
}

export function chatCompletions(deps: ChatDeps): RequestHandler {
  const { catalog, readKeys, router, redact, models } = deps;
  return async (req: Request, res: Response) => {
    const locals = res.locals as LogLocals;
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const request = parseChatRequest(req.body);
    const entry = catalog.byId.get(request.model);
    if (!entry) {
      throw new HttpError(404, 'invalid_request_error', `Unknown model: ${request.model}. GET /v1/models lists the models.`);
    }
    const plan = await router.plan(entry, keys, isAlias(entry) ? requiredCapabilities(request) : []);
    const call: UpstreamCall = { options: toCallOptions(request), models, user: request.user };
    const caller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) caller.abort();
    });
    const attempts: AttemptLog[] = [];
    locals.attempts = attempts;
    try {
      if (request.stream) {
        const routed = await router.run(plan, keys, (candidate, control) => openStream(call, candidate, control), caller.signal, attempts);
        await sendStream(res, routed, request, attempts, redact);
        return;
      }
      const routed = await router.run(
        plan,
        keys,
        async (candidate, control) => collectStream(await openStream(call, candidate, control), control),
        caller.signal,
        attempts,
      );
      await routed.finish();
      setRoutingHeaders(res, routed, attempts);
      res.json(toChatCompletion(routed.value, request.model));
    } catch (error) {
      if (error instanceof CallerGone) {
        res.destroy();
        return;
      }
      if (attempts.length > 0 && !res.headersSent) res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
      throw error;
    }
  };
}
