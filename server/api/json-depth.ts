import { fail } from './validation.ts';

/**
 * How deeply a JSON schema a caller sends (tool parameters, a response format)
 * may nest. Real schemas stay far below; the AI SDK and providers walk schemas
 * recursively, and a few thousand levels exhaust the stack.
 */
export const MAX_SCHEMA_DEPTH = 64;

/** Nesting depth of a parsed JSON value (a scalar is 0, `{}` and `[]` are 1), walked without recursion; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    const inner = depth + 1;
    if (inner > deepest) {
      deepest = inner;
      if (deepest > limit) return deepest;
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, inner]);
    }
  }
  return deepest;
}

/** Throws a 400 naming `field` when `schema` nests deeper than MAX_SCHEMA_DEPTH. For every client API's schemas. */
export function assertSchemaDepth(schema: unknown, field: string): void {
  if (jsonDepth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) {
    fail(field, `is nested more than ${MAX_SCHEMA_DEPTH} levels deep`);
  }
}
