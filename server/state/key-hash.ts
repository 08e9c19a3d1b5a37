import { createHmac } from 'node:crypto';

/** A key's identity as every store keeps it. */
export type KeyHasher = (providerId: string, key: string) => string;

/** `provider:HMAC-SHA256(secret, key)`: the only form in which a key's identity is kept. */
export function createKeyHasher(secret: string): KeyHasher {
  return (providerId, key) => `${providerId}:${createHmac('sha256', secret).update(key).digest('base64url')}`;
}
