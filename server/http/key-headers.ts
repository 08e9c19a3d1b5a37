import type { ProviderPlugin } from '../../providers/types.ts';
import { freewayError, type HttpError } from '../core/errors.ts';
import { ANONYMOUS, type KeyPool, type KeyReader } from '../core/keys.ts';
import { addKeylessPools } from '../core/keyless.ts';

/** The most keys one provider's header may carry. */
export const MAX_KEYS_PER_HEADER = 16;

const invalid = (problem: string): HttpError => freewayError('FREEWAY_INVALID_KEY_HEADER', { problem });

/**
 * Splits one header into its keys: `a,b` or `a, b`. Messages name the header
 * and the key's position (from 1), never a value.
 */
function splitPool(plugin: ProviderPlugin, header: string, value: string): KeyPool {
  if (!value.includes(',')) {
    if (value.toLowerCase() === ANONYMOUS) return anonymousPool(plugin, header);
    const problem = keyHeaderProblem(header, value) ?? plugin.checkKey?.(value);
    if (problem) throw invalid(problem);
    return [value];
  }
  const parts = value.split(',');
  if (parts.length > MAX_KEYS_PER_HEADER) {
    throw invalid(`${header}: key ${MAX_KEYS_PER_HEADER + 1} is one too many; at most ${MAX_KEYS_PER_HEADER} keys are allowed.`);
  }
  const pool: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const key = (parts[i] as string).trim();
    const position = i + 1;
    if (key === '') throw invalid(`${header}: key ${position} is empty.`);
    if (key.toLowerCase() === ANONYMOUS) throw invalid(`${header}: \`anonymous\` asks for calls without a key, and must be sent alone, not in a key pool.`);
    const same = pool.indexOf(key);
    if (same !== -1) throw invalid(`${header}: key ${position} repeats key ${same + 1}.`);
    const problem = keyHeaderProblem(header, key) ?? plugin.checkKey?.(key);
    // `Key 2 of X-Cloudflare-Key must have the form …` where the plugin's message starts with the header.
    if (problem) throw invalid(problem.startsWith(header) ? `Key ${position} of ${problem}` : `${header}: key ${position}: ${problem}`);
    pool.push(key);
  }
  return pool;
}

/** `anonymous`: calls without a key, for a provider that documents them; a 400 naming the header for any other. */
function anonymousPool(plugin: ProviderPlugin, header: string): KeyPool {
  if (!plugin.anonymous) throw invalid(`${header}: \`anonymous\` asks for calls without a key, which ${plugin.name} does not offer: send a ${plugin.name} key.`);
  return [ANONYMOUS];
}

/** Printable ASCII, the only characters a key can have; anything else would be re-encoded on its way upstream. */
const printableAscii = /^[\x20-\x7e]*$/;

/**
 * What is wrong with one key of a key header, or undefined.
 * The message names the header and never repeats the value.
 */
export function keyHeaderProblem(header: string, value: string): string | undefined {
  if (!printableAscii.test(value)) return `${header} must contain only printable ASCII characters.`;
  return undefined;
}

/** The header Google's SDKs and Gemini CLI always send their API key in. */
export const GOOG_API_KEY_HEADER = 'x-goog-api-key';

export interface KeyReaderOptions {
  /**
   * The Gemini routes' reader: an `x-goog-api-key` holding one value in the Google
   * plugin's key format, in a request without X-Google-Key, is the Google key (Gemini
   * clients send their key there and nowhere else). Any other value, empty included,
   * is a client's placeholder and ignored.
   */
  readonly googApiKey?: boolean;
}

/** A whole value in one of the plugin's key formats. */
function wholeKeyTest(plugin: ProviderPlugin): (value: string) => boolean {
  const patterns = plugin.keyPatterns.map((pattern) => new RegExp(`^(?:${pattern.source})$`));
  return (value) => patterns.some((pattern) => pattern.test(value)) && keyHeaderProblem(plugin.header, value) === undefined && plugin.checkKey?.(value) === undefined;
}

/** Builds the per-request key reader; header names are lower-cased once, here. */
export function createKeyReader(plugins: readonly ProviderPlugin[], options: KeyReaderOptions = {}): KeyReader {
  const lookups = plugins.map((plugin) => ({ plugin, name: plugin.header.toLowerCase() }));
  const google = options.googApiKey ? plugins.find((plugin) => plugin.id === 'google') : undefined;
  const isGoogleKey = google ? wholeKeyTest(google) : undefined;
  return (headers) => {
    const keys = new Map<string, KeyPool>();
    for (const { plugin, name } of lookups) {
      const raw = headers[name];
      if (typeof raw !== 'string') continue;
      const value = raw.trim();
      if (value === '') continue;
      keys.set(plugin.id, splitPool(plugin, plugin.header, value));
    }
    if (google && isGoogleKey && !keys.has(google.id) && headers[google.header.toLowerCase()] === undefined) {
      const raw = headers[GOOG_API_KEY_HEADER];
      const value = typeof raw === 'string' ? raw.trim() : '';
      if (isGoogleKey(value)) keys.set(google.id, [value]);
    }
    addKeylessPools(headers, plugins, keys);
    return keys;
  };
}
