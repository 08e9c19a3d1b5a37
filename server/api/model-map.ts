import type { Catalog } from '../../catalog/catalog.ts';
import type { ModelMapping } from '../config/index.ts';
import type { ClientApi } from './completion.ts';

/**
 * The catalog id a request's `model` stands for: a catalog id or alias as it
 * is, else the target of the first mapping whose glob it matches (MODEL_MAP,
 * and before it ANTHROPIC_MODEL_MAP on the Messages API), else itself (a 404).
 * A step before the catalog resolves the id, and nothing more.
 */
export function modelResolver(catalog: Catalog, mappings: readonly ModelMapping[]): (model: string) => string {
  if (mappings.length === 0) return (model) => model;
  return (model) => {
    if (catalog.byId.has(model)) return model;
    for (const mapping of mappings) if (mapping.pattern.test(model)) return mapping.target;
    return model;
  };
}

/** An API whose `model` goes through `resolve` first; the API itself when there is nothing to map. */
export function withModelMap<Req>(api: ClientApi<Req>, mappings: readonly ModelMapping[], catalog: Catalog): ClientApi<Req> {
  if (mappings.length === 0) return api;
  const resolve = modelResolver(catalog, mappings);
  return { ...api, target: (request) => resolve(api.target(request)), sentModel: (request) => api.target(request) };
}
