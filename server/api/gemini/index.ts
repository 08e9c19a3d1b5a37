import type { Request, RequestHandler, Response } from 'express';
import type { Catalog } from '../../../catalog/catalog.ts';
import { clip, freewayError, HttpError } from '../../core/errors.ts';
import { completionRoute, type ClientApi, type CompletionDeps } from '../completion.ts';
import { routeEmbeddings, type EmbeddingsDeps } from '../embeddings/index.ts';
import { lookUpModel } from '../lookup.ts';
import { estimateInputTokens } from '../../routing/index.ts';
import { fail, isObject, phrase } from '../validation.ts';
import { parseBatchEmbedContents, parseEmbedContent } from './embed.ts';
import { geminiCallOf, isGeminiMethod, queryOf, type GeminiCall } from './path.ts';
import { requiredCapabilities, toCallOptions } from './request.ts';
import { toGenerateContentResponse } from './response.ts';
import { geminiStream } from './stream.ts';
import type { GeminiRequest } from './types.ts';
import { checkModel, parseGeminiRequest, type GeminiTarget, type HostedTools } from './validate.ts';

export interface GeminiDeps {
  readonly catalog: Catalog;
  /** The completion pipeline, with the Gemini routes' key reader (x-goog-api-key as a Google key). */
  readonly completions: CompletionDeps;
  /** The embeddings route's machinery, with the same key reader. */
  readonly embeddings: EmbeddingsDeps;
  /** A model name of the path -> a catalog id or alias: GEMINI_MODEL_MAP, then MODEL_MAP. */
  readonly resolve: (model: string) => string;
  /** HOSTED_TOOLS: tools Google runs itself (`googleSearch`, ...) left out (`drop`) or refused (`reject`). */
  readonly hostedTools: HostedTools;
}

/** Gemini's generateContent and streamGenerateContent for one path: the model and whether (and how) to stream come from it. */
export function geminiApi(target: GeminiTarget, resolve: (model: string) => string, hostedTools: HostedTools): ClientApi<GeminiRequest> {
  return {
    operation: 'generate_content',
    parse: (body) => parseGeminiRequest(body, target, hostedTools),
    target: (request) => resolve(request.model),
    sentModel: (request) => request.model,
    callOptions: toCallOptions,
    needs: requiredCapabilities,
    stream: (request) => request.stream,
    // Gemini's API has no end-user id.
    user: () => undefined,
    droppedTools: (request) => request.droppedTools,
    respond: (result, request) => toGenerateContentResponse(result, request, result.candidate.model.id),
    openStream: (request) => geminiStream(request),
  };
}

/**
 * The model an embedding method serves: the model map's target (an alias such as
 * `free:embed`) or a catalog id as it is; any other bare name is Google's own model of that
 * name (`gemini-embedding-001` is `google/gemini-embedding-001`), so vectors never come from
 * other weights than the name says.
 */
function embeddingTarget(model: string, deps: GeminiDeps): string {
  const mapped = deps.resolve(model);
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

/** countTokens: `{totalTokens}`, estimated without any upstream call as `/v1/messages/count_tokens` estimates. */
async function countTokens(req: Request, res: Response, call: GeminiCall, deps: GeminiDeps): Promise<void> {
  const model = checkModel(call.model);
  const body: unknown = req.body;
  if (!isObject(body)) fail('body', phrase.type('object'));
  const target: GeminiTarget = { model, stream: false, sse: false };
  // "contents ... is ignored when generate_content_request is set" (generative_service.proto).
  const request =
    body.generateContentRequest !== undefined && body.generateContentRequest !== null
      ? nested('generateContentRequest', () => parseGeminiRequest(body.generateContentRequest, target, 'drop'))
      : parseGeminiRequest({ contents: body.contents ?? fail('contents', `${phrase.required} (or generateContentRequest)`) }, target, 'drop');
  await lookUpModel({ catalog: deps.catalog, target: deps.resolve(model), kind: 'chat' });
  res.json({ totalTokens: estimateInputTokens(toCallOptions(request)) });
}

const methodsHint = 'Freeway serves POST /v1beta/models/{model}:generateContent, :streamGenerateContent (with alt=sse, or a JSON array without), :countTokens, :embedContent and :batchEmbedContents, and GET /v1beta/models.';

/** `POST /v1beta/models/{model}:{method}` (and the same under `/v1`): the method after the last colon picks the handler. */
export function geminiRoute(deps: GeminiDeps): RequestHandler {
  return async (req, res, next) => {
    const call = geminiCallOf(req);
    if (call === undefined || !isGeminiMethod(call.method)) throw freewayError('FREEWAY_UNKNOWN_ROUTE', { method: req.method, path: clip(req.path), hint: methodsHint });
    switch (call.method) {
      case 'generateContent':
      case 'streamGenerateContent': {
        // The path names the model and how to answer, so the API (and its pipeline, a closure) is made per request.
        const stream = call.method === 'streamGenerateContent';
        const api = geminiApi({ model: call.model, stream, sse: stream && queryOf(req).get('alt') === 'sse' }, deps.resolve, deps.hostedTools);
        return completionRoute(api, deps.completions)(req, res, next);
      }
      case 'countTokens':
        return countTokens(req, res, call, deps);
      default:
        return embed(req, res, call, deps);
    }
  };
}
