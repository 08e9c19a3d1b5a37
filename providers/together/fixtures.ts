import type { ProviderFixtures } from '../types.ts';

const errors = 'https://docs.together.ai/docs/error-codes';
const limits = 'https://docs.together.ai/docs/rate-limits';

const fixtures: ProviderFixtures = {
  sampleKey: 'tgp_v1_Zq3Xw8Ec5Rv2Tb7Yn4Um9Ik1Ol6Pa0Sd',
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
      source: `${errors} (503 Engine Overloaded)`,
      name: 'engine overloaded',
      status: 503,
      body: { error: { message: 'The server is overloaded or not ready yet.', type: 'server_error', param: null, code: null } },
      kind: 'server',
    },
  ],
};

export default fixtures;
