import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import express from 'express';
import { aliasIds } from '../catalog/catalog.ts';
import type { ProviderPlugin } from '../providers/types.ts';

/** One `glob=target` pair of `ANTHROPIC_MODEL_MAP` or `MODEL_MAP`, its glob compiled once. */
export interface ModelMapping {
  readonly glob: string;
  readonly pattern: RegExp;
  /** A catalog id or alias. */
  readonly target: string;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly rateLimitMax: number;
  readonly rateLimitWindowMs: number;
  /** Most clients whose rate-limit windows are kept; the least recently seen goes first. */
  readonly rateLimitMaxClients: number;
  /** IPv6 clients are counted by their network prefix of this many bits (32 to 64), or by address (128). */
  readonly rateLimitIpv6Subnet: number;
  /** Most provider keys whose health (and round-robin turn) is kept in memory; the least recently written goes first. */
  readonly healthMaxRecords: number;
  /** Express's `trust proxy`: which peers' X-Forwarded-For / X-Real-IP are believed. */
  readonly trustProxy: TrustProxy;
  /** `'*'` or the list of allowed origins. */
  readonly corsOrigins: '*' | readonly string[];
  /** As `BODY_LIMIT` was written (`20mb`), for messages. */
  readonly bodyLimit: string;
  readonly bodyLimitBytes: number;
  /** The whole request body, from the end of the headers. */
  readonly bodyTimeoutMs: number;
  /** Connections one process keeps open at once (MAX_CONNECTIONS); Node closes any further one as it arrives. */
  readonly maxConnections: number;
  /** Request body bytes held in memory at once, across all requests. */
  readonly bodyBufferMaxBytes: number;
  /** The most inputs of one `/v1/embeddings` request (EMBEDDINGS_MAX_INPUTS). */
  readonly embeddingsMaxInputs: number;
  /** The largest audio file of one `/v1/audio/transcriptions` request (AUDIO_MAX_BYTES); that route's body limit. */
  readonly audioMaxBytes: number;
  /** As AUDIO_MAX_BYTES was written (`25mb`), for messages. */
  readonly audioMaxText: string;
  readonly shutdownTimeoutMs: number;
  /** Whole request, all attempts together. */
  readonly requestTimeoutMs: number;
  /** One attempt that has produced nothing yet. */
  readonly firstTokenTimeoutMs: number;
  /** A started stream that goes silent. */
  readonly streamIdleTimeoutMs: number;
  /** A stream, from the request's arrival to its last event. */
  readonly streamMaxDurationMs: number;
  /** A caller that reads nothing of its stream for this long is disconnected. */
  readonly clientStallTimeoutMs: number;
  /** The most answer (UTF-8 bytes) collected for a caller that did not ask to stream. */
  readonly maxResponseBytes: number;
  readonly maxAttempts: number;
  /** `latency` prefers the faster providers by observed time to first token; `priority` keeps plugin priority. */
  readonly routing: 'latency' | 'priority';
  /** Share of alias requests (0..1) that explore a candidate other than the fastest. */
  readonly exploreShare: number;
  /** Provider id -> upstream base URL, defaults overridden by `<ID>_BASE_URL`. */
  readonly baseURLs: ReadonlyMap<string, string>;
  /** The `<ID>_BASE_URL` overrides as `NAME=url` (without any credentials), for the start-up line. */
  readonly baseURLOverrides: readonly string[];
  /** HMAC secret for the hashes that key provider health. */
  readonly keyHashSecret: string;
  /** Processes serving HTTP: 1 runs in this process; more run under node:cluster. */
  readonly workers: number;
  /** Where rate-limit windows and provider health are shared; in memory when absent. */
  readonly redisUrl: string | undefined;
  readonly logLevel: LogLevel;
  /** `json`, one object per line (the default), or `pretty` for a terminal. */
  readonly logFormat: 'json' | 'pretty';
  /** Where `GET /metrics` is served: off, on the main listener, or on a listener of its own. */
  readonly metrics: MetricsConfig;
  /** Messages API model names (Claude's) -> catalog ids, first match wins. */
  readonly anthropicModelMap: readonly ModelMapping[];
  /** Model names of any API (OpenAI's, say) -> catalog ids, first match wins; on the Messages API after ANTHROPIC_MODEL_MAP. Empty unless set. */
  readonly modelMap: readonly ModelMapping[];
  /** What a Responses request's hosted tools (`web_search`, `mcp`, ...) meet: left out of the upstream call and named in X-Freeway-Dropped-Tools, or a 400. */
  readonly hostedTools: 'drop' | 'reject';
  /** `GET /v1/providers?check=1` calls a provider about one key at most this often; in between, its last answer is shown. */
  readonly keyCheckIntervalMs: number;
  /** Key checks one client (as the rate limit counts clients) may cause per minute. */
  readonly keyChecksPerMinute: number;
  /** All key checks of one request together. */
  readonly keyCheckTimeoutMs: number;
  /** `/readyz` answers 503 (not 200 `degraded`) while Redis is unreachable. */
  readonly readyzRequireRedis: boolean;
  /** Whether `GET /` serves the web console. */
  readonly console: boolean;
  /** What Freeway learns of the models each key can use (docs/models.md). */
  readonly models: ModelsConfig;
}

/** Live model lists, model quarantine and keys without credit (MODELS_*, LISTINGS_*, MODEL_QUARANTINE_MS, NO_CREDIT_WAIT_MS). */
export interface ModelsConfig {
  /** MODELS_LIVE: ask providers which models a key can use. */
  readonly live: boolean;
  /** A key's list is asked again after this long; the old one serves meanwhile. */
  readonly refreshMs: number;
  /** The most a request waits for a key's first listing before it is routed on what is known. */
  readonly firstWaitMs: number;
  /** One listing call (one page), start to end. */
  readonly listingTimeoutMs: number;
  /** The most bytes of one listing page. */
  readonly listingMaxBytes: number;
  /** The most pages of one listing. */
  readonly listingMaxPages: number;
  /** Listings one client may start per minute; past it the cached or curated list serves. */
  readonly listingsPerMinute: number;
  /** The most keys whose lists (and model quarantines) are kept in memory. */
  readonly maxKeys: number;
  /** The most bytes of lists kept in memory. */
  readonly maxBytes: number;
  /** A model that answered "not found" is skipped for the key this long; 0: never. */
  readonly quarantineMs: number;
  /** A key whose provider said it has no credit left is skipped this long. */
  readonly noCreditWaitMs: number;
}

/** As Express takes it: trust every hop (true), none (false), a hop count, or addresses, subnets and names. */
export type TrustProxy = boolean | number | string;

/** A reverse proxy on the same host or a private network is believed; anyone on the internet is not. */
export const DEFAULT_TRUST_PROXY = 'loopback, linklocal, uniquelocal';

function trustProxy(raw: string | undefined): TrustProxy {
  const text = (raw ?? '').trim();
  if (text === '') return DEFAULT_TRUST_PROXY;
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  try {
    // Express compiles the value with proxy-addr, which throws on what it does not understand.
    express().set('trust proxy', text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal (${why})`);
  }
  return text;
}

/** express-rate-limit's default: a subscriber often holds a /56, at least a /64. */
export const DEFAULT_IPV6_SUBNET = 56;

function ipv6Subnet(raw: string | undefined): number {
  const text = (raw ?? '').trim();
  if (text === '') return DEFAULT_IPV6_SUBNET;
  const bits = Number(text);
  if (!/^\d+$/.test(text) || !((bits >= 32 && bits <= 64) || bits === 128)) {
    throw new Error(`RATE_LIMIT_IPV6_SUBNET must be a prefix length from 32 to 64, or 128 to count each IPv6 address apart, got ${shown(raw ?? '')}`);
  }
  return bits;
}

export type MetricsConfig =
  | { readonly mode: 'off' }
  | { readonly mode: 'main' }
  | { readonly mode: 'separate'; readonly host: string; readonly port: number };

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

type Env = Readonly<Record<string, string | undefined>>;

/** A setting's value as it may appear in a message: bounded, on one line. */
function shown(raw: string): string {
  const line = raw.replace(/[\x00-\x1f\x7f]/g, '?');
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}...` : line);
}

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new Error(`${name} must be an integer ${range}, got ${shown(raw)}`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${choices.join(', ')}, got ${shown(raw)}`);
  return raw as T;
}

// A name Node can listen on: an IP address or a DNS name. Whether the name resolves is
// found out by listening, which start-up reports in the same one-line form.
const hostName = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function host(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (isIP(raw) === 0 && !hostName.test(raw)) throw new Error(`${name} must be an IP address or a host name, got ${shown(raw)}`);
  return raw;
}

/** A provider's upstream base URL: http or https, no trailing slash. */
function baseURL(name: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`${name} must be an http:// or https:// URL, got ${url?.password ? 'a URL with a password' : shown(raw)}`);
  }
  return raw.replace(/\/+$/, '');
}

function metricsConfig(env: Env, mainPort: number): MetricsConfig {
  const enabled = oneOf(env, 'METRICS', ['on', 'off'], 'on');
  const port = env.METRICS_PORT;
  if (enabled === 'off') return { mode: 'off' };
  if (port === undefined || port === '') {
    if (env.METRICS_HOST) throw new Error('METRICS_HOST needs METRICS_PORT: without it /metrics is served on the main port');
    return { mode: 'main' };
  }
  const metricsPort = integer(env, 'METRICS_PORT', 0, 1, 65_535);
  if (metricsPort === mainPort) throw new Error(`METRICS_PORT must differ from PORT (${mainPort}); leave it unset to serve /metrics on the main port`);
  return { mode: 'separate', host: host(env, 'METRICS_HOST', '127.0.0.1'), port: metricsPort };
}

const sizeUnits: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseSize(name: string, raw: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(raw.trim());
  if (!match) throw new Error(`${name} must be a size such as 20mb, got "${raw}"`);
  return Math.floor(Number(match[1]) * (sizeUnits[(match[2] ?? 'b').toLowerCase()] ?? 1));
}

function positiveSize(name: string, raw: string): number {
  const bytes = parseSize(name, raw);
  if (bytes < 1) throw new Error(`${name} must be at least 1 byte, got "${raw}"`);
  return bytes;
}

function workerCount(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto') return availableParallelism();
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`WORKERS must be auto or an integer >= 1, got "${raw}"`);
  return value;
}

function checkRedisUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('REDIS_URL must be a URL such as redis://127.0.0.1:6379');
  }
  // The value may carry a password: never echo it.
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('REDIS_URL must start with redis:// or rediss://');
}

const DEFAULT_MODEL_MAP = '*haiku*=free:fast,claude-*=free:tool-use';

/** `*` matches any run of characters, `?` one; everything else is literal. Whole-name, case-sensitive. */
function globPattern(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${source}$`);
}

function parseModelMap(name: string, raw: string, plugins: readonly ProviderPlugin[]): ModelMapping[] {
  const known = new Set<string>(aliasIds);
  for (const plugin of plugins) for (const model of plugin.models) known.add(`${plugin.id}/${model.id}`);
  const mappings: ModelMapping[] = [];
  for (const pair of raw.split(',')) {
    const entry = pair.trim();
    if (entry === '') continue;
    const at = entry.indexOf('=');
    const glob = at === -1 ? '' : entry.slice(0, at).trim();
    const target = at === -1 ? '' : entry.slice(at + 1).trim();
    if (glob === '' || target === '') {
      throw new Error(`${name} must be comma-separated glob=target pairs such as ${name === 'MODEL_MAP' ? 'gpt-4o*=free:tool-use' : 'claude-*=free:tool-use'}, got ${shown(entry)}`);
    }
    if (!known.has(target)) {
      throw new Error(`${name} maps ${glob} to ${target}, which is not a model or alias of the catalog (GET /v1/models lists them)`);
    }
    mappings.push({ glob, pattern: globPattern(glob), target });
  }
  return mappings;
}

export function loadConfig(env: Env, plugins: readonly ProviderPlugin[]): Config {
  const baseURLs = new Map<string, string>();
  const baseURLOverrides: string[] = [];
  for (const plugin of plugins) {
    const name = `${plugin.id.toUpperCase()}_BASE_URL`;
    const override = env[name];
    if (override) {
      const url = baseURL(name, override);
      baseURLs.set(plugin.id, url);
      const { origin, pathname } = new URL(url);
      baseURLOverrides.push(`${name}=${origin}${pathname === '/' ? '' : pathname}`);
    } else {
      baseURLs.set(plugin.id, plugin.baseURL.replace(/\/+$/, ''));
    }
  }
  const origins = (env.CORS_ORIGINS ?? '*').split(',').map((origin) => origin.trim()).filter(Boolean);
  const routing = env.ROUTING ?? 'latency';
  if (routing !== 'latency' && routing !== 'priority') throw new Error(`ROUTING must be latency or priority, got ${shown(routing)}`);
  const exploreRaw = env.ROUTING_EXPLORE_SHARE;
  const exploreShare = exploreRaw === undefined || exploreRaw.trim() === '' ? 0.05 : Number(exploreRaw);
  if (!(exploreShare >= 0 && exploreShare <= 1)) throw new Error(`ROUTING_EXPLORE_SHARE must be a number from 0 to 1, got ${shown(exploreRaw ?? '')}`);
  const bodyLimit = env.BODY_LIMIT || '20mb';
  const bodyLimitBytes = parseSize('BODY_LIMIT', bodyLimit);
  const bodyBufferMaxBytes = parseSize('BODY_BUFFER_MAX', env.BODY_BUFFER_MAX || '256mb');
  // Below BODY_LIMIT, a body of the largest allowed size could never be read.
  if (bodyBufferMaxBytes < bodyLimitBytes) throw new Error(`BODY_BUFFER_MAX must be at least BODY_LIMIT (${bodyLimit})`);
  // A file of the largest allowed size must fit the memory budget, or it could never be read:
  // an AUDIO_MAX_BYTES above BODY_BUFFER_MAX is refused, the default (25 MB) lowered to it.
  const audioMaxText = env.AUDIO_MAX_BYTES || (bodyBufferMaxBytes < 25 * 1024 ** 2 ? env.BODY_BUFFER_MAX || '256mb' : '25mb');
  const audioMaxBytes = positiveSize('AUDIO_MAX_BYTES', audioMaxText);
  if (bodyBufferMaxBytes < audioMaxBytes) throw new Error(`BODY_BUFFER_MAX must be at least AUDIO_MAX_BYTES (${audioMaxText})`);
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined) checkRedisUrl(redisUrl);
  const keyHashSecret = env.KEY_HASH_SECRET || undefined;
  if (redisUrl !== undefined && (keyHashSecret === undefined || keyHashSecret.length < 16)) {
    // Instances sharing one Redis must hash keys alike, and a random secret per process would not.
    throw new Error('KEY_HASH_SECRET (at least 16 characters, the same on every instance) is required when REDIS_URL is set');
  }
  const port = integer(env, 'PORT', 3000, 0, 65_535);
  return {
    host: host(env, 'HOST', '0.0.0.0'),
    port,
    rateLimitMax: integer(env, 'RATE_LIMIT_MAX', 100, 1),
    rateLimitWindowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1),
    rateLimitMaxClients: integer(env, 'RATE_LIMIT_MAX_CLIENTS', 100_000, 1),
    rateLimitIpv6Subnet: ipv6Subnet(env.RATE_LIMIT_IPV6_SUBNET),
    healthMaxRecords: integer(env, 'HEALTH_MAX_RECORDS', 100_000, 1),
    trustProxy: trustProxy(env.TRUST_PROXY),
    corsOrigins: origins.length === 0 || origins.includes('*') ? '*' : origins,
    bodyLimit,
    bodyLimitBytes,
    bodyTimeoutMs: integer(env, 'BODY_TIMEOUT_MS', 30_000, 1),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 10_000, 1),
    bodyBufferMaxBytes,
    embeddingsMaxInputs: integer(env, 'EMBEDDINGS_MAX_INPUTS', 2048, 1, 100_000),
    audioMaxBytes,
    audioMaxText,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 120_000, 1),
    firstTokenTimeoutMs: integer(env, 'FIRST_TOKEN_TIMEOUT_MS', 15_000, 1),
    streamIdleTimeoutMs: integer(env, 'STREAM_IDLE_TIMEOUT_MS', 30_000, 1),
    streamMaxDurationMs: integer(env, 'STREAM_MAX_DURATION_MS', 600_000, 1),
    clientStallTimeoutMs: integer(env, 'CLIENT_STALL_TIMEOUT_MS', 60_000, 1),
    maxResponseBytes: env.MAX_RESPONSE_BYTES ? positiveSize('MAX_RESPONSE_BYTES', env.MAX_RESPONSE_BYTES) : 16 * 1024 ** 2,
    maxAttempts: integer(env, 'MAX_ATTEMPTS', 5, 1),
    routing,
    exploreShare,
    baseURLs,
    baseURLOverrides,
    keyHashSecret: keyHashSecret ?? randomBytes(32).toString('hex'),
    workers: workerCount(env.WORKERS),
    redisUrl,
    logLevel: oneOf(env, 'LOG_LEVEL', logLevels, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'], 'json'),
    metrics: metricsConfig(env, port),
    anthropicModelMap: parseModelMap('ANTHROPIC_MODEL_MAP', env.ANTHROPIC_MODEL_MAP ?? DEFAULT_MODEL_MAP, plugins),
    modelMap: parseModelMap('MODEL_MAP', env.MODEL_MAP ?? '', plugins),
    hostedTools: oneOf(env, 'HOSTED_TOOLS', ['drop', 'reject'], 'drop'),
    keyCheckIntervalMs: integer(env, 'KEY_CHECK_INTERVAL_MS', 60_000, 1_000),
    keyChecksPerMinute: integer(env, 'KEY_CHECKS_PER_MINUTE', 30, 1),
    keyCheckTimeoutMs: integer(env, 'KEY_CHECK_TIMEOUT_MS', 10_000, 1),
    readyzRequireRedis: oneOf(env, 'READYZ_REQUIRE_REDIS', ['true', 'false'], 'false') === 'true',
    console: oneOf(env, 'CONSOLE', ['on', 'off'], 'on') === 'on',
    models: modelsConfig(env),
  };
}

function modelsConfig(env: Env): ModelsConfig {
  return {
    live: oneOf(env, 'MODELS_LIVE', ['on', 'off'], 'on') === 'on',
    refreshMs: integer(env, 'MODELS_REFRESH_MS', 3_600_000, 1_000),
    firstWaitMs: integer(env, 'MODELS_FIRST_WAIT_MS', 1_500, 0, 60_000),
    listingTimeoutMs: integer(env, 'MODELS_LISTING_TIMEOUT_MS', 5_000, 1, 60_000),
    listingMaxBytes: env.MODELS_LISTING_MAX_BYTES ? positiveSize('MODELS_LISTING_MAX_BYTES', env.MODELS_LISTING_MAX_BYTES) : 4 * 1024 ** 2,
    listingMaxPages: integer(env, 'MODELS_LISTING_MAX_PAGES', 10, 1, 100),
    listingsPerMinute: integer(env, 'LISTINGS_PER_MINUTE', 30, 0),
    maxKeys: integer(env, 'MODELS_MAX_KEYS', 10_000, 1),
    maxBytes: env.MODELS_MAX_BYTES ? positiveSize('MODELS_MAX_BYTES', env.MODELS_MAX_BYTES) : 64 * 1024 ** 2,
    quarantineMs: integer(env, 'MODEL_QUARANTINE_MS', 21_600_000, 0),
    noCreditWaitMs: integer(env, 'NO_CREDIT_WAIT_MS', 86_400_000, 1),
  };
}

/** A start-up failure: one line on stderr, exit code 1, never a stack trace. */
export function cannotStart(reason: string): never {
  process.stderr.write(`Freeway cannot start: ${reason}\n`);
  process.exit(1);
}

const listenErrors: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine\'s',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  EAI_NONAME: 'the host name does not resolve',
};

/** Why listening on host:port failed, in words, for `Freeway cannot start: ...`. */
export function listenFailure(error: unknown, host: string, port: number, settings: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = (code && listenErrors[code]) ?? (error instanceof Error ? error.message : String(error));
  return `cannot listen on ${host}:${port} (${settings}): ${why}${code ? ` (${code})` : ''}`;
}
