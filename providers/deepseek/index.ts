import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const deepseek: ProviderPlugin = {
  id: 'deepseek',
  name: 'DeepSeek',
  header: 'X-Deepseek-Key',
  keyPatterns: [],
  baseURL: 'https://api.deepseek.com/v1',
  keyUrl: 'https://platform.deepseek.com/api_keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'paid only', source: 'https://api-docs.deepseek.com/quick_start/pricing', checked: '2026-11-25' },
  priority: 120,
  models: [
    { id: 'deepseek-chat', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'deepseek-reasoner', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'deepseek-v4-flash', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-v4-pro', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  // https://api-docs.deepseek.com/quick_start/error_codes; the rows are in fixtures.ts.
  errorRules: [
    { name: 'authentication fails', status: 401, kind: 'invalid_key' },
    { name: 'insufficient balance', status: 402, kind: 'rate_limited' },
    { name: 'rate limit reached', status: 429, kind: 'rate_limited' },
    { name: 'model does not exist', status: 400, body: /Model Not Exist/i, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /maximum context length/i, kind: 'context_too_long' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('deepseek', options),
};

export default deepseek;
