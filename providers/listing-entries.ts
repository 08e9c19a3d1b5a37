/**
 * The entries of a model listing, each an object whose id (under `idField`) is text. A listing
 * with any other entry is not in its documented shape, and the whole listing fails: the key's
 * curated models stay in use rather than a list with holes being believed.
 */
export function listingEntries<T extends object>(entries: readonly unknown[], idField: string): T[] {
  for (const entry of entries) {
    if (entry === null || typeof entry !== 'object' || typeof (entry as Record<string, unknown>)[idField] !== 'string') {
      throw new Error(`not a model list: an entry without a text ${idField}`);
    }
  }
  return entries as T[];
}
