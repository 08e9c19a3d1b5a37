import { invalidField } from '../core/errors.ts';

/**
 * The one way the three client APIs check a body and word a mistake:
 * `Validation failed: <field>: <detail>`, the field a dotted path into the body
 * (`messages.2.content.0.type`) and the detail worded by `phrase` (JSON
 * Schema's words), whichever API the body came to. Each API walks its body
 * once, by hand, with the checks here (chat/validate.ts, responses/validate.ts,
 * messages/validate.ts), reporting the first mistake.
 */

export type Fields = Record<string, unknown>;

/** One wording for each mistake, the words of JSON Schema's keywords. */
export const phrase = {
  required: 'is required',
  /** The types a value may have, in JSON Schema's names: `must be string or null`. */
  type: (...types: readonly string[]): string => `must be ${types.join(' or ')}`,
  oneOf: (allowed: readonly unknown[]): string => `must be one of ${allowed.join(', ')}`,
  constant: (value: unknown): string => `must be ${String(value)}`,
  minimum: (limit: number): string => `must be >= ${limit}`,
  maximum: (limit: number): string => `must be <= ${limit}`,
  minItems: (limit: number): string => `must NOT have fewer than ${limit} items`,
  maxItems: (limit: number): string => `must NOT have more than ${limit} items`,
  minLength: (limit: number): string => `must NOT have fewer than ${limit} characters`,
  maxLength: (limit: number): string => `must NOT have more than ${limit} characters`,
  maxProperties: (limit: number): string => `must NOT have more than ${limit} properties`,
} as const;

/** Throws the 400 naming a field and what is wrong with it. */
export function fail(field: string, detail: string): never {
  throw invalidField(field, detail);
}


export const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

export function object(value: unknown, field: string): Fields {
  if (value === undefined) fail(field, phrase.required);
  if (!isObject(value)) fail(field, phrase.type('object'));
  return value;
}

/** An optional object: absent or null is undefined. */
export function optionalObject(value: unknown, field: string): Fields | undefined {
  if (value == null) return undefined;
  if (!isObject(value)) fail(field, phrase.type('object', 'null'));
  return value;
}

export function array(value: unknown, field: string): unknown[] {
  if (value === undefined) fail(field, phrase.required);
  if (!Array.isArray(value)) fail(field, phrase.type('array'));
  return value;
}

export function string(value: unknown, field: string): string {
  if (value === undefined) fail(field, phrase.required);
  if (typeof value !== 'string') fail(field, phrase.type('string'));
  return value;
}

/** A string that must not be empty (`minLength: 1`). */
export function nonEmptyString(value: unknown, field: string): string {
  const text = string(value, field);
  if (text === '') fail(field, phrase.minLength(1));
  return text;
}

/** An optional string: absent or null is undefined. */
export function optionalString(value: unknown, field: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'string') fail(field, phrase.type('string', 'null'));
  return value;
}

/** An optional boolean: absent or null is undefined. */
export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'boolean') fail(field, phrase.type('boolean', 'null'));
  return value;
}

/**
 * A JSON number (an integer if asked). JSON numbers past 1.8e308 parse as
 * Infinity, which passes here as JSON Schema validators let it; every bound is
 * finite, so it fails the bound (`must be <= 2147483647`).
 */
export const isNumber = (value: unknown, integer = false): value is number =>
  typeof value === 'number' && !Number.isNaN(value) && (!integer || !(value % 1));

/** Characters as JSON Schema counts them: code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** A string of at most `limit` characters (code points). */
export function maxLength(text: string, field: string, limit: number): string {
  if (text.length > limit && codePoints(text) > limit) fail(field, phrase.maxLength(limit));
  return text;
}

export interface NumberBounds {
  readonly min: number;
  readonly max: number;
  readonly integer?: boolean;
}

/** An optional number within bounds: absent or null is null. */
export function optionalNumber(value: unknown, field: string, { min, max, integer = false }: NumberBounds): number | null {
  if (value == null) return null;
  if (!isNumber(value, integer)) fail(field, phrase.type(integer ? 'integer' : 'number', 'null'));
  if (value < min) fail(field, phrase.minimum(min));
  if (value > max) fail(field, phrase.maximum(max));
  return value;
}

/** One of the allowed strings. */
export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (value === undefined) fail(field, phrase.required);
  if (!allowed.includes(value as T)) fail(field, phrase.oneOf(allowed));
  return value as T;
}

/** An http(s) URL. */
export function httpUrl(value: unknown, field: string): string {
  const url = string(value, field);
  const protocol = URL.parse(url)?.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') fail(field, 'must be an http(s) URL');
  return url;
}
