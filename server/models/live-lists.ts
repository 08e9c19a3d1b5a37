import type { Capability, FetchFunction, ListedModel, ProviderPlugin } from '../../providers/types.ts';
import type { ModelsConfig } from '../config/index.ts';
import { isAnonymous } from '../core/keys.ts';
import type { HealthStore } from '../state/health-records.ts';
import { createBoundedMap } from '../state/bounded-map.ts';
import type { KnowledgeStore } from '../state/knowledge.ts';
import { fetchListing, type ListingResult } from './listing.ts';

/** The models one key can use, as its provider last listed them. A new object for every list that differs. */
export interface LiveList {
  /** Provider model id -> what the listing said of it. */
  readonly models: ReadonlyMap<string, ListedModel>;
}

export interface LiveLists {
  /**
   * The lists of these keys of `provider`, as known now. Starts the listings that are
   * due (at most one per key at a time, across workers and instances); waits for a
   * key's first listing at most MODELS_FIRST_WAIT_MS. `client` is the rate limit's
   * client: past LISTINGS_PER_MINUTE its requests start none.
   */
  lists(provider: ProviderPlugin, keys: readonly string[], healthIds: readonly string[], client: () => string): Promise<ReadonlyArray<LiveList | undefined>> | ReadonlyArray<LiveList | undefined>;
  /** Stops the listings under way. */
  close(): void;
}

export interface LiveListDeps {
  readonly config: ModelsConfig;
  readonly baseURLs: ReadonlyMap<string, string>;
  readonly store: KnowledgeStore;
  readonly health: HealthStore;
  readonly fetch: FetchFunction;
  readonly now: () => number;
  /** One listing done: for the metrics. */
  readonly listed?: (provider: string, outcome: 'ok' | 'failed' | 'invalid_key') => void;
}

/** A key's list as it is shared: the listed models (null until a listing succeeded), when to ask again, failures in a row. */
interface SharedRecord {
  readonly models: ReadonlyArray<readonly [id: string, kind: ListedModel['kind'], free: 0 | 1, contextWindow?: number | null, capabilities?: readonly Capability[] | null, maxOutputTokens?: number | null]> | null;
  readonly refreshAt: number;
  readonly failures: number;
}

/** What this process holds of one key: the list (undefined: the curated list serves) and when to look again. */
interface Known {
  readonly list: LiveList | undefined;
  /** The shared record's models as text, to keep the same LiveList (and the views made of it) while nothing changed. */
  readonly raw: string | undefined;
  readonly refreshAt: number;
}

/** The first wait after a failed listing; it doubles with each failure in a row, up to MODELS_REFRESH_MS. */
const FIRST_BACKOFF_MS = 30_000;
/** How often a process that did not get a listing's lock looks for the result. */
const POLL_MS = 50;

const none: ReadonlyArray<LiveList | undefined> = [];

function encode(models: readonly ListedModel[]): SharedRecord['models'] {
  return models.map((model) => [model.id, model.kind, model.free ? 1 : 0, model.contextWindow ?? null, model.capabilities ?? null, model.maxOutputTokens ?? null]);
}

function decode(raw: string | undefined): SharedRecord | undefined {
  if (raw === undefined) return undefined;
  try {
    const record = JSON.parse(raw) as SharedRecord;
    return typeof record === 'object' && record !== null && typeof record.refreshAt === 'number' ? record : undefined;
  } catch {
    return undefined;
  }
}

function toList(models: NonNullable<SharedRecord['models']>): LiveList {
  const map = new Map<string, ListedModel>();
  for (const [id, kind, free, contextWindow, capabilities, maxOutputTokens] of models) {
    const model: { -readonly [K in keyof ListedModel]: ListedModel[K] } = { id, kind, free: free === 1 };
    if (typeof contextWindow === 'number') model.contextWindow = contextWindow;
    if (Array.isArray(capabilities)) model.capabilities = capabilities;
    if (typeof maxOutputTokens === 'number') model.maxOutputTokens = maxOutputTokens;
    map.set(id, model);
  }
  return { models: map };
}

export function createLiveLists(deps: LiveListDeps): LiveLists {
  const { config, store, health, now } = deps;
  const known = createBoundedMap<Known>(config.maxKeys, config.maxBytes);
  const running = new Map<string, Promise<void>>();
  // Listings started per client in the current minute; bounded like the rate limit's clients.
  const starts = createBoundedMap<{ count: number }>(config.maxKeys, Number.MAX_SAFE_INTEGER);
  const stop = new AbortController();
  const lockMs = config.listingTimeoutMs * config.listingMaxPages + 1_000;

  const listId = (healthId: string): string => `list:${healthId}`;

  function adopt(healthId: string, raw: string | undefined, record: SharedRecord | undefined): Known {
    const previous = known.get(healthId, Number.NEGATIVE_INFINITY);
    const modelsRaw = record?.models ? JSON.stringify(record.models) : undefined;
    const list = modelsRaw === undefined ? undefined : previous?.raw === modelsRaw ? previous.list : toList(record?.models ?? []);
    const entry: Known = { list, raw: modelsRaw, refreshAt: record?.refreshAt ?? 0 };
    known.set(healthId, entry, 256 + 2 * (raw?.length ?? 0), Number.POSITIVE_INFINITY);
    return entry;
  }

  function mayStart(client: string): boolean {
    const at = now();
    const window = `${client}|${Math.floor(at / 60_000)}`;
    const entry = starts.get(window, at);
    if (entry && entry.count >= config.listingsPerMinute) return false;
    if (entry) entry.count += 1;
    else starts.set(window, { count: 1 }, 1, at + 60_000);
    return config.listingsPerMinute > 0;
  }

  async function waitForOther(healthId: string): Promise<void> {
    const until = now() + lockMs;
    while (now() < until && !stop.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
      const [raw] = await store.get([listId(healthId)]);
      const record = decode(raw);
      if (record && record.refreshAt > now()) {
        adopt(healthId, raw, record);
        return;
      }
    }
  }

  async function refresh(provider: ProviderPlugin, key: string, healthId: string, client: () => string): Promise<void> {
    const [raw] = await store.get([listId(healthId)]);
    const shared = decode(raw);
    if (shared && shared.refreshAt > now()) {
      adopt(healthId, raw, shared);
      return;
    }
    if (!mayStart(client())) return;
    if (!(await store.claim(`lock:${healthId}`, lockMs))) {
      await waitForOther(healthId);
      return;
    }
    const baseURL = deps.baseURLs.get(provider.id) ?? provider.baseURL;
    const limits = { timeoutMs: config.listingTimeoutMs, maxBytes: config.listingMaxBytes, maxPages: config.listingMaxPages };
    const result: ListingResult = await fetchListing(provider, { baseURL, key, fetch: deps.fetch, limits, signal: stop.signal });
    const at = now();
    let record: SharedRecord;
    if (result.ok) {
      record = { models: encode(result.models), refreshAt: at + config.refreshMs, failures: 0 };
      deps.listed?.(provider.id, 'ok');
    } else {
      const failures = (shared?.failures ?? 0) + 1;
      const backoff = Math.min(config.refreshMs, FIRST_BACKOFF_MS * 2 ** Math.min(failures - 1, 20));
      // A failed listing counts as that refresh: what was known keeps serving until the next try.
      record = { models: shared?.models ?? null, refreshAt: at + backoff, failures };
      deps.listed?.(provider.id, result.invalidKey ? 'invalid_key' : 'failed');
      if (result.invalidKey) await health.record(healthId, { kind: 'invalid_key', reason: result.reason }, at);
    }
    const text = JSON.stringify(record);
    await store.set(listId(healthId), text, record.refreshAt - at + config.refreshMs);
    // The lock's work is done: the next refresh may take it at once (a lock expires by itself too).
    await store.set(`lock:${healthId}`, 'done', 1);
    adopt(healthId, text, record);
  }

  function start(provider: ProviderPlugin, key: string, healthId: string, client: () => string): Promise<void> {
    let job = running.get(healthId);
    if (!job) {
      job = refresh(provider, key, healthId, client)
        .catch(() => {
          // The store did not answer: try again after a short wait rather than on every request.
          const entry = known.get(healthId, Number.NEGATIVE_INFINITY);
          known.set(healthId, { list: entry?.list, raw: entry?.raw, refreshAt: now() + FIRST_BACKOFF_MS }, 256, Number.POSITIVE_INFINITY);
        })
        .finally(() => running.delete(healthId));
      running.set(healthId, job);
    }
    return job;
  }

  return {
    lists(provider, keys, healthIds, client) {
      // Calls without a key (`anonymous`) serve the curated models, unless the provider documents a listing that
      // answers without a key (asked with no credential, under the provider's own `anonymous` health id).
      if (!config.live || !provider.listing || (keys.some(isAnonymous) && provider.listing.keyless !== true)) return none;
      const at = now();
      let result: Array<LiveList | undefined> | undefined;
      let waits: Array<Promise<void>> | undefined;
      for (let i = 0; i < keys.length; i++) {
        const healthId = healthIds[i] as string;
        const entry = known.get(healthId, at);
        if (entry === undefined || entry.refreshAt <= at) {
          const job = start(provider, keys[i] as string, healthId, client);
          // A key never listed waits for its first listing; a stale list serves while it is refreshed.
          if (entry === undefined) (waits ??= []).push(job);
        }
        if (entry?.list !== undefined) (result ??= new Array<LiveList | undefined>(keys.length))[i] = entry.list;
      }
      if (!waits) return result ?? none;
      return (async () => {
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, config.firstWaitMs);
        });
        await Promise.race([Promise.all(waits), waited]);
        clearTimeout(timer);
        const later = now();
        return healthIds.map((healthId) => known.get(healthId, later)?.list);
      })();
    },
    close() {
      stop.abort();
      known.clear();
      starts.clear();
    },
  };
}
