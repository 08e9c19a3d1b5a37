import { tierRank, type Alias, type CatalogModel } from '../../catalog/catalog.ts';
import type { Capability } from '../../providers/types.ts';
import type { RoutingStrategy } from '../config/index.ts';
import { freewayError } from '../core/errors.ts';
import type { HealthView } from './health-policy.ts';
import { isAnonymous, type KeySet } from '../core/keys.ts';
import type { LiveList } from '../models/live-lists.ts';
import type { Quarantined } from '../models/quarantine.ts';
import type { KeyView } from '../models/views.ts';
import { isLiveOnly } from '../models/views.ts';
import { keyName, refusedKey, skipReason } from './failover.ts';

/** Planning: which models and keys a request tries, in which order. Pure: every input is handed in. */

export interface Candidate {
  readonly model: CatalogModel;
  readonly key: string;
  /** `provider:hmac(key)`, the health record's id. */
  readonly healthId: string;
  /** 0 healthy, 1 half-open: the attempt is the key's probe. */
  readonly tier: 0 | 1;
  /** The key's position in its header, from 1. */
  readonly keyPosition: number;
  /** How many keys that header carried; with more than one, attempts and messages name the key by position. */
  readonly keyCount: number;
  /** The output budget for this attempt when the model takes less than the request asks for; else the request's own. */
  readonly maxOutputTokens?: number;
}

/** One of a provider's keys that this request may use. */
export interface PoolKey {
  readonly key: string;
  readonly healthId: string;
  /** Its position in the header, from 1. */
  readonly position: number;
  readonly tier: 0 | 1;
  /** The key's live model list, when one is known: an alias picks only its models for this key. */
  readonly list?: LiveList;
  /** Models quarantined for this key: an alias skips them. */
  readonly quarantined?: Quarantined;
}

/** A provider's keys as this request sees them. */
export interface ProviderKeys {
  /** The keys not being skipped, in header order. */
  readonly usable: readonly PoolKey[];
  /** How many keys the header carried. */
  readonly count: number;
  /** The key's health id for one key; for a pool an HMAC of its keys' HMACs: round robin and latency are kept per pool. */
  readonly poolId: string;
}

export interface Plan {
  /** `free:…` or `{provider}/{modelId}`. */
  readonly target: string;
  /** What messages name: the target, or what was sent and what it mapped to (`claude-sonnet-4-6 (mapped to free:tool-use)`). */
  readonly label: string;
  readonly pinned: boolean;
  /**
   * One per model, in the order they are tried, each with the first usable key of
   * its provider. For a pool, whose turn it is is decided when the model is tried.
   */
  readonly candidates: readonly Candidate[];
  /** Provider id -> its keys for this request. */
  readonly keys: ReadonlyMap<string, ProviderKeys>;
  /** Candidates left out for their health, as `provider: reason` for the 502 message. */
  readonly skipped: readonly string[];
  readonly retryAfterSeconds: number | undefined;
  /** Keys left out only because they are resting for a rate-limit window, and until when (routing/waiting.ts). */
  readonly resting?: readonly RestingKey[];
  /** The same plan made afresh (health read again), for a request that waited; absent where a plan is made by hand. */
  readonly again?: () => Promise<Plan>;
}

/** A key left out of a plan while its rate-limit window is closed. */
export interface RestingKey {
  readonly provider: string;
  readonly healthId: string;
  /** Its position in its header, from 1, and how many keys the header carried. */
  readonly position: number;
  readonly count: number;
  /** When it may be tried again (epoch ms). */
  readonly until: number;
  /** What the provider said (redacted), when it said anything. */
  readonly reason?: string;
}

/** Everything a plan is made from, gathered beforehand (hashes, health, live lists, latency). */
export interface PlanInput {
  readonly entry: Alias | CatalogModel;
  /** The models to plan: `candidateModels(entry, keys, needs)`. */
  readonly models: readonly CatalogModel[];
  readonly needs: readonly Capability[];
  readonly keys: KeySet;
  /** Provider id -> its keys' health ids, in header order. */
  readonly healthIds: ReadonlyMap<string, readonly string[]>;
  /** Health id -> its health as seen now; a key without one is healthy. */
  readonly health: (healthId: string) => HealthView | undefined;
  /** Provider id -> the live list of each of its keys (header order), for an alias. */
  readonly lists?: ReadonlyMap<string, ReadonlyArray<LiveList | undefined>>;
  /** Health id -> the models quarantined for that key. */
  readonly quarantined?: ReadonlyMap<string, Quarantined>;
  /** What a live list means for routing (`ModelKnowledge.view`); without it, live lists are ignored. */
  readonly view?: (provider: CatalogModel['provider'], list: LiveList) => KeyView;
  /** A pool's id from its keys' health ids. */
  readonly poolId: (providerId: string, healthIds: readonly string[]) => string;
  readonly routing: RoutingStrategy;
  /** ROUTING_QUALITY_BAND: under `quality`, scores this close are ordered by speed. */
  readonly qualityBand: number;
  /** The catalog id of the model that answered the conversation's last turn: it goes first when it is a candidate of the leading tier. */
  readonly preferred?: string;
  /** How messages name the entry when a model map chose it (`claude-sonnet-4-6 (mapped to free:tool-use)`); its id when absent. */
  readonly label?: string;
  readonly exploreShare: number;
  /** The first-token latency estimate of a pool's model (`poolModelId`), when one is known. */
  readonly latency: (id: string) => number | undefined;
  readonly random: () => number;
}

/** The id a key pool's round robin and time-to-first-token estimates are kept under, for one model. */
export const poolModelId = (poolId: string, modelId: string): string => `${poolId}|${modelId}`;

export const hasAll = (model: CatalogModel, needs: readonly Capability[]): boolean =>
  needs.every((need) => model.spec.capabilities.includes(need));

function headerList(models: readonly CatalogModel[]): string {
  return [...new Set(models.map((model) => model.provider.header))].join(', ');
}

/** What was asked for, with the capabilities the request needs: `free:auto with vision`. */
const wanted = (label: string, needs: readonly Capability[]): string => (needs.length === 0 ? label : `${label} with ${needs.join(' and ')}`);

/** What a model must do, in words: `that takes images`. */
const capabilityWords: Readonly<Record<Capability, string>> = {
  vision: 'that takes images',
  'tool-use': 'that calls tools',
  reasoning: 'that reasons',
  'long-context': 'with a long context window',
  fast: 'among the fast ones',
  pdf: 'that reads PDFs',
};

/** `for free:vision that takes images`, `for free:auto that takes images and calls tools`. */
function noModelFor(entry: Alias, label: string, needs: readonly Capability[]): string {
  const all = [...new Set([...(entry.capability ? [entry.capability] : []), ...needs])];
  // `that calls tools and takes images`: one `that` for the whole list.
  const words = all.map((need, index) => (index > 0 ? capabilityWords[need].replace(/^that /, '') : capabilityWords[need]));
  return words.length === 0 ? `for ${label}` : `for ${label} ${words.join(' and ')}`;
}

/** The header of each provider the request has keys for (or asks without a key), as the plugin contract names it. */
const sentHeaders = (keys: KeySet): string => [...keys.keys()].map((id) => `X-${id.charAt(0).toUpperCase()}${id.slice(1)}-Key`).join(', ');

/** Each alias's models by provider, in the alias's order: made on an alias's first request. */
const aliasModelsByProvider = new WeakMap<Alias, ReadonlyMap<string, readonly CatalogModel[]>>();

function byProviderOf(alias: Alias): ReadonlyMap<string, readonly CatalogModel[]> {
  let byProvider = aliasModelsByProvider.get(alias);
  if (!byProvider) {
    const grouped = new Map<string, CatalogModel[]>();
    for (const model of alias.models) {
      const group = grouped.get(model.provider.id);
      if (group) group.push(model);
      else grouped.set(model.provider.id, [model]);
    }
    aliasModelsByProvider.set(alias, (byProvider = grouped));
  }
  return byProvider;
}

/** An alias's models whose provider the request has keys for, in the alias's order; with keys for one provider, no walk of the alias's models. */
function modelsWithKeys(alias: Alias, keys: KeySet): readonly CatalogModel[] {
  if (keys.size === 1) {
    for (const provider of keys.keys()) return byProviderOf(alias).get(provider) ?? [];
  }
  return alias.models.filter((model) => keys.has(model.provider.id));
}

/**
 * The models an entry may be served by with these keys. None: a 401 naming the headers to send when the
 * request carries no key, a 400 saying that the keys sent cover no such model (and whose would) when it does.
 */
export function candidateModels(entry: Alias | CatalogModel, keys: KeySet, needs: readonly Capability[], label: string = entry.id): readonly CatalogModel[] {
  if (!('models' in entry)) {
    if (!keys.has(entry.provider.id)) throw freewayError('FREEWAY_KEY_HEADER_MISSING', { model: label, header: entry.provider.header });
    return [entry];
  }
  const models = needs.length === 0 ? modelsWithKeys(entry, keys) : entry.models.filter((model) => keys.has(model.provider.id) && hasAll(model, needs));
  if (models.length === 0) {
    const capable = needs.length === 0 ? entry.models : entry.models.filter((model) => hasAll(model, needs));
    if (keys.size > 0 && capable.length > 0) throw freewayError('FREEWAY_KEYS_COVER_NO_MODEL', { sent: sentHeaders(keys), what: noModelFor(entry, label, needs), headers: headerList(capable) });
    throw freewayError('FREEWAY_NO_PROVIDER_KEY', { what: wanted(label, needs), headers: headerList(capable) });
  }
  return models;
}

/** Whether an alias may pick `model` with `choice`: in the key's live list (or curated, without one), and not quarantined. */
export function canUse(choice: PoolKey, model: CatalogModel): boolean {
  if (choice.quarantined?.has(model.spec.id)) return false;
  return choice.list ? choice.list.models.has(model.spec.id) : !isLiveOnly(model);
}

/** A pinned model with a single key is always tried, as there is nothing to choose from. */
export function looksAtHealth(pinned: boolean, healthIds: ReadonlyMap<string, readonly string[]>): boolean {
  if (!pinned) return true;
  for (const ids of healthIds.values()) if (ids.length > 1) return true;
  return false;
}

interface Skips {
  readonly skipped: string[];
  retryAfterSeconds: number | undefined;
  readonly resting: RestingKey[];
}

/** One provider's keys for this request; the ones skipped for their health are added to `skips`. */
function providerKeysOf(input: PlanInput, id: string, lookHealth: boolean, skips: Skips): ProviderKeys {
  const pool = input.keys.get(id) ?? [];
  const poolIds = input.healthIds.get(id) ?? [];
  const usable: PoolKey[] = [];
  for (let k = 0; k < pool.length; k++) {
    const healthId = poolIds[k] as string;
    const view = input.health(healthId);
    if (view && view.tier === 2 && lookHealth) {
      if (view.state === 'invalid_key' || view.state === 'no_credit') {
        // Refused earlier and not tried again: waiting would not help, so no Retry-After from it.
        const header = (input.models.find((model) => model.provider.id === id) as CatalogModel).provider.header;
        const reason = view.reason ?? (view.state === 'invalid_key' ? 'invalid key' : 'no credit');
        skips.skipped.push(`${keyName(id, k + 1, pool.length)}: ${refusedKey({ kind: view.state, reason, header, position: k + 1, count: pool.length, earlier: true })}`);
        continue;
      }
      skips.skipped.push(`${keyName(id, k + 1, pool.length)}: ${skipReason(view.state, view.retryAfter, view.reason)}`);
      if (view.state === 'rate_limited' && view.until !== undefined) skips.resting.push({ provider: id, healthId, position: k + 1, count: pool.length, until: view.until, reason: view.reason });
      if (view.retryAfter !== undefined) skips.retryAfterSeconds = Math.min(skips.retryAfterSeconds ?? Infinity, view.retryAfter);
      continue;
    }
    const list = input.lists?.get(id)?.[k];
    const quarantined = input.quarantined?.get(healthId);
    const choice: PoolKey = { key: pool[k] as string, healthId, position: k + 1, tier: view?.tier === 1 ? 1 : 0 };
    usable.push(list || quarantined ? { ...choice, list, quarantined } : choice);
  }
  return { usable, count: pool.length, poolId: input.poolId(id, poolIds) };
}

/** The models of `provider` an alias picks for keys with live lists: the union of their lists' views, in order. */
function liveAliasModels(input: PlanInput, provider: CatalogModel['provider'], lists: ReadonlyArray<LiveList | undefined>, curated: readonly CatalogModel[]): CatalogModel[] {
  const view = input.view as NonNullable<PlanInput['view']>;
  const alias = input.entry as Alias;
  const seen = new Set<string>();
  const merged: CatalogModel[] = [];
  const add = (model: CatalogModel): void => {
    if (seen.has(model.id)) return;
    seen.add(model.id);
    merged.push(model);
  };
  for (const list of lists) {
    if (list) for (const model of view(provider, list).aliases.get(alias.id) ?? []) add(model);
    // A key of the pool without a list is assumed to serve the curated models.
    else for (const model of curated) add(model);
  }
  return merged;
}


/** Why a key the alias could use has nothing to try: its live list holds none of the alias's models, or they are quarantined. */
function nothingToTry(input: PlanInput, choice: PoolKey, candidates: readonly CatalogModel[]): string {
  const listed = choice.list ? candidates.filter((model) => choice.list?.models.has(model.spec.id)) : candidates.filter((model) => !isLiveOnly(model));
  const first = listed.find((model) => choice.quarantined?.has(model.spec.id));
  const what = wanted(input.label ?? input.entry.id, input.needs);
  if (!first) return `its model list (GET /v1/models with the key) holds none of ${what}'s models`;
  const more = listed.length > 1 ? ` and ${listed.length - 1} more` : '';
  return `the models of ${what} it serves are quarantined: ${first.spec.id} (${choice.quarantined?.get(first.spec.id) ?? 'not found'})${more}`;
}

/**
 * An alias's models for this request's keys, once some key has a live list or a quarantined model.
 * A provider whose keys have nothing to try is named in `skips`, each key with why.
 */
function learntModels(input: PlanInput, providerKeys: ReadonlyMap<string, ProviderKeys>, skips: Skips): CatalogModel[] {
  const byProvider = new Map<string, CatalogModel[]>();
  for (const model of input.models) {
    const group = byProvider.get(model.provider.id);
    if (group) group.push(model);
    else byProvider.set(model.provider.id, [model]);
  }
  const result: CatalogModel[] = [];
  for (const [id, group] of byProvider) {
    const provider = (group[0] as CatalogModel).provider;
    const providerLists = input.lists?.get(id);
    // A chat alias takes what the lists add; an embedding or transcription alias only its declared models, which
    // canUse below keeps to the keys whose lists hold them.
    const chatAlias = !('kind' in input.entry) || (input.entry.kind ?? 'chat') === 'chat';
    const candidates =
      chatAlias && input.view && providerLists?.some((list) => list !== undefined)
        ? liveAliasModels(input, provider, providerLists, group).filter((model) => hasAll(model, input.needs))
        : group;
    const { usable, count } = providerKeys.get(id) as ProviderKeys;
    const before = result.length;
    for (const model of candidates) if (usable.some((choice) => canUse(choice, model))) result.push(model);
    if (result.length === before) for (const choice of usable) skips.skipped.push(`${keyName(id, choice.position, count)}: ${nothingToTry(input, choice, candidates)}`);
  }
  return result;
}

/** A candidate's tier: its provider's, or free for a call without a key (the provider's own free use). */
const tierOf = (candidate: Candidate): number => (isAnonymous(candidate.key) ? 0 : tierRank(candidate.model.provider));

/** How many candidates, from `from`, share the tier of the one there. */
function countSameTier(ready: readonly Candidate[], from = 0): number {
  const first = tierOf(ready[from] as Candidate);
  let count = 1;
  while (from + count < ready.length && tierOf(ready[from + count] as Candidate) === first) count += 1;
  return count;
}

type Ranked = Candidate & { readonly order: number; readonly ms: number; readonly score: number | undefined };

/** Faster first; with nothing measured (or the same), catalog order (provider priority, then plugin order). */
const bySpeed = (a: Ranked, b: Ranked): number => a.ms - b.ms || a.order - b.order;

/**
 * The free tier under `quality`: scored models first, strongest first; models whose scores lie within
 * `band` of the strongest of their group are ordered among themselves by observed speed, and with nothing
 * measured the higher score goes first (then catalog order); models without a score follow, by speed.
 * Returns how many candidates lead as the top band (for exploration).
 */
function byQuality(free: Ranked[], band: number): number {
  const scored = free.filter((candidate) => candidate.score !== undefined).sort((a, b) => (b.score as number) - (a.score as number) || a.order - b.order);
  const unscored = free.filter((candidate) => candidate.score === undefined).sort(bySpeed);
  const ordered: Ranked[] = [];
  let topBand = 0;
  for (let start = 0; start < scored.length; ) {
    const top = (scored[start] as Ranked).score as number;
    let end = start + 1;
    while (end < scored.length && top - ((scored[end] as Ranked).score as number) <= band) end += 1;
    const group = scored.slice(start, end).sort((a, b) => a.ms - b.ms || (b.score as number) - (a.score as number) || a.order - b.order);
    if (start === 0) topBand = group.length;
    ordered.push(...group);
    start = end;
  }
  free.splice(0, free.length, ...ordered, ...unscored);
  return topBand > 0 ? topBand : free.length;
}

/**
 * The candidates in the order they are tried: free tiers first, then the providers whose allowance is
 * money, paid-only last. Within the free tier by the strategy (quality: the strongest usable model first;
 * latency: the fastest; priority: catalog order); costlier tiers keep speed-then-catalog order under
 * quality too, so that quality never spends a credit on the dearest model first. Now and then one other
 * candidate of the leading group is explored, to keep the speed estimates fresh.
 */
function orderCandidates(input: PlanInput, models: readonly CatalogModel[], providerKeys: ReadonlyMap<string, ProviderKeys>, pinned: boolean): Candidate[] {
  const strategy = input.routing === 'quality' && input.entry.id === 'free:fast' ? 'latency' : input.routing;
  const measured = strategy !== 'priority';
  const ready: Ranked[] = [];
  models.forEach((model, order) => {
    const { usable, count, poolId } = providerKeys.get(model.provider.id) as ProviderKeys;
    const first = pinned ? usable[0] : usable.find((choice) => canUse(choice, model));
    if (!first) return;
    const ms = measured ? input.latency(poolModelId(poolId, model.spec.id)) ?? Infinity : 0;
    ready.push({ model, key: first.key, healthId: first.healthId, tier: first.tier, keyPosition: first.position, keyCount: count, order, ms, score: model.spec.quality?.score });
  });
  // A half-open key keeps its place: the request that reaches it is its probe.
  ready.sort((a, b) => tierOf(a) - tierOf(b) || bySpeed(a, b));
  if (ready.length === 0) return ready;
  const firstTier = countSameTier(ready);
  let leading = firstTier;
  if (strategy === 'quality' && tierOf(ready[0] as Candidate) === 0) {
    const free = ready.slice(0, firstTier);
    leading = byQuality(free, input.qualityBand);
    ready.splice(0, firstTier, ...free);
  }
  if (measured && leading > 1 && input.random() < input.exploreShare) {
    // Keep the estimates of the others fresh: now and then one of them goes first, never one of a costlier tier or a lower band.
    const pick = 1 + Math.floor(input.random() * (leading - 1));
    const [explored] = ready.splice(pick, 1);
    if (explored) ready.unshift(explored);
  }
  return ready;
}

/**
 * A conversation keeps its model: the one that answered its last turn goes first, if it is a candidate
 * of this request (its alias, the capabilities asked for, a usable key) in the leading tier. Stickiness
 * never makes a conversation spend a credit while a free model can answer.
 */
function preferFirst(candidates: Candidate[], preferred: string | undefined): Candidate[] {
  if (preferred === undefined || candidates.length < 2) return candidates;
  const at = candidates.findIndex((candidate) => candidate.model.id === preferred);
  if (at <= 0 || tierOf(candidates[at] as Candidate) !== tierOf(candidates[0] as Candidate)) return candidates;
  const [kept] = candidates.splice(at, 1);
  candidates.unshift(kept as Candidate);
  return candidates;
}

/** The plan for one request: the candidates in order, each provider's usable keys, and what was skipped and why. */
export function planCandidates(input: PlanInput): Plan {
  const { entry } = input;
  const pinned = !('models' in entry);
  const lookHealth = looksAtHealth(pinned, input.healthIds);
  const providerKeys = new Map<string, ProviderKeys>();
  const skips: Skips = { skipped: [], retryAfterSeconds: undefined, resting: [] };
  for (const id of input.healthIds.keys()) providerKeys.set(id, providerKeysOf(input, id, lookHealth, skips));
  const learnt = !pinned && input.view !== undefined && (input.lists !== undefined || (input.quarantined?.size ?? 0) > 0);
  const models = learnt ? learntModels(input, providerKeys, skips) : input.models;
  const candidates = preferFirst(orderCandidates(input, models, providerKeys, pinned), input.preferred);
  return { target: entry.id, label: input.label ?? entry.id, pinned, candidates, keys: providerKeys, skipped: skips.skipped, retryAfterSeconds: skips.retryAfterSeconds, resting: skips.resting };
}
