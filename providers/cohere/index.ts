import { bearerAuth, openAICompatibleEmbeddingModel, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';
import { cohereEmbeddingModels } from './embeddings.ts';

/** 00:00 UTC on the first day of the month after `now`. */
function nextMonth(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

const cohere: ProviderPlugin = {
  id: 'cohere',
  name: 'Cohere',
  header: 'X-Cohere-Key',
  keyPatterns: [],
  baseURL: 'https://api.cohere.ai/compatibility/v1',
  keyUrl: 'https://dashboard.cohere.com/api-keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://docs.cohere.com/docs/rate-limits', checked: '2026-11-25' },
  priority: 130,
  models: [
    { id: 'command-a-plus-05-2026', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'command-a-reasoning-08-2025', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'command-r-plus-08-2024', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'command-r-08-2024', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'command-a-03-2025', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
  ],
  // Cohere's Compatibility API lists `stream_options` and `user` among its
  // unsupported parameters (a request with stream_options is refused), so they
  // are never sent, and Cohere's streams carry no usage. Callers that do not
  // stream therefore get a non-streaming call, whose answer carries usage.
  // https://docs.cohere.com/docs/compatibility-api
  usageInStreams: false,
  // No extras: `user` is refused (above); the Compatibility API documents no
  // parallel-call switch and no logprobs.
  providerOptions: () => undefined,
  authHeaders: bearerAuth,
  // https://docs.cohere.com/reference/errors and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    // A trial key has 1,000 calls a month; Cohere does not say when the month turns, so: the calendar month, UTC.
    { name: 'trial key monthly limit', status: 429, body: /\/ month/, kind: 'rate_limited', retryAt: (_answer, now) => nextMonth(now) },
    { name: 'per-minute limit', status: 429, kind: 'rate_limited' },
    { name: 'invalid api token', status: 401, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
    { name: 'too many tokens', status: 400, body: /too many tokens/i, kind: 'context_too_long' },
  ],
  createModel: (options) =>
    openAICompatibleModel('cohere', options, {
      includeUsage: false,
      transformRequestBody: ({ user: _user, stream_options: _streamOptions, ...body }) => body,
    }),
  embeddingModels: cohereEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('cohere', options),
  // `user` is among the Compatibility API's unsupported parameters (above).
  embeddingOptions: () => undefined,
};

export default cohere;
