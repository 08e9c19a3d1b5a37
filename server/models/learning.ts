import type { CatalogModel } from '../../catalog/catalog.ts';
import { createBoundedMap } from '../state/bounded-map.ts';
import type { HealthStore, Outcome } from '../state/health-records.ts';
import type { ModelKnowledge } from './model-knowledge.ts';

/**
 * What routing learns from each attempt, kept here with the rest of what Freeway
 * knows of models and keys: a key's health, a model set aside (quarantine), a
 * model's output maximum and a key's per-request token limit. The router reads
 * the limits before an attempt and hands over each attempt's outcome; what to
 * learn from a failure is the failover table's decision (routing/failover.ts).
 */
export interface Learning {
  /** The most output tokens the model takes, as its upstream stated; undefined until it said so. */
  outputLimit(model: CatalogModel): number | undefined;
  /** The most tokens one request may hold with this key and model, learnt from a 413 or the key's rate-limit headers. */
  requestLimit(healthId: string, model: CatalogModel): number | undefined;
  /** Keeps what a failed attempt with one key and model taught, as the failover table decided it. */
  failed(attempt: LearntFrom, lesson: Lesson): Promise<void>;
  /** Keeps what an answer taught: the key is healthy, and its rate-limit headers' figures. */
  answered(attempt: LearntFrom, headers: Readonly<Record<string, string>> | undefined): Promise<void>;
}

/** The key and the model an attempt was made with. */
export interface LearntFrom {
  /** The key's health id, `provider:HMAC`. */
  readonly healthId: string;
  readonly model: CatalogModel;
}

/** What a failure leaves behind for later requests. */
export interface Lesson {
  /** Against the key's health; absent when the key is not at fault. A key with a health record is not tried again in this request. */
  readonly health?: Outcome;
  /** The model is set aside for MODEL_QUARANTINE_MS: for this key, or (a 410) for every key of its provider. */
  readonly quarantine?: 'key' | 'provider';
  /** The most output tokens the model takes, as its upstream stated: later requests are lowered before the call. */
  readonly outputLimit?: number;
  /** The most tokens one request may hold with this key and model, as its upstream stated: larger requests are not sent to it (LEARNED_LIMIT_MS). */
  readonly requestLimit?: number;
  /** Why, as the upstream said (redacted): a quarantine's reason. */
  readonly reason: string;
  /** Why, as a store beyond this process keeps it (Redis): the status or Freeway's label, and the provider's error type. */
  readonly sharedReason?: string;
}

export interface LearningDeps {
  readonly health: HealthStore;
  /** Live lists and quarantines; without it no model is quarantined. */
  readonly knowledge?: ModelKnowledge;
  /** LEARNED_LIMIT_MS: how long a learnt per-request limit is kept. */
  readonly limitKeepMs: number;
  /** HEALTH_MAX_RECORDS: the most per-request limits kept, one per key and model; past it the least recently learnt goes. */
  readonly maxLimits: number;
  readonly now: () => number;
}

/** The id a learnt per-request limit is kept under: one key's limit for one model. */
const requestLimitId = (healthId: string, modelId: string): string => `${healthId}|${modelId}`;

export function createLearning({ health, knowledge, limitKeepMs, maxLimits, now }: LearningDeps): Learning {
  // Catalog model id -> the most output tokens its upstream said it takes. Keys are catalog
  // model ids only (a fixed set), so the map holds at most one entry per model of the catalog.
  const outputLimits = new Map<string, number>();
  const requestLimits = createBoundedMap<number>(maxLimits, maxLimits * 256);
  const learnRequestLimit = (healthId: string, model: CatalogModel, limit: number): void => {
    const id = requestLimitId(healthId, model.id);
    requestLimits.set(id, limit, id.length * 2 + 32, now() + limitKeepMs);
  };
  return {
    outputLimit: (model) => outputLimits.get(model.id),
    requestLimit: (healthId, model) => requestLimits.get(requestLimitId(healthId, model.id), now()),
    async failed({ healthId, model }, lesson) {
      if (lesson.health) await health.record(healthId, lesson.health, now());
      if (lesson.quarantine && knowledge) {
        // Aliases skip the model for this key (a 410: for every key of its provider) for MODEL_QUARANTINE_MS.
        await knowledge.quarantines.add({ healthId, modelId: model.spec.id, reason: lesson.reason, sharedReason: lesson.sharedReason, scope: lesson.quarantine });
        knowledge.quarantined?.(model.provider.id, lesson.quarantine);
      }
      if (lesson.outputLimit !== undefined) outputLimits.set(model.id, lesson.outputLimit);
      if (lesson.requestLimit !== undefined) learnRequestLimit(healthId, model, lesson.requestLimit);
    },
    async answered({ healthId, model }, headers) {
      const at = now();
      const quota = headers && model.provider.readQuota?.(headers, at);
      // Always written: other requests may have recorded failures since this one's plan.
      await health.record(healthId, quota ? { kind: 'success', quota } : { kind: 'success' }, at);
      if (quota?.limitTokens !== undefined) learnRequestLimit(healthId, model, quota.limitTokens);
    },
  };
}
