import type { ProviderFixtures } from '../types.ts';

const MODELS_API = 'https://docs.llm7.io/guides/models-api';

/** One entry of GET /v1/models in the documented shape (MODELS_API's example, the fields its reference names). */
function listed(id: string, tier: 'turbo' | 'pro', tokens: number, extra: { readonly tools: boolean; readonly image: boolean }): unknown {
  return {
    id,
    object: 'model',
    created: 1782277907,
    owned_by: '',
    tier,
    pricing: { input: tier === 'pro' ? 0.5 : 0, output: tier === 'pro' ? 4.5 : 0, currency: 'USD', unit: '1M tokens' },
    pricing_mode: 'token',
    modalities: { input: extra.image ? ['text', 'image'] : ['text'], output: ['text'] },
    context_window: { tokens, chars: null },
    usage_based_only: tier === 'pro',
    stream: true,
    json_mode: tier === 'pro',
    reasoning: false,
    tools_calling: extra.tools,
  };
}

const fixtures: ProviderFixtures = {
  // The token format is not documented: a made-up random value.
  sampleKey: 'Xc7Rq2Lm9Vt4Bn8Kw3Hs6Jd1Pf5Zg0Ya',
  listing: {
    source: `${MODELS_API} (Response shape; Field reference)`,
    body: {
      object: 'list',
      data: [
        listed('gpt-5.4', 'pro', 1050000, { tools: true, image: false }),
        listed('mistral-small-3.1-24b-instruct-2503', 'turbo', 32000, { tools: false, image: true }),
        listed('default', 'turbo', 32000, { tools: false, image: false }),
      ],
    },
    expected: [
      { id: 'gpt-5.4', kind: 'chat', free: false },
      { id: 'mistral-small-3.1-24b-instruct-2503', kind: 'chat', free: true },
      { id: 'default', kind: 'chat', free: true },
    ],
  },
  errors: [
    {
      // A chat call without a token, as reproduced three times on 2026-08-11.
      source: 'https://github.com/0xzr/freellmpool/issues/109',
      name: 'missing token',
      status: 401,
      body: { error: { message: 'Missing API key.', type: 'authentication_error' } },
      kind: 'invalid_key',
    },
    {
      // "Limits depend on the model and may be lower"; no body documented.
      source: 'https://github.com/chigwell/llm7.io/blob/main/components/FeaturedComponent.tsx (Free: 40 r/m, 100 r/h)',
      name: 'free token rate limit',
      status: 429,
      body: '',
      kind: 'rate_limited',
      retryAfter: 60,
    },
  ],
};

export default fixtures;
