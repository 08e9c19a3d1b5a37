import type { ProviderFixtures } from '../types.ts';

const errors = 'https://docs.together.ai/docs/error-codes';
const limits = 'https://docs.together.ai/docs/rate-limits';

const fixtures: ProviderFixtures = {
  sampleKey: 'tgp_v1_Zq3Xw8Ec5Rv2Tb7Yn4Um9Ik1Ol6Pa0Sd',
  listing: {
    // The API reference's example entry (Austism/chronos-hermes-13b), then entries of the same shape for a chat, an
    // embedding and a moderation model of the serverless catalog.
    source: 'https://docs.together.ai/reference/models',
    body: [
      { id: 'Austism/chronos-hermes-13b', object: 'model', created: 1692896905, type: 'chat', display_name: 'Chronos Hermes (13B)', organization: 'Austism', link: 'https://huggingface.co/Austism/chronos-hermes-13b', license: 'other', context_length: 2048, pricing: { hourly: 0, input: 0.3, output: 0.3, base: 0, finetune: 0 } },
      { id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', object: 'model', created: 1733448000, type: 'chat', display_name: 'Meta Llama 3.3 70B Instruct Turbo', organization: 'Meta', link: 'https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct', license: 'llama3.3', context_length: 131072, pricing: { hourly: 0, input: 0.88, output: 0.88, base: 0, finetune: 0 } },
      { id: 'BAAI/bge-large-en-v1.5', object: 'model', created: 1706659200, type: 'embedding', display_name: 'BAAI-Bge-Large-1p5', organization: 'BAAI', link: 'https://huggingface.co/BAAI/bge-large-en-v1.5', license: 'MIT', context_length: 512, pricing: { hourly: 0, input: 0.02, output: 0.02, base: 0, finetune: 0 } },
      { id: 'meta-llama/Llama-Guard-4-12B', object: 'model', created: 1745971200, type: 'moderation', display_name: 'Llama Guard 4 12B', organization: 'Meta', link: 'https://huggingface.co/meta-llama/Llama-Guard-4-12B', license: 'llama4', context_length: 1048576, pricing: { hourly: 0, input: 0.2, output: 0.2, base: 0, finetune: 0 } },
    ],
    expected: [
      { id: 'Austism/chronos-hermes-13b', kind: 'chat', free: false },
      { id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', kind: 'chat', free: false },
      { id: 'BAAI/bge-large-en-v1.5', kind: 'embedding', free: false },
      { id: 'meta-llama/Llama-Guard-4-12B', kind: 'other', free: false },
    ],
  },
  errors: [
    {
      source: `${limits} (429 with error_type dynamic_request_limited; x-ratelimit-reset, seconds until the reset)`,
      name: 'request rate above the dynamic limit',
      status: 429,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' },
      body: { error: { message: 'Request rate limit exceeded for model meta-llama/Llama-3.3-70B-Instruct-Turbo.', type: 'dynamic_request_limited', param: null, code: null } },
      kind: 'rate_limited',
      retryAfter: 3,
    },
    {
      source: `${limits} (429 with error_type dynamic_token_limited)`,
      name: 'token rate above the dynamic limit',
      status: 429,
      body: { error: { message: 'Token rate limit exceeded for model meta-llama/Llama-3.3-70B-Instruct-Turbo.', type: 'dynamic_token_limited', param: null, code: null } },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: `${errors} (401 Authentication Error: missing or invalid API key)`,
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
      kind: 'invalid_key',
    },
    {
      // Together documents 403 as input tokens + max_tokens over the model's context length, not a key problem.
      source: `${errors} (403: the combined input tokens and max_tokens must be less than the context length)`,
      name: 'context length exceeded (HTTP 403)',
      status: 403,
      body: { error: { message: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 131073. Given: 140000 `inputs` tokens and 1000 `max_new_tokens`', type: 'invalid_request_error', param: null, code: null } },
      kind: 'context_too_long',
    },
    {
      source: `${errors} (404 Not Found: the model name is invalid)`,
      name: 'model not available',
      status: 404,
      body: { error: { message: 'Unable to access model meta-llama/Llama-9-70B. Please visit https://api.together.ai/models to view the list of supported models.', type: 'invalid_request_error', param: null, code: 'model_not_available' } },
      kind: 'model_unavailable',
    },
    {
      // Together's 402 is no credit left (or the monthly spending limit reached); body quoted in expectedparrot/edsl#2098.
      source: `${errors} (402 Payment Required); body quoted in https://github.com/expectedparrot/edsl/issues/2098`,
      name: 'credit limit exceeded (HTTP 402)',
      status: 402,
      body: { id: 'o3LiXw4-62bZhn-96040daf687810ab', error: { message: 'Credit limit exceeded. Please navigate to https://api.together.xyz/settings/billing to add credit or upgrade your plan.', type: 'credit_limit', param: null, code: null } },
      kind: 'no_credit',
    },
    {
      source: `${errors} (503 Engine Overloaded)`,
      name: 'engine overloaded',
      status: 503,
      body: { error: { message: 'The server is overloaded or not ready yet.', type: 'server_error', param: null, code: null } },
      kind: 'server',
    },
  ],
};

export default fixtures;
