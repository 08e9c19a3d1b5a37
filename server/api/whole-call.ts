import type { Response } from 'express';
import { kindOf, wrongKind, type Alias, type Catalog, type CatalogModel } from '../../catalog/catalog.ts';
import { didYouMean } from '../../catalog/suggest.ts';
import type { ModelKind } from '../../providers/types.ts';
import { clip, freewayError } from '../core/errors.ts';
import type { ShutdownGate } from '../http/shutdown.ts';
import type { KeySet } from '../routing/keys.ts';
import type { AttemptFn, AttemptLog, Router } from '../routing/router.ts';
import { callerController, routeFailed, setRoutingHeaders } from './completion.ts';

/** The catalog entry a request names, which must be of `kind`: a 404 when unknown, a 400 naming it when of another kind. */
export function entryOfKind(catalog: Catalog, model: string, kind: ModelKind): Alias | CatalogModel {
  const entry = catalog.byId.get(model);
  if (!entry) throw freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(model), suggestion: didYouMean(catalog, model) });
  const actual = kindOf(entry);
  if (actual !== kind) throw freewayError('FREEWAY_WRONG_MODEL_KIND', wrongKind(entry.id, actual, kind));
  return entry;
}

export interface WholeCallDeps {
  readonly router: Router;
  readonly shutdown: ShutdownGate;
}

/**
 * A call whose answer comes whole (embeddings, a transcript), routed and failed over like
 * a chat completion: plans `entry` with the request's keys, runs `attempt` on the candidates
 * and sets the X-Freeway-* headers. Undefined when the caller went away (its connection is closed).
 */
export async function runWholeCall<T>(res: Response, deps: WholeCallDeps, entry: Alias | CatalogModel, keys: KeySet, attempt: AttemptFn<T>): Promise<{ value: T; model: CatalogModel } | undefined> {
  const plan = await deps.router.plan(entry, keys, []);
  const caller = callerController(res, deps.shutdown);
  const attempts: AttemptLog[] = [];
  res.locals.attempts = attempts;
  try {
    const { value, candidate } = await deps.router.call(plan, keys, attempt, caller.signal, attempts);
    setRoutingHeaders(res, candidate, attempts);
    return { value, model: candidate.model };
  } catch (error) {
    routeFailed(error, res, attempts, deps.shutdown);
    return undefined;
  }
}
