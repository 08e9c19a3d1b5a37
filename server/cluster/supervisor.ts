import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { cannotStart, listenFailure, type Config } from '../config/index.ts';
import { listenForMetrics } from '../http/metrics-endpoint.ts';
import { exitAfterFlush } from '../http/process-logger.ts';
import { answerWorkers, cannotStartReason, shutdownMessage } from '../state/cluster/channel.ts';
import { aggregateWorkers, scrapeCall } from './summed-metrics.ts';
import { createPrimaryStores, type PrimaryStores, type StoreCall } from '../state/cluster/primary-stores.ts';
import { isEcho } from './signals.ts';
import { healthPolicy } from '../routing/index.ts';

/*
 * WORKERS > 1: the primary process forks the workers that serve HTTP, restarts
 * crashed ones and drains them all on SIGTERM/SIGINT. Without Redis it also
 * holds the shared stores (primary-stores.ts); with REDIS_URL every worker talks
 * to Redis and the primary only forks, restarts, drains and sums the metrics.
 */

/** What the primary answers over the channel: store calls (without Redis) and the cluster's metrics. */
type PrimaryCall = StoreCall | typeof scrapeCall;

const liveWorkers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

const killAll = (): void => {
  for (const worker of liveWorkers()) worker.process.kill('SIGKILL');
};

/** A worker that keeps dying at once is restarted ever more slowly: the delay before the next fork. */
function restartDelay(quickCrashes: number): number {
  return quickCrashes <= 1 ? 0 : Math.min(250 * 2 ** (quickCrashes - 1), 10_000);
}

/** The primary's side of the channel, and the METRICS_PORT listener of the whole cluster's metrics. */
function serveWorkers(config: Config, logger: Logger): PrimaryStores | undefined {
  const stores = config.state.redisUrl ? undefined : createPrimaryStores(config, healthPolicy);
  const scrape = config.metrics.mode === 'off' ? undefined : aggregateWorkers();
  answerWorkers<PrimaryCall>(async (call) => {
    if (call.op === scrapeCall.op) {
      if (!scrape) throw new Error('metrics are off');
      return scrape();
    }
    if (!stores) throw new Error(`${call.op}: the stores are in Redis, not in the primary`);
    return stores.run(call as StoreCall);
  });
  const where = config.metrics;
  if (scrape && where.mode === 'separate') {
    listenForMetrics(
      scrape,
      where,
      (url) => logger.info(`metrics of all workers on ${url}`),
      (error) => cannotStart(listenFailure(error, where.host, where.port, 'METRICS_HOST, METRICS_PORT')),
    );
  }
  return stores;
}

interface Supervision {
  readonly startedAt: Map<Worker, number>;
  stopping: boolean;
  failedToStart: boolean;
  listening: number;
  quickCrashes: number;
  failedExits: number;
}

/** Runs the cluster primary: forks `config.server.workers` workers, restarts crashed ones, drains them all on SIGTERM/SIGINT. */
export function runPrimary(config: Config, logger: Logger): void {
  const stores = serveWorkers(config, logger);
  const state: Supervision = { startedAt: new Map(), stopping: false, failedToStart: false, listening: 0, quickCrashes: 0, failedExits: 0 };

  // The secret travels to the workers so that every one of them hashes keys alike.
  const fork = (): void => {
    const worker = cluster.fork({ KEY_HASH_SECRET: config.state.keyHashSecret });
    state.startedAt.set(worker, Date.now());
  };
  const finish = (): void => {
    void stores?.close();
    logger.info('stopped');
    exitAfterFlush(logger, state.failedExits === 0 ? 0 : 1);
  };

  watchStartUp(config, logger, state);
  const restart = { logger, fork, finish };
  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => onExit(state, { worker, code, signal }, restart));
  const shutdown = drainOnSignal(config, logger, state, finish);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  logger.info(`starting ${config.server.workers} workers`);
  for (let i = 0; i < config.server.workers; i++) fork();
}

/** Until every worker listens, a worker's "cannot start" is start-up failing: restarting would fail alike for ever. */
function watchStartUp(config: Config, logger: Logger, state: Supervision): void {
  cluster.on('message', (_worker: Worker, message: unknown) => {
    const reason = cannotStartReason(message);
    if (reason === undefined || state.listening >= config.server.workers || state.failedToStart) return;
    state.failedToStart = true;
    killAll();
    cannotStart(reason);
  });
  cluster.on('listening', (_worker: Worker, address: { port: number }) => {
    state.listening += 1;
    if (state.listening !== config.server.workers) return;
    const where = config.state.redisUrl ? 'Redis' : 'the primary process';
    logger.info(`Freeway listening on http://${config.server.host}:${address.port} (${config.server.workers} workers; rate limits and health in ${where})`);
    // An environment set up for other tools can hold an <ID>_BASE_URL (Ollama's read OLLAMA_BASE_URL): never unnoticed.
    for (const override of config.providers.baseURLOverrides) logger.warn(override);
  });
}

interface Exit {
  readonly worker: Worker;
  readonly code: number | null;
  readonly signal: string | null;
}

/** What a worker's exit is answered with: a log line, a new worker, or (the last one while stopping) the end. */
interface Restart {
  readonly logger: Logger;
  readonly fork: () => void;
  readonly finish: () => void;
}

/** A worker exited: counted while stopping (the last one finishes), else restarted. */
function onExit(state: Supervision, { worker, code, signal }: Exit, { logger, fork, finish }: Restart): void {
  const started = state.startedAt.get(worker) ?? 0;
  state.startedAt.delete(worker);
  if (state.failedToStart) return;
  if (state.stopping) {
    if (code !== 0) state.failedExits += 1;
    if (state.startedAt.size === 0) finish();
    return;
  }
  state.quickCrashes = Date.now() - started < 5_000 ? state.quickCrashes + 1 : 0;
  const delay = restartDelay(state.quickCrashes);
  const how = signal ? `signal ${signal}` : `code ${code}`;
  logger.error(`worker ${worker.process.pid} exited (${how}); starting another${delay ? ` in ${delay} ms` : ''}`);
  setTimeout(() => {
    if (!state.stopping) fork();
  }, delay);
}

/** The first SIGTERM/SIGINT drains the workers; a second one (not an echo of the first) kills them. */
function drainOnSignal(config: Config, logger: Logger, state: Supervision, finish: () => void): (signal: NodeJS.Signals) => void {
  let signalledAt: number | undefined;
  return (signal) => {
    const workers = liveWorkers();
    const at = performance.now();
    if (state.stopping) {
      if (signalledAt !== undefined && isEcho(signalledAt, at)) return;
      logger.warn(`${signal} again: stopping the workers now`);
      killAll();
      exitAfterFlush(logger, 1);
      return;
    }
    signalledAt = at;
    state.stopping = true;
    logger.info(`${signal}: draining ${workers.length} workers (up to ${config.timeouts.shutdownMs} ms)`);
    if (state.startedAt.size === 0) {
      finish();
      return;
    }
    // A message, not a signal: a worker that got the same SIGINT from the terminal must not take this as a second one.
    for (const worker of workers) if (worker.isConnected()) worker.send(shutdownMessage, undefined, () => {});
    const force = setTimeout(() => {
      logger.warn('workers still running after the shutdown timeout: killing them');
      killAll();
    }, config.timeouts.shutdownMs + 5_000);
    force.unref();
  };
}
