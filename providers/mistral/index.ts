import { bearerAuth, openAICompatibleEmbeddingModel, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import type { ProviderPlugin } from '../types.ts';
import { mistralEmbeddingModels } from './embeddings.ts';

const mistral: ProviderPlugin = {
  id: 'mistral',
  name: 'Mistral',
  header: 'X-Mistral-Key',
  keyPatterns: [],
  baseURL: 'https://api.mistral.ai/v1',
  keyUrl: 'https://console.mistral.ai/api-keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://docs.mistral.ai/deployment/laplateforme/tier/', checked: '2026-11-25' },
  priority: 50,
  models: [
    { id: 'mistral-small-latest', capabilities: ['fast', 'tool-use'], contextWindow: 32768 },
    { id: 'open-mistral-nemo', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: 'codestral-latest', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 256000 },
    { id: 'mistral-large-latest', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 128000 },
  ],
  authHeaders: bearerAuth,
  // The rows are in fixtures.ts.
  errorRules: [
    { name: 'request rate limit', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'invalid model', status: 400, body: /invalid_model|Invalid model/, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /maximum context length|too large for model/i, kind: 'context_too_long' },
  ],
  // Per-minute remaining requests and tokens (names as Mistral sends them, mistralai/client-ts#169); no reset is sent.
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining-req-minute', remainingTokens: 'x-ratelimit-remaining-tokens-minute', resetFormat: 'duration' }),
  createModel: (options) => openAICompatibleModel('mistral', options, { supportsStructuredOutputs: true }),
  embeddingModels: mistralEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('mistral', options),
};

export default mistral;
