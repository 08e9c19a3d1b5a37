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
  listing: {
    // The documented shape (data[] with context_length, max_completion_tokens, pricing); ids and windows from the
    // models page and the /v1/models answer quoted in juspay/neurolink's guide (2026-08-27), prices per token from the
    // same guide. The embedding and speech models (on the embeddings and audio pages) carry no chat pricing.
    source: 'https://docs.sambanova.ai/docs/api-reference/models/get-environments-available-model-list-metadata',
    body: {
      object: 'list',
      data: [
        { id: 'Meta-Llama-3.3-70B-Instruct', object: 'model', owned_by: 'Meta', context_length: 131072, max_completion_tokens: 8192, sn_metadata: {}, pricing: { prompt: 0.0000006, completion: 0.0000012 } },
        { id: 'MiniMax-M2.7', object: 'model', owned_by: 'MiniMax', context_length: 196608, max_completion_tokens: 32768, sn_metadata: {}, pricing: { prompt: 0.0000006, completion: 0.0000024 } },
        { id: 'E5-Mistral-7B-Instruct', object: 'model', owned_by: 'intfloat', context_length: 4096, sn_metadata: {} },
        { id: 'Whisper-Large-v3', object: 'model', owned_by: 'OpenAI', sn_metadata: {} },
      ],
    },
    expected: [
      { id: 'Meta-Llama-3.3-70B-Instruct', kind: 'chat', free: false },
      { id: 'MiniMax-M2.7', kind: 'chat', free: false },
      { id: 'E5-Mistral-7B-Instruct', kind: 'embedding', free: false },
      { id: 'Whisper-Large-v3', kind: 'transcription', free: false },
    ],
  },
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
      // No free allowance, or the trial credit spent: every call, whatever the model. The code and balance_units are
      // as users quote them (mnfst/awesome-free-llm-apis#95; juspay/neurolink's guide); the envelope is SambaNova's.
      source: `${errors} (402); code quoted in https://github.com/mnfst/awesome-free-llm-apis/issues/95`,
      name: 'payment method required (HTTP 402)',
      status: 402,
      body: { ...(failure('Payment method required', 'payment_required', 'PAYMENT_METHOD_REQUIRED') as object), balance_units: 0 },
      kind: 'no_credit',
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
