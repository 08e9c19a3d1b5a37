import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const mistral: ProviderPlugin = {
  id: 'mistral',
  name: 'Mistral',
  header: 'X-Mistral-Key',
  keyPatterns: [],
  baseURL: 'https://api.mistral.ai/v1',
  priority: 50,
  models: [
    { id: 'mistral-small-latest', capabilities: ['fast', 'tool-use'], contextWindow: 32768 },
    { id: 'open-mistral-nemo', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: 'codestral-latest', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 256000 },
    { id: 'mistral-large-latest', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 128000 },
  ],
  authHeaders: bearerAuth,
  createModel: (options) => openAICompatibleModel('mistral', options, { supportsStructuredOutputs: true }),
};

export default mistral;
