import type { ProviderFixtures } from '../types.ts';

const errors = 'https://inference-docs.cerebras.ai/support/error';
const limits = 'https://inference-docs.cerebras.ai/support/rate-limits';

const fixtures: ProviderFixtures = {
  sampleKey: 'csk-m4x9q2w7e5r8t3y6u1i0o4p7a2s5d8f3g6',
  listing: {
    // The example answer of the API reference; Cerebras lists only chat models.
    source: 'https://inference-docs.cerebras.ai/api-reference/models',
    body: {
      object: 'list',
      data: [
        { id: 'llama3.1-8b', object: 'model', created: 1721692800, owned_by: 'Meta' },
        { id: 'gpt-oss-120b', object: 'model', created: 1733443200, owned_by: 'Meta' },
      ],
    },
    expected: [
      { id: 'llama3.1-8b', kind: 'chat', free: false },
      { id: 'gpt-oss-120b', kind: 'chat', free: false },
    ],
  },
  errors: [
    {
      // Message quoted in continuedev/continue#9800; the reset header is the rate-limits page's.
      source: `${limits} (x-ratelimit-reset-tokens-minute); body quoted in https://github.com/continuedev/continue/issues/9800`,
      name: 'per-minute token limit: out until x-ratelimit-reset-tokens-minute',
      status: 429,
      headers: { 'x-ratelimit-remaining-tokens-minute': '0', 'x-ratelimit-reset-tokens-minute': '11.382867097854614' },
      body: { message: 'Tokens per minute limit exceeded - too many tokens processed.', type: 'too_many_tokens_error', param: 'quota', code: 'token_quota_exceeded' },
      kind: 'rate_limited',
      retryAfter: 12,
    },
    {
      source: `${limits} (x-ratelimit-reset-requests-day, seconds until the daily reset)`,
      name: 'daily request limit: out until x-ratelimit-reset-requests-day',
      status: 429,
      headers: { 'x-ratelimit-remaining-requests-day': '0', 'x-ratelimit-reset-requests-day': '33011.382867097855' },
      body: { message: 'Requests per day limit exceeded - too many requests sent.', type: 'too_many_requests_error', param: 'quota', code: 'request_quota_exceeded' },
      kind: 'rate_limited',
      retryAfter: 33_012,
    },
    {
      source: `${limits} (tokens per day, TPD)`,
      name: 'daily token limit without a reset header: out until 00:00 UTC',
      status: 429,
      body: { message: 'Tokens per day limit exceeded - too many tokens processed.', type: 'too_many_tokens_error', param: 'quota', code: 'token_quota_exceeded' },
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${errors} (401 AuthenticationError)`,
      name: 'invalid API key',
      status: 401,
      body: { message: 'Wrong API Key', type: 'invalid_request_error', param: 'api_key', code: 'wrong_api_key' },
      kind: 'invalid_key',
    },
    {
      source: `${errors} (404 NotFoundError)`,
      name: 'model not found',
      status: 404,
      body: { message: 'Model llama-9-70b does not exist or you do not have access to it.', type: 'not_found_error', param: 'model', code: 'model_not_found' },
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (400 BadRequestError; OpenAI's context_length_exceeded code)`,
      name: 'context length exceeded',
      status: 400,
      body: { message: 'Please reduce the length of the messages or completion.', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
