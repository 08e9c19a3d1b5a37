import type { Request, RequestHandler, Response } from 'express';
import { type HealthStore, type KeyHasher, viewHealth } from '../routing/health.ts';
import type { KeyReader } from '../routing/keys.ts';

export interface HealthEntry {
  state: string;
  consecutiveFailures: number;
  retryAfter?: number;
}

/** Health scoped to the keys in this request's headers: nobody sees another caller's keys. */
export function health(readKeys: KeyReader, store: HealthStore, hashKey: KeyHasher, now: () => number = Date.now): RequestHandler {
  return async (req: Request, res: Response) => {
    const keys = readKeys(req.headers);
    const providers: Record<string, HealthEntry> = {};
    if (keys.size > 0) {
      const ids = [...keys].map(([provider, key]) => hashKey(provider, key));
      const records = await store.get(ids);
      const at = now();
      let i = 0;
      for (const provider of keys.keys()) {
        const view = viewHealth(records[i++], at);
        const entry: HealthEntry = { state: view.state, consecutiveFailures: view.consecutiveFailures };
        if (view.retryAfter !== undefined) entry.retryAfter = view.retryAfter;
        providers[provider] = entry;
      }
    }
    res.json({ status: 'ok', providers });
  };
}
