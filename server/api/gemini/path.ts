import type { Request, RequestHandler } from 'express';
import { GOOG_API_KEY_HEADER } from '../../http/key-headers.ts';
import { onlyRow, wildcardPrefix } from '../../http/route-table.ts';
import { modelIdOf } from '../model-endpoints.ts';

/** The methods of `POST /v1beta/models/{model}:{method}` that Freeway serves. */
export const geminiMethods = ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents'] as const;
export type GeminiMethod = (typeof geminiMethods)[number];

/** The model and method a Gemini call's path names. */
export interface GeminiCall {
  /** As the path has it: an alias (`free:auto`), `{provider}/{modelId}` or a Gemini model name. */
  readonly model: string;
  /** What follows the last colon; may be a method Freeway does not serve. */
  readonly method: string;
}

/**
 * `{model}:{method}` from the segments after `/models/`. Express decodes each segment
 * (`%3A` is `:`, `%2F` is `/`), and Google's SDKs send the model as it is, slashes and
 * colons included (`models/groq/openai/gpt-oss-120b:generateContent`,
 * `models/free:auto:generateContent`), so the method is what follows the last colon.
 * Undefined when the path has no colon.
 */
export function geminiCallOf(req: Request): GeminiCall | undefined {
  const rest = modelIdOf(req, 'name');
  const colon = rest.lastIndexOf(':');
  if (colon === -1) return undefined;
  return { model: rest.slice(0, colon), method: rest.slice(colon + 1) };
}

export const isGeminiMethod = (method: string): method is GeminiMethod => (geminiMethods as readonly string[]).includes(method);

/** The path Gemini's calls under /v1 start with, from the route table. */
const geminiV1Prefix = wildcardPrefix(onlyRow('geminiV1'));

/**
 * True for `POST /v1/models/{model}:{method}` with a method Freeway serves (`@google/genai`
 * 3.x calls Gemini's `v1` by default). Any other request under `/v1/models` is OpenAI's or
 * Anthropic's: `GET /v1/models/{id}`, and the 405 of its other methods, model ids with
 * colons (`POST /v1/models/free:auto`) included. Read from the raw path, before any route
 * has matched.
 */
export function isGeminiV1Call(req: Request): boolean {
  if (req.method !== 'POST') return false;
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  if (!decoded.startsWith(geminiV1Prefix)) return false;
  return isGeminiMethod(decoded.slice(decoded.lastIndexOf(':') + 1));
}

/** The `alt` and `key` query parameters of a Gemini call (Express's query parser is off). */
export function queryOf(req: Request): URLSearchParams {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
}

/**
 * Google's API also takes its key as `?key=`: on the Gemini routes that value is read as
 * the `x-goog-api-key` header would be (the header wins when both are sent). The query
 * itself is never logged with it (http/request-log.ts).
 */
export const queryKeyAsHeader: RequestHandler = (req, _res, next) => {
  if (req.headers[GOOG_API_KEY_HEADER] === undefined) {
    const key = queryOf(req).get('key');
    if (key !== null) req.headers[GOOG_API_KEY_HEADER] = key;
  }
  next();
};
