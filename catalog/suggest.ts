import { aliasIds, kindAliasFamilies, type Catalog } from './catalog.ts';

/** Ids longer than this get no suggestion: no catalog id comes near, and the work stays bounded. */
const MAX_SUGGESTED_LENGTH = 200;
/** How far a near miss may be: an edit for every 8 characters, at least 2 (a swapped pair) and at most 3. */
export const maxDistance = (length: number): number => Math.min(3, Math.max(2, Math.floor(length / 8)));

interface ModelIndex {
  /** Lower-cased id -> id, aliases and concrete models. */
  readonly byLower: ReadonlyMap<string, string>;
  /** Lower-cased model id without its provider (`llama-3.3-70b-versatile`) -> the first `{provider}/{modelId}`. */
  readonly byBare: ReadonlyMap<string, string>;
  /** Every lower-cased id and bare id, with the id to suggest, for near misses. */
  readonly all: ReadonlyArray<readonly [lower: string, id: string]>;
  /** Provider id -> its models' lower-cased ids and the ids to suggest: a provider's own models come first. */
  readonly byProvider: ReadonlyMap<string, ReadonlyArray<readonly [lower: string, id: string]>>;
}

/** The aliases by their name after `free:` (`fast` -> `free:fast`). */
const aliasNames: ReadonlyMap<string, string> = new Map(
  [...aliasIds, ...kindAliasFamilies.map(([id]) => id)].map((id) => [id.slice(id.indexOf(':') + 1), id]),
);

const indexes = new WeakMap<Catalog, ModelIndex>();

/** Builds the suggestion index of a catalog; done once, at start-up. */
export function indexModels(catalog: Catalog): void {
  if (indexes.has(catalog)) return;
  const byLower = new Map<string, string>();
  const byBare = new Map<string, string>();
  for (const id of catalog.byId.keys()) byLower.set(id.toLowerCase(), id);
  for (const model of catalog.models) {
    const bare = model.spec.id.toLowerCase();
    if (!byBare.has(bare)) byBare.set(bare, model.id);
  }
  const all: Array<readonly [string, string]> = [...byLower, ...byBare];
  const byProvider = new Map<string, Array<readonly [string, string]>>();
  for (const [lower, id] of byLower) {
    const slash = lower.indexOf('/');
    if (slash === -1) continue;
    const provider = lower.slice(0, slash);
    const own = byProvider.get(provider) ?? [];
    own.push([lower, id]);
    byProvider.set(provider, own);
  }
  indexes.set(catalog, { byLower, byBare, all, byProvider });
}

/** Levenshtein distance, or Infinity once it must exceed `limit` (a band of 2 * limit + 1 per row). */
function distanceWithin(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(Infinity);
    current[0] = i;
    let best = current[0];
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min((previous[j] ?? Infinity) + 1, (current[j - 1] ?? Infinity) + 1, (previous[j - 1] ?? Infinity) + cost);
      best = Math.min(best, current[j] as number);
    }
    if (best > limit) return Infinity;
    previous = current;
  }
  const result = previous[b.length] ?? Infinity;
  return result <= limit ? result : Infinity;
}

/**
 * Of `candidates` (lower-cased, each with what to suggest), the nearest to `lower` within
 * `limit` edits; the first of equally near ones.
 */
export function nearest(lower: string, candidates: Iterable<readonly [lower: string, suggestion: string]>, limit: number): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const [candidate, target] of candidates) {
    const distance = distanceWithin(lower, candidate, Math.min(limit, bestDistance - 1));
    if (distance < bestDistance) {
      bestDistance = distance;
      best = target;
    }
  }
  return best;
}

const lastSegment = (id: string): string => id.slice(id.lastIndexOf('/') + 1);

/**
 * A model of the provider `lower` names (`groq/gpt-oss-120b`): one whose id ends the same
 * (`groq/openai/gpt-oss-120b`), or a near miss among that provider's own ids.
 */
function sameProvider(index: ModelIndex, lower: string): string | undefined {
  const own = index.byProvider.get(lower.slice(0, lower.indexOf('/')));
  if (!own) return undefined;
  const wanted = lastSegment(lower);
  const endsAlike = own.find(([candidate]) => lastSegment(candidate) === wanted);
  return endsAlike?.[1] ?? nearest(lower, own, maxDistance(lower.length));
}

/**
 * An alias near `lower`: its name alone (`fast`, `x:fast`), a name that starts with the alias's (`free:fastest`) or that the alias's starts with (`free:reason`), or
 * a near miss (`free:tooluse`).
 */
function nearAlias(lower: string): string | undefined {
  const colon = lower.indexOf(':');
  const name = lower.slice(colon + 1);
  const exact = aliasNames.get(name);
  if (exact !== undefined) return exact;
  // Only what reads as an alias (`free:`, `fre:`, `free-:`...): Ollama's `qwen3:latest` is no near miss of one.
  if (colon === -1 || name.length < 3 || distanceWithin(lower.slice(0, colon), 'free', 1) === Infinity) return undefined;
  let longest: string | undefined;
  let longestLength = 0;
  for (const [alias, id] of aliasNames) {
    const related = name.startsWith(alias) || alias.startsWith(name);
    if (related && alias.length > longestLength) [longest, longestLength] = [id, alias.length];
  }
  return longest ?? nearest(name, [...aliasNames], 3);
}

/**
 * The catalog id a caller probably meant by an unknown `model`: the same id in
 * another case, a model of the provider it names (`groq/gpt-oss-120b` ->
 * `groq/openai/gpt-oss-120b`), a model id without its provider prefix (or with
 * another provider's), an alias it comes near, or a near miss of a few characters.
 */
export function suggestModel(catalog: Catalog, id: string): string | undefined {
  if (id === '' || id.length > MAX_SUGGESTED_LENGTH) return undefined;
  indexModels(catalog);
  const index = indexes.get(catalog) as ModelIndex;
  const lower = id.toLowerCase();
  const exact = index.byLower.get(lower) ?? index.byBare.get(lower);
  if (exact !== undefined) return exact;
  const slash = lower.indexOf('/');
  if (slash !== -1) {
    const own = sameProvider(index, lower);
    if (own !== undefined) return own;
    const prefixed = index.byBare.get(lower.slice(slash + 1));
    if (prefixed !== undefined) return prefixed;
  } else {
    const alias = nearAlias(lower);
    if (alias !== undefined) return alias;
  }
  return nearest(lower, index.all, maxDistance(lower.length));
}

/** Freeway's one wording of a suggestion: `` Did you mean `X-Groq-Key`? ``; nothing without one. */
export const didYouMeanText = (suggestion: string | undefined): string => (suggestion === undefined ? '' : `Did you mean \`${suggestion}\`?`);

/** ` Did you mean `y`?` for the unknown model `id`, or nothing: the `suggestion` of the FREEWAY_UNKNOWN_MODEL error. */
export function didYouMean(catalog: Catalog, id: string): string {
  const suggestion = suggestModel(catalog, id);
  return suggestion === undefined ? '' : ` ${didYouMeanText(suggestion)}`;
}

