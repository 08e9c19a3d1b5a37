import { INT32_MAX } from '../limits.ts';
import type { Schema } from '../schema-parts.ts';
import { DETAIL } from '../validation.ts';

/**
 * The embeddings body Freeway accepts (OpenAI's), as JSON Schema. `input` is
 * read by request.ts after it: a token array there is its own error, and each
 * input is named by its index (`input[2]`).
 */
export const embeddingsSchema: Schema = {
  type: 'object',
  [DETAIL]: 'must be a JSON object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1, [DETAIL]: 'required, a string', description: 'An embedding alias (`free:embed`) or a pinned `{provider}/{modelId}`.' },
    input: { [DETAIL]: 'required', description: 'A string or an array of strings, none empty; at most EMBEDDINGS_MAX_INPUTS. Token arrays are refused.' },
    encoding_format: { enum: ['float', 'base64', null], [DETAIL]: 'must be "float" or "base64"' },
    dimensions: { type: ['integer', 'null'], minimum: 1, maximum: INT32_MAX, [DETAIL]: 'must be a positive integer' },
    user: { type: ['string', 'null'], [DETAIL]: 'must be a string' },
    input_type: { enum: ['query', 'passage', null], [DETAIL]: 'must be "query" or "passage"', description: 'For models that embed the two differently.' },
  },
};
