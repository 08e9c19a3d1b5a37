import { randomBytes, randomUUID } from 'node:crypto';
import type { Collected } from '../routing/index.ts';

/**
 * All an API's encoder takes from outside its parts and its request: new ids
 * and the time. Handed in so that the same parts always give the same events
 * (the golden tests in test/api/encoders.test.ts); `systemContext` is what
 * Freeway serves with.
 */
export interface EncoderContext {
  /** A new id: `prefix` and `digits` lowercase hex digits (`chatcmpl-` and 32, Anthropic's `msg_` and 24). */
  readonly newId: (prefix: string, digits: 24 | 32) => string;
  /** The time in whole seconds since the epoch (`created`, `created_at`, `completed_at`). */
  readonly now: () => number;
}

/** Random ids (a UUID's 32 hex digits, or 12 random bytes for 24) and the system clock. */
export const systemContext: EncoderContext = {
  newId: (prefix, digits) => prefix + (digits === 32 ? randomUUID().replaceAll('-', '') : randomBytes(digits / 2).toString('hex')),
  now: () => Math.floor(Date.now() / 1000),
};

/**
 * A whole answer, as the whole-answer mappings (`<api>/response.ts`) turn it into one API's
 * object: routing's normalised answer (text, reasoning and the caller's own tool calls; the
 * finish reason and the usage the upstream reported; log probabilities when asked for).
 */
export type WholeAnswer = Collected;
