import { sharedKeyPatterns } from '../../providers/redaction.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { isAnonymous } from './keys.ts';

export const REDACTED = '[REDACTED]';

/**
 * The keys of one request: its KeySet (provider id -> key, or keys), or a list
 * of keys. A KeySet or list is compiled for redaction once, on first use, and
 * reused for every later message of the same request.
 */
export type RequestKeys = ReadonlyMap<string, string | readonly string[]> | Iterable<string | readonly string[]>;

export type Redactor = (text: string, requestKeys?: RequestKeys) => string;

/**
 * Any run of this many characters of a request's key, in any case, is taken
 * out of a message: providers echo keys masked (`7xW1RA4cMNeuoNZm********FRWP`),
 * and the visible part must not get out either.
 */
export const KEY_FRAGMENT_LENGTH = 8;

/** Key parts shorter than a fragment (Cloudflare's halves can be) go when they appear whole. */
const MIN_PART_LENGTH = 4;

interface KeyMatcher {
  /** Rolling hashes of every lower-cased fragment, to test a window without building a string. */
  readonly hashes: ReadonlySet<number>;
  /** The lower-cased fragments themselves, to confirm a hash hit. */
  readonly fragments: ReadonlySet<string>;
  /** Parts of composite keys (`account_id:api_token`) of MIN_PART_LENGTH to KEY_FRAGMENT_LENGTH - 1 characters. */
  readonly shortParts: readonly string[];
}

const HASH_BASE = 31;
/** HASH_BASE ** (KEY_FRAGMENT_LENGTH - 1), modulo 2^32. */
const HASH_TOP = (() => {
  let power = 1;
  for (let i = 1; i < KEY_FRAGMENT_LENGTH; i++) power = Math.imul(power, HASH_BASE);
  return power;
})();

/** ASCII letters folded to lower case; keys are printable ASCII, so nothing else can match them. */
const fold = (code: number): number => (code >= 65 && code <= 90 ? code + 32 : code);

/** A request's keys; `anonymous` is a marker, not a key, and stays in messages. */
function keysOf(source: RequestKeys): string[] {
  const entries = source instanceof Map ? (source as ReadonlyMap<string, string | readonly string[]>).values() : (source as Iterable<string | readonly string[]>);
  const keys: string[] = [];
  for (const entry of entries) {
    for (const key of typeof entry === 'string' ? [entry] : entry) if (!isAnonymous(key)) keys.push(key);
  }
  return keys;
}

function compile(keys: readonly string[]): KeyMatcher {
  const hashes = new Set<number>();
  const fragments = new Set<string>();
  const shortParts: string[] = [];
  for (const key of keys) {
    const lower = key.toLowerCase();
    let hash = 0;
    for (let i = 0; i < lower.length; i++) {
      if (i >= KEY_FRAGMENT_LENGTH) hash = (hash - Math.imul(lower.charCodeAt(i - KEY_FRAGMENT_LENGTH), HASH_TOP)) | 0;
      hash = (Math.imul(hash, HASH_BASE) + lower.charCodeAt(i)) | 0;
      if (i >= KEY_FRAGMENT_LENGTH - 1) {
        hashes.add(hash);
        fragments.add(lower.slice(i - KEY_FRAGMENT_LENGTH + 1, i + 1));
      }
    }
    for (const part of key.split(':')) {
      if (part.length >= MIN_PART_LENGTH && part.length < KEY_FRAGMENT_LENGTH) shortParts.push(part);
    }
  }
  return { hashes, fragments, shortParts };
}

/** The matcher of a request without keys: nothing to compile, nothing to keep. */
const noKeys: KeyMatcher = { hashes: new Set(), fragments: new Set(), shortParts: [] };

/** Where a request's keys hold their matcher once it is made (see matcherOf). */
const matcherSlot = Symbol('key matcher');

/**
 * The matcher of a request's keys, made when its first message is redacted and kept
 * on the keys themselves, so that it dies with them. Not in a WeakMap: V8's young
 * collections may keep a WeakMap's entries, key and value, until a full collection,
 * and a request's matcher (two Sets and their tables, even without keys) then goes to
 * the old generation as garbage: the request log's two redactions of each 404 moved
 * about 1.8 MB a second there under a flood of them. A request without keys has the
 * one empty matcher.
 */
function matcherOf(requestKeys: RequestKeys): KeyMatcher {
  const holder = requestKeys as RequestKeys & { [matcherSlot]?: KeyMatcher };
  const made = holder[matcherSlot];
  if (made !== undefined) return made;
  const keys = keysOf(requestKeys);
  const matcher = keys.length === 0 ? noKeys : compile(keys);
  // A frozen list is compiled again for each message; it can be read again.
  if (Object.isExtensible(holder)) holder[matcherSlot] = matcher;
  return matcher;
}

/** `text` with every stretch covered by a key fragment replaced; `text` itself when there is none. */
function removeFragments(text: string, matcher: KeyMatcher): string {
  if (text.length < KEY_FRAGMENT_LENGTH || matcher.hashes.size === 0) return text;
  let out = '';
  let copied = 0;
  let runStart = -1;
  let runEnd = -1;
  let hash = 0;
  for (let i = 0; i < text.length; i++) {
    if (i >= KEY_FRAGMENT_LENGTH) hash = (hash - Math.imul(fold(text.charCodeAt(i - KEY_FRAGMENT_LENGTH)), HASH_TOP)) | 0;
    hash = (Math.imul(hash, HASH_BASE) + fold(text.charCodeAt(i))) | 0;
    if (i < KEY_FRAGMENT_LENGTH - 1 || !matcher.hashes.has(hash)) continue;
    const start = i - KEY_FRAGMENT_LENGTH + 1;
    if (!matcher.fragments.has(text.slice(start, i + 1).toLowerCase())) continue;
    if (start <= runEnd) {
      runEnd = i + 1;
      continue;
    }
    if (runStart !== -1) out += text.slice(copied, runStart) + REDACTED;
    copied = runEnd === -1 ? 0 : runEnd;
    runStart = start;
    runEnd = i + 1;
  }
  if (runStart === -1) return text;
  return out + text.slice(copied, runStart) + REDACTED + text.slice(runEnd);
}

/**
 * Compiles every plugin's key patterns and the shared ones into a single
 * expression, once. The returned function also removes every run of
 * KEY_FRAGMENT_LENGTH or more characters of the current request's keys, so
 * keys of formats no pattern knows, and masked echoes of them, never leak.
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
      const matcher = matcherOf(requestKeys);
      out = removeFragments(out, matcher);
      for (const part of matcher.shortParts) if (out.includes(part)) out = out.replaceAll(part, REDACTED);
    }
    return out.replace(pattern, REDACTED);
  };
}

const longToken = /[A-Za-z0-9_-]{8,}/g;

/** For log lines: every token of 8 or more letters, digits, `-` or `_` becomes [REDACTED]. */
export function sanitizeForLog(text: string): string {
  return text.replace(longToken, REDACTED);
}
