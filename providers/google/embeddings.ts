import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import type { EmbeddingModelSpec, ModelFactoryOptions } from '../types.ts';

/**
 * Gemini API embeddings, checked 2026-11-25 against https://ai.google.dev/gemini-api/docs/embeddings
 * and https://ai.google.dev/api/embeddings: `gemini-embedding-001`, 2,048 input tokens,
 * 3,072 dimensions by default, `outputDimensionality` 128 to 3,072. One call is
 * `models/{model}:embedContent`, several `models/{model}:batchEmbedContents` with at most
 * 100 requests (the limit @ai-sdk/google enforces as `maxEmbeddingsPerCall`).
 */
export const googleEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'gemini-embedding-001',
    family: { id: 'gemini-embedding-001', source: 'https://ai.google.dev/gemini-api/docs/models#gemini-embedding' },
    maxBatch: 100,
    contextWindow: 2048,
    defaultDimensions: 3072,
    dimensions: { min: 128, max: 3072 },
    tokenInput: false,
  },
];

/** The SDK insists on a key at construction; every call's authHeaders replace it. */
export async function createGoogleEmbeddingModel({ modelId, baseURL, fetch }: ModelFactoryOptions): Promise<EmbeddingModelV4> {
  const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
  return createGoogleGenerativeAI({ apiKey: 'per-request', baseURL, fetch }).embeddingModel(modelId);
}
