/**
 * How deeply a JSON schema a caller sends (tool parameters, a response format)
 * may nest. Real schemas stay far below; the AI SDK and providers walk schemas
 * recursively, and a few thousand levels exhaust the stack.
 */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * Whether a parsed JSON value nests at most `levels` deep (a scalar is 0, `{}`
 * and `[]` are 1). Recursive, but it stops past `levels`, so the stack it takes
 * is bounded by `levels` whatever the value; it allocates nothing.
 */
export function nestsWithin(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (levels === 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!nestsWithin(value[i], levels - 1)) return false;
    return true;
  }
  for (const key in value) if (!nestsWithin((value as Record<string, unknown>)[key], levels - 1)) return false;
  return true;
}
