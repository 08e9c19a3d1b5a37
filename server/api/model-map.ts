import type { ClientApiOptions } from './client-api.ts';

/**
 * The one way a client API maps a request's `model`: a catalog id or alias as it
 * is, else the target of the first mapping whose glob it matches (the API's own map,
 * ANTHROPIC_MODEL_MAP or GEMINI_MODEL_MAP, then MODEL_MAP), else itself (a 404).
 * A step before the catalog resolves the id, and nothing more.
 */
export function modelResolver({ catalog, modelMap }: Pick<ClientApiOptions, 'catalog' | 'modelMap'>): (model: string) => string {
  if (modelMap.length === 0) return (model) => model;
  return (model) => {
    if (catalog.byId.has(model)) return model;
    for (const mapping of modelMap) if (mapping.pattern.test(model)) return mapping.target;
    return model;
  };
}
