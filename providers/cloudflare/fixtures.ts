import type { ProviderFixtures } from '../types.ts';

const errors = 'https://developers.cloudflare.com/workers-ai/platform/errors/';
/** Cloudflare's v4 API error envelope. */
const failure = (code: number, message: string): unknown => ({ errors: [{ message, code }], success: false, result: null, messages: [] });

const fixtures: ProviderFixtures = {
  sampleKey: 'a1b2c3d4e5f60718293a4b5c6d7e8f90:CFq8Zt3Lm7Xw2Rk9Pv4Nj6Hb1Yc5Td0Gs',
  // Workers AI's OpenAI endpoint lives under the account id, the part of the key before the colon.
  wire: { chatPath: (_modelId, key) => `/accounts/${key.slice(0, key.indexOf(':'))}/ai/v1/chat/completions` },
  errors: [
    {
      // "All limits reset daily at 00:00 UTC" (Workers AI pricing): four hours after FIXTURE_NOW.
      source: `${errors} (3036 Account limited, 429); https://developers.cloudflare.com/workers-ai/platform/pricing/ (reset at 00:00 UTC)`,
      name: 'daily free allocation used up: out until 00:00 UTC',
      status: 429,
      body: failure(3036, "AiError: You have used up your daily free allocation of 10,000 neurons. Please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage."),
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${errors} (3040 Out of capacity, 429)`,
      name: 'out of capacity: the provider, not the key',
      status: 429,
      body: failure(3040, 'AiError: No more data centers to forward the request to'),
      kind: 'server',
    },
    {
      source: 'https://developers.cloudflare.com/fundamentals/api/troubleshooting/ (10000 Authentication error)',
      name: 'invalid API token',
      status: 401,
      body: failure(10000, 'Authentication error'),
      kind: 'invalid_key',
    },
    {
      source: `${errors} (3023 Account blocked, 403)`,
      name: 'account blocked',
      status: 403,
      body: failure(3023, 'AiError: Service unavailable for account'),
      kind: 'invalid_key',
    },
    {
      // A 400 that is about the model, not the request: another provider may serve it.
      source: `${errors} (5007 No such model, 400)`,
      name: 'no such model (HTTP 400)',
      status: 400,
      body: failure(5007, 'AiError: No such model @cf/meta/llama-9-8b-instruct or task'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (3042 Invalid model ID, 404)`,
      name: 'invalid model id',
      status: 404,
      body: failure(3042, 'AiError: The model name is invalid'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (3006 Request too large, 413)`,
      name: 'request too large for the model',
      status: 413,
      body: failure(3006, 'AiError: Request is too large'),
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
