import type { ProviderFixtures } from '../types.ts';

const fixtures: ProviderFixtures = {
  sampleKey: 'Wq8Er3Ty6Ui1Op4As7Df2Gh5Jk9Lz0Xc',
  errors: [
    {
      // The free tier allows about one request per second; Mistral sends no Retry-After.
      source: 'https://docs.mistral.ai/deployment/laplateforme/tier/ (requests per second); body quoted in https://github.com/dnakov/anon-kode/issues/53',
      name: 'request rate limit',
      status: 429,
      body: { message: 'Requests rate limit exceeded' },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: 'https://docs.mistral.ai/api/ (401 Unauthorized)',
      name: 'invalid API key',
      status: 401,
      body: { message: 'Unauthorized', request_id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9' },
      kind: 'invalid_key',
    },
    {
      source: 'https://docs.mistral.ai/api/ (400 with type invalid_model)',
      name: 'invalid model',
      status: 400,
      body: { object: 'error', message: 'Invalid model: mistral-nope-latest', type: 'invalid_model', param: null, code: '1500' },
      kind: 'model_unavailable',
    },
    {
      source: 'https://docs.mistral.ai/api/ (400 invalid_request_message_error: prompt larger than the context window)',
      name: 'context length exceeded',
      status: 400,
      body: {
        object: 'error',
        message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
        type: 'invalid_request_message_error',
        param: null,
        code: '3051',
      },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
