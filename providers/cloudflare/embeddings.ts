import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { openAICompatibleEmbeddingModel } from '../openai-compatible.ts';
import type { EmbeddingModelSpec, ModelFactoryOptions } from '../types.ts';
import { accountPlaceholder, withAccountInPath } from './account.ts';

/**
 * Workers AI's text embedding models, through its OpenAI-compatible `POST .../ai/v1/embeddings`
 * (https://developers.cloudflare.com/workers-ai/configuration/open-ai-compatibility/, checked
 * 2026-11-25). Each model page gives the input schema, `text` as a string or an array of at most
 * 100 strings, and the output size: https://developers.cloudflare.com/workers-ai/models/bge-m3/,
 * /bge-large-en-v1.5/, /bge-base-en-v1.5/, /bge-small-en-v1.5/. None takes `dimensions`.
 */
export const cloudflareEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: '@cf/baai/bge-m3',
    family: { id: 'bge-m3', source: 'https://developers.cloudflare.com/workers-ai/models/bge-m3/' },
    maxBatch: 100,
    contextWindow: 8192,
    defaultDimensions: 1024,
    tokenInput: false,
  },
  {
    id: '@cf/baai/bge-large-en-v1.5',
    family: { id: 'bge-large-en-v1.5', source: 'https://developers.cloudflare.com/workers-ai/models/bge-large-en-v1.5/' },
    maxBatch: 100,
    contextWindow: 512,
    defaultDimensions: 1024,
    tokenInput: false,
  },
  {
    id: '@cf/baai/bge-base-en-v1.5',
    family: { id: 'bge-base-en-v1.5', source: 'https://developers.cloudflare.com/workers-ai/models/bge-base-en-v1.5/' },
    maxBatch: 100,
    contextWindow: 512,
    defaultDimensions: 768,
    tokenInput: false,
  },
  {
    id: '@cf/baai/bge-small-en-v1.5',
    family: { id: 'bge-small-en-v1.5', source: 'https://developers.cloudflare.com/workers-ai/models/bge-small-en-v1.5/' },
    maxBatch: 100,
    contextWindow: 512,
    defaultDimensions: 384,
    tokenInput: false,
  },
];

export function createCloudflareEmbeddingModel({ modelId, baseURL, fetch }: ModelFactoryOptions): Promise<EmbeddingModelV4> {
  return openAICompatibleEmbeddingModel('cloudflare', { modelId, baseURL: `${baseURL}${accountPlaceholder}ai/v1`, fetch: withAccountInPath(fetch) });
}
