import type { Request } from 'express';
import type { Catalog } from '../../catalog/catalog.ts';
import type { Capability, RequestExtras } from '../../providers/types.ts';
import type { Config, ModelMapping } from '../config/index.ts';
import type { ErrorType } from '../core/errors.ts';
import type { CallOptions, Candidate, Collected, RoutedContentPart, RoutedFinish } from '../routing/index.ts';
import type { GenAiOperation } from '../tracing/index.ts';

/** HOSTED_TOOLS */
export type HostedTools = Config['api']['hostedTools'];

/**
 * One client API (chat completions, Responses, Messages, Gemini): how its request maps
 * into the AI SDK's call options and how the AI SDK's result and stream parts map
 * back. Everything between, catalog, routing, failover, health, timeouts, is the
 * same for every API and lives in the completion pipeline (`completion-pipeline.ts`).
 * Each is one value, built once at start-up from `ClientApiOptions`.
 */
export interface ClientApi<Req> {
  /** The GenAI operation its traces name (`gen_ai.operation.name`); `chat` when absent. */
  readonly operation?: GenAiOperation;
  /** Validates the body (Gemini's path names the model, hence `req`); throws a 400 `HttpError` naming the field. */
  parse(body: unknown, req: Request): Req;
  /** The model as the caller named it. */
  model(request: Req): string;
  /** A model as named -> the catalog id or alias to route to: this API's model map (`modelResolver`), built once. */
  readonly resolveModel: (model: string) => string;
  callOptions(request: Req): CallOptions;
  /** Capabilities a model must have to take the request at all (tools, images, ...). */
  needs(request: Req): Capability[];
  stream(request: Req): boolean;
  /** Passed to providers that take an end-user id. */
  user(request: Req): string | undefined;
  /** What else the request asks of the provider (`parallelToolCalls`, `logprobs`); passed where the provider takes it. */
  extras?(request: Req): Omit<RequestExtras, 'user'>;
  /** Tools of the request left out of the upstream call (hosted tools), by type: named in X-Freeway-Dropped-Tools and the log line. */
  droppedTools?(request: Req): readonly string[];
  /** The whole answer, for a caller that did not ask to stream; `result.candidate` is the model and key that answered. */
  respond(result: Answered, request: Req): unknown;
  /** A writer of this API's server-sent events for one answer. */
  openStream(request: Req): StreamEncoder;
  /** The API's token count (`countTokens`), estimated without any upstream call: its body, and its answer for a count. */
  readonly tokenCount?: TokenCount<Req>;
}

/** How one API asks for a token count and how the count is answered. */
export interface TokenCount<Req> {
  parse(body: unknown, req: Request): Req;
  answer(inputTokens: number): unknown;
}

/** What every client API is built from, once at start-up. */
export interface ClientApiOptions {
  readonly catalog: Catalog;
  /** The API's model map, first match first: ANTHROPIC_MODEL_MAP or GEMINI_MODEL_MAP before MODEL_MAP where the API has its own. */
  readonly modelMap: readonly ModelMapping[];
  /** HOSTED_TOOLS: tools the provider runs itself left out (`drop`) or refused (`reject`). */
  readonly hostedTools: HostedTools;
}

/**
 * Turns a routed stream (routing's stream vocabulary: no error parts, no provider-executed
 * calls, every tool call as start, deltas and an end with its whole arguments, one finish,
 * last) into one API's server-sent events.
 */
export interface StreamEncoder {
  /** The answer's content type; server-sent events when absent (Gemini's streamGenerateContent without `alt=sse` is one JSON array). */
  readonly contentType?: string;
  /**
   * What is sent with the headers, before any part (a role chunk, `response.created`, `message_start`);
   * `model` is the catalog id of the model that answers.
   */
  start(model?: string): string;
  /** One part -> SSE text, '' for none. */
  part(part: RoutedContentPart): string;
  /** The closing events, for the stream's finish, once the stream has ended. */
  end(finish: RoutedFinish): string;
  /** A failure after the first byte: this API's error event, which ends the stream. */
  fail(status: number, type: ErrorType, message: string): string;
}

/** A whole answer, and the candidate (model and key) that gave it. */
export type Answered = Collected & { readonly candidate: Candidate };
