import { qualitySource } from '../providers/quality.ts';
import type { Capability, EmbeddingModelSpec, ModelFamily, ModelKind, ModelSpec, ProviderPlugin, Tier, TranscriptionModelSpec } from '../providers/types.ts';

export interface CatalogModel {
  /** `{provider}/{modelId}` */
  readonly id: string;
  readonly provider: ProviderPlugin;
  readonly spec: ModelSpec;
  /** For an embedding model: what its plugin declares of it. */
  readonly embedding?: EmbeddingModelSpec;
  /** For a transcription model: what its plugin declares of it. */
  readonly transcription?: TranscriptionModelSpec;
}

export interface Alias {
  /** `free:<name>` */
  readonly id: string;
  /** The capability every model of the alias has; none for `free:auto`. */
  readonly capability: Capability | undefined;
  /** Chat models that are not deprecated, in provider priority order, then plugin order. */
  readonly models: readonly CatalogModel[];
  /** `chat` when absent. */
  readonly kind?: ModelKind;
  /** For an embedding or transcription alias: the one family of weights all its models share. */
  readonly family?: ModelFamily;
}

/** What `/v1/models` says a model or alias is for: a chat capability, or its kind. */
export type ListedCapability = Capability | 'embedding' | 'transcription';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  capabilities: ListedCapability[];
  context_window?: number | null;
  /** The model's score on the benchmark that ranks aliases; null for aliases and models it lacks. */
  quality?: number | null;
  /** The benchmark, its version and dates, and the model's page; null with no score. */
  quality_source?: string | null;
  /** The most tokens one request may hold (prompt and output), where the provider's limits say; else null. */
  max_request_tokens?: number | null;
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
  /** Embedding and transcription models and aliases: the family of weights (same family, same vectors). */
  family?: string;
}

/** The fields of a model object about its quality and per-request limit, all null when unknown (aliases, live-only models). */
export function rankingFields(spec: ModelSpec | undefined): Pick<ModelObject, 'quality' | 'quality_source' | 'max_request_tokens'> {
  const quality = spec?.quality;
  return { quality: quality?.score ?? null, quality_source: quality ? qualitySource(quality) : null, max_request_tokens: spec?.maxRequestTokens ?? null };
}

export interface Catalog {
  readonly providers: readonly ProviderPlugin[];
  /** The chat models. */
  readonly models: readonly CatalogModel[];
  /** The six chat aliases. */
  readonly aliases: readonly Alias[];
  /** `/v1/embeddings` models, with their `embedding` spec. */
  readonly embeddingModels: readonly CatalogModel[];
  /** `/v1/audio/transcriptions` models, with their `transcription` spec. */
  readonly transcriptionModels: readonly CatalogModel[];
  /** `free:embed` and `free:transcribe`: each names one family. */
  readonly kindAliases: readonly Alias[];
  /** Alias or concrete model (of any kind) by its public id. */
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

/**
 * The embedding and transcription aliases, each bound to one family of weights so that
 * failover never mixes vectors. `bge-m3`: the family served by most providers Freeway has
 * (Workers AI, NVIDIA, DeepInfra), multilingual, 1024 dimensions. `whisper-large-v3-turbo`:
 * served by Groq and Workers AI. See docs/embeddings-and-transcription.md.
 */
export const kindAliasFamilies: ReadonlyArray<readonly [string, 'embedding' | 'transcription', string]> = [
  ['free:embed', 'embedding', 'bge-m3'],
  ['free:transcribe', 'transcription', 'whisper-large-v3-turbo'],
];

export function isAlias(entry: Alias | CatalogModel): entry is Alias {
  return 'models' in entry;
}

/** The kind of a model or alias: `chat` unless it says otherwise. */
export function kindOf(entry: Alias | CatalogModel): ModelKind {
  return (isAlias(entry) ? entry.kind : entry.spec.kind) ?? 'chat';
}

const KIND_ROUTES: Readonly<Record<ModelKind, string>> = {
  chat: 'POST /v1/chat/completions, /v1/responses or /v1/messages',
  embedding: 'POST /v1/embeddings',
  transcription: 'POST /v1/audio/transcriptions',
};

const article = (kind: ModelKind): string => (kind === 'embedding' ? 'an' : 'a');

/** What the FREEWAY_WRONG_MODEL_KIND error says of a model of the wrong kind for a route. */
export function wrongKind(id: string, kind: ModelKind, wanted: ModelKind): { model: string; kind: string; wanted: string; route: string } {
  return { model: id, kind: `${article(kind)} ${kind} model`, wanted: `${article(wanted)} ${wanted} model`, route: KIND_ROUTES[kind] };
}

function familyOf(model: CatalogModel): ModelFamily | undefined {
  return model.embedding?.family ?? model.transcription?.family;
}

const tierRanks: Readonly<Record<Tier, number>> = { free: 0, 'free with limits': 0, 'monthly credit': 1, 'trial credit': 1, 'paid only': 2 };

/**
 * Free tiers first: a provider whose free offer is a money credit (monthly or a trial) comes after every free one, and a paid-only
 * provider (whose key the caller sent, so it is used) last, whatever their priority or speed, so that an alias
 * spends money only when nothing free could answer.
 */
export const tierRank = (provider: ProviderPlugin): number => tierRanks[provider.tier.tier];

/** Turns the loaded plugins into the model catalog. Runs once at start-up. */
export function buildCatalog(plugins: readonly ProviderPlugin[], created = Math.floor(Date.now() / 1000)): Catalog {
  const providers = [...plugins].sort((a, b) => tierRank(a) - tierRank(b) || a.priority - b.priority || a.id.localeCompare(b.id));
  const models: CatalogModel[] = [];
  const embeddingModels: CatalogModel[] = [];
  const transcriptionModels: CatalogModel[] = [];
  const byId = new Map<string, Alias | CatalogModel>();
  const add = (list: CatalogModel[], model: CatalogModel): void => {
    if (byId.has(model.id)) throw new Error(`Model ${model.id} is declared twice`);
    list.push(model);
    byId.set(model.id, model);
  };
  for (const provider of providers) {
    for (const spec of provider.models) add(models, { id: `${provider.id}/${spec.id}`, provider, spec });
    for (const embedding of provider.embeddingModels ?? []) {
      const spec: ModelSpec = { id: embedding.id, kind: 'embedding', capabilities: [], contextWindow: embedding.contextWindow, deprecated: embedding.deprecated };
      add(embeddingModels, { id: `${provider.id}/${embedding.id}`, provider, spec, embedding });
    }
    for (const transcription of provider.transcriptionModels ?? []) {
      const spec: ModelSpec = { id: transcription.id, kind: 'transcription', capabilities: [], contextWindow: 0, deprecated: transcription.deprecated };
      add(transcriptionModels, { id: `${provider.id}/${transcription.id}`, provider, spec, transcription });
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
  const kindAliases: Alias[] = kindAliasFamilies.map(([id, kind, family]) => {
    const members = (kind === 'embedding' ? embeddingModels : transcriptionModels).filter((model) => !model.spec.deprecated && familyOf(model)?.id === family);
    const first = members[0];
    return { id, capability: undefined, kind, models: members, family: first ? familyOf(first) : { id: family, source: '' } };
  });
  for (const alias of kindAliases) byId.set(alias.id, alias);

  const concrete = (model: CatalogModel): ModelObject => {
    const object: ModelObject = {
      id: model.id,
      object: 'model',
      created,
      owned_by: model.provider.id,
      capabilities: model.embedding ? ['embedding'] : model.transcription ? ['transcription'] : [...model.spec.capabilities],
      deprecated: model.spec.deprecated === true,
      tier: model.provider.tier.tier,
    };
    if (!model.transcription) object.context_window = model.spec.contextWindow;
    Object.assign(object, rankingFields(model.spec));
    const family = familyOf(model);
    if (family) object.family = family.id;
    return object;
  };
  const objects: ModelObject[] = [
    ...aliases.map((alias): ModelObject => ({
      id: alias.id,
      object: 'model',
      created,
      owned_by: ALIAS_OWNER,
      capabilities: alias.capability ? [alias.capability] : [],
      ...rankingFields(undefined),
    })),
    ...kindAliases.map((alias): ModelObject => ({
      id: alias.id,
      object: 'model',
      created,
      owned_by: ALIAS_OWNER,
      capabilities: [alias.kind as 'embedding' | 'transcription'],
      family: alias.family?.id,
      ...rankingFields(undefined),
    })),
    ...models.map(concrete),
    ...embeddingModels.map(concrete),
    ...transcriptionModels.map(concrete),
  ];
  const objectBodies = new Map(objects.map((object) => [object.id, JSON.stringify(object)]));
  const listBody = JSON.stringify({ object: 'list', data: objects });
  return { providers, models, aliases, embeddingModels, transcriptionModels, kindAliases, byId, listBody, objectBodies };
}
