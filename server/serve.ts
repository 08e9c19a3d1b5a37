import cluster from 'node:cluster';
import { buildCatalog } from '../catalog/catalog.ts';
import { loadProviderPlugins } from '../providers/loader.ts';
import { createApp } from './app.ts';
import { cannotStartMessage, connectToPrimary, isShutdownMessage } from './state/cluster/channel.ts';
import { askPrimaryForMetrics, offerToPrimary } from './cluster/summed-metrics.ts';
import { isEcho } from './cluster/signals.ts';
import { runPrimary } from './cluster/supervisor.ts';
import { createWorkerStores } from './state/cluster/worker-stores.ts';
import { cannotStart, listenFailure, loadConfig, type Config } from './config/index.ts';
import { createStdoutLogger, exitAfterFlush } from './http/process-logger.ts';
import { createFreewayServer } from './http/server.ts';
import { collectDefaultMetrics } from 'prom-client';
import { listenForMetrics } from './http/metrics-endpoint.ts';
import { healthPolicy } from './routing/index.ts';
import { createThrottledWarn } from './state/warn-every.ts';
import { startTracing } from './tracing/index.ts';

// A cluster worker may be told to stop before it is up; listen for that first.
let stopRequested = false;
let onStopRequest: (() => void) | undefined;
if (cluster.isWorker) {
  process.on('message', (message: unknown) => {
    if (!isShutdownMessage(message)) return;
    stopRequested = true;
    onStopRequest?.();
  });
}

let config: Config;
let plugins: Awaited<ReturnType<typeof loadProviderPlugins>>;
try {
  plugins = await loadProviderPlugins();
  config = loadConfig(process.env, plugins);
} catch (error) {
  cannotStart(error instanceof Error ? error.message : String(error));
}
const clustered = config.server.workers > 1;
const rootLogger = await createStdoutLogger(config.logging.level, config.logging.format);
// With several processes writing one log, each line says which one wrote it.
const logger = clustered ? rootLogger.child({ pid: process.pid }) : rootLogger;

/** After SHUTDOWN_TIMEOUT_MS, how long the interrupted requests have to send their answers. */
const FINAL_GRACE_MS = 500;

if (clustered && cluster.isPrimary) {
  runPrimary(config, logger);
} else {
  await serve(config);
}

/** Where traces go, for the start-up line: the collector's URL without credentials or query. */
function tracesLine(config: Config): string | undefined {
  if (config.tracing.mode === 'off') return undefined;
  const { origin, pathname } = new URL(config.tracing.url);
  return `traces to ${origin}${pathname} (${config.tracing.protocol})`;
}

async function serve(config: Config): Promise<void> {
  const catalog = buildCatalog(plugins);
  // Every process that serves requests (each worker in a cluster) sends its own spans.
  const warn = createThrottledWarn(logger);
  const tracing = await startTracing(config.tracing, (message) => warn('tracing', message));
  // Workers without Redis keep their state in the primary; with Redis (or alone), createApp picks the stores.
  const shared =
    clustered && !config.state.redisUrl
      ? createWorkerStores(logger, healthPolicy, {
          limits: config.models,
          stickyMaxEntries: config.sticky.maxEntries,
          usageMaxRecords: config.usage.mode ? config.usage.maxRecords : undefined,
        })
      : {};
  // In a cluster, /metrics on the main port shows every worker: the primary aggregates them.
  const scrapeMetrics = clustered && config.metrics.mode === 'main' ? askPrimaryForMetrics(connectToPrimary()) : undefined;
  const freeway = createApp({ config, catalog, logger, ...shared, scrapeMetrics, tracing });
  const where = config.metrics;
  if (where.mode !== 'off') {
    collectDefaultMetrics({ register: freeway.metrics });
    if (clustered) offerToPrimary(freeway.metrics);
    else if (where.mode === 'separate') {
      listenForMetrics(
        () => freeway.metrics.metrics(),
        where,
        (url) => logger.info(`metrics on ${url}`),
        (error) => cannotStart(listenFailure(error, where.host, where.port, 'METRICS_HOST, METRICS_PORT')),
      );
    }
  }
  const server = createFreewayServer(freeway.listener, config, {}, freeway.connectionDropped);

  // Until it listens, a server error (port in use, host not found) is a start-up failure.
  const onListenError = (error: unknown): void => {
    const reason = listenFailure(error, config.server.host, config.server.port, 'HOST, PORT');
    // In a cluster the primary reports it, once for all workers.
    if (cluster.isWorker && process.send) process.send(cannotStartMessage(reason), undefined, undefined, () => process.exit(1));
    else cannotStart(reason);
  };
  server.once('error', onListenError);
  server.listen(config.server.port, config.server.host, () => {
    server.off('error', onListenError);
    if (!stopping) freeway.readiness.phase = 'ready';
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.server.port;
    if (clustered) logger.info(`worker listening on http://${config.server.host}:${port}`);
    else {
      logger.info(`Freeway listening on http://${config.server.host}:${port} (${catalog.providers.length} providers, ${catalog.models.length} models)`);
      // An environment set up for other tools can hold an <ID>_BASE_URL (Ollama's read OLLAMA_BASE_URL): never unnoticed.
      for (const override of config.providers.baseURLOverrides) logger.warn(override);
      const traces = tracesLine(config);
      if (traces !== undefined) logger.info(traces);
    }
    if (stopRequested) stop('shutdown request');
  });

  let stopping = false;
  let signalledAt: number | undefined;
  let stopStarted = 0;

  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    stopStarted = performance.now();
    freeway.readiness.phase = 'stopping';
    // Held requests have nothing in flight: they are answered now, not when SHUTDOWN_TIMEOUT_MS runs out.
    freeway.stopWaiting();
    logger.info(`${reason}: draining in-flight requests (up to ${config.timeouts.shutdownMs} ms)`);
    const force = setTimeout(() => {
      // Every request still running gets an answer (a 503, or an error event once
      // its stream has started) and its log line; what is left after a moment is closed.
      logger.warn('shutdown timeout: answering the requests still running, then closing their connections');
      freeway.interrupt();
      setTimeout(() => server.closeAllConnections(), FINAL_GRACE_MS).unref();
    }, config.timeouts.shutdownMs);
    force.unref();
    // Connections that finish their last response while draining would otherwise
    // sit in keep-alive until their idle timeout.
    const reaper = setInterval(() => server.closeIdleConnections(), 100);
    reaper.unref();
    server.close(async () => {
      clearTimeout(force);
      clearInterval(reaper);
      // Pending spans get what is left of SHUTDOWN_TIMEOUT_MS, and at least the final grace.
      await freeway.close(Math.max(FINAL_GRACE_MS, config.timeouts.shutdownMs - (performance.now() - stopStarted)));
      logger.info('stopped');
      exitAfterFlush(logger, 0);
    });
    server.closeIdleConnections();
  }

  // Only a second signal (not the primary's stop request) means "exit now".
  function onSignal(signal: NodeJS.Signals): void {
    const at = performance.now();
    if (signalledAt !== undefined) {
      if (isEcho(signalledAt, at)) return;
      logger.warn(`${signal} again: exiting now`);
      exitAfterFlush(logger, 1);
      return;
    }
    signalledAt = at;
    stop(signal);
  }

  onStopRequest = () => stop('shutdown request');
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

