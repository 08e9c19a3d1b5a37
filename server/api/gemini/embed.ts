import type { EmbeddingsRequest } from '../embeddings/request.ts';
import { compileBody, fail, isObject } from '../validation.ts';
import { batchEmbedContentsSchema, embedContentSchema } from './schema.ts';

/**
 * Gemini's embedContent and batchEmbedContents bodies (https://ai.google.dev/api/embeddings,
 * read 2026-11-27) -> the embeddings request `/v1/embeddings` routes. Each
 * EmbedContentRequest's text parts are one input; `outputDimensionality` is `dimensions`;
 * `taskType` RETRIEVAL_QUERY and RETRIEVAL_DOCUMENT are the `query` and `passage` input
 * types (for the models that embed the two differently); `title` is ignored.
 */

interface OneInput {
  readonly text: string;
  readonly dimensions: number | undefined;
  readonly inputType: EmbeddingsRequest['inputType'];
}

/** One EmbedContentRequest, as the schema has checked it. */
interface EmbedContentBody {
  content: { parts: Array<{ text: string }> };
  model?: string;
  outputDimensionality?: number | null;
  taskType?: string;
}

const checkEmbedContent = compileBody<EmbedContentBody>(embedContentSchema);
const checkBatch = compileBody<{ requests: EmbedContentBody[] }>(batchEmbedContentsSchema);

function readInput(fields: EmbedContentBody, path: string, model: string): OneInput {
  const text = fields.content.parts.map((part) => part.text).join('\n');
  if (text === '') fail(`${path}content.parts`, 'must hold text');
  // batchEmbedContents: "the model specified in each request must match" the path's (embed_content_request.proto).
  if (fields.model !== undefined && fields.model !== `models/${model}` && fields.model !== model) fail(`${path}model`, `must be the model of the path, models/${model}`);
  const task = fields.taskType;
  const inputType = task === 'RETRIEVAL_QUERY' ? 'query' : task === 'RETRIEVAL_DOCUMENT' ? 'passage' : undefined;
  return { text, dimensions: fields.outputDimensionality ?? undefined, inputType };
}

/** What the inputs share, as one embeddings request: a batch whose inputs ask for different sizes or types is refused. */
function oneRequest(target: string, inputs: readonly OneInput[], field: string): EmbeddingsRequest {
  const first = inputs[0] as OneInput;
  for (const [index, input] of inputs.entries()) {
    if (input.dimensions !== first.dimensions) fail(`${field}.${index}.outputDimensionality`, 'must be the same for every request of a batch');
    if (input.inputType !== first.inputType) fail(`${field}.${index}.taskType`, 'must be the same for every request of a batch');
  }
  const request: { -readonly [K in keyof EmbeddingsRequest]: EmbeddingsRequest[K] } = { model: target, texts: inputs.map((input) => input.text), encodingFormat: 'float' };
  if (first.dimensions !== undefined) request.dimensions = first.dimensions;
  if (first.inputType !== undefined) request.inputType = first.inputType;
  return request;
}

/** embedContent: one input. `model` is the path's, `target` what it resolved to. */
export function parseEmbedContent(body: unknown, model: string, target: string): EmbeddingsRequest {
  return oneRequest(target, [readInput(checkEmbedContent(body), '', model)], 'requests');
}

/** batchEmbedContents: `requests`, at most EMBEDDINGS_MAX_INPUTS of them. */
export function parseBatchEmbedContents(body: unknown, model: string, target: string, maxInputs: number): EmbeddingsRequest {
  // Counted before the schema walks every request.
  const count = isObject(body) && Array.isArray(body.requests) ? body.requests.length : 0;
  if (count > maxInputs) fail('requests', `${count} requests, more than the ${maxInputs} one batch may carry (EMBEDDINGS_MAX_INPUTS); send them in several batches`);
  const { requests } = checkBatch(body);
  return oneRequest(target, requests.map((item, index) => readInput(item, `requests.${index}.`, model)), 'requests');
}
