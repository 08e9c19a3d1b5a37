import type { ProviderFixtures } from '../types.ts';

const GETTING_STARTED = 'https://github.com/ovh/docs/blob/develop/pages/public_cloud/ai_machine_learning/endpoints_guide_01_getting_started/guide.en-gb.md';

/** One entry of GET /v1/models in the fields the roster of 2026-09-28 reports: window, output cap, per-token USD prices. */
const listed = (id: string, contextLength: number, maxCompletionTokens: number, prompt: number, completion: number): unknown => ({
  id,
  object: 'model',
  context_length: contextLength,
  max_completion_tokens: maxCompletionTokens,
  pricing: { prompt, completion },
});

const fixtures: ProviderFixtures = {
  // The key format is not documented: a made-up random value.
  sampleKey: 'Lw5Rx8Tq2Vn7Kc4Hp9Zb3Ym6Dj1Fs0GaXe',
  listing: {
    // Fields and values as recorded from the unauthenticated answer of 2026-09-28 (24 models, chat and others);
    // the record gives no values for the last three, which are on the same roster.
    source: 'https://github.com/juspay/neurolink/blob/master/src/lib/providers/catalog/ovhcloud.json (GET https://oai.endpoints.kepler.ai.cloud.ovh.net/v1/models, 2026-09-28)',
    body: {
      object: 'list',
      data: [
        listed('gpt-oss-120b', 131072, 131072, 0.00000009, 0.00000047),
        listed('Qwen2.5-VL-72B-Instruct', 32768, 32768, 0.00000101, 0.00000101),
        listed('Qwen3Guard-Gen-8B', 32768, 16384, 0, 0),
        { id: 'BGE-M3', object: 'model' },
        { id: 'whisper-large-v3', object: 'model' },
        { id: 'stable-diffusion-xl-base-v10', object: 'model' },
      ],
    },
    // A key's calls are billed; the guard, speech and image models are never routed as chat.
    expected: [
      { id: 'gpt-oss-120b', kind: 'chat', free: false },
      { id: 'Qwen2.5-VL-72B-Instruct', kind: 'chat', free: false },
      { id: 'Qwen3Guard-Gen-8B', kind: 'other', free: false },
      { id: 'BGE-M3', kind: 'embedding', free: false },
      { id: 'whisper-large-v3', kind: 'transcription', free: false },
      { id: 'stable-diffusion-xl-base-v10', kind: 'other', free: false },
    ],
  },
  errors: [
    {
      // "If you exceed this limit, a 429 error code will be returned"; OVHcloud quotes no body and no Retry-After.
      source: `${GETTING_STARTED} (Model rate limit)`,
      name: 'per-minute rate limit (2 a minute without a key, 400 with one)',
      status: 429,
      body: '',
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // "The API should return an error message indicating that the credentials are invalid, such as
      // `403 Forbidden: Authentication Failed`"; whether the body is JSON is not documented.
      source: `${GETTING_STARTED} (Revoke your API access key)`,
      name: 'revoked or invalid key',
      status: 403,
      body: 'Authentication Failed',
      kind: 'invalid_key',
    },
  ],
};

export default fixtures;
