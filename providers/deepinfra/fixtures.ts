import type { ProviderFixtures } from '../types.ts';

const fixtures: ProviderFixtures = {
  sampleKey: 'Mn4Bv9Cx2Zl7Kj3Hg8Fd5Sa1Qw6Er0TyUi',
  errors: [
    {
      source: 'https://deepinfra.com/docs/openai_api (OpenAI-compatible errors); body quoted in https://github.com/xtekky/gpt4free/issues/3446',
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'Not authenticated', type: 'invalid_request_error', param: null, code: null } },
      kind: 'invalid_key',
    },
    {
      source: 'body quoted in https://github.com/XInTheDark/raycast-g4f/issues/179',
      name: 'key refused',
      status: 403,
      body: { detail: { error: 'Not authenticated' } },
      kind: 'invalid_key',
    },
    {
      source: 'https://deepinfra.com/docs/advanced/rate-limits (429 above the concurrent request limit)',
      name: 'rate limited',
      status: 429,
      body: { error: { message: 'Rate limit exceeded', type: 'rate_limit_error', param: null, code: null } },
      kind: 'rate_limited',
      retryAfter: 60,
    },
  ],
};

export default fixtures;
