import type { RequestHandler, Response } from 'express';
import type { ErrorBodyFormat } from '../../core/errors.ts';

/**
 * The `status` names of Google's error envelope (google.rpc.Code), one for each HTTP
 * status Freeway answers with, as the HTTP mapping in googleapis/googleapis
 * google/rpc/code.proto gives them (read 2026-11-27): 401 UNAUTHENTICATED, 403
 * PERMISSION_DENIED, 404 NOT_FOUND, 429 RESOURCE_EXHAUSTED, 500 INTERNAL, 503
 * UNAVAILABLE; every other 4xx is INVALID_ARGUMENT and Freeway's 502 and 504 (its
 * providers failed, or a started stream ran past a deadline) UNAVAILABLE, a status
 * Google's clients retry. Both SDKs and Gemini CLI read `code` as the HTTP status
 * and `status` only for display.
 */
export type GoogleStatus = 'INVALID_ARGUMENT' | 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'NOT_FOUND' | 'RESOURCE_EXHAUSTED' | 'UNAVAILABLE' | 'INTERNAL';

export function googleStatus(status: number): GoogleStatus {
  switch (status) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 502:
    case 503:
    case 504:
      return 'UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}

/** google.rpc.RetryInfo, which Gemini CLI reads for how long to wait before it retries. */
interface RetryInfo {
  readonly '@type': 'type.googleapis.com/google.rpc.RetryInfo';
  readonly retryDelay: string;
}

export interface GoogleErrorBody {
  error: { code: number; message: string; status: GoogleStatus; details?: RetryInfo[] };
}

/**
 * Google's error envelope, `{"error": {"code", "message", "status"}}` (no `type`: Google's
 * clients have none), with a RetryInfo detail when Freeway knows when to retry.
 */
export function googleErrorBody(status: number, message: string, retryAfterSeconds?: number): GoogleErrorBody {
  const error: GoogleErrorBody['error'] = { code: status, message, status: googleStatus(status) };
  if (retryAfterSeconds !== undefined) error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` }];
  return { error };
}

/** The Retry-After seconds an error set on the response, if any. */
function retryAfterOf(res: Response): number | undefined {
  const value = Number(res.getHeader('Retry-After'));
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * Mounted on the Gemini routes before the rate limit and the body reader, so that
 * every error there (429, 413, bad JSON, no key, unknown model, 502) has Google's
 * envelope. `when` limits it to the requests that are Gemini calls
 * (`POST /v1/models/{model}:{method}`, beside OpenAI's `GET /v1/models/{id}`).
 */
export function geminiErrors(when?: (req: Parameters<RequestHandler>[0]) => boolean): RequestHandler {
  return (req, res, next) => {
    if (when === undefined || when(req)) {
      const format: ErrorBodyFormat = (status, _type, message) => googleErrorBody(status, message, retryAfterOf(res));
      res.locals.errorBody = format;
    }
    next();
  };
}
