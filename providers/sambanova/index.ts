import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { parseReset, quotaReader } from '../quota.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';

const sambanova: ProviderPlugin = {
  id: 'sambanova',
  name: 'SambaNova',
  header: 'X-Sambanova-Key',
  keyPatterns: [],
  baseURL: 'https://api.sambanova.ai/v1',
  keyUrl: 'https://cloud.sambanova.ai/apis',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'trial credit', source: 'https://docs.sambanova.ai/cloud/docs/get-started/rate-limits', checked: '2026-11-25' },
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
  // https://docs.sambanova.ai/docs/en/api-reference/using-the-api/api-error-codes; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'request limit (per day when the day budget is spent, else per minute)',
      status: 429,
      kind: 'rate_limited',
      retryAt: (answer, now) =>
        answer.headers['x-ratelimit-remaining-requests-day'] === '0'
          ? parseReset(answer.headers['x-ratelimit-reset-requests-day'], 'duration', now) ?? nextUtcMidnight(now)
          : parseReset(answer.headers['x-ratelimit-reset-requests'], 'duration', now),
    },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // 410 Gone: the model was deprecated or removed.
    { name: 'model no longer available', status: [404, 410], kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /context_length_exceeded|context length/i, kind: 'context_too_long' },
    { name: 'maintenance or queue full', status: [503, 504], kind: 'server' },
  ],
  readQuota: quotaReader([
    { remainingRequests: 'x-ratelimit-remaining-requests', requestsReset: 'x-ratelimit-reset-requests', resetFormat: 'duration' },
    { remainingRequests: 'x-ratelimit-remaining-requests-day', requestsReset: 'x-ratelimit-reset-requests-day', resetFormat: 'duration' },
  ]),
  createModel: (options) => openAICompatibleModel('sambanova', options),
};

export default sambanova;
