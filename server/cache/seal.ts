import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { isAnonymous, type KeySet } from '../core/keys.ts';
import type { TextHasher } from '../state/key-hash.ts';

/*
 * What names and locks one kept answer. The id is an HMAC under KEY_HASH_SECRET of every
 * provider key the request carries (providers in order of id, each provider's keys sorted)
 * and of the canonical call; the answer is sealed with AES-256-GCM under a key that HKDF
 * derives from those provider keys, salted with KEY_HASH_SECRET. Whoever holds the store
 * (the operator, Redis) sees ids and ciphertext only; a request without the same keys can
 * neither name the entry nor open it.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_INFO = Buffer.from('freeway response cache v1');

/** The request's keys in one canonical order, or undefined when it carries none (calls without a key are never cached). */
export function canonicalKeys(keys: KeySet): string[] | undefined {
  const providers = [...keys.keys()].sort();
  const pieces: string[] = [];
  for (const provider of providers) {
    const pool = (keys.get(provider) ?? []).filter((key) => !isAnonymous(key));
    if (pool.length === 0) continue;
    pieces.push(provider, ...[...pool].sort());
  }
  return pieces.length === 0 ? undefined : pieces;
}

/** The lock of one request's entries: its id's hasher and the AES key its keys derive. */
export interface EntryLock {
  readonly id: string;
  readonly key: Buffer;
}

/** The id and the AES-256 key of the entry of `call` (canonical text) under `keys` (canonicalKeys). */
export function lockOf(hasher: TextHasher, secret: string, keys: readonly string[], call: string): EntryLock {
  const keyText = keys.map((piece) => `${piece.length}:${piece}`).join('');
  const id = hasher('cache', [keyText, call]);
  const key = Buffer.from(hkdfSync('sha256', keyText, secret, HKDF_INFO, 32));
  return { id, key };
}

/** `plaintext` sealed: IV, tag, ciphertext; the id is authenticated with it, so that no entry opens under another's id. */
export function seal(lock: EntryLock, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', lock.key, iv);
  cipher.setAAD(Buffer.from(lock.id));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The plaintext of a sealed entry, or undefined when the lock does not open it (other keys, a changed or foreign entry). */
export function open(lock: EntryLock, sealed: Buffer): string | undefined {
  if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', lock.key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(lock.id));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
