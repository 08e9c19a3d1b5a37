import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import express from 'express';

/** The process environment, or what a test passes in its place. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What a parser may need beyond the text: the catalog ids and aliases a model map may target. */
export interface ParseContext {
  readonly knownTargets: ReadonlySet<string>;
}

/**
 * One environment variable: its name, how its text is read (throwing the one-line
 * `NAME must be ...` reason start-up prints), its default and one line of documentation.
 */
export interface Setting<T> {
  readonly env: string;
  /** The text read when the variable is unset (or empty); undefined: the value is undefined. */
  readonly default: string | undefined;
  /** The default as the documentation shows it, when not `default` itself. */
  readonly shownDefault?: string;
  /** An empty value is read as it is (not as unset). */
  readonly emptyIsValue?: boolean;
  /** What values are accepted, for --help and docs/configuration.md. */
  readonly accepts: string;
  /** One line (Markdown) for --help and docs/configuration.md. */
  readonly doc: string;
  readonly parse: (raw: string, context: ParseContext) => T;
}

/** The parts of a setting every kind shares, as the table writes them. */
export interface Described {
  readonly env: string;
  readonly doc: string;
  readonly shownDefault?: string;
}

/** A size setting as it was written (`20mb`, for messages) and in bytes. */
export interface Size {
  readonly bytes: number;
  readonly text: string;
}

/** A setting's value as it may appear in a message: bounded, on one line. */
export function shown(raw: string): string {
  const line = raw.replace(/[\x00-\x1f\x7f]/g, '?');
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}...` : line);
}

type IntegerAbout = Described & { readonly min: number; readonly max?: number };

function integerSetting(about: IntegerAbout, fallback: number | undefined): Setting<number> {
  const { env: name, min, max = Number.MAX_SAFE_INTEGER } = about;
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  return {
    ...about,
    default: fallback === undefined ? undefined : String(fallback),
    accepts: `integer ${range}`,
    parse(raw) {
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer ${range}, got ${shown(raw)}`);
      return value;
    },
  };
}

export function integer(about: IntegerAbout & { readonly default: number }): Setting<number> {
  return integerSetting(about, about.default);
}

/** An integer setting that may be unset: its value is then undefined. */
export function optionalInteger(about: IntegerAbout): Setting<number | undefined> {
  return integerSetting(about, undefined);
}

/** A number setting (not only integers) from `min` to `max`; a blank value is the default. */
export function decimal(about: Described & { readonly default: number; readonly min: number; readonly max: number }): Setting<number> {
  const { env: name, min, max } = about;
  const range = `from ${min} to ${max}`;
  return {
    ...about,
    default: String(about.default),
    accepts: `number ${range}`,
    parse(raw) {
      const value = raw.trim() === '' ? about.default : Number(raw);
      if (!(value >= min && value <= max)) throw new Error(`${name} must be a number ${range}, got ${shown(raw)}`);
      return value;
    },
  };
}

export function choice<const T extends string>(about: Described & { readonly default: NoInfer<T>; readonly choices: readonly T[] }): Setting<T> {
  const { env: name, choices } = about;
  return {
    ...about,
    accepts: choices.map((word) => `\`${word}\``).join(', '),
    parse(raw) {
      if (!(choices as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${choices.join(', ')}, got ${shown(raw)}`);
      return raw as T;
    },
  };
}

/** A two-word switch (`on`/`off`, `true`/`false`) read as a boolean: true for the first word. */
export function flag(about: Described & { readonly default: string; readonly words: readonly [string, string] }): Setting<boolean> {
  const words = choice({ ...about, choices: about.words });
  return { ...words, parse: (raw, context) => words.parse(raw, context) === about.words[0] };
}

// A name Node can listen on: an IP address or a DNS name. Whether the name resolves is
// found out by listening, which start-up reports in the same one-line form.
const hostName = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

export function host(about: Described & { readonly default: string }): Setting<string> {
  return {
    ...about,
    accepts: 'IP address or host name',
    parse(raw) {
      if (isIP(raw) === 0 && !hostName.test(raw)) throw new Error(`${about.env} must be an IP address or a host name, got ${shown(raw)}`);
      return raw;
    },
  };
}

const sizeUnits: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseSize(name: string, raw: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(raw.trim());
  if (!match) throw new Error(`${name} must be a size such as 20mb, got "${raw}"`);
  return Math.floor(Number(match[1]) * (sizeUnits[(match[2] ?? 'b').toLowerCase()] ?? 1));
}

/** A size in bytes, `kb`, `mb` or `gb`; `positive` refuses 0. */
export function size(about: Described & { readonly default: string; readonly positive: boolean }): Setting<number> {
  const { env: name } = about;
  return {
    ...about,
    accepts: about.positive ? 'size (bytes, kb, mb, gb), at least 1 byte' : 'size (bytes, kb, mb, gb)',
    parse(raw) {
      const bytes = parseSize(name, raw);
      if (about.positive && bytes < 1) throw new Error(`${name} must be at least 1 byte, got "${raw}"`);
      return bytes;
    },
  };
}

/** A size kept with its text, for messages that quote the limit as it was written. */
export function sizeWithText(about: Described & { readonly default: string; readonly positive: boolean }): Setting<Size> {
  const bytes = size(about);
  return { ...bytes, parse: (raw, context) => ({ bytes: bytes.parse(raw, context), text: raw }) };
}

/** A setting read by a function of its own, for a value no other kind has. */
export function custom<T>(about: Described & Pick<Setting<T>, 'default' | 'accepts' | 'parse' | 'emptyIsValue'>): Setting<T> {
  return about;
}

/** As Express takes it: trust every hop (true), none (false), a hop count, or addresses, subnets and names. */
export type TrustProxy = boolean | number | string;

/** A reverse proxy on the same host or a private network is believed; anyone on the internet is not. */
export const DEFAULT_TRUST_PROXY = 'loopback, linklocal, uniquelocal';

export function trustProxy(raw: string): TrustProxy {
  const text = raw.trim();
  if (text === '') return DEFAULT_TRUST_PROXY;
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  try {
    // Express compiles the value with proxy-addr, which throws on what it does not understand.
    express().set('trust proxy', text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal (${why})`);
  }
  return text;
}

/** express-rate-limit's default: a subscriber often holds a /56, at least a /64. */
export const DEFAULT_IPV6_SUBNET = 56;

export function ipv6Subnet(raw: string): number {
  const text = raw.trim();
  if (text === '') return DEFAULT_IPV6_SUBNET;
  const bits = Number(text);
  if (!/^\d+$/.test(text) || !((bits >= 32 && bits <= 64) || bits === 128)) {
    throw new Error(`RATE_LIMIT_IPV6_SUBNET must be a prefix length from 32 to 64, or 128 to count each IPv6 address apart, got ${shown(raw)}`);
  }
  return bits;
}

export function workerCount(raw: string): number {
  if (raw === 'auto') return availableParallelism();
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`WORKERS must be auto or an integer >= 1, got "${raw}"`);
  return value;
}

export function redisUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('REDIS_URL must be a URL such as redis://127.0.0.1:6379');
  }
  // The value may carry a password: never echo it.
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('REDIS_URL must start with redis:// or rediss://');
  return raw;
}

/** A provider's upstream base URL: http or https, no trailing slash. */
export function baseURL(name: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`${name} must be an http:// or https:// URL, got ${url?.password ? 'a URL with a password' : shown(raw)}`);
  }
  return raw.replace(/\/+$/, '');
}

/** One `glob=target` pair of `ANTHROPIC_MODEL_MAP` or `MODEL_MAP`, its glob compiled once. */
export interface ModelMapping {
  readonly glob: string;
  readonly pattern: RegExp;
  /** A catalog id or alias. */
  readonly target: string;
}

/** `*` matches any run of characters, `?` one; everything else is literal. Whole-name, case-sensitive. */
function globPattern(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${source}$`);
}

export function modelMap(name: string, example: string): (raw: string, context: ParseContext) => readonly ModelMapping[] {
  return (raw, { knownTargets }) => {
    const mappings: ModelMapping[] = [];
    for (const pair of raw.split(',')) {
      const entry = pair.trim();
      if (entry === '') continue;
      const at = entry.indexOf('=');
      const glob = at === -1 ? '' : entry.slice(0, at).trim();
      const target = at === -1 ? '' : entry.slice(at + 1).trim();
      if (glob === '' || target === '') throw new Error(`${name} must be comma-separated glob=target pairs such as ${example}, got ${shown(entry)}`);
      if (!knownTargets.has(target)) {
        throw new Error(`${name} maps ${glob} to ${target}, which is not a model or alias of the catalog (GET /v1/models lists them)`);
      }
      mappings.push({ glob, pattern: globPattern(glob), target });
    }
    return mappings;
  };
}

/**
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, as OpenTelemetry's GenAI instrumentations
 * read it (`true`/`false`, or where content goes): whether prompts and answers go on spans.
 */
export function contentCapture(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === 'span_only' || value === 'span_and_event') return true;
  if (value === 'false' || value === 'no_content' || value === 'event_only') return false;
  throw new Error(`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT must be true, false, span_only, span_and_event, event_only or no_content, got ${shown(raw)}`);
}
