import type { CatalogModel } from '../../catalog/catalog.ts';
import { freewayError, type HttpError } from '../core/errors.ts';

/**
 * What a request too large for a candidate met, and the 400 that says which limit refused it.
 * A per-request figure only the plugin states (a free plan's tokens a minute) orders a candidate
 * after those the request fits, but never refuses it: a paid plan's key takes more, and the one
 * call it costs teaches the key's own figure (its 413, or its rate-limit headers).
 */

/** One limit a request met: a model's context window, or a key's per-request token figure for it. */
export interface SizeLimit {
  readonly model: CatalogModel;
  readonly limit: number;
  readonly kind: 'window' | 'request';
}

/** What one round of a request met of sizes: the router keeps one (`newSizeState`) and the hooks below write to it. */
export interface SizeState {
  /** Every limit the request was found too large for: the 400 names them. */
  readonly limits: SizeLimit[];
  /** Models over a per-request figure only their plugin states: tried after the others, the strongest only. */
  readonly overGuess: CatalogModel[];
  /** Whether the strongest of `overGuess` is being tried now. */
  tryingOverGuess: boolean;
  /** Attempts a key refused for the request's size (a 413). */
  refused: number;
}

export const newSizeState = (): SizeState => ({ limits: [], overGuess: [], tryingOverGuess: false, refused: 0 });

/** One key's per-request figure for a model, and the request's size. */
export interface KeyFit {
  readonly model: CatalogModel;
  /** What the key itself stated (its 413, its rate-limit headers), when it did. */
  readonly learned: number | undefined;
  readonly input: number | undefined;
  /** Whether `input` is over `limit` by more than FIT_MARGIN. */
  readonly over: (input: number, limit: number) => boolean;
}

/**
 * Before an attempt with one key: `skip` (over a figure the key stated: no call),
 * `later` (over a figure only the plugin states: after the candidates that fit), or the figure to
 * fit the output budget to (`limit`, none when it is tried over a stated figure).
 */
export type Fit = { readonly verdict: 'skip' } | { readonly verdict: 'later' } | { readonly verdict: 'try'; readonly limit: number | undefined };

export function keyFit(size: SizeState, { model, learned, input, over }: KeyFit): Fit {
  const limit = learned ?? model.spec.maxRequestTokens;
  if (input === undefined || limit === undefined || !over(input, limit)) return { verdict: 'try', limit };
  if (learned !== undefined) return { verdict: 'skip' };
  if (size.tryingOverGuess) return { verdict: 'try', limit: undefined };
  if (!size.overGuess.includes(model)) size.overGuess.push(model);
  return { verdict: 'later' };
}

/** A key that refused the request for its size (a 413); the 400 names its figure when nothing else answers. */
export function refusedForSize(size: SizeState, model: CatalogModel, limit: number | undefined): void {
  size.refused += 1;
  if (limit !== undefined) size.limits.push({ model, limit, kind: 'request' });
}

const tokens = (count: number): string => count.toLocaleString('en-US');

/** `groq/openai/gpt-oss-120b takes 8,000 tokens a request on this key: Groq's tokens-a-minute limit`. */
function limitInWords({ model, limit, kind }: SizeLimit): string {
  return kind === 'request'
    ? `${model.id} takes ${tokens(limit)} tokens a request on this key: ${model.provider.name}'s tokens-a-minute limit`
    : `${model.id} has a context window of ${tokens(limit)} tokens`;
}

/** The 400 for a request estimated too large for every candidate it had, naming each limit it met and what would help. */
export function requestTooLarge(input: number, met: readonly SizeLimit[], models: readonly CatalogModel[]): HttpError {
  const seen = new Set<string>();
  const named: string[] = [];
  for (const limit of met) {
    const id = `${limit.model.id}|${limit.kind}`;
    if (seen.has(id)) continue;
    seen.add(id);
    named.push(limitInWords(limit));
  }
  let largest: CatalogModel | undefined;
  for (const model of models) if (!largest || model.spec.contextWindow > largest.spec.contextWindow) largest = model;
  const help = met.some((limit) => limit.kind === 'request')
    ? "a key of a provider whose allowance takes it (a paid plan's key states a larger figure), or a shorter conversation"
    : `a shorter conversation, or keys of providers with larger windows (the largest your keys offer: ${largest ? `${tokens(largest.spec.contextWindow)} tokens, ${largest.id}` : 'none'})`;
  return freewayError('FREEWAY_REQUEST_TOO_LARGE', { tokens: input, limits: named.length > 0 ? named.join('; ') : 'none', help });
}
