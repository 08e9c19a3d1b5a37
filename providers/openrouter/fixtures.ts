import { FIXTURE_NOW, type ProviderFixtures } from '../types.ts';

const errors = 'https://openrouter.ai/docs/api-reference/errors';
const limits = 'https://openrouter.ai/docs/api-reference/limits';
/** The free-model daily counter resets at 00:00 UTC: four hours after FIXTURE_NOW. */
const nextUtcDay = String(Date.UTC(2026, 0, 16));

const fixtures: ProviderFixtures = {
  sampleKey: 'sk-or-v1-8f3a9c2e7b1d4f6a0c5e9b3d7f1a4c8e',
  errors: [
    {
      source: `${limits} (free-model daily limit, X-RateLimit-Reset in epoch ms)`,
      name: 'daily free-model limit: out until X-RateLimit-Reset',
      status: 429,
      headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': nextUtcDay },
      body: {
        error: {
          message: 'Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day',
          code: 429,
          metadata: { headers: { 'X-RateLimit-Limit': '50', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': nextUtcDay }, provider_name: null },
        },
      },
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${limits} (the reset also travels in error.metadata.headers)`,
      name: 'daily free-model limit with the reset only in the body',
      status: 429,
      body: {
        error: {
          message: 'Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day',
          code: 429,
          metadata: { headers: { 'X-RateLimit-Limit': '50', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': nextUtcDay }, provider_name: null },
        },
      },
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${limits} (20 requests per minute on free models)`,
      name: 'per-minute free-model limit: out until X-RateLimit-Reset',
      status: 429,
      headers: { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(FIXTURE_NOW + 37_000) },
      body: { error: { message: 'Rate limit exceeded: free-models-per-min. ', code: 429, metadata: { provider_name: null } } },
      kind: 'rate_limited',
      retryAfter: 37,
    },
    {
      source: `${errors} (429: rate limited; error.metadata.raw carries the upstream provider's message)`,
      name: 'the upstream provider behind OpenRouter is rate-limited',
      status: 429,
      body: {
        error: {
          message: 'Provider returned error',
          code: 429,
          metadata: {
            raw: 'google/gemma-4-31b-it:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations',
            provider_name: 'Google AI Studio',
          },
        },
      },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: `${errors} (401: invalid credentials)`,
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'User not found.', code: 401 } },
      kind: 'invalid_key',
    },
    {
      // A 403 here is the caller's input, not the key: every other provider would see the same input.
      source: `${errors} (403: your chosen model requires moderation and your input was flagged)`,
      name: 'input flagged by moderation',
      status: 403,
      body: {
        error: {
          message: 'openai/gpt-oss-20b:free requires moderation on OpenAI. Your input was flagged for "violence/graphic". No credits were charged.',
          code: 403,
          metadata: { reasons: ['violence/graphic'], flagged_input: '...', provider_name: 'OpenAI', model_slug: 'openai/gpt-oss-20b:free' },
        },
      },
      kind: 'request',
    },
    {
      source: `${errors} (404: no endpoints for the model)`,
      name: 'model not found',
      status: 404,
      body: { error: { message: 'No endpoints found for nvidia/nemotron-9-nano:free.', code: 404 } },
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (400: bad request; the context-length message names the middle-out transform)`,
      name: 'context length exceeded',
      status: 400,
      body: {
        error: {
          message:
            "This endpoint's maximum context length is 262144 tokens. However, you requested about 300000 tokens (299000 of text input, 1000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.",
          code: 400,
          metadata: { provider_name: null },
        },
      },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
