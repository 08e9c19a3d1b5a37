import { kindOf, wrongKind, type Alias, type Catalog, type CatalogModel } from '../../catalog/catalog.ts';
import { didYouMean } from '../../catalog/suggest.ts';
import type { ModelKind } from '../../providers/types.ts';
import { clip, freewayError } from '../core/errors.ts';

/** A model a request names, as a route looks it up. */
export interface ModelLookup {
  readonly catalog: Catalog;
  /** The catalog id or alias, after any model map. */
  readonly target: string;
  /** The kind of model the route serves. */
  readonly kind: ModelKind;
  /** A pinned model the plugin does not know, found in a live list of the request's keys; absent: the catalog only. */
  readonly findLive?: (target: string) => Promise<CatalogModel | undefined>;
}

/**
 * The catalog entry a request names, for every route alike: a 404 with a "did you
 * mean" when nothing has that id, a 400 naming the right route when it is of another kind.
 */
export async function lookUpModel({ catalog, target, kind, findLive }: ModelLookup): Promise<Alias | CatalogModel> {
  const entry = catalog.byId.get(target) ?? (await findLive?.(target));
  if (!entry) throw freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(target), suggestion: didYouMean(catalog, target) });
  const actual = kindOf(entry);
  if (actual !== kind) throw freewayError('FREEWAY_WRONG_MODEL_KIND', wrongKind(entry.id, actual, kind));
  return entry;
}
