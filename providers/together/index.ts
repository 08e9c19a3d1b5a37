import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { secondsHeaderAt } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';

const together: ProviderPlugin = {
  id: 'together',
  name: 'Together AI',
  header: 'X-Together-Key',
  keyPatterns: [/tgp_v1_[A-Za-z0-9_-]+/],
  baseURL: 'https://api.together.xyz/v1',
  keyUrl: 'https://api.together.ai/settings/api-keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'paid only', source: 'https://docs.together.ai/docs/rate-limits', checked: '2026-11-25' },
  priority: 90,
  models: [
    { id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'meta-llama/Llama-3.1-8B-Instruct-Turbo', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'mistralai/Mixtral-8x22B-Instruct-v0.1', capabilities: ['reasoning', 'tool-use'], contextWindow: 65536 },
    { id: 'deepseek-ai/DeepSeek-R1', capabilities: ['reasoning', 'tool-use'], contextWindow: 16384 },
    { id: 'Qwen/Qwen3-32B', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  // https://support.together.ai/en/articles/8988956-rate-limits: x-ratelimit-remaining (requests)
  // and x-ratelimit-reset, the time until the request budget is full again.
  // https://docs.together.ai/docs/error-codes and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'above the dynamic request or token rate',
      status: 429,
      kind: 'rate_limited',
      retryAt: (answer, now) => secondsHeaderAt(answer.headers, 'x-ratelimit-reset', now),
    },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // Together's 403 is input tokens + max_tokens over the model's context length.
    { name: 'context length exceeded (403)', status: 403, body: /tokens|context length/i, kind: 'context_too_long' },
    { name: 'model not available', status: 404, kind: 'model_unavailable' },
  ],
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining', requestsReset: 'x-ratelimit-reset', resetFormat: 'duration' }),
  createModel: (options) => openAICompatibleModel('together', options, { supportsStructuredOutputs: true }),
};

export default together;
