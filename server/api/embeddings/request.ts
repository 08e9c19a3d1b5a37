import type { Alias, CatalogModel } from '../../../catalog/catalog.ts';
import type { EmbeddingModelSpec } from '../../../providers/types.ts';
import { clip, invalidRequest } from '../../core/errors.ts';

/** An OpenAI embeddings request, checked. */
export interface EmbeddingsRequest {
  readonly model: string;
  /** Every input as text, in order. */
  readonly texts: readonly string[];
  readonly encodingFormat: 'float' | 'base64';
  readonly dimensions?: number;
  readonly user?: string;
  /** `query` or `passage`, for models that embed the two differently; passed only to them. */
  readonly inputType?: 'query' | 'passage';
}

/** Why a token-array input is refused, and how to make LangChain's Python client send text instead. */
export const TOKEN_INPUT_MESSAGE =
  'input: token arrays are not accepted by this model; send text. LangChain\'s Python OpenAIEmbeddings sends tokens unless it is built with check_embedding_ctx_length=False.';

const isTokenArray = (value: unknown): boolean => Array.isArray(value) && value.every((item) => Number.isInteger(item));

/** `input` as texts; a token array (or an array of them) is refused, as no model takes one (`EmbeddingModelSpec.tokenInput`). */
function texts(input: unknown, maxInputs: number): string[] {
  if (typeof input === 'string') {
    if (input === '') throw invalidRequest('Validation failed: input: must not be an empty string');
    return [input];
  }
  if (!Array.isArray(input)) throw invalidRequest('Validation failed: input: must be a string or an array of strings');
  if (input.length === 0) throw invalidRequest('Validation failed: input: must not be an empty array');
  if (input.length > maxInputs) {
    throw invalidRequest(`Validation failed: input: ${input.length} inputs, more than the ${maxInputs} one request may carry (EMBEDDINGS_MAX_INPUTS); send them in several requests`);
  }
  if (isTokenArray(input) || input.some(isTokenArray)) throw invalidRequest(TOKEN_INPUT_MESSAGE);
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (typeof item !== 'string') throw invalidRequest(`Validation failed: input[${i}]: must be a string`);
    if (item === '') throw invalidRequest(`Validation failed: input[${i}]: must not be an empty string`);
  }
  return input as string[];
}

/** Checks the body's shape; what depends on the model (`dimensions`) is checked by `checkForModels`. */
export function parseEmbeddingsRequest(body: unknown, maxInputs: number): EmbeddingsRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('Validation failed: body: must be a JSON object');
  const fields = body as Record<string, unknown>;
  const { model, input, encoding_format: format, dimensions, user, input_type: inputType } = fields;
  if (typeof model !== 'string' || model === '') throw invalidRequest('Validation failed: model: required, a string');
  if (input === undefined) throw invalidRequest('Validation failed: input: required');
  const request: { -readonly [K in keyof EmbeddingsRequest]: EmbeddingsRequest[K] } = { model, texts: texts(input, maxInputs), encodingFormat: 'float' };
  if (format !== undefined && format !== null) {
    if (format !== 'float' && format !== 'base64') throw invalidRequest('Validation failed: encoding_format: must be "float" or "base64"');
    request.encodingFormat = format;
  }
  if (dimensions !== undefined && dimensions !== null) {
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) throw invalidRequest('Validation failed: dimensions: must be a positive integer');
    request.dimensions = dimensions;
  }
  if (user !== undefined && user !== null) {
    if (typeof user !== 'string') throw invalidRequest('Validation failed: user: must be a string');
    request.user = user;
  }
  if (inputType !== undefined && inputType !== null) {
    if (inputType !== 'query' && inputType !== 'passage') throw invalidRequest('Validation failed: input_type: must be "query" or "passage"');
    request.inputType = inputType;
  }
  return request;
}

/**
 * `dimensions` must suit every model the request may go to: deployments of one family
 * that took different sizes would answer with vectors that do not mix.
 */
export function checkForModels(request: EmbeddingsRequest, entry: Alias | CatalogModel): void {
  if (request.dimensions === undefined) return;
  const specs: EmbeddingModelSpec[] = [];
  for (const model of 'models' in entry ? entry.models : [entry]) if (model.embedding) specs.push(model.embedding);
  for (const spec of specs) {
    const range = spec.dimensions;
    if (!range) {
      const size = spec.defaultDimensions > 0 ? `; its vectors have ${spec.defaultDimensions}` : '';
      throw invalidRequest(`Validation failed: dimensions: ${clip(entry.id)} does not take dimensions${size}`);
    }
    if (request.dimensions < range.min || request.dimensions > range.max) {
      throw invalidRequest(`Validation failed: dimensions: ${clip(entry.id)} takes ${range.min} to ${range.max}, got ${request.dimensions}`);
    }
  }
}
