import type { Request, RequestHandler, Response } from 'express';
import type { QuotaSnapshot } from '../../providers/types.ts';
import type { HealthStore } from '../state/health-records.ts';
import type { KeyHasher } from '../state/key-hash.ts';
import { viewHealth } from '../routing/index.ts';
import { isAnonymous, type KeyReader } from '../core/keys.ts';

/** The last quota figures a provider reported for a key; a figure whose reset has passed is left out. */
export interface QuotaEntry {
  remainingRequests?: number;
  requestsResetAt?: string;
  remainingTokens?: number;
  tokensResetAt?: string;
}

export interface HealthEntry {
  /** The key's position in its header, when the header carries more than one key. */
  key?: number;
  state: string;
  consecutiveFailures: number;
  retryAfter?: number;
  quota?: QuotaEntry;
  /** Calls without a key (`anonymous`): one record per instance, for this instance's address. */
  anonymous?: true;
}

export function quotaEntry(quota: QuotaSnapshot | undefined, now: number): QuotaEntry | undefined {
  if (!quota) return undefined;
  const entry: QuotaEntry = {};
  const { remainingRequests, requestsResetAt, remainingTokens, tokensResetAt } = quota;
  if (requestsResetAt === undefined || requestsResetAt > now) {
    if (remainingRequests !== undefined) entry.remainingRequests = remainingRequests;
    if (requestsResetAt !== undefined) entry.requestsResetAt = new Date(requestsResetAt).toISOString();
  }
  if (tokensResetAt === undefined || tokensResetAt > now) {
    if (remainingTokens !== undefined) entry.remainingTokens = remainingTokens;
    if (tokensResetAt !== undefined) entry.tokensResetAt = new Date(tokensResetAt).toISOString();
  }
  return Object.keys(entry).length > 0 ? entry : undefined;
}

/**
 * Health scoped to the keys in this request's headers: nobody sees another caller's keys.
 * One key: `provider -> entry`, as always. Several: `provider -> [entry per key, in header order]`.
 */
export function health(readKeys: KeyReader, store: HealthStore, hashKey: KeyHasher, now: () => number = Date.now): RequestHandler {
  return async (req: Request, res: Response) => {
    const keys = readKeys(req.headers);
    const providers: Record<string, HealthEntry | HealthEntry[]> = {};
    if (keys.size > 0) {
      const ids: string[] = [];
      for (const [provider, pool] of keys) for (const key of pool) ids.push(hashKey(provider, key));
      const records = await store.get(ids);
      const at = now();
      let i = 0;
      for (const [provider, pool] of keys) {
        const entries = pool.map((key, position) => {
          const view = viewHealth(records[i++], at);
          const entry: HealthEntry = pool.length > 1 ? { key: position + 1, state: view.state, consecutiveFailures: view.consecutiveFailures } : { state: view.state, consecutiveFailures: view.consecutiveFailures };
          if (isAnonymous(key)) entry.anonymous = true;
          if (view.retryAfter !== undefined) entry.retryAfter = view.retryAfter;
          const quota = quotaEntry(view.quota, at);
          if (quota) entry.quota = quota;
          return entry;
        });
        providers[provider] = pool.length > 1 ? entries : (entries[0] as HealthEntry);
      }
    }
    res.json({ status: 'ok', providers });
  };
}
