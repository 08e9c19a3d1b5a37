import type { EmbeddingModelSpec } from '../types.ts';

/**
 * Cohere's Compatibility API serves OpenAI's `POST /embeddings` for its Embed models
 * (https://docs.cohere.com/docs/compatibility-api, checked 2026-11-25). `embed-v4.0`: 128k
 * input tokens, 1,536 dimensions by default, at most 96 texts per call (the Embed API
 * reference, https://docs.cohere.com/reference/embed, `texts` maxItems 96). The compatibility
 * endpoint documents no `dimensions` (v2's `output_dimension`), and refuses `user`.
 */
export const cohereEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'embed-v4.0',
    family: { id: 'embed-v4.0', source: 'https://docs.cohere.com/docs/cohere-embed' },
    maxBatch: 96,
    contextWindow: 128000,
    defaultDimensions: 1536,
    tokenInput: false,
  },
];
