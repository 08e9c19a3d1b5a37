import type { ProviderFixtures } from '../types.ts';

const errors = 'https://api-docs.deepseek.com/quick_start/error_codes';
const sampleKey = 'sk-7c2e9a4f1b6d3e8a5c0f2b7d4e9a1c6f';
const failure = (message: string, type: string, code: string | null = 'invalid_request_error'): unknown => ({ error: { message, type, param: null, code } });

const fixtures: ProviderFixtures = {
  sampleKey,
  listing: {
    // The example answer of the API reference (its ids then current); DeepSeek lists only chat models.
    source: 'https://api-docs.deepseek.com/api/list-models',
    body: {
      object: 'list',
      data: [
        { id: 'deepseek-chat', object: 'model', owned_by: 'deepseek' },
        { id: 'deepseek-reasoner', object: 'model', owned_by: 'deepseek' },
      ],
    },
    expected: [
      { id: 'deepseek-chat', kind: 'chat', free: false },
      { id: 'deepseek-reasoner', kind: 'chat', free: false },
    ],
  },
  errors: [
    {
      // DeepSeek echoes the last four characters of the key; the redactor owns what becomes of them.
      source: `${errors} (401 Authentication Fails); body quoted in https://github.com/BerriAI/litellm/issues/10403`,
      name: 'invalid API key (the message echoes a masked key)',
      status: 401,
      body: failure(`Authentication Fails, Your api key: ****${sampleKey.slice(-4)} is invalid`, 'authentication_error'),
      kind: 'invalid_key',
    },
    {
      // Body quoted in continuedev/continue#4484.
      source: `${errors} (402 Insufficient Balance); body quoted in https://github.com/continuedev/continue/issues/4484`,
      name: 'insufficient balance',
      status: 402,
      body: failure('Insufficient Balance', 'unknown_error'),
      kind: 'no_credit',
    },
    {
      source: `${errors} (429 Rate Limit Reached)`,
      name: 'rate limit reached',
      status: 429,
      body: failure('Rate Limit Reached', 'rate_limit_reached_error'),
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // A 400 about the model, which generic wording would take for the caller's mistake.
      source: `${errors} (400 Invalid Format: a model id DeepSeek does not serve)`,
      name: 'model does not exist (HTTP 400)',
      status: 400,
      body: failure('Model Not Exist', 'invalid_request_error'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (400 Invalid Format: the request is over the context length)`,
      name: 'context length exceeded',
      status: 400,
      body: failure(
        "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (139000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        'invalid_request_error',
      ),
      kind: 'context_too_long',
    },
    {
      source: `${errors} (503 Server Overloaded)`,
      name: 'server overloaded',
      status: 503,
      body: failure('Server is busy, please try again later.', 'server_error', null),
      kind: 'server',
    },
  ],
};

export default fixtures;
