import { dropPastBound } from './bounded-map.ts';
import { isAnonymousId } from './key-hash.ts';
import type { Warn } from './warn-every.ts';

/**
 * Usage per key: for each key (by its health id, `provider:HMAC`, never the key), model
 * and UTC day, the attempts made, the answers, the failures by kind and the tokens the
 * providers reported. Kept where health is kept (this process, the cluster primary, or
 * Redis) for the current day and the six before it. Nothing about content is kept.
 */

/** What one key did on one model on one UTC day. */
export interface UsageCounts {
  /** Attempts made with the key on the model. */
  readonly requests: number;
  /** Attempts that answered. */
  readonly answers: number;
  /** Failed attempts by kind (routing's failure kinds: `rate_limited`, `timeout`, ...). */
  readonly failures: Readonly<Record<string, number>>;
  /** As the providers reported them; 0 when none did. */
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** One record: a key's counts on one model on one day. */
export interface UsageRecord extends UsageCounts {
  /** The key's health id, `provider:HMAC`. */
  readonly id: string;
  /** The UTC day, `2026-11-27`. */
  readonly day: string;
  /** The catalog model id, `groq/openai/gpt-oss-120b`. */
  readonly model: string;
}

/** Where usage records live: in memory here; the cluster primary and Redis implement the same. */
export interface UsageStore {
  /** Adds the counts of `records` to what is kept (a record not kept yet starts at zero). `now` dates the expiry. */
  add(records: readonly UsageRecord[], now: number): Promise<void>;
  /** For each id, its records of the given days. */
  get(ids: readonly string[], days: readonly string[]): Promise<UsageRecord[][]>;
  close(): Promise<void>;
}

/** How many days are kept: the current one and the six before it. */
export const USAGE_DAYS = 7;
export const DAY_MS = 86_400_000;

/** The UTC day of an instant, `2026-11-27`. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** The days kept at `now`, newest first: today and the six before it. */
export function usageDays(now: number): string[] {
  return Array.from({ length: USAGE_DAYS }, (_, i) => utcDay(now - i * DAY_MS));
}

/** When a day's records are no longer shown: the end of the sixth day after it. */
export const dayExpiry = (day: string): number => Date.parse(`${day}T00:00:00Z`) + USAGE_DAYS * DAY_MS;

interface MutableRecord {
  readonly id: string;
  readonly day: string;
  readonly model: string;
  requests: number;
  answers: number;
  failures: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
}

const blank = (id: string, day: string, model: string): MutableRecord => ({ id, day, model, requests: 0, answers: 0, failures: {}, inputTokens: 0, outputTokens: 0 });

function addInto(target: MutableRecord, counts: UsageCounts): void {
  target.requests += counts.requests;
  target.answers += counts.answers;
  target.inputTokens += counts.inputTokens;
  target.outputTokens += counts.outputTokens;
  for (const kind in counts.failures) target.failures[kind] = (target.failures[kind] ?? 0) + (counts.failures[kind] ?? 0);
}

const copyOf = (record: MutableRecord): UsageRecord => ({ ...record, failures: { ...record.failures } });

/** Sums one id's records of the same day and model (a shared store's and a local fallback's). */
export function mergeRecords(...lists: ReadonlyArray<readonly UsageRecord[]>): UsageRecord[] {
  const merged = new Map<string, MutableRecord>();
  for (const list of lists) {
    for (const record of list) {
      const at = `${record.day}|${record.model}`;
      let target = merged.get(at);
      if (!target) merged.set(at, (target = blank(record.id, record.day, record.model)));
      addInto(target, record);
    }
  }
  return [...merged.values()];
}

/**
 * In memory: records in a Map kept in order of last write, so that past `maxRecords`
 * (USAGE_MAX_RECORDS) the least recently written goes first; an index by id serves reads.
 * Days no longer shown are swept every `sweepEveryMs`.
 */
export function createMemoryUsageStore(maxRecords = 100_000, sweepEveryMs = 3_600_000, clock: () => number = Date.now): UsageStore {
  const records = new Map<string, MutableRecord>();
  const byId = new Map<string, Set<string>>();
  const unindex = (at: string, record: MutableRecord): void => {
    const ofId = byId.get(record.id);
    ofId?.delete(at);
    if (ofId?.size === 0) byId.delete(record.id);
  };
  const drop = (at: string): void => {
    const record = records.get(at);
    if (!record) return;
    records.delete(at);
    unindex(at, record);
  };
  const sweep = setInterval(() => {
    const now = clock();
    for (const [at, record] of records) if (dayExpiry(record.day) <= now) drop(at);
  }, sweepEveryMs);
  sweep.unref();
  return {
    async add(added) {
      for (const record of added) {
        const at = `${record.id}|${record.day}|${record.model}`;
        const kept = records.get(at) ?? blank(record.id, record.day, record.model);
        addInto(kept, record);
        let ofId = byId.get(record.id);
        if (!ofId) byId.set(record.id, (ofId = new Set()));
        ofId.add(at);
        // Last written last: the first in the Map is the least recently used.
        records.delete(at);
        records.set(at, kept);
        dropPastBound(records, maxRecords, unindex);
      }
    },
    async get(ids, days) {
      const wanted = new Set(days);
      return ids.map((id) => {
        const found: UsageRecord[] = [];
        for (const at of byId.get(id) ?? []) {
          const record = records.get(at);
          if (record && wanted.has(record.day)) found.push(copyOf(record));
        }
        return found;
      });
    },
    async close() {
      clearInterval(sweep);
      records.clear();
      byId.clear();
    },
  };
}

/**
 * A shared store (Redis, the cluster primary) that keeps what it could not write in this
 * process's memory while it does not answer; reads add the two, so nothing counted is lost
 * from this process's view.
 */
export function withUsageFallback(shared: UsageStore, local: UsageStore, warn: Warn, where: string): UsageStore {
  const fallBack = (error: unknown): void => warn('usage', `Usage per key kept in this process's memory: ${where} did not answer`, error);
  return {
    async add(records, now) {
      try {
        await shared.add(records, now);
      } catch (error) {
        fallBack(error);
        await local.add(records, now);
      }
    },
    async get(ids, days) {
      const [remote, here] = await Promise.all([
        shared.get(ids, days).catch((error: unknown) => {
          fallBack(error);
          return ids.map((): UsageRecord[] => []);
        }),
        local.get(ids, days),
      ]);
      return ids.map((_, i) => ((here[i]?.length ?? 0) === 0 ? (remote[i] ?? []) : mergeRecords(remote[i] ?? [], here[i] ?? [])));
    },
    async close() {
      await shared.close();
      await local.close();
    },
  };
}

/** What one event adds to a key's record. */
export type UsageEvent =
  | { readonly kind: 'request' }
  | { readonly kind: 'answer' }
  | { readonly kind: 'failure'; readonly failure: string }
  | { readonly kind: 'tokens'; readonly input: number | undefined; readonly output: number | undefined };

export const REQUEST_EVENT: UsageEvent = { kind: 'request' };
export const ANSWER_EVENT: UsageEvent = { kind: 'answer' };

/**
 * Counts usage on the request path without waiting on a store: `count` adds to records
 * pending in this process, written to the store in one call every `flushMs` (and before a
 * read). A store that fails is logged, throttled, and its counts dropped.
 */
export interface UsageCounter {
  /** Counts one event for a key (its health id) and a model now. Synchronous and cheap. */
  count(id: string, model: string, event: UsageEvent): void;
  /** For each id, its records of today and the six days before (after writing what is pending). */
  read(ids: readonly string[]): Promise<UsageRecord[][]>;
  /** Writes what is pending (the store is closed by whoever made it). */
  close(): Promise<void>;
}

export interface UsageCounterOptions {
  readonly store: UsageStore;
  readonly warn: Warn;
  readonly now?: () => number;
  /** How long counts wait in this process before they are written together. */
  readonly flushMs?: number;
}

/** A count of tokens as a provider reported it; anything but a count adds nothing. */
const tokens = (value: number | undefined): number => (value !== undefined && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

export function createUsageCounter({ store, warn, now = Date.now, flushMs = 100 }: UsageCounterOptions): UsageCounter {
  // Key id -> model -> its counts of `day`: two lookups by strings already made, no key string built per count.
  let pending = new Map<string, Map<string, MutableRecord>>();
  let timer: NodeJS.Timeout | undefined;
  let dayStart = -1;
  let day = '';
  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const records: MutableRecord[] = [];
    for (const byModel of pending.values()) for (const record of byModel.values()) records.push(record);
    pending = new Map();
    try {
      await store.add(records, now());
    } catch (error) {
      warn('usage', 'Usage per key not recorded: its store did not answer', error);
    }
  };
  const recordOf = (id: string, model: string): MutableRecord => {
    const at = now();
    if (at < dayStart || at >= dayStart + DAY_MS) {
      // A new day: what is pending belongs to the day before, and is written as it is.
      void flush();
      dayStart = at - (at % DAY_MS);
      day = utcDay(dayStart);
    }
    let byModel = pending.get(id);
    if (!byModel) pending.set(id, (byModel = new Map()));
    let record = byModel.get(model);
    if (!record) {
      byModel.set(model, (record = blank(id, day, model)));
      if (!timer) {
        timer = setTimeout(() => void flush(), flushMs);
        timer.unref();
      }
    }
    return record;
  };
  return {
    count(id, model, event) {
      // Calls without a key (`provider:anonymous`) spend an address's allowance, not a key's: nobody's usage to count.
      if (isAnonymousId(id)) return;
      const record = recordOf(id, model);
      switch (event.kind) {
        case 'request':
          record.requests += 1;
          return;
        case 'answer':
          record.answers += 1;
          return;
        case 'failure':
          record.failures[event.failure] = (record.failures[event.failure] ?? 0) + 1;
          return;
        case 'tokens':
          record.inputTokens += tokens(event.input);
          record.outputTokens += tokens(event.output);
          return;
      }
    },
    async read(ids) {
      await flush();
      return ids.length === 0 ? [] : store.get(ids, usageDays(now()));
    },
    close: flush,
  };
}
