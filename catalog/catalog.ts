import type { Capability, ModelKind, ModelSpec, ProviderPlugin, Tier } from '../providers/types.ts';

export interface CatalogModel {
  /** `{provider}/{modelId}` */
  readonly id: string;
  readonly provider: ProviderPlugin;
  readonly spec: ModelSpec;
}

export interface Alias {
  /** `free:<name>` */
  readonly id: string;
  /** The capability every model of the alias has; none for `free:auto`. */
  readonly capability: Capability | undefined;
  /** Chat models that are not deprecated, in provider priority order, then plugin order. */
  readonly models: readonly CatalogModel[];
}

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  capabilities: Capability[];
  context_window?: number | null;
  deprecated?: boolean;
  /** What a free key of the provider gets (`free`, `free with limits`, `trial credit`, `paid only`). */
  tier?: Tier;
  /** Only for a model that is not a chat model. */
  kind?: ModelKind | 'other';
  /** With key headers: `live` when the keys' own model lists say so, `curated` when it is the plugin's list. */
  source?: 'live' | 'curated';
  /** With key headers: whether the keys can use the model now. */
  available?: boolean;
  /** Why not, when `available` is false. */
  reason?: string;
}

export interface Catalog {
  readonly providers: readonly ProviderPlugin[];
  readonly models: readonly CatalogModel[];
  readonly aliases: readonly Alias[];
  /** Alias or concrete model by its public id. */
  readonly byId: ReadonlyMap<string, Alias | CatalogModel>;
  /** `GET /v1/models`, serialized once. */
  readonly listBody: string;
  /** `GET /v1/models/{id}` bodies, serialized once. */
  readonly objectBodies: ReadonlyMap<string, string>;
}

const ALIAS_OWNER = 'freeway';

const aliasCapabilities: ReadonlyArray<readonly [string, Capability | undefined]> = [
  ['free:auto', undefined],
  ['free:fast', 'fast'],
  ['free:reasoning', 'reasoning'],
  ['free:long-context', 'long-context'],
  ['free:vision', 'vision'],
  ['free:tool-use', 'tool-use'],
];

/** Every alias id, `free:auto` first. */
export const aliasIds: readonly string[] = aliasCapabilities.map(([id]) => id);

export function isAlias(entry: Alias | CatalogModel): entry is Alias {
  return 'models' in entry;
}

/** Turns the loaded plugins into the model catalog. Runs once at start-up. */
export function buildCatalog(plugins: readonly ProviderPlugin[], created = Math.floor(Date.now() / 1000)): Catalog {
  const providers = [...plugins].sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id));
  const models: CatalogModel[] = [];
  const byId = new Map<string, Alias | CatalogModel>();
  for (const provider of providers) {
    for (const spec of provider.models) {
      const id = `${provider.id}/${spec.id}`;
      if (byId.has(id)) throw new Error(`Model ${id} is declared twice`);
      const model: CatalogModel = { id, provider, spec };
      models.push(model);
      byId.set(id, model);
    }
  }
  // Neither a deprecated model nor one that is not a chat model is ever picked by an alias.
  const usable = models.filter((model) => !model.spec.deprecated && (model.spec.kind ?? 'chat') === 'chat');
  const aliases: Alias[] = aliasCapabilities.map(([id, capability]) => ({
    id,
    capability,
    models: capability ? usable.filter((model) => model.spec.capabilities.includes(capability)) : usable,
  }));
  for (const alias of aliases) byId.set(alias.id, alias);

  const objects: ModelObject[] = [
    ...aliases.map((alias): ModelObject => ({
      id: alias.id,
      object: 'model',
      created,
      owned_by: ALIAS_OWNER,
      capabilities: alias.capability ? [alias.capability] : [],
    })),
    ...models.map((model): ModelObject => ({
      id: model.id,
      object: 'model',
      created,
      owned_by: model.provider.id,
      capabilities: [...model.spec.capabilities],
      context_window: model.spec.contextWindow,
      deprecated: model.spec.deprecated === true,
      tier: model.provider.tier.tier,
    })),
  ];
  const objectBodies = new Map(objects.map((object) => [object.id, JSON.stringify(object)]));
  const listBody = JSON.stringify({ object: 'list', data: objects });
  return { providers, models, aliases, byId, listBody, objectBodies };
}
