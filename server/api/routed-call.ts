import type { Request, Response } from 'express';
import { freewayError, invalidField } from '../core/errors.ts';
import type { ShutdownGate } from '../http/shutdown.ts';
import { CallerGone, type AttemptLog, type Candidate } from '../routing/index.ts';

/*
 * What every routed endpoint (the completion pipeline, embeddings, transcriptions)
 * does around its routed call: the X-Freeway-* headers of the answer, the abort of a
 * caller that went away, and what a failure of the call becomes.
 */

/** Seconds, with decimals: `4`, `0.5`. */
const SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * X-Freeway-Max-Wait: how long this request may be held for a rate-limit window or a concurrency
 * slot, in seconds from 0 to MAX_WAIT_MS; anything else is a 400 naming the range. Undefined when absent.
 */
export function maxWaitOf(req: Request, maxWaitMs = 0): number | undefined {
  const raw = req.headers['x-freeway-max-wait'];
  if (raw === undefined) return undefined;
  const text = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  const ms = SECONDS.test(text) ? Math.round(Number(text) * 1000) : NaN;
  if (!(ms <= maxWaitMs)) throw invalidField('X-Freeway-Max-Wait', `must be a number of seconds from 0 to ${maxWaitMs / 1000} (MAX_WAIT_MS)`);
  return ms;
}

/** A wait in seconds, to a tenth: `4.2`. */
const waitSeconds = (ms: number): string => (Math.round(ms / 100) / 10).toFixed(1);

export function attemptsHeader(attempts: readonly AttemptLog[]): string {
  return attempts
    .map((a) =>
      a.waitedMs !== undefined
        ? `waited ${waitSeconds(a.waitedMs)}s for ${a.provider}`
        : `${a.provider}/${a.model}${a.key === undefined ? '' : ` key ${a.key}`} ${a.status}${a.ms === undefined ? '' : ` ${a.ms}ms`}`,
    )
    .join(', ');
}

/** X-Freeway-Waited, and the wait on the log line, when the request was held for a window or a slot. */
function noteWaited(res: Response, attempts: readonly AttemptLog[]): void {
  let waited: number | undefined;
  for (const attempt of attempts) if (attempt.waitedMs !== undefined) waited = (waited ?? 0) + attempt.waitedMs;
  if (waited === undefined) return;
  res.setHeader('X-Freeway-Waited', waitSeconds(waited));
  res.locals.waitedMs = waited;
}

export const SHUTDOWN_REASON = 'Freeway was shutting down and SHUTDOWN_TIMEOUT_MS ran out before the answer was complete';

export function setRoutingHeaders(res: Response, candidate: Candidate, attempts: readonly AttemptLog[]): void {
  const { model } = candidate;
  res.setHeader('X-Freeway-Provider', model.provider.id);
  res.setHeader('X-Freeway-Model', model.id);
  res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
  noteWaited(res, attempts);
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
  if (attempts.length > 0 && !res.headersSent) {
    res.setHeader('X-Freeway-Attempts', attemptsHeader(attempts));
    noteWaited(res, attempts);
  }
  throw error;
}
