import type { Request } from 'express';
import { rankingFields, type Catalog, type CatalogModel, type ModelObject } from '../../catalog/catalog.ts';
import type { ListedModel } from '../../providers/types.ts';
import type { KeyReader } from '../core/keys.ts';
import type { KeyHasher } from '../state/key-hash.ts';
import type { ModelKnowledge } from './model-knowledge.ts';
import type { LiveList } from './live-lists.ts';
import type { Quarantined } from './quarantine.ts';

/**
 * `GET /v1/models` with key headers: the aliases, then for each provider with a key
 * in the request what those keys can use (a pool: the union of its keys' lists).
 * Undefined without key headers: the catalog's precomputed list serves.
 */
export type KeyModelList = (req: Request) => Promise<ModelObject[] | undefined>;

export interface KeyModelDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly hashKey: KeyHasher;
  readonly knowledge: ModelKnowledge;
  readonly clientOf: (req: Request) => string;
  readonly created: number;
}

const NOT_LISTED = "not in the live model list of the request's keys";

/** Why no key of a pool can use a model, when each has it quarantined; undefined when one can. */
function quarantineReason(modelId: string, healthIds: readonly string[], quarantined: ReadonlyMap<string, Quarantined>): string | undefined {
  let reason: string | undefined;
  for (const healthId of healthIds) {
    const why = quarantined.get(healthId)?.get(modelId);
    if (why === undefined) return undefined;
    reason = why;
  }
  return reason === undefined ? undefined : `quarantined: ${reason}`;
}

/** A model the keys cannot use now, with why; as it is when they can. */
function withReason(object: ModelObject, why: string | undefined): ModelObject {
  if (why === undefined) return object;
  object.available = false;
  object.reason = why;
  return object;
}

/** The keyless list's object of a catalog entry, as a fresh object. */
const objectOf = (catalog: Catalog, id: string): ModelObject => JSON.parse(catalog.objectBodies.get(id) as string) as ModelObject;

/** Each provider's curated models of `models`, in catalog order. */
function byProvider(models: readonly CatalogModel[]): Map<string, CatalogModel[]> {
  const groups = new Map<string, CatalogModel[]>();
  for (const model of models) {
    const group = groups.get(model.provider.id);
    if (group) group.push(model);
    else groups.set(model.provider.id, [model]);
  }
  return groups;
}

export function keyModelList(deps: KeyModelDeps): KeyModelList {
  const { catalog, readKeys, hashKey, knowledge, created } = deps;
  const aliasObjects: ModelObject[] = catalog.aliases.map((alias) => objectOf(catalog, alias.id));
  const curatedByProvider = byProvider(catalog.models);
  // Embedding and transcription models: what the plugins declare (no live list adds to their families).
  const otherKindsByProvider = byProvider([...catalog.embeddingModels, ...catalog.transcriptionModels]);

  /** What the keys' lists hold that the plugin does not know, once each, in listing order. */
  function liveExtras(provider: CatalogModel['provider'], lists: ReadonlyArray<LiveList | undefined>): Map<string, ListedModel> {
    const extra = new Map<string, ListedModel>();
    for (const list of lists) {
      if (!list) continue;
      for (const [id, listed] of knowledge.view(provider, list).listed) if (!catalog.byId.has(id) && !extra.has(id)) extra.set(id, listed);
    }
    return extra;
  }

  /** One provider's models for a pool of its keys: curated chat models, curated models of other kinds, then what only the lists hold. */
  async function providerObjects(provider: CatalogModel['provider'], pool: readonly string[], client: () => string): Promise<ModelObject[]> {
    const objects: ModelObject[] = [];
    const healthIds = pool.map((key) => hashKey(provider.id, key));
    const [lists, quarantined] = await Promise.all([knowledge.lists.lists(provider, pool, healthIds, client), knowledge.quarantines.read(healthIds)]);
    const listedBy = pool.map((_, k) => lists[k]);
    const anyList = listedBy.some((list) => list !== undefined);
    // A key without a list is assumed to serve the curated models.
    const assumed = listedBy.some((list) => list === undefined);
    const tier = provider.tier.tier;
    for (const model of curatedByProvider.get(provider.id) ?? []) {
      const inList = listedBy.some((list) => list?.models.has(model.spec.id));
      const object: ModelObject = {
        id: model.id,
        object: 'model',
        created,
        owned_by: provider.id,
        capabilities: [...model.spec.capabilities],
        context_window: model.spec.contextWindow,
        ...rankingFields(model.spec),
        deprecated: model.spec.deprecated === true,
        tier,
        source: inList ? 'live' : 'curated',
        available: true,
      };
      if (model.spec.kind !== undefined && model.spec.kind !== 'chat') object.kind = model.spec.kind;
      objects.push(withReason(object, anyList && !inList && !assumed ? NOT_LISTED : quarantineReason(model.spec.id, healthIds, quarantined)));
    }
    // Embedding and transcription models too: a curated one missing from every key's list is not the keys' to use.
    for (const model of otherKindsByProvider.get(provider.id) ?? []) {
      const inList = listedBy.some((list) => list?.models.has(model.spec.id));
      const why = anyList && !inList && !assumed ? NOT_LISTED : quarantineReason(model.spec.id, healthIds, quarantined);
      objects.push(withReason({ ...objectOf(catalog, model.id), source: inList ? 'live' : 'curated', available: true }, why));
    }
    if (!anyList) return objects;
    for (const [id, listed] of liveExtras(provider, listedBy)) {
      const object: ModelObject = {
        id,
        object: 'model',
        created,
        owned_by: provider.id,
        capabilities: [...(listed.capabilities ?? [])],
        context_window: listed.contextWindow ?? null,
        ...rankingFields(undefined),
        deprecated: false,
        tier,
        source: 'live',
        available: true,
      };
      if (listed.kind !== 'chat') object.kind = listed.kind;
      objects.push(withReason(object, quarantineReason(listed.id, healthIds, quarantined)));
    }
    return objects;
  }

  /**
   * The chat aliases as the keys see them: one whose capability no usable chat model of the keys has is
   * listed unavailable, with why and whose keys would serve it.
   */
  function aliasesFor(keys: ReadonlySet<string>, models: readonly ModelObject[]): ModelObject[] {
    const usable = models.filter((object) => object.available !== false && !object.deprecated && (object.kind ?? 'chat') === 'chat');
    return catalog.aliases.map((alias, index) => {
      const object = aliasObjects[index] as ModelObject;
      if (usable.some((model) => alias.capability === undefined || model.capabilities.includes(alias.capability))) return object;
      const others = [...new Set(alias.models.filter((model) => !keys.has(model.provider.id)).map((model) => model.provider.header))];
      const why = `no model of the request's keys serves it${others.length > 0 ? `; keys of ${others.join(', ')} do` : ''}`;
      return withReason({ ...object }, why);
    });
  }

  return async (req) => {
    const keys = readKeys(req.headers);
    if (keys.size === 0) return undefined;
    const client = (): string => deps.clientOf(req);
    const models: ModelObject[] = [];
    // free:embed and free:transcribe, when a provider of the request's keys serves their family.
    for (const alias of catalog.kindAliases) {
      if (alias.models.some((model) => keys.has(model.provider.id))) models.push(objectOf(catalog, alias.id));
    }
    for (const provider of catalog.providers) {
      const pool = keys.get(provider.id);
      if (pool) models.push(...(await providerObjects(provider, pool, client)));
    }
    return [...aliasesFor(new Set(keys.keys()), models), ...models];
  };
}
