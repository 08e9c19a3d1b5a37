/**
 * Gemini's schemas -> JSON Schema, for every provider. `parameters` and `responseSchema`
 * are Google's OpenAPI subset (https://ai.google.dev/api/caching#Schema, read 2026-11-27):
 * upper-case `type` names (`OBJECT`, `STRING`), `nullable`, `propertyOrdering`, and 64-bit
 * integers (`minItems`, `maxLength`, ...) that may come as strings. Gemini CLI 0.61 also
 * sends upper-case types in `responseJsonSchema`, and `$schema` in some
 * `parametersJsonSchema`, so every schema goes through here: types lower-cased,
 * `nullable: true` as a `null` type, Google's own keywords and `$schema` left out.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords whose value is one schema. */
const schemaKeywords = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'additionalItems', 'unevaluatedItems', 'unevaluatedProperties']);
/** Keywords whose value is a list of schemas. */
const listKeywords = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords whose value maps names to schemas. */
const mapKeywords = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Google's int64 fields, which its JSON mapping may write as strings. */
const integerKeywords = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);
/** Google's own keywords, which no JSON Schema validator knows. */
const dropped = new Set(['$schema', 'propertyOrdering', 'nullable']);

const lowerType = (type: unknown): unknown => (typeof type === 'string' ? (type === 'TYPE_UNSPECIFIED' ? undefined : type.toLowerCase()) : type);

function typeOf(schema: Json): unknown {
  const type = Array.isArray(schema.type) ? schema.type.map(lowerType).filter((item) => item !== undefined) : lowerType(schema.type);
  if (schema.nullable !== true || type === undefined) return type;
  if (Array.isArray(type)) return type.includes('null') ? type : [...type, 'null'];
  return type === 'null' ? type : [type, 'null'];
}

/** One schema (validation bounds its depth: MAX_SCHEMA_DEPTH). */
export function toJsonSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (dropped.has(key) || key === 'type') continue;
    if (schemaKeywords.has(key)) out[key] = toJsonSchema(value);
    else if (listKeywords.has(key)) out[key] = Array.isArray(value) ? value.map(toJsonSchema) : value;
    else if (mapKeywords.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, toJsonSchema(inner)]));
    else if (integerKeywords.has(key) && typeof value === 'string' && /^\d+$/.test(value)) out[key] = Number(value);
    else out[key] = value;
  }
  const type = typeOf(schema);
  return type === undefined ? out : { type, ...out };
}
