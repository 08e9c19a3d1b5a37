/** Bounds every client API applies to what a caller sends, whatever its format. */

/** Longest model id; no catalog id comes close, and messages echo it. */
export const MAX_MODEL_ID_LENGTH = 256;

/**
 * Largest integer field (token counts, seeds). JSON numbers past 1.8e308 parse
 * as Infinity, which schema validators count as an integer and JSON.stringify
 * sends upstream as null, so every integer field gets a finite bound.
 */
export const INT32_MAX = 2 ** 31 - 1;
export const INT32_MIN = -(2 ** 31);
