import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';
import { createNvidiaEmbeddingModel, nvidiaEmbeddingModels, nvidiaEmbeddingOptions } from './embeddings.ts';

const nvidia: ProviderPlugin = {
  id: 'nvidia',
  name: 'NVIDIA',
  header: 'X-Nvidia-Key',
  keyPatterns: [/nvapi-[A-Za-z0-9_-]+/],
  baseURL: 'https://integrate.api.nvidia.com/v1',
  keyUrl: 'https://build.nvidia.com',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://docs.api.nvidia.com/nim/docs/api-quickstart', checked: '2026-11-25' },
  priority: 80,
  models: [
    { id: 'deepseek-ai/deepseek-v4-pro', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-ai/deepseek-v4-flash', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'mistralai/mistral-nemotron', capabilities: ['tool-use', 'fast', 'long-context'], contextWindow: 131072 },
    { id: 'nvidia/nemotron-3-super-120b-a12b', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'nvidia/nemotron-3-nano-30b-a3b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'z-ai/glm-5.2', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'minimaxai/minimax-m3', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'moonshotai/kimi-k2.6', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'meta/llama-3.3-70b-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  // Problem-details answers ({status, title, detail}) of NVIDIA's API catalog; the rows are in fixtures.ts.
  errorRules: [
    { name: 'invalid or unauthorized key', status: [401, 403], kind: 'invalid_key' },
    { name: 'model not served for this account', status: 404, kind: 'model_unavailable' },
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
    { name: 'context length exceeded', status: 400, body: /maximum context length/i, kind: 'context_too_long' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('nvidia', options),
  embeddingModels: nvidiaEmbeddingModels,
  createEmbeddingModel: createNvidiaEmbeddingModel,
  embeddingOptions: nvidiaEmbeddingOptions,
};

export default nvidia;
