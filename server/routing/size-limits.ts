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
