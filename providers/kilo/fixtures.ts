import type { ProviderFixtures } from '../types.ts';

const AUTHENTICATION = 'https://kilo.ai/docs/gateway/authentication';
const MODELS = 'https://kilo.ai/docs/gateway/models-and-providers';

/** One entry of GET /models in the OpenRouter shape the gateway relays (pricing, context window, supported features). */
function listed(id: string, contextLength: number, inputs: readonly string[], price: string, parameters: readonly string[]): unknown {
  return {
    id,
    name: id,
    context_length: contextLength,
    architecture: { input_modalities: inputs, output_modalities: ['text'] },
    pricing: { prompt: price, completion: price },
    top_provider: { context_length: contextLength, max_completion_tokens: null },
    supported_parameters: parameters,
  };
}

const fixtures: ProviderFixtures = {
  // A made-up JWT-shaped key (header, payload, signature), as Kilo's keys are JWTs.
  sampleKey: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJrUm9sZSI6IlFwN3dYIiwidElkIjoiWjh2TTJ9.Hq4nTz7LwRb9XcKf2JpVd5GsYm1EaUo3',
  listing: {
    // GET https://api.kilo.ai/api/gateway/models, which needs no key: ids, pricing, context window and supported
    // features (MODELS); the free entries as the page's table names them, a paid one beside them.
    source: `${MODELS} (Available models; Free models)`,
    body: {
      data: [
        listed('nvidia/nemotron-3-ultra-550b-a55b:free', 1000000, ['text'], '0', ['tools', 'reasoning', 'max_tokens']),
        listed('stepfun/step-3.7-flash:free', 262144, ['text', 'image'], '0', ['tools', 'reasoning']),
        listed('anthropic/claude-sonnet-4.6', 1000000, ['text', 'image'], '0.000003', ['tools', 'max_tokens']),
        listed('openrouter/free', 200000, ['text'], '0', ['max_tokens']),
      ],
    },
    expected: [
      { id: 'nvidia/nemotron-3-ultra-550b-a55b:free', kind: 'chat', free: true },
      { id: 'stepfun/step-3.7-flash:free', kind: 'chat', free: true },
      { id: 'anthropic/claude-sonnet-4.6', kind: 'chat', free: false },
      { id: 'openrouter/free', kind: 'chat', free: true },
    ],
  },
  errors: [
    {
      // "Anonymous requests are identified by IP address and are subject to rate limiting (200 requests per hour per
      // IP)"; Kilo quotes no body and no Retry-After.
      source: `${AUTHENTICATION} (Anonymous access)`,
      name: 'anonymous hourly limit per address',
      status: 429,
      body: '',
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // "API keys are JWT tokens tied to your Kilo account"; a revoked or expired one is refused. No body documented.
      source: `${AUTHENTICATION} (API key authentication)`,
      name: 'invalid or expired key',
      status: 401,
      body: '',
      kind: 'invalid_key',
    },
  ],
};

export default fixtures;
