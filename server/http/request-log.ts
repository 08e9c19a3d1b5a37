import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { REDACTED, sanitizeForLog, type Redactor } from '../core/redact.ts';
import type { KeyReader } from '../core/keys.ts';
import { routeOfPath } from './route-table.ts';

export interface LogLocals {
  /** Every upstream attempt of the request: provider, model, the key's position when there are several, status, ms. No keys. */
  attempts?: ReadonlyArray<{ provider: string; model: string; key?: number; status: number | string; ms?: number; waitedMs?: number }>;
  /**
   * Set when a request did not end the way its status says (a stream ended by an
   * error event, a slow caller cut off, shutdown): logged at warn with the reason.
   * `status` replaces the one on the wire, e.g. 499 for a caller that was cut off.
   * The reason is logged as it is: redact it (keys of the request) before setting it.
   */
  cut?: { readonly status?: number; readonly reason: string };
  /** The message of an error answer (redacted), logged as the reason of a 4xx or 5xx. */
  failure?: string;
  /** Something the request asked for that was left out of an answer (hosted tools dropped): logged at warn. Never a value the caller sent. */
  note?: string;
  /** The request's id (http/request-id.ts), on its log line. */
  requestId?: string;
  /** How long the request was held for a rate-limit window or a concurrency slot, in ms. */
  waitedMs?: number;
}

/** Redacts a path or query string for the log: keys of known formats, the request's own keys, key-shaped tokens. */
export type PathRedactor = (text: string, req: Request, res: Response) => string;

/** Before any redactor is given: every token of 8 or more characters goes. */
const redactLongTokens: PathRedactor = (text) => sanitizeForLog(text);

const longToken = /[A-Za-z0-9_-]{16,}/g;
const digit = /\d/;
const letter = /[A-Za-z]/;

/**
 * Paths and query strings as the log shows them: keys of known formats and the
 * request's own keys redacted, and any token that looks like a key (16 or more
 * characters mixing letters and digits); ordinary words such as `responses` stay.
 */
export function keyShapedRedactor(redact: Redactor, readKeys: KeyReader): PathRedactor {
  return (text, req, res) => {
    let keys = res.locals.keys;
    if (!keys) {
      try {
        keys = readKeys(req.headers);
      } catch {
        // A malformed key header: its value is in no path we log unless it is key-shaped.
        keys = undefined;
      }
    }
    return redact(text.replace(longToken, (token) => (digit.test(token) && letter.test(token) ? REDACTED : token)), keys);
  };
}

/** Google's API takes its key as `?key=` too: its value never reaches a log line, whatever it looks like. */
const keyParam = /([?&])key=[^&]*/g;

/** The matched route's own pattern, which holds no user data; otherwise the path, redacted. */
function pathForLog(req: Request, res: Response, redactPath: PathRedactor): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const search = query === -1 ? '' : redactPath(url.slice(query).replace(keyParam, `$1key=${REDACTED}`), req, res);
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return route + search;
    // A path of the route table (a 429 before any route ran) is Freeway's own constant or a route's pattern.
  return (routeOfPath(path) ?? redactPath(path, req, res)) + search;
}

/** One line per request: `<METHOD> <path> <status> <duration>ms`. */
export function requestLog(logger: Logger, redactPath: PathRedactor = redactLongTokens) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    let logged = false;
    const done = (): void => {
      if (logged) return;
      logged = true;
      const ms = Math.round(performance.now() - started);
      const { attempts, cut, failure, note, requestId, waitedMs } = res.locals;
      // A response that never finished did not reach the caller whole: the caller left (499).
      const status = cut?.status ?? (res.writableFinished ? res.statusCode : 499);
      const line = `${req.method} ${pathForLog(req, res, redactPath)} ${status} ${ms}ms`;
      const fields: { reqId?: string; attempts?: LogLocals['attempts']; reason?: string; note?: string; waitedMs?: number } = {};
      if (requestId !== undefined) fields.reqId = requestId;
      if (waitedMs !== undefined) fields.waitedMs = waitedMs;
      if (attempts) fields.attempts = attempts;
      if (note !== undefined) fields.note = note;
      // Answers that say the providers failed (502, 503, 504) and cut responses are warnings, with their reason.
      // (A 500 is a bug of Freeway's: it has its own error line.) A 4xx is the caller's: info, with its reason.
      // A 4xx message may echo the caller's path or model: key-shaped tokens go, as from the path.
      const reason = cut?.reason ?? (status >= 500 ? failure : status >= 400 && failure !== undefined ? redactPath(failure, req, res) : undefined);
      if (reason !== undefined) fields.reason = reason;
      if (cut !== undefined || (status >= 502 && failure !== undefined) || note !== undefined) logger.warn(fields, line);
      else logger.info(fields, line);
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
