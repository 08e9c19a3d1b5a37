// Every setting of Freeway, once: its environment variable, how it is read, its default and
// its documentation. Where a setting sits here is where it sits in `Config` (config.limits.body,
// config.timeouts.requestMs, ...). `freeway --help` and docs/configuration.md are made from
// this table (`npm run docs:config`); a test fails when the doc is stale.
import {
  baseURL,
  choice,
  contentCapture,
  custom,
  decimal,
  DEFAULT_TRUST_PROXY,
  flag,
  host,
  integer,
  ipv6Subnet,
  modelMap,
  optionalInteger,
  redisUrl,
  type Setting,
  size,
  sizeWithText,
  shown,
  trustProxy,
  workerCount,
} from './parse.ts';

/** How an alias orders the candidates of one tier (ROUTING). */
export const routingStrategies = ['quality', 'latency', 'priority'] as const;
export type RoutingStrategy = (typeof routingStrategies)[number];

export const settings = {
  server: {
    host: host({ env: 'HOST', default: '0.0.0.0', doc: 'Listen address: an IP address or a host name (`--host`)' }),
    port: integer({ env: 'PORT', default: 3000, min: 0, max: 65_535, doc: 'Listen port (`--port`)' }),
    workers: custom({
      env: 'WORKERS',
      default: '1',
      accepts: '`auto` or integer >= 1',
      doc: 'Processes serving requests on this machine; `auto` is one per core ([docs/scaling.md](scaling.md))',
      parse: workerCount,
    }),
    trustProxy: custom({
      env: 'TRUST_PROXY',
      default: DEFAULT_TRUST_PROXY,
      accepts: '`true`, `false`, a hop count, or addresses, subnets and names',
      doc: "Which peers' `X-Forwarded-For` / `X-Real-IP` are believed, as Express's `trust proxy`: `true`, `false`, a hop count, or comma-separated addresses, CIDR subnets and `loopback`, `linklocal`, `uniquelocal` (see [Client addresses](#client-addresses))",
      parse: trustProxy,
    }),
    corsOrigins: custom<'*' | readonly string[]>({
      env: 'CORS_ORIGINS',
      default: '*',
      accepts: '`*` or comma-separated origins',
      doc: "Allowed origins for `/v1/*`. Preflights are allowed the request headers they ask for (the key headers, the SDKs' `x-stainless-*`, Anthropic's `anthropic-*` and `x-api-key`); no credentials; `Retry-After`, `RateLimit`, `RateLimit-Policy`, `Age` and `X-Freeway-*` are exposed. Only requests with an `Origin` (browsers) get CORS headers",
      parse(raw) {
        const origins = raw.split(',').map((origin) => origin.trim()).filter(Boolean);
        return origins.length === 0 || origins.includes('*') ? '*' : origins;
      },
    }),
    console: flag({ env: 'CONSOLE', default: 'on', words: ['on', 'off'], doc: '`off` removes the web console at `/` ([docs/console.md](console.md))' }),
  },
  limits: {
    body: sizeWithText({ env: 'BODY_LIMIT', default: '20mb', positive: false, doc: 'Largest request body' }),
    bodyBufferMaxBytes: size({
      env: 'BODY_BUFFER_MAX',
      default: '256mb',
      positive: false,
      doc: 'Request body bytes held in memory at once, across all requests (at least `BODY_LIMIT`, and 5 × `AUDIO_MAX_BYTES`: an audio file counts five times, for the copies made while it is sent on); a body that does not fit is a 503 with `Retry-After`',
    }),
    audio: sizeWithText({
      env: 'AUDIO_MAX_BYTES',
      default: '25mb',
      shownDefault: '`25mb`, at most a fifth of `BODY_BUFFER_MAX`',
      positive: true,
      doc: 'Largest audio file of one `/v1/audio/transcriptions` request; on that route it takes the place of `BODY_LIMIT`',
    }),
    embeddingsMaxInputs: integer({ env: 'EMBEDDINGS_MAX_INPUTS', default: 2048, min: 1, max: 100_000, doc: 'Most inputs in one `/v1/embeddings` request' }),
    responseMaxBytes: size({
      env: 'MAX_RESPONSE_BYTES',
      default: '16mb',
      positive: true,
      doc: 'Largest answer collected for a non-streaming request; beyond it the attempt fails',
    }),
    maxConnections: integer({
      env: 'MAX_CONNECTIONS',
      default: 10_000,
      min: 1,
      doc: 'Connections one process keeps open at once (each worker, with `WORKERS`); past it each new connection is closed as it arrives, counted in `freeway_connections_dropped_total` and logged as a warning at most every 10 s',
    }),
  },
  timeouts: {
    bodyMs: integer({
      env: 'BODY_TIMEOUT_MS',
      default: 30_000,
      min: 1,
      doc: 'Time to receive a whole request body, from the end of its headers; past it the answer is a 408 and the connection closes',
    }),
    requestMs: integer({ env: 'REQUEST_TIMEOUT_MS', default: 120_000, min: 1, doc: 'All attempts of one request together' }),
    firstTokenMs: integer({ env: 'FIRST_TOKEN_TIMEOUT_MS', default: 15_000, min: 1, doc: "One attempt's wait for its first output" }),
    streamIdleMs: integer({ env: 'STREAM_IDLE_TIMEOUT_MS', default: 30_000, min: 1, doc: 'Silence that ends a started stream' }),
    streamMaxDurationMs: integer({
      env: 'STREAM_MAX_DURATION_MS',
      default: 600_000,
      min: 1,
      doc: "Longest a stream may last, from the request's arrival; then it ends with an error event",
    }),
    clientStallMs: integer({
      env: 'CLIENT_STALL_TIMEOUT_MS',
      default: 60_000,
      min: 1,
      doc: 'A streaming caller that takes nothing for this long is disconnected (logged as 499)',
    }),
    shutdownMs: integer({
      env: 'SHUTDOWN_TIMEOUT_MS',
      default: 10_000,
      min: 0,
      doc: 'How long SIGTERM/SIGINT wait for in-flight requests; those still running then get a 503 `server_error` (`Freeway is shutting down. Send the request again.`), or that error as an event once their stream has started, and a warn log line',
    }),
  },
  rateLimit: {
    max: integer({
      env: 'RATE_LIMIT_MAX',
      default: 100,
      min: 1,
      doc: 'Requests per window per client, on `/v1/*` (`/health`, `/livez`, `/readyz` and the console\'s files are exempt)',
    }),
    windowMs: integer({ env: 'RATE_LIMIT_WINDOW_MS', default: 60_000, min: 1, doc: 'Sliding window length' }),
    maxClients: integer({
      env: 'RATE_LIMIT_MAX_CLIENTS',
      default: 100_000,
      min: 1,
      doc: "Clients whose windows are kept (in memory, in the cluster primary or in Redis); past it the least recently seen client's window is dropped",
    }),
    ipv6Subnet: custom({
      env: 'RATE_LIMIT_IPV6_SUBNET',
      default: '56',
      accepts: 'prefix length 32 to 64, or 128',
      doc: 'IPv6 clients are counted by their network prefix of this many bits, since one subscriber holds a whole /64 or more; `128` counts each IPv6 address apart. IPv4 and IPv4-mapped IPv6 addresses are counted by address (see [Client addresses](#client-addresses))',
      parse: ipv6Subnet,
    }),
  },
  routing: {
    strategy: custom<RoutingStrategy>({
      env: 'ROUTING',
      default: 'quality',
      emptyIsValue: true,
      accepts: '`quality`, `latency` or `priority`',
      doc: "How an alias orders the candidates of one tier: `quality` tries the free tier's strongest models first (by their benchmark score, the quickest first among scores within `ROUTING_QUALITY_BAND`; `free:fast` by speed), `latency` the shortest observed time to first token, `priority` the plugins' priority; a request may choose with `X-Freeway-Routing` ([docs/routing.md](routing.md#how-a-model-is-chosen))",
      parse(raw) {
        const strategy = routingStrategies.find((name) => name === raw);
        if (strategy === undefined) throw new Error(`ROUTING must be quality, latency or priority, got ${shown(raw)}`);
        return strategy;
      },
    }),
    qualityBand: decimal({
      env: 'ROUTING_QUALITY_BAND',
      default: 3,
      min: 0,
      max: 100,
      doc: 'Under `quality`, models whose scores lie within this many points of the benchmark (Artificial Analysis Intelligence Index) of each other are ordered among themselves by observed speed; `0` keeps strict score order',
    }),
    fitMargin: decimal({
      env: 'FIT_MARGIN',
      default: 0.2,
      min: 0,
      max: 10,
      doc: "A candidate is skipped for a request's size only when the estimate of its input exceeds the model's context window or per-request token limit by more than this share (`0.2`: more than 1.2 x the limit), so the estimate never blocks a request that would have fit",
    }),
    learnedLimitMs: integer({
      env: 'LEARNED_LIMIT_MS',
      default: 86_400_000,
      min: 1,
      doc: "How long a per-request token limit learnt for a key and model (from a provider's 413 or its rate-limit headers) is kept",
    }),
    exploreShare: decimal({
      env: 'ROUTING_EXPLORE_SHARE',
      default: 0.05,
      min: 0,
      max: 1,
      doc: 'Share of alias requests that explore a candidate other than the fastest',
    }),
    maxAttempts: integer({ env: 'MAX_ATTEMPTS', default: 5, min: 1, doc: 'Candidates tried per request (candidates skipped for their size do not count)' }),
    maxWaitMs: integer({
      env: 'MAX_WAIT_MS',
      default: 20_000,
      min: 0,
      max: 120_000,
      doc: "How long a request may be held for a key's rate-limit window or concurrency slot when every candidate is resting for a known, short time; a request may ask for less with `X-Freeway-Max-Wait` (seconds); `0` turns waiting off ([docs/routing.md](routing.md#waiting-for-a-window))",
    }),
    waitQueueMax: integer({
      env: 'WAIT_QUEUE_MAX',
      default: 256,
      min: 0,
      doc: 'Requests one process holds at once while they wait for a window or a slot; past it a request is answered at once, as if waiting were off',
    }),
  },
  sticky: {
    mode: flag({ env: 'STICKY', default: 'on', words: ['on', 'off'], doc: "`on`: a conversation's turns through an alias go first to the model that answered its last turn ([docs/routing.md](routing.md#one-model-per-conversation)); `off`: every turn is routed afresh" }),
    ttlMs: integer({ env: 'STICKY_TTL_MS', default: 1_800_000, min: 1, doc: 'How long a conversation keeps its model after its last answer' }),
    maxEntries: integer({
      env: 'STICKY_MAX_ENTRIES',
      default: 100_000,
      min: 1,
      doc: 'Conversations whose model a process (or the cluster primary, or Redis) keeps; past it the least recently used is dropped, and that conversation is routed as usual',
    }),
  },
  state: {
    redisUrl: custom<string | undefined>({
      env: 'REDIS_URL',
      default: undefined,
      accepts: '`redis://` or `rediss://` URL',
      doc: 'Redis that shares rate limits, health and model lists between workers and instances; in memory (or the cluster primary) when unset',
      parse: redisUrl,
    }),
    keyHashSecret: custom<string | undefined>({
      env: 'KEY_HASH_SECRET',
      default: undefined,
      shownDefault: 'random per process',
      accepts: 'text, 16+ characters with `REDIS_URL`',
      doc: 'Secret for the HMAC that keys health records and model lists; required with `REDIS_URL` (16+ characters, the same on every instance)',
      parse: (raw) => raw,
    }),
    healthMaxRecords: integer({
      env: 'HEALTH_MAX_RECORDS',
      default: 100_000,
      min: 1,
      doc: 'Provider keys whose health and round-robin turn a process (or the cluster primary) keeps in memory; past it the least recently written record goes, and that key is tried again like a new one. With `REDIS_URL` records expire in Redis instead (give Redis a `maxmemory` with `volatile-lru`). Also the most time-to-first-token estimates and learnt per-request token limits (each per key and model) a process keeps',
    }),
    readyzRequireRedis: flag({
      env: 'READYZ_REQUIRE_REDIS',
      default: 'false',
      words: ['true', 'false'],
      doc: '`true`: `/readyz` is a 503, not a 200 `degraded`, while Redis is unreachable',
    }),
  },
  models: {
    live: flag({ env: 'MODELS_LIVE', default: 'on', words: ['on', 'off'], doc: '`off`: never list models; the curated lists serve ([docs/models.md](models.md))' }),
    refreshMs: integer({ env: 'MODELS_REFRESH_MS', default: 3_600_000, min: 1_000, doc: "A key's list is refreshed after this long; the old one serves meanwhile" }),
    firstWaitMs: integer({ env: 'MODELS_FIRST_WAIT_MS', default: 1_500, min: 0, max: 60_000, doc: "The most a request waits for a key's first list" }),
    listingTimeoutMs: integer({ env: 'MODELS_LISTING_TIMEOUT_MS', default: 5_000, min: 1, max: 60_000, doc: 'One listing page, request to last byte' }),
    listingMaxBytes: size({ env: 'MODELS_LISTING_MAX_BYTES', default: '4mb', positive: true, doc: "One listing page's body" }),
    listingMaxPages: integer({ env: 'MODELS_LISTING_MAX_PAGES', default: 10, min: 1, max: 100, doc: 'Pages of one listing' }),
    listingsPerMinute: integer({ env: 'LISTINGS_PER_MINUTE', default: 30, min: 0, doc: 'Listings one client may start a minute, per process; past it the cached or curated lists serve' }),
    maxKeys: integer({ env: 'MODELS_MAX_KEYS', default: 10_000, min: 1, doc: 'Keys whose lists and quarantines a process (or the cluster primary) keeps in memory' }),
    maxBytes: size({ env: 'MODELS_MAX_BYTES', default: '64mb', positive: true, doc: 'Bytes of lists kept in memory' }),
    quarantineMs: integer({ env: 'MODEL_QUARANTINE_MS', default: 21_600_000, min: 0, doc: 'How long a model that answered "not found" is skipped for the key; `0` quarantines nothing' }),
    noCreditWaitMs: integer({ env: 'NO_CREDIT_WAIT_MS', default: 86_400_000, min: 1, doc: 'How long a key whose provider said it has no credit left is skipped' }),
  },
  api: {
    anthropicModelMap: custom({
      env: 'ANTHROPIC_MODEL_MAP',
      default: '*haiku*=free:fast,claude-*=free:tool-use',
      emptyIsValue: true,
      accepts: 'comma-separated `glob=target` pairs',
      doc: 'Messages API model names (Claude\'s) -> catalog ids or aliases, first match wins; `*` matches any run of characters, `?` one',
      parse: modelMap('ANTHROPIC_MODEL_MAP', 'claude-*=free:tool-use'),
    }),
    geminiModelMap: custom({
      env: 'GEMINI_MODEL_MAP',
      default: 'gemini-*-flash-lite*=free:fast,gemini-*-pro*=free:reasoning,gemini-*-flash*=free:auto',
      emptyIsValue: true,
      accepts: 'comma-separated `glob=target` pairs',
      doc: "Gemini API model names (the `gemini-3.8-flash`, `gemini-3.1-pro-preview`, ... that Gemini CLI asks for) -> catalog ids or aliases, first match wins, read before `MODEL_MAP` on the Gemini routes; `gemini-3.8-flash=google/gemini-3.8-flash` sends a name to Google's own model ([docs/gemini.md](gemini.md))",
      parse: modelMap('GEMINI_MODEL_MAP', 'gemini-*-flash*=free:auto'),
    }),
    modelMap: custom({
      env: 'MODEL_MAP',
      default: '',
      shownDefault: 'unset',
      accepts: 'comma-separated `glob=target` pairs',
      doc: "Model names of every API (OpenAI's `gpt-4o`, `o3`, ...) -> catalog ids, same syntax; on `/v1/messages` after `ANTHROPIC_MODEL_MAP`, on the Gemini routes after `GEMINI_MODEL_MAP` ([docs/clients.md](clients.md))",
      parse: modelMap('MODEL_MAP', 'gpt-4o*=free:tool-use'),
    }),
    hostedTools: choice({
      env: 'HOSTED_TOOLS',
      default: 'drop',
      choices: ['drop', 'reject'],
      doc: "Hosted tools (the Responses API's `web_search`, `mcp`, ...; Gemini's `googleSearch`, `urlContext`, `codeExecution`, ...): `drop` leaves them out and names them in `X-Freeway-Dropped-Tools`, `reject` answers 400",
    }),
  },
  keyChecks: {
    intervalMs: integer({
      env: 'KEY_CHECK_INTERVAL_MS',
      default: 60_000,
      min: 1_000,
      doc: '`/v1/providers?check=1` checks one key at most this often; in between the last answer is shown',
    }),
    perMinute: integer({ env: 'KEY_CHECKS_PER_MINUTE', default: 30, min: 1, doc: 'Key checks one client may cause per minute' }),
    timeoutMs: integer({ env: 'KEY_CHECK_TIMEOUT_MS', default: 10_000, min: 1, doc: 'All key checks of one request together' }),
  },
  anonymous: {
    mode: choice({
      env: 'ANONYMOUS',
      default: 'local',
      choices: ['off', 'local', 'on'],
      doc: "Who may ask for calls without a key (`X-Freeway-Keyless: on`, or `X-<Provider>-Key: anonymous` for one provider that documents them), which spend this instance's address's allowance: `local` callers on loopback and private addresses (as `TRUST_PROXY` resolves them), `on` anyone, `off` nobody; others get a 403 ([docs/keys.md](keys.md#calls-without-a-key))",
    }),
    perMinute: integer({
      env: 'ANONYMOUS_PER_MINUTE',
      // An agent makes several requests a prompt (a title, each tool round trip): 20 lets one run, while
      // one caller still cannot take every keyless provider's allowance for the address (Kilo's 200 an hour).
      default: 20,
      min: 1,
      doc: "Requests without a key that may call a provider (chat, Responses, Messages, Gemini, embeddings, transcription) one client may make a minute (in this process), so that one caller cannot spend the address's allowance for everyone; past it a 429. Listings, `/v1/providers` and token counts never count. The default lets one coding agent run without a key",
    }),
  },
  usage: {
    mode: flag({
      env: 'USAGE',
      default: 'on',
      words: ['on', 'off'],
      doc: "`off`: count no usage per key; `GET /v1/providers` and the console show none ([docs/console.md](console.md#usage-per-key))",
    }),
    maxRecords: integer({
      env: 'USAGE_MAX_RECORDS',
      default: 100_000,
      min: 1,
      doc: "Usage records (one key's use of one model on one UTC day) a process (or the cluster primary) keeps in memory; past it the least recently written goes. With `REDIS_URL`, Redis keeps at most this many keys' days (each holding its models), the least recently written going first, and each expires when it is seven days old",
    }),
  },
  cache: {
    mode: choice({
      env: 'CACHE',
      default: 'off',
      choices: ['off', 'memory', 'redis'],
      doc: "Answers kept for repeated requests, readable only with the same keys ([docs/caching.md](caching.md)): `off`, `memory` (each process its own), or `redis` (`REDIS_URL`, shared by every instance; this process's memory while Redis is unset or does not answer)",
    }),
    ttlMs: integer({ env: 'CACHE_TTL_MS', default: 3_600_000, min: 1, doc: 'How long a kept answer is served, from when it was stored' }),
    maxBytes: size({
      env: 'CACHE_MAX_BYTES',
      default: '64mb',
      positive: true,
      doc: "Kept answers' bytes (ciphertext and ids) one process holds with `CACHE=memory`, and Redis holds with `CACHE=redis`; past it the least recently used answers go. An answer larger than a sixteenth of it is not kept",
    }),
  },
  logging: {
    level: choice({ env: 'LOG_LEVEL', default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], doc: 'Least severe level logged' }),
    format: choice({ env: 'LOG_FORMAT', default: 'json', choices: ['json', 'pretty'], doc: '`json` (one object per line) or `pretty` (pino-pretty, for a terminal)' }),
  },
  metrics: {
    mode: flag({ env: 'METRICS', default: 'on', words: ['on', 'off'], doc: '`off` removes `GET /metrics`; `on` serves it on the main port, or on `METRICS_PORT` when set' }),
    port: optionalInteger({
      env: 'METRICS_PORT',
      min: 1,
      max: 65_535,
      shownDefault: 'unset',
      doc: 'Serve `/metrics` on a listener of its own on this port (not `PORT`) instead of the main one',
    }),
    host: host({ env: 'METRICS_HOST', default: '127.0.0.1', doc: 'Address of the `METRICS_PORT` listener (needs `METRICS_PORT`)' }),
  },
  tracing: {
    exporter: choice({
      env: 'OTEL_TRACES_EXPORTER',
      default: 'none',
      choices: ['none', 'otlp'],
      doc: '`otlp` sends OpenTelemetry traces (one span per request, one per upstream attempt) over OTLP/HTTP; `none` sends none and costs nothing ([docs/operations.md](operations.md#traces))',
    }),
    endpoint: custom<string | undefined>({
      env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      default: undefined,
      shownDefault: '`http://localhost:4318`',
      accepts: '`http://` or `https://` URL',
      doc: 'The OTLP/HTTP collector; traces go to its `/v1/traces` (read with `OTEL_TRACES_EXPORTER=otlp`)',
      parse: (raw) => baseURL('OTEL_EXPORTER_OTLP_ENDPOINT', raw),
    }),
    tracesEndpoint: custom<string | undefined>({
      env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      default: undefined,
      shownDefault: 'unset',
      accepts: '`http://` or `https://` URL',
      doc: 'The whole URL traces are sent to, in place of `OTEL_EXPORTER_OTLP_ENDPOINT` and `/v1/traces`',
      parse: (raw) => baseURL('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', raw),
    }),
    protocol: choice({
      env: 'OTEL_EXPORTER_OTLP_PROTOCOL',
      default: 'http/protobuf',
      choices: ['http/protobuf', 'http/json'],
      doc: 'How spans are encoded on the way to the collector (`grpc` is not offered: every collector, Jaeger and Tempo take OTLP/HTTP)',
    }),
    serviceName: custom({
      env: 'OTEL_SERVICE_NAME',
      default: 'freeway',
      accepts: 'text',
      doc: 'The `service.name` of every span',
      parse: (raw) => raw.trim() || 'freeway',
    }),
    captureContent: custom({
      env: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
      default: 'false',
      accepts: '`true`, `false`, `span_only`, `span_and_event`, `event_only`, `no_content`',
      doc: '`true`, `span_only` or `span_and_event`: the prompt and the answer are recorded on the request span (`gen_ai.input.messages`, `gen_ai.output.messages`), keys and key-shaped text redacted; otherwise never (Freeway records no events)',
      parse: contentCapture,
    }),
    attributeMaxLength: integer({
      env: 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
      default: 16_384,
      min: 32,
      doc: 'Longest text attribute of a span (a recorded prompt or answer is cut there)',
    }),
    queueMaxSpans: integer({
      env: 'OTEL_BSP_MAX_QUEUE_SIZE',
      default: 2048,
      min: 1,
      doc: 'Ended spans waiting to be sent, per process; past it new spans are dropped until the collector catches up',
    }),
    scheduleDelayMs: integer({
      env: 'OTEL_BSP_SCHEDULE_DELAY',
      default: 5000,
      min: 1,
      doc: 'The longest an ended span waits before it is sent (in batches of up to 512)',
    }),
  },
};

/** What each group of the table is about, for --help and docs/configuration.md. */
export const groupTitles: Readonly<Record<keyof typeof settings, string>> = {
  server: 'Listening',
  limits: 'Limits',
  timeouts: 'Timeouts',
  rateLimit: 'Rate limit',
  routing: 'Routing',
  sticky: 'One model per conversation',
  state: 'Shared state',
  models: 'Live model lists',
  api: 'APIs',
  keyChecks: 'Key checks',
  anonymous: 'Calls without a key',
  usage: 'Usage per key',
  cache: 'Response cache',
  logging: 'Logging',
  metrics: 'Metrics',
  tracing: 'Traces (OpenTelemetry)',
};

/** Settings named after each provider plugin, read apart from the table. */
export const perProviderSettings = [
  {
    env: '<ID>_BASE_URL',
    shownDefault: "the plugin's",
    path: 'providers.baseURLs',
    accepts: '`http://` or `https://` URL',
    doc: 'Upstream base URL of one provider (`GROQ_BASE_URL`, ...); the start-up line names the overridden ones',
  },
] as const;

export function isSetting(value: unknown): value is Setting<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { env?: unknown }).env === 'string' && typeof (value as { parse?: unknown }).parse === 'function';
}

/** Every setting of the table with the group path it sits at, in table order. */
export function* eachSetting(group: object = settings, path: readonly string[] = []): Generator<{ readonly path: readonly string[]; readonly setting: Setting<unknown> }> {
  for (const [name, entry] of Object.entries(group)) {
    if (isSetting(entry)) yield { path: [...path, name], setting: entry };
    else yield* eachSetting(entry as object, [...path, name]);
  }
}
