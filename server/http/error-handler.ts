import type { ErrorRequestHandler, Request } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { errorBody, freewayError, HttpError, invalidField } from '../core/errors.ts';
import { sanitizeForLog, type Redactor } from '../core/redact.ts';
import type { KeyReader } from '../core/keys.ts';
import { didYouMeanText, nearest } from '../../catalog/suggest.ts';

/**
 * For a 401 when the caller sent no provider key header but an `Authorization`,
 * `x-api-key` or `x-goog-api-key` header: where Freeway looks for keys. Never
 * repeats a value.
 */
function keyHeaderHint(headers: IncomingHttpHeaders, readKeys: KeyReader): string {
  // Gemini's clients send their key in x-goog-api-key, which Gemini's routes read as a Google key only.
  const googKey = headers['x-goog-api-key'];
  if (headers.authorization === undefined && headers['x-api-key'] === undefined && (googKey === undefined || googKey === '')) return '';
  try {
    if (readKeys(headers).size > 0) return '';
  } catch {
    return '';
  }
  if (headers.authorization === undefined && headers['x-api-key'] === undefined) {
    return " Freeway reads x-goog-api-key (Gemini's GEMINI_API_KEY) only as a Google key, when it holds one (AIza...): send every other provider's key in its own header, X-<Provider>-Key (Gemini CLI: GEMINI_CLI_CUSTOM_HEADERS).";
  }
  const which = headers.authorization !== undefined ? 'Authorization' : 'x-api-key';
  return ` Freeway does not read provider keys from ${which}: send each provider's key in its own header, X-<Provider>-Key (for example X-Groq-Key); GET /v1/models lists the providers.`;
}

/** The most header names of one request looked at for a near miss; Node keeps at most 2000 by default. */
const MAX_HEADERS_LOOKED_AT = 100;

/**
 * For a 401: a header the caller sent that is one edit away from a provider's key header
 * (`X-Grok-Key` for `X-Groq-Key`), named with the one it was meant to be. Never repeats a value.
 */
function misspelledHeaderHint(rawHeaders: readonly string[], keyHeaders: ReadonlyArray<readonly [lower: string, header: string]>): string {
  for (let i = 0; i < rawHeaders.length && i < 2 * MAX_HEADERS_LOOKED_AT; i += 2) {
    const name = rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (name.length > 64 || keyHeaders.some(([header]) => header === lower)) continue;
    const meant = nearest(lower, keyHeaders, 1);
    if (meant !== undefined) return ` Freeway reads no \`${name}\` header. ${didYouMeanText(meant)}`;
  }
  return '';
}

/** What the error handler answers for an error nobody raised on purpose. */
const internalError = freewayError('FREEWAY_INTERNAL');

/** A thrown value as a catalogue error: itself, a bad percent-encoding in the path (Express's URIError), or undefined for a bug. */
function asHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof URIError) return invalidField('path', 'not valid percent-encoding');
  return undefined;
}

export interface ErrorHandlerDeps {
  readonly logger: Logger;
  readonly redact: Redactor;
  readonly readKeys: KeyReader;
  /** The provider plugins' key headers (`X-Groq-Key`, ...), for a 401's "did you mean". */
  readonly keyHeaders?: readonly string[];
  /** For a 401 naming the key headers to send, when no other hint applies: the keyless providers among them (anonymous.ts). */
  readonly keylessHint?: (req: Request, message: string) => string;
}

/**
 * Express's last handler: renders any error in the route's shape (OpenAI's body
 * unless the route set `res.locals.errorBody`), with the request's keys
 * redacted; an error after the answer started cuts the connection instead.
 */
export function errorHandler({ logger, redact, readKeys, keyHeaders = [], keylessHint }: ErrorHandlerDeps): ErrorRequestHandler {
  const headerIndex = keyHeaders.map((header) => [header.toLowerCase(), header] as const);
  return (error: unknown, req, res, _next) => {
    const keys = res.locals.keys;
    const known = asHttpError(error);
    if (known === undefined) logger.error({ err: error }, `${req.method} ${sanitizeForLog(req.path)}: unexpected error`);
    const { status, type } = known ?? internalError;
    let message = (known ?? internalError).message;
    if (status === 401) {
      // A caller who sent a key somewhere Freeway does not read is told where; only one who sent none hears of keyless calls.
      const hint = keyHeaderHint(req.headers, readKeys) + misspelledHeaderHint(req.rawHeaders, headerIndex);
      message += hint || (known?.code === 'FREEWAY_NO_PROVIDER_KEY' && keylessHint ? keylessHint(req, message) : '');
    }
    if (known?.headers) for (const [name, value] of Object.entries(known.headers)) res.setHeader(name, value);
    if (res.headersSent) {
      res.locals.cut = { status, reason: `the response was cut: ${message}` };
      res.destroy();
      return;
    }
    const format = res.locals.errorBody ?? errorBody;
    const redacted = redact(message, keys);
    res.locals.failure = known?.logReason !== undefined ? redact(known.logReason, keys) : redacted;
    res.status(status).json(format(status, type, redacted));
  };
}
