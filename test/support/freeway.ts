import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { buildCatalog, type Catalog } from '../../catalog/catalog.ts';
import { createApp, type AppDeps } from '../../server/app.ts';
import { loadConfig } from '../../server/config/index.ts';
import type { HealthStore } from '../../server/state/health-records.ts';
import { createLogger } from '../../server/http/process-logger.ts';
import { createFreewayServer, type ServerTimeouts } from '../../server/http/server.ts';
import { providerPlugins } from './plugins.ts';
import type { Readiness } from '../../server/http/probes.ts';
import { modelsLiveDefault, quarantineDefault } from './models-live-off.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { startTracing } from '../../server/tracing/index.ts';

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
  /** The app's readiness, which a test may set as a stop signal would. */
  readonly readiness: Readiness;
  /** Resolves with the first log line, past or to come, whose `msg` matches; rejects after `timeoutMs`. */
  logged(msg: RegExp, timeoutMs?: number): Promise<string>;
  /** What a stop signal does first: requests held for a window or a slot are answered. */
  stopWaiting(): void;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Environment as Freeway would read it; merged over test defaults. The defaults route in catalog
   * order (ROUTING=priority) and without stickiness (STICKY=off): tests of failover and health send
   * the same prompt many times, which stickiness would keep on one model. Tests of quality routing
   * and of one model per conversation set them. Nor do they wait for rate-limit windows
   * (MAX_WAIT_MS=0): tests of failover meet 429s on purpose; tests of waiting set it.
   */
  readonly env?: Record<string, string>;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly healthStore?: HealthStore;
  /** Model lists and quarantines shared with another Freeway, as the cluster primary shares them between workers. */
  readonly knowledgeStore?: AppDeps['knowledgeStore'];
  readonly fetch?: AppDeps['fetch'];
  /** Node's server timeouts, when a test needs them shorter than Freeway's. */
  readonly serverTimeouts?: Partial<ServerTimeouts>;
  /**
   * With REDIS_URL, startFreeway returns once Freeway has logged that its Redis
   * connection is ready (until then it serves from memory, and a test's first
   * request would not reach Redis). False for a test that starts Freeway while
   * Redis is down.
   */
  readonly awaitRedis?: boolean;
  /** The provider plugins to serve; the discovered ones when absent. */
  readonly plugins?: readonly ProviderPlugin[];
}

/** How long startFreeway waits for Freeway's Redis connection. */
const REDIS_READY_TIMEOUT_MS = 8_000;

/** Starts Freeway on an ephemeral 127.0.0.1 port, with its log captured in memory. */
export async function startFreeway(options: StartOptions = {}): Promise<RunningFreeway> {
  const loaded = options.plugins ?? (await providerPlugins());
  const config = loadConfig({ RATE_LIMIT_MAX: '100000', ROUTING: 'priority', STICKY: 'off', MAX_WAIT_MS: '0', MODELS_LIVE: modelsLiveDefault, MODEL_QUARANTINE_MS: quarantineDefault, ...options.env }, loaded);
  const logs: string[] = [];
  const waiters = new Set<(line: string) => void>();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        logs.push(line);
        for (const waiter of waiters) waiter(line);
      }
      callback();
    },
  });
  const messageOf = (line: string): string => {
    try {
      return String((JSON.parse(line) as { msg?: unknown }).msg ?? '');
    } catch {
      return '';
    }
  };
  function logged(msg: RegExp, timeoutMs = 5_000): Promise<string> {
    const seen = logs.find((line) => msg.test(messageOf(line)));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = (line: string): void => {
        if (!msg.test(messageOf(line))) return;
        waiters.delete(waiter);
        clearTimeout(timer);
        resolve(line);
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`Freeway logged nothing matching ${msg} within ${timeoutMs} ms; its log:\n${logs.join('\n')}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  }
  const logger = createLogger('info', sink);
  const catalog = buildCatalog(loaded);
  // With OTEL_TRACES_EXPORTER=otlp in `env`, as serve.ts starts it; the app sends what is pending on close.
  const tracing = await startTracing(config.tracing, (message) => logger.warn(message));
  const freeway = createApp({ config, catalog, logger, random: options.random, now: options.now, healthStore: options.healthStore, knowledgeStore: options.knowledgeStore, fetch: options.fetch, tracing });
  const server = createFreewayServer(freeway.listener, config, options.serverTimeouts, freeway.connectionDropped);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  freeway.readiness.phase = 'ready';
  const { port } = server.address() as AddressInfo;
  const running: RunningFreeway = {
    url: `http://127.0.0.1:${port}`,
    server,
    catalog,
    logs,
    readiness: freeway.readiness,
    logged,
    stopWaiting: freeway.stopWaiting,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await freeway.close();
    },
  };
  if (config.state.redisUrl !== undefined && options.awaitRedis !== false) {
    try {
      // server/state/redis/client.ts logs this on the connection's first 'ready'.
      await logged(/^Redis connected/, REDIS_READY_TIMEOUT_MS);
    } catch (error) {
      await running.close();
      throw error;
    }
  }
  return running;
}
