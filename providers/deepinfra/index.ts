import { bearerAuth, openAICompatibleEmbeddingModel, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';
import { deepinfraEmbeddingModels } from './embeddings.ts';

const deepinfra: ProviderPlugin = {
  id: 'deepinfra',
  name: 'DeepInfra',
  header: 'X-Deepinfra-Key',
  keyPatterns: [],
  baseURL: 'https://api.deepinfra.com/v1/openai',
  keyUrl: 'https://deepinfra.com/dash/api_keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'paid only', source: 'https://deepinfra.com/pricing', checked: '2026-11-25' },
  priority: 110,
  models: [
    { id: 'meta-llama/Meta-Llama-3.3-70B-Instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'meta-llama/Meta-Llama-3.1-405B-Instruct', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'meta-llama/Meta-Llama-3.1-8B-Instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-ai/DeepSeek-V3', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-ai/DeepSeek-R1', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'Qwen/Qwen3-32B', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'Qwen/Qwen2.5-Coder-32B-Instruct', capabilities: ['fast', 'tool-use'], contextWindow: 32768 },
    { id: 'mistralai/Mistral-Small-3.1-24B-Instruct', capabilities: ['fast', 'tool-use'], contextWindow: 32768 },
  ],
  authHeaders: bearerAuth,
  // The rows are in fixtures.ts.
  errorRules: [
    { name: 'not authenticated', status: [401, 403], kind: 'invalid_key' },
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('deepinfra', options),
  embeddingModels: deepinfraEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('deepinfra', options),
};

export default deepinfra;
