import { INT32_MAX, INT32_MIN, MAX_MODEL_ID_LENGTH } from './limits.ts';
import { MAX_SCHEMA_DEPTH } from './json-depth.ts';
import { DETAIL, MAX_DEPTH } from './validation.ts';

/** Pieces of JSON Schema that more than one client API's body schema uses. */

export type Schema = Record<string, unknown>;

/** A model id: not empty, and no longer than any catalog id may be. */
export const modelId: Schema = { type: 'string', minLength: 1, maxLength: MAX_MODEL_ID_LENGTH, description: 'An alias (`free:auto`) or a pinned `{provider}/{modelId}`.' };

/** A number in a range, or null (as absent). */
export const nullableNumber = (minimum: number, maximum: number, description?: string): Schema => ({
  type: ['number', 'null'],
  minimum,
  maximum,
  ...(description ? { description } : {}),
});

/**
 * An integer from `minimum` up to int32's largest, or null: every integer field
 * gets a finite bound, as JSON numbers past 1.8e308 parse as Infinity.
 */
export const nullableInteger = (minimum: number, description?: string, maximum = INT32_MAX): Schema => ({
  type: ['integer', 'null'],
  minimum,
  maximum,
  ...(description ? { description } : {}),
});

/** A seed: any int32, or null. */
export const seed: Schema = { type: ['integer', 'null'], minimum: INT32_MIN, maximum: INT32_MAX };

/** A JSON object the caller sends that providers walk recursively (a tool's parameters, a call's arguments): nested at most MAX_SCHEMA_DEPTH deep. */
export const deepObject = (description: string, types: string | readonly string[] = 'object'): Schema => ({ type: types, [MAX_DEPTH]: MAX_SCHEMA_DEPTH, description });

/** A field Freeway refuses with a reason: present and not null is the 400. */
export const refused = (detail: string): Schema => ({ type: 'null', [DETAIL]: detail });

/** An http(s) URL, as the URL parser reads it; `detail` words only a string that is not one. */
export const httpUrl = (detail = 'must be an http(s) URL'): Schema => ({ type: 'string', allOf: [{ format: 'http-url', [DETAIL]: detail }] });

/** A reference to one of the root schema's `$defs`: compiled once however often it is used. */
export const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });

/** A discriminated union: an object whose `tag` (a string, required) picks the branch that checks it. */
export const union = (tag: string, ...branches: Schema[]): Schema => ({
  type: 'object',
  required: [tag],
  properties: { [tag]: { type: 'string' } },
  discriminator: { propertyName: tag },
  oneOf: branches,
});
