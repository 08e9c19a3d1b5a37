/**
 * Freeway's error catalogue: every error a caller can get, each with a stable
 * code, an HTTP status, an OpenAI error type and a message template (as
 * Fastify's lib/errors.js does with `createError(code, message, statusCode)`).
 * A site builds the error it throws with `freewayError(code, params)`; each
 * client API renders it in its own shape (OpenAI's body, Anthropic's, the
 * Responses stream's error event). docs/errors.md is generated from this table
 * (`node scripts/errors-doc.ts`; a test checks the page is current).
 */

/** Error types of the OpenAI-compatible error body. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'freeway_all_providers_failed'
  | 'freeway_provider_error';

/** One catalogue entry. `message` names its parameters in braces: `Unknown model: {model}.` */
export interface ErrorSpec {
  readonly status: number;
  readonly type: ErrorType;
  readonly message: string;
  /** What the caller should do about it, for docs/errors.md. */
  readonly remedy: string;
}

export const errorCatalogue = {
  // The request as a whole.
  FREEWAY_VALIDATION_FAILED: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Validation failed: {field}: {detail}',
    remedy: 'Fix the named field (a dotted path into the body, `messages.2.content.0.type`); the detail says what it must be.',
  },
  FREEWAY_UNKNOWN_ROUTE: {
    status: 404,
    type: 'invalid_request_error',
    message: 'Unknown route: {method} {path}. {hint}',
    remedy: 'Use a route Freeway serves, under /v1: set the client\'s base URL to `http://<host>:<port>/v1`.',
  },
  FREEWAY_METHOD_NOT_ALLOWED: {
    status: 405,
    type: 'invalid_request_error',
    message: 'Method {method} is not allowed on {path}. Allowed: {allowed}.',
    remedy: 'Use the method the `Allow` header names.',
  },
  FREEWAY_INTERNAL: {
    status: 500,
    type: 'server_error',
    message: 'Internal server error.',
    remedy: 'A bug in Freeway: the log has the stack; please report it.',
  },
  FREEWAY_SHUTTING_DOWN: {
    status: 503,
    type: 'server_error',
    message: 'Freeway is shutting down. Send the request again.',
    remedy: 'Send the request again: another instance (or this one, restarted) takes it.',
  },
  // The request body and the HTTP framing.
  FREEWAY_BODY_TOO_LARGE: {
    status: 413,
    type: 'invalid_request_error',
    message: 'Request body larger than {limit}.',
    remedy: 'Send a smaller body, or raise BODY_LIMIT.',
  },
  FREEWAY_FILE_TOO_LARGE: {
    status: 413,
    type: 'invalid_request_error',
    message: 'Validation failed: {field}: larger than {setting} ({limit}).',
    remedy: 'Send a smaller file, or raise the setting named.',
  },
  FREEWAY_BODY_TIMEOUT: {
    status: 408,
    type: 'invalid_request_error',
    message: 'Request body not received within {seconds} s.',
    remedy: 'Send the body faster, or raise BODY_TIMEOUT_MS.',
  },
  FREEWAY_BODY_ENCODING: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Request body must be uncompressed UTF-8 JSON.',
    remedy: 'Send the body without Content-Encoding, as UTF-8.',
  },
  FREEWAY_BODIES_BUSY: {
    status: 503,
    type: 'server_error',
    message: 'Freeway is receiving too many request bodies at once. Retry shortly.',
    remedy: 'Retry after the `Retry-After` seconds; an operator may raise BODY_BUFFER_MAX.',
  },
  FREEWAY_HEADERS_TOO_LARGE: {
    status: 431,
    type: 'invalid_request_error',
    message: 'Request headers too large.',
    remedy: 'Send fewer or shorter headers.',
  },
  FREEWAY_CHUNK_EXTENSIONS_TOO_LARGE: {
    status: 413,
    type: 'invalid_request_error',
    message: 'Chunk extensions too large.',
    remedy: 'Send the body without chunk extensions.',
  },
  FREEWAY_REQUEST_TIMEOUT: {
    status: 408,
    type: 'invalid_request_error',
    message: 'Request not received in time.',
    remedy: 'Send the request headers and body faster.',
  },
  FREEWAY_MALFORMED_HTTP: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Malformed HTTP request.',
    remedy: 'Send a well-formed HTTP/1.1 request.',
  },
  FREEWAY_RATE_LIMITED: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Rate limit exceeded. Retry after {seconds} seconds.',
    remedy: 'Wait the `Retry-After` seconds. This is Freeway\'s own limit per client (RATE_LIMIT_MAX), not a provider\'s.',
  },
  // Models.
  FREEWAY_UNKNOWN_MODEL: {
    status: 404,
    type: 'invalid_request_error',
    message: 'Unknown model: {model}.{suggestion} GET /v1/models lists the models.',
    remedy: 'Use an id from `GET /v1/models` (an alias such as `free:auto`, or `{provider}/{modelId}`); the message suggests a near miss.',
  },
  FREEWAY_UNMAPPED_MODEL: {
    status: 404,
    type: 'invalid_request_error',
    message: "Unknown model: {model}. Freeway serves no {vendor} model by its name: send an alias such as {alias} or a model GET /v1/models lists{mapping}.",
    remedy: 'Send an alias or a model of `GET /v1/models`; on chat routes, the operator can map the name (`MODEL_MAP`, and `ANTHROPIC_MODEL_MAP` on `/v1/messages`) to one ([clients.md](clients.md#model_map)).',
  },
  FREEWAY_WRONG_MODEL_KIND: {
    status: 400,
    type: 'invalid_request_error',
    message: '{model} is {kind}, not {wanted}: use it with {route}.',
    remedy: 'Send the model to the route the message names (chat, embedding and transcription models each have their own).',
  },
  FREEWAY_TOKEN_INPUT: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'input: token arrays are not accepted by this model; send text. LangChain\'s Python OpenAIEmbeddings sends tokens unless it is built with check_embedding_ctx_length=False.',
    remedy: 'Send the input as text.',
  },
  // Keys and routing (raised by server/routing and the completion pipeline).
  FREEWAY_INVALID_KEY_HEADER: {
    status: 400,
    type: 'invalid_request_error',
    message: '{problem}',
    remedy: 'Fix the key header named: keys separated by commas, none empty or repeated, at most the number allowed, each in the provider\'s format. The message never repeats a key.',
  },
  FREEWAY_KEY_HEADER_MISSING: {
    status: 401,
    type: 'authentication_error',
    message: '{model} needs the {header} header.',
    remedy: 'Send the provider\'s key in the header named (X-<Provider>-Key); Freeway does not read keys from Authorization or x-api-key.',
  },
  FREEWAY_NO_PROVIDER_KEY: {
    status: 401,
    type: 'authentication_error',
    message: 'No provider key for {what}. Send one of: {headers}.',
    remedy: 'Send a key of at least one provider the alias routes to, in its X-<Provider>-Key header. A caller allowed keyless calls (ANONYMOUS) who sent no key header is also told which of them answer without a key, with `X-Freeway-Keyless: on`.',
  },
  FREEWAY_KEYS_COVER_NO_MODEL: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Your keys ({sent}) have no model {what}; keys of {headers} do.',
    remedy: 'The keys sent are fine, but none of their providers has a model the alias (or the request: images, tools...) needs: send a key of a provider named, pick another alias, or drop what the request needs.',
  },
  FREEWAY_ANONYMOUS_OFF: {
    status: 403,
    type: 'permission_error',
    message: '{header}: calls without a key are turned off on this Freeway (ANONYMOUS=off). Send a key in {header}.',
    remedy: 'Send a key of the provider, or ask the operator to set ANONYMOUS=local or on.',
  },
  FREEWAY_ANONYMOUS_NOT_LOCAL: {
    status: 403,
    type: 'permission_error',
    message: '{header}: calls without a key spend this Freeway\'s own allowance at the provider, and are only for callers on its machine or private network (ANONYMOUS=local). Send a key in {header}.',
    remedy: 'Send a key of the provider, or ask the operator to set ANONYMOUS=on.',
  },
  FREEWAY_KEYLESS_OFF: {
    status: 403,
    type: 'permission_error',
    message: 'X-Freeway-Keyless: calls without a key are turned off on this Freeway (ANONYMOUS=off). Send provider keys in their X-<Provider>-Key headers.',
    remedy: 'Send keys of the providers, or ask the operator to set ANONYMOUS=local or on.',
  },
  FREEWAY_KEYLESS_NOT_LOCAL: {
    status: 403,
    type: 'permission_error',
    message: 'X-Freeway-Keyless: calls without a key spend this Freeway\'s own allowance at the providers, and are only for callers on its machine or private network (ANONYMOUS=local). Send provider keys in their X-<Provider>-Key headers.',
    remedy: 'Send keys of the providers, or ask the operator to set ANONYMOUS=on.',
  },
  FREEWAY_ANONYMOUS_RATE_LIMITED: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Rate limit exceeded. Retry after {seconds} seconds. Calls without a key are limited to {perMinute} a minute per client (ANONYMOUS_PER_MINUTE).',
    remedy: 'Wait the `Retry-After` seconds, or send a key of the provider: calls without one share this Freeway\'s allowance with every caller.',
  },
  FREEWAY_UNSUPPORTED_REQUEST: {
    status: 400,
    type: 'invalid_request_error',
    message: 'No model behind {target} can take this request: {reasons}',
    remedy: 'Drop what the reasons name (images, tools, a JSON schema...), or pick an alias or model that supports it.',
  },
  FREEWAY_PINNED_UNSUPPORTED: {
    status: 400,
    type: 'invalid_request_error',
    message: '{provider} {reason}',
    remedy: 'Drop what the message names, or pin a model that supports it.',
  },
  FREEWAY_UPSTREAM_REJECTED: {
    status: 400,
    type: 'invalid_request_error',
    message: '{provider} rejected the request: {reason}',
    remedy: 'Fix the request as the provider\'s words say; retrying it unchanged fails the same way.',
  },
  FREEWAY_REQUEST_TOO_LARGE: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Request too large: about {tokens} tokens of input, more than any model your keys can use takes: {limits}. What would help: {help}.',
    remedy:
      'The message names each limit met: a model\'s context window, or a key\'s per-request figure (a free plan\'s tokens a minute, smaller than the window). Send a shorter conversation, or a key of a provider whose allowance takes the request; X-Freeway-Attempts names each model skipped and its limit.',
  },
  FREEWAY_CONTEXT_TOO_LONG: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request does not fit the context window of any model behind {target}: {reasons}',
    remedy: 'Send a shorter conversation or a smaller max_tokens, or use an alias with larger models.',
  },
  FREEWAY_WINDOWS_CLOSED: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Every key that could answer is resting for its rate-limit window, beyond this request\'s wait budget: {keys}',
    remedy:
      'Nothing failed: the keys\' windows are closed for now. Send the request again after `Retry-After` (the earliest key\'s), allow a longer wait (`X-Freeway-Max-Wait`, up to MAX_WAIT_MS), or send keys of more providers.',
  },
  FREEWAY_PROVIDER_FAILED: {
    status: 502,
    type: 'freeway_provider_error',
    message: 'Provider failed: {reasons}',
    remedy: 'The pinned provider failed (rate limit, outage, bad key: the reasons say which); retry after `Retry-After`, or use an alias to fail over. `connection error (ENOTFOUND)` or `(EAI_AGAIN)`: this machine cannot look the provider up (no network or no DNS; Freeway calls providers directly, through no proxy); `(ECONNREFUSED)`: nothing listens where the provider\'s `<ID>_BASE_URL` points.',
  },
  FREEWAY_ALL_PROVIDERS_FAILED: {
    status: 502,
    type: 'freeway_all_providers_failed',
    message: 'All providers failed: {reasons}',
    remedy:
      'Every candidate failed or was skipped, each named as `provider: reason` (an upstream error, a wait for its health, a prompt too large for it, or a key whose model list holds none of the alias\'s models or whose models are quarantined); retry after `Retry-After`, or send keys of more providers. When every candidate failed to connect, the message ends `No provider could be reached from this machine: check its network and DNS` (each reason names the system code: `ENOTFOUND` or `EAI_AGAIN`, no network or no DNS; Freeway calls providers directly, through no proxy).',
  },
  FREEWAY_STREAM_DEADLINE: {
    status: 504,
    type: 'server_error',
    message: 'The stream was ended: {reason}.',
    remedy: 'A started stream ran past Freeway\'s deadline (REQUEST_TIMEOUT_MS or STREAM_MAX_DURATION_MS, as the message says); ask for less output, or raise the setting.',
  },
  FREEWAY_STREAM_FAILED: {
    status: 502,
    type: 'freeway_provider_error',
    message: 'The stream from {provider} failed after it started: {reason}',
    remedy: 'The provider failed mid-stream, after output was sent, so Freeway cannot fail over; send the request again.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The names in braces of a message template. */
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

export type ErrorParams<C extends ErrorCode> = { readonly [Name in Placeholders<(typeof errorCatalogue)[C]['message']>]: string | number };

export interface ErrorOptions {
  /** Response headers the error sets (`Retry-After`). */
  readonly headers?: Record<string, string>;
  /** What the log line says in place of the message (see HttpError.logReason). */
  readonly logReason?: string;
}

/** What an `HttpError` is made of. */
export interface HttpErrorFields {
  readonly status: number;
  readonly type: ErrorType;
  /** For the caller. */
  readonly message: string;
  /** Response headers the error sets (`Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** What the log line says in place of the message, when the message quotes what an upstream said (and so maybe the caller's input). */
  readonly logReason?: string;
  /** The catalogue code. */
  readonly code?: ErrorCode;
}

/** An error that becomes a response: status, OpenAI error type, message for the caller. */
export class HttpError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** What the log line says in place of the message, when the message quotes what an upstream said (and so maybe the caller's input). */
  readonly logReason: string | undefined;
  /** The catalogue code; undefined only for sites not yet switched to `freewayError`. */
  readonly code: ErrorCode | undefined;

  constructor({ status, type, message, headers, logReason, code }: HttpErrorFields) {
    super(message);
    this.status = status;
    this.type = type;
    this.headers = headers;
    this.logReason = logReason;
    this.code = code;
  }
}

/** Each template cut at its placeholders once, at load: literal, name, literal, name, ..., literal. */
const templates = new Map<string, readonly string[]>(
  Object.entries(errorCatalogue).map(([code, spec]) => [code, spec.message.split(/\{(\w+)\}/)]),
);

type ParamsArgument<C extends ErrorCode> = [Placeholders<(typeof errorCatalogue)[C]['message']>] extends [never]
  ? [params?: ErrorParams<C>, options?: ErrorOptions]
  : [params: ErrorParams<C>, options?: ErrorOptions];

/** The message of a catalogue entry with its parameters filled in. */
export function errorMessage<C extends ErrorCode>(code: C, ...[params]: ParamsArgument<C>): string {
  const pieces = templates.get(code) as readonly string[];
  const values = (params ?? {}) as Readonly<Record<string, string | number>>;
  let message = pieces[0] as string;
  for (let i = 1; i < pieces.length; i += 2) message += String(values[pieces[i] as string]) + (pieces[i + 1] as string);
  return message;
}

/** The error to throw for a catalogue code: `throw freewayError('FREEWAY_UNKNOWN_MODEL', { model, suggestion })`. */
export function freewayError<C extends ErrorCode>(code: C, ...[params, options]: ParamsArgument<C>): HttpError {
  const spec: ErrorSpec = errorCatalogue[code];
  const message = errorMessage<C>(code, ...([params] as ParamsArgument<C>));
  return new HttpError({ status: spec.status, type: spec.type, message, headers: options?.headers, logReason: options?.logReason, code });
}

/** The FREEWAY_VALIDATION_FAILED error: `Validation failed: <field>: <detail>`. */
export const invalidField = (field: string, detail: string): HttpError => freewayError('FREEWAY_VALIDATION_FAILED', { field, detail });

export interface ErrorBody {
  error: { message: string; type: ErrorType; code: number };
}

/** OpenAI's error body: `code` is the HTTP status. */
export function errorBody(status: number, type: ErrorType, message: string): ErrorBody {
  return { error: { message, type, code: status } };
}

/** How one client API's errors look on the wire; OpenAI's `errorBody` unless a route sets `res.locals.errorBody`. */
export type ErrorBodyFormat = (status: number, type: ErrorType, message: string) => unknown;


/** How much of a caller's own text (a model id, a path) an error message echoes. */
export const MAX_ECHO_LENGTH = 256;

/** The caller's text, cut to MAX_ECHO_LENGTH characters for a message. */
export function clip(text: string): string {
  return text.length > MAX_ECHO_LENGTH ? `${text.slice(0, MAX_ECHO_LENGTH)}…` : text;
}
