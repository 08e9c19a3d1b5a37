import express, { type Express, type Request, type RequestHandler } from 'express';
import type { Store } from 'express-rate-limit';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Catalog } from '../catalog/catalog.ts';
import type { FetchFunction } from '../providers/types.ts';
import type { Config } from './config/index.ts';
import { clip, freewayError } from './core/errors.ts';
import type { HealthStore } from './state/health-records.ts';
import { createKeyHasher, createTextHasher } from './state/key-hash.ts';
import { clientIp, createRateLimit } from './http/rate-limit.ts';
import { createModelKnowledge } from './models/model-knowledge.ts';
import { keyModelList } from './models/key-models.ts';
import { createBodyBudget, jsonBody } from './http/json-body.ts';
import { multipartBody } from './http/multipart-body.ts';
import { keyShapedRedactor, requestLog } from './http/request-log.ts';
import { createMetrics } from './http/metrics-registry.ts';
import { metricsEndpoint } from './http/metrics-endpoint.ts';
import { createThrottledWarn } from './state/warn-every.ts';
import { requestId } from './http/request-id.ts';
import { leanJson } from './http/json-response.ts';
import { corsHeaders } from './http/cors.ts';
import { didYouMeanText, indexModels, maxDistance, nearest } from '../catalog/suggest.ts';
import { createShutdown } from './http/shutdown.ts';
import { createRedactor } from './core/redact.ts';
import { createStores } from './state/stores.ts';
import type { KeyCheckStore } from './state/key-checks.ts';
import type { KnowledgeStore } from './state/knowledge.ts';
import type { StickyStore } from './state/conversation-models.ts';
import { CACHE_HIT_EVENT, createUsageCounter, type UsageStore } from './state/usage-records.ts';
import { createConfiguredCache } from './cache/index.ts';
import { chatApi } from './api/chat/index.ts';
import { responsesApi } from './api/responses/index.ts';
import type { ClientApiOptions } from './api/client-api.ts';
import { completionRoute } from './api/completion-pipeline.ts';
import { tokenCountRoute } from './api/token-count.ts';
import { embeddingsRoute } from './api/embeddings/index.ts';
import { health } from './api/key-health.ts';
import { transcriptionsRoute } from './api/transcriptions/index.ts';
import { listModels, retrieveModel } from './api/model-endpoints.ts';
import { anthropicErrors, speaksAnthropic } from './api/messages/errors.ts';
import { messagesApi } from './api/messages/index.ts';
import { anthropicModels } from './api/messages/models.ts';
import { geminiErrors } from './api/gemini/errors.ts';
import { geminiApi, geminiRoute } from './api/gemini/index.ts';
import { geminiModels } from './api/gemini/models.ts';
import { isGeminiV1Call, queryKeyAsHeader } from './api/gemini/path.ts';
import { providersApi } from './api/provider-status/index.ts';
import { openApiRoute } from './api/openapi.ts';
import { documentedRoutes } from './api/openapi-routes.ts';
import { curatedUsable, liveUsable } from './api/provider-status/usable-models.ts';
import { probes, type Readiness } from './http/probes.ts';
import { consoleHandlers } from './http/console.ts';
import { apiPrefixes, errorShapePrefixes, fixedPaths, methodsByPath, routeOfPath, routeTable, type ProbeHandlerName, type RouteHandlerName, type RouteRow } from './http/route-table.ts';
import { errorHandler } from './http/error-handler.ts';
import { mountOnExpress, routeChains, type MountedApp, type MountedMiddleware } from './http/route-chains.ts';
import { anonymousAccess, keylessHint } from './http/anonymous.ts';
import { TRACE_ID_HEADER, traceRequests } from './http/tracing.ts';
import type { Tracing } from './tracing/index.ts';
import { cachedModels, createLatencyTracker, createModelSource, createRouter, createUpstreamFetch, createWaitQueue, healthPolicy } from './routing/index.ts';
import { createKeyReader } from './http/key-headers.ts';

export interface AppDeps {
  readonly config: Config;
  readonly catalog: Catalog;
  readonly logger: Logger;
  /** Where provider health lives; when absent, Redis with REDIS_URL, else memory. */
  readonly healthStore?: HealthStore;
  /** Where the rate-limit windows live; when absent, Redis with REDIS_URL, else an in-memory sliding window. */
  readonly rateLimitStore?: Store;
  /** Where model lists and quarantines live (a cluster worker's: the primary's); when absent, Redis with REDIS_URL, else memory. */
  readonly knowledgeStore?: KnowledgeStore;
  /** Where conversations' models live (a cluster worker's: the primary's); when absent, Redis with REDIS_URL, else memory. */
  readonly stickyStore?: StickyStore;
  /** Where usage per key lives (a cluster worker's: the primary's); when absent, Redis with REDIS_URL, else memory. */
  readonly usageStore?: UsageStore;
  /** The HTTP client for upstream calls; Freeway's keep-alive node:http client when absent. */
  readonly fetch?: FetchFunction;
  /** For tests: a source of randomness for exploration. */
  readonly random?: () => number;
  /** Where key checks and their budgets live; as the health store when absent. */
  readonly keyCheckStore?: KeyCheckStore;
  /** For tests: the clock that health cooldowns are judged by. */
  readonly now?: () => number;
  /** What `GET /metrics` serves; this app's own registry when absent (a cluster worker asks the primary instead). */
  readonly scrapeMetrics?: () => Promise<string>;
  /** OpenTelemetry traces (tracing/index.ts `startTracing`); none when absent. The app shuts it down on close. */
  readonly tracing?: Tracing;
}

export interface FreewayApp {
  readonly app: Express;
  /** The HTTP server's listener: Express, with the route table's fixed POST rows run as compiled chains (http/route-chains.ts). */
  readonly listener: RequestListener;
  /** Stops timers and releases stores; sends the pending spans, waiting at most `flushWithinMs` (SHUTDOWN_TIMEOUT_MS when absent). */
  close(flushWithinMs?: number): Promise<void>;
  /** Answers every completion still running (503, or an error event once streaming), for a shutdown that cannot wait longer. */
  interrupt(): void;
  /** Answers every request held for a window or a slot with the shutdown's 503, and every later one (the server is stopping). */
  stopWaiting(): void;
  /** This process's metrics (prom-client), also when METRICS_PORT serves them elsewhere. */
  readonly metrics: Registry;
  /** For the HTTP server: a connection was closed on arrival, MAX_CONNECTIONS being open (counted, and logged at most every 10 s). */
  connectionDropped(): void;
  /** What `/readyz` answers: `starting` until the server listens, `stopping` from the first stop signal. */
  readonly readiness: Readiness;
}

/** Text fields of a transcription request at most (model, language, prompt, response_format, temperature, and a few a client adds). */
const AUDIO_MAX_FIELDS = 16;
/** Bytes of one text field at most: a Whisper prompt is at most 224 tokens. */
const AUDIO_MAX_FIELD_BYTES = 16 * 1024;

/** Where to start, for any path Freeway does not serve. */
const startHint = 'Freeway serves GET /v1/models (the models), GET /health (the providers\' health) and the APIs under /v1; its README describes them.';

/** Every fixed path Freeway serves, for the near miss of an unknown one. */
const servedPaths: ReadonlyArray<readonly [string, string]> = [...fixedPaths].map((path) => [path, path]);

/** The served path an unknown one is a few characters from (`/v1/chat/completion`), with or without its /v1. */
function nearPath(path: string): string | undefined {
  if (path.length > 64) return undefined;
  const lower = path.toLowerCase();
  const limit = maxDistance(lower.length);
  return nearest(lower, servedPaths, limit) ?? (lower.startsWith('/v1/') ? undefined : nearest(`/v1${lower}`, servedPaths, limit));
}

function routeHint(path: string): string {
  if (path.startsWith('/v1beta/')) return 'Freeway serves Gemini\'s API at POST /v1beta/models/{model}:<method> and GET /v1beta/models; docs/gemini.md describes it.';
  if (path.startsWith('/v1/v1beta/')) return 'Freeway serves Gemini\'s API under /v1beta at its root: set GOOGLE_GEMINI_BASE_URL (or the SDK\'s httpOptions.baseUrl) to http://<host>:<port>, without /v1.';
  const bare = path.startsWith('/v1/v1/') ? path.slice(6) : path;
  // A path of the APIs under /v1 sent without (or with a doubled) /v1.
  const known = routeOfPath(`/v1${bare}`)?.startsWith('/v1/') === true;
  if (!known) return didYouMeanText(nearPath(path)) || startHint;
  return `Freeway serves its API under /v1: use ${'/v1' + bare}${path.startsWith('/v1/v1/') ? '' : ' (set your client\'s base URL to http://<host>:<port>/v1)'}.`;
}

function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allow);
    throw freewayError('FREEWAY_METHOD_NOT_ALLOWED', { method: req.method, path: clip(req.path), allowed: allow });
  };
}

/** The stores, metrics, model knowledge, router and limits one app runs on. */
function createServices(deps: AppDeps) {
  const { config, catalog, logger } = deps;
  const providers = catalog.providers;
  const redact = createRedactor(providers);
  const readKeys = createKeyReader(providers);
  const hashKey = createKeyHasher(config.state.keyHashSecret);
  const stores = createStores(config, logger, healthPolicy, deps);
  // The "did you mean" index of model ids, built now rather than on the first unknown model.
  indexModels(catalog);
  const metrics = createMetrics();
  const healthStore = metrics.watchHealth(stores.healthStore);
  const latency = metrics.watchLatency(createLatencyTracker(undefined, config.state.healthMaxRecords));
  const upstreamFetch = deps.fetch ?? createUpstreamFetch();
  const knowledge = createModelKnowledge({
    config,
    catalog,
    store: stores.knowledgeStore,
    health: healthStore,
    fetch: upstreamFetch,
    now: deps.now ?? Date.now,
    listed: metrics.listed,
    quarantined: metrics.quarantined,
  });
  const sticky = config.sticky.mode ? { store: stores.stickyStore, ttlMs: config.sticky.ttlMs } : undefined;
  const usage = stores.usageStore && createUsageCounter({ store: stores.usageStore, warn: createThrottledWarn(logger), now: deps.now });
  // Requests held for a window or a slot (routing/waiting.ts), at most WAIT_QUEUE_MAX at once.
  const waitQueue = createWaitQueue(config.routing.waitQueueMax);
  metrics.watchHeld(waitQueue.held);
  const waiting = { queue: waitQueue, slots: stores.slotStore, maxWaitMs: config.routing.maxWaitMs, onWaited: metrics.waited };
  const router = createRouter({ config, health: healthStore, hashKey, latency, redact, random: deps.random, now: deps.now, knowledge, providers, sticky, usage, waiting });
  const conversations = config.sticky.mode ? createTextHasher(config.state.keyHashSecret) : undefined;
  const cache = createConfiguredCache({
    config,
    logger,
    warn: createThrottledWarn(logger),
    now: deps.now,
    // A hit is counted against the key and model that gave the answer: no attempt, no tokens.
    events: { looked: metrics.cacheLooked, evicted: metrics.cacheEvicted, hit: (by) => usage?.count(by.healthId, by.model, CACHE_HIT_EVENT) },
  });
  if (cache) metrics.watchCacheBytes(cache.bytes);
  const clientOf = (req: Request): string => clientIp(req, config.rateLimit.ipv6Subnet);
  const rateLimit = createRateLimit({ max: config.rateLimit.max, windowMs: config.rateLimit.windowMs, ipv6Subnet: config.rateLimit.ipv6Subnet, store: stores.rateLimitStore, onRefused: metrics.rateLimited });
  const shutdown = createShutdown();
  const readiness: Readiness = { phase: 'starting' };
  return { redact, readKeys, hashKey, stores, metrics, healthStore, upstreamFetch, knowledge, usage, router, clientOf, rateLimit, shutdown, readiness, conversations, waitQueue, cache };
}

type Services = ReturnType<typeof createServices>;

/**
 * Every client API, each one value built once from one options type; an API with a
 * model map of its own (Anthropic's, Gemini's) reads it before MODEL_MAP.
 */
function createClientApis({ config, catalog }: AppDeps) {
  const options = (ownMap: ClientApiOptions['modelMap']): ClientApiOptions => ({ catalog, modelMap: [...ownMap, ...config.api.modelMap], hostedTools: config.api.hostedTools });
  return {
    chat: chatApi(options([])),
    responses: responsesApi(options([])),
    messages: messagesApi(options(config.api.anthropicModelMap)),
    gemini: geminiApi(options(config.api.geminiModelMap)),
  };
}

/** The route handlers and body readers, on top of the services. */
function createHandlers(deps: AppDeps, { redact, readKeys, hashKey, upstreamFetch, knowledge, router, clientOf, shutdown, conversations, cache }: Services) {
  const { config, catalog } = deps;
  const completions = {
    catalog,
    readKeys,
    router,
    redact,
    models: createModelSource(config.providers.baseURLs, upstreamFetch, config.limits.responseMaxBytes),
    maxResponseBytes: config.limits.responseMaxBytes,
    clientStallTimeoutMs: config.timeouts.clientStallMs,
    shutdown: shutdown.gate,
    clientOf,
    conversations,
    cache,
    maxWaitMs: config.routing.maxWaitMs,
  };
  const apis = createClientApis(deps);
  const created = Math.floor(Date.now() / 1000);
  const keyModels = keyModelList({ catalog, readKeys, hashKey, knowledge, clientOf, created });
  const claudeModels = anthropicModels(catalog, created, keyModels);
  /** `GET /v1/models` serves OpenAI's shape, or Anthropic's to clients that send `anthropic-version`. */
  const byApi = (anthropic: RequestHandler, openai: RequestHandler): RequestHandler => (req, res, next) =>
    speaksAnthropic(req.headers) ? anthropic(req, res, next) : openai(req, res, next);

  // One budget for every route that takes a body; one reader for JSON bodies, one for audio uploads.
  const bodyBudget = createBodyBudget(config.limits.bodyBufferMaxBytes);
  const readBody = jsonBody({
    limitBytes: config.limits.body.bytes,
    limitText: config.limits.body.text,
    timeoutMs: config.timeouts.bodyMs,
    budget: bodyBudget,
  });
  const readAudio = multipartBody({
    fileField: 'file',
    maxFileBytes: config.limits.audio.bytes,
    maxFileText: config.limits.audio.text,
    maxFields: AUDIO_MAX_FIELDS,
    maxFieldBytes: AUDIO_MAX_FIELD_BYTES,
    timeoutMs: config.timeouts.bodyMs,
    budget: bodyBudget,
  });
  const embeddingDeps = {
    catalog,
    cache,
    readKeys,
    router,
    maxInputs: config.limits.embeddingsMaxInputs,
    shutdown: shutdown.gate,
    maxWaitMs: config.routing.maxWaitMs,
    clientOf,
    models: cachedModels(config.providers.baseURLs, upstreamFetch, config.limits.responseMaxBytes, (entry, options) => {
      if (!entry.provider.createEmbeddingModel) throw new Error(`${entry.provider.id} declares embedding models without createEmbeddingModel`);
      return entry.provider.createEmbeddingModel(options);
    }),
  };
  const embeddings = embeddingsRoute(embeddingDeps);
  // Gemini's routes: x-goog-api-key may carry the Google key, and Gemini's names go through GEMINI_MODEL_MAP first.
  const readGeminiKeys = createKeyReader(catalog.providers, { googApiKey: true });
  const gemini = geminiRoute({
    catalog,
    api: apis.gemini,
    completions: { ...completions, readKeys: readGeminiKeys },
    embeddings: { ...embeddingDeps, readKeys: readGeminiKeys },
  });
  const googleModels = geminiModels(catalog, apis.gemini.resolveModel, keyModelList({ catalog, readKeys: readGeminiKeys, hashKey, knowledge, clientOf, created }));
  const transcriptions = transcriptionsRoute({
    catalog,
    readKeys,
    router,
    shutdown: shutdown.gate,
    maxWaitMs: config.routing.maxWaitMs,
    models: cachedModels(config.providers.baseURLs, upstreamFetch, config.limits.responseMaxBytes, (entry, options) => {
      if (!entry.provider.createTranscriptionModel) throw new Error(`${entry.provider.id} declares transcription models without createTranscriptionModel`);
      return entry.provider.createTranscriptionModel(options);
    }),
  });

  return { completions, apis, keyModels, claudeModels, byApi, readBody, readAudio, embeddings, transcriptions, gemini, googleModels };
}

/** A maker of each handler of the route table, called once at start-up for the rows mounted. */
type RouteHandlers = Readonly<Record<Exclude<RouteHandlerName, ProbeHandlerName>, () => RequestHandler>>;

/** Every handler the route table names, on top of the services and the client APIs. */
function routeHandlers(deps: AppDeps, services: Services, handlers: ReturnType<typeof createHandlers>): RouteHandlers {
  const { config, catalog } = deps;
  const { metrics, readKeys, healthStore, hashKey, stores, upstreamFetch, redact, knowledge, usage, clientOf } = services;
  const { completions, apis, keyModels, claudeModels, byApi, embeddings, transcriptions, gemini, googleModels } = handlers;
  // The console's files are read only when CONSOLE=on mounts its rows.
  let consoleRead: ReturnType<typeof consoleHandlers> | undefined;
  const consoleFiles = (): ReturnType<typeof consoleHandlers> => (consoleRead ??= consoleHandlers());
  return {
    metrics: () => metricsEndpoint(deps.scrapeMetrics ?? (() => metrics.registry.metrics()), metrics.registry.contentType),
    health: () => health(readKeys, healthStore, hashKey, deps.now),
    providers: () =>
      providersApi({
        catalog,
        readKeys,
        health: healthStore,
        checks: stores.keyCheckStore,
        hashKey,
        baseURLs: config.providers.baseURLs,
        fetch: upstreamFetch,
        redact,
        usable: config.models.live ? liveUsable(catalog, knowledge) : curatedUsable(catalog),
        noCreditWaitMs: config.models.noCreditWaitMs,
        clientOf,
        intervalMs: config.keyChecks.intervalMs,
        perMinute: config.keyChecks.perMinute,
        timeoutMs: config.keyChecks.timeoutMs,
        usage,
        now: deps.now,
      }),
    'models.list': () => byApi(claudeModels.list, listModels(catalog, keyModels)),
    'models.retrieve': () => byApi(claudeModels.retrieve, retrieveModel(catalog, keyModels)),
    gemini: () => gemini,
    'gemini.models.list': () => googleModels.list,
    'gemini.models.get': () => googleModels.get,
    chat: () => completionRoute(apis.chat, completions),
    responses: () => completionRoute(apis.responses, completions),
    messages: () => completionRoute(apis.messages, completions),
    'messages.countTokens': () => tokenCountRoute(apis.messages, catalog),
    embeddings: () => embeddings,
    transcriptions: () => transcriptions,
    openapi: () => openApiRoute(documentedRoutes(routeTable)),
    'console.page': () => consoleFiles().page,
    'console.file': () => consoleFiles().file,
  };
}

/** What runs before a row's handler: its guard, Google's `?key=`, its body reader (AUDIO_MAX_BYTES, not BODY_LIMIT, bounds a multipart upload). */
function rowMiddleware(row: RouteRow, readers: { readonly json: RequestHandler; readonly multipart: RequestHandler }): RequestHandler[] {
  const chain: RequestHandler[] = [];
  // @google/genai 3.x calls Gemini's v1: its POSTs to /v1/models/{model}:{method}; anything else there goes on (to its 405).
  if (row.only === 'geminiV1') chain.push((req, _res, next) => next(isGeminiV1Call(req) ? undefined : 'route'));
  if (row.queryKey) chain.push(queryKeyAsHeader);
  if (row.body !== undefined) chain.push(readers[row.body]);
  return chain;
}

/** Every route of the route table this configuration serves, with its handlers, then the 405 of each path's other methods. */
function mountedRoutes(config: Config, handlers: RouteHandlers, readers: { readonly json: RequestHandler; readonly multipart: RequestHandler }): Pick<MountedApp, 'routes' | 'pathEnds'> {
  const rows = routeTable.filter(
    (row) => row.mount === undefined || (row.mount === 'metrics' && config.metrics.mode === 'main') || (row.mount === 'console' && config.server.console),
  );
  return {
    routes: rows.map((row) => ({ row, handlers: [...rowMiddleware(row, readers), handlers[row.handler as keyof RouteHandlers]()] })),
    pathEnds: methodsByPath(rows).map(({ path, allow }) => ({ path, handler: methodNotAllowed(allow) })),
  };
}

/** The middlewares of every request after the probes, in order, each under the prefixes it applies to. */
function middlewares(deps: AppDeps, services: Services): MountedMiddleware[] {
  const { config, logger } = deps;
  const { redact, readKeys, metrics, rateLimit } = services;
  // Paths in the log, and whatever a caller wrote that a span holds: keys and key-shaped text out.
  const redactPath = keyShapedRedactor(redact, readKeys);
  const api = apiPrefixes;
  return [
    { handler: requestId(redact) },
    { handler: requestLog(logger, redactPath) },
    { handler: metrics.middleware },
    // Only with tracing on: off, no request pays for a span.
    ...(deps.tracing ? [{ prefixes: api, handler: traceRequests(deps.tracing, redactPath) }] : []),
    {
      prefixes: api,
      handler: corsHeaders({
        origins: config.server.corsOrigins,
        methods: ['GET', 'POST', 'OPTIONS'],
        // No allowedHeaders: a preflight is allowed the headers it asks for (key
        // headers, and whatever a client SDK adds, such as the openai SDK's
        // x-stainless-*). No route reads cookies or credentials, so nothing is
        // gained by refusing a header, and the list stays right when SDKs change.
        exposedHeaders: ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'X-Freeway-Provider', 'X-Freeway-Model', 'X-Freeway-Attempts', 'X-Freeway-Dropped-Tools', 'X-Freeway-Waited', 'X-Freeway-Cache', 'Age', TRACE_ID_HEADER],
        maxAge: 600,
      }),
    },
    // Before the rate limit and the body reader, so that their errors too are in Anthropic's shape.
    { prefixes: [errorShapePrefixes.messages], handler: anthropicErrors() },
    { prefixes: [errorShapePrefixes.models], handler: anthropicErrors(speaksAnthropic) },
    // Google's envelope on Gemini's routes: all of /v1beta, and Gemini's POSTs under /v1/models.
    { prefixes: [errorShapePrefixes.gemini], handler: geminiErrors() },
    { prefixes: [errorShapePrefixes.models], handler: geminiErrors(isGeminiV1Call) },
    { prefixes: api, handler: rateLimit },
    {
      prefixes: api,
      handler: anonymousAccess({
        plugins: deps.catalog.providers,
        mode: config.anonymous.mode,
        perMinute: config.anonymous.perMinute,
        clientOf: services.clientOf,
        maxClients: config.rateLimit.maxClients,
      }),
    },
  ];
}

const unknownRoute: RequestHandler = (req) => {
  throw freewayError('FREEWAY_UNKNOWN_ROUTE', { method: req.method, path: clip(req.path), hint: routeHint(req.path) });
};

export function createApp(deps: AppDeps): FreewayApp {
  const { config, logger } = deps;
  const services = createServices(deps);
  const { redact, readKeys, stores, metrics, knowledge, usage, shutdown, readiness, waitQueue, cache } = services;
  const handlers = createHandlers(deps, services);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  leanJson(app);
  // req.ip / req.ips: the rate limit's client (http/rate-limit.ts).
  app.set('trust proxy', config.server.trustProxy);

  // Probes come first: cheap, never rate limited, not logged per call.
  probes(app, readiness, stores.redisReady, config.state.readyzRequireRedis);
  const mounted: MountedApp = {
    middlewares: middlewares(deps, services),
    ...mountedRoutes(config, routeHandlers(deps, services, handlers), { json: handlers.readBody, multipart: handlers.readAudio }),
    unknownRoute,
    errorHandler: errorHandler({
      logger,
      redact,
      readKeys,
      keyHeaders: deps.catalog.providers.map((plugin) => plugin.header),
      keylessHint: keylessHint({ plugins: deps.catalog.providers, mode: config.anonymous.mode }),
    }),
  };
  mountOnExpress(app, mounted);

  const warnOfDrops = createThrottledWarn(logger);
  return {
    app,
    listener: routeChains(app, mounted),
    stopWaiting: waitQueue.close,
    async close(flushWithinMs = config.timeouts.shutdownMs) {
      waitQueue.close();
      knowledge.close();
      await usage?.close();
      await cache?.close();
      await stores.close();
      await deps.tracing?.shutdown(flushWithinMs);
    },
    interrupt: shutdown.interrupt,
    metrics: metrics.registry,
    readiness,
    connectionDropped() {
      metrics.connectionDropped();
      warnOfDrops('connections', `MAX_CONNECTIONS (${config.limits.maxConnections}) connections are open: new connections are closed as they arrive`);
    },
  };
}
