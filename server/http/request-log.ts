import type { NextFunction, Request, Response } from 'express';
import { pino, type DestinationStream, type Logger } from 'pino';
import { sanitizeForLog } from './redact.ts';

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
  const destination = pino.destination({ sync: false });
  const logger = createLogger(level, destination);
  destination.on('error', () => silence(logger));
  return logger;
}

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
  attempts?: ReadonlyArray<{ provider: string; model: string; key?: number; status: number | string; ms: number }>;
  /**
   * Set when a request did not end the way its status says (a stream ended by an
   * error event, a slow caller cut off, shutdown): logged at warn with the reason.
   * `status` replaces the one on the wire, e.g. 499 for a caller that was cut off.
   * The reason is logged as it is: redact it (keys of the request) before setting it.
   */
  cut?: { readonly status?: number; readonly reason: string };
}

/** Paths that are Freeway's own constants, logged as they are even when no route ran (a 429). */
const fixedPaths = new Set(['/health', '/v1/models', '/v1/chat/completions']);

/** The matched route's own pattern, which holds no user data; otherwise the path with long tokens redacted. */
function pathForLog(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const search = query === -1 ? '' : sanitizeForLog(url.slice(query));
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return route + search;
  return (fixedPaths.has(path) ? path : sanitizeForLog(path)) + search;
}

/** One line per request: `<METHOD> <path> <status> <duration>ms`. */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    let logged = false;
    const done = (): void => {
      if (logged) return;
      logged = true;
      const ms = Math.round(performance.now() - started);
      const { attempts, cut } = res.locals as LogLocals;
      // A response that never finished did not reach the caller whole: the caller left (499).
      const status = cut?.status ?? (res.writableFinished ? res.statusCode : 499);
      const line = `${req.method} ${pathForLog(req)} ${status} ${ms}ms`;
      if (cut) logger.warn(attempts ? { attempts, reason: cut.reason } : { reason: cut.reason }, line);
      else if (attempts) logger.info({ attempts }, line);
      else logger.info(line);
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
