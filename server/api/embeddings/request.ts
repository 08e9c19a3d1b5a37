import type { Alias, CatalogModel } from '../../../catalog/catalog.ts';
import type { EmbeddingModelSpec } from '../../../providers/types.ts';
import { clip, freewayError } from '../../core/errors.ts';
import { compileBody, fail } from '../validation.ts';
import { embeddingsSchema } from './schema.ts';

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

const isTokenArray = (value: unknown): boolean => Array.isArray(value) && value.every((item) => Number.isInteger(item));

/** `input` as texts; a token array (or an array of them) is refused, as no model takes one (`EmbeddingModelSpec.tokenInput`). */
function texts(input: unknown, maxInputs: number): string[] {
  if (typeof input === 'string') {
    if (input === '') fail('input', 'must not be an empty string');
    return [input];
  }
  if (!Array.isArray(input)) fail('input', 'must be a string or an array of strings');
  if (input.length === 0) fail('input', 'must not be an empty array');
  if (input.length > maxInputs) {
    fail('input', `${input.length} inputs, more than the ${maxInputs} one request may carry (EMBEDDINGS_MAX_INPUTS); send them in several requests`);
  }
  if (isTokenArray(input) || input.some(isTokenArray)) throw freewayError('FREEWAY_TOKEN_INPUT');
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (typeof item !== 'string') fail(`input[${i}]`, 'must be a string');
    if (item === '') fail(`input[${i}]`, 'must not be an empty string');
  }
  return input as string[];
}

interface EmbeddingsBody {
  model: string;
  input: unknown;
  encoding_format?: 'float' | 'base64' | null;
  dimensions?: number | null;
  user?: string | null;
  input_type?: 'query' | 'passage' | null;
}

const checkBody = compileBody<EmbeddingsBody>(embeddingsSchema);

/** Checks the body's shape; what depends on the model (`dimensions`) is checked by `checkForModels`. */
export function parseEmbeddingsRequest(body: unknown, maxInputs: number): EmbeddingsRequest {
  const fields = checkBody(body);
  const request: { -readonly [K in keyof EmbeddingsRequest]: EmbeddingsRequest[K] } = { model: fields.model, texts: texts(fields.input, maxInputs), encodingFormat: fields.encoding_format ?? 'float' };
  if (fields.dimensions != null) request.dimensions = fields.dimensions;
  if (fields.user != null) request.user = fields.user;
  if (fields.input_type != null) request.inputType = fields.input_type;
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
      fail('dimensions', `${clip(entry.id)} does not take dimensions${size}`);
    }
    if (request.dimensions < range.min || request.dimensions > range.max) {
      fail('dimensions', `${clip(entry.id)} takes ${range.min} to ${range.max}, got ${request.dimensions}`);
    }
  }
}
