import { bearerAuth } from '../openai-compatible.ts';
import { openAIQuotaHeaders, quotaReader } from '../quota.ts';
import type { ProviderPlugin } from '../types.ts';

const groq: ProviderPlugin = {
  id: 'groq',
  name: 'Groq',
  header: 'X-Groq-Key',
  keyPatterns: [/gsk_[A-Za-z0-9]+/],
  baseURL: 'https://api.groq.com/openai/v1',
  priority: 10,
  models: [
    { id: 'llama-3.3-70b-versatile', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'llama-3.1-8b-instant', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'llama-4-scout-17b-16e-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'llama-4-maverick-17b-128e-instruct', capabilities: ['fast', 'tool-use', 'vision', 'long-context'], contextWindow: 131072, deprecated: true },
  ],
  authHeaders: bearerAuth,
  // https://console.groq.com/docs/rate-limits: `-requests` is the daily request budget (RPD),
  // `-tokens` the per-minute token budget (TPM); resets are durations like `2m59.56s`.
  readQuota: quotaReader(openAIQuotaHeaders),
  // The SDK insists on a key at construction; every call's authHeaders replace it.
  createModel: async ({ modelId, baseURL, fetch }) => {
    const { createGroq } = await import('@ai-sdk/groq');
    return createGroq({ apiKey: 'per-request', baseURL, fetch }).languageModel(modelId);
  },
};

export default groq;
