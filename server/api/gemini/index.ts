import type { Request, RequestHandler, Response } from 'express';
import type { Catalog } from '../../../catalog/catalog.ts';
import { clip, freewayError, HttpError } from '../../core/errors.ts';
import type { ClientApi, ClientApiOptions } from '../client-api.ts';
import { completionRoute, type CompletionDeps } from '../completion-pipeline.ts';
import { routeEmbeddings, type EmbeddingsDeps } from '../embeddings/index.ts';
import { modelResolver } from '../model-map.ts';
import { tokenCountRoute } from '../token-count.ts';
import { fail, isObject, phrase } from '../validation.ts';
import { parseBatchEmbedContents, parseEmbedContent } from './embed.ts';
import { geminiCallOf, isGeminiMethod, queryOf, type GeminiCall } from './path.ts';
import { requiredCapabilities, toCallOptions } from './request.ts';
import { toGenerateContentResponse } from './response.ts';
import { geminiStream } from './stream.ts';
import type { GeminiRequest } from './types.ts';
import { checkModel, parseGeminiRequest, type GeminiTarget } from './validate.ts';

export interface GeminiDeps {
  readonly catalog: Catalog;
  /** Gemini's client API, built once (`geminiApi`): its model map is GEMINI_MODEL_MAP, then MODEL_MAP. */
  readonly api: ClientApi<GeminiRequest>;
  /** The completion pipeline, with the Gemini routes' key reader (x-goog-api-key as a Google key). */
  readonly completions: CompletionDeps;
  /** The embeddings route's machinery, with the same key reader. */
  readonly embeddings: EmbeddingsDeps;
}

/** The model a Gemini call's path names, and whether (and how) to stream: generateContent, or streamGenerateContent with or without `alt=sse`. */
function generateTarget(req: Request): GeminiTarget {
  const call = geminiCallOf(req);
  if (call === undefined) throw new Error('a Gemini generate call without a {model}:{method} path');
  const stream = call.method === 'streamGenerateContent';
  return { model: call.model, stream, sse: stream && queryOf(req).get('alt') === 'sse' };
}

/** A validation error of a nested request, its field named from the body's top (`generateContentRequest.contents`). */
function nested<T>(prefix: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof HttpError && error.code === 'FREEWAY_VALIDATION_FAILED') {
      throw new HttpError({ ...error, message: error.message.replace('Validation failed: ', `Validation failed: ${prefix}.`) });
    }
    throw error;
  }
}

/** countTokens' body: `contents`, or a whole `generateContentRequest`, which wins over `contents`. */
function parseCountTokens(body: unknown, req: Request): GeminiRequest {
  const call = geminiCallOf(req);
  const model = checkModel(call?.model ?? '');
  if (!isObject(body)) fail('body', phrase.type('object'));
  const target: GeminiTarget = { model, stream: false, sse: false };
  // "contents ... is ignored when generate_content_request is set" (generative_service.proto).
  return body.generateContentRequest !== undefined && body.generateContentRequest !== null
    ? nested('generateContentRequest', () => parseGeminiRequest(body.generateContentRequest, target, 'drop'))
    : parseGeminiRequest({ contents: body.contents ?? fail('contents', `${phrase.required} (or generateContentRequest)`) }, target, 'drop');
}

/** Gemini's generateContent, streamGenerateContent and countTokens: the path names the model and whether (and how) to stream. */
export function geminiApi(options: ClientApiOptions): ClientApi<GeminiRequest> {
  return {
    operation: 'generate_content',
    parse: (body, req) => parseGeminiRequest(body, generateTarget(req), options.hostedTools),
    model: (request) => request.model,
    resolveModel: modelResolver(options),
    callOptions: toCallOptions,
    needs: requiredCapabilities,
    stream: (request) => request.stream,
    // Gemini's API has no end-user id.
    user: () => undefined,
    droppedTools: (request) => request.droppedTools,
    respond: (result, request) => toGenerateContentResponse(result, request, result.candidate.model.id),
    openStream: (request) => geminiStream(request),
    tokenCount: {
      parse: parseCountTokens,
      answer: (totalTokens) => ({ totalTokens }),
    },
  };
}

/**
 * The model an embedding method serves: the model map's target (an alias such as
 * `free:embed`) or a catalog id as it is; any other bare name is Google's own model of that
 * name (`gemini-embedding-001` is `google/gemini-embedding-001`), so vectors never come from
 * other weights than the name says.
 */
function embeddingTarget(model: string, deps: GeminiDeps): string {
  const mapped = deps.api.resolveModel(model);
  if (mapped !== model || deps.catalog.byId.has(model) || model.includes('/') || model.includes(':')) return mapped;
  return `google/${model}`;
}

async function embed(req: Request, res: Response, call: GeminiCall, deps: GeminiDeps): Promise<void> {
  const keys = deps.embeddings.readKeys(req.headers);
  res.locals.keys = keys;
  const model = checkModel(call.model);
  const target = embeddingTarget(model, deps);
  const batch = call.method === 'batchEmbedContents';
  const request = batch ? parseBatchEmbedContents(req.body, model, target, deps.embeddings.maxInputs) : parseEmbedContent(req.body, model, target);
  const done = await routeEmbeddings(deps.embeddings, { req, res, request, keys });
  if (!done) return;
  const { vectors } = done.value;
  res.json(batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] } });
}

const methodsHint = 'Freeway serves POST /v1beta/models/{model}:generateContent, :streamGenerateContent (with alt=sse, or a JSON array without), :countTokens, :embedContent and :batchEmbedContents, and GET /v1beta/models.';

/** `POST /v1beta/models/{model}:{method}` (and the same under `/v1`): the method after the last colon picks the handler. */
export function geminiRoute(deps: GeminiDeps): RequestHandler {
  const generate = completionRoute(deps.api, deps.completions);
  const countTokens = tokenCountRoute(deps.api, deps.catalog);
  return async (req, res, next) => {
    const call = geminiCallOf(req);
    if (call === undefined || !isGeminiMethod(call.method)) throw freewayError('FREEWAY_UNKNOWN_ROUTE', { method: req.method, path: clip(req.path), hint: methodsHint });
    switch (call.method) {
      case 'generateContent':
      case 'streamGenerateContent':
        return generate(req, res, next);
      case 'countTokens':
        return countTokens(req, res, next);
      default:
        return embed(req, res, call, deps);
    }
  };
}
