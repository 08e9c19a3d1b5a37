import { nextMidnight } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';
import { createGoogleEmbeddingModel, googleEmbeddingModels } from './embeddings.ts';

const google: ProviderPlugin = {
  id: 'google',
  name: 'Google',
  header: 'X-Google-Key',
  keyPatterns: [/AIza[A-Za-z0-9_-]+/],
  baseURL: 'https://generativelanguage.googleapis.com/v1beta',
  keyUrl: 'https://aistudio.google.com/apikey',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://ai.google.dev/gemini-api/docs/rate-limits', checked: '2026-11-25' },
  priority: 30,
  models: [
    { id: 'gemini-2.5-flash', capabilities: ['fast', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, reasoningEffort: true },
    { id: 'gemini-2.5-flash-lite', capabilities: ['fast', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576 },
    { id: 'gemini-2.5-pro', capabilities: ['reasoning', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, reasoningEffort: true },
    { id: 'gemini-3.6-flash', capabilities: ['fast', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, deprecated: true },
    { id: 'gemini-3.5-flash', capabilities: ['fast', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, deprecated: true },
  ],
  authHeaders: (key) => ({ 'x-goog-api-key': key }),
  // https://ai.google.dev/gemini-api/docs/troubleshooting and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    // A wrong key is a 400 INVALID_ARGUMENT here: the key's fault, not the request's.
    { name: 'invalid API key', status: 400, body: /API_KEY_INVALID|API key not valid/, kind: 'invalid_key' },
    { name: 'input token count over the limit', status: 400, body: /input token count.*exceeds the maximum/i, kind: 'context_too_long' },
    {
      name: 'daily quota (a PerDay quota id)',
      status: 429,
      body: /"quotaId":\s*"\w*PerDay/,
      kind: 'rate_limited',
      // "Requests per day (RPD) quotas reset at midnight Pacific time"; RetryInfo only covers the minute.
      retryAt: (_answer, now) => nextMidnight('America/Los_Angeles', now),
    },
    { name: 'per-minute quota (RetryInfo gives the delay)', status: 429, kind: 'rate_limited' },
    { name: 'key without permission', status: 403, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
  ],
  // Gemini's API has no end-user id, parallel-call switch or OpenAI-format logprobs.
  providerOptions: () => undefined,
  // The SDK insists on a key at construction; every call's authHeaders replace it.
  createModel: async ({ modelId, baseURL, fetch }) => {
    const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
    return createGoogleGenerativeAI({ apiKey: 'per-request', baseURL, fetch }).languageModel(modelId);
  },
  embeddingModels: googleEmbeddingModels,
  createEmbeddingModel: createGoogleEmbeddingModel,
  // The Gemini API has no end-user id.
  embeddingOptions: () => undefined,
};

export default google;
