import type { RequestHandler, Response } from 'express';
import type { ErrorBodyFormat, ErrorType } from '../../core/errors.ts';

/** Anthropic's error types (https://docs.anthropic.com/en/api/errors). */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

/**
 * Freeway's status and error type -> Anthropic's error type. Both 502s (every
 * provider failed, or a pinned one did) are `api_error`: the SDKs retry any 5xx
 * alike, and Claude Code gives a plain 5xx its full retry budget (honouring
 * Retry-After) where it gives up on `overloaded_error` after a few in a row;
 * free tiers usually recover within that budget.
 */
export function anthropicErrorType(status: number, type: ErrorType): AnthropicErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      if (status >= 500 || type === 'server_error') return 'api_error';
      return 'invalid_request_error';
  }
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
  request_id: string | null;
}

export function anthropicErrorBody(status: number, type: ErrorType, message: string, requestId: string | null = null): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(status, type), message }, request_id: requestId };
}

function requestIdOf(res: Response): string | null {
  const id = res.getHeader('request-id') ?? res.getHeader('x-request-id');
  return typeof id === 'string' ? id : null;
}

/**
 * Mounted on Anthropic's routes before the rate limit and the body reader, so
 * that every error there (429, 413, bad JSON, no key, unknown model, 502) has
 * Anthropic's shape. `when` limits it to requests that speak Anthropic's API
 * (`GET /v1/models` serves both).
 */
export function anthropicErrors(when?: (headers: Record<string, unknown>) => boolean): RequestHandler {
  return (req, res, next) => {
    if (when === undefined || when(req.headers)) {
      const format: ErrorBodyFormat = (status, type, message) => anthropicErrorBody(status, type, message, requestIdOf(res));
      res.locals.errorBody = format;
    }
    next();
  };
}

/** Clients of Anthropic's API send this header with every request. */
export const speaksAnthropic = (headers: Record<string, unknown>): boolean => headers['anthropic-version'] !== undefined;
