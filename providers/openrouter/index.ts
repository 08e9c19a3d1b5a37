import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import type { ProviderPlugin } from '../types.ts';

const openrouter: ProviderPlugin = {
  id: 'openrouter',
  name: 'OpenRouter',
  header: 'X-Openrouter-Key',
  keyPatterns: [/sk-or-[A-Za-z0-9_-]+/],
  baseURL: 'https://openrouter.ai/api/v1',
  priority: 60,
  models: [
    { id: 'nvidia/nemotron-3-ultra-550b-a55b:free', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'nvidia/nemotron-3-super-120b-a12b:free', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'google/gemma-4-31b-it:free', capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'google/gemma-4-26b-a4b-it:free', capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'poolside/laguna-m.1:free', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 262144 },
    { id: 'poolside/laguna-xs-2.1:free', capabilities: ['tool-use', 'fast', 'long-context'], contextWindow: 262144 },
    { id: 'cohere/north-mini-code:free', capabilities: ['tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'nvidia/nemotron-3-nano-30b-a3b:free', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'qwen/qwen3-next-80b-a3b-instruct:free', capabilities: ['tool-use', 'long-context'], contextWindow: 262144 },
  ],
  authHeaders: bearerAuth,
  // https://openrouter.ai/docs/api-reference/limits: X-RateLimit-Remaining (requests) and
  // X-RateLimit-Reset, the moment of the reset in epoch milliseconds.
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining', requestsReset: 'x-ratelimit-reset', resetFormat: 'epoch-ms' }),
  createModel: (options) => openAICompatibleModel('openrouter', options, { supportsStructuredOutputs: true }),
};

export default openrouter;
