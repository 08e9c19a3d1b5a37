import cluster from 'node:cluster';
import { buildCatalog } from '../catalog/catalog.ts';
import { loadProviderPlugins } from '../providers/loader.ts';
import { createApp } from './app.ts';
import { createPrimaryStores, isShutdownMessage, runPrimary } from './cluster.ts';
import { loadConfig, type Config } from './config.ts';
import { createLogger } from './http/request-log.ts';
import { createFreewayServer } from './http/server.ts';

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

const plugins = await loadProviderPlugins();
let config: Config;
try {
  config = loadConfig(process.env, plugins);
} catch (error) {
  process.stderr.write(`Freeway cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const clustered = config.workers > 1;
const rootLogger = createLogger(config.logLevel);
// With several processes writing one log, each line says which one wrote it.
const logger = clustered ? rootLogger.child({ pid: process.pid }) : rootLogger;

if (clustered && cluster.isPrimary) {
  runPrimary(config, logger);
} else {
  serve(config);
}

/** After SHUTDOWN_TIMEOUT_MS, how long the interrupted requests have to send their answers. */
const FINAL_GRACE_MS = 500;

function serve(config: Config): void {
  const catalog = buildCatalog(plugins);
  // Workers without Redis keep their state in the primary; with Redis (or alone), createApp picks the stores.
  const shared = clustered && !config.redisUrl ? createPrimaryStores(logger) : {};
  const freeway = createApp({ config, catalog, logger, ...shared });
  const server = createFreewayServer(freeway.app, config);

  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    if (clustered) logger.info(`worker listening on http://${config.host}:${port}`);
    else logger.info(`Freeway listening on http://${config.host}:${port} (${catalog.providers.length} providers, ${catalog.models.length} models)`);
    if (stopRequested) stop('shutdown request');
  });

  let stopping = false;
  let signalled = false;

  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    logger.info(`${reason}: draining in-flight requests (up to ${config.shutdownTimeoutMs} ms)`);
    const force = setTimeout(() => {
      // Every request still running gets an answer (a 503, or an error event once
      // its stream has started) and its log line; what is left after a moment is closed.
      logger.warn('shutdown timeout: answering the requests still running, then closing their connections');
      freeway.interrupt();
      setTimeout(() => server.closeAllConnections(), FINAL_GRACE_MS).unref();
    }, config.shutdownTimeoutMs);
    force.unref();
    // Connections that finish their last response while draining would otherwise
    // sit in keep-alive until their idle timeout.
    const reaper = setInterval(() => server.closeIdleConnections(), 100);
    reaper.unref();
    server.close(async () => {
      clearTimeout(force);
      clearInterval(reaper);
      await freeway.close();
      logger.info('stopped');
      logger.flush(() => process.exit(0));
    });
    server.closeIdleConnections();
  }

  // Only a second signal (not the primary's stop request) means "exit now".
  function onSignal(signal: NodeJS.Signals): void {
    if (signalled) {
      logger.warn(`${signal} again: exiting now`);
      logger.flush();
      process.exit(1);
    }
    signalled = true;
    stop(signal);
  }

  onStopRequest = () => stop('shutdown request');
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
