import type { Request, RequestHandler, Response } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HealthRecord, HealthState, HealthStore } from '../state/health-records.ts';
import { keepNewest } from '../state/bounded-map.ts';
import { HEALTH_TIMINGS, viewHealth, type LatencyTracker } from '../routing/index.ts';
import { routeOfPath } from './route-table.ts';

/**
 * Prometheus metrics (prom-client). Labels are bounded sets only: route
 * patterns, statuses, provider ids, outcome and state names. No key, no hash of
 * a key, no model id sent by a caller and no path a caller made up ever becomes
 * a label.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Counts every request, in flight and finished, by route and status. */
  readonly middleware: RequestHandler;
  /** One refusal by the per-client rate limit. */
  rateLimited(): void;
  /** One connection closed on arrival because MAX_CONNECTIONS were open. */
  connectionDropped(): void;
  /** The health store, watched for the keys-by-state gauge. */
  watchHealth(store: HealthStore): HealthStore;
  /** The latency tracker, watched for the time-to-first-token histogram. */
  watchLatency(tracker: LatencyTracker): LatencyTracker;
  /** One model listing done, by provider and outcome (`ok`, `failed`, `invalid_key`). */
  listed(provider: string, outcome: 'ok' | 'failed' | 'invalid_key'): void;
  /** One model quarantined, for one key (`key`) or every key of its provider (`provider`, a 410). */
  quarantined(provider: string, scope: 'key' | 'provider'): void;
  /** One lookup in the response cache, by its result. */
  cacheLooked(result: 'hit' | 'miss'): void;
  /** Kept answers dropped to stay within CACHE_MAX_BYTES. */
  cacheEvicted(count: number): void;
  /** The response cache's bytes held, read at each scrape. */
  watchCacheBytes(bytes: () => Promise<number>): void;
  /** One request held for a provider's window or slot, for `ms`. */
  waited(provider: string, ms: number): void;
  /** The held-requests gauge reads `held` when scraped. */
  watchHeld(held: () => number): void;
}

/** A request's route label: its route's pattern, else the table's route of its path (no route ran: the rate limit answered first, a preflight), else `unmatched`. */
function routeLabel(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return route;
  // originalUrl: a mounted middleware that answered leaves req.url without its mount path.
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return routeOfPath(query === -1 ? url : url.slice(0, query)) ?? 'unmatched';
}

const attemptLabels = new Set(['busy', 'timeout', 'connection', 'bad_response', 'aborted', 'deadline', 'unsupported', 'internal', 'request', 'model_unavailable', 'context_too_long']);

/** An attempt's status (`200`, `429`, `timeout`, `200 then bad stream`) as one of a few outcomes. */
export function attemptOutcome(status: number | string): string {
  if (typeof status === 'number') {
    if (status >= 200 && status < 300) return 'ok';
    if (status === 429) return 'rate_limited';
    if (status === 402) return 'no_credit';
    if (status === 401 || status === 403) return 'invalid_key';
    if (status >= 400 && status < 500) return 'client_error';
    return 'server_error';
  }
  if (status.startsWith('200 ')) return 'bad_stream';
  if (status.startsWith('busy')) return 'busy';
  return attemptLabels.has(status) ? status : 'other';
}

const states: readonly HealthState[] = ['healthy', 'rate_limited', 'down', 'half_open', 'invalid_key', 'no_credit'];

/** At most this many keys are remembered for the keys-by-state gauge; the oldest go first. */
const maxWatchedKeys = 10_000;

const providerOf = (id: string): string => id.slice(0, Math.max(0, id.indexOf(':')));

/** The counters and histograms, registered in `registry`. */
function createInstruments(registry: Registry) {
  const requests = new Counter({
    name: 'freeway_http_requests_total',
    help: 'HTTP requests finished, by route pattern and status (499: the caller went away first).',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'freeway_upstream_attempts_total',
    help: 'Upstream attempts by provider and outcome (ok, rate_limited, invalid_key, client_error, server_error, timeout, connection, bad_stream, ...).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const firstToken = new Histogram({
    name: 'freeway_time_to_first_token_seconds',
    help: 'Time from the start of an upstream attempt to its first output, by provider.',
    labelNames: ['provider'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'freeway_request_duration_seconds',
    help: 'Duration of completion requests a provider answered, to the last byte (streams included), by that provider.',
    labelNames: ['provider'] as const,
    buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'freeway_rate_limited_total',
    help: 'Requests refused by the per-client rate limit (429).',
    registers: [registry],
  });
  const listings = new Counter({
    name: 'freeway_model_listings_total',
    help: 'Model listings asked of providers with a caller\'s key, by provider and outcome (ok, failed, invalid_key).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const quarantines = new Counter({
    name: 'freeway_models_quarantined_total',
    help: 'Models quarantined after a "model not found" answer, by provider and scope (key: for that key; provider: 410 Gone, for every key).',
    labelNames: ['provider', 'scope'] as const,
    registers: [registry],
  });
  const waits = new Histogram({
    name: 'freeway_wait_seconds',
    help: 'How long requests were held for a key\'s rate-limit window or concurrency slot before they were tried again, by provider.',
    labelNames: ['provider'] as const,
    buckets: [0.1, 0.5, 1, 2, 5, 10, 20, 40, 80, 120],
    registers: [registry],
  });
  const droppedConnections = new Counter({
    name: 'freeway_connections_dropped_total',
    help: 'Connections closed on arrival because MAX_CONNECTIONS connections were open.',
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: 'freeway_cache_lookups_total',
    help: 'Lookups in the response cache (CACHE), by result (hit, miss); requests that leave the cache out are not counted.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const cacheEvictions = new Counter({
    name: 'freeway_cache_evictions_total',
    help: 'Kept answers dropped, least recently used first, to stay within CACHE_MAX_BYTES.',
    registers: [registry],
  });
  return { requests, attempts, firstToken, duration, refusals, listings, quarantines, droppedConnections, waits, cacheLookups, cacheEvictions };
}

type Instruments = ReturnType<typeof createInstruments>;

/** One response being sent, linked between those sent before and after it. */
interface OpenLink {
  readonly res: Response | undefined;
  before: OpenLink;
  after: OpenLink;
}

/** The responses being sent now: `add` links one in and returns what unlinks it. */
interface OpenResponses {
  readonly size: number;
  add(res: Response): () => void;
  forEach(visit: (res: Response) => void): void;
}

/**
 * A ring of links rather than a Set: a Set made at start-up is in V8's old generation,
 * and so is every table it grows or shrinks into, so a Set that goes from none to 64
 * responses and back with each burst of requests left hundreds of bytes of old-generation
 * garbage per request, there until the next full collection. A link dies with its request.
 */
function openResponses(): OpenResponses {
  const ring = { res: undefined } as OpenLink;
  ring.before = ring.after = ring;
  let size = 0;
  return {
    get size() {
      return size;
    },
    add(res) {
      const link: OpenLink = { res, before: ring.before, after: ring };
      ring.before.after = link;
      ring.before = link;
      size += 1;
      return () => {
        link.before.after = link.after;
        link.after.before = link.before;
        // An unlinked link that reached the old generation would otherwise keep its young neighbours alive.
        link.before = link.after = link;
        size -= 1;
      };
    },
    forEach(visit) {
      for (let link = ring.after; link !== ring; link = link.after) visit(link.res as Response);
    },
  };
}

/** The responses being sent now, read by the in-flight gauges when scraped. */
function watchOpenResponses(registry: Registry): OpenResponses {
  // In-flight counts are read off the open responses when scraped: nothing to keep in step.
  const open = openResponses();
  new Gauge({
    name: 'freeway_requests_in_flight',
    help: 'Requests being served now.',
    registers: [registry],
    collect() {
      this.set(open.size);
    },
  });
  new Gauge({
    name: 'freeway_streams_in_flight',
    help: 'Server-sent event streams being sent now.',
    registers: [registry],
    collect() {
      let streams = 0;
      open.forEach((res) => {
        if (res.headersSent && String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) streams += 1;
      });
      this.set(streams);
    },
  });
  return open;
}

/** The keys-by-state gauge: `see` a key's record as it is read or written; the gauge counts them when scraped. */
function watchKeyStates(registry: Registry, now: () => number): (id: string, record: HealthRecord | undefined) => void {
  // The keys this process has seen, by the state of their last record. Map order is recency order.
  const watched = new Map<string, { record: HealthRecord | undefined; seen: number }>();
  const see = (id: string, record: HealthRecord | undefined): void => {
    keepNewest(watched, id, { record, seen: now() }, maxWatchedKeys);
  };
  new Gauge({
    name: 'freeway_provider_keys',
    help: 'Provider keys seen in the last hour, by provider and health state (counts only, never a key). With WORKERS > 1, the largest count of any worker.',
    labelNames: ['provider', 'state'] as const,
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      const at = now();
      const cutoff = at - HEALTH_TIMINGS.forgetAfterMs;
      const counts = new Map<string, Map<HealthState, number>>();
      for (const [id, entry] of watched) {
        if (entry.seen < cutoff) {
          watched.delete(id);
          continue;
        }
        const provider = providerOf(id);
        const state = viewHealth(entry.record, at).state;
        let byState = counts.get(provider);
        if (!byState) counts.set(provider, (byState = new Map(states.map((name) => [name, 0]))));
        byState.set(state, (byState.get(state) ?? 0) + 1);
      }
      for (const [provider, byState] of counts) for (const [state, count] of byState) this.set({ provider, state }, count);
    },
  });
  return see;
}

/** Counts every request, in flight and finished, by route and status, and its attempts and duration. */
function countRequests({ requests, attempts, duration }: Instruments, open: OpenResponses): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const close = open.add(res);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      close();
      const locals = res.locals;
      const status = locals.cut?.status ?? (res.writableFinished ? res.statusCode : 499);
      requests.inc({ route: routeLabel(req), status: String(status) });
      for (const attempt of locals.attempts ?? []) if (attempt.waitedMs === undefined) attempts.inc({ provider: attempt.provider, outcome: attemptOutcome(attempt.status) });
      const provider = res.getHeader('x-freeway-provider');
      if (typeof provider === 'string') duration.observe({ provider }, (performance.now() - started) / 1000);
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}

export function createMetrics(now: () => number = Date.now): Metrics {
  const registry = new Registry();
  const instruments = createInstruments(registry);
  const { firstToken, refusals, listings, quarantines, droppedConnections, waits, cacheLookups, cacheEvictions } = instruments;
  let heldNow = (): number => 0;
  new Gauge({
    name: 'freeway_requests_held',
    help: 'Requests held now for a key\'s rate-limit window or concurrency slot (at most WAIT_QUEUE_MAX per process).',
    registers: [registry],
    collect() {
      this.set(heldNow());
    },
  });
  const middleware = countRequests(instruments, watchOpenResponses(registry));
  const see = watchKeyStates(registry, now);

  return {
    registry,
    middleware,
    rateLimited: () => refusals.inc(),
    connectionDropped: () => droppedConnections.inc(),
    listed: (provider, outcome) => listings.inc({ provider, outcome }),
    quarantined: (provider, scope) => quarantines.inc({ provider, scope }),
    cacheLooked: (result) => cacheLookups.inc({ result }),
    cacheEvicted: (count) => cacheEvictions.inc(count),
    watchCacheBytes(bytes) {
      new Gauge({
        name: 'freeway_cache_bytes',
        help: 'Bytes the response cache holds (ciphertext, ids and their bookkeeping), as CACHE_MAX_BYTES counts them; with CACHE=redis, what Redis holds for every instance.',
        registers: [registry],
        async collect() {
          this.set(await bytes().catch(() => 0));
        },
      });
    },
    waited: (provider, ms) => waits.observe({ provider }, ms / 1000),
    watchHeld(held) {
      heldNow = held;
    },
    watchHealth(store) {
      return {
        ...store,
        async get(ids) {
          const records = await store.get(ids);
          ids.forEach((id, i) => see(id, records[i]));
          return records;
        },
        async record(id, outcome, at) {
          const record = await store.record(id, outcome, at);
          see(id, outcome.kind === 'success' ? undefined : record);
          return record;
        },
      };
    },
    watchLatency(tracker) {
      return {
        get: (id) => tracker.get(id),
        observe(id, ms) {
          tracker.observe(id, ms);
          firstToken.observe({ provider: providerOf(id) }, ms / 1000);
        },
      };
    },
  };
}
