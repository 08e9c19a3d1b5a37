import { randomBytes } from 'node:crypto';
import { aliasIds } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { baseURL, type Env, type ParseContext, type Setting } from './parse.ts';
import { isSetting, settings } from './settings.ts';

/** A group of the table read into values: each setting replaced by what it parses to. */
export type Values<Group> = { readonly [Name in keyof Group]: Group[Name] extends Setting<infer Value> ? Value : Values<Group[Name]> };

type Table = typeof settings;

export type MetricsConfig =
  | { readonly mode: 'off' }
  | { readonly mode: 'main' }
  | { readonly mode: 'separate'; readonly host: string; readonly port: number };

/** Where spans go: nowhere (OTEL_TRACES_EXPORTER unset or `none`), or to an OTLP/HTTP collector. */
export type TracingConfig =
  | { readonly mode: 'off' }
  | ({ readonly mode: 'otlp'; /** The whole URL spans are posted to. */ readonly url: string } & Omit<Values<Table['tracing']>, 'exporter' | 'endpoint' | 'tracesEndpoint'>);

/** Live model lists, model quarantine and keys without credit (docs/models.md). */
export type ModelsConfig = Values<Table['models']>;

export type LogLevel = Values<Table['logging']>['level'];

/** Freeway's settings, read and checked once at start-up, frozen. Each group is a group of the table in settings.ts. */
export interface Config {
  readonly server: Values<Table['server']>;
  readonly limits: Values<Table['limits']>;
  readonly timeouts: Values<Table['timeouts']>;
  readonly rateLimit: Values<Table['rateLimit']>;
  readonly routing: Values<Table['routing']>;
  readonly sticky: Values<Table['sticky']>;
  readonly state: Omit<Values<Table['state']>, 'keyHashSecret'> & {
    /** HMAC secret for the hashes that key provider health: KEY_HASH_SECRET, or random per process. */
    readonly keyHashSecret: string;
  };
  readonly models: ModelsConfig;
  readonly api: Values<Table['api']>;
  readonly keyChecks: Values<Table['keyChecks']>;
  readonly anonymous: Values<Table['anonymous']>;
  readonly usage: Values<Table['usage']>;
  readonly logging: Values<Table['logging']>;
  /** Where `GET /metrics` is served: off, on the main listener, or on a listener of its own. */
  readonly metrics: MetricsConfig;
  readonly tracing: TracingConfig;
  readonly providers: {
    /** Provider id -> upstream base URL, defaults overridden by `<ID>_BASE_URL`. */
    readonly baseURLs: ReadonlyMap<string, string>;
    /** The `<ID>_BASE_URL` overrides in words (`NAME=url sends X's calls there, not to ...`, without any credentials), for the start-up warnings. */
    readonly baseURLOverrides: readonly string[];
  };
}

function read<T>(setting: Setting<T>, env: Env, context: ParseContext): T {
  const raw = env[setting.env];
  const unset = raw === undefined || (raw === '' && !setting.emptyIsValue);
  if (!unset) return setting.parse(raw, context);
  // A setting without a default is declared with undefined among its values (optionalInteger, custom<T | undefined>).
  return setting.default === undefined ? (undefined as T) : setting.parse(setting.default, context);
}

function readGroup<Group extends object>(group: Group, env: Env, context: ParseContext): Values<Group> {
  const values: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(group)) values[name] = isSetting(entry) ? read(entry, env, context) : readGroup(entry as object, env, context);
  return values as Values<Group>;
}

function baseURLs(env: Env, plugins: readonly ProviderPlugin[]): Config['providers'] {
  const urls = new Map<string, string>();
  const overrides: string[] = [];
  for (const plugin of plugins) {
    const name = `${plugin.id.toUpperCase()}_BASE_URL`;
    const override = env[name];
    if (override) {
      const url = baseURL(name, override);
      urls.set(plugin.id, url);
      const { origin, pathname } = new URL(url);
      overrides.push(`${name}=${origin}${pathname === '/' ? '' : pathname} sends ${plugin.name}'s calls there, not to ${plugin.baseURL}`);
    } else {
      urls.set(plugin.id, plugin.baseURL.replace(/\/+$/, ''));
    }
  }
  return { baseURLs: urls, baseURLOverrides: overrides };
}

/**
 * How many times over an uploaded audio file counts against BODY_BUFFER_MAX: while it is
 * sent on, the provider's SDK holds its own copy (a Blob in a form, or base64 in JSON) beside
 * Freeway's, and a failover makes another. Measured by `npm run attack -- upload-flood`.
 */
export const UPLOAD_COPIES = 5;

/** The largest size of whole kilobytes within `bytes`, as a setting is written (`2mb`, `2457kb`). */
function wholeSize(bytes: number): { bytes: number; text: string } {
  if (bytes % 1024 ** 2 === 0) return { bytes, text: `${bytes / 1024 ** 2}mb` };
  const kb = Math.floor(bytes / 1024);
  return { bytes: kb * 1024, text: `${kb}kb` };
}

/** The body budgets: a body, or an audio file of the largest allowed size with its copies, must fit in BODY_BUFFER_MAX, or it could never be taken. */
function limits(values: Values<Table['limits']>, env: Env): Config['limits'] {
  const buffer = values.bodyBufferMaxBytes;
  if (buffer < values.body.bytes) throw new Error(`BODY_BUFFER_MAX must be at least BODY_LIMIT (${values.body.text})`);
  // An AUDIO_MAX_BYTES whose copies do not fit BODY_BUFFER_MAX is refused; the default (25 MB) is lowered to fit.
  const fits = Math.floor(buffer / UPLOAD_COPIES);
  const audio = !env.AUDIO_MAX_BYTES && fits < values.audio.bytes ? wholeSize(fits) : values.audio;
  if (fits < audio.bytes) {
    throw new Error(`BODY_BUFFER_MAX must be at least AUDIO_MAX_BYTES (${audio.text}) ${UPLOAD_COPIES} times over: an upload is held that many times while it is sent on`);
  }
  return { ...values, audio };
}

function state(values: Values<Table['state']>): Config['state'] {
  const { redisUrl, keyHashSecret } = values;
  if (redisUrl !== undefined && (keyHashSecret === undefined || keyHashSecret.length < 16)) {
    // Instances sharing one Redis must hash keys alike, and a random secret per process would not.
    throw new Error('KEY_HASH_SECRET (at least 16 characters, the same on every instance) is required when REDIS_URL is set');
  }
  return { ...values, keyHashSecret: keyHashSecret ?? randomBytes(32).toString('hex') };
}

/** METRICS_PORT and METRICS_HOST are read only when metrics are on, and the host only with a port. */
function metrics(env: Env, context: ParseContext, mainPort: number): MetricsConfig {
  const table = settings.metrics;
  if (!read(table.mode, env, context)) return { mode: 'off' };
  const port = read(table.port, env, context);
  if (port === undefined) {
    if (env.METRICS_HOST) throw new Error('METRICS_HOST needs METRICS_PORT: without it /metrics is served on the main port');
    return { mode: 'main' };
  }
  if (port === mainPort) throw new Error(`METRICS_PORT must differ from PORT (${mainPort}); leave it unset to serve /metrics on the main port`);
  return { mode: 'separate', host: read(table.host, env, context), port };
}

/** OpenTelemetry's default collector, for OTEL_TRACES_EXPORTER=otlp without an endpoint. */
const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/** The OTEL_* settings are read only when OTEL_TRACES_EXPORTER asks for traces. */
function tracing(env: Env, context: ParseContext): TracingConfig {
  const { exporter: _exporter, endpoint: _endpoint, tracesEndpoint: _tracesEndpoint, ...rest } = settings.tracing;
  if (read(settings.tracing.exporter, env, context) === 'none') return { mode: 'off' };
  const url = read(settings.tracing.tracesEndpoint, env, context) ?? `${read(settings.tracing.endpoint, env, context) ?? DEFAULT_OTLP_ENDPOINT}/v1/traces`;
  return { mode: 'otlp', url, ...readGroup(rest, env, context) };
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || value instanceof Map || value instanceof RegExp) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}

/**
 * Reads every setting of the table from `env`, checks those that bound each other, and
 * returns the nested, frozen Config. Throws the one-line reason `Freeway cannot start:`
 * prints (`NAME must be ...`) on the first setting that is wrong.
 */
export function loadConfig(env: Env, plugins: readonly ProviderPlugin[]): Config {
  const knownTargets = new Set<string>(aliasIds);
  for (const plugin of plugins) for (const model of plugin.models) knownTargets.add(`${plugin.id}/${model.id}`);
  const context: ParseContext = { knownTargets };
  const providers = baseURLs(env, plugins);
  // The metrics settings depend on each other: metrics() reads them.
  const { metrics: _metrics, tracing: _tracing, ...groups } = settings;
  const values = readGroup(groups, env, context);
  const config: Config = {
    ...values,
    limits: limits(values.limits, env),
    state: state(values.state),
    metrics: metrics(env, context, values.server.port),
    tracing: tracing(env, context),
    providers,
  };
  return deepFreeze(config);
}
