import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const fireworks: ProviderPlugin = {
  id: 'fireworks',
  name: 'Fireworks AI',
  header: 'X-Fireworks-Key',
  keyPatterns: [/fw_[A-Za-z0-9]+/],
  baseURL: 'https://api.fireworks.ai/inference/v1',
  priority: 100,
  models: [
    { id: 'accounts/fireworks/models/llama-v3p3-70b-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'accounts/fireworks/models/firefunction-v2', capabilities: ['fast', 'tool-use'], contextWindow: 32768 },
    { id: 'accounts/fireworks/models/qwen3-32b', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'accounts/fireworks/models/deepseek-r1', capabilities: ['reasoning', 'tool-use'], contextWindow: 16384 },
  ],
  authHeaders: bearerAuth,
  createModel: (options) => openAICompatibleModel('fireworks', options, { supportsStructuredOutputs: true }),
};

export default fireworks;
