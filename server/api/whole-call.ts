import type { Response } from 'express';
import type { Alias, CatalogModel } from '../../catalog/catalog.ts';
import type { KeySet } from '../core/keys.ts';
import type { ShutdownGate } from '../http/shutdown.ts';
import type { AttemptFn, AttemptLog, Router, WholeCallRequest } from '../routing/index.ts';
import { callerController, maxWaitOf, routeFailed, setRoutingHeaders } from './routed-call.ts';

export interface WholeCallDeps {
  readonly router: Router;
  readonly shutdown: ShutdownGate;
  /** MAX_WAIT_MS: the longest a call may be held for a window or a slot, and the most X-Freeway-Max-Wait may ask. */
  readonly maxWaitMs?: number;
}

/** One call whose answer comes whole: the entry it names, the request's keys, and one attempt at one candidate. */
export interface WholeCall<T> {
  readonly entry: Alias | CatalogModel;
  readonly keys: KeySet;
  readonly attempt: AttemptFn<T>;
  /** The tokens an answer reported, counted against the key that answered (usage per key). */
  readonly tokensOf?: WholeCallRequest<T>['tokensOf'];
}

/**
 * A call whose answer comes whole (embeddings, a transcript), routed and failed over like
 * a chat completion: plans the entry with the request's keys, runs the attempt on the candidates
 * and sets the X-Freeway-* headers. Undefined when the caller went away (its connection is closed).
 */
export async function runWholeCall<T>(res: Response, deps: WholeCallDeps, { entry, keys, attempt, tokensOf }: WholeCall<T>): Promise<{ value: T; model: CatalogModel } | undefined> {
  const maxWaitMs = maxWaitOf(res.req, deps.maxWaitMs);
  const plan = await deps.router.plan({ entry, keys, needs: [] });
  const caller = callerController(res, deps.shutdown);
  const attempts: AttemptLog[] = [];
  res.locals.attempts = attempts;
  try {
    const { value, candidate } = await deps.router.call({ plan, keys, attempt, callerSignal: caller.signal, attempts, tokensOf, maxWaitMs, trace: res.locals.trace });
    setRoutingHeaders(res, candidate, attempts);
    return { value, model: candidate.model };
  } catch (error) {
    routeFailed(error, res, attempts, deps.shutdown);
    return undefined;
  }
}
