import type { NextFunction, Request, Response } from 'express';
import { pino, type DestinationStream, type Logger } from 'pino';
import { sanitizeForLog } from '../redact.ts';

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

export interface LogLocals {
  /** The route's own path, set by the route; holds no user data. */
  logPath?: string;
  /** Every upstream attempt of the request: provider, model, status, ms. No keys. */
  attempts?: ReadonlyArray<{ provider: string; model: string; status: number | string; ms: number }>;
}

function pathForLog(req: Request, res: Response): string {
  const locals = res.locals as LogLocals;
  const query = req.originalUrl.indexOf('?');
  const search = query === -1 ? '' : sanitizeForLog(req.originalUrl.slice(query));
  if (locals.logPath) return locals.logPath + search;
  return sanitizeForLog(query === -1 ? req.originalUrl : req.originalUrl.slice(0, query)) + search;
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
      const status = res.writableFinished ? res.statusCode : res.headersSent ? res.statusCode : 499;
      const attempts = (res.locals as LogLocals).attempts;
      const line = `${req.method} ${pathForLog(req, res)} ${status} ${ms}ms`;
      if (attempts) logger.info({ attempts }, line);
      else logger.info(line);
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
