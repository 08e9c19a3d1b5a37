import type { Catalog } from '../../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../../providers/types.ts';
import type { HealthState } from '../../routing/health.ts';

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

/**
 * What one key can use now. `keyId` is the key's HMAC (createKeyHasher), for a
 * source that knows per-key model lists; the curated source does not need it.
 */
export type UsableModels = (provider: ProviderPlugin, keyId: string, state: KeyState) => UsableNow;

/** States in which a key is skipped: it serves nothing until its wait ends. */
const resting: ReadonlySet<KeyState> = new Set<KeyState>(['rate_limited', 'down', 'invalid_key', 'no_credit']);

const nothing: UsableNow = { models: 0, aliases: [] };

/** What a provider serves with any working key: its curated chat models that are not deprecated, and the aliases they join. */
export function curatedOffer(catalog: Catalog): ReadonlyMap<string, UsableNow> {
  const offer = new Map<string, UsableNow>();
  for (const provider of catalog.providers) {
    const chat = (id: string, kind: string | undefined): boolean => id === provider.id && (kind ?? 'chat') === 'chat';
    const models = catalog.models.filter((model) => chat(model.provider.id, model.spec.kind) && model.spec.deprecated !== true).length;
    const aliases = catalog.aliases
      .filter((alias) => alias.models.some((model) => chat(model.provider.id, model.spec.kind)))
      .map((alias) => alias.id);
    offer.set(provider.id, { models, aliases });
  }
  return offer;
}

/** Today's source: the curated chat models, none while health says the key rests. */
export function curatedUsable(catalog: Catalog): UsableModels {
  const offer = curatedOffer(catalog);
  return (provider, _keyId, state) => (resting.has(state) ? nothing : (offer.get(provider.id) ?? nothing));
}
