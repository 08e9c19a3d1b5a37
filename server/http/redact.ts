import { sharedKeyPatterns } from '../../providers/redaction.ts';
import type { ProviderPlugin } from '../../providers/types.ts';

export const REDACTED = '[REDACTED]';

/** `requestKeys`: the request's keys, one by one or as a provider's pool (a header may carry several). */
export type Redactor = (text: string, requestKeys?: Iterable<string | readonly string[]>) => string;

/**
 * Compiles every plugin's key patterns and the shared ones into a single
 * expression, once. The returned function also removes the literal keys of the
 * current request, so keys of formats no pattern knows never leak either.
 */
export function createRedactor(plugins: readonly ProviderPlugin[]): Redactor {
  // Each match runs on over any further key characters, so the whole key goes even
  // where a pattern's own character class stops at an inner `-` or `_`.
  const sources = [...plugins.flatMap((plugin) => plugin.keyPatterns), ...sharedKeyPatterns].map(
    (pattern) => `(?:${pattern.source})[A-Za-z0-9_-]*`,
  );
  const pattern = new RegExp(sources.join('|'), 'g');
  return (text, requestKeys) => {
    let out = text;
    if (requestKeys) {
      for (const entry of requestKeys) {
        if (typeof entry === 'string') out = redactKey(out, entry);
        else for (const key of entry) out = redactKey(out, key);
      }
    }
    return out.replace(pattern, REDACTED);
  };
}

function redactKey(text: string, key: string): string {
  let out = text;
  // Parts of a composite key (Cloudflare's account_id:api_token) are secrets too.
  for (const secret of key.split(':')) {
    if (secret.length >= 4 && out.includes(secret)) out = out.replaceAll(secret, REDACTED);
  }
  return out;
}

const longToken = /[A-Za-z0-9_-]{8,}/g;

/** For log lines: every token of 8 or more letters, digits, `-` or `_` becomes [REDACTED]. */
export function sanitizeForLog(text: string): string {
  return text.replace(longToken, REDACTED);
}
