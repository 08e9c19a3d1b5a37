import type { UsageCounts, UsageRecord } from '../../state/usage-records.ts';

/** One key's use of one model on one day, as `GET /v1/providers` shows it. */
export interface ModelUsage extends UsageCounts {
  readonly model: string;
}

/** A key's `usage` in `GET /v1/providers`: the days with any, newest first; each day's models, most requests first. */
export interface UsageEntry {
  readonly days: ReadonlyArray<{ readonly day: string; readonly models: readonly ModelUsage[] }>;
}

const byRequests = (a: ModelUsage, b: ModelUsage): number => b.requests - a.requests || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

export function usageEntry(records: readonly UsageRecord[]): UsageEntry {
  const days = new Map<string, ModelUsage[]>();
  for (const { day, model, requests, answers, failures, inputTokens, outputTokens, cacheHits } of records) {
    const failed: Record<string, number> = {};
    for (const [kind, count] of Object.entries(failures)) if (count > 0) failed[kind] = count;
    const models = days.get(day) ?? [];
    models.push({ model, requests, answers, failures: failed, inputTokens, outputTokens, cacheHits });
    days.set(day, models);
  }
  return {
    days: [...days.keys()]
      .sort()
      .reverse()
      .map((day) => ({ day, models: (days.get(day) ?? []).sort(byRequests) })),
  };
}
