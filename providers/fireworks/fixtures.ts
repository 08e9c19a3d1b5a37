import type { ProviderFixtures } from '../types.ts';

const limits = 'https://docs.fireworks.ai/serverless/rate-limits';

const fixtures: ProviderFixtures = {
  sampleKey: 'fw_Bv7Nc2Mx5Lz8Ka3Js6Hd9Gf1Ds4Ap0Qw',
  errors: [
    {
      source: `${limits} (429 Too Many Requests above the adaptive limits)`,
      name: 'rate limited',
      status: 429,
      body: { error: { object: 'error', type: 'rate_limit_exceeded', message: 'Request rate limit exceeded, please try again later' } },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: `${limits} (503 Service Overloaded)`,
      name: 'service overloaded',
      status: 503,
      body: { error: { object: 'error', type: 'internal_server_error', message: 'Service overloaded, please try again later' } },
      kind: 'server',
    },
    {
      source: 'https://docs.fireworks.ai/api-reference/introduction (Bearer API key; 401 when it is invalid)',
      name: 'invalid API key',
      status: 401,
      body: { error: { object: 'error', type: 'unauthorized', message: 'The API key you provided is invalid.' } },
      kind: 'invalid_key',
    },
    {
      // Quoted in BerriAI/litellm#3465: a model that has no chat template.
      source: 'body quoted in https://github.com/BerriAI/litellm/issues/3465',
      name: 'model not servable through chat completions',
      status: 404,
      body: { error: { object: 'error', type: 'invalid_request_error', message: 'model is missing conversation_config, please use /completions API instead' } },
      kind: 'model_unavailable',
    },
    {
      source: 'https://github.com/ogx-ai/ogx/issues/697 (400 naming the maximum context length)',
      name: 'context length exceeded',
      status: 400,
      body: { error: { object: 'error', type: 'invalid_request_error', message: 'The prompt is too long: 140000, model maximum context length: 131072' } },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
