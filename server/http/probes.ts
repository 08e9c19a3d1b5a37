import type { Express, Response } from 'express';
import { pathOf } from './route-table.ts';

/** Where the process is in its life, for the readiness probe. */
export interface Readiness {
  phase: 'starting' | 'ready' | 'stopping';
}

const json = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } as const;

/**
 * `GET /livez` (the process serves) and `GET /readyz` (it can take requests now).
 * Neither calls anything: a probe every few seconds costs a map lookup.
 * `redisReady` is undefined when Freeway runs without Redis.
 */
export function probes(app: Express, readiness: Readiness, redisReady: (() => boolean) | undefined, requireRedis: boolean): void {
  const answer = (status: number, body: Record<string, string>): ((res: Response) => void) => {
    const text = JSON.stringify(body);
    return (res) => {
      res.writeHead(status, json);
      res.end(text);
    };
  };
  const live = answer(200, { status: 'ok' });
  const ready = answer(200, { status: 'ready' });
  const starting = answer(503, { status: 'starting', reason: 'Freeway has not finished starting.' });
  const stopping = answer(503, { status: 'stopping', reason: 'Freeway is shutting down: it takes no new requests.' });
  const noRedis = requireRedis
    ? answer(503, { status: 'unavailable', reason: 'Redis is unreachable, and READYZ_REQUIRE_REDIS=true.' })
    : answer(200, { status: 'degraded', reason: 'Redis is unreachable: rate limits and provider health are kept in this process\'s memory until it answers again.' });
  const livez = pathOf('livez');
  const readyz = pathOf('readyz');
  // One middleware ahead of all others: every other request pays one string comparison or two.
  app.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') next();
    else if (req.url === livez) live(res);
    else if (req.url !== readyz) next();
    else if (readiness.phase === 'stopping') stopping(res);
    else if (readiness.phase === 'starting') starting(res);
    else if (redisReady !== undefined && !redisReady()) noRedis(res);
    else ready(res);
  });
}
