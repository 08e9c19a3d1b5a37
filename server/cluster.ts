import cluster, { type Worker } from 'node:cluster';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { cannotStart, listenFailure, type Config, type ModelsConfig } from './config/index.ts';
import { exitAfterFlush } from './http/request-log.ts';
import { aggregateWorkers, listenForMetrics } from './http/metrics.ts';
import { createMemoryHealthStore, type HealthRecord, type HealthStore, type Outcome } from './routing/health.ts';
import { createSlidingWindowStore } from './state/sliding-window-store.ts';
import { failOpen, withHealthFallback } from './state/stores.ts';
import { createMemoryKnowledgeStore, withKnowledgeFallback, type KnowledgeStore } from './state/knowledge.ts';
import { createThrottledWarn } from './state/warn-every.ts';
import { createMemoryKeyCheckStore, withKeyCheckFallback, type KeyCheckRecord, type KeyCheckStore } from './state/key-checks.ts';

/*
 * WORKERS > 1: the primary process forks the workers that serve HTTP and, when
 * there is no Redis, holds the rate-limit windows and provider health itself,
 * in the same memory stores a single process uses. Workers reach them over the
 * cluster's IPC channel, so a client's (limit + 1)th request is refused
 * whichever worker it lands on. With REDIS_URL every worker talks to Redis and
 * the primary only forks, restarts and drains.
 */

type StoreCall =
  | { readonly op: 'rl.increment' | 'rl.get' | 'rl.decrement' | 'rl.resetKey'; readonly key: string }
  | { readonly op: 'rl.resetAll' }
  | { readonly op: 'health.get'; readonly ids: readonly string[] }
  | { readonly op: 'health.record'; readonly id: string; readonly outcome: Outcome; readonly now: number }
  | { readonly op: 'health.claimProbe'; readonly id: string; readonly now: number }
  | { readonly op: 'health.nextTurn'; readonly id: string; readonly now: number }
  | { readonly op: 'checks.get'; readonly ids: readonly string[] }
  | { readonly op: 'checks.claim'; readonly id: string; readonly now: number; readonly intervalMs: number }
  | { readonly op: 'checks.save'; readonly id: string; readonly record: KeyCheckRecord }
  | { readonly op: 'checks.spend'; readonly client: string; readonly now: number; readonly perMinute: number }

  | { readonly op: 'models.get' | 'models.fields'; readonly ids: readonly string[] }
  | { readonly op: 'models.set'; readonly id: string; readonly value: string; readonly ttlMs: number }
  | { readonly op: 'models.claim'; readonly id: string; readonly ttlMs: number }
  | { readonly op: 'models.setField'; readonly id: string; readonly field: string; readonly value: string; readonly ttlMs: number };

interface StoreRequest {
  readonly freeway: 'store';
  readonly seq: number;
  readonly call: StoreCall;
}

interface StoreReply {
  readonly freeway: 'store';
  readonly seq: number;
  readonly value?: unknown;
  readonly error?: string;
}

/** Rate-limit info as it crosses the channel (a Date would arrive as a string). */
interface WireInfo {
  readonly totalHits: number;
  readonly resetTime: number | undefined;
}

const shutdownMessage = { freeway: 'shutdown' } as const;

function isFreewayMessage(message: unknown, kind: string): boolean {
  return typeof message === 'object' && message !== null && (message as { freeway?: unknown }).freeway === kind;
}

export const isShutdownMessage = (message: unknown): boolean => isFreewayMessage(message, 'shutdown');

/** A worker that could not listen tells the primary why; the primary reports it once and exits 1. */
export const cannotStartMessage = (reason: string) => ({ freeway: 'cannot-start', reason }) as const;

/**
 * One stop request often arrives as two signals a moment apart: npm forwards the
 * SIGTERM or SIGINT that systemd or the terminal also sent to the whole group.
 * A repeat within this window is the same request, not an "exit now".
 */
const echoWindowMs = 250;
export const isEcho = (firstAt: number, at: number): boolean => at - firstAt < echoWindowMs;

// ---------------------------------------------------------------------------
// Worker side

/** How long a worker waits for the primary before going on without it (fail open / local health). */
const primaryTimeoutMs = 1_000;
/** After a timeout, how long calls skip the primary instead of each waiting for it. */
const primaryQuietMs = 5_000;

function createPrimaryChannel(): <T>(call: StoreCall) => Promise<T> {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; deadline: number }>();
  let seq = 0;
  let quietUntil = 0;
  process.on('message', (message: unknown) => {
    if (!isFreewayMessage(message, 'store')) return;
    // Even a late answer shows the primary is back.
    quietUntil = 0;
    const reply = message as StoreReply;
    const entry = pending.get(reply.seq);
    if (!entry) return;
    pending.delete(reply.seq);
    if (reply.error !== undefined) entry.reject(new Error(reply.error));
    else entry.resolve(reply.value);
  });
  // One sweeper instead of a timer per call.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, entry] of pending) {
      if (entry.deadline > now) continue;
      pending.delete(id);
      quietUntil = now + primaryQuietMs;
      entry.reject(new Error(`the cluster primary did not answer within ${primaryTimeoutMs} ms`));
    }
  }, 100);
  sweeper.unref();

  return <T>(call: StoreCall) =>
    new Promise<T>((resolve, reject) => {
      if (!process.send || !process.connected) {
        reject(new Error('no channel to the cluster primary'));
        return;
      }
      if (quietUntil !== 0 && Date.now() < quietUntil) {
        reject(new Error('the cluster primary is not answering'));
        return;
      }
      const id = (seq = (seq + 1) % Number.MAX_SAFE_INTEGER);
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject, deadline: Date.now() + primaryTimeoutMs });
      const request: StoreRequest = { freeway: 'store', seq: id, call };
      process.send(request, undefined, undefined, (error: Error | null) => {
        if (!error || !pending.delete(id)) return;
        reject(error);
      });
    });
}

const toInfo = (wire: WireInfo | undefined | null): ClientRateLimitInfo | undefined =>
  wire ? { totalHits: wire.totalHits, resetTime: wire.resetTime === undefined ? undefined : new Date(wire.resetTime) } : undefined;

/** A worker's stores: proxies to the primary's, failing open (rate limit) or falling back to memory (health). */
export function createPrimaryStores(
  logger: Logger,
  limits: Pick<ModelsConfig, 'maxKeys' | 'maxBytes'> = { maxKeys: 10_000, maxBytes: 64 * 1024 ** 2 },
): { healthStore: HealthStore; rateLimitStore: Store; knowledgeStore: KnowledgeStore; keyCheckStore: KeyCheckStore } {
  const call = createPrimaryChannel();
  const warn = createThrottledWarn(logger);
  const windows: Store = {
    localKeys: false,
    async get(key) {
      return toInfo(await call<WireInfo | null>({ op: 'rl.get', key }));
    },
    async increment(key) {
      return toInfo(await call<WireInfo>({ op: 'rl.increment', key })) as ClientRateLimitInfo;
    },
    async decrement(key) {
      await call({ op: 'rl.decrement', key });
    },
    async resetKey(key) {
      await call({ op: 'rl.resetKey', key });
    },
    async resetAll() {
      await call({ op: 'rl.resetAll' });
    },
  };
  const health: HealthStore = {
    async get(ids) {
      // JSON turns a missing record into null.
      const records = await call<Array<HealthRecord | null>>({ op: 'health.get', ids });
      return records.map((record) => record ?? undefined);
    },
    record: (id, outcome, now) => call<HealthRecord>({ op: 'health.record', id, outcome, now }),
    claimProbe: (id, now) => call<boolean>({ op: 'health.claimProbe', id, now }),
    nextTurn: (id, now) => call<number>({ op: 'health.nextTurn', id, now }),
    async close() {},
  };
  const checks: KeyCheckStore = {
    async get(ids) {
      const records = await call<Array<KeyCheckRecord | null>>({ op: 'checks.get', ids });
      return records.map((record) => record ?? undefined);
    },
    claim: (id, now, intervalMs) => call<boolean>({ op: 'checks.claim', id, now, intervalMs }),
    async save(id, record) {
      await call({ op: 'checks.save', id, record });
    },
    spend: (client, now, perMinute) => call<boolean>({ op: 'checks.spend', client, now, perMinute }),
    async close() {},
  };
  const knowledge: KnowledgeStore = {
    async get(ids) {
      return (await call<Array<string | null>>({ op: 'models.get', ids })).map((value) => value ?? undefined);
    },
    set: (id, value, ttlMs) => call<void>({ op: 'models.set', id, value, ttlMs }),
    claim: (id, ttlMs) => call<boolean>({ op: 'models.claim', id, ttlMs }),
    async fields(ids) {
      return (await call<Array<Record<string, string> | null>>({ op: 'models.fields', ids })).map((value) => value ?? undefined);
    },
    setField: (id, field, value, ttlMs) => call<void>({ op: 'models.setField', id, field, value, ttlMs }),
    async close() {},
  };
  return {
    keyCheckStore: withKeyCheckFallback(checks, warn, 'the cluster primary'),
    rateLimitStore: failOpen(windows, warn, 'the cluster primary'),
    healthStore: withHealthFallback(health, warn, 'the cluster primary'),
    knowledgeStore: withKnowledgeFallback(knowledge, createMemoryKnowledgeStore(limits.maxKeys, limits.maxBytes), warn, 'the cluster primary'),
  };
}

// ---------------------------------------------------------------------------
// Primary side

function servePrimaryStores(config: Config): { handle(worker: Worker, request: StoreRequest): void; close(): Promise<void> } {
  // Bounded like a single process's: the workers' clients together are at most RATE_LIMIT_MAX_CLIENTS.
  const windows = createSlidingWindowStore(undefined, undefined, config.rateLimit.maxClients);
  windows.init?.({ limit: config.rateLimit.max, windowMs: config.rateLimit.windowMs } as Options);
  const health = createMemoryHealthStore(undefined, undefined, config.state.healthMaxRecords);
  const checks = createMemoryKeyCheckStore(config.state.healthMaxRecords);
  const knowledge = createMemoryKnowledgeStore(config.models.maxKeys, config.models.maxBytes);
  const wire = (info: ClientRateLimitInfo | undefined): WireInfo | null =>
    info ? { totalHits: info.totalHits, resetTime: info.resetTime?.getTime() } : null;

  async function run(call: StoreCall): Promise<unknown> {
    switch (call.op) {
      case 'rl.increment':
        return wire(await windows.increment(call.key));
      case 'rl.get':
        return wire(await windows.get?.(call.key));
      case 'rl.decrement':
        return windows.decrement(call.key);
      case 'rl.resetKey':
        return windows.resetKey(call.key);
      case 'rl.resetAll':
        return windows.resetAll?.();
      case 'health.get':
        return health.get(call.ids);
      case 'health.record':
        return health.record(call.id, call.outcome, call.now);
      case 'health.claimProbe':
        return health.claimProbe(call.id, call.now);
      case 'health.nextTurn':
        return health.nextTurn(call.id, call.now);
      case 'checks.get':
        return checks.get(call.ids);
      case 'checks.claim':
        return checks.claim(call.id, call.now, call.intervalMs);
      case 'checks.save':
        return checks.save(call.id, call.record);
      case 'checks.spend':
        return checks.spend(call.client, call.now, call.perMinute);
      case 'models.get':
        return (await knowledge.get(call.ids)).map((value) => value ?? null);
      case 'models.fields':
        return (await knowledge.fields(call.ids)).map((value) => value ?? null);
      case 'models.set':
        return knowledge.set(call.id, call.value, call.ttlMs);
      case 'models.claim':
        return knowledge.claim(call.id, call.ttlMs);
      case 'models.setField':
        return knowledge.setField(call.id, call.field, call.value, call.ttlMs);
    }
  }

  return {
    handle(worker, request) {
      const answer = (reply: StoreReply): void => {
        if (worker.isConnected()) worker.send(reply, undefined, () => {});
      };
      run(request.call).then(
        (value) => answer({ freeway: 'store', seq: request.seq, value: value ?? null }),
        (error: unknown) => answer({ freeway: 'store', seq: request.seq, error: error instanceof Error ? error.message : String(error) }),
      );
    },
    async close() {
      await windows.shutdown?.();
      await health.close();
      await checks.close();
      await knowledge.close();
    },
  };
}

/** Runs the cluster primary: forks `config.server.workers` workers, restarts crashed ones, drains them all on SIGTERM/SIGINT. */
export function runPrimary(config: Config, logger: Logger): void {
  const stores = config.state.redisUrl ? undefined : servePrimaryStores(config);
  const startedAt = new Map<Worker, number>();
  let stopping = false;
  let listening = 0;
  let quickCrashes = 0;
  let failedExits = 0;

  // The secret travels to the workers so that every one of them hashes keys alike.
  const fork = (): void => {
    const worker = cluster.fork({ KEY_HASH_SECRET: config.state.keyHashSecret });
    startedAt.set(worker, Date.now());
  };

  let failedToStart = false;
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (stores && isFreewayMessage(message, 'store')) stores.handle(worker, message as StoreRequest);
    else if (isFreewayMessage(message, 'cannot-start')) {
      // Before every worker listens, this is start-up failing: restarting would fail alike for ever.
      if (listening >= config.server.workers || failedToStart) return;
      failedToStart = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGKILL');
      cannotStart(String((message as { reason?: unknown }).reason));
    }
  });

  cluster.on('listening', (_worker: Worker, address: { port: number }) => {
    listening += 1;
    if (listening === config.server.workers) {
      const state = config.state.redisUrl ? 'Redis' : 'the primary process';
      logger.info(
        `Freeway listening on http://${config.server.host}:${address.port} (${config.server.workers} workers; rate limits and health in ${state})`,
      );
    }
  });

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    const started = startedAt.get(worker) ?? 0;
    startedAt.delete(worker);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (failedToStart) return;
    if (stopping) {
      if (code !== 0) failedExits += 1;
      if (startedAt.size === 0) finish();
      return;
    }
    // A worker that keeps dying at once is restarted ever more slowly.
    quickCrashes = Date.now() - started < 5_000 ? quickCrashes + 1 : 0;
    const delay = quickCrashes <= 1 ? 0 : Math.min(250 * 2 ** (quickCrashes - 1), 10_000);
    logger.error(`worker ${worker.process.pid} exited (${how}); starting another${delay ? ` in ${delay} ms` : ''}`);
    setTimeout(() => {
      if (!stopping) fork();
    }, delay);
  });

  function finish(): void {
    void stores?.close();
    logger.info('stopped');
    exitAfterFlush(logger, failedExits === 0 ? 0 : 1);
  }

  let signalledAt: number | undefined;
  function shutdown(signal: NodeJS.Signals): void {
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    const at = performance.now();
    if (stopping) {
      if (signalledAt !== undefined && isEcho(signalledAt, at)) return;
      logger.warn(`${signal} again: stopping the workers now`);
      for (const worker of workers) worker.process.kill('SIGKILL');
      exitAfterFlush(logger, 1);
      return;
    }
    signalledAt = at;
    stopping = true;
    logger.info(`${signal}: draining ${workers.length} workers (up to ${config.timeouts.shutdownMs} ms)`);
    if (startedAt.size === 0) {
      finish();
      return;
    }
    // A message, not a signal: a worker that got the same SIGINT from the terminal must not take this as a second one.
    for (const worker of workers) if (worker.isConnected()) worker.send(shutdownMessage, undefined, () => {});
    const force = setTimeout(() => {
      logger.warn('workers still running after the shutdown timeout: killing them');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, config.timeouts.shutdownMs + 5_000);
    force.unref();
  }

  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  if (config.metrics.mode !== 'off') {
    const scrape = aggregateWorkers();
    const where = config.metrics;
    if (where.mode === 'separate') {
      listenForMetrics(
        scrape,
        where,
        (url) => logger.info(`metrics of all workers on ${url}`),
        (error) => cannotStart(listenFailure(error, where.host, where.port, 'METRICS_HOST, METRICS_PORT')),
      );
    }
  }
  logger.info(`starting ${config.server.workers} workers`);
  for (let i = 0; i < config.server.workers; i++) fork();
}
