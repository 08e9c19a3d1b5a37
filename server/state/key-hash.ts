import { createHmac } from 'node:crypto';
import { ANONYMOUS, isAnonymous } from '../core/keys.ts';

/** A key's identity as every store keeps it. */
export type KeyHasher = (providerId: string, key: string) => string;

/**
 * `provider:HMAC-SHA256(secret, key)`: the only form in which a key's identity is kept.
 * Calls without a key (`anonymous`) are one identity per provider, `provider:anonymous`:
 * the marker is not a key, and is not hashed.
 */
export function createKeyHasher(secret: string): KeyHasher {
  return (providerId, key) => (isAnonymous(key) ? `${providerId}:${key}` : `${providerId}:${createHmac('sha256', secret).update(key).digest('base64url')}`);
}

const anonymousSuffix = `:${ANONYMOUS}`;

/** Whether a key's identity is a provider's calls without a key (`provider:anonymous`): no HMAC ends so. */
export const isAnonymousId = (id: string): boolean => id.endsWith(anonymousSuffix);

/** An HMAC of several pieces of text, for an id that must not be guessable from what it stands for: `namespace:HMAC`. */
export type TextHasher = (namespace: string, pieces: Iterable<string>) => string;

/** `namespace:HMAC-SHA256(secret, pieces)`, each piece with its length before it, so that no two lists of pieces read alike. */
export function createTextHasher(secret: string): TextHasher {
  return (namespace, pieces) => {
    // One string, one update: each call into the hash costs more than the copy.
    let text = '';
    for (const piece of pieces) text += `${piece.length}:${piece}`;
    return `${namespace}:${createHmac('sha256', secret).update(text).digest('base64url')}`;
  };
}
