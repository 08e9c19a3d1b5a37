import { dropPastBound } from '../state/bounded-map.ts';

/**
 * Exponentially weighted moving average of time to first token, per
 * (provider key hash, model). Feeds the ordering of healthy alias candidates.
 */
export interface LatencyTracker {
  get(id: string): number | undefined;
  observe(id: string, ms: number): void;
}

export function createLatencyTracker(weight = 0.3, maxEntries = 50_000): LatencyTracker {
  const averages = new Map<string, number>();
  return {
    get: (id) => averages.get(id),
    observe(id, ms) {
      const previous = averages.get(id);
      averages.set(id, previous === undefined ? ms : previous + weight * (ms - previous));
      // Oldest first: a model and key keeps its place from its first observation.
      dropPastBound(averages, maxEntries);
    },
  };
}
