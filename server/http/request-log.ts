import type { NextFunction, Request, Response } from 'express';
import { pino, type DestinationStream, type Logger } from 'pino';
import { REDACTED, sanitizeForLog, type Redactor } from '../core/redact.ts';
import type { KeyReader } from '../core/keys.ts';

/**
 * Serializers are the only way objects reach a log line, and none of them
 * lets a header value, a body or an unredacted path through.
 */
const serializers = {
  err(error: unknown) {
    if (!(error instanceof Error)) return { message: sanitizeForLog(String(error)) };
    return { type: error.name, message: sanitizeForLog(error.message) };
  },
};

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: undefined, serializers }, destination ?? pino.destination({ sync: false }));
}

/**
 * Freeway's own logger on stdout: JSON lines, or pino-pretty's readable lines
 * for a terminal. If stdout goes away (a pipe whose reader exited), logging
 * stops instead of buffering without bound or holding up shutdown.
 */
export async function createStdoutLogger(level: string, format: 'json' | 'pretty'): Promise<Logger> {
  if (format === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    const stream = pretty({ destination: 1, sync: false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname' });
    const logger = createLogger(level, stream);
    stream.on('error', () => silence(logger));
    return logger;
  }
  const destination = pino.destination({ sync: false, minLength: STDOUT_BUFFER_BYTES, periodicFlush: STDOUT_FLUSH_MS });
  const logger = createLogger(level, destination);
  destination.on('error', () => silence(logger));
  return logger;
}

/**
 * JSON lines go to stdout in writes of about 4 kB (some 20 request lines), and at
 * least every 100 ms: a write per line cost about 15 µs of CPU (the write handed
 * to a thread and its callback), a tenth of what Freeway adds to a request. A line
 * waits at most 100 ms; exitAfterFlush writes what is left before the process exits.
 */
const STDOUT_BUFFER_BYTES = 4096;
const STDOUT_FLUSH_MS = 100;

const broken = new WeakSet<Logger>();

function silence(logger: Logger): void {
  broken.add(logger);
  logger.level = 'silent';
}

/** How long an exiting process waits for its last log lines to be written. */
const flushTimeoutMs = 1_000;

/** Writes what is buffered, then exits; never waits on a stdout that cannot take it. */
export function exitAfterFlush(logger: Logger, code: number): void {
  process.exitCode = code;
  if (broken.has(logger)) process.exit(code);
  setTimeout(() => process.exit(code), flushTimeoutMs).unref();
  try {
    logger.flush(() => process.exit(code));
  } catch {
    process.exit(code);
  }
}

export interface LogLocals {
  /** Every upstream attempt of the request: provider, model, the key's position when there are several, status, ms. No keys. */
  attempts?: ReadonlyArray<{ provider: string; model: string; key?: number; status: number | string; ms?: number }>;
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
}

/** Paths that are Freeway's own constants, logged as they are even when no route ran (a 429). */
const fixedPaths = new Set(['/health', '/metrics', '/v1/models', '/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v1beta/models']);

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

/** Gemini's model paths, whose `{model}` a caller chose: logged by their pattern even when no route ran (a 429). */
const modelPathPattern = (path: string): string | undefined => (path.startsWith('/v1beta/models/') ? '/v1beta/models/*name' : undefined);

/** The matched route's own pattern, which holds no user data; otherwise the path, redacted. */
function pathForLog(req: Request, res: Response, redactPath: PathRedactor): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const search = query === -1 ? '' : redactPath(url.slice(query).replace(keyParam, `$1key=${REDACTED}`), req, res);
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return route + search;
  return (fixedPaths.has(path) ? path : (modelPathPattern(path) ?? redactPath(path, req, res))) + search;
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
      const { attempts, cut, failure, note, requestId } = res.locals;
      // A response that never finished did not reach the caller whole: the caller left (499).
      const status = cut?.status ?? (res.writableFinished ? res.statusCode : 499);
      const line = `${req.method} ${pathForLog(req, res, redactPath)} ${status} ${ms}ms`;
      const fields: { reqId?: string; attempts?: LogLocals['attempts']; reason?: string; note?: string } = {};
      if (requestId !== undefined) fields.reqId = requestId;
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
