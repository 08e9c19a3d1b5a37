import { keepNewest } from './bounded-map.ts';
import { fallingBack } from './fallback.ts';
import type { Warn } from './warn-every.ts';

/**
 * One model per conversation: which model answered a conversation's last turn, kept
 * like provider health (this process's memory, the cluster primary's, or Redis). A
 * conversation is known only by an HMAC of its keys, system prompt and first user turn
 * (routing/conversation.ts), and its value is a catalog model id: no content, no plain hash.
 */
export interface StickyStore {
  /** The model that answered the conversation's last turn, while it is kept. */
  get(conversation: string): Promise<string | undefined>;
  /** Keeps `model` for the conversation for `ttlMs` from now (each answer refreshes it). */
  set(conversation: string, model: string, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

interface Kept {
  readonly model: string;
  readonly expiresAt: number;
}

/**
 * In memory, at most `maxEntries` conversations (STICKY_MAX_ENTRIES): the least recently
 * used goes first, and that conversation is just routed as usual.
 */
export function createMemoryStickyStore(maxEntries: number, now: () => number = Date.now): StickyStore {
  // In order of last use (a Map keeps insertion order): the first entry is the least recently used.
  const kept = new Map<string, Kept>();
  return {
    async get(conversation) {
      const entry = kept.get(conversation);
      if (!entry) return undefined;
      kept.delete(conversation);
      if (entry.expiresAt <= now()) return undefined;
      kept.set(conversation, entry);
      return entry.model;
    },
    async set(conversation, model, ttlMs) {
      keepNewest(kept, conversation, { model, expiresAt: now() + ttlMs }, maxEntries);
    },
    async close() {
      kept.clear();
    },
  };
}

/** A shared store that falls back to this process's memory while the shared one does not answer, as health does. */
export function withStickyFallback(shared: StickyStore, local: StickyStore, warn: Warn, where: string): StickyStore {
  const fallBack = (error: unknown): void => warn('sticky', `Conversations' models kept in this process's memory: ${where} did not answer`, error);
  const either = fallingBack(shared, local, fallBack);
  return {
    get: (conversation) => either((store) => store.get(conversation)),
    set: (conversation, model, ttlMs) => either((store) => store.set(conversation, model, ttlMs)),
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
