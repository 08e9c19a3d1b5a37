import type { ProviderFixtures } from '../types.ts';

const errors = 'https://docs.sambanova.ai/docs/en/api-reference/using-the-api/api-error-codes';
const limits = 'https://docs.sambanova.ai/docs/en/models/rate-limits';
/** SambaNova's error envelope: OpenAI's, plus a request_id. */
const failure = (message: string, type: string, code: string | null, param: string | null = null): unknown => ({
  error: { message, type, param, code },
  request_id: '2a8b3c4d-1234-5678-abcd-ef0123456789',
});

const fixtures: ProviderFixtures = {
  sampleKey: '6f1d2a7c-3b8e-4f90-a5c1-d2e7f3a8b4c9',
  errors: [
    {
      source: `${errors} (429 Too many requests); ${limits} (x-ratelimit-reset-requests)`,
      name: 'per-minute request limit: out until x-ratelimit-reset-requests',
      status: 429,
      headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '41' },
      body: failure('Rate limit exceeded', 'rate_limit_exceeded', 'rate_limit_exceeded'),
      kind: 'rate_limited',
      retryAfter: 41,
    },
    {
      source: `${errors} (429); ${limits} (requests per day, x-ratelimit-*-requests-day)`,
      name: 'daily request limit: out until x-ratelimit-reset-requests-day',
      status: 429,
      headers: { 'x-ratelimit-remaining-requests-day': '0', 'x-ratelimit-reset-requests-day': '4h17m' },
      body: failure('Rate limit exceeded', 'rate_limit_exceeded', 'rate_limit_exceeded'),
      kind: 'rate_limited',
      retryAfter: 15_420,
    },
    {
      source: `${errors} (401 Unauthorized: credentials missing or invalid)`,
      name: 'invalid API key',
      status: 401,
      body: failure('Invalid API key', 'authentication_error', 'invalid_api_key'),
      kind: 'invalid_key',
    },
    {
      // 410 Gone: the model was deprecated or removed, another provider may still serve it.
      source: `${errors} (410 Gone: the model is no longer available)`,
      name: 'model deprecated or removed (HTTP 410)',
      status: 410,
      body: failure('Model Meta-Llama-3.1-405B-Instruct is no longer available.', 'invalid_request_error', 'model_deprecated', 'model'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (400 context_length_exceeded)`,
      name: 'context length exceeded',
      status: 400,
      body: failure("The number of input and output tokens exceeds the model's context length.", 'invalid_request_error', 'context_length_exceeded', 'messages'),
      kind: 'context_too_long',
    },
    {
      source: `${errors} (504 Queue full)`,
      name: 'queue full',
      status: 504,
      body: failure('The request queue is full, please retry later.', 'server_error', null),
      kind: 'server',
    },
  ],
};

export default fixtures;
