import type { KnowledgeStore } from '../state/knowledge.ts';

/** Model id -> why it is quarantined, for one key (its own and its provider's quarantines together). */
export type Quarantined = ReadonlyMap<string, string>;

export interface Quarantines {
  /** For each health id (`provider:HMAC`), what is quarantined for it; absent when nothing is. */
  read(healthIds: readonly string[]): Promise<ReadonlyMap<string, Quarantined>>;
  /** Quarantines `modelId` for one key, or (`gone`, a 410) for every key of its provider. */
  add(healthId: string, modelId: string, reason: string, gone: boolean): Promise<void>;
}

const nothing: ReadonlyMap<string, Quarantined> = new Map();
const providerOf = (healthId: string): string => healthId.slice(0, Math.max(0, healthId.indexOf(':')));

export function createQuarantines(store: KnowledgeStore, quarantineMs: number, now: () => number): Quarantines {
  return {
    async read(healthIds) {
      if (healthIds.length === 0 || quarantineMs === 0) return nothing;
      const providers = [...new Set(healthIds.map(providerOf))];
      const ids = [...healthIds.map((id) => `q:${id}`), ...providers.map((provider) => `q:${provider}`)];
      const records = await store.fields(ids);
      if (records.every((record) => record === undefined)) return nothing;
      const at = now();
      const byProvider = new Map<string, Record<string, string> | undefined>(providers.map((provider, i) => [provider, records[healthIds.length + i]]));
      const result = new Map<string, Quarantined>();
      healthIds.forEach((healthId, i) => {
        const models = new Map<string, string>();
        for (const record of [byProvider.get(providerOf(healthId)), records[i]]) {
          if (!record) continue;
          for (const [modelId, value] of Object.entries(record)) {
            const bar = value.indexOf('|');
            if (Number(value.slice(0, bar)) > at) models.set(modelId, value.slice(bar + 1));
          }
        }
        if (models.size > 0) result.set(healthId, models);
      });
      return result;
    },
    async add(healthId, modelId, reason, gone) {
      if (quarantineMs === 0) return;
      const at = now();
      const id = gone ? `q:${providerOf(healthId)}` : `q:${healthId}`;
      await store.setField(id, modelId, `${at + quarantineMs}|${reason}`, quarantineMs);
    },
  };
}
