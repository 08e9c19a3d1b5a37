import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, SchemaObject, ValidateFunction } from 'ajv';
import { clip, invalidField } from '../core/errors.ts';
import { nestsWithin } from './json-depth.ts';

/**
 * The one way the client APIs check a body and word a mistake. Each API's
 * accepted body is a JSON Schema (its `schema.ts`), compiled once by ajv; a
 * body that fails it is a 400 worded by `describeError` as
 * `Validation failed: <field>: <detail>`, the field a dotted path into the body
 * (`messages.2.content.0.type`) and the detail JSON Schema's words (`must be
 * string or null`), whichever API the body came to (each API's error middleware
 * gives the 400 its own shape). What a schema cannot say (a tool call answered
 * by its result, bounds measured cheaply) is checked after it, in the API's
 * `validate.ts`, with `fail`.
 */

export type Fields = Record<string, unknown>;

/** Throws the 400 naming a field and what is wrong with it. */
export function fail(field: string, detail: string): never {
  throw invalidField(field, detail);
}

export const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One wording for the checks after a schema, the words of JSON Schema's keywords. */
export const phrase = {
  required: 'is required',
  type: (...types: readonly string[]): string => `must be ${types.join(' or ')}`,
  oneOf: (allowed: readonly unknown[]): string => `must be one of ${allowed.join(', ')}`,
} as const;

/**
 * `x-detail` on a schema words its mistake where JSON Schema's words would not
 * say why (`previous_response_id`: Freeway keeps no state). An annotation: ajv
 * checks nothing for it, and OpenAPI allows `x-` keywords in a schema.
 */
export const DETAIL = 'x-detail';

/**
 * `x-max-depth` bounds how deeply an object nests (a JSON schema a caller
 * sends, a tool call's arguments): the AI SDK and providers' SDKs walk them
 * recursively, and a few thousand levels exhaust the stack. Walked no deeper
 * than the bound.
 */
export const MAX_DEPTH = 'x-max-depth';

const isHttpUrl = (value: string): boolean => {
  const protocol = URL.parse(value)?.protocol;
  return protocol === 'http:' || protocol === 'https:';
};

/**
 * The one ajv, made when the first body is checked (loading ajv and compiling
 * every API's schema costs more CPU than the rest of start-up, and a process may
 * never serve some of the APIs). No coercion, no defaults, the first mistake
 * only (the 400 names one field, and stopping there is faster), strict schemas.
 * Numbers past 1.8e308 parse as Infinity, which is a number here
 * (`strictNumbers` off) so that it fails the field's finite bound (`must be <=
 * 2147483647`) rather than its type.
 */
let shared: Ajv | undefined;
function ajv(): Ajv {
  if (shared) return shared;
  const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  shared = new AjvClass({
    allErrors: false,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    strict: true,
    strictNumbers: false,
    allowUnionTypes: true,
    discriminator: true,
    // A `$ref` is compiled once, as a function of its own, however often it is used.
    inlineRefs: false,
    // Errors carry the schema that holds the failing keyword (its `x-detail`); only a failing body builds them.
    verbose: true,
    // The optimizer's passes cost more CPU than the code they trim saves.
    code: { optimize: false },
  });
  shared.addKeyword({ keyword: DETAIL, schemaType: 'string' });
  shared.addKeyword({ keyword: MAX_DEPTH, type: 'object', schemaType: 'number', errors: false, validate: (limit: number, data: unknown) => nestsWithin(data, limit) });
  /** An http(s) URL as the URL parser reads it (`URL.parse`, the parser that later reads it). */
  shared.addFormat('http-url', { type: 'string', validate: isHttpUrl });
  /** An image's URL: http(s), or the image itself as a data URL. */
  shared.addFormat('http-or-data-url', { type: 'string', validate: (value: string) => value.startsWith('data:') || isHttpUrl(value) });
  return shared;
}

/** A body's checker: the body, typed, or a 400 naming its first bad field. */
type BodyCheck<T> = (body: unknown) => T;

/** A body's checker, its schema compiled once, at start-up; a failure is worded by `describeError`. */
export function compileBody<T>(schema: SchemaObject): BodyCheck<T> {
  // Compiled as the module loads, before the server listens: no caller's first body pays for it.
  const validate: ValidateFunction = ajv().compile(schema);
  return (body) => {
    if (validate(body)) return body as T;
    const { field, detail } = describeError(validate.errors ?? [], { schema });
    return fail(field, detail);
  };
}

/** A field's path into the body, dotted: `/messages/0/content` is `messages.0.content`, the body itself `body`. */
function fieldOf(instancePath: string, child?: string): string {
  const parts = instancePath === '' ? [] : instancePath.slice(1).split('/').map(unescape);
  if (child !== undefined) parts.push(child);
  return parts.length === 0 ? 'body' : parts.join('.');
}

/** What a failed validation is described against: the body's schema (whose `$defs` its `$ref`s name). */
interface Failed {
  readonly schema: SchemaObject;
}

const unescape = (part: string): string => part.replaceAll('~1', '/').replaceAll('~0', '~');

/** The value at a JSON pointer (`#/$defs/message`) into `root`. */
function at(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Fields)[unescape(decodeURIComponent(part))];
  }
  return node;
}

/** A schema, or the one its `$ref` (`#/$defs/...`) names. */
const resolved = (root: SchemaObject, node: unknown): unknown => (isObject(node) && typeof node.$ref === 'string' ? at(root, node.$ref) : node);

/** The schema holding the keyword that failed. */
const holderOf = (error: ErrorObject): Fields | undefined => (isObject(error.parentSchema) ? error.parentSchema : undefined);

/** An enum's values but null, which stands for absent. */
const allowedValues = (params: Fields): string[] => (params.allowedValues as unknown[]).filter((value) => value !== null).map(String);

const listOf = (types: unknown): string[] => (Array.isArray(types) ? types.map(String) : String(types).split(','));

/** The values a discriminated union's tag may take, in the order of its branches. */
function tagValues(root: SchemaObject, holder: Fields | undefined, tag: string): string[] {
  const branches = Array.isArray(holder?.oneOf) ? (holder.oneOf as unknown[]).map((branch) => resolved(root, branch)) : [];
  return branches.flatMap((branch) => {
    const property = isObject(branch) && isObject(branch.properties) ? branch.properties[tag] : undefined;
    // A value whose branch refuses it in words (`input_audio`) is not one to offer.
    if (!isObject(property) || property[DETAIL] !== undefined) return [];
    return property.const !== undefined ? [String(property.const)] : Array.isArray(property.enum) ? property.enum.map(String) : [];
  });
}

interface FieldError {
  readonly field: string;
  readonly detail: string;
}

/** One keyword's mistake in words; `x-detail` on the schema holding it wins. */
function describeOne(error: ErrorObject, { schema: root }: Failed): FieldError {
  const params = error.params as Fields;
  const holder = holderOf(error);
  if (error.keyword === 'required') {
    // A property that words its own mistakes words its absence too (`model: required, a string`).
    const missing = String(params.missingProperty);
    const property = isObject(holder?.properties) ? holder.properties[missing] : undefined;
    const own = isObject(property) ? property[DETAIL] : undefined;
    return { field: fieldOf(error.instancePath, missing), detail: typeof own === 'string' ? own.replace('{value}', 'undefined') : phrase.required };
  }
  const field = fieldOf(error.instancePath);
  const custom = holder?.[DETAIL];
  if (typeof custom === 'string') {
    const value = error.keyword === 'discriminator' ? params.tagValue : error.data;
    return { field: error.keyword === 'discriminator' ? fieldOf(error.instancePath, String(params.tag)) : field, detail: custom.replace('{value}', () => clip(String(value))) };
  }
  switch (error.keyword) {
    case 'type':
      return { field, detail: phrase.type(...listOf(params.type)) };
    case 'enum':
      return { field, detail: phrase.oneOf(allowedValues(params)) };
    case 'const':
      return { field, detail: `must be ${String(params.allowedValue)}` };
    case MAX_DEPTH:
      return { field, detail: `is nested more than ${String(holder?.[MAX_DEPTH])} levels deep` };
    case 'discriminator':
      // A tag of no branch (every union requires its tag, a string, before it picks a branch).
      return { field: fieldOf(error.instancePath, String(params.tag)), detail: phrase.oneOf(tagValues(root, holder, String(params.tag))) };
    default:
      return { field, detail: error.message ?? 'is not valid' };
  }
}

/** A mistake in the value's own shape (its type, or not an allowed value), as opposed to one inside it. */
const isShape = (error: ErrorObject, at: string): boolean =>
  error.instancePath === at && (error.keyword === 'type' || error.keyword === 'enum' || error.keyword === 'const');

/** What a union's branch wanted, for `must be auto or none or required or object`. */
function wanted(error: ErrorObject): string[] {
  const params = error.params as Fields;
  if (error.keyword === 'type') return listOf(params.type);
  if (error.keyword === 'enum') return allowedValues(params);
  return [String(params.allowedValue)];
}

/**
 * The first mistake of a failed validation, in words. With `allErrors` off,
 * ajv stops at the first failing keyword, whose error comes last; a union
 * (`anyOf`, `oneOf`) lists each branch's errors before its own. When the value
 * had a branch's shape and failed inside it, that mistake is the one named
 * (`tool_choice.function: is required`); when it had no branch's shape, the
 * union's shapes are (`must be auto or none or required or object`); an
 * `x-detail` beside the union words any failure of it. A union's branches are
 * written in place, never `$ref`s (whose errors would name paths of their own
 * schema): test/api/body-schemas.test.ts holds every body schema to that.
 */
function describeError(errors: readonly ErrorObject[], failed: Failed): FieldError {
  const last = errors.at(-1);
  if (last === undefined) return { field: 'body', detail: 'is not valid' };
  // `if` and `propertyNames` list the mistake that failed them before their own error.
  if (last.keyword === 'if' || last.keyword === 'propertyNames') return describeError(errors.slice(0, -1), failed);
  if (last.keyword !== 'anyOf' && last.keyword !== 'oneOf') return describeOne(last, failed);
  const custom = holderOf(last)?.[DETAIL];
  if (typeof custom === 'string') return { field: fieldOf(last.instancePath), detail: custom };
  const prefix = `${last.schemaPath}/`;
  const branches = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    if (!error.schemaPath.startsWith(prefix)) continue;
    const branch = error.schemaPath.slice(prefix.length).split('/', 1)[0] as string;
    const list = branches.get(branch) ?? [];
    list.push(error);
    branches.set(branch, list);
  }
  for (const list of branches.values()) {
    if (!isShape(list.at(-1) as ErrorObject, last.instancePath)) return describeError(list, failed);
  }
  return { field: fieldOf(last.instancePath), detail: `must be ${[...branches.values()].flatMap((list) => wanted(list.at(-1) as ErrorObject)).join(' or ')}` };
}
