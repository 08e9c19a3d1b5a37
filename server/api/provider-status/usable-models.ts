import { aliasIds, type Catalog, type CatalogModel } from '../../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../../providers/types.ts';
import type { ModelKnowledge } from '../../models/model-knowledge.ts';
import type { HealthState } from '../../state/health-records.ts';

/**
 * A key's state as `GET /v1/providers` reports it: health's states, `no_credit`
 * (from a key check, or health once it knows the state), and `unchecked` before
 * anything is known of the key.
 */
export type KeyState = HealthState | 'no_credit' | 'unchecked';

export interface UsableNow {
  /** How many models the key can be used with now. */
  readonly models: number;
  /** The aliases it can serve now, in catalog order. */
  readonly aliases: readonly string[];
}

/** One key of a request, as a source of usable models needs it. */
export interface KeyAtHand {
  readonly provider: ProviderPlugin;
  readonly key: string;
  /** The key's health id, `provider:HMAC` (createKeyHasher). */
  readonly keyId: string;
  readonly state: KeyState;
  /** The rate limit's client, for LISTINGS_PER_MINUTE. */
  readonly client: () => string;
}

/** What one key can use now. */
export type UsableModels = (key: KeyAtHand) => UsableNow | Promise<UsableNow>;

/** States in which a key is skipped: it serves nothing until its wait ends. */
const resting: ReadonlySet<KeyState> = new Set<KeyState>(['rate_limited', 'down', 'invalid_key', 'no_credit']);

const nothing: UsableNow = { models: 0, aliases: [] };

/** A provider's curated embedding and transcription models that are not deprecated, and the aliases of their kind they join. */
function otherKinds(catalog: Catalog, provider: ProviderPlugin): UsableNow {
  const own = [...catalog.embeddingModels, ...catalog.transcriptionModels].filter((model) => model.provider === provider && model.spec.deprecated !== true);
  const aliases = catalog.kindAliases.filter((alias) => alias.models.some((model) => model.provider === provider)).map((alias) => alias.id);
  return { models: own.length, aliases };
}

/** `usable` with the embedding and transcription models and aliases of `other` added. */
const withOtherKinds = (usable: UsableNow, other: UsableNow): UsableNow =>
  other.models === 0 ? usable : { models: usable.models + other.models, aliases: [...usable.aliases, ...other.aliases] };

/**
 * What a provider serves with any working key: its curated models of every kind that are not
 * deprecated, and the aliases they join (the chat aliases, then `free:embed` and `free:transcribe`).
 */
export function curatedOffer(catalog: Catalog): ReadonlyMap<string, UsableNow> {
  const offer = new Map<string, UsableNow>();
  for (const provider of catalog.providers) {
    const chat = (id: string, kind: string | undefined): boolean => id === provider.id && (kind ?? 'chat') === 'chat';
    const models = catalog.models.filter((model) => chat(model.provider.id, model.spec.kind) && model.spec.deprecated !== true).length;
    const aliases = catalog.aliases
      .filter((alias) => alias.models.some((model) => chat(model.provider.id, model.spec.kind)))
      .map((alias) => alias.id);
    offer.set(provider.id, withOtherKinds({ models, aliases }, otherKinds(catalog, provider)));
  }
  return offer;
}

/** The curated chat models, none while health says the key rests (MODELS_LIVE=off). */
export function curatedUsable(catalog: Catalog): UsableModels {
  const offer = curatedOffer(catalog);
  return ({ provider, state }) => (resting.has(state) ? nothing : (offer.get(provider.id) ?? nothing));
}

/** Counts `models` and the aliases that keep at least one of them, leaving out quarantined ones. */
function usableOf(models: Iterable<CatalogModel>, aliases: (alias: string) => readonly CatalogModel[], quarantined: ReadonlyMap<string, string> | undefined): UsableNow {
  const open = (model: CatalogModel): boolean => quarantined?.has(model.spec.id) !== true;
  let count = 0;
  for (const model of models) if (open(model)) count += 1;
  return { models: count, aliases: aliasIds.filter((alias) => aliases(alias).some(open)) };
}

/**
 * What the key's live list allows (docs/models.md): the chat models it lists and the
 * aliases they join, less the models quarantined for the key; the curated offer while
 * the provider has given no list for the key. Asking may start the key's listing, within
 * LISTINGS_PER_MINUTE and MODELS_FIRST_WAIT_MS, as any request for the provider would.
 */
export function liveUsable(catalog: Catalog, knowledge: ModelKnowledge): UsableModels {
  const curated = curatedUsable(catalog);
  // Embedding and transcription aliases name one family of weights that the plugins declare: no live list adds to them.
  const others = new Map(catalog.providers.map((provider) => [provider.id, otherKinds(catalog, provider)]));
  const curatedModels = new Map<string, readonly CatalogModel[]>();
  for (const provider of catalog.providers) {
    curatedModels.set(provider.id, catalog.models.filter((model) => model.provider === provider && (model.spec.kind ?? 'chat') === 'chat' && model.spec.deprecated !== true));
  }
  const byAlias = new Map(catalog.aliases.map((alias) => [alias.id, alias.models]));
  return async (at) => {
    if (resting.has(at.state)) return nothing;
    const [[list], quarantines] = await Promise.all([knowledge.lists.lists(at.provider, [at.key], [at.keyId], at.client), knowledge.quarantines.read([at.keyId])]);
    const quarantined = quarantines.get(at.keyId);
    const other = others.get(at.provider.id) as UsableNow;
    if (list) {
      const view = knowledge.view(at.provider, list);
      return withOtherKinds(usableOf(view.chat.values(), (alias) => view.aliases.get(alias) ?? [], quarantined), other);
    }
    if (!quarantined) return curated(at);
    const own = curatedModels.get(at.provider.id) ?? [];
    return withOtherKinds(usableOf(own, (alias) => (byAlias.get(alias) ?? []).filter((model) => model.provider === at.provider), quarantined), other);
  };
}
