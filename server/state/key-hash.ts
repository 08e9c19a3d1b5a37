import { createHmac } from 'node:crypto';
import { isAnonymous } from '../core/keys.ts';

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
