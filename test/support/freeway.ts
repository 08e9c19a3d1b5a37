import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildCatalog, type Catalog } from '../../catalog/catalog.ts';
import { createApp, type AppDeps } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import type { HealthStore } from '../../server/routing/health.ts';
import { createLogger } from '../../server/http/request-log.ts';
import { createFreewayServer, type ServerTimeouts } from '../../server/http/server.ts';
import { providerPlugins } from './plugins.ts';

export { providerPlugins };

export async function testCatalog(): Promise<Catalog> {
  return buildCatalog(await providerPlugins());
}

export interface RunningFreeway {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly server: Server;
  readonly catalog: Catalog;
  /** Every log line written so far, raw. */
  readonly logs: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  /** Environment as Freeway would read it; merged over test defaults. */
  readonly env?: Record<string, string>;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly healthStore?: HealthStore;
  readonly fetch?: AppDeps['fetch'];
  /** Node's server timeouts, when a test needs them shorter than Freeway's. */
  readonly serverTimeouts?: Partial<ServerTimeouts>;
}

/** Starts Freeway on an ephemeral 127.0.0.1 port, with its log captured in memory. */
export async function startFreeway(options: StartOptions = {}): Promise<RunningFreeway> {
  const loaded = await providerPlugins();
  const config = loadConfig({ RATE_LIMIT_MAX: '100000', ROUTING: 'priority', ...options.env }, loaded);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') logs.push(line);
      callback();
    },
  });
  const logger = createLogger('info', sink);
  const catalog = buildCatalog(loaded);
  const freeway = createApp({ config, catalog, logger, random: options.random, now: options.now, healthStore: options.healthStore, fetch: options.fetch });
  const server = createFreewayServer(freeway.app, config, options.serverTimeouts);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    catalog,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await freeway.close();
    },
  };
}
