import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const deepseek: ProviderPlugin = {
  id: 'deepseek',
  name: 'DeepSeek',
  header: 'X-Deepseek-Key',
  keyPatterns: [],
  baseURL: 'https://api.deepseek.com/v1',
  priority: 120,
  models: [
    { id: 'deepseek-chat', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'deepseek-reasoner', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'deepseek-v4-flash', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-v4-pro', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  createModel: (options) => openAICompatibleModel('deepseek', options),
};

export default deepseek;
