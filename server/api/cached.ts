import type { Request, Response } from 'express';
import type { Catalog, CatalogModel } from '../../catalog/catalog.ts';
import type { AnsweredBy, CacheState, KeptAnswer, ResponseCache } from '../cache/index.ts';
import type { KeySet } from '../core/keys.ts';
import type { Candidate } from '../routing/index.ts';

/**
 * A client API's side of the response cache: one request's turn, with the header that tells
 * it (`X-Freeway-Cache`), the model a hit names as the catalog has it, and `Age`.
 */
export interface CachedTurn<T> {
  readonly state: CacheState;
  /** A hit whose model the catalog still serves: the answer, and the model and key it came from. */
  readonly hit?: { readonly answer: T; readonly candidate: Candidate };
  /** Keeps a complete, successful answer of `candidate` (nothing unless the turn is a miss). */
  keep(answer: T, candidate: Candidate): void;
  /** The most answer worth gathering to keep: past it the answer is passed on and not kept. */
  readonly maxBytes: number;
}

const noTurn: CachedTurn<never> = { state: 'off', keep: () => {}, maxBytes: 0 };

/** A catalog model (not an alias) by its id; a model only a live list knows is never kept, as a hit could not name it. */
function catalogModel(catalog: Catalog, id: string): CatalogModel | undefined {
  const entry = catalog.byId.get(id);
  return entry !== undefined && 'provider' in entry ? entry : undefined;
}

/** The candidate a hit stands for: its model, and the caller's own key of that provider (the key is never kept). */
function hitCandidate(catalog: Catalog, keys: KeySet, hit: KeptAnswer<unknown>): Candidate | undefined {
  const model = catalogModel(catalog, hit.model);
  const pool = model && keys.get(model.provider.id);
  if (!model || !pool || pool.length === 0) return undefined;
  return { model, key: pool[0] as string, healthId: hit.healthId, tier: 0, keyPosition: 1, keyCount: pool.length };
}

export interface TurnRequest {
  readonly cache: ResponseCache | undefined;
  readonly catalog: Catalog;
  readonly req: Request;
  readonly res: Response;
  readonly keys: KeySet;
}

/** The request's turn at the cache; `call` is everything that shapes the answer, after mapping. */
export async function cachedTurn<T>({ cache, catalog, req, res, keys }: TurnRequest, call: unknown): Promise<CachedTurn<T>> {
  if (!cache) {
    res.setHeader('X-Freeway-Cache', 'off');
    return noTurn;
  }
  const turn = await cache.turn<T>(req.headers, keys, call);
  const candidate = turn.hit && hitCandidate(catalog, keys, turn.hit);
  const state = turn.hit && !candidate ? 'miss' : turn.state;
  res.setHeader('X-Freeway-Cache', state);
  if (turn.hit && candidate) res.setHeader('Age', String(turn.hit.age));
  const keep = (answer: T, by: Candidate): void => {
    if (state !== 'miss' || !catalogModel(catalog, by.model.id)) return;
    const answered: AnsweredBy = { provider: by.model.provider.id, model: by.model.id, healthId: by.healthId };
    turn.keep(answer, answered);
  };
  return { state, hit: turn.hit && candidate ? { answer: turn.hit.answer, candidate } : undefined, keep, maxBytes: cache.maxEntryBytes };
}
