import type { EmbeddingModelSpec } from '../types.ts';

/**
 * The AI Gateway's OpenAI-compatible `POST /v1/embeddings`
 * (https://vercel.com/docs/ai-gateway/sdks-and-apis/openai-chat-completions/embeddings, checked 2026-11-27),
 * whose example model is `openai/text-embedding-3-small`: OpenAI's weights, 1,536 dimensions, 8,192 input
 * tokens, at most 2,048 inputs a call (OpenAI's embeddings reference as its own SDK carries it,
 * https://rubydoc.info/github/openai/openai-ruby/OpenAI/Models/EmbeddingCreateParams/Input, checked 2026-11-27:
 * "any array must be 2048 dimensions or less"). The gateway documents no batch limit of its own.
 * Vercel's page says the gateway passes a root-level `dimensions` on, but neither it nor OpenAI's pages
 * that were found state the range it takes, so the field is refused.
 */
export const vercelEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'openai/text-embedding-3-small',
    family: { id: 'text-embedding-3-small', source: 'https://vercel.com/docs/ai-gateway/sdks-and-apis/openai-chat-completions/embeddings' },
    maxBatch: 2048,
    contextWindow: 8192,
    defaultDimensions: 1536,
    tokenInput: false,
  },
];
