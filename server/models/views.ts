import { aliasIds, type Catalog, type CatalogModel } from '../../catalog/catalog.ts';
import type { Capability, ListedModel, ModelSpec, ProviderPlugin } from '../../providers/types.ts';
import type { LiveList } from './live-lists.ts';

/** What one key's live list means for routing; made once per list. */
export interface KeyView {
  readonly provider: ProviderPlugin;
  /** Alias id -> the list's models that alias may pick, in plugin order, then the unknown free ones in listing order. */
  readonly aliases: ReadonlyMap<string, readonly CatalogModel[]>;
  /** Every chat model of the list, by catalog id: the catalog's own entry when the plugin knows the model. */
  readonly chat: ReadonlyMap<string, CatalogModel>;
  /** Catalog id -> the listing's own entry, for every model of the list (chat or not). */
  readonly listed: ReadonlyMap<string, ListedModel>;
}

const capabilityOf: Readonly<Record<string, Capability | undefined>> = Object.fromEntries(aliasIds.map((id) => [id, id === 'free:auto' ? undefined : (id.slice(5) as Capability)]));

/** A catalog entry for a listed model the plugin does not know: what the listing says of it. */
export function liveModel(provider: ProviderPlugin, listed: ListedModel): CatalogModel {
  const spec: { -readonly [K in keyof ModelSpec]: ModelSpec[K] } = {
    id: listed.id,
    capabilities: listed.capabilities ?? [],
    contextWindow: listed.contextWindow ?? 0,
  };
  if (listed.kind !== 'chat' && listed.kind !== 'other') spec.kind = listed.kind;
  if (listed.maxOutputTokens !== undefined) spec.maxOutputTokens = listed.maxOutputTokens;
  const model: CatalogModel = { id: `${provider.id}/${listed.id}`, provider, spec };
  liveOnly.add(model);
  return model;
}

/**
 * Inputs per call for an embedding model only a listing knows: no provider of Freeway's documents a
 * batch limit below 16 (Google, Cohere, Workers AI, NVIDIA, Mistral and DeepInfra take 50 to 2,048).
 */
export const LIVE_EMBEDDING_BATCH = 16;

/**
 * A catalog entry for a listed embedding model the plugin does not declare. Its family is the model
 * itself: no declaration says which other deployment has the same weights, so nothing fails over to
 * or from it, and it takes no `dimensions`.
 */
export function liveEmbeddingModel(provider: ProviderPlugin, listed: ListedModel, source: string): CatalogModel {
  const id = `${provider.id}/${listed.id}`;
  const contextWindow = listed.contextWindow ?? 0;
  const model: CatalogModel = {
    id,
    provider,
    spec: { id: listed.id, kind: 'embedding', capabilities: [], contextWindow },
    embedding: { id: listed.id, family: { id, source }, maxBatch: LIVE_EMBEDDING_BATCH, contextWindow, defaultDimensions: 0, tokenInput: false },
  };
  liveOnly.add(model);
  return model;
}

const liveOnly = new WeakSet<CatalogModel>();

/** True for a model only a live list knows (not the plugin's curated list). */
export const isLiveOnly = (model: CatalogModel): boolean => liveOnly.has(model);

/** True when a model of the catalog or of a listing may answer a chat request. */
export const isChatModel = (spec: ModelSpec): boolean => (spec.kind ?? 'chat') === 'chat';

export function createViews(catalog: Catalog): (provider: ProviderPlugin, list: LiveList) => KeyView {
  const made = new WeakMap<LiveList, KeyView>();
  const curatedOrder = new Map(catalog.models.map((model, index) => [model.id, index]));
  return (provider, list) => {
    const found = made.get(list);
    if (found) return found;
    const chat = new Map<string, CatalogModel>();
    const listed = new Map<string, ListedModel>();
    const known: CatalogModel[] = [];
    const unknownFree: CatalogModel[] = [];
    for (const model of list.models.values()) {
      const id = `${provider.id}/${model.id}`;
      listed.set(id, model);
      const entry = catalog.byId.get(id);
      const curated = entry && !('models' in entry) ? entry : undefined;
      if (curated) {
        // A model the plugin knows keeps its curated capabilities and window; one that the plugin
        // or the listing says is not a chat model is never routed as chat.
        if (!isChatModel(curated.spec) || model.kind !== 'chat') continue;
        chat.set(id, curated);
        if (!curated.spec.deprecated) known.push(curated);
        continue;
      }
      if (model.kind !== 'chat') continue;
      const live = liveModel(provider, model);
      chat.set(id, live);
      // Only a model the listing or the plugin's rules show as free joins the aliases.
      if (model.free) unknownFree.push(live);
    }
    known.sort((a, b) => (curatedOrder.get(a.id) ?? 0) - (curatedOrder.get(b.id) ?? 0));
    const members = [...known, ...unknownFree];
    const aliases = new Map<string, readonly CatalogModel[]>();
    for (const alias of aliasIds) {
      const capability = capabilityOf[alias];
      aliases.set(alias, capability ? members.filter((model) => model.spec.capabilities.includes(capability)) : members);
    }
    const view: KeyView = { provider, aliases, chat, listed };
    made.set(list, view);
    return view;
  };
}
