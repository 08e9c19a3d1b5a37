import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const fireworks: ProviderPlugin = {
  id: 'fireworks',
  name: 'Fireworks AI',
  header: 'X-Fireworks-Key',
  keyPatterns: [/fw_[A-Za-z0-9]+/],
  baseURL: 'https://api.fireworks.ai/inference/v1',
  keyUrl: 'https://fireworks.ai/account/api-keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'trial credit', source: 'https://docs.fireworks.ai/guides/quotas_usage/rate-limits', checked: '2026-11-25' },
  priority: 100,
  models: [
    { id: 'accounts/fireworks/models/llama-v3p3-70b-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'accounts/fireworks/models/firefunction-v2', capabilities: ['fast', 'tool-use'], contextWindow: 32768 },
    { id: 'accounts/fireworks/models/qwen3-32b', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'accounts/fireworks/models/deepseek-r1', capabilities: ['reasoning', 'tool-use'], contextWindow: 16384 },
  ],
  authHeaders: bearerAuth,
  // https://docs.fireworks.ai/serverless/rate-limits (429 and 503); the rows are in fixtures.ts.
  errorRules: [
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'model not found or not servable', status: 404, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /prompt is too long|maximum context length/i, kind: 'context_too_long' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('fireworks', options, { supportsStructuredOutputs: true }),
};

export default fireworks;
