/** Error types of the OpenAI-compatible error body. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'freeway_all_providers_failed'
  | 'freeway_provider_error';

/** An error that becomes a response: status, OpenAI error type, message for the caller. */
export class HttpError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** What the log line says in place of the message, when the message quotes what an upstream said (and so maybe the caller's input). */
  readonly logReason: string | undefined;

  constructor(status: number, type: ErrorType, message: string, headers?: Record<string, string>, logReason?: string) {
    super(message);
    this.status = status;
    this.type = type;
    this.headers = headers;
    this.logReason = logReason;
  }
}

export interface ErrorBody {
  error: { message: string; type: ErrorType; code: number };
}

export function errorBody(status: number, type: ErrorType, message: string): ErrorBody {
  return { error: { message, type, code: status } };
}

/** How one client API's errors look on the wire; OpenAI's `errorBody` unless a route sets `res.locals.errorBody`. */
export type ErrorBodyFormat = (status: number, type: ErrorType, message: string) => unknown;

export const invalidRequest = (message: string, status = 400): HttpError =>
  new HttpError(status, 'invalid_request_error', message);

/** How much of a caller's own text (a model id, a path) an error message echoes. */
export const MAX_ECHO_LENGTH = 256;

/** The caller's text, cut to MAX_ECHO_LENGTH characters for a message. */
export function clip(text: string): string {
  return text.length > MAX_ECHO_LENGTH ? `${text.slice(0, MAX_ECHO_LENGTH)}…` : text;
}
