import type { Request } from 'express';
import type { Catalog, CatalogModel, ModelObject } from '../../catalog/catalog.ts';
import type { ListedModel } from '../../providers/types.ts';
import type { KeyReader } from '../core/keys.ts';
import type { KeyHasher } from '../state/key-hash.ts';
import type { ModelKnowledge } from './model-knowledge.ts';
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

export function keyModelList(deps: KeyModelDeps): KeyModelList {
  const { catalog, readKeys, hashKey, knowledge, created } = deps;
  const aliasObjects: ModelObject[] = catalog.aliases.map((alias) => JSON.parse(catalog.objectBodies.get(alias.id) as string) as ModelObject);
  const curatedByProvider = new Map<string, CatalogModel[]>();
  for (const model of catalog.models) {
    const group = curatedByProvider.get(model.provider.id);
    if (group) group.push(model);
    else curatedByProvider.set(model.provider.id, [model]);
  }

  return async (req) => {
    const keys = readKeys(req.headers);
    if (keys.size === 0) return undefined;
    const client = (): string => deps.clientOf(req);
    const objects: ModelObject[] = [...aliasObjects];
    for (const provider of catalog.providers) {
      const pool = keys.get(provider.id);
      if (!pool) continue;
      const healthIds = pool.map((key) => hashKey(provider.id, key));
      const [lists, quarantined] = await Promise.all([knowledge.lists.lists(provider, pool, healthIds, client), knowledge.quarantines.read(healthIds)]);
      const listedBy = pool.map((_, k) => lists[k]);
      const anyList = listedBy.some((list) => list !== undefined);
      const tier = provider.tier.tier;
      const curated = curatedByProvider.get(provider.id) ?? [];
      for (const model of curated) {
        const inList = listedBy.some((list) => list?.models.has(model.spec.id));
        // A key without a list is assumed to serve the curated models.
        const assumed = listedBy.some((list) => list === undefined);
        const object: ModelObject = {
          id: model.id,
          object: 'model',
          created,
          owned_by: provider.id,
          capabilities: [...model.spec.capabilities],
          context_window: model.spec.contextWindow,
          deprecated: model.spec.deprecated === true,
          tier,
          source: inList ? 'live' : 'curated',
          available: true,
        };
        if (model.spec.kind !== undefined && model.spec.kind !== 'chat') object.kind = model.spec.kind;
        const why = anyList && !inList && !assumed ? NOT_LISTED : quarantineReason(model.spec.id, healthIds, quarantined);
        if (why !== undefined) {
          object.available = false;
          object.reason = why;
        }
        objects.push(object);
      }
      if (!anyList) continue;
      // What the lists hold that the plugin does not know, once each, in listing order.
      const extra = new Map<string, ListedModel>();
      for (const list of listedBy) {
        if (!list) continue;
        for (const [id, listed] of knowledge.view(provider, list).listed) if (!catalog.byId.has(id) && !extra.has(id)) extra.set(id, listed);
      }
      for (const [id, listed] of extra) {
        const object: ModelObject = {
          id,
          object: 'model',
          created,
          owned_by: provider.id,
          capabilities: [...(listed.capabilities ?? [])],
          context_window: listed.contextWindow ?? null,
          deprecated: false,
          tier,
          source: 'live',
          available: true,
        };
        if (listed.kind !== 'chat') object.kind = listed.kind;
        const why = quarantineReason(listed.id, healthIds, quarantined);
        if (why !== undefined) {
          object.available = false;
          object.reason = why;
        }
        objects.push(object);
      }
    }
    return objects;
  };
}
