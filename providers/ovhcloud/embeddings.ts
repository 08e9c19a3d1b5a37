import type { EmbeddingModelSpec } from '../types.ts';

/**
 * OVHcloud serves OpenAI's `POST /v1/embeddings` on the chat base URL (the catalog's embedding cards post
 * `{model, input}` to https://oai.endpoints.kepler.ai.cloud.ovh.net/v1/embeddings, e.g.
 * https://www.ovhcloud.com/en-in/public-cloud/ai-endpoints/catalog/bge-base-en-v1-5, read 2026-11-27).
 * `BGE-M3` is BAAI's bge-m3 (the id OVHcloud's own LlamaIndex integration embeds with:
 * https://github.com/run-llama/LlamaIndexTS/blob/main/packages/providers/ovhcloud/src/embedding.ts), the weights
 * of Workers AI's `@cf/baai/bge-m3`, NVIDIA's `baai/bge-m3` and DeepInfra's `BAAI/bge-m3`: 8,192 tokens and
 * 1,024 dimensions per the model card. OVHcloud's cards give each model a "max batch size" that the pages read
 * here do not show for BGE-M3, and bodies are limited to 2 MB: Freeway sends at most 16 inputs per call, the
 * smallest batch limit any provider documents.
 */
export const ovhcloudEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'BGE-M3',
    family: { id: 'bge-m3', source: 'https://huggingface.co/BAAI/bge-m3' },
    maxBatch: 16,
    contextWindow: 8192,
    defaultDimensions: 1024,
    tokenInput: false,
  },
];
