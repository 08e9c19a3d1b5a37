import { createServer } from 'node:http';
import { buildCatalog } from '../catalog/catalog.ts';
import { loadProviderPlugins } from '../providers/loader.ts';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './middleware/request-log.ts';

const plugins = await loadProviderPlugins();
const config = loadConfig(process.env, plugins);
const logger = createLogger(config.logLevel);
const catalog = buildCatalog(plugins);
const freeway = createApp({ config, catalog, logger });
const server = createServer(freeway.app);

server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(`Freeway listening on http://${config.host}:${port} (${catalog.providers.length} providers, ${catalog.models.length} models)`);
});

let stopping = false;
function shutdown(signal: NodeJS.Signals): void {
  if (stopping) {
    logger.warn(`${signal} again: exiting now`);
    logger.flush();
    process.exit(1);
  }
  stopping = true;
  logger.info(`${signal}: draining in-flight requests (up to ${config.shutdownTimeoutMs} ms)`);
  const force = setTimeout(() => {
    logger.warn('shutdown timeout: closing remaining connections');
    server.closeAllConnections();
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

process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
