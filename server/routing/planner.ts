import type { Alias, CatalogModel } from '../../catalog/catalog.ts';
import type { Capability } from '../../providers/types.ts';
import type { RoutingStrategy } from '../config/index.ts';
import type { HealthStore } from '../state/health-records.ts';
import type { StickyStore } from '../state/conversation-models.ts';
import type { KeyHasher } from '../state/key-hash.ts';
import { type HealthView, viewHealth } from './health-policy.ts';
import type { KeyPool, KeySet } from '../core/keys.ts';
import type { LatencyTracker } from './latency.ts';
import type { ModelKnowledge } from '../models/model-knowledge.ts';
import type { LiveList } from '../models/live-lists.ts';
import { liveEmbeddingModel } from '../models/views.ts';
import { candidateModels, looksAtHealth, planCandidates, type Plan } from './plan.ts';

/** Gathers what a plan is made from (key hashes, health, live lists, quarantines, latency) and makes it. */

export interface PlannerDeps {
  /** ROUTING: the strategy of a request that names none. */
  readonly routing: RoutingStrategy;
  /** ROUTING_QUALITY_BAND. */
  readonly qualityBand: number;
  readonly exploreShare: number;
  readonly health: HealthStore;
  readonly hashKey: KeyHasher;
  readonly latency: LatencyTracker;
  readonly random: () => number;
  readonly now: () => number;
  readonly knowledge?: ModelKnowledge;
  readonly providers?: readonly CatalogModel['provider'][];
  /** Which model answered each conversation's last turn; without it (STICKY=off), every turn is routed afresh. */
  readonly sticky?: StickyStore;
}

/** One request to plan. */
export interface PlanRequest {
  readonly entry: Alias | CatalogModel;
  readonly keys: KeySet;
  /** Capabilities a model must have to take the request (tools, images, ...); an alias narrows to them. */
  readonly needs: readonly Capability[];
  /** The rate limit's client, whose listings LISTINGS_PER_MINUTE bounds. */
  readonly client?: () => string;
  /** X-Freeway-Routing: this request's strategy; ROUTING when absent. */
  readonly strategy?: RoutingStrategy;
  /** The request's conversation (routing/conversation.ts): the model that answered its last turn goes first, where it can. */
  readonly conversation?: string;
  /** How messages name what was asked for, when it is not the entry's id: `claude-sonnet-4-6 (mapped to free:tool-use)`. */
  readonly label?: string;
}

export interface Planner {
  plan(request: PlanRequest): Promise<Plan>;
  /** A pinned `{provider}/{modelId}` the plugin does not know, found in the live list of one of the request's keys. */
  findLive(target: string, keys: KeySet, client?: () => string, kind?: 'chat' | 'embedding'): Promise<CatalogModel | undefined>;
}

const noClient = (): string => '';

/** What an alias's live lists are gathered for: its models with the request's keys, for the rate limit's client. */
interface ListsRequest {
  readonly entry: Alias;
  readonly models: readonly CatalogModel[];
  readonly keys: KeySet;
  readonly client: () => string;
}

interface Hashed {
  /** Provider id -> its keys' health ids, in header order. */
  readonly byProvider: Map<string, string[]>;
  /** Every health id, in the same order. */
  readonly all: string[];
}

function hashKeys(models: readonly CatalogModel[], keys: KeySet, hashKey: KeyHasher): Hashed {
  const byProvider = new Map<string, string[]>();
  const all: string[] = [];
  for (const model of models) {
    const id = model.provider.id;
    if (byProvider.has(id)) continue;
    const ids = (keys.get(id) as KeyPool).map((key) => hashKey(id, key));
    byProvider.set(id, ids);
    all.push(...ids);
  }
  return { byProvider, all };
}

export function createPlanner(deps: PlannerDeps): Planner {
  const { health, hashKey, knowledge } = deps;
  const poolId = (id: string, ids: readonly string[]): string => (ids.length === 1 ? (ids[0] as string) : hashKey(id, [...ids].sort().join(',')));
  const latencyOf = (id: string): number | undefined => deps.latency.get(id);

  /**
   * The live lists of an alias's providers: the listings that are due start now; a key's first one is waited for, briefly.
   * Embedding and transcription aliases name one family of weights, which the plugins declare: no live list adds to
   * them, but a declared model missing from a key's list is not used for that key, as for chat.
   */
  async function liveLists({ models, keys, client }: ListsRequest, hashed: Hashed) {
    if (!knowledge) return undefined;
    let lists: Map<string, ReadonlyArray<LiveList | undefined>> | undefined;
    const pending: Array<Promise<void>> = [];
    for (const [id, ids] of hashed.byProvider) {
      const provider = (models.find((model) => model.provider.id === id) as CatalogModel).provider;
      if (!provider.listing) continue;
      const found = knowledge.lists.lists(provider, keys.get(id) as KeyPool, ids, client);
      if (found instanceof Promise) {
        const got = (lists ??= new Map());
        got.set(id, []);
        pending.push(found.then((value) => void got.set(id, value)));
      } else if (found.length > 0) (lists ??= new Map()).set(id, found);
    }
    if (pending.length > 0) await Promise.all(pending);
    return lists;
  }

  async function plan(request: PlanRequest): Promise<Plan> {
    // A request held for a window is planned again, with health as it is then.
    return { ...(await planOnce(request)), again: () => plan(request) };
  }

  async function planOnce({ entry, keys, needs, client = noClient, strategy, conversation, label }: PlanRequest): Promise<Plan> {
    const models = candidateModels(entry, keys, needs, label);
    const pinned = !('models' in entry);
    const hashed = hashKeys(models, keys, hashKey);
    const lists = pinned ? undefined : await liveLists({ entry, models, keys, client }, hashed);
    const lookHealth = looksAtHealth(pinned, hashed.byProvider);
    const [records, quarantined, preferred] = await Promise.all([
      lookHealth ? health.get(hashed.all) : [],
      knowledge && !pinned ? knowledge.quarantines.read(hashed.all) : undefined,
      deps.sticky && conversation !== undefined && !pinned ? deps.sticky.get(conversation) : undefined,
    ]);
    const at = deps.now();
    const views = new Map<string, HealthView>();
    hashed.all.forEach((id, i) => {
      const record = records[i];
      if (record) views.set(id, viewHealth(record, at));
    });
    return planCandidates({
      entry,
      models,
      needs,
      keys,
      healthIds: hashed.byProvider,
      health: (id) => views.get(id),
      lists,
      quarantined,
      view: knowledge?.view,
      poolId,
      routing: strategy ?? deps.routing,
      qualityBand: deps.qualityBand,
      preferred,
      label,
      exploreShare: deps.exploreShare,
      latency: latencyOf,
      random: deps.random,
    });
  }

  async function findLive(target: string, keys: KeySet, client: () => string = noClient, kind: 'chat' | 'embedding' = 'chat'): Promise<CatalogModel | undefined> {
    if (!knowledge) return undefined;
    const slash = target.indexOf('/');
    const pool = slash > 0 ? keys.get(target.slice(0, slash)) : undefined;
    const provider = pool && deps.providers?.find((plugin) => plugin.id === target.slice(0, slash));
    if (!pool || !provider) return undefined;
    const healthIds = pool.map((key) => hashKey(provider.id, key));
    for (const list of await knowledge.lists.lists(provider, pool, healthIds, client)) {
      if (!list) continue;
      const view = knowledge.view(provider, list);
      if (kind === 'chat') {
        const model = view.chat.get(target);
        if (model) return model;
        continue;
      }
      const listed = view.listed.get(target);
      if (listed?.kind === 'embedding' && provider.createEmbeddingModel && provider.listing) return liveEmbeddingModel(provider, listed, provider.listing.source);
    }
    return undefined;
  }

  return { plan, findLive };
}
