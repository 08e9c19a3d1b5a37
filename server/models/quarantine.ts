import type { KnowledgeStore } from '../state/knowledge.ts';

/** Model id -> why it is quarantined, for one key (its own and its provider's quarantines together). */
export type Quarantined = ReadonlyMap<string, string>;

export interface Quarantines {
  /** For each health id (`provider:HMAC`), what is quarantined for it; absent when nothing is. */
  read(healthIds: readonly string[]): Promise<ReadonlyMap<string, Quarantined>>;
  /** Quarantines a model for one key, or (a 410) for every key of its provider. */
  add(quarantine: NewQuarantine): Promise<void>;
}

export interface NewQuarantine {
  /** The key's health id, `provider:HMAC`. */
  readonly healthId: string;
  /** The provider's own model id. */
  readonly modelId: string;
  /** Why, as the upstream said (redacted). */
  readonly reason: string;
  /** Why, as a store that outlives this process keeps it: the status and the provider's error type, never the upstream's words. */
  readonly sharedReason?: string;
  /** For this key only, or (the provider said the model is gone) for every key of its provider. */
  readonly scope: 'key' | 'provider';
}

/** A quarantine as a store keeps it: until when, and why. */
const quarantineEntry = (until: number, reason: string): string => `${until}|${reason}`;

function readQuarantineEntry(value: string): { until: number; reason: string } {
  const bar = value.indexOf('|');
  return { until: Number(value.slice(0, bar)), reason: value.slice(bar + 1) };
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
            const { until, reason } = readQuarantineEntry(value);
            if (until > at) models.set(modelId, reason);
          }
        }
        if (models.size > 0) result.set(healthId, models);
      });
      return result;
    },
    async add({ healthId, modelId, reason, sharedReason, scope }) {
      if (quarantineMs === 0) return;
      const at = now();
      const id = scope === 'provider' ? `q:${providerOf(healthId)}` : `q:${healthId}`;
      const kept = store.outlivesProcess ? (sharedReason ?? 'quarantined') : reason;
      await store.setField(id, modelId, quarantineEntry(at + quarantineMs, kept), quarantineMs);
    },
  };
}
