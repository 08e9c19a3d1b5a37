import type { Request, RequestHandler, Response } from 'express';
import type { RequestOutcome, Tracing } from '../tracing/index.ts';
import type { PathRedactor } from './request-log.ts';

export const TRACE_ID_HEADER = 'X-Freeway-Trace-Id';

const headerText = (res: Response, name: string): string | undefined => {
  const value = res.getHeader(name);
  return typeof value === 'string' ? value : undefined;
};

/** How the request ended, from what its log line is made of. */
function outcomeOf(req: Request, res: Response, redact: PathRedactor): RequestOutcome {
  const { attempts, cut, failure, requestId, waitedMs } = res.locals;
  const route = (req.route as { path?: unknown } | undefined)?.path;
  const reason = cut?.reason ?? failure;
  const attemptsText = headerText(res, 'X-Freeway-Attempts');
  return {
    route: typeof route === 'string' ? route : undefined,
    // As the log has it: a response that never finished did not reach the caller whole (499).
    status: cut?.status ?? (res.writableFinished ? res.statusCode : 499),
    reason: reason === undefined ? undefined : redact(reason, req, res),
    // A wait for a window is a line of X-Freeway-Attempts too, but no attempt.
    attempts: attempts && attempts.length > 0 && attemptsText !== undefined ? { text: attemptsText, count: attempts.filter((attempt) => attempt.waitedMs === undefined).length } : undefined,
    waitedMs,
    provider: headerText(res, 'X-Freeway-Provider'),
    model: headerText(res, 'X-Freeway-Model'),
    requestId,
  };
}

/**
 * One span per request (http/tracing is mounted only when OTEL_TRACES_EXPORTER=otlp): the
 * caller's W3C `traceparent` continued, the trace id sent back in X-Freeway-Trace-Id, the
 * span's hooks on `res.locals.trace` for the routes, and the span ended with the answer.
 * Everything a span holds that a caller wrote goes through `redact`, as the log's paths do.
 */
export function traceRequests(tracing: Tracing, redact: PathRedactor): RequestHandler {
  return (req, res, next) => {
    const active = tracing.startRequest({ method: req.method, headers: req.headers, redact: (text) => redact(text, req, res) });
    res.locals.trace = active.trace;
    res.setHeader(TRACE_ID_HEADER, active.trace.traceId);
    const done = (): void => active.end(outcomeOf(req, res, redact));
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
