import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const cerebras: ProviderPlugin = {
  id: 'cerebras',
  name: 'Cerebras',
  header: 'X-Cerebras-Key',
  keyPatterns: [/csk-[A-Za-z0-9]+/],
  baseURL: 'https://api.cerebras.ai/v1',
  priority: 20,
  models: [
    { id: 'llama-3.3-70b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'llama-3.1-8b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'qwen3-32b', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'qwen3-235b', capabilities: ['reasoning', 'tool-use'], contextWindow: 32768 },
    { id: 'gpt-oss-120b', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'zai-glm-4.7', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144, deprecated: true },
  ],
  authHeaders: bearerAuth,
  createModel: (options) => openAICompatibleModel('cerebras', options, { supportsStructuredOutputs: true }),
};

export default cerebras;
