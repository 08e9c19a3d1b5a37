import type { EmbeddingModelSpec } from '../types.ts';

/**
 * Mistral's `POST /v1/embeddings` (https://docs.mistral.ai/capabilities/embeddings/text_embeddings,
 * checked 2026-11-25): `mistral-embed`, 1,024 dimensions, 8,192 input tokens. Mistral documents
 * no batch size, only the error "Too many inputs in request, split into more batches"; 256 inputs
 * pass and 257 are refused (measured by rig-core, src/providers/mistral/embedding.rs, `MAX_DOCUMENTS`).
 * `output_dimension` exists only for `codestral-embed`, so `dimensions` is refused.
 */
export const mistralEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'mistral-embed',
    family: { id: 'mistral-embed', source: 'https://docs.mistral.ai/capabilities/embeddings/text_embeddings' },
    maxBatch: 256,
    contextWindow: 8192,
    defaultDimensions: 1024,
    tokenInput: false,
  },
];
