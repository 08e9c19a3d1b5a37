import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import type { ProviderPlugin } from '../types.ts';

const sambanova: ProviderPlugin = {
  id: 'sambanova',
  name: 'SambaNova',
  header: 'X-Sambanova-Key',
  keyPatterns: [],
  baseURL: 'https://api.sambanova.ai/v1',
  priority: 40,
  models: [
    { id: 'Meta-Llama-3.3-70B-Instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'Meta-Llama-3.1-8B-Instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'DeepSeek-V3.1-0324', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'Qwen3-32B', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  // https://docs.sambanova.ai/docs/en/models/rate-limits ("Rate limit response headers"): a
  // per-minute set (x-ratelimit-*-requests) and a per-day set (x-ratelimit-*-requests-day).
  readQuota: quotaReader([
    { remainingRequests: 'x-ratelimit-remaining-requests', requestsReset: 'x-ratelimit-reset-requests', resetFormat: 'duration' },
    { remainingRequests: 'x-ratelimit-remaining-requests-day', requestsReset: 'x-ratelimit-reset-requests-day', resetFormat: 'duration' },
  ]),
  createModel: (options) => openAICompatibleModel('sambanova', options),
};

export default sambanova;
