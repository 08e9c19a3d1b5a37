import type { ProviderFixtures } from '../types.ts';

const fixtures: ProviderFixtures = {
  sampleKey: 'nvapi-Xk4Tq9Lm2Zp7Rw3Nv8Bj5Hc1Yf6Gd0Ss-Ua',
  errors: [
    {
      // NVIDIA's API catalog answers in RFC 9457 problem details: status, title, detail.
      source: 'problem-details body quoted in https://github.com/HKUDS/OpenHarness/issues/233 and https://github.com/can1357/oh-my-pi/issues/499',
      name: 'key not authorized',
      status: 403,
      body: { status: 403, title: 'Forbidden', detail: 'Authorization failed' },
      kind: 'invalid_key',
    },
    {
      source: 'problem-details body as the 403 above; https://docs.api.nvidia.com/nim/reference (401 Unauthorized)',
      name: 'invalid API key',
      status: 401,
      body: { status: 401, title: 'Unauthorized', detail: 'Authentication failed' },
      kind: 'invalid_key',
    },
    {
      // A hosted model is served per account: the same key can reach some models and not others.
      source: 'body quoted from a live probe in https://github.com/gethouston/houston/pull/1243',
      name: 'model not served for this account',
      status: 404,
      body: { status: 404, title: 'Not Found', detail: "Function 'a1b2c3d4-0000-4000-8000-0123456789ab': Not found for account 'acct-0123456789'" },
      kind: 'model_unavailable',
    },
    {
      source: 'https://docs.api.nvidia.com/nim/reference (429 Too Many Requests; the body follows the problem-details form above)',
      name: 'rate limited (40 requests per minute on the free tier)',
      status: 429,
      body: { status: 429, title: 'Too Many Requests' },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // NIM for LLMs runs on vLLM, whose OpenAI server words the context error this way.
      source: "https://docs.nvidia.com/nim/large-language-models/latest/ (OpenAI-compatible errors); vLLM's context-length message",
      name: 'context length exceeded',
      status: 400,
      body: {
        object: 'error',
        message: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (139000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
