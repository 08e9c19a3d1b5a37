import type { EmbeddingsRequest } from '../embeddings/request.ts';
import { INT32_MAX } from '../limits.ts';
import { array, fail, isObject, object, optionalNumber, phrase, string, type Fields } from '../validation.ts';

/**
 * Gemini's embedContent and batchEmbedContents bodies (https://ai.google.dev/api/embeddings,
 * read 2026-11-27) -> the embeddings request `/v1/embeddings` routes. Each
 * EmbedContentRequest's text parts are one input; `outputDimensionality` is `dimensions`;
 * `taskType` RETRIEVAL_QUERY and RETRIEVAL_DOCUMENT are the `query` and `passage` input
 * types (for the models that embed the two differently); `title` is ignored.
 */

const taskTypes = ['TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'];

interface OneInput {
  readonly text: string;
  readonly dimensions: number | undefined;
  readonly inputType: EmbeddingsRequest['inputType'];
}

function readInput(fields: Fields, path: string, model: string): OneInput {
  const content = object(fields.content, `${path}content`);
  const parts = array(content.parts, `${path}content.parts`);
  const texts = parts.map((part, index) => string(object(part, `${path}content.parts.${index}`).text, `${path}content.parts.${index}.text`));
  const text = texts.join('\n');
  if (text === '') fail(`${path}content.parts`, 'must hold text');
  // batchEmbedContents: "the model specified in each request must match" the path's (embed_content_request.proto).
  if (fields.model !== undefined && fields.model !== `models/${model}` && fields.model !== model) fail(`${path}model`, `must be the model of the path, models/${model}`);
  const dimensions = optionalNumber(fields.outputDimensionality, `${path}outputDimensionality`, { min: 1, max: INT32_MAX, integer: true }) ?? undefined;
  let inputType: EmbeddingsRequest['inputType'];
  if (fields.taskType !== undefined) {
    const task = string(fields.taskType, `${path}taskType`);
    if (!taskTypes.includes(task)) fail(`${path}taskType`, phrase.oneOf(taskTypes));
    inputType = task === 'RETRIEVAL_QUERY' ? 'query' : task === 'RETRIEVAL_DOCUMENT' ? 'passage' : undefined;
  }
  return { text, dimensions, inputType };
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
  if (!isObject(body)) fail('body', phrase.type('object'));
  return oneRequest(target, [readInput(body, '', model)], 'requests');
}

/** batchEmbedContents: `requests`, at most EMBEDDINGS_MAX_INPUTS of them. */
export function parseBatchEmbedContents(body: unknown, model: string, target: string, maxInputs: number): EmbeddingsRequest {
  if (!isObject(body)) fail('body', phrase.type('object'));
  const requests = array(body.requests, 'requests');
  if (requests.length === 0) fail('requests', phrase.minItems(1));
  if (requests.length > maxInputs) fail('requests', `${requests.length} requests, more than the ${maxInputs} one batch may carry (EMBEDDINGS_MAX_INPUTS); send them in several batches`);
  return oneRequest(target, requests.map((item, index) => readInput(object(item, `requests.${index}`), `requests.${index}.`, model)), 'requests');
}
