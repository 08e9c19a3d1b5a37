import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import type { Request, RequestHandler, Response } from 'express';
import type { Catalog, CatalogModel } from '../../../catalog/catalog.ts';
import { lookUpModel } from '../lookup.ts';
import { runWholeCall, type WholeCallDeps } from '../whole-call.ts';
import { checkForModels, parseEmbeddingsRequest, type EmbeddingsRequest } from './request.ts';
import { beginCall, type AttemptControl, type Candidate } from '../../routing/index.ts';
import { authHeadersFor, type KeyReader, type KeySet } from '../../core/keys.ts';

export type EmbeddingModelSource = (model: CatalogModel) => Promise<EmbeddingModelV4>;

/** With the router, the shutdown gate and MAX_WAIT_MS of every call routed whole. */
export interface EmbeddingsDeps extends WholeCallDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly models: EmbeddingModelSource;
  /** EMBEDDINGS_MAX_INPUTS */
  readonly maxInputs: number;
  /** The rate limit's client, for the listings a pinned live model may start (LISTINGS_PER_MINUTE). */
  readonly clientOf?: (req: Request) => string;
}

export interface Embedded {
  readonly vectors: number[][];
  /** Input tokens, when every upstream call reported them. */
  readonly tokens: number | undefined;
}

/**
 * One attempt: the inputs in batches of the model's documented limit, one upstream call
 * after another, put back in order. Any batch failing fails the attempt, and the router
 * moves the whole request to the next deployment of the same family (or fails it).
 */
async function embedAll(request: EmbeddingsRequest, models: EmbeddingModelSource, candidate: Candidate, control: AttemptControl): Promise<Embedded> {
  // No first token to wait for: REQUEST_TIMEOUT_MS bounds the attempt.
  control.awaitWholeAnswer();
  const { model: entry, key } = candidate;
  const spec = entry.embedding;
  if (!spec) throw new Error(`${entry.id} is not an embedding model`);
  const { provider } = entry;
  const model = await beginCall(control, () => models(entry));
  // Absent: OpenAI's own `user` body field, which @ai-sdk/openai-compatible takes from its options.
  const options = provider.embeddingOptions
    ? provider.embeddingOptions(spec, { user: request.user, inputType: request.inputType })
    : request.user === undefined
      ? undefined
      : { user: request.user };
  const headers = authHeadersFor(provider, key);
  const { texts } = request;
  const vectors: number[][] = [];
  let tokens: number | undefined = 0;
  for (let start = 0; start < texts.length; start += spec.maxBatch) {
    const values = texts.slice(start, start + spec.maxBatch);
    const result = await beginCall(control, async () =>
      model.doEmbed({
        values,
        dimensions: request.dimensions,
        headers,
        abortSignal: control.signal,
        providerOptions: options === undefined ? undefined : { [provider.id]: options },
      }),
    );
    if (result.response?.headers) control.responseHeaders(result.response.headers);
    if (result.embeddings.length !== values.length) {
      throw new Error(`the upstream returned ${result.embeddings.length} vectors for ${values.length} inputs`);
    }
    for (const vector of result.embeddings) vectors.push(vector);
    tokens = tokens === undefined || result.usage === undefined ? undefined : tokens + result.usage.tokens;
  }
  return { vectors, tokens };
}

/** A vector as OpenAI's `base64` encoding has it: little-endian float32 values. */
function base64Vector(vector: readonly number[]): string {
  const floats = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) floats[i] = vector[i] as number;
  return Buffer.from(floats.buffer).toString('base64');
}

function answer(request: EmbeddingsRequest, model: CatalogModel, embedded: Embedded): unknown {
  const data = embedded.vectors.map((vector, index) => ({
    object: 'embedding',
    index,
    embedding: request.encodingFormat === 'base64' ? base64Vector(vector) : vector,
  }));
  const body: Record<string, unknown> = { object: 'list', data, model: model.id };
  // Only what the provider reported: no usage is better than an invented one.
  if (embedded.tokens !== undefined) body.usage = { prompt_tokens: embedded.tokens, total_tokens: embedded.tokens };
  return body;
}

/** One embeddings request of a client API, with the keys its route read. */
export interface EmbeddingsCall {
  readonly req: Request;
  readonly res: Response;
  readonly request: EmbeddingsRequest;
  readonly keys: KeySet;
}

/**
 * An embeddings request routed as `/v1/embeddings` routes it (OpenAI's body, or Gemini's
 * embedContent): the model looked up, `dimensions` checked against every deployment it may go
 * to, and the vectors of the first that answered, never of another family. Undefined when
 * the caller went away.
 */
export async function routeEmbeddings(deps: EmbeddingsDeps, { req, res, request, keys }: EmbeddingsCall): Promise<{ value: Embedded; model: CatalogModel } | undefined> {
  res.locals.trace?.requested({ operation: 'embeddings', model: request.model, stream: false });
  // A pinned embedding model the plugin does not declare is served when a live list of the request's keys holds it.
  const findLive = (target: string) => deps.router.findLive(target, keys, () => deps.clientOf?.(req) ?? '', 'embedding');
  const entry = await lookUpModel({ catalog: deps.catalog, target: request.model, kind: 'embedding', findLive });
  checkForModels(request, entry);
  return runWholeCall(res, deps, {
    entry,
    keys,
    attempt: (candidate, control) => embedAll(request, deps.models, candidate, control),
    tokensOf: (embedded) => ({ input: embedded.tokens }),
  });
}

/** `POST /v1/embeddings`: OpenAI's embeddings API over the embedding models of the catalog. */
export function embeddingsRoute(deps: EmbeddingsDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    const keys = deps.readKeys(req.headers);
    res.locals.keys = keys;
    const request = parseEmbeddingsRequest(req.body, deps.maxInputs);
    const done = await routeEmbeddings(deps, { req, res, request, keys });
    if (done) res.json(answer(request, done.model, done.value));
  };
}
