import type { EmbeddingModelSpec } from '../types.ts';

/**
 * DeepInfra serves OpenAI's `POST /v1/openai/embeddings` (https://deepinfra.com/BAAI/bge-m3/api,
 * checked 2026-11-25): `BAAI/bge-m3`, the same weights as Workers AI's `@cf/baai/bge-m3` and
 * NVIDIA's `baai/bge-m3` (https://huggingface.co/BAAI/bge-m3), 8,192 tokens, 1,024 dimensions.
 * DeepInfra states no batch size: Freeway sends at most 100 inputs per call, Workers AI's limit
 * for the same model.
 */
export const deepinfraEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'BAAI/bge-m3',
    family: { id: 'bge-m3', source: 'https://deepinfra.com/BAAI/bge-m3/api' },
    maxBatch: 100,
    contextWindow: 8192,
    defaultDimensions: 1024,
    tokenInput: false,
  },
];
